/* The handover of a flow decoder's output queue (par_handover.h). */
#include "par_handover.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elem_same.h"
#include "parallel/par_internal.h"

/* No element has this kind: a buffer filled with it shows which slots
 * the decoder wrote. */
#define POISON 0xa5

struct side {
	const struct par_proto *pr;
	void *dec;
	struct etmkit_elem *e;   /* what it delivered (the serial side), or
				    the serial side's elements (the other) */
	size_t n, cap;
};

/* The handed-over side's buffer of the test's: @base[0..@cap), the
 * queue at @base + @at; @base[0..@at) delivered, the serial side's
 * elements from @first. */
struct arena {
	struct etmkit_elem *base;
	size_t cap, at, first;
};

static uint32_t next_rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static int say(char *why, size_t nwhy, const char *what, size_t i)
{
	snprintf(why, nwhy, "queue handover: %s (element %zu)", what, i);
	return -1;
}

/* The serial side: every element of the batches until the end of what
 * was fed, appended. */
static int take_serial(struct side *s, char *why, size_t nwhy)
{
	const struct etmkit_elem *e;
	int m;

	while ((m = s->pr->batch(s->dec, &e)) > 0) {
		if (s->n + (size_t)m > s->cap) {
			size_t cap = s->cap ? 2 * s->cap : 4096;
			struct etmkit_elem *el;

			while (cap < s->n + (size_t)m)
				cap *= 2;
			el = realloc(s->e, cap * sizeof(*el));
			if (!el)
				return say(why, nwhy, "out of memory", s->n);
			s->e = el;
			s->cap = cap;
		}
		memcpy(s->e + s->n, e, (size_t)m * sizeof(*e));
		s->n += (size_t)m;
	}
	return m == -etmkit_err_eos ? 0 : say(why, nwhy, "serial batch", s->n);
}

/* The elements delivered into @a are still the serial side's @ref. */
static int arena_intact(const struct arena *a, const struct etmkit_elem *ref,
			char *why, size_t nwhy)
{
	for (size_t i = 0; a->base && i < a->at; i++)
		if (!elem_same(&a->base[i], &ref[a->first + i], 1))
			return say(why, nwhy,
				   "delivered element changed after the "
				   "decoder went on", a->first + i);
	return 0;
}

/* The buffer the queue left (poisoned by move_queue()), after the batch:
 * the decoder wrote nothing there any more. Freed. */
static int left_alone(struct arena *old, size_t i, char *why, size_t nwhy)
{
	size_t k = 0;

	while (k < old->cap && old->base[k].kind == POISON)
		k++;
	free(old->base);
	old->base = NULL;
	return k < old->cap ? say(why, nwhy,
				  "written where the queue no longer is", i) :
			      0;
}

/* Move @h's queue as drawn (@rnd), before its batch that delivers
 * element @i on; *@to is where the batch must then be (NULL: the
 * decoder's own array, unknown here). The buffer it leaves, poisoned,
 * in *@old (freed by left_alone()). */
static int move_queue(struct side *h, struct arena *a, struct arena *old,
		      uint32_t rnd, const struct etmkit_elem *ref, size_t i,
		      struct par_handover_counts *c,
		      const struct etmkit_elem **to, char *why, size_t nwhy)
{
	size_t room = h->pr->queue_room();
	size_t held = 0;

	if (a->base && rnd % 4 && a->at + room <= a->cap) {
		/* In place, past what was delivered. */
		*to = a->base + a->at;
		h->pr->queue_at(h->dec, a->base + a->at);
		return 0;
	}
	if (arena_intact(a, ref, why, nwhy))
		return -1;
	*old = *a;
	memset(a, 0, sizeof(*a));
	if (rnd % 3) {
		a->cap = room * (1 + rnd % 5);
		a->base = malloc(a->cap * sizeof(*a->base));
		if (!a->base)
			return say(why, nwhy, "out of memory", i);
		memset(a->base, POISON, a->cap * sizeof(*a->base));
		a->first = i;
	}
	*to = a->base;
	h->pr->queue_at(h->dec, a->base);
	if (a->base) {
		while (held < room && a->base[held].kind != POISON)
			held++;
		c->moved++;
		c->held += held > 0;
	}
	if (old->base)
		memset(old->base, POISON, old->cap * sizeof(*old->base));
	return 0;
}

/* The handed-over side's batches until the end of what was fed, checked
 * against the serial side's elements @ref[*@i..@nref). */
static int take_moved(struct side *h, struct arena *a, uint32_t *rng,
		      const struct etmkit_elem *ref, size_t nref, size_t *i,
		      struct par_handover_counts *c, char *why, size_t nwhy)
{
	for (;;) {
		const struct etmkit_elem *e, *to = NULL;
		struct arena old = { 0 };
		int m;

		if (move_queue(h, a, &old, next_rnd(rng), ref, *i, c, &to,
			       why, nwhy)) {
			free(old.base);
			return -1;
		}
		m = h->pr->batch(h->dec, &e);
		if (old.base && left_alone(&old, *i, why, nwhy))
			return -1;
		if (m == -etmkit_err_eos)
			return 0;
		if (m < 0)
			return say(why, nwhy, "batch failed", *i);
		c->batches++;
		if (to && e != to)
			return say(why, nwhy, "batch not where the queue was put",
				   *i);
		if (*i + (size_t)m > nref)
			return say(why, nwhy, "more elements than serial", *i);
		for (int k = 0; k < m; k++, ++*i)
			if (!elem_same(&e[k], &ref[*i], 1))
				return say(why, nwhy, "element differs", *i);
		if (to)
			a->at += (size_t)m;
	}
}

int par_check_handover(const struct etmkit_par_config *cfg,
		       const uint8_t *buf, size_t n, uint32_t seed,
		       struct par_handover_counts *counts, char *why,
		       size_t nwhy)
{
	const struct par_proto *pr = cfg->proto == etmkit_par_etm3 ?
					     &par_proto_etm3 :
				     cfg->proto == etmkit_par_ptm ?
					     &par_proto_ptm : &par_proto_etm4;
	const void *dcfg = cfg->proto == etmkit_par_etm3 ?
				   (const void *)cfg->etm3 :
			   cfg->proto == etmkit_par_ptm ?
				   (const void *)cfg->ptm :
				   (const void *)cfg->etm4;
	struct side s = { pr, NULL, NULL, 0, 0 }, h = { pr, NULL, NULL, 0, 0 };
	struct par_handover_counts c = { 0 };
	struct arena a = { 0 };
	void *scratch = calloc(1, pr->scratch_bytes() + 1);
	uint8_t *ss = malloc(pr->snap_bytes()), *hs = malloc(pr->snap_bytes());
	uint32_t rng = seed | 1;
	size_t i = 0;
	int rc = -1;

	if (!scratch || !ss || !hs || pr->alloc(&s.dec, dcfg) ||
	    pr->alloc(&h.dec, dcfg)) {
		say(why, nwhy, "set-up failed", 0);
		goto out;
	}
	for (size_t at = 0; at <= n;) {
		size_t k = at < n ? 1 + next_rnd(&rng) % 200 : 0;
		long ls, lh;

		if (k > n - at)
			k = n - at;
		if (k ? pr->feed(s.dec, buf + at, k, NULL, at) ||
				pr->feed(h.dec, buf + at, k, NULL, at) :
			pr->finish(s.dec) || pr->finish(h.dec)) {
			say(why, nwhy, "feed failed", i);
			goto out;
		}
		if (take_serial(&s, why, nwhy) ||
		    take_moved(&h, &a, &rng, s.e, s.n, &i, &c, why, nwhy))
			goto out;
		if (i != s.n) {
			say(why, nwhy, "fewer elements than serial", i);
			goto out;
		}
		ls = pr->snap(s.dec, scratch, ss);
		lh = pr->snap(h.dec, scratch, hs);
		if (ls != lh || (ls > 0 && memcmp(ss, hs, (size_t)ls))) {
			say(why, nwhy, "decoder states differ", i);
			goto out;
		}
		if (!k)
			break;
		at += k;
	}
	rc = arena_intact(&a, s.e, why, nwhy);
out:
	if (h.dec)
		pr->free(h.dec);
	if (s.dec)
		pr->free(s.dec);
	free(a.base);
	free(s.e);
	free(scratch);
	free(ss);
	free(hs);
	if (counts) {
		counts->batches += c.batches;
		counts->moved += c.moved;
		counts->held += c.held;
	}
	return rc;
}
