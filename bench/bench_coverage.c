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
#define _GNU_SOURCE /* mallinfo2 */
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/flow.h"
#include "etmkit/coverage.h"
#include "etmkit/snapshot.h"
#include "bench_common.h"

#define WHO "coverage"

struct counts {
	uint64_t insns, elems, ranges_seen;
	uint64_t first_count;     /* the first range's first address's */
	size_t distinct_ranges, conds;
	uint64_t first_addr;
};

static void usage(FILE *f)
{
	bench_etm4_usage(f, "bench_coverage", "0 (no OpenCSD run)");
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
	/* the region, as far as no later region overlaps it: this image's
	 * regions do not overlap */
	w->lo = r->addr;
	w->hi = r->addr + r->length;
	return 0;
}

/* Decode @n bytes; with @prof, feed it every element. */
static int run(const struct etm4_flow_config *cfg, const uint8_t *buf,
	       size_t n, struct coverage *prof, uint8_t id, struct counts *c)
{
	struct etm4_flow_decoder *dec = NULL;
	const struct etmkit_elem *el;
	int err, k = 0;

	memset(c, 0, sizeof(*c));
	err = etm4_flow_alloc(&dec, cfg);
	if (!err)
		err = etm4_flow_feed(dec, buf, n, NULL, 0);
	for (int pass = 0; !err && pass < 2; pass++) {
		while ((k = etm4_flow_batch(dec, &el)) > 0) {
			for (int i = 0; i < k; i++) {
				const struct etmkit_elem *e = &el[i];

				if (e->kind == etmkit_elem_insn_range) {
					uint64_t runs = e->u.range.repeats +
							1ull;

					c->insns += e->u.range.count * runs;
					c->ranges_seen += runs;
					if (!c->first_addr)
						c->first_addr = e->addr;
				}
				if (prof && (err = coverage_elem(prof, id, e)))
					break;
			}
			c->elems += (uint64_t)k;
			if (err)
				break;
		}
		if (!err && k != -etmkit_err_eos)
			err = k;
		if (!err && pass == 0)
			err = etm4_flow_finish(dec);
	}
	if (!err && prof)
		err = coverage_finish(prof);
	etm4_flow_free(dec);
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
	pc.resolve = resolve;
	pc.ctx = (void *)cfg->image;
	if (with_cov)
		err = coverage_alloc(&prof, &pc);
	if (!err)
		err = run(cfg, in->buf, in->n, prof, id, c);
	if (!err && prof) {
		const struct image_region *rg = image_region_find(
			cfg->image, IMAGE_SPACE_ANY, c->first_addr);

		c->distinct_ranges = coverage_range_count(prof);
		c->conds = coverage_cond_count(prof);
		c->first_count = rg ? coverage_max(prof,
			(size_t)(rg - image_region_at(cfg->image, 0)),
			c->first_addr, c->first_addr + 1) : 0;
	}
	coverage_free(prof);
	return bench_keep_best(WHO, err, bench_now() - t0, r, best);
}

static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
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
	pc.resolve = resolve;
	pc.ctx = (void *)cfg->image;
	err = coverage_alloc(&prof, &pc);
	if (!err)
		err = run(cfg, in->buf, 2 * in->copy_len, prof, id, &c);
	h2 = heap_in_use();
	if (!err)
		err = run(cfg, in->buf, in->n, prof, id, &c);
	*grow = heap_in_use() - h2;
	coverage_free(prof);
	return err;
}

int main(int argc, char **argv)
{
	struct bench_options o;
	struct bench_input in;
	struct bench_etm4_source src;
	struct image *img = NULL;
	struct image_diag idiag;
	struct etm4_flow_config cfg;
	struct counts dec, prof;
	const char *snap = "juno_r1_1";
	double best_d = 0.0, best_p = 0.0;
	size_t grow = 0;
	int status = 1;

	memset(&in, 0, sizeof(in));
	memset(&src, 0, sizeof(src));
	if (bench_parse_args("bench_coverage", argc, argv, &o, 0.0,
			     bench_snapshot_option, &snap, usage))
		return 2;
	if (bench_etm4_open(WHO, &src, o.shared, snap, o.id) ||
	    bench_etm4_input(WHO, &src, o.mb, &in))
		goto out;
	if (image_alloc(&img) ||
	    image_add_snapshot_device(img, src.core, &idiag)) {
		fprintf(stderr, WHO ": image of %s: %s: %s\n", src.core->name,
			idiag.path, idiag.message);
		goto out;
	}
	printf(WHO "  input    %s, %s: %zu-byte copy x %zu = %.1f MB; image "
	       "%zu region(s)\n", src.buf->file, src.what, in.copy_len,
	       in.copies, (double)in.n / MIB, image_region_count(img));
	etm4_flow_config_init(&cfg);
	cfg.etm = src.cfg;
	cfg.image = img;
	cfg.flags = ETM4_FLOW_RANGES;
	for (int r = 0; r < o.runs; r++)
		if (timed(&cfg, &in, src.id, 0, r, &best_d, &dec) ||
		    timed(&cfg, &in, src.id, 1, r, &best_p, &prof))
			goto out;
	if (heap_check(&cfg, &in, src.id, &grow))
		goto out;
	printf(WHO "  decode   %7.1f MB  %8.1f MB/s  %8.2f Minsn/s  %8.1f ms"
	       "  best of %d; ETM4_FLOW_RANGES: %" PRIu64 " insn_range "
	       "elements, counted\n",
	       (double)in.n / MIB, (double)in.n / MIB / best_d,
	       (double)dec.insns / best_d / 1e6, best_d * 1e3, o.runs,
	       dec.ranges_seen);
	printf(WHO " coverage %7.1f MB  %8.1f MB/s  %8.2f Minsn/s  %8.1f ms"
	       "  best of %d; tally decode + coverage_elem() + "
	       "coverage_finish(): %zu distinct ranges, %zu conditional "
	       "instructions; %.0f%% of decode's rate\n",
	       (double)in.n / MIB, (double)in.n / MIB / best_p,
	       (double)prof.insns / best_p / 1e6, best_p * 1e3, o.runs,
	       prof.distinct_ranges, prof.conds, 100.0 * best_d / best_p);
	status = 0;
	if (prof.insns != dec.insns || prof.first_count == 0) {
		printf(WHO "  MISMATCH: %" PRIu64 " instructions decoded, %"
		       PRIu64 " with the coverage; the first range's address "
		       "counted %" PRIu64 " times\n", dec.insns, prof.insns,
		       prof.first_count);
		status = 1;
	}
	if (grow) {
		printf(WHO "  MISMATCH: the coverage's heap grew by %zu bytes "
		       "over copies that add no new range\n", grow);
		status = 1;
	}
out:
	image_free(img);
	bench_etm4_close(&src);
	bench_input_free(&in);
	return status;
}
