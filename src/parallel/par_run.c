/* Parallel decode: the built-in runner. Worker threads take the next
 * piece from a shared counter while a piece object is free, decode it,
 * and mark it done; the calling thread joins the pieces in order and
 * calls the sink. At most window pieces are decoded or waiting (plus the
 * one the join keeps), so memory does not grow with the trace. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "parallel/par_internal.h"

struct run {
	struct etmkit_par *p;
	pthread_mutex_t mu;
	pthread_cond_t work;     /* a piece object came free, or stop */
	pthread_cond_t done;     /* a piece was decoded */
	struct etmkit_par_piece **slot; /* slot[k % window]: piece k, done */
	struct etmkit_par_piece **free_r; /* free piece objects */
	size_t nfree;
	size_t next_k;           /* next piece to hand out */
	size_t joined;           /* pieces joined */
	size_t window;
	int stop;
	int err;
};

static void *worker(void *arg)
{
	struct run *u = arg;

	pthread_mutex_lock(&u->mu);
	for (;;) {
		struct etmkit_par_piece *r;
		size_t k;
		int rc;

		while (!u->stop && (u->next_k >= u->p->ncut || !u->nfree ||
				     u->next_k >= u->joined + u->window))
			pthread_cond_wait(&u->work, &u->mu);
		if (u->stop)
			break;
		k = u->next_k++;
		r = u->free_r[--u->nfree];
		pthread_mutex_unlock(&u->mu);
		rc = etmkit_par_decode(u->p, k, r);
		pthread_mutex_lock(&u->mu);
		if (rc && !u->err)
			u->err = rc;
		u->slot[k % u->window] = r;
		pthread_cond_broadcast(&u->done);
	}
	pthread_mutex_unlock(&u->mu);
	return NULL;
}

/* Join every piece in order on this thread. */
static int join_all(struct run *u, etmkit_par_sink_fn sink, void *ctx)
{
	struct etmkit_par *p = u->p;
	int rc = 0;

	for (size_t k = 0; k < p->ncut && !rc; k++) {
		struct etmkit_par_piece *r, *freed = NULL;

		pthread_mutex_lock(&u->mu);
		while (!u->slot[k % u->window] && !u->err)
			pthread_cond_wait(&u->done, &u->mu);
		r = u->slot[k % u->window];
		u->slot[k % u->window] = NULL;
		rc = u->err;
		pthread_mutex_unlock(&u->mu);
		if (!rc)
			rc = etmkit_par_join(p, r, sink, ctx, &freed);
		if (k + 1 == p->ncut && !rc) {
			struct etmkit_par_piece *last = NULL;

			rc = etmkit_par_join_end(p, sink, ctx, &last);
			pthread_mutex_lock(&u->mu);
			u->free_r[u->nfree++] = last;
			pthread_mutex_unlock(&u->mu);
		}
		pthread_mutex_lock(&u->mu);
		u->joined = k + 1;
		if (freed)
			u->free_r[u->nfree++] = freed;
		pthread_cond_broadcast(&u->work);
		pthread_mutex_unlock(&u->mu);
	}
	return rc;
}

int etmkit_par_run(const struct etmkit_par_config *cfg, const uint8_t *buf,
		   size_t n, const uint64_t *offsets, uint64_t base,
		   etmkit_par_sink_fn sink, void *ctx,
		   struct etmkit_par_stats *stats)
{
	struct run u;
	pthread_t *th = NULL;
	struct etmkit_par_piece **all = NULL;
	unsigned jobs, started = 0;
	size_t nall = 0;
	int rc;

	memset(&u, 0, sizeof(u));
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
	/* The window's objects and the one the join keeps. */
	nall = u.window + 1;
	all = calloc(nall, sizeof(*all));
	u.free_r = calloc(nall, sizeof(*u.free_r));
	u.slot = calloc(u.window, sizeof(*u.slot));
	th = calloc(jobs, sizeof(*th));
	if (!all || !u.free_r || !u.slot || !th)
		rc = -etmkit_err_nomem;
	for (size_t i = 0; !rc && i < nall; i++) {
		rc = etmkit_par_piece_alloc(&all[i], u.p);
		if (!rc)
			u.free_r[u.nfree++] = all[i];
	}
	/* Every object but the one the join keeps is a piece in flight:
	 * pieces next_join .. next_join + window - 1 at most, so slot[]
	 * never collides. */
	for (; !rc && started < jobs; started++)
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
	free(th);
	pthread_cond_destroy(&u.done);
	pthread_cond_destroy(&u.work);
	pthread_mutex_destroy(&u.mu);
	etmkit_par_free(u.p);
	return rc;
}
