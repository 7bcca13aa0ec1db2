/* Test support: ETMv2 and ETMv1 cycles read back against the record they were
 * encoded from (test_etm2_enc, fuzz_encode). The cycles are decoded into
 * records by etm2_pkt_* and each record checked against the record item
 * by item: every instruction's status (executed or failed; a phantom
 * pair's branch taken or not), every TFO's address and context ID (a
 * periodic one standing for its instruction), every branch address (an
 * indirect or state-changing branch's target; a DW's the exception
 * handler), every data packet's value and address against the transfers
 * (A on the first; no partial address), load miss data matched by tag,
 * context IDs, and that the decoder's walk (the record's targets) meets
 * each instruction where the record has it unless a TFO or an exception
 * says otherwise; every exception shown (a DW branch address) unless
 * trace restarts at its handler; cycle-accurate, every instruction
 * status as many cycles after the status before as the record says
 * (docs/etmv2.md 7a's rule; a phantom pair's counts added up; not with
 * overflows). ETMv1 (docs/etmv2.md 7b): a BE whose address has reason
 * 1 to 3 is a restart at the record's next instruction (2: after the
 * lost ones), any other BE or BD an instruction (its address where the
 * record goes), ID/BD data one transfer each, a context ID after an
 * instruction's address that instruction's, and every status 3 cycles
 * at least after a BE or BD. No decoding error. Never prints. */
#ifndef ETMKIT_TS_ETM2_CHECK_H
#define ETMKIT_TS_ETM2_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "etmkit/etm2.h"
#include "ts_rec.h"

/* Cycles kept in memory: an encoder's sink (etm2_cycle_sink_fn, @ctx a
 * struct ts_cycles, zeroed to start; free c when done). Aborts when
 * memory runs out. */
struct ts_cycles {
	struct etm2_cycle *c;
	size_t n, cap;
};

int ts_cycles_sink(void *ctx, const struct etm2_cycle *c, size_t n);

struct ts_etm2_result {
	uint64_t insns;   /* instructions the decode showed */
	uint64_t lost;    /* instructions an overflow TFO skipped, and
			     those after the last restart */
};

/* Check @n cycles @c that an encoder under @cfg wrote for record @rc,
 * feeding the packet decoder @step cycles at a time (0: all at once).
 * With @overflow, a TFO of reason overflow skips the record's
 * instructions up to its address (the record's addresses must be unique
 * then: straight-line code); without it one is an error. Returns 0 (and
 * fills *@res when not NULL), or -1 with the reason in @why (@cap
 * bytes). */
int ts_etm2_check(const struct etm2_config *cfg, const struct etm2_cycle *c,
		  size_t n, size_t step, int overflow, const struct ts_rec *rc,
		  struct ts_etm2_result *res, char *why, size_t cap);

#endif
