/* Parallel decode of one trace source, internal: what the cut finder, the
 * piece decoder, the join and the runner share (include/etmkit/parallel.h).
 *
 * Exactness does not rest on an argument about which decoder state an
 * A-sync and I-sync (or Trace Info) reset: much survives them in the
 * decoders (ETMv3: timestamp and data address compression, the held
 * instruction a Cancel may still refer to, W atoms; ETMv4/ETE: the
 * return stack, context, the timestamp and address history). Instead the
 * join compares decoder states: the decoder that ran on from the piece
 * before (the serial one, by induction) and the fresh one of the piece,
 * both drained at the same byte (a checkpoint), normalised (par_state3.c,
 * par_state4.c). Equal states decode the rest identically (a decoder is
 * a function of its state and its input), so from the first checkpoint
 * where they are equal the fresh piece's elements are the serial ones;
 * before it, the piece before's elements are used. No checkpoint equal:
 * the join decodes the piece itself, on from the piece before (serial).
 * "The fresh one of the piece" is a decoder reused piece after piece with
 * reset(): that is sound because reset() leaves it as just allocated
 * (test_parallel.c, test_reset). It once did not (ETMv4 kept the context
 * ID across reset and reported it in a later piece's context), which the
 * join, comparing the piece's own decoder, still caught; a state taken by
 * another decoder fed the same bytes was then not the piece's. */
#ifndef ETMKIT_PARALLEL_PAR_INTERNAL_H
#define ETMKIT_PARALLEL_PAR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "etmkit/parallel.h"

/* The default piece size, from callgrind's instructions on the busier
 * of two threads (bench_etm4_flow juno_r1_1 and tme_test, bench_etm3_flow
 * TC2; --mb 2 --jobs 2, the mean of 6 to 12 runs): 32 KiB against 16 KiB,
 * 8%, 2% and 5% fewer (juno_r1_1's pieces cost 6% more in all at 16 KiB:
 * a piece's decode starts without the state of the decoder's fast paths,
 * and has its checkpoints); 64 KiB leave the threads less even at the
 * end (tme_test 3% more, TC2 4% fewer, juno_r1_1 the same). A piece's
 * elements are 48 bytes each: dense ETE decodes to 1.4 a byte, about 2.2
 * MB for 32 KiB. The checkpoints cost about 64 bytes of decode past the
 * next cut and five states a piece. */
#define PAR_PIECE_DEFAULT (32u << 10)
/* Checkpoints after each cut where states are compared. */
#define PAR_CHECKS 4
/* End checkpoints a piece decode records; the join records the rest,
 * on the joining thread, only where none of these agreed. */
#define PAR_EAGER_END 1
/* Statistics summed over pieces: packets, insns, atoms_lost,
 * protocol_errors (the first four words of both stats structs but
 * ETMv3's blocks; see par_proto). */
#define PAR_NSTATS 4

/* One flow decoder protocol, through void pointers. */
struct par_proto {
	int (*alloc)(void **dec, const void *cfg);
	void (*free)(void *dec);
	int (*feed)(void *dec, const uint8_t *buf, size_t n,
		    const uint64_t *offsets, uint64_t base);
	int (*finish)(void *dec);
	int (*gap)(void *dec);
	void (*reset)(void *dec);
	int (*batch)(void *dec, const struct etmkit_elem **elems);
	/* The decoder's output queue from now on: queue_room() elements at
	 * @to (NULL: its own), the elements it holds back moved there
	 * (etmX_flow_queue_at()). */
	void (*queue_at)(void *dec, struct etmkit_elem *to);
	size_t (*queue_room)(void);
	void (*stats)(const void *dec, uint64_t out[PAR_NSTATS]);
	/* snap() writes the decoder's state, normalised (no pointers,
	 * caches, counters or ring rotations), to @out (at most
	 * snap_bytes()) using @scratch (scratch_bytes(), not zeroed: only
	 * the fields snap() copied there are read and packed) and
	 * returns its length, or -1 when it is in the middle of something
	 * the comparison does not cover (then it equals nothing). */
	size_t (*scratch_bytes)(void);
	size_t (*snap_bytes)(void);
	long (*snap)(const void *dec, void *scratch, uint8_t *out);
};

extern const struct par_proto par_proto_etm3;
extern const struct par_proto par_proto_etm4;
extern const struct par_proto par_proto_ptm;

/* What a piece decode leaves for the join: its elements (all it
 * delivered), and at each checkpoint the number of elements delivered by
 * then, the statistics, and the state. */
struct par_check {
	uint64_t at;             /* byte index in the buffer */
	size_t nelem;
	uint64_t stats[PAR_NSTATS];
	long snap_len;           /* -1: not comparable */
	uint8_t *snap;           /* proto snap_bytes() */
};

struct etmkit_par_piece {
	const struct par_proto *proto;
	void *scratch;           /* proto scratch_bytes(), then the
				    snapshots (one block) */
	void *dec;               /* the decoder, kept for the join's
				    fallback (it stands at the last end
				    checkpoint) */
	size_t k;                /* the piece */
	size_t pos;              /* bytes fed up to here */
	int decoded;             /* k decoded, not joined yet */
	int held;                /* kept by the join (set and read on the
				    joining thread, or before the object is
				    handed to another) */
	struct etmkit_elem *el;  /* delivered elements, reused; the
				    decoder writes them here, its queue
				    at el + n (par_piece.c) */
	size_t n, cap;
	struct par_check start[PAR_CHECKS]; /* after the piece's cut */
	struct par_check end[PAR_CHECKS];   /* after the next cut: the
					       first PAR_EAGER_END by the
					       decode, the rest by the join */
	size_t nstart, nend;
	uint64_t final_stats[PAR_NSTATS];   /* last piece: after finish */
	int err;
};

struct etmkit_par {
	struct etmkit_par_config cfg;
	const struct par_proto *proto;
	const void *dcfg;        /* the flow decoder's config (copied) */
	struct etm3_flow_config c3;
	struct etm4_flow_config c4;
	struct ptm_flow_config cp;
	const uint8_t *buf;
	const uint64_t *offsets;
	uint64_t base;
	size_t n;
	size_t *cut;             /* cut[0] = 0 < cut[1] < ... ; cut[ncut] = n */
	size_t ncut;             /* pieces */
	/* A chunk of par_source.c: the last piece is fed to the end and
	 * drained, not finished (what the serial decoder delivers when fed
	 * no further yet), and the first piece's statistics begin at
	 * first_stats (its decoder ran on from the chunk before). */
	int open_end;
	uint64_t first_stats[PAR_NSTATS];
	/* The join. */
	size_t next;             /* the next piece to join */
	struct etmkit_par_piece *held; /* the piece before it */
	size_t held_from;        /* its elements from here are not out */
	uint64_t held_stats[PAR_NSTATS]; /* its stats at held_from */
	struct etmkit_par_stats stats;
	uint8_t *scratch;        /* a snapshot, for the fallback */
};

/* par_join.c: @cfg (its size checked: 0 or -etmkit_err_invalid) into
 * @to, the fields a smaller size leaves out zeroed. */
int par_config_copy(struct etmkit_par_config *to,
		    const struct etmkit_par_config *cfg);

/* par_join.c: etmkit_par_alloc() without its check of the flow
 * decoder's config (a decoder made and freed): the runner's first piece
 * object makes that check (par_run.c). */
int par_plan(struct etmkit_par **p, const struct etmkit_par_config *cfg,
	     const uint8_t *buf, size_t n, const uint64_t *offsets,
	     uint64_t base);

/* par_cuts.c: the sync points to cut at, about every @piece bytes. */
int par_find_cuts(struct etmkit_par *p);

/* What a piece's decode calls between the decoder's batches of elements
 * (the runner's calling thread joins there, par_run.c): nonzero stops
 * the decode, which returns it. */
struct par_pause {
	int (*between)(void *ctx);
	void *ctx;
};

/* par_piece.c: run @r's decoder on to byte @at (taking its elements,
 * pausing between batches if @pause is not NULL) and record checkpoint @c
 * there. */
int par_record(const struct etmkit_par *p, struct etmkit_par_piece *r,
	       struct par_check *c, size_t at, const struct par_pause *pause);

/* par_piece.c: decode piece @k into @r: with @fresh, from a reset
 * decoder at its cut, its start checkpoints recorded; else on from where
 * @r's decoder stands. Then to the next cut (pausing on the way from the
 * cut, if @pause is not NULL) and its checkpoints (the end ones), or, for
 * the last piece, to the end, finished. */
int par_run_piece(const struct etmkit_par *p, struct etmkit_par_piece *r,
		  size_t k, int fresh, const struct par_pause *pause);

/* par_join.c: etmkit_par_decode() with @pause (or NULL). */
int par_decode(const struct etmkit_par *p, size_t k,
	       struct etmkit_par_piece *r, const struct par_pause *pause);

/* par_run.c: called by a worker thread, unlocked, when it has taken
 * piece @k and before it decodes it. NULL in etmkit_par_run(); the tests
 * hold a worker back with it, to make the runner take the piece over
 * (test_parallel.c, test_steal). */
struct par_run_hook {
	void (*before_decode)(void *ctx, size_t k);
	void *ctx;
};

/* par_run.c: one run of the runner, as etmkit_par_run() but on a plan
 * made by the caller (@p, not freed), and, for a chunk of par_source.c,
 * with piece objects carried from run to run. */
struct par_run_args {
	struct etmkit_par *p;
	unsigned jobs;                 /* 0: 2 */
	size_t window;                 /* 0: 2 * jobs */
	etmkit_par_sink_fn sink;
	void *ctx;
	const struct par_run_hook *hook; /* or NULL */
	/* Piece 0 is decoded by @carry's decoder on from where it stands
	 * (its pos set to 0), not a fresh one; NULL: fresh. */
	struct etmkit_par_piece *carry;
	/* With @keep: objects made before (up to jobs + window of them,
	 * @carry not among them) to use first; on a return of 0, every
	 * object of the run but the one the join kept at the end is back
	 * in pool[0 .. *npool - 1], and that one in *@last. Without: all
	 * are freed. On an error all are freed (@carry too) and *npool is
	 * 0. */
	int keep;
	struct etmkit_par_piece **pool; /* jobs + window entries */
	size_t *npool;
	struct etmkit_par_piece **last;
};
int par_run_plan(const struct par_run_args *a);

/* par_run.c: etmkit_par_run() with @hook (or NULL). */
int par_run_hooked(const struct etmkit_par_config *cfg, const uint8_t *buf,
		   size_t n, const uint64_t *offsets, uint64_t base,
		   etmkit_par_sink_fn sink, void *ctx,
		   struct etmkit_par_stats *stats,
		   const struct par_run_hook *hook);

/* par_piece.c: par_source.c's commands on a piece object's decoder
 * between chunks: its elements (r->el[0 .. r->n - 1]) are then what the
 * decoder delivers after the command (gap, finish: the flow decoders'
 * etmX_flow_gap() and _finish(); reset delivers nothing and drops what
 * the decoder held back, as etmX_flow_reset()). */
enum par_cmd { par_cmd_gap = 1, par_cmd_finish, par_cmd_reset };
int par_piece_command(struct etmkit_par_piece *r, enum par_cmd cmd);

/* par_source.c: one source's bytes as they come, decoded in parallel in
 * chunks, delivering exactly what one flow decoder fed the same bytes
 * and commands would, in the same order (include/etmkit/parallel.h's
 * join, chunk by chunk: each chunk's first piece decoded on from the
 * decoder the join kept at the end of the chunk before). Bytes are
 * gathered into a chunk buffer of @chunk_bytes (0: PAR_SOURCE_CHUNK),
 * and with their offsets once a feed has them (then a quarter as many:
 * 8 bytes of offset a byte); a chunk is decoded when the buffer is full
 * and at each command. The runner's calling thread is the caller's.
 * Memory: the buffer, twice that for offsets, and the runner's
 * (parallel.h: etmkit_par_run()), whatever the trace length. Every
 * function returns 0 or the first error (a decode's, the sink's), which
 * every later call returns too. The sink is called on the calling
 * thread. */
#define PAR_SOURCE_CHUNK ((size_t)8 << 20)
struct par_source;
int par_source_alloc(struct par_source **s,
		     const struct etmkit_par_config *cfg, size_t chunk_bytes,
		     etmkit_par_sink_fn sink, void *ctx);
void par_source_free(struct par_source *s);
int par_source_feed(struct par_source *s, const uint8_t *buf, size_t n,
		    const uint64_t *offsets, uint64_t base);
/* Decode what was fed: the sink then has what the serial decoder
 * delivers once fed all of it. */
int par_source_flush(struct par_source *s);
/* par_source_flush(), then @cmd on the decoder and its elements. */
int par_source_command(struct par_source *s, enum par_cmd cmd);
/* The statistics so far (blocks and cache_flushes not kept). */
const struct etmkit_par_stats *par_source_stats(const struct par_source *s);

#endif
