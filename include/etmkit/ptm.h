/* etmkit: PTM (Program Flow Trace, PFTv1.0 and PFTv1.1) packet layer.
 *
 * Layer: packets (src/packets/ptm/).
 *
 * The Program Trace Macrocell of the Cortex-A9, A15 and A17 emits the
 * Program Flow Trace protocol (ARM IHI 0035B chapter 4; digest
 * spec/ptm.md). Unlike ETMv3 it traces waypoints (branches and other
 * instructions that may change the flow), not every instruction: an atom
 * says whether a waypoint passed its condition check, and a branch
 * address packet gives the target of an indirect branch or an exception.
 * The packet decoder turns the byte stream of one PTM trace source into
 * packets. It is configured from the trace unit's ETMCR, ETMIDR and
 * ETMCCER (ETMIDR[11:8] = 3 names PFT), searches for A-sync, then
 * decodes every packet, keeping the branch-address and timestamp
 * compression state later packets are decoded against.
 *
 * Use (as etm3.h's decoder):
 *   struct ptm_config cfg;
 *   ptm_config_init(&cfg);
 *   cfg.etmcr = ...; cfg.etmidr = ...; cfg.etmccer = ...;
 *   struct ptm_pkt_decoder *dec;
 *   ptm_pkt_alloc(&dec, &cfg);
 *   for each chunk of input:
 *     ptm_pkt_feed(dec, buf, n, offsets, base);
 *     while ((n = ptm_pkt_next(dec, pkts, 64)) > 0) use pkts[0..n-1];
 *   ptm_pkt_finish(dec);  then drain ptm_pkt_next() once more;
 *   ptm_pkt_free(dec);
 *
 * The decoder does not copy the fed buffer: every record must be drained
 * with ptm_pkt_next() before the buffer changes. A packet cut by the end of
 * a chunk is completed from the next chunk.
 */
#ifndef ETMKIT_PTM_H
#define ETMKIT_PTM_H

#include "etmkit/common.h"
#include "etmkit/exec.h" /* the encoder's input and sink */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Configuration ---------------------------------------------------- */

/* ETMCR bits that change how the stream parses or what it means (IHI 0035B
 * 3.16.1; digest ptm.md section 1). */
#define PTM_ETMCR_BRANCH_BROADCAST (1u << 8)  /* direct branches get
						 branch address packets */
#define PTM_ETMCR_CYCLE_ACCURATE   (1u << 12)
#define PTM_ETMCR_CID_SHIFT        14         /* ContextIDsize, 2 bits */
#define PTM_ETMCR_TIMESTAMP        (1u << 28)
#define PTM_ETMCR_RETURN_STACK     (1u << 29)
#define PTM_ETMCR_VMID             (1u << 30)
/* ETMCCER (IHI 0035B 3.16.29) */
#define PTM_ETMCCER_TIMESTAMP      (1u << 22) /* timestamps implemented */
#define PTM_ETMCCER_RETURN_STACK   (1u << 23) /* return stack implemented */
#define PTM_ETMCCER_DMB_WAYPOINT   (1u << 24) /* DMB/DSB are waypoints */
#define PTM_ETMCCER_VIRT_EXT       (1u << 26) /* Hyp bits present */
#define PTM_ETMCCER_TS_BINARY      (1u << 28) /* 0: Gray-coded timestamps */
#define PTM_ETMCCER_TS_64BIT       (1u << 29) /* 0: 48-bit timestamps */

/* Configuration flags. */
/* Stop at the first error instead of resynchronising: the error record is
 * delivered, then ptm_pkt_next() and ptm_pkt_feed() return
 * -etmkit_err_bad_packet until ptm_pkt_reset(). (A packet cut by the end
 * of the input, reported at ptm_pkt_finish(), does not stop anything.) */
#define PTM_CFG_STOP_ON_ERROR 0x4u

struct ptm_config {
	size_t size;      /* sizeof(struct ptm_config) */
	uint32_t etmcr;   /* ETM Control Register */
	uint32_t etmidr;  /* ETM ID Register: PFT version */
	uint32_t etmccer; /* Configuration Code Extension Register */
	uint32_t flags;   /* PTM_CFG_* */
};

/* Fill @cfg with zeros and set its size. */
void ptm_config_init(struct ptm_config *cfg);

/* What the registers say, decoded once (useful for printing). */
struct ptm_config_info {
	uint8_t major, minor;     /* PFTv1.minor (major is 1) */
	uint8_t cycle_accurate;
	uint8_t context_id_bytes; /* 0, 1, 2 or 4 */
	uint8_t branch_broadcast;
	uint8_t return_stack;     /* ETMCR[29] */
	uint8_t timestamps;       /* timestamp packets possible: ETMCCER[22]
				     or ETMCR[28] (ptm_config.c) */
	uint8_t ts_bits;          /* 48 or 64 (PFTv1.0: 48) */
	uint8_t ts_binary;        /* 0: Gray code (PFTv1.0: Gray) */
	uint8_t vmid;             /* VMID packets possible */
	uint8_t virt_ext;         /* Hyp bits present */
	uint8_t dmb_waypoint;     /* DMB/DSB are waypoints */
};

/* Decode @cfg. Returns 0, or -etmkit_err_bad_config if ETMIDR does not name
 * PFT (ETMIDR[11:8] = 3), -etmkit_err_invalid for NULL or a bad size. */
int ptm_config_decode(const struct ptm_config *cfg,
		      struct ptm_config_info *info);

/* Whether @etmidr names a PTM (PFT architecture, ETMIDR[11:8] = 3). */
int ptm_etmidr_is_ptm(uint32_t etmidr);

/* ---- Packets ----------------------------------------------------------- */

enum ptm_pkt_type {
	ptm_pkt_unsynced = 0, /* a run of bytes outside sync: not a packet */
	ptm_pkt_a_sync,
	ptm_pkt_i_sync,
	ptm_pkt_atom,
	ptm_pkt_branch_address,
	ptm_pkt_waypoint_update,
	ptm_pkt_trigger,
	ptm_pkt_context_id,
	ptm_pkt_vmid,
	ptm_pkt_timestamp,
	ptm_pkt_exception_return,
	ptm_pkt_ignore,
	ptm_pkt_reserved,
	ptm_pkt_type_count
};

/* The type's name as used in etmkit's JSON output ("atom", ...). */
const char *ptm_pkt_type_name(enum ptm_pkt_type type);

/* I-sync reason codes (IHI 0035B 4.5.2). */
enum ptm_reason {
	ptm_reason_periodic = 0,
	ptm_reason_trace_on = 1,
	ptm_reason_overflow = 2,
	ptm_reason_debug_exit = 3
};

/* Atoms of one atom packet (IHI 0035B 4.5.3): 1 to 5 without cycle-accurate
 * tracing, exactly one with it. */
struct ptm_atoms {
	uint8_t bits;       /* atom i (oldest first) is (bits >> i) & 1:
			       0 = E (passed its condition check), 1 = N */
	uint8_t count;      /* atoms in bits, 1 to 5 */
	uint8_t has_cycles; /* cycle-accurate: cycles follows the atom */
	uint32_t cycles;    /* cycle count (IHI 0035B 4.4) */
};

/* A branch address packet (IHI 0035B 4.5.4), or the address of a waypoint
 * update (4.5, has no exception or cycle count fields). */
struct ptm_branch {
	uint32_t addr;      /* full address after merging with the reference */
	uint32_t cycles;    /* if has_cycles */
	uint16_t exception; /* exception number (digest ptm.md 4.4 table);
			       0 = none */
	uint8_t addr_bits;  /* low address bits the packet carried */
	uint8_t addr_bytes; /* address bytes, 1 to 5 */
	uint8_t isa;        /* enum etmkit_isa after the branch */
	uint8_t isa_change; /* a 5th address byte set the isa */
	uint8_t exc_bytes;  /* exception information bytes, 0 to 2; in a
			       waypoint update 1 when the AltIS byte follows
			       a 5th address byte (ptm_pkt.c) */
	uint8_t ns;         /* Non-secure (exception byte 0) */
	uint8_t altis;      /* AltIS (exception byte 0) */
	uint8_t hyp;        /* Hyp (exception byte 1) */
	uint8_t has_cycles; /* cycle-accurate: a cycle count follows */
	uint8_t partial;    /* no I-sync since sync: the bits above addr_bits
			       are unknown */
};

struct ptm_isync {
	uint32_t addr;       /* the next instruction to execute */
	uint32_t context_id; /* if context_id_bytes */
	uint32_t cycles;     /* if has_cycles; from PFTv1.1 UNKNOWN for the
			       reasons overflow and debug_exit (IHI 0035B
			       4.4) */
	uint8_t context_id_bytes;
	uint8_t info;        /* the raw information byte */
	uint8_t reason;      /* enum ptm_reason */
	uint8_t isa;         /* enum etmkit_isa: arm, thumb or thumbee */
	uint8_t ns, hyp;
	uint8_t has_cycles;  /* cycle-accurate and reason not periodic */
};

struct ptm_timestamp {
	uint64_t value;       /* full timestamp after merging (binary) */
	uint32_t cycles;      /* if has_cycles */
	uint8_t bits;         /* low bits the packet carried */
	uint8_t clock_change; /* R bit: clock frequency changed */
	uint8_t has_cycles;
};

/* Largest packet in bytes whose raw bytes are kept: an I-sync with a
 * 5-byte cycle count and a 4-byte context ID (1 + 4 + 1 + 5 + 4 = 15), or
 * a 64-bit timestamp with a 5-byte cycle count (1 + 9 + 5 = 15). */
#define PTM_PKT_MAX_BYTES 16

struct ptm_packet {
	uint64_t offset;  /* input offset of the first byte */
	uint8_t type;     /* enum ptm_pkt_type */
	uint8_t size;     /* bytes stored in raw: min(length, PTM_PKT_MAX_BYTES) */
	int16_t error;    /* 0, or a negated etmkit_error: the packet is
			     reserved, malformed or truncated, and the decoder
			     has dropped sync */
	uint32_t length;  /* bytes in the packet, or in the unsynced run */
	union {
		struct ptm_atoms atoms;         /* atom */
		struct ptm_isync isync;         /* i_sync */
		struct ptm_branch branch;       /* branch_address,
						   waypoint_update */
		uint32_t context_id;            /* context_id */
		uint8_t vmid;                   /* vmid */
		struct ptm_timestamp timestamp; /* timestamp */
	} u;
	/* The packet's bytes as the trace unit emitted them; an a_sync longer
	 * than the array is (length - 1) zeros and 0x80. */
	uint8_t raw[PTM_PKT_MAX_BYTES];
	const char *why;  /* meaningful only if error: what was wrong, a static
			     string */
};

/* ---- Decoder ------------------------------------------------------------ */

struct ptm_pkt_decoder;

/* Allocate a decoder for @cfg. Returns 0 and sets *@dec, or
 * -etmkit_err_invalid (NULL argument, bad cfg->size),
 * -etmkit_err_bad_config (ETMIDR is not PFT), -etmkit_err_nomem. */
int ptm_pkt_alloc(struct ptm_pkt_decoder **dec, const struct ptm_config *cfg);
void ptm_pkt_free(struct ptm_pkt_decoder *dec);

/* Make @buf[0..n) the decoder's input. Byte i sits at input offset
 * offsets[i], or at base + i if @offsets is NULL. The buffer (and offsets)
 * must stay valid until ptm_pkt_next() returns -etmkit_err_eos.
 * Returns 0, -etmkit_err_invalid (NULL arguments, or input left undrained),
 * or -etmkit_err_bad_packet when stopped (PTM_CFG_STOP_ON_ERROR). */
int ptm_pkt_feed(struct ptm_pkt_decoder *dec, const uint8_t *buf, size_t n,
		 const uint64_t *offsets, uint64_t base);

/* Declare the end of input: a packet cut short becomes a record with
 * error -etmkit_err_truncated, an open unsynced run is closed. Drain with
 * ptm_pkt_next(). Returns 0 or -etmkit_err_invalid. */
int ptm_pkt_finish(struct ptm_pkt_decoder *dec);

/* Decode up to @max records into @pkts. Returns how many (>= 1), or
 * -etmkit_err_eos when the input fed so far is used up, or
 * -etmkit_err_invalid, or (PTM_CFG_STOP_ON_ERROR) -etmkit_err_bad_packet
 * after an error record. Records with a non-zero error are reported, then
 * the decoder searches for the next A-sync. */
int ptm_pkt_next(struct ptm_pkt_decoder *dec, struct ptm_packet *pkts,
		 size_t max);

/* The input is discontinuous here: data was lost between the bytes fed so
 * far and those fed next (a dropped formatter frame). Call it with the
 * input drained. The next ptm_pkt_next() reports a packet cut by the loss
 * (error -etmkit_err_bad_frame), and the decoder drops sync and every
 * compression reference, as after an error. Returns 0, or
 * -etmkit_err_invalid (NULL, or input left undrained). */
int ptm_pkt_gap(struct ptm_pkt_decoder *dec);

/* Drop sync and all compression state (as after alloc). */
void ptm_pkt_reset(struct ptm_pkt_decoder *dec);

/* Whether the decoder has seen A-sync and not lost it since. */
int ptm_pkt_synced(const struct ptm_pkt_decoder *dec);

/* ---- Names -------------------------------------------------------------- */

/* Exception name for @number (digest ptm.md 4.4, IHI 0035B Table 5.6),
 * as etm3_exception_name() names the ARMv7-A/R table but for 5:
 * "none", "halting_debug", "secure_monitor_call", "hyp_trap",
 * "async_data_abort", "thumbee_check_fail", "reserved_6", "reserved_7",
 * "reset", "undefined_instruction", "svc", "prefetch_abort",
 * "data_abort", "generic", "irq", "fiq"; "invalid" beyond. Never NULL. */
const char *ptm_exception_name(unsigned number);

/* "periodic", "trace_on", "overflow", "debug_exit". */
const char *ptm_reason_name(unsigned reason);

/* The atoms as letters, oldest first, e.g. "EENEE". @buf needs 6 bytes. */
char *ptm_atoms_string(const struct ptm_atoms *atoms, char *buf);

/* ---- PTM trace encoder ----------------------------------------------------
 *
 * The inverse of the decoders: execution record items (exec.h) in, the
 * raw (unformatted) byte stream a PTM configured with the given registers
 * would emit for them out, so that a decode of it can be checked against
 * the record exactly (IHI 0035B chapter 4; digest ptm.md).
 *
 * Use (as etm3.h's encoder):
 *   struct ptm_enc_config cfg;
 *   ptm_enc_config_init(&cfg);
 *   cfg.etmcr = ...; cfg.etmidr = ...; cfg.etmccer = ...;
 *   struct ptm_enc *enc;
 *   ptm_enc_alloc(&enc, &cfg, sink, sink_ctx);
 *   for each item r: ptm_enc_put(enc, &r);
 *   ptm_enc_finish(enc);
 *   ptm_enc_free(enc);
 *
 * What is emitted: A-sync and an I-sync (tracing enabled, with the gap's
 * cycle count in cycle-accurate mode) before the first instruction and an
 * I-sync after each gap; an A-sync and a periodic I-sync once sync_period
 * bytes have gone by. Waypoints (branches, ISB, and DMB and DSB with
 * ETMCCER[24]; 4.3) get
 * an atom each, E or N, packed 1-5 to a byte, oldest in the highest bit
 * (4.5.3), or in cycle-accurate mode one atom per packet with the cycles
 * since the last count (the record's EXEC_F_CYCLES, else 1 per
 * instruction). A taken branch gets a branch address packet instead,
 * which stands for its E atom (4.5.4), when it is indirect, when branch
 * broadcast is on (ETMCR[8]), and when it changes the instruction set;
 * the address is compressed against the last address the decoder knows,
 * with exception information bytes (exception 0) when NS, Hyp or AltIS
 * change. With the return stack on (ETMCR[29]) a return (insn.h's
 * INSN_F_RETURN, indirect, no link) to the address and instruction set on
 * top of the model stack gets its E atom only; the model pushes the
 * return address of every taken branch with link, pops on such a return,
 * and is emptied at every I-sync, exception and gap: what it holds is
 * always the top of what a decoder that pushes and pops as it does, and
 * empties its stack at I-sync only, holds. An exception taken is a branch
 * address packet with exception information to its handler's first
 * instruction, after a waypoint update to the last instruction executed
 * when that was no waypoint; so is the end of the trace before a gap or
 * at finish, and a context ID, VMID or timestamp packet (whose values
 * apply from the next instruction on). Exception return packets (PFTv1.1)
 * follow the waypoint of an executed exception return.
 *
 * Refused: Jazelle and A64 code (I-sync cannot state Jazelle, 4.5.2).
 *
 * Output is buffered (64 KiB) and handed to the sink when the buffer is
 * full and at ptm_enc_finish(); memory is fixed at allocation.
 */

struct ptm_enc_config {
	size_t size;          /* sizeof(struct ptm_enc_config) */
	uint32_t etmcr;       /* ETM Control Register (as struct ptm_config) */
	uint32_t etmidr;      /* ETM ID Register: PFT version */
	uint32_t etmccer;     /* Configuration Code Extension Register */
	uint32_t flags;       /* none yet: 0 */
	uint32_t sync_period; /* bytes between periodic A-sync + I-sync; 0:
				 1024 */
};

/* Fill @cfg with zeros and set its size. */
void ptm_enc_config_init(struct ptm_enc_config *cfg);

struct ptm_enc;

/* Allocate an encoder writing to @sink with @sink_ctx. Returns 0 and sets
 * *@out, or -etmkit_err_invalid (NULL argument, bad cfg->size, flags),
 * -etmkit_err_bad_config (ETMIDR is not PFT), -etmkit_err_nomem. What ETMCR enables is encoded as
 * ptm_config_decode() reads it, whatever ETMCCER says (Snowball's PTM
 * 1.0 traces timestamps with ETMCCER[22] clear). */
int ptm_enc_alloc(struct ptm_enc **out, const struct ptm_enc_config *cfg,
		  exec_sink_fn sink, void *sink_ctx);
void ptm_enc_free(struct ptm_enc *enc);

/* Encode one record item. Returns 0; -etmkit_err_invalid (NULL, unknown
 * kind or exception, an address beyond 32 bits, a size of 0, called after
 * finish); -etmkit_err_unsupported (an instruction set PTM cannot trace:
 * A64, Jazelle); an error the sink returned, which stops the encoder:
 * every later call returns it. Data items are ignored (PTM has no data
 * trace). A refused item changes nothing. */
int ptm_enc_put(struct ptm_enc *enc, const struct exec_rec *r);

/* Emit what is pending (the atoms, the last branch address, a waypoint
 * update to the last instruction) and hand the rest of the buffer to the
 * sink. Returns 0, -etmkit_err_invalid, or the sink's error. */
int ptm_enc_finish(struct ptm_enc *enc);

/* Bytes emitted so far (handed to the sink or buffered). 0 for NULL. */
uint64_t ptm_enc_offset(const struct ptm_enc *enc);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_PTM_H */
