/* Test support for the parallel decode of one source as its bytes come
 * (src/parallel/par_source.c, par_source_*), shared by
 * tests/unit/test_par_source.c and fuzz/fuzz_parallel.c: a script of feeds
 * (random sizes; with no offsets, with a base that jumps, with offsets
 * arrays, contiguous or not), flushes and commands (gap, reset, finish
 * then reset as the session's break does), drawn from a seed, run on a
 * par_source and on one serial flow decoder (fed the same, drained after
 * each feed and command): the elements must be the serial ones, every
 * field, and after every flush and command all of them so far, with the
 * statistics summed over the serial decoder's resets. Never prints
 * except through @why. */
#ifndef ETMKIT_PAR_SOURCE_CHECK_H
#define ETMKIT_PAR_SOURCE_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "etmkit/parallel.h"

struct par_script {
	uint64_t seed;       /* the feeds, offsets and commands */
	size_t chunk_bytes;  /* par_source_alloc()'s (0: the default) */
	size_t max_feed;     /* feeds of 1 to this many bytes (0: 4096) */
	unsigned cmd_every;  /* about one command or flush in so many
				operations (0: none; the end's finish only) */
	int offsets;         /* 0: no offsets array and a contiguous base;
				1: bases that jump now and then; 2: also
				offsets arrays (contiguous or not) */
	size_t fail_at;      /* 0, or the sink fails (-77) at its call
				number fail_at: every later call must
				return that, the sink never called again */
};

/* What the scripts did (over calls: counts add up). */
struct par_script_counts {
	uint64_t feeds, offset_feeds, jumps, flushes, gaps, resets, finishes;
	uint64_t elems, pieces, fallbacks, sink_failures;
};

/* Run @sc on @buf[0..@n) with @cfg (its jobs and piece_bytes as set).
 * 0 when the par_source delivered what the serial decoder did, else -1
 * with the first difference in @why (@nwhy bytes). */
int par_source_check(const struct etmkit_par_config *cfg, const uint8_t *buf,
		     size_t n, const struct par_script *sc,
		     struct par_script_counts *counts, char *why, size_t nwhy);

#endif
