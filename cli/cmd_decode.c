/* etmkit decode: trace plus program image to executed instructions. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char decode_usage[] =
"Usage: etmkit decode --snapshot DIR [--id ID]... [--image FILE@ADDR]...\n"
"                     [--elf FILE[@BIAS]]... [--json] [--stats]\n"
"       etmkit decode FILE --protocol etmv3 --etmcr X --etmidr Y [--etmccer Z]\n"
"                     [--frames coresight|tpiu|tpiu-hsync|none] [--id ID]\n"
"                     [--m-profile] --image FILE@ADDR | --elf FILE[@BIAS] ...\n"
"\n"
"Rebuild what the core executed, instruction by instruction, from the trace\n"
"of each ETMv3 source and the program image.\n"
"\n"
"Input (as for 'etmkit packets'):\n"
"  --snapshot DIR   a trace snapshot; each source's image is the memory\n"
"                   dumps of the core it traces\n"
"  FILE             a raw trace buffer, with --protocol etmv3 and the\n"
"                   registers --etmcr, --etmidr, --etmccer\n"
"  --frames MODE    how FILE is framed (default coresight)\n"
"  --id ID          the trace ID to decode; may repeat\n"
"  --m-profile      the raw file comes from an ARMv7-M core\n"
"\n"
"Program image (added after the snapshot's dumps; where regions overlap the\n"
"one given last wins):\n"
"  --image FILE@ADDR   map the whole of FILE at address ADDR\n"
"  --elf FILE[@BIAS]   map the loadable segments of ELF file FILE, moved by\n"
"                      BIAS (default 0)\n"
"\n"
"Output:\n"
"  (default)        text: one line per instruction (offset of its P-header,\n"
"                   trace ID, address, instruction set, opcode, E executed /\n"
"                   N condition failed / C canceled / I implied, cycles,\n"
"                   disassembly) and one line per event\n"
"  --json           JSON Lines, one object per element (schema in README)\n"
"  --stats          per trace ID counts on stderr\n"
"  --stop-on-error  stop at the first malformed packet or frame\n"
"\n"
"Where the image has no code for an address a no_image line says so, and\n"
"decoding goes on from the next address the trace gives.\n"
"\n"
"Exit status: 0 success; 1 the trace had decode errors (reported as gap\n"
"lines); 2 usage error; 3 input missing, unreadable or malformed.\n";

#define MAX_IMAGE_ARGS 64

struct image_arg {
	const char *path;
	char *owned;     /* path, when split off the argument (freed) */
	uint64_t addr;   /* --image: address; --elf: bias */
	int elf;
};

struct decode_counts {
	uint64_t insns, no_image, gaps, errors, elems;
};

struct decode_run {
	struct cli_input in;
	struct etmkit_session *session;
	int json, stats, stop_on_error, stopped;
	int nimg;
	struct image_arg img[MAX_IMAGE_ARGS];
	struct image *images[CLI_MAX_IDS]; /* per source */
	uint8_t m_profile[DEFORMAT_ID_COUNT];
	struct decode_counts counts[DEFORMAT_ID_COUNT];
	struct cli_disasm *dis;
	FILE *out;
};

/* ---- Options ------------------------------------------------------------ */

/* FILE@NUMBER, split at the last '@'. Returns 1 with a number, 0 without
 * one (no '@', or what follows is not a number), -1 if there is nothing
 * before the '@'. */
static int split_at(const char *arg, char **path, uint64_t *num)
{
	const char *at = strrchr(arg, '@');

	*path = NULL;
	if (!at || cli_parse_u64(at + 1, num, 1) < 0)
		return 0;
	if (at == arg)
		return -1;
	*path = strndup(arg, (size_t)(at - arg));
	return *path ? 1 : -1;
}

static int add_image_arg(struct decode_run *r, const char *arg, int elf)
{
	struct image_arg *ia;
	char *path;
	uint64_t num = 0;
	int k = split_at(arg, &path, &num);

	if (r->nimg >= MAX_IMAGE_ARGS) {
		fprintf(stderr, "etmkit decode: at most %d --image/--elf\n",
			MAX_IMAGE_ARGS);
		return -1;
	}
	if (k < 0 || (k == 0 && !elf)) {
		fprintf(stderr, "etmkit decode: invalid value '%s' for --%s: "
			"expected %s\n", arg, elf ? "elf" : "image",
			elf ? "FILE or FILE@BIAS" : "FILE@ADDR (ADDR decimal or 0x hex)");
		return -1;
	}
	ia = &r->img[r->nimg++];
	ia->path = k ? path : arg;
	ia->owned = path;
	ia->addr = num;
	ia->elf = elf;
	return 0;
}

static int opt_image(void *ctx, const char *arg)
{
	return add_image_arg(ctx, arg, 0);
}

static int opt_elf(void *ctx, const char *arg)
{
	return add_image_arg(ctx, arg, 1);
}

/* ---- Images ------------------------------------------------------------- */

static int image_error(const struct image_diag *d, int err)
{
	fprintf(stderr, "etmkit decode: %s: %s (%s)\n", d->path[0] ? d->path : "?",
		d->message[0] ? d->message : "cannot map", etmkit_errstr(err));
	return cli_exit_input;
}

/* The image of source @cs: its core's dumps, then --image and --elf. */
static int build_image(struct decode_run *r, const struct cli_source *cs,
		       struct image **out)
{
	struct image *img;
	struct image_diag d;
	int err;

	memset(&d, 0, sizeof(d));
	if (image_alloc(&img) < 0) {
		fprintf(stderr, "etmkit decode: out of memory\n");
		return cli_exit_input;
	}
	*out = img;
	if (r->in.ss && cs->core[0]) {
		const struct snapshot_device *core =
			snapshot_find_device(r->in.ss, cs->core);

		/* A dump whose file cannot be read is left out, with a
		 * warning (as OpenCSD does): its addresses become no_image.
		 * A malformed dump is an error. */
		for (size_t k = 0; core && k < core->ndumps; k++) {
			err = image_add_snapshot_dump(img, core, k, &d);
			if (err == -etmkit_err_io) {
				fprintf(stderr, "etmkit decode: warning: %s: %s "
					"(%s): decoding without it\n",
					d.path[0] ? d.path : "?", d.message,
					etmkit_errstr(err));
				continue;
			}
			if (err < 0)
				return image_error(&d, err);
		}
	}
	for (int i = 0; i < r->nimg; i++) {
		const struct image_arg *ia = &r->img[i];

		err = ia->elf ? image_add_elf(img, ia->path, ia->addr, 0, &d) :
				image_add_file(img, ia->path, ia->addr, 0, 0, 0, &d);
		if (err < 0)
			return image_error(&d, err);
	}
	if (!image_region_count(img))
		fprintf(stderr, "etmkit decode: note: no program image for "
			"trace ID 0x%02x (%s): instructions cannot be followed "
			"(give --image or --elf)\n", cs->id,
			cs->core[0] ? cs->core : "no core named");
	return 0;
}

/* ---- Decoding ----------------------------------------------------------- */

static int on_elem(void *ctx, uint8_t id, const struct etmkit_elem *e)
{
	struct decode_run *r = ctx;
	struct decode_counts *c = &r->counts[id & 0x7f];

	c->elems++;
	switch (e->kind) {
	case etmkit_elem_insn:
		c->insns++;
		break;
	case etmkit_elem_no_image:
		c->no_image++;
		break;
	case etmkit_elem_gap:
		c->gaps++;
		/* The end of a ring buffer cutting a packet is normal. */
		if (e->u.loss.reason != etmkit_loss_truncated)
			c->errors++;
		break;
	default:
		break;
	}
	if (r->json)
		cli_print_elem_json(r->out, id, e, r->m_profile[id & 0x7f]);
	else
		cli_print_elem_text(r->out, id, e, r->m_profile[id & 0x7f],
				    r->dis);
	return 0;
}

/* Frames the transport had to drop appear as gap elements of each source;
 * nothing more to print here. */
static int feed(void *ctx, const uint8_t *buf, size_t n)
{
	struct decode_run *r = ctx;

	return cli_session_feed("decode", r->session, buf, n, r->stop_on_error,
				&r->stopped);
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
	err = etmkit_session_alloc(&r->session, &sc);
	for (int i = 0; err >= 0 && i < r->in.nsrc; i++) {
		const struct cli_source *cs = &r->in.src[i];
		struct etm3_flow_config fc;

		/* Sources of one core (or of none) share its image: the files
		 * are mapped once. */
		for (int j = 0; j < i && !r->images[i]; j++)
			if (!strcmp(r->in.src[j].core, cs->core))
				r->images[i] = r->images[j];
		if (!r->images[i]) {
			rc = build_image(r, cs, &r->images[i]);
			if (rc)
				return rc;
		}
		if (cs->proto == etmkit_proto_etmv3) {
			etm3_flow_config_init(&fc);
			fc.etm = cs->cfg;
			fc.image = r->images[i];
			err = etmkit_session_add_etm3_flow(r->session, cs->id,
							   &fc);
			r->m_profile[cs->id & 0x7f] =
				!!(cs->cfg.flags & ETM3_CFG_M_PROFILE);
		} else {
			struct etm4_flow_config f4;

			etm4_flow_config_init(&f4);
			f4.etm = cs->etm4;
			f4.image = r->images[i];
			err = etmkit_session_add_etm4_flow(r->session, cs->id,
							   &f4);
		}
	}
	if (err == -etmkit_err_unsupported) {
		fprintf(stderr, "etmkit decode: the trace has conditional-"
			"instruction or data trace enabled (TRCCONFIGR); decode "
			"follows instruction trace only: use 'etmkit packets'\n");
		return cli_exit_input;
	}
	if (err < 0) {
		fprintf(stderr, "etmkit decode: cannot set up the decoder: %s\n",
			etmkit_errstr(err));
		return cli_exit_input;
	}
	return 0;
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
	uint64_t errors = 0, no_image = 0;

	for (unsigned id = 0; id < DEFORMAT_ID_COUNT; id++) {
		errors += r->counts[id].errors;
		no_image += r->counts[id].no_image;
	}
	if (no_image)
		fprintf(stderr, "etmkit decode: note: %" PRIu64 " place%s where the "
			"image has no code (no_image)\n", no_image,
			no_image == 1 ? "" : "s");
	if (errors) {
		fprintf(stderr, "etmkit decode: %" PRIu64 " decode error%s in the "
			"trace (gap lines)\n", errors, errors == 1 ? "" : "s");
		return cli_exit_trace_errors;
	}
	return 0;
}

static void cleanup(struct decode_run *r)
{
	etmkit_session_free(r->session);
	for (int i = 0; i < CLI_MAX_IDS; i++) {
		int shared = 0;

		for (int j = 0; j < i; j++)
			shared |= r->images[j] == r->images[i];
		if (!shared)
			image_free(r->images[i]);
	}
	for (int i = 0; i < r->nimg; i++)
		free(r->img[i].owned);
	cli_disasm_free(r->dis);
	cli_input_free(&r->in);
}

int cmd_decode(int argc, char **argv)
{
	static struct decode_run r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.in.frames = -1;
	r.in.keep_snapshot = 1;
	r.in.protos = CLI_PROTO_ALL;
	r.out = stdout;
	{
		const struct cli_flag flags[] = {
			{ .name = "json", .target = &r.json },
			{ .name = "stats", .target = &r.stats },
			{ .name = "m-profile", .target = &r.in.m_profile },
			{ .name = "stop-on-error", .target = &r.stop_on_error },
			{ .name = "image", .value = opt_image, .ctx = &r },
			{ .name = "elf", .value = opt_elf, .ctx = &r },
			{ .name = NULL }
		};

		rc = cli_parse_args("decode", decode_usage, flags, &r.in, argc,
				    argv);
	}
	if (rc)
		return rc < 0 ? 0 : rc;
	rc = cli_input_resolve(&r.in, "decode");
	if (!rc && !r.json && !(r.dis = cli_disasm_alloc())) {
		fprintf(stderr, "etmkit decode: cannot start the disassembler\n");
		rc = cli_exit_input;
	}
	if (!rc)
		rc = setup(&r);
	if (!rc)
		rc = cli_input_stream(&r.in, feed, &r);
	if (r.stopped)
		rc = cli_exit_trace_errors;
	if (!rc && etmkit_session_finish(r.session) < 0)
		rc = cli_exit_input;
	if (r.stats)
		print_stats(&r);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "etmkit decode: cannot write the output\n");
		rc = cli_exit_input;
	}
	if (!rc)
		rc = summarize(&r);
	cleanup(&r);
	return rc;
}
