/* Parallel decode: one piece decoded, with the checkpoints the join
 * compares (par_internal.h). The elements are kept in one array per piece
 * object, which the decoder writes into (queue_here()), sized from the
 * first few KiB of a piece (reserve()), doubled where that fell short,
 * and reused piece after piece: nothing is allocated per element. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parallel/par_internal.h"

/* Checkpoint @j's distance after a cut: 64, 256, 1024, 4096 bytes. */
#define PAR_CHECK_AT(j) ((size_t)64 << (2 * (j)))

/* The checkpoints after the cut that begins piece @k (k >= 1):
 * PAR_CHECK_AT(0..PAR_CHECKS - 1) bytes after it, but not past the next
 * cut. */
static size_t checks_of(const struct etmkit_par *p, size_t k,
			size_t at[PAR_CHECKS])
{
	size_t n = 0;

	for (unsigned j = 0; j < PAR_CHECKS; j++) {
		size_t c = p->cut[k] + PAR_CHECK_AT(j);

		if (c > p->cut[k + 1])
			c = p->cut[k + 1];
		if (n && at[n - 1] == c)
			break;
		at[n++] = c;
	}
	return n;
}

/* Room for @need elements in the piece's array: twice as many as it had
 * (8192 at first: the first 4 KiB of dense ETE, tme_test, decode to 5.3
 * K, so reserve() finds them in place), or @need if that is more
 * (reserve()'s estimate, as it is). The elements
 * in use are moved, not the whole array as realloc() would (reserve()
 * grows it with a few hundred in it). The decoder's queue goes back to
 * its own array meanwhile (the elements it holds back, a range still
 * open, an instruction a Cancel may drop, wait there); queue_here()
 * points it at the piece again. */
static int grow(struct etmkit_par_piece *r, size_t need)
{
	size_t cap = r->cap ? 2 * r->cap : 8192;
	struct etmkit_elem *el;

	if (need <= r->cap)
		return 0;
	if (cap < need)
		cap = need;
	el = malloc(cap * sizeof(*el));
	if (!el)
		return -etmkit_err_nomem;
	r->proto->queue_at(r->dec, NULL);
	if (r->n)
		memcpy(el, r->el, r->n * sizeof(*el));
	free(r->el);
	r->el = el;
	r->cap = cap;
	return 0;
}

/* Point the decoder's output queue at the end of the piece's elements
 * (el + n), with room for all it may write before the next batch: the
 * elements it delivers are then the piece's where they were written, not
 * copied (a copy cost a third of the joining thread's instructions on
 * dense ETE). The array grows between batches, never per element. */
static int queue_here(struct etmkit_par_piece *r)
{
	int rc = grow(r, r->n + r->proto->queue_room());

	if (rc)
		return rc;
	r->proto->queue_at(r->dec, r->el + r->n);
	return 0;
}

/* Where a piece's elements are reserved (reserve()): at its last start
 * checkpoint (or its end), or as far into the first piece, which has
 * none. */
#define PAR_RESERVE_AT PAR_CHECK_AT(PAR_CHECKS - 1)

/* With the decode of piece @k at r->pos, a few KiB past its cut: room for
 * as many elements as the piece's bytes hold at the density decoded so
 * far, and a quarter more. So a piece object's array grows about once,
 * with a few KiB of trace's elements in it, not by doubling as the
 * piece's elements come, each time moving all of them (TC2: 3.4 M of
 * callgrind's instructions in a --jobs 2 decode of 2 MB, a copy counted
 * a byte an instruction, in each object made). */
static int reserve(const struct etmkit_par *p, struct etmkit_par_piece *r,
		   size_t k)
{
	size_t done = r->pos - p->cut[k], len = p->cut[k + 1] - p->cut[k];
	size_t want;

	if (!done || r->n > SIZE_MAX / 2 / len)
		return 0;
	want = r->n * len / done;
	return grow(r, want + want / 4 + r->proto->queue_room());
}

/* Take the decoder's batches, calling @pause (if not NULL) after each:
 * between batches, not between feeds, since a feed that ends early
 * costs the decoders' fast paths the packets near its end. */
static int drain(struct etmkit_par_piece *r, const struct par_pause *pause)
{
	const struct etmkit_elem *e;
	int m, rc;

	for (;;) {
		rc = queue_here(r);
		if (rc)
			return rc;
		m = r->proto->batch(r->dec, &e);
		if (m <= 0)
			break;
		/* e is r->el + r->n: the batch is in place. */
		r->n += (size_t)m;
		if (pause && (rc = pause->between(pause->ctx)))
			return rc;
	}
	return m == -etmkit_err_eos ? 0 : m;
}

/* Feed the buffer up to @to and take what it decodes. */
static int advance(const struct etmkit_par *p, struct etmkit_par_piece *r,
		   size_t to, const struct par_pause *pause)
{
	int rc;

	if (to <= r->pos)
		return 0;
	rc = r->proto->feed(r->dec, p->buf + r->pos, to - r->pos,
			    p->offsets ? p->offsets + r->pos : NULL,
			    p->base + r->pos);
	if (rc)
		return rc;
	r->pos = to;
	return drain(r, pause);
}

int par_record(const struct etmkit_par *p, struct etmkit_par_piece *r,
	       struct par_check *c, size_t at, const struct par_pause *pause)
{
	int rc = advance(p, r, at, pause);

	if (rc)
		return rc;
	c->at = at;
	c->nelem = r->n;
	r->proto->stats(r->dec, c->stats);
	c->snap_len = r->proto->snap(r->dec, r->scratch, c->snap);
	return 0;
}

int par_run_piece(const struct etmkit_par *p, struct etmkit_par_piece *r,
		  size_t k, int fresh, const struct par_pause *pause)
{
	size_t at[PAR_CHECKS], nc, stop;
	int rc;

	r->k = k;
	r->n = 0;
	r->nstart = r->nend = 0;
	r->decoded = 0;
	if (fresh) {
		r->proto->reset(r->dec);
		r->pos = p->cut[k];
		nc = k ? checks_of(p, k, at) : 0;
		for (size_t j = 0; j < nc; j++) {
			rc = par_record(p, r, &r->start[j], at[j], pause);
			if (rc)
				return rc;
			r->nstart++;
		}
		/* The first piece, which has none, stops there too (the
		 * others are there already: advance() does nothing). */
		stop = p->cut[k] + PAR_RESERVE_AT;
		rc = advance(p, r, stop < p->cut[k + 1] ? stop : p->cut[k + 1],
			     pause);
		if (!rc)
			rc = reserve(p, r, k);
		if (rc)
			return rc;
	}
	rc = advance(p, r, p->cut[k + 1], pause);
	if (rc)
		return rc;
	if (k + 1 == p->ncut) {
		if (!p->open_end) {
			rc = r->proto->finish(r->dec);
			if (!rc)
				rc = drain(r, NULL);
			if (rc)
				return rc;
		}
		r->proto->stats(r->dec, r->final_stats);
	} else {
		/* The first end checkpoint only: the join records the others
		 * when it needs them (par_join_checks), so a piece costs 64
		 * bytes of decode past its cut, not 4 KiB. */
		nc = checks_of(p, k + 1, at);
		if (nc > PAR_EAGER_END)
			nc = PAR_EAGER_END;
		for (size_t j = 0; j < nc; j++) {
			rc = par_record(p, r, &r->end[j], at[j], NULL);
			if (rc)
				return rc;
			r->nend++;
		}
	}
	r->decoded = 1;
	return 0;
}

int par_piece_command(struct etmkit_par_piece *r, enum par_cmd cmd)
{
	int rc;

	/* What the decoder holds back moves to the front (queue_at()). */
	r->n = 0;
	rc = queue_here(r);
	if (rc)
		return rc;
	switch (cmd) {
	case par_cmd_gap:
		rc = r->proto->gap(r->dec);
		break;
	case par_cmd_finish:
		rc = r->proto->finish(r->dec);
		break;
	case par_cmd_reset:
		r->proto->reset(r->dec);
		return 0;
	}
	return rc ? rc : drain(r, NULL);
}
