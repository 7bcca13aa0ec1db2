/* A capture wired through the layers: deformatter -> packet or flow
 * decoders. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/session.h"

#define SESSION_BATCH 64

enum session_kind { src_none = 0, src_etm3_pkt, src_etm3_flow };

struct session_source {
	uint8_t kind;   /* enum session_kind */
	struct etm3_pkt_decoder *etm3;
	struct etm3_flow_decoder *flow;
};

struct etmkit_session {
	struct etmkit_session_config cfg;
	struct deformatter *deformat;
	struct session_source src[DEFORMAT_ID_COUNT];
	struct etm3_packet batch[SESSION_BATCH];
};

/* Drain decoder @dec of trace ID @id into the packet callback. */
static int drain_etm3(struct etmkit_session *s, uint8_t id,
		      struct etm3_pkt_decoder *dec)
{
	for (;;) {
		int n = etm3_pkt_next(dec, s->batch, SESSION_BATCH);

		if (n == -etmkit_err_eos)
			return 0;
		if (n < 0)
			return n;
		for (int i = 0; i < n; i++) {
			int err = s->cfg.on_packet(s->cfg.ctx, id,
						   etmkit_proto_etmv3,
						   &s->batch[i]);
			if (err < 0)
				return err;
		}
	}
}

/* Drain flow decoder @dec of trace ID @id into the element callback. */
static int drain_flow(struct etmkit_session *s, uint8_t id,
		      struct etm3_flow_decoder *dec)
{
	for (;;) {
		const struct etmkit_elem *el;
		int n = etm3_flow_batch(dec, &el);

		if (n == -etmkit_err_eos)
			return 0;
		if (n < 0)
			return n;
		for (int i = 0; i < n; i++) {
			int err = s->cfg.on_elem(s->cfg.ctx, id, &el[i]);

			if (err < 0)
				return err;
		}
	}
}

static int drain(struct etmkit_session *s, uint8_t id)
{
	struct session_source *src = &s->src[id & 0x7f];

	if (src->kind == src_etm3_flow)
		return drain_flow(s, id, src->flow);
	return drain_etm3(s, id, src->etm3);
}

static int on_data(void *ctx, uint8_t id, const uint8_t *data,
		   const uint64_t *offsets, uint64_t base, size_t n)
{
	struct etmkit_session *s = ctx;
	struct session_source *src = &s->src[id & 0x7f];
	int err;

	if (src->kind == src_none)
		return 0;
	if (src->kind == src_etm3_flow)
		err = etm3_flow_feed(src->flow, data, n, offsets, base);
	else
		err = etm3_pkt_feed(src->etm3, data, n, offsets, base);
	if (err < 0)
		return err;
	return drain(s, id);
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
		err = s->src[id].kind == src_etm3_flow ?
			      etm3_flow_gap(s->src[id].flow) :
			      etm3_pkt_gap(s->src[id].etm3);
		if (!err)
			err = drain(s, (uint8_t)id);
		if (err < 0)
			return err;
	}
	return 0;
}

static int on_event(void *ctx, const struct deformat_event *ev)
{
	struct etmkit_session *s = ctx;
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
	if (!s->cfg.on_packet && !s->cfg.on_elem) {
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
	*out = s;
	return 0;
}

void etmkit_session_free(struct etmkit_session *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < DEFORMAT_ID_COUNT; i++) {
		etm3_pkt_free(s->src[i].etm3);
		etm3_flow_free(s->src[i].flow);
	}
	deformat_free(s->deformat);
	free(s);
}

/* The source slot for a new decoder of @id, or NULL if it cannot take
 * one. Raw streams may use any ID; formatted ones only 0x01-0x6F. */
static struct session_source *free_slot(struct etmkit_session *s, uint8_t id)
{
	if (id >= DEFORMAT_ID_COUNT)
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
	err = etm3_pkt_alloc(&src->etm3, &c);
	if (err < 0)
		return err;
	src->kind = src_etm3_pkt;
	return 0;
}

int etmkit_session_add_etm3_flow(struct etmkit_session *s, uint8_t id,
				 const struct etm3_flow_config *cfg)
{
	struct session_source *src;
	struct etm3_flow_config c;
	int err;

	if (!s || !cfg || cfg->size < sizeof(c) || !s->cfg.on_elem ||
	    !(src = free_slot(s, id)))
		return -etmkit_err_invalid;
	c = *cfg;
	if (s->cfg.stop_on_error)
		c.etm.flags |= ETM3_CFG_STOP_ON_ERROR;
	err = etm3_flow_alloc(&src->flow, &c);
	if (err < 0)
		return err;
	src->kind = src_etm3_flow;
	return 0;
}

int etmkit_session_feed(struct etmkit_session *s, const uint8_t *buf, size_t n)
{
	if (!s || (!buf && n))
		return -etmkit_err_invalid;
	return deformat_feed(s->deformat, buf, n);
}

int etmkit_session_finish(struct etmkit_session *s)
{
	int err;

	if (!s)
		return -etmkit_err_invalid;
	err = deformat_finish(s->deformat);
	if (err < 0)
		return err;
	for (unsigned id = 0; id < DEFORMAT_ID_COUNT; id++) {
		if (s->src[id].kind == src_none)
			continue;
		if (s->src[id].kind == src_etm3_flow)
			etm3_flow_finish(s->src[id].flow);
		else
			etm3_pkt_finish(s->src[id].etm3);
		err = drain(s, (uint8_t)id);
		if (err < 0)
			return err;
	}
	return 0;
}

const struct deformat_stats *
etmkit_session_frame_stats(const struct etmkit_session *s)
{
	return s ? deformat_get_stats(s->deformat) : NULL;
}
