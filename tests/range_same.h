/* Whether a ranges decode (ETM3_FLOW_RANGES, ETM4_FLOW_RANGES: flow.h)
 * says what the per-instruction decode of the same input says: shared by
 * the unit tests and the fuzz targets. Each insn_range element stands for
 * u.range.count insn elements of the reference, one after another in
 * memory from addr to u.range.end, of the range's packet offset and isa,
 * every one but the last flagged executed (with the last one's
 * ETMKIT_INSN_CYCLES), the last with the range's flags, size, opcode and
 * class; a range's cycles are the sum of its instructions' (elem.h,
 * flow.h). Every element of another kind is the reference's, in order. */
#ifndef ETMKIT_TESTS_RANGE_SAME_H
#define ETMKIT_TESTS_RANGE_SAME_H

#include <stddef.h>
#include <stdint.h>

#include "elem_same.h"
#include "etmkit/insn.h"

/* Cycle sums saturate here (ETMv3 W atoms: elem.h, etm3_flow.c). */
#define RANGE_SAME_CYCLE_CAP 0xFFFF0000u

struct range_diff {
	const char *why;  /* NULL: the same */
	size_t ref_at;    /* index of the reference element */
	size_t rng_at;    /* index of the ranges element */
};

/* Compare ranges decode @rng (@nrng elements) with the reference @ref
 * (@nref). @maximal: also require that no range is continued by the next
 * (one that ended executed, on no branch, followed by a range of the same
 * offset and isa where it ends). Returns 0 and clears *@d, or -1 with
 * *@d saying where and why. */
static inline int ranges_same(const struct etmkit_elem *ref, size_t nref,
			      const struct etmkit_elem *rng, size_t nrng,
			      int maximal, struct range_diff *d)
{
	size_t i = 0;

	d->why = NULL;
	for (size_t j = 0; j < nrng; j++) {
		const struct etmkit_elem *r = &rng[j];
		uint64_t cycles = 0;
		uint32_t cnt;

		d->ref_at = i;
		d->rng_at = j;
		if (r->kind == etmkit_elem_insn) {
			d->why = "an insn element in the ranges decode";
			return -1;
		}
		if (r->kind != etmkit_elem_insn_range) {
			if (i == nref || !elem_same(&ref[i], r, 1)) {
				d->why = "not the reference's element";
				return -1;
			}
			i++;
			continue;
		}
		cnt = r->u.range.count;
		if (!cnt || cnt > nref - i) {
			d->why = "a range of no instructions, or of more than "
				 "the reference has";
			return -1;
		}
		for (uint32_t k = 0; k < cnt; k++) {
			const struct etmkit_elem *q = &ref[i + k];

			d->ref_at = i + k;
			if (q->kind != etmkit_elem_insn ||
			    q->offset != r->offset || q->isa != r->isa) {
				d->why = "a range where the reference has "
					 "another element, offset or isa";
				return -1;
			}
			if (q->addr != (k ? q[-1].addr + q[-1].size : r->addr)) {
				d->why = "an instruction not where the one "
					 "before it in the range ended";
				return -1;
			}
			if (k + 1 < cnt &&
			    q->flags != (ETMKIT_INSN_EXEC |
					 (r->flags & ETMKIT_INSN_CYCLES))) {
				d->why = "an instruction inside a range not "
					 "executed in the reference";
				return -1;
			}
			cycles += q->cycles;
			if (cycles > RANGE_SAME_CYCLE_CAP)
				cycles = RANGE_SAME_CYCLE_CAP;
		}
		i += cnt;
		if (ref[i - 1].flags != r->flags ||
		    ref[i - 1].size != r->size ||
		    ref[i - 1].u.insn.opcode != r->u.range.opcode ||
		    ref[i - 1].u.insn.class_flags != r->u.range.class_flags ||
		    ref[i - 1].addr + ref[i - 1].size != r->u.range.end ||
		    cycles != r->cycles || r->u.range.repeats) {
			d->why = "flags, size, opcode, class, end or cycles of "
				 "the last instruction not the range's";
			return -1;
		}
		if (maximal && j + 1 < nrng &&
		    (r->flags & ~ETMKIT_INSN_CYCLES) == ETMKIT_INSN_EXEC &&
		    !(r->u.range.class_flags &
		      (INSN_F_BRANCH | INSN_F_ISA_SWITCH)) &&
		    r[1].kind == etmkit_elem_insn_range &&
		    r[1].offset == r->offset && r[1].isa == r->isa &&
		    r[1].addr == r->u.range.end) {
			d->why = "a range continued by the next one (they "
				 "should be one)";
			return -1;
		}
	}
	d->ref_at = i;
	if (i != nref) {
		d->why = "fewer elements than the reference's";
		return -1;
	}
	return 0;
}

#endif
