/* bench_corpus: etmkit's and OpenCSD's full decode of one large trace
 * snapshot, as it is, in the same run.
 *
 * Input: a snapshot with one ETMv3, ETMv4 or ETE trace source (the corpora
 * bench/corpus.sh builds with `etmkit encode` from real program runs, or
 * any other). The source's bytes are taken out of their CoreSight frames
 * once, untimed, and decoded whole, from memory, by each decoder in turn:
 * etmkit's flow decoder (instruction ranges, the form of OpenCSD's
 * output, and one element per instruction) and OpenCSD's full
 * decoder with the same program image (the snapshot's dumps) as memory
 * buffers. Both must report the same number of instructions.
 *
 * Reported per decoder: MB of trace, MB/s, millions of instructions per
 * second, and the decoder's heap (glibc mallinfo2: bytes in use after
 * allocation and at the end of decoding), which must not depend on the
 * length of the trace.
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

#define WHO "corpus"

struct counts {
	uint64_t insns, elems, gaps, no_image;
	size_t heap_alloc, heap_end;
};

struct source {
	struct snapshot *ss;
	const struct snapshot_device *dev, *core;
	const struct snapshot_buffer *buf;
	enum etmkit_protocol proto;
	struct etm3_config etm3;
	struct etm4_config etm4;
	uint8_t id;
	struct bytes stream;   /* the source's bytes, out of their frames */
	struct image *img;
};

static void tally(const struct etmkit_elem *el, int n, struct counts *c)
{
	for (int i = 0; i < n; i++) {
		const struct etmkit_elem *e = &el[i];

		if (e->kind == etmkit_elem_insn)
			c->insns++;
		else if (e->kind == etmkit_elem_insn_range)
			c->insns += e->u.range.count;
		else if (e->kind == etmkit_elem_gap)
			c->gaps++;
		else if (e->kind == etmkit_elem_no_image)
			c->no_image++;
	}
	c->elems += (uint64_t)n;
}

static int decode_etm3(const struct source *s, uint32_t flags,
		       struct counts *c)
{
	struct etm3_flow_config cfg;
	struct etm3_flow_decoder *dec = NULL;
	const struct etmkit_elem *el;
	size_t heap0 = bench_heap_in_use();
	int err, n;

	etm3_flow_config_init(&cfg);
	cfg.etm = s->etm3;
	cfg.image = s->img;
	cfg.flags |= flags;
	err = etm3_flow_alloc(&dec, &cfg);
	if (err)
		return err;
	c->heap_alloc = bench_heap_in_use() - heap0;
	err = etm3_flow_feed(dec, s->stream.data, s->stream.n, NULL, 0);
	for (int round = 0; !err && round < 2; round++) {
		while ((n = etm3_flow_batch(dec, &el)) > 0)
			tally(el, n, c);
		err = n == -etmkit_err_eos ? 0 : n;
		if (!err && round == 0)
			err = etm3_flow_finish(dec);
	}
	c->heap_end = bench_heap_in_use() - heap0;
	etm3_flow_free(dec);
	return err;
}

static int decode_etm4(const struct source *s, uint32_t flags,
		       struct counts *c)
{
	struct etm4_flow_config cfg;
	struct etm4_flow_decoder *dec = NULL;
	const struct etmkit_elem *el;
	size_t heap0 = bench_heap_in_use();
	int err, n;

	etm4_flow_config_init(&cfg);
	cfg.etm = s->etm4;
	cfg.image = s->img;
	cfg.flags |= flags;
	err = etm4_flow_alloc(&dec, &cfg);
	if (err)
		return err;
	c->heap_alloc = bench_heap_in_use() - heap0;
	err = etm4_flow_feed(dec, s->stream.data, s->stream.n, NULL, 0);
	for (int round = 0; !err && round < 2; round++) {
		while ((n = etm4_flow_batch(dec, &el)) > 0)
			tally(el, n, c);
		err = n == -etmkit_err_eos ? 0 : n;
		if (!err && round == 0)
			err = etm4_flow_finish(dec);
	}
	c->heap_end = bench_heap_in_use() - heap0;
	etm4_flow_free(dec);
	return err;
}

/* Timed: one whole decode of @s by etmkit in @form (0 per instruction,
 * 1 ranges). */
/* One function per protocol and form, kept out of line so that callgrind
 * can count one of them alone: `--toggle-collect=decode_etm3_ranges`
 * (or decode_etm3_insns, decode_etm4_ranges, decode_etm4_insns). */
static __attribute__((noinline)) int decode_etm3_ranges(
	const struct source *s, struct counts *c)
{
	return decode_etm3(s, ETM3_FLOW_RANGES, c);
}

static __attribute__((noinline)) int decode_etm3_insns(
	const struct source *s, struct counts *c)
{
	return decode_etm3(s, 0, c);
}

static __attribute__((noinline)) int decode_etm4_ranges(
	const struct source *s, struct counts *c)
{
	return decode_etm4(s, ETM4_FLOW_RANGES, c);
}

static __attribute__((noinline)) int decode_etm4_insns(
	const struct source *s, struct counts *c)
{
	return decode_etm4(s, 0, c);
}

static int etmkit_decode(const struct source *s, int form, struct counts *c)
{
	memset(c, 0, sizeof(*c));
	if (s->proto == etmkit_proto_etmv3)
		return form ? decode_etm3_ranges(s, c) : decode_etm3_insns(s, c);
	return form ? decode_etm4_ranges(s, c) : decode_etm4_insns(s, c);
}

static void print_rate(const char *who, double bytes, double secs,
		       uint64_t insns, const char *note)
{
	printf(WHO "  %-14s %8.1f MB  %8.1f MB/s  %8.2f Minsn/s  %9.1f ms%s\n",
	       who, bytes / MIB, bytes / MIB / secs, (double)insns / secs / 1e6,
	       secs * 1e3, note);
}

/* The one trace source of the snapshot in @dir, its stream and image. */
static int open_source(const char *dir, struct source *s)
{
	struct snapshot_diag diag;
	struct image_diag idiag;
	struct bytes file = { 0 };
	const struct snapshot_source *src;
	char path[4200];
	int err;

	if (snapshot_open(&s->ss, dir, &diag)) {
		bench_print_diag(WHO, &diag);
		return -1;
	}
	if (snapshot_source_count(s->ss) != 1) {
		fprintf(stderr, WHO ": %s: expected one trace source, found "
			"%zu\n", dir, snapshot_source_count(s->ss));
		return -1;
	}
	src = snapshot_source_at(s->ss, 0);
	s->dev = snapshot_find_device(s->ss, src->name);
	s->buf = snapshot_find_buffer(s->ss, src->buffer);
	s->core = src->core ? snapshot_find_device(s->ss, src->core) : NULL;
	if (!s->dev || !s->buf || !s->core) {
		fprintf(stderr, WHO ": %s: the source needs its device, buffer "
			"and core\n", dir);
		return -1;
	}
	s->proto = snapshot_device_protocol(s->dev);
	if (s->proto == etmkit_proto_etmv3)
		err = snapshot_etm3_config(s->dev, &s->etm3, &s->id, &diag);
	else if (s->proto == etmkit_proto_etmv4 || s->proto == etmkit_proto_ete)
		err = snapshot_etm4_config(s->dev, &s->etm4, &s->id, &diag);
	else {
		fprintf(stderr, WHO ": %s: %s is not ETMv3, ETMv4 or ETE\n",
			dir, s->dev->name);
		return -1;
	}
	if (err) {
		bench_print_diag(WHO, &diag);
		return -1;
	}
	snprintf(path, sizeof(path), "%s", s->buf->file);
	if (bench_read_file(WHO, path, &file))
		return -1;
	if (!strcmp(s->buf->format, "coresight")) {
		err = bench_deformat_id(WHO, &file, s->id, &s->stream);
		free(file.data);
		if (err)
			return -1;
	} else {
		s->stream = file;
	}
	if (image_alloc(&s->img) ||
	    image_add_snapshot_device(s->img, s->core, &idiag)) {
		fprintf(stderr, WHO ": image of %s: %s: %s\n", s->core->name,
			idiag.path, idiag.message);
		return -1;
	}
	return 0;
}

#ifdef ETMKIT_HAVE_OPENCSD

static int ocsd_decode(const struct source *s,
		       const struct ocsd_mem_region *mem, size_t nmem,
		       struct ocsd_flow_counts *c)
{
	if (s->proto == etmkit_proto_etmv3)
		return ocsd_flow_peer_etm3(s->stream.data, s->stream.n,
					   s->etm3.etmcr, s->etm3.etmidr,
					   s->etm3.etmccer, s->id, mem, nmem, c);
	return ocsd_flow_peer_etm4(s->stream.data, s->stream.n, &s->etm4,
				   s->id, mem, nmem, c);
}
#endif

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_corpus --snapshot DIR [--runs N] [--no-ocsd] "
		"[--jobs N] [--piece-kb K]\n"
		"       [--session split|worker]\n"
		"  --snapshot DIR  a snapshot with one ETMv3, ETMv4 or ETE source\n"
		"  --runs N        timed runs per decoder, best kept (default 3)\n"
		"  --no-ocsd       etmkit only\n"
		"  --jobs N        also the parallel decode (parallel.h), ranges "
		"form, N threads\n"
		"  --piece-kb K    its piece size (default 32)\n"
		"  --session M     time it through a session (session.h) instead:\n"
		"                    split: split_source; worker: one worker\n");
}

int main(int argc, char **argv)
{
	struct source s;
	const char *dir = NULL;
	struct counts c[2], best_c[2];
	double best[2] = { 0, 0 };
	int forms, runs = 3, no_ocsd = 0, status = 1;
	struct bench_par bp = { 0, 0, 0 };
	struct bench_par_counts pref, ptot;
	struct etm3_flow_config p3;
	struct etm4_flow_config p4;
	double best_p = 0;

	memset(&s, 0, sizeof(s));
	for (int i = 1; i < argc; i++) {
		unsigned long v;

		if (!strcmp(argv[i], "--snapshot") && i + 1 < argc) {
			dir = argv[++i];
		} else if (!strcmp(argv[i], "--runs") && i + 1 < argc &&
			   !bench_parse_ulong(argv[++i], 1000, &v) && v) {
			runs = (int)v;
		} else if (!strcmp(argv[i], "--no-ocsd")) {
			no_ocsd = 1;
		} else if (i + 1 < argc &&
			   bench_par_option(&bp, argv[i], argv[i + 1]) == 1) {
			i++;
		} else {
			usage(stderr);
			return 2;
		}
	}
	(void)no_ocsd; /* read only with the OpenCSD peer */
	if (!dir) {
		usage(stderr);
		return 2;
	}
	if (open_source(dir, &s))
		goto out;
	forms = 2;
	printf(WHO "  input    %s: %s, %s, ID 0x%02x: %.1f MB of trace (%zu "
	       "bytes); image %zu regions\n", dir, s.dev->name, s.dev->type,
	       s.id, (double)s.stream.n / MIB, s.stream.n,
	       image_region_count(s.img));
#ifdef ETMKIT_HAVE_OPENCSD
	size_t nmem = image_region_count(s.img);
	struct bytes *files = calloc(nmem + 1, sizeof(*files));
	struct ocsd_mem_region *mem = calloc(nmem + 1, sizeof(*mem));
	struct ocsd_flow_counts oc, best_oc = { 0 };
	double best_o = 0;

	if (!files || !mem || bench_ocsd_regions(WHO, s.img, files, mem))
		goto out_ocsd;
#endif
	etm3_flow_config_init(&p3);
	p3.etm = s.etm3;
	p3.image = s.img;
	etm4_flow_config_init(&p4);
	p4.etm = s.etm4;
	p4.image = s.img;
	/* The decoders take turns, so that both see the machine alike. */
	for (int r = 0; r < runs; r++) {
		if (bp.jobs) {
			double t;
			int err = bench_par_run(&bp, s.proto == etmkit_proto_etmv3 ?
						&p3 : NULL,
						s.proto == etmkit_proto_etmv3 ?
						NULL : &p4, NULL, s.stream.data,
						s.stream.n, &ptot, &t);

			if (bench_keep_best(WHO, err, t, r, &best_p))
				goto out_ocsd;
		}
		for (int f = 0; f < forms; f++) {
			double t0 = bench_now();
			int err = etmkit_decode(&s, f, &c[f]);

			if (bench_keep_best(WHO, err, bench_now() - t0, r,
					    &best[f]))
				goto out_ocsd;
			best_c[f] = c[f];
		}
#ifdef ETMKIT_HAVE_OPENCSD
		if (!no_ocsd) {
			double t0 = bench_now(), t;

			if (ocsd_decode(&s, mem, nmem, &oc))
				goto out_ocsd;
			t = bench_now() - t0;
			if (r == 0 || t < best_o)
				best_o = t;
			best_oc = oc;
		}
#endif
	}
	for (int f = 0; f < forms; f++) {
		char note[200];

		snprintf(note, sizeof(note), "  best of %d; %" PRIu64 " gaps, %"
			 PRIu64 " no_image; heap %zu KiB after alloc, %zu KiB "
			 "at the end", runs, best_c[f].gaps, best_c[f].no_image,
			 best_c[f].heap_alloc / 1024, best_c[f].heap_end / 1024);
		print_rate(f ? "etmkit-ranges" : "etmkit-insn",
			   (double)s.stream.n, best[f], best_c[f].insns, note);
	}
	status = 0;
	if (bp.jobs) {
		int err = bench_par_serial(s.proto == etmkit_proto_etmv3 ? &p3 : NULL,
					   s.proto == etmkit_proto_etmv3 ? NULL : &p4,
					   NULL, s.stream.data, s.stream.n, &pref);

		if (err) {
			fprintf(stderr, WHO ": etmkit: %s\n", etmkit_errstr(err));
			status = 1;
			goto out_ocsd;
		}
		status |= bench_par_report(WHO, &bp, (double)s.stream.n, best_p,
					   &ptot, &pref, runs);
	}
	if (best_c[0].insns != best_c[1].insns) {
		printf(WHO "  MISMATCH: per instruction %" PRIu64 ", ranges %"
		       PRIu64 " instructions\n", best_c[0].insns,
		       best_c[1].insns);
		status = 1;
	}
#ifdef ETMKIT_HAVE_OPENCSD
	if (!no_ocsd) {
		double orate = (double)best_oc.insns / best_o;

		print_rate("opencsd", (double)s.stream.n, best_o, best_oc.insns,
			   "  OpenCSD 1.3.3 full decode, image as memory buffers");
		for (int f = 0; f < forms; f++)
			printf(WHO "  ratio    %.1fx  (%s / opencsd, instructions "
			       "per second)\n",
			       (double)best_c[f].insns / best[f] / orate,
			       f ? "etmkit-ranges" : "etmkit-insn");
		if (bp.jobs)
			printf(WHO "  ratio    %.1fx  (etmkit-ranges-j%u / opencsd, "
			       "instructions per second)\n",
			       (double)ptot.insns / best_p / orate, bp.jobs);
		if (best_oc.insns != best_c[0].insns) {
			printf(WHO "  MISMATCH: etmkit %" PRIu64 " instructions, "
			       "opencsd %" PRIu64 "\n", best_c[0].insns,
			       best_oc.insns);
			status = 1;
		} else {
			printf(WHO "  insns    match: %" PRIu64 "\n",
			       best_oc.insns);
		}
	}
#endif
out_ocsd:
#ifdef ETMKIT_HAVE_OPENCSD
	for (size_t i = 0; files && i < nmem; i++)
		free(files[i].data);
	free(files);
	free(mem);
#endif
out:
	image_free(s.img);
	free(s.stream.data);
	snapshot_free(s.ss);
	return status;
}
