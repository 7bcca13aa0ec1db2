/* etmkit: parallel decode of one trace source: its bytes cut at sync
 * points, the pieces decoded on several threads, joined in order into
 * exactly the elements of the serial decode.
 *
 * Layer: parallel (src/parallel/), above flow: drives flow decoders.
 *
 * Output: the elements (every field their kind uses, offsets included;
 * union bytes a kind does not use are undefined in the serial decode too)
 * and the summed statistics are those of one etm3_flow / etm4_flow /
 * ptm_flow decoder fed the whole buffer and finished. How
 * (src/parallel/par_internal.h): the buffer is cut at A-sync + I-sync
 * (ETMv3, PTM) or A-sync + Trace Info with SPEC 0 (ETMv4/ETE); each piece is decoded by a fresh decoder, and the decoder
 * of the piece before runs on a little past the cut (up to four
 * checkpoints, 64 B to 4 KiB past it). At each checkpoint the two
 * decoders' states are compared (the piece before's decoder runs on to a
 * later checkpoint, on the joining thread, only when the earlier did not
 * agree); from the first where they are equal the
 * piece's own elements are taken, before it the piece before's. Where no
 * checkpoint agrees (state that survives the sync point and is not
 * traced again soon: a return stack in use, compressed timestamps, a
 * held instruction...), the join decodes that piece on from the piece
 * before: serial for that piece, still exact (counted in
 * etmkit_par_stats.fallbacks).
 *
 * Bring your own threads:
 *   etmkit_par_alloc(&p, &cfg, buf, n, NULL, base);
 *   for k in 0 .. etmkit_par_pieces(p) - 1, on any threads, each with its
 *     own piece object (etmkit_par_piece_alloc):
 *       etmkit_par_decode(p, k, piece[k]);
 *   on one thread, in order k = 0, 1, ...:
 *       etmkit_par_join(p, piece[k], sink, ctx, &freed);  freed may be
 *       reused (it is the piece before, or piece[k] itself);
 *   etmkit_par_join_end(p, sink, ctx, &freed);
 *   etmkit_par_get_stats(p);
 * Threads: etmkit_par_decode() calls may run at once on different piece
 * objects, and at the same time as etmkit_par_join() on another thread
 * (the join writes only its own part of @p); joins run on one thread.
 * Or the runner: etmkit_par_run(&cfg, buf, n, NULL, base, sink, ctx,
 * &stats) with cfg.jobs threads, the calling one included. Or, for a
 * source whose bytes come as they are read, a session with split_source
 * (session.h): it runs the runner chunk by chunk, each chunk's first
 * piece decoded on by the decoder the join kept at the end of the chunk
 * before, with the same output.
 *
 * Not covered (-etmkit_err_invalid from etmkit_par_alloc()): ETM4_FLOW_TALLY
 * and ETM4_FLOW_TRACES (their counted ranges wait across pieces and are
 * delivered out of order), image_for_context, and stop on error
 * (ETM3_CFG_STOP_ON_ERROR, ETM4_CFG_STOP_ON_ERROR, PTM_CFG_STOP_ON_ERROR). The statistics blocks and cache_flushes
 * depend on each decoder's block cache and are not summed.
 */
#ifndef ETMKIT_PARALLEL_H
#define ETMKIT_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

#include "etmkit/common.h"
#include "etmkit/elem.h"
#include "etmkit/flow.h"

#ifdef __cplusplus
extern "C" {
#endif

enum etmkit_par_protocol {
	etmkit_par_etm3 = 1, /* etm3_flow_*: ETMv3 */
	etmkit_par_etm4 = 2, /* etm4_flow_*: ETMv4 and ETE */
	etmkit_par_ptm = 3   /* ptm_flow_*: PTM (PFTv1.0, PFTv1.1) */
};

struct etmkit_par_config {
	size_t size;               /* sizeof(struct etmkit_par_config) */
	int proto;                 /* enum etmkit_par_protocol */
	/* The flow decoders' configuration (copied; the image it names is
	 * shared, read only, by every piece's decoder; each has its own block
	 * cache of cache_bytes): */
	const struct etm3_flow_config *etm3;   /* proto etmkit_par_etm3 */
	const struct etm4_flow_config *etm4;   /* proto etmkit_par_etm4 */
	size_t piece_bytes;        /* cut at the first sync point this far
				      after the last cut; 0: 32 KiB */
	unsigned jobs;             /* etmkit_par_run(): threads decoding,
				      the calling thread included (it also
				      joins): jobs - 1 are started; 0: 2.
				      (A session's jobs counts workers
				      beside the caller's thread, which
				      deformats and replays: session.h.) */
	unsigned window;           /* etmkit_par_run(): pieces decoded or
				      waiting to be joined at once, at least
				      jobs; 0: 2 * jobs */
	/* Added with PTM (a smaller size: NULL): */
	const struct ptm_flow_config *ptm;     /* proto etmkit_par_ptm */
};

/* Defaults: zeros, size. */
void etmkit_par_config_init(struct etmkit_par_config *cfg);

/* Receives the joined elements in order, in batches of @n >= 1. Returns 0
 * to go on, or a negative value that stops the join (which returns it). */
typedef int (*etmkit_par_sink_fn)(void *ctx, const struct etmkit_elem *el,
				  size_t n);

struct etmkit_par_stats {
	uint64_t packets;          /* as the flow decoders' stats */
	uint64_t insns;
	uint64_t atoms_lost;
	uint64_t protocol_errors;  /* ETMv4/ETE only */
	uint64_t pieces;           /* pieces joined */
	uint64_t fallbacks;        /* pieces the join decoded on from the
				      piece before (no checkpoint agreed) */
};

struct etmkit_par;
struct etmkit_par_piece;

/* Plan the decode of @buf[0..@n) (one trace source's bytes; @offsets, if
 * not NULL, each byte's offset, else @base + index: as etmX_flow_feed()).
 * The buffer must stay valid until etmkit_par_free(). Finds the cuts.
 * Returns 0 and sets *@p; -etmkit_err_invalid (NULL, bad sizes, unknown
 * proto, its flow config missing or asking for what is not covered, see
 * above), -etmkit_err_bad_config (the flow decoder refuses the config),
 * -etmkit_err_unsupported (idem), -etmkit_err_nomem; *@p is then NULL
 * (if @p is not). */
int etmkit_par_alloc(struct etmkit_par **p, const struct etmkit_par_config *cfg,
		     const uint8_t *buf, size_t n, const uint64_t *offsets,
		     uint64_t base);
void etmkit_par_free(struct etmkit_par *p);

/* The number of pieces (>= 1; one when @n has no sync point to cut at)
 * and where piece @k begins (an index in the buffer; @k = pieces: n). */
size_t etmkit_par_pieces(const struct etmkit_par *p);
size_t etmkit_par_piece_start(const struct etmkit_par *p, size_t k);

/* A piece's decoder and element buffer, reused piece after piece (its
 * memory grows to the largest piece's elements). Returns 0;
 * -etmkit_err_invalid, -etmkit_err_bad_config, -etmkit_err_unsupported,
 * -etmkit_err_nomem. */
int etmkit_par_piece_alloc(struct etmkit_par_piece **r,
			   const struct etmkit_par *p);
void etmkit_par_piece_free(struct etmkit_par_piece *r);

/* Decode piece @k into @r. Thread-safe: @p is only read, so pieces may be
 * decoded at once on different threads, each with its own @r. Returns 0,
 * -etmkit_err_invalid (NULL, @k out of range, @r held by the join),
 * -etmkit_err_nomem. */
int etmkit_par_decode(const struct etmkit_par *p, size_t k,
		      struct etmkit_par_piece *r);

/* Join piece @r (decoded, the next in order: 0, 1, ...): delivers to
 * @sink the elements up to where @r takes over from the piece before.
 * The join keeps one piece (the last it took elements from) until the
 * next join; *@freed is the piece the caller may reuse now (the one kept
 * before, or @r when the join decoded on from the kept one instead).
 * Returns 0; -etmkit_err_invalid (NULL, out of order, not decoded),
 * -etmkit_err_nomem, or @sink's negative value. */
int etmkit_par_join(struct etmkit_par *p, struct etmkit_par_piece *r,
		    etmkit_par_sink_fn sink, void *ctx,
		    struct etmkit_par_piece **freed);

/* After the last piece: deliver the rest. *@freed is the kept piece.
 * Returns 0; -etmkit_err_invalid (pieces not all joined), or @sink's
 * value. */
int etmkit_par_join_end(struct etmkit_par *p, etmkit_par_sink_fn sink,
			void *ctx, struct etmkit_par_piece **freed);

/* The statistics of what was joined. NULL for NULL. */
const struct etmkit_par_stats *etmkit_par_get_stats(const struct etmkit_par *p);

/* The whole decode on cfg->jobs threads: the calling thread and jobs - 1
 * POSIX threads, at most cfg->window pieces in flight. The calling thread
 * joins each piece as soon as it is decoded (also between the batches of
 * a piece it decodes) and decodes pieces while the next is not ready;
 * when that one is on a thread that has fallen behind (the window full),
 * it decodes it too and drops the late result. @sink is called on the
 * calling thread, in order.
 * Memory beyond the buffer: at most (window + jobs) piece objects, made
 * as they are first needed, each a flow decoder (its block cache,
 * cache_bytes), 8 state snapshots (ETMv3: 41 KiB each; PTM: 39 KiB
 * each reserved, about 2 KiB written; ETMv4/ETE: up to
 * 370 KiB each reserved, a few KiB written, plus one 370 KiB scratch
 * copy) and the elements of one piece, 48 bytes each, as many as its
 * piece_bytes of trace decode to (tme_test: 1.4 insn_range elements a
 * byte): bounded by piece_bytes and window, whatever the trace length.
 * Sets *@stats if not NULL. Returns what etmkit_par_alloc(),
 * etmkit_par_decode() and etmkit_par_join() return, or -etmkit_err_nomem
 * when a thread cannot be started. */
int etmkit_par_run(const struct etmkit_par_config *cfg, const uint8_t *buf,
		   size_t n, const uint64_t *offsets, uint64_t base,
		   etmkit_par_sink_fn sink, void *ctx,
		   struct etmkit_par_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_PARALLEL_H */
