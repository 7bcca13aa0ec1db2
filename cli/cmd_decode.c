/* etmkit decode: trace plus program image to executed instructions. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "etmkit/blocks.h"
#include "format_pool.h"
#include "health.h"
#include "images.h"
#include "outbuf.h"
#include "symbolize.h"

struct decode_counts {
	uint64_t insns, no_image, no_address, gaps, errors, elems;
};

/* An image region that served undefined instructions on an executed
 * path: it is not what the core ran there (warned once, at the end). */
struct bad_region {
	const struct image_region *reg; /* NULL: no region found */
	uint8_t id;                     /* the first trace ID that ran one */
	uint64_t n, lo, hi;             /* how many; lowest, highest address */
};

#define MAX_BAD_REGIONS 64

struct decode_run {
	struct cli_input in;
	struct etmkit_session *session;
	int json, stats, stop_on_error, stopped;
	struct cli_images images;    /* --image, --elf; per source */
	uint8_t exc[DEFORMAT_ID_COUNT]; /* enum cli_exc_names per ID */
	struct decode_counts counts[DEFORMAT_ID_COUNT];
	struct cli_health health;    /* most of a source failing? */
	struct cli_disasm *dis;
	/* The listing: stdout through a buffer of lines (cli/outbuf.h);
	 * with --jobs N > 1, its lines formatted on threads (NULL: on this
	 * one; see queue_line()). */
	struct cli_out out;
	char out_buf[64 * 1024];
	struct cli_fmt_pool *pool;
	int header, no_header;             /* --header, --no-header */
	/* The undefined-instruction check (check_undefined()), per trace ID:
	 * the source's image, protocol and current memory space. */
	const struct image *id_image[DEFORMAT_ID_COUNT];
	uint8_t id_proto[DEFORMAT_ID_COUNT];
	uint8_t id_space[DEFORMAT_ID_COUNT];
	int nbad;
	struct bad_region bad[MAX_BAD_REGIONS];
	/* Binaries and functions of instructions (cli/symbolize.h), over
	 * every image built; show_where: some binary has them to show. */
	struct cli_symbols *syms;
	int show_where;
	int lines;                   /* --lines */
	int ranges;                  /* --ranges */
};

/* ---- Options: the perf.data filters (the image options are
 * cli/images.c's) ---------------------------------------------------------- */

static int opt_pid(void *ctx, const char *arg)
{
	if (cli_parse_ranges(arg, &((struct decode_run *)ctx)->images.perf.pids)
	    == 0)
		return 0;
	cli_error("invalid value '%s' for --pid: expected process IDs and "
		  "ranges, as 1234,2000-2100", arg);
	return -1;
}

static int opt_binary(void *ctx, const char *arg)
{
	((struct decode_run *)ctx)->images.perf.binary_re = arg;
	return 0;
}

/* ---- Instructions that cannot be what ran ------------------------------- */

/* Whether insn element @e of trace ID @id, on the executed path, cannot
 * be what the core ran: the image there is wrong (zero-filled or stale
 * dump memory). Evidence, by the classifier's flags, not by value:
 * - UNDEFINED where the classifier's verdict holds for the core: A64
 *   (only the groups it decodes exactly, reserved space and unallocated
 *   op1 values are UNDEFINED there; docs/insn.md) and ETMv3 sources (ARMv7
 *   cores, the architecture it decodes AArch32 as). Not A32/T32 under
 *   ETMv4/ETE: those cores are ARMv8 or later, and the classifier decodes
 *   AArch32 as ARMv7, calling the ARMv8 additions UNDEFINED;
 * - UDF under ETMv4/ETE: an executed UDF takes an exception whose address
 *   is the UDF itself, so it is never listed as executed (ETMv3 may trace
 *   the trapping instruction, so UDF is no evidence there).
 * A canceled instruction did not complete: no evidence either. */
static int cannot_have_run(const struct decode_run *r, uint8_t id,
			   const struct etmkit_elem *e)
{
	uint32_t cls = e->u.insn.class_flags;
	int etm3 = r->id_proto[id] == etmkit_proto_etmv3;

	if (!(cls & (INSN_F_UNDEFINED | INSN_F_UDF)) ||
	    (e->flags & ETMKIT_INSN_CANCEL))
		return 0;
	if (cls & INSN_F_UNDEFINED)
		return etm3 || e->isa == etmkit_isa_a64;
	return !etm3;
}

/* Count insn element @e against the image region it came from; returns
 * whether its listing line gets the bad-image marker. */
static int check_undefined(struct decode_run *r, uint8_t id,
			   const struct etmkit_elem *e)
{
	const struct image_region *reg;
	struct bad_region *b = NULL;

	if (!cannot_have_run(r, id, e))
		return 0;
	reg = image_region_find(r->id_image[id], r->id_space[id], e->addr);
	for (int i = 0; i < r->nbad && !b; i++)
		if (r->bad[i].reg == reg)
			b = &r->bad[i];
	if (!b) {
		/* Past the table's end the last entry takes the rest (more
		 * than 64 wrong regions: the warning says enough). */
		b = &r->bad[r->nbad < MAX_BAD_REGIONS ? r->nbad++ :
							MAX_BAD_REGIONS - 1];
		if (!b->n) {
			b->reg = reg;
			b->id = id;
			b->lo = b->hi = e->addr;
		}
	}
	b->n++;
	if (e->addr < b->lo)
		b->lo = e->addr;
	if (e->addr > b->hi)
		b->hi = e->addr;
	return 1;
}

/* One warning per region that served undefined instructions. */
static void warn_bad_regions(const struct decode_run *r)
{
	for (int i = 0; i < r->nbad; i++) {
		const struct bad_region *b = &r->bad[i];

		char where[1100] = "";

		if (b->reg)
			snprintf(where, sizeof(where), "%s at 0x%" PRIx64 "-0x%"
				 PRIx64 ": ", b->reg->path ? b->reg->path :
				 "(buffer)", b->reg->addr,
				 b->reg->addr + (b->reg->length - 1));
		cli_warn("%s%" PRIu64 " undefined instruction%s executed at 0x%"
			 PRIx64 "-0x%" PRIx64 " (trace ID 0x%02x%s): the image "
			 "there is not what ran (%s)", where, b->n,
			 b->n == 1 ? "" : "s", b->lo, b->hi, b->id,
			 i == MAX_BAD_REGIONS - 1 ? " and others" : "",
			 r->json ? "records with \"undefined\"" :
				   "lines marked [bad image]");
	}
}

/* ---- The listing on threads (cli/format_pool.h) ------------------------ */

/* What a listing line is formatted from: copies, as the element, the
 * lookups and the task are only valid during on_elem(). The formatter
 * threads read nothing else but the disassembler of their own and what
 * never changes once the decode runs (names, the line tables and the
 * strings of @where, kept by the cli_symbols). */
struct decode_line {
	struct etmkit_elem e;
	uint8_t id, exc, bad, has_where, has_task;
	/* Last, so that a run that has none of them hands over records
	 * that end before them (line_size()): the records cross from
	 * thread to thread, a cache line at a time. */
	struct cli_task task;        /* with has_task */
	struct cli_where where;      /* with has_where */
};

_Static_assert(offsetof(struct decode_line, task) %
		       _Alignof(struct decode_line) == 0 &&
	       offsetof(struct decode_line, where) %
		       _Alignof(struct decode_line) == 0,
	       "a record cut before task or where starts the next aligned");

/* The bytes of a record: up to what this run's lines may have. */
static size_t line_size(const struct decode_run *r)
{
	if (r->show_where)
		return sizeof(struct decode_line);
	if (r->images.sb)
		return offsetof(struct decode_line, where);
	return offsetof(struct decode_line, task);
}

static void format_text(struct cli_out *o, const void *rec,
			struct cli_disasm *dis)
{
	const struct decode_line *l = rec;

	cli_print_elem_text(o, l->id, &l->e, l->exc, dis, l->bad,
			    l->has_where ? &l->where : NULL);
}

static void format_json(struct cli_out *o, const void *rec,
			struct cli_disasm *dis)
{
	const struct decode_line *l = rec;

	(void)dis;
	cli_print_elem_json(o, l->id, &l->e, l->exc,
			    l->has_where ? &l->where : NULL,
			    l->has_task ? &l->task : NULL);
}

/* Element @e's line, for the pool to format (the rest of on_elem() was
 * done here). */
static void queue_line(struct decode_run *r, uint8_t id,
		       const struct etmkit_elem *e, int bad,
		       const struct cli_where *w, const struct cli_task *t)
{
	struct decode_line *l = cli_fmt_pool_rec(r->pool);

	l->e = *e;
	l->id = id;
	l->exc = r->exc[id];
	l->bad = (uint8_t)bad;
	l->has_where = w != NULL;
	if (w)
		l->where = *w;
	l->has_task = t != NULL;
	if (t)
		l->task = *t;
}

/* The formatter threads beside the session's decode ones: jobs - 1, as
 * the caller's thread formats too when they fall behind (the batches
 * waiting for a thread while it waits for the oldest). Measured with
 * callgrind at --jobs 2 on an 8.5 MB ETMv3 trace, --ranges: the thread
 * formats 6.8 G instructions, the caller's thread 3.2 G of its 5.0 G, the
 * decode worker runs 1.7 G; the longest thread is 56% of --jobs 1's
 * 12.2 G (91% without the pool). No pool at --jobs 1, or when it cannot
 * start: the lines are formatted here. */
static void start_pool(struct decode_run *r)
{
	struct cli_fmt_pool_config fc = {
		.threads = cli_input_jobs(&r->in) - 1,
		.rec_size = line_size(r),
		.format = r->json ? format_json : format_text,
		.disasm = !r->json,
		.out = &r->out,
		.caller_dis = r->dis,
	};

	if (fc.threads)
		cli_fmt_pool_alloc(&r->pool, &fc);
}

/* ---- Decoding ----------------------------------------------------------- */

/* Losses that are not decode errors: a packet cut by the end of a piece
 * of the buffer, trace the recorder says it lost (etmkit_loss_aux_*,
 * digest perf-data.md 3.7), and atoms after an indirect branch whose
 * address never came (no_address: the packets are well formed; the walk,
 * through the image or the return stack, went where the trace did not,
 * as where a no_image is reported). */
static int expected_loss(unsigned reason)
{
	return reason == etmkit_loss_truncated ||
	       reason == etmkit_loss_no_address ||
	       (reason >= etmkit_loss_aux_truncated &&
		reason <= etmkit_loss_aux_missing);
}

static int on_elem(void *ctx, uint8_t id, const struct etmkit_elem *e)
{
	struct decode_run *r = ctx;
	struct decode_counts *c = &r->counts[id & 0x7f];
	struct cli_where where;
	const struct cli_where *w = NULL;
	struct cli_task task, *t = NULL;
	int bad = 0, listed = 1;

	id &= 0x7f;
	c->elems++;
	if (r->images.sb) {
		listed = cli_perf_sb_elem(r->images.sb, id, e, &task);
		t = &task;
		if (e->kind == etmkit_elem_context)
			r->id_image[id] = cli_perf_sb_image(r->images.sb, id);
	}
	switch (e->kind) {
	case etmkit_elem_insn_range:
		/* --ranges: the last instruction's class flags are the
		 * range's; its first instruction says where it ran. */
		c->insns += e->u.range.count - 1;
		/* fall through */
	case etmkit_elem_insn:
		c->insns++;
		bad = check_undefined(r, id, e);
		if (r->show_where &&
		    cli_symbols_find(r->syms, id, r->id_image[id],
				     r->id_space[id], e->addr, &where))
			w = &where;
		break;
	case etmkit_elem_context:
		r->id_space[id] = etmkit_context_space(e);
		break;
	case etmkit_elem_no_image:
		c->no_image++;
		break;
	case etmkit_elem_gap:
		c->gaps++;
		c->no_address += e->u.loss.reason == etmkit_loss_no_address;
		/* The end of a ring buffer cutting a packet is normal, and
		 * trace the recorder lost (perf AUX flags) is not a decode
		 * error: both are listed as gaps only. */
		if (!expected_loss(e->u.loss.reason)) {
			c->errors++;
			cli_health_error(&r->health, id, e->offset);
		}
		break;
	default:
		break;
	}
	if (e->kind != etmkit_elem_gap)
		cli_health_good(&r->health, id, e->offset);
	if (!listed)
		return 0;
	if (r->pool)
		queue_line(r, id, e, bad, w, t);
	else if (r->json)
		cli_print_elem_json(&r->out, id, e, r->exc[id & 0x7f], w,
				    t);
	else
		cli_print_elem_text(&r->out, id, e, r->exc[id & 0x7f],
				    r->dis, bad, w);
	return 0;
}

/* An ETMv2 batch (cli_etm2_decode()): each element as the session's. */
static int on_etm2_elems(void *ctx, uint8_t id, const struct etmkit_elem *e,
			 size_t n)
{
	for (size_t i = 0; i < n; i++)
		on_elem(ctx, id, &e[i]);
	return 0;
}

/* Frames the transport had to drop appear as gap elements of each source;
 * nothing more to print here. */
static int feed(void *ctx, const uint8_t *buf, size_t n)
{
	struct decode_run *r = ctx;

	return cli_session_feed("decode", &r->in, r->session, buf, n,
				r->stop_on_error, &r->stopped);
}

static int setup(struct decode_run *r)
{
	struct etmkit_session_config sc;
	int err, rc;

	etmkit_session_config_init(&sc);
	sc.frames = r->in.mode;
	sc.raw_id = r->in.src[0].id;
	sc.on_elem = on_elem;
	sc.ctx = r;
	sc.stop_on_error = (uint8_t)r->stop_on_error;
	sc.jobs = cli_input_jobs(&r->in);
	err = etmkit_session_alloc(&r->session, &sc);
	if (err < 0) {
		cli_error("cannot set up the decoder: %s",
			  etmkit_errstr(err));
		return cli_exit_input;
	}
	/* --ranges: every flow decoder delivers insn_range elements
	 * (flow.h ETM3_FLOW_RANGES, PTM_FLOW_RANGES, ETM4_FLOW_RANGES). */
	r->images.etm3_flags = r->ranges ? ETM3_FLOW_RANGES : 0;
	r->images.ptm_flags = r->ranges ? PTM_FLOW_RANGES : 0;
	rc = cli_images_setup(&r->images, &r->in, r->session,
			      r->ranges ? ETM4_FLOW_RANGES : 0);
	if (!rc)
		rc = cli_images_symbols(&r->images, r->syms);
	for (int i = 0; !rc && i < r->in.nsrc; i++) {
		const struct cli_source *cs = &r->in.src[i];

		r->id_image[cs->id & 0x7f] =
			cli_images_of(&r->images, &r->in, cs->id);
		r->id_proto[cs->id & 0x7f] = cs->proto;
		r->id_space[cs->id & 0x7f] = IMAGE_SPACE_ANY;
		r->exc[cs->id & 0x7f] = (uint8_t)cli_exc_names_of(
			cs->proto, cs->proto == etmkit_proto_etmv3 &&
					   (cs->cfg.flags & ETM3_CFG_M_PROFILE));
	}
	return rc;
}

static void print_stats(const struct decode_run *r)
{
	for (unsigned id = 0; id < DEFORMAT_ID_COUNT; id++) {
		const struct decode_counts *c = &r->counts[id];

		if (!c->elems)
			continue;
		fprintf(stderr, "id 0x%02x: %" PRIu64 " elements, %" PRIu64
			" instructions, %" PRIu64 " no_image, %" PRIu64 " gaps\n",
			id, c->elems, c->insns, c->no_image, c->gaps);
	}
}

/* The exit status from what was decoded, with notes on stderr. */
static int summarize(const struct decode_run *r)
{
	uint64_t errors = 0, no_image = 0, no_address = 0;

	for (unsigned id = 0; id < DEFORMAT_ID_COUNT; id++) {
		errors += r->counts[id].errors;
		no_image += r->counts[id].no_image;
		no_address += r->counts[id].no_address;
	}
	if (no_image)
		cli_note("%" PRIu64 " place%s where the "
			 "image has no code (no_image)", no_image,
			 no_image == 1 ? "" : "s");
	if (no_address)
		cli_note("%" PRIu64 " place%s where atoms were lost after an "
			 "indirect branch whose address was not traced (gap "
			 "no_address)", no_address, no_address == 1 ? "" : "s");
	if (errors) {
		cli_error("%" PRIu64 " decode error%s in the "
			  "trace (gap lines)", errors, errors == 1 ? "" : "s");
		return cli_exit_trace_errors;
	}
	return 0;
}

static void cleanup(struct decode_run *r)
{
	cli_fmt_pool_free(r->pool);
	etmkit_session_free(r->session);
	cli_images_free(&r->images);
	cli_disasm_free(r->dis);
	cli_symbols_free(r->syms);
	cli_input_free(&r->in);
}

static int run_decode(struct decode_run *r, int argc, char **argv)
{
	struct deformat_stats e2fs;
	uint64_t e2cycles = 0;
	int rc;

	r->in.frames = -1;
	r->in.keep_snapshot = 1;
	r->in.protos = CLI_PROTO_ALL | CLI_PROTO_ETM2;
	cli_out_init(&r->out, stdout, r->out_buf, sizeof(r->out_buf),
		     isatty(fileno(stdout)));
	{
		const struct cli_flag flags[] = {
			{ .name = "json", .target = &r->json },
			{ .name = "stats", .target = &r->stats },
			{ .name = "m-profile", .target = &r->in.m_profile },
			{ .name = "stop-on-error",
			  .target = &r->stop_on_error },
			CLI_IMAGES_FLAGS(&r->images),
			{ .name = "pid", .value = opt_pid, .ctx = r },
			{ .name = "binary", .value = opt_binary, .ctx = r },
			{ .name = "header", .target = &r->header },
			{ .name = "no-header", .target = &r->no_header },
			{ .name = "lines", .target = &r->lines },
			{ .name = "ranges", .target = &r->ranges },
			{ .name = NULL }
		};

		rc = cli_parse_args(&cli_cmd_decode, flags, &r->in, argc, argv);
	}
	if (rc)
		return rc < 0 ? 0 : rc;
	rc = cli_input_resolve(&r->in, "decode");
	if (!rc && !r->json && !(r->dis = cli_disasm_alloc())) {
		cli_error("cannot start the disassembler");
		rc = cli_exit_input;
	}
	if (!rc && !(r->syms = cli_symbols_alloc())) {
		cli_error("out of memory");
		rc = cli_exit_input;
	}
	if (!rc && r->lines)
		cli_symbols_want_lines(r->syms);
	if (!rc)
		rc = setup(r);
	r->show_where = cli_symbols_any(r->syms);
	if (!rc && !r->json &&
	    cli_header_wanted(stdout, r->header, r->no_header))
		cli_print_elem_header(&r->out, r->show_where);
	if (!rc)
		start_pool(r);
	if (!rc && cli_input_is_etm2(&r->in))
		rc = cli_etm2_decode(&r->in,
				     r->id_image[r->in.src[0].id & 0x7f],
				     r->ranges ? ETM2_FLOW_RANGES : 0,
				     on_etm2_elems, r, r->stop_on_error,
				     &r->stopped, &e2cycles);
	else if (!rc)
		rc = cli_input_stream(&r->in, feed, r, r->session);
	if (r->stopped)
		rc = cli_exit_trace_errors;
	if (!rc && etmkit_session_finish(r->session) < 0)
		rc = cli_exit_input;
	if (r->pool)
		cli_fmt_pool_finish(r->pool);
	/* The whole listing before the summary on stderr: one place for it
	 * in a merged stream (2>&1), whatever --jobs. */
	if (cli_out_flush(&r->out) != 0 || fflush(stdout) != 0) {
		cli_error("cannot write the output");
		rc = cli_exit_input;
	}
	if (r->stats)
		print_stats(r);
	warn_bad_regions(r);
	/* ETMv2: offsets are cycle indexes, the input its cycles. */
	cli_etm2_frame_stats(&e2fs, r->in.src[0].id, e2cycles);
	if (!rc)
		cli_health_report(&r->health, &r->in,
				  cli_input_is_etm2(&r->in) ? &e2fs :
				  etmkit_session_frame_stats(r->session));
	cli_perf_sb_report(r->images.sb);
	if (!rc)
		rc = summarize(r);
	cleanup(r);
	return rc;
}

/* The run on the heap: no state outlives it (cli/runs.h). */
int cmd_decode(int argc, char **argv)
{
	struct decode_run *r = calloc(1, sizeof(*r));
	int rc;

	if (!r) {
		cli_error("out of memory");
		return cli_exit_input;
	}
	rc = run_decode(r, argc, argv);
	free(r);
	return rc;
}
