/* One flow source on several threads (session_internal.h, so_*): the
 * session's jobs with split_source when it has one flow source, which
 * the per-source workers (session_jobs.c) would decode on one thread. Its bytes go to a
 * parallel source decoder (parallel/par_source.c), which cuts them at sync
 * points, decodes the pieces on jobs threads and joins them into the
 * serial decoder's elements, in its order. The session's order of
 * callbacks is kept because there is nothing to interleave the elements
 * with but frame events, losses and the source's own commands, and
 * before each of those it delivers all that the serial decoder
 * would have delivered by then (par_source_flush()).
 *
 * Not taken (so_start() returns 0 and the workers decode): sessions
 * without split_source (session.h says when it pays), sessions with
 * on_frame_event or stop_on_error (an event after every frame, each a
 * flush, and errors returned by the call that meets them), and flow
 * configs the parallel decode does not cover (include/etmkit/parallel.h:
 * image_for_context, ETM4_FLOW_TALLY, ETM4_FLOW_TRACES). ETMv3, ETMv4/ETE
 * and PTM flow sources are taken. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "parallel/par_internal.h"
#include "session_internal.h"

size_t so_chunk_bytes;

struct session_one {
	struct etmkit_session *s;
	uint8_t id;
	struct par_source *ps;
};

static int one_sink(void *ctx, const struct etmkit_elem *el, size_t n)
{
	struct session_one *o = ctx;

	return session_deliver(o->s, o->id, el, n);
}

int so_start(struct etmkit_session *s, unsigned jobs,
	     struct session_one **out)
{
	struct etmkit_par_config pc;
	struct session_one *o;
	const struct session_source *src = NULL;
	unsigned id1 = 0;
	int rc;

	*out = NULL;
	if (s->cfg.size < offsetof(struct etmkit_session_config,
				   split_source) + sizeof(s->cfg.split_source) ||
	    !s->cfg.split_source || jobs <= 1 || s->cfg.on_frame_event ||
	    s->cfg.stop_on_error)
		return 0;
	for (unsigned id = 0; id < DEFORMAT_ID_COUNT; id++) {
		if (s->src[id].kind == src_none)
			continue;
		if (src)
			return 0; /* two sources: the workers */
		src = &s->src[id];
		id1 = id;
	}
	if (!src)
		return 0;
	etmkit_par_config_init(&pc);
	pc.jobs = jobs;
	if (src->kind == src_etm3_flow) {
		pc.proto = etmkit_par_etm3;
		pc.etm3 = &src->fc.etm3;
	} else if (src->kind == src_etm4_flow) {
		pc.proto = etmkit_par_etm4;
		pc.etm4 = &src->fc.etm4;
	} else if (src->kind == src_ptm_flow) {
		pc.proto = etmkit_par_ptm;
		pc.ptm = &src->fc.ptm;
	} else {
		return 0;
	}
	o = calloc(1, sizeof(*o));
	if (!o)
		return -etmkit_err_nomem;
	o->s = s;
	o->id = (uint8_t)id1;
	rc = par_source_alloc(&o->ps, &pc, so_chunk_bytes, one_sink, o);
	if (rc) {
		free(o);
		/* A config the parallel decode does not take: the workers
		 * decode it (they make the same decoder the session made:
		 * no other error can come from it here). */
		return rc == -etmkit_err_invalid ? 0 : rc;
	}
	*out = o;
	return 1;
}

void so_free(struct session_one *o)
{
	if (!o)
		return;
	par_source_free(o->ps);
	free(o);
}

int so_data(struct session_one *o, const uint8_t *data,
	    const uint64_t *offsets, uint64_t base, size_t n)
{
	return par_source_feed(o->ps, data, n, offsets, base);
}

int so_command(struct session_one *o, enum sj_cmd cmd)
{
	switch (cmd) {
	case sj_gap:
		return par_source_command(o->ps, par_cmd_gap);
	case sj_finish:
		return par_source_command(o->ps, par_cmd_finish);
	case sj_reset:
		return par_source_command(o->ps, par_cmd_reset);
	}
	return -etmkit_err_invalid;
}

int so_event(struct session_one *o, const struct deformat_event *ev)
{
	int rc = par_source_flush(o->ps);

	return rc ? rc : session_frame_event(o->s, ev);
}

int so_lose(struct session_one *o, enum etmkit_loss why, uint64_t offset)
{
	struct etmkit_elem e;
	int rc = par_source_flush(o->ps);

	if (rc)
		return rc;
	session_loss_elem(&e, why, offset);
	return session_deliver(o->s, o->id, &e, 1);
}
