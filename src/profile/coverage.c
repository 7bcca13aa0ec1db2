/* Coverage: per-instruction execution counts and conditional outcomes
 * from execution elements (coverage.h).
 *
 * Runs of instructions are counted as ranges [start, end) of ELF
 * addresses in a hash table (count_map.h), one key per distinct range:
 * consecutive single instructions (insn elements, ranges that ran once)
 * are joined into one run before they are counted. coverage_finish()
 * turns the ranges into per-address counts by a difference sweep: +n at
 * each range's start, -n at its end, sorted by binary and address; the
 * running sum between two consecutive boundaries is the count of every
 * instruction there. */
#include <stdlib.h>
#include <string.h>

#include "etmkit/coverage.h"
#include "etmkit/insn.h"
#include "count_map.h"
#include "coverage_internal.h"
#include "where_memo.h"

#define IDS 128

/* A run of consecutive instructions being built, at ELF addresses. */
struct cov_run {
	uint8_t open;
	size_t bin;
	uint64_t start, end;       /* ELF addresses, end exclusive */
	uint64_t next;             /* run-time address after it */
};


/* A range element seen before (the fast path): its run-time start and
 * length, and the slots of its range and of its last instruction's
 * outcomes (NULL: not conditional), valid while the memo and the maps
 * stay as they were (gen). */
struct cov_cache {
	uint64_t addr, len;
	struct count_slot *range, *cond;
	uint64_t gen;
};

#define CACHE_SIZE 64   /* per ID, direct-mapped by start address */

struct cov_id {
	struct cov_run run;
	struct profile_memo memo;
	uint64_t memo_gen;         /* bumped when the memo changes */
	uint8_t cond_traced;
	struct cov_cache cache[CACHE_SIZE];
};

/* Per-address counts of one binary: [pt[i].addr, pt[i + 1].addr) ran
 * pt[i].count times. */
struct cov_point {
	uint64_t addr, count;
};

struct cov_bin {
	size_t bin;
	struct cov_point *pt;
	size_t n;
};

struct coverage {
	struct coverage_config cfg;
	struct count_map ranges;   /* (bin, start, end) */
	struct count_map conds;    /* (bin, addr, 0): count = outcomes,
				      aux_count = passed */
	struct cov_id ids[IDS];
	struct cov_bin *bins;      /* sorted by bin */
	size_t nbins;
	int saturated;
};

void coverage_config_init(struct coverage_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
}

int coverage_alloc(struct coverage **c, const struct coverage_config *cfg)
{
	struct coverage *nc;

	if (c)
		*c = NULL;
	if (!c || !cfg || cfg->size < sizeof(*cfg) || !cfg->resolve)
		return -etmkit_err_invalid;
	nc = calloc(1, sizeof(*nc));
	if (!nc)
		return -etmkit_err_nomem;
	nc->cfg = *cfg;
	*c = nc;
	return 0;
}

static void free_bins(struct coverage *c)
{
	for (size_t i = 0; i < c->nbins; i++)
		free(c->bins[i].pt);
	free(c->bins);
	c->bins = NULL;
	c->nbins = 0;
}

void coverage_free(struct coverage *c)
{
	if (!c)
		return;
	count_map_free(&c->ranges);
	count_map_free(&c->conds);
	free_bins(c);
	free(c);
}

int coverage_conditions_traced(struct coverage *c, uint8_t id, int on)
{
	if (!c || id >= IDS)
		return -etmkit_err_invalid;
	c->ids[id].cond_traced = on != 0;
	return 0;
}

/* ---- Counting ------------------------------------------------------------ */

/* The binary and ELF address of run-time @addr: the memo's extent, or
 * the resolver (remembering the extent it gives). */
static int where(struct coverage *c, uint8_t id, uint64_t addr, size_t *bin,
		 uint64_t *vaddr, uint64_t *room)
{
	struct profile_memo *m = &c->ids[id].memo;
	int err;

	if (addr - m->lo < m->span) {
		*bin = m->bin;
		*vaddr = addr + m->delta;
		*room = m->span - (addr - m->lo);
		return 0;
	}
	c->ids[id].memo_gen++;
	err = profile_memo_ask(m, c->cfg.resolve, c->cfg.ctx, id, addr, bin,
			       vaddr);
	if (err < 0)
		return err;
	*room = m->span ? m->span - (addr - m->lo)
			: 1;  /* no extent: this address alone */
	return 0;
}

static int count_range(struct coverage *c, size_t bin, uint64_t start,
		       uint64_t end, uint64_t n)
{
	if (end <= start)
		return 0;
	return count_map_add(&c->ranges, bin, start, end, n);
}

static int flush_run(struct coverage *c, struct cov_run *r)
{
	int err = 0;

	if (r->open)
		err = count_range(c, r->bin, r->start, r->end, 1);
	r->open = 0;
	return err;
}

/* Instructions at run-time [@addr, @addr + @len), run @n times. A run
 * that continues the open one (n 1, next address, same binary and
 * offset) extends it; a stretch that crosses the end of the resolver's
 * extent is split there, and is counted up to an address no binary
 * holds. */
static int count_addrs(struct coverage *c, uint8_t id, uint64_t addr,
		       uint64_t len, uint64_t n)
{
	struct cov_run *r = &c->ids[id].run;

	while (len) {
		uint64_t va, room, k;
		size_t bin;
		int err = where(c, id, addr, &bin, &va, &room);

		if (err == -etmkit_err_not_found)
			return flush_run(c, r); /* no binary's: not counted */
		if (err < 0)
			return err;
		k = len < room ? len : room;
		if (n == 1 && r->open && r->next == addr && r->bin == bin &&
		    r->end == va) {
			r->end += k;
		} else if (n == 1) {
			err = flush_run(c, r);
			if (err)
				return err;
			*r = (struct cov_run){ 1, bin, va, va + k, 0 };
		} else {
			err = count_range(c, bin, va, va + k, n);
			if (err)
				return err;
		}
		r->next = addr + k;
		addr += k;
		len -= k;
	}
	return 0;
}

/* The outcome of the conditional instruction at run-time @at, @n times. */
static int count_outcome(struct coverage *c, uint8_t id, uint64_t at,
			 int passed, uint64_t n)
{
	struct count_slot *s;
	uint64_t va, room;
	size_t bin;
	int err = where(c, id, at, &bin, &va, &room);

	if (err == -etmkit_err_not_found)
		return 0;
	if (err < 0)
		return err;
	s = count_map_add_slot(&c->conds, bin, va, 0, n);
	if (!s)
		return -etmkit_err_nomem;
	if (passed)
		s->aux_count = count_add(s->aux_count, n, &c->saturated);
	return 0;
}

/* Whether the last instruction of @e has an outcome to count. */
static int has_outcome(const struct coverage *c, uint8_t id,
		       const struct etmkit_elem *e)
{
	/* u.range begins with u.insn's fields: class_flags for either. */
	return (e->u.insn.class_flags & INSN_F_COND) &&
	       ((e->flags & ETMKIT_INSN_P0) || c->ids[id].cond_traced);
}

/* The generation a cache entry of trace ID @id is valid for. */
static uint64_t cache_gen(const struct coverage *c, uint8_t id)
{
	return c->ids[id].memo_gen ^ (c->ranges.grows << 40) ^
	       (c->conds.grows << 52);
}

/* An insn_range element, @n runs of [e->addr, e->u.range.end): from the
 * cache when the same range came before, else counted and cached when it
 * lies inside one resolver extent (else split by count_addrs()). */
static int count_range_elem(struct coverage *c, uint8_t id,
			    const struct etmkit_elem *e, uint64_t n)
{
	struct cov_id *st = &c->ids[id];
	uint64_t len = e->u.range.end - e->addr, last = e->u.range.end - e->size;
	struct cov_cache *ce = &st->cache[(e->addr >> 2) & (CACHE_SIZE - 1)];
	int cond = has_outcome(c, id, e), err;
	uint64_t va, room;
	size_t bin;

	if (ce->addr == e->addr && ce->len == len && ce->range &&
	    ce->gen == cache_gen(c, id) && (!cond || ce->cond)) {
		ce->range->count = count_add(ce->range->count, n,
					     &c->ranges.saturated);
		if (cond) {
			ce->cond->count = count_add(ce->cond->count, n,
						    &c->conds.saturated);
			if (!(e->flags & ETMKIT_INSN_COND_FAIL))
				ce->cond->aux_count = count_add(
					ce->cond->aux_count, n, &c->saturated);
		}
		return 0;
	}
	err = where(c, id, e->addr, &bin, &va, &room);
	if (err == -etmkit_err_not_found)
		return 0;
	if (err < 0)
		return err;
	if (room < len || !len) {
		err = count_addrs(c, id, e->addr, len, n);
		if (!err && cond)
			err = count_outcome(c, id, last,
				!(e->flags & ETMKIT_INSN_COND_FAIL), n);
		return err;
	}
	ce->range = NULL;
	ce->cond = NULL;
	if (cond) {
		ce->cond = count_map_add_slot(&c->conds, bin, va + (last - e->addr),
					      0, n);
		if (!ce->cond)
			return -etmkit_err_nomem;
		if (!(e->flags & ETMKIT_INSN_COND_FAIL))
			ce->cond->aux_count = count_add(ce->cond->aux_count, n,
							&c->saturated);
	}
	ce->range = count_map_add_slot(&c->ranges, bin, va, va + len, n);
	if (!ce->range)
		return -etmkit_err_nomem;
	/* A slot taken before a growth of the other map stays valid: the
	 * generation covers both maps from here on. */
	ce->addr = e->addr;
	ce->len = len;
	ce->gen = cache_gen(c, id);
	return 0;
}

/* Element @e of trace ID @id, the arguments checked: inline in
 * coverage_elem() and in coverage_elems()'s loop. */
static inline int count_elem(struct coverage *c, uint8_t id,
			     const struct etmkit_elem *e)
{
	int err;

	if (e->kind == etmkit_elem_insn_range)
		return count_range_elem(c, id, e,
					(uint64_t)e->u.range.repeats + 1);
	if (e->kind == etmkit_elem_context) {
		/* Maybe another process's memory: ask the resolver again. */
		c->ids[id].memo.span = 0;
		c->ids[id].memo_gen++;
		return flush_run(c, &c->ids[id].run);
	}
	if (e->kind == etmkit_elem_branch_run)
		return -etmkit_err_unsupported; /* ETM4_FLOW_TRACES: no
						   outcomes of its branches */
	if (e->kind != etmkit_elem_insn || (e->flags & ETMKIT_INSN_CANCEL))
		return 0;   /* a canceled instruction did not complete */
	/* One instruction: joined to the run of those before it. */
	err = count_addrs(c, id, e->addr, e->size ? e->size : 1, 1);
	if (!err && has_outcome(c, id, e))
		err = count_outcome(c, id, e->addr,
				    !(e->flags & ETMKIT_INSN_COND_FAIL), 1);
	return err;
}

int coverage_elem(struct coverage *c, uint8_t id, const struct etmkit_elem *e)
{
	if (!c || !e || id >= IDS)
		return -etmkit_err_invalid;
	return count_elem(c, id, e);
}

int coverage_elems(struct coverage *c, uint8_t id,
		   const struct etmkit_elem *e, size_t n)
{
	int err = 0;

	if (!c || (!e && n) || id >= IDS)
		return -etmkit_err_invalid;
	for (size_t i = 0; i < n; i++) {
		int r = count_elem(c, id, &e[i]);

		if (r < 0 && !err)
			err = r;
	}
	return err;
}

/* ---- Per-address counts ------------------------------------------------- */

struct cov_event {
	size_t bin;
	uint64_t addr;
	uint64_t add, sub;
};

static int cmp_event(const void *x, const void *y)
{
	const struct cov_event *a = x, *b = y;

	if (a->bin != b->bin)
		return a->bin < b->bin ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* The sweep over @ev (@n, sorted): per binary, a point at each distinct
 * address with the running sum after it. */
static int sweep(struct coverage *c, const struct cov_event *ev, size_t n)
{
	size_t i = 0;

	c->bins = calloc(n ? n : 1, sizeof(*c->bins));
	if (!c->bins)
		return -etmkit_err_nomem;
	while (i < n) {
		struct cov_bin *b = &c->bins[c->nbins];
		size_t j = i, k = 0;
		uint64_t sum = 0;

		while (j < n && ev[j].bin == ev[i].bin)
			j++;
		b->bin = ev[i].bin;
		b->pt = malloc((j - i) * sizeof(*b->pt));
		if (!b->pt)
			return -etmkit_err_nomem;
		c->nbins++;
		for (size_t m = i; m < j; m++) {
			/* Saturated sums stay at the top. */
			if (sum != UINT64_MAX)
				sum = count_add(sum, ev[m].add,
						&c->saturated) - ev[m].sub;
			if (m + 1 < j && ev[m + 1].addr == ev[m].addr)
				continue;
			if (k && b->pt[k - 1].count == sum)
				continue;
			b->pt[k++] = (struct cov_point){ ev[m].addr, sum };
		}
		b->n = k;
		i = j;
	}
	return 0;
}

int coverage_finish(struct coverage *c)
{
	struct cov_event *ev;
	size_t n = 0;
	int err = 0;

	if (!c)
		return -etmkit_err_invalid;
	for (int id = 0; id < IDS && !err; id++) {
		err = flush_run(c, &c->ids[id].run);
		c->ids[id].memo.span = 0;   /* the next input's images */
		c->ids[id].memo_gen++;
	}
	if (err)
		return err;
	free_bins(c);
	ev = malloc((c->ranges.used * 2 + 1) * sizeof(*ev));
	if (!ev)
		return -etmkit_err_nomem;
	for (size_t i = 0; i < c->ranges.cap; i++) {
		const struct count_slot *s = &c->ranges.slots[i];

		if (!s->count)
			continue;
		ev[n++] = (struct cov_event){ s->bin, s->from, s->count, 0 };
		ev[n++] = (struct cov_event){ s->bin, s->to, 0, s->count };
	}
	if (n)
		qsort(ev, n, sizeof(*ev), cmp_event);
	err = sweep(c, ev, n);
	free(ev);
	if (err)
		free_bins(c);
	return err;
}

static const struct cov_bin *find_bin(const struct coverage *c, size_t bin)
{
	size_t lo = 0, hi = c->nbins;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->bins[mid].bin < bin)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nbins && c->bins[lo].bin == bin ? &c->bins[lo] : NULL;
}

uint64_t coverage_max(const struct coverage *c, size_t bin, uint64_t lo,
		      uint64_t hi)
{
	const struct cov_bin *b = c ? find_bin(c, bin) : NULL;
	size_t l = 0, h;
	uint64_t max = 0;

	if (!b || lo >= hi)
		return 0;
	h = b->n;
	while (l < h) {   /* the first point above lo */
		size_t mid = l + (h - l) / 2;

		if (b->pt[mid].addr <= lo)
			l = mid + 1;
		else
			h = mid;
	}
	if (l)
		max = b->pt[l - 1].count;   /* the one holding lo */
	for (; l < b->n && b->pt[l].addr < hi; l++)
		if (b->pt[l].count > max)
			max = b->pt[l].count;
	return max;
}

int coverage_outcomes(const struct coverage *c, size_t bin, uint64_t vaddr,
		      uint64_t *pass, uint64_t *fail)
{
	const struct count_slot *s;

	if (!c || !pass || !fail)
		return -etmkit_err_invalid;
	*pass = *fail = 0;
	if (!c->conds.cap)
		return -etmkit_err_not_found;
	s = count_map_find(c->conds.slots, c->conds.cap, bin, vaddr, 0);
	if (!s->count)
		return -etmkit_err_not_found;
	*pass = s->aux_count;
	*fail = s->count - s->aux_count;
	return 0;
}

size_t coverage_range_count(const struct coverage *c)
{
	return c ? c->ranges.used : 0;
}

size_t coverage_cond_count(const struct coverage *c)
{
	return c ? c->conds.used : 0;
}

int coverage_saturated(const struct coverage *c)
{
	return c && (c->saturated || c->ranges.saturated ||
		     c->conds.saturated);
}

/* ---- For partial profiles (coverage_internal.h) ------------------------- */

void coverage_counts(const struct coverage *c, const struct count_map **ranges,
		     const struct count_map **conds)
{
	*ranges = &c->ranges;
	*conds = &c->conds;
}

void coverage_counts_mut(struct coverage *c, struct count_map **ranges,
			 struct count_map **conds)
{
	*ranges = &c->ranges;
	*conds = &c->conds;
}

int coverage_runs_open(const struct coverage *c)
{
	for (int id = 0; id < IDS; id++)
		if (c->ids[id].run.open)
			return 1;
	return 0;
}
