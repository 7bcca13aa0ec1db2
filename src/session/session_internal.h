/* Inside the session layer: the session's state, shared by the serial
 * path (session.c) and the worker threads of etmkit_session_config.jobs
 * (session_jobs.c). Not installed. */
#ifndef ETMKIT_SESSION_INTERNAL_H
#define ETMKIT_SESSION_INTERNAL_H

#include <stdint.h>

#include "etmkit/session.h"

#define SESSION_BATCH 64

/* What decodes a trace ID. Each kind has one case in the source_* helpers
 * of session.c (feed, gap, finish, deliver, free); a new decoder kind adds
 * an entry here and a case to each. */
enum session_kind {
	src_none = 0,
	src_etm3_pkt,   /* ETMv3 packets -> on_packet */
	src_etm3_flow,  /* ETMv3 execution -> on_elem(s) */
	src_etm4_pkt,   /* ETMv4 or ETE packets -> on_packet */
	src_etm4_flow,  /* ETMv4 or ETE execution -> on_elem(s) */
	src_ptm_pkt,    /* PTM packets -> on_packet */
	src_ptm_flow    /* PTM execution -> on_elem(s) */
};

struct session_source {
	uint8_t kind;   /* enum session_kind */
	uint8_t proto;  /* enum etmkit_protocol reported with packets */
	uint8_t fed;    /* bytes received since the last break */
	union {
		struct etm3_pkt_decoder *etm3;
		struct etm3_flow_decoder *flow;
		struct etm4_pkt_decoder *etm4;
		struct etm4_flow_decoder *flow4;
		struct ptm_pkt_decoder *ptm;
		struct ptm_flow_decoder *flowp;
	} u;
	union {  /* a flow decoder's config, as it was made */
		struct etm3_flow_config etm3;
		struct etm4_flow_config etm4;
		struct ptm_flow_config ptm;
	} fc;
};

struct session_jobs; /* session_jobs.c */

struct etmkit_session {
	struct etmkit_session_config cfg;
	struct deformatter *deformat;
	struct session_source src[DEFORMAT_ID_COUNT];
	uint64_t next_off;  /* input offset of the next byte fed */
	uint8_t boundary;   /* nothing fed since alloc or the last break */
	uint8_t jobs_state; /* 0: not decided yet, 1: serial, 2: workers */
	struct session_jobs *jobs; /* jobs_state 2 */
	union {  /* one source is drained at a time */
		struct etm3_packet etm3[SESSION_BATCH];
		struct etm4_packet etm4[SESSION_BATCH];
		struct ptm_packet ptm[SESSION_BATCH];
	} batch;
};

/* session.c: the per-kind operations, for the workers. */
int session_source_feed(struct session_source *src, const uint8_t *data,
			size_t n, const uint64_t *offsets, uint64_t base);
int session_source_gap(struct session_source *src);
int session_source_finish(struct session_source *src);
void session_source_reset(struct session_source *src);
/* Takes a batch of @n elements @e; returns 0 (or more) to go on, < 0 to
 * stop the drain with that result. */
typedef int (*session_batch_fn)(void *ctx, const struct etmkit_elem *e,
				size_t n);
/* Drain flow source @src: each of its decoder's batches, as the decoder
 * made it, to @fn until the input fed so far is used up. Returns 0, the
 * decoder's error or @fn's. */
int session_source_drain(struct session_source *src, session_batch_fn fn,
			 void *ctx);
/* Elements @e[0..@n-1] of flow source @id to on_elems or on_elem. */
int session_deliver(struct etmkit_session *s, uint8_t id,
		    const struct etmkit_elem *e, size_t n);
/* Frame event @ev to on_frame_event, then stop_on_error's check: 0, the
 * callback's error, or -etmkit_err_bad_frame. */
int session_frame_event(struct etmkit_session *s,
			const struct deformat_event *ev);
/* The gap element of a loss at a break (or etmkit_session_lose()). */
void session_loss_elem(struct etmkit_elem *e, enum etmkit_loss why,
		       uint64_t offset);

/* session_jobs.c. Every function but sj_start() and sj_free() runs on the
 * caller's thread with s->jobs set; those returning int return 0 or the
 * error that stops the session (a callback's, a decoder's), which every
 * later call returns too. */

/* Start the workers if cfg.jobs > 1 and every source is a flow decoder
 * (one source alone: session_one.c): sets jobs_state. Returns 0 or
 * -etmkit_err_nomem. */
int sj_start(struct etmkit_session *s);
void sj_free(struct etmkit_session *s);
/* Queue @n bytes of flow source @id (offsets as deformat_data_fn). */
int sj_data(struct etmkit_session *s, uint8_t id, const uint8_t *data,
	    const uint64_t *offsets, uint64_t base, size_t n);
enum sj_cmd { sj_gap = 2, sj_finish, sj_reset };
/* Queue a command for flow source @id: transport gap, finish (both then
 * drained), reset (no output). */
int sj_command(struct etmkit_session *s, uint8_t id, enum sj_cmd cmd);
/* Queue a frame event (on_frame_event, then stop_on_error's check). */
int sj_event(struct etmkit_session *s, const struct deformat_event *ev);
/* Queue the gap element of a loss @why at @offset for flow source @id. */
int sj_lose(struct etmkit_session *s, uint8_t id, enum etmkit_loss why,
	    uint64_t offset);
/* Deliver everything queued; returns the stopping error or 0. */
int sj_sync(struct etmkit_session *s);
/* The stopping error so far (0: none). */
int sj_error(const struct etmkit_session *s);
/* 1 when the workers' place was taken by session_one.c (below), else 0:
 * for the tests, which compare its callbacks with the serial ones. */
int sj_one_source(const struct etmkit_session *s);

/* session_one.c: a session with one flow source, on cfg.jobs threads
 * (the calling one included), its trace cut at sync points
 * (parallel/par_source.c): where the per-source workers would give it
 * one thread. Everything is delivered on the caller's thread during the
 * calls, in the serial order: a chunk's elements when the chunk is full,
 * the rest at a command (gap, finish, reset), a frame event or a loss.
 * so_start() returns 1 when it started (*@o set), 0 when the
 * source's config is one the parallel decode does not cover
 * (parallel.h; the workers then take it), or an error. The so_*
 * functions are the sj_* ones (above) in that case; sj_* call them. */
struct session_one;
/* The chunk size of sessions started from now on: 0 (the default) for
 * PAR_SOURCE_CHUNK; the tests set a few KiB, to cross many chunk ends
 * on small captures. */
extern size_t so_chunk_bytes;
int so_start(struct etmkit_session *s, unsigned jobs,
	     struct session_one **o);
int so_data(struct session_one *o, const uint8_t *data,
	    const uint64_t *offsets, uint64_t base, size_t n);
int so_command(struct session_one *o, enum sj_cmd cmd);
int so_event(struct session_one *o, const struct deformat_event *ev);
int so_lose(struct session_one *o, enum etmkit_loss why, uint64_t offset);
void so_free(struct session_one *o);

#endif /* ETMKIT_SESSION_INTERNAL_H */
