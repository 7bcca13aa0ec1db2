/* ETM4_FLOW_TALLY and ETM4_FLOW_TRACES (flow.h) against ETM4_FLOW_RANGES
 * on every ETMv4 and ETE source of the real captures: between two
 * elements of other kinds (which must be the same, in the same order),
 * the ranges delivered are the same once each counted element is taken
 * for its repeats + 1 runs, and the taken-branch traces are the same
 * (tests/branch_traces.h); and profiles built from them are equal:
 * AutoFDO's from the tally, taken-branch traces from the traces. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/etmkit.h"
#include "profile/profile_internal.h"
#include "../branch_traces.h"
#include "test_util.h"

#include "ts_elems.h"
#include "ts_session.h"
#include "ts_snapshots.h"

struct add4 {
	uint8_t id;
	struct etm4_flow_config fc;
};

static int add_etm4(struct etmkit_session *s, void *arg)
{
	struct add4 *a = arg;

	return etmkit_session_add_etm4_flow(s, a->id, &a->fc);
}

/* Decode trace ID @id of @buf with @cfg and @flags into @out. */
static void decode(const struct snapshot_buffer *buf, uint8_t id,
		   const struct etm4_flow_config *cfg, uint32_t flags,
		   struct ts_elems *out)
{
	struct add4 a = { id, *cfg };

	a.fc.flags = flags;
	assert_int_equal(ts_session_decode(buf, add_etm4, &a, ts_elems_on_elem,
					   out), 0);
}

/* Range elements compared by what they say, not where they came from. */
static int cmp_range(const void *a, const void *b)
{
	const struct etmkit_elem *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->u.range.end != y->u.range.end)
		return x->u.range.end < y->u.range.end ? -1 : 1;
	if (x->flags != y->flags)
		return x->flags < y->flags ? -1 : 1;
	if (x->isa != y->isa)
		return x->isa < y->isa ? -1 : 1;
	if (x->u.range.count != y->u.range.count)
		return x->u.range.count < y->u.range.count ? -1 : 1;
	if (x->u.range.opcode != y->u.range.opcode)
		return x->u.range.opcode < y->u.range.opcode ? -1 : 1;
	return 0;
}

/* The ranges of @l from @i up to the next element of another kind, one
 * entry per run, sorted; *@i moves there. */
static size_t segment(const struct ts_elems *l, size_t *i,
		      struct etmkit_elem *out, size_t cap)
{
	size_t k = 0;

	for (; *i < l->n && l->e[*i].kind == etmkit_elem_insn_range; (*i)++)
		for (uint32_t r = 0; r <= l->e[*i].u.range.repeats; r++) {
			assert_true(k < cap);
			out[k] = l->e[*i];
			out[k].offset = 0;
			out[k++].u.range.repeats = 0;
		}
	qsort(out, k, sizeof(out[0]), cmp_range);
	return k;
}

static int resolve(void *ctx, uint8_t id, uint64_t addr,
		   struct profile_where *w)
{
	const struct image *img = ctx;
	const struct image_region *r = image_region_find(img, IMAGE_SPACE_ANY,
							 addr);

	(void)id;
	if (!r)
		return -etmkit_err_not_found;
	w->bin = (size_t)(r - image_region_at(img, 0));
	w->vaddr = addr;
	w->lo = r->addr;
	w->hi = r->addr + r->length;
	return 0;
}

static struct profile *profile_of(const struct ts_elems *l,
				  const struct image *img, int traces)
{
	struct profile_config pc;
	struct profile *p;

	profile_config_init(&pc);
	pc.resolve = resolve;
	pc.ctx = (void *)img;
	pc.traces = (uint8_t)traces;
	assert_int_equal(profile_alloc(&p, &pc), 0);
	for (size_t i = 0; i < l->n; i++)
		assert_int_equal(profile_elem(p, 0x10, &l->e[i]), 0);
	assert_int_equal(profile_finish(p), 0);
	return p;
}

static void same_counts(const struct count_map *a, const struct count_map *b)
{
	assert_int_equal(a->used, b->used);
	for (size_t k = 0; k < a->cap; k++) {
		const struct count_slot *s = &a->slots[k];

		if (s->count)
			assert_int_equal(count_map_find(b->slots, b->cap,
							s->bin, s->from,
							s->to)->count,
					 s->count);
	}
}

/* @trc, decoded with ETM4_FLOW_TRACES, against the ranges decode @rng:
 * returns the runs counted together. */
static uint64_t check_traces(const struct ts_elems *rng,
			     const struct ts_elems *trc,
			     const struct image *img)
{
	struct btraces a = { 0 }, b = { 0 };
	struct profile *pa, *pb;
	uint64_t counted = 0;
	size_t i = 0, j = 0;

	for (;;) {
		assert_int_equal(btraces_segment(rng->e, rng->n, &i, &a), 0);
		assert_int_equal(btraces_segment(trc->e, trc->n, &j, &b), 0);
		assert_true(btraces_same(&a, &b));
		if (i == rng->n || j == trc->n) {
			assert_int_equal(i, rng->n);
			assert_int_equal(j, trc->n);
			break;
		}
		assert_memory_equal(&rng->e[i], &trc->e[j],
				    sizeof(rng->e[i]));
		i++;
		j++;
	}
	for (size_t k = 0; k < trc->n; k++)
		if (trc->e[k].kind == etmkit_elem_branch_run)
			counted += trc->e[k].u.brun.repeats;
	pa = profile_of(rng, img, 1);
	pb = profile_of(trc, img, 1);
	same_counts(&pa->ranges, &pb->ranges);
	same_counts(&pa->branches, &pb->branches);
	profile_free(pa);
	profile_free(pb);
	free(a.v);
	free(b.v);
	return counted;
}

/* One source: returns the runs counted by the tally (*@traced: by the
 * traces). */
static uint64_t check_source(const struct snapshot *ss,
			     const struct snapshot_source *src,
			     uint64_t *traced)
{
	static struct etmkit_elem sa[1 << 16], sb[1 << 16];
	struct ts_elems ranges = { 0 }, tally = { 0 }, traces = { 0 };
	struct etm4_flow_config fc;
	struct ts_source s;
	struct profile *pa, *pb;
	uint64_t counted = 0;
	size_t i = 0, j = 0;

	if (ts_source_open(ss, src, &s))
		return 0;
	if (s.proto == etmkit_proto_etmv3) {
		ts_source_free(&s);
		return 0;        /* not ETMv4/ETE */
	}
	etm4_flow_config_init(&fc);
	fc.etm = s.etm4;
	fc.image = s.img;
	decode(s.buf, s.id, &fc, ETM4_FLOW_RANGES, &ranges);
	decode(s.buf, s.id, &fc, ETM4_FLOW_RANGES | ETM4_FLOW_TALLY, &tally);
	decode(s.buf, s.id, &fc, ETM4_FLOW_RANGES | ETM4_FLOW_TRACES,
	       &traces);
	*traced += check_traces(&ranges, &traces, s.img);
	for (;;) {
		size_t na = segment(&ranges, &i, sa, 1 << 16);
		size_t nb = segment(&tally, &j, sb, 1 << 16);

		assert_int_equal(na, nb);
		for (size_t k = 0; k < na; k++)
			assert_int_equal(cmp_range(&sa[k], &sb[k]), 0);
		if (i == ranges.n || j == tally.n) {
			assert_int_equal(i, ranges.n);
			assert_int_equal(j, tally.n);
			break;
		}
		/* the same element of another kind */
		assert_int_equal(ranges.e[i].kind, tally.e[j].kind);
		assert_int_equal(ranges.e[i].offset, tally.e[j].offset);
		assert_memory_equal(&ranges.e[i], &tally.e[j],
				    sizeof(ranges.e[i]));
		i++;
		j++;
	}
	for (size_t k = 0; k < tally.n; k++)
		if (tally.e[k].kind == etmkit_elem_insn_range)
			counted += tally.e[k].u.range.repeats;
	pa = profile_of(&ranges, s.img, 0);
	pb = profile_of(&tally, s.img, 0);
	same_counts(&pa->ranges, &pb->ranges);
	same_counts(&pa->branches, &pb->branches);
	profile_free(pa);
	profile_free(pb);
	free(ranges.e);
	free(tally.e);
	free(traces.e);
	ts_source_free(&s);
	return counted;
}

static int shared_missing(void)
{
	struct stat st;

	return stat(ETMKIT_SHARED_DIR "/testdata/ete", &st) != 0;
}

struct walk {
	uint64_t counted, traced;
	int sources;
};

static void each_source(void *ctx, const char *name,
			const struct snapshot *ss,
			const struct snapshot_source *src)
{
	struct walk *w = ctx;

	(void)name;
	w->counted += check_source(ss, src, &w->traced);
	w->sources++;
}

static void test_captures(void **state)
{
	static const char *const kinds[] = { "etmv4", "ete" };
	struct walk w = { 0 };

	(void)state;
	test_need(shared_missing(), ETMKIT_SHARED_DIR);
	assert_true(ts_each_source(ETMKIT_SHARED_DIR "/testdata", kinds, 2,
				   each_source, &w) > 0);
	print_message("%d sources, %llu runs counted together, %llu traces\n",
		      w.sources, (unsigned long long)w.counted,
		      (unsigned long long)w.traced);
	/* the tally and the traces did count runs together somewhere */
	assert_true(w.sources > 10);
	assert_true(w.counted > 1000);
	assert_true(w.traced > 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captures),
	};

	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	return test_exit(failed, shared_missing());
}
