/* etmkit CLI core: an input's elements or packets, a piece at a time
 * (cli/core.h, cli_trace_*): the input, images and side-band set up as
 * decode and profile do (cli/counting.c), the reading pulled by the
 * caller instead of pushed to the end. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core.h"
#include "counting.h"
#include "etmkit/perf.h"

/* Pieces of a file that is not a perf.data (raw, snapshot buffer). */
#define CHUNK (1u << 20)

struct cli_trace {
	struct cli_counting c;             /* elements; packets: c.in only */
	int packets;                       /* cli_trace_packets_step() */
	int ranges;                        /* --ranges: instruction ranges */
	struct etmkit_session *ps;         /* packets' session */
	struct perf_aux_iter ai;
	FILE *f;                           /* raw file or snapshot buffer */
	uint8_t *buf;
	int started, ended;
	/* the step's callbacks */
	cli_trace_elems_fn *on_elems;
	cli_trace_packet_fn *on_packet;
	void *ctx;
	int cb_err;                        /* the first a callback returned */
	char err[1024];                    /* the step's error (cli_trace_error) */
	/* the caller's argv, copied: the input keeps pointers into it
	 * (in.file, the side-band's file) until cli_trace_close() */
	char **argv;
	int argc;
};

/* ---- Callbacks ------------------------------------------------------------ */

static int count(void *ctx, uint8_t id, const struct etmkit_elem *e,
		 size_t n)
{
	struct cli_trace *t = ctx;
	int err = t->on_elems ? t->on_elems(t->ctx, id, e, n) : 0;

	if (err < 0 && !t->cb_err)
		t->cb_err = err;
	return 0;
}

static int on_packet(void *ctx, uint8_t id, enum etmkit_protocol proto,
		     const void *packet)
{
	struct cli_trace *t = ctx;
	int err = t->on_packet ? t->on_packet(t->ctx, id, (int)proto,
					      packet) : 0;

	if (err < 0 && !t->cb_err)
		t->cb_err = err;
	return 0;
}

struct feed_ctx {
	struct cli_trace *t;
	struct etmkit_session *s;
};

static int feed(void *ctx, const uint8_t *buf, size_t n)
{
	struct feed_ctx *f = ctx;
	int stopped = 0;

	return cli_session_feed(f->t->packets ? "packets" : "decode",
				&f->t->c.in, f->s, buf, n, 0, &stopped);
}

/* ---- Opening ------------------------------------------------------------------ */

static char name_pid[] = "pid", name_binary[] = "binary";

/* decode's --pid and --binary choose what its listing shows: the stream
 * has every element (the caller filters). */
static int refuse_value(void *ctx, const char *arg)
{
	(void)arg;
	cli_error("--%s chooses what decode lists; the element stream has "
		  "every element", (const char *)ctx);
	return -1;
}

static int parse(struct cli_trace *t, const struct cli_command *cmd, int argc,
		 char **argv)
{
	int dummy[8] = { 0 };
	const struct cli_flag decode_flags[] = {
		{ .name = "json", .target = &dummy[0] },
		{ .name = "stats", .target = &dummy[1] },
		{ .name = "m-profile", .target = &t->c.in.m_profile },
		{ .name = "stop-on-error", .target = &dummy[2] },
		CLI_IMAGES_FLAGS(&t->c.images),
		{ .name = "pid", .value = refuse_value, .ctx = name_pid },
		{ .name = "binary", .value = refuse_value, .ctx = name_binary },
		{ .name = "header", .target = &dummy[3] },
		{ .name = "no-header", .target = &dummy[4] },
		{ .name = "lines", .target = &dummy[5] },
		{ .name = "ranges", .target = &t->ranges },
		{ .name = NULL }
	};
	const struct cli_flag packets_flags[] = {
		{ .name = "json", .target = &dummy[0] },
		{ .name = "stats", .target = &dummy[1] },
		{ .name = "m-profile", .target = &t->c.in.m_profile },
		{ .name = "stop-on-error", .target = &dummy[2] },
		{ .name = "header", .target = &dummy[3] },
		{ .name = "no-header", .target = &dummy[4] },
		{ .name = NULL }
	};
	int rc = cli_parse_args(cmd, t->packets ? packets_flags : decode_flags,
				&t->c.in, argc, argv);

	if (!rc && dummy[2]) {
		cli_error("--stop-on-error: the stream goes on after decode "
			  "errors (they are gap elements)");
		rc = cli_exit_usage;
	}
	return rc < 0 ? cli_exit_usage : rc;
}

/* A packet decoder per source (as etmkit packets). */
static int setup_packets(struct cli_trace *t)
{
	struct etmkit_session_config sc;
	int err;

	etmkit_session_config_init(&sc);
	sc.frames = t->c.in.mode;
	sc.raw_id = t->c.in.src[0].id;
	sc.on_packet = on_packet;
	sc.ctx = t;
	err = etmkit_session_alloc(&t->ps, &sc);
	for (int i = 0; err >= 0 && i < t->c.in.nsrc; i++) {
		const struct cli_source *cs = &t->c.in.src[i];

		err = cs->proto == etmkit_proto_ptm ?
		      etmkit_session_add_ptm(t->ps, cs->id, &cs->ptm) :
		      cs->proto == etmkit_proto_etmv3 ?
		      etmkit_session_add_etm3(t->ps, cs->id, &cs->cfg) :
		      etmkit_session_add_etm4(t->ps, cs->id, &cs->etm4);
	}
	if (err < 0) {
		cli_error("cannot set up the decoder: %s", etmkit_errstr(err));
		return cli_exit_input;
	}
	return 0;
}

static int setup(struct cli_trace *t)
{
	if (t->packets)
		return cli_input_is_etm2(&t->c.in) ? 0 : setup_packets(t);
	t->c.count = count;
	t->c.ctx = t;
	t->c.images.etm3_flags = t->ranges ? ETM3_FLOW_RANGES : 0;
	t->c.images.ptm_flags = t->ranges ? PTM_FLOW_RANGES : 0;
	t->c.images.etm2_flags = t->ranges ? ETM2_FLOW_RANGES : 0;
	return cli_counting_setup(&t->c, t->ranges ? ETM4_FLOW_RANGES : 0);
}

/* t->argv: a copy of @argv (NULL-ended), or -1 (out of memory). */
static int copy_argv(struct cli_trace *t, int argc, char **argv)
{
	t->argv = calloc((size_t)(argc > 0 ? argc : 0) + 1, sizeof(*t->argv));
	if (!t->argv)
		return -1;
	for (int i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]) + 1;

		if (!(t->argv[i] = malloc(n)))
			return -1;
		memcpy(t->argv[i], argv[i], n);
		t->argc = i + 1;
	}
	return 0;
}

int cli_trace_open(struct cli_trace **out, const char *cmd, int argc,
		   char **argv, char *err, size_t errlen)
{
	struct cli_trace *t = calloc(1, sizeof(*t));
	struct cli_msg_capture cap;
	const struct cli_command *c;
	int rc;

	*out = NULL;
	cli_msg_capture_begin(&cap, err, errlen);
	if (t)
		cli_counting_init(&t->c);
	if (!t || copy_argv(t, argc, argv) < 0) {
		cli_error("out of memory");
		cli_msg_capture_end(&cap);
		cli_trace_close(t);
		return cli_exit_input;
	}
	c = cmd && !strcmp(cmd, "packets") ? &cli_cmd_packets :
	    cmd && !strcmp(cmd, "decode") ? &cli_cmd_decode : NULL;
	t->packets = c == &cli_cmd_packets;
	if (t->packets)
		t->c.in.keep_snapshot = 0;
	if (!c) {
		cli_error("no command '%s' here: decode or packets",
			  cmd ? cmd : "(null)");
		rc = cli_exit_usage;
	} else {
		rc = parse(t, c, t->argc, t->argv);
	}
	if (!rc)
		rc = cli_input_resolve(&t->c.in, c->name);
	if (!rc)
		rc = setup(t);
	cli_msg_capture_end(&cap);
	if (rc) {
		cli_trace_close(t);
		return rc;
	}
	*out = t;
	return 0;
}

/* The next piece of a raw file or snapshot buffer: 0 fed, 1 at the end,
 * or -cli_exit. */
static int file_step(struct cli_trace *t, struct feed_ctx *fc)
{
	size_t n;

	if (!t->f) {
		t->f = fopen(t->c.in.buffer_path, "rb");
		t->buf = malloc(CHUNK);
		if (!t->f) {
			cli_error("%s: cannot open: %s", t->c.in.buffer_path,
				  cli_strerror(errno));
			return -cli_exit_input;
		}
		if (!t->buf) {
			cli_error("out of memory");
			return -cli_exit_input;
		}
	}
	n = fread(t->buf, 1, CHUNK, t->f);
	if (n && feed(fc, t->buf, n) < 0)
		return -cli_exit_input;
	if (n < CHUNK && ferror(t->f)) {
		cli_error("%s: read error", t->c.in.buffer_path);
		return -cli_exit_input;
	}
	return n ? 0 : 1;
}

static int etm2_packet(void *ctx, uint8_t id, const struct etm2_packet *p)
{
	return on_packet(ctx, id, etmkit_proto_etmv2, p);
}

/* ETMv2: the capture in one step (the decoder is fed cycles). */
static int etm2_step(struct cli_trace *t)
{
	int stopped = 0, rc;

	rc = t->packets ?
	     cli_etm2_packets(&t->c.in, etm2_packet, t, 0, &stopped, NULL) :
	     cli_counting_stream(&t->c, "decode"); /* finishes the session */
	return rc ? -rc : 1;
}

static int step(struct cli_trace *t)
{
	struct etmkit_session *s = t->packets ? t->ps : t->c.session;
	struct feed_ctx fc = { t, s };
	uint64_t done;
	int rc;

	if (t->ended)
		return 1;
	if (cli_input_is_etm2(&t->c.in)) {
		rc = etm2_step(t);
		s = NULL; /* finished */
	} else if (t->c.in.perf) {
		if (!t->started)
			cli_perf_step_init(&t->c.in, &t->ai);
		rc = cli_perf_step(&t->c.in, &t->ai, feed, &fc, s, &done);
	} else {
		rc = file_step(t, &fc);
	}
	t->started = 1;
	if (rc == 1 && s && etmkit_session_finish(s) < 0)
		rc = -cli_exit_input;
	if (rc)
		t->ended = 1;
	return rc;
}

/* Run one step with the caller's callbacks; a callback's error stops the
 * stream (returned as it is). */
static int step_with(struct cli_trace *t, cli_trace_elems_fn *on_elems,
		     cli_trace_packet_fn *on_pkt, void *ctx)
{
	int rc;

	struct cli_msg_capture cap;

	t->on_elems = on_elems;
	t->on_packet = on_pkt;
	t->ctx = ctx;
	cli_msg_capture_more(&cap, t->err, sizeof(t->err));
	rc = step(t);
	cli_msg_capture_end(&cap);
	if (t->cb_err) {
		t->ended = 1;
		return t->cb_err;
	}
	return rc;
}

int cli_trace_step(struct cli_trace *t, cli_trace_elems_fn *on_elems,
		   void *ctx)
{
	if (!t || t->packets)
		return -cli_exit_usage;
	return step_with(t, on_elems, NULL, ctx);
}

int cli_trace_packets_step(struct cli_trace *t, cli_trace_packet_fn *on_pkt,
			   void *ctx)
{
	if (!t || !t->packets)
		return -cli_exit_usage;
	return step_with(t, NULL, on_pkt, ctx);
}

const char *cli_trace_error(const struct cli_trace *t)
{
	return t ? t->err : "";
}

uint64_t cli_trace_decode_errors(const struct cli_trace *t)
{
	return t ? t->c.errors : 0;
}

void cli_trace_close(struct cli_trace *t)
{
	if (!t)
		return;
	if (t->f)
		fclose(t->f);
	free(t->buf);
	etmkit_session_free(t->ps);
	cli_counting_free(&t->c);
	for (int i = 0; i < t->argc; i++)
		free(t->argv[i]);
	free(t->argv);
	free(t);
}
