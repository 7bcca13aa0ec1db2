/* Taken-branch traces of a run of elements, the plain way: what a
 * decode with ETM4_FLOW_TRACES (flow.h) must say, computed from the
 * ranges decode's elements and from its own alike. Shared by the unit
 * test (test_tally) and the fuzz target (fuzz_etm4_flow).
 *
 * A trace runs from where execution arrived (by a taken branch, or after
 * a cut) to the next taken branch, across not-taken branches and across
 * ranges that go on where the one before ended (include/etmkit/profile.h
 * "Taken-branch traces"); its branch's target is the first address of
 * the range that follows (a branch_run carries it); one that another
 * element (or the end) follows has none. A trace the end of a segment or
 * a range that starts elsewhere cuts has no branch. */
#ifndef ETMKIT_TESTS_BRANCH_TRACES_H
#define ETMKIT_TESTS_BRANCH_TRACES_H

#include <stdint.h>
#include <stdlib.h>

#include "etmkit/elem.h"
#include "etmkit/insn.h"

struct btrace {
	uint64_t start, last;  /* first and last instruction */
	uint64_t target;       /* has_target: where the taken branch went */
	uint8_t taken;         /* ended by a taken branch (else cut) */
	uint8_t has_target;
	uint64_t count;
};

struct btraces {
	struct btrace *v;
	size_t n, cap;
};

static inline struct btrace *btraces_push(struct btraces *l, uint64_t start,
					  uint64_t last, int taken,
					  uint64_t count)
{
	struct btrace *t;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v)
			abort();
	}
	t = &l->v[l->n++];
	t->start = start;
	t->last = last;
	t->target = 0;
	t->taken = (uint8_t)taken;
	t->has_target = 0;
	t->count = count;
	return t;
}

static inline int btrace_cmp(const void *a, const void *b)
{
	const struct btrace *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->last != y->last)
		return x->last < y->last ? -1 : 1;
	if (x->taken != y->taken)
		return x->taken < y->taken ? -1 : 1;
	if (x->has_target != y->has_target)
		return x->has_target < y->has_target ? -1 : 1;
	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	return 0;
}

/* Whether range @e ends in a branch that was taken. */
static inline int btrace_taken(const struct etmkit_elem *e)
{
	return (e->u.range.class_flags & INSN_F_BRANCH) &&
	       (e->flags & (ETMKIT_INSN_EXEC | ETMKIT_INSN_COND_FAIL |
			    ETMKIT_INSN_CANCEL)) == ETMKIT_INSN_EXEC;
}

/* The traces of @e[*@i..@n) up to the next element that is neither an
 * insn_range (repeats 0) nor a branch_run, into @out (emptied), sorted,
 * each distinct one once with its count; *@i moves to that element.
 * Returns 0, or -1 for an insn_range that repeats. */
static inline int btraces_segment(const struct etmkit_elem *e, size_t n,
				  size_t *i, struct btraces *out)
{
	uint64_t start = 0, last = 0, next = 0;
	int open = 0;
	size_t pend = (size_t)-1, k = 0;

	out->n = 0;
	for (; *i < n; (*i)++) {
		const struct etmkit_elem *x = &e[*i];

		if (x->kind != etmkit_elem_insn_range &&
		    x->kind != etmkit_elem_branch_run)
			break;
		if (pend != (size_t)-1) {     /* where the branch went */
			out->v[pend].target = x->addr;
			out->v[pend].has_target = 1;
			pend = (size_t)-1;
		}
		if (x->kind == etmkit_elem_insn_range) {
			if (x->u.range.repeats)
				return -1;
			if (open && x->addr != next) {
				btraces_push(out, start, last, 0, 1);
				open = 0;
			}
			if (!open) {
				start = x->addr;
				open = 1;
			}
			last = x->u.range.end - x->size;
			next = x->u.range.end;
			if (btrace_taken(x)) {
				btraces_push(out, start, last, 1, 1);
				pend = out->n - 1;
				open = 0;
			}
			continue;
		}
		/* branch_run: its first run may go on from the open trace */
		{
			uint64_t runs = (uint64_t)x->u.brun.repeats + 1;
			uint64_t l = x->u.brun.end - x->size;
			struct btrace *t;

			if (open && x->addr == next) {
				t = btraces_push(out, start, l, 1, 1);
				t->target = x->u.brun.target;
				t->has_target = 1;
				runs--;
			} else if (open) {
				btraces_push(out, start, last, 0, 1);
			}
			open = 0;
			if (runs) {
				t = btraces_push(out, x->addr, l, 1, runs);
				t->target = x->u.brun.target;
				t->has_target = 1;
			}
		}
	}
	if (open)
		btraces_push(out, start, last, 0, 1);
	if (out->n)
		qsort(out->v, out->n, sizeof(out->v[0]), btrace_cmp);
	for (size_t j = 0; j < out->n; j++) {        /* merge */
		if (k && !btrace_cmp(&out->v[k - 1], &out->v[j]))
			out->v[k - 1].count += out->v[j].count;
		else
			out->v[k++] = out->v[j];
	}
	out->n = k;
	return 0;
}

/* Whether two segments' traces are the same, counts included. */
static inline int btraces_same(const struct btraces *a,
			       const struct btraces *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t j = 0; j < a->n; j++)
		if (btrace_cmp(&a->v[j], &b->v[j]) ||
		    a->v[j].count != b->v[j].count)
			return 0;
	return 1;
}

#endif
