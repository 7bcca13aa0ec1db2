/* bench_coverage: throughput of counting coverage (per-instruction
 * executions and conditional outcomes, include/etmkit/coverage.h, what
 * `etmkit coverage` counts) beside the decode that feeds it, on the same
 * input. Built as bench_profile is (the same input and resolver).
 *
 * Input: one ETMv4/ETE trace source of a snapshot (--snapshot juno_r1_1,
 * the default, or tme_test), repeated to --mb MiB from A-sync to A-sync
 * (bench_common.h), with the program image of its core:
 *   decode   ETM4_FLOW_RANGES (the ranges form compared with OpenCSD): the
 *            elements are drained and counted;
 *   coverage ETM4_FLOW_RANGES | ETM4_FLOW_TALLY, what etmkit coverage
 *            decodes with (the decoder counts whole ranges itself), and
 *            every element also goes to coverage_elem(), whose resolver
 *            maps an address to its image region (the binary), keeps
 *            the address (a raw dump's ELF address is its own) and gives
 *            the region as the extent.
 * Timed: decoder and coverage allocation, decoding, coverage_finish()
 * (the difference sweep), release. Best of --runs runs, taking turns.
 * Checked: the same instructions decoded, some address counted, and the
 * coverage's memory stops growing once the distinct ranges are known
 * (the last copies add no allocation).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/flow.h"
#include "etmkit/coverage.h"
#include "etmkit/snapshot.h"
#include "bench_common.h"

#define WHO "coverage"

struct counts {
	struct bench_drained d;   /* the decode's */
	uint64_t first_count;     /* the first range's first address's */
	size_t distinct_ranges, conds;
};

static void usage(FILE *f)
{
	bench_etm4_usage(f, "bench_coverage", "0 (no OpenCSD run)");
}

struct feed {
	struct coverage *prof;
	uint8_t id;
};

static int feed_batch(void *ctx, const struct etmkit_elem *el, int k)
{
	const struct feed *f = ctx;
	int err = 0;

	for (int i = 0; i < k && !err; i++)
		err = coverage_elem(f->prof, f->id, &el[i]);
	return err;
}

/* Decode @n bytes; with @prof, feed it every element. */
static int run(const struct etm4_flow_config *cfg, const uint8_t *buf,
	       size_t n, struct coverage *prof, uint8_t id, struct counts *c)
{
	struct feed f = { prof, id };
	int err;

	memset(c, 0, sizeof(*c));
	err = bench_etm4_drain(cfg, buf, n, prof ? feed_batch : NULL, &f,
			       &c->d);
	if (!err && prof)
		err = coverage_finish(prof);
	return err;
}

static int timed(const struct etm4_flow_config *dcfg,
		 const struct bench_input *in, uint8_t id, int with_cov,
		 int r, double *best, struct counts *c)
{
	struct etm4_flow_config tcfg = *dcfg;
	const struct etm4_flow_config *cfg = with_cov ? &tcfg : dcfg;
	struct coverage_config pc;
	struct coverage *prof = NULL;
	double t0 = bench_now();
	int err = 0;

	tcfg.flags |= ETM4_FLOW_TALLY;   /* as etmkit coverage decodes */
	coverage_config_init(&pc);
	pc.resolve = bench_region_resolve;
	pc.ctx = (void *)cfg->image;
	if (with_cov)
		err = coverage_alloc(&prof, &pc);
	if (!err)
		err = run(cfg, in->buf, in->n, prof, id, c);
	if (!err && prof) {
		const struct image_region *rg = image_region_find(
			cfg->image, IMAGE_SPACE_ANY, c->d.first_addr);

		c->distinct_ranges = coverage_range_count(prof);
		c->conds = coverage_cond_count(prof);
		c->first_count = rg ? coverage_max(prof,
			(size_t)(rg - image_region_at(cfg->image, 0)),
			c->d.first_addr, c->d.first_addr + 1) : 0;
	}
	coverage_free(prof);
	return bench_keep_best(WHO, err, bench_now() - t0, r, best);
}

/* The coverage's heap after one copy and after all: equal once the
 * distinct ranges are known (the second copy onwards repeats them). */
static int heap_check(const struct etm4_flow_config *cfg,
		      const struct bench_input *in, uint8_t id, size_t *grow)
{
	struct coverage_config pc;
	struct coverage *prof = NULL;
	struct counts c;
	size_t h2;
	int err;

	struct etm4_flow_config tcfg = *cfg;

	tcfg.flags |= ETM4_FLOW_TALLY;
	cfg = &tcfg;
	coverage_config_init(&pc);
	pc.resolve = bench_region_resolve;
	pc.ctx = (void *)cfg->image;
	err = coverage_alloc(&prof, &pc);
	if (!err)
		err = run(cfg, in->buf, 2 * in->copy_len, prof, id, &c);
	h2 = bench_heap_in_use();
	if (!err)
		err = run(cfg, in->buf, in->n, prof, id, &c);
	*grow = bench_heap_in_use() - h2;
	coverage_free(prof);
	return err;
}

int main(int argc, char **argv)
{
	struct bench_options o;
	struct bench_etm4_image b;
	const struct bench_input *in = &b.in;
	struct counts dec, prof;
	const char *snap = "juno_r1_1";
	double best_d = 0.0, best_p = 0.0;
	size_t grow = 0;
	int status = 1;

	memset(&b, 0, sizeof(b));
	if (bench_parse_args("bench_coverage", argc, argv, &o, 0.0,
			     bench_snapshot_option, &snap, usage))
		return 2;
	if (bench_etm4_image_open(WHO, &b, &o, snap))
		goto out;
	for (int r = 0; r < o.runs; r++)
		if (timed(&b.cfg, in, b.src.id, 0, r, &best_d, &dec) ||
		    timed(&b.cfg, in, b.src.id, 1, r, &best_p, &prof))
			goto out;
	if (heap_check(&b.cfg, in, b.src.id, &grow))
		goto out;
	bench_print_rate(WHO, "  decode   ", in, best_d, dec.d.insns, o.runs);
	printf("ETM4_FLOW_RANGES: %" PRIu64 " insn_range elements, counted\n",
	       dec.d.ranges_seen);
	bench_print_rate(WHO, " coverage ", in, best_p, prof.d.insns, o.runs);
	printf("tally decode + coverage_elem() + coverage_finish(): %zu "
	       "distinct ranges, %zu conditional instructions; %.0f%% of "
	       "decode's rate\n", prof.distinct_ranges, prof.conds,
	       100.0 * best_d / best_p);
	status = 0;
	if (prof.d.insns != dec.d.insns || prof.first_count == 0) {
		printf(WHO "  MISMATCH: %" PRIu64 " instructions decoded, %"
		       PRIu64 " with the coverage; the first range's address "
		       "counted %" PRIu64 " times\n", dec.d.insns, prof.d.insns,
		       prof.first_count);
		status = 1;
	}
	if (grow) {
		printf(WHO "  MISMATCH: the coverage's heap grew by %zu bytes "
		       "over copies that add no new range\n", grow);
		status = 1;
	}
out:
	bench_etm4_image_close(&b);
	return status;
}
