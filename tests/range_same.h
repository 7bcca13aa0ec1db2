/* Whether a ranges decode (ETM3_FLOW_RANGES, ETM4_FLOW_RANGES: flow.h)
 * says what the per-instruction decode of the same input says: shared by
 * the unit tests and the fuzz targets. Each insn_range element is expanded
 * with the public iterator (include/etmkit/blocks.h, reading the image as
 * the decoder did, in the memory space of the last context element) and
 * must give the reference's u.range.count insn elements, field for field,
 * but for what blocks.h says a block cannot give back: the cycles of the
 * instructions before the last (the range's cycles are the sum of the
 * reference's, the last instruction carries it), and INSN_F_COND of the
 * instructions of an IT block the iterator entered with the IT state of
 * the range before. Every element of another kind is the reference's, in
 * order. */
#ifndef ETMKIT_TESTS_RANGE_SAME_H
#define ETMKIT_TESTS_RANGE_SAME_H

#include <stddef.h>
#include <stdint.h>

#include "elem_same.h"
#include "etmkit/blocks.h"
#include "etmkit/flow.h"
#include "etmkit/insn.h"

/* Cycle sums saturate here (ETMv3 W atoms: elem.h, etm3_flow.c). */
#define RANGE_SAME_CYCLE_CAP 0xFFFF0000u

struct range_diff {
	const char *why;  /* NULL: the same */
	size_t ref_at;    /* index of the reference element */
	size_t rng_at;    /* index of the ranges element */
	size_t it_carried;/* instructions whose INSN_F_COND came from an IT
			     instruction in the range before (blocks.h) */
};

/* The code the decoder read: @img, or from a context element on what
 * @image_for_context returns (as the decoder's hook of that name). */
struct range_images {
	const struct image *img;
	etmkit_image_for_context_fn image_for_context;
	void *image_ctx;
};

/* Expanded instruction @x against the reference's @q; @last: the range's
 * last; @carried: IT state came from the range before. */
static inline const char *range_insn_differs(const struct etmkit_elem *q,
					     const struct etmkit_elem *x,
					     const struct etmkit_elem *r,
					     int last, int carried,
					     size_t *it_carried)
{
	uint32_t cls = q->u.insn.class_flags;

	if (q->kind != etmkit_elem_insn || q->offset != x->offset ||
	    q->addr != x->addr || q->isa != x->isa || q->size != x->size ||
	    q->u.insn.opcode != x->u.insn.opcode)
		return "a range's instruction not the reference's (kind, "
		       "offset, address, isa, size or opcode)";
	if (carried && cls != x->u.insn.class_flags &&
	    (cls | INSN_F_COND) == x->u.insn.class_flags) {
		cls |= INSN_F_COND;
		(*it_carried)++;
	}
	if (cls != x->u.insn.class_flags)
		return "a range's instruction of another class than the "
		       "reference's";
	if (last)
		return q->flags != x->flags ? "the flags of the last "
		       "instruction not the range's" : NULL;
	if (q->flags != (ETMKIT_INSN_EXEC | (r->flags & ETMKIT_INSN_CYCLES)) ||
	    x->flags != ETMKIT_INSN_EXEC || x->cycles)
		return "an instruction inside a range not executed in the "
		       "reference";
	return NULL;
}

/* Compare ranges decode @rng (@nrng elements) with the reference @ref
 * (@nref), the code read from @im. @maximal: also require that no range
 * is continued by the next (one that ended executed, on no branch,
 * followed by a range of the same offset and isa where it ends).
 * Returns 0 and sets *@d (why NULL), or -1 with *@d saying where and
 * why. */
static inline int ranges_same_in(const struct etmkit_elem *ref, size_t nref,
				 const struct etmkit_elem *rng, size_t nrng,
				 const struct range_images *im, int maximal,
				 struct range_diff *d)
{
	struct etmkit_insn_iter it;
	struct etmkit_elem x[16];
	size_t i = 0;

	d->why = NULL;
	d->it_carried = 0;
	etmkit_insn_iter_init(&it, im->img, IMAGE_SPACE_ANY);
	for (size_t j = 0; j < nrng; j++) {
		const struct etmkit_elem *r = &rng[j];
		uint64_t cycles = 0;
		uint32_t cnt, k = 0, last_cycles = 0;
		int carried, n;

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
			if (r->kind == etmkit_elem_context) {
				etmkit_insn_iter_context(&it, r);
				if (im->image_for_context)
					etmkit_insn_iter_set_image(&it,
						im->image_for_context(
							im->image_ctx, r));
			}
			i++;
			continue;
		}
		cnt = r->u.range.count;
		if (!cnt || cnt > nref - i || r->u.range.repeats) {
			d->why = "a range of no instructions, of more than "
				 "the reference has, or of repeats";
			return -1;
		}
		if (etmkit_insn_iter_start(&it, r)) {
			d->why = "a range the iterator refuses";
			return -1;
		}
		carried = it.it_left != 0;
		while ((n = etmkit_insn_iter_next(&it, x, 16)) > 0) {
			for (int m = 0; m < n; m++, k++) {
				const struct etmkit_elem *q = &ref[i + k];

				d->ref_at = i + k;
				d->why = range_insn_differs(q, &x[m], r,
							    k + 1 == cnt,
							    carried && k < 4,
							    &d->it_carried);
				if (d->why)
					return -1;
				last_cycles = x[m].cycles;
				cycles += q->cycles;
				if (cycles > RANGE_SAME_CYCLE_CAP)
					cycles = RANGE_SAME_CYCLE_CAP;
			}
		}
		if (n != -etmkit_err_eos || k != cnt) {
			d->why = "the iterator cannot expand the range from "
				 "the image";
			return -1;
		}
		i += cnt;
		if (cycles != r->cycles || last_cycles != cycles) {
			d->why = "the range's cycles not the sum of its "
				 "instructions'";
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

/* ranges_same_in() with one image @img. */
static inline int ranges_same(const struct etmkit_elem *ref, size_t nref,
			      const struct etmkit_elem *rng, size_t nrng,
			      const struct image *img, int maximal,
			      struct range_diff *d)
{
	struct range_images im = { img, NULL, NULL };

	return ranges_same_in(ref, nref, rng, nrng, &im, maximal, d);
}

#endif
