/* bench_etm4_flow: throughput of etmkit's ETMv4/ETE flow decoder (trace
 * plus program image to instructions), and of OpenCSD's full ETMv4 or ETE
 * decode on the same input when built with ETMKIT_HAVE_OPENCSD.
 *
 * Input: one trace source of a snapshot (--snapshot: juno_r1_1, ETMv4 in
 * CoreSight frames, the source of --id; tme_test, ETE in a raw
 * source_data buffer), repeated to --mb MiB from A-sync to A-sync (see
 * bench_common.h). The registers come from the source's device file and
 * the program image from the [dump]s of the core it traces, through
 * etmkit's snapshot reader; OpenCSD gets the same registers and the same
 * bytes as buffer memory accessors. Both decoders must report the same
 * number of instructions, and the same address sum when OpenCSD's ranges
 * are all A64.
 *
 * Timed: decoder allocation, decoding every element, end of trace, release
 * (the same for both). Best of --runs runs, the decoders taking turns.
 * The consumer counts instructions and sums their addresses, so every
 * element is read.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/flow.h"
#include "etmkit/snapshot.h"
#include "bench_common.h"
#include "bench_par.h"

#ifdef ETMKIT_HAVE_OPENCSD
#include "ocsd_flow_peer.h"
#endif

#define WHO "etm4_flow"

struct flow_counts {
	uint64_t insns, elems, checksum;
	uint64_t gaps, no_image;
	uint64_t thumb;          /* T32 ranges: the checksum is not exact */
	struct etm4_flow_stats stats;
	size_t heap_after_alloc, heap_after_decode;
};

/* The program image of the core the source traces. */
struct program {
	struct image *img;
	uint64_t bytes;
};

static void usage(FILE *f)
{
	bench_etm4_usage(f, "bench_etm4_flow", "8; it is the slow one");
	fprintf(f, "  --forms LIST  of insns, ranges, opencsd, comma-separated"
		" (default all)\n"
		"  --jobs N      also the parallel decode (parallel.h), "
		"ranges form, N threads\n"
		"  --piece-kb K  its piece size (default 32)\n"
		"  --session M   time it through a session (session.h) instead:\n"
		"                  split: split_source; worker: one worker\n"
		"  --dump FILE   also write the repeated input (the source's raw\n"
		"                bytes) to FILE, for bench/bench_python.py\n");
}

/* --forms: which decodes to time. */
#define FORM_INSNS 1u
#define FORM_RANGES 2u
#define FORM_OPENCSD 4u

/* --snapshot, --forms, --jobs, --piece-kb. */
struct flow_options {
	const char *snap;
	const char *dump;         /* --dump FILE, or NULL */
	unsigned forms;
	struct bench_par bp;
};
static int parse_forms(const char *arg, unsigned *out)
{
	static const char *const names[] = { "insns", "ranges", "opencsd" };
	const char *p = arg;

	*out = 0;
	while (*p) {
		size_t n = strcspn(p, ",");
		unsigned k;

		for (k = 0; k < 3; k++)
			if (strlen(names[k]) == n && !strncmp(p, names[k], n))
				break;
		if (k == 3)
			return -1;
		*out |= 1u << k;
		p += n + (p[n] == ',');
	}
	return *out ? 0 : -1;
}

/* --snapshot, --forms, --jobs and --piece-kb. */
static int flow_option(void *ctx, const char *a, const char *val)
{
	struct flow_options *fo = ctx;

	int r;

	if (!strcmp(a, "--forms"))
		return parse_forms(val, &fo->forms) ? -1 : 1;
	if (!strcmp(a, "--dump")) {
		fo->dump = val;
		return 1;
	}
	if ((r = bench_par_option(&fo->bp, a, val)))
		return r;
	return bench_snapshot_option(&fo->snap, a, val);
}

/* Heap bytes in use (glibc): the decoder must not grow with the trace. */
/* Timed consumer: every element read (zero-copy batches); tallies in
 * locals. */
static int drain(struct etm4_flow_decoder *dec, struct flow_counts *c)
{
	uint64_t insns = 0, elems = 0, sum = 0, gaps = 0, noimg = 0, thumb = 0;
	const struct etmkit_elem *el;
	int n;

	while ((n = etm4_flow_batch(dec, &el)) > 0) {
		for (int i = 0; i < n; i++) {
			const struct etmkit_elem *e = &el[i];

			if (e->kind == etmkit_elem_insn) {
				insns++;
				sum += e->addr;
			} else if (e->kind == etmkit_elem_insn_range) {
				/* n instructions of one size (the last's: A64
				 * and A32; T32 sums differ, not compared). */
				uint64_t k = e->u.range.count;

				insns += k;
				sum += k * e->addr + e->size * (k * (k - 1) / 2);
				thumb += e->isa == etmkit_isa_thumb;
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

static int etmkit_decode(const struct etm4_flow_config *cfg,
			 const uint8_t *buf, size_t n, struct flow_counts *c)
{
	struct etm4_flow_decoder *dec = NULL;
	size_t heap0 = bench_heap_in_use();
	int err;

	memset(c, 0, sizeof(*c));
	err = etm4_flow_alloc(&dec, cfg);
	if (err)
		return err;
	c->heap_after_alloc = bench_heap_in_use() - heap0;
	err = etm4_flow_feed(dec, buf, n, NULL, 0);
	if (!err)
		err = drain(dec, c);
	if (!err)
		err = etm4_flow_finish(dec);
	if (!err)
		err = drain(dec, c);
	c->heap_after_decode = bench_heap_in_use() - heap0;
	c->stats = *etm4_flow_get_stats(dec);
	etm4_flow_free(dec);
	return err;
}

/* Run @r of the timed decode of @in with @cfg: *@best keeps the fastest.
 * Returns 0, or -1 after reporting an error. */
static int timed_decode(const struct etm4_flow_config *cfg,
			const struct bench_input *in, int r, double *best,
			struct flow_counts *c)
{
	double t0 = bench_now();
	int err = etmkit_decode(cfg, in->buf, in->n, c);

	return bench_keep_best(WHO, err, bench_now() - t0, r, best);
}

static void print_rate(const char *who, double bytes, double secs,
		       uint64_t insns, const char *note)
{
	printf(WHO "  %-8s %7.1f MB  %8.1f MB/s  %8.2f Minsn/s  %8.1f ms%s\n",
	       who, bytes / MIB, bytes / MIB / secs, (double)insns / secs / 1e6,
	       secs * 1e3, note);
}

/* The image of @src's core, after bench_etm4_open(). */
static int load_image(const struct bench_etm4_source *src, struct program *p)
{
	struct image_diag idiag;

	if (image_alloc(&p->img) ||
	    image_add_snapshot_device(p->img, src->core, &idiag)) {
		fprintf(stderr, WHO ": image of %s: %s: %s\n", src->core->name,
			idiag.path, idiag.message);
		return -1;
	}
	for (size_t i = 0; i < image_region_count(p->img); i++)
		p->bytes += image_region_at(p->img, i)->length;
	return 0;
}

/* --dump: the timed input's bytes to @path. Returns 0 or -1 (message
 * printed). */
static int dump_input(const char *path, const struct bench_input *in)
{
	FILE *f = fopen(path, "wb");
	int bad = !f || fwrite(in->buf, 1, in->n, f) != in->n;

	if (f && fclose(f))
		bad = 1;
	if (bad)
		fprintf(stderr, WHO ": cannot write %s\n", path);
	return bad ? -1 : 0;
}

#ifdef ETMKIT_HAVE_OPENCSD
#endif

int main(int argc, char **argv)
{
	struct bench_options o;
	struct bench_input in;
	struct bench_etm4_source src;
	struct program prog = { 0 };
	struct etm4_flow_config cfg;
	struct etm4_flow_config cfg_ranges, *rcfg_p = &cfg_ranges;
	struct flow_counts one, two, total, rtotal;
	struct flow_options fo = { "juno_r1_1", NULL, 7u, { 0, 0, 0 } };
	struct bench_par_counts pref, ptot;
	const char *snap;
	unsigned forms;
	double best = 0.0, best_r = 0.0, best_p = 0.0;
	uint64_t per_copy;
	int status = 1, err;
#ifdef ETMKIT_HAVE_OPENCSD
	struct bytes *files = NULL;         /* the image's files, for */
	struct ocsd_mem_region *mem = NULL; /* OpenCSD's accessors */
	size_t nreg = 0;
#endif

	memset(&in, 0, sizeof(in));
	memset(&total, 0, sizeof(total));
	memset(&rtotal, 0, sizeof(rtotal));
	memset(&src, 0, sizeof(src));
	if (bench_parse_args("bench_etm4_flow", argc, argv, &o, 8.0,
			     flow_option, &fo, usage))
		return 2;
	snap = fo.snap;
	forms = fo.forms;
	if (bench_etm4_open(WHO, &src, o.shared, snap, o.id) ||
	    load_image(&src, &prog) ||
	    bench_etm4_input(WHO, &src, o.mb, &in))
		goto out;
	if (fo.dump && dump_input(fo.dump, &in))
		goto out;
	printf(WHO "  input    %s, %s, %s %u.%u, MAXSPEC %" PRIu32
	       ": %zu-byte copy x %zu = %.1f MB; image %zu region(s), %" PRIu64
	       " bytes (%s)\n", src.buf->file, src.what,
	       src.info.ete ? "ETE" : "ETMv4", src.info.major, src.info.minor,
	       src.info.maxspec, in.copy_len, in.copies, (double)in.n / MIB,
	       image_region_count(prog.img), prog.bytes, src.core->name);
	etm4_flow_config_init(&cfg);
	cfg.etm = src.cfg;
	cfg.image = prog.img;
	*rcfg_p = cfg;
	rcfg_p->flags |= ETM4_FLOW_RANGES;

	/* Untimed: one and two copies give what every further copy adds
	 * (the first copy starts unsynchronised, the others do not). */
	if ((err = etmkit_decode(&cfg, in.buf, in.copy_len, &one)) ||
	    (err = etmkit_decode(&cfg, in.buf, 2 * in.copy_len, &two))) {
		fprintf(stderr, WHO ": etmkit: %s\n", etmkit_errstr(err));
		goto out;
	}
	per_copy = two.insns - one.insns;
#ifdef ETMKIT_HAVE_OPENCSD
	uint64_t per_sum = two.checksum - one.checksum;
	struct ocsd_flow_counts oone, otwo, ototal;
	size_t ocopies = (size_t)(o.ocsd_mb * MIB / (double)in.copy_len);
	size_t on;
	double best_o = 0.0;
	uint64_t operc, opers;
	int a64;

	nreg = image_region_count(prog.img);
	files = calloc(nreg ? nreg : 1, sizeof(*files));
	mem = calloc(nreg ? nreg : 1, sizeof(*mem));
	if (!files || !mem) {
		fprintf(stderr, WHO ": out of memory\n");
		goto out;
	}
	if (bench_ocsd_regions(WHO, prog.img, files, mem))
		goto out;
	if (ocopies < 2)
		ocopies = 2;
	if (ocopies > in.copies)
		ocopies = in.copies;
	on = ocopies * in.copy_len;
	memset(&oone, 0, sizeof(oone));
	memset(&otwo, 0, sizeof(otwo));
	memset(&ototal, 0, sizeof(ototal));
	if ((forms & FORM_OPENCSD) &&
	    (ocsd_flow_peer_etm4(in.buf, in.copy_len, &src.cfg, src.id, mem,
				 nreg, &oone) ||
	     ocsd_flow_peer_etm4(in.buf, 2 * in.copy_len, &src.cfg, src.id,
				 mem, nreg, &otwo)))
		goto out;
	operc = otwo.insns - oone.insns;
	opers = otwo.addr_sum - oone.addr_sum;
	a64 = otwo.other_ranges == 0;
#endif
	/* The decoders take turns, so that both see the machine in the same
	 * state (clock speed, neighbours): the ratio of the bests is then
	 * steadier than the rates themselves. */
	for (int r = 0; r < o.runs; r++) {
		if (((forms & FORM_INSNS) &&
		     timed_decode(&cfg, &in, r, &best, &total)) ||
		    ((forms & FORM_RANGES) &&
		     timed_decode(rcfg_p, &in, r, &best_r, &rtotal)))
			goto out;
		if (fo.bp.jobs) {
			double t;

			err = bench_par_run(&fo.bp, NULL, &cfg, NULL, in.buf, in.n,
					    &ptot, &t);
			if (bench_keep_best(WHO, err, t, r, &best_p))
				goto out;
		}
#ifdef ETMKIT_HAVE_OPENCSD
		if (!(forms & FORM_OPENCSD))
			continue;
		double t0 = bench_now(), t;
		if (ocsd_flow_peer_etm4(in.buf, on, &src.cfg, src.id, mem, nreg,
					&ototal))
			goto out;
		t = bench_now() - t0;
		if (r == 0 || t < best_o)
			best_o = t;
#endif
	}
	{
		char note[320];

		snprintf(note, sizeof(note), "  best of %d; %" PRIu64
			 " insns/copy, %" PRIu64 " gaps, %" PRIu64
			 " no_image, %" PRIu64 " atoms lost, %" PRIu64
			 " protocol errors; heap %zu KiB after alloc, %zu KiB "
			 "after decoding", o.runs, per_copy, total.gaps,
			 total.no_image, total.stats.atoms_lost,
			 total.stats.protocol_errors,
			 total.heap_after_alloc / 1024,
			 total.heap_after_decode / 1024);
		if (forms & FORM_INSNS)
			print_rate("etmkit", (double)in.n, best, total.insns,
				   note);
		if (forms & FORM_INSNS)
			snprintf(note, sizeof(note), "  best of %d; "
				 "ETM4_FLOW_RANGES: %" PRIu64 " insn_range "
				 "elements for the same instructions", o.runs,
				 rtotal.elems - total.elems + total.insns);
		else
			snprintf(note, sizeof(note), "  best of %d; "
				 "ETM4_FLOW_RANGES: %" PRIu64 " elements",
				 o.runs, rtotal.elems);
		if (forms & FORM_RANGES)
			print_rate("etmkit-ranges", (double)in.n, best_r,
				   rtotal.insns, note);
	}
	status = 0;
	if (fo.bp.jobs) {
		if ((err = bench_par_serial(NULL, &cfg, NULL, in.buf, in.n, &pref))) {
			fprintf(stderr, WHO ": etmkit: %s\n", etmkit_errstr(err));
			status = 1;
			goto out;
		}
		status |= bench_par_report(WHO, &fo.bp, (double)in.n, best_p,
					   &ptot, &pref, o.runs);
	}
	/* --forms without insns: the ranges stand for them below. */
	if (!(forms & FORM_INSNS))
		total = rtotal;
	else if (!(forms & FORM_RANGES))
		rtotal = total;
	/* The same instructions, and (as far as the sums are exact: no T32)
	 * the same addresses. */
	if (rtotal.insns != total.insns || rtotal.stats.insns != total.insns ||
	    (!rtotal.thumb && rtotal.checksum != total.checksum)) {
		printf(WHO "  MISMATCH: ranges decode %" PRIu64 " instructions "
		       "(sum 0x%" PRIx64 "), insn elements %" PRIu64 " (sum 0x%"
		       PRIx64 ")\n", rtotal.insns, rtotal.checksum, total.insns,
		       total.checksum);
		status = 1;
	}
	if (total.insns != one.insns + per_copy * (in.copies - 1)) {
		printf(WHO "  MISMATCH: etmkit decoded %" PRIu64 " instructions, "
		       "expected %" PRIu64 "\n", total.insns,
		       one.insns + per_copy * (in.copies - 1));
		status = 1;
	}
	if (total.heap_after_decode != total.heap_after_alloc) {
		printf(WHO "  MISMATCH: the heap grew while decoding (%zu bytes "
		       "after alloc, %zu after decoding)\n",
		       total.heap_after_alloc, total.heap_after_decode);
		status = 1;
	}
#ifdef ETMKIT_HAVE_OPENCSD
	if (!(forms & FORM_OPENCSD))
		goto out;
	if (!(forms & FORM_INSNS))
		best = best_r;
	if (!(forms & FORM_RANGES))
		best_r = best;
	{
		char note[128];

		snprintf(note, sizeof(note), "  best of %d; OpenCSD full decode; "
			 "the first copies only (--ocsd-mb)", o.runs);
		print_rate("opencsd", (double)on, best_o, ototal.insns, note);
	}
	if (forms & FORM_INSNS)
		printf(WHO "  ratio    %.1fx  (etmkit / opencsd, instructions "
		       "per second)\n", ((double)total.insns / best) /
					 ((double)ototal.insns / best_o));
	if (forms & FORM_RANGES)
		printf(WHO "  ratio    %.1fx  (etmkit-ranges / opencsd: ranges "
		       "on both sides)\n", ((double)rtotal.insns / best_r) /
					    ((double)ototal.insns / best_o));
	if (fo.bp.jobs)
		printf(WHO "  ratio    %.1fx  (etmkit-ranges-j%u / opencsd: ranges "
		       "on both sides)\n", ((double)ptot.insns / best_p) /
			((double)ototal.insns / best_o), fo.bp.jobs);
	if (ototal.insns != oone.insns + operc * (ocopies - 1)) {
		printf(WHO "  MISMATCH: opencsd decoded %" PRIu64 " instructions, "
		       "expected %" PRIu64 "\n", ototal.insns,
		       oone.insns + operc * (ocopies - 1));
		status = 1;
	}
	if (oone.insns != one.insns || operc != per_copy) {
		printf(WHO "  MISMATCH: instructions in one copy: etmkit %" PRIu64
		       ", opencsd %" PRIu64 "; per further copy: etmkit %" PRIu64
		       ", opencsd %" PRIu64 "\n", one.insns, oone.insns, per_copy,
		       operc);
		status = 1;
	} else if (a64 && (oone.addr_sum != one.checksum || opers != per_sum)) {
		/* Same counts: with every range A64, the addresses too. */
		printf(WHO "  MISMATCH: instruction address sums: one copy "
		       "etmkit 0x%" PRIx64 ", opencsd 0x%" PRIx64 "; per further "
		       "copy etmkit 0x%" PRIx64 ", opencsd 0x%" PRIx64 "\n",
		       one.checksum, oone.addr_sum, per_sum, opers);
		status = 1;
	} else {
		printf(WHO "  insns    match: %" PRIu64 " in the first copy, %"
		       PRIu64 " per further copy%s\n", one.insns, per_copy,
		       a64 ? "; their address sums too (every OpenCSD range "
			     "A64)" : "; addresses not compared (ranges not "
				      "all A64)");
	}
#else
	printf(WHO "  opencsd  not built (install libopencsd-dev and "
	       "reconfigure)\n");
#endif
out:
#ifdef ETMKIT_HAVE_OPENCSD
	if (files)
		for (size_t i = 0; i < nreg; i++)
			free(files[i].data);
	free(files);
	free(mem);
#endif
	image_free(prog.img);
	bench_etm4_close(&src);
	bench_input_free(&in);
	return status;
}
