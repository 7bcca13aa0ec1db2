/* etmkit: a capture wired through the layers.
 *
 * A session takes the bytes of one trace buffer, deformats them (transport
 * layer), hands each trace ID's bytes to the decoder configured for it, and
 * delivers what it decodes through one callback, in input order per ID: a
 * packet decoder's records through on_packet, a flow decoder's elements
 * (instructions and events, elem.h) through on_elem. IDs without a decoder
 * are skipped (and counted by the transport statistics).
 *
 * Use:
 *   struct etmkit_session_config sc;
 *   etmkit_session_config_init(&sc);
 *   sc.frames = deformat_coresight; sc.on_elem = fn; sc.ctx = ...;
 *   etmkit_session_alloc(&s, &sc);
 *   etmkit_session_add_etm3_flow(s, 0x10, &flow_cfg); ...
 *   for each chunk: etmkit_session_feed(s, buf, n);
 *   etmkit_session_finish(s); etmkit_session_free(s);
 */
#ifndef ETMKIT_SESSION_H
#define ETMKIT_SESSION_H

#include "etmkit/common.h"
#include "etmkit/transport.h"
#include "etmkit/etm3.h"
#include "etmkit/etm4.h"
#include "etmkit/elem.h"
#include "etmkit/flow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One packet record of trace source @id. @packet points to the protocol's
 * record type (struct etm3_packet for etmkit_proto_etmv3, struct
 * etm4_packet for etmkit_proto_etmv4 and etmkit_proto_ete), valid during
 * the call. Return 0 to go on; a negative value stops the feed, which returns
 * it. */
typedef int (*etmkit_packet_fn)(void *ctx, uint8_t id,
				enum etmkit_protocol proto, const void *packet);

/* One element of the flow decoder of trace source @id, valid during the
 * call. Same return convention as etmkit_packet_fn. */
typedef int (*etmkit_elem_fn)(void *ctx, uint8_t id,
			      const struct etmkit_elem *elem);

struct etmkit_session_config {
	size_t size;                /* sizeof(struct etmkit_session_config) */
	enum deformat_mode frames;  /* how the buffer is framed */
	uint8_t raw_id;             /* deformat_none: the source's ID */
	etmkit_packet_fn on_packet; /* required for packet decoders */
	deformat_event_fn on_frame_event; /* optional: frames and syncs */
	void *ctx;
	/* Stop at the first malformed frame or packet instead of
	 * resynchronising: the error is delivered (as an event or a record),
	 * then etmkit_session_feed() returns -etmkit_err_bad_frame or
	 * -etmkit_err_bad_packet. Input ending inside a frame or packet is
	 * reported at etmkit_session_finish() and does not stop. */
	uint8_t stop_on_error;
	etmkit_elem_fn on_elem;     /* required for flow decoders */
};

/* Fill @cfg with defaults: zeros (deformat_none, no callbacks,
 * stop_on_error 0) and size = sizeof(*cfg), so a caller that sets only the
 * fields it uses keeps working when the struct grows. Does nothing when
 * @cfg is NULL. */
void etmkit_session_config_init(struct etmkit_session_config *cfg);

struct etmkit_session;

/* Returns 0 and sets *@s; -etmkit_err_invalid (NULL, bad size, neither
 * on_packet nor on_elem), -etmkit_err_nomem. */
int etmkit_session_alloc(struct etmkit_session **s,
			 const struct etmkit_session_config *cfg);
void etmkit_session_free(struct etmkit_session *s);

/* Decode trace ID @id as ETMv3 with @cfg. Returns 0; -etmkit_err_invalid
 * (ID 0 or >= 0x70, already added), or etm3_pkt_alloc()'s errors. */
int etmkit_session_add_etm3(struct etmkit_session *s, uint8_t id,
			    const struct etm3_config *cfg);

/* Decode trace ID @id as ETMv4, or as ETE when @cfg->flags has
 * ETM4_CFG_ETE (the packets are then reported with etmkit_proto_ete).
 * Needs on_packet. Returns 0; -etmkit_err_invalid (bad cfg->size, no
 * on_packet, ID 0 or >= 0x70 in framed input, already added), or
 * etm4_pkt_alloc()'s errors (-etmkit_err_bad_config: the registers name
 * neither ETMv4 nor ETE). */
int etmkit_session_add_etm4(struct etmkit_session *s, uint8_t id,
			    const struct etm4_config *cfg);

/* Decode trace ID @id as ETMv3 down to execution: a flow decoder with
 * @cfg (the image it names must outlive the session). Needs on_elem.
 * Returns 0; -etmkit_err_invalid (no on_elem, ID 0 or >= 0x70 in framed
 * input, already added), or etm3_flow_alloc()'s errors. */
int etmkit_session_add_etm3_flow(struct etmkit_session *s, uint8_t id,
				 const struct etm3_flow_config *cfg);

/* Decode trace ID @id as ETMv4 or ETE (ETM4_CFG_ETE) down to execution:
 * a flow decoder with @cfg (the image it names must outlive the session).
 * Needs on_elem. Returns 0; -etmkit_err_invalid (no on_elem, ID 0 or >=
 * 0x70 in framed input, already added), or etm4_flow_alloc()'s errors. */
int etmkit_session_add_etm4_flow(struct etmkit_session *s, uint8_t id,
				 const struct etm4_flow_config *cfg);

/* Feed the next @n bytes of the buffer. Returns 0, a callback's negative
 * value, -etmkit_err_invalid, or with stop_on_error -etmkit_err_bad_frame /
 * -etmkit_err_bad_packet once an error has been delivered. */
int etmkit_session_feed(struct etmkit_session *s, const uint8_t *buf,
			size_t n);

/* End of the buffer: flush partial frames and packets. */
int etmkit_session_finish(struct etmkit_session *s);

const struct deformat_stats *
etmkit_session_frame_stats(const struct etmkit_session *s);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_SESSION_H */
