/* The callbacks a session makes, logged, and the rule by which a session
 * with worker threads (etmkit_session_config.jobs) must log what the
 * serial one logs: shared by test_session_jobs.c and fuzz_session_jobs.c.
 * Aborts when memory runs out; never prints. */
#ifndef ETMKIT_TESTS_SESSION_LOG_H
#define ETMKIT_TESTS_SESSION_LOG_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/session.h"
#include "elem_same.h"
#include "ts_elems.h"

#define SLOG_CALLS 4096

/* One callback: a batch (or one on_elem element) of source @id, @n
 * elements from @first of the element list; or a frame event. */
struct slog_call {
	uint8_t what;  /* 1 elements, 2 frame event */
	uint8_t id;
	uint8_t ev_kind;
	int16_t ev_error;
	uint64_t ev_offset;
	size_t first, n;
};

struct slog {
	struct ts_elems el;
	struct slog_call *c;
	size_t nc, cap;
	size_t stop_after; /* 0, or stop once this many elements came */
	int stopped;       /* a callback stopped: later ones return it and
			      log nothing */
	size_t ncalls;     /* session calls made (slog_note()) */
	int rc[SLOG_CALLS];          /* what each returned */
	size_t nc_at[SLOG_CALLS];    /* callbacks logged when it returned */
};

static inline void slog_put(struct slog *l, const struct slog_call *c)
{
	if (l->nc == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->c = realloc(l->c, l->cap * sizeof(*l->c));
		if (!l->c)
			abort();
	}
	l->c[l->nc++] = *c;
}

/* on_elems: logs the batch; stops (-etmkit_err_internal) once
 * stop_after elements came or the element list is full. */
static inline int slog_on_elems(void *ctx, uint8_t id,
				const struct etmkit_elem *e, size_t n)
{
	struct slog *l = ctx;
	struct slog_call c = { .what = 1, .id = id, .first = l->el.n,
			       .n = n };

	if (!n)
		abort();
	if (l->stopped)
		return -etmkit_err_internal;
	/* Not past stop_after: where the batches end (which a session with
	 * one source on several threads may change) does not change what
	 * is logged. */
	if (l->stop_after && l->el.n + n > l->stop_after)
		c.n = n = l->stop_after - l->el.n;
	for (size_t i = 0; i < n; i++)
		if (ts_elems_put(&l->el, &e[i]) < 0)
			l->stopped = 1;
	slog_put(l, &c);
	if (l->stop_after && l->el.n >= l->stop_after)
		l->stopped = 1;
	return l->stopped ? -etmkit_err_internal : 0;
}

static inline int slog_on_elem(void *ctx, uint8_t id,
			       const struct etmkit_elem *e)
{
	return slog_on_elems(ctx, id, e, 1);
}

static inline int slog_on_event(void *ctx, const struct deformat_event *ev)
{
	struct slog *l = ctx;
	struct slog_call c = { .what = 2, .ev_kind = ev->kind,
			       .ev_error = ev->error,
			       .ev_offset = ev->offset };

	if (!l->stopped)
		slog_put(l, &c);
	return 0;
}

/* Log what a session call returned. */
static inline void slog_note(struct slog *l, int rc)
{
	if (l->ncalls >= SLOG_CALLS)
		abort();
	l->nc_at[l->ncalls] = l->nc;
	l->rc[l->ncalls++] = rc;
}

static inline void slog_free(struct slog *l)
{
	ts_elems_free(&l->el);
	free(l->c);
	memset(l, 0, sizeof(*l));
}

/* NULL when @b (a session with workers) made the calls of @a (serial)
 * by the rule of session.h jobs, else what differs. Up to the first
 * error the serial session returns (call f), the same callbacks, and
 * nothing after it: the workers' session is stopped from then on (the
 * serial one may go on decoding on later calls). Every call before f
 * returns the same (the workers' session never delivers sooner); with
 * @sync (stop_on_error: each call returns once
 * its callbacks are made) call f returns the same error too, else the
 * error comes back from call f or a later one; from the call that
 * returns it on, every call returns it. */
static inline const char *slog_diff(const struct slog *a,
				    const struct slog *b, int sync)
{
	size_t f = 0, nc;

	while (f < a->ncalls && a->rc[f] >= 0)
		f++;
	nc = f < a->ncalls ? a->nc_at[f] : a->nc;
	if (a->ncalls != b->ncalls)
		return "number of calls";
	if (b->nc != nc)
		return "number of callbacks";
	for (size_t i = 0; i < nc; i++) {
		const struct slog_call *x = &a->c[i], *y = &b->c[i];

		if (x->what != y->what || x->id != y->id ||
		    x->first != y->first || x->n != y->n ||
		    x->ev_kind != y->ev_kind || x->ev_error != y->ev_error ||
		    x->ev_offset != y->ev_offset)
			return "a callback";
		for (size_t k = 0; x->what == 1 && k < x->n; k++)
			if (!elem_same(&a->el.e[x->first + k],
				       &b->el.e[y->first + k], 1))
				return "an element";
	}
	for (size_t i = 0; i < a->ncalls; i++) {
		if (i < f && b->rc[i] != a->rc[i])
			return "a return before the first error";
		if (i == f && sync && b->rc[i] != a->rc[i])
			return "the first error's return";
		if (b->rc[i] < 0 && f < a->ncalls && b->rc[i] != a->rc[f])
			return "the error returned";
		if (b->rc[i] < 0 && i + 1 < b->ncalls &&
		    b->rc[i + 1] != b->rc[i])
			return "a return after the error";
	}
	if (f < a->ncalls && b->rc[a->ncalls - 1] != a->rc[f])
		return "the error is never returned";
	return NULL;
}

/* @l's callbacks with each batch of elements split into one callback per
 * element, into @out (freed with slog_free()): a session with one source
 * on several threads may cut its on_elems batches elsewhere (session.h
 * jobs), the same elements in the same order; slog_diff() on flattened
 * logs compares that. */
static inline void slog_flatten(const struct slog *l, struct slog *out)
{
	size_t *at = malloc((l->nc + 1) * sizeof(*at));

	if (!at)
		abort();
	memset(out, 0, sizeof(*out));
	out->el = l->el;
	out->el.e = malloc((l->el.n ? l->el.n : 1) * sizeof(*l->el.e));
	if (!out->el.e)
		abort();
	if (l->el.n)
		memcpy(out->el.e, l->el.e, l->el.n * sizeof(*l->el.e));
	out->el.cap = l->el.n;
	for (size_t i = 0; i < l->nc; i++) {
		struct slog_call c = l->c[i];
		size_t n = c.what == 1 ? c.n : 1;

		at[i] = out->nc;
		for (size_t k = 0; k < n; k++) {
			if (c.what == 1) {
				c.first = l->c[i].first + k;
				c.n = 1;
			}
			slog_put(out, &c);
		}
	}
	at[l->nc] = out->nc;
	out->stopped = l->stopped;
	out->ncalls = l->ncalls;
	for (size_t i = 0; i < l->ncalls; i++) {
		out->rc[i] = l->rc[i];
		out->nc_at[i] = at[l->nc_at[i]];
	}
	free(at);
}

#endif /* ETMKIT_TESTS_SESSION_LOG_H */
