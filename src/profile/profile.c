/* Profiles: ranges and branches from execution elements, as simpleperf's
 * inject forms them from OpenCSD instruction ranges (digest perf-data.md
 * 4a; where ranges end, 3.10 and 3.11; a direct branch's target:
 * include/etmkit/profile.h). */
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
	if (!p || !cfg || cfg->size < sizeof(*cfg) || !cfg->resolve ||
	    (cfg->contexts && !cfg->traces))
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
	profile_ctx_free(p);
	free(p);
}

/* ---- Counting ------------------------------------------------------------ */

/* The target of direct branch @le (an insn or insn_range element, whose
 * last instruction it is) at address @at, or 0 with *@ok 0 when it
 * cannot be decoded. */
static uint64_t direct_target(const struct etmkit_elem *le, uint32_t op,
			      uint64_t at, uint8_t *ok)
{
	uint8_t b[INSN_MAX_BYTES] = { 0 };
	struct insn_info ii;
	size_t n = insn_opcode_bytes((enum etmkit_isa)le->isa, op, le->size,
				     b);

	*ok = n && insn_decode(&ii, (enum etmkit_isa)le->isa, at, b, n) >= 0 &&
	      (ii.flags & INSN_F_BRANCH) && !(ii.flags & INSN_F_INDIRECT);
	return *ok ? ii.target : 0;
}

/* profile_internal.h */
int profile_count_branch(struct profile *p, struct count_slot *sl,
			uint64_t target, uint64_t n)
{
	if (!sl->aux_count || sl->aux == target) {
		sl->aux = target;
		sl->aux_count = count_add(sl->aux_count, n,
					  &p->branches.saturated);
		return 0;
	}
	return count_map_add(&p->branches, sl->bin, sl->to, target, n);
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

/* The runs element @e stands for: an insn_range's repeats + 1. */
static inline uint64_t runs_of(const struct etmkit_elem *e)
{
	return e->kind == etmkit_elem_insn_range ?
	       (uint64_t)e->u.range.repeats + 1 : 1;
}

/* profile_internal.h */
int profile_ask(struct profile *p, uint8_t id, struct profile_memo *m,
		uint64_t addr, size_t *bin, uint64_t *vaddr)
{
	return profile_memo_ask(m, p->cfg.resolve, p->cfg.ctx, id, addr, bin,
				vaddr);
}

/* The ELF address of the target of the direct branch that ends range @sl
 * at run-time address @last: where the binary that holds it has it (the
 * start of the range that runs next, as simpleperf counts it), else at
 * the decoded address in the branch's own binary (simpleperf's
 * provisional target), else 0. */
static int branch_target(struct profile *p, uint8_t id, struct profile_id *st,
			 const struct count_slot *sl, uint64_t last,
			 uint64_t *target)
{
	uint64_t t = last + (sl->target - sl->to);
	size_t bin;
	int err;

	*target = 0;
	if (!sl->has_target)
		return 0;
	if (t - st->memo.lo < st->memo.span) {
		*target = t + st->memo.delta;
		return 0;
	}
	err = profile_where_of(p, id, &st->target, t, &bin, target);
	if (err == -etmkit_err_not_found) {
		*target = sl->target;
		return 0;
	}
	return err;
}

/* A complete range at run-time addresses (what OpenCSD reports as one
 * instruction range element): @start to its last instruction @last,
 * whose element is @le (an insn, or the insn_range it ends), run @n
 * times. It counts @n, and its taken branch @n to its target (indirect:
 * to 0). The general case: count_fast() takes the usual one. */
static int count_range(struct profile *p, uint8_t id, struct profile_id *st,
		       uint64_t start, uint64_t last,
		       const struct etmkit_elem *le, uint64_t n)
{
	uint32_t cls = last_class(le);
	struct count_slot *sl;
	size_t bin;
	uint64_t vstart, vend, target;
	int err = profile_where_of(p, id, &st->memo, start, &bin, &vstart);

	if (err == -etmkit_err_not_found)
		return 0;               /* outside known binaries (3.11) */
	if (err < 0)
		return err;
	/* The end in the same binary as the start, as simpleperf maps both
	 * through the start's map. */
	vend = vstart + (last - start);
	sl = count_map_add_slot(&p->ranges, bin, vstart, vend, n);
	if (!sl)
		return -etmkit_err_nomem;
	if (!profile_taken(le, cls))
		return 0;
	if (cls & INSN_F_INDIRECT)
		return profile_count_branch(p, sl, 0, n);
	if (!sl->has_target)    /* decoded once per range */
		sl->target = direct_target(le, last_opcode(le), vend,
					   &sl->has_target);
	err = branch_target(p, id, st, sl, last, &target);
	return err < 0 ? err : profile_count_branch(p, sl, target, n);
}

/* count_range() for insn_range element @e that is a whole range, in the
 * usual case: its start (and a direct branch's target) in the remembered
 * extent, its range and branch seen before. Returns 1 when counted, 0
 * when count_range() must take it (nothing changed). Runs once per
 * range, or per tally (ETM4_FLOW_TALLY): kept short and inline. */
static inline int count_fast(struct profile *p, struct profile_id *st,
			     const struct etmkit_elem *e)
{
	const struct profile_memo *m = &st->memo;
	struct count_slot *sl;
	uint64_t start = e->addr, last, vstart, vend, n, target = 0;
	uint32_t cls = e->u.range.class_flags;
	int tk;

	if (e->kind != etmkit_elem_insn_range || st->run.open ||
	    !(e->flags & ETMKIT_INSN_P0) || start - m->lo >= m->span ||
	    !p->ranges.cap)
		return 0;
	last = e->u.range.end - e->size;
	vstart = start + m->delta;
	vend = last + m->delta;
	sl = count_map_find(p->ranges.slots, p->ranges.cap, m->bin, vstart,
			    vend);
	n = (uint64_t)e->u.range.repeats + 1;
	if (!sl->count || sl->count > UINT64_MAX - n)
		return 0;
	tk = profile_taken(e, cls);
	if (tk) {
		if (!(cls & INSN_F_INDIRECT)) {
			uint64_t t = last + (sl->target - sl->to);

			if (!sl->has_target || t - m->lo >= m->span)
				return 0;
			target = t + m->delta;
		}
		if (!sl->aux_count || sl->aux != target ||
		    sl->aux_count > UINT64_MAX - n)
			return 0;
		sl->aux_count += n;
	}
	sl->count += n;
	return 1;
}

/* The run of @st is a complete range. */
static int close_run(struct profile *p, uint8_t id, struct profile_id *st)
{
	struct profile_run *r = &st->run;

	if (!r->open)
		return 0;
	r->open = 0;
	return count_range(p, id, st, r->start, r->last, &r->el, 1);
}

/* Instructions @e->addr..@last (each after the one before; @next follows
 * @last). A P0 instruction or any branch ends the run; an element that
 * does both, with no run open, is a whole range, as is one that stands
 * for several runs (ETM4_FLOW_TALLY: the decoder counts only whole
 * ranges). */
static int add_insns(struct profile *p, uint8_t id, struct profile_id *st,
		     const struct etmkit_elem *e, uint64_t last, uint64_t next)
{
	struct profile_run *r = &st->run;
	int ends = (e->flags & ETMKIT_INSN_P0) ||
		   (last_class(e) & INSN_F_BRANCH);
	uint64_t n = runs_of(e);
	int err = 0;

	if (r->open && (e->addr != r->next || n > 1))
		err = close_run(p, id, st); /* not one after another */
	if (!r->open && (ends || n > 1)) {
		int err2 = count_range(p, id, st, e->addr, last, e, n);

		return err ? err : err2;
	}
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

/* Any element, the general way: out of line, so that the fast path
 * saves no registers for it. */
static __attribute__((noinline)) int count_elem(struct profile *p,
						uint8_t id,
						struct profile_id *st,
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
		return close_run(p, id, st);
	case etmkit_elem_context:     /* maybe another process's memory */
		st->memo.span = 0;
		st->target.span = 0;
		return 0;
	case etmkit_elem_branch_run:  /* ETM4_FLOW_TRACES: not its ranges */
		return -etmkit_err_unsupported;
	default:
		return 0;
	}
}

int profile_elem(struct profile *p, uint8_t id, const struct etmkit_elem *e)
{
	if (!p || !e || id >= PROFILE_IDS)
		return -etmkit_err_invalid;
	if (p->cfg.traces)
		return profile_trace_elem(p, id, e);
	if (count_fast(p, &p->ids[id], e))
		return 0;
	return count_elem(p, id, &p->ids[id], e);
}

int profile_elems(struct profile *p, uint8_t id, const struct etmkit_elem *e,
		  size_t n)
{
	const struct etmkit_elem *end;
	struct profile_id *st;
	int err = 0;

	if (!p || (!e && n) || id >= PROFILE_IDS)
		return -etmkit_err_invalid;
	if (!n)
		return 0;       /* (e may be NULL: no e + n) */
	st = &p->ids[id];
	end = e + n;
	if (p->cfg.traces) {
		for (; e < end; e++) {
			int r = profile_trace_elem(p, id, e);

			if (r < 0 && !err)
				err = r;
		}
		return err;
	}
	for (; e < end; e++) {
		int r;

		if (count_fast(p, st, e))
			continue;
		r = count_elem(p, id, st, e);
		if (r < 0 && !err)
			err = r;
	}
	return err;
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
		int e = p->cfg.traces ? profile_trace_end(p, (uint8_t)id) :
					close_run(p, (uint8_t)id, &p->ids[id]);

		p->ids[id].memo.span = 0;   /* the next input's images */
		p->ids[id].target.span = 0;
		if (!err)
			err = e;
	}
	e2 = fold_branches(p);
	return err ? err : e2;
}

/* profile_internal.h */
int profile_finished(const struct profile *p)
{
	for (unsigned id = 0; id < PROFILE_IDS; id++)
		if (p->ids[id].run.open || p->ids[id].tr.open ||
		    p->ids[id].tr.pend)
			return 0;
	for (size_t k = 0; k < p->ranges.cap; k++)
		if (p->ranges.slots[k].count && p->ranges.slots[k].aux_count)
			return 0;
	return 1;
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
			out->bin = PROFILE_KEY_BIN(m->slots[k].bin);
			out->ctx = PROFILE_KEY_CTX(m->slots[k].bin);
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
