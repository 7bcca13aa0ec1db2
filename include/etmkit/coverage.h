/* etmkit: code coverage counted from decoded trace: how many times each
 * instruction ran, and how each conditional instruction went, per binary
 * at the binaries' ELF virtual addresses (the addresses DWARF line tables
 * use, lines.h).
 *
 * Layer: profile (src/profile/), above flow: consumes elements.
 *
 *   struct coverage_config cfg;
 *   coverage_config_init(&cfg);
 *   cfg.resolve = my_resolve;  cfg.ctx = ...;   as for a profile
 *   struct coverage *c;
 *   coverage_alloc(&c, &cfg);
 *   coverage_conditions_traced(c, id, 1);     ETMv3 sources
 *   coverage_elem(c, id, e);                  every element (on_elem)
 *     (or coverage_elems(c, id, e, n);        a batch of them, on_elems)
 *   coverage_finish(c);
 *   coverage_max(c, bin, lo, hi);             a source line's count
 *   coverage_outcomes(c, bin, addr, &taken, &not_taken);
 *   coverage_free(c);
 *
 * What counts:
 * - an instruction ran once for each insn element at its address that was
 *   not canceled (ETMKIT_INSN_CANCEL: it did not complete), executed or
 *   failed its condition alike, and repeats + 1 times for each
 *   insn_range element holding it (ETM4_FLOW_TALLY);
 * - a conditional instruction (INSN_F_COND) has an outcome when the trace
 *   says it: an atom (ETMv4/ETE: the P0 instruction that ends a range or
 *   an insn element flagged ETMKIT_INSN_P0; E passed, taken for a branch,
 *   N failed, not taken), or, for a source that traces every
 *   instruction's condition (ETMv3: coverage_conditions_traced()), every
 *   insn element. T32 instructions made conditional by an IT block carry
 *   no condition of their own (insn.h) and are not counted.
 *
 * Memory grows with the distinct ranges of instructions and the
 * conditional instructions met, not with the length of the trace: ranges
 * are counted in a hash table, and turned into per-address counts by a
 * difference sweep at coverage_finish(). Nothing is allocated per
 * element once its range is known. Counts saturate at UINT64_MAX.
 */
#ifndef ETMKIT_COVERAGE_H
#define ETMKIT_COVERAGE_H

#include "etmkit/common.h"
#include "etmkit/elem.h"
#include "etmkit/profile.h" /* profile_resolve_fn, struct profile_where */

#ifdef __cplusplus
extern "C" {
#endif

struct coverage_config {
	size_t size;               /* sizeof(struct coverage_config) */
	profile_resolve_fn resolve; /* address -> binary, ELF address */
	void *ctx;                 /* for resolve */
};

void coverage_config_init(struct coverage_config *cfg);

struct coverage;

/* Returns 0 and sets *@c; -etmkit_err_invalid (NULL argument, bad size,
 * no resolve), -etmkit_err_nomem. */
int coverage_alloc(struct coverage **c, const struct coverage_config *cfg);
void coverage_free(struct coverage *c);

/* Trace ID @id (0-127) traces the condition of every instruction (ETMv3:
 * an atom per instruction, N when it failed): its conditional
 * instructions count outcomes from insn elements without
 * ETMKIT_INSN_P0. Returns 0 or -etmkit_err_invalid. */
int coverage_conditions_traced(struct coverage *c, uint8_t id, int on);

/* Count element @e of trace ID @id. Returns 0, -etmkit_err_nomem (a new
 * range or conditional instruction found no room; the rest is kept),
 * -etmkit_err_invalid (NULL argument, @id above 127),
 * -etmkit_err_unsupported (a branch_run element, ETM4_FLOW_TRACES: the
 * outcomes of its branches are not in it), or the resolver's error.
 * Addresses no binary holds are not counted. */
int coverage_elem(struct coverage *c, uint8_t id,
		  const struct etmkit_elem *e);

/* Count elements @e[0..@n-1] of trace ID @id in order (a session's
 * on_elems batch), with the arguments checked once: the same as
 * coverage_elem() on each element in turn, each counted whatever the one
 * before returned. Returns 0, the first error of an element (as
 * coverage_elem()), or -etmkit_err_invalid (NULL @c, NULL @e with @n > 0,
 * @id above 127: nothing counted). */
int coverage_elems(struct coverage *c, uint8_t id,
		   const struct etmkit_elem *e, size_t n);

/* Turn the ranges counted so far into per-address counts, for the
 * look-ups below (again after more elements). Returns 0,
 * -etmkit_err_nomem, -etmkit_err_invalid. */
int coverage_finish(struct coverage *c);

/* The largest number of times an instruction starting in [@lo, @hi) of
 * binary @bin ran (0: none ran), as of the last coverage_finish(). */
uint64_t coverage_max(const struct coverage *c, size_t bin, uint64_t lo,
		      uint64_t hi);

/* How the conditional instruction at ELF address @vaddr of binary @bin
 * went: *@pass times executed (a branch: taken), *@fail failed (not
 * taken). Returns 0, or -etmkit_err_not_found when no outcome of it was
 * traced (both 0), -etmkit_err_invalid. */
int coverage_outcomes(const struct coverage *c, size_t bin, uint64_t vaddr,
		      uint64_t *pass, uint64_t *fail);

/* Distinct ranges counted, and conditional instructions with outcomes. */
size_t coverage_range_count(const struct coverage *c);
size_t coverage_cond_count(const struct coverage *c);

/* Whether a count reached UINT64_MAX and stopped there. */
int coverage_saturated(const struct coverage *c);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_COVERAGE_H */
