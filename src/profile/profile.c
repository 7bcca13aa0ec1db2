/* Profiles: ranges and branches from execution elements, as simpleperf's
 * inject forms them from OpenCSD instruction ranges (digest perf-data.md
 * 4a; the flush rules of 3.10, 3.11). */
#include <stdlib.h>
#include <string.h>

#include "etmkit/insn.h"
#include "profile_internal.h"

void profile_config_init(struct profile_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
}

int profile_alloc(struct profile **p, const struct profile_config *cfg)
{
	struct profile *np;

	if (p)
		*p = NULL;
	if (!p || !cfg || cfg->size < sizeof(*cfg) || !cfg->resolve)
		return -etmkit_err_invalid;
	np = calloc(1, sizeof(*np));
	if (!np)
		return -etmkit_err_nomem;
	np->cfg = *cfg;
	*p = np;
	return 0;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	count_map_free(&p->ranges);
	count_map_free(&p->branches);
	free(p);
}

/* ---- Counting ------------------------------------------------------------ */

/* The target of the direct branch that ends range @sl, at ELF addresses
 * (a direct branch's target is relative to its own address), or 0 when
 * it cannot be decoded. The opcode is rebuilt into memory order as
 * insn_info.opcode describes it (insn.h). */
static uint64_t direct_target(const struct count_slot *sl)
{
	uint8_t b[INSN_MAX_BYTES] = { 0 };
	struct insn_info ii;
	uint32_t op = sl->op;
	size_t n = 4;

	switch (sl->isa) {
	case etmkit_isa_thumb:
	case etmkit_isa_thumbee:
		if (sl->size == 2) {
			b[0] = (uint8_t)op;
			b[1] = (uint8_t)(op >> 8);
			n = 2;
		} else {
			b[0] = (uint8_t)(op >> 16);
			b[1] = (uint8_t)(op >> 24);
			b[2] = (uint8_t)op;
			b[3] = (uint8_t)(op >> 8);
		}
		break;
	case etmkit_isa_jazelle:
		n = sl->size < 4 ? sl->size : 4;
		for (size_t i = 0; i < n; i++)
			b[i] = (uint8_t)(op >> (8 * (n - 1 - i)));
		break;
	default:
		for (size_t i = 0; i < 4; i++)
			b[i] = (uint8_t)(op >> (8 * i));
		break;
	}
	if (insn_decode(&ii, (enum etmkit_isa)sl->isa, sl->to, b, n) < 0 ||
	    !(ii.flags & INSN_F_BRANCH) || (ii.flags & INSN_F_INDIRECT))
		return 0;
	return ii.target;
}

/* Count the taken branch at the end of range @sl to @target: in the
 * range's slot when it goes where it went before (always, for a direct
 * branch: the usual case), moved to the branches at profile_finish(); in
 * the branches otherwise. */
static int count_branch(struct profile *p, struct count_slot *sl,
			uint64_t target)
{
	if (!sl->aux_count || sl->aux == target) {
		sl->aux = target;
		sl->aux_count = count_add(sl->aux_count, 1,
					  &p->branches.saturated);
		return 0;
	}
	return count_map_add(&p->branches, sl->bin, sl->to, target, 1);
}

/* The slot of the range whose branch waits in @pd. */
static struct count_slot *pending_slot(struct profile *p,
				       const struct profile_pending *pd)
{
	if (pd->grows == p->ranges.grows)
		return pd->slot;
	/* the slots moved since */
	return count_map_find(p->ranges.slots, p->ranges.cap, pd->bin,
			      pd->start, pd->end);
}

/* No range follows (a discontinuity): the waiting branch goes to its
 * decoded target, in the start's binary (simpleperf's provisional one). */
static int flush(struct profile *p, struct profile_id *st)
{
	struct count_slot *sl;

	if (!st->pend.slot)
		return 0;
	sl = pending_slot(p, &st->pend);
	st->pend.slot = NULL;
	return count_branch(p, sl, direct_target(sl));
}

/* The opcode and classification of the last instruction of @e, an insn
 * or insn_range element: u.range begins with u.insn's two fields, a
 * common initial sequence (C11 6.5.2.3) that either member reads. */
static inline uint32_t last_opcode(const struct etmkit_elem *e)
{
	return e->u.insn.opcode;
}

static inline uint32_t last_class(const struct etmkit_elem *e)
{
	return e->u.insn.class_flags;
}

/* Ask the resolver where @addr is: its binary and ELF address, and
 * remember the extent it gives. */
static int ask(struct profile *p, uint8_t id, struct profile_memo *m,
	       uint64_t addr, size_t *bin, uint64_t *vaddr)
{
	struct profile_where w;
	int err;

	memset(&w, 0, sizeof(w));
	m->span = 0;
	err = p->cfg.resolve(p->cfg.ctx, id, addr, &w);
	if (err < 0)
		return err;
	*bin = w.bin;
	*vaddr = w.vaddr;
	if (w.lo <= addr && addr < w.hi) {
		m->lo = w.lo;
		m->span = w.hi - w.lo;
		m->bin = w.bin;
		m->delta = w.vaddr - addr;
	}
	return 0;
}

/* A complete range at run-time addresses (what OpenCSD reports as one
 * instruction range element): @start to its last instruction @last,
 * whose element is @le (an insn, or the insn_range it ends). It counts
 * 1; the branch waiting before it goes to its start; its own taken branch
 * counts now (indirect: to 0) or waits (direct). The general case:
 * count_fast() takes the usual one. */
static int count_range(struct profile *p, uint8_t id, struct profile_id *st,
		       uint64_t start, uint64_t last,
		       const struct etmkit_elem *le, uint32_t opcode,
		       uint32_t cls)
{
	struct profile_memo *m = &st->memo;
	struct profile_pending *pd = &st->pend;
	struct count_slot *sl;
	size_t bin;
	uint64_t vstart, vend;
	int err = 0, err2 = 0;

	if (start - m->lo < m->span) {
		bin = m->bin;
		vstart = start + m->delta;
	} else {
		err = ask(p, id, m, start, &bin, &vstart);
	}
	if (err == -etmkit_err_not_found)
		return flush(p, st);    /* outside known binaries (3.11) */
	if (err < 0)
		return err;
	if (pd->slot) {
		sl = pending_slot(p, pd);
		pd->slot = NULL;
		err2 = count_branch(p, sl, vstart);
	}
	/* The end in the same binary as the start, as simpleperf maps both
	 * through the start's map. */
	vend = vstart + (last - start);
	sl = count_map_add_slot(&p->ranges, bin, vstart, vend, 1);
	if (!sl)
		return -etmkit_err_nomem;
	sl->op = opcode;
	sl->isa = le->isa;
	sl->size = le->size;
	if (!(cls & INSN_F_BRANCH) || (le->flags & (ETMKIT_INSN_EXEC |
		ETMKIT_INSN_COND_FAIL | ETMKIT_INSN_CANCEL)) != ETMKIT_INSN_EXEC)
		return err2;            /* no taken branch */
	if (cls & INSN_F_INDIRECT) {
		err = count_branch(p, sl, 0);
		return err2 ? err2 : err;
	}
	pd->slot = sl;
	pd->grows = p->ranges.grows;
	pd->bin = bin;
	pd->start = vstart;
	pd->end = vend;
	return err2;
}

/* count_range() for insn_range element @e that is a whole range, in the
 * usual case: its start in the remembered extent, its range and the
 * waiting branch's seen before. Returns 1 when counted, 0 when
 * count_range() must take it (nothing changed). Runs once per range:
 * kept short and inline. */
static inline int count_fast(struct profile *p, struct profile_id *st,
			     const struct etmkit_elem *e)
{
	const struct profile_memo *m = &st->memo;
	struct profile_pending *pd = &st->pend;
	struct count_slot *sl, *w = NULL;
	uint64_t start = e->addr, vstart, vend;
	uint32_t cls = e->u.range.class_flags;

	if (e->kind != etmkit_elem_insn_range || st->run.open ||
	    !(e->flags & ETMKIT_INSN_P0) || start - m->lo >= m->span || !p->ranges.cap)
		return 0;
	vstart = start + m->delta;
	vend = vstart + (e->u.range.end - e->size - start);
	sl = count_map_find(p->ranges.slots, p->ranges.cap, m->bin, vstart,
			    vend);
	if (!sl->count || sl->count == UINT64_MAX ||
	    ((cls & INSN_F_INDIRECT) && sl->aux_count && sl->aux))
		return 0;
	if (pd->slot) {
		w = pd->grows == p->ranges.grows ? pd->slot : NULL;
		if (!w || w->aux != vstart || !w->aux_count ||
		    w->aux_count == UINT64_MAX)
			return 0;
		w->aux_count++;
		pd->slot = NULL;
	}
	sl->count++;
	if (!(cls & INSN_F_BRANCH) || (e->flags & (ETMKIT_INSN_EXEC |
		ETMKIT_INSN_COND_FAIL | ETMKIT_INSN_CANCEL)) != ETMKIT_INSN_EXEC)
		return 1;               /* no taken branch */
	if (cls & INSN_F_INDIRECT) {
		/* to 0, in the slot: an indirect branch's only target */
		sl->aux = 0;
		sl->aux_count = count_add(sl->aux_count, 1,
					  &p->branches.saturated);
		return 1;
	}
	pd->slot = sl;
	pd->grows = p->ranges.grows;
	pd->bin = m->bin;
	pd->start = vstart;
	pd->end = vend;
	return 1;
}

/* The run of @st is a complete range. */
static int close_run(struct profile *p, uint8_t id, struct profile_id *st)
{
	struct profile_run *r = &st->run;

	if (!r->open)
		return 0;
	r->open = 0;
	return count_range(p, id, st, r->start, r->last, &r->el,
			   last_opcode(&r->el), last_class(&r->el));
}
/* Instructions @e->addr..@last (each after the one before; @next follows
 * @last). A P0 instruction or any branch ends the run; an element that
 * does both, with no run open, is a whole range. */
static int add_insns(struct profile *p, uint8_t id, struct profile_id *st,
		     const struct etmkit_elem *e, uint64_t last, uint64_t next)
{
	struct profile_run *r = &st->run;
	int ends = (e->flags & ETMKIT_INSN_P0) ||
		   (last_class(e) & INSN_F_BRANCH);
	int err = 0;

	if (!r->open && ends)
		return count_range(p, id, st, e->addr, last, e,
				   last_opcode(e), last_class(e));
	if (r->open && e->addr != r->next)
		err = close_run(p, id, st); /* not one after another */
	if (!r->open) {
		r->open = 1;
		r->start = e->addr;
	}
	r->last = last;
	r->next = next;
	r->el = *e;
	if (ends) {
		int err2 = close_run(p, id, st);

		if (!err)
			err = err2;
	}
	return err;
}

/* A discontinuity: the range being built ends, and nothing joins it to
 * what follows. */
static int cut(struct profile *p, uint8_t id, struct profile_id *st)
{
	int err = close_run(p, id, st);
	int err2 = flush(p, st);

	return err ? err : err2;
}

/* Any element, the general way: out of line, so that the fast path
 * saves no registers for it. */
static __attribute__((noinline)) int count_elem(struct profile *p, uint8_t id, struct profile_id *st,
		      const struct etmkit_elem *e)
{
	switch (e->kind) {
	case etmkit_elem_insn_range:
		return add_insns(p, id, st, e, e->u.range.end - e->size,
				 e->u.range.end);
	case etmkit_elem_insn:
		return add_insns(p, id, st, e, e->addr, e->addr + e->size);
	case etmkit_elem_trace_on:    /* 3.10: a discontinuity */
	case etmkit_elem_gap:
	case etmkit_elem_no_image:    /* 3.11: memory that cannot be read */
	case etmkit_elem_overflow:
	case etmkit_elem_exception:
	case etmkit_elem_exception_entry:
	case etmkit_elem_q:           /* path not traced */
		return cut(p, id, st);
	case etmkit_elem_context:     /* maybe another process's memory */
		st->memo.span = 0;
		return 0;
	default:
		return 0;
	}
}

int profile_elem(struct profile *p, uint8_t id, const struct etmkit_elem *e)
{
	if (!p || !e || id >= PROFILE_IDS)
		return -etmkit_err_invalid;
	if (count_fast(p, &p->ids[id], e))
		return 0;
	return count_elem(p, id, &p->ids[id], e);
}

/* Move the branch counts kept in the range slots to the branches. On
 * -etmkit_err_nomem what could not move stays for the next call. */
static int fold_branches(struct profile *p)
{
	for (size_t k = 0; k < p->ranges.cap; k++) {
		struct count_slot *s = &p->ranges.slots[k];

		if (!s->count || !s->aux_count)
			continue;
		if (count_map_add(&p->branches, s->bin, s->to, s->aux,
				  s->aux_count) < 0)
			return -etmkit_err_nomem;
		s->aux_count = 0;
	}
	return 0;
}

int profile_finish(struct profile *p)
{
	int err = 0, e2;

	if (!p)
		return -etmkit_err_invalid;
	for (unsigned id = 0; id < PROFILE_IDS; id++) {
		int e = cut(p, (uint8_t)id, &p->ids[id]);

		p->ids[id].memo.span = 0;   /* the next input's images */
		if (!err)
			err = e;
	}
	e2 = fold_branches(p);
	return err ? err : e2;
}

/* ---- Reading the counts -------------------------------------------------- */

int profile_saturated(const struct profile *p)
{
	return p && (p->ranges.saturated || p->branches.saturated);
}

size_t profile_range_count(const struct profile *p)
{
	return p ? p->ranges.used : 0;
}

size_t profile_branch_count(const struct profile *p)
{
	return p ? p->branches.used : 0;
}

static int entry_at(const struct count_map *m, size_t i,
		    struct profile_entry *out)
{
	if (!out || i >= m->used)
		return -etmkit_err_invalid;
	for (size_t k = 0; k < m->cap; k++) {
		if (!m->slots[k].count)
			continue;
		if (i-- == 0) {
			out->bin = (size_t)m->slots[k].bin;
			out->from = m->slots[k].from;
			out->to = m->slots[k].to;
			out->count = m->slots[k].count;
			return 0;
		}
	}
	return -etmkit_err_internal;
}

int profile_range_at(const struct profile *p, size_t i,
		     struct profile_entry *out)
{
	return p ? entry_at(&p->ranges, i, out) : -etmkit_err_invalid;
}

int profile_branch_at(const struct profile *p, size_t i,
		      struct profile_entry *out)
{
	return p ? entry_at(&p->branches, i, out) : -etmkit_err_invalid;
}
