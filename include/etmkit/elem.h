/* etmkit: execution elements, what flow decoders deliver.
 *
 * Layer: flow (src/flow/): the flow layer's output.
 *
 * A flow decoder (etm3_flow_* for ETMv3) turns a trace source's packets
 * and the program image into the sequence of what the core did: one
 * element per instruction, and elements for the events between them
 * (trace on, context, exceptions, timestamps, data transfers, gaps). The
 * elements are the same for every protocol. They carry numbers only: the
 * library formats no text.
 *
 * Every element has the input offset of the packet it came from, so a
 * listing of elements can be matched with a listing of packets.
 */
#ifndef ETMKIT_ELEM_H
#define ETMKIT_ELEM_H

#include "etmkit/common.h"

#ifdef __cplusplus
extern "C" {
#endif

enum etmkit_elem_kind {
	etmkit_elem_none = 0,
	etmkit_elem_insn,             /* one instruction */
	etmkit_elem_trace_on,         /* trace starts: the first after sync, or
					 a restart after a gap */
	etmkit_elem_context,          /* security state, Hyp, context ID or
					 VMID (set at trace on, then on change) */
	etmkit_elem_exception,        /* an exception was taken */
	etmkit_elem_exception_return, /* the previous instruction returned
					 from an exception */
	etmkit_elem_exception_entry,  /* ARMv7-M: exception entry (stacking)
					 begins */
	etmkit_elem_timestamp,
	etmkit_elem_cycle_count,      /* cycles not charged to an instruction:
					 the length of a trace gap */
	etmkit_elem_data,             /* a data transfer, or news about one */
	etmkit_elem_gap,              /* trace lost (u.loss.reason): after a
					 packet or transport loss nothing is
					 known until the next trace_on; after
					 no_address atoms, trace resumes at the
					 next branch address, context kept */
	etmkit_elem_no_image,         /* the image has no code at addr: the
					 trace is followed again from the next
					 address it gives */
	etmkit_elem_overflow,         /* the trace unit's FIFO overflowed:
					 trace was lost before the next
					 trace_on */
	etmkit_elem_trigger,          /* the trigger event */
	etmkit_elem_event,            /* ETMv4/ETE: events fired
					 (u.event.bits) */
	etmkit_elem_instrumentation,  /* ETE: a TRCIT instruction retired
					 (u.ite) */
	etmkit_elem_transaction,      /* ETE: transaction start, commit or
					 failure (u.txn.what) */
	etmkit_elem_ts_marker,        /* ETE: the element before was
					 timestamped; the value follows in a
					 timestamp element */
	etmkit_elem_q,                /* ETMv4/ETE Q element: u.q.count
					 instructions (0: unknown) were
					 executed from addr, path untraced;
					 execution goes on at u.q.target */
	etmkit_elem_insn_range,       /* u.range.count instructions run one
					 after another from addr to
					 u.range.end (exclusive) in isa: what
					 count insn elements would say, in one
					 element (ETM3_FLOW_RANGES,
					 ETM4_FLOW_RANGES): a block, the fast
					 path (blocks.h; etmkit_insn_iter
					 gives its insn elements) */
	etmkit_elem_branch_run,       /* ETM4_FLOW_TRACES: a taken-branch
					 trace the decoder counted (u.brun):
					 from addr, the target of a taken
					 branch, instructions one after
					 another through branches not taken
					 to the taken branch that ends at
					 u.brun.end, which went to
					 u.brun.target */
	etmkit_elem_kind_count
};

/* insn flags */
#define ETMKIT_INSN_EXEC      0x01u /* executed (an E atom, not canceled) */
#define ETMKIT_INSN_COND_FAIL 0x02u /* failed its condition (an N atom) */
#define ETMKIT_INSN_CANCEL    0x04u /* traced as executed, then canceled:
				       did not complete (ETMv3: the Cancel
				       bit of the branch packet after it,
				       normally an exception's) */
#define ETMKIT_INSN_IMPLIED   0x08u /* executed, implied by a packet rather
				       than traced by an atom (ETMv3 LSiP) */
#define ETMKIT_INSN_CYCLES    0x10u /* cycles is valid (cycle-accurate) */
#define ETMKIT_INSN_P0        0x20u /* ETMv4/ETE: a P0 instruction, the
				       last of its atom's range; with
				       COND_FAIL its atom was N (not taken) */

/* trace_on flags */
#define ETMKIT_TRACE_ON_CYCLES 0x01u /* cycles: length of the gap before */

/* context flags */
#define ETMKIT_CTX_CONTEXT_ID 0x01u /* context_id is traced */
#define ETMKIT_CTX_VMID       0x02u /* vmid is traced */

/* exception flags */
#define ETMKIT_EXC_RET_ADDR 0x01u /* ret_addr is known */
#define ETMKIT_EXC_CANCEL   0x02u /* exception: the instruction before was
				       canceled; exception_return: the
				       return was canceled (an exception
				       preempted its unstacking) */
#define ETMKIT_EXC_M_PROFILE 0x04u /* number is an ARMv7-M exception number
				      (IHI 0014Q Table 7-11, else 7-12) */
#define ETMKIT_EXC_LEGACY   0x08u /* deprecated ETMv3 form: number is the
				      3-bit code of etm3_legacy_exception_name() */
#define ETMKIT_EXC_RESUME   0x10u /* resume is traced (ARMv7-M) */

/* cycle_count flags */
#define ETMKIT_CC_UNKNOWN 0x01u /* the trace unit's cycle counter had
				   overflowed: the gap's length is unknown */
#define ETMKIT_CC_COMMIT  0x02u /* ETMv4/ETE: cycles between the commit
				   point of the instruction before and the
				   previous commit that carried a count
				   (seed 002 D4.3.7.1), not a gap */

/* context flags (ETMv4/ETE) */
#define ETMKIT_CTX_EL         0x04u /* el, aarch64 and sec are traced */

/* Security states (ETMv4/ETE context, from NSE:NS; seed 002 D4.3.6.3). */
enum etmkit_sec {
	etmkit_sec_secure = 0,
	etmkit_sec_nonsecure,
	etmkit_sec_root,
	etmkit_sec_realm
};

/* transaction kinds (ETE, seed 002 D4.3.11) */
enum etmkit_txn {
	etmkit_txn_start = 0,
	etmkit_txn_commit,
	etmkit_txn_fail   /* everything since the matching start, committed
			     instructions included, did not happen */
};

/* exception flags (ETMv4/ETE) */
#define ETMKIT_EXC_ETM4 0x20u /* number is an ETMv4/ETE exception type
				 (etm4_exception_name(), ete 0) */
#define ETMKIT_EXC_VECTOR 0x40u /* ETMv2: number is the ARM exception
				   vector's index read from the handler's
				   address (0 reset, 1 undefined, 2 SVC, 3
				   prefetch abort, 4 data abort, 6 IRQ, 7
				   FIQ; 0xFFFF: the address is no vector);
				   ETMv2 traces no exception number */

/* timestamp flags */
#define ETMKIT_TS_CLOCK_CHANGE 0x01u /* clock frequency changed since the
				        previous timestamp */

/* data flags */
#define ETMKIT_DATA_INSN      0x01u /* addr is the instruction that made
				       the transfer */
#define ETMKIT_DATA_ADDR      0x02u /* data_addr is traced */
#define ETMKIT_DATA_VALUE     0x04u /* value (size bytes) is traced */
#define ETMKIT_DATA_OOO       0x08u /* out-of-order value, matched to its
				       placeholder (u.data.tag) */
#define ETMKIT_DATA_BE        0x10u /* BE-8 transfer */
#define ETMKIT_DATA_STORE_FAILED 0x20u /* the store-exclusive before failed */
#define ETMKIT_DATA_SUPPRESSED 0x40u /* data trace was suppressed here: later
				        transfers are missing until it
				        resumes */

/* Why trace is lost (gap), or why there is no code (no_image). */
enum etmkit_loss {
	etmkit_loss_none = 0,
	etmkit_loss_packet,       /* gap: reserved or malformed packet */
	etmkit_loss_transport,    /* gap: a formatter frame was dropped */
	etmkit_loss_truncated,    /* gap: the trace ends inside a packet */
	etmkit_loss_no_address,   /* gap: atoms whose instructions cannot be
				     known (after an indirect branch whose
				     address never came) */
	etmkit_loss_unmapped,     /* no_image: no region holds the address */
	etmkit_loss_cut,          /* no_image: the instruction runs past the
				     end of the mapped bytes */
	etmkit_loss_misaligned,   /* no_image: the address is not aligned
				     for the instruction set (an A32 address
				     not a multiple of 4, a T32 one odd):
				     no instruction can be there */
	/* Trace lost between pieces of a ring buffer, as the recorder said
	 * (perf AUX record flags, digest perf-data.md 3.7; reported at an
	 * etmkit_session_break()): */
	etmkit_loss_aux_truncated, /* gap: the buffer filled up; trace after
				      the piece was lost (TRUNCATED) */
	etmkit_loss_aux_partial,   /* gap: the piece has holes (PARTIAL) */
	etmkit_loss_aux_collision, /* gap: the buffer wrapped; trace between
				      the wrap and the interrupt was lost
				      (COLLISION, TRBE) */
	etmkit_loss_aux_overwrite, /* gap: snapshot mode; trace before the
				      piece was overwritten (OVERWRITE) */
	etmkit_loss_aux_missing,   /* gap: the recorder announced a piece
				      whose bytes are not in the file */
	etmkit_loss_mismatch,      /* no_image: the image's code contradicts
				      the trace there (PTM: a waypoint
				      update whose address the walk could
				      reach only through a waypoint): not
				      what ran */
	etmkit_loss_count
};

/* trace_on reasons (for ETMv3 the I-sync reason, IHI 0014Q Table 7.21). */
enum etmkit_trace_on_reason {
	etmkit_on_periodic = 0,   /* first sync point met in running trace */
	etmkit_on_trace_enable,   /* tracing enabled (after a filtered gap) */
	etmkit_on_overflow,       /* restarted after a FIFO overflow */
	etmkit_on_debug_exit      /* restarted after debug state */
};

struct etmkit_elem {
	uint64_t offset;   /* input offset of the first byte of the packet
			      that produced it (insn: its atom's P-header) */
	uint64_t addr;     /* insn: its address; exception: the handler's
			      first instruction; no_image: the address;
			      trace_on: where execution resumes (if known);
			      data: the instruction (ETMKIT_DATA_INSN) */
	uint8_t kind;      /* enum etmkit_elem_kind */
	uint8_t isa;       /* enum etmkit_isa: insn; exception (handler);
			      trace_on; no_image */
	uint8_t size;      /* insn: bytes (saturated at 255); data: value
			      bytes (0, 1, 2, 4 or 8) */
	uint8_t flags;     /* the kind's ETMKIT_* flags */
	uint32_t cycles;   /* insn: cycles since the previous instruction
			      (ETMKIT_INSN_CYCLES); trace_on: gap length
			      (ETMKIT_TRACE_ON_CYCLES); cycle_count: gap
			      length unless ETMKIT_CC_UNKNOWN. Saturated:
			      0xFFFF0000 or more means at least that */
	union {
		struct {
			uint32_t opcode;     /* as insn_info.opcode */
			uint32_t class_flags;/* INSN_F_* of the instruction */
		} insn;
		struct {
			uint8_t reason;      /* enum etmkit_trace_on_reason */
		} trace_on;
		struct {
			uint32_t context_id;
			uint32_t vmid;
			uint8_t ns;          /* Non-secure */
			uint8_t hyp;         /* Hyp mode (ETMv3.5) */
			uint8_t el;          /* ETMKIT_CTX_EL: exception level */
			uint8_t aarch64;     /* ETMKIT_CTX_EL: AArch64 state */
			uint8_t sec;         /* ETMKIT_CTX_EL: enum etmkit_sec */
		} context;
		struct {
			uint64_t ret_addr;   /* preferred return address */
			uint16_t number;     /* exception number */
			uint8_t resume;      /* ETMKIT_EXC_RESUME */
		} exception;
		struct {
			uint64_t value;
		} timestamp;
		struct {
			uint64_t data_addr;
			uint64_t value;
			uint8_t tag;         /* ETMKIT_DATA_OOO: 1-3 */
			uint8_t half;        /* 64-bit out-of-order value in
						two packets: 1, 2 (0 if not) */
		} data;
		struct {
			uint8_t bits;        /* event: the events that fired */
		} event;
		struct {
			uint64_t value;      /* instrumentation: TRCIT operand */
			uint8_t el;          /* the EL it executed at */
		} ite;
		struct {
			uint8_t what;        /* enum etmkit_txn */
		} txn;
		struct {
			uint32_t opcode;     /* the last instruction's, as */
			uint32_t class_flags;/* u.insn's */
			uint64_t end;        /* the address after it */
			uint32_t count;      /* instructions, 1 or more */
			uint32_t repeats;    /* times the range ran again,
						with the same outcome: the
						element stands for repeats
						+ 1 runs (ETM4_FLOW_TALLY;
						otherwise 0) */
		} range;             /* insn_range: size and flags are the last
					instruction's; every other one was
					executed (ETMKIT_INSN_EXEC) */
		struct {
			uint32_t class_flags;/* the taken branch's INSN_F_* */
			uint32_t repeats;    /* runs beyond the first, each
						from addr to the same branch
						and target */
			uint64_t end;        /* the address after the branch
						(size: its bytes) */
			uint64_t target;     /* where it went */
		} brun;              /* branch_run: isa the instructions';
					flags ETMKIT_INSN_EXEC and
					ETMKIT_INSN_P0; offset the packet of
					the first run. No count: the
					decoder's stats have the
					instructions */
		struct {
			uint64_t target;     /* q: where execution goes on */
			uint32_t count;      /* q: instructions, 0 if unknown */
		} q;
		struct {
			uint8_t reason;      /* enum etmkit_loss */
			uint8_t space;       /* no_image: IMAGE_SPACE_* read */
			const char *why;     /* gap: what the decoder saw, a
						static string (may be NULL) */
		} loss;
	} u;
};

/* Names used in etmkit's output ("insn", "trace_on", ...): never NULL,
 * "invalid" out of range. */
const char *etmkit_elem_kind_name(unsigned kind);
const char *etmkit_loss_name(unsigned reason);   /* "packet_error", ... */
const char *etmkit_trace_on_reason_name(unsigned reason);
const char *etmkit_sec_name(unsigned sec);   /* "secure", "nonsecure", ... */
const char *etmkit_txn_name(unsigned what);  /* "start", "commit", "fail" */

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_ELEM_H */
