/* ETMv3 trace encoder round trips: records of A32, T32 and mixed code
 * walked over an in-memory image (tests/support/ts_prog32.h), encoded,
 * decoded by etm3_pkt + etm3_flow fed in chunks, and compared instruction
 * by instruction with the record. Run from test_etm3_enc.c's main(). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "etmkit/etm3.h"
#include "etmkit/exec.h"
#include "etmkit/flow.h"
#include "etmkit/image.h"
#include "etmkit/insn.h"

#include "ts_out.h"
#include "ts_prog32.h"
#include "ts_rec.h"

#include "test_etm3_enc.h"

/* ---- Round trips ----------------------------------------------------------- */

static unsigned ss_bytes_of(uint32_t v)
{
	return v == 0 ? 0 : v < 0x100 ? 1 : v < 0x10000 ? 2 : 4;
}

/* Data element @x against the transfer @d it must be, @ni instructions
 * decoded so far. */
static void check_data(const struct walk_opts *o, const struct etmkit_elem *x,
		       const struct want_data *d, size_t ni)
{
	int addr_on = !!(o->etmcr & ETM3_ETMCR_DATA_ADDR);
	int value_on = !!(o->etmcr & ETM3_ETMCR_DATA_VALUE);
	uint32_t want_addr = d->half == 2 ? d->access : d->addr;

	if (!(x->flags & ETMKIT_DATA_INSN) || x->addr != d->iaddr)
		fail_msg("data at offset %llu: instruction 0x%llx (flags 0x%x), "
			 "want 0x%x", (unsigned long long)x->offset,
			 (unsigned long long)x->addr, x->flags, d->iaddr);
	/* A normal data packet comes right after its instruction's atom;
	 * out-of-order data when the value came. */
	if (!d->ooo && ni != d->insn + 1)
		fail_msg("data of instruction %zu after %zu instructions",
			 d->insn, ni);
	if (x->flags & (ETMKIT_DATA_BE | ETMKIT_DATA_STORE_FAILED |
			ETMKIT_DATA_SUPPRESSED))
		fail_msg("data flags 0x%x", x->flags);
	if (!!(x->flags & ETMKIT_DATA_OOO) != d->ooo ||
	    (d->ooo && (x->u.data.tag < 1 || x->u.data.tag > 3)) ||
	    (d->ooo && x->u.data.half != d->half))
		fail_msg("data at offset %llu: flags 0x%x tag %u half %u, want "
			 "ooo %u half %u", (unsigned long long)x->offset,
			 x->flags, x->u.data.tag, x->u.data.half, d->ooo,
			 d->half);
	if (x->flags & ETMKIT_DATA_ADDR) {
		if (!addr_on || x->u.data.data_addr != want_addr)
			fail_msg("data at offset %llu: address 0x%llx, want "
				 "0x%x", (unsigned long long)x->offset,
				 (unsigned long long)x->u.data.data_addr,
				 addr_on ? want_addr : 0);
	} else if (addr_on && !d->contig && !(d->half == 2)) {
		/* Only a transfer at the end of the one before may leave
		 * its address out (7.4.2). */
		fail_msg("data at offset %llu: no address, want 0x%x",
			 (unsigned long long)x->offset, d->addr);
	}
	if (x->flags & ETMKIT_DATA_VALUE) {
		if (!value_on || x->u.data.value != d->value ||
		    x->size != ss_bytes_of(d->value))
			fail_msg("data at offset %llu: value 0x%llx size %u, "
				 "want 0x%x", (unsigned long long)x->offset,
				 (unsigned long long)x->u.data.value, x->size,
				 d->value);
	} else if (value_on && d->value != 0) {
		/* SS 00 is the value 0 (Table 6.3): etm3_flow reports a
		 * normal data packet's as no value (see the report). */
		fail_msg("data at offset %llu: no value, want 0x%x",
			 (unsigned long long)x->offset, d->value);
	}
}

/* Decode @o->n bytes with etm3_flow fed in random chunks; compare. */
static void check_decode(const struct walk_opts *o, const struct prog *p,
			 const struct ts_out *t, const struct want *w)
{
	size_t nd_in = 0, nd_ooo = 0; /* next in-order, out-of-order data */
	struct etm3_flow_config c;
	struct etm3_flow_decoder *d;
	const struct etmkit_elem *el;
	size_t at = 0, ni = 0, nexc = 0, nts = 0;
	int k, ca = !!(o->etmcr & CR_CA), cid_on = !!(o->etmcr & (3u << 14));
	uint32_t cid = 0;
	uint8_t ns = 0, hyp = 0;

	etm3_flow_config_init(&c);
	c.etm.etmcr = o->etmcr;
	c.etm.etmidr = o->etmidr;
	c.etm.etmccer = o->etmccer;
	c.image = p->img;
	assert_int_equal(etm3_flow_alloc(&d, &c), 0);
	for (int done = 0; !done;) {
		if (at < t->n) {
			size_t len = 1 + below(below(4) ? 64 : 4096);

			if (len > t->n - at)
				len = t->n - at;
			assert_int_equal(etm3_flow_feed(d, t->b + at, len, NULL,
							at), 0);
			at += len;
		} else {
			assert_int_equal(etm3_flow_finish(d), 0);
			done = 1;
		}
		while ((k = etm3_flow_batch(d, &el)) > 0) {
			for (int i = 0; i < k; i++) {
				const struct etmkit_elem *x = &el[i];
				const struct exec_rec *r;

				switch (x->kind) {
				case etmkit_elem_insn:
					if (ni >= w->n)
						fail_msg("extra instruction at "
							 "0x%llx", (unsigned long long)x->addr);
					r = &w->insn[ni];
					if (x->addr != r->addr || x->isa != r->isa ||
					    x->size != r->size ||
					    (x->flags & (ETMKIT_INSN_EXEC |
							 ETMKIT_INSN_COND_FAIL |
							 ETMKIT_INSN_CANCEL)) !=
					    ((r->flags & EXEC_F_COND_FAIL) ?
					     ETMKIT_INSN_COND_FAIL : ETMKIT_INSN_EXEC) ||
					    (ca && (!(x->flags & ETMKIT_INSN_CYCLES) ||
						    x->cycles != r->cycles)))
						fail_msg("instruction %zu: got 0x%llx "
							 "isa %u size %u flags 0x%x "
							 "cycles %u; want 0x%llx isa "
							 "%u size %u flags 0x%x "
							 "cycles %u", ni,
							 (unsigned long long)x->addr,
							 x->isa, x->size, x->flags,
							 x->cycles,
							 (unsigned long long)r->addr,
							 r->isa, r->size, r->flags,
							 r->cycles);
					if (ns != r->ns || hyp != (r->el == 2))
						fail_msg("instruction %zu: ns %u hyp %u, "
							 "want ns %u el %u", ni, ns, hyp,
							 r->ns, r->el);
					if (cid_on && cid != r->value)
						fail_msg("instruction %zu: context ID "
							 "0x%x, want 0x%llx", ni, cid,
							 (unsigned long long)r->value);
					ni++;
					break;
				case etmkit_elem_context:
					if (x->flags & ETMKIT_CTX_CONTEXT_ID)
						cid = x->u.context.context_id;
					ns = x->u.context.ns;
					hyp = x->u.context.hyp;
					break;
				case etmkit_elem_timestamp:
					if (nts < w->nts)
						assert_int_equal(x->u.timestamp.value,
								 w->ts[nts]);
					nts++;
					break;
				case etmkit_elem_exception:
					if (nexc < w->nexc)
						assert_int_equal(x->u.exception.number,
								 w->exc[nexc]);
					assert_false(x->flags & ETMKIT_EXC_CANCEL);
					nexc++;
					break;
				case etmkit_elem_data: {
					int ooo = !!(x->flags & ETMKIT_DATA_OOO);
					size_t *at_d = ooo ? &nd_ooo : &nd_in;

					while (*at_d < w->nd &&
					       w->data[*at_d].ooo != ooo)
						(*at_d)++;
					if (*at_d == w->nd)
						fail_msg("extra data element at "
							 "offset %llu", (unsigned long long)
							 x->offset);
					check_data(o, x, &w->data[*at_d], ni);
					(*at_d)++;
					break;
				}
				case etmkit_elem_gap:
				case etmkit_elem_no_image:
				case etmkit_elem_overflow:
					fail_msg("element kind %u at offset %llu "
						 "after %zu instructions", x->kind,
						 (unsigned long long)x->offset, ni);
					break;
				default:
					break;
				}
			}
		}
		assert_int_equal(k, -etmkit_err_eos);
	}
	assert_int_equal(ni, w->n);
	/* every transfer came back */
	while (nd_in < w->nd && w->data[nd_in].ooo)
		nd_in++;
	while (nd_ooo < w->nd && !w->data[nd_ooo].ooo)
		nd_ooo++;
	assert_int_equal(nd_in, w->nd);
	assert_int_equal(nd_ooo, w->nd);
	if (w->nexc < 4096)
		assert_int_equal(nexc, w->nexc);
	if (w->nts < 4096)
		assert_int_equal(nts, w->nts);
	etm3_flow_free(d);
}

/* What the packets of a round trip were: so that a walk that stopped
 * exercising something (every branch address length, exceptions, the
 * P-header formats) shows. */
struct census {
	unsigned branch_len[6];   /* branch packets by address bytes */
	unsigned exc_bytes;       /* branch packets with exception bytes */
	unsigned isync[4];        /* by reason */
	unsigned ph_format[5];    /* P-headers by format */
	unsigned a_sync, cid, ts, vmid;
	unsigned data, placeholder, ooo_data; /* data packets */
	unsigned data_addr_len[6]; /* data addresses by bytes (1-5) */
	uint64_t last_a_sync;     /* offset of the last A-sync */
};

static void take_census(const struct walk_opts *o, const struct ts_out *t,
			struct census *c)
{
	struct etm3_config cfg;
	struct etm3_pkt_decoder *d;
	struct etm3_packet pk[64];
	int k;

	memset(c, 0, sizeof(*c));
	etm3_config_init(&cfg);
	cfg.etmcr = o->etmcr;
	cfg.etmidr = o->etmidr;
	cfg.etmccer = o->etmccer;
	assert_int_equal(etm3_pkt_alloc(&d, &cfg), 0);
	assert_int_equal(etm3_pkt_feed(d, t->b, t->n, NULL, 0), 0);
	for (int pass = 0; pass < 2; pass++) {
		while ((k = etm3_pkt_next(d, pk, 64)) > 0) {
			for (int i = 0; i < k; i++) {
				const struct etm3_packet *p = &pk[i];

				assert_int_equal(p->error, 0);
				switch (p->type) {
				case etm3_pkt_branch_address:
					c->branch_len[p->u.branch.addr_bytes]++;
					c->exc_bytes += p->u.branch.exc_bytes > 0;
					break;
				case etm3_pkt_i_sync:
				case etm3_pkt_i_sync_cycle:
					c->isync[p->u.isync.reason & 3]++;
					break;
				case etm3_pkt_p_header:
					c->ph_format[p->u.atoms.format % 5]++;
					break;
				case etm3_pkt_a_sync:
					c->a_sync++;
					c->last_a_sync = p->offset;
					break;
				case etm3_pkt_normal_data:
				case etm3_pkt_ooo_placeholder:
					if (p->type == etm3_pkt_normal_data)
						c->data++;
					else
						c->placeholder++;
					if (p->u.data.has_addr)
						c->data_addr_len[(p->u.data.addr_bits +
								  6) / 7]++;
					break;
				case etm3_pkt_ooo_data:
					assert_true(p->u.data.ooo_match);
					c->ooo_data++;
					break;
				case etm3_pkt_context_id: c->cid++; break;
				case etm3_pkt_timestamp: c->ts++; break;
				case etm3_pkt_vmid: c->vmid++; break;
				case etm3_pkt_unsynced:
					fail_msg("unsynced bytes at %llu",
						 (unsigned long long)p->offset);
					break;
				default:
					break;
				}
			}
		}
		assert_int_equal(k, -etmkit_err_eos);
		if (!pass)
			assert_int_equal(etm3_pkt_finish(d), 0);
	}
	etm3_pkt_free(d);
}

/* A decoder that starts at the last A-sync (a capture that begins there)
 * must give the record's last instructions, and nothing else: the
 * periodic sync carries everything a decode needs. */
static void check_tail(const struct walk_opts *o, const struct prog *p,
		       const struct ts_out *t, uint64_t from, const struct want *w)
{
	struct etm3_flow_config c;
	struct etm3_flow_decoder *d;
	const struct etmkit_elem *el;
	struct exec_rec *got = NULL;
	size_t n = 0, cap = 0;
	int k, ca = !!(o->etmcr & CR_CA);

	etm3_flow_config_init(&c);
	c.etm.etmcr = o->etmcr;
	c.etm.etmidr = o->etmidr;
	c.etm.etmccer = o->etmccer;
	c.image = p->img;
	assert_int_equal(etm3_flow_alloc(&d, &c), 0);
	assert_int_equal(etm3_flow_feed(d, t->b + from, t->n - (size_t)from,
					NULL, from), 0);
	for (int pass = 0; pass < 2; pass++) {
		while ((k = etm3_flow_batch(d, &el)) > 0)
			for (int i = 0; i < k; i++) {
				if (el[i].kind != etmkit_elem_insn)
					continue;
				if (n == cap) {
					cap = cap ? 2 * cap : 1024;
					got = realloc(got, cap * sizeof(*got));
					assert_non_null(got);
				}
				memset(&got[n], 0, sizeof(got[n]));
				got[n].addr = el[i].addr;
				got[n].isa = el[i].isa;
				got[n].size = el[i].size;
				got[n].flags = el[i].flags;
				got[n].cycles = el[i].cycles;
				n++;
			}
		assert_int_equal(k, -etmkit_err_eos);
		if (!pass)
			assert_int_equal(etm3_flow_finish(d), 0);
	}
	/* An I-sync right after the A-sync: no atom before it is lost. */
	assert_int_equal(etm3_flow_get_stats(d)->atoms_lost, 0);
	assert_true(n > 0 && n <= w->n);
	for (size_t i = 0; i < n; i++) {
		const struct exec_rec *r = &w->insn[w->n - n + i];

		assert_int_equal(got[i].addr, r->addr);
		assert_int_equal(got[i].isa, r->isa);
		assert_int_equal(got[i].size, r->size);
		assert_int_equal(got[i].flags & (ETMKIT_INSN_EXEC |
						 ETMKIT_INSN_COND_FAIL),
				 (r->flags & EXEC_F_COND_FAIL) ?
				 ETMKIT_INSN_COND_FAIL : ETMKIT_INSN_EXEC);
		if (ca)
			assert_int_equal(got[i].cycles, r->cycles);
	}
	free(got);
	etm3_flow_free(d);
}

static void round_trip_census(const struct walk_opts *o, uint64_t seed,
			      struct census *cen, unsigned *sink_calls)
{
	struct prog p;
	struct ts_out t;
	struct want *w = calloc(1, sizeof(*w));
	struct etm3_enc_config c;
	struct etm3_enc *e;

	assert_non_null(w);
	rng_state = seed;
	gen_data = !!(o->etmcr & (ETM3_ETMCR_DATA_ADDR | ETM3_ETMCR_DATA_VALUE));
	prog_build(&p, o->arm, o->thumb);
	etm3_enc_config_init(&c);
	c.etmcr = o->etmcr;
	c.etmidr = o->etmidr;
	c.etmccer = o->etmccer;
	c.sync_period = o->sync_period;
	c.flags = o->flags;
	c.ooo_delay = o->ooo_delay;
	memset(&t, 0, sizeof(t));
	assert_int_equal(etm3_enc_alloc(&e, &c, ts_out_sink, &t), 0);
	walk(&p, o, e, w);
	assert_int_equal(etm3_enc_finish(e), 0);
	assert_int_equal(t.empty, 0); /* the sink never gets 0 bytes */
	assert_int_equal(etm3_enc_offset(e), t.n);
	etm3_enc_free(e);
	check_decode(o, &p, &t, w);
	{
		struct census own;

		if (!cen)
			cen = &own;
		take_census(o, &t, cen);
		if (cen->a_sync > 1)
			check_tail(o, &p, &t, cen->last_a_sync, w);
	}
	if (sink_calls)
		*sink_calls = t.calls;
	free(t.b);
	free(w->insn);
	free(w->data);
	free(w);
	prog_free(&p);
}

static void round_trip(const struct walk_opts *o, uint64_t seed)
{
	round_trip_census(o, seed, NULL, NULL);
}

/* A hand-written mixed A32/T32 run (opcodes checked against the ARMv7-AR
 * encodings): a failed MOVNE, BLX (immediate) to Thumb, an ITE block
 * whose second instruction fails, an IRQ taken inside the IT block and
 * its return by SUBS pc, lr, #4, BX lr back to ARM, a taken BEQ, BX to
 * Thumb, BL, a failed BNE, BX to ARM, a gap. */
static const uint32_t mixed_arm[] = {
	0xe3a00001, /* 8000 mov r0, #1 */
	0xe3500001, /* 8004 cmp r0, #1 */
	0x13a01002, /* 8008 movne r1, #2 */
	0xfa00003b, /* 800c blx 0x8100 */
	0xe1a00000, /* 8010 nop */
	0x0a000001, /* 8014 beq 0x8020 */
	0xe1a00000, /* 8018 */
	0xe1a00000, /* 801c */
	0xe12fff13, /* 8020 bx r3 */
};
static const uint16_t mixed_thumb[] = {
	0x2801,         /* 8100 cmp r0, #1 */
	0xbf0c,         /* 8102 ite eq */
	0x2102,         /* 8104 moveq r1, #2 */
	0x2103,         /* 8106 movne r1, #3 */
	0x4770,         /* 8108 bx lr */
	0xbf00, 0xbf00, 0xbf00,
	0xf000, 0xf802, /* 8110 bl 0x8118 */
	0xbf00, 0xbf00,
	0xd1fc,         /* 8118 bne 0x8114 */
	0x4718,         /* 811a bx r3 */
};
static const uint32_t mixed_vector[] = { 0xe25ef004 /* 0x18 subs pc, lr, #4 */ };

void test_round_trip_mixed(void **state)
{
	const uint8_t A = etmkit_isa_arm, T = etmkit_isa_thumb;
	const uint32_t B = EXEC_F_BRANCH | EXEC_F_TAKEN, I = EXEC_F_INDIRECT;
	static const struct {
		uint8_t kind, isa, size, tisa;
		uint32_t addr, flags, target;
	} items[] = {
		{ exec_insn, 0, 4, 0, 0x8000, 0, 0 },
		{ exec_insn, 0, 4, 0, 0x8004, 0, 0 },
		{ exec_insn, 0, 4, 0, 0x8008, EXEC_F_COND_FAIL, 0 },
		{ exec_insn, 0, 4, 1, 0x800c, 1, 0x8100 },
		{ exec_insn, 1, 2, 0, 0x8100, 0, 0 },
		{ exec_insn, 1, 2, 0, 0x8102, 0, 0 },
		{ exec_insn, 1, 2, 0, 0x8104, 0, 0 },
		{ exec_exception, 0, 0, 0, 0x8106, exec_exc_irq, 0 },
		{ exec_insn, 0, 4, 1, 0x18, 2, 0x8106 },
		{ exec_insn, 1, 2, 0, 0x8106, EXEC_F_COND_FAIL, 0 },
		{ exec_insn, 1, 2, 0, 0x8108, 2, 0x8010 },
		{ exec_insn, 0, 4, 0, 0x8010, 0, 0 },
		{ exec_insn, 0, 4, 0, 0x8014, 1, 0x8020 },
		{ exec_insn, 0, 4, 1, 0x8020, 2, 0x8110 },
		{ exec_insn, 1, 4, 1, 0x8110, 1, 0x8118 },
		{ exec_insn, 1, 2, 0, 0x8118, EXEC_F_COND_FAIL | 4, 0 },
		{ exec_insn, 1, 2, 0, 0x811a, 2, 0x8000 },
		{ exec_gap, 0, 0, 0, 0, 0, 0 },
		{ exec_insn, 0, 4, 0, 0x8000, 0, 0 },
	};
	static const struct {
		uint32_t etmcr, etmidr;
	} cfgs[] = { { 0, IDR35 }, { 0, IDR35_ALT }, { CR_CA, IDR35 },
		     { CR_CA, IDR32 }, { ETM3_ETMCR_BRANCH_OUTPUT, IDR35 } };
	struct prog p = { 0 };

	(void)state;
	assert_int_equal(image_alloc(&p.img), 0);
	assert_int_equal(image_add_buffer(p.img, mixed_arm, sizeof(mixed_arm),
					  0x8000, 0), 0);
	assert_int_equal(image_add_buffer(p.img, mixed_thumb,
					  sizeof(mixed_thumb), 0x8100, 0), 0);
	assert_int_equal(image_add_buffer(p.img, mixed_vector,
					  sizeof(mixed_vector), 0x18, 0), 0);
	for (size_t c = 0; c < sizeof(cfgs) / sizeof(cfgs[0]); c++) {
		struct walk_opts o;
		struct want *w = calloc(1, sizeof(*w));
		struct etm3_enc *e;
		struct ts_out t;

		assert_non_null(w);
		memset(&o, 0, sizeof(o));
		o.etmcr = cfgs[c].etmcr;
		o.etmidr = cfgs[c].etmidr;
		e = enc_new(o.etmcr, o.etmidr, 0, &t);
		for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
			struct exec_rec r;
			uint32_t f = items[i].flags;

			memset(&r, 0, sizeof(r));
			r.kind = items[i].kind;
			r.addr = items[i].addr;
			if (r.kind == exec_exception) {
				r.number = f;
				w->exc[w->nexc++] = 14; /* IRQ, Table 7-12 */
			} else if (r.kind == exec_insn) {
				r.isa = items[i].isa ? T : A;
				r.size = items[i].size;
				/* flags: 1 direct taken, 2 indirect taken, 4 a
				 * branch (failed) */
				r.flags = f & EXEC_F_COND_FAIL;
				if (f & 1)
					r.flags |= B;
				if (f & 2)
					r.flags |= B | I;
				if (f & 4)
					r.flags |= EXEC_F_BRANCH;
				r.target = items[i].target;
				r.target_isa = items[i].tisa ? T : A;
				if (!(r.flags & EXEC_F_TAKEN))
					r.target_isa = 0;
				r.cycles = (uint32_t)(i % 3); /* 0, 1, 2 */
				r.flags |= EXEC_F_CYCLES;
			}
			assert_int_equal(etm3_enc_put(e, &r), 0);
			if (r.kind == exec_insn) {
				r.cycles = want_cycles(&o, &r);
				r.el = 1;
				want_insn(w, &r);
			}
		}
		assert_int_equal(etm3_enc_finish(e), 0);
		assert_int_equal(t.empty, 0); /* the sink never gets 0 bytes */
		etm3_enc_free(e);
		check_decode(&o, &p, &t, w);
		free(t.b);
		free(w->insn);
		free(w->data);
		free(w);
	}
	image_free(p.img);
}

/* A32 only, T32 only, mixed; normal and cycle-accurate; both branch
 * encodings; ETMv3.2; with gaps, exceptions, context IDs, timestamps. */
void test_round_trip_isa(void **state)
{
	struct walk_opts o;
	struct census c;

	(void)state;
	for (int mix = 0; mix < 3; mix++) {
		for (int ca = 0; ca < 2; ca++) {
			memset(&o, 0, sizeof(o));
			o.arm = mix != 1;
			o.thumb = mix != 0;
			o.etmcr = ca ? CR_CA : 0;
			o.etmidr = mix == 2 ? IDR35_ALT : IDR35;
			o.steps = 20000;
			o.gap_per_mille = 2;
			o.exc_per_mille = 3;
			o.sync_period = 4096;
			round_trip_census(&o, 0x1234567ull + (uint64_t)(mix * 2 + ca),
					  &c, NULL);
			/* The walk reached every address length, exceptions,
			 * periodic sync, every P-header format of the mode. */
			if (getenv("ENC_CENSUS"))
				printf("mix %d ca %d: len %u %u %u %u %u exc %u "
				       "isync %u %u async %u ph %u %u %u %u %u\n",
				       mix, ca, c.branch_len[1], c.branch_len[2],
				       c.branch_len[3], c.branch_len[4],
				       c.branch_len[5], c.exc_bytes, c.isync[0],
				       c.isync[1], c.a_sync, c.ph_format[0],
				       c.ph_format[1], c.ph_format[2],
				       c.ph_format[3], c.ph_format[4]);
			for (int n = 1; n <= 5; n++)
				assert_true(c.branch_len[n] > 0);
			assert_true(c.exc_bytes > 0);
			assert_true(c.isync[etm3_reason_periodic] > 0);
			assert_true(c.isync[etm3_reason_trace_on] > 1);
			assert_true(c.a_sync > 1);
			for (int f = ca ? 1 : 1; f <= (ca ? 4 : 2); f++)
				assert_true(c.ph_format[f] > 0);
		}
	}
}

void test_round_trip_configs(void **state)
{
	static const struct {
		uint32_t etmcr, etmidr, etmccer, sync;
	} cfgs[] = {
		{ 0, IDR35_ALT, 0, 64 },
		{ CR_CA, IDR35_ALT, 0, 0 },
		{ CR_CA, IDR32, 0, 0 },
		{ 0, IDR32, 0, 100 },
		{ ETM3_ETMCR_BRANCH_OUTPUT | (1u << 14), IDR35, 0, 0 },
		{ ETM3_ETMCR_BRANCH_OUTPUT | CR_CA | (2u << 14), IDR35_ALT, 0, 0 },
		{ (3u << 14) | ETM3_ETMCR_TIMESTAMP | ETM3_ETMCR_VMID, IDR35,
		  ETM3_ETMCCER_TIMESTAMP | ETM3_ETMCCER_VIRT_EXT, 0 },
		{ CR_CA | ETM3_ETMCR_TIMESTAMP, IDR35_ALT,
		  ETM3_ETMCCER_TIMESTAMP | ETM3_ETMCCER_TS_64BIT |
		  ETM3_ETMCCER_TS_BINARY, 200 },
	};
	struct walk_opts o;

	(void)state;
	for (size_t i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++) {
		memset(&o, 0, sizeof(o));
		o.arm = o.thumb = 1;
		o.etmcr = cfgs[i].etmcr;
		o.etmidr = cfgs[i].etmidr;
		o.etmccer = cfgs[i].etmccer;
		o.sync_period = cfgs[i].sync;
		o.steps = 10000;
		o.gap_per_mille = 3;
		o.exc_per_mille = 5;
		o.ctx_per_mille = 20;
		round_trip(&o, 0xabcdef01ull + i);
	}
}

/* Data trace: addresses, values or both, in order and out of order, in
 * every instruction-trace configuration; every data packet form and
 * data address length, checked transfer by transfer. */
void test_round_trip_data(void **state)
{
	const uint32_t AV = CR_DATA, A = ETM3_ETMCR_DATA_ADDR,
		       V = ETM3_ETMCR_DATA_VALUE, O = ETM3_ENC_OOO;
	static const struct {
		uint32_t etmcr, etmidr, etmccer, sync, flags, delay;
	} cfgs[] = {
		{ AV, IDR35, 0, 0, 0, 0 },
		{ A, IDR35_ALT, 0, 64, 0, 0 },
		{ V | CR_CA, IDR32, 0, 0, 0, 0 },
		{ AV | CR_CA, IDR35, 0, 0, 0, 0 },
		{ AV, IDR35, 0, 0, O, 0 },
		{ AV | CR_CA, IDR35_ALT, 0, 100, O, 3 },
		{ V, IDR32, 0, 0, O, 2 },
		{ AV | CR_CA, IDR32, 0, 0, O, 9 },
		{ AV | ETM3_ETMCR_BRANCH_OUTPUT | (1u << 14), IDR35, 0, 0, O, 1 },
		{ AV | (3u << 14) | ETM3_ETMCR_TIMESTAMP | ETM3_ETMCR_VMID,
		  IDR35, ETM3_ETMCCER_TIMESTAMP | ETM3_ETMCCER_VIRT_EXT, 0, O,
		  5 },
	};
	struct walk_opts o;
	struct census c;

	(void)state;
	for (size_t i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++) {
		memset(&o, 0, sizeof(o));
		o.arm = o.thumb = 1;
		o.etmcr = cfgs[i].etmcr;
		o.etmidr = cfgs[i].etmidr;
		o.etmccer = cfgs[i].etmccer;
		o.sync_period = cfgs[i].sync;
		o.flags = cfgs[i].flags;
		o.ooo_delay = cfgs[i].delay;
		o.steps = 10000;
		o.gap_per_mille = 3;
		o.exc_per_mille = 5;
		o.ctx_per_mille = 20;
		round_trip_census(&o, 0x5eed0000ull + i, &c, NULL);
		if (getenv("ENC_CENSUS"))
			printf("data cfg %zu: data %u placeholder %u ooo %u "
			       "addr %u %u %u %u %u\n", i, c.data,
			       c.placeholder, c.ooo_data, c.data_addr_len[1],
			       c.data_addr_len[2], c.data_addr_len[3],
			       c.data_addr_len[4], c.data_addr_len[5]);
		assert_true(c.data > 100);
		if (cfgs[i].flags & O) {
			assert_true(c.placeholder > 100);
			assert_true(c.ooo_data >= c.placeholder);
		} else {
			assert_int_equal(c.placeholder + c.ooo_data, 0);
		}
		if (cfgs[i].etmcr & A)
			for (int n = 1; n <= 5; n++)
				assert_true(c.data_addr_len[n] > 0);
	}
}

/* Long enough for several 64 KiB sink calls; many seeds, small. */
void test_round_trip_long(void **state)
{
	struct walk_opts o;
	unsigned calls = 0;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.arm = o.thumb = 1;
	o.etmcr = CR_CA;
	o.etmidr = IDR35;
	o.steps = 300000;
	o.gap_per_mille = 1;
	o.exc_per_mille = 1;
	round_trip_census(&o, 42, NULL, &calls);
	assert_true(calls > 2); /* 64 KiB at a time */
	/* ETMKIT_ENC_SEEDS=n: a longer shake-out. */
	const char *env = getenv("ETMKIT_ENC_SEEDS");
	uint64_t seeds = env ? strtoull(env, NULL, 0) : 40;

	for (uint64_t seed = 1; seed <= seeds; seed++) {
		memset(&o, 0, sizeof(o));
		o.arm = o.thumb = 1;
		rng_state = seed * 7919;
		o.etmcr = below(2) ? CR_CA : 0;
		o.etmidr = below(2) ? IDR35 : IDR35_ALT;
		o.steps = 2000;
		o.gap_per_mille = below(20);
		o.exc_per_mille = below(50);
		o.sync_period = below(2) ? 0 : 16 + below(200);
		o.ctx_per_mille = below(30);
		switch (below(4)) {
		case 0: break;
		case 1: o.etmidr = IDR32; break;
		case 2: o.etmcr |= ETM3_ETMCR_BRANCH_OUTPUT; break;
		default:
			o.etmcr |= (1u + below(3)) << 14 | ETM3_ETMCR_TIMESTAMP;
			o.etmccer = ETM3_ETMCCER_TIMESTAMP |
				    ETM3_ETMCCER_VIRT_EXT |
				    (below(2) ? ETM3_ETMCCER_TS_64BIT : 0) |
				    (below(2) ? ETM3_ETMCCER_TS_BINARY : 0);
			o.etmidr = below(2) ? IDR35 : IDR35_ALT;
			break;
		}
		if (below(2)) { /* data trace, maybe out of order */
			o.etmcr |= (1u + below(3)) << 2;
			if ((o.etmcr & ETM3_ETMCR_DATA_VALUE) && below(2)) {
				o.flags = ETM3_ENC_OOO;
				o.ooo_delay = below(8);
			}
		}
		round_trip(&o, seed);
	}
}
