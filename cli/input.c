/* etmkit CLI: where the trace comes from (snapshot or raw file). */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli.h"
#include "progress.h"

/* Option names of the ETMv4/ETE registers, by enum cli_trc_reg. */
static const char *const trc_names[cli_trc_count] = {
	"trcidr0", "trcidr1", "trcidr2", "trcidr8", "trcconfigr", "trcdevarch"
};

/* Raw ETMv4/ETE files: register values used when an option is absent.
 * ETMv4: the Cortex-A57/A53 ETMv4.0 of Arm's Juno r1 (its snapshots'
 * device files): 64-bit timestamps, commit option 1, cycle counting,
 * 64-bit addresses, 32-bit context IDs, 8-bit VMIDs. ETE: Arm FVP's ETE 1.0
 * (the ETE captures' device files): the same features, plus 32-bit VMIDs,
 * a 20-bit cycle counter and Q support. Both trace with context IDs
 * enabled and nothing else optional. */
static const uint32_t trc_default_etm4[cli_trc_count] = {
	0x28000EA1, 0x4100F403, 0x00000488, 0, 0x000000C1, 0
};
static const uint32_t trc_default_ete[cli_trc_count] = {
	0x2801CEA1, 0x4100FFF0, 0xD0001088, 0, 0x00000001, 0x47705A13
};

int cli_parse_u64(const char *s, uint64_t *v, int allow_neg)
{
	char *end;
	int neg = allow_neg && s && *s == '-';
	unsigned long long x;

	if (neg)
		s++;
	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*v = neg ? (uint64_t)0 - x : x;
	return 0;
}

int cli_parse_u32(const char *s, uint32_t *v)
{
	uint64_t x;

	if (cli_parse_u64(s, &x, 0) || x > 0xffffffffull)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

int cli_parse_ranges(const char *s, struct cli_ranges *r)
{
	while (s && *s) {
		char *end;
		unsigned long lo, hi;

		if (*s < '0' || *s > '9' || r->n >= CLI_MAX_RANGES)
			return -1;
		errno = 0;
		lo = hi = strtoul(s, &end, 10);
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				return -1;
			hi = strtoul(end + 1, &end, 10);
		}
		if (errno || lo > hi || hi > 0xffffffffUL ||
		    (*end && *end != ','))
			return -1;
		r->lo[r->n] = (uint32_t)lo;
		r->hi[r->n++] = (uint32_t)hi;
		s = *end ? end + 1 : end;
		if (*end && !*s)
			return -1; /* a trailing comma */
	}
	return r->n ? 0 : -1;
}

int cli_in_ranges(const struct cli_ranges *r, uint32_t v)
{
	for (size_t i = 0; i < r->n; i++)
		if (v >= r->lo[i] && v <= r->hi[i])
			return 1;
	return 0;
}

static int bad_value(const char *opt, const char *arg, const char *what)
{
	cli_error("invalid value '%s' for --%s: %s", arg, opt, what);
	return -1;
}

int cli_input_option(struct cli_input *in, int opt, const char *arg)
{
	uint32_t v;

	switch (opt) {
	case opt_snapshot:
		in->snapshot = arg;
		return 1;
	case opt_protocol:
		if (strcmp(arg, "etmv3") && strcmp(arg, "ptm") &&
		    strcmp(arg, "etmv4") && strcmp(arg, "ete") &&
		    strcmp(arg, "etmv2"))
			return bad_value("protocol", arg,
					 "expected etmv3, ptm, etmv4, ete or etmv2");
		in->protocol = arg;
		return 1;
	case opt_buffer:
		in->buffer = arg;
		return 1;
	case opt_id:
		if (cli_parse_u32(arg, &v) || v > 0x7f)
			return bad_value("id", arg, "expected a trace ID from 0 to 0x7f");
		if (in->nids >= CLI_MAX_IDS)
			return bad_value("id", arg, "too many IDs");
		in->ids[in->nids++] = (uint8_t)v;
		return 1;
	case opt_etmcr:
	case opt_etmidr:
	case opt_etmccer:
		if (cli_parse_u32(arg, &v))
			return bad_value(opt == opt_etmcr ? "etmcr" :
					 opt == opt_etmidr ? "etmidr" : "etmccer",
					 arg, "expected a 32-bit number");
		if (opt == opt_etmcr) { in->etmcr = v; in->have_etmcr = 1; }
		if (opt == opt_etmidr) { in->etmidr = v; in->have_etmidr = 1; }
		if (opt == opt_etmccer) { in->etmccer = v; in->have_etmccer = 1; }
		return 1;
	case opt_jobs:
		if (cli_parse_u32(arg, &v) < 0 || v < 1 || v > 256)
			return bad_value("jobs", arg,
					 "expected a number of threads from 1 "
					 "to 256");
		in->jobs = v;
		return 1;
	case opt_cpu:
		if (cli_parse_ranges(arg, &in->cpus) < 0)
			return bad_value("cpu", arg, "expected CPU numbers and "
					 "ranges, as 0,2-3");
		return 1;
	case opt_frames: {
		int m = deformat_mode_parse(arg);

		if (m < 0)
			return bad_value("frames", arg,
					 "expected coresight, tpiu, tpiu-hsync or none");
		in->frames = m;
		return 1;
	}
	default:
		if (opt >= opt_port_width && opt <= opt_demux_order)
			return cli_etm2_option(in, opt, arg);
		if (opt < opt_trcidr0 || opt > opt_trc_last)
			return 0;
		if (cli_parse_u32(arg, &v))
			return bad_value(trc_names[opt - opt_trcidr0], arg,
					 "expected a 32-bit number");
		in->trc[opt - opt_trcidr0] = v;
		in->have_trc |= 1u << (opt - opt_trcidr0);
		return 1;
	}
}

int cli_id_wanted(const struct cli_input *in, uint8_t id)
{
	if (!in->nids)
		return 1;
	for (int i = 0; i < in->nids; i++)
		if (in->ids[i] == id)
			return 1;
	return 0;
}

static int diag_error(const struct snapshot_diag *d, int err)
{
	if (d->line)
		cli_error("%s:%d: %s", d->path, d->line, d->message);
	else
		cli_error("%s: %s (%s)", d->path, d->message,
			  etmkit_errstr(err));
	return cli_exit_input;
}

static int buffer_mode(const struct snapshot_buffer *b, enum deformat_mode *m)
{
	if (!strcasecmp(b->format, "coresight")) {
		*m = deformat_coresight;
		return 0;
	}
	if (!strcasecmp(b->format, "source_data")) {
		*m = deformat_none;
		return 0;
	}
	return -1;
}

static unsigned protos_of(const struct cli_input *in)
{
	return in->protos ? in->protos : CLI_PROTO(etmkit_proto_etmv3);
}

/* The ETMv3 configuration of snapshot device @dev into @cs. Returns 0 or a
 * cli_exit after a message. */
static int snapshot_etm3(struct cli_source *cs, const struct snapshot *ss,
			 const struct snapshot_source *s,
			 const struct snapshot_device *dev)
{
	struct etm3_config_info info;
	struct snapshot_diag d;

	memset(&d, 0, sizeof(d));
	if (snapshot_etm3_config(dev, &cs->cfg, &cs->id, &d) < 0)
		return diag_error(&d, -etmkit_err_format);
	if (etm3_config_decode(&cs->cfg, &info) < 0) {
		cli_error("%s: ETMIDR 0x%08x of %s does not "
			  "describe an ETMv3 (ETMIDR[11:8] must be 2)",
			  dev->path, cs->cfg.etmidr, dev->name);
		return cli_exit_input;
	}
	/* An ARMv7-M core has its own exception numbers and packets
	 * (Q 7.5): recognised by the traced core's type. */
	if (s->core) {
		const struct snapshot_device *core =
			snapshot_find_device(ss, s->core);

		if (core && core->type && !strncasecmp(core->type, "Cortex-M", 8))
			cs->cfg.flags |= ETM3_CFG_M_PROFILE;
	}
	return 0;
}

/* The PTM configuration of snapshot device @dev into @cs: its ETMIDR must
 * name PFT (snapshot_device_protocol() also takes the type's word). */
static int snapshot_ptm(struct cli_source *cs,
			const struct snapshot_device *dev)
{
	struct ptm_config_info info;
	struct snapshot_diag d;

	memset(&d, 0, sizeof(d));
	if (snapshot_ptm_config(dev, &cs->ptm, &cs->id, &d) < 0)
		return diag_error(&d, -etmkit_err_format);
	if (ptm_config_decode(&cs->ptm, &info) < 0) {
		cli_error("%s: ETMIDR 0x%08x of %s (type %s) does not "
			  "describe a PTM (ETMIDR[11:8] must be 3)",
			  dev->path, cs->ptm.etmidr, dev->name,
			  dev->type ? dev->type : "?");
		return cli_exit_input;
	}
	return 0;
}

/* Why etm4_config_decode() refused @cfg, for a message. */
static const char *etm4_refusal(const struct etm4_config *cfg)
{
	if (cfg->flags & ETM4_CFG_ETE)
		return "TRCDEVARCH must name an ETE (ARCHVER, bits [15:12], "
		       "5) or be 0 (ETE 1.0)";
	return "TRCIDR1 must name an ETMv4 (TRCARCHMAJ, bits [11:8], 4)";
}

/* The ETMv4/ETE configuration of snapshot device @dev into @cs. */
static int snapshot_etm4(struct cli_source *cs,
			 const struct snapshot_device *dev)
{
	struct etm4_config_info info;
	struct snapshot_diag d;

	memset(&d, 0, sizeof(d));
	if (snapshot_etm4_config(dev, &cs->etm4, &cs->id, &d) < 0)
		return diag_error(&d, -etmkit_err_format);
	if (etm4_config_decode(&cs->etm4, &info) < 0) {
		cli_error("%s: the registers of %s (type %s) do "
			  "not describe a trace unit this version decodes: %s "
			  "(TRCIDR1 0x%08x, TRCDEVARCH 0x%08x)", dev->path,
			  dev->name, dev->type, etm4_refusal(&cs->etm4),
			  cs->etm4.trcidr1, cs->etm4.trcdevarch);
		return cli_exit_input;
	}
	return 0;
}

/* Add every trace source of a wanted protocol writing to buffer @bname. */
static int add_snapshot_sources(struct cli_input *in, const struct snapshot *ss,
				const char *bname, int quiet)
{
	for (size_t i = 0; i < snapshot_source_count(ss); i++) {
		const struct snapshot_source *s = snapshot_source_at(ss, i);
		const struct snapshot_device *dev = snapshot_find_device(ss, s->name);
		enum etmkit_protocol proto;
		struct cli_source *cs;
		int rc;

		if (!dev || strcmp(s->buffer, bname) != 0)
			continue;
		proto = snapshot_device_protocol(dev);
		if (proto == etmkit_proto_none ||
		    !(protos_of(in) & CLI_PROTO(proto))) {
			/* A source of a type this version does not decode
			 * is a warning (issue 17: the snapshot is accepted,
			 * what is left out is named); one this command does
			 * not take is a note. */
			if (!quiet && !in->nids && proto == etmkit_proto_none)
				cli_warn("%s: skipping %s (type %s): protocol "
					 "not decoded by this version",
					 dev->path, dev->name,
					 dev->type ? dev->type : "?");
			else if (!quiet && !in->nids)
				cli_note("%s: skipping %s (type %s): protocol "
					 "not decoded by this command",
					 dev->path, dev->name,
					 dev->type ? dev->type : "?");
			continue;
		}
		if (in->nsrc >= CLI_MAX_IDS)
			break;
		cs = &in->src[in->nsrc];
		memset(cs, 0, sizeof(*cs));
		cs->proto = (uint8_t)proto;
		rc = proto == etmkit_proto_etmv3 ? snapshot_etm3(cs, ss, s, dev) :
		     proto == etmkit_proto_ptm ? snapshot_ptm(cs, dev) :
		     proto == etmkit_proto_etmv2 ? cli_etm2_snapshot_source(cs, dev) :
						 snapshot_etm4(cs, dev);
		if (rc)
			return rc;
		if (!cli_id_wanted(in, cs->id))
			continue;
		in->nsrc++;
		if (s->core)
			snprintf(cs->core, sizeof(cs->core), "%s", s->core);
		snprintf(cs->name, sizeof(cs->name), "%s", dev->name);
	}
	return 0;
}

/* The protocols of @in as words, for messages: "ETMv3", "ETMv3, PTM,
 * ETMv4 or ETE". */
static const char *protos_text(const struct cli_input *in)
{
	switch (protos_of(in)) {
	case CLI_PROTO(etmkit_proto_etmv3):
		return "ETMv3";
	case CLI_PROTO_ETM4:
		return "ETMv4 or ETE";
	case CLI_PROTO_ALL | CLI_PROTO_ETM2:
		return "ETMv3, PTM, ETMv4, ETE or ETMv2";
	default:
		return "ETMv3, PTM, ETMv4 or ETE";
	}
}

/* The trace ID of snapshot trace source @dev (ETMTRACEIDR of ETMv3 and
 * PTM, TRCTRACEIDR of ETMv4 and ETE), or -1 if it names none. */
static int device_trace_id(const struct snapshot_device *dev)
{
	uint64_t v;

	if (snapshot_reg_value(dev, "ETMTRACEIDR", &v) == 0 ||
	    snapshot_reg_value(dev, "TRCTRACEIDR", &v) == 0)
		return (int)(v & 0x7f);
	return -1;
}

static const char *proto_name(enum etmkit_protocol p)
{
	return p == etmkit_proto_etmv3 ? "ETMv3" :
	       p == etmkit_proto_ptm ? "PTM" :
	       p == etmkit_proto_etmv4 ? "ETMv4" :
	       p == etmkit_proto_ete ? "ETE" :
	       p == etmkit_proto_etmv2 ? "ETMv2" : NULL;
}

/* What a snapshot holds, after an --id or --buffer that matched nothing:
 * each buffer, and the sources writing to it with their IDs and
 * protocols. */
static void list_snapshot(const struct cli_input *in, const struct snapshot *ss)
{
	cli_detail("  trace buffers and sources of %s:", in->snapshot);
	for (size_t b = 0; b < snapshot_buffer_count(ss); b++) {
		const struct snapshot_buffer *buf = snapshot_buffer_at(ss, b);

		cli_detail("    --buffer %s (format %s):", buf->name,
			   buf->format);
		for (size_t i = 0; i < snapshot_source_count(ss); i++) {
			const struct snapshot_source *s =
				snapshot_source_at(ss, i);
			const struct snapshot_device *dev =
				snapshot_find_device(ss, s->name);
			enum etmkit_protocol p;
			const char *pn;
			int id;
			char col[24];

			if (!dev || strcmp(s->buffer, buf->name) != 0)
				continue;
			id = device_trace_id(dev);
			p = snapshot_device_protocol(dev);
			pn = proto_name(p);
			if (id >= 0)
				snprintf(col, sizeof(col), "--id 0x%02x  ", id);
			else
				snprintf(col, sizeof(col), "(no ID)    ");
			cli_detail("      %s%s (type %s): %s%s", col, dev->name,
				   dev->type && *dev->type ? dev->type : "?",
				   pn ? pn : "not decoded by this version",
				   pn && !(protos_of(in) & CLI_PROTO(p)) ?
					   ", not decoded by this command" :
					   "");
		}
	}
}

/* Requested trace ID @id that no decoded source has: say what it is.
 * Returns 1 if a source of the snapshot has that ID. */
static int explain_id(const struct cli_input *in, const struct snapshot *ss,
		      uint8_t id, void (*say)(const char *fmt, ...))
{
	for (size_t i = 0; i < snapshot_source_count(ss); i++) {
		const struct snapshot_source *s = snapshot_source_at(ss, i);
		const struct snapshot_device *dev =
			snapshot_find_device(ss, s->name);
		enum etmkit_protocol p;

		if (!dev || device_trace_id(dev) != id)
			continue;
		p = snapshot_device_protocol(dev);
		if (p == etmkit_proto_none)
			say("--id 0x%02x is %s (type %s), a protocol this "
			    "version does not decode (it decodes ETMv3, PTM, "
			    "ETMv4 and ETE)", id, dev->name,
			    dev->type && *dev->type ? dev->type : "?");
		else if (!(protos_of(in) & CLI_PROTO(p)))
			say("--id 0x%02x is %s, %s %s source: not decoded "
			    "by this command", id, dev->name,
			    p == etmkit_proto_ptm ? "a" : "an", proto_name(p));
		else
			say("--id 0x%02x is %s, which writes to buffer %s, "
			    "not %s: give --buffer %s", id, dev->name,
			    s->buffer, in->buffer ? in->buffer :
			    "the one decoded", s->buffer);
		return 1;
	}
	say("no trace source of snapshot %s has --id 0x%02x", in->snapshot,
	    id);
	return 0;
}

/* Each --id that no source resolved: explained. Returns how many. */
static int explain_ids(const struct cli_input *in, const struct snapshot *ss,
		       void (*say)(const char *fmt, ...))
{
	int missing = 0;

	for (int k = 0; k < in->nids; k++) {
		int found = 0;

		for (int i = 0; i < in->nsrc && !found; i++)
			found = in->src[i].id == in->ids[k];
		if (found)
			continue;
		explain_id(in, ss, in->ids[k], say);
		missing++;
	}
	return missing;
}

/* What snapshot_open() skipped (snapshot.h, struct snapshot_note): one
 * warning each, naming the file and line. */
static void warn_snapshot_notes(const struct snapshot *ss)
{
	for (size_t i = 0; i < snapshot_note_count(ss); i++) {
		const struct snapshot_note *n = snapshot_note_at(ss, i);

		cli_warn("%s:%d: %s", n->path, n->line, n->message);
	}
}

static int resolve_snapshot(struct cli_input *in)
{
	struct snapshot *ss = NULL;
	struct snapshot_diag d;
	int err, rc = 0;
	const struct snapshot_buffer *buf = NULL;

	memset(&d, 0, sizeof(d));
	err = snapshot_open(&ss, in->snapshot, &d);
	if (err < 0)
		return diag_error(&d, err);
	warn_snapshot_notes(ss);
	if (snapshot_buffer_count(ss) == 0) {
		cli_error("snapshot %s lists no trace buffer", in->snapshot);
		rc = cli_exit_input;
		goto out;
	}
	if (in->buffer) {
		/* --buffer NAME: that buffer's sources only. */
		buf = snapshot_find_buffer(ss, in->buffer);
		if (!buf) {
			cli_error("snapshot %s has no trace buffer named '%s'",
				  in->snapshot, in->buffer);
			list_snapshot(in, ss);
			rc = cli_exit_input;
			goto out;
		}
		rc = add_snapshot_sources(in, ss, buf->name, 0);
		if (rc)
			goto out;
	}
	/* Else use the first buffer holding a wanted source. */
	for (size_t b = 0; !in->buffer && b < snapshot_buffer_count(ss) &&
			   !in->nsrc; b++) {
		buf = snapshot_buffer_at(ss, b);
		rc = add_snapshot_sources(in, ss, buf->name, b != 0);
		if (rc)
			goto out;
	}
	if (!in->nsrc) {
		if (in->nids)
			explain_ids(in, ss, cli_error);
		else
			cli_error("no %s trace source in %s%s of snapshot %s",
				  protos_text(in), in->buffer ? "buffer " :
				  "any buffer", in->buffer ? in->buffer : "",
				  in->snapshot);
		list_snapshot(in, ss);
		rc = cli_exit_input;
		goto out;
	}
	/* Some --id decoded, others not: say which and go on. */
	if (in->nids && explain_ids(in, ss, cli_warn))
		cli_note("decoding the other --id");
	err = cli_etm2_buffer_format(in, buf->format);
	if (err < 0) {
		rc = cli_exit_input;
		goto out;
	}
	if (err > 0)
		in->mode = deformat_none;
	else if (buffer_mode(buf, &in->mode) < 0) {
		cli_error("%s/trace.ini: buffer %s has format "
			  "'%s'; this version reads 'coresight' and 'source_data'",
			  in->snapshot, buf->name, buf->format);
		rc = cli_exit_input;
		goto out;
	}
	if (in->frames >= 0 && !cli_input_is_etm2(in))
		in->mode = (enum deformat_mode)in->frames;
	if (in->etm2.given && !cli_input_is_etm2(in)) {
		cli_error("--%s applies to ETMv2 trace sources only",
			  in->etm2.given);
		rc = cli_exit_usage;
		goto out;
	}
	snprintf(in->buffer_path, sizeof(in->buffer_path), "%s", buf->file);
	if (in->keep_snapshot) {
		in->ss = ss;
		ss = NULL;
	}
out:
	snapshot_free(ss);
	return rc;
}

/* Register options of the other protocol family than @proto (ETMv3 and
 * PTM take the ETM registers, ETMv4 and ETE the TRC ones): a usage error
 * naming the first one. */
static int foreign_options(const struct cli_input *in, enum etmkit_protocol proto)
{
	int etm = proto == etmkit_proto_etmv3 || proto == etmkit_proto_ptm;
	const char *opt = NULL;

	if (etm) {
		for (int r = 0; r < cli_trc_count && !opt; r++)
			if (in->have_trc & (1u << r))
				opt = trc_names[r];
	} else {
		opt = in->have_etmcr ? "etmcr" : in->have_etmidr ? "etmidr" :
		      in->have_etmccer ? "etmccer" : NULL;
	}
	if (!opt)
		return 0;
	if (etm)
		cli_error("--%s is an ETMv4/ETE register; "
			  "--protocol %s takes --etmcr, --etmidr and "
			  "--etmccer", opt, in->protocol);
	else
		cli_error("--%s is an ETMv3 register; "
			  "--protocol %s takes --trcidr0, --trcidr1, --trcidr2, "
			  "--trcidr8, --trcconfigr and --trcdevarch", opt,
			  in->protocol);
	return cli_exit_usage;
}

static int raw_etm3(struct cli_input *in)
{
	struct etm3_config_info info;
	struct cli_source *cs = &in->src[0];

	if (!in->have_etmcr || !in->have_etmidr) {
		cli_error("--protocol etmv3 needs --etmcr and "
			  "--etmidr (and --etmccer for timestamps and Hyp)");
		return cli_exit_usage;
	}
	etm3_config_init(&cs->cfg);
	cs->cfg.etmcr = in->etmcr;
	cs->cfg.etmidr = in->etmidr;
	cs->cfg.etmccer = in->etmccer;
	if (in->m_profile)
		cs->cfg.flags |= ETM3_CFG_M_PROFILE;
	if (etm3_config_decode(&cs->cfg, &info) < 0) {
		cli_error("--etmidr 0x%08x does not describe an "
			  "ETMv3 (ETMIDR[11:8] must be 2)", in->etmidr);
		return cli_exit_usage;
	}
	return 0;
}

/* PTM: --etmcr and --etmidr (IHI 0035B 3.16: ETMIDR[11:8] = 3 names
 * PFT), and --etmccer for timestamps, the return stack and Hyp. */
static int raw_ptm(struct cli_input *in)
{
	struct ptm_config_info info;
	struct cli_source *cs = &in->src[0];

	if (!in->have_etmcr || !in->have_etmidr) {
		cli_error("--protocol ptm needs --etmcr and --etmidr (and "
			  "--etmccer for timestamps, the return stack and Hyp)");
		return cli_exit_usage;
	}
	ptm_config_init(&cs->ptm);
	cs->ptm.etmcr = in->etmcr;
	cs->ptm.etmidr = in->etmidr;
	cs->ptm.etmccer = in->etmccer;
	if (ptm_config_decode(&cs->ptm, &info) < 0) {
		cli_error("--etmidr 0x%08x does not describe a PTM "
			  "(ETMIDR[11:8] must be 3)", in->etmidr);
		return cli_exit_usage;
	}
	return 0;
}

/* ETMv4/ETE: the register options over the protocol's defaults. */
static int raw_etm4(struct cli_input *in, enum etmkit_protocol proto)
{
	const uint32_t *def = proto == etmkit_proto_ete ? trc_default_ete :
							  trc_default_etm4;
	struct cli_source *cs = &in->src[0];
	struct etm4_config_info info;
	uint32_t v[cli_trc_count];

	for (int r = 0; r < cli_trc_count; r++)
		v[r] = (in->have_trc & (1u << r)) ? in->trc[r] : def[r];
	etm4_config_init(&cs->etm4);
	cs->etm4.trcidr0 = v[cli_trcidr0];
	cs->etm4.trcidr1 = v[cli_trcidr1];
	cs->etm4.trcidr2 = v[cli_trcidr2];
	cs->etm4.trcidr8 = v[cli_trcidr8];
	cs->etm4.trcconfigr = v[cli_trcconfigr];
	cs->etm4.trcdevarch = v[cli_trcdevarch];
	if (proto == etmkit_proto_ete)
		cs->etm4.flags |= ETM4_CFG_ETE;
	if (etm4_config_decode(&cs->etm4, &info) < 0) {
		cli_error("the registers do not describe %s: "
			  "%s (--trcidr1 0x%08x, --trcdevarch 0x%08x)",
			  proto == etmkit_proto_ete ? "an ETE" : "an ETMv4",
			  etm4_refusal(&cs->etm4), cs->etm4.trcidr1,
			  cs->etm4.trcdevarch);
		return cli_exit_usage;
	}
	return 0;
}

static int resolve_raw(struct cli_input *in)
{
	struct cli_source *cs = &in->src[0];
	enum etmkit_protocol proto;
	int rc;

	if (!in->protocol) {
		cli_error("a raw file needs --protocol etmv3, "
			  "ptm, etmv4 or ete (or use --snapshot DIR)");
		return cli_exit_usage;
	}
	proto = !strcmp(in->protocol, "etmv3") ? etmkit_proto_etmv3 :
		!strcmp(in->protocol, "ptm") ? etmkit_proto_ptm :
		!strcmp(in->protocol, "etmv4") ? etmkit_proto_etmv4 :
		!strcmp(in->protocol, "etmv2") ? etmkit_proto_etmv2 :
						 etmkit_proto_ete;
	if (!(protos_of(in) & CLI_PROTO(proto))) {
		cli_error("--protocol %s is not decoded by this "
			  "command (it takes %s)", in->protocol,
			  protos_text(in));
		return cli_exit_usage;
	}
	if (in->buffer) {
		cli_error("--buffer names a snapshot's trace "
			  "buffer; it needs --snapshot");
		return cli_exit_usage;
	}
	if (proto == etmkit_proto_etmv2)
		return cli_etm2_resolve_raw(in);
	if (in->etm2.given) {
		cli_error("--%s applies to --protocol etmv2 only",
			  in->etm2.given);
		return cli_exit_usage;
	}
	rc = foreign_options(in, proto);
	if (rc)
		return rc;
	if (in->m_profile && proto != etmkit_proto_etmv3) {
		cli_error("--m-profile applies to --protocol etmv3 only");
		return cli_exit_usage;
	}
	in->mode = in->frames >= 0 ? (enum deformat_mode)in->frames :
				    deformat_coresight;
	if (in->mode != deformat_none && in->nids != 1) {
		cli_error("framed input needs exactly one --id "
			  "(the trace unit's trace ID)");
		return cli_exit_usage;
	}
	memset(cs, 0, sizeof(*cs));
	cs->proto = (uint8_t)proto;
	rc = proto == etmkit_proto_etmv3 ? raw_etm3(in) :
	     proto == etmkit_proto_ptm ? raw_ptm(in) : raw_etm4(in, proto);
	if (rc)
		return rc;
	cs->id = in->nids ? in->ids[0] : 0;
	snprintf(cs->name, sizeof(cs->name), "raw");
	in->nsrc = 1;
	snprintf(in->buffer_path, sizeof(in->buffer_path), "%s", in->file);
	return 0;
}

int cli_is_snapshot_dir(const char *path)
{
	char ini[4096];
	struct stat st;

	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	snprintf(ini, sizeof(ini), "%s/snapshot.ini", path);
	return stat(ini, &st) == 0 && S_ISREG(st.st_mode);
}

int cli_input_resolve(struct cli_input *in, const char *cmd)
{
	cli_msg_command(cmd);
	if (in->snapshot && in->file) {
		cli_error("give either --snapshot DIR or FILE, "
			  "not both");
		return cli_exit_usage;
	}
	if (in->multi && in->file && cli_is_snapshot_dir(in->file)) {
		/* INPUT a snapshot directory */
		in->snapshot = in->file;
		in->file = NULL;
	}
	if (in->cpus.n && (in->snapshot || !in->file ||
			   !cli_is_perf_file(in->file))) {
		cli_error("--cpu selects CPUs of a perf.data recording; "
			  "give --id for other inputs");
		return cli_exit_usage;
	}
	if (in->snapshot)
		return resolve_snapshot(in);
	if (in->file && cli_is_perf_file(in->file))
		return cli_perf_resolve(in, protos_of(in));
	if (in->file)
		return resolve_raw(in);
	cli_error("no input: give --snapshot DIR or FILE "
		  "(see etmkit %s --help)", cmd);
	return cli_exit_usage;
}

unsigned cli_input_jobs(const struct cli_input *in)
{
	long n;

	if (in->jobs)
		return in->jobs;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 256 ? 256 : (unsigned)n;
}

int cli_session_feed(const char *cmd, const struct cli_input *in,
		     struct etmkit_session *s, const uint8_t *buf, size_t n,
		     int stop_on_error, int *stopped)
{
	int raw = in->perf ? in->raw_piece : -1;
	int err = raw >= 0 ? etmkit_session_feed_raw(s, (uint8_t)raw, buf, n)
			   : etmkit_session_feed(s, buf, n);

	cli_msg_command(cmd);
	if (stop_on_error && (err == -etmkit_err_bad_packet ||
			      err == -etmkit_err_bad_frame)) {
		*stopped = 1;
		cli_error("stopped at the first decode error "
			  "(--stop-on-error): %s", etmkit_errstr(err));
	} else if (err < 0) {
		cli_error("%s", etmkit_errstr(err));
	}
	return err;
}

void cli_input_free(struct cli_input *in)
{
	snapshot_free(in->ss);
	in->ss = NULL;
	perf_file_free(in->perf);
	in->perf = NULL;
}

int cli_input_stream(struct cli_input *in,
		     int (*feed)(void *ctx, const uint8_t *buf, size_t n),
		     void *ctx, struct etmkit_session *s)
{
	enum { chunk = 1 << 20 };
	struct cli_progress pr;
	struct stat st;
	uint64_t done = 0;
	FILE *f;
	uint8_t *buf;
	int rc = 0;

	if (in->perf) {
		/* the AUX data is most of the file: its position is the
		 * progress */
		cli_progress_start(&pr, stat(in->file, &st) ? 0 :
				   (uint64_t)st.st_size, in->stdout_free);
		rc = cli_perf_stream(in, feed, ctx, s, &pr);
		cli_progress_end(&pr);
		return rc;
	}
	f = fopen(in->buffer_path, "rb");
	if (!f) {
		cli_error("%s: cannot open: %s", in->buffer_path,
			  cli_strerror(errno));
		return cli_exit_input;
	}
	buf = malloc(chunk);
	if (!buf) {
		fclose(f);
		cli_error("out of memory");
		return cli_exit_input;
	}
	cli_progress_start(&pr, fstat(fileno(f), &st) ? 0 :
			   (uint64_t)st.st_size, in->stdout_free);
	for (;;) {
		size_t n = fread(buf, 1, chunk, f);

		if (n && feed(ctx, buf, n) < 0) {
			rc = cli_exit_input;
			break;
		}
		done += n;
		cli_progress_at(&pr, done);
		if (n < chunk) {
			if (ferror(f)) {
				cli_error("%s: read error",
					  in->buffer_path);
				rc = cli_exit_input;
			}
			break;
		}
	}
	cli_progress_end(&pr);
	free(buf);
	fclose(f);
	return rc;
}

/* getopt_long()'s state is the process's (optind, optarg, its place in
 * a cluster of short options): one parse at a time, each from a full
 * reset (optind 0, glibc's). */
static pthread_mutex_t getopt_lock = PTHREAD_MUTEX_INITIALIZER;

void cli_getopt_begin(void)
{
	pthread_mutex_lock(&getopt_lock);
	optind = 0;
	opterr = 0;
}

void cli_getopt_end(void)
{
	pthread_mutex_unlock(&getopt_lock);
}

static int parse_args(const struct cli_command *cmd,
		      const struct cli_flag *flags, struct cli_input *in,
		      int argc, char **argv, const struct option *longopts,
		      const char *shorts)
{
	int c;

	while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		const struct cli_option *o = cli_option_of(cmd, c);
		const struct cli_flag *fl = flags;

		if (!o) {
			cli_bad_option(cmd, c, argv);
			return cli_exit_usage;
		}
		if (o->code == opt_help) {
			cli_print_help(stdout, cmd);
			return -1;
		}
		if (o->code == opt_quiet) {
			cli_msg_quiet(1);
			cli_progress_quiet(1);
			continue;
		}
		if (o->code == opt_progress || o->code == opt_no_progress) {
			cli_progress_set_mode(o->code == opt_progress ?
					      cli_progress_on :
					      cli_progress_off);
			continue;
		}
		if (o->code) {
			if (cli_input_option(in, o->code, optarg) < 0)
				return cli_exit_usage;
			continue;
		}
		while (strcmp(fl->name, o->name))
			fl++; /* there: cli_option_check_flags() */
		if (!fl->value)
			*fl->target = 1;
		else if (fl->value(fl->ctx, optarg) < 0)
			return cli_exit_usage;
	}
	if (in->multi) {
		in->nopts = optind;
		in->files = argv + optind;
		in->nfiles = argc - optind;
		in->file = in->nfiles ? argv[optind] : NULL;
		return 0;
	}
	if (optind < argc)
		in->file = argv[optind++];
	if (optind < argc) {
		cli_error("unexpected argument '%s'", argv[optind]);
		return cli_exit_usage;
	}
	return 0;
}

int cli_parse_args(const struct cli_command *cmd,
		   const struct cli_flag *flags, struct cli_input *in,
		   int argc, char **argv)
{
	struct option longopts[64];
	char shorts[16];
	int rc;

	cli_msg_command(cmd->name);
	if (cli_option_check_flags(cmd, flags) < 0 ||
	    cli_getopt_table(cmd, longopts, 63, shorts, sizeof(shorts)) < 0)
		return cli_exit_usage;
	cli_getopt_begin();
	rc = parse_args(cmd, flags, in, argc, argv, longopts, shorts);
	cli_getopt_end();
	return rc;
}

void cli_bad_option(const struct cli_command *cmd, int c, char **argv)
{
	if (c == ':')
		cli_error("option '%s' needs a value", argv[optind - 1]);
	else if (optopt > 0 && optopt < 0x100)
		/* A short option, which need not end its argv word. */
		cli_error("unknown option '-%c' (see etmkit %s --help)", optopt,
			  cmd->name);
	else
		cli_error("unknown option '%s' (see etmkit %s --help)",
			  argv[optind - 1], cmd->name);
}
