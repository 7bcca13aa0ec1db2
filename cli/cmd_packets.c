/* etmkit packets: list the packets of each trace source (ETMv3, ETMv4,
 * ETE). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "packet_forms.h"

static const char packets_usage[] =
"Usage: etmkit packets --snapshot DIR [--buffer NAME] [--id ID]... [--json]\n"
"                      [--stats] [--stop-on-error]\n"
"       etmkit packets FILE --protocol etmv3 --etmcr X --etmidr Y [--etmccer Z]\n"
"                      [--m-profile] [OPTIONS]\n"
"       etmkit packets FILE --protocol etmv4|ete [--trcidr0 V] [--trcidr1 V]\n"
"                      [--trcidr2 V] [--trcidr8 V] [--trcconfigr V]\n"
"                      [--trcdevarch V] [OPTIONS]\n"
"  OPTIONS: [--frames coresight|tpiu|tpiu-hsync|none] [--id ID] [--json]\n"
"           [--stats] [--stop-on-error]\n"
"\n"
"List the trace packets of each ETMv3, ETMv4 and ETE trace source, one line\n"
"per packet.\n"
"\n"
"Input:\n"
"  --snapshot DIR   a trace snapshot directory (snapshot.ini, trace.ini and\n"
"                   the device .ini files); the sources writing to the first\n"
"                   trace buffer that holds one are decoded, each with the\n"
"                   protocol its device type names (ETM3.x, ETM4.x, ETE)\n"
"                   and the registers of its device file: ETMCR, ETMIDR,\n"
"                   ETMCCER, ETMTRACEIDR (ETMv3); TRCIDR0, 1, 2, 8,\n"
"                   TRCCONFIGR, TRCTRACEIDR, and if present TRCIDR9-13 and\n"
"                   TRCDEVARCH (ETMv4, ETE)\n"
"  --buffer NAME    with --snapshot: decode the sources of trace buffer NAME\n"
"                   (trace.ini's name=) instead of the first one\n"
"  FILE             a raw trace buffer; then give --protocol and the\n"
"                   registers (numbers in decimal or 0x hex):\n"
"    --protocol etmv3   --etmcr, --etmidr (required), --etmccer\n"
"    --protocol etmv4   --trcidr0 (default 0x28000EA1), --trcidr1\n"
"                       (0x4100F403: ETMv4.0), --trcidr2 (0x00000488),\n"
"                       --trcidr8 (0), --trcconfigr (0x000000C1),\n"
"                       --trcdevarch (0): an Arm Juno r1 ETMv4.0\n"
"    --protocol ete     --trcidr0 (default 0x2801CEA1), --trcidr1\n"
"                       (0x4100FFF0), --trcidr2 (0xD0001088), --trcidr8 (0),\n"
"                       --trcconfigr (0x00000001), --trcdevarch\n"
"                       (0x47705A13: ETE 1.0): an Arm FVP ETE\n"
"                   The registers of one family are refused with the other.\n"
"  --frames MODE    how FILE is framed: coresight (16-byte formatter frames,\n"
"                   the default), tpiu (frames aligned by FSYNC), tpiu-hsync\n"
"                   (also removes HSYNCs) or none (one raw source); with a\n"
"                   snapshot it overrides the buffer's format\n"
"  --id ID          the trace ID to list; may repeat (default: every\n"
"                   source). Framed raw files need exactly one.\n"
"  --m-profile      (etmv3) the raw file comes from an ARMv7-M core\n"
"                   (exception numbers and packets of IHI 0014Q 7.5); with a\n"
"                   snapshot this follows from the traced core's type\n"
"\n"
"Output:\n"
"  (default)        text: input offset, trace ID, bytes, type, fields\n"
"  --json           JSON Lines, one object per packet (schema in README)\n"
"  --stats          after the listing, on stderr: records per type and ID,\n"
"                   then per form and ID ('records by form'): the type and\n"
"                   its encoding, e.g. 'p_header cycle_accurate format=3',\n"
"                   'branch_address alt bytes=3 exc_bytes=1 exception',\n"
"                   'address short is=1 bits=8', 'atom format=6' (the\n"
"                   forms are listed in etmkit(1))\n"
"  --stop-on-error  stop at the first reserved or malformed packet or frame\n"
"                   (exit status 1) instead of resynchronising\n"
"\n"
"Bytes before the first A-sync (and after a decode error, until the next\n"
"A-sync) are reported as one 'unsynced' record per run. A reserved header or\n"
"malformed packet is reported with ERROR and decoding resumes at the next\n"
"A-sync.\n"
"\n"
"Exit status: 0 success; 1 the trace had decode errors (reported); 2 usage\n"
"error; 3 input missing, unreadable or malformed.\n";

/* Record types per protocol: room for the larger set. */
#define PACKETS_MAX_TYPES \
	((int)etm4_pkt_type_count > (int)etm3_pkt_type_count ? \
		 (int)etm4_pkt_type_count : (int)etm3_pkt_type_count)

struct packets_run {
	struct cli_input in;
	struct etmkit_session *session;
	int json, stats, stop_on_error, stopped;
	uint64_t errors, truncated;
	uint8_t m_profile[DEFORMAT_ID_COUNT];
	uint8_t proto[DEFORMAT_ID_COUNT];   /* enum etmkit_protocol per ID */
	uint8_t form_cfg[DEFORMAT_ID_COUNT]; /* ETMv3: CLI_FORM_ETM3_* per ID */
	/* Records per ID and type (the ID's protocol's types). */
	uint64_t counts[DEFORMAT_ID_COUNT][PACKETS_MAX_TYPES];
	struct cli_form_table forms;       /* --stats: records per ID and form */
	FILE *out;
};

/* Count record @type with error @error of trace ID @id. */
static void count(struct packets_run *r, uint8_t id, unsigned type,
		  unsigned ntypes, int error)
{
	/* A packet cut by the end of the buffer is normal for a ring-buffer
	 * capture: reported, but not a decode error. */
	if (error == -etmkit_err_truncated)
		r->truncated++;
	else if (error)
		r->errors++;
	if (type < ntypes)
		r->counts[id & 0x7f][type]++;
}

static void on_etm3(struct packets_run *r, uint8_t id,
		    const struct etm3_packet *p)
{
	int m = r->m_profile[id & 0x7f];

	if (r->json)
		cli_print_etm3_json(r->out, id, p, m);
	else
		cli_print_etm3_text(r->out, id, p, m);
	count(r, id, p->type, etm3_pkt_type_count, p->error);
	if (r->stats)
		cli_form_count(&r->forms, id & 0x7f,
			       cli_form_etm3_key(p, r->form_cfg[id & 0x7f]));
}

static void on_etm4(struct packets_run *r, uint8_t id,
		    enum etmkit_protocol proto, const struct etm4_packet *p)
{
	int ete = proto == etmkit_proto_ete;

	if (r->json)
		cli_print_etm4_json(r->out, id, p, ete);
	else
		cli_print_etm4_text(r->out, id, p, ete);
	count(r, id, p->type, etm4_pkt_type_count, p->error);
	if (r->stats)
		cli_form_count(&r->forms, id & 0x7f, cli_form_etm4_key(p));
}

static int on_packet(void *ctx, uint8_t id, enum etmkit_protocol proto,
		     const void *packet)
{
	struct packets_run *r = ctx;

	switch (proto) {
	case etmkit_proto_etmv3:
		on_etm3(r, id, packet);
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
	if (r->json)
		fprintf(r->out, "{\"offset\":%" PRIu64 ",\"type\":\"frame_error\","
			"\"length\":%" PRIu64 ",\"error\":\"%s\"}\n", ev->offset,
			ev->length, msg);
	else
		fprintf(r->out, "%10" PRIu64 "  --  frame_error %" PRIu64
			" bytes  ERROR: %s\n", ev->offset, ev->length, msg);
	r->errors++;
	return 0;
}

static int feed(void *ctx, const uint8_t *buf, size_t n)
{
	struct packets_run *r = ctx;

	return cli_session_feed("packets", r->session, buf, n,
				r->stop_on_error, &r->stopped);
}

/* The name of record type @t of protocol @proto. */
static const char *type_name(unsigned proto, unsigned t)
{
	if (proto == etmkit_proto_etmv3)
		return etm3_pkt_type_name((enum etm3_pkt_type)t);
	return etm4_pkt_type_name((enum etm4_pkt_type)t);
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
		else
			cli_form_etm4_name(list[i].key, name, sizeof(name));
		fprintf(stderr, "  %-40s %" PRIu64 "\n", name, list[i].n);
	}
}

static void print_stats(const struct packets_run *r)
{
	struct cli_form_count *list;

	for (unsigned id = 0; id < DEFORMAT_ID_COUNT; id++) {
		unsigned ntypes = r->proto[id] == etmkit_proto_etmv3 ?
					  etm3_pkt_type_count :
					  etm4_pkt_type_count;
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
		fprintf(stderr, "etmkit packets: out of memory: records by "
			"form %s\n", list ? "incomplete" : "not listed");
	for (unsigned id = 0; list && id < DEFORMAT_ID_COUNT; id++)
		print_forms(r, id, list, r->forms.used);
	free(list);
}

/* Add source @cs to the session. */
static int add_source(struct packets_run *r, const struct cli_source *cs)
{
	struct etm3_config_info info;

	r->proto[cs->id & 0x7f] = cs->proto;
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
		{ .name = NULL }
	};

	return cli_parse_args("packets", packets_usage, flags, &r->in, argc, argv);
}

int cmd_packets(int argc, char **argv)
{
	static struct packets_run r;
	struct etmkit_session_config sc;
	int rc, err;

	memset(&r, 0, sizeof(r));
	r.in.frames = -1;
	r.in.protos = CLI_PROTO_ALL;
	r.out = stdout;
	rc = parse_args(&r, argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	rc = cli_input_resolve(&r.in, "packets");
	if (rc)
		return rc;
	etmkit_session_config_init(&sc);
	sc.frames = r.in.mode;
	sc.raw_id = r.in.src[0].id;
	sc.on_packet = on_packet;
	sc.ctx = &r;
	sc.stop_on_error = (uint8_t)r.stop_on_error;
	sc.on_frame_event = on_frame_event;
	err = etmkit_session_alloc(&r.session, &sc);
	for (int i = 0; err >= 0 && i < r.in.nsrc; i++)
		err = add_source(&r, &r.in.src[i]);
	if (err < 0) {
		fprintf(stderr, "etmkit packets: cannot set up the decoder: %s\n",
			etmkit_errstr(err));
		etmkit_session_free(r.session);
		return cli_exit_input;
	}
	rc = cli_input_stream(&r.in, feed, &r);
	if (r.stopped)
		rc = cli_exit_trace_errors;
	if (!rc && etmkit_session_finish(r.session) < 0)
		rc = cli_exit_input;
	if (r.stats)
		print_stats(&r);
	cli_form_table_free(&r.forms);
	etmkit_session_free(r.session);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "etmkit packets: cannot write the output\n");
		return cli_exit_input;
	}
	if (!rc && r.truncated)
		fprintf(stderr, "etmkit packets: note: the buffer ends inside a "
			"packet (%" PRIu64 " source%s)\n", r.truncated,
			r.truncated == 1 ? "" : "s");
	if (!rc && r.errors) {
		fprintf(stderr, "etmkit packets: %" PRIu64 " decode error%s in the "
			"trace (marked ERROR in the listing)\n", r.errors,
			r.errors == 1 ? "" : "s");
		rc = cli_exit_trace_errors;
	}
	return rc;
}
