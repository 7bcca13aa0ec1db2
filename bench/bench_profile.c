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
#define _GNU_SOURCE /* mallinfo2 */
#include <inttypes.h>
#include <malloc.h>
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
	uint64_t insns, elems, ranges_seen;
	uint64_t range_total;     /* sum of the profile's range counts */
	size_t distinct_ranges, distinct_branches;
	size_t stacks;            /* distinct stacks */
	uint64_t stack_insns;     /* sum of their instruction weights */
};

static void usage(FILE *f)
{
	bench_etm4_usage(f, "bench_profile", "0 (no OpenCSD run)");
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

/* Decode @n bytes; with @prof, feed it every element; with @st, to the
 * stack tracker. */
static int run(const struct etm4_flow_config *cfg, const uint8_t *buf,
	       size_t n, struct profile *prof, struct stacks *st, uint8_t id,
	       struct counts *c)
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
				}
				if (prof && (err = profile_elem(prof, id, e)))
					break;
				if (st && (err = stacks_elem(st, id, e)))
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
		err = profile_finish(prof);
	if (!err && st)
		err = stacks_finish(st);
	etm4_flow_free(dec);
	return err;
}

static size_t heap_in_use(void);

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
	h2 = heap_in_use();
	if (!err)
		err = run(cfg, in->buf, in->n, NULL, st, id, &c);
	*grow = heap_in_use() - h2;
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
	pc.resolve = resolve;
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

static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
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
	pc.resolve = resolve;
	pc.ctx = (void *)cfg->image;
	pc.traces = pc.contexts = contexts;
	err = profile_alloc(&prof, &pc);
	if (!err)
		err = run(cfg, in->buf, 2 * in->copy_len, prof, NULL, id, &c);
	h2 = heap_in_use();
	if (!err)
		err = run(cfg, in->buf, in->n, prof, NULL, id, &c);
	*grow = heap_in_use() - h2;
	profile_free(prof);
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
	struct counts dec, prof, stk, cs;
	const char *snap = "juno_r1_1";
	double best_d = 0.0, best_p = 0.0, best_s = 0.0, best_c = 0.0;
	size_t grow = 0, grow_s = 0, grow_c = 0;
	int status = 1;

	memset(&in, 0, sizeof(in));
	memset(&src, 0, sizeof(src));
	if (bench_parse_args("bench_profile", argc, argv, &o, 0.0,
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
		    timed(&cfg, &in, src.id, 1, r, &best_p, &prof) ||
		    timed_stacks(&cfg, &in, src.id, r, &best_s, &stk) ||
		    timed(&cfg, &in, src.id, 2, r, &best_c, &cs))
			goto out;
	if (heap_check(&cfg, &in, src.id, 0, &grow) ||
	    heap_check(&cfg, &in, src.id, 1, &grow_c) ||
	    heap_check_stacks(&cfg, &in, src.id, &grow_s))
		goto out;
	printf(WHO "  decode   %7.1f MB  %8.1f MB/s  %8.2f Minsn/s  %8.1f ms"
	       "  best of %d; ETM4_FLOW_RANGES: %" PRIu64 " insn_range "
	       "elements, counted\n",
	       (double)in.n / MIB, (double)in.n / MIB / best_d,
	       (double)dec.insns / best_d / 1e6, best_d * 1e3, o.runs,
	       dec.ranges_seen);
	printf(WHO "  profile  %7.1f MB  %8.1f MB/s  %8.2f Minsn/s  %8.1f ms"
	       "  best of %d; tally decode + profile_elem(): %zu distinct "
	       "ranges, %zu branches; %.0f%% of decode's rate, %.1f ns per "
	       "range more\n",
	       (double)in.n / MIB, (double)in.n / MIB / best_p,
	       (double)prof.insns / best_p / 1e6, best_p * 1e3, o.runs,
	       prof.distinct_ranges, prof.distinct_branches,
	       100.0 * best_d / best_p,
	       (best_p - best_d) * 1e9 / (double)(dec.ranges_seen ?
						  dec.ranges_seen : 1));
	printf(WHO "  stacks   %7.1f MB  %8.1f MB/s  %8.2f Minsn/s  %8.1f ms"
	       "  best of %d; decode + stacks_elem() + folded: %zu distinct "
	       "stacks; %.2fx the decode's time\n",
	       (double)in.n / MIB, (double)in.n / MIB / best_s,
	       (double)stk.insns / best_s / 1e6, best_s * 1e3, o.runs,
	       stk.stacks, best_s / best_d);
	printf(WHO "  contexts %7.1f MB  %8.1f MB/s  %8.2f Minsn/s  %8.1f ms"
	       "  best of %d; decode + profile_elem() with traces and call "
	       "contexts (profgen --stacks): %zu distinct ranges in their "
	       "contexts; %.2fx the decode's time\n",
	       (double)in.n / MIB, (double)in.n / MIB / best_c,
	       (double)cs.insns / best_c / 1e6, best_c * 1e3, o.runs,
	       cs.distinct_ranges, best_c / best_d);
	status = 0;
	if (cs.insns != dec.insns || cs.range_total == 0) {
		printf(WHO "  MISMATCH: %" PRIu64 " instructions decoded, %"
		       PRIu64 " with the contexts profile, %" PRIu64
		       " range counts\n", dec.insns, cs.insns, cs.range_total);
		status = 1;
	}
	if (grow_c) {
		printf(WHO "  MISMATCH: the contexts profile's heap grew by %zu "
		       "bytes over copies that add no new context or range\n",
		       grow_c);
		status = 1;
	}
	if (stk.insns != dec.insns || stk.stack_insns != dec.insns) {
		printf(WHO "  MISMATCH: %" PRIu64 " instructions decoded, %"
		       PRIu64 " in the stacks\n", dec.insns, stk.stack_insns);
		status = 1;
	}
	if (grow_s) {
		printf(WHO "  MISMATCH: the stacks' heap grew by %zu bytes "
		       "over copies that add no new stack\n", grow_s);
		status = 1;
	}
	if (prof.insns != dec.insns || prof.range_total == 0 ||
	    prof.range_total > prof.ranges_seen) {
		printf(WHO "  MISMATCH: %" PRIu64 " instructions decoded, %"
		       PRIu64 " with the profile; %" PRIu64 " range counts "
		       "for %" PRIu64 " insn_range elements\n", dec.insns,
		       prof.insns, prof.range_total, prof.ranges_seen);
		status = 1;
	}
	if (grow) {
		printf(WHO "  MISMATCH: the profile's heap grew by %zu bytes "
		       "over copies that add no new range\n", grow);
		status = 1;
	}
out:
	image_free(img);
	bench_etm4_close(&src);
	bench_input_free(&in);
	return status;
}
