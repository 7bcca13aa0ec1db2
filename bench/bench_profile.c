/* bench_profile: throughput of building an execution profile (ranges and
 * branches per binary, include/etmkit/profile.h) beside the decode that
 * feeds it, on the same input.
 *
 * Input: one ETMv4/ETE trace source of a snapshot (--snapshot juno_r1_1,
 * the default, or tme_test), repeated to --mb MiB from A-sync to A-sync
 * (bench_common.h), with the program image of its core:
 *   decode   ETM4_FLOW_RANGES (the ranges form compared with OpenCSD): the
 *            elements are drained and counted;
 *   profile  ETM4_FLOW_RANGES | ETM4_FLOW_TALLY, what etmkit profile
 *            decodes with (the decoder counts whole ranges itself), and
 *            every element also goes to profile_elem(), whose resolver
 *            maps an address to its image region (the binary), keeps
 *            the address (a raw dump's ELF address is its own) and gives
 *            the region as the extent.
 *   stacks   ETM4_FLOW_RANGES (no tally: what etmkit profile --format
 *            folded decodes with), every element also to stacks_elem()
 *            (include/etmkit/stacks.h), frames keyed by their address
 *            (the CLI's symbol lookup, cached per function, is not in
 *            it), then the folded stacks written to /dev/null.
 *   contexts ETM4_FLOW_RANGES (no tally), every element to profile_elem()
 *            of a taken-branch traces profile with call contexts
 *            (profile_config.contexts: etmkit profile --format profgen
 *            --stacks), its heap checked as the profile's.
 * Timed: decoder and profile allocation, decoding, profile_finish(),
 * release. Best of --runs runs, taking turns. The profile's counts are
 * checked against the decode: the same instructions, the ranges' counts
 * add up to at most the ranges seen (each repeats + 1 times), and its
 * memory must stop growing once the distinct ranges are known (the last
 * copies add no allocation); so must the stacks' once the distinct stacks
 * are, and their instruction weights add up to the decode's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/flow.h"
#include "etmkit/profile.h"
#include "etmkit/stacks.h"
#include "etmkit/snapshot.h"
#include "bench_common.h"

#define WHO "profile"

struct counts {
	struct bench_drained d;   /* the decode's */
	uint64_t range_total;     /* sum of the profile's range counts */
	size_t distinct_ranges, distinct_branches;
	size_t stacks;            /* distinct stacks */
	uint64_t stack_insns;     /* sum of their instruction weights */
};

static void usage(FILE *f)
{
	bench_etm4_usage(f, "bench_profile", "0 (no OpenCSD run)");
}

static int frame_key(void *ctx, uint8_t id, uint64_t addr, int exc,
		     uint64_t *key)
{
	(void)ctx;
	(void)id;
	(void)exc;
	*key = addr;
	return 0;
}

static const char *frame_name(void *ctx, uint64_t key)
{
	(void)ctx;
	(void)key;
	return NULL;
}

struct feed {
	struct profile *prof;
	struct stacks *st;
	uint8_t id;
};

static int feed_batch(void *ctx, const struct etmkit_elem *el, int k)
{
	const struct feed *f = ctx;
	int err = 0;

	for (int i = 0; i < k && !err; i++) {
		if (f->prof)
			err = profile_elem(f->prof, f->id, &el[i]);
		if (!err && f->st)
			err = stacks_elem(f->st, f->id, &el[i]);
	}
	return err;
}

/* Decode @n bytes; with @prof, feed it every element; with @st, to the
 * stack tracker. */
static int run(const struct etm4_flow_config *cfg, const uint8_t *buf,
	       size_t n, struct profile *prof, struct stacks *st, uint8_t id,
	       struct counts *c)
{
	struct feed f = { prof, st, id };
	int err;

	memset(c, 0, sizeof(*c));
	err = bench_etm4_drain(cfg, buf, n, prof || st ? feed_batch : NULL,
			       &f, &c->d);
	if (!err && prof)
		err = profile_finish(prof);
	if (!err && st)
		err = stacks_finish(st);
	return err;
}

static struct stacks *stacks_new(void)
{
	struct stacks_config sc;
	struct stacks *st = NULL;

	stacks_config_init(&sc);
	sc.frame = frame_key;
	return stacks_alloc(&st, &sc) ? NULL : st;
}

/* The stacks form: decode without the tally, every element to the
 * tracker, the folded stacks written out. */
static int timed_stacks(const struct etm4_flow_config *cfg,
			const struct bench_input *in, uint8_t id, int r,
			double *best, struct counts *c)
{
	double t0 = bench_now();
	struct stacks *st = stacks_new();
	FILE *null = fopen("/dev/null", "w");
	int err = st && null ? 0 : -etmkit_err_nomem;

	if (!err)
		err = run(cfg, in->buf, in->n, NULL, st, id, c);
	if (!err)
		err = stacks_write_folded(st, null, stacks_insns, frame_name,
					  NULL);
	if (!err) {
		struct stacks_node nd;

		c->stacks = stacks_node_count(st);
		for (size_t i = 0; i < c->stacks; i++)
			if (stacks_node_at(st, i, &nd) == 0)
				c->stack_insns += nd.weight[stacks_insns];
	}
	if (null)
		fclose(null);
	stacks_free(st);
	return bench_keep_best(WHO, err, bench_now() - t0, r, best);
}

/* The tracker's heap after two copies and after all: equal. */
static int heap_check_stacks(const struct etm4_flow_config *cfg,
			     const struct bench_input *in, uint8_t id,
			     size_t *grow)
{
	struct stacks *st = stacks_new();
	struct counts c;
	size_t h2;
	int err = st ? 0 : -etmkit_err_nomem;

	if (!err)
		err = run(cfg, in->buf, 2 * in->copy_len, NULL, st, id, &c);
	h2 = bench_heap_in_use();
	if (!err)
		err = run(cfg, in->buf, in->n, NULL, st, id, &c);
	*grow = bench_heap_in_use() - h2;
	stacks_free(st);
	return err;
}

static int timed(const struct etm4_flow_config *dcfg,
		 const struct bench_input *in, uint8_t id, int with_profile,
		 int r, double *best, struct counts *c)
{
	struct etm4_flow_config tcfg = *dcfg;
	const struct etm4_flow_config *cfg = with_profile ? &tcfg : dcfg;
	struct profile_config pc;
	struct profile *prof = NULL;
	double t0 = bench_now();
	int err = 0;

	if (with_profile == 1)           /* as etmkit profile decodes */
		tcfg.flags |= ETM4_FLOW_TALLY;
	profile_config_init(&pc);
	pc.resolve = bench_region_resolve;
	pc.ctx = (void *)cfg->image;
	pc.traces = pc.contexts = with_profile == 2;
	if (with_profile)
		err = profile_alloc(&prof, &pc);
	if (!err)
		err = run(cfg, in->buf, in->n, prof, NULL, id, c);
	if (!err && prof) {
		struct profile_entry e;

		c->distinct_ranges = profile_range_count(prof);
		c->distinct_branches = profile_branch_count(prof);
		for (size_t i = 0; i < c->distinct_ranges; i++)
			if (profile_range_at(prof, i, &e) == 0)
				c->range_total += e.count;
	}
	profile_free(prof);
	return bench_keep_best(WHO, err, bench_now() - t0, r, best);
}

/* The profile's heap after one copy and after all: equal once the
 * distinct ranges are known (the second copy onwards repeats them). */
static int heap_check(const struct etm4_flow_config *cfg,
		      const struct bench_input *in, uint8_t id, int contexts,
		      size_t *grow)
{
	struct profile_config pc;
	struct profile *prof = NULL;
	struct counts c;
	size_t h2;
	int err;

	struct etm4_flow_config tcfg = *cfg;

	if (!contexts)
		tcfg.flags |= ETM4_FLOW_TALLY;
	cfg = &tcfg;
	profile_config_init(&pc);
	pc.resolve = bench_region_resolve;
	pc.ctx = (void *)cfg->image;
	pc.traces = pc.contexts = contexts;
	err = profile_alloc(&prof, &pc);
	if (!err)
		err = run(cfg, in->buf, 2 * in->copy_len, prof, NULL, id, &c);
	h2 = bench_heap_in_use();
	if (!err)
		err = run(cfg, in->buf, in->n, prof, NULL, id, &c);
	*grow = bench_heap_in_use() - h2;
	profile_free(prof);
	return err;
}

int main(int argc, char **argv)
{
	struct bench_options o;
	struct bench_etm4_image b;
	const struct bench_input *in = &b.in;
	const struct etm4_flow_config *cfg = &b.cfg;
	struct counts dec, prof, stk, cs;
	const char *snap = "juno_r1_1";
	double best_d = 0.0, best_p = 0.0, best_s = 0.0, best_c = 0.0;
	size_t grow = 0, grow_s = 0, grow_c = 0;
	int status = 1;

	memset(&b, 0, sizeof(b));
	if (bench_parse_args("bench_profile", argc, argv, &o, 0.0,
			     bench_snapshot_option, &snap, usage))
		return 2;
	if (bench_etm4_image_open(WHO, &b, &o, snap))
		goto out;
	for (int r = 0; r < o.runs; r++)
		if (timed(cfg, in, b.src.id, 0, r, &best_d, &dec) ||
		    timed(cfg, in, b.src.id, 1, r, &best_p, &prof) ||
		    timed_stacks(cfg, in, b.src.id, r, &best_s, &stk) ||
		    timed(cfg, in, b.src.id, 2, r, &best_c, &cs))
			goto out;
	if (heap_check(cfg, in, b.src.id, 0, &grow) ||
	    heap_check(cfg, in, b.src.id, 1, &grow_c) ||
	    heap_check_stacks(cfg, in, b.src.id, &grow_s))
		goto out;
	bench_print_rate(WHO, "  decode   ", in, best_d, dec.d.insns, o.runs);
	printf("ETM4_FLOW_RANGES: %" PRIu64 " insn_range elements, counted\n",
	       dec.d.ranges_seen);
	bench_print_rate(WHO, "  profile  ", in, best_p, prof.d.insns, o.runs);
	printf("tally decode + profile_elem(): %zu distinct ranges, %zu "
	       "branches; %.0f%% of decode's rate, %.1f ns per range more\n",
	       prof.distinct_ranges, prof.distinct_branches,
	       100.0 * best_d / best_p,
	       (best_p - best_d) * 1e9 / (double)(dec.d.ranges_seen ?
						  dec.d.ranges_seen : 1));
	bench_print_rate(WHO, "  stacks   ", in, best_s, stk.d.insns, o.runs);
	printf("decode + stacks_elem() + folded: %zu distinct stacks; %.2fx "
	       "the decode's time\n", stk.stacks, best_s / best_d);
	bench_print_rate(WHO, "  contexts ", in, best_c, cs.d.insns, o.runs);
	printf("decode + profile_elem() with traces and call contexts "
	       "(profgen --stacks): %zu distinct ranges in their contexts; "
	       "%.2fx the decode's time\n", cs.distinct_ranges,
	       best_c / best_d);
	status = 0;
	if (cs.d.insns != dec.d.insns || cs.range_total == 0) {
		printf(WHO "  MISMATCH: %" PRIu64 " instructions decoded, %"
		       PRIu64 " with the contexts profile, %" PRIu64
		       " range counts\n", dec.d.insns, cs.d.insns,
		       cs.range_total);
		status = 1;
	}
	if (grow_c) {
		printf(WHO "  MISMATCH: the contexts profile's heap grew by %zu "
		       "bytes over copies that add no new context or range\n",
		       grow_c);
		status = 1;
	}
	if (stk.d.insns != dec.d.insns || stk.stack_insns != dec.d.insns) {
		printf(WHO "  MISMATCH: %" PRIu64 " instructions decoded, %"
		       PRIu64 " in the stacks\n", dec.d.insns, stk.stack_insns);
		status = 1;
	}
	if (grow_s) {
		printf(WHO "  MISMATCH: the stacks' heap grew by %zu bytes "
		       "over copies that add no new stack\n", grow_s);
		status = 1;
	}
	if (prof.d.insns != dec.d.insns || prof.range_total == 0 ||
	    prof.range_total > prof.d.ranges_seen) {
		printf(WHO "  MISMATCH: %" PRIu64 " instructions decoded, %"
		       PRIu64 " with the profile; %" PRIu64 " range counts "
		       "for %" PRIu64 " insn_range elements\n", dec.d.insns,
		       prof.d.insns, prof.range_total, prof.d.ranges_seen);
		status = 1;
	}
	if (grow) {
		printf(WHO "  MISMATCH: the profile's heap grew by %zu bytes "
		       "over copies that add no new range\n", grow);
		status = 1;
	}
out:
	bench_etm4_image_close(&b);
	return status;
}
