/* bench_elem_floor: the ceiling of one element per instruction.
 *
 * The flow decoders' per-instruction form writes one 48-byte struct
 * etmkit_elem per instruction, copied from a block-cache template (24
 * bytes, then offset and cycles), into a batch of 1024 that the consumer
 * then reads. This bench does only that, with no decoding at all: blocks
 * of --insns instructions (tme_test averages 4.4 per atom) written into
 * the batch, then every element read as bench_etm4_flow's consumer reads
 * it (kind tested, instructions counted, addresses summed). Its rate bounds
 * what a decoder with this element can deliver per instruction on the
 * machine; bench/README.md compares it with bench_etm4_flow's.
 *
 * Best of --runs runs of --m million elements each.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/elem.h"
#include "bench_common.h"

#define BATCH 1024 /* as the flow decoders' output batch */
#define TEMPLATES 32

struct floor_options {
	double millions;
	unsigned insns;
	int runs;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_elem_floor [--m N] [--insns N] [--runs N]\n"
		   "  --m N      million elements per run (default 400)\n"
		   "  --insns N  instructions per block, 1-32 (default 5)\n"
		   "  --runs N   runs, best kept (default 5)\n");
}

static int parse(int argc, char **argv, struct floor_options *o)
{
	o->millions = 400;
	o->insns = 5;
	o->runs = 5;
	for (int i = 1; i < argc; i += 2) {
		char *end = NULL;
		double v;

		if (!strcmp(argv[i], "--help")) {
			usage(stdout);
			exit(0);
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "bench_elem_floor: %s needs a value\n",
				argv[i]);
			return -1;
		}
		v = strtod(argv[i + 1], &end);
		if (!end || *end || v < 1) {
			fprintf(stderr, "bench_elem_floor: bad value for %s: "
				"%s\n", argv[i], argv[i + 1]);
			return -1;
		}
		if (!strcmp(argv[i], "--m") && v <= 1e6)
			o->millions = v;
		else if (!strcmp(argv[i], "--insns") && v <= TEMPLATES)
			o->insns = (unsigned)v;
		else if (!strcmp(argv[i], "--runs") && v <= 1000)
			o->runs = (int)v;
		else {
			fprintf(stderr, "bench_elem_floor: unknown option or "
				"value out of range: %s %s\n", argv[i],
				argv[i + 1]);
			usage(stderr);
			return -1;
		}
	}
	return 0;
}

/* One run: @total elements written and read. Returns the addresses' sum
 * (keeps both loops honest), and the instruction count in *@insns. */
static uint64_t run_once(struct etmkit_elem *out,
			 const struct etmkit_elem *tmpl, unsigned per_block,
			 uint64_t total, uint64_t *insns)
{
	uint64_t sum = 0, done = 0, count = 0;

	while (done < total) {
		size_t n = 0;

		/* The decoder's copy loop: bytes 8..32 of the template, then
		 * the packet offset and cycles (block.h's layout). */
		while (n + per_block <= BATCH) {
			for (unsigned k = 0; k < per_block; k++, n++) {
				memcpy(&out[n].addr, &tmpl[k].addr, 24);
				out[n].offset = done + n;
				out[n].cycles = 0;
			}
		}
		/* bench_etm4_flow's consumer. */
		for (size_t i = 0; i < n; i++) {
			if (out[i].kind == etmkit_elem_insn) {
				count++;
				sum += out[i].addr;
			}
		}
		done += n;
	}
	*insns = count;
	return sum;
}

int main(int argc, char **argv)
{
	struct floor_options o;
	struct etmkit_elem *out, tmpl[TEMPLATES];
	uint64_t total, insns = 0, sum = 0;
	double best = 0.0;

	if (parse(argc, argv, &o))
		return 2;
	out = calloc(BATCH, sizeof(*out));
	if (!out) {
		fprintf(stderr, "bench_elem_floor: out of memory\n");
		return 1;
	}
	memset(tmpl, 0, sizeof(tmpl));
	for (unsigned k = 0; k < TEMPLATES; k++) {
		tmpl[k].kind = etmkit_elem_insn;
		tmpl[k].isa = etmkit_isa_a64;
		tmpl[k].size = 4;
		tmpl[k].flags = ETMKIT_INSN_EXEC;
		tmpl[k].addr = 0x400000 + 4 * k;
		tmpl[k].u.insn.opcode = 0xd503201f;
	}
	total = (uint64_t)(o.millions * 1e6);
	for (int r = 0; r < o.runs; r++) {
		double t0 = bench_now(), t;

		sum = run_once(out, tmpl, o.insns, total, &insns);
		t = bench_now() - t0;
		if (r == 0 || t < best)
			best = t;
	}
	printf("elem_floor  %" PRIu64 " elements of %zu bytes, %u per block: "
	       "%.1f M elements/s (best of %d; %.1f GB/s written, as much "
	       "read; sum %" PRIx64 ")\n", insns, sizeof(struct etmkit_elem),
	       o.insns, (double)insns / best / 1e6, o.runs,
	       (double)insns * sizeof(struct etmkit_elem) / best / 1e9, sum);
	free(out);
	return insns ? 0 : 1;
}
