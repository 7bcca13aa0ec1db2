/* etmkit packets: list the packets of each trace source (ETMv3, PTM,
 * ETMv4, ETE). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "health.h"
#include "outbuf.h"
#include "packet_forms.h"

/* Record types per protocol: room for the largest set. */
#define PACKETS_MAX2(a, b) ((int)(a) > (int)(b) ? (int)(a) : (int)(b))
#define PACKETS_MAX_TYPES \
	PACKETS_MAX2(PACKETS_MAX2(etm4_pkt_type_count, etm3_pkt_type_count), \
		     PACKETS_MAX2(ptm_pkt_type_count, etm2_pkt_type_count))

struct packets_run {
	struct cli_input in;
	struct etmkit_session *session;
	int json, stats, stop_on_error, stopped;
	int header, no_header;        /* --header, --no-header */
	uint64_t errors, truncated;
	uint8_t m_profile[DEFORMAT_ID_COUNT];
	uint8_t proto[DEFORMAT_ID_COUNT];   /* enum etmkit_protocol per ID */
	uint8_t form_cfg[DEFORMAT_ID_COUNT]; /* ETMv3: CLI_FORM_ETM3_* per ID */
	/* Records per ID and type (the ID's protocol's types). */
	uint64_t counts[DEFORMAT_ID_COUNT][PACKETS_MAX_TYPES];
	struct cli_form_table forms;       /* --stats: records per ID and form */
	struct cli_health health;          /* most of a source failing? */
	/* The listing: stdout through a buffer of lines (cli/outbuf.h).
	 * Formatted on this thread: packets takes no --jobs (its session
	 * decodes here too). Its lines could go to decode's formatter
	 * threads (cli/format_pool.h) as records of a packet, a frame error
	 * or a gap, copied whole (a packet holds its bytes; its why and a
	 * frame event's message would need to be static strings, checked). */
	struct cli_out out;
	char out_buf[64 * 1024];
};

/* Count record @type with error @error of trace ID @id at @offset
 * (type 0 is both protocols' unsynced run). */
static void count(struct packets_run *r, uint8_t id, unsigned type,
		  unsigned ntypes, int error, uint64_t offset)
{
	/* A packet cut by the end of the buffer is normal for a ring-buffer
	 * capture: reported, but not a decode error. */
	if (error == -etmkit_err_truncated) {
		r->truncated++;
	} else if (error) {
		r->errors++;
		cli_health_error(&r->health, id, offset);
	} else if (type != 0) {
		cli_health_good(&r->health, id, offset);
	}
	if (type < ntypes)
		r->counts[id & 0x7f][type]++;
}

static void on_etm3(struct packets_run *r, uint8_t id,
		    const struct etm3_packet *p)
{
	int m = r->m_profile[id & 0x7f];

	if (r->json)
		cli_print_etm3_json(&r->out, id, p, m);
	else
		cli_print_etm3_text(&r->out, id, p, m);
	count(r, id, p->type, etm3_pkt_type_count, p->error, p->offset);
	if (r->stats)
		cli_form_count(&r->forms, id & 0x7f,
			       cli_form_etm3_key(p, r->form_cfg[id & 0x7f]));
}

static void on_etm4(struct packets_run *r, uint8_t id,
		    enum etmkit_protocol proto, const struct etm4_packet *p)
{
	int ete = proto == etmkit_proto_ete;

	if (r->json)
		cli_print_etm4_json(&r->out, id, p, ete);
	else
		cli_print_etm4_text(&r->out, id, p, ete);
	count(r, id, p->type, etm4_pkt_type_count, p->error, p->offset);
	if (r->stats)
		cli_form_count(&r->forms, id & 0x7f, cli_form_etm4_key(p));
}

static void on_ptm(struct packets_run *r, uint8_t id,
		   const struct ptm_packet *p)
{
	if (r->json)
		cli_print_ptm_json(&r->out, id, p);
	else
		cli_print_ptm_text(&r->out, id, p);
	count(r, id, p->type, ptm_pkt_type_count, p->error, p->offset);
	if (r->stats)
		cli_form_count(&r->forms, id & 0x7f, cli_form_ptm_key(p));
}

static int on_packet(void *ctx, uint8_t id, enum etmkit_protocol proto,
		     const void *packet)
{
	struct packets_run *r = ctx;

	switch (proto) {
	case etmkit_proto_etmv3:
		on_etm3(r, id, packet);
		break;
	case etmkit_proto_ptm:
		on_ptm(r, id, packet);
		break;
	case etmkit_proto_etmv4:
	case etmkit_proto_ete:
		on_etm4(r, id, proto, packet);
		break;
	default:
		break;
	}
	return 0;
}

/* Frames the transport had to drop: listed in place, counted as errors. */
static int on_frame_event(void *ctx, const struct deformat_event *ev)
{
	struct packets_run *r = ctx;
	const char *msg;

	if (ev->kind != deformat_ev_error || ev->error == -etmkit_err_truncated)
		return 0;
	msg = ev->message ? ev->message : etmkit_errstr(ev->error);
	if (r->json) {
		cli_out_lit(&r->out, "{\"offset\":");
		cli_out_udec(&r->out, ev->offset);
		cli_out_lit(&r->out, ",\"type\":\"frame_error\",\"length\":");
		cli_out_udec(&r->out, ev->length);
		cli_out_lit(&r->out, ",\"error\":\"");
		cli_out_str(&r->out, msg);
		cli_out_lit(&r->out, "\"}");
	} else {
		cli_out_udec_w(&r->out, ev->offset, 10);
		cli_out_lit(&r->out, "  --  frame_error ");
		cli_out_udec(&r->out, ev->length);
		cli_out_lit(&r->out, " bytes  ERROR: ");
		cli_out_str(&r->out, msg);
	}
	cli_out_eol(&r->out);
	r->errors++;
	return 0;
}

/* Trace lost between pieces of the buffer (perf AUX flags, session
 * breaks): listed in place; not a decode error. */
static int on_gap(void *ctx, uint8_t id, enum etmkit_loss reason,
		  uint64_t offset)
{
	struct packets_run *r = ctx;

	if (r->json) {
		cli_packet_json_start(&r->out, offset, id, "gap");
		cli_out_lit(&r->out, ",\"reason\":\"");
		cli_out_str(&r->out, etmkit_loss_name(reason));
		cli_out_lit(&r->out, "\"}");
	} else {
		cli_out_line_head(&r->out, offset, id);
		cli_out_lit(&r->out, "--  gap ");
		cli_out_str(&r->out, etmkit_loss_name(reason));
	}
	cli_out_eol(&r->out);
	return 0;
}

static int feed(void *ctx, const uint8_t *buf, size_t n)
{
	struct packets_run *r = ctx;

	return cli_session_feed("packets", &r->in, r->session, buf, n,
				r->stop_on_error, &r->stopped);
}

/* The name of record type @t of protocol @proto. */
static const char *type_name(unsigned proto, unsigned t)
{
	if (proto == etmkit_proto_etmv3)
		return etm3_pkt_type_name((enum etm3_pkt_type)t);
	if (proto == etmkit_proto_ptm)
		return ptm_pkt_type_name((enum ptm_pkt_type)t);
	if (proto == etmkit_proto_etmv2)
		return etm2_pkt_type_name(t);
	return etm4_pkt_type_name((enum etm4_pkt_type)t);
}

/* The number of record types of protocol @proto. */
static unsigned type_count(unsigned proto)
{
	return proto == etmkit_proto_etmv3 ? etm3_pkt_type_count :
	       proto == etmkit_proto_ptm ? ptm_pkt_type_count :
	       proto == etmkit_proto_etmv2 ? etm2_pkt_type_count :
					   etm4_pkt_type_count;
}

/* The records of @id per form, after the counts per type. */
static void print_forms(const struct packets_run *r, unsigned id,
			struct cli_form_count *list, size_t max)
{
	size_t n = cli_form_list(&r->forms, (uint8_t)id, list, max);
	uint64_t total = 0;
	char name[96];

	if (n > max)
		n = max; /* not reached: max is every form counted */
	for (size_t i = 0; i < n; i++)
		total += list[i].n;
	if (!total)
		return;
	fprintf(stderr, "id 0x%02x: %" PRIu64 " records by form\n", id, total);
	for (size_t i = 0; i < n; i++) {
		if (r->proto[id] == etmkit_proto_etmv3)
			cli_form_etm3_name(list[i].key, name, sizeof(name));
		else if (r->proto[id] == etmkit_proto_ptm)
			cli_form_ptm_name(list[i].key, name, sizeof(name));
		else if (r->proto[id] == etmkit_proto_etmv2)
			cli_form_etm2_name(list[i].key, name, sizeof(name));
		else
			cli_form_etm4_name(list[i].key, name, sizeof(name));
		fprintf(stderr, "  %-40s %" PRIu64 "\n", name, list[i].n);
	}
}

static void print_stats(const struct packets_run *r)
{
	struct cli_form_count *list;

	for (unsigned id = 0; id < DEFORMAT_ID_COUNT; id++) {
		unsigned ntypes = type_count(r->proto[id]);
		uint64_t total = 0;

		for (unsigned t = 0; t < ntypes; t++)
			total += r->counts[id][t];
		if (!total)
			continue;
		fprintf(stderr, "id 0x%02x: %" PRIu64 " records\n", id, total);
		for (unsigned t = 0; t < ntypes; t++)
			if (r->counts[id][t])
				fprintf(stderr, "  %-18s %" PRIu64 "\n",
					type_name(r->proto[id], t),
					r->counts[id][t]);
	}
	/* Forms after every line above, which stay as they were. */
	list = malloc((r->forms.used ? r->forms.used : 1) * sizeof(*list));
	if (!list || r->forms.nomem)
		cli_error("out of memory: records by "
			  "form %s", list ? "incomplete" : "not listed");
	for (unsigned id = 0; list && id < DEFORMAT_ID_COUNT; id++)
		print_forms(r, id, list, r->forms.used);
	free(list);
}

/* An ETMv2 record (cli_etm2_packets()); counted under its own types. */
static int on_etm2(void *ctx, uint8_t id, const struct etm2_packet *p)
{
	struct packets_run *r = ctx;

	if (r->json)
		cli_print_etm2_json(&r->out, id, p);
	else
		cli_print_etm2_text(&r->out, id, p);
	count(r, id, p->type, etm2_pkt_type_count, p->error, p->cycle);
	if (r->stats)
		cli_form_count(&r->forms, id & 0x7f, cli_form_etm2_key(p));
	return 0;
}

/* Add source @cs to the session. */
static int add_source(struct packets_run *r, const struct cli_source *cs)
{
	struct etm3_config_info info;

	r->proto[cs->id & 0x7f] = cs->proto;
	if (cs->proto == etmkit_proto_ptm)
		return etmkit_session_add_ptm(r->session, cs->id, &cs->ptm);
	if (cs->proto != etmkit_proto_etmv3)
		return etmkit_session_add_etm4(r->session, cs->id, &cs->etm4);
	if (etm3_config_decode(&cs->cfg, &info) == 0)
		r->form_cfg[cs->id & 0x7f] =
			(uint8_t)((info.cycle_accurate ? CLI_FORM_ETM3_CA : 0) |
				  (info.alt_branch ? CLI_FORM_ETM3_ALT : 0));
	r->m_profile[cs->id & 0x7f] = !!(cs->cfg.flags & ETM3_CFG_M_PROFILE);
	return etmkit_session_add_etm3(r->session, cs->id, &cs->cfg);
}

static int parse_args(struct packets_run *r, int argc, char **argv)
{
	const struct cli_flag flags[] = {
		{ .name = "json", .target = &r->json },
		{ .name = "stats", .target = &r->stats },
		{ .name = "m-profile", .target = &r->in.m_profile },
		{ .name = "stop-on-error", .target = &r->stop_on_error },
		{ .name = "header", .target = &r->header },
		{ .name = "no-header", .target = &r->no_header },
		{ .name = NULL }
	};

	return cli_parse_args(&cli_cmd_packets, flags, &r->in, argc, argv);
}

/* The end of a listing: flush, the counts, the exit status. */
static int packets_end(struct packets_run *r, int rc)
{
	if (cli_out_flush(&r->out) != 0 || fflush(stdout) != 0) {
		cli_error("cannot write the output");
		return cli_exit_input;
	}
	if (!rc && r->truncated)
		cli_note("the buffer ends inside a "
			 "packet (%" PRIu64 " source%s)", r->truncated,
			 r->truncated == 1 ? "" : "s");
	if (!rc && r->errors) {
		cli_error("%" PRIu64 " decode error%s in the "
			  "trace (marked ERROR in the listing)", r->errors,
			  r->errors == 1 ? "" : "s");
		rc = cli_exit_trace_errors;
	}
	return rc;
}

/* An ETMv2 capture: no session (cli_etm2_packets()). */
static int packets_etm2(struct packets_run *r)
{
	struct deformat_stats fs;
	uint64_t cycles = 0;
	int rc;

	r->proto[r->in.src[0].id & 0x7f] = etmkit_proto_etmv2;
	if (!r->json && cli_header_wanted(stdout, r->header, r->no_header))
		cli_print_packet_header(&r->out);
	rc = cli_etm2_packets(&r->in, on_etm2, r, r->stop_on_error,
			      &r->stopped, &cycles);
	if (r->stopped)
		rc = cli_exit_trace_errors;
	if (r->stats)
		print_stats(r);
	cli_etm2_frame_stats(&fs, r->in.src[0].id, cycles);
	if (!rc && !r->stopped)
		cli_health_report(&r->health, &r->in, &fs);
	cli_form_table_free(&r->forms);
	cli_input_free(&r->in);
	return packets_end(r, rc);
}

static int run_packets(struct packets_run *r, int argc, char **argv)
{
	struct etmkit_session_config sc;
	int rc, err;

	r->in.frames = -1;
	r->in.protos = CLI_PROTO_ALL | CLI_PROTO_ETM2;
	cli_out_init(&r->out, stdout, r->out_buf, sizeof(r->out_buf),
		     isatty(fileno(stdout)));
	rc = parse_args(r, argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	rc = cli_input_resolve(&r->in, "packets");
	if (rc)
		return rc;
	if (cli_input_is_etm2(&r->in))
		return packets_etm2(r);
	etmkit_session_config_init(&sc);
	sc.frames = r->in.mode;
	sc.raw_id = r->in.src[0].id;
	sc.on_packet = on_packet;
	sc.ctx = r;
	sc.stop_on_error = (uint8_t)r->stop_on_error;
	sc.on_frame_event = on_frame_event;
	sc.on_gap = on_gap;
	err = etmkit_session_alloc(&r->session, &sc);
	for (int i = 0; err >= 0 && i < r->in.nsrc; i++)
		err = add_source(r, &r->in.src[i]);
	if (err < 0) {
		cli_error("cannot set up the decoder: %s",
			  etmkit_errstr(err));
		etmkit_session_free(r->session);
		cli_input_free(&r->in);
		return cli_exit_input;
	}
	if (!r->json && cli_header_wanted(stdout, r->header, r->no_header))
		cli_print_packet_header(&r->out);
	rc = cli_input_stream(&r->in, feed, r, r->session);
	if (r->stopped)
		rc = cli_exit_trace_errors;
	if (!rc && etmkit_session_finish(r->session) < 0)
		rc = cli_exit_input;
	if (r->stats)
		print_stats(r);
	if (!rc && !r->stopped)
		cli_health_report(&r->health, &r->in,
				  etmkit_session_frame_stats(r->session));
	cli_form_table_free(&r->forms);
	etmkit_session_free(r->session);
	cli_input_free(&r->in);
	return packets_end(r, rc);
}

/* The run on the heap: no state outlives it (cli/runs.h). */
int cmd_packets(int argc, char **argv)
{
	struct packets_run *r = calloc(1, sizeof(*r));
	int rc;

	if (!r) {
		cli_error("out of memory");
		return cli_exit_input;
	}
	rc = run_packets(r, argc, argv);
	free(r);
	return rc;
}
