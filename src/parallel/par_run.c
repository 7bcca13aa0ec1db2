/* Parallel decode: the built-in runner. jobs threads decode: jobs - 1
 * workers and the calling thread. Each takes the next piece from a shared
 * counter while a piece object is free and the piece is within the
 * window; the calling thread joins the next piece in order as soon as it
 * is decoded (before it takes another to decode, and between the batches
 * of a piece it decodes: par_pause), and calls the sink. So the joining
 * thread decodes only while it has nothing to join, and takes a smaller
 * share of the pieces the more joining costs (the sink's work included);
 * two threads keep two cores busy, and the pieces the calling thread
 * decoded itself are delivered from its own cache. At most window pieces
 * are decoded or waiting (plus the one the join keeps), so memory does not
 * grow with the trace. A thread wakes another only when that one waits
 * (no system call per piece while both are busy).
 *
 * The workers start first: nothing is allocated for them before. A piece
 * object (a decoder and its block cache, snapshots, elements) is made by
 * the thread that first takes it from the free ones, so each thread makes
 * its own while the others decode, and only as many as are used; made
 * ones are taken before unmade ones, so their block caches stay warm.
 * The first one made checks the flow decoder's config (par_plan()).
 *
 * When the next piece to join is still on a worker and the calling thread
 * has nothing else to decode (the window is full: that worker is far
 * behind, usually because it is not getting a core on a loaded machine),
 * the calling thread decodes that piece itself into a spare object; the
 * worker's late result is dropped. So the join never waits for a thread
 * that does not run. Spare objects: one per worker (jobs - 1), each held
 * at most by one late worker. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parallel/par_internal.h"

struct run {
	struct etmkit_par *p;
	pthread_mutex_t mu;
	pthread_cond_t work;     /* a piece object came free, or stop */
	pthread_cond_t done;     /* a piece was decoded */
	struct etmkit_par_piece **slot; /* slot[k % window]: piece k, done */
	uint8_t *state;          /* state[k]: enum piece_state */
	/* Free piece objects; NULL: one not made yet, which the thread that
	 * takes it makes (so the workers start at once, and each thread
	 * makes its own). */
	struct etmkit_par_piece **free_r;
	size_t nfree;
	struct etmkit_par_piece **all; /* the objects made, to free */
	size_t nall;
	size_t next_k;           /* next piece to hand out */
	size_t joined;           /* pieces joined: the next to join */
	size_t window;
	/* Pieces decoded (or failed) by the workers so far: the calling
	 * thread takes the lock between its batches only when this moved
	 * (join_between()); the lock orders what it guards, this only says
	 * whether to take it. */
	atomic_size_t ndecoded;
	size_t seen;             /* ndecoded when the caller last joined */
	unsigned wait_work;      /* workers waiting on work */
	unsigned wait_done;      /* the caller waits on done */
	int stop;
	int err;                 /* the first error, of a decode or the join */
	etmkit_par_sink_fn sink;
	void *ctx;
	const struct par_run_hook *hook; /* or NULL */
	struct etmkit_par_piece *carry;  /* decodes piece 0, or NULL */
	int keep;                /* keep the join's last piece object */
	struct etmkit_par_piece *kept;   /* it, when keep */
};

/* With u->mu held: a piece to decode and an object for it, if there is
 * one (the next one, within the window). */
enum piece_state { ST_NEW, ST_WORKER, ST_DONE, ST_STOLEN };

static int take(struct run *u, size_t *k, struct etmkit_par_piece **r)
{
	if (u->err || u->next_k >= u->p->ncut || !u->nfree ||
	    u->next_k >= u->joined + u->window)
		return 0;
	*k = u->next_k++;
	*r = u->free_r[--u->nfree];
	u->state[*k] = ST_WORKER;
	return 1;
}

/* With u->mu held: the first error stays. */
static void fail(struct run *u, int rc)
{
	if (rc && !u->err)
		u->err = rc;
}

/* With u->mu held, dropped meanwhile: decode piece @k into *@r, made
 * first if it is NULL (not made yet); *@r is then NULL if it could not
 * be made. */
static int decode_unlocked(struct run *u, size_t k,
			   struct etmkit_par_piece **r,
			   const struct par_pause *pause)
{
	int rc = 0, make = !*r;

	pthread_mutex_unlock(&u->mu);
	if (make)
		rc = etmkit_par_piece_alloc(r, u->p);
	if (!rc)
		rc = par_decode(u->p, k, *r, pause);
	pthread_mutex_lock(&u->mu);
	if (make && *r)
		u->all[u->nall++] = *r;
	return rc;
}

/* With u->mu held: return piece object @r (NULL: not made yet) to the
 * free ones. */
static void give_back(struct run *u, struct etmkit_par_piece *r)
{
	u->free_r[u->nfree++] = r;
}

/* Decode piece @k into @r, unlocked; then, locked, put it in its slot. */
static void decode_one(struct run *u, size_t k, struct etmkit_par_piece *r,
		       const struct par_pause *pause)
{
	int rc = decode_unlocked(u, k, &r, pause);

	if (u->state[k] == ST_STOLEN) {
		/* The calling thread decoded it too, and its result is (or
		 * was) the one joined: this one's, an error included (a
		 * piece object it could not make: r NULL, back in the pool
		 * to be made later), is dropped. */
		give_back(u, r);
		return;
	}
	if (!r) {
		fail(u, rc);
		return;
	}
	fail(u, rc);
	u->state[k] = ST_DONE;
	u->slot[k % u->window] = r;
}

static void *worker(void *arg)
{
	struct run *u = arg;

	pthread_mutex_lock(&u->mu);
	for (;;) {
		struct etmkit_par_piece *r;
		size_t k;

		if (u->stop)
			break;
		if (!take(u, &k, &r)) {
			u->wait_work++;
			pthread_cond_wait(&u->work, &u->mu);
			u->wait_work--;
			continue;
		}
		if (u->hook) {
			pthread_mutex_unlock(&u->mu);
			u->hook->before_decode(u->hook->ctx, k);
			pthread_mutex_lock(&u->mu);
		}
		decode_one(u, k, r, NULL);
		atomic_fetch_add_explicit(&u->ndecoded, 1,
					  memory_order_relaxed);
		if (u->wait_done)
			pthread_cond_signal(&u->done);
	}
	pthread_mutex_unlock(&u->mu);
	return NULL;
}

/* With u->mu held (dropped while joining): join the pieces that are
 * decoded, in order, up to the first that is not. */
static void join_ready(struct run *u)
{
	struct etmkit_par *p = u->p;

	while (!u->err && u->joined < p->ncut) {
		size_t k = u->joined;
		struct etmkit_par_piece *r = u->slot[k % u->window];
		struct etmkit_par_piece *freed = NULL, *last = NULL;
		int rc;

		if (!r)
			return;
		u->slot[k % u->window] = NULL;
		pthread_mutex_unlock(&u->mu);
		rc = etmkit_par_join(p, r, u->sink, u->ctx, &freed);
		if (k + 1 == p->ncut && !rc)
			rc = etmkit_par_join_end(p, u->sink, u->ctx, &last);
		pthread_mutex_lock(&u->mu);
		fail(u, rc);
		u->joined = k + 1;
		if (freed)
			give_back(u, freed);
		if (last && u->keep)
			u->kept = last;
		else if (last)
			give_back(u, last);
		if (u->wait_work)
			pthread_cond_broadcast(&u->work);
	}
}

/* Between the batches of a piece the calling thread decodes (struct
 * par_pause): join what the workers have decoded meanwhile. */
static int join_between(void *arg)
{
	struct run *u = arg;
	size_t n = atomic_load_explicit(&u->ndecoded, memory_order_relaxed);
	int rc;

	/* No worker finished a piece since the last look: nothing new to
	 * join, no error to see (a batch is a few hundred elements: juno_r1_1
	 * took the lock 1269 times for 62 pieces). */
	if (n == u->seen)
		return 0;
	pthread_mutex_lock(&u->mu);
	u->seen = n;
	join_ready(u);
	rc = u->err;
	pthread_mutex_unlock(&u->mu);
	return rc;
}

/* Join every piece in order on this thread, decoding pieces while the
 * next one to join is not ready (pausing to join, when there are
 * @workers). */
static int join_all(struct run *u, unsigned workers)
{
	struct etmkit_par *p = u->p;
	struct par_pause between = { join_between, u };
	int rc;

	pthread_mutex_lock(&u->mu);
	if (u->carry) {
		/* Piece 0 on from the chunk before (par_source.c): no worker
		 * takes it (next_k starts at 1), none can steal it. */
		pthread_mutex_unlock(&u->mu);
		u->carry->pos = 0;
		rc = par_run_piece(p, u->carry, 0, 0,
				   workers ? &between : NULL);
		u->carry->err = rc;
		pthread_mutex_lock(&u->mu);
		fail(u, rc);
		u->state[0] = ST_DONE;
		u->slot[0] = u->carry;
	}
	for (;;) {
		struct etmkit_par_piece *r;
		size_t k, d;

		/* What the workers decoded by now is joined here: the next
		 * join_between() need not look for it again. */
		u->seen = atomic_load_explicit(&u->ndecoded,
					       memory_order_relaxed);
		join_ready(u);
		if (u->err || u->joined == p->ncut)
			break;
		k = u->joined;
		if (take(u, &d, &r)) {
			decode_one(u, d, r, workers ? &between : NULL);
		} else if (u->state[k] == ST_WORKER && u->nfree &&
			   u->next_k < p->ncut &&
			   u->next_k >= u->joined + u->window) {
			/* Piece k is on a worker that is behind: decode it
			 * here too (see above): the window is full, with
			 * pieces left and an object free. At the end of the
			 * trace the caller waits instead: the worker has the
			 * piece in hand. */
			u->state[k] = ST_STOLEN;
			r = u->free_r[--u->nfree];
			rc = decode_unlocked(u, k, &r, NULL);
			fail(u, rc);
			u->slot[k % u->window] = r;
		} else {
			u->wait_done++;
			pthread_cond_wait(&u->done, &u->mu);
			u->wait_done--;
		}
	}
	rc = u->err;
	pthread_mutex_unlock(&u->mu);
	return rc;
}

int etmkit_par_run(const struct etmkit_par_config *cfg, const uint8_t *buf,
		   size_t n, const uint64_t *offsets, uint64_t base,
		   etmkit_par_sink_fn sink, void *ctx,
		   struct etmkit_par_stats *stats)
{
	return par_run_hooked(cfg, buf, n, offsets, base, sink, ctx, stats,
			      NULL);
}

/* Free what @a gave: its first @npool pool objects and its carry. */
static void drop_given(const struct par_run_args *a, size_t npool)
{
	for (size_t i = 0; i < npool; i++)
		etmkit_par_piece_free(a->pool[i]);
	etmkit_par_piece_free(a->carry);
	if (a->keep) {
		*a->npool = 0;
		*a->last = NULL;
	}
}

int par_run_plan(const struct par_run_args *a)
{
	struct run u;
	pthread_t *th = NULL;
	unsigned jobs, started = 0, workers;
	size_t nobj, left, npool = a->keep ? *a->npool : 0;
	int rc = 0;

	memset(&u, 0, sizeof(u));
	atomic_init(&u.ndecoded, 0);
	u.p = a->p;
	u.hook = a->hook;
	u.sink = a->sink;
	u.ctx = a->ctx;
	u.carry = a->carry;
	u.keep = a->keep;
	if (pthread_mutex_init(&u.mu, NULL) || pthread_cond_init(&u.work, NULL) ||
	    pthread_cond_init(&u.done, NULL)) {
		drop_given(a, npool);
		return -etmkit_err_nomem;
	}
	jobs = a->jobs ? a->jobs : 2;
	u.window = a->window ? a->window : 2 * (size_t)jobs;
	if (u.window < jobs)
		u.window = jobs;
	/* The window's objects, the one the join keeps, and a spare per
	 * worker (for a piece the calling thread decodes again while a late
	 * worker still holds its first object): free, none made yet but
	 * those of the pool, which are taken first. The carry is one more,
	 * in use. */
	nobj = u.window + jobs;
	u.all = calloc(nobj + 1, sizeof(*u.all));
	u.free_r = calloc(nobj + 1, sizeof(*u.free_r));
	u.slot = calloc(u.window, sizeof(*u.slot));
	u.state = calloc(u.p->ncut, sizeof(*u.state));
	th = calloc(jobs, sizeof(*th));
	if (!u.all || !u.free_r || !u.slot || !u.state || !th)
		rc = -etmkit_err_nomem;
	for (; npool > nobj; npool--) /* not from a run with these jobs */
		etmkit_par_piece_free(a->pool[npool - 1]);
	u.nfree = nobj;
	for (size_t i = 0; i < npool; i++) {
		if (u.free_r)
			u.free_r[nobj - npool + i] = a->pool[i];
		if (u.all)
			u.all[u.nall++] = a->pool[i];
	}
	if (u.carry && u.all) {
		u.all[u.nall++] = u.carry;
		u.next_k = 1;
		if (u.state)
			u.state[0] = ST_WORKER;
	}
	/* Every object but the one the join keeps is a piece in flight:
	 * pieces next_join .. next_join + window - 1 at most, so slot[]
	 * never collides. The calling thread is one of the jobs; no more
	 * workers than pieces to hand them. */
	left = u.p->ncut - u.next_k;
	workers = jobs - 1;
	if (workers + 1 > left) /* the calling thread takes one too */
		workers = left ? (unsigned)left - 1 : 0;
	for (; !rc && started < workers; started++)
		if (pthread_create(&th[started], NULL, worker, &u))
			rc = -etmkit_err_nomem;
	if (rc) {
		pthread_mutex_lock(&u.mu);
		fail(&u, rc);
		pthread_mutex_unlock(&u.mu);
	} else {
		rc = join_all(&u, started);
	}
	pthread_mutex_lock(&u.mu);
	u.stop = 1;
	pthread_cond_broadcast(&u.work);
	pthread_mutex_unlock(&u.mu);
	for (unsigned i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (a->keep)
		*a->npool = 0;
	for (size_t i = 0; u.all && i < u.nall; i++) {
		if (a->keep && !rc && u.all[i] == u.kept)
			continue;
		if (a->keep && !rc)
			a->pool[(*a->npool)++] = u.all[i];
		else
			etmkit_par_piece_free(u.all[i]);
	}
	if (!u.all)
		drop_given(a, npool);
	if (a->keep)
		*a->last = rc ? NULL : u.kept;
	free(u.all);
	free(u.free_r);
	free(u.slot);
	free(u.state);
	free(th);
	pthread_cond_destroy(&u.done);
	pthread_cond_destroy(&u.work);
	pthread_mutex_destroy(&u.mu);
	return rc;
}

int par_run_hooked(const struct etmkit_par_config *cfg, const uint8_t *buf,
		   size_t n, const uint64_t *offsets, uint64_t base,
		   etmkit_par_sink_fn sink, void *ctx,
		   struct etmkit_par_stats *stats,
		   const struct par_run_hook *hook)
{
	struct par_run_args a;
	int rc;

	memset(&a, 0, sizeof(a));
	/* No decoder is made here to check the flow config (as
	 * etmkit_par_alloc() does): the first piece object made checks it,
	 * on whichever thread, and fails the run. */
	rc = par_plan(&a.p, cfg, buf, n, offsets, base);
	if (rc)
		return rc;
	a.jobs = cfg->jobs;
	a.window = cfg->window;
	a.sink = sink;
	a.ctx = ctx;
	a.hook = hook;
	rc = par_run_plan(&a);
	if (stats && !rc)
		*stats = *etmkit_par_get_stats(a.p);
	etmkit_par_free(a.p);
	return rc;
}
