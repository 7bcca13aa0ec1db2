/* Parallel decode of one source as its bytes come (par_internal.h,
 * par_source_*): the bytes gathered into a chunk, each chunk decoded by
 * the runner (par_run.c) with its first piece decoded on by the decoder
 * the join kept at the end of the chunk before (the carry), whose
 * decoder then stands where the serial one would: fed every byte so far
 * and drained, not finished. By induction over chunks, the elements are
 * the serial decoder's, in its order (parallel.h: the join), wherever
 * the chunks end; a command (gap, finish, reset) goes to the carry
 * after the chunk that precedes it, as it would to the serial decoder.
 * The piece objects are kept from chunk to chunk (a decoder's block
 * cache stays warm; making one costs a few hundred thousand
 * instructions). */
#include <stdlib.h>
#include <string.h>

#include "parallel/par_internal.h"

/* With offsets, a chunk holds this much less: 8 bytes of offset a
 * byte. */
#define PAR_SOURCE_OFFS 4

struct par_source {
	struct etmkit_par_config cfg;   /* its flow config points at c3, c4,
					   cp */
	struct etm3_flow_config c3;
	struct etm4_flow_config c4;
	struct ptm_flow_config cp;
	etmkit_par_sink_fn sink;
	void *ctx;
	struct etmkit_par *plan0;       /* an empty plan: for piece objects
					   made outside a chunk */
	uint8_t *buf;                   /* the chunk: n of cap bytes */
	uint64_t *off;                  /* their offsets, when offs (then
					   the chunk holds a PAR_SOURCE_OFFS-th
					   of cap bytes) */
	size_t n, cap;
	size_t ocap;                    /* the most bytes with offsets */
	uint64_t base;                  /* buf[0]'s offset, when not offs */
	int offs;
	struct etmkit_par_piece *carry; /* NULL until the first chunk */
	struct etmkit_par_piece **pool;
	size_t npool, pool_cap;
	struct etmkit_par_stats stats;
	int err;
};

int par_source_alloc(struct par_source **out,
		     const struct etmkit_par_config *cfg, size_t chunk_bytes,
		     etmkit_par_sink_fn sink, void *ctx)
{
	struct par_source *s;
	unsigned jobs;
	size_t window;
	int rc;

	if (!out || !cfg)
		return -etmkit_err_invalid;
	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -etmkit_err_nomem;
	if (par_config_copy(&s->cfg, cfg)) {
		free(s);
		return -etmkit_err_invalid;
	}
	cfg = &s->cfg;
	if (cfg->proto == etmkit_par_etm3 && cfg->etm3) {
		s->c3 = *cfg->etm3;
		s->cfg.etm3 = &s->c3;
	}
	if (cfg->proto == etmkit_par_etm4 && cfg->etm4) {
		s->c4 = *cfg->etm4;
		s->cfg.etm4 = &s->c4;
	}
	if (cfg->proto == etmkit_par_ptm && cfg->ptm) {
		s->cp = *cfg->ptm;
		s->cfg.ptm = &s->cp;
	}
	s->sink = sink;
	s->ctx = ctx;
	/* Checks what the parallel decode covers (par_plan()), then the
	 * flow decoder's own checks with the first piece object (below),
	 * which the first chunk then uses. */
	rc = par_plan(&s->plan0, &s->cfg, NULL, 0, NULL, 0);
	jobs = cfg->jobs ? cfg->jobs : 2;
	window = cfg->window ? cfg->window : 2 * (size_t)jobs;
	if (window < jobs)
		window = jobs;
	s->pool_cap = window + jobs;
	s->cap = chunk_bytes ? chunk_bytes : PAR_SOURCE_CHUNK;
	s->ocap = s->cap / PAR_SOURCE_OFFS ? s->cap / PAR_SOURCE_OFFS : 1;
	if (!rc) {
		s->pool = calloc(s->pool_cap, sizeof(*s->pool));
		s->buf = malloc(s->cap);
		if (!s->pool || !s->buf)
			rc = -etmkit_err_nomem;
	}
	if (!rc)
		rc = etmkit_par_piece_alloc(&s->pool[0], s->plan0);
	if (!rc)
		s->npool = 1;
	if (rc) {
		par_source_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void par_source_free(struct par_source *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->npool; i++)
		etmkit_par_piece_free(s->pool[i]);
	etmkit_par_piece_free(s->carry);
	etmkit_par_free(s->plan0);
	free(s->pool);
	free(s->buf);
	free(s->off);
	free(s);
}

static void add_stats(struct par_source *s, const struct etmkit_par_stats *d)
{
	s->stats.packets += d->packets;
	s->stats.insns += d->insns;
	s->stats.atoms_lost += d->atoms_lost;
	s->stats.protocol_errors += d->protocol_errors;
	s->stats.pieces += d->pieces;
	s->stats.fallbacks += d->fallbacks;
}

/* Decode the chunk gathered so far, its last piece left open. */
static int run_chunk(struct par_source *s)
{
	struct par_run_args a;
	struct etmkit_par_piece *last = NULL;
	int rc;

	if (!s->n)
		return 0;
	memset(&a, 0, sizeof(a));
	rc = par_plan(&a.p, &s->cfg, s->buf, s->n, s->offs ? s->off : NULL,
		      s->base);
	if (rc)
		return rc;
	a.p->open_end = 1;
	if (s->carry)
		s->carry->proto->stats(s->carry->dec, a.p->first_stats);
	a.jobs = s->cfg.jobs;
	a.window = s->cfg.window;
	a.sink = s->sink;
	a.ctx = s->ctx;
	a.carry = s->carry;
	a.keep = 1;
	a.pool = s->pool;
	a.npool = &s->npool;
	a.last = &last;
	/* The run frees the carry on an error; on success it is in the pool
	 * or the new carry. */
	s->carry = NULL;
	rc = par_run_plan(&a);
	if (!rc) {
		s->carry = last;
		add_stats(s, etmkit_par_get_stats(a.p));
		s->n = 0;
		s->offs = 0;
	}
	etmkit_par_free(a.p);
	return rc;
}

/* From here on the chunk keeps every byte's offset. */
static int to_offsets(struct par_source *s)
{
	if (!s->off &&
	    !(s->off = malloc(s->ocap * sizeof(*s->off))))
		return -etmkit_err_nomem;
	for (size_t i = 0; i < s->n; i++)
		s->off[i] = s->base + i;
	s->offs = 1;
	return 0;
}

int par_source_feed(struct par_source *s, const uint8_t *buf, size_t n,
		    const uint64_t *offsets, uint64_t base)
{
	if (!s || (!buf && n))
		return -etmkit_err_invalid;
	while (!s->err && n) {
		size_t k, most;

		if (!s->n)
			s->base = base;
		if (!s->offs && (offsets || base != s->base + s->n)) {
			if (s->n > s->ocap) {
				/* Too many for the offsets' room. */
				s->err = run_chunk(s);
				continue;
			}
			s->err = to_offsets(s);
			if (s->err)
				break;
		}
		most = s->offs ? s->ocap : s->cap;
		k = most - s->n < n ? most - s->n : n;
		memcpy(s->buf + s->n, buf, k);
		if (s->offs && offsets)
			memcpy(s->off + s->n, offsets, k * sizeof(*offsets));
		else if (s->offs)
			for (size_t i = 0; i < k; i++)
				s->off[s->n + i] = base + i;
		s->n += k;
		buf += k;
		if (offsets)
			offsets += k;
		base += k;
		n -= k;
		if (s->n == most)
			s->err = run_chunk(s);
	}
	return s->err;
}

int par_source_flush(struct par_source *s)
{
	if (!s)
		return -etmkit_err_invalid;
	if (!s->err)
		s->err = run_chunk(s);
	return s->err;
}

int par_source_command(struct par_source *s, enum par_cmd cmd)
{
	struct etmkit_par_piece *r;
	uint64_t before[PAR_NSTATS], after[PAR_NSTATS];
	struct etmkit_par_stats d;
	int rc;

	if (par_source_flush(s))
		return s ? s->err : -etmkit_err_invalid;
	if (!s->carry) {
		/* Nothing fed yet: the command goes to a fresh decoder, as
		 * to a serial one just made. */
		rc = etmkit_par_piece_alloc(&s->carry, s->plan0);
		if (rc)
			return s->err = rc;
	}
	r = s->carry;
	r->proto->stats(r->dec, before);
	rc = par_piece_command(r, cmd);
	if (!rc && r->n && s->sink)
		rc = s->sink(s->ctx, r->el, r->n);
	r->n = 0;
	if (rc)
		return s->err = rc;
	if (cmd != par_cmd_reset) { /* reset clears the statistics */
		r->proto->stats(r->dec, after);
		memset(&d, 0, sizeof(d));
		d.packets = after[0] - before[0];
		d.insns = after[1] - before[1];
		d.atoms_lost = after[2] - before[2];
		d.protocol_errors = after[3] - before[3];
		add_stats(s, &d);
	}
	return 0;
}

const struct etmkit_par_stats *par_source_stats(const struct par_source *s)
{
	return s ? &s->stats : NULL;
}
