/* bench_insn_iter: what one record per instruction costs over blocks.
 *
 * Input: one ETMv4/ETE source of a snapshot (--snapshot, default
 * tme_test; juno_r1_1 takes --id) and its core's image, repeated to --mb
 * MiB (bench_common.h). Timed, best of --runs, the forms taking turns:
 *   - ranges: the blocks decode (ETM4_FLOW_RANGES), every element read;
 *   - ranges + insn_iter: the same, every block expanded by
 *     etmkit_insn_iter (include/etmkit/blocks.h) into batches of 64 insn
 *     elements, each read (counted, its address summed);
 *   - insns: the per-instruction decode (no flag), every insn element
 *     read the same way.
 * The iterator's own rate is the instructions over the difference of the
 * first two times. The instruction counts and address sums of the last
 * two must agree (exit 1 if not).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/blocks.h"
#include "etmkit/flow.h"
#include "bench_common.h"

#define WHO "insn_iter"
#define BATCH 64

struct consumer {
	struct etmkit_insn_iter it;
	uint64_t insns, sum;
	int err;
};

static void usage(FILE *f)
{
	bench_etm4_usage(f, "bench_insn_iter", "0 (no OpenCSD run)");
}

/* The blocks of a batch, each expanded. */
static int expand_batch(void *ctx, const struct etmkit_elem *el, int k)
{
	struct consumer *c = ctx;
	struct etmkit_elem out[BATCH];
	uint64_t insns = c->insns, sum = c->sum;

	for (int i = 0; i < k; i++) {
		int n;

		if (el[i].kind == etmkit_elem_context) {
			etmkit_insn_iter_context(&c->it, &el[i]);
			continue;
		}
		if (el[i].kind != etmkit_elem_insn_range)
			continue;
		if ((n = etmkit_insn_iter_start(&c->it, &el[i])))
			return n;
		while ((n = etmkit_insn_iter_next(&c->it, out, BATCH)) > 0)
			for (int j = 0; j < n; j++) {
				insns += out[j].kind == etmkit_elem_insn;
				sum += out[j].addr;
			}
		if (n != -etmkit_err_eos)
			return n;
	}
	c->insns = insns;
	c->sum = sum;
	return 0;
}

/* The insn elements of a per-instruction batch, read the same way. */
static int read_batch(void *ctx, const struct etmkit_elem *el, int k)
{
	struct consumer *c = ctx;
	uint64_t insns = c->insns, sum = c->sum;

	for (int i = 0; i < k; i++)
		if (el[i].kind == etmkit_elem_insn) {
			insns++;
			sum += el[i].addr;
		}
	c->insns = insns;
	c->sum = sum;
	return 0;
}

/* @form: 0 ranges, 1 ranges + iterator, 2 insns. */
static int timed(const struct bench_etm4_image *b, int form, int r,
		 double *best, struct consumer *c)
{
	struct etm4_flow_config cfg = b->cfg;
	struct bench_drained d;
	bench_batch_fn each = form == 1 ? expand_batch :
			      form == 2 ? read_batch : NULL;
	double t0;
	int err;

	memset(c, 0, sizeof(*c));
	if (form == 2)
		cfg.flags = 0;
	t0 = bench_now();
	etmkit_insn_iter_init(&c->it, cfg.image, IMAGE_SPACE_ANY);
	err = bench_etm4_drain(&cfg, b->in.buf, b->in.n, each, c, &d);
	if (form == 0)
		c->insns = d.insns;
	return bench_keep_best(WHO, err, bench_now() - t0, r, best);
}

int main(int argc, char **argv)
{
	struct bench_options o;
	struct bench_etm4_image b;
	struct consumer c[3];
	const char *snap = "tme_test";
	double best[3] = { 0.0, 0.0, 0.0 };
	int status = 1;

	memset(&b, 0, sizeof(b));
	if (bench_parse_args("bench_insn_iter", argc, argv, &o, 0.0,
			     bench_snapshot_option, &snap, usage))
		return 2;
	if (bench_etm4_image_open(WHO, &b, &o, snap))
		goto out;
	for (int r = 0; r < o.runs; r++)
		for (int f = 0; f < 3; f++)
			if (timed(&b, f, r, &best[f], &c[f]))
				goto out;
	bench_print_rate(WHO, " ranges          ", &b.in, best[0], c[0].insns,
			 o.runs);
	printf("\n");
	bench_print_rate(WHO, " ranges+insn_iter", &b.in, best[1], c[1].insns,
			 o.runs);
	printf("\n");
	bench_print_rate(WHO, " insns           ", &b.in, best[2], c[2].insns,
			 o.runs);
	printf("\n");
	if (best[1] > best[0])
		printf(WHO "  insn_iter alone: %.1f M instructions/s "
		       "(%.1f ns each)\n",
		       c[1].insns / (best[1] - best[0]) / 1e6,
		       (best[1] - best[0]) * 1e9 / (double)c[1].insns);
	status = 0;
	if (c[1].insns != c[2].insns || c[1].sum != c[2].sum ||
	    c[0].insns != c[2].insns) {
		printf(WHO "  MISMATCH: %" PRIu64 " instructions in ranges, %"
		       PRIu64 " iterated (address sum %" PRIx64 "), %" PRIu64
		       " per instruction (address sum %" PRIx64 ")\n",
		       c[0].insns, c[1].insns, c[1].sum, c[2].insns, c[2].sum);
		status = 1;
	}
out:
	bench_etm4_image_close(&b);
	return status;
}
