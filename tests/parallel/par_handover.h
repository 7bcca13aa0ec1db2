/* Test support for the handover of a flow decoder's output queue
 * (etm3_flow_queue_at(), etm4_flow_queue_at(); par_proto queue_at and
 * queue_room), which the parallel decode uses to have a decoder write
 * straight into a piece's elements (src/parallel/par_piece.c), shared by
 * tests/unit/test_parallel*.c. Never prints except through @why. */
#ifndef ETMKIT_PAR_HANDOVER_H
#define ETMKIT_PAR_HANDOVER_H

#include <stddef.h>
#include <stdint.h>

#include "etmkit/parallel.h"

struct par_handover_counts {
	uint64_t batches;        /* batches taken */
	uint64_t moved;          /* handovers to a buffer of the test's */
	uint64_t held;           /* of those, with elements held back by
				    the decoder (moved along with it) */
};

/* Decode @buf[0..@n) with @cfg's protocol and flow configuration twice,
 * fed in the same chunks (their sizes drawn from @seed): once as the
 * flow API is used serially, and once with the decoder's queue moved
 * before every batch, as drawn from @seed: to its own array, to a new
 * buffer (the last one poisoned and freed), or on in place past what the
 * last batch delivered (as par_piece.c does). The second must deliver
 * the same elements (elem_same() with offsets) where its queue was put,
 * leave the elements delivered in a buffer of the test's as they were
 * while the decoder goes on, and have the same normalised state
 * (par_proto snap) after every chunk. 0, else -1 with the first
 * difference in @why (@nwhy bytes). Adds to *@counts (if not NULL). */
int par_check_handover(const struct etmkit_par_config *cfg,
		       const uint8_t *buf, size_t n, uint32_t seed,
		       struct par_handover_counts *counts, char *why,
		       size_t nwhy);

#endif
