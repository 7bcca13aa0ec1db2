/* What the commands that count a whole trace share (profile, flame,
 * coverage): the input, its images and decoding session, the binaries'
 * symbols and locator, the process each trace ID is in (perf.data
 * side-band) and the resolver that turns a run-time address into a
 * binary and ELF address. The command's counter sees every element. */
#ifndef ETMKIT_CLI_COUNTING_H
#define ETMKIT_CLI_COUNTING_H

#include "cli.h"
#include "images.h"
#include "symbolize.h"
#include "etmkit/locate.h"
#include "etmkit/profile.h"

struct cli_counting {
	struct cli_input in;
	struct cli_images images;
	struct etmkit_session *session;
	struct cli_symbols *syms;          /* its locator names binaries */
	struct locate *loc;
	/* The command's counter, given the elements in batches (@e[0..@n-1]
	 * in order, each counted whatever the one before returned; the
	 * library's *_elems()): it returns the first error, kept in err
	 * (reported at the end; counting goes on). */
	int (*count)(void *ctx, uint8_t id, const struct etmkit_elem *e,
		     size_t n);
	void *ctx;
	int err;
	uint64_t errors;                   /* decode errors (gaps) */
	const struct image *id_image[DEFORMAT_ID_COUNT];
	uint8_t id_space[DEFORMAT_ID_COUNT];
	uint8_t own[256];                  /* per element kind: work of the
					      counting's own (counting.c) */
};

/* Before cli_parse_args(): the input's defaults (any frames, snapshot
 * kept, every protocol). */
void cli_counting_init(struct cli_counting *c);

/* After cli_input_resolve(): the session (elements to @c->count), the
 * images with the flow decoders' @flow_flags (etm4_flow.h), the symbols
 * and the locator. Returns 0 or a cli_exit code (the message printed). */
int cli_counting_setup(struct cli_counting *c, unsigned flow_flags);

/* A profile_resolve_fn over the locator (@ctx: the struct cli_counting):
 * @addr in the image and memory space trace ID @id is in. */
int cli_counting_resolve(void *ctx, uint8_t id, uint64_t addr,
			 struct profile_where *w);

/* Read and decode the whole input, then finish the session. Returns 0 or
 * a cli_exit code. */
int cli_counting_stream(struct cli_counting *c, const char *cmd);

/* After the stream: @err, the counter's finish (0 or a negative error),
 * or a counting error before it. Returns 0, or cli_exit_input after
 * saying it. */
int cli_counting_finish(struct cli_counting *c, int err);

/* After the output is written: the decode errors, if any, said
 * (cli_exit_trace_errors); else 0. */
int cli_counting_errors(const struct cli_counting *c);

void cli_counting_free(struct cli_counting *c);

#endif /* ETMKIT_CLI_COUNTING_H */
