/* etmkit: a capture wired through the layers.
 *
 * Layer: session (src/session/), above transport, packets and flow.
 *
 * A session takes the bytes of one trace buffer, deformats them (transport
 * layer), hands each trace ID's bytes to the decoder configured for it, and
 * delivers what it decodes through one callback, in input order per ID: a
 * packet decoder's records through on_packet, a flow decoder's elements
 * (instructions and events, elem.h) through on_elem, or through on_elems
 * in batches. IDs without a decoder are skipped (and counted by the
 * transport statistics).
 *
 * Use:
 *   struct etmkit_session_config sc;
 *   etmkit_session_config_init(&sc);
 *   sc.frames = deformat_coresight; sc.on_elem = fn; sc.ctx = ...;
 *   etmkit_session_alloc(&s, &sc);
 *   etmkit_session_add_etm3_flow(s, 0x10, &flow_cfg); ...
 *   for each chunk: etmkit_session_feed(s, buf, n);
 *   between pieces of a ring buffer: etmkit_session_break(s, why);
 *   etmkit_session_finish(s); etmkit_session_free(s);
 */
#ifndef ETMKIT_SESSION_H
#define ETMKIT_SESSION_H

#include "etmkit/common.h"
#include "etmkit/transport.h"
#include "etmkit/etm3.h"
#include "etmkit/etm4.h"
#include "etmkit/ptm.h"
#include "etmkit/elem.h"
#include "etmkit/flow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One packet record of trace source @id. @packet points to the protocol's
 * record type (struct etm3_packet for etmkit_proto_etmv3, struct
 * etm4_packet for etmkit_proto_etmv4 and etmkit_proto_ete, struct
 * ptm_packet for etmkit_proto_ptm), valid during the call. Return 0 to go on; a negative value stops the feed, which returns
 * it. */
typedef int (*etmkit_packet_fn)(void *ctx, uint8_t id,
				enum etmkit_protocol proto, const void *packet);

/* One element of the flow decoder of trace source @id, valid during the
 * call. Same return convention as etmkit_packet_fn. */
typedef int (*etmkit_elem_fn)(void *ctx, uint8_t id,
			      const struct etmkit_elem *elem);

/* Elements @e[0..@n-1] (@n >= 1) of the flow decoder of trace source @id,
 * in decode order, valid during the call: what the decoder had ready at
 * once (etm3_flow_batch(), etm4_flow_batch()), so a consumer pays its
 * call and its argument checks once per batch rather than per element.
 * Same return convention as etmkit_packet_fn: a negative value stops the
 * feed, and the elements after the batch are not delivered. */
typedef int (*etmkit_elems_fn)(void *ctx, uint8_t id,
			       const struct etmkit_elem *e, size_t n);

/* Trace of source @id was lost at input offset @offset for @reason (an
 * enum etmkit_loss, etmkit_loss_aux_*): reported by
 * etmkit_session_break() for packet sources (flow sources get a gap
 * element through on_elem or on_elems instead). Same return convention. */
typedef int (*etmkit_gap_fn)(void *ctx, uint8_t id, enum etmkit_loss reason,
			     uint64_t offset);

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
	etmkit_elem_fn on_elem;     /* flow decoders: this or on_elems */
	etmkit_gap_fn on_gap;       /* optional: losses at a break, for
				       packet sources */
	/* Optional: when set, flow sources deliver their elements through
	 * it, in batches, and on_elem is not called (it may be NULL; either
	 * one is required for flow decoders). The elements and their order
	 * are those on_elem would see, one after another: the decoder's
	 * elements come as the batches it makes, and the elements the
	 * session makes itself (the gap element of etmkit_session_break()
	 * and etmkit_session_lose()) as batches of 1. A negative return
	 * stops the feed after the whole batch (on_elem: after the element).
	 * Callers that predate it (a smaller size) get on_elem. */
	etmkit_elems_fn on_elems;
	/* Optional (a smaller size: 0): 0 or 1 decodes on the caller's
	 * thread; N > 1 decodes the flow sources on up to N worker threads
	 * (at most one per source, started at the first feed, break, lose or
	 * finish) while the caller's thread deformats and makes every
	 * callback. The callbacks see exactly the serial sequence: the same
	 * elements, frame events and gaps, in the same order across IDs;
	 * on_elems gets the decoders' batches as they are, except that an
	 * unformatted feed (deformat_none, etmkit_session_feed_raw()) is
	 * decoded in pieces of 64 KiB, at whose ends a batch may be cut in
	 * two. Callbacks are made during any call that decodes, possibly a
	 * later one than serially: etmkit_session_finish() returns once all
	 * are made; with stop_on_error every call returns once its own are.
	 * An error (a callback's negative value, a decoder's error) stops
	 * the session: the call that meets it and every later one return it,
	 * and no callback follows it (where serial decoding would go on at
	 * later calls; frame statistics may count bytes past it). Sessions with a
	 * packet decoder stay serial; no decoder can be added once the
	 * workers run. Memory: about 1.6 MiB per worker, fixed when they
	 * start (an input ring of 1 MiB, 8192 elements, 4096 records), and
	 * 4096 ops and 256 frame events in flight. Image hooks
	 * (image_for_context) are then called on the worker threads, each
	 * source's always on the same one. */
	unsigned jobs;
	/* Optional (a smaller size: 0). Nonzero, with jobs > 1 and one
	 * source alone, a flow decoder whose config the parallel decode
	 * covers (include/etmkit/parallel.h: no image_for_context,
	 * ETM4_FLOW_TALLY or ETM4_FLOW_TRACES), and neither on_frame_event
	 * nor stop_on_error: that source is decoded on jobs threads, its
	 * trace gathered in chunks (8 MiB; 2 MiB of framed data, whose
	 * bytes carry offsets), cut at sync points and joined as parallel.h
	 * says (etmkit_par_run(): the caller's thread is one of the jobs),
	 * instead of by one worker. The caller's thread deformats, joins,
	 * decodes while it has nothing to join, and makes the callbacks,
	 * during the calls, in the serial sequence; on_elems batches may be
	 * cut anywhere. It pays where the callbacks cost less than the
	 * decode, as with per-range elements counted or copied in bulk: the
	 * decode's time is spread over the threads, the callbacks' is not,
	 * and where they cost as much as the decode one worker beside them
	 * is as fast (bench/README.md, "One source on several threads").
	 * Memory: the chunk (8 MiB, or 2 MiB and 16 MiB of offsets) and the
	 * runner's (parallel.h: etmkit_par_run(), window 2 * jobs).
	 * Otherwise ignored. */
	uint8_t split_source;
};

/* Fill @cfg with defaults: zeros (deformat_none, no callbacks,
 * stop_on_error 0) and size = sizeof(*cfg), so a caller that sets only the
 * fields it uses keeps working when the struct grows. Does nothing when
 * @cfg is NULL. */
void etmkit_session_config_init(struct etmkit_session_config *cfg);

struct etmkit_session;

/* Returns 0 and sets *@s; -etmkit_err_invalid (NULL, bad size, none of
 * on_packet, on_elem and on_elems), -etmkit_err_nomem. The calls that
 * decode (feed, feed_raw, break, lose, finish) may also return
 * -etmkit_err_nomem when jobs > 1 and the workers cannot start (memory
 * or threads). */
int etmkit_session_alloc(struct etmkit_session **s,
			 const struct etmkit_session_config *cfg);
/* Free @s (NULL: nothing). It makes no callback: with jobs > 1 the
 * workers stop, and input fed but not yet replayed is dropped (call
 * etmkit_session_finish() first to have it all). */
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

/* Decode trace ID @id as PTM (PFTv1.0, PFTv1.1) with @cfg. Needs
 * on_packet. Returns 0; -etmkit_err_invalid (bad cfg->size, no on_packet,
 * ID 0 or >= 0x70 in framed input, already added), or ptm_pkt_alloc()'s
 * errors (-etmkit_err_bad_config: ETMIDR does not name PFT). */
int etmkit_session_add_ptm(struct etmkit_session *s, uint8_t id,
			   const struct ptm_config *cfg);

/* Decode trace ID @id as ETMv3 down to execution: a flow decoder with
 * @cfg (the image it names must outlive the session). Needs on_elem or
 * on_elems. Returns 0; -etmkit_err_invalid (neither, ID 0 or >= 0x70 in
 * framed input, already added), or etm3_flow_alloc()'s errors. */
int etmkit_session_add_etm3_flow(struct etmkit_session *s, uint8_t id,
				 const struct etm3_flow_config *cfg);

/* Decode trace ID @id as ETMv4 or ETE (ETM4_CFG_ETE) down to execution:
 * a flow decoder with @cfg (the image it names must outlive the session).
 * Needs on_elem or on_elems. Returns 0; -etmkit_err_invalid (neither, ID
 * 0 or >= 0x70 in framed input, already added), or etm4_flow_alloc()'s
 * errors. */
int etmkit_session_add_etm4_flow(struct etmkit_session *s, uint8_t id,
				 const struct etm4_flow_config *cfg);

/* Decode trace ID @id as PTM (PFTv1.0, PFTv1.1) down to execution: a flow
 * decoder with @cfg (the image it names must outlive the session). Needs
 * on_elem or on_elems. Returns 0; -etmkit_err_invalid (neither, ID 0 or
 * >= 0x70 in framed input, already added), or ptm_flow_alloc()'s errors.
 * With jobs > 1 it is decoded by a worker, or, with split_source and
 * alone, on jobs threads as the other flow sources (parallel.h). */
int etmkit_session_add_ptm_flow(struct etmkit_session *s, uint8_t id,
				const struct ptm_flow_config *cfg);

/* Feed the next @n bytes of the buffer. Returns 0, a callback's negative
 * value, -etmkit_err_invalid, or with stop_on_error -etmkit_err_bad_frame /
 * -etmkit_err_bad_packet once an error has been delivered. */
int etmkit_session_feed(struct etmkit_session *s, const uint8_t *buf,
			size_t n);

/* Feed @n bytes of trace source @id alone, unformatted, whatever the
 * session's framing: a piece of a buffer that holds one source's raw
 * trace, such as a perf AUX record written by TRBE (AUX flag FORMAT_RAW,
 * digest perf-data.md 3.6) in a recording whose other pieces are
 * formatted. The bytes go straight to @id's decoder, numbered from the
 * offset of the next byte on; the deformatter does not see them, so call
 * etmkit_session_break() between such a piece and framed bytes (a frame
 * cut by the piece would otherwise continue after it). Nothing is
 * decoded when @id has no decoder. Returns 0, a callback's negative
 * value, -etmkit_err_invalid (NULL, @id >= 0x80), or with stop_on_error
 * -etmkit_err_bad_packet once an error has been delivered. */
int etmkit_session_feed_raw(struct etmkit_session *s, uint8_t id,
			    const uint8_t *buf, size_t n);

/* The bytes fed so far and those fed next are separate pieces of a ring
 * buffer (a perf AUX record each, digest perf-data.md 3.10: perf resets its
 * decoder at every AUX record because consecutive pieces need not be
 * contiguous). As at the end of the input, a partial frame is reported and
 * every source's cut packet is reported as truncated (a record with error
 * -etmkit_err_truncated; a flow source's gap of reason
 * etmkit_loss_truncated); then the deformatter (no ID is current) and
 * every packet and flow decoder are reset, so the next bytes are a fresh
 * stream: unsynced until the next A-sync, never joined to the bytes
 * before. Offsets go on from the bytes fed (see etmkit_session_set_offset()).
 * When @why is not etmkit_loss_none, trace was lost at the break (the
 * piece's AUX flags): each source that received bytes since the previous
 * break (or the start) gets a gap of reason @why at the offset of the next
 * byte: a gap element (on_elem or on_elems) for a flow source, an on_gap call
 * for a packet source (when set). A second break with nothing fed between
 * only adds its gaps (to no source: none received bytes), so a caller may
 * call it once per reason.
 * Flow decoders' statistics restart at a break (etm3_flow_reset()).
 * Returns 0, a callback's negative value, or -etmkit_err_invalid (NULL,
 * @why not a loss reason). */
int etmkit_session_break(struct etmkit_session *s, enum etmkit_loss why);

/* Gap of reason @why for source @id alone, at the offset of the next byte,
 * without a break: for trace the recorder lost that belongs to one source
 * (a perf AUX record of its CPU with no bytes in the file; call
 * etmkit_session_break() first so nothing is joined across it). Nothing
 * when @id has no decoder. Returns 0, a callback's negative value, or
 * -etmkit_err_invalid (NULL, @why etmkit_loss_none or not a loss
 * reason). */
int etmkit_session_lose(struct etmkit_session *s, uint8_t id,
			enum etmkit_loss why);

/* The input offset of the next byte fed (by default the first byte is 0
 * and offsets count the bytes fed): e.g. the file offset of a perf AUX
 * record's bytes. Only at a boundary: before anything is fed or right
 * after etmkit_session_break(). Returns 0 or -etmkit_err_invalid (NULL,
 * not at a boundary). */
int etmkit_session_set_offset(struct etmkit_session *s, uint64_t offset);

/* End of the buffer: flush partial frames and packets. */
int etmkit_session_finish(struct etmkit_session *s);

const struct deformat_stats *
etmkit_session_frame_stats(const struct etmkit_session *s);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_SESSION_H */
