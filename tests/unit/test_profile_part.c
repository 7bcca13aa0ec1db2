/* Partial profiles (include/etmkit/profile_part.h) against the profiles
 * and coverages they come from: pseudo-random element sequences of four
 * trace IDs over three binaries (and memory none holds) go into a
 * profile or a coverage through a resolver, as the CLI counts them; the
 * part made from it, turned back, must write the same AutoFDO, BOLT and
 * llvm-profgen text and give the same per-address coverage. Parts of
 * some trace IDs, each numbering the binaries its own way, merged, must
 * equal one profile fed every element, in either order of merging. */
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
#include "etmkit/profile_part.h"

#define NELEMS 30000
#define NIDS 4
#define NBINS 3

/* ---- The binaries and the resolver ----------------------------------------- */

/* Binary i runs at [run_lo[i], run_lo[i] + 0x1000), its ELF addresses
 * there + delta[i]. Bases put some ranges below them (AutoFDO drops
 * those, and lines that come from below). */
static const uint64_t run_lo[NBINS] = { 0x1000, 0x2000, 0x4000 };
static const uint64_t delta[NBINS] = { 0x10000, 0, 0x3fc000 };
static const struct profile_part_binary bins[NBINS] = {
	{ "/usr/bin/prog", "/symfs/usr/bin/prog",
	  { 0xaa, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
	    18, 19 }, 20, 1, 0x11400, 0x11000 },
	{ "/lib/libc.so.6", "/symfs/lib/libc.so.6", { 0xbb, 1, 2, 3 }, 4, 1,
	  0x2000, 0x2000 },
	{ "/opt/dump.bin", NULL, { 0 }, 0, 0, 0, 0 },
};

/* How a profile numbers the binaries: perm[i] is its number for binary
 * i above. */
static const size_t canon[NBINS] = { 0, 1, 2 };
static const size_t rotated[NBINS] = { 2, 0, 1 };
static const size_t swapped[NBINS] = { 1, 2, 0 };

static int resolve(void *ctx, uint8_t id, uint64_t addr,
		   struct profile_where *w)
{
	const size_t *perm = ctx;

	(void)id;
	for (size_t i = 0; i < NBINS; i++)
		if (addr - run_lo[i] < 0x1000) {
			w->bin = perm[i];
			w->vaddr = addr + delta[i];
			if (addr & 4) {    /* an extent sometimes */
				w->lo = run_lo[i];
				w->hi = run_lo[i] + 0x1000;
			}
			return 0;
		}
	return -etmkit_err_not_found;
}

/* ---- The elements ------------------------------------------------------------ */

/* A64 encodings */
#define NOP   0xd503201fu
#define B_12  0x14000003u /* b . + 12 */
#define BL_20 0x94000005u /* bl . + 20 */
#define CBNZ  0xb5000060u /* cbnz x0, . + 12 */
#define BNE   0x54000061u /* b.ne . + 12 */
#define RET   0xd65f03c0u
#define BLR   0xd63f0100u /* blr x8 */

static struct etmkit_elem elems[NELEMS];
static uint8_t elem_id[NELEMS];

static uint32_t next_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* The instruction at run-time @addr, the same every time. */
static uint32_t opcode_at(uint64_t addr)
{
	static const uint32_t table[] = { NOP, B_12, NOP, BL_20, CBNZ, NOP,
					  BNE, RET, NOP, BLR, NOP, NOP };
	uint32_t h = (uint32_t)(addr >> 2) * 0x9e3779b1u;

	return table[(h >> 16) % (sizeof(table) / sizeof(table[0]))];
}

/* Instructions from @addr up to the first branch (at most 8) as an
 * insn_range (or an insn for one), run @repeats + 1 times; taken or not
 * by @r. Returns where it went on. */
static uint64_t make_range(struct etmkit_elem *e, uint64_t addr, uint32_t r,
			   uint32_t repeats)
{
	struct insn_info ii;
	uint64_t a = addr;
	uint32_t op = NOP, n = 0;
	uint8_t b[4];

	while (n < 8) {
		op = opcode_at(a);
		n++;
		if (op != NOP)
			break;
		a += 4;
	}
	b[0] = (uint8_t)op;
	b[1] = (uint8_t)(op >> 8);
	b[2] = (uint8_t)(op >> 16);
	b[3] = (uint8_t)(op >> 24);
	assert_int_equal(insn_decode(&ii, etmkit_isa_a64, a, b, 4), 0);
	memset(e, 0, sizeof(*e));
	e->addr = addr;
	e->isa = etmkit_isa_a64;
	e->size = 4;
	e->flags = ETMKIT_INSN_EXEC;
	if (ii.flags & INSN_F_BRANCH)
		e->flags |= ETMKIT_INSN_P0;
	if ((ii.flags & INSN_F_COND) && (r & 1))
		e->flags = (uint8_t)((e->flags & ~ETMKIT_INSN_EXEC) |
				     ETMKIT_INSN_COND_FAIL);
	if (n == 1 && !repeats && (r & 2)) {
		e->kind = etmkit_elem_insn;
		e->u.insn.opcode = op;
		e->u.insn.class_flags = ii.flags;
	} else {
		e->kind = etmkit_elem_insn_range;
		e->u.range.opcode = op;
		e->u.range.class_flags = ii.flags;
		e->u.range.end = a + 4;
		e->u.range.count = n;
		e->u.range.repeats = repeats;
	}
	if ((ii.flags & INSN_F_BRANCH) && (e->flags & ETMKIT_INSN_EXEC) &&
	    !(ii.flags & INSN_F_INDIRECT))
		return ii.target;
	return a + 4;
}

/* NELEMS elements of IDs 0..NIDS-1; @repeats: insn_ranges that ran
 * several times (ETM4_FLOW_TALLY; not for taken-branch traces). */
static void make_elems(uint32_t seed, int repeats)
{
	uint64_t next[NIDS];
	uint8_t id = 0;

	for (int i = 0; i < NIDS; i++)
		next[i] = run_lo[i % NBINS];
	for (size_t n = 0; n < NELEMS; n++) {
		uint32_t r = next_rand(&seed);
		struct etmkit_elem *e = &elems[n];

		if (r % 16 == 0)
			id = (uint8_t)(next_rand(&seed) % NIDS);
		elem_id[n] = id;
		if (r % 97 == 1) {
			static const uint8_t cuts[] = {
				etmkit_elem_trace_on, etmkit_elem_gap,
				etmkit_elem_context, etmkit_elem_exception };

			memset(e, 0, sizeof(*e));
			e->kind = cuts[(r >> 8) % 4];
			continue;
		}
		if (r % 13 == 2)   /* somewhere else: maybe no binary's */
			next[id] = 0x1000 + (uint64_t)((r >> 8) % 0x1000) * 4;
		next[id] = make_range(e, next[id], r >> 4,
				      repeats && r % 5 == 0 ? (r >> 20) % 4 : 0);
	}
}

/* ---- Profiles and coverages from the elements --------------------------------- */

/* The elements of the IDs in @ids (a bit each) through a resolver that
 * numbers the binaries @perm, into @p or @c. */
static void feed(struct profile *p, struct coverage *c, unsigned ids,
		 const size_t *perm)
{
	(void)perm;
	for (size_t n = 0; n < NELEMS; n++) {
		if (!(ids >> elem_id[n] & 1))
			continue;
		if (p) {
			int err = profile_elems(p, 0x10 + elem_id[n], &elems[n], 1);

			assert_int_equal(err, 0);
		} else {
			assert_int_equal(coverage_elem(c, 0x10 + elem_id[n],
						       &elems[n]), 0);
		}
	}
}

/* A profile fed the elements of IDs @ids, not finished. */
static struct profile *profile_fed(int traces, unsigned ids,
				   const size_t *perm)
{
	struct profile_config cfg;
	struct profile *p;

	profile_config_init(&cfg);
	cfg.resolve = resolve;
	cfg.ctx = (void *)perm;
	cfg.traces = traces;
	assert_int_equal(profile_alloc(&p, &cfg), 0);
	feed(p, NULL, ids, perm);
	return p;
}

/* A profile of the elements of IDs @ids, then (another input) of
 * @more's when not 0. */
static struct profile *profile_of2(int traces, unsigned ids, unsigned more,
				   const size_t *perm)
{
	struct profile *p = profile_fed(traces, ids, perm);

	assert_int_equal(profile_finish(p), 0);
	if (more) {
		feed(p, NULL, more, perm);
		assert_int_equal(profile_finish(p), 0);
	}
	return p;
}

static struct profile *profile_of(int traces, unsigned ids,
				  const size_t *perm)
{
	return profile_of2(traces, ids, 0, perm);
}

/* The same for a coverage. */
static struct coverage *coverage_fed(unsigned ids, const size_t *perm)
{
	struct coverage_config cfg;
	struct coverage *c;

	coverage_config_init(&cfg);
	cfg.resolve = resolve;
	cfg.ctx = (void *)perm;
	assert_int_equal(coverage_alloc(&c, &cfg), 0);
	/* one ID traces every instruction's condition (ETMv3) */
	assert_int_equal(coverage_conditions_traced(c, 0x11, 1), 0);
	feed(NULL, c, ids, perm);
	return c;
}

static struct coverage *coverage_of2(unsigned ids, unsigned more,
				     const size_t *perm)
{
	struct coverage *c = coverage_fed(ids, perm);

	assert_int_equal(coverage_finish(c), 0);
	if (more) {
		feed(NULL, c, more, perm);
		assert_int_equal(coverage_finish(c), 0);
	}
	return c;
}

static struct coverage *coverage_of(unsigned ids, const size_t *perm)
{
	return coverage_of2(ids, 0, perm);
}

/* A part of @kind holding @p or @c, whose binaries are numbered @perm;
 * the part's binaries are added in the order @order. */
static struct profile_part *part_of(enum profile_part_kind kind,
				    const struct profile *p,
				    const struct coverage *c,
				    const size_t *perm, const size_t *order)
{
	struct profile_part *pp;
	long map[NBINS];

	assert_int_equal(profile_part_alloc(&pp, kind), 0);
	for (size_t k = 0; k < NBINS; k++) {
		size_t i = order[k];
		long at = profile_part_add_binary(pp, &bins[i]);

		assert_true(at >= 0);
		map[perm[i]] = at;
	}
	if (p)
		assert_int_equal(profile_part_add_profile(pp, p, map, NBINS), 0);
	else if (c)
		assert_int_equal(profile_part_add_coverage(pp, c, map, NBINS),
				 0);
	return pp;
}

/* ---- Writing -------------------------------------------------------------------- */

enum fmt { fmt_autofdo, fmt_bolt, fmt_profgen };

/* The writer's binaries for @pp's table (or, @pp NULL, for the
 * profile numbering @perm), all skipped but @only's name (NULL: none
 * skipped). */
static void writer_bins(const struct profile_part *pp, const size_t *perm,
			const char *only, struct profile_binary *out)
{
	for (size_t i = 0; i < NBINS; i++) {
		struct profile_part_binary b = bins[i];
		size_t at = pp ? i : perm[i];

		if (pp)
			assert_int_equal(profile_part_binary_at(pp, i, &b), 0);
		memset(&out[at], 0, sizeof(out[at]));
		out[at].name = b.name;
		memcpy(out[at].build_id, b.build_id, 20);
		out[at].base = b.base;
		out[at].text_base = b.text_base;
		out[at].skip = only && strcmp(only, b.name) != 0;
	}
}

/* @p written as @f; the text (free() it). */
static char *write_text(const struct profile *p, enum fmt f,
			const struct profile_binary *wb)
{
	char *text = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&text, &n);
	int err;

	assert_non_null(m);
	err = f == fmt_autofdo ? profile_write_autofdo(p, m, wb, NBINS) :
	      f == fmt_bolt ? profile_write_bolt(p, m, wb, NBINS) :
			      profile_write_profgen(p, m, wb, NBINS);
	assert_int_equal(err, 0);
	assert_int_equal(fclose(m), 0);
	return text;
}

/* Profile @p (binaries numbered @perm) and part @pp write the same text
 * in format @f (for BOLT and llvm-profgen: one binary, @only). Returns
 * the text's length. */
static size_t same_text(const struct profile *p, const size_t *perm,
			const struct profile_part *pp, enum fmt f,
			const char *only)
{
	struct profile_binary wa[NBINS], wb[NBINS];
	struct profile *q;
	char *a, *b;
	size_t n;

	writer_bins(NULL, perm, only, wa);
	writer_bins(pp, NULL, only, wb);
	assert_int_equal(profile_part_profile(pp, &q), 0);
	a = write_text(p, f, wa);
	b = write_text(q, f, wb);
	assert_string_equal(a, b);
	n = strlen(a);
	free(a);
	free(b);
	profile_free(q);
	return n;
}

/* Every format, every binary. */
static void same_texts(const struct profile *p, const size_t *perm,
		       const struct profile_part *pp, int traces)
{
	if (!traces) {
		/* three blocks, with ranges and branches */
		assert_true(same_text(p, perm, pp, fmt_autofdo, NULL) > 2000);
		return;
	}
	for (size_t i = 0; i < NBINS; i++) {
		assert_true(same_text(p, perm, pp, fmt_bolt, bins[i].name) >
			    1000);
		assert_true(same_text(p, perm, pp, fmt_profgen, bins[i].name) >
			    1000);
	}
}

/* Coverages @a (binaries numbered @pa) and @b (@pb) say the same of
 * every address and every stretch of 16 bytes of the binaries. Returns
 * the sum of the counts seen, and of the outcomes in *@outcomes. */
static uint64_t same_coverage(const struct coverage *a, const size_t *pa,
			      const struct coverage *b, const size_t *pb,
			      uint64_t *outcomes)
{
	uint64_t sum = 0;

	*outcomes = 0;
	assert_int_equal(coverage_saturated(a), coverage_saturated(b));
	for (size_t i = 0; i < NBINS; i++)
		for (uint64_t v = run_lo[i] + delta[i] - 8;
		     v < run_lo[i] + delta[i] + 0x1008; v++) {
			uint64_t xp, xf, yp, yf;
			uint64_t x = coverage_max(a, pa[i], v, v + 1);
			int rx = coverage_outcomes(a, pa[i], v, &xp, &xf);
			int ry = coverage_outcomes(b, pb[i], v, &yp, &yf);

			assert_int_equal(x, coverage_max(b, pb[i], v, v + 1));
			assert_int_equal(coverage_max(a, pa[i], v, v + 16),
					 coverage_max(b, pb[i], v, v + 16));
			assert_int_equal(rx, ry);
			assert_int_equal(xp, yp);
			assert_int_equal(xf, yf);
			sum += x;
			*outcomes += xp + xf;
		}
	return sum;
}

/* How part @pp numbers the binaries (its index of binary i above). */
static const size_t *numbering(const struct profile_part *pp, size_t *out)
{
	assert_int_equal(profile_part_binary_count(pp), NBINS);
	for (size_t i = 0; i < NBINS; i++) {
		struct profile_part_binary b;

		assert_int_equal(profile_part_binary_at(pp, i, &b), 0);
		for (size_t k = 0; k < NBINS; k++)
			if (!strcmp(b.name, bins[k].name))
				out[k] = i;
	}
	return out;
}

/* Coverage @all (binaries numbered canon) and the one made from part
 * @pp say the same of every address. */
static void same_as_part(const struct coverage *all,
			 const struct profile_part *pp)
{
	struct coverage *m;
	size_t perm[NBINS];
	uint64_t outcomes;

	assert_int_equal(profile_part_coverage(pp, &m), 0);
	assert_true(same_coverage(all, canon, m, numbering(pp, perm),
				  &outcomes) > 10000);
	assert_true(outcomes > 1000);
	coverage_free(m);
}

/* ---- Round trips ------------------------------------------------------------------ */

/* A part made from a profile writes what the profile writes, with its
 * binaries added in another order than the profile numbers them. */
static void round_trip(int traces)
{
	static const size_t order[NBINS] = { 2, 1, 0 };
	enum profile_part_kind kind = traces ? profile_part_kind_traces :
					       profile_part_kind_tally;
	struct profile *p;
	struct profile_part *pp;

	make_elems(7, !traces);
	p = profile_of(traces, 0xf, swapped);
	pp = part_of(kind, p, NULL, swapped, order);
	assert_int_equal(profile_part_binary_count(pp), NBINS);
	assert_int_equal(profile_part_range_count(pp), profile_range_count(p));
	assert_int_equal(profile_part_branch_count(pp),
			 profile_branch_count(p));
	same_texts(p, swapped, pp, traces);
	profile_part_free(pp);
	profile_free(p);
}

static void test_round_trip_tally(void **state)
{
	(void)state;
	round_trip(0);
}

static void test_round_trip_traces(void **state)
{
	(void)state;
	round_trip(1);
}

static void test_round_trip_coverage(void **state)
{
	struct coverage *c, *d;
	struct profile_part *pp;
	uint64_t outcomes;
	size_t perm[NBINS];

	(void)state;
	make_elems(11, 1);
	c = coverage_of(0xf, rotated);
	pp = part_of(profile_part_kind_coverage, NULL, c, rotated, canon);
	assert_int_equal(profile_part_coverage(pp, &d), 0);
	assert_int_equal(coverage_range_count(d), coverage_range_count(c));
	assert_int_equal(coverage_cond_count(d), coverage_cond_count(c));
	assert_true(same_coverage(c, rotated, d, numbering(pp, perm),
				  &outcomes) > 10000);
	assert_true(outcomes > 1000);
	coverage_free(d);
	coverage_free(c);
	profile_part_free(pp);
}

/* ---- Merging ------------------------------------------------------------------------ */

/* Parts of IDs @ida (numbered rotated) and @idb (numbered swapped),
 * merged both ways, against one profile fed them (each set of IDs an
 * input of its own). */
static void merge_check(int traces, unsigned ida, unsigned idb)
{
	static const size_t order_a[NBINS] = { 1, 2, 0 };
	enum profile_part_kind kind = traces ? profile_part_kind_traces :
					       profile_part_kind_tally;
	struct profile *pa, *pb, *all;
	struct profile_part *a, *b, *ab, *ba;

	pa = profile_of(traces, ida, rotated);
	pb = profile_of(traces, idb, swapped);
	all = profile_of2(traces, ida, idb, canon);

	a = part_of(kind, pa, NULL, rotated, order_a);
	b = part_of(kind, pb, NULL, swapped, canon);
	assert_int_equal(profile_part_clone(&ab, a), 0);
	assert_int_equal(profile_part_merge(ab, b), 0);
	assert_int_equal(profile_part_clone(&ba, b), 0);
	assert_int_equal(profile_part_merge(ba, a), 0);
	assert_int_equal(profile_part_binary_count(ab), NBINS);
	same_texts(all, canon, ab, traces);
	same_texts(all, canon, ba, traces);
	profile_part_free(a);
	profile_part_free(b);
	profile_part_free(ab);
	profile_part_free(ba);
	profile_free(pa);
	profile_free(pb);
	profile_free(all);
}

/* Disjoint: IDs 0-1 and 2-3; overlapping: 0-2 and 1-3 (IDs 1 and 2
 * counted twice). */
static void test_merge_tally(void **state)
{
	(void)state;
	make_elems(23, 1);
	merge_check(0, 0x3, 0xc);
	merge_check(0, 0x7, 0xe);
}

static void test_merge_traces(void **state)
{
	(void)state;
	make_elems(29, 0);
	merge_check(1, 0x3, 0xc);
	merge_check(1, 0x7, 0xe);
}

static void test_merge_coverage(void **state)
{
	struct coverage *ca, *cb, *all;
	struct profile_part *a, *b;

	(void)state;
	make_elems(31, 1);
	ca = coverage_of(0x7, rotated);
	cb = coverage_of(0xe, swapped);
	all = coverage_of2(0x7, 0xe, canon);
	a = part_of(profile_part_kind_coverage, NULL, ca, rotated, swapped);
	b = part_of(profile_part_kind_coverage, NULL, cb, swapped, canon);
	assert_int_equal(profile_part_merge(b, a), 0);
	same_as_part(all, b);
	coverage_free(ca);
	coverage_free(cb);
	coverage_free(all);
	profile_part_free(a);
	profile_part_free(b);
}

/* The counts of entry @i of the profile made from @pp. */
static uint64_t range_count_at(const struct profile_part *pp, size_t i)
{
	struct profile *p;
	struct profile_entry e;

	assert_int_equal(profile_part_profile(pp, &p), 0);
	assert_int_equal(profile_range_at(p, i, &e), 0);
	profile_free(p);
	return e.count;
}

/* A part merged with itself doubles its counts, and they stop at
 * UINT64_MAX with the saturation said. */
static void test_saturation(void **state)
{
	struct profile *p;
	struct profile_part *pp;
	struct profile_part_counters c;
	struct profile_entry e;
	uint64_t first;

	(void)state;
	make_elems(37, 1);
	p = profile_of(0, 0x1, canon);
	pp = part_of(profile_part_kind_tally, p, NULL, canon, canon);
	assert_int_equal(profile_range_at(p, 0, &e), 0);
	first = range_count_at(pp, 0);
	for (int i = 0; i < 10; i++)
		assert_int_equal(profile_part_merge(pp, pp), 0);
	assert_int_equal(range_count_at(pp, 0), first << 10);
	assert_int_equal(profile_part_counters(pp, &c), 0);
	assert_int_equal(c.saturated, 0);
	for (int i = 0; i < 60; i++)
		assert_int_equal(profile_part_merge(pp, pp), 0);
	assert_int_equal(range_count_at(pp, 0), UINT64_MAX);
	assert_int_equal(profile_part_counters(pp, &c), 0);
	assert_int_equal(c.saturated, 1);
	profile_free(p);
	assert_int_equal(profile_part_profile(pp, &p), 0);
	assert_int_equal(profile_saturated(p), 1);
	profile_free(p);
	profile_part_free(pp);
}

/* ---- Refusals ------------------------------------------------------------------------ */

/* The same name and build id with another base: different files. */
static void test_binary_conflict(void **state)
{
	struct profile_part *a, *b;
	struct profile_part_binary x = bins[0], y = bins[1];

	(void)state;
	assert_int_equal(profile_part_alloc(&a, profile_part_kind_tally), 0);
	assert_int_equal(profile_part_alloc(&b, profile_part_kind_tally), 0);
	assert_int_equal(profile_part_add_binary(a, &bins[0]), 0);
	assert_int_equal(profile_part_add_binary(a, &bins[1]), 1);
	assert_int_equal(profile_part_add_binary(a, &bins[0]), 0);
	/* another build id, or its size: another binary */
	y.build_id_size = 5;
	assert_int_equal(profile_part_add_binary(a, &y), 2);
	x.base += 0x1000;
	assert_int_equal(profile_part_add_binary(a, &x), -etmkit_err_format);
	assert_non_null(strstr(profile_part_message(a), "/usr/bin/prog"));
	assert_non_null(strstr(profile_part_message(a), "different files"));
	x = bins[0];
	x.text_base = 0;
	assert_int_equal(profile_part_add_binary(a, &x), -etmkit_err_format);
	x = bins[0];
	x.has_elf = 0;
	assert_int_equal(profile_part_add_binary(a, &x), -etmkit_err_format);
	assert_int_equal(profile_part_binary_count(a), 3);
	/* in a merge: refused, the part unchanged */
	x = bins[0];
	x.base = 0;
	assert_int_equal(profile_part_add_binary(b, &bins[2]), 0);
	assert_int_equal(profile_part_add_binary(b, &x), 1);
	assert_int_equal(profile_part_merge(a, b), -etmkit_err_format);
	assert_non_null(strstr(profile_part_message(a), "/usr/bin/prog"));
	assert_int_equal(profile_part_binary_count(a), 3);
	/* no name, a long build id */
	x.name = "";
	assert_int_equal(profile_part_add_binary(a, &x), -etmkit_err_invalid);
	x = bins[0];
	x.build_id_size = 21;
	assert_int_equal(profile_part_add_binary(a, &x), -etmkit_err_invalid);
	profile_part_free(a);
	profile_part_free(b);
}

/* A file given again keeps the smallest, whatever the order. */
static void test_binary_file(void **state)
{
	struct profile_part *a;
	struct profile_part_binary x = bins[0], out;

	(void)state;
	assert_int_equal(profile_part_alloc(&a, profile_part_kind_coverage), 0);
	x.file = NULL;
	assert_int_equal(profile_part_add_binary(a, &x), 0);
	assert_int_equal(profile_part_binary_at(a, 0, &out), 0);
	assert_null(out.file);
	x.file = "/b/prog";
	assert_int_equal(profile_part_add_binary(a, &x), 0);
	x.file = "/c/prog";
	assert_int_equal(profile_part_add_binary(a, &x), 0);
	assert_int_equal(profile_part_binary_at(a, 0, &out), 0);
	assert_string_equal(out.file, "/b/prog");
	x.file = "/a/prog";
	assert_int_equal(profile_part_add_binary(a, &x), 0);
	assert_int_equal(profile_part_binary_at(a, 0, &out), 0);
	assert_string_equal(out.file, "/a/prog");
	profile_part_free(a);
}

/* Kinds that differ do not mix. */
static void test_kinds(void **state)
{
	struct profile_part *t, *r, *c, *bad;
	struct profile *pt, *pr, *po;
	struct coverage *cv, *co;
	long map[NBINS] = { 0, 1, 2 };

	(void)state;
	make_elems(41, 0);
	pt = profile_of(0, 0x1, canon);
	pr = profile_of(1, 0x1, canon);
	cv = coverage_of(0x1, canon);
	t = part_of(profile_part_kind_tally, pt, NULL, canon, canon);
	r = part_of(profile_part_kind_traces, pr, NULL, canon, canon);
	c = part_of(profile_part_kind_coverage, NULL, cv, canon, canon);
	assert_int_equal(profile_part_merge(t, r), -etmkit_err_invalid);
	assert_non_null(strstr(profile_part_message(t), "traces part"));
	assert_non_null(strstr(profile_part_message(t), "tally part"));
	assert_int_equal(profile_part_merge(r, c), -etmkit_err_invalid);
	assert_int_equal(profile_part_merge(c, t), -etmkit_err_invalid);
	assert_int_equal(profile_part_add_profile(t, pr, map, NBINS),
			 -etmkit_err_invalid);
	assert_int_equal(profile_part_add_profile(r, pt, map, NBINS),
			 -etmkit_err_invalid);
	assert_int_equal(profile_part_add_profile(c, pt, map, NBINS),
			 -etmkit_err_invalid);
	assert_int_equal(profile_part_add_coverage(t, cv, map, NBINS),
			 -etmkit_err_invalid);
	assert_int_equal(profile_part_coverage(t, &co), -etmkit_err_invalid);
	assert_null(co);
	assert_int_equal(profile_part_profile(c, &po), -etmkit_err_invalid);
	assert_null(po);
	assert_int_equal(profile_part_alloc(&bad, 0), -etmkit_err_invalid);
	assert_int_equal(profile_part_alloc(&bad, 4), -etmkit_err_invalid);
	profile_part_free(t);
	profile_part_free(r);
	profile_part_free(c);
	profile_free(pt);
	profile_free(pr);
	coverage_free(cv);
}

/* A profile or coverage not finished, a binary map that does not fit:
 * refused, the part unchanged. */
static void test_add_refused(void **state)
{
	struct profile *p;
	struct coverage *c;
	struct profile_part *pp, *pc_part;
	long map[NBINS] = { 0, 1, 2 };

	(void)state;
	make_elems(43, 1);
	p = profile_fed(0, 0xf, canon);
	pp = part_of(profile_part_kind_tally, NULL, NULL, canon, canon);
	assert_int_equal(profile_part_add_profile(pp, p, map, NBINS),
			 -etmkit_err_invalid);
	assert_non_null(strstr(profile_part_message(pp), "not finished"));
	assert_int_equal(profile_finish(p), 0);
	assert_int_equal(profile_part_add_profile(pp, p, map, 2),
			 -etmkit_err_invalid);
	map[1] = 3;
	assert_int_equal(profile_part_add_profile(pp, p, map, NBINS),
			 -etmkit_err_invalid);
	map[1] = -1;
	assert_int_equal(profile_part_add_profile(pp, p, map, NBINS),
			 -etmkit_err_invalid);
	assert_int_equal(profile_part_range_count(pp), 0);
	assert_int_equal(profile_part_branch_count(pp), 0);
	map[1] = 1;
	assert_int_equal(profile_part_add_profile(pp, p, map, NBINS), 0);
	assert_int_equal(profile_part_range_count(pp), profile_range_count(p));

	c = coverage_fed(0xf, canon);
	pc_part = part_of(profile_part_kind_coverage, NULL, NULL, canon, canon);
	assert_int_equal(profile_part_add_coverage(pc_part, c, map, NBINS),
			 -etmkit_err_invalid);
	assert_non_null(strstr(profile_part_message(pc_part), "not finished"));
	assert_int_equal(coverage_finish(c), 0);
	assert_int_equal(profile_part_add_coverage(pc_part, c, map, NBINS), 0);
	assert_int_equal(profile_part_range_count(pc_part),
			 coverage_range_count(c));
	profile_free(p);
	coverage_free(c);
	profile_part_free(pp);
	profile_part_free(pc_part);
}


/* ---- The saved form ----------------------------------------------------------------- */

/* @pp's saved bytes (free() them) into *@n. */
static uint8_t *saved(const struct profile_part *pp, size_t *n)
{
	uint8_t *b;

	assert_int_equal(profile_part_save_buf(pp, &b, n), 0);
	assert_true(*n >= 64);
	return b;
}

/* The same through profile_part_save() to a FILE. */
static uint8_t *saved_file(const struct profile_part *pp, size_t *n)
{
	char *b = NULL;
	FILE *m = open_memstream(&b, n);

	assert_non_null(m);
	assert_int_equal(profile_part_save(pp, m), 0);
	assert_int_equal(fclose(m), 0);
	return (uint8_t *)b;
}

/* Loaded from @b, @pp saves the same bytes again. */
static struct profile_part *reload(const uint8_t *b, size_t n)
{
	struct profile_part_diag d;
	struct profile_part *pp;
	uint8_t *again;
	size_t m;
	int err = profile_part_load(&pp, b, n, &d);

	if (err)
		print_message("load: %s at %llu\n", d.message,
			      (unsigned long long)d.offset);
	assert_int_equal(err, 0);
	again = saved(pp, &m);
	assert_int_equal(m, n);
	assert_memory_equal(again, b, n);
	free(again);
	return pp;
}

/* Merged in either order, with binaries added in other orders: the
 * same bytes; loaded, they write what the profile of every element
 * writes. */
static void canonical(int traces)
{
	static const size_t order_a[NBINS] = { 2, 0, 1 };
	enum profile_part_kind kind = traces ? profile_part_kind_traces :
					       profile_part_kind_tally;
	struct profile *pa, *pb, *all;
	struct profile_part *a, *b, *ab, *ba, *l;
	struct profile_part_counters ca = { 1, 3, 0, 0 }, cb = { 2, 0, 0, 1 };
	uint8_t *x, *y;
	size_t nx, ny;

	pa = profile_of(traces, 0x5, rotated);
	pb = profile_of(traces, 0xa, swapped);
	all = profile_of(traces, 0xf, canon);
	a = part_of(kind, pa, NULL, rotated, order_a);
	b = part_of(kind, pb, NULL, swapped, canon);
	assert_int_equal(profile_part_add_counters(a, &ca), 0);
	assert_int_equal(profile_part_add_counters(b, &cb), 0);
	assert_int_equal(profile_part_clone(&ab, a), 0);
	assert_int_equal(profile_part_merge(ab, b), 0);
	assert_int_equal(profile_part_clone(&ba, b), 0);
	assert_int_equal(profile_part_merge(ba, a), 0);
	x = saved(ab, &nx);
	y = saved(ba, &ny);
	assert_int_equal(nx, ny);
	assert_memory_equal(x, y, nx);
	assert_true(nx > 64 + 3 * 48 + 1000 * 32);
	free(y);
	y = saved_file(ba, &ny);      /* to a FILE: the same */
	assert_int_equal(nx, ny);
	assert_memory_equal(x, y, nx);
	l = reload(x, nx);
	assert_int_equal(profile_part_counters(l, &ca), 0);
	assert_int_equal(ca.inputs, 3);
	assert_int_equal(ca.decode_errors, 3);
	assert_int_equal(ca.etm3, 1);
	same_texts(all, canon, l, traces);
	free(x);
	free(y);
	profile_part_free(a);
	profile_part_free(b);
	profile_part_free(ab);
	profile_part_free(ba);
	profile_part_free(l);
	profile_free(pa);
	profile_free(pb);
	profile_free(all);
}

static void test_canonical_tally(void **state)
{
	(void)state;
	make_elems(47, 1);
	canonical(0);
}

static void test_canonical_traces(void **state)
{
	(void)state;
	make_elems(53, 0);
	canonical(1);
}

static void test_canonical_coverage(void **state)
{
	struct coverage *ca, *cb, *all;
	struct profile_part *a, *b, *l;
	uint8_t *x, *y;
	size_t nx, ny;

	(void)state;
	make_elems(59, 1);
	ca = coverage_of(0x3, rotated);
	cb = coverage_of(0xc, swapped);
	all = coverage_of(0xf, canon);
	a = part_of(profile_part_kind_coverage, NULL, ca, rotated, canon);
	b = part_of(profile_part_kind_coverage, NULL, cb, swapped, rotated);
	x = saved(a, &nx);
	assert_int_equal(profile_part_merge(a, b), 0);
	assert_int_equal(profile_part_load(&l, x, nx, NULL), 0);
	free(x);
	assert_int_equal(profile_part_merge(b, l), 0);
	x = saved(a, &nx);
	y = saved(b, &ny);
	assert_int_equal(nx, ny);
	assert_memory_equal(x, y, nx);
	profile_part_free(l);
	l = reload(y, ny);
	same_as_part(all, l);
	free(x);
	free(y);
	coverage_free(ca);
	coverage_free(cb);
	coverage_free(all);
	profile_part_free(a);
	profile_part_free(b);
	profile_part_free(l);
}

/* Little-endian fields, as docs/profile-part.md lays them out. */
static uint8_t *le(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

static uint8_t *text(uint8_t *p, const char *s)
{
	memcpy(p, s, strlen(s));
	return p + strlen(s);
}

/* A binary as docs/profile-part.md lays it out: @id build id bytes
 * 0xbe, 0xef, ... (zero-padded). */
static uint8_t *hand_bin(uint8_t *p, const char *name, const char *file,
			 int id, int flags, uint64_t base, uint64_t text_base)
{
	static const uint8_t bytes[] = { 0xbe, 0xef, 0x12, 0x34 };

	p = le(p, strlen(name), 4);
	p = le(p, strlen(file), 4);
	p = le(p, (uint64_t)id, 1);
	p = le(p, (uint64_t)flags, 1);
	memset(p, 0, 22);
	memcpy(p, bytes, (size_t)id);
	p = le(p + 22, base, 8);
	p = le(p, text_base, 8);
	return text(text(p, name), file);
}

/* An entry: binary, then three u64. */
static uint8_t *hand_entry(uint8_t *p, uint32_t bin, uint64_t a, uint64_t b,
			   uint64_t c)
{
	p = le(p, bin, 4);
	p = le(p, 0, 4);
	p = le(p, a, 8);
	p = le(p, b, 8);
	return le(p, c, 8);
}

/* A coverage part written by hand from docs/profile-part.md: two
 * binaries, two ranges, a conditional instruction. */
static size_t hand_part(uint8_t *buf)
{
	uint8_t *p = buf;

	p = text(p, "ETMKPART");
	p = le(p, 1, 4);                  /* version */
	p = le(p, 3, 4);                  /* coverage */
	p = le(p, 2, 4);                  /* etm3 */
	p = le(p, 2, 4);                  /* binaries */
	p = le(p, 4, 8);                  /* inputs */
	p = le(p, 1, 8);                  /* decode errors */
	p = le(p, 2, 8);                  /* ranges */
	p = le(p, 1, 8);                  /* conditional instructions */
	p = le(p, 64 + 48 + 2 + 48 + 2 + 8 + 3 * 32, 8);
	/* "/a": no build id, a raw dump, no file; "/b": a 2-byte build id,
	 * ELF, file "/symfs/b" */
	p = hand_bin(p, "/a", "", 0, 0, 0, 0);
	p = hand_bin(p, "/b", "/symfs/b", 2, 1, 0x400000, 0x401000);
	/* ranges: /a [0x10, 0x18) 5 times; /b [0x401000, 0x401008) 7 */
	p = hand_entry(p, 0, 0x10, 0x18, 5);
	p = hand_entry(p, 1, 0x401000, 0x401008, 7);
	/* /b 0x401004: 7 outcomes, 2 passed */
	p = hand_entry(p, 1, 0x401004, 7, 2);
	return (size_t)(p - buf);
}

/* The layout of docs/profile-part.md, read and written back. */
static void test_hand_made(void **state)
{
	uint8_t buf[512];
	size_t n = hand_part(buf);
	struct profile_part *pp = reload(buf, n);
	struct profile_part_binary b;
	struct profile_part_counters c;
	struct coverage *cv;
	uint64_t pass, fail;

	(void)state;
	assert_int_equal(profile_part_kind_of(pp), profile_part_kind_coverage);
	assert_int_equal(profile_part_binary_count(pp), 2);
	assert_int_equal(profile_part_binary_at(pp, 0, &b), 0);
	assert_string_equal(b.name, "/a");
	assert_null(b.file);
	assert_int_equal(b.has_elf, 0);
	assert_int_equal(profile_part_binary_at(pp, 1, &b), 0);
	assert_string_equal(b.name, "/b");
	assert_string_equal(b.file, "/symfs/b");
	assert_int_equal(b.build_id_size, 2);
	assert_int_equal(b.build_id[0], 0xbe);
	assert_int_equal(b.build_id[1], 0xef);
	assert_int_equal(b.has_elf, 1);
	assert_int_equal(b.base, 0x400000);
	assert_int_equal(b.text_base, 0x401000);
	assert_int_equal(profile_part_counters(pp, &c), 0);
	assert_int_equal(c.inputs, 4);
	assert_int_equal(c.decode_errors, 1);
	assert_int_equal(c.etm3, 1);
	assert_int_equal(c.saturated, 0);
	assert_int_equal(profile_part_coverage(pp, &cv), 0);
	assert_int_equal(coverage_max(cv, 0, 0x10, 0x11), 5);
	assert_int_equal(coverage_max(cv, 0, 0x18, 0x19), 0);
	assert_int_equal(coverage_max(cv, 1, 0x401004, 0x401005), 7);
	assert_int_equal(coverage_outcomes(cv, 1, 0x401004, &pass, &fail), 0);
	assert_int_equal(pass, 2);
	assert_int_equal(fail, 5);
	coverage_free(cv);
	profile_part_free(pp);
}

/* Load @b[0..@n-1]: it must fail with @err, at @at, saying @what. */
static void refused(const uint8_t *b, size_t n, int err, uint64_t at,
		    const char *what)
{
	struct profile_part_diag d;
	struct profile_part *pp = (struct profile_part *)1;

	int got = profile_part_load(&pp, b, n, &d);

	if (got != err)
		print_message("expected '%s': %d\n", what, got);
	assert_int_equal(got, err);
	assert_null(pp);
	assert_int_equal(d.has_offset, 1);
	if (d.offset != at || !strstr(d.message, what))
		print_message("got %llu: %s\n", (unsigned long long)d.offset,
			      d.message);
	assert_int_equal(d.offset, at);
	assert_non_null(strstr(d.message, what));
}

/* What the reader refuses, where it says it is. */
static void test_load_refused(void **state)
{
	uint8_t good[512], b[512];
	size_t n = hand_part(good);
	struct profile_part *pp;
	const size_t bin_b = 64 + 48 + 2, ent = bin_b + 48 + 10;

	(void)state;
#define EDIT(off, val, bytes) (memcpy(b, good, n), le(b + (off), (val), (bytes)))
	EDIT(0, 'X', 1);
	refused(b, n, -etmkit_err_format, 0, "ETMKPART");
	EDIT(8, 2, 4);
	refused(b, n, -etmkit_err_unsupported, 8, "version 2");
	EDIT(12, 4, 4);
	refused(b, n, -etmkit_err_unsupported, 12, "kind 4");
	EDIT(16, 4, 4);
	refused(b, n, -etmkit_err_format, 16, "flags");
	EDIT(56, n + 1, 8);
	refused(b, n + 1, -etmkit_err_format, 40,
		"2 + 1 entries take 96 bytes, 97 follow");
	EDIT(48, 0, 8);                 /* one entry less than there is */
	refused(b, n, -etmkit_err_format, 40,
		"2 + 0 entries take 64 bytes, 96 follow");
	EDIT(56, n - 1, 8);
	refused(b, n, -etmkit_err_format, 56, "bytes");
	EDIT(20, 1000, 4);              /* binaries beyond the bytes */
	refused(b, n, -etmkit_err_format, 20, "do not fit");
	EDIT(40, (uint64_t)1 << 60, 8); /* entries beyond the bytes */
	refused(b, n, -etmkit_err_format, 20, "do not fit");
	EDIT(64 + 8, 21, 1);
	refused(b, n, -etmkit_err_format, 64 + 8, "build id");
	EDIT(64 + 9, 2, 1);
	refused(b, n, -etmkit_err_format, 64 + 9, "flags");
	EDIT(64 + 31, 1, 1);
	refused(b, n, -etmkit_err_format, 64 + 30, "reserved");
	EDIT(64, 0, 4);
	refused(b, n, -etmkit_err_format, 64, "no name");
	EDIT(64 + 49, 0, 1);            /* "/\0" */
	refused(b, n, -etmkit_err_format, 64 + 49, "NUL");
	EDIT(bin_b + 49, 'A', 1);       /* "/A" sorts before "/a" */
	refused(b, n, -etmkit_err_format, bin_b, "not after");
	EDIT(bin_b + 48 + 1, 'a', 1);   /* "/a" after "/a": its build id */
	assert_int_equal(profile_part_load(&pp, b, n, NULL), 0);
	profile_part_free(pp);
	le(b + bin_b + 10, 0, 2);       /* "/a", no id bytes, size 2 */
	assert_int_equal(profile_part_load(&pp, b, n, NULL), 0);
	assert_int_equal(profile_part_binary_count(pp), 2);
	profile_part_free(pp);
	le(b + bin_b + 8, 0, 4);        /* "/a" twice */
	refused(b, n, -etmkit_err_format, bin_b, "not after");
	EDIT(ent, 2, 4);
	refused(b, n, -etmkit_err_format, ent, "binary 2 of 2");
	EDIT(ent + 4, 1, 4);
	refused(b, n, -etmkit_err_format, ent + 4, "reserved");
	EDIT(ent + 24, 0, 8);
	refused(b, n, -etmkit_err_format, ent + 24, "count of 0");
	EDIT(ent + 16, 0x10, 8);        /* [0x10, 0x10) */
	refused(b, n, -etmkit_err_format, ent + 8, "ends before");
	EDIT(ent + 32, 0, 4);           /* /a's ranges in order */
	assert_int_equal(profile_part_load(&pp, b, n, NULL), 0);
	profile_part_free(pp);
	le(b + ent + 40, 0x8, 8);       /* out of order */
	refused(b, n, -etmkit_err_format, ent + 32, "not after");
	le(b + ent + 40, 0x10, 8);      /* twice */
	le(b + ent + 48, 0x18, 8);
	refused(b, n, -etmkit_err_format, ent + 32, "not after");
	EDIT(ent + 64 + 24, 8, 8);      /* 8 passed of 7 */
	refused(b, n, -etmkit_err_format, ent + 64 + 24, "more passed");
	EDIT(ent + 64 + 16, 0, 8);
	refused(b, n, -etmkit_err_format, ent + 64 + 16, "count of 0");
#undef EDIT
	assert_int_equal(profile_part_load(NULL, good, n, NULL),
			 -etmkit_err_invalid);
}

/* Every truncation of a saved part fails, at an offset inside what is
 * left; the bytes of a real part, and of the hand-made one. */
static void truncations(const uint8_t *b, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		struct profile_part_diag d;
		struct profile_part *pp;
		int err = profile_part_load(&pp, b, k, &d);

		assert_int_equal(err, -etmkit_err_truncated);
		assert_int_equal(d.has_offset, 1);
		if (!(d.offset < k || (k == 0 && d.offset == 0)))
			print_message("%zu of %zu bytes: %s at %llu\n", k, n,
				      d.message, (unsigned long long)d.offset);
		assert_true(d.offset < k || (k == 0 && d.offset == 0));
		assert_true(d.message[0] != 0);
	}
}

static void test_truncated(void **state)
{
	uint8_t hand[512];
	struct profile *p;
	struct profile_part *pp;
	uint8_t *b;
	size_t n;

	(void)state;
	truncations(hand, hand_part(hand));
	make_elems(61, 1);
	p = profile_of(0, 0x1, canon);
	pp = part_of(profile_part_kind_tally, p, NULL, canon, canon);
	b = saved(pp, &n);
	truncations(b, n);
	/* one entry more than there is: the strings' bytes would hide it
	 * from the header's bound (fuzz_profile_part found it) */
	le(b + 40, profile_part_range_count(pp) + 1, 8);
	refused(b, n, -etmkit_err_format, 40, "entries take");
	free(b);
	profile_part_free(pp);
	profile_free(p);
}

/* Every byte of a saved part flipped, one at a time: loaded or refused
 * with a reason, and when loaded, canonical again. */
static void test_flipped(void **state)
{
	uint8_t hand[512], b[512];
	size_t n = hand_part(hand);
	unsigned loaded = 0;

	(void)state;
	for (size_t k = 0; k < n; k++)
		for (int bit = 0; bit < 8; bit++) {
			struct profile_part_diag d;
			struct profile_part *pp;

			memcpy(b, hand, n);
			b[k] ^= (uint8_t)(1u << bit);
			if (profile_part_load(&pp, b, n, &d) == 0) {
				uint8_t *again;
				size_t m;

				again = saved(pp, &m);
				profile_part_free(pp);
				pp = reload(again, m);
				free(again);
				profile_part_free(pp);
				loaded++;
			} else {
				assert_int_equal(d.has_offset, 1);
				assert_true(d.offset < n);
				assert_true(d.message[0] != 0);
			}
		}
	/* counts, addresses, bases and build ids take any value */
	assert_true(loaded > 100);
}

/* Counts near the top add up to UINT64_MAX and say so. */
static void test_saturation_saved(void **state)
{
	uint8_t b[512];
	size_t n = hand_part(b);
	struct profile_part *pp, *q;
	struct profile_part_counters c;
	struct coverage *cv;
	uint64_t pass, fail;

	(void)state;
	le(b + 64 + 48 + 2 + 48 + 10 + 24, UINT64_MAX - 1, 8); /* /a 5 -> */
	le(b + 64 + 48 + 2 + 48 + 10 + 64 + 16, UINT64_MAX, 8); /* outcomes */
	assert_int_equal(profile_part_load(&pp, b, n, NULL), 0);
	assert_int_equal(profile_part_counters(pp, &c), 0);
	assert_int_equal(c.saturated, 0);
	assert_int_equal(profile_part_load(&q, b, n, NULL), 0);
	assert_int_equal(profile_part_merge(pp, q), 0);
	assert_int_equal(profile_part_counters(pp, &c), 0);
	assert_int_equal(c.saturated, 1);
	assert_int_equal(c.inputs, 8);
	assert_int_equal(profile_part_coverage(pp, &cv), 0);
	assert_int_equal(coverage_max(cv, 0, 0x10, 0x11), UINT64_MAX);
	assert_int_equal(coverage_max(cv, 1, 0x401000, 0x401001), 14);
	assert_int_equal(coverage_outcomes(cv, 1, 0x401004, &pass, &fail), 0);
	assert_int_equal(pass, 4);
	assert_int_equal(fail, UINT64_MAX - 4);
	assert_int_equal(coverage_saturated(cv), 1);
	coverage_free(cv);
	profile_part_free(pp);
	profile_part_free(q);
}

/* A part saved as saturated says so in the profile or coverage made from
 * it, whatever its counts. */
static void test_saturated_flag(void **state)
{
	uint8_t hand[512], *b;
	size_t n = hand_part(hand);
	struct profile_part *pp;
	struct profile *p;
	struct coverage *cv;

	(void)state;
	le(hand + 16, 3, 4);
	assert_int_equal(profile_part_load(&pp, hand, n, NULL), 0);
	assert_int_equal(profile_part_coverage(pp, &cv), 0);
	assert_int_equal(coverage_saturated(cv), 1);
	coverage_free(cv);
	profile_part_free(pp);
	make_elems(67, 1);
	p = profile_of(0, 0x1, canon);
	pp = part_of(profile_part_kind_tally, p, NULL, canon, canon);
	profile_free(p);
	b = saved(pp, &n);
	profile_part_free(pp);
	assert_int_equal(profile_part_load(&pp, b, n, NULL), 0);
	assert_int_equal(profile_part_profile(pp, &p), 0);
	assert_int_equal(profile_saturated(p), 0);
	profile_free(p);
	profile_part_free(pp);
	le(b + 16, 1, 4);
	assert_int_equal(profile_part_load(&pp, b, n, NULL), 0);
	assert_int_equal(profile_part_profile(pp, &p), 0);
	assert_int_equal(profile_saturated(p), 1);
	profile_free(p);
	profile_part_free(pp);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_tally),
		cmocka_unit_test(test_round_trip_traces),
		cmocka_unit_test(test_round_trip_coverage),
		cmocka_unit_test(test_merge_tally),
		cmocka_unit_test(test_merge_traces),
		cmocka_unit_test(test_merge_coverage),
		cmocka_unit_test(test_saturation),
		cmocka_unit_test(test_binary_conflict),
		cmocka_unit_test(test_binary_file),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_add_refused),
		cmocka_unit_test(test_canonical_tally),
		cmocka_unit_test(test_canonical_traces),
		cmocka_unit_test(test_canonical_coverage),
		cmocka_unit_test(test_hand_made),
		cmocka_unit_test(test_load_refused),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_flipped),
		cmocka_unit_test(test_saturation_saved),
		cmocka_unit_test(test_saturated_flag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
