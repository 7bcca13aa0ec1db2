/* Parallel decode: the built-in runner. jobs threads decode: jobs - 1
 * workers and the calling thread. Each takes the next piece from a shared
 * counter while a piece object is free and the piece is within the
 * window; the calling thread joins the next piece in order as soon as it
 * is decoded (before it takes another to decode), and calls the sink. So
 * two threads keep two cores busy, and the pieces the calling thread
 * decoded itself are delivered from its own cache. At most window pieces
 * are decoded or waiting (plus the one the join keeps), so memory does not
 * grow with the trace. A thread wakes another only when that one waits
 * (no system call per piece while both are busy).
 *
 * When the next piece to join is still on a worker and the calling thread
 * has nothing else to decode (the window is full: that worker is far
 * behind, usually because it is not getting a core on a loaded machine),
 * the calling thread decodes that piece itself into a spare object; the
 * worker's late result is dropped. So the join never waits for a thread
 * that does not run. Spare objects: one per worker (jobs - 1), each held
 * at most by one late worker. */
#include <pthread.h>
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
	struct etmkit_par_piece **free_r; /* free piece objects */
	size_t nfree;
	size_t next_k;           /* next piece to hand out */
	size_t joined;           /* pieces joined */
	size_t window;
	unsigned wait_work;      /* workers waiting on work */
	unsigned wait_done;      /* the caller waits on done */
	int stop;
	int err;
	const struct par_run_hook *hook; /* or NULL */
};

/* With u->mu held: a piece to decode and an object for it, if there is
 * one (the next one, within the window). */
enum piece_state { ST_NEW, ST_WORKER, ST_DONE, ST_STOLEN };

static int take(struct run *u, size_t *k, struct etmkit_par_piece **r)
{
	if (u->next_k >= u->p->ncut || !u->nfree ||
	    u->next_k >= u->joined + u->window)
		return 0;
	*k = u->next_k++;
	*r = u->free_r[--u->nfree];
	u->state[*k] = ST_WORKER;
	return 1;
}

/* Decode piece @k into @r, unlocked; then, locked, put it in its slot. */
static void decode_one(struct run *u, size_t k, struct etmkit_par_piece *r)
{
	int rc;

	pthread_mutex_unlock(&u->mu);
	rc = etmkit_par_decode(u->p, k, r);
	pthread_mutex_lock(&u->mu);
	if (u->state[k] == ST_STOLEN) {
		/* The calling thread decoded it too, and its result is (or
		 * was) the one joined. */
		u->free_r[u->nfree++] = r;
		return;
	}
	if (rc && !u->err)
		u->err = rc;
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
		decode_one(u, k, r);
		if (u->wait_done)
			pthread_cond_signal(&u->done);
	}
	pthread_mutex_unlock(&u->mu);
	return NULL;
}

/* With u->mu held: return piece object @r to the free ones. */
static void give_back(struct run *u, struct etmkit_par_piece *r)
{
	u->free_r[u->nfree++] = r;
}

/* Join every piece in order on this thread, decoding pieces while the
 * next one to join is not ready. */
static int join_all(struct run *u, etmkit_par_sink_fn sink, void *ctx)
{
	struct etmkit_par *p = u->p;
	size_t k = 0;
	int rc = 0;

	pthread_mutex_lock(&u->mu);
	while (k < p->ncut && !rc) {
		struct etmkit_par_piece *r = u->slot[k % u->window];
		struct etmkit_par_piece *freed = NULL, *last = NULL;
		size_t d;

		if (u->err) {
			rc = u->err;
			break;
		}
		if (!r) {
			if (take(u, &d, &r)) {
				decode_one(u, d, r);
			} else if (u->state[k] == ST_WORKER && u->nfree &&
				   u->next_k < p->ncut) {
				int e;

				/* Piece k is on a worker that is behind:
				 * decode it here too (see above). take()
				 * failed with pieces left and an object
				 * free: the window is full. At the end of
				 * the trace the caller waits instead: the
				 * worker has the piece in hand. */
				u->state[k] = ST_STOLEN;
				r = u->free_r[--u->nfree];
				pthread_mutex_unlock(&u->mu);
				e = etmkit_par_decode(p, k, r);
				pthread_mutex_lock(&u->mu);
				if (e && !u->err)
					u->err = e;
				u->slot[k % u->window] = r;
			} else {
				u->wait_done++;
				pthread_cond_wait(&u->done, &u->mu);
				u->wait_done--;
			}
			continue;
		}
		u->slot[k % u->window] = NULL;
		pthread_mutex_unlock(&u->mu);
		rc = etmkit_par_join(p, r, sink, ctx, &freed);
		if (k + 1 == p->ncut && !rc)
			rc = etmkit_par_join_end(p, sink, ctx, &last);
		pthread_mutex_lock(&u->mu);
		u->joined = ++k;
		if (freed)
			give_back(u, freed);
		if (last)
			give_back(u, last);
		if (u->wait_work)
			pthread_cond_broadcast(&u->work);
	}
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

int par_run_hooked(const struct etmkit_par_config *cfg, const uint8_t *buf,
		   size_t n, const uint64_t *offsets, uint64_t base,
		   etmkit_par_sink_fn sink, void *ctx,
		   struct etmkit_par_stats *stats,
		   const struct par_run_hook *hook)
{
	struct run u;
	pthread_t *th = NULL;
	struct etmkit_par_piece **all = NULL;
	unsigned jobs, started = 0;
	size_t nall = 0;
	int rc;

	memset(&u, 0, sizeof(u));
	u.hook = hook;
	rc = etmkit_par_alloc(&u.p, cfg, buf, n, offsets, base);
	if (rc)
		return rc;
	if (pthread_mutex_init(&u.mu, NULL) || pthread_cond_init(&u.work, NULL) ||
	    pthread_cond_init(&u.done, NULL)) {
		etmkit_par_free(u.p);
		return -etmkit_err_nomem;
	}
	jobs = cfg->jobs ? cfg->jobs : 2;
	u.window = cfg->window ? cfg->window : 2 * (size_t)jobs;
	if (u.window < jobs)
		u.window = jobs;
	/* The window's objects, the one the join keeps, and a spare per
	 * worker (for a piece the calling thread decodes again while a late
	 * worker still holds its first object). */
	nall = u.window + jobs;
	all = calloc(nall, sizeof(*all));
	u.free_r = calloc(nall, sizeof(*u.free_r));
	u.slot = calloc(u.window, sizeof(*u.slot));
	u.state = calloc(u.p->ncut, sizeof(*u.state));
	th = calloc(jobs, sizeof(*th));
	if (!all || !u.free_r || !u.slot || !u.state || !th)
		rc = -etmkit_err_nomem;
	for (size_t i = 0; !rc && i < nall; i++) {
		rc = etmkit_par_piece_alloc(&all[i], u.p);
		if (!rc)
			u.free_r[u.nfree++] = all[i];
	}
	/* Every object but the one the join keeps is a piece in flight:
	 * pieces next_join .. next_join + window - 1 at most, so slot[]
	 * never collides. The calling thread is one of the jobs. */
	for (; !rc && started + 1 < jobs; started++)
		if (pthread_create(&th[started], NULL, worker, &u))
			rc = -etmkit_err_nomem;
	if (!rc)
		rc = join_all(&u, sink, ctx);
	pthread_mutex_lock(&u.mu);
	u.stop = 1;
	pthread_cond_broadcast(&u.work);
	pthread_mutex_unlock(&u.mu);
	for (unsigned i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (stats && !rc)
		*stats = *etmkit_par_get_stats(u.p);
	for (size_t i = 0; all && i < nall; i++)
		etmkit_par_piece_free(all[i]);
	free(all);
	free(u.free_r);
	free(u.slot);
	free(u.state);
	free(th);
	pthread_cond_destroy(&u.done);
	pthread_cond_destroy(&u.work);
	pthread_mutex_destroy(&u.mu);
	etmkit_par_free(u.p);
	return rc;
}
