/* etmkit CLI: ETMv2 / ETMv1 trace port captures (docs/etmv2-capture.md).
 * ETMv2 is fed cycles, not bytes, so it has no session source: this file
 * reads the capture (FILE with --protocol etmv2, or a snapshot buffer of
 * format etmv2-capture / etmv2-etb) with the capture reader and drives
 * the packet decoder (packets) or the flow decoder (decode) itself,
 * handing records and elements to the commands' callbacks. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "etmkit/flow.h"
#include "etmkit/snapshot.h"

/* ---- Options ------------------------------------------------------------- */

static int bad(const char *opt, const char *arg, const char *what)
{
	cli_error("invalid value '%s' for --%s: %s", arg, opt, what);
	return -1;
}

/* --tfo-header normal=V,lsip=V,mask=M,rr-shift=S (any of them, over the
 * default table; docs/etmv2.md 6). Checked whole by etm2_config_decode()
 * once the configuration is complete. */
static int tfo_spec(struct etm2_tfo_table *t, const char *arg)
{
	char buf[128], *save = NULL;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	strcpy(buf, arg);
	etm2_tfo_table_default(t);
	for (char *kv = strtok_r(buf, ",", &save); kv;
	     kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		uint32_t v;

		if (!eq || cli_parse_u32(eq + 1, &v) || v > 0xff)
			return -1;
		*eq = '\0';
		if (!strcmp(kv, "normal"))
			t->normal = (uint8_t)v;
		else if (!strcmp(kv, "lsip"))
			t->lsip = (uint8_t)v;
		else if (!strcmp(kv, "mask"))
			t->mask = (uint8_t)v;
		else if (!strcmp(kv, "rr-shift") && v <= 6)
			t->rr_shift = (uint8_t)v;
		else
			return -1;
	}
	return 0;
}

static int capture_format(const char *arg)
{
	static const char *const names[] = { "auto", "binary", "text", "etb" };

	for (int f = 0; f < 4; f++)
		if (!strcmp(arg, names[f]))
			return f; /* enum etm2_cap_format order */
	return -1;
}

int cli_etm2_option(struct cli_input *in, int opt, const char *arg)
{
	struct cli_etm2_opts *o = &in->etm2;
	uint32_t v;
	int f;

	switch (opt) {
	case opt_port_width:
		if (cli_parse_u32(arg, &v) || (v != 4 && v != 8 && v != 16))
			return bad("port-width", arg, "expected 4, 8 or 16");
		o->port_width = (uint8_t)v;
		o->given = o->given ? o->given : "port-width";
		return 1;
	case opt_etm_version:
		if (cli_parse_u32(arg, &v) || v < 1 || v > 2)
			return bad("etm-version", arg, "expected 1 or 2");
		o->version = (uint8_t)v;
		o->given = o->given ? o->given : "etm-version";
		return 1;
	case opt_capture_format:
		f = capture_format(arg);
		if (f < 0)
			return bad("capture-format", arg,
				   "expected auto, binary, text or etb");
		o->capture_format = (uint8_t)(f + 1);
		o->given = o->given ? o->given : "capture-format";
		return 1;
	case opt_pipestat_table:
		if (etm2_pipestat_table(arg, o->pipestat))
			return bad("pipestat-table", arg, "expected natural, alt "
				   "or sixteen status names separated by commas");
		o->has_pipestat = 1;
		o->given = o->given ? o->given : "pipestat-table";
		return 1;
	case opt_tfo_header:
		if (tfo_spec(&o->tfo, arg))
			return bad("tfo-header", arg, "expected normal=V,lsip=V,"
				   "mask=M,rr-shift=S (bytes; shift 0 to 6)");
		o->has_tfo = 1;
		o->given = o->given ? o->given : "tfo-header";
		return 1;
	case opt_fifo_latency:
		if (cli_parse_u32(arg, &v) || v > 1)
			return bad("fifo-latency", arg, "expected 0 or 1");
		o->fifo_latency = (uint8_t)(v + 1);
		o->given = o->given ? o->given : "fifo-latency";
		return 1;
	case opt_demux_order:
		if (strcmp(arg, "a-first") && strcmp(arg, "b-first"))
			return bad("demux-order", arg, "expected a-first or b-first");
		o->demux_order = arg[0] == 'a' ? 1 : 2;
		o->given = o->given ? o->given : "demux-order";
		return 1;
	default:
		return 0;
	}
}

/* The options' tables and latency over @cfg (etm2_config_init()ed). */
static void apply_options(const struct cli_etm2_opts *o, struct etm2_config *cfg)
{
	if (o->has_pipestat)
		memcpy(cfg->pipestat, o->pipestat, 16);
	if (o->has_tfo)
		cfg->tfo = o->tfo;
	if (o->fifo_latency)
		cfg->fifo_latency = (uint8_t)(o->fifo_latency - 1);
	if (o->version)
		cfg->version = o->version;
	if (o->port_width)
		cfg->port_width = o->port_width;
}

/* ---- Sources ------------------------------------------------------------- */

int cli_input_is_etm2(const struct cli_input *in)
{
	return in->nsrc > 0 && in->src[0].proto == etmkit_proto_etmv2;
}

int cli_etm2_resolve_raw(struct cli_input *in)
{
	struct cli_source *cs = &in->src[0];
	const char *foreign = in->have_etmccer ? "etmccer" :
			      in->have_trc ? "trcidr0 (and the other TRC registers)" :
			      in->m_profile ? "m-profile" :
			      in->frames >= 0 ? "frames" : NULL;

	if (foreign) {
		cli_error("--%s does not apply to --protocol etmv2 (it takes "
			  "--etmcr, --etmidr and the ETMv2 options)", foreign);
		return cli_exit_usage;
	}
	memset(cs, 0, sizeof(*cs));
	cs->proto = etmkit_proto_etmv2;
	etm2_config_init(&cs->etm2);
	cs->etm2.etmcr = in->etmcr;
	cs->etm2.etmidr = in->etmidr;
	apply_options(&in->etm2, &cs->etm2);
	cs->id = in->nids ? in->ids[0] : 0;
	snprintf(cs->name, sizeof(cs->name), "raw");
	in->nsrc = 1;
	in->mode = deformat_none;
	snprintf(in->buffer_path, sizeof(in->buffer_path), "%s", in->file);
	return 0;
}

int cli_etm2_snapshot_source(struct cli_source *cs,
			     const struct snapshot_device *dev)
{
	struct snapshot_diag d;

	memset(&d, 0, sizeof(d));
	if (snapshot_etm2_config(dev, &cs->etm2, &d) < 0) {
		cli_error("%s: %s", d.path, d.message);
		return cli_exit_input;
	}
	cs->id = 0; /* one source per ETMv2 buffer */
	return 0;
}

int cli_etm2_buffer_format(struct cli_input *in, const char *format)
{
	int etm2 = !strcasecmp(format, "etmv2-capture") ||
		   !strcasecmp(format, "etmv2-etb");
	struct cli_source *cs = &in->src[0];

	if (!etm2) {
		for (int i = 0; i < in->nsrc; i++)
			if (in->src[i].proto == etmkit_proto_etmv2) {
				cli_error("%s/trace.ini: ETMv2 trace source %s "
					  "writes to a buffer of format '%s' (an "
					  "ETMv2 buffer has format etmv2-capture "
					  "or etmv2-etb)", in->snapshot,
					  in->src[i].name, format);
				return -1;
			}
		return 0;
	}
	if (in->nsrc != 1 || cs->proto != etmkit_proto_etmv2) {
		cli_error("%s/trace.ini: a buffer of format '%s' holds the "
			  "capture of one ETMv2 trace source (type ETM2 or ETM1); "
			  "this one has %d source%s of other types or more",
			  in->snapshot, format, in->nsrc, in->nsrc == 1 ? "" : "s");
		return -1;
	}
	if (!in->etm2.capture_format)
		in->etm2.capture_format = (uint8_t)(1 + (strcasecmp(format,
				"etmv2-etb") ? etm2_cap_auto : etm2_cap_etb));
	/* The options go over the device's registers. */
	if (in->have_etmcr)
		cs->etm2.etmcr = in->etmcr;
	if (in->have_etmidr)
		cs->etm2.etmidr = in->etmidr;
	apply_options(&in->etm2, &cs->etm2);
	return 1;
}

/* ---- The capture ----------------------------------------------------------- */

struct e2_capture {
	const char *path;
	uint8_t *map;
	size_t n;
	struct etm2_cap_reader *rd;
	struct etm2_config cfg;
	uint8_t id;
};

/* What the options and registers say, for the reader: it refuses a
 * capture whose header says otherwise. */
static void reader_options(const struct cli_input *in, const struct cli_source *cs,
			   struct etm2_cap_info *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->version = in->etm2.version;
	opt->port_width = in->etm2.port_width;
	opt->demux_b_first = in->etm2.demux_order == 2;
	/* Raw FILE: the registers given; snapshot: the device's. */
	opt->has_etmcr = (uint8_t)(in->snapshot || in->have_etmcr);
	opt->etmcr = cs->etm2.etmcr;
	opt->has_etmidr = (uint8_t)(in->have_etmidr || (in->snapshot && cs->etm2.etmidr));
	opt->etmidr = cs->etm2.etmidr;
	opt->has_pipestat = in->etm2.has_pipestat;
	memcpy(opt->pipestat, in->etm2.pipestat, 16);
}

/* The decoder's configuration: the source's, completed by the capture. */
static int complete_config(struct e2_capture *c, const struct cli_input *in,
			   const struct cli_source *cs)
{
	const struct etm2_cap_info *info = etm2_cap_get_info(c->rd);
	struct etm2_config_info ci;

	c->cfg = cs->etm2;
	c->cfg.etmcr = info->has_etmcr ? info->etmcr : c->cfg.etmcr;
	c->cfg.etmidr = info->has_etmidr ? info->etmidr : c->cfg.etmidr;
	c->cfg.version = info->version;
	c->cfg.port_width = info->port_width;
	c->cfg.port_mode = info->port_mode;
	if (!in->etm2.has_pipestat && info->has_pipestat)
		memcpy(c->cfg.pipestat, info->pipestat, 16);
	if (etm2_config_decode(&c->cfg, &ci) < 0) {
		cli_error("%s: the ETMv2 configuration is not one this version "
			  "decodes (ETMCR 0x%08x, ETMIDR 0x%08x, version %u, "
			  "%u-bit port; the PIPESTAT table must map IE, DE, IN, "
			  "DN, WT, DW, TR and TD once each, the TFO headers "
			  "differ and lie in the mask, the reason bits outside)",
			  c->path, (unsigned)c->cfg.etmcr, (unsigned)c->cfg.etmidr,
			  c->cfg.version, c->cfg.port_width);
		return cli_exit_usage;
	}
	if (ci.version == 1 && ci.port_width == 16) {
		/* the packet decoder would never synchronise (docs/etmv2.md
		 * 7b, Not covered) */
		cli_error("%s: ETMv1 on a 16-bit port is not covered: its "
			  "TRACESYNC rules (IHI 0014Q 5.3.1) are not in the "
			  "pages etmkit follows, so the capture cannot be "
			  "synchronised (docs/etmv2.md 7b)", c->path);
		return cli_exit_usage;
	}
	return 0;
}

static void capture_close(struct e2_capture *c)
{
	etm2_cap_close(c->rd);
	if (c->map && c->n)
		munmap(c->map, c->n);
	memset(c, 0, sizeof(*c));
}

/* Map the capture and open its reader. Returns 0 or a cli_exit after a
 * message. */
static int capture_open(struct e2_capture *c, const struct cli_input *in)
{
	const struct cli_source *cs = &in->src[0];
	struct etm2_cap_info opt;
	struct etm2_cap_diag dg;
	struct stat st;
	int fd, err;

	memset(c, 0, sizeof(*c));
	c->path = in->buffer_path;
	c->id = cs->id;
	fd = open(c->path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) != 0) {
		cli_error("%s: %s", c->path, cli_strerror(errno));
		if (fd >= 0)
			close(fd);
		return cli_exit_input;
	}
	c->n = (size_t)st.st_size;
	if (c->n) {
		c->map = mmap(NULL, c->n, PROT_READ, MAP_PRIVATE, fd, 0);
		if (c->map == MAP_FAILED) {
			c->map = NULL;
			c->n = 0;
			cli_error("%s: %s", c->path, cli_strerror(errno));
			close(fd);
			return cli_exit_input;
		}
	}
	close(fd);
	reader_options(in, cs, &opt);
	err = etm2_cap_open(&c->rd, c->map, c->n,
			    in->etm2.capture_format ?
			    (enum etm2_cap_format)(in->etm2.capture_format - 1) :
			    etm2_cap_auto, &opt, &dg);
	if (err < 0) {
		cli_error("%s: %s", c->path, dg.message[0] ? dg.message :
			  etmkit_errstr(err));
		capture_close(c);
		return err == -etmkit_err_bad_config ? cli_exit_usage : cli_exit_input;
	}
	err = complete_config(c, in, cs);
	if (err)
		capture_close(c);
	return err;
}

/* A read error after the cycles before it were decoded: a capture cut
 * short is a warning, anything else an input error. */
static int read_failed(const struct e2_capture *c, long err,
		       const struct etm2_cap_diag *dg)
{
	if (err == -etmkit_err_truncated) {
		cli_warn("%s: %s: the cycles before it are decoded", c->path,
			 dg->message);
		return 0;
	}
	cli_error("%s: %s", c->path, dg->message[0] ? dg->message :
		  etmkit_errstr((int)err));
	return cli_exit_input;
}

#define E2_CYCLES 4096

/* The decoder a run drives: packets or flow, behind three calls on @ctx. */
struct e2_layer {
	int (*feed)(void *ctx, const struct etm2_cycle *c, size_t n, uint64_t first);
	int (*finish)(void *ctx);
	int (*drain)(void *ctx); /* hand out what is ready; -1: stop */
	void *ctx;
	int *stopped;
};

/* Read the whole capture through @l, showing progress as the other
 * protocols do (bytes of the file read: cli/progress.h); *@cycles: how
 * many were read. Returns 0 or a cli_exit after a message. */
static int run_capture(struct e2_capture *c, const struct cli_input *in,
		       const struct e2_layer *l, uint64_t *cycles)
{
	/* the run's own buffer (16 KiB): runs may be at once on threads */
	struct etm2_cycle *cyc = malloc(E2_CYCLES * sizeof(*cyc));
	struct etm2_cap_diag dg;
	struct cli_progress pr;
	uint64_t index = 0;
	long got;

	if (!cyc) {
		cli_error("out of memory");
		return cli_exit_input;
	}
	cli_progress_start(&pr, c->n, in->stdout_free);
	while ((got = etm2_cap_read(c->rd, cyc, E2_CYCLES, &dg)) > 0) {
		if (l->feed(l->ctx, cyc, (size_t)got, index) < 0 ||
		    l->drain(l->ctx) < 0)
			break;
		index += (uint64_t)got;
		cli_progress_at(&pr, etm2_cap_tell(c->rd));
	}
	cli_progress_end(&pr);
	free(cyc);
	if (!*l->stopped) {
		l->finish(l->ctx);
		l->drain(l->ctx);
	}
	if (cycles)
		*cycles = index;
	return got < 0 && !*l->stopped ? read_failed(c, got, &dg) : 0;
}

/* ---- packets --------------------------------------------------------------- */

struct e2_packets {
	struct etm2_pkt_decoder *dec;
	uint8_t id;
	int (*on_packet)(void *ctx, uint8_t id, const struct etm2_packet *p);
	void *ctx;
	int stop_on_error, *stopped;
};

static int pk_feed(void *ctx, const struct etm2_cycle *c, size_t n, uint64_t first)
{
	return etm2_pkt_feed(((struct e2_packets *)ctx)->dec, c, n, first);
}

static int pk_finish(void *ctx)
{
	return etm2_pkt_finish(((struct e2_packets *)ctx)->dec);
}

/* Every record waiting in the decoder to on_packet; -1 once stopped. */
static int pk_drain(void *ctx)
{
	struct e2_packets *r = ctx;
	struct etm2_packet pk[128];
	int n;

	while ((n = etm2_pkt_next(r->dec, pk, 128)) > 0) {
		for (int i = 0; i < n; i++) {
			r->on_packet(r->ctx, r->id, &pk[i]);
			if (r->stop_on_error && pk[i].error &&
			    pk[i].error != -etmkit_err_truncated) {
				*r->stopped = 1;
				return -1;
			}
		}
	}
	return n == -etmkit_err_eos ? 0 : -1;
}

int cli_etm2_packets(const struct cli_input *in,
		     int (*on_packet)(void *ctx, uint8_t id,
				      const struct etm2_packet *p),
		     void *ctx, int stop_on_error, int *stopped,
		     uint64_t *cycles)
{
	struct e2_packets r = { .on_packet = on_packet, .ctx = ctx,
				.stop_on_error = stop_on_error,
				.stopped = stopped };
	struct e2_layer l = { pk_feed, pk_finish, pk_drain, &r, stopped };
	struct e2_capture c;
	int rc;

	rc = capture_open(&c, in);
	if (rc)
		return rc;
	r.id = c.id;
	if (etm2_pkt_alloc(&r.dec, &c.cfg) < 0) {
		cli_error("cannot set up the decoder: out of memory");
		capture_close(&c);
		return cli_exit_input;
	}
	rc = run_capture(&c, in, &l, cycles);
	etm2_pkt_free(r.dec);
	capture_close(&c);
	return rc;
}

/* ---- decode ---------------------------------------------------------------- */

struct e2_decode {
	struct etm2_flow_decoder *dec;
	uint8_t id;
	cli_etm2_elems_fn *on_elems;
	void *ctx;
	int *stopped;
};

static int fl_feed(void *ctx, const struct etm2_cycle *c, size_t n, uint64_t first)
{
	return etm2_flow_feed(((struct e2_decode *)ctx)->dec, c, n, first);
}

static int fl_finish(void *ctx)
{
	return etm2_flow_finish(((struct e2_decode *)ctx)->dec);
}

static int fl_drain(void *ctx)
{
	struct e2_decode *r = ctx;
	const struct etmkit_elem *e;
	int n;

	while ((n = etm2_flow_batch(r->dec, &e)) > 0)
		r->on_elems(r->ctx, r->id, e, (size_t)n);
	if (n == -etmkit_err_bad_packet)
		*r->stopped = 1;
	return n == -etmkit_err_eos ? 0 : -1;
}

int cli_etm2_decode(const struct cli_input *in, const struct image *image,
		    uint32_t flags, cli_etm2_elems_fn *on_elems, void *ctx,
		    int stop_on_error, int *stopped, uint64_t *cycles)
{
	struct e2_decode r = { .on_elems = on_elems, .ctx = ctx,
			       .stopped = stopped };
	struct e2_layer l = { fl_feed, fl_finish, fl_drain, &r, stopped };
	struct etm2_flow_config fc;
	struct e2_capture c;
	int rc;

	rc = capture_open(&c, in);
	if (rc)
		return rc;
	r.id = c.id;
	etm2_flow_config_init(&fc);
	fc.etm = c.cfg;
	if (stop_on_error)
		fc.etm.flags |= ETM2_CFG_STOP_ON_ERROR;
	fc.image = image;
	fc.flags = flags;
	if (etm2_flow_alloc(&r.dec, &fc) < 0) {
		cli_error("cannot set up the decoder: out of memory");
		capture_close(&c);
		return cli_exit_input;
	}
	rc = run_capture(&c, in, &l, cycles);
	etm2_flow_free(r.dec);
	capture_close(&c);
	return rc;
}

void cli_etm2_frame_stats(struct deformat_stats *fs, uint8_t id,
			  uint64_t cycles)
{
	memset(fs, 0, sizeof(*fs));
	fs->bytes_in = cycles;
	fs->id_bytes[id & 0x7f] = cycles;
}
