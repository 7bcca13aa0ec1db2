/* bench_ptm_flow: throughput of etmkit's PTM flow decoder (PFT trace plus
 * program image to instructions), in both forms, and of OpenCSD's full PTM
 * decode on the same input when built with ETMKIT_HAVE_OPENCSD.
 *
 * Input: one PTM source of a shared capture, from its first A-sync to its
 * last, repeated to --mb MiB (bench_common.h), with its core's memory
 * dumps as the image: by default tc2-ptm-rstk-t32 (PFTv1.1, T32, return
 * stack on, its raw buffer), --snapshot TC2 --id 0x13 (PFTv1.1,
 * cycle-accurate, A32 kernel) or --snapshot Snowball --id 0x10 (PFTv1.0,
 * cycle-accurate).
 *
 * Timed: decoder allocation, decoding every element, end of trace, release
 * (the same for both). Best of --runs runs, the decoders taking turns.
 * The consumer counts instructions and sums their addresses, so every
 * element is read. etmkit decodes one insn element per instruction and
 * PTM_FLOW_RANGES (insn_range elements, the form of OpenCSD's output);
 * both must give the same instructions, and OpenCSD as many. With --jobs
 * N, also the parallel decode (parallel.h, bench_par.h) in the ranges
 * form, on N threads, or through a session (--session split|worker),
 * timed in the same runs and checked against a serial ranges decode.
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

#define MAX_DUMPS 16

struct flow_counts {
	uint64_t insns, elems, checksum;
	uint64_t gaps, no_image;
	uint64_t stats_insns;    /* the decoder's own count */
};

/* The source decoded: its registers, trace, image (for OpenCSD too). */
struct source {
	struct snapshot *ss;
	struct ptm_flow_config cfg;
	struct image *img;
	struct bytes dumps[MAX_DUMPS];
	uint64_t dump_addr[MAX_DUMPS];
	size_t ndumps;
	uint8_t id;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench_ptm_flow [--shared DIR] [--snapshot NAME] [--id ID]"
		" [--mb N] [--ocsd-mb N] [--runs N]\n"
		"       [--jobs N] [--piece-kb K] [--session split|worker]\n"
		"  --shared DIR     folder holding testdata/ (default: "
		"$ETMKIT_SHARED, else %s)\n"
		"  --snapshot NAME  tc2-ptm-rstk-t32 (default), TC2 or Snowball\n"
		"  --id ID          its PTM's trace ID (TC2: 0x13, Snowball: "
		"0x10 or 0x11)\n"
		"  --mb N           MiB of repeated trace for etmkit (default 128)\n"
		"  --ocsd-mb N      MiB for OpenCSD (default 8; it is the slow "
		"one)\n"
		"  --runs N         timed runs per decoder, best kept (default 3)\n"
		"  --jobs N         also the parallel decode (parallel.h), ranges "
		"form, N threads\n"
		"  --piece-kb K     its piece size (default 32)\n"
		"  --session M      time it through a session (session.h) "
		"instead:\n"
		"                     split: split_source; worker: one worker\n",
		ETMKIT_BENCH_SHARED_DIR);
}

/* --snapshot, --jobs, --piece-kb and --session. */
struct ptm_options {
	const char *snap;
	struct bench_par bp;
};

static int ptm_option(void *ctx, const char *a, const char *val)
{
	struct ptm_options *po = ctx;
	int r = bench_par_option(&po->bp, a, val);

	return r ? r : bench_snapshot_option(&po->snap, a, val);
}

/* Timed consumer of insn elements: every element read (zero-copy
 * batches). Out of line: callgrind's --toggle-collect=drain counts this
 * form alone. */
static __attribute__((noinline)) int drain(struct ptm_flow_decoder *dec,
					   struct flow_counts *c)
{
	uint64_t insns = 0, elems = 0, sum = 0, gaps = 0, noimg = 0;
	const struct etmkit_elem *el;
	int n;

	while ((n = ptm_flow_batch(dec, &el)) > 0) {
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

/* Timed consumer of PTM_FLOW_RANGES: every element read, the
 * instructions counted. Out of line: --toggle-collect=drain_ranges. */
static __attribute__((noinline)) int drain_ranges(
	struct ptm_flow_decoder *dec, struct flow_counts *c)
{
	uint64_t insns = 0, elems = 0, sum = 0, gaps = 0, noimg = 0;
	const struct etmkit_elem *el;
	int n;

	while ((n = ptm_flow_batch(dec, &el)) > 0) {
		for (int i = 0; i < n; i++) {
			const struct etmkit_elem *e = &el[i];

			if (e->kind == etmkit_elem_insn_range) {
				insns += e->u.range.count;
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
	return n == -etmkit_err_eos ? 0 : n;
}

static int etmkit_decode(const struct ptm_flow_config *cfg,
			 const uint8_t *buf, size_t n, struct flow_counts *c)
{
	struct ptm_flow_decoder *dec = NULL;
	int ranges = !!(cfg->flags & PTM_FLOW_RANGES);
	int err;

	memset(c, 0, sizeof(*c));
	err = ptm_flow_alloc(&dec, cfg);
	if (err)
		return err;
	err = ptm_flow_feed(dec, buf, n, NULL, 0);
	if (!err)
		err = ranges ? drain_ranges(dec, c) : drain(dec, c);
	if (!err)
		err = ptm_flow_finish(dec);
	if (!err)
		err = ranges ? drain_ranges(dec, c) : drain(dec, c);
	c->stats_insns = ptm_flow_get_stats(dec)->insns;
	ptm_flow_free(dec);
	return err;
}

static void print_rate(const char *who, double bytes, double secs,
		       uint64_t insns, const char *note)
{
	printf("ptm_flow  %-13s %7.1f MB  %8.1f MB/s  %8.2f Minsn/s  %8.1f ms%s\n",
	       who, bytes / MIB, bytes / MIB / secs, (double)insns / secs / 1e6,
	       secs * 1e3, note);
}

/* Open snapshot @name and find its PTM source of trace ID @id (any, if
 * @id is 0): registers, trace (deformatted if framed) into @in, the
 * core's dumps as the image. Returns 0, or -1 after a message. */
static int open_source(const char *shared, const char *name, unsigned id,
		       double mb, struct source *s, struct bench_input *in)
{
	static const char *const kinds[] = { "ptm", "etmv3" };
	struct snapshot_diag diag;
	struct bytes file = { 0 }, stream = { 0 };
	char path[4096], what[64];
	int ret = -1;

	for (size_t k = 0; k < 2 && !s->ss; k++) {
		snprintf(path, sizeof(path), "%s/testdata/%s/%s", shared,
			 kinds[k], name);
		if (snapshot_open(&s->ss, path, &diag))
			s->ss = NULL;
	}
	if (!s->ss) {
		fprintf(stderr, "ptm_flow: no snapshot %s under %s/testdata\n",
			name, shared);
		return -1;
	}
	for (size_t i = 0; i < snapshot_source_count(s->ss); i++) {
		const struct snapshot_source *src = snapshot_source_at(s->ss, i);
		const struct snapshot_device *dev =
			snapshot_find_device(s->ss, src->name);
		const struct snapshot_device *core = src->core ?
			snapshot_find_device(s->ss, src->core) : NULL;
		const struct snapshot_buffer *buf =
			snapshot_find_buffer(s->ss, src->buffer);
		struct etm3_config regs;
		struct image_diag idiag;

		etm3_config_init(&regs);
		if (!dev || !core || !buf ||
		    snapshot_etm3_config(dev, &regs, &s->id, NULL) ||
		    !ptm_etmidr_is_ptm(regs.etmidr) || (id && s->id != id))
			continue;
		ptm_flow_config_init(&s->cfg);
		s->cfg.ptm.etmcr = regs.etmcr;
		s->cfg.ptm.etmidr = regs.etmidr;
		s->cfg.ptm.etmccer = regs.etmccer;
		if (image_alloc(&s->img) ||
		    image_add_snapshot_device(s->img, core, &idiag))
			goto out;
		s->cfg.image = s->img;
		for (size_t d = 0; d < core->ndumps && d < MAX_DUMPS; d++) {
			const struct snapshot_dump *dp = &core->dumps[d];

			if (bench_read_file("ptm_flow", dp->file,
					    &s->dumps[s->ndumps]))
				goto out;
			if (dp->has_length &&
			    dp->length < s->dumps[s->ndumps].n)
				s->dumps[s->ndumps].n = (size_t)dp->length;
			s->dump_addr[s->ndumps++] = dp->address;
		}
		if (bench_read_file("ptm_flow", buf->file, &file))
			goto out;
		snprintf(what, sizeof(what), "%s ID 0x%02x", src->name, s->id);
		if (!strcmp(buf->format, "coresight")) {
			if (bench_deformat_id("ptm_flow", &file, s->id, &stream))
				goto out;
			ret = bench_input_cut("ptm_flow", what, stream.data,
					      stream.n, &bench_sync_etm3, mb, in);
		} else {
			ret = bench_input_cut("ptm_flow", what, file.data,
					      file.n, &bench_sync_etm3, mb, in);
		}
		printf("ptm_flow  input    %s %s: %zu-byte copy x %zu = "
		       "%.1f MB; %zu image regions\n", name, what, in->copy_len,
		       in->copies, (double)in->n / MIB, s->ndumps);
		goto out;
	}
	fprintf(stderr, "ptm_flow: no PTM source%s in %s\n",
		id ? " of that ID" : "", name);
out:
	free(file.data);
	free(stream.data);
	return ret;
}

static void close_source(struct source *s)
{
	for (size_t d = 0; d < s->ndumps; d++)
		free(s->dumps[d].data);
	image_free(s->img);
	snapshot_free(s->ss);
}

int main(int argc, char **argv)
{
	struct bench_options o;
	struct bench_input in;
	struct source s;
	struct ptm_flow_config rcfg;
	struct flow_counts one, two, total, rtotal;
	struct ptm_options po = { "tc2-ptm-rstk-t32", { 0, 0, 0 } };
	struct bench_par_counts pref, ptot;
	double best = 0.0, best_r = 0.0, best_p = 0.0;
	uint64_t per_copy;
	int status = 1, err;

	memset(&in, 0, sizeof(in));
	memset(&s, 0, sizeof(s));
	if (bench_parse_args("bench_ptm_flow", argc, argv, &o, 8.0,
			     ptm_option, &po, usage))
		return 2;
	if (open_source(o.shared, po.snap, o.id == 0x10 &&
			!strcmp(po.snap, "tc2-ptm-rstk-t32") ? 0 : o.id, o.mb,
			&s, &in))
		goto out;
	rcfg = s.cfg;
	rcfg.flags |= PTM_FLOW_RANGES;

	/* Untimed: one and two copies give what every further copy adds. */
	if ((err = etmkit_decode(&s.cfg, in.buf, in.copy_len, &one)) ||
	    (err = etmkit_decode(&s.cfg, in.buf, 2 * in.copy_len, &two))) {
		fprintf(stderr, "ptm_flow: etmkit: %s\n", etmkit_errstr(err));
		goto out;
	}
	per_copy = two.insns - one.insns;
#ifdef ETMKIT_HAVE_OPENCSD
	struct ocsd_flow_counts oone, otwo, ototal;
	struct ocsd_mem_region region[MAX_DUMPS];
	size_t ocopies = (size_t)(o.ocsd_mb * MIB / (double)in.copy_len);
	size_t on;
	double best_o = 0.0;
	uint64_t operc;
	const struct ptm_config *pc = &s.cfg.ptm;

	for (size_t d = 0; d < s.ndumps; d++) {
		region[d].data = s.dumps[d].data;
		region[d].n = s.dumps[d].n;
		region[d].addr = s.dump_addr[d];
		region[d].spaces = 0;
	}
	if (ocopies < 2)
		ocopies = 2;
	if (ocopies > in.copies)
		ocopies = in.copies;
	on = ocopies * in.copy_len;
	if (ocsd_flow_peer_ptm(in.buf, in.copy_len, pc->etmcr, pc->etmidr,
			       pc->etmccer, s.id, region, s.ndumps, &oone) ||
	    ocsd_flow_peer_ptm(in.buf, 2 * in.copy_len, pc->etmcr, pc->etmidr,
			       pc->etmccer, s.id, region, s.ndumps, &otwo))
		goto out;
	operc = otwo.insns - oone.insns;
#endif
	/* The decoders take turns, so that both see the machine in the same
	 * state. */
	for (int r = 0; r < o.runs; r++) {
		double t0 = bench_now();

		err = etmkit_decode(&s.cfg, in.buf, in.n, &total);
		if (bench_keep_best("ptm_flow", err, bench_now() - t0, r, &best))
			goto out;
		t0 = bench_now();
		err = etmkit_decode(&rcfg, in.buf, in.n, &rtotal);
		if (bench_keep_best("ptm_flow", err, bench_now() - t0, r,
				    &best_r))
			goto out;
		if (po.bp.jobs) {
			double t;

			err = bench_par_run(&po.bp, NULL, NULL, &s.cfg, in.buf,
					    in.n, &ptot, &t);
			if (bench_keep_best("ptm_flow", err, t, r, &best_p))
				goto out;
		}
#ifdef ETMKIT_HAVE_OPENCSD
		t0 = bench_now();
		if (ocsd_flow_peer_ptm(in.buf, on, pc->etmcr, pc->etmidr,
				       pc->etmccer, s.id, region, s.ndumps,
				       &ototal))
			goto out;
		if (bench_keep_best("ptm_flow", 0, bench_now() - t0, r, &best_o))
			goto out;
#endif
	}
	{
		char note[256];

		snprintf(note, sizeof(note), "  best of %d; %" PRIu64
			 " insns/copy, %" PRIu64 " gaps, %" PRIu64 " no_image",
			 o.runs, per_copy, total.gaps, total.no_image);
		print_rate("etmkit", (double)in.n, best, total.insns, note);
		snprintf(note, sizeof(note), "  best of %d; PTM_FLOW_RANGES: "
			 "%" PRIu64 " insn_range elements for the same "
			 "instructions", o.runs, rtotal.elems - total.elems +
			 total.insns);
		print_rate("etmkit-ranges", (double)in.n, best_r, rtotal.insns,
			   note);
	}
	if (rtotal.insns != total.insns || rtotal.stats_insns != total.insns ||
	    total.stats_insns != total.insns) {
		printf("ptm_flow  MISMATCH: ranges decode %" PRIu64
		       " instructions, insn elements %" PRIu64 "\n",
		       rtotal.insns, total.insns);
		goto out;
	}
	if (total.insns != one.insns + per_copy * (in.copies - 1)) {
		printf("ptm_flow  MISMATCH: etmkit decoded %" PRIu64
		       " instructions, expected %" PRIu64 "\n", total.insns,
		       one.insns + per_copy * (in.copies - 1));
		goto out;
	}
	status = 0;
	if (po.bp.jobs) {
		if ((err = bench_par_serial(NULL, NULL, &s.cfg, in.buf, in.n,
					    &pref))) {
			fprintf(stderr, "ptm_flow: etmkit: %s\n",
				etmkit_errstr(err));
			status = 1;
			goto out;
		}
		status |= bench_par_report("ptm_flow", &po.bp, (double)in.n,
					   best_p, &ptot, &pref, o.runs);
	}
#ifdef ETMKIT_HAVE_OPENCSD
	{
		char note[128];

		snprintf(note, sizeof(note), "  best of %d; OpenCSD full decode; "
			 "the first copies only (--ocsd-mb)", o.runs);
		print_rate("opencsd", (double)on, best_o, ototal.insns, note);
	}
	printf("ptm_flow  ratio    %.1fx  (etmkit / opencsd, instructions per "
	       "second)\n", ((double)total.insns / best) /
				((double)ototal.insns / best_o));
	printf("ptm_flow  ratio    %.1fx  (etmkit-ranges / opencsd: ranges on "
	       "both sides)\n", ((double)rtotal.insns / best_r) /
				 ((double)ototal.insns / best_o));
	if (po.bp.jobs)
		printf("ptm_flow  ratio    %.1fx  (etmkit-%s-j%u / opencsd, "
		       "instructions per second)\n",
		       ((double)ptot.insns / best_p) /
			       ((double)ototal.insns / best_o),
		       po.bp.session == 2 ? "split" :
		       po.bp.session	  ? "worker" : "ranges", po.bp.jobs);
	if (oone.insns != one.insns || operc != per_copy) {
		printf("ptm_flow  MISMATCH: instructions in one copy: etmkit %"
		       PRIu64 ", opencsd %" PRIu64 "; per further copy: etmkit %"
		       PRIu64 ", opencsd %" PRIu64 "\n", one.insns, oone.insns,
		       per_copy, operc);
		status = 1;
	} else {
		printf("ptm_flow  insns    match: %" PRIu64 " in the first copy, %"
		       PRIu64 " per further copy\n", one.insns, per_copy);
	}
#else
	printf("ptm_flow  opencsd  not built (install libopencsd-dev and "
	       "reconfigure)\n");
#endif
out:
	close_source(&s);
	bench_input_free(&in);
	return status;
}
