/* What the commands that count a whole trace share: cli/counting.h. */
#include <string.h>

#include "counting.h"
#include "etmkit/blocks.h"

void cli_counting_init(struct cli_counting *c)
{
	memset(c, 0, sizeof(*c));
	c->in.frames = -1;
	c->in.keep_snapshot = 1;
	c->in.protos = CLI_PROTO_ALL | CLI_PROTO_ETM2;
}

/* Losses that are not decode errors (as in decode): a packet cut at the
 * end of a piece, trace the recorder says it lost (digest perf-data.md
 * 3.7), and atoms after an indirect branch whose address never came
 * (no_address: the walk's loss, not the trace's). */
static int expected_loss(unsigned reason)
{
	return reason == etmkit_loss_truncated ||
	       reason == etmkit_loss_no_address ||
	       (reason >= etmkit_loss_aux_truncated &&
		reason <= etmkit_loss_aux_missing);
}

/* Whether elements of kind @kind have work of the counting's own
 * (below): instruction elements have none. Looked up per element in
 * c->own, set once the side-band is known. */
static int has_own(const struct cli_counting *c, unsigned kind)
{
	return kind != etmkit_elem_insn_range && kind != etmkit_elem_insn &&
	       kind != etmkit_elem_branch_run &&
	       (c->images.sb || kind == etmkit_elem_context ||
		kind == etmkit_elem_gap);
}

/* The counting's own work for element @e of trace ID @id, done after the
 * elements before it are counted and before it is: the resolver and the
 * frame names read id_image and id_space, chrome's thread names the
 * side-band. */
static void own_elem(struct cli_counting *c, uint8_t id,
		     const struct etmkit_elem *e)
{
	if (c->images.sb) {
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
		c->id_space[id] = etmkit_context_space(e);
	else if (e->kind == etmkit_elem_gap && !expected_loss(e->u.loss.reason))
		c->errors++;
}

static void count(struct cli_counting *c, uint8_t id,
		  const struct etmkit_elem *e, size_t n)
{
	int err = n ? c->count(c->ctx, id, e, n) : 0;

	if (err < 0 && !c->err)
		c->err = err;
}

/* A batch of the session (on_elems): the command counts the elements
 * from one with work of the counting's own up to the next such one in
 * one call (the runs of instructions between them whole), the counting's
 * work done in between, so each element sees what it saw one by one. */
static int on_elems(void *ctx, uint8_t id, const struct etmkit_elem *e,
		    size_t n)
{
	struct cli_counting *c = ctx;
	const struct etmkit_elem *from = e, *end = e + n;

	id &= 0x7f;
	for (const struct etmkit_elem *p = e; p < end; p++) {
		if (!c->own[p->kind])
			continue;
		count(c, id, from, (size_t)(p - from));
		own_elem(c, id, p);
		from = p;
	}
	count(c, id, from, (size_t)(end - from));
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
	sc.on_elems = on_elems;
	sc.ctx = c;
	sc.jobs = cli_input_jobs(&c->in);
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
	for (unsigned k = 0; k < sizeof(c->own); k++)
		c->own[k] = (uint8_t)has_own(c, k);
	return rc;
}

struct feed_ctx {
	const char *cmd;
	const struct cli_input *in;
	struct etmkit_session *session;
};

static int feed(void *ctx, const uint8_t *buf, size_t n)
{
	const struct feed_ctx *f = ctx;
	int stopped = 0;

	return cli_session_feed(f->cmd, f->in, f->session, buf, n, 0, &stopped);
}

/* An ETMv2 capture (no session source): the flow decoder's batches to
 * on_elems(), as a session's. */
static int stream_etm2(struct cli_counting *c)
{
	uint8_t id = c->in.src[0].id & 0x7f;
	int stopped = 0;

	return cli_etm2_decode(&c->in, c->id_image[id], c->images.etm2_flags,
			       on_elems, c, 0, &stopped, NULL);
}

int cli_counting_stream(struct cli_counting *c, const char *cmd)
{
	struct feed_ctx f = { cmd, &c->in, c->session };
	int rc = cli_input_is_etm2(&c->in) ? stream_etm2(c) :
		 cli_input_stream(&c->in, feed, &f, c->session);

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
