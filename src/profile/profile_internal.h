/* The profile's state, shared by the aggregator (profile.c) and the
 * writers (autofdo.c). Internal to src/profile. */
#ifndef ETMKIT_PROFILE_INTERNAL_H
#define ETMKIT_PROFILE_INTERNAL_H

#include "etmkit/profile.h"
#include "count_map.h"

#define PROFILE_IDS 128

/* The instructions run since the last P0 or branch instruction, one
 * after another: what one OpenCSD instruction range element says. Built
 * from instruction elements (or ranges that do not end at a P0
 * instruction). */
struct profile_run {
	uint8_t open;
	uint64_t start, last, next; /* first, last instruction; after it */
	struct etmkit_elem el;     /* the element of the last one */
};

/* The last struct profile_where with an extent: addresses in
 * [lo, lo + span) are in binary bin at addr + delta (span 0: none). */
struct profile_memo {
	uint64_t lo, span, delta;
	size_t bin;
};

struct profile_id {
	struct profile_run run;
	struct profile_memo target; /* for branch targets outside memo */
	struct profile_memo memo;
};

struct profile {
	struct profile_config cfg;
	struct count_map ranges;   /* (bin, start, end) */
	struct count_map branches; /* (bin, from, to) */
	struct profile_id ids[PROFILE_IDS];
};

#endif
