/* ETMv4/ETE encoder round trips, the parts: what the decoder must give
 * back for a record (instructions, exceptions, timestamps, contexts), its
 * comparison with etm4_flow's elements, and a generated A64 program with
 * random walks over it. Used by test_ete_enc_rt.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit/test_util.h"

#include "etmkit/etm4.h"
#include "etmkit/insn.h"
#include "etmkit/exec.h"
#include "etmkit/flow.h"
#include "etmkit/image.h"

#include "ts_out.h"
#include "ts_prog64.h"
#include "ts_rec.h"

#include "test_ete_enc.h"

/* ---- Round trips ------------------------------------------------------------ */

static void ctx_add(struct evs *s, uint64_t c)
{
	if (s->nctx && s->ctx[s->nctx - 1] == c)
		return;
	assert_true(s->nctx < 4096);
	s->ctx[s->nctx++] = c;
}

static void ev_add(struct evs *s, uint8_t kind, uint64_t addr, uint8_t isa,
		   uint8_t size, uint16_t number)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		assert_non_null(s->v);
	}
	s->v[s->n].kind = kind;
	s->v[s->n].addr = addr;
	s->v[s->n].isa = isa;
	s->v[s->n].size = size;
	s->v[s->n].number = number;
	s->v[s->n].cycles = 0;
	s->n++;
}

/* enum exec_exc to the packet type the encoder is to use (digest 5.5). */
static const uint16_t exc_type[exec_exc_count] = {
	0x00, 0x03, 0x02, 0x0b, 0x0c, 0x0e, 0x0f, 0x06,
};

/* The events of record @rc: every instruction up to the last P0 one
 * (@last_p0: index of the item after it), and every exception. */
void expected_of(const struct ts_rec *rc, size_t end,
			const struct ete_enc_config *c, struct evs *s)
{
	struct ts_ctx x = { c->el, c->ns, c->context_id, c->vmid };
	int cid_on = (c->etm.trcconfigr >> 6) & 1;
	int vmid_on = (c->etm.trcconfigr >> 7) & 1;

	s->n = s->nts = s->nctx = 0;
	for (size_t i = 0; i < end; i++) {
		const struct exec_rec *r = &rc->r[i];

		if (r->kind == exec_timestamp && (c->etm.trcconfigr & (1u << 11)))
			s->ts[s->nts++] = r->value;
		ts_ctx_take(&x, r);
		if (r->kind == exec_insn) {
			ctx_add(s, ts_ctx_key(&x, cid_on, vmid_on));
			ev_add(s, etmkit_elem_insn, r->addr, r->isa, r->size, 0);
			if (r->flags & EXEC_F_CYCLES)
				s->v[s->n - 1].cycles = r->cycles;
		}
		else if (r->kind == exec_exception)
			ev_add(s, etmkit_elem_exception, r->addr, 0, 0,
			       exc_type[r->number]);
	}
}

struct cmp {
	const struct evs *want;
	size_t at;
	char why[256];
	struct evs got; /* timestamps and contexts */
	uint64_t cycles; /* of the instructions since the last count */
	uint64_t counts; /* cycle counts */
};

static void cmp_elem(struct cmp *c, const struct etmkit_elem *el)
{
	const struct ev *w;

	if (el->kind == etmkit_elem_timestamp) {
		assert_true(c->got.nts < 4096);
		c->got.ts[c->got.nts++] = el->u.timestamp.value;
		return;
	}
	if (el->kind == etmkit_elem_cycle_count) {
		/* D4.3.7.1: the cycles since the previous count, to the
		 * commit point: the instructions delivered before it. */
		if (!(el->flags & ETMKIT_CC_UNKNOWN) && !c->why[0] &&
		    el->cycles != c->cycles)
			snprintf(c->why, sizeof(c->why),
				 "cycle count %u after event %zu, want %llu",
				 el->cycles, c->at,
				 (unsigned long long)c->cycles);
		c->counts++;
		c->cycles = 0;
		return;
	}
	if (el->kind == etmkit_elem_context) {
		ctx_add(&c->got, el->u.context.el |
				 (uint64_t)el->u.context.ns << 2 |
				 (el->flags & ETMKIT_CTX_CONTEXT_ID ?
				  (uint64_t)el->u.context.context_id << 8 : 0) |
				 (el->flags & ETMKIT_CTX_VMID ?
				  (uint64_t)el->u.context.vmid << 40 : 0));
		return;
	}
	if (el->kind != etmkit_elem_insn && el->kind != etmkit_elem_exception)
		return;
	if (c->why[0])
		return;
	if (c->at >= c->want->n) {
		snprintf(c->why, sizeof(c->why),
			 "extra element kind %u at %llx after %zu", el->kind,
			 (unsigned long long)el->addr, c->at);
		return;
	}
	w = &c->want->v[c->at];
	if (el->kind != w->kind ||
	    (w->kind == etmkit_elem_insn &&
	     (el->addr != w->addr || el->isa != w->isa || el->size != w->size)) ||
	    (w->kind == etmkit_elem_exception &&
	     (el->u.exception.ret_addr != w->addr ||
	      el->u.exception.number != w->number))) {
		snprintf(c->why, sizeof(c->why),
			 "event %zu: want kind %u addr %llx isa %u num %u, got "
			 "kind %u addr %llx isa %u ret %llx num %u",
			 c->at, w->kind, (unsigned long long)w->addr, w->isa,
			 w->number, el->kind, (unsigned long long)el->addr,
			 el->isa,
			 (unsigned long long)el->u.exception.ret_addr,
			 el->u.exception.number);
		return;
	}
	c->cycles += w->cycles;
	c->at++;
}

static void drain(struct etm4_flow_decoder *d, struct cmp *c)
{
	const struct etmkit_elem *el;
	int k;

	while ((k = etm4_flow_batch(d, &el)) > 0)
		for (int i = 0; i < k; i++)
			cmp_elem(c, &el[i]);
	assert_int_equal(k, -etmkit_err_eos);
}

/* Decode @o (in chunks of 1 to @chunk bytes from @seed, or whole when
 * @chunk is 0) over @img and compare with @want. */
void decode_check(const struct ete_enc_config *ec, const struct ts_out *o,
			 const struct image *img, const struct evs *want,
			 unsigned chunk, uint32_t seed)
{
	struct etm4_flow_config fc;
	struct etm4_flow_decoder *d;
	struct ete_enc *e;
	static struct cmp c;
	struct ts_out dummy = { 0 };
	size_t at = 0;

	etm4_flow_config_init(&fc);
	assert_int_equal(ete_enc_alloc(&e, ec, ts_out_sink, &dummy), 0);
	assert_int_equal(ete_enc_decoder_config(e, &fc.etm), 0);
	ete_enc_free(e);
	fc.image = img;
	assert_int_equal(etm4_flow_alloc(&d, &fc), 0);
	memset(&c, 0, sizeof(c));
	c.want = want;
	c.got.nts = c.got.nctx = 0;
	c.cycles = c.counts = 0;
	while (at < o->n) {
		size_t n = o->n - at;

		if (chunk) {
			seed = seed * 1103515245u + 12345u;
			n = 1 + (seed >> 8) % chunk;
			if (n > o->n - at)
				n = o->n - at;
		}
		assert_int_equal(etm4_flow_feed(d, o->b + at, n, NULL, at), 0);
		drain(d, &c);
		at += n;
	}
	assert_int_equal(etm4_flow_finish(d), 0);
	drain(d, &c);
	if (!c.why[0] && c.at != want->n)
		snprintf(c.why, sizeof(c.why), "decoded %zu of %zu events",
			 c.at, want->n);
	if (!c.why[0] && (c.got.nts != want->nts ||
			  memcmp(c.got.ts, want->ts, want->nts * 8) != 0))
		snprintf(c.why, sizeof(c.why), "timestamps: %zu, want %zu",
			 c.got.nts, want->nts);
	if (!c.why[0] && (c.got.nctx != want->nctx ||
			  memcmp(c.got.ctx, want->ctx, want->nctx * 8) != 0))
		snprintf(c.why, sizeof(c.why), "contexts: %zu, want %zu",
			 c.got.nctx, want->nctx);
	if (!c.why[0] && c.counts != want->ncc)
		snprintf(c.why, sizeof(c.why), "%llu cycle counts, want %llu",
			 (unsigned long long)c.counts,
			 (unsigned long long)want->ncc);
	assert_int_equal(etm4_flow_get_stats(d)->protocol_errors, 0);
	etm4_flow_free(d);
	free(dummy.b);
	if (c.why[0])
		fail_msg("%s", c.why);
}

/* ---- A generated A64 program and random walks over it ----------------------- */

uint32_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 11);
}

static uint32_t rnd_of(void *ctx)
{
	return rnd(ctx);
}

/* Kinds by r % 100 (ts_prog64.h). */
static const struct ts_k64_mix mix[] = {
	{ 55, TS_K_NOP }, { 62, TS_K_B }, { 67, TS_K_BL }, { 80, TS_K_BCOND },
	{ 85, TS_K_CBZ }, { 89, TS_K_RET }, { 93, TS_K_BR }, { 96, TS_K_BLR },
	{ 100, TS_K_ISB },
};

void prog_make(struct ts_prog64 *p, uint64_t seed)
{
	struct ts_prog64_opts o = {
		.n = PROG_N,
		.mix = mix,
		.nmix = sizeof(mix) / sizeof(mix[0]),
		.rnd = rnd_of,
		.rnd_ctx = &seed,
	};

	ts_prog64_make(p, &o);
}

/* A random instruction of the program, in region @*base, or (1 in
 * @far) in a random region, which becomes *@base. */
static uint64_t prog_addr(uint64_t *s, uint64_t *base, unsigned far)
{
	if (far && rnd(s) % far == 0)
		*base = ts_prog64_bases[rnd(s) % TS_PROG64_NBASES];
	return *base + 4ull * (rnd(s) % PROG_N);
}

/* A random walk of @o->steps instructions; returns the number of items up
 * to and including the last P0 instruction. */
size_t walk(const struct ts_prog64 *p, struct ts_rec *rc, uint64_t seed,
		   const struct walk_opts *o)
{
	uint64_t base = TS_PROG64_BASE, pc = prog_addr(&seed, &base, o->far);
	uint64_t ts = 1000, hot[3] = { pc, pc, pc };
	size_t last = 0;
	uint8_t el = 1;

	rc->n = 0;
	for (unsigned s = 0; s < o->steps; s++) {
		unsigned i = (unsigned)((pc - base) / 4), k = p->kind[i];
		uint32_t op = ts_prog64_op(p, i);
		uint32_t fl = 0;
		uint64_t next = pc + 4, t = 0;
		int p0 = k != TS_K_NOP;

		if (o->ts_pct10 && rnd(&seed) % 1000 < o->ts_pct10) {
			ts += rnd(&seed) % 3 ? rnd(&seed) % 100 :
			      (uint64_t)rnd(&seed) << 20;
			ts_rec_add(rc, exec_timestamp)->value = ts;
		}
		switch (k) {
		case TS_K_B:
		case TS_K_BL:
			fl = TAKEN;
			t = ts_prog64_target(p, i, base);
			break;
		case TS_K_BCOND:
		case TS_K_CBZ:
			fl = rnd(&seed) % 2 ? TAKEN : BRANCH;
			t = ts_prog64_target(p, i, base);
			break;
		case TS_K_RET:
		case TS_K_BR:
		case TS_K_BLR:
			fl = rnd(&seed) % 8 ? IND : BRANCH | EXEC_F_INDIRECT;
			/* Half the time one of three hot targets: exact
			 * matches of each history entry. */
			if (!(fl & EXEC_F_TAKEN)) {
				t = 0;
			} else if (rnd(&seed) % 2) {
				t = hot[rnd(&seed) % 3];
				base = t - (t - TS_PROG64_BASE) % 0x10000;
				for (unsigned b = 0; b < TS_PROG64_NBASES; b++)
					if (t >= ts_prog64_bases[b] &&
					    t < ts_prog64_bases[b] + 4ull * PROG_N)
						base = ts_prog64_bases[b];
			} else {
				t = prog_addr(&seed, &base, o->far);
				hot[rnd(&seed) % 3] = t;
			}
			break;
		}
		if (fl & EXEC_F_TAKEN)
			next = t;
		a64(rc, pc, op, fl, t);
		if (o->cyc) {
			rc->r[rc->n - 1].flags |= EXEC_F_CYCLES;
			rc->r[rc->n - 1].cycles = rnd(&seed) % 64 ? rnd(&seed) % 4 :
						  rnd(&seed) % 3000000;
		}
		if (p0)
			last = rc->n;
		pc = next;
		if (o->exc_pct10 && rnd(&seed) % 1000 < o->exc_pct10) {
			unsigned num = 1 + rnd(&seed) % (exec_exc_count - 1);

			exc(rc, num, pc);
			if (o->ctx_pct && rnd(&seed) % 100 < o->ctx_pct) {
				struct exec_rec *r = ts_rec_add(rc, exec_context);

				if (rnd(&seed) % 2)
					el = (uint8_t)(el == 1 ? 2 : 1);
				r->flags = EXEC_CTX_EL | EXEC_CTX_CONTEXTID |
					   EXEC_CTX_VMID;
				r->el = el;
				r->ns = 1;
				r->value = rnd(&seed);
				r->vmid = rnd(&seed) % 3;
			}
			if (rnd(&seed) % 100 < o->untraced_handlers)
				ts_rec_add(rc, exec_gap);
			last = rc->n;
			pc = prog_addr(&seed, &base, o->far);
		} else if (p0 && o->gap_pct10 &&
			   rnd(&seed) % 1000 < o->gap_pct10) {
			ts_rec_add(rc, exec_gap);
			pc = prog_addr(&seed, &base, o->far);
		} else if (o->ctx_pct10 && rnd(&seed) % 1000 < o->ctx_pct10) {
			struct exec_rec *r = ts_rec_add(rc, exec_context);

			el = (uint8_t)(el == 1 ? 2 : 1);
			r->flags = EXEC_CTX_EL | EXEC_CTX_CONTEXTID |
				   EXEC_CTX_VMID;
			r->el = el;
			r->ns = 1;
			r->value = rnd(&seed);
			r->vmid = rnd(&seed) % 3;
		}
	}
	return last;
}
