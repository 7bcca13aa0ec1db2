/* etmkit CLI: the program images of the trace sources (--image, --elf and
 * a snapshot's dumps) and the flow decoders that follow them, shared by
 * the commands that decode to instructions (decode, profile). */
#ifndef ETMKIT_CLI_IMAGES_H
#define ETMKIT_CLI_IMAGES_H

#include "cli.h"

#define CLI_MAX_IMAGE_ARGS 64

struct cli_image_arg {
	const char *path;
	char *owned;     /* path, when split off the argument (freed) */
	uint64_t addr;   /* --image: address; --elf: bias */
	int elf;
};

struct cli_images {
	int nimg;
	struct cli_image_arg img[CLI_MAX_IMAGE_ARGS];
	struct image *images[CLI_MAX_IDS]; /* per source (in.src[i]);
					      sources of one core share */
};

/* --image FILE@ADDR (@elf 0) and --elf FILE[@BIAS] (@elf 1): 0, or -1
 * after a message. As struct cli_flag value callbacks: */
int cli_images_opt_image(void *images, const char *arg);
int cli_images_opt_elf(void *images, const char *arg);

/* Build the image of every source of @in (a snapshot's dumps for its
 * core, then the --image and --elf files), then add a flow decoder per
 * source to @s (@etm4_flags: ETM4_FLOW_* for ETMv4/ETE sources). Returns
 * 0, or a cli_exit after a message. */
int cli_images_setup(struct cli_images *ci, const struct cli_input *in,
		     struct etmkit_session *s, uint32_t etm4_flags);

/* The image of trace ID @id after cli_images_setup(), or NULL. */
struct image *cli_images_of(const struct cli_images *ci,
			    const struct cli_input *in, uint8_t id);

void cli_images_free(struct cli_images *ci);

/* The memory space (image.h) of context element @e, as the flow decoders
 * read the image: ETMv3 from NS and Hyp, ETMv4/ETE from EL and security
 * state. */
uint8_t cli_context_space(const struct etmkit_elem *e);

#endif
