/* What the commands that count a whole trace share: cli/counting.h. */
#include <string.h>

#include "counting.h"

void cli_counting_init(struct cli_counting *c)
{
	memset(c, 0, sizeof(*c));
	c->in.frames = -1;
	c->in.keep_snapshot = 1;
	c->in.protos = CLI_PROTO_ALL;
}

/* Losses that are not decode errors (as in decode): a packet cut at the
 * end of a piece, and trace the recorder says it lost (digest
 * perf-data.md 3.7). */
static int expected_loss(unsigned reason)
{
	return reason == etmkit_loss_truncated ||
	       (reason >= etmkit_loss_aux_truncated &&
		reason <= etmkit_loss_aux_missing);
}

static int on_elem(void *ctx, uint8_t id, const struct etmkit_elem *e)
{
	struct cli_counting *c = ctx;
	int err;

	id &= 0x7f;
	if (c->images.sb && e->kind != etmkit_elem_insn_range &&
	    e->kind != etmkit_elem_insn && e->kind != etmkit_elem_branch_run) {
		struct cli_task task;

		/* Follow the process (perf.data): the thread of the context
		 * ID picks its image. Every element counts: --pid and
		 * --binary of decode are listing filters, so the side-band
		 * has nothing to say of an instruction. */
		cli_perf_sb_elem(c->images.sb, id, e, &task);
		if (e->kind == etmkit_elem_context)
			c->id_image[id] = cli_perf_sb_image(c->images.sb, id);
	}
	if (e->kind == etmkit_elem_context)
		c->id_space[id] = cli_context_space(e);
	else if (e->kind == etmkit_elem_gap && !expected_loss(e->u.loss.reason))
		c->errors++;
	err = c->count(c->ctx, id, e);
	if (err < 0 && !c->err)
		c->err = err;
	return 0;
}

/* The binary and ELF address of @addr through the locator, in the memory
 * space trace ID @id is in, with the span over which the locator's answer
 * holds. A file offset outside the loadable segments has no ELF address:
 * not a binary's code, as for simpleperf. */
int cli_counting_resolve(void *ctx, uint8_t id, uint64_t addr,
			 struct profile_where *w)
{
	struct cli_counting *c = ctx;

	if (!c->id_image[id])
		return -etmkit_err_not_found;
	return profile_where_locate(c->loc, c->id_image[id], c->id_space[id],
				    addr, w);
}

int cli_counting_setup(struct cli_counting *c, unsigned flow_flags)
{
	struct etmkit_session_config sc;
	int err, rc;

	etmkit_session_config_init(&sc);
	sc.frames = c->in.mode;
	sc.raw_id = c->in.src[0].id;
	sc.on_elem = on_elem;
	sc.ctx = c;
	err = etmkit_session_alloc(&c->session, &sc);
	if (!err && !(c->syms = cli_symbols_alloc()))
		err = -etmkit_err_nomem;
	if (err < 0) {
		cli_error("cannot set up the decoder: %s", etmkit_errstr(err));
		return cli_exit_input;
	}
	rc = cli_images_setup(&c->images, &c->in, c->session, flow_flags);
	if (!rc)
		rc = cli_images_symbols(&c->images, c->syms);
	c->loc = cli_symbols_locate(c->syms);
	for (int i = 0; !rc && i < c->in.nsrc; i++) {
		uint8_t id = c->in.src[i].id & 0x7f;

		c->id_image[id] = cli_images_of(&c->images, &c->in, id);
		c->id_space[id] = IMAGE_SPACE_ANY;
	}
	return rc;
}

struct feed_ctx {
	const char *cmd;
	struct etmkit_session *session;
};

static int feed(void *ctx, const uint8_t *buf, size_t n)
{
	const struct feed_ctx *f = ctx;
	int stopped = 0;

	return cli_session_feed(f->cmd, f->session, buf, n, 0, &stopped);
}

int cli_counting_stream(struct cli_counting *c, const char *cmd)
{
	struct feed_ctx f = { cmd, c->session };
	int rc = cli_input_stream(&c->in, feed, &f, c->session);

	if (!rc && etmkit_session_finish(c->session) < 0)
		rc = cli_exit_input;
	return rc;
}

void cli_counting_free(struct cli_counting *c)
{
	etmkit_session_free(c->session);
	c->session = NULL;
	cli_symbols_free(c->syms);
	c->syms = NULL;
	cli_images_free(&c->images);
	cli_input_free(&c->in);
}
