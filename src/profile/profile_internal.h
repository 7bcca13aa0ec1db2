/* The profile's state, shared by the aggregator (profile.c) and the
 * writers (autofdo.c). Internal to src/profile. */
#ifndef ETMKIT_PROFILE_INTERNAL_H
#define ETMKIT_PROFILE_INTERNAL_H

#include "etmkit/profile.h"
#include "count_map.h"

#define PROFILE_IDS 128

/* The instructions run since the last P0 or branch instruction, one
 * after another: what one OpenCSD instruction range element says. */
struct profile_run {
	uint8_t open;
	uint8_t isa, size, flags;  /* the last instruction's */
	uint32_t opcode, class_flags;
	uint64_t start, last, next; /* first, last instruction; after it */
};

/* A range waiting for the start of the next one (simpleperf keeps one
 * per trace ID: a taken direct branch's target is the next range's
 * start). */
struct profile_pending {
	uint8_t open;
	uint8_t taken;             /* ends with a taken branch */
	uint8_t fix_target;        /* direct: target = next range's start */
	size_t bin;
	uint64_t start, end, target; /* ELF vaddrs */
	/* fix_target: the branch, to decode its target only when a flush
	 * comes before the next range (rare): run-time start, last
	 * instruction */
	struct profile_run branch;
};

/* The last struct profile_where with an extent: addresses in [lo, hi)
 * are in binary bin at addr + delta. */
struct profile_memo {
	uint8_t valid;
	size_t bin;
	uint64_t lo, hi, delta;
};

struct profile_id {
	struct profile_run run;
	struct profile_pending pend;
	struct profile_memo memo;
};

struct profile {
	struct profile_config cfg;
	struct count_map ranges;   /* (bin, start, end) */
	struct count_map branches; /* (bin, from, to) */
	struct profile_id ids[PROFILE_IDS];
};

#endif
