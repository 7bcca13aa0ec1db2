/* Sources in parallel (etmkit_session_config.jobs): each flow source's
 * decoder runs on a worker thread, while the caller's thread deformats
 * and delivers the elements in exactly the serial order.
 *
 * The serial order is fixed by the order of the decoders' inputs: for the
 * k-th piece of work (bytes of ID A, a transport gap, the end of the
 * input) decoder A delivers what it has at once. So the caller's thread
 * queues each piece to the worker of its ID, with an op in its own ring
 * of ops in input order; the worker (one per group of IDs, taking its
 * pieces in queue order) writes what its decoder delivers for each piece
 * into its ring of elements, batch by batch as the decoder made them,
 * then an end record with the piece's result; the caller's thread replays
 * the ops in order, each worker op from that worker's records. Frame
 * events and the gap elements of breaks are ops the caller's thread
 * replays itself.
 *
 * No deadlock: the caller's thread only ever waits for the oldest op not
 * yet replayed; its worker has every earlier piece of its own done (they
 * are older ops), so it is working on that op, and the caller's thread
 * drains its element ring while it does.
 *
 * Memory is fixed when the workers start: per worker an input ring of
 * SJ_IN_BYTES, SJ_ELEMS elements and SJ_RECS records; the ops ring
 * (SJ_OPS) and the events ring (SJ_EVENTS). Nothing is allocated per
 * element or per piece. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "session_internal.h"

#define SJ_IN_BYTES (1u << 20) /* input ring of a worker */
#define SJ_PIECE (64u << 10)   /* the most bytes of one data piece */
#define SJ_PIECE_OFFS (8u << 10) /* the same with offsets (9 bytes each) */
#define SJ_ELEMS 8192u         /* element ring of a worker */
#define SJ_REC_MAX 1024u       /* the most elements of one record */
#define SJ_RECS 4096u          /* records of a worker */
#define SJ_OPS 4096u           /* ops in flight */
#define SJ_EVENTS 256u         /* frame events in flight */
#define SJ_KICK (16u << 10)    /* input bytes before a sleeping worker is
				  woken (sooner when the caller waits) */
/* A sleeping caller is woken when a piece ends or this many records wait
 * (sooner when the worker would wait for room), a worker waiting for room
 * once a quarter of its rings is free: a wake costs a system call, not
 * one per batch. */
#define SJ_WAKE_RECS (SJ_RECS / 16u)
#define SJ_WAKE_ELEMS (SJ_ELEMS / 8u)

/* An item and the wasted end of the ring before it must fit: */
_Static_assert(2 * (32 + SJ_PIECE_OFFS * 9 + 32) <= SJ_IN_BYTES &&
	       2 * (32 + SJ_PIECE + 32) <= SJ_IN_BYTES, "input ring");

/* Item kinds: the commands (enum sj_cmd, 2-4), data and the wrap. */
enum { item_data = 1, item_gap = sj_gap, item_finish = sj_finish,
       item_reset = sj_reset, item_wrap = 8 };

/* A piece of work in a worker's input ring; its data bytes (padded to
 * 8) and, when has_offsets, their offsets follow. Items are multiples of
 * 32 bytes, so a wrap header always fits at the end of the ring. */
struct sj_item {
	uint32_t bytes;     /* the whole item */
	uint8_t kind;       /* item_* */
	uint8_t id;
	uint8_t has_offsets;
	uint8_t pad;
	uint32_t n;         /* data bytes */
	uint32_t pad2;
	uint64_t base;
	uint64_t pad3;
};
_Static_assert(sizeof(struct sj_item) == 32, "item header");

/* What a worker delivered: a batch of elements, or the end of a piece. */
struct sj_rec {
	uint64_t start;     /* position of the first element */
	uint32_t n;         /* elements */
	int32_t rc;         /* end: the piece's result */
	uint32_t end;
};

struct sj_worker {
	struct etmkit_session *s;
	pthread_t th;
	int started;
	uint8_t *in;
	_Atomic uint64_t in_head;   /* caller: bytes queued */
	_Atomic uint64_t in_tail;   /* worker: bytes done */
	uint64_t kicked;            /* caller: in_head at the last wake */
	struct etmkit_elem *el;
	uint64_t el_head;           /* worker: next element position */
	_Atomic uint64_t el_tail;   /* caller: elements delivered */
	struct sj_rec *rec;
	_Atomic uint64_t rec_head;  /* worker: records written */
	_Atomic uint64_t rec_tail;  /* caller: records replayed */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	_Atomic int w_sleep, m_sleep, quit;
};

enum { op_worker = 1, op_event, op_lose };

struct sj_op {
	uint8_t kind;    /* op_* */
	uint8_t id;
	uint8_t worker;
	uint8_t why;     /* op_lose */
	uint64_t offset; /* op_lose */
};

struct session_jobs {
	unsigned nworkers;
	uint8_t worker_of[DEFORMAT_ID_COUNT];
	struct sj_worker *w;
	struct sj_op ops[SJ_OPS];
	uint64_t op_head, op_tail;
	struct deformat_event ev[SJ_EVENTS];
	uint64_t ev_head, ev_tail;
	struct session_one *one; /* one source on several threads, or NULL */
	int err;
};

/* ---- Waiting -------------------------------------------------------------
 * Each side publishes with a release store, then a full fence, then looks
 * whether the other sleeps; a sleeper sets its flag under the mutex, then a
 * full fence, then looks again before it waits: one of the two sees the
 * other. */

typedef int (*sj_ready_fn)(struct sj_worker *w, uint64_t arg);

/* Wait until @ready or quit; returns -1 on quit. */
static int wait_for(struct sj_worker *w, _Atomic int *flag,
		    sj_ready_fn ready, uint64_t arg)
{
	int rc = 0;

	for (int spin = 0; spin < 64; spin++)
		if (ready(w, arg))
			return 0;
	pthread_mutex_lock(&w->mu);
	atomic_store(flag, 1);
	atomic_thread_fence(memory_order_seq_cst);
	while (!ready(w, arg)) {
		if (atomic_load(&w->quit)) {
			rc = -1;
			break;
		}
		pthread_cond_wait(&w->cv, &w->mu);
	}
	atomic_store(flag, 0);
	pthread_mutex_unlock(&w->mu);
	return rc;
}

static void wake(struct sj_worker *w, _Atomic int *flag)
{
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load(flag)) {
		pthread_mutex_lock(&w->mu);
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
	}
}

/* ---- The worker ---------------------------------------------------------- */

static int has_input(struct sj_worker *w, uint64_t tail)
{
	return atomic_load_explicit(&w->in_head, memory_order_acquire) != tail;
}

/* Room for a record of @arg elements from position w->el_head on. */
static int has_room(struct sj_worker *w, uint64_t arg)
{
	return w->el_head + arg -
		       atomic_load_explicit(&w->el_tail,
					    memory_order_acquire) <= SJ_ELEMS &&
	       atomic_load_explicit(&w->rec_head, memory_order_relaxed) -
			       atomic_load_explicit(&w->rec_tail,
						    memory_order_acquire) <
		       SJ_RECS;
}

/* Write a record: @n elements @e (contiguous in the ring), or the end of
 * a piece with @rc. Returns -1 on quit. */
static int put_rec(struct sj_worker *w, const struct etmkit_elem *e,
		   uint32_t n, int end, int rc)
{
	uint64_t h = atomic_load_explicit(&w->rec_head, memory_order_relaxed);
	struct sj_rec *r;

	if (n) {
		uint64_t off = w->el_head % SJ_ELEMS;

		if (off + n > SJ_ELEMS)
			w->el_head += SJ_ELEMS - off; /* skip the tail */
	}
	if (!has_room(w, n)) {
		wake(w, &w->m_sleep); /* the caller may be asleep with
					 records to take */
		if (wait_for(w, &w->w_sleep, has_room, n) < 0)
			return -1;
	}
	r = &w->rec[h % SJ_RECS];
	r->start = w->el_head;
	r->n = n;
	r->end = (uint32_t)end;
	r->rc = rc;
	if (n) {
		memcpy(&w->el[w->el_head % SJ_ELEMS], e, n * sizeof(*e));
		w->el_head += n;
	}
	atomic_store_explicit(&w->rec_head, h + 1, memory_order_release);
	if (end || h + 1 - atomic_load_explicit(&w->rec_tail,
						memory_order_relaxed) >=
			   SJ_WAKE_RECS ||
	    w->el_head - atomic_load_explicit(&w->el_tail,
					      memory_order_relaxed) >=
		    SJ_WAKE_ELEMS)
		wake(w, &w->m_sleep);
	return 0;
}

/* Where a worker drains a source: its records, and whether it must quit. */
struct drain_to {
	struct sj_worker *w;
	int quit;
};

/* session_batch_fn: a decoder's batch into records as it is (one longer
 * than SJ_REC_MAX in several); -1 on quit (quit set). */
static int put_batch(void *ctx, const struct etmkit_elem *el, size_t n)
{
	struct drain_to *to = ctx;

	while (n > 0) {
		uint32_t m = n < SJ_REC_MAX ? (uint32_t)n : SJ_REC_MAX;

		if (put_rec(to->w, el, m, 0, 0) < 0) {
			to->quit = 1;
			return -1;
		}
		el += m;
		n -= m;
	}
	return 0;
}

/* Do item @it for its source; returns -1 on quit. */
static int run_item(struct sj_worker *w, const struct sj_item *it)
{
	struct session_source *src = &w->s->src[it->id];
	const uint8_t *data = (const uint8_t *)(it + 1);
	struct drain_to to = { w, 0 };
	int rc = 0;

	switch (it->kind) {
	case item_data:
		rc = session_source_feed(
			src, data, it->n,
			it->has_offsets ? (const uint64_t *)(const void *)
						  (data + ((it->n + 7u) & ~7u)) :
					  NULL,
			it->base);
		if (rc >= 0)
			rc = session_source_drain(src, put_batch, &to);
		break;
	case item_gap:
		rc = session_source_gap(src);
		if (rc >= 0)
			rc = session_source_drain(src, put_batch, &to);
		break;
	case item_finish:
		session_source_finish(src); /* as the serial path: drained */
		rc = session_source_drain(src, put_batch, &to);
		break;
	case item_reset:
		session_source_reset(src);
		return 0; /* no record: the caller has no op for it */
	default:
		break;
	}
	if (to.quit)
		return -1;
	return put_rec(w, NULL, 0, 1, rc < 0 ? rc : 0);
}

static void *worker_main(void *arg)
{
	struct sj_worker *w = arg;
	uint64_t tail = 0;

	for (;;) {
		const struct sj_item *it;

		/* etmkit_session_free() without a finish: what is queued is
		 * dropped, not decoded for nobody. */
		if (atomic_load_explicit(&w->quit, memory_order_relaxed) ||
		    wait_for(w, &w->w_sleep, has_input, tail) < 0)
			return NULL;
		it = (const struct sj_item *)(const void *)
			(w->in + tail % SJ_IN_BYTES);
		if (it->kind != item_wrap && run_item(w, it) < 0)
			return NULL;
		tail += it->kind == item_wrap ? SJ_IN_BYTES - tail % SJ_IN_BYTES :
						it->bytes;
		atomic_store_explicit(&w->in_tail, tail, memory_order_release);
		wake(w, &w->m_sleep);
	}
}

/* ---- Replay on the caller's thread -------------------------------------- */

static int has_rec(struct sj_worker *w, uint64_t tail)
{
	return atomic_load_explicit(&w->rec_head, memory_order_acquire) != tail;
}

/* Before the caller waits: wake every sleeping worker (for input it was
 * not woken for, or for room the caller made). */
static void kick_all(struct session_jobs *j)
{
	for (unsigned i = 0; i < j->nworkers; i++) {
		struct sj_worker *w = &j->w[i];

		w->kicked = atomic_load_explicit(&w->in_head,
						 memory_order_relaxed);
		wake(w, &w->w_sleep);
	}
}

/* After the caller took records of @w: wake it if it waits for room and
 * a quarter of its rings is free. */
static void wake_for_room(struct sj_worker *w)
{
	uint64_t rt = atomic_load_explicit(&w->rec_tail, memory_order_relaxed);
	uint64_t rh = atomic_load_explicit(&w->rec_head, memory_order_acquire);
	const struct sj_rec *last = &w->rec[(rh - 1) % SJ_RECS];
	uint64_t el_used = rh == rt ? 0 :
			   last->start + last->n -
				   atomic_load_explicit(&w->el_tail,
							memory_order_relaxed);

	/* The caller's release of rec_tail/el_tail before the look at the
	 * worker's flag (the protocol above). */
	atomic_thread_fence(memory_order_seq_cst);
	if (!atomic_load(&w->w_sleep))
		return;
	if (rh - rt <= SJ_RECS - SJ_RECS / 4u &&
	    el_used <= SJ_ELEMS - SJ_ELEMS / 4u)
		wake(w, &w->w_sleep);
}

/* Replay what worker op @op has delivered. Returns 1 when it is done, 0
 * when (with !@block) it is not yet, or a negative error. */
static int replay_worker(struct etmkit_session *s, struct session_jobs *j,
			 const struct sj_op *op, int block)
{
	struct sj_worker *w = &j->w[op->worker];

	for (;;) {
		uint64_t t = atomic_load_explicit(&w->rec_tail,
						  memory_order_relaxed);
		const struct sj_rec *r;
		int err = 0, end;

		if (!has_rec(w, t)) {
			if (!block)
				return 0;
			kick_all(j);
			wait_for(w, &w->m_sleep, has_rec, t);
			continue;
		}
		r = &w->rec[t % SJ_RECS];
		end = r->end;
		if (end)
			err = r->rc;
		else
			err = session_deliver(s, op->id,
					      &w->el[r->start % SJ_ELEMS], r->n);
		if (!end)
			atomic_store_explicit(&w->el_tail, r->start + r->n,
					      memory_order_release);
		/* the worker may reuse the record from here on */
		atomic_store_explicit(&w->rec_tail, t + 1,
				      memory_order_release);
		wake_for_room(w);
		if (err < 0)
			return err;
		if (end)
			return 1;
	}
}

static int replay_event(struct etmkit_session *s, struct session_jobs *j)
{
	return session_frame_event(s, &j->ev[j->ev_tail++ % SJ_EVENTS]);
}

/* Replay the oldest op. Returns 1 when done, 0 when (with !@block) it is
 * not ready, or the error that stops the session (then kept). */
static int replay_one(struct etmkit_session *s, int block)
{
	struct session_jobs *j = s->jobs;
	const struct sj_op *op = &j->ops[j->op_tail % SJ_OPS];
	struct etmkit_elem e;
	int rc = 1;

	switch (op->kind) {
	case op_worker:
		rc = replay_worker(s, j, op, block);
		break;
	case op_event:
		rc = replay_event(s, j);
		break;
	case op_lose:
		session_loss_elem(&e, (enum etmkit_loss)op->why, op->offset);
		rc = session_deliver(s, op->id, &e, 1);
		break;
	default:
		break;
	}
	if (rc < 0) {
		j->err = rc;
		return rc;
	}
	if (rc == 0 && op->kind == op_worker)
		return 0;
	j->op_tail++;
	return 1;
}

/* Replay the ops that are ready, without waiting. */
static int replay_ready(struct etmkit_session *s)
{
	struct session_jobs *j = s->jobs;

	while (j->op_tail != j->op_head) {
		int rc = replay_one(s, 0);

		if (rc <= 0)
			return rc;
	}
	return 0;
}

/* ---- Queueing on the caller's thread ------------------------------------ */

static int push_op(struct etmkit_session *s, const struct sj_op *op)
{
	struct session_jobs *j = s->jobs;

	while (j->op_head - j->op_tail >= SJ_OPS)
		if (replay_one(s, 1) < 0)
			return j->err;
	j->ops[j->op_head++ % SJ_OPS] = *op;
	return replay_ready(s);
}

static int in_room(struct sj_worker *w, uint64_t need)
{
	return atomic_load_explicit(&w->in_head, memory_order_relaxed) + need -
		       atomic_load_explicit(&w->in_tail,
					    memory_order_acquire) <=
	       SJ_IN_BYTES;
}

/* Queue an item for the worker of @id (data: @n bytes with @offsets or
 * from @base), and its op unless it is a reset. */
static int put_item(struct etmkit_session *s, uint8_t kind, uint8_t id,
		    const uint8_t *data, const uint64_t *offsets,
		    uint64_t base, size_t n)
{
	struct session_jobs *j = s->jobs;
	struct sj_worker *w = &j->w[j->worker_of[id]];
	size_t pad = (n + 7u) & ~(size_t)7u;
	size_t bytes = sizeof(struct sj_item) + pad +
		       (offsets ? n * sizeof(uint64_t) : 0);
	uint64_t head, off, need;
	struct sj_item *it;
	struct sj_op op = { .kind = op_worker, .id = id };

	if (j->err)
		return j->err;
	bytes = (bytes + 31u) & ~(size_t)31u;
	head = atomic_load_explicit(&w->in_head, memory_order_relaxed);
	off = head % SJ_IN_BYTES;
	need = off + bytes > SJ_IN_BYTES ? SJ_IN_BYTES - off + bytes : bytes;
	while (!in_room(w, need)) {
		/* Full: deliver the oldest op (its worker goes on), or when
		 * there is none wait for the worker's resets. */
		if (j->op_tail != j->op_head) {
			if (replay_one(s, 1) < 0)
				return j->err;
		} else {
			kick_all(j);
			wait_for(w, &w->m_sleep, in_room, need);
		}
	}
	if (off + bytes > SJ_IN_BYTES) {
		it = (struct sj_item *)(void *)(w->in + off);
		it->kind = item_wrap;
		it->bytes = (uint32_t)(SJ_IN_BYTES - off);
		off = 0;
	}
	it = (struct sj_item *)(void *)(w->in + off);
	memset(it, 0, sizeof(*it));
	it->bytes = (uint32_t)bytes;
	it->kind = kind;
	it->id = id;
	it->has_offsets = offsets != NULL;
	it->n = (uint32_t)n;
	it->base = base;
	if (n)
		memcpy(it + 1, data, n);
	if (offsets)
		memcpy((uint8_t *)(it + 1) + pad, offsets, n * sizeof(uint64_t));
	head += need;
	atomic_store_explicit(&w->in_head, head, memory_order_release);
	if (head - w->kicked >= SJ_KICK || kind != item_data) {
		w->kicked = head;
		wake(w, &w->w_sleep);
	}
	if (kind == item_reset)
		return 0;
	op.worker = j->worker_of[id];
	return push_op(s, &op);
}

/* With one source on several threads: @rc from its so_*() call, kept
 * as the stopping error. */
static int one_rc(struct session_jobs *j, int rc)
{
	if (rc < 0 && !j->err)
		j->err = rc;
	return j->err;
}

int sj_data(struct etmkit_session *s, uint8_t id, const uint8_t *data,
	    const uint64_t *offsets, uint64_t base, size_t n)
{
	/* A long unformatted feed goes as pieces of SJ_PIECE bytes: the
	 * elements are the same (flow.h: output depends only on the input),
	 * a decoder batch may end at a piece's end. (Framed runs, the ones
	 * with offsets, are at most 4096 bytes: never cut.) */
	size_t most = offsets ? SJ_PIECE_OFFS : SJ_PIECE;

	if (s->jobs->one)
		return s->jobs->err ? s->jobs->err :
			one_rc(s->jobs, so_data(s->jobs->one, data, offsets,
						 base, n));
	while (n) {
		size_t k = n < most ? n : most;
		int err = put_item(s, item_data, id, data, offsets, base, k);

		if (err < 0)
			return err;
		data += k;
		if (offsets)
			offsets += k;
		base += k;
		n -= k;
	}
	return s->jobs->err;
}

int sj_command(struct etmkit_session *s, uint8_t id, enum sj_cmd cmd)
{
	if (s->jobs->one)
		return s->jobs->err ? s->jobs->err :
			one_rc(s->jobs, so_command(s->jobs->one, cmd));
	return put_item(s, (uint8_t)cmd, id, NULL, NULL, 0, 0);
}

int sj_event(struct etmkit_session *s, const struct deformat_event *ev)
{
	struct session_jobs *j = s->jobs;
	struct sj_op op = { .kind = op_event };

	if (j->err)
		return j->err;
	if (j->one)
		return one_rc(j, so_event(j->one, ev));
	while (j->ev_head - j->ev_tail >= SJ_EVENTS)
		if (replay_one(s, 1) < 0)
			return j->err;
	j->ev[j->ev_head++ % SJ_EVENTS] = *ev;
	return push_op(s, &op);
}

int sj_lose(struct etmkit_session *s, uint8_t id, enum etmkit_loss why,
	    uint64_t offset)
{
	struct sj_op op = { .kind = op_lose, .id = id, .why = (uint8_t)why,
			    .offset = offset };

	if (s->jobs->err)
		return s->jobs->err;
	if (s->jobs->one)
		return one_rc(s->jobs, so_lose(s->jobs->one, why, offset));
	return push_op(s, &op);
}

int sj_sync(struct etmkit_session *s)
{
	struct session_jobs *j = s->jobs;

	while (!j->err && j->op_tail != j->op_head)
		replay_one(s, 1);
	return j->err;
}

int sj_error(const struct etmkit_session *s)
{
	return s->jobs->err;
}

/* ---- Start and stop ------------------------------------------------------ */

static void free_workers(struct session_jobs *j)
{
	for (unsigned i = 0; i < j->nworkers; i++) {
		struct sj_worker *w = &j->w[i];

		if (w->started) {
			atomic_store(&w->quit, 1);
			pthread_mutex_lock(&w->mu);
			pthread_cond_broadcast(&w->cv);
			pthread_mutex_unlock(&w->mu);
			pthread_join(w->th, NULL);
			pthread_cond_destroy(&w->cv);
			pthread_mutex_destroy(&w->mu);
		}
		free(w->in);
		free(w->el);
		free(w->rec);
	}
	free(j->w);
	so_free(j->one);
	free(j);
}

static int start_worker(struct etmkit_session *s, struct sj_worker *w)
{
	w->s = s;
	w->in = aligned_alloc(64, SJ_IN_BYTES);
	w->el = malloc(SJ_ELEMS * sizeof(*w->el));
	w->rec = malloc(SJ_RECS * sizeof(*w->rec));
	if (!w->in || !w->el || !w->rec)
		return -etmkit_err_nomem;
	if (pthread_mutex_init(&w->mu, NULL))
		return -etmkit_err_nomem;
	if (pthread_cond_init(&w->cv, NULL)) {
		pthread_mutex_destroy(&w->mu);
		return -etmkit_err_nomem;
	}
	if (pthread_create(&w->th, NULL, worker_main, w)) {
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		return -etmkit_err_nomem;
	}
	w->started = 1;
	return 0;
}

int sj_start(struct etmkit_session *s)
{
	struct session_jobs *j;
	unsigned jobs = 0, nflow = 0;
	int err;

	s->jobs_state = 1;
	if (s->cfg.size >= offsetof(struct etmkit_session_config, jobs) +
				   sizeof(s->cfg.jobs))
		jobs = s->cfg.jobs;
	for (unsigned id = 0; id < DEFORMAT_ID_COUNT; id++) {
		uint8_t k = s->src[id].kind;

		if (k == src_etm3_pkt || k == src_etm4_pkt || k == src_ptm_pkt)
			return 0; /* packet decoders stay serial */
		nflow += k != src_none;
	}
	if (jobs <= 1 || !nflow)
		return 0;
	/* Failing, the session stays unstarted: the next call tries again
	 * rather than decoding serially without a word. */
	s->jobs_state = 0;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -etmkit_err_nomem;
	err = so_start(s, jobs, &j->one);
	if (err) {
		if (err < 0) {
			free(j);
			return err;
		}
		s->jobs = j;
		s->jobs_state = 2;
		return 0;
	}
	j->nworkers = jobs < nflow ? jobs : nflow;
	j->w = calloc(j->nworkers, sizeof(*j->w));
	if (!j->w) {
		free(j);
		return -etmkit_err_nomem;
	}
	for (unsigned id = 0, k = 0; id < DEFORMAT_ID_COUNT; id++)
		if (s->src[id].kind != src_none)
			j->worker_of[id] = (uint8_t)(k++ % j->nworkers);
	for (unsigned i = 0; i < j->nworkers; i++) {
		err = start_worker(s, &j->w[i]);

		if (err < 0) {
			free_workers(j);
			return err;
		}
	}
	s->jobs = j;
	s->jobs_state = 2;
	return 0;
}

int sj_one_source(const struct etmkit_session *s)
{
	return s->jobs && s->jobs->one;
}

void sj_free(struct etmkit_session *s)
{
	if (!s->jobs)
		return;
	free_workers(s->jobs);
	s->jobs = NULL;
}
