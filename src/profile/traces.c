/* Taken-branch traces: ranges from a taken branch's target to the next
 * taken branch, and taken branches with their real targets, as LBR-based
 * tools count them (digest perf-data.md 4c, 4d; the rules:
 * include/etmkit/profile.h "Taken-branch traces"). */
#include "profile_internal.h"

/* The range being built ends at its last instruction; @branch: that one
 * is a taken branch whose target the next element gives. */
static int close_range(struct profile *p, uint8_t id, struct profile_id *st,
		       int branch)
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
	/* The end in the same binary as the start (as for AutoFDO). */
	sl = count_map_add_slot(&p->ranges, bin, vstart,
				vstart + (t->last - t->start), 1);
	if (!sl)
		return -etmkit_err_nomem;
	if (branch) {
		t->pend = 1;
		t->pend_slot = sl;
		t->pend_grows = p->ranges.grows;
		t->pend_bin = sl->bin;
		t->pend_from = sl->from;
		t->pend_to = sl->to;
	}
	return 0;
}

/* The taken branch that ended the last range went to run-time address
 * @to: counted when @to is in the binary of its source. */
static int count_pending(struct profile *p, uint8_t id, struct profile_id *st,
			 uint64_t to)
{
	struct profile_trace *t = &st->tr;
	struct count_slot *sl = t->pend_slot;
	size_t bin;
	uint64_t vto;
	int err;

	t->pend = 0;
	err = profile_where_of(p, id, &st->memo, to, &bin, &vto);
	if (err == -etmkit_err_not_found)
		return 0;
	if (err < 0)
		return err;
	if (bin != t->pend_bin)
		return 0;               /* into another binary */
	if (t->pend_grows != p->ranges.grows)  /* the slots moved */
		sl = count_map_find(p->ranges.slots, p->ranges.cap, bin,
				    t->pend_from, t->pend_to);
	return profile_count_branch(p, sl, vto, 1);
}

int profile_trace_end(struct profile *p, uint8_t id)
{
	struct profile_id *st = &p->ids[id];
	int err = 0;

	if (st->tr.open)
		err = close_range(p, id, st, 0);
	st->tr.pend = 0;
	return err;
}

int profile_trace_elem(struct profile *p, uint8_t id,
		       const struct etmkit_elem *e)
{
	struct profile_id *st = &p->ids[id];
	struct profile_trace *t = &st->tr;
	uint64_t last, next;
	int err = 0, err2 = 0;

	switch (e->kind) {
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
		return 0;
	default:
		return 0;
	}
	if (t->open && e->addr != t->next)
		err = close_range(p, id, st, 0); /* not where it went on */
	else if (t->pend)
		err = count_pending(p, id, st, e->addr);
	if (!t->open) {
		t->open = 1;
		t->start = e->addr;
	}
	t->last = last;
	t->next = next;
	if (profile_taken(e, e->u.insn.class_flags))
		err2 = close_range(p, id, st, 1);
	return err ? err : err2;
}
