/* Parallel decode: the plan (cuts), the piece objects, and the join that
 * puts the pieces' elements together in order (par_internal.h: where a
 * piece takes over from the one before, and the fallback). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "parallel/par_internal.h"

void etmkit_par_config_init(struct etmkit_par_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
}

/* The flow decoder's config, checked for what the join covers. */
static int take_config(struct etmkit_par *p)
{
	const struct etmkit_par_config *c = &p->cfg;

	if (c->proto == etmkit_par_etm3) {
		if (!c->etm3 || c->etm3->size < sizeof(p->c3))
			return -etmkit_err_invalid;
		p->c3 = *c->etm3;
		if (p->c3.image_for_context ||
		    (p->c3.etm.flags & ETM3_CFG_STOP_ON_ERROR))
			return -etmkit_err_invalid;
		p->proto = &par_proto_etm3;
		p->dcfg = &p->c3;
		return 0;
	}
	if (c->proto == etmkit_par_etm4) {
		if (!c->etm4 || c->etm4->size < sizeof(p->c4))
			return -etmkit_err_invalid;
		p->c4 = *c->etm4;
		if (p->c4.image_for_context ||
		    (p->c4.flags & (ETM4_FLOW_TALLY | ETM4_FLOW_TRACES)) ||
		    (p->c4.etm.flags & ETM4_CFG_STOP_ON_ERROR))
			return -etmkit_err_invalid;
		p->proto = &par_proto_etm4;
		p->dcfg = &p->c4;
		return 0;
	}
	if (c->proto == etmkit_par_ptm) {
		if (!c->ptm || c->ptm->size < sizeof(p->cp))
			return -etmkit_err_invalid;
		p->cp = *c->ptm;
		if (p->cp.image_for_context ||
		    (p->cp.ptm.flags & PTM_CFG_STOP_ON_ERROR))
			return -etmkit_err_invalid;
		p->proto = &par_proto_ptm;
		p->dcfg = &p->cp;
		return 0;
	}
	return -etmkit_err_invalid;
}

int par_config_copy(struct etmkit_par_config *to,
		    const struct etmkit_par_config *cfg)
{
	/* The fields before ptm came first: a caller built then has a
	 * smaller size (parallel.h). */
	size_t min = offsetof(struct etmkit_par_config, ptm);

	if (!cfg || cfg->size < min)
		return -etmkit_err_invalid;
	memset(to, 0, sizeof(*to));
	memcpy(to, cfg, cfg->size < sizeof(*to) ? cfg->size : sizeof(*to));
	to->size = sizeof(*to);
	return 0;
}

int par_plan(struct etmkit_par **out, const struct etmkit_par_config *cfg,
	     const uint8_t *buf, size_t n, const uint64_t *offsets,
	     uint64_t base)
{
	struct etmkit_par *p;
	int rc;

	if (!out || !cfg || (!buf && n))
		return -etmkit_err_invalid;
	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -etmkit_err_nomem;
	if (par_config_copy(&p->cfg, cfg)) {
		free(p);
		return -etmkit_err_invalid;
	}
	if (!p->cfg.piece_bytes)
		p->cfg.piece_bytes = (size_t)PAR_PIECE_DEFAULT;
	p->buf = buf;
	p->n = n;
	p->offsets = offsets;
	p->base = base;
	rc = take_config(p);
	if (!rc)
		rc = par_find_cuts(p);
	if (rc) {
		etmkit_par_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int etmkit_par_alloc(struct etmkit_par **out,
		     const struct etmkit_par_config *cfg, const uint8_t *buf,
		     size_t n, const uint64_t *offsets, uint64_t base)
{
	struct etmkit_par_piece *probe = NULL;
	int rc = par_plan(out, cfg, buf, n, offsets, base);

	if (rc)
		return rc; /* *out as par_plan() left it */
	/* The flow decoder's own checks of its config, once. */
	rc = etmkit_par_piece_alloc(&probe, *out);
	etmkit_par_piece_free(probe);
	if (rc) {
		etmkit_par_free(*out);
		*out = NULL;
	}
	return rc;
}

void etmkit_par_free(struct etmkit_par *p)
{
	if (!p)
		return;
	free(p->cut);
	free(p);
}

size_t etmkit_par_pieces(const struct etmkit_par *p)
{
	return p ? p->ncut : 0;
}

size_t etmkit_par_piece_start(const struct etmkit_par *p, size_t k)
{
	if (!p)
		return 0;
	return k <= p->ncut ? p->cut[k] : p->n;
}

int etmkit_par_piece_alloc(struct etmkit_par_piece **out,
			   const struct etmkit_par *p)
{
	struct etmkit_par_piece *r;
	size_t sb, scb;
	uint8_t *m;
	int rc;

	if (!out || !p)
		return -etmkit_err_invalid;
	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -etmkit_err_nomem;
	r->proto = p->proto;
	/* The scratch copy and the snapshots in one block (each is reserved
	 * at its largest and mostly not written: one allocation, not nine,
	 * for a piece object made while the other threads decode). */
	sb = p->proto->snap_bytes();
	scb = p->proto->scratch_bytes();
	m = malloc(scb + 2 * PAR_CHECKS * sb);
	if (!m) {
		etmkit_par_piece_free(r);
		return -etmkit_err_nomem;
	}
	r->scratch = m;
	for (unsigned j = 0; j < PAR_CHECKS; j++) {
		r->start[j].snap = m + scb + (2 * j) * sb;
		r->end[j].snap = m + scb + (2 * j + 1) * sb;
	}
	rc = p->proto->alloc(&r->dec, p->dcfg);
	if (rc) {
		etmkit_par_piece_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

void etmkit_par_piece_free(struct etmkit_par_piece *r)
{
	if (!r)
		return;
	if (r->dec)
		r->proto->free(r->dec);
	free(r->scratch); /* and the snapshots */
	free(r->el);
	free(r);
}

int par_decode(const struct etmkit_par *p, size_t k,
	       struct etmkit_par_piece *r, const struct par_pause *pause)
{
	int rc;

	if (!p || !r || k >= p->ncut || r->held || r->proto != p->proto)
		return -etmkit_err_invalid;
	rc = par_run_piece(p, r, k, 1, pause);
	r->err = rc;
	return rc;
}

int etmkit_par_decode(const struct etmkit_par *p, size_t k,
		      struct etmkit_par_piece *r)
{
	return par_decode(p, k, r, NULL);
}

static int deliver(struct etmkit_par *p, const struct etmkit_par_piece *r,
		   size_t from, size_t to, const uint64_t *stats_to,
		   etmkit_par_sink_fn sink, void *ctx)
{
	for (unsigned i = 0; i < PAR_NSTATS; i++) {
		uint64_t d = stats_to[i] - p->held_stats[i];

		switch (i) {
		case 0: p->stats.packets += d; break;
		case 1: p->stats.insns += d; break;
		case 2: p->stats.atoms_lost += d; break;
		default: p->stats.protocol_errors += d; break;
		}
	}
	if (to > from && sink)
		return sink(ctx, r->el + from, to - from);
	return 0;
}

/* The first checkpoint where the kept piece's decoder (run on past the
 * cut) and @r's fresh one are in the same state: its index in *@j, or -1.
 * The decode recorded the kept piece's first PAR_EAGER_END end
 * checkpoints; the later ones are recorded here, one at a time, while
 * none agrees (so the kept decoder then stands at the last one, where
 * the fallback goes on from). Returns 0 or what par_record() returns. */
static int par_join_checks(const struct etmkit_par *p,
			   struct etmkit_par_piece *prev,
			   const struct etmkit_par_piece *r, int *j)
{
	for (size_t i = 0; i < r->nstart; i++) {
		const struct par_check *a = &prev->end[i], *b = &r->start[i];

		if (i == prev->nend) {
			int rc = par_record(p, prev, &prev->end[i], b->at,
					    NULL);

			if (rc)
				return rc;
			prev->nend++;
		}
		if (a->at == b->at && a->snap_len >= 0 &&
		    a->snap_len == b->snap_len &&
		    !memcmp(a->snap, b->snap, (size_t)a->snap_len)) {
			*j = (int)i;
			return 0;
		}
	}
	*j = -1;
	return 0;
}

int etmkit_par_join(struct etmkit_par *p, struct etmkit_par_piece *r,
		    etmkit_par_sink_fn sink, void *ctx,
		    struct etmkit_par_piece **freed)
{
	struct etmkit_par_piece *prev;
	const struct par_check *last;
	int j, rc;

	if (!p || !r || !freed || r->k != p->next || p->next >= p->ncut ||
	    !r->decoded || r == p->held)
		return -etmkit_err_invalid;
	*freed = NULL;
	r->decoded = 0;
	p->stats.pieces++;
	p->next++;
	if (!p->held) {
		p->held = r;
		r->held = 1;
		p->held_from = 0;
		memcpy(p->held_stats, p->first_stats, sizeof(p->held_stats));
		return 0;
	}
	prev = p->held;
	rc = par_join_checks(p, prev, r, &j);
	if (rc)
		return rc;
	if (j >= 0) {
		rc = deliver(p, prev, p->held_from, prev->end[j].nelem,
			     prev->end[j].stats, sink, ctx);
		p->held = r;
		r->held = 1;
		prev->held = 0;
		p->held_from = r->start[j].nelem;
		memcpy(p->held_stats, r->start[j].stats, sizeof(p->held_stats));
		*freed = prev;
		return rc;
	}
	/* No checkpoint agrees: the kept decoder, which stands at the last
	 * one, decodes this piece on (serial). */
	last = &prev->end[prev->nend - 1];
	rc = deliver(p, prev, p->held_from, prev->n, last->stats, sink, ctx);
	memcpy(p->held_stats, last->stats, sizeof(p->held_stats));
	p->held_from = 0;
	p->stats.fallbacks++;
	*freed = r;
	if (rc)
		return rc;
	return par_run_piece(p, prev, r->k, 0, NULL);
}

int etmkit_par_join_end(struct etmkit_par *p, etmkit_par_sink_fn sink,
			void *ctx, struct etmkit_par_piece **freed)
{
	struct etmkit_par_piece *h;
	int rc;

	if (!p || !freed || p->next != p->ncut || !p->held)
		return -etmkit_err_invalid;
	h = p->held;
	rc = deliver(p, h, p->held_from, h->n, h->final_stats, sink, ctx);
	p->held = NULL;
	h->held = 0;
	*freed = h;
	return rc;
}

const struct etmkit_par_stats *etmkit_par_get_stats(const struct etmkit_par *p)
{
	return p ? &p->stats : NULL;
}
