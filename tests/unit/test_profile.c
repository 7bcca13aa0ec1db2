/* Profiles (include/etmkit/profile.h): ranges and branches from
 * hand-made element sequences, one rule per test (digest perf-data.md 4a),
 * and the AutoFDO writer's text. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/insn.h"
#include "etmkit/profile.h"
#include "profile/profile_internal.h"

/* A64 encodings */
#define NOP   0xd503201fu
#define B_8   0x14000002u /* b . + 8 */
#define BL_16 0x94000004u /* bl . + 16 */
#define CBZ_8 0xb4000040u /* cbz x0, . + 8 */
#define RET   0xd65f03c0u
#define BR17  0xd61f0220u /* br x17 */

/* Binary 0 holds 0x1000-0x1fff (ELF vaddr = addr + 0x10000), binary 1
 * holds 0x2000-0x2fff (vaddr = addr); nothing else is known. */
static unsigned resolves;   /* calls of resolve() */
static int give_extent;     /* resolve() gives the binary's extent */

static int resolve(void *ctx, uint8_t id, uint64_t addr,
		   struct profile_where *w)
{
	(void)ctx;
	(void)id;
	resolves++;
	if (addr >= 0x1000 && addr < 0x2000) {
		w->bin = 0;
		w->vaddr = addr + 0x10000;
	} else if (addr >= 0x2000 && addr < 0x3000) {
		w->bin = 1;
		w->vaddr = addr;
	} else {
		return -etmkit_err_not_found;
	}
	if (give_extent) {
		w->lo = addr & ~0xfffull;
		w->hi = w->lo + 0x1000;
	}
	return 0;
}

static struct profile *new_profile(void)
{
	struct profile_config cfg;
	struct profile *p;

	profile_config_init(&cfg);
	cfg.resolve = resolve;
	assert_int_equal(profile_alloc(&p, &cfg), 0);
	return p;
}

/* An executed A64 instruction; P0 when it is a branch (as ETMv4 traces
 * it); @fail: its atom was N. */
static void insn_id(struct profile *p, uint8_t id, uint64_t addr,
		    uint32_t op, int fail)
{
	struct etmkit_elem e;
	struct insn_info ii;
	uint8_t b[4] = { (uint8_t)op, (uint8_t)(op >> 8), (uint8_t)(op >> 16),
			 (uint8_t)(op >> 24) };

	assert_int_equal(insn_decode(&ii, etmkit_isa_a64, addr, b, 4), 0);
	memset(&e, 0, sizeof(e));
	e.kind = etmkit_elem_insn;
	e.addr = addr;
	e.isa = etmkit_isa_a64;
	e.size = 4;
	e.flags = ETMKIT_INSN_EXEC;
	if (ii.flags & INSN_F_BRANCH)
		e.flags |= ETMKIT_INSN_P0;
	if (fail)
		e.flags = (uint8_t)((e.flags & ~ETMKIT_INSN_EXEC) |
				    ETMKIT_INSN_COND_FAIL);
	e.u.insn.opcode = op;
	e.u.insn.class_flags = ii.flags;
	assert_int_equal(profile_elem(p, id, &e), 0);
}

static void insn(struct profile *p, uint64_t addr, uint32_t op, int fail)
{
	insn_id(p, 0x10, addr, op, fail);
}

static void event(struct profile *p, enum etmkit_elem_kind kind)
{
	struct etmkit_elem e;

	memset(&e, 0, sizeof(e));
	e.kind = (uint8_t)kind;
	assert_int_equal(profile_elem(p, 0x10, &e), 0);
}

/* The count of range (or branch) @bin:@from-@to, 0 if absent. */
static uint64_t count_of(const struct profile *p, int branch, size_t bin,
			 uint64_t from, uint64_t to)
{
	size_t n = branch ? profile_branch_count(p) : profile_range_count(p);
	struct profile_entry e;

	for (size_t i = 0; i < n; i++) {
		assert_int_equal(branch ? profile_branch_at(p, i, &e) :
					  profile_range_at(p, i, &e), 0);
		if (e.bin == bin && e.from == from && e.to == to)
			return e.count;
	}
	return 0;
}

#define RANGE(p, b, f, t) count_of(p, 0, b, f, t)
#define BRANCH(p, b, f, t) count_of(p, 1, b, f, t)

/* A taken direct branch goes to the start of the next range; a taken
 * indirect one (ret) to 0. */
static void test_direct_and_indirect(void **state)
{
	struct profile *p = new_profile();

	(void)state;
	insn(p, 0x1000, NOP, 0);
	insn(p, 0x1004, B_8, 0);
	insn(p, 0x100c, NOP, 0);
	insn(p, 0x1010, RET, 0);
	assert_int_equal(profile_finish(p), 0);
	assert_int_equal(profile_range_count(p), 2);
	assert_int_equal(profile_branch_count(p), 2);
	assert_int_equal(RANGE(p, 0, 0x11000, 0x11004), 1);
	assert_int_equal(RANGE(p, 0, 0x1100c, 0x11010), 1);
	assert_int_equal(BRANCH(p, 0, 0x11004, 0x1100c), 1);
	assert_int_equal(BRANCH(p, 0, 0x11010, 0), 1);
	profile_free(p);
}

/* A taken direct branch goes to its target where the binary that holds
 * it has it: the next range's start when one follows (as simpleperf
 * counts it), in another binary too, and the same when a discontinuity
 * comes first; with no binary there, the decoded address in the branch's
 * own binary (simpleperf's provisional target). */
static void test_direct_target(void **state)
{
	struct profile *p = new_profile();

	(void)state;
	insn(p, 0x1ff8, B_8, 0);     /* into binary 1 */
	insn(p, 0x2000, NOP, 0);
	insn(p, 0x2004, B_8, 0);
	insn(p, 0x200c, RET, 0);
	insn(p, 0x1ff8, B_8, 0);     /* the same, a discontinuity after */
	event(p, etmkit_elem_trace_on);
	insn(p, 0x2ff8, B_8, 0);     /* to 0x3000: no binary */
	event(p, etmkit_elem_trace_on);
	assert_int_equal(profile_finish(p), 0);
	assert_int_equal(BRANCH(p, 0, 0x11ff8, 0x2000), 2);
	assert_int_equal(BRANCH(p, 1, 0x2004, 0x200c), 1);
	assert_int_equal(BRANCH(p, 1, 0x2ff8, 0x3000), 1);
	assert_int_equal(profile_branch_count(p), 4);
	assert_int_equal(RANGE(p, 0, 0x11ff8, 0x11ff8), 2);
	assert_int_equal(RANGE(p, 1, 0x2000, 0x2004), 1);
	profile_free(p);
}

/* An N atom on a branch: the range counts, no branch line. */
static void test_not_taken(void **state)
{
	struct profile *p = new_profile();

	(void)state;
	insn(p, 0x1000, NOP, 0);
	insn(p, 0x1004, CBZ_8, 1);
	insn(p, 0x1008, NOP, 0);
	insn(p, 0x100c, CBZ_8, 0);
	insn(p, 0x1014, RET, 0);
	assert_int_equal(profile_finish(p), 0);
	assert_int_equal(RANGE(p, 0, 0x11000, 0x11004), 1);
	assert_int_equal(RANGE(p, 0, 0x11008, 0x1100c), 1);
	assert_int_equal(RANGE(p, 0, 0x11014, 0x11014), 1);
	assert_int_equal(profile_branch_count(p), 2);
	assert_int_equal(BRANCH(p, 0, 0x1100c, 0x11014), 1);
	assert_int_equal(BRANCH(p, 0, 0x11014, 0), 1);
	profile_free(p);
}

/* A discontinuity ends the range being built: nothing joins it to the
 * range after; the branch before keeps its target. */
static void check_cut(enum etmkit_elem_kind kind)
{
	struct profile *p = new_profile();

	insn(p, 0x1000, B_8, 0);     /* decoded target 0x1008 */
	event(p, kind);
	insn(p, 0x1100, NOP, 0);     /* an open range, cut below */
	event(p, kind);
	insn(p, 0x1200, RET, 0);
	assert_int_equal(profile_finish(p), 0);
	assert_int_equal(BRANCH(p, 0, 0x11000, 0x11008), 1);
	assert_int_equal(BRANCH(p, 0, 0x11000, 0x11100), 0);
	assert_int_equal(RANGE(p, 0, 0x11100, 0x11100), 1);
	assert_int_equal(RANGE(p, 0, 0x11200, 0x11200), 1);
	assert_int_equal(profile_range_count(p), 3);
	assert_int_equal(profile_branch_count(p), 2);
	profile_free(p);
}

static void test_cuts(void **state)
{
	static const enum etmkit_elem_kind kinds[] = {
		etmkit_elem_trace_on, etmkit_elem_gap, etmkit_elem_no_image,
		etmkit_elem_exception, etmkit_elem_overflow, etmkit_elem_q
	};

	(void)state;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		check_cut(kinds[i]);
}

/* Elements that say nothing about the path (context, timestamp) leave
 * the range being built alone. */
static void test_no_cut(void **state)
{
	struct profile *p = new_profile();

	(void)state;
	insn(p, 0x1000, NOP, 0);
	event(p, etmkit_elem_context);
	event(p, etmkit_elem_timestamp);
	insn(p, 0x1004, B_8, 0);
	event(p, etmkit_elem_context);
	insn(p, 0x100c, RET, 0);
	assert_int_equal(profile_finish(p), 0);
	assert_int_equal(RANGE(p, 0, 0x11000, 0x11004), 1);
	assert_int_equal(BRANCH(p, 0, 0x11004, 0x1100c), 1);
	profile_free(p);
}

/* A range no binary holds is dropped and flushes the one before. */
static void test_unknown_binary(void **state)
{
	struct profile *p = new_profile();

	(void)state;
	insn(p, 0x1000, B_8, 0);
	insn(p, 0x5000, RET, 0);
	insn(p, 0x1100, RET, 0);
	assert_int_equal(profile_finish(p), 0);
	assert_int_equal(profile_range_count(p), 2);
	assert_int_equal(BRANCH(p, 0, 0x11000, 0x11008), 1);
	assert_int_equal(RANGE(p, 0, 0x11100, 0x11100), 1);
	profile_free(p);
}

/* Instruction range elements: pieces of one run (cut by packets, not by
 * a P0 instruction) make one range, as insn elements would. */
static void test_insn_ranges(void **state)
{
	struct profile *p = new_profile();
	struct etmkit_elem e;

	(void)state;
	memset(&e, 0, sizeof(e));
	e.kind = etmkit_elem_insn_range;
	e.isa = etmkit_isa_a64;
	e.size = 4;
	e.flags = ETMKIT_INSN_EXEC;
	e.addr = 0x1000;
	e.u.range.end = 0x1010;
	e.u.range.count = 4;
	e.u.range.opcode = NOP;
	assert_int_equal(profile_elem(p, 0x10, &e), 0);
	e.addr = 0x1010;
	e.u.range.end = 0x1018;
	e.u.range.count = 2;
	e.flags = ETMKIT_INSN_EXEC | ETMKIT_INSN_P0;
	e.u.range.opcode = 0x17fffffcu;      /* b . - 16: 0x1004 */
	e.u.range.class_flags = INSN_F_BRANCH;
	assert_int_equal(profile_elem(p, 0x10, &e), 0);
	e.addr = 0x1004;
	e.u.range.end = 0x1018;
	e.u.range.count = 5;
	e.flags = ETMKIT_INSN_COND_FAIL | ETMKIT_INSN_P0;
	assert_int_equal(profile_elem(p, 0x10, &e), 0);
	assert_int_equal(profile_finish(p), 0);
	assert_int_equal(profile_range_count(p), 2);
	assert_int_equal(RANGE(p, 0, 0x11000, 0x11014), 1);
	assert_int_equal(RANGE(p, 0, 0x11004, 0x11014), 1);
	assert_int_equal(profile_branch_count(p), 1);
	assert_int_equal(BRANCH(p, 0, 0x11014, 0x11004), 1);
	profile_free(p);
}

/* ETMv3 traces every instruction with an atom: an N atom on an
 * instruction that is not a branch does not end the range. */
static void test_etm3_cond_fail_not_branch(void **state)
{
	struct profile *p = new_profile();
	struct etmkit_elem e;

	(void)state;
	memset(&e, 0, sizeof(e));
	e.kind = etmkit_elem_insn;
	e.isa = etmkit_isa_arm;
	e.size = 4;
	e.addr = 0x1000;
	e.flags = ETMKIT_INSN_COND_FAIL;
	e.u.insn.opcode = 0x03a00001u;        /* moveq r0, #1 */
	e.u.insn.class_flags = INSN_F_COND;
	assert_int_equal(profile_elem(p, 0x10, &e), 0);
	e.addr = 0x1004;
	e.flags = ETMKIT_INSN_EXEC;
	e.u.insn.opcode = 0xea000000u;        /* b . + 8 */
	e.u.insn.class_flags = INSN_F_BRANCH;
	assert_int_equal(profile_elem(p, 0x10, &e), 0);
	assert_int_equal(profile_finish(p), 0);
	assert_int_equal(profile_range_count(p), 1);
	assert_int_equal(RANGE(p, 0, 0x11000, 0x11004), 1);
	assert_int_equal(BRANCH(p, 0, 0x11004, 0x1100c), 1);
	profile_free(p);
}

/* Several inputs (and trace IDs) add up; each input ends with
 * profile_finish(). */
static void test_merge(void **state)
{
	struct profile *p = new_profile();

	(void)state;
	for (int k = 0; k < 3; k++) {
		insn(p, 0x1000, B_8, 0);
		insn(p, 0x1008, RET, 0);
		assert_int_equal(profile_finish(p), 0);
	}
	assert_int_equal(RANGE(p, 0, 0x11000, 0x11000), 3);
	assert_int_equal(RANGE(p, 0, 0x11008, 0x11008), 3);
	assert_int_equal(BRANCH(p, 0, 0x11000, 0x11008), 3);
	assert_int_equal(BRANCH(p, 0, 0x11008, 0), 3);
	profile_free(p);
}

/* Many distinct keys: the table grows and keeps every count. */
static void test_many_keys(void **state)
{
	struct profile *p = new_profile();

	(void)state;
	for (int k = 0; k < 2; k++)
		for (uint64_t a = 0x1000; a < 0x2000; a += 4)
			insn(p, a, RET, 0);
	assert_int_equal(profile_finish(p), 0);
	assert_int_equal(profile_range_count(p), 1024);
	assert_int_equal(profile_branch_count(p), 1024);
	for (uint64_t a = 0x1000; a < 0x2000; a += 4)
		assert_int_equal(RANGE(p, 0, a + 0x10000, a + 0x10000), 2);
	profile_free(p);
}

/* With an extent, the profile resolves addresses inside it itself, until
 * a context element or the end of the input; the counts are the same. */
static void test_extent(void **state)
{
	struct profile *p = new_profile();

	(void)state;
	give_extent = 1;
	resolves = 0;
	insn(p, 0x1000, B_8, 0);
	insn(p, 0x1008, B_8, 0);
	insn(p, 0x1010, RET, 0);
	assert_int_equal(resolves, 1);
	insn(p, 0x2000, RET, 0);      /* another binary */
	insn(p, 0x1100, RET, 0);
	assert_int_equal(resolves, 3);
	event(p, etmkit_elem_context);
	insn(p, 0x1200, RET, 0);
	assert_int_equal(resolves, 4);
	assert_int_equal(profile_finish(p), 0);
	insn(p, 0x1300, RET, 0);
	assert_int_equal(resolves, 5);
	assert_int_equal(profile_finish(p), 0);
	give_extent = 0;
	assert_int_equal(BRANCH(p, 0, 0x11000, 0x11008), 1);
	assert_int_equal(BRANCH(p, 0, 0x11008, 0x11010), 1);
	assert_int_equal(RANGE(p, 0, 0x11010, 0x11010), 1);
	assert_int_equal(RANGE(p, 1, 0x2000, 0x2000), 1);
	assert_int_equal(RANGE(p, 0, 0x11100, 0x11100), 1);
	assert_int_equal(RANGE(p, 0, 0x11300, 0x11300), 1);
	profile_free(p);
}

/* ---- A model: the rules of profile.h written plainly, against the
 * profile's fast path on instruction range elements ---------------------- */

struct model_count {
	size_t bin;
	uint64_t from, to, count;
};

struct model {
	struct model_count r[16384], b[16384];
	size_t nr, nb;
	/* per trace ID: the open run */
	struct {
		int open;
		uint64_t start, last, next;
		uint32_t op, cls, runs;
		uint8_t flags;
	} id[2];
};

static void model_add(struct model_count *t, size_t *n, size_t bin,
		      uint64_t from, uint64_t to)
{
	for (size_t i = 0; i < *n; i++)
		if (t[i].bin == bin && t[i].from == from && t[i].to == to) {
			t[i].count++;
			return;
		}
	assert_true(*n < 16384);
	t[*n].bin = bin;
	t[*n].from = from;
	t[*n].to = to;
	t[(*n)++].count = 1;
}

/* The test's resolve() without the extent. */
static int model_where(uint64_t addr, size_t *bin, uint64_t *vaddr)
{
	if (addr >= 0x1000 && addr < 0x2000) {
		*bin = 0;
		*vaddr = addr + 0x10000;
	} else if (addr >= 0x2000 && addr < 0x3000) {
		*bin = 1;
		*vaddr = addr;
	} else {
		return -1;
	}
	return 0;
}

static uint64_t a64_target(uint32_t op, uint64_t at)
{
	struct insn_info ii;
	uint8_t b[4] = { (uint8_t)op, (uint8_t)(op >> 8), (uint8_t)(op >> 16),
			 (uint8_t)(op >> 24) };

	assert_int_equal(insn_decode(&ii, etmkit_isa_a64, at, b, 4), 0);
	return ii.target;
}

static void model_close(struct model *m, int k)
{
	size_t bin, tb;
	uint64_t vs, t, tv;

	if (!m->id[k].open)
		return;
	m->id[k].open = 0;
	if (model_where(m->id[k].start, &bin, &vs) < 0)
		return;
	for (uint32_t i = 0; i < m->id[k].runs; i++) {
		uint64_t ve = vs + m->id[k].last - m->id[k].start;

		model_add(m->r, &m->nr, bin, vs, ve);
		if (!(m->id[k].cls & INSN_F_BRANCH) ||
		    !(m->id[k].flags & ETMKIT_INSN_EXEC))
			continue;
		if (m->id[k].cls & INSN_F_INDIRECT) {
			model_add(m->b, &m->nb, bin, ve, 0);
			continue;
		}
		/* where its binary has the target, else the decoded address
		 * in the branch's binary */
		t = a64_target(m->id[k].op, m->id[k].last);
		if (model_where(t, &tb, &tv) < 0)
			tv = vs + (t - m->id[k].start);
		model_add(m->b, &m->nb, bin, ve, tv);
	}
}

static void model_range(struct model *m, int k, const struct etmkit_elem *e)
{
	uint64_t last = e->u.range.end - 4;

	/* an element for several runs is a whole range by itself */
	if (m->id[k].open && (e->addr != m->id[k].next || e->u.range.repeats))
		model_close(m, k);
	if (!m->id[k].open) {
		m->id[k].open = 1;
		m->id[k].start = e->addr;
	}
	m->id[k].last = last;
	m->id[k].next = e->u.range.end;
	m->id[k].op = e->u.range.opcode;
	m->id[k].cls = e->u.range.class_flags;
	m->id[k].flags = e->flags;
	m->id[k].runs = e->u.range.repeats + 1;
	if ((e->flags & ETMKIT_INSN_P0) || e->u.range.repeats ||
	    (e->u.range.class_flags & INSN_F_BRANCH))
		model_close(m, k);
}

/* Random instruction range elements of two trace IDs over two binaries
 * and memory no binary holds, with discontinuities and context elements,
 * enough distinct ranges for the table to grow while branches wait: the
 * profile counts what the model counts. */
static void test_model(void **state)
{
	static const uint32_t ops[] = { B_8, BL_16, CBZ_8, RET, BR17, NOP };
	static struct model m;
	struct profile *p;
	struct etmkit_elem e;
	uint32_t seed = 12345;

	(void)state;
	memset(&m, 0, sizeof(m));
	give_extent = 1;
	p = new_profile();
	for (int n = 0; n < 60000; n++) {
		int k, fail;
		uint32_t op, r;
		struct insn_info ii;
		uint8_t b[4];

		seed = seed * 1103515245u + 12345u;
		r = seed >> 8;
		k = r & 1;
		if ((r >> 1) % 64 == 0) {
			static const enum etmkit_elem_kind ev[] = {
				etmkit_elem_context, etmkit_elem_trace_on,
				etmkit_elem_exception, etmkit_elem_gap
			};
			int kind = ev[(r >> 7) % 4];

			memset(&e, 0, sizeof(e));
			e.kind = (uint8_t)kind;
			assert_int_equal(profile_elem(p, (uint8_t)k, &e), 0);
			if (kind != etmkit_elem_context)
				model_close(&m, k);
			continue;
		}
		memset(&e, 0, sizeof(e));
		e.kind = etmkit_elem_insn_range;
		e.isa = etmkit_isa_a64;
		e.size = 4;
		/* mostly where the last range of this ID ended or went */
		e.addr = (r >> 7) % 4 ? m.id[k].next ? m.id[k].next : 0x1000 :
			 0x1000 + (uint64_t)((r >> 10) % 0x900) * 4;
		e.u.range.count = 1 + (r >> 13) % 4;
		e.u.range.end = e.addr + 4 * e.u.range.count;
		/* one instruction per address, as in an image */
		op = ops[((uint32_t)((e.u.range.end - 4) >> 2) * 2654435761u
			  >> 20) % 6];
		fail = op == CBZ_8 && (r >> 20) % 2;
		b[0] = (uint8_t)op;
		b[1] = (uint8_t)(op >> 8);
		b[2] = (uint8_t)(op >> 16);
		b[3] = (uint8_t)(op >> 24);
		assert_int_equal(insn_decode(&ii, etmkit_isa_a64,
					     e.u.range.end - 4, b, 4), 0);
		e.u.range.opcode = op;
		e.u.range.class_flags = ii.flags;
		e.flags = fail ? ETMKIT_INSN_COND_FAIL : ETMKIT_INSN_EXEC;
		if (ii.flags & INSN_F_BRANCH)
			e.flags |= ETMKIT_INSN_P0;
		/* as ETM4_FLOW_TALLY delivers a whole range run again */
		if ((e.flags & ETMKIT_INSN_P0) && (r >> 21) % 4 == 0)
			e.u.range.repeats = (r >> 23) % 5;
		assert_int_equal(profile_elem(p, (uint8_t)k, &e), 0);
		model_range(&m, k, &e);
		m.id[k].next = e.u.range.end;
		if (e.flags & ETMKIT_INSN_P0)
			m.id[k].next = m.id[k].next % 0x2000 + 0x1000;
	}
	for (int k = 0; k < 2; k++)
		model_close(&m, k);
	assert_int_equal(profile_finish(p), 0);
	give_extent = 0;
	assert_true(m.nr > 1000);      /* the table grew */
	assert_int_equal(profile_range_count(p), m.nr);
	assert_int_equal(profile_branch_count(p), m.nb);
	/* (RANGE() and BRANCH() are linear: look the keys up directly) */
	for (size_t i = 0; i < m.nr; i++)
		assert_int_equal(count_map_find(p->ranges.slots, p->ranges.cap,
						m.r[i].bin, m.r[i].from,
						m.r[i].to)->count,
				 m.r[i].count);
	for (size_t i = 0; i < m.nb; i++)
		assert_int_equal(count_map_find(p->branches.slots,
						p->branches.cap, m.b[i].bin,
						m.b[i].from, m.b[i].to)->count,
				 m.b[i].count);
	profile_free(p);
}

/* The writer's text: binaries by name with the split line, sorted lines,
 * the base subtracted, a branch target below it as 0, a range below it
 * left out, saturated counts. */
static void test_write(void **state)
{
	struct profile *p = new_profile();
	struct profile_binary bins[2];
	char buf[1024];
	size_t n;
	FILE *f = tmpfile();
	static const char want[] =
		"// Please split this file. AutoFDO only accepts profile for "
		"one binary.\n"
		"1\n"
		"0-0:1\n"
		"0\n"
		"1\n"
		"0->0:1\n"
		"// build_id: 0x0000000000000000000000000000000000000000\n"
		"// /a/lib.so\n"
		"\n"
		"3\n"
		"0-4:18446744073709551615\n"
		"14-18:1\n"
		"100-100:1\n"
		"0\n"
		"4\n"
		"4->14:1\n"
		"18->0:1\n"
		"100->108:1\n"
		"200->0:1\n"
		"// build_id: 0x0102030405060708090a0b0c0d0e0f1011121300\n"
		"// /b/prog\n"
		"\n";

	(void)state;
	assert_non_null(f);
	/* binary 0, base 0x11000: 0x11000-0x11004 at the limit already */
	assert_int_equal(count_map_add(&p->ranges, 0, 0x11000, 0x11004,
				       UINT64_MAX), 0);
	assert_false(profile_saturated(p));
	insn(p, 0x1000, NOP, 0);
	insn(p, 0x1004, BL_16, 0);
	insn(p, 0x1014, NOP, 0);
	insn(p, 0x1018, BR17, 0);
	event(p, etmkit_elem_trace_on);
	insn(p, 0x1100, B_8, 0);
	insn(p, 0x0ff0, RET, 0);   /* unknown binary: 0x1100 keeps 0x1108 */
	/* binary 1, base 0x2000 */
	insn(p, 0x2000, RET, 0);
	assert_int_equal(profile_finish(p), 0);
	/* below binary 0's base: left out (range), target 0 (branch) */
	assert_int_equal(count_map_add(&p->ranges, 0, 0x10000, 0x11000, 1), 0);
	assert_int_equal(count_map_add(&p->branches, 0, 0x11200, 0x100, 1), 0);
	assert_true(profile_saturated(p));

	memset(bins, 0, sizeof(bins));
	bins[0].name = "/b/prog";
	bins[0].base = 0x11000;
	for (int i = 0; i < 19; i++)
		bins[0].build_id[i] = (uint8_t)(i + 1);
	bins[1].name = "/a/lib.so";
	bins[1].base = 0x2000;
	assert_int_equal(profile_write_autofdo(p, f, bins, 2), 0);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	assert_string_equal(buf, want);

	/* --binary: one block left, no split line */
	bins[1].skip = 1;
	assert_non_null(freopen(NULL, "w+", f));
	assert_int_equal(profile_write_autofdo(p, f, bins, 2), 0);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	assert_string_equal(buf, strstr(want, "3\n0-4:"));

	/* a counted binary without a description */
	assert_int_equal(profile_write_autofdo(p, f, bins, 1),
			 -etmkit_err_invalid);
	fclose(f);
	profile_free(p);
}

static void test_errors(void **state)
{
	struct profile_config cfg;
	struct profile *p = NULL;
	struct etmkit_elem e;

	(void)state;
	profile_config_init(&cfg);
	assert_int_equal(profile_alloc(&p, &cfg), -etmkit_err_invalid);
	assert_null(p);
	cfg.resolve = resolve;
	cfg.size = 4;
	assert_int_equal(profile_alloc(&p, &cfg), -etmkit_err_invalid);
	p = new_profile();
	memset(&e, 0, sizeof(e));
	assert_int_equal(profile_elem(p, 0x80, &e), -etmkit_err_invalid);
	assert_int_equal(profile_elem(p, 0, NULL), -etmkit_err_invalid);
	assert_int_equal(profile_write_autofdo(p, NULL, NULL, 0),
			 -etmkit_err_invalid);
	profile_free(p);
}

static struct profile *new_traces(void)
{
	struct profile_config cfg;
	struct profile *p;

	profile_config_init(&cfg);
	cfg.resolve = resolve;
	cfg.traces = 1;
	assert_int_equal(profile_alloc(&p, &cfg), 0);
	return p;
}

/* Taken-branch traces: a range goes on across a not-taken branch and
 * ends at the next taken one; a taken branch, indirect too, goes to the
 * next instruction; an exception cuts (no branch edge); a branch into
 * another binary counts no branch; a tallied range is refused. */
static void test_traces(void **state)
{
	struct profile *p = new_traces();
	struct etmkit_elem e;

	(void)state;
	insn(p, 0x1000, NOP, 0);
	insn(p, 0x1004, CBZ_8, 1);      /* not taken: goes on */
	insn(p, 0x1008, NOP, 0);
	insn(p, 0x100c, BL_16, 0);      /* taken: 0x101c */
	insn(p, 0x101c, RET, 0);        /* taken: 0x1010 */
	insn(p, 0x1010, BR17, 0);       /* taken: 0x1040 */
	insn(p, 0x1040, NOP, 0);
	insn(p, 0x1044, B_8, 0);        /* taken, then an exception */
	event(p, etmkit_elem_exception);
	insn(p, 0x104c, RET, 0);        /* taken into binary 1 */
	insn(p, 0x2000, RET, 0);        /* taken back into binary 0 */
	insn(p, 0x1050, NOP, 0);
	assert_int_equal(profile_finish(p), 0);
	assert_int_equal(profile_range_count(p), 7);
	assert_int_equal(RANGE(p, 0, 0x11000, 0x1100c), 1);
	assert_int_equal(RANGE(p, 0, 0x1101c, 0x1101c), 1);
	assert_int_equal(RANGE(p, 0, 0x11010, 0x11010), 1);
	assert_int_equal(RANGE(p, 0, 0x11040, 0x11044), 1);
	assert_int_equal(RANGE(p, 0, 0x1104c, 0x1104c), 1);
	assert_int_equal(RANGE(p, 1, 0x2000, 0x2000), 1);
	assert_int_equal(RANGE(p, 0, 0x11050, 0x11050), 1);
	assert_int_equal(profile_branch_count(p), 3);
	assert_int_equal(BRANCH(p, 0, 0x1100c, 0x1101c), 1);
	assert_int_equal(BRANCH(p, 0, 0x1101c, 0x11010), 1);
	assert_int_equal(BRANCH(p, 0, 0x11010, 0x11040), 1);
	/* the AutoFDO writer refuses a traces profile */
	assert_int_equal(profile_write_autofdo(p, stdout, NULL, 0),
			 -etmkit_err_invalid);
	memset(&e, 0, sizeof(e));
	e.kind = etmkit_elem_insn_range;
	e.isa = etmkit_isa_a64;
	e.size = 4;
	e.flags = ETMKIT_INSN_EXEC | ETMKIT_INSN_P0;
	e.addr = 0x1000;
	e.u.range.end = 0x1008;
	e.u.range.count = 2;
	e.u.range.opcode = 0x17ffffffu;      /* b . - 4 */
	e.u.range.class_flags = INSN_F_BRANCH;
	e.u.range.repeats = 3;
	assert_int_equal(profile_elem(p, 0x10, &e), -etmkit_err_unsupported);
	profile_free(p);
}

/* A branch waits for its target while another trace ID's ranges make
 * the map grow (its range's slot moves): counted all the same. */
static void test_traces_grow(void **state)
{
	struct profile *p = new_traces();

	(void)state;
	insn_id(p, 0x10, 0x1000, B_8, 0);          /* waits for 0x1008 */
	for (int k = 0; k < 300; k++) {
		insn_id(p, 0x11, 0x1100 + 8 * (uint64_t)k, B_8, 0);
		insn_id(p, 0x11, 0x1108 + 8 * (uint64_t)k, NOP, 0);
		insn_id(p, 0x11, 0x1f00, NOP, 0);
		assert_int_equal(profile_trace_end(p, 0x11), 0);
	}
	insn_id(p, 0x10, 0x1008, NOP, 0);
	assert_int_equal(profile_finish(p), 0);
	assert_true(profile_range_count(p) > 300);
	assert_int_equal(BRANCH(p, 0, 0x11000, 0x11008), 1);
	assert_int_equal(BRANCH(p, 0, 0x11100, 0x11108), 1);
	assert_int_equal(RANGE(p, 0, 0x11008, 0x11008), 1);
	profile_free(p);
}

/* BOLT and profgen text of one binary; several: refused. */
static void test_traces_write(void **state)
{
	struct profile *p = new_traces();
	struct profile_binary bins[2];
	char buf[256];
	size_t len;
	FILE *f = tmpfile();

	(void)state;
	insn(p, 0x1000, CBZ_8, 1);
	insn(p, 0x1004, B_8, 0);
	insn(p, 0x100c, RET, 0);
	insn(p, 0x2000, NOP, 0);
	assert_int_equal(profile_finish(p), 0);
	memset(bins, 0, sizeof(bins));
	bins[0].name = "/a";
	bins[0].text_base = 0x11000;
	bins[1].name = "/b";
	assert_non_null(f);
	assert_int_equal(profile_write_bolt(p, f, bins, 2),
			 -etmkit_err_invalid);
	bins[1].skip = 1;
	assert_int_equal(profile_write_bolt(p, f, bins, 2), 0);
	assert_int_equal(profile_write_profgen(p, f, bins, 2), 0);
	rewind(f);
	len = fread(buf, 1, sizeof(buf) - 1, f);
	buf[len] = 0;
	fclose(f);
	assert_string_equal(buf, "B 11004 1100c 1 0\n"
				 "F 11000 11004 1\n"
				 "F 1100c 1100c 1\n"
				 "2\n0-4:1\nc-c:1\n1\n4->c:1\n");
	profile_free(p);
}

/* Call contexts (cfg.contexts): the profgen writer's context-sensitive
 * text for binary 0 at @base. */
static struct profile *new_contexts(void)
{
	struct profile_config cfg;
	struct profile *p;

	profile_config_init(&cfg);
	cfg.resolve = resolve;
	cfg.traces = 1;
	cfg.contexts = 1;
	assert_int_equal(profile_alloc(&p, &cfg), 0);
	return p;
}

static void write_cs(struct profile *p, uint64_t base, char *buf,
		     size_t size)
{
	struct profile_binary bins[2];
	size_t len;
	FILE *f = tmpfile();

	assert_non_null(f);
	memset(bins, 0, sizeof(bins));
	bins[0].name = "/a";
	bins[0].text_base = base;
	bins[1].name = "/b";
	bins[1].skip = 1;
	assert_int_equal(profile_finish(p), 0);
	assert_int_equal(profile_write_profgen(p, f, bins, 2), 0);
	rewind(f);
	len = fread(buf, 1, size - 1, f);
	buf[len] = 0;
	fclose(f);
}

/* Calls enter contexts (the range and branch that call count in the
 * caller's), returns leave them; a return past the known calls stays in
 * the empty context; a gap forgets the context (and the branch before
 * it). */
static void test_contexts(void **state)
{
	struct profile *p = new_contexts();
	char buf[1024];

	(void)state;
	insn(p, 0x1000, BL_16, 0);      /* [] -> 0x1010, enters [0x0] */
	insn(p, 0x1010, BL_16, 0);      /* [0x0] -> 0x1020, [0x0 @ 0x10] */
	insn(p, 0x1020, RET, 0);        /* back to 0x1004, [0x0] */
	insn(p, 0x1004, RET, 0);        /* to 0x1030, [] */
	insn(p, 0x1030, RET, 0);        /* past the known calls: [] */
	insn(p, 0x1040, BL_16, 0);      /* [] enters [0x40], then a gap */
	event(p, etmkit_elem_gap);
	insn(p, 0x1050, NOP, 0);        /* forgotten: [] */
	insn(p, 0x1054, RET, 0);        /* to 0x1060, stays [] */
	insn(p, 0x1060, NOP, 0);
	write_cs(p, 0x11000, buf, sizeof(buf));
	assert_string_equal(buf,
		"[]\n"
		"  5\n  0-0:1\n  30-30:1\n  40-40:1\n  50-54:1\n  60-60:1\n"
		"  3\n  0->10:1\n  30->40:1\n  54->60:1\n"
		"[0x0]\n"
		"  2\n  4-4:1\n  10-10:1\n"
		"  2\n  4->30:1\n  10->20:1\n"
		"[0x0 @ 0x10]\n"
		"  1\n  20-20:1\n"
		"  1\n  20->4:1\n");
	/* the context-free writers refuse it; contexts need traces */
	assert_int_equal(profile_write_bolt(p, stdout, NULL, 0),
			 -etmkit_err_invalid);
	profile_free(p);
	{
		struct profile_config cfg;

		profile_config_init(&cfg);
		cfg.resolve = resolve;
		cfg.contexts = 1;
		assert_int_equal(profile_alloc(&p, &cfg),
				 -etmkit_err_invalid);
	}
}

static void context_id(struct profile *p, uint32_t cid)
{
	struct etmkit_elem e;

	memset(&e, 0, sizeof(e));
	e.kind = etmkit_elem_context;
	e.flags = ETMKIT_CTX_CONTEXT_ID;
	e.u.context.context_id = cid;
	assert_int_equal(profile_elem(p, 0x10, &e), 0);
}

/* Each thread (context ID) keeps its context; a call from another
 * binary, or below the text base, starts the context after it (as
 * llvm-profgen cuts contexts at external frames), and contexts that
 * become the same merge. */
static void test_contexts_threads(void **state)
{
	struct profile *p = new_contexts();
	char buf[1024];

	(void)state;
	context_id(p, 1);
	insn(p, 0x1100, BL_16, 0);      /* thread 1: [] calls, [0x0] */
	insn(p, 0x1110, NOP, 0);        /* its range ends at the switch */
	context_id(p, 2);
	insn(p, 0x2000, BL_16, 0);      /* binary 1: [ext] */
	insn(p, 0x1110, NOP, 0);        /* [ext] 0x10-0x14: as [] */
	insn(p, 0x1114, RET, 0);
	insn(p, 0x2004, NOP, 0);        /* back in binary 1 */
	context_id(p, 1);
	insn(p, 0x1114, RET, 0);        /* thread 1 again: [0x0] */
	insn(p, 0x1104, NOP, 0);
	context_id(p, 3);
	insn(p, 0x1000, BL_16, 0);      /* below the base: [low] */
	insn(p, 0x1110, NOP, 0);        /* [low] 0x10-0x14: as [], */
	insn(p, 0x1114, RET, 0);        /* merged with [ext]'s */
	write_cs(p, 0x11100, buf, sizeof(buf));
	assert_string_equal(buf,
		"[]\n"
		"  3\n  0-0:1\n  4-4:1\n  10-14:2\n"
		"  1\n  0->10:1\n"
		"[0x0]\n"
		"  2\n  10-10:1\n  14-14:1\n"
		"  1\n  14->4:1\n");
	profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direct_and_indirect),
		cmocka_unit_test(test_direct_target),
		cmocka_unit_test(test_not_taken),
		cmocka_unit_test(test_cuts),
		cmocka_unit_test(test_no_cut),
		cmocka_unit_test(test_unknown_binary),
		cmocka_unit_test(test_insn_ranges),
		cmocka_unit_test(test_etm3_cond_fail_not_branch),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_many_keys),
		cmocka_unit_test(test_extent),
		cmocka_unit_test(test_model),
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_traces),
		cmocka_unit_test(test_traces_grow),
		cmocka_unit_test(test_traces_write),
		cmocka_unit_test(test_contexts),
		cmocka_unit_test(test_contexts_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
