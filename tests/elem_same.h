/* Whether two elements mean the same (padding and union bytes the kind
 * does not use aside): shared by the unit tests and the fuzz targets. */
#ifndef ETMKIT_TESTS_ELEM_SAME_H
#define ETMKIT_TESTS_ELEM_SAME_H

#include <stddef.h>
#include <string.h>

#include "etmkit/elem.h"

/* 1 if @a and @b are the same element; the input offset compared only if
 * @with_offset. */
static inline int elem_same(const struct etmkit_elem *a,
			    const struct etmkit_elem *b, int with_offset)
{
	if (a->kind != b->kind || (with_offset && a->offset != b->offset) ||
	    a->addr != b->addr || a->isa != b->isa || a->size != b->size ||
	    a->flags != b->flags || a->cycles != b->cycles)
		return 0;
	switch (a->kind) {
	case etmkit_elem_insn:
		return a->u.insn.opcode == b->u.insn.opcode &&
		       a->u.insn.class_flags == b->u.insn.class_flags;
	case etmkit_elem_trace_on:
		return a->u.trace_on.reason == b->u.trace_on.reason;
	case etmkit_elem_context:
		return !memcmp(&a->u.context, &b->u.context,
			       offsetof(struct etmkit_elem, u.context.hyp) -
				       offsetof(struct etmkit_elem, u.context) + 1);
	case etmkit_elem_exception:
		return a->u.exception.ret_addr == b->u.exception.ret_addr &&
		       a->u.exception.number == b->u.exception.number &&
		       a->u.exception.resume == b->u.exception.resume;
	case etmkit_elem_timestamp:
		return a->u.timestamp.value == b->u.timestamp.value;
	case etmkit_elem_data:
		return a->u.data.data_addr == b->u.data.data_addr &&
		       a->u.data.value == b->u.data.value &&
		       a->u.data.tag == b->u.data.tag &&
		       a->u.data.half == b->u.data.half;
	case etmkit_elem_gap:
	case etmkit_elem_no_image:
		return a->u.loss.reason == b->u.loss.reason &&
		       a->u.loss.space == b->u.loss.space;
	case etmkit_elem_insn_range:
		return a->u.range.opcode == b->u.range.opcode &&
		       a->u.range.class_flags == b->u.range.class_flags &&
		       a->u.range.end == b->u.range.end &&
		       a->u.range.count == b->u.range.count &&
		       a->u.range.repeats == b->u.range.repeats;
	case etmkit_elem_branch_run:
		return a->u.brun.class_flags == b->u.brun.class_flags &&
		       a->u.brun.repeats == b->u.brun.repeats &&
		       a->u.brun.end == b->u.brun.end &&
		       a->u.brun.target == b->u.brun.target;
	default:
		return 1;
	}
}

#endif
