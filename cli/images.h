/* etmkit CLI: the program images of the trace sources (--image, --elf and
 * a snapshot's dumps) and the flow decoders that follow them, shared by
 * the commands that decode to instructions (decode, profile). */
#ifndef ETMKIT_CLI_IMAGES_H
#define ETMKIT_CLI_IMAGES_H

#include "cli.h"
#include "etmkit/perf_maps.h"

#define CLI_MAX_IMAGE_ARGS 64

struct cli_image_arg {
	const char *path;
	char *owned;     /* path, when split off the argument (freed) */
	uint64_t addr;   /* --image: address; --elf: bias */
	int elf;
	int has_num;     /* FILE@NUMBER given */
};

struct cli_images {
	int nimg;
	struct cli_image_arg img[CLI_MAX_IMAGE_ARGS];
	struct image *images[CLI_MAX_IDS]; /* per source (in.src[i]);
					      sources of one core share */
	/* A perf.data input: its side-band (cli/perf_sideband.c) gives each
	 * process its image and the flow decoders switch between them;
	 * --image and --elf become overrides of its binaries. */
	struct cli_perf_opts perf;         /* --symfs ..., and decode's
					      --pid and --binary */
	struct perf_maps_override ovr[CLI_MAX_IMAGE_ARGS];
	struct cli_perf_sb *sb;
	uint32_t etm3_flags;               /* ETM3_FLOW_* of the ETMv3 flow
					      decoders (decode --ranges) */
	uint32_t ptm_flags;                /* PTM_FLOW_* of the PTM ones */
	uint32_t etm2_flags;               /* ETM2_FLOW_* of an ETMv2
					      capture's (cli_etm2_decode()) */
};

/* --image FILE@ADDR (@elf 0) and --elf FILE[@BIAS] (@elf 1): 0, or -1
 * after a message. As struct cli_flag value callbacks: */
int cli_images_opt_image(void *images, const char *arg);
int cli_images_opt_elf(void *images, const char *arg);
/* The rows of struct cli_flag for the options above, for the commands
 * that take them (decode, profile): @ci is the command's struct
 * cli_images. */
#define CLI_IMAGES_FLAGS(ci)                                              \
	{ .name = "image", .value = cli_images_opt_image, .ctx = (ci) },  \
	{ .name = "elf", .value = cli_images_opt_elf, .ctx = (ci) },      \
	{ .name = "symfs", .value = cli_images_opt_symfs, .ctx = (ci) },  \
	{ .name = "buildid-dir", .value = cli_images_opt_buildid_dir,     \
	  .ctx = (ci) },                                                  \
	{ .name = "vmlinux", .value = cli_images_opt_vmlinux, .ctx = (ci) }

/* --symfs DIR, --buildid-dir DIR, --vmlinux FILE (perf.data inputs). */
int cli_images_opt_symfs(void *images, const char *arg);
int cli_images_opt_buildid_dir(void *images, const char *arg);
int cli_images_opt_vmlinux(void *images, const char *arg);

/* Build the image of every source of @in (a snapshot's dumps for its
 * core, then the --image and --elf files; for a perf.data, the side-band's
 * per-process images, ci->sb), then add a flow decoder per source to @s
 * (@etm4_flags: ETM4_FLOW_* for ETMv4/ETE sources). The perf.data options
 * with another input are a usage error. Returns 0, or a cli_exit after a
 * message. */
int cli_images_setup(struct cli_images *ci, struct cli_input *in,
		     struct etmkit_session *s, uint32_t etm4_flags);

/* The image trace ID @id reads after cli_images_setup(): its source's,
 * or with a perf.data its current process's (it changes at context
 * elements, after cli_perf_sb_elem()); NULL when none. */
const struct image *cli_images_of(const struct cli_images *ci,
				  const struct cli_input *in, uint8_t id);

/* Give every image to @syms (cli/symbolize.h), the binaries of a
 * perf.data named as the recording names them. Returns 0 or a cli_exit
 * after a message. */
struct cli_symbols;
int cli_images_symbols(const struct cli_images *ci, struct cli_symbols *syms);

void cli_images_free(struct cli_images *ci);

#endif
