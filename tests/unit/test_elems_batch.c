/* The batch entry points (profile_elems(), stacks_elems(),
 * coverage_elems(): a session's on_elems batches) against the
 * one-element ones on the same pseudo-random element sequences: two trace
 * IDs over two binaries and memory no binary holds, instruction ranges
 * (some run again, as ETM4_FLOW_TALLY delivers them) and single
 * instructions ending in every kind of branch, and the elements that cut,
 * switch threads or move time. The sequence goes one element at a time
 * into one consumer and in batches of 1 to 64 elements of one trace ID
 * into another: the counts, call stacks, frame events and the first error
 * must be the same. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/coverage.h"
#include "etmkit/insn.h"
#include "etmkit/profile.h"
#include "etmkit/stacks.h"

#define NELEMS 40000

/* A64 encodings */
#define NOP   0xd503201fu
#define B_8   0x14000002u /* b . + 8 */
#define BL_16 0x94000004u /* bl . + 16 */
#define CBZ_8 0xb4000040u /* cbz x0, . + 8 */
#define RET   0xd65f03c0u
#define BR17  0xd61f0220u /* br x17 */
#define BEQ_8 0x54000040u /* b.eq . + 8 */

static struct etmkit_elem seq[NELEMS];
static uint8_t seq_id[NELEMS];

/* Binary 0 holds 0x1000-0x1fff (ELF vaddr = addr + 0x10000), binary 1
 * 0x2000-0x2fff (vaddr = addr), each given as its extent; nothing else
 * is known. */
static int resolve(void *ctx, uint8_t id, uint64_t addr,
		   struct profile_where *w)
{
	(void)ctx;
	(void)id;
	if (addr >= 0x1000 && addr < 0x2000) {
		w->bin = 0;
		w->vaddr = addr + 0x10000;
	} else if (addr >= 0x2000 && addr < 0x3000) {
		w->bin = 1;
		w->vaddr = addr;
	} else {
		return -etmkit_err_not_found;
	}
	w->lo = addr & ~0xfffull;
	w->hi = w->lo + 0x1000;
	return 0;
}

static uint32_t rnd(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

/* The instruction at @addr: one per address, as in an image. */
static uint32_t op_at(uint64_t addr)
{
	static const uint32_t ops[] = { B_8, BL_16, CBZ_8, RET, BR17, NOP,
					BEQ_8, NOP };

	return ops[((uint32_t)(addr >> 2) * 2654435761u >> 20) % 8];
}

/* An element that is not an instruction: what cuts, switches threads or
 * moves time. */
static void other_elem(struct etmkit_elem *e, uint32_t r)
{
	static const enum etmkit_elem_kind kinds[] = {
		etmkit_elem_context, etmkit_elem_trace_on,
		etmkit_elem_exception, etmkit_elem_gap,
		etmkit_elem_timestamp, etmkit_elem_exception_return,
		etmkit_elem_no_image, etmkit_elem_context,
	};

	e->kind = (uint8_t)kinds[r % 8];
	if (e->kind == etmkit_elem_context) {
		e->flags = ETMKIT_CTX_CONTEXT_ID;
		e->u.context.context_id = 100 + (r >> 3) % 3;
	} else if (e->kind == etmkit_elem_exception) {
		e->addr = 0x1800;
		e->isa = etmkit_isa_a64;
		e->u.exception.number = (uint16_t)((r >> 3) % 4);
	} else if (e->kind == etmkit_elem_timestamp) {
		e->u.timestamp.value = r;
	}
}

/* NELEMS elements of IDs 0 and 1 into seq, seq_id. */
static void make_seq(uint32_t seed)
{
	uint64_t next[2] = { 0x1000, 0x2000 };
	uint64_t ts[2] = { 0, 0 };

	for (size_t n = 0; n < NELEMS; n++) {
		struct etmkit_elem *e = &seq[n];
		uint32_t r = rnd(&seed), op, cnt;
		int k = (r >> 30) % 2 && (r & 7) == 0 ? 1 - seq_id[n ? n - 1 : 0]
					  : seq_id[n ? n - 1 : 0];
		struct insn_info ii;
		uint8_t b[4];

		seq_id[n] = (uint8_t)k;
		memset(e, 0, sizeof(*e));
		if ((r >> 3) % 24 == 0) {
			other_elem(e, rnd(&seed));
			if (e->kind == etmkit_elem_timestamp)
				e->u.timestamp.value = ts[k] += r % 1000;
			continue;
		}
		/* mostly where the last range of this ID went */
		e->addr = (r >> 8) % 5 ? next[k] :
			  0x1000 + (uint64_t)((r >> 11) % 0xa00) * 4;
		cnt = 1 + (r >> 21) % 4;
		e->isa = etmkit_isa_a64;
		e->size = 4;
		if ((r >> 23) % 8 == 0) {   /* a single instruction */
			e->kind = etmkit_elem_insn;
			cnt = 1;
		} else {
			e->kind = etmkit_elem_insn_range;
			e->u.range.count = cnt;
			e->u.range.end = e->addr + 4 * cnt;
		}
		op = op_at(e->addr + 4 * (cnt - 1));
		b[0] = (uint8_t)op;
		b[1] = (uint8_t)(op >> 8);
		b[2] = (uint8_t)(op >> 16);
		b[3] = (uint8_t)(op >> 24);
		assert_int_equal(insn_decode(&ii, etmkit_isa_a64,
					     e->addr + 4 * (cnt - 1), b, 4), 0);
		e->u.insn.opcode = op;
		e->u.insn.class_flags = ii.flags;
		e->flags = ETMKIT_INSN_EXEC;
		if (ii.flags & INSN_F_BRANCH)
			e->flags |= ETMKIT_INSN_P0;
		if ((ii.flags & INSN_F_COND) && (r >> 26) % 2)
			e->flags = (uint8_t)((e->flags & ~ETMKIT_INSN_EXEC) |
					     ETMKIT_INSN_COND_FAIL);
		/* a whole range run again (a tally): refused by traces */
		if (e->kind == etmkit_elem_insn_range &&
		    (e->flags & ETMKIT_INSN_P0) && (r >> 27) % 16 == 0)
			e->u.range.repeats = (r >> 28) % 3 + 1;
		next[k] = e->addr + 4 * cnt;
		if ((e->flags & ETMKIT_INSN_EXEC) && (ii.flags & INSN_F_BRANCH))
			next[k] = (ii.flags & INSN_F_INDIRECT) ?
				  0x1000 + (uint64_t)(r % 0x1c00) * 4 :
				  ii.target;
		if (next[k] < 0x1000 || next[k] >= 0x3400)
			next[k] = 0x1000 + (next[k] & 0xffc);
	}
}

/* Feed seq to @fn one element at a time (@batched 0) or in batches of
 * one ID (1-64 elements); the first error. */
typedef int (*one_fn)(void *obj, uint8_t id, const struct etmkit_elem *e);
typedef int (*many_fn)(void *obj, uint8_t id, const struct etmkit_elem *e,
		       size_t n);

static int feed(void *obj, one_fn one, many_fn many, int batched,
		uint32_t seed, size_t *calls)
{
	int first = 0;

	*calls = 0;
	for (size_t i = 0; i < NELEMS;) {
		size_t n = 1, max = batched ? 1 + rnd(&seed) % 64 : 1;
		int err;

		while (i + n < NELEMS && n < max && seq_id[i + n] == seq_id[i])
			n++;
		err = batched ? many(obj, seq_id[i], &seq[i], n) :
				one(obj, seq_id[i], &seq[i]);
		if (err < 0 && !first)
			first = err;
		(*calls)++;
		i += n;
	}
	return first;
}

/* ---- Profiles ----------------------------------------------------------- */

static int p_one(void *o, uint8_t id, const struct etmkit_elem *e)
{
	return profile_elem(o, id, e);
}

static int p_many(void *o, uint8_t id, const struct etmkit_elem *e, size_t n)
{
	return profile_elems(o, id, e, n);
}

static int cmp_entry(const void *x, const void *y)
{
	const struct profile_entry *a = x, *b = y;

	if (a->bin != b->bin)
		return a->bin < b->bin ? -1 : 1;
	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	if (a->to != b->to)
		return a->to < b->to ? -1 : 1;
	if (a->ctx != b->ctx)
		return a->ctx < b->ctx ? -1 : 1;
	return a->count < b->count ? -1 : a->count > b->count;
}

/* The ranges (@branch 0) or branches of @p, sorted; their number in *@n. */
static struct profile_entry *entries(const struct profile *p, int branch,
				     size_t *n)
{
	struct profile_entry *v;

	*n = branch ? profile_branch_count(p) : profile_range_count(p);
	v = calloc(*n ? *n : 1, sizeof(*v));
	assert_non_null(v);
	for (size_t i = 0; i < *n; i++)
		assert_int_equal(branch ? profile_branch_at(p, i, &v[i]) :
					  profile_range_at(p, i, &v[i]), 0);
	qsort(v, *n, sizeof(*v), cmp_entry);
	return v;
}

static void same_profile(const struct profile *a, const struct profile *b)
{
	for (int br = 0; br < 2; br++) {
		size_t na, nb;
		struct profile_entry *va = entries(a, br, &na);
		struct profile_entry *vb = entries(b, br, &nb);

		assert_true(na > 10);
		assert_int_equal(na, nb);
		for (size_t i = 0; i < na; i++)
			assert_int_equal(cmp_entry(&va[i], &vb[i]), 0);
		free(va);
		free(vb);
	}
}

/* AutoFDO's ranges, taken-branch traces (a tallied range refused:
 * the same first error), and traces with call contexts. */
static void test_profile_elems(void **state)
{
	(void)state;
	make_seq(777);
	for (int mode = 0; mode < 3; mode++) {
		struct profile_config cfg;
		struct profile *p[2];
		size_t calls[2];
		int err[2];

		profile_config_init(&cfg);
		cfg.resolve = resolve;
		cfg.traces = mode > 0;
		cfg.contexts = mode > 1;
		for (int b = 0; b < 2; b++) {
			assert_int_equal(profile_alloc(&p[b], &cfg), 0);
			err[b] = feed(p[b], p_one, p_many, b, 99, &calls[b]);
			assert_int_equal(profile_finish(p[b]), 0);
		}
		assert_true(calls[1] * 4 < calls[0]);
		assert_int_equal(err[0], mode ? -etmkit_err_unsupported : 0);
		assert_int_equal(err[1], err[0]);
		same_profile(p[0], p[1]);
		profile_free(p[0]);
		profile_free(p[1]);
	}
	assert_int_equal(profile_elems(NULL, 0, seq, 1), -etmkit_err_invalid);
}

static void test_profile_elems_args(void **state)
{
	struct profile_config cfg;
	struct profile *p;

	(void)state;
	profile_config_init(&cfg);
	cfg.resolve = resolve;
	assert_int_equal(profile_alloc(&p, &cfg), 0);
	assert_int_equal(profile_elems(p, 0, NULL, 0), 0);
	assert_int_equal(profile_elems(p, 0, NULL, 1), -etmkit_err_invalid);
	assert_int_equal(profile_elems(p, 128, seq, 1), -etmkit_err_invalid);
	assert_int_equal(profile_range_count(p), 0);
	profile_free(p);
}

/* ---- Call stacks -------------------------------------------------------- */

static int frame(void *ctx, uint8_t id, uint64_t addr, int exc,
		 uint64_t *key)
{
	(void)ctx;
	(void)id;
	*key = (addr >> 8) | ((uint64_t)exc << 32);
	return 0;
}

/* The frame events, folded into a hash (FNV-1a over their fields). */
struct ev_hash {
	uint64_t h, n;
};

static void mix(struct ev_hash *e, uint64_t v)
{
	for (int i = 0; i < 8; i++) {
		e->h ^= (uint8_t)(v >> (8 * i));
		e->h *= 0x100000001b3ull;
	}
}

static int event(void *ctx, const struct stacks_event *ev)
{
	struct ev_hash *e = ctx;

	mix(e, ev->kind);
	mix(e, ev->id);
	mix(e, ev->thread);
	mix(e, ev->key);
	mix(e, ev->depth);
	mix(e, ev->begin);
	mix(e, ev->end);
	e->n++;
	return 0;
}

static int s_one(void *o, uint8_t id, const struct etmkit_elem *e)
{
	return stacks_elem(o, id, e);
}

static int s_many(void *o, uint8_t id, const struct etmkit_elem *e, size_t n)
{
	return stacks_elems(o, id, e, n);
}

static void test_stacks_elems(void **state)
{
	struct ev_hash h[2];
	struct stacks *s[2];
	size_t calls[2];

	(void)state;
	make_seq(4242);
	for (int b = 0; b < 2; b++) {
		struct stacks_config c;

		stacks_config_init(&c);
		c.frame = frame;
		c.event = event;
		c.ctx = &h[b];
		c.clock = stacks_time;
		h[b].h = 0xcbf29ce484222325ull;
		h[b].n = 0;
		assert_int_equal(stacks_alloc(&s[b], &c), 0);
		assert_int_equal(feed(s[b], s_one, s_many, b, 5, &calls[b]), 0);
		assert_int_equal(stacks_finish(s[b]), 0);
	}
	assert_true(calls[1] * 4 < calls[0]);
	assert_true(h[0].n > 1000);
	assert_int_equal(h[1].n, h[0].n);
	assert_int_equal(h[1].h, h[0].h);
	assert_true(stacks_node_count(s[0]) > 100);
	assert_int_equal(stacks_node_count(s[1]), stacks_node_count(s[0]));
	for (size_t i = 0; i < stacks_node_count(s[0]); i++) {
		struct stacks_node a, b;

		assert_int_equal(stacks_node_at(s[0], i, &a), 0);
		assert_int_equal(stacks_node_at(s[1], i, &b), 0);
		assert_int_equal(a.parent, b.parent);
		assert_int_equal(a.key, b.key);
		for (int k = 0; k < stacks_clock_count; k++)
			assert_int_equal(a.weight[k], b.weight[k]);
	}
	assert_int_equal(stacks_elems(s[0], 0, NULL, 0), 0);
	assert_int_equal(stacks_elems(s[0], 0, NULL, 1), -etmkit_err_invalid);
	assert_int_equal(stacks_elems(s[0], 128, seq, 1), -etmkit_err_invalid);
	assert_int_equal(stacks_elems(NULL, 0, seq, 1), -etmkit_err_invalid);
	stacks_free(s[0]);
	stacks_free(s[1]);
}

/* ---- Coverage ----------------------------------------------------------- */

static int c_one(void *o, uint8_t id, const struct etmkit_elem *e)
{
	return coverage_elem(o, id, e);
}

static int c_many(void *o, uint8_t id, const struct etmkit_elem *e, size_t n)
{
	return coverage_elems(o, id, e, n);
}

static void test_coverage_elems(void **state)
{
	static const struct { size_t bin; uint64_t lo, hi; } bins[] = {
		{ 0, 0x11000, 0x12000 }, { 1, 0x2000, 0x3000 },
	};
	struct coverage *c[2];
	size_t calls[2];
	uint64_t ran = 0, outcomes = 0;

	(void)state;
	make_seq(31337);
	for (int b = 0; b < 2; b++) {
		struct coverage_config cc;

		coverage_config_init(&cc);
		cc.resolve = resolve;
		assert_int_equal(coverage_alloc(&c[b], &cc), 0);
		assert_int_equal(coverage_conditions_traced(c[b], 1, 1), 0);
		assert_int_equal(feed(c[b], c_one, c_many, b, 8, &calls[b]), 0);
		assert_int_equal(coverage_finish(c[b]), 0);
	}
	assert_true(calls[1] * 4 < calls[0]);
	assert_int_equal(coverage_range_count(c[1]), coverage_range_count(c[0]));
	assert_int_equal(coverage_cond_count(c[1]), coverage_cond_count(c[0]));
	for (size_t k = 0; k < 2; k++)
		for (uint64_t a = bins[k].lo; a < bins[k].hi; a += 4) {
			uint64_t p0, f0, p1, f1;
			uint64_t m = coverage_max(c[0], bins[k].bin, a, a + 4);
			int r0 = coverage_outcomes(c[0], bins[k].bin, a, &p0,
						   &f0);
			int r1 = coverage_outcomes(c[1], bins[k].bin, a, &p1,
						   &f1);

			assert_int_equal(coverage_max(c[1], bins[k].bin, a,
						      a + 4), m);
			assert_int_equal(r1, r0);
			assert_int_equal(p1, p0);
			assert_int_equal(f1, f0);
			ran += m != 0;
			outcomes += r0 == 0;
		}
	assert_true(ran > 1000);
	assert_true(outcomes > 50);
	assert_int_equal(coverage_elems(c[0], 0, NULL, 0), 0);
	assert_int_equal(coverage_elems(c[0], 0, NULL, 1), -etmkit_err_invalid);
	assert_int_equal(coverage_elems(c[0], 128, seq, 1),
			 -etmkit_err_invalid);
	assert_int_equal(coverage_elems(NULL, 0, seq, 1), -etmkit_err_invalid);
	coverage_free(c[0]);
	coverage_free(c[1]);
}

/* A branch_run (ETM4_FLOW_TRACES) is for the taken-branch traces
 * profile only: the other counters refuse it rather than drop its
 * instructions unseen. */
static void test_branch_run_refused(void **state)
{
	struct etmkit_elem br;
	struct profile_config pc;
	struct coverage_config cc;
	struct stacks_config sc;
	struct profile *p;
	struct coverage *c;
	struct stacks *st;

	(void)state;
	memset(&br, 0, sizeof(br));
	br.kind = etmkit_elem_branch_run;
	br.addr = 0x1000;
	br.size = 4;
	br.flags = ETMKIT_INSN_EXEC | ETMKIT_INSN_P0;
	br.u.brun.class_flags = INSN_F_BRANCH;
	br.u.brun.end = 0x1010;
	br.u.brun.target = 0x1000;
	profile_config_init(&pc);
	pc.resolve = resolve;
	assert_int_equal(profile_alloc(&p, &pc), 0);
	assert_int_equal(profile_elem(p, 0, &br), -etmkit_err_unsupported);
	assert_int_equal(profile_elems(p, 0, &br, 1), -etmkit_err_unsupported);
	profile_free(p);
	pc.traces = 1;                  /* the one that takes it */
	assert_int_equal(profile_alloc(&p, &pc), 0);
	assert_int_equal(profile_elem(p, 0, &br), 0);
	assert_int_equal(profile_finish(p), 0);
	assert_int_equal(profile_range_count(p), 1);
	profile_free(p);
	coverage_config_init(&cc);
	cc.resolve = resolve;
	assert_int_equal(coverage_alloc(&c, &cc), 0);
	assert_int_equal(coverage_elem(c, 0, &br), -etmkit_err_unsupported);
	coverage_free(c);
	stacks_config_init(&sc);
	sc.frame = frame;
	assert_int_equal(stacks_alloc(&st, &sc), 0);
	assert_int_equal(stacks_elem(st, 0, &br), -etmkit_err_unsupported);
	stacks_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile_elems),
		cmocka_unit_test(test_profile_elems_args),
		cmocka_unit_test(test_stacks_elems),
		cmocka_unit_test(test_coverage_elems),
		cmocka_unit_test(test_branch_run_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
