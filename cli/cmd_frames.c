/* etmkit frames: the transport layer's view of a capture. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct frames_run {
	struct cli_input in;
	struct deformatter *d;
	int summary;
	uint64_t bad_frames;
};

static int on_event(void *ctx, const struct deformat_event *ev)
{
	struct frames_run *r = ctx;

	if (ev->kind == deformat_ev_error && ev->error != -etmkit_err_truncated)
		r->bad_frames++;
	if (r->summary && ev->kind != deformat_ev_error)
		return 0;
	switch (ev->kind) {
	case deformat_ev_frame:
		printf("%10" PRIu64 "  frame ", ev->offset);
		for (int i = 0; i < 16; i++)
			printf("%02x%s", ev->frame[i], i == 15 ? "  " : " ");
		for (unsigned i = 0; i < ev->nruns; i++)
			printf("%s%02x:%u", i ? " " : "", ev->runs[i].id,
			       ev->runs[i].count);
		putchar('\n');
		break;
	case deformat_ev_fsync:
		printf("%10" PRIu64 "  fsync\n", ev->offset);
		break;
	case deformat_ev_hsync:
		printf("%10" PRIu64 "  hsync\n", ev->offset);
		break;
	case deformat_ev_skipped:
		printf("%10" PRIu64 "  skipped %" PRIu64 " bytes\n", ev->offset,
		       ev->length);
		break;
	case deformat_ev_error:
		printf("%10" PRIu64 "  ERROR: %s (%" PRIu64 " bytes)\n", ev->offset,
		       ev->message ? ev->message : etmkit_errstr(ev->error),
		       ev->length);
		break;
	default:
		break;
	}
	return 0;
}

static int on_data(void *ctx, uint8_t id, const uint8_t *data,
		   const uint64_t *offsets, uint64_t base, size_t n)
{
	(void)ctx; (void)id; (void)data; (void)offsets; (void)base; (void)n;
	return 0;
}

static int feed(void *ctx, const uint8_t *buf, size_t n)
{
	struct frames_run *r = ctx;

	return deformat_feed(r->d, buf, n);
}

/* The flags of an AUX record (digest perf-data.md 3.7), as words. */
static void print_aux_flags(uint64_t flags)
{
	static const struct { uint64_t bit; const char *name; } names[] = {
		{ PERF_AUX_FLAG_TRUNCATED, "truncated" },
		{ PERF_AUX_FLAG_OVERWRITE, "overwrite" },
		{ PERF_AUX_FLAG_PARTIAL, "partial" },
		{ PERF_AUX_FLAG_COLLISION, "collision" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (flags & names[i].bit)
			printf(" %s", names[i].name);
	if ((flags & PERF_AUX_FLAG_FORMAT_MASK) == PERF_AUX_FLAG_FORMAT_RAW)
		printf(" raw");
}

/* A perf.data file: each AUX record is a piece of its own (digest 3.10),
 * its frames aligned from its first byte (3.6), listed at file offsets. */
static int perf_frames(struct frames_run *r)
{
	struct perf_aux_iter ai;
	struct perf_aux_chunk ch;

	perf_aux_iter_init(&ai, r->in.perf, -1);
	while (perf_aux_next(&ai, &ch, NULL) == 0) {
		int raw = (ch.flags & PERF_AUX_FLAG_FORMAT_MASK) ==
			  PERF_AUX_FLAG_FORMAT_RAW;

		if (!r->summary) {
			printf("%10" PRIu64 "  AUX record: cpu %" PRIu32
			       ", %" PRIu64 " bytes", ch.record_offset, ch.cpu,
			       ch.aux_size);
			print_aux_flags(ch.flags);
			if (!ch.data && ch.aux_size)
				printf(", no data in the file");
			else if (ch.data)
				printf(", data at %" PRIu64, ch.data_offset);
			putchar('\n');
		}
		if (!ch.data || !ch.data_size || raw)
			continue;
		if (deformat_reset(r->d, ch.data_offset) < 0 ||
		    deformat_feed(r->d, ch.data, (size_t)ch.data_size) < 0 ||
		    deformat_finish(r->d) < 0) {
			cli_error("%s: cannot deformat the AUX record at offset "
				  "%" PRIu64, r->in.file, ch.record_offset);
			return cli_exit_input;
		}
	}
	return 0;
}

static void print_summary(const struct deformat_stats *st)
{
	printf("bytes in       %" PRIu64 "\n", st->bytes_in);
	printf("frames         %" PRIu64 "\n", st->frames);
	printf("fsyncs         %" PRIu64 "\n", st->fsyncs);
	printf("hsyncs         %" PRIu64 "\n", st->hsyncs);
	printf("skipped bytes  %" PRIu64 "\n", st->skipped);
	printf("null-ID bytes  %" PRIu64 "\n", st->null_bytes);
	printf("bytes before any ID  %" PRIu64 "\n", st->unowned_bytes);
	printf("errors         %" PRIu64 "\n", st->errors);
	for (unsigned id = 0; id < DEFORMAT_ID_COUNT; id++)
		if (st->id_bytes[id])
			printf("id 0x%02x       %" PRIu64 " bytes\n", id,
			       st->id_bytes[id]);
}

static int parse_args(struct frames_run *r, int argc, char **argv)
{
	const struct cli_flag flags[] = {
		{ .name = "summary", .target = &r->summary },
		{ .name = NULL }
	};

	return cli_parse_args(&cli_cmd_frames, flags, &r->in, argc, argv);
}

static int run_frames(struct frames_run *r, int argc, char **argv)
{
	struct deformat_config dc;
	int rc, err;

	r->in.frames = -1;
	r->in.protos = CLI_PROTO_ALL;
	rc = parse_args(r, argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (r->in.file && !r->in.snapshot && !cli_is_perf_file(r->in.file)) {
		/* Frames need no protocol: resolve the file directly. */
		r->in.mode = r->in.frames >= 0 ?
			     (enum deformat_mode)r->in.frames :
			     deformat_coresight;
		snprintf(r->in.buffer_path, sizeof(r->in.buffer_path), "%s",
			 r->in.file);
	} else {
		rc = cli_input_resolve(&r->in, "frames");
		if (rc)
			return rc;
	}
	memset(&dc, 0, sizeof(dc));
	dc.size = sizeof(dc);
	dc.mode = r->in.mode;
	dc.on_data = on_data;
	dc.on_event = on_event;
	dc.ctx = r;
	err = deformat_alloc(&r->d, &dc);
	if (err < 0) {
		cli_error("%s", etmkit_errstr(err));
		return cli_exit_input;
	}
	if (r->in.perf) {
		rc = perf_frames(r);
	} else {
		rc = cli_input_stream(&r->in, feed, r, NULL);
		if (!rc)
			deformat_finish(r->d);
	}
	if (!rc) {
		const struct deformat_stats *st = deformat_get_stats(r->d);

		if (!r->summary)
			putchar('\n');
		print_summary(st);
		/* A frame cut by the end of the input is normal for a
		 * capture: listed, not an error. */
		if (r->bad_frames) {
			cli_error("%" PRIu64 " malformed "
				  "frame%s (marked ERROR)", r->bad_frames,
				  r->bad_frames == 1 ? "" : "s");
			rc = cli_exit_trace_errors;
		}
	}
	deformat_free(r->d);
	cli_input_free(&r->in);
	return rc;
}

/* The run on the heap: no state outlives it (cli/runs.h). */
int cmd_frames(int argc, char **argv)
{
	struct frames_run *r = calloc(1, sizeof(*r));
	int rc;

	if (!r) {
		cli_error("out of memory");
		return cli_exit_input;
	}
	rc = run_frames(r, argc, argv);
	free(r);
	return rc;
}
