/* bench_etm3_flow: throughput of etmkit's ETMv3 flow decoder (trace plus
 * program image to instructions), and of OpenCSD's full ETMv3 decode on
 * the same input when built with ETMKIT_HAVE_OPENCSD.
 *
 * Input: one trace ID of the TC2 capture repeated to --mb MiB (see
 * bench_common.h), with the capture's program image, kernel_dump.bin at
 * 0xC0008000. Both decoders must report the same number of instructions.
 *
 * Timed: decoder allocation, decoding every element, end of trace, release
 * (the same for both). Best of --runs runs, the decoders taking turns.
 * The consumer counts instructions and sums their addresses, so every
 * element is read. etmkit decodes in two forms: one insn element per
 * instruction, and ETM3_FLOW_RANGES (insn_range elements, the form of
 * OpenCSD's output); both must give the same instructions.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/flow.h"
#include "bench_common.h"
#include "bench_par.h"

#ifdef ETMKIT_HAVE_OPENCSD
#include "ocsd_flow_peer.h"
#endif

#define IMAGE_ADDR 0xC0008000u

struct flow_counts {
	uint64_t insns, elems, checksum;
	uint64_t gaps, no_image;
	uint64_t thumb;          /* T32 ranges: the checksum is not exact */
	uint64_t stats_insns;    /* the decoder's own count */
	size_t heap_after_alloc, heap_after_decode;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench_etm3_flow [--shared DIR] [--id ID] [--mb N] "
		"[--ocsd-mb N] [--runs N] [--jobs N] [--piece-kb K]\n"
		"       [--session split|worker]\n"
		"  --shared DIR  folder holding testdata/ (default: $ETMKIT_SHARED,"
		" else %s)\n"
		"  --id ID       TC2 trace ID: 0x10, 0x11 or 0x12 (default 0x10)\n"
		"  --mb N        MiB of repeated trace for etmkit (default 128)\n"
		"  --ocsd-mb N   MiB for OpenCSD (default 16; it is the slow one)\n"
		"  --runs N      timed runs per decoder, best kept (default 3)\n"
		"  --jobs N      also the parallel decode (parallel.h), ranges "
		"form, N threads\n"
		"  --piece-kb K  its piece size (default 32)\n"
		"  --session M   time it through a session (session.h) instead:\n"
		"                  split: split_source; worker: one worker\n",
		ETMKIT_BENCH_SHARED_DIR);
}

/* Timed consumer of insn elements: every element read (zero-copy
 * batches); tallies in locals. Out of line: callgrind's
 * --toggle-collect=drain counts this form alone (bench/README.md). */
static __attribute__((noinline)) int drain(struct etm3_flow_decoder *dec,
					   struct flow_counts *c)
{
	uint64_t insns = 0, elems = 0, sum = 0, gaps = 0, noimg = 0;
	const struct etmkit_elem *el;
	int n;

	while ((n = etm3_flow_batch(dec, &el)) > 0) {
		for (int i = 0; i < n; i++) {
			const struct etmkit_elem *e = &el[i];

			if (e->kind == etmkit_elem_insn) {
				insns++;
				sum += e->addr;
			}
			gaps += e->kind == etmkit_elem_gap;
			noimg += e->kind == etmkit_elem_no_image;
		}
		elems += (uint64_t)n;
	}
	c->insns += insns;
	c->elems += elems;
	c->checksum += sum;
	c->gaps += gaps;
	c->no_image += noimg;
	return n == -etmkit_err_eos ? 0 : n;
}

/* Timed consumer of ETM3_FLOW_RANGES: every element read, a range's
 * addresses summed in closed form (n instructions of the last one's size:
 * exact for A32; T32 ranges are counted, their sums not compared).
 * Out of line: --toggle-collect=drain_ranges. */
static __attribute__((noinline)) int drain_ranges(
	struct etm3_flow_decoder *dec, struct flow_counts *c)
{
	uint64_t insns = 0, elems = 0, sum = 0, gaps = 0, noimg = 0, thumb = 0;
	const struct etmkit_elem *el;
	int n;

	while ((n = etm3_flow_batch(dec, &el)) > 0) {
		for (int i = 0; i < n; i++) {
			const struct etmkit_elem *e = &el[i];

			if (e->kind == etmkit_elem_insn_range) {
				uint64_t k = e->u.range.count;

				insns += k;
				sum += k * e->addr + e->size * (k * (k - 1) / 2);
				thumb += e->isa != etmkit_isa_arm;
			} else if (e->kind == etmkit_elem_insn) {
				insns++; /* none expected in this form */
				sum += e->addr;
			} else if (e->kind == etmkit_elem_gap) {
				gaps++;
			} else if (e->kind == etmkit_elem_no_image) {
				noimg++;
			}
		}
		elems += (uint64_t)n;
	}
	c->insns += insns;
	c->elems += elems;
	c->checksum += sum;
	c->gaps += gaps;
	c->no_image += noimg;
	c->thumb += thumb;
	return n == -etmkit_err_eos ? 0 : n;
}

static int etmkit_decode(const struct etm3_flow_config *cfg,
			 const uint8_t *buf, size_t n, struct flow_counts *c)
{
	struct etm3_flow_decoder *dec = NULL;
	size_t heap0 = bench_heap_in_use();
	int err;

	int ranges = !!(cfg->flags & ETM3_FLOW_RANGES);

	memset(c, 0, sizeof(*c));
	err = etm3_flow_alloc(&dec, cfg);
	if (err)
		return err;
	c->heap_after_alloc = bench_heap_in_use() - heap0;
	err = etm3_flow_feed(dec, buf, n, NULL, 0);
	if (!err)
		err = ranges ? drain_ranges(dec, c) : drain(dec, c);
	if (!err)
		err = etm3_flow_finish(dec);
	if (!err)
		err = ranges ? drain_ranges(dec, c) : drain(dec, c);
	c->heap_after_decode = bench_heap_in_use() - heap0;
	c->stats_insns = etm3_flow_get_stats(dec)->insns;
	etm3_flow_free(dec);
	return err;
}

static void print_rate(const char *who, double bytes, double secs,
		       uint64_t insns, const char *note)
{
	printf("etm3_flow  %-13s %7.1f MB  %8.1f MB/s  %8.2f Minsn/s  %8.1f ms%s\n",
	       who, bytes / MIB, bytes / MIB / secs, (double)insns / secs / 1e6,
	       secs * 1e3, note);
}

int main(int argc, char **argv)
{
	struct bench_options o;
	struct bench_input in;
	struct bytes image = { 0 };
	struct image *img = NULL;
	struct etm3_flow_config cfg, rcfg;
	struct flow_counts one, two, total, rtotal;
	struct bench_par bp = { 0, 0, 0 };
	struct bench_par_counts pref, ptot;
	double best_p = 0.0;
	char path[4096];
	double best = 0.0, best_r = 0.0;
	uint64_t per_copy;
	int status = 1, err;

	memset(&in, 0, sizeof(in));
	if (bench_parse_args("bench_etm3_flow", argc, argv, &o, 16.0,
			     bench_par_option, &bp, usage))
		return 2;
	snprintf(path, sizeof(path), "%s/testdata/etmv3/TC2/kernel_dump.bin",
		 o.shared);
	if (bench_read_file("etm3_flow", path, &image))
		goto out;
	snprintf(path, sizeof(path), "%s/testdata/etmv3/TC2/cstrace.bin",
		 o.shared);
	if (bench_input_build("etm3_flow", path, (uint8_t)o.id, o.mb, &in))
		goto out;
	printf("etm3_flow  input    %s, ID 0x%02x: %zu-byte copy x %zu = "
	       "%.1f MB; image %zu bytes at 0x%08x\n", path, o.id, in.copy_len,
	       in.copies, (double)in.n / MIB, image.n, IMAGE_ADDR);
	if (image_alloc(&img) ||
	    image_add_buffer(img, image.data, image.n, IMAGE_ADDR, 0)) {
		fprintf(stderr, "etm3_flow: cannot set up the image\n");
		goto out;
	}
	etm3_flow_config_init(&cfg);
	cfg.etm.etmcr = TC2_ETMCR;
	cfg.etm.etmidr = TC2_ETMIDR;
	cfg.etm.etmccer = TC2_ETMCCER;
	cfg.image = img;
	rcfg = cfg;
	rcfg.flags |= ETM3_FLOW_RANGES;

	/* Untimed: one and two copies give what every further copy adds
	 * (the first copy starts unsynchronised, the others do not). */
	if ((err = etmkit_decode(&cfg, in.buf, in.copy_len, &one)) ||
	    (err = etmkit_decode(&cfg, in.buf, 2 * in.copy_len, &two))) {
		fprintf(stderr, "etm3_flow: etmkit: %s\n", etmkit_errstr(err));
		goto out;
	}
	per_copy = two.insns - one.insns;
#ifdef ETMKIT_HAVE_OPENCSD
	struct ocsd_flow_counts oone, otwo, ototal;
	struct ocsd_mem_region region = { image.data, image.n, IMAGE_ADDR, 0 };
	size_t ocopies = (size_t)(o.ocsd_mb * MIB / (double)in.copy_len);
	size_t on;
	double best_o = 0.0;
	uint64_t operc;

	if (ocopies < 2)
		ocopies = 2;
	if (ocopies > in.copies)
		ocopies = in.copies;
	on = ocopies * in.copy_len;
	if (ocsd_flow_peer_etm3(in.buf, in.copy_len, TC2_ETMCR, TC2_ETMIDR,
				TC2_ETMCCER, (uint8_t)o.id, &region, 1, &oone) ||
	    ocsd_flow_peer_etm3(in.buf, 2 * in.copy_len, TC2_ETMCR, TC2_ETMIDR,
				TC2_ETMCCER, (uint8_t)o.id, &region, 1, &otwo))
		goto out;
	operc = otwo.insns - oone.insns;
#endif
	/* The decoders take turns, so that both see the machine in the same
	 * state (clock speed, neighbours): the ratio of the bests is then
	 * steadier than the rates themselves. */
	for (int r = 0; r < o.runs; r++) {
		double t0 = bench_now(), t;

		err = etmkit_decode(&cfg, in.buf, in.n, &total);
		t = bench_now() - t0;
		if (err) {
			fprintf(stderr, "etm3_flow: etmkit: %s\n",
				etmkit_errstr(err));
			goto out;
		}
		if (r == 0 || t < best)
			best = t;
		t0 = bench_now();
		err = etmkit_decode(&rcfg, in.buf, in.n, &rtotal);
		if (bench_keep_best("etm3_flow", err, bench_now() - t0, r,
				    &best_r))
			goto out;
		if (bp.jobs) {
			err = bench_par_run(&bp, &cfg, NULL, NULL, in.buf, in.n, &ptot, &t);
			if (bench_keep_best("etm3_flow", err, t, r, &best_p))
				goto out;
		}
#ifdef ETMKIT_HAVE_OPENCSD
		t0 = bench_now();
		if (ocsd_flow_peer_etm3(in.buf, on, TC2_ETMCR, TC2_ETMIDR,
					TC2_ETMCCER, (uint8_t)o.id, &region, 1,
					&ototal))
			goto out;
		t = bench_now() - t0;
		if (r == 0 || t < best_o)
			best_o = t;
#endif
	}
	{
		char note[256];

		snprintf(note, sizeof(note), "  best of %d; %" PRIu64
			 " insns/copy, %" PRIu64 " gaps, %" PRIu64
			 " no_image; heap %zu KiB after alloc, %zu KiB after "
			 "decoding", o.runs, per_copy, total.gaps,
			 total.no_image, total.heap_after_alloc / 1024,
			 total.heap_after_decode / 1024);
		print_rate("etmkit", (double)in.n, best, total.insns, note);
		snprintf(note, sizeof(note), "  best of %d; ETM3_FLOW_RANGES: "
			 "%" PRIu64 " insn_range elements for the same "
			 "instructions", o.runs, rtotal.elems - total.elems +
			 total.insns);
		print_rate("etmkit-ranges", (double)in.n, best_r, rtotal.insns,
			   note);
	}
	/* The same instructions in both forms, and (as far as the sums are
	 * exact: A32 only) the same addresses. */
	if (rtotal.insns != total.insns || rtotal.stats_insns != total.insns ||
	    total.stats_insns != total.insns ||
	    (!rtotal.thumb && rtotal.checksum != total.checksum)) {
		printf("etm3_flow  MISMATCH: ranges decode %" PRIu64
		       " instructions (sum 0x%" PRIx64 "), insn elements %"
		       PRIu64 " (sum 0x%" PRIx64 ")\n", rtotal.insns,
		       rtotal.checksum, total.insns, total.checksum);
		goto out;
	}
	if (total.insns != one.insns + per_copy * (in.copies - 1)) {
		printf("etm3_flow  MISMATCH: etmkit decoded %" PRIu64
		       " instructions, expected %" PRIu64 "\n", total.insns,
		       one.insns + per_copy * (in.copies - 1));
		goto out;
	}
	status = 0;
	if (bp.jobs) {
		if ((err = bench_par_serial(&cfg, NULL, NULL, in.buf, in.n, &pref))) {
			fprintf(stderr, "etm3_flow: etmkit: %s\n",
				etmkit_errstr(err));
			goto out;
		}
		status |= bench_par_report("etm3_flow", &bp, (double)in.n, best_p,
					   &ptot, &pref, o.runs);
	}
#ifdef ETMKIT_HAVE_OPENCSD
	{
		char note[128];

		snprintf(note, sizeof(note), "  best of %d; OpenCSD full decode; "
			 "the first copies only (--ocsd-mb)", o.runs);
		print_rate("opencsd", (double)on, best_o, ototal.insns, note);
	}
	printf("etm3_flow  ratio    %.1fx  (etmkit / opencsd, instructions per "
	       "second)\n", ((double)total.insns / best) /
				((double)ototal.insns / best_o));
	printf("etm3_flow  ratio    %.1fx  (etmkit-ranges / opencsd: ranges on "
	       "both sides)\n", ((double)rtotal.insns / best_r) /
				 ((double)ototal.insns / best_o));
	if (bp.jobs)
		printf("etm3_flow  ratio    %.1fx  (etmkit-ranges-j%u / opencsd, "
		       "instructions per second)\n",
		       ((double)ptot.insns / best_p) /
			       ((double)ototal.insns / best_o), bp.jobs);
	/* With one instruction per OpenCSD range (ETMv3: a range per atom),
	 * the range starts are the instruction addresses: their sums agree
	 * too. */
	if (oone.ranges == oone.insns && oone.checksum != one.checksum) {
		printf("etm3_flow  MISMATCH: the instruction addresses of one "
		       "copy differ (sums 0x%" PRIx64 " and 0x%" PRIx64 ")\n",
		       one.checksum, oone.checksum);
		status = 1;
	}
	if (oone.insns != one.insns || operc != per_copy) {
		printf("etm3_flow  MISMATCH: instructions in one copy: etmkit %"
		       PRIu64 ", opencsd %" PRIu64 "; per further copy: etmkit %"
		       PRIu64 ", opencsd %" PRIu64 "\n", one.insns, oone.insns,
		       per_copy, operc);
		status = 1;
	} else {
		printf("etm3_flow  insns    match: %" PRIu64 " in the first copy, %"
		       PRIu64 " per further copy%s\n", one.insns, per_copy,
		       oone.ranges == oone.insns ? "; their addresses too" : "");
	}
#else
	printf("etm3_flow  opencsd  not built (install libopencsd-dev and "
	       "reconfigure)\n");
#endif
out:
	image_free(img);
	free(image.data);
	bench_input_free(&in);
	return status;
}
