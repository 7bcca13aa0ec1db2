/* A coverage's counts as they are kept (coverage.c), for the partial
 * profiles (profile_part.c) that copy them out and back in. Internal to
 * src/profile. */
#ifndef ETMKIT_COVERAGE_INTERNAL_H
#define ETMKIT_COVERAGE_INTERNAL_H

#include "etmkit/coverage.h"
#include "count_map.h"

/* The ranges (bin, start, end exclusive) -> runs and the conditional
 * instructions (bin, addr, 0) -> count = outcomes, aux_count = passed,
 * at ELF addresses. After adding to them, coverage_finish() makes the
 * per-address counts again. */
void coverage_counts(const struct coverage *c, const struct count_map **ranges,
		     const struct count_map **conds);
void coverage_counts_mut(struct coverage *c, struct count_map **ranges,
			 struct count_map **conds);

/* Whether a run of instructions is being built (coverage_finish() not
 * called after the last element). */
int coverage_runs_open(const struct coverage *c);

#endif
