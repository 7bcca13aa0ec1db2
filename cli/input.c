/* etmkit CLI: where the trace comes from (snapshot or raw file). */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/* The input options every command takes. */
#define CLI_INPUT_LONG_OPTIONS                                                 \
	{ "snapshot", required_argument, NULL, opt_snapshot },                 \
	{ "id", required_argument, NULL, opt_id },                             \
	{ "protocol", required_argument, NULL, opt_protocol },                 \
	{ "etmcr", required_argument, NULL, opt_etmcr },                       \
	{ "etmidr", required_argument, NULL, opt_etmidr },                     \
	{ "etmccer", required_argument, NULL, opt_etmccer },                   \
	{ "frames", required_argument, NULL, opt_frames },                     \
	{ "help", no_argument, NULL, opt_help }

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

static int bad_value(const char *opt, const char *arg, const char *what)
{
	fprintf(stderr, "etmkit: invalid value '%s' for --%s: %s\n", arg, opt, what);
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
		if (strcmp(arg, "etmv3") != 0)
			return bad_value("protocol", arg, "this version decodes etmv3");
		in->protocol = arg;
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
	case opt_frames: {
		int m = deformat_mode_parse(arg);

		if (m < 0)
			return bad_value("frames", arg,
					 "expected coresight, tpiu, tpiu-hsync or none");
		in->frames = m;
		return 1;
	}
	default:
		return 0;
	}
}

static int id_wanted(const struct cli_input *in, uint8_t id)
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
		fprintf(stderr, "etmkit: %s:%d: %s\n", d->path, d->line, d->message);
	else
		fprintf(stderr, "etmkit: %s: %s (%s)\n", d->path, d->message,
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

/* Add every ETMv3 trace source writing to buffer @bname. */
static int add_snapshot_sources(struct cli_input *in, const struct snapshot *ss,
				const char *bname, int quiet)
{
	for (size_t i = 0; i < snapshot_source_count(ss); i++) {
		const struct snapshot_source *s = snapshot_source_at(ss, i);
		const struct snapshot_device *dev = snapshot_find_device(ss, s->name);
		struct snapshot_diag d;
		struct etm3_config_info info;
		struct cli_source *cs;
		uint8_t id;

		if (!dev || strcmp(s->buffer, bname) != 0)
			continue;
		if (snapshot_device_protocol(dev) != etmkit_proto_etmv3) {
			if (!quiet && !in->nids)
				fprintf(stderr, "etmkit: note: %s: skipping %s "
					"(type %s): protocol not decoded by this "
					"version\n", dev->path, dev->name,
					dev->type ? dev->type : "?");
			continue;
		}
		memset(&d, 0, sizeof(d));
		if (snapshot_etm3_config(dev, &in->src[in->nsrc].cfg, &id, &d) < 0)
			return diag_error(&d, -etmkit_err_format);
		if (etm3_config_decode(&in->src[in->nsrc].cfg, &info) < 0) {
			fprintf(stderr, "etmkit: %s: ETMIDR 0x%08x of %s does not "
				"describe an ETMv3 (ETMIDR[11:8] must be 2)\n",
				dev->path, in->src[in->nsrc].cfg.etmidr, dev->name);
			return cli_exit_input;
		}
		if (!id_wanted(in, id))
			continue;
		if (in->nsrc >= CLI_MAX_IDS)
			break;
		cs = &in->src[in->nsrc++];
		cs->id = id;
		/* An ARMv7-M core has its own exception numbers and packets
		 * (Q 7.5): recognised by the traced core's type. */
		if (s->core) {
			const struct snapshot_device *core =
				snapshot_find_device(ss, s->core);

			snprintf(cs->core, sizeof(cs->core), "%s", s->core);

			if (core && core->type && !strncasecmp(core->type, "Cortex-M", 8))
				cs->cfg.flags |= ETM3_CFG_M_PROFILE;
		}
		snprintf(cs->name, sizeof(cs->name), "%s", dev->name);
	}
	return 0;
}

static int resolve_snapshot(struct cli_input *in, const char *cmd)
{
	struct snapshot *ss = NULL;
	struct snapshot_diag d;
	int err, rc = 0;
	const struct snapshot_buffer *buf = NULL;

	memset(&d, 0, sizeof(d));
	err = snapshot_open(&ss, in->snapshot, &d);
	if (err < 0)
		return diag_error(&d, err);
	if (snapshot_buffer_count(ss) == 0) {
		fprintf(stderr, "etmkit %s: snapshot %s lists no trace buffer\n",
			cmd, in->snapshot);
		rc = cli_exit_input;
		goto out;
	}
	/* Use the first buffer holding a wanted ETMv3 source. */
	for (size_t b = 0; b < snapshot_buffer_count(ss) && !in->nsrc; b++) {
		buf = snapshot_buffer_at(ss, b);
		rc = add_snapshot_sources(in, ss, buf->name, b != 0);
		if (rc)
			goto out;
	}
	if (!in->nsrc) {
		if (in->nids)
			fprintf(stderr, "etmkit %s: no ETMv3 trace source with the "
				"requested ID in snapshot %s\n", cmd, in->snapshot);
		else
			fprintf(stderr, "etmkit %s: no ETMv3 trace source in "
				"snapshot %s\n", cmd, in->snapshot);
		rc = cli_exit_input;
		goto out;
	}
	if (buffer_mode(buf, &in->mode) < 0) {
		fprintf(stderr, "etmkit %s: %s/trace.ini: buffer %s has format "
			"'%s'; this version reads 'coresight' and 'source_data'\n",
			cmd, in->snapshot, buf->name, buf->format);
		rc = cli_exit_input;
		goto out;
	}
	if (in->frames >= 0)
		in->mode = (enum deformat_mode)in->frames;
	snprintf(in->buffer_path, sizeof(in->buffer_path), "%s", buf->file);
	if (in->keep_snapshot) {
		in->ss = ss;
		ss = NULL;
	}
out:
	snapshot_free(ss);
	return rc;
}

static int resolve_raw(struct cli_input *in, const char *cmd)
{
	struct etm3_config_info info;
	struct cli_source *cs = &in->src[0];

	if (!in->protocol) {
		fprintf(stderr, "etmkit %s: a raw file needs --protocol etmv3 "
			"(or use --snapshot DIR)\n", cmd);
		return cli_exit_usage;
	}
	if (!in->have_etmcr || !in->have_etmidr) {
		fprintf(stderr, "etmkit %s: --protocol etmv3 needs --etmcr and "
			"--etmidr (and --etmccer for timestamps and Hyp)\n", cmd);
		return cli_exit_usage;
	}
	in->mode = in->frames >= 0 ? (enum deformat_mode)in->frames :
				    deformat_coresight;
	if (in->mode != deformat_none && in->nids != 1) {
		fprintf(stderr, "etmkit %s: framed input needs exactly one --id "
			"(the ETM's trace ID)\n", cmd);
		return cli_exit_usage;
	}
	etm3_config_init(&cs->cfg);
	cs->cfg.etmcr = in->etmcr;
	cs->cfg.etmidr = in->etmidr;
	cs->cfg.etmccer = in->etmccer;
	if (in->m_profile)
		cs->cfg.flags |= ETM3_CFG_M_PROFILE;
	if (etm3_config_decode(&cs->cfg, &info) < 0) {
		fprintf(stderr, "etmkit %s: --etmidr 0x%08x does not describe an "
			"ETMv3 (ETMIDR[11:8] must be 2)\n", cmd, in->etmidr);
		return cli_exit_usage;
	}
	cs->id = in->nids ? in->ids[0] : 0;
	snprintf(cs->name, sizeof(cs->name), "raw");
	in->nsrc = 1;
	snprintf(in->buffer_path, sizeof(in->buffer_path), "%s", in->file);
	return 0;
}

int cli_input_resolve(struct cli_input *in, const char *cmd)
{
	if (in->snapshot && in->file) {
		fprintf(stderr, "etmkit %s: give either --snapshot DIR or FILE, "
			"not both\n", cmd);
		return cli_exit_usage;
	}
	if (in->snapshot)
		return resolve_snapshot(in, cmd);
	if (in->file)
		return resolve_raw(in, cmd);
	fprintf(stderr, "etmkit %s: no input: give --snapshot DIR or FILE "
		"(see etmkit %s --help)\n", cmd, cmd);
	return cli_exit_usage;
}

int cli_session_feed(const char *cmd, struct etmkit_session *s,
		     const uint8_t *buf, size_t n, int stop_on_error,
		     int *stopped)
{
	int err = etmkit_session_feed(s, buf, n);

	if (stop_on_error && (err == -etmkit_err_bad_packet ||
			      err == -etmkit_err_bad_frame)) {
		*stopped = 1;
		fprintf(stderr, "etmkit %s: stopped at the first decode error "
			"(--stop-on-error): %s\n", cmd, etmkit_errstr(err));
	} else if (err < 0) {
		fprintf(stderr, "etmkit %s: %s\n", cmd, etmkit_errstr(err));
	}
	return err;
}

void cli_input_free(struct cli_input *in)
{
	snapshot_free(in->ss);
	in->ss = NULL;
}

int cli_input_stream(const struct cli_input *in,
		     int (*feed)(void *ctx, const uint8_t *buf, size_t n),
		     void *ctx)
{
	enum { chunk = 1 << 20 };
	FILE *f = fopen(in->buffer_path, "rb");
	uint8_t *buf;
	int rc = 0;

	if (!f) {
		fprintf(stderr, "etmkit: %s: cannot open: %s\n", in->buffer_path,
			strerror(errno));
		return cli_exit_input;
	}
	buf = malloc(chunk);
	if (!buf) {
		fclose(f);
		fprintf(stderr, "etmkit: out of memory\n");
		return cli_exit_input;
	}
	for (;;) {
		size_t n = fread(buf, 1, chunk, f);

		if (n && feed(ctx, buf, n) < 0) {
			rc = cli_exit_input;
			break;
		}
		if (n < chunk) {
			if (ferror(f)) {
				fprintf(stderr, "etmkit: %s: read error\n",
					in->buffer_path);
				rc = cli_exit_input;
			}
			break;
		}
	}
	free(buf);
	fclose(f);
	return rc;
}

int cli_parse_args(const char *cmd, const char *usage,
		   const struct cli_flag *flags, struct cli_input *in,
		   int argc, char **argv)
{
	struct option longopts[32] = { CLI_INPUT_LONG_OPTIONS };
	size_t base = 0, nflags = 0;
	int c;

	while (longopts[base].name)
		base++;
	for (; flags && flags[nflags].name; nflags++) {
		longopts[base + nflags].name = flags[nflags].name;
		longopts[base + nflags].has_arg =
			flags[nflags].value ? required_argument : no_argument;
		longopts[base + nflags].val = opt_flag0 + (int)nflags;
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		int k = cli_input_option(in, c, optarg);

		if (k < 0)
			return cli_exit_usage;
		if (k)
			continue;
		if (c >= opt_flag0 && c < opt_flag0 + (int)nflags) {
			const struct cli_flag *fl = &flags[c - opt_flag0];

			if (!fl->value) {
				*fl->target = 1;
				continue;
			}
			if (fl->value(fl->ctx, optarg) < 0)
				return cli_exit_usage;
			continue;
		}
		if (c == opt_help) {
			fputs(usage, stdout);
			return -1;
		}
		if (c == ':')
			fprintf(stderr, "etmkit %s: option '%s' needs a value\n", cmd,
				argv[optind - 1]);
		else
			fprintf(stderr, "etmkit %s: unknown option '%s' (see etmkit "
				"%s --help)\n", cmd, argv[optind - 1], cmd);
		return cli_exit_usage;
	}
	if (optind < argc)
		in->file = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "etmkit %s: unexpected argument '%s'\n", cmd,
			argv[optind]);
		return cli_exit_usage;
	}
	return 0;
}
