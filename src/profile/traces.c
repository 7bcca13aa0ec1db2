/* Taken-branch traces: ranges from a taken branch's target to the next
 * taken branch, and taken branches with their real targets, as LBR-based
 * tools count them (digest perf-data.md 4c, 4d; the rules:
 * include/etmkit/profile.h "Taken-branch traces"). */
#include "profile_internal.h"

/* Count range @bin:@from-@to @n times. When the map must grow, the slots the
 * trace IDs point at (pend_slot, prev) are found again afterwards, so
 * that the fast path never checks whether they moved. */
static struct count_slot *add_range(struct profile *p, uint64_t bin,
				    uint64_t from, uint64_t to, uint64_t n)
{
	struct count_map *m = &p->ranges;
	struct { uint64_t bin, from, to; } keep[PROFILE_IDS][2];
	struct count_slot *sl;
	uint64_t grows = m->grows;

	if (m->cap) {
		sl = count_map_find(m->slots, m->cap, bin, from, to);
		if (sl->count) {
			sl->count = count_add(sl->count, n, &m->saturated);
			return sl;
		}
	}
	if ((m->used + 1) * 2 > m->cap) {          /* it will grow */
		for (unsigned i = 0; i < PROFILE_IDS; i++) {
			struct profile_trace *t = &p->ids[i].tr;
			struct count_slot *s[2] = { t->pend_slot, t->prev };

			for (int k = 0; k < 2; k++)
				if (s[k]) {
					keep[i][k].bin = s[k]->bin;
					keep[i][k].from = s[k]->from;
					keep[i][k].to = s[k]->to;
				}
		}
	}
	sl = count_map_add_slot(m, bin, from, to, n);
	if (m->grows == grows)
		return sl;
	for (unsigned i = 0; i < PROFILE_IDS; i++) {
		struct profile_trace *t = &p->ids[i].tr;

		if (t->pend_slot)
			t->pend_slot = count_map_find(m->slots, m->cap,
						      keep[i][0].bin,
						      keep[i][0].from,
						      keep[i][0].to);
		if (t->prev)
			t->prev = count_map_find(m->slots, m->cap,
						 keep[i][1].bin,
						 keep[i][1].from,
						 keep[i][1].to);
	}
	return sl;
}

/* The range being built ends at its last instruction, run @n times;
 * @branch: that one is a taken branch whose target the next element
 * gives (or count_pending()'s caller). */
static int close_range(struct profile *p, uint8_t id, struct profile_id *st,
		       int branch, uint64_t n)
{
	struct profile_trace *t = &st->tr;
	struct count_slot *sl;
	size_t bin;
	uint64_t vstart;
	int err;

	t->open = 0;
	t->pend = 0;
	err = profile_where_of(p, id, &st->memo, t->start, &bin, &vstart);
	if (err == -etmkit_err_not_found)
		return 0;               /* outside known binaries (3.11) */
	if (err < 0)
		return err;
	/* The end in the same binary as the start (as for AutoFDO); with
	 * contexts, the context in the key's high half. */
	sl = add_range(p, p->cfg.contexts ? (uint64_t)bin | (uint64_t)t->ctx << 32 :
					    bin,
		       vstart, vstart + (t->last - t->start), n);
	if (!sl)
		return -etmkit_err_nomem;
	if (branch) {
		t->pend = 1;
		t->pend_slot = sl;
	}
	return 0;
}

/* The taken branch that ended the last range went to run-time address
 * @to (@n times): counted when @to is in the binary of its source. */
static int count_pending(struct profile *p, uint8_t id, struct profile_id *st,
			 uint64_t to, uint64_t n)
{
	struct profile_trace *t = &st->tr;
	size_t bin;
	uint64_t vto;
	int err;

	t->pend = 0;
	err = profile_where_of(p, id, &st->memo, to, &bin, &vto);
	if (err == -etmkit_err_not_found)
		return 0;
	if (err < 0)
		return err;
	if (bin != PROFILE_KEY_BIN(t->pend_slot->bin))
		return 0;               /* into another binary */
	return profile_count_branch(p, t->pend_slot, vto, n);
}

int profile_trace_end(struct profile *p, uint8_t id)
{
	struct profile_id *st = &p->ids[id];
	int err = 0;

	if (st->tr.open)
		err = close_range(p, id, st, 0, 1);
	st->tr.pend = 0;
	st->tr.ctx = 0;         /* the calls since are not known */
	st->tr.over = 0;
	return err;
}

/* With contexts: taken branch @last (run-time address), classified
 * @cls, may call or return. */
static int enter_or_leave(struct profile *p, uint8_t id,
			  struct profile_id *st, uint64_t last, uint32_t cls)
{
	size_t bin = PROFILE_CTX_EXTERNAL;
	uint64_t site = 0;
	int err;

	if (!(cls & (INSN_F_CALL | INSN_F_RETURN)))
		return 0;
	if (cls & INSN_F_CALL) {
		err = profile_where_of(p, id, &st->memo, last, &bin, &site);
		if (err == -etmkit_err_not_found) {
			bin = PROFILE_CTX_EXTERNAL;
			site = 0;
		} else if (err < 0) {
			return err;
		}
	}
	return profile_ctx_branch(p, id, bin, site, cls);
}

/* A trace the decoder counted (ETM4_FLOW_TRACES, include/etmkit/flow.h):
 * its first run goes on from the range being built when it starts where
 * that one ends, or is where the branch waiting for its target went;
 * every run counts its range and its branch. The order of calls and
 * returns among them is lost: not with contexts. */
static int count_branch_run(struct profile *p, uint8_t id,
			    struct profile_id *st, const struct etmkit_elem *e)
{
	struct profile_trace *t = &st->tr;
	uint64_t runs = (uint64_t)e->u.brun.repeats + 1;
	uint64_t last = e->u.brun.end - e->size;
	int err = 0, err2 = 0;

	if (p->cfg.contexts)
		return -etmkit_err_unsupported;
	if (t->open && e->addr == t->next) {
		t->last = last;
		err = close_range(p, id, st, 1, 1);
		if (!err && t->pend)
			err = count_pending(p, id, st, e->u.brun.target, 1);
		runs--;
	} else if (t->open) {
		err = close_range(p, id, st, 0, 1);
	} else if (t->pend) {
		err = count_pending(p, id, st, e->addr, 1);
	}
	if (runs) {
		t->start = e->addr;
		t->last = last;
		err2 = close_range(p, id, st, 1, runs);
		if (!err2 && t->pend)
			err2 = count_pending(p, id, st, e->u.brun.target,
					     runs);
	}
	t->open = 0;
	t->pend = 0;
	t->prev = NULL;
	return err ? err : err2;
}

/* Any element, the general way: out of line, so that the fast path
 * saves no registers for it. */
static __attribute__((noinline)) int trace_elem(struct profile *p,
						uint8_t id,
						const struct etmkit_elem *e)
{
	struct profile_id *st = &p->ids[id];
	struct profile_trace *t = &st->tr;
	uint64_t last, next;
	int err = 0, err2 = 0;

	switch (e->kind) {
	case etmkit_elem_branch_run:
		return count_branch_run(p, id, st, e);
	case etmkit_elem_insn_range:
		if (e->u.range.repeats)
			return -etmkit_err_unsupported; /* order lost */
		last = e->u.range.end - e->size;
		next = e->u.range.end;
		break;
	case etmkit_elem_insn:
		last = e->addr;
		next = e->addr + e->size;
		break;
	case etmkit_elem_trace_on:    /* 3.10: a discontinuity */
	case etmkit_elem_gap:
	case etmkit_elem_no_image:    /* 3.11: memory that cannot be read */
	case etmkit_elem_overflow:
	case etmkit_elem_exception:
	case etmkit_elem_exception_entry:
	case etmkit_elem_q:           /* path not traced */
		return profile_trace_end(p, id);
	case etmkit_elem_context:     /* maybe another process's memory */
		st->memo.span = 0;
		if (!p->cfg.contexts || !(e->flags & ETMKIT_CTX_CONTEXT_ID) ||
		    (t->has_thread && t->thread == e->u.context.context_id))
			return 0;
		/* another thread: what ran before counts in its context */
		if (t->open)
			err = close_range(p, id, st, 0, 1);
		t->pend = 0;
		err2 = profile_ctx_thread(p, id, e);
		return err ? err : err2;
	default:
		return 0;
	}
	if (t->open && e->addr != t->next)
		err = close_range(p, id, st, 0, 1); /* not where it went on */
	else if (t->pend)
		err = count_pending(p, id, st, e->addr, 1);
	if (!t->open) {
		t->open = 1;
		t->start = e->addr;
	}
	t->last = last;
	t->next = next;
	if (profile_taken(e, e->u.insn.class_flags)) {
		err2 = close_range(p, id, st, 1, 1);
		if (p->cfg.contexts) {
			int err3 = enter_or_leave(p, id, st, last,
						  e->u.insn.class_flags);

			if (!err2)
				err2 = err3;
		}
	}
	return err ? err : err2;
}

/* The taken branch at @last ends the range being built (the fast path's
 * end): a range seen before, in the remembered extent, counted here;
 * anything else through close_range(). */
static inline int count_taken(struct profile *p, uint8_t id,
			      struct profile_id *st, uint64_t last)
{
	struct profile_trace *t = &st->tr;
	const struct profile_memo *m = &st->memo;
	struct count_slot *sl, *prev;
	uint64_t start = t->start, vstart, vend, kbin;

	if (start - m->lo >= m->span || !p->ranges.cap)
		return close_range(p, id, st, 1, 1);
	vstart = start + m->delta;
	vend = last + m->delta;
	kbin = (uint64_t)m->bin | (uint64_t)t->ctx << 32; /* ctx 0: none */
	/* The range that ran after the one before it last time (that
	 * slot's target field, unused by traces: an index, checked by its
	 * key), else the hash table. */
	prev = t->prev;
	sl = NULL;
	if (prev && prev->target < p->ranges.cap) {
		struct count_slot *c = &p->ranges.slots[prev->target];

		if (c->from == vstart && c->to == vend && c->bin == kbin &&
		    c->count)
			sl = c;
	}
	if (!sl) {
		sl = count_map_find(p->ranges.slots, p->ranges.cap, kbin,
				    vstart, vend);
		if (prev)
			prev->target = (uint64_t)(sl - p->ranges.slots);
	}
	if (!sl->count || sl->count == UINT64_MAX)
		return close_range(p, id, st, 1, 1);
	sl->count++;
	t->open = 0;
	t->pend = 1;
	t->pend_slot = sl;
	return 0;
}

/* The usual element: an insn_range that goes on from the one before, or
 * starts a range after a taken branch seen before with this target, in
 * the remembered extent; when it ends in a taken branch, a range seen
 * before (in the context that runs, with contexts: a call or return then
 * enters or leaves one). Anything else (or a count about to saturate)
 * goes the general way, before anything changed, or (the range's end)
 * through close_range(). Runs once per element: kept short. */
int profile_trace_elem(struct profile *p, uint8_t id,
		       const struct etmkit_elem *e)
{
	struct profile_id *st = &p->ids[id];
	struct profile_trace *t = &st->tr;
	const struct profile_memo *m = &st->memo;
	struct count_slot *sl;
	uint64_t a = e->addr, last;
	uint32_t cls;
	int err, err2;

	if (e->kind != etmkit_elem_insn_range || e->u.range.repeats)
		return trace_elem(p, id, e);
	if (t->open) {
		if (a != t->next)
			return trace_elem(p, id, e);
	} else {
		if (t->pend) {
			uint64_t vto = a + m->delta;

			sl = t->pend_slot;
			if (a - m->lo >= m->span ||
			    m->bin != PROFILE_KEY_BIN(sl->bin) ||
			    !sl->aux_count)
				return trace_elem(p, id, e);
			if (sl->aux == vto && sl->aux_count != UINT64_MAX) {
				sl->aux_count++;
			} else {
				/* another target (an indirect branch):
				 * one seen before, in the branches */
				struct count_slot *b;

				if (!p->branches.cap)
					return trace_elem(p, id, e);
				b = count_map_find(p->branches.slots,
						   p->branches.cap, sl->bin,
						   sl->to, vto);
				if (!b->count || b->count == UINT64_MAX)
					return trace_elem(p, id, e);
				b->count++;
			}
			t->pend = 0;
			t->prev = sl;
		}
		t->open = 1;
		t->start = a;
	}
	last = e->u.range.end - e->size;
	t->last = last;
	t->next = e->u.range.end;
	cls = e->u.range.class_flags;
	if (!profile_taken(e, cls))
		return 0;
	err = count_taken(p, id, st, last);
	if (!p->cfg.contexts || !(cls & (INSN_F_CALL | INSN_F_RETURN)))
		return err;
	err2 = enter_or_leave(p, id, st, last, cls);
	return err ? err : err2;
}
