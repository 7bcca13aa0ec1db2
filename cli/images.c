/* etmkit CLI: program images of the trace sources and the flow decoders
 * over them (decode, profile). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "images.h"
#include "symbolize.h"

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

static int add_image_arg(struct cli_images *ci, const char *arg, int elf)
{
	struct cli_image_arg *ia;
	char *path;
	uint64_t num = 0;
	int k;

	if (ci->nimg >= CLI_MAX_IMAGE_ARGS) {
		cli_error("at most %d --image/--elf", CLI_MAX_IMAGE_ARGS);
		return -1;
	}
	k = split_at(arg, &path, &num);
	if (k < 0 || (k == 0 && !elf)) {
		cli_error("invalid value '%s' for --%s: "
			  "expected %s", arg, elf ? "elf" : "image",
			  elf ? "FILE or FILE@BIAS" : "FILE@ADDR (ADDR decimal or 0x hex)");
		return -1;
	}
	ia = &ci->img[ci->nimg++];
	ia->path = k ? path : arg;
	ia->owned = path;
	ia->addr = num;
	ia->elf = elf;
	ia->has_num = k;
	return 0;
}

int cli_images_opt_image(void *images, const char *arg)
{
	return add_image_arg(images, arg, 0);
}

int cli_images_opt_elf(void *images, const char *arg)
{
	return add_image_arg(images, arg, 1);
}

int cli_images_opt_symfs(void *images, const char *arg)
{
	((struct cli_images *)images)->perf.symfs = arg;
	return 0;
}

int cli_images_opt_buildid_dir(void *images, const char *arg)
{
	((struct cli_images *)images)->perf.buildid_dir = arg;
	return 0;
}

int cli_images_opt_vmlinux(void *images, const char *arg)
{
	((struct cli_images *)images)->perf.vmlinux = arg;
	return 0;
}

/* ---- Images ------------------------------------------------------------- */

static int image_error(const struct image_diag *d, int err)
{
	cli_error("%s: %s (%s)", d->path[0] ? d->path : "?",
		  d->message[0] ? d->message : "cannot map", etmkit_errstr(err));
	return cli_exit_input;
}

/* e_machine of ELF file @path (already read by image_add_elf()), or -1. */
static int elf_machine(const char *path)
{
	uint8_t h[20];
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(h, 1, sizeof(h), f) : 0;

	if (f)
		fclose(f);
	return n == sizeof(h) ? h[18] | h[19] << 8 : -1; /* little-endian */
}

/* ETMv3 and PTM trace ARMv7 and earlier (A32, T32, Jazelle, ThumbEE): an
 * AArch64 ELF file (EM_AARCH64, 183) cannot hold code they traced. An
 * ETMv4/ETE source takes either family (AArch32 code under ARMv8). */
static int elf_fits(const struct cli_source *cs, const char *path)
{
	if ((cs->proto != etmkit_proto_etmv3 &&
	     cs->proto != etmkit_proto_ptm) || elf_machine(path) != 183)
		return 0;
	cli_error("%s: an AArch64 ELF file, but trace ID 0x%02x (%s) is %s, "
		  "which traces ARMv7 and earlier cores (A32 and T32 code): "
		  "give the program the traced core ran", path, cs->id,
		  cs->name, cs->proto == etmkit_proto_ptm ? "PTM" : "ETMv3");
	return cli_exit_input;
}

/* The image of source @cs: its core's dumps, then --image and --elf. */
static int build_image(const struct cli_images *ci,
		       const struct cli_input *in, const struct cli_source *cs,
		       struct image **out)
{
	struct image *img;
	struct image_diag d;
	int err;

	memset(&d, 0, sizeof(d));
	if (image_alloc(&img) < 0) {
		cli_error("out of memory");
		return cli_exit_input;
	}
	*out = img;
	if (in->ss && cs->core[0]) {
		const struct snapshot_device *core =
			snapshot_find_device(in->ss, cs->core);

		/* A dump whose file cannot be read is left out, with a
		 * warning (as OpenCSD does): its addresses become no_image.
		 * A malformed dump is an error. */
		for (size_t k = 0; core && k < core->ndumps; k++) {
			err = image_add_snapshot_dump(img, core, k, &d);
			if (err == -etmkit_err_io) {
				cli_warn("%s: %s "
					 "(%s): decoding without it",
					 d.path[0] ? d.path : "?", d.message,
					 etmkit_errstr(err));
				continue;
			}
			if (err < 0)
				return image_error(&d, err);
		}
	}
	for (int i = 0; i < ci->nimg; i++) {
		const struct cli_image_arg *ia = &ci->img[i];

		err = ia->elf ? image_add_elf(img, ia->path, ia->addr, 0, &d) :
				image_add_file(img, ia->path, ia->addr, 0, 0, 0, &d);
		if (err < 0)
			return image_error(&d, err);
		if (ia->elf && elf_fits(cs, ia->path))
			return cli_exit_input;
	}
	if (!image_region_count(img) && cs->proto == etmkit_proto_etmv2)
		/* an ETMv1/ETMv2 port has no trace IDs */
		cli_note("no program image for the ETMv2 trace (%s): "
			 "instructions cannot be followed (give --image or "
			 "--elf)", cs->core[0] ? cs->core : "no core named");
	else if (!image_region_count(img))
		cli_note("no program image for "
			 "trace ID 0x%02x (%s): instructions cannot be followed "
			 "(give --image or --elf)", cs->id,
			 cs->core[0] ? cs->core : "no core named");
	return 0;
}

/* A perf.data recording: per-process images from its side-band; --image
 * and --elf name files for its binaries (cli/perf_sideband.c). */
static int setup_perf(struct cli_images *ci, struct cli_input *in)
{
	for (int i = 0; i < ci->nimg; i++) {
		ci->ovr[i].raw = (uint8_t)!ci->img[i].elf;
		ci->ovr[i].path = ci->img[i].path;
		ci->ovr[i].bias = ci->img[i].addr;
		ci->ovr[i].has_bias = (uint8_t)ci->img[i].has_num;
	}
	ci->perf.elf = ci->ovr;
	ci->perf.nelf = (size_t)ci->nimg;
	return cli_perf_sb_open(&ci->sb, in, &ci->perf);
}

/* ---- Flow decoders ------------------------------------------------------ */

int cli_images_setup(struct cli_images *ci, struct cli_input *in,
		     struct etmkit_session *s, uint32_t etm4_flags)
{
	int err = 0, rc;

	if (in->perf) {
		rc = setup_perf(ci, in);
		if (rc)
			return rc;
	} else if (ci->perf.symfs || ci->perf.buildid_dir ||
		   ci->perf.vmlinux || ci->perf.pids.n || ci->perf.binary_re) {
		cli_error("--symfs, --buildid-dir, --vmlinux, --pid and "
			  "--binary apply to a perf.data recording");
		return cli_exit_usage;
	}
	for (int i = 0; err >= 0 && i < in->nsrc; i++) {
		const struct cli_source *cs = &in->src[i];

		/* Sources of one core (or of none) share its image: the files
		 * are mapped once. */
		for (int j = 0; j < i && !ci->images[i]; j++)
			if (!strcmp(in->src[j].core, cs->core))
				ci->images[i] = ci->images[j];
		if (!ci->images[i] && !ci->sb) {
			rc = build_image(ci, in, cs, &ci->images[i]);
			if (rc)
				return rc;
		}
		/* ETMv2: the CLI drives its flow decoder (cli_etm2_decode()). */
		if (cs->proto == etmkit_proto_etmv2)
			continue;
		if (cs->proto == etmkit_proto_etmv3) {
			struct etm3_flow_config fc;

			etm3_flow_config_init(&fc);
			fc.etm = cs->cfg;
			fc.image = ci->images[i];
			fc.flags = ci->etm3_flags;
			if (ci->sb)
				cli_perf_sb_etm3(ci->sb, cs, &fc);
			err = etmkit_session_add_etm3_flow(s, cs->id, &fc);
		} else if (cs->proto == etmkit_proto_ptm) {
			struct ptm_flow_config fp;

			ptm_flow_config_init(&fp);
			fp.ptm = cs->ptm;
			fp.image = ci->images[i];
			fp.flags = ci->ptm_flags;
			if (ci->sb)
				cli_perf_sb_ptm(ci->sb, cs, &fp);
			err = etmkit_session_add_ptm_flow(s, cs->id, &fp);
		} else {
			struct etm4_flow_config f4;

			etm4_flow_config_init(&f4);
			f4.etm = cs->etm4;
			f4.image = ci->images[i];
			f4.flags = etm4_flags;
			if (ci->sb)
				cli_perf_sb_etm4(ci->sb, cs, &f4);
			err = etmkit_session_add_etm4_flow(s, cs->id, &f4);
		}
	}
	if (err == -etmkit_err_unsupported) {
		cli_error("the trace has conditional-"
			  "instruction or data trace enabled (TRCCONFIGR); decode "
			  "follows instruction trace only: use 'etmkit packets'");
		return cli_exit_input;
	}
	if (err < 0) {
		cli_error("cannot set up the decoder: %s", etmkit_errstr(err));
		return cli_exit_input;
	}
	return 0;
}

const struct image *cli_images_of(const struct cli_images *ci,
				  const struct cli_input *in, uint8_t id)
{
	if (ci->sb)
		return cli_perf_sb_image(ci->sb, id);
	for (int i = 0; i < in->nsrc; i++)
		if (in->src[i].id == id)
			return ci->images[i];
	return NULL;
}

int cli_images_symbols(const struct cli_images *ci, struct cli_symbols *syms)
{
	int rc = 0;

	if (ci->sb)
		return cli_perf_sb_symbols(ci->sb, syms);
	for (int i = 0; !rc && i < CLI_MAX_IDS && ci->images[i]; i++) {
		int shared = 0;

		for (int j = 0; j < i; j++)
			shared |= ci->images[j] == ci->images[i];
		if (!shared)
			rc = cli_symbols_add_image(syms, ci->images[i]);
	}
	return rc;
}

void cli_images_free(struct cli_images *ci)
{
	cli_perf_sb_free(ci->sb);
	ci->sb = NULL;
	for (int i = 0; i < CLI_MAX_IDS; i++) {
		int shared = 0;

		for (int j = 0; j < i; j++)
			shared |= ci->images[j] == ci->images[i];
		if (!shared)
			image_free(ci->images[i]);
		ci->images[i] = NULL;
	}
	for (int i = 0; i < ci->nimg; i++)
		free(ci->img[i].owned);
	ci->nimg = 0;
}
