/* PTM trace encoder, round trips through the packet decoder (ptm_pkt_*):
 * random records (addresses anywhere in 32 bits, A32 and T32, direct and
 * indirect branches, instruction set changes, exceptions, gaps, context
 * and security changes, timestamps, cycle counts) under random register
 * set-ups are encoded, decoded into packets, and the packets read back
 * against the record item by item: each waypoint's atom (E or N) or the
 * branch address packet that stands for it with the target's full
 * address and instruction set, each exception's packet with its number
 * and handler, I-syncs where the record jumps, waypoint updates to the
 * last instruction executed, context ID, VMID, NS and timestamps as the
 * record has them, and in cycle-accurate mode every cycle count the sum
 * of the record's cycles since the one before. The packet decoder knows
 * nothing of the record: it checks the compression and every field. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "etmkit/exec.h"
#include "etmkit/ptm.h"

#include "ts_out.h"
#include "ts_rec.h"

#include "test_ptm_enc.h"

static uint64_t rs_state;

static uint32_t rnd(void)
{
	rs_state ^= rs_state << 13;
	rs_state ^= rs_state >> 7;
	rs_state ^= rs_state << 17;
	return (uint32_t)(rs_state >> 11);
}

static uint32_t below(uint32_t n)
{
	return rnd() % n;
}

/* ---- Records ----------------------------------------------------------------- */

static uint32_t rnd_addr(uint8_t isa)
{
	return rnd() & (isa == etmkit_isa_arm ? ~3u : ~1u);
}

static uint8_t rnd_isa(void)
{
	return below(2) ? etmkit_isa_arm : etmkit_isa_thumb;
}

/* A record of about @steps items. */
static void make_record(struct ts_rec *rc, unsigned steps, int cycles)
{
	uint8_t isa = rnd_isa();
	uint32_t pc = rnd_addr(isa);
	uint64_t t = rnd();

	for (unsigned i = 0; i < steps; i++) {
		unsigned k = below(100);
		struct exec_rec *r;

		if (k < 3) {
			r = ts_rec_add(rc, exec_exception);
			r->number = below(exec_exc_count);
			r->addr = pc;
			isa = rnd_isa();
			pc = rnd_addr(isa);
			continue;
		}
		if (k < 4) {
			r = ts_rec_add(rc, exec_gap);
			if (cycles && below(2)) {
				r->flags = EXEC_F_CYCLES;
				r->cycles = below(5000);
			}
			isa = rnd_isa();
			pc = rnd_addr(isa);
			continue;
		}
		if (k < 7) {
			r = ts_rec_add(rc, exec_context);
			r->flags = below(8);
			r->value = rnd();
			r->vmid = below(256);
			r->el = (uint8_t)below(4);
			r->ns = (uint8_t)below(2);
			continue;
		}
		if (k < 10) {
			t += below(4) ? below(300) : (uint64_t)rnd() << below(30);
			r = ts_rec_add(rc, exec_timestamp);
			r->value = t;
			continue;
		}
		if (k < 11) { /* the record goes on elsewhere */
			isa = rnd_isa();
			pc = rnd_addr(isa);
		}
		r = ts_rec_add(rc, exec_insn);
		r->isa = isa;
		r->addr = pc;
		r->size = isa == etmkit_isa_arm || below(2) ? 4 : 2;
		if (cycles && below(4)) {
			r->flags |= EXEC_F_CYCLES;
			r->cycles = below(8) ? below(40) : rnd();
		}
		pc += r->size;
		k = below(100);
		if (k < 40)
			continue;
		r->flags |= EXEC_F_BRANCH;
		if (k < 55)
			continue; /* not taken */
		r->flags |= EXEC_F_TAKEN;
		if (k < 75)
			r->flags |= EXEC_F_INDIRECT;
		r->target_isa = k >= 95 ? rnd_isa() : isa;
		/* near (compressed) or anywhere */
		r->target = below(2) ? ((pc + (rnd() & 0x3fff)) &
					(r->target_isa == etmkit_isa_arm ? ~3u : ~1u))
				     : rnd_addr(r->target_isa);
		isa = r->target_isa;
		pc = (uint32_t)r->target;
	}
}

/* ---- Packets ------------------------------------------------------------------- */

struct pkts {
	struct ptm_packet *p;
	size_t n, cap;
};

static void decode_all(const struct ptm_config *pc, const uint8_t *b,
		       size_t n, struct pkts *out)
{
	struct ptm_pkt_decoder *d = NULL;
	size_t step = 1 + below(300);

	assert_int_equal(ptm_pkt_alloc(&d, pc), 0);
	memset(out, 0, sizeof(*out));
	for (size_t at = 0;; at += step) {
		int k;

		if (at < n)
			assert_int_equal(ptm_pkt_feed(d, b + at, n - at < step ?
						      n - at : step, NULL, at), 0);
		else
			assert_int_equal(ptm_pkt_finish(d), 0);
		for (;;) {
			if (out->n + 64 > out->cap) {
				out->cap = out->cap * 2 + 256;
				out->p = realloc(out->p, out->cap * sizeof(*out->p));
				assert_non_null(out->p);
			}
			k = ptm_pkt_next(d, out->p + out->n, 64);
			if (k == -etmkit_err_eos)
				break;
			assert_true(k > 0);
			out->n += (size_t)k;
		}
		if (at >= n)
			break;
	}
	ptm_pkt_free(d);
}

/* ---- Reading the packets against the record --------------------------------------- */

struct rd {
	const struct ptm_config_info *info;
	const struct pkts *pk;
	size_t at;          /* the next packet */
	unsigned atom;      /* atoms of it already taken */
	uint32_t cyc;       /* the record's cycles since the last count */
	uint32_t gap_cyc;
	uint32_t cid, vmid;
	uint8_t ns, hyp;
	int have_last;      /* an instruction since the last I-sync */
	uint32_t last;      /* the last instruction's address */
	uint8_t last_isa;
	int exc;            /* an exception's packet is due: its kind */
	uint64_t ts;
	int ts_due, cid_due, vmid_due;
	size_t item;
};

static const struct ptm_packet *cur(struct rd *r)
{
	while (r->at < r->pk->n) {
		const struct ptm_packet *p = &r->pk->p[r->at];

		if (p->error)
			fail_msg("item %zu: packet %zu at %llu: error %d (%s)",
				 r->item, r->at, (unsigned long long)p->offset,
				 p->error, p->why ? p->why : "");
		if (p->type != ptm_pkt_a_sync && p->type != ptm_pkt_ignore &&
		    p->type != ptm_pkt_trigger)
			return p;
		r->at++;
	}
	return NULL;
}

static void next_pkt(struct rd *r)
{
	r->at++;
	r->atom = 0;
}

static void check_cycles(struct rd *r, int has, uint32_t v, const char *what)
{
	if (!r->info->cycle_accurate) {
		if (has)
			fail_msg("item %zu: %s with a cycle count", r->item, what);
		return;
	}
	if (!has || v != r->cyc)
		fail_msg("item %zu: %s cycles %u (has %d), the record's %u",
			 r->item, what, v, has, r->cyc);
	r->cyc = 0;
}

/* The low @bytes bytes of @v. */
static uint32_t low(uint32_t v, unsigned bytes)
{
	return bytes >= 4 ? v : v & ((1u << (8 * bytes)) - 1);
}

static const uint8_t exc_num[exec_exc_count] = { 8, 9, 10, 11, 12, 14, 15, 11 };

/* Packets between items: I-sync where the record jumps, waypoint updates
 * to the last instruction, context, timestamps, an exception's packet.
 * Stops at a packet that does not belong here yet (it is checked where
 * it does, or where a waypoint's packet is due). @next: the instruction
 * about to run (NULL at the end). */
static void between(struct rd *r, const struct exec_rec *next)
{
	const struct ptm_packet *p;

	while ((p = cur(r)) != NULL) {
		switch (p->type) {
		case ptm_pkt_i_sync:
			if (!next || p->u.isync.addr != (uint32_t)next->addr ||
			    p->u.isync.isa != next->isa)
				return;
			if (p->u.isync.ns != r->ns ||
			    p->u.isync.context_id !=
			    low(r->cid, r->info->context_id_bytes))
				fail_msg("item %zu: I-sync state", r->item);
			if (p->u.isync.reason != ptm_reason_periodic) {
				/* trace on: an exception before it is not
				 * traced */
				r->exc = -1;
				if (r->info->cycle_accurate &&
				    p->u.isync.cycles != r->gap_cyc)
					fail_msg("item %zu: I-sync cycles",
						 r->item);
				r->cyc = 0;
			}
			r->cid_due = 0;
			r->vmid_due = r->info->vmid;
			r->have_last = 0;
			break;
		case ptm_pkt_waypoint_update:
			if (!r->have_last || p->u.branch.addr != r->last ||
			    p->u.branch.isa != r->last_isa)
				return;
			break;
		case ptm_pkt_branch_address:
			if (!p->u.branch.exception || r->exc < 0 || !next)
				return;
			if (p->u.branch.exception != exc_num[r->exc] ||
			    p->u.branch.addr != (uint32_t)next->addr ||
			    p->u.branch.isa != next->isa ||
			    p->u.branch.ns != r->ns)
				fail_msg("item %zu: exception %u to 0x%x",
					 r->item, p->u.branch.exception,
					 p->u.branch.addr);
			check_cycles(r, p->u.branch.has_cycles,
				     p->u.branch.cycles, "exception");
			r->exc = -1;
			break;
		case ptm_pkt_context_id:
			if (!r->cid_due)
				return;
			if (p->u.context_id !=
			    low(r->cid, r->info->context_id_bytes))
				fail_msg("item %zu: context ID", r->item);
			r->cid_due = 0;
			break;
		case ptm_pkt_vmid:
			if (!r->vmid_due)
				return;
			if (p->u.vmid != (uint8_t)r->vmid)
				fail_msg("item %zu: VMID", r->item);
			r->vmid_due = 0;
			break;
		case ptm_pkt_timestamp: {
			uint64_t m = r->info->ts_bits == 64 ? ~0ull :
				     (1ull << 48) - 1;

			if (!r->ts_due)
				return;
			if (p->u.timestamp.value != (r->ts & m))
				fail_msg("item %zu: timestamp 0x%llx", r->item,
					 (unsigned long long)p->u.timestamp.value);
			check_cycles(r, p->u.timestamp.has_cycles,
				     p->u.timestamp.cycles, "timestamp");
			r->ts_due = 0;
			break;
		}
		case ptm_pkt_exception_return:
			break;
		default:
			return;
		}
		next_pkt(r);
	}
}

/* Waypoint @w: its atom, or the branch packet standing for its E. */
static void waypoint(struct rd *r, const struct exec_rec *w)
{
	const struct ptm_packet *p = cur(r);
	int taken = (w->flags & EXEC_F_TAKEN) != 0;
	uint8_t tisa = w->target_isa ? w->target_isa : w->isa;

	if (!p)
		fail_msg("item %zu: no packet for the waypoint", r->item);
	if (p->type == ptm_pkt_atom) {
		int n = (p->u.atoms.bits >> r->atom) & 1;

		if (n != !taken || (taken && (w->flags & EXEC_F_INDIRECT)) ||
		    (taken && tisa != w->isa) ||
		    (taken && r->info->branch_broadcast))
			fail_msg("item %zu: atom %c for a branch %s", r->item,
				 n ? 'N' : 'E', taken ? "taken" : "not taken");
		if (r->info->cycle_accurate)
			check_cycles(r, p->u.atoms.has_cycles,
				     p->u.atoms.cycles, "atom");
		if (++r->atom == p->u.atoms.count)
			next_pkt(r);
		return;
	}
	if (p->type != ptm_pkt_branch_address || !taken ||
	    p->u.branch.addr != (uint32_t)w->target || p->u.branch.isa != tisa)
		fail_msg("item %zu: packet %zu type %u (0x%x) for a branch to "
			 "0x%llx", r->item, r->at, p->type, p->u.branch.addr,
			 (unsigned long long)w->target);
	check_cycles(r, p->u.branch.has_cycles, p->u.branch.cycles, "branch");
	next_pkt(r);
}

static void read_back(const struct ptm_config_info *info,
		      const struct pkts *pk, const struct ts_rec *rc)
{
	struct rd r;

	memset(&r, 0, sizeof(r));
	r.info = info;
	r.pk = pk;
	r.exc = -1;
	for (size_t i = 0; i < rc->n; i++) {
		const struct exec_rec *it = &rc->r[i];

		r.item = i;
		switch (it->kind) {
		case exec_insn:
			between(&r, it);
			if (r.exc >= 0)
				fail_msg("item %zu: no exception packet", i);
			if (it->flags & EXEC_F_CYCLES)
				r.cyc += it->cycles;
			else
				r.cyc++;
			if (it->flags & EXEC_F_BRANCH)
				waypoint(&r, it);
			r.have_last = 1;
			r.last = (uint32_t)it->addr;
			r.last_isa = it->isa;
			break;
		case exec_exception:
			r.exc = (int)it->number;
			break;
		case exec_gap:
			between(&r, NULL);
			r.exc = -1;
			r.cyc = 0;
			r.gap_cyc = (it->flags & EXEC_F_CYCLES) ? it->cycles : 0;
			r.have_last = 0;
			break;
		case exec_context:
			if ((it->flags & EXEC_CTX_CONTEXTID) &&
			    (uint32_t)it->value != r.cid) {
				r.cid = (uint32_t)it->value;
				r.cid_due = info->context_id_bytes != 0;
			}
			if ((it->flags & EXEC_CTX_VMID) &&
			    (uint8_t)it->vmid != (uint8_t)r.vmid) {
				r.vmid = it->vmid;
				r.vmid_due = info->vmid;
			}
			if (it->flags & EXEC_CTX_EL) {
				r.ns = it->ns;
				r.hyp = it->el == 2;
			}
			break;
		case exec_timestamp:
			r.ts = it->value;
			r.ts_due = info->timestamps;
			break;
		}
	}
	r.item = rc->n;
	between(&r, NULL);
	if (cur(&r))
		fail_msg("packet %zu (type %u) left over", r.at, cur(&r)->type);
}

void test_packets_random(void **state)
{
	(void)state;
	for (unsigned run = 0; run < 300; run++) {
		struct ptm_enc_config c;
		struct ptm_config pc;
		struct ptm_config_info info;
		struct ptm_enc *e = NULL;
		struct ts_out o;
		struct ts_rec rc = { 0 };
		struct pkts pk;
		static const uint32_t cid[4] = { 0, 1, 2, 3 };

		rs_state = 0x9e3779b97f4a7c15ull ^ (uint64_t)(run + 1) * 0x2545f491ull;
		ptm_enc_config_init(&c);
		c.etmidr = below(2) ? 0x411CF312u : 0x411CF301u;
		c.etmccer = below(2) ? 0x34C01AC2u : 0x000008EAu;
		c.etmcr = cid[below(4)] << PTM_ETMCR_CID_SHIFT;
		if (below(2))
			c.etmcr |= PTM_ETMCR_CYCLE_ACCURATE;
		if (below(4) == 0)
			c.etmcr |= PTM_ETMCR_BRANCH_BROADCAST;
		if (below(2))
			c.etmcr |= PTM_ETMCR_TIMESTAMP;
		if (below(2))
			c.etmcr |= PTM_ETMCR_VMID;
		c.sync_period = below(2) ? 0 : 16 + below(200);
		make_record(&rc, 200 + below(2000),
			    !!(c.etmcr & PTM_ETMCR_CYCLE_ACCURATE));
		memset(&o, 0, sizeof(o));
		assert_int_equal(ptm_enc_alloc(&e, &c, ts_out_sink, &o), 0);
		for (size_t i = 0; i < rc.n; i++)
			assert_int_equal(ptm_enc_put(e, &rc.r[i]), 0);
		assert_int_equal(ptm_enc_finish(e), 0);
		ptm_enc_free(e);
		ptm_config_init(&pc);
		pc.etmcr = c.etmcr;
		pc.etmidr = c.etmidr;
		pc.etmccer = c.etmccer;
		assert_int_equal(ptm_config_decode(&pc, &info), 0);
		info.timestamps = !!(c.etmcr & PTM_ETMCR_TIMESTAMP);
		decode_all(&pc, o.b, o.n, &pk);
		read_back(&info, &pk, &rc);
		free(pk.p);
		ts_out_free(&o);
		ts_rec_free(&rc);
	}
}
