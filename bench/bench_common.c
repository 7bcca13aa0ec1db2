/* bench: shared helpers (see bench_common.h). */
#define _GNU_SOURCE /* mallinfo2 */

#include "bench_common.h"
#include "ocsd_flow_peer.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "etmkit/image.h"
#include "etmkit/transport.h"

static const uint8_t a_sync3[6] = { 0x00, 0x00, 0x00, 0x00, 0x00, 0x80 };
static const uint8_t a_sync4[12] = { 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
				     0x00, 0x00, 0x00, 0x00, 0x00, 0x80 };
const struct bench_sync bench_sync_etm3 = { a_sync3, sizeof(a_sync3) };
const struct bench_sync bench_sync_etm4 = { a_sync4, sizeof(a_sync4) };

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

size_t bench_heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

int bench_regs_option(void *ctx, const char *a, const char *val)
{
	struct bench_regs *r = ctx;
	uint32_t *dst = !strcmp(a, "--etmcr")   ? &r->etmcr :
			!strcmp(a, "--etmidr") ? &r->etmidr :
			!strcmp(a, "--etmccer") ? &r->etmccer : NULL;
	unsigned long v;

	if (!dst)
		return 0;
	if (bench_parse_ulong(val, 0xffffffffu, &v))
		return -1;
	*dst = (uint32_t)v;
	return 1;
}

uint64_t bench_next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int bench_parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

int bench_parse_mb(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0.0) || v > 65536.0)
		return -1;
	*out = v;
	return 0;
}

int bench_parse_args(const char *who, int argc, char **argv,
		     struct bench_options *o, double ocsd_mb,
		     bench_option_fn extra, void *ctx, void (*usage)(FILE *f))
{
	const char *env = getenv("ETMKIT_SHARED");
	unsigned long v = 0;

	o->shared = env && *env ? env : ETMKIT_BENCH_SHARED_DIR;
	o->id = 0x10;
	o->mb = 128.0;
	o->ocsd_mb = ocsd_mb;
	o->runs = 3;
	for (int i = 1; i < argc; i += 2) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		int bad = 0;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		}
		if (!val) {
			fprintf(stderr, "%s: %s needs a value\n", who, a);
			return -1;
		}
		if (!strcmp(a, "--shared")) {
			o->shared = val;
		} else if (!strcmp(a, "--id")) {
			bad = bench_parse_ulong(val, 0x6f, &v) || v == 0;
			o->id = (unsigned)v;
		} else if (!strcmp(a, "--mb")) {
			bad = bench_parse_mb(val, &o->mb);
		} else if (!strcmp(a, "--ocsd-mb")) {
			bad = bench_parse_mb(val, &o->ocsd_mb);
		} else if (!strcmp(a, "--runs")) {
			bad = bench_parse_ulong(val, 100, &v) || v == 0;
			o->runs = (int)v;
		} else {
			int r = extra ? extra(ctx, a, val) : 0;

			if (r == 0) {
				fprintf(stderr, "%s: unknown option %s\n", who,
					a);
				usage(stderr);
				return -1;
			}
			bad = r < 0;
		}
		if (bad) {
			fprintf(stderr, "%s: bad value for %s: %s\n", who, a,
				val);
			return -1;
		}
	}
	return 0;
}

static void lookup_usage(FILE *f, const char *name)
{
	fprintf(f, "usage: %s [--file ELF] [--lookups N] [--runs N]\n", name);
}

int bench_lookup_args(const char *name, int argc, char **argv,
		      struct bench_lookup_options *o)
{
	o->file = "/proc/self/exe";
	o->lookups = 4000000;
	o->runs = 3;
	for (int i = 1; i < argc; i += 2) { /* an option and its value */
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			lookup_usage(stdout, name);
			exit(0);
		}
		if (v && !strcmp(argv[i], "--file"))
			o->file = v;
		else if (!v || (strcmp(argv[i], "--lookups") &&
				strcmp(argv[i], "--runs")) ||
			 bench_parse_ulong(v, 1ul << 30, argv[i][2] == 'l' ?
					   &o->lookups : &o->runs) < 0 ||
			 o->lookups == 0 || o->runs == 0) {
			lookup_usage(stderr, name);
			return -1;
		}
	}
	return 0;
}

int bench_bytes_append(struct bytes *b, const uint8_t *data, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *p;

		while (cap < b->n + n)
			cap *= 2;
		p = realloc(b->data, cap);
		if (!p)
			return -1;
		b->data = p;
		b->cap = cap;
	}
	memcpy(b->data + b->n, data, n);
	b->n += n;
	return 0;
}

int bench_read_file(const char *who, const char *path, struct bytes *out)
{
	uint8_t chunk[65536];
	FILE *f = fopen(path, "rb");
	size_t got;

	if (!f) {
		fprintf(stderr, "%s: cannot open %s: %s\n", who, path,
			strerror(errno));
		return -1;
	}
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (bench_bytes_append(out, chunk, got)) {
			fclose(f);
			fprintf(stderr, "%s: out of memory\n", who);
			return -1;
		}
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: error reading %s\n", who, path);
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

struct collect {
	uint8_t id;
	struct bytes out;
};

static int collect_id(void *ctx, uint8_t id, const uint8_t *data,
		      const uint64_t *offsets, uint64_t base, size_t n)
{
	struct collect *c = ctx;

	(void)offsets;
	(void)base;
	if (id != c->id)
		return 0;
	return bench_bytes_append(&c->out, data, n) ? -etmkit_err_nomem : 0;
}

int bench_deformat_id(const char *who, const struct bytes *file, uint8_t id,
		       struct bytes *out)
{
	struct deformat_config cfg;
	struct deformatter *d = NULL;
	struct collect c;
	int err;

	memset(&c, 0, sizeof(c));
	c.id = id;
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.mode = deformat_coresight;
	cfg.on_data = collect_id;
	cfg.ctx = &c;
	err = deformat_alloc(&d, &cfg);
	if (!err)
		err = deformat_feed(d, file->data, file->n);
	if (!err)
		err = deformat_finish(d);
	deformat_free(d);
	if (err) {
		fprintf(stderr, "%s: deformat: %s\n", who, etmkit_errstr(err));
		free(c.out.data);
		return -1;
	}
	*out = c.out;
	return 0;
}

static size_t find_a_sync(const struct bench_sync *sync, const uint8_t *p,
			  size_t n, size_t from)
{
	size_t i;

	for (i = from; i + sync->n <= n; i++)
		if (!memcmp(p + i, sync->bytes, sync->n))
			return i;
	return (size_t)-1;
}

int bench_input_cut(const char *who, const char *what, const uint8_t *stream,
		    size_t n, const struct bench_sync *sync, double mb,
		    struct bench_input *in)
{
	memset(in, 0, sizeof(*in));
	in->stream_len = n;
	/* One copy = [first A-sync, last A-sync): it starts synchronised and
	 * ends where a packet (the last A-sync) starts. */
	in->first = find_a_sync(sync, stream, n, 0);
	if (in->first == (size_t)-1) {
		fprintf(stderr, "%s: no A-sync in the %zu bytes of %s\n", who,
			n, what);
		return -1;
	}
	in->last = in->first;
	for (size_t at = in->first; at != (size_t)-1;
	     at = find_a_sync(sync, stream, n, at + 1))
		in->last = at;
	if (in->last == in->first) {
		/* Only one A-sync: the copy ends wherever the capture does,
		 * maybe inside a packet; the next copy's A-sync then
		 * resynchronises, but counts may differ. */
		in->copy_len = n - in->first;
		printf("%s  note: %s has one A-sync; copies end where the "
		       "capture ends (maybe mid-packet)\n", who, what);
	} else {
		in->copy_len = in->last - in->first;
	}
	in->copies = (size_t)(mb * MIB / (double)in->copy_len);
	if ((double)in->copies * (double)in->copy_len < mb * MIB)
		in->copies++;
	in->n = in->copies * in->copy_len;
	in->buf = malloc(in->n);
	if (!in->buf) {
		fprintf(stderr, "%s: out of memory (%zu bytes)\n", who, in->n);
		return -1;
	}
	for (size_t i = 0; i < in->copies; i++)
		memcpy(in->buf + i * in->copy_len, stream + in->first,
		       in->copy_len);
	return 0;
}

int bench_input_build(const char *who, const char *path, uint8_t id,
		      double mb, struct bench_input *in)
{
	struct bytes file = { 0 }, stream = { 0 };
	char what[32];
	int ret = -1;

	memset(in, 0, sizeof(*in));
	if (bench_read_file(who, path, &file) ||
	    bench_deformat_id(who, &file, id, &stream))
		goto out;
	snprintf(what, sizeof(what), "ID 0x%02x", id);
	ret = bench_input_cut(who, what, stream.data, stream.n,
			      &bench_sync_etm3, mb, in);
out:
	free(stream.data);
	free(file.data);
	return ret;
}

void bench_input_free(struct bench_input *in)
{
	free(in->buf);
	in->buf = NULL;
}

/* ---- ETMv4/ETE snapshot sources ---------------------------------------- */

/* The snapshots --snapshot names, under <shared>/testdata. */
static const struct {
	const char *name, *dir;
} snapshots[] = {
	{ "juno_r1_1", "etmv4/juno_r1_1" }, /* ETMv4.0, Cortex-A53, framed */
	{ "tme_test", "ete/tme_test" },      /* ETE 1.0, raw source_data */
};

int bench_snapshot_option(void *ctx, const char *a, const char *val)
{
	if (strcmp(a, "--snapshot"))
		return 0;
	*(const char **)ctx = val;
	return 1;
}

void bench_print_diag(const char *who, const struct snapshot_diag *d)
{
	if (d->line)
		fprintf(stderr, "%s: %s:%d: %s\n", who, d->path, d->line,
			d->message);
	else
		fprintf(stderr, "%s: %s: %s\n", who, d->path, d->message);
}

/* Take source @src of @s->ss if it is ETMv4/ETE in a raw buffer, or in a
 * framed one under @id: 1 taken, 0 not, -1 error (message printed). */
static int take_source(const char *who, struct bench_etm4_source *s,
		       const struct snapshot_source *src, unsigned id)
{
	const struct snapshot_device *dev =
		snapshot_find_device(s->ss, src->name);
	const struct snapshot_buffer *b =
		snapshot_find_buffer(s->ss, src->buffer);
	struct snapshot_diag diag;
	enum etmkit_protocol p;

	if (!dev || !b)
		return 0;
	p = snapshot_device_protocol(dev);
	if (p != etmkit_proto_etmv4 && p != etmkit_proto_ete)
		return 0;
	if (snapshot_etm4_config(dev, &s->cfg, &s->id, &diag)) {
		bench_print_diag(who, &diag);
		return -1;
	}
	s->framed = !strcmp(b->format, "coresight");
	if (!s->framed && strcmp(b->format, "source_data"))
		return 0; /* dstream_coresight: not read here */
	if (s->framed && s->id != id)
		return 0;
	s->core = src->core ? snapshot_find_device(s->ss, src->core) : NULL;
	if (!s->core) {
		fprintf(stderr, "%s: %s: source %s names no core device\n",
			who, s->dir, src->name);
		return -1;
	}
	s->dev = dev;
	s->buf = b;
	return 1;
}

/* The first source take_source() takes. Returns 0 or -1. */
static int find_source(const char *who, struct bench_etm4_source *s,
		       unsigned id)
{
	for (size_t i = 0; i < snapshot_source_count(s->ss); i++) {
		int r = take_source(who, s, snapshot_source_at(s->ss, i), id);

		if (r)
			return r < 0 ? -1 : 0;
	}
	fprintf(stderr, "%s: %s: no ETMv4 or ETE source in a coresight "
		"buffer under ID 0x%02x, nor in a source_data buffer\n", who,
		s->dir, id);
	return -1;
}

/* @s->dir for snapshot @name. Returns 0 or -1 (message printed). */
static int snapshot_dir(const char *who, struct bench_etm4_source *s,
			const char *shared, const char *name)
{
	const size_t count = sizeof(snapshots) / sizeof(snapshots[0]);
	size_t i;

	if (strchr(name, '/')) {
		snprintf(s->dir, sizeof(s->dir), "%s", name);
		return 0;
	}
	for (i = 0; i < count; i++)
		if (!strcmp(name, snapshots[i].name))
			break;
	if (i == count) {
		fprintf(stderr, "%s: unknown snapshot %s (juno_r1_1, "
			"tme_test, or a folder)\n", who, name);
		return -1;
	}
	snprintf(s->dir, sizeof(s->dir), "%s/testdata/%s", shared,
		 snapshots[i].dir);
	return 0;
}

int bench_etm4_open(const char *who, struct bench_etm4_source *s,
		    const char *shared, const char *name, unsigned id)
{
	struct snapshot_diag diag;
	int err;

	memset(s, 0, sizeof(*s));
	if (snapshot_dir(who, s, shared, name))
		return -1;
	if (snapshot_open(&s->ss, s->dir, &diag)) {
		bench_print_diag(who, &diag);
		return -1;
	}
	if (find_source(who, s, id))
		return -1;
	if ((err = etm4_config_decode(&s->cfg, &s->info))) {
		fprintf(stderr, "%s: %s: registers of %s: %s\n", who, s->dir,
			s->dev->name, etmkit_errstr(err));
		return -1;
	}
	if (s->framed)
		snprintf(s->what, sizeof(s->what), "%s, ID 0x%02x",
			 s->dev->name, s->id);
	else
		snprintf(s->what, sizeof(s->what), "%s (source_data)",
			 s->dev->name);
	return 0;
}

int bench_etm4_input(const char *who, const struct bench_etm4_source *s,
		     double mb, struct bench_input *in)
{
	struct bytes file = { 0 }, stream = { 0 };
	int ret;

	memset(in, 0, sizeof(*in));
	if (bench_read_file(who, s->buf->file, &file)) {
		free(file.data);
		return -1;
	}
	if (s->framed) {
		ret = bench_deformat_id(who, &file, s->id, &stream);
		free(file.data);
		if (ret)
			return -1;
	} else {
		stream = file;
	}
	ret = bench_input_cut(who, s->what, stream.data, stream.n,
			      &bench_sync_etm4, mb, in);
	free(stream.data);
	return ret;
}

void bench_etm4_close(struct bench_etm4_source *s)
{
	snapshot_free(s->ss);
	s->ss = NULL;
}

void bench_etm4_usage(FILE *f, const char *who, const char *ocsd_default)
{
	fprintf(f,
		"usage: %s [--snapshot NAME|DIR] [--shared DIR] "
		"[--id ID] [--mb N] [--ocsd-mb N] [--runs N]\n"
		"  --snapshot X  juno_r1_1 (ETMv4, default) or tme_test (ETE),"
		" under\n"
		"                DIR/testdata; or a snapshot folder (X with a"
		" '/')\n"
		"  --shared DIR  folder holding testdata/ (default: $ETMKIT_SHARED,"
		" else %s)\n"
		"  --id ID       trace ID of a framed buffer's source (default"
		" 0x10)\n"
		"  --mb N        MiB of repeated trace for etmkit (default 128)\n"
		"  --ocsd-mb N   MiB for OpenCSD (default %s)\n"
		"  --runs N      timed runs per decoder, best kept (default 3)\n",
		who, ETMKIT_BENCH_SHARED_DIR, ocsd_default);
}

int bench_keep_best(const char *who, int err, double secs, int r,
		    double *best)
{
	if (err) {
		fprintf(stderr, "%s: etmkit: %s\n", who, etmkit_errstr(err));
		return -1;
	}
	if (r == 0 || secs < *best)
		*best = secs;
	return 0;
}

int bench_ocsd_regions(const char *who, const struct image *img,
		       struct bytes *files, struct ocsd_mem_region *mem)
{
	for (size_t i = 0; i < image_region_count(img); i++) {
		const struct image_region *r = image_region_at(img, i);

		if (!r->path || r->length > UINT32_MAX) {
			fprintf(stderr, "%s: image region %zu cannot be given "
				"to OpenCSD\n", who, i);
			return -1;
		}
		if (bench_read_file(who, r->path, &files[i]))
			return -1;
		if (r->offset > files[i].n ||
		    r->length > files[i].n - r->offset) {
			fprintf(stderr, "%s: %s changed under the bench\n", who,
				r->path);
			return -1;
		}
		mem[i].data = files[i].data + r->offset;
		mem[i].n = (size_t)r->length;
		mem[i].addr = r->addr;
		mem[i].spaces = r->spaces;
	}
	return 0;
}
