/* Whether an ETMv2 ranges decode (ETM2_FLOW_RANGES) says what the
 * per-instruction decode of the same input says: shared by
 * test_etm2_flow and fuzz_etm2_flow. tests/range_same.h asks each range's
 * instructions to carry the range's offset, which ETMv2's do not (an
 * instruction's offset is its own status cycle, and a range spans
 * statuses), so here: every element of another kind is the reference's
 * (elem_same.h); each range stands for the next u.range.count insn
 * elements, the first at its offset and address, each the next after the
 * one before and at a later or equal cycle, all but the last executed,
 * the last's flags, size, opcode and class flags the range's, its cycles
 * their sum. */
#ifndef ETMKIT_TESTS_ETM2_RANGES_MATCH_H
#define ETMKIT_TESTS_ETM2_RANGES_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "elem_same.h"
#include "etmkit/elem.h"

/* NULL when @rng[0..nrng) matches @ref[0..nref), else why not (and
 * *@at the ranges element). */
static inline const char *etm2_ranges_match(const struct etmkit_elem *ref,
					    size_t nref,
					    const struct etmkit_elem *rng,
					    size_t nrng, size_t *at)
{
	size_t i = 0;

	for (size_t j = 0; j < nrng; j++) {
		const struct etmkit_elem *r = &rng[j];
		uint64_t cycles = 0, next = r->addr, off = r->offset;

		*at = j;
		if (i >= nref)
			return "more elements than the reference";
		if (r->kind != etmkit_elem_insn_range) {
			if (!elem_same(r, &ref[i], 1))
				return "an element not the reference's";
			i++;
			continue;
		}
		if (!r->u.range.count || r->u.range.count > nref - i)
			return "a range of more instructions than the "
			       "reference has";
		if (ref[i].offset != r->offset)
			return "a range not at its first instruction's offset";
		for (uint32_t k = 0; k < r->u.range.count; k++, i++) {
			const struct etmkit_elem *q = &ref[i];

			if (q->kind != etmkit_elem_insn || q->addr != next ||
			    q->isa != r->isa || q->offset < off)
				return "a range's instruction not the "
				       "reference's";
			if (k + 1 < r->u.range.count) {
				if (!(q->flags & ETMKIT_INSN_EXEC))
					return "a range through an "
					       "instruction not executed";
			} else if (q->flags != r->flags || q->size != r->size ||
				   q->u.insn.opcode != r->u.range.opcode ||
				   q->u.insn.class_flags !=
					   r->u.range.class_flags) {
				return "a range's last instruction not the "
				       "reference's";
			}
			off = q->offset;
			next = q->addr + q->size;
			cycles += q->cycles;
		}
		if (r->u.range.end != next || r->cycles != cycles)
			return "a range's end or cycles not its instructions'";
	}
	return i == nref ? NULL : "fewer elements than the reference";
}

#endif /* ETMKIT_TESTS_ETM2_RANGES_MATCH_H */
