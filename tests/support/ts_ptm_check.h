/* Test support: a PTM trace read back against the record it was encoded
 * from (test_ptm_enc, fuzz_encode). The trace is decoded into packets by
 * ptm_pkt_* and each packet checked against the record item by item:
 * each waypoint's atom (E or N) or the branch address packet that stands
 * for it with the target's full address and instruction set, each
 * exception's packet with its number, handler and NS, I-syncs where the
 * record jumps, waypoint updates to the last instruction executed,
 * context ID, VMID and timestamps as the record has them, and in
 * cycle-accurate mode every cycle count the sum of the record's cycles
 * since the one before. The packet decoder knows nothing of the record:
 * the compression and every field are checked. Never prints; aborts when
 * memory runs out. */
#ifndef ETMKIT_TS_PTM_CHECK_H
#define ETMKIT_TS_PTM_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "etmkit/image.h"
#include "etmkit/ptm.h"
#include "ts_rec.h"

/* Check the @n bytes @b that a PTM with the registers of @enc encoded
 * from the record @rc (items 0..rc->n-1, which the encoder all took),
 * feeding the packet decoder @step bytes at a time (0: all at once). A
 * record's waypoints are its branches (EXEC_F_BRANCH) and ISBs. With the
 * return stack (ETMCR[29]) a taken indirect branch may come as its E atom
 * alone when the return stack a decoder keeps (16 deep, pushed by each
 * taken branch with link, emptied at each I-sync) pops its target. Returns 0, or -1 with the reason in @why
 * (@cap bytes). */
int ts_ptm_check(const struct ptm_enc_config *enc, const uint8_t *b,
		 size_t n, size_t step, const struct ts_rec *rc, char *why,
		 size_t cap);

/* Decode the same bytes with the flow decoder (ptm_flow_*, instruction
 * elements) over @img, fed @step bytes at a time (0: all at once), and
 * compare with @rc: its instructions one for one (address, size,
 * instruction set; ETMKIT_INSN_COND_FAIL for a waypoint that did not
 * execute, ETMKIT_INSN_EXEC for every other), its exceptions whose
 * handler was traced in order (number, handler), in cycle-accurate mode
 * each count (a waypoint's, or a cycle_count element's: an exception's or
 * a timestamp's) the record's cycles since the one before; no gap,
 * no_image or overflow element. Returns 0, or -1 with the reason in @why. */
int ts_ptm_flow_check(const struct ptm_enc_config *enc,
		      const struct image *img, const uint8_t *b, size_t n,
		      size_t step, const struct ts_rec *rc, char *why,
		      size_t cap);

#endif
