/* A capture wired through the layers: deformatter -> packet or flow
 * decoders. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/session.h"
#include "session_internal.h"

/* The next records of packet source @src into the session's batch: their
 * count (as etm3_pkt_next()), *@recs and *@size their array and size. */
static int source_packets(struct etmkit_session *s, struct session_source *src,
			  const void **recs, size_t *size)
{
	switch ((enum session_kind)src->kind) {
	case src_etm3_pkt:
		*recs = s->batch.etm3;
		*size = sizeof(s->batch.etm3[0]);
		return etm3_pkt_next(src->u.etm3, s->batch.etm3, SESSION_BATCH);
	case src_etm4_pkt:
		*recs = s->batch.etm4;
		*size = sizeof(s->batch.etm4[0]);
		return etm4_pkt_next(src->u.etm4, s->batch.etm4, SESSION_BATCH);
	case src_ptm_pkt:
		*recs = s->batch.ptm;
		*size = sizeof(s->batch.ptm[0]);
		return ptm_pkt_next(src->u.ptm, s->batch.ptm, SESSION_BATCH);
	default:
		return -etmkit_err_eos;
	}
}

/* Drain packet source @src of trace ID @id into on_packet. */
static int drain_packets(struct etmkit_session *s, uint8_t id,
			 struct session_source *src)
{
	for (;;) {
		const void *recs;
		size_t size;
		int n = source_packets(s, src, &recs, &size);

		if (n == -etmkit_err_eos)
			return 0;
		if (n < 0)
			return n;
		for (int i = 0; i < n; i++) {
			int err = s->cfg.on_packet(s->cfg.ctx, id,
					(enum etmkit_protocol)src->proto,
					(const char *)recs + (size_t)i * size);
			if (err < 0)
				return err;
		}
	}
}

int session_deliver(struct etmkit_session *s, uint8_t id,
		    const struct etmkit_elem *e, size_t n)
{
	if (s->cfg.on_elems)
		return n ? s->cfg.on_elems(s->cfg.ctx, id, e, n) : 0;
	for (size_t i = 0; i < n; i++) {
		int err = s->cfg.on_elem(s->cfg.ctx, id, &e[i]);

		if (err < 0)
			return err;
	}
	return 0;
}

/* The next batch of flow source @src: as etm3_flow_batch(). */
static int source_batch(struct session_source *src,
			const struct etmkit_elem **el)
{
	switch ((enum session_kind)src->kind) {
	case src_etm3_flow:
		return etm3_flow_batch(src->u.flow, el);
	case src_ptm_flow:
		return ptm_flow_batch(src->u.flowp, el);
	default:
		return etm4_flow_batch(src->u.flow4, el);
	}
}

int session_source_drain(struct session_source *src, session_batch_fn fn,
			 void *ctx)
{
	for (;;) {
		const struct etmkit_elem *el;
		int n = source_batch(src, &el);

		if (n == -etmkit_err_eos)
			return 0;
		if (n < 0)
			return n;
		n = fn(ctx, el, (size_t)n);
		if (n < 0)
			return n;
	}
}

/* Where the serial path delivers a flow source's batches. */
struct deliver_to {
	struct etmkit_session *s;
	uint8_t id;
};

/* session_batch_fn: each batch whole to on_elems (or on_elem by one). */
static int deliver_batch(void *ctx, const struct etmkit_elem *e, size_t n)
{
	const struct deliver_to *to = ctx;

	return session_deliver(to->s, to->id, e, n);
}

/* One element the session made itself, for source @id: a batch of 1 for
 * on_elems. */
static int deliver_elem(struct etmkit_session *s, uint8_t id,
			const struct etmkit_elem *e)
{
	return session_deliver(s, id, e, 1);
}

/* ---- Per-kind operations ------------------------------------------------- */

/* What source @id decoded so far, to the session's callbacks (serial path). */
static int source_deliver(struct etmkit_session *s, uint8_t id)
{
	struct session_source *src = &s->src[id & 0x7f];

	switch ((enum session_kind)src->kind) {
	case src_etm3_pkt:
	case src_etm4_pkt:
	case src_ptm_pkt:
		return drain_packets(s, id, src);
	case src_etm3_flow:
	case src_etm4_flow:
	case src_ptm_flow: {
		struct deliver_to to = { s, id };

		return session_source_drain(src, deliver_batch, &to);
	}
	case src_none:
		break;
	}
	return 0;
}

int session_source_feed(struct session_source *src, const uint8_t *data,
		       size_t n, const uint64_t *offsets, uint64_t base)
{
	switch ((enum session_kind)src->kind) {
	case src_etm3_pkt:
		return etm3_pkt_feed(src->u.etm3, data, n, offsets, base);
	case src_etm3_flow:
		return etm3_flow_feed(src->u.flow, data, n, offsets, base);
	case src_etm4_pkt:
		return etm4_pkt_feed(src->u.etm4, data, n, offsets, base);
	case src_etm4_flow:
		return etm4_flow_feed(src->u.flow4, data, n, offsets, base);
	case src_ptm_pkt:
		return ptm_pkt_feed(src->u.ptm, data, n, offsets, base);
	case src_ptm_flow:
		return ptm_flow_feed(src->u.flowp, data, n, offsets, base);
	case src_none:
		break;
	}
	return 0;
}

int session_source_gap(struct session_source *src)
{
	switch ((enum session_kind)src->kind) {
	case src_etm3_pkt:
		return etm3_pkt_gap(src->u.etm3);
	case src_etm3_flow:
		return etm3_flow_gap(src->u.flow);
	case src_etm4_pkt:
		return etm4_pkt_gap(src->u.etm4);
	case src_etm4_flow:
		return etm4_flow_gap(src->u.flow4);
	case src_ptm_pkt:
		return ptm_pkt_gap(src->u.ptm);
	case src_ptm_flow:
		return ptm_flow_gap(src->u.flowp);
	case src_none:
		break;
	}
	return 0;
}

int session_source_finish(struct session_source *src)
{
	switch ((enum session_kind)src->kind) {
	case src_etm3_pkt:
		return etm3_pkt_finish(src->u.etm3);
	case src_etm3_flow:
		return etm3_flow_finish(src->u.flow);
	case src_etm4_pkt:
		return etm4_pkt_finish(src->u.etm4);
	case src_etm4_flow:
		return etm4_flow_finish(src->u.flow4);
	case src_ptm_pkt:
		return ptm_pkt_finish(src->u.ptm);
	case src_ptm_flow:
		return ptm_flow_finish(src->u.flowp);
	case src_none:
		break;
	}
	return 0;
}

void session_source_reset(struct session_source *src)
{
	switch ((enum session_kind)src->kind) {
	case src_etm3_pkt:
		etm3_pkt_reset(src->u.etm3);
		break;
	case src_etm3_flow:
		etm3_flow_reset(src->u.flow);
		break;
	case src_etm4_pkt:
		etm4_pkt_reset(src->u.etm4);
		break;
	case src_etm4_flow:
		etm4_flow_reset(src->u.flow4);
		break;
	case src_ptm_pkt:
		ptm_pkt_reset(src->u.ptm);
		break;
	case src_ptm_flow:
		ptm_flow_reset(src->u.flowp);
		break;
	case src_none:
		break;
	}
}

static void source_free(struct session_source *src)
{
	switch ((enum session_kind)src->kind) {
	case src_etm3_pkt:
		etm3_pkt_free(src->u.etm3);
		break;
	case src_etm3_flow:
		etm3_flow_free(src->u.flow);
		break;
	case src_etm4_pkt:
		etm4_pkt_free(src->u.etm4);
		break;
	case src_etm4_flow:
		etm4_flow_free(src->u.flow4);
		break;
	case src_ptm_pkt:
		ptm_pkt_free(src->u.ptm);
		break;
	case src_ptm_flow:
		ptm_flow_free(src->u.flowp);
		break;
	case src_none:
		break;
	}
	memset(src, 0, sizeof(*src));
}

/* ---- Transport callbacks ------------------------------------------------- */

static int on_data(void *ctx, uint8_t id, const uint8_t *data,
		   const uint64_t *offsets, uint64_t base, size_t n)
{
	struct etmkit_session *s = ctx;
	struct session_source *src = &s->src[id & 0x7f];
	int err;

	if (src->kind == src_none)
		return 0;
	src->fed = 1;
	if (s->jobs)
		return sj_data(s, id, data, offsets, base, n);
	err = session_source_feed(src, data, n, offsets, base);
	if (err < 0)
		return err;
	return source_deliver(s, id);
}

/* Data was lost in transport: no decoder may join bytes across it. */
static int on_gap(void *ctx, uint64_t offset)
{
	struct etmkit_session *s = ctx;

	(void)offset;
	for (unsigned id = 0; id < DEFORMAT_ID_COUNT; id++) {
		int err;

		if (s->src[id].kind == src_none)
			continue;
		if (s->jobs) {
			err = sj_command(s, (uint8_t)id, sj_gap);
			if (err < 0)
				return err;
			continue;
		}
		err = session_source_gap(&s->src[id]);
		if (!err)
			err = source_deliver(s, (uint8_t)id);
		if (err < 0)
			return err;
	}
	return 0;
}

int session_frame_event(struct etmkit_session *s,
			const struct deformat_event *ev)
{
	int err = 0;

	if (s->cfg.on_frame_event)
		err = s->cfg.on_frame_event(s->cfg.ctx, ev);
	if (err < 0)
		return err;
	if (s->cfg.stop_on_error && ev->kind == deformat_ev_error &&
	    ev->error != -etmkit_err_truncated)
		return -etmkit_err_bad_frame;
	return 0;
}

static int on_event(void *ctx, const struct deformat_event *ev)
{
	struct etmkit_session *s = ctx;

	if (s->jobs)
		return sj_event(s, ev);
	return session_frame_event(s, ev);
}

void etmkit_session_config_init(struct etmkit_session_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
}

int etmkit_session_alloc(struct etmkit_session **out,
			 const struct etmkit_session_config *cfg)
{
	struct etmkit_session *s;
	struct deformat_config dc;
	int err;

	/* Before on_elem existed the struct ended at stop_on_error. */
	if (!out || !cfg ||
	    cfg->size < offsetof(struct etmkit_session_config, on_elem))
		return -etmkit_err_invalid;
	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -etmkit_err_nomem;
	memcpy(&s->cfg, cfg, cfg->size < sizeof(s->cfg) ? cfg->size :
						       sizeof(s->cfg));
	if (!s->cfg.on_packet && !s->cfg.on_elem && !s->cfg.on_elems) {
		free(s);
		return -etmkit_err_invalid;
	}
	memset(&dc, 0, sizeof(dc));
	dc.size = sizeof(dc);
	dc.mode = cfg->frames;
	dc.raw_id = cfg->raw_id;
	dc.on_data = on_data;
	dc.on_event = cfg->on_frame_event || cfg->stop_on_error ? on_event : NULL;
	dc.ctx = s;
	dc.on_gap = on_gap;
	err = deformat_alloc(&s->deformat, &dc);
	if (err < 0) {
		free(s);
		return err;
	}
	s->boundary = 1;
	*out = s;
	return 0;
}

void etmkit_session_free(struct etmkit_session *s)
{
	if (!s)
		return;
	sj_free(s); /* the workers first: they use the decoders */
	for (unsigned i = 0; i < DEFORMAT_ID_COUNT; i++)
		source_free(&s->src[i]);
	deformat_free(s->deformat);
	free(s);
}

/* The source slot for a new decoder of @id, or NULL if it cannot take
 * one. Raw streams may use any ID; formatted ones only 0x01-0x6F. */
static struct session_source *free_slot(struct etmkit_session *s, uint8_t id)
{
	if (id >= DEFORMAT_ID_COUNT || s->jobs)
		return NULL;
	if (s->cfg.frames != deformat_none && (id == 0 || id >= 0x70))
		return NULL;
	return s->src[id].kind == src_none ? &s->src[id] : NULL;
}

int etmkit_session_add_etm3(struct etmkit_session *s, uint8_t id,
			    const struct etm3_config *cfg)
{
	struct session_source *src;
	struct etm3_config c;
	int err;

	if (!s || !cfg || !s->cfg.on_packet || !(src = free_slot(s, id)))
		return -etmkit_err_invalid;
	c = *cfg;
	if (s->cfg.stop_on_error)
		c.flags |= ETM3_CFG_STOP_ON_ERROR;
	err = etm3_pkt_alloc(&src->u.etm3, &c);
	if (err < 0)
		return err;
	src->kind = src_etm3_pkt;
	src->proto = etmkit_proto_etmv3;
	return 0;
}

int etmkit_session_add_etm3_flow(struct etmkit_session *s, uint8_t id,
				 const struct etm3_flow_config *cfg)
{
	struct session_source *src;
	struct etm3_flow_config c;
	int err;

	if (!s || !cfg || cfg->size < sizeof(c) ||
	    (!s->cfg.on_elem && !s->cfg.on_elems) ||
	    !(src = free_slot(s, id)))
		return -etmkit_err_invalid;
	c = *cfg;
	if (s->cfg.stop_on_error)
		c.etm.flags |= ETM3_CFG_STOP_ON_ERROR;
	err = etm3_flow_alloc(&src->u.flow, &c);
	if (err < 0)
		return err;
	src->fc.etm3 = c;
	src->kind = src_etm3_flow;
	src->proto = etmkit_proto_etmv3;
	return 0;
}

int etmkit_session_add_etm4(struct etmkit_session *s, uint8_t id,
			    const struct etm4_config *cfg)
{
	struct session_source *src;
	struct etm4_config c;
	int err;

	if (!s || !cfg || cfg->size < sizeof(c) || !s->cfg.on_packet ||
	    !(src = free_slot(s, id)))
		return -etmkit_err_invalid;
	c = *cfg;
	if (s->cfg.stop_on_error)
		c.flags |= ETM4_CFG_STOP_ON_ERROR;
	err = etm4_pkt_alloc(&src->u.etm4, &c);
	if (err < 0)
		return err;
	src->kind = src_etm4_pkt;
	src->proto = (c.flags & ETM4_CFG_ETE) ? etmkit_proto_ete :
						etmkit_proto_etmv4;
	return 0;
}

int etmkit_session_add_ptm(struct etmkit_session *s, uint8_t id,
			   const struct ptm_config *cfg)
{
	struct session_source *src;
	struct ptm_config c;
	int err;

	if (!s || !cfg || cfg->size < sizeof(c) || !s->cfg.on_packet ||
	    !(src = free_slot(s, id)))
		return -etmkit_err_invalid;
	c = *cfg;
	if (s->cfg.stop_on_error)
		c.flags |= PTM_CFG_STOP_ON_ERROR;
	err = ptm_pkt_alloc(&src->u.ptm, &c);
	if (err < 0)
		return err;
	src->kind = src_ptm_pkt;
	src->proto = etmkit_proto_ptm;
	return 0;
}

int etmkit_session_add_etm4_flow(struct etmkit_session *s, uint8_t id,
				 const struct etm4_flow_config *cfg)
{
	struct session_source *src;
	struct etm4_flow_config c;
	int err;

	if (!s || !cfg || cfg->size < sizeof(c) ||
	    (!s->cfg.on_elem && !s->cfg.on_elems) ||
	    !(src = free_slot(s, id)))
		return -etmkit_err_invalid;
	c = *cfg;
	if (s->cfg.stop_on_error)
		c.etm.flags |= ETM4_CFG_STOP_ON_ERROR;
	err = etm4_flow_alloc(&src->u.flow4, &c);
	if (err < 0)
		return err;
	src->fc.etm4 = c;
	src->kind = src_etm4_flow;
	src->proto = (c.etm.flags & ETM4_CFG_ETE) ? etmkit_proto_ete :
						    etmkit_proto_etmv4;
	return 0;
}

int etmkit_session_add_ptm_flow(struct etmkit_session *s, uint8_t id,
				const struct ptm_flow_config *cfg)
{
	struct session_source *src;
	struct ptm_flow_config c;
	int err;

	if (!s || !cfg || cfg->size < sizeof(c) ||
	    (!s->cfg.on_elem && !s->cfg.on_elems) ||
	    !(src = free_slot(s, id)))
		return -etmkit_err_invalid;
	c = *cfg;
	if (s->cfg.stop_on_error)
		c.ptm.flags |= PTM_CFG_STOP_ON_ERROR;
	err = ptm_flow_alloc(&src->u.flowp, &c);
	if (err < 0)
		return err;
	src->fc.ptm = c;
	src->kind = src_ptm_flow;
	src->proto = etmkit_proto_ptm;
	return 0;
}

/* Before a call that decodes: start the workers at the first one
 * (etmkit_session_config.jobs), and with them running return the error
 * that stopped them (0: none). */
static int call_begin(struct etmkit_session *s)
{
	if (!s->jobs_state) {
		int err = sj_start(s);

		if (err < 0)
			return err;
	}
	return s->jobs ? sj_error(s) : 0;
}

/* After a call that decodes, with the workers running: with stop_on_error
 * every call returns once its elements are delivered, so an error is
 * returned by the call that serial decoding returns it from. */
static int call_end(struct etmkit_session *s, int err)
{
	if (!s->jobs || err < 0)
		return err;
	if (s->cfg.stop_on_error)
		return sj_sync(s);
	return sj_error(s);
}

int etmkit_session_feed(struct etmkit_session *s, const uint8_t *buf, size_t n)
{
	int err;

	if (!s || (!buf && n))
		return -etmkit_err_invalid;
	err = call_begin(s);
	if (err < 0)
		return err;
	s->next_off += n;
	if (n)
		s->boundary = 0;
	return call_end(s, deformat_feed(s->deformat, buf, n));
}

int etmkit_session_feed_raw(struct etmkit_session *s, uint8_t id,
			    const uint8_t *buf, size_t n)
{
	uint64_t base;
	int err;

	if (!s || (!buf && n) || id >= DEFORMAT_ID_COUNT)
		return -etmkit_err_invalid;
	if (!n)
		return 0;
	err = call_begin(s);
	if (err < 0)
		return err;
	base = s->next_off;
	s->next_off += n;
	s->boundary = 0;
	return call_end(s, on_data(s, id, buf, NULL, base, n));
}

static int finish_all(struct etmkit_session *s);

/* Static strings for the gap elements of a break. */
static const char *loss_why(enum etmkit_loss why)
{
	switch (why) {
	case etmkit_loss_aux_truncated:
		return "AUX record flagged TRUNCATED: the buffer filled up";
	case etmkit_loss_aux_partial:
		return "AUX record flagged PARTIAL: the data has holes";
	case etmkit_loss_aux_collision:
		return "AUX record flagged COLLISION: the buffer wrapped";
	case etmkit_loss_aux_overwrite:
		return "AUX record flagged OVERWRITE: older trace overwritten";
	case etmkit_loss_aux_missing:
		return "AUX record whose data is not in the file";
	default:
		return "trace lost between pieces of the buffer";
	}
}

void session_loss_elem(struct etmkit_elem *e, enum etmkit_loss why,
		       uint64_t offset)
{
	memset(e, 0, sizeof(*e));
	e->kind = etmkit_elem_gap;
	e->offset = offset;
	e->u.loss.reason = (uint8_t)why;
	e->u.loss.why = loss_why(why);
}

/* Report the loss @why at the next offset to source @id: a gap element
 * for a flow source, on_gap for a packet source. */
static int source_lose(struct etmkit_session *s, uint8_t id,
		       enum etmkit_loss why)
{
	struct session_source *src = &s->src[id & 0x7f];
	struct etmkit_elem e;

	switch ((enum session_kind)src->kind) {
	case src_etm3_flow:
	case src_etm4_flow:
	case src_ptm_flow:
		if (s->jobs)
			return sj_lose(s, id, why, s->next_off);
		session_loss_elem(&e, why, s->next_off);
		return deliver_elem(s, id, &e);
	case src_etm3_pkt:
	case src_etm4_pkt:
	case src_ptm_pkt:
		if (!s->cfg.on_gap)
			return 0;
		return s->cfg.on_gap(s->cfg.ctx, id, why, s->next_off);
	case src_none:
		break;
	}
	return 0;
}

int etmkit_session_break(struct etmkit_session *s, enum etmkit_loss why)
{
	int err;

	if (!s || (unsigned)why >= etmkit_loss_count)
		return -etmkit_err_invalid;
	err = call_begin(s);
	if (err < 0)
		return err;
	/* The end of one piece: cut frames and packets are reported as at
	 * the end of the input (digest perf-data.md 3.10). */
	err = finish_all(s);
	if (err < 0)
		return err;
	for (unsigned id = 0; id < DEFORMAT_ID_COUNT; id++) {
		struct session_source *src = &s->src[id];

		if (src->kind == src_none)
			continue;
		if (s->jobs)
			err = sj_command(s, (uint8_t)id, sj_reset);
		else
			session_source_reset(src);
		if (err < 0)
			return err;
		if (src->fed && why != etmkit_loss_none) {
			err = source_lose(s, (uint8_t)id, why);
			if (err < 0)
				return err;
		}
		src->fed = 0;
	}
	s->boundary = 1;
	return call_end(s, deformat_reset(s->deformat, s->next_off));
}

int etmkit_session_lose(struct etmkit_session *s, uint8_t id,
			enum etmkit_loss why)
{
	int err;

	if (!s || why == etmkit_loss_none ||
	    (unsigned)why >= etmkit_loss_count)
		return -etmkit_err_invalid;
	if (id >= DEFORMAT_ID_COUNT)
		return 0;
	err = call_begin(s);
	if (err < 0)
		return err;
	return call_end(s, source_lose(s, id, why));
}

int etmkit_session_set_offset(struct etmkit_session *s, uint64_t offset)
{
	if (s && s->jobs && sj_error(s))
		return sj_error(s); /* stopped */
	if (!s || !s->boundary)
		return -etmkit_err_invalid;
	s->next_off = offset;
	return deformat_reset(s->deformat, offset);
}

/* The end of the input or of a piece: the deformatter's partial frame,
 * then each source's partial packet. */
static int finish_all(struct etmkit_session *s)
{
	int err = deformat_finish(s->deformat);

	if (err < 0)
		return err;
	for (unsigned id = 0; id < DEFORMAT_ID_COUNT; id++) {
		if (s->src[id].kind == src_none)
			continue;
		if (s->jobs) {
			err = sj_command(s, (uint8_t)id, sj_finish);
		} else {
			session_source_finish(&s->src[id]);
			err = source_deliver(s, (uint8_t)id);
		}
		if (err < 0)
			return err;
	}
	return 0;
}

int etmkit_session_finish(struct etmkit_session *s)
{
	int err;

	if (!s)
		return -etmkit_err_invalid;
	err = call_begin(s);
	if (err < 0)
		return err;
	err = finish_all(s);
	if (err < 0 || !s->jobs)
		return err;
	return sj_sync(s);
}

const struct deformat_stats *
etmkit_session_frame_stats(const struct etmkit_session *s)
{
	return s ? deformat_get_stats(s->deformat) : NULL;
}
