/* ETMv4/ETE trace encoder: atoms held back and packed (digest 5.14), the
 * commit model of speculation (7.2), cycle counts (5.8; Arm ARM D4.3.7.1)
 * and the mispredict and cancel packets a speculating trace unit writes.
 * Shared state: ete_enc_internal.h. */
#include "ete_enc_internal.h"

/* ---- Atoms (digest 5.14) ---------------------------------------------------- */

/* The header of an atom packet for @n atoms @a (oldest first, 1 = E), or
 * -1 when no format holds them; *@fmt gets the format. */
static int atom_header(const uint8_t *a, unsigned n, unsigned *fmt)
{
	unsigned bits = 0, lead = 0;

	for (unsigned i = 0; i < n && i < 5; i++)
		bits |= (unsigned)a[i] << i;
	while (lead < n && a[lead])
		lead++;
	if (n >= 4 && n <= 24 && lead >= n - 1) {
		/* Format 6: (CCCCC + 3) E atoms, then E (A = 0) or N. */
		*fmt = 6;
		return (int)(0xc0u | (a[n - 1] ? 0 : 0x20u) | (n - 4));
	}
	switch (n) {
	case 1:
		*fmt = 1;
		return (int)(0xf6u | bits);
	case 2:
		*fmt = 2;
		return (int)(0xd8u | bits);
	case 3:
		*fmt = 3;
		return (int)(0xf8u | bits);
	case 4:
		*fmt = 4;
		switch (bits) {
		case 0xe: return 0xdc; /* N E E E */
		case 0x0: return 0xdd; /* N N N N */
		case 0xa: return 0xde; /* N E N E */
		case 0x5: return 0xdf; /* E N E N */
		}
		return -1;
	case 5:
		*fmt = 5;
		switch (bits) {
		case 0x00: return 0xd5; /* N N N N N */
		case 0x0a: return 0xd6; /* N E N E N */
		case 0x15: return 0xd7; /* E N E N E */
		case 0x1e: return 0xf5; /* N E E E E */
		}
		return -1;
	}
	return -1;
}

/* ---- Cycle counts (digest 5.8; D4.3.7.1) ------------------------------------ */

/* A P0 element traced: the cycles of the record up to its last
 * instruction, @at. */
void ete_cyc_push_at(struct ete_enc *e, uint64_t at)
{
	if (!e->cc_on || e->cyc_n == e->cyc_cap)
		return; /* not reached: the ring holds every P0 in flight */
	e->cyc_at[(e->cyc_head + e->cyc_n++) % e->cyc_cap] = at;
}

void ete_cyc_push(struct ete_enc *e)
{
	ete_cyc_push_at(e, e->cyc_total);
}

/* @n P0 elements were committed: a Cycle Count for the cycles up to the
 * last of them since the previous count, when they reach the threshold.
 * Commit mode 1 (TRCIDR0.COMMOPT): the packet carries no commit. */
void ete_cyc_committed(struct ete_enc *e, uint64_t n)
{
	uint64_t at, count, v, lim;
	uint8_t p[8];
	size_t len;

	if (!e->cc_on || n == 0 || n > e->cyc_n)
		return;
	e->cyc_head = (e->cyc_head + (size_t)n - 1) % e->cyc_cap;
	at = e->cyc_at[e->cyc_head];
	e->cyc_head = (e->cyc_head + 1) % e->cyc_cap;
	e->cyc_n -= (size_t)n;
	count = at - e->cyc_counted;
	if (count < e->cfg.cc_threshold)
		return;
	v = count - e->cfg.cc_threshold;
	/* Format 1 carries at most 3 C7 bytes, masked to the counter
	 * width: a larger count is sent as unknown (U = 1). */
	lim = e->info.cc_bits < 21 ? 1ull << e->info.cc_bits : 1ull << 21;
	if (v >= lim) {
		p[0] = 0x0f;
		len = 1;
	} else if (v <= 3) {
		p[0] = (uint8_t)(0x10 | v);        /* format 3 */
		len = 1;
	} else if (v <= 15) {
		p[0] = 0x0c;                       /* format 2 */
		p[1] = (uint8_t)v;
		len = 2;
	} else {
		p[0] = 0x0e;                       /* format 1 */
		len = 1 + put_c7(p + 1, v);
	}
	put_bytes(e, p, len);
	e->cyc_counted = at;
	e->st.cycle_counts++;
}

void ete_commit(struct ete_enc *e, uint64_t n)
{
	uint8_t b[8];

	if (n == 0 || e->maxspec == 0)
		return;
	b[0] = 0x2d; /* Commit, digest 5.9 */
	put_bytes(e, b, 1 + put_c7(b + 1, n));
	e->uncommitted -= n;
	e->st.commits++;
	ete_cyc_committed(e, n);
}

/* Commit so that @k more P0 elements fit under the cap, leaving at least
 * @keep of the uncommitted ones. Returns 0, or -1 when that cannot be. */
int ete_make_room(struct ete_enc *e, uint64_t k, uint64_t keep)
{
	uint64_t c;

	if (e->maxspec == 0)
		return 0;
	if (keep + k > e->cap)
		return -1;
	if (e->uncommitted + k <= e->cap)
		return 0;
	c = e->uncommitted + k - e->cap;
	ete_commit(e, c);
	return 0;
}

/* After a group of P0 packets: with spec_depth 0 under a MAXSPEC, commit
 * them at once. */
void ete_settle(struct ete_enc *e)
{
	if (e->maxspec && e->cfg.spec_depth == 0)
		ete_commit(e, e->uncommitted);
}

/* Write @n atoms @a as the fewest atom packets of at most @lim atoms
 * each (shortest path over the positions; formats 1-3 hold any atoms). */
static void write_atoms(struct ete_enc *e, const uint8_t *a, unsigned n,
			unsigned lim)
{
	uint8_t cost[ATOM_CAP + 1], take[ATOM_CAP + 1];
	unsigned fmt;

	cost[n] = 0;
	for (unsigned i = n; i-- > 0;) {
		unsigned best = 255, bl = 1;

		for (unsigned k = 1; k <= 24 && i + k <= n && k <= lim; k++) {
			if (k > 3 && atom_header(a + i, k, &fmt) < 0)
				continue;
			if (cost[i + k] + 1u <= best) {
				best = cost[i + k] + 1u;
				bl = k;
			}
		}
		cost[i] = (uint8_t)best;
		take[i] = (uint8_t)bl;
	}
	for (unsigned i = 0; i < n; i += take[i]) {
		uint8_t h;

		ete_make_room(e, take[i], 0);
		h = (uint8_t)atom_header(a + i, take[i], &fmt);
		put_bytes(e, &h, 1);
		e->st.atom_packets[fmt]++;
		if (e->maxspec)
			e->uncommitted += take[i];
		else
			ete_cyc_committed(e, take[i]); /* at once (digest 7.2) */
	}
}

static unsigned atom_limit(const struct ete_enc *e)
{
	return e->maxspec == 0 ? 24 : (e->cap < 24 ? e->cap : 24);
}

/* The pending atoms out, without settling. */
static void flush_atoms_raw(struct ete_enc *e)
{
	if (e->natoms) {
		write_atoms(e, e->atoms, e->natoms, atom_limit(e));
		e->natoms = 0;
	}
}

/* Before any other packet: the atoms, or the Q element, it follows. */
void ete_flush_atoms(struct ete_enc *e)
{
	if (e->natoms) {
		flush_atoms_raw(e);
		ete_settle(e);
	}
	if (e->q_open)
		ete_q_close(e);
}

static void push_atom(struct ete_enc *e, uint8_t a)
{
	if (e->natoms == ATOM_CAP)
		ete_flush_atoms(e);
	e->atoms[e->natoms++] = a;
}

/* Wrong-path atoms for a synthesized cancel: any values (they are never
 * walked), varied so that every atom format gets used. */
static uint8_t wrong_path(const struct ete_enc *e, unsigned i)
{
	return (uint8_t)(((e->synth_seq * 5 + i) * 0x9e3779b9u >> 7) & 1);
}

/* Mispredict (digest 5.11): the atom @a traced first as !@a. */
static int synth_mispredict(struct ete_enc *e, uint8_t a)
{
	uint8_t b;

	if (e->cap < 1)
		return -1;
	if (e->synth_seq & 1) {
		/* !a as the newest atom of an atom packet, then 0x30. */
		push_atom(e, (uint8_t)!a);
		flush_atoms_raw(e);
		b = 0x30;
	} else {
		/* 0x31: append E, flip it to N; 0x33: append N, flip it
		 * to E. */
		flush_atoms_raw(e);
		ete_make_room(e, 1, 0);
		b = a ? 0x33 : 0x31;
		e->uncommitted += 1;
	}
	put_bytes(e, &b, 1);
	ete_settle(e);
	e->st.mispredicts++;
	return 0;
}

/* Cancel (digest 5.10): wrong-path atoms after @a, cancelled; some forms
 * also trace @a wrong and mispredict it. */
static int synth_cancel(struct ete_enc *e, uint8_t a)
{
	unsigned form = (unsigned)(e->synth_seq & 3), x, n = 0, mis;
	uint8_t w[8], b[8];

	if (e->cap < 2)
		return -1;
	switch (form) {
	case 0: /* F1, M = 0: cancel x wrong-path atoms */
		x = 1 + (unsigned)(e->synth_seq / 4 % 5);
		if (x > e->cap)
			x = e->cap;
		break;
	case 1: /* F1, M = 1 */
	case 3: /* F3: cancel CC + 2, the A bit's E atom included */
		x = (form == 3 ? 2 : 1) + (unsigned)(e->synth_seq / 4 % 4);
		if (x > e->cap - 1)
			x = e->cap - 1;
		if (form == 3 && x < 2)
			return -1;
		break;
	default: /* F2: one appended atom cancelled */
		x = 1;
		break;
	}
	mis = form != 0;
	push_atom(e, mis ? (uint8_t)!a : a);
	flush_atoms_raw(e);
	if (ete_make_room(e, x, mis) < 0)
		return -1; /* not reached: x fits by the checks above */
	switch (form) {
	case 0:
	case 1:
		for (unsigned i = 0; i < x; i++)
			w[i] = wrong_path(e, i);
		write_atoms(e, w, x, x);
		b[0] = form ? 0x2f : 0x2e; /* Cancel F1, M */
		n = 1 + put_c7(b + 1, x);
		break;
	case 2: /* 0x35: append E; 0x37: append N; cancel 1, mispredict */
		b[0] = (e->synth_seq / 4) & 1 ? 0x37 : 0x35;
		e->uncommitted += 1;
		n = 1;
		break;
	default: {
		/* 0x38 | CC << 1 | A: A = 1 appends an E atom. */
		unsigned with_a = (unsigned)(e->synth_seq / 4) & 1;

		for (unsigned i = 0; i < x - with_a; i++)
			w[i] = wrong_path(e, i);
		if (x - with_a)
			write_atoms(e, w, x - with_a, x);
		b[0] = (uint8_t)(0x38 | (x - 2) << 1 | with_a);
		e->uncommitted += with_a;
		n = 1;
		break;
	}
	}
	put_bytes(e, b, n);
	e->uncommitted -= x;
	ete_settle(e);
	e->st.cancels++;
	if (mis)
		e->st.mispredicts++;
	return 0;
}

/* The atom of a P0 instruction, or of a synthesized correction. */
void ete_trace_atom(struct ete_enc *e, uint8_t a)
{
	uint64_t n = ++e->atom_seq;
	const struct ete_enc_config *c = &e->cfg;

	e->st.p0++;
	ete_cyc_push(e);
	if (c->mispredict_every && n % c->mispredict_every == 0 &&
	    synth_mispredict(e, a) == 0) {
		e->synth_seq++;
		return;
	}
	if (c->cancel_every && n % c->cancel_every == 0 &&
	    synth_cancel(e, a) == 0) {
		e->synth_seq++;
		return;
	}
	push_atom(e, a);
}
