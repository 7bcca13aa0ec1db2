/* etmkit: ETMv3 (ETMv3.0 to ETMv3.5) packet layer.
 *
 * Layer: packets (src/packets/etmv3/); its encoder section (etm3_enc_*)
 * is the encode layer (src/encode/).
 *
 * The ETMv3 packet decoder turns the byte stream of one ETMv3 trace source
 * into packets (ARM IHI 0014Q chapter 7). It is configured from the trace
 * unit's ETMCR, ETMIDR and ETMCCER registers, searches for A-sync, then
 * decodes every packet, keeping the branch-address, data-address, context
 * and timestamp compression state that later packets are decoded against.
 *
 * Use:
 *   struct etm3_config cfg;
 *   etm3_config_init(&cfg);
 *   cfg.etmcr = ...; cfg.etmidr = ...; cfg.etmccer = ...;
 *   struct etm3_pkt_decoder *dec;
 *   etm3_pkt_alloc(&dec, &cfg);
 *   for each chunk of input:
 *     etm3_pkt_feed(dec, buf, n, offsets, base);
 *     while ((n = etm3_pkt_next(dec, pkts, 64)) > 0) use pkts[0..n-1];
 *   etm3_pkt_finish(dec);  then drain etm3_pkt_next() once more;
 *   etm3_pkt_free(dec);
 *
 * The decoder does not copy the fed buffer: every record must be drained
 * with etm3_pkt_next() before the buffer changes. A packet cut by the end of
 * a chunk is completed from the next chunk.
 */
#ifndef ETMKIT_ETM3_H
#define ETMKIT_ETM3_H

#include "etmkit/common.h"
#include "etmkit/exec.h" /* the encoder's input and sink */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Configuration ---------------------------------------------------- */

/* ETMCR bits that change how the stream parses (IHI 0014Q 3.5.1). */
#define ETM3_ETMCR_DATA_VALUE      (1u << 2)  /* data values traced */
#define ETM3_ETMCR_DATA_ADDR       (1u << 3)  /* data addresses traced */
#define ETM3_ETMCR_BRANCH_OUTPUT   (1u << 8)  /* every branch gets a packet */
#define ETM3_ETMCR_CYCLE_ACCURATE  (1u << 12)
#define ETM3_ETMCR_CID_SHIFT       14         /* ContextIDsize, 2 bits */
#define ETM3_ETMCR_DATA_ONLY       (1u << 20)
#define ETM3_ETMCR_TIMESTAMP       (1u << 28)
#define ETM3_ETMCR_VMID            (1u << 30)
/* ETMIDR */
#define ETM3_ETMIDR_ALT_BRANCH     (1u << 20) /* alternative branch encoding */
/* ETMCCER (IHI 0014Q 3.5.41) */
#define ETM3_ETMCCER_TIMESTAMP     (1u << 22)
#define ETM3_ETMCCER_VIRT_EXT      (1u << 26) /* Hyp bits present */
#define ETM3_ETMCCER_TS_BINARY     (1u << 28) /* 0: Gray-coded timestamps */
#define ETM3_ETMCCER_TS_64BIT      (1u << 29) /* 0: 48-bit timestamps */

/* Configuration flags. */
#define ETM3_CFG_M_PROFILE 0x1u /* ARMv7-M core: 9-bit exception numbers */
/* Deliver each run of consecutive P-headers as one etm3_pkt_p_header_run
 * record instead of one p_header record per header: the form a consumer of
 * atoms in bulk (the element layer) wants, several times cheaper per
 * header. */
#define ETM3_CFG_P_HEADER_RUNS 0x2u
/* Stop at the first error instead of resynchronising: the error record is
 * delivered, then etm3_pkt_next() and etm3_pkt_feed() return
 * -etmkit_err_bad_packet until etm3_pkt_reset(). (A packet cut by the end
 * of the input, reported at etm3_pkt_finish(), does not stop anything.) */
#define ETM3_CFG_STOP_ON_ERROR 0x4u

struct etm3_config {
	size_t size;      /* sizeof(struct etm3_config) */
	uint32_t etmcr;   /* ETM Control Register */
	uint32_t etmidr;  /* ETM ID Register: version, branch encoding */
	uint32_t etmccer; /* Configuration Code Extension Register */
	uint32_t flags;   /* ETM3_CFG_* */
};

/* Fill @cfg with zeros and set its size. */
void etm3_config_init(struct etm3_config *cfg);

/* What the registers say, decoded once (useful for printing). */
struct etm3_config_info {
	uint8_t major, minor;     /* ETMv3.minor (major is 3) */
	uint8_t cycle_accurate;
	uint8_t context_id_bytes; /* 0, 1, 2 or 4 */
	uint8_t data_addr, data_value, data_only;
	uint8_t alt_branch;       /* alternative branch address encoding */
	uint8_t timestamps;       /* timestamp packets possible */
	uint8_t ts_bits;          /* 48 or 64 */
	uint8_t ts_binary;        /* 0: Gray code */
	uint8_t virt_ext;         /* Hyp bits present */
	uint8_t m_profile;        /* ETM3_CFG_M_PROFILE: ARMv7-M core */
};

/* Decode @cfg. Returns 0, or -etmkit_err_bad_config if ETMIDR does not name
 * ETMv3 (major field 2), -etmkit_err_invalid for NULL or a bad size. */
int etm3_config_decode(const struct etm3_config *cfg,
		       struct etm3_config_info *info);

/* ---- Packets ----------------------------------------------------------- */

enum etm3_pkt_type {
	etm3_pkt_unsynced = 0, /* a run of bytes outside sync: not a packet */
	etm3_pkt_a_sync,
	etm3_pkt_p_header,
	etm3_pkt_cycle_count,
	etm3_pkt_i_sync,
	etm3_pkt_i_sync_cycle,
	etm3_pkt_branch_address,
	etm3_pkt_trigger,
	etm3_pkt_context_id,
	etm3_pkt_vmid,
	etm3_pkt_timestamp,
	etm3_pkt_exception_entry,
	etm3_pkt_exception_exit,
	etm3_pkt_ignore,
	etm3_pkt_normal_data,
	etm3_pkt_ooo_placeholder,
	etm3_pkt_ooo_data,
	etm3_pkt_value_not_traced,
	etm3_pkt_data_suppressed,
	etm3_pkt_store_failed,
	etm3_pkt_reserved,
	etm3_pkt_p_header_run, /* only with ETM3_CFG_P_HEADER_RUNS */
	etm3_pkt_type_count
};

/* The type's name as used in etmkit's JSON output ("p_header", ...). */
const char *etm3_pkt_type_name(enum etm3_pkt_type type);

/* Atoms of a P-header (IHI 0014Q 7.3.1). */
enum etm3_atom { etm3_atom_e = 0, etm3_atom_n = 1, etm3_atom_w = 2 };

struct etm3_atoms {
	/* Atom i (oldest first) is (bits >> 2*i) & 3, an enum etm3_atom. */
	uint32_t bits;
	uint8_t count;  /* atoms in bits, at most 16 */
	uint8_t instr;  /* E and N atoms: instructions */
	uint8_t cycles; /* W atoms */
	uint8_t format; /* P-header format 0..4 */
};

/* I-sync reason codes (IHI 0014Q Table 7.21). */
enum etm3_reason {
	etm3_reason_periodic = 0,
	etm3_reason_trace_on = 1,
	etm3_reason_overflow = 2,
	etm3_reason_debug_exit = 3
};

/* A branch address, or the compressed current address of an LSiP I-sync
 * (IHI 0014Q 7.3.5). */
struct etm3_branch {
	uint32_t addr;      /* full address after merging with the reference */
	uint8_t addr_bits;  /* low address bits the packet carried */
	uint8_t addr_bytes; /* address bytes, 1 to 5 */
	uint8_t isa;        /* enum etmkit_isa after the branch */
	uint8_t isa_change; /* 5th address byte present: isa is explicit */
	uint8_t exc_bytes;  /* exception information bytes, 0 to 3 */
	uint8_t ns;         /* Non-secure (from exception byte 0) */
	uint8_t altisa;     /* AltISA (from exception byte 0) */
	uint8_t hyp;        /* Hyp (exception byte 1) */
	uint8_t cancel;     /* the last traced instruction did not complete */
	uint8_t has_resume; /* exception byte 2 (ARMv7-M) present */
	uint8_t resume;     /* its resume field */
	uint8_t exc_in_addr;/* deprecated form: exception in the 5th byte */
	uint8_t legacy_exception; /* its 3-bit code, see
				     etm3_legacy_exception_name() */
	uint8_t partial;    /* no I-sync since sync: the bits above addr_bits
			       are unknown */
	uint16_t exception; /* exception number (Tables 7-11, 7-12), 0 = none */
};

struct etm3_isync {
	uint32_t addr;       /* next instruction (LSiP: the data instruction) */
	uint32_t cycles;     /* i_sync_cycle: W atoms since the last P-header */
	uint32_t context_id; /* if context_id_bytes */
	uint8_t context_id_bytes;
	uint8_t info;        /* the raw information byte */
	uint8_t reason;      /* enum etm3_reason */
	uint8_t isa;         /* enum etmkit_isa (unknown for data-only) */
	uint8_t ns, hyp;
	uint8_t lsip;        /* LSiP form: lsip_next is the current address */
	uint8_t data_only;   /* data-only form: no address */
	struct etm3_branch lsip_next;
};

struct etm3_timestamp {
	uint64_t value;   /* full timestamp after merging (binary) */
	uint8_t bits;     /* low bits the packet carried */
	uint8_t clock_change; /* R bit: clock frequency changed */
};

struct etm3_data {
	uint32_t addr;     /* data address after merging, if has_addr */
	uint32_t value;    /* data value, if has_value (least byte first) */
	uint8_t has_addr;
	uint8_t addr_bits; /* low address bits carried */
	uint8_t size;      /* value bytes: 0, 1, 2 or 4 */
	uint8_t has_value; /* a value is traced: data values on (ETMCR[2]);
			      size 0 is the value 0 (SS = 00, Q Table 6.3) */
	uint8_t tag;       /* out-of-order tag 1..3 */
	uint8_t be;        /* BE-8 transfer (from a 5-byte address) */
	/* Out-of-order data only (IHI 0014Q 7.4.3): */
	uint8_t ooo_match; /* 1: matches a pending placeholder; 0: unexpected,
			      to be ignored */
	int8_t pair;       /* -1; or 0/1 for the halves of a 64-bit value */
	uint64_t placeholder_offset; /* matched placeholder's first byte */
};

/* Consecutive P-headers (ETM3_CFG_P_HEADER_RUNS). The pointers lead into
 * the fed input: valid until the next etm3_pkt_feed(). Header i's atoms are
 * etm3_pkt_atom_table(dec)[headers[i]]. */
struct etm3_p_header_run {
	const uint8_t *headers;   /* count header bytes */
	const uint64_t *offsets;  /* their input offsets, or NULL when they
				     are at offset, offset + 1, ... */
	uint32_t count;
};

/* Largest packet in bytes: an LSiP I-sync with cycle count whose
 * compressed address has five address and three information bytes is
 * 1 + 5 + 4 + 1 + 4 + 8 = 23 bytes. */
#define ETM3_PKT_MAX_BYTES 24

struct etm3_packet {
	uint64_t offset;  /* input offset of the first byte */
	/* The next four members and the first 8 bytes of u are written as one
	 * block on the P-header fast path: keep their order. */
	uint8_t type;     /* enum etm3_pkt_type */
	uint8_t size;     /* bytes stored in raw: min(length, ETM3_PKT_MAX_BYTES) */
	int16_t error;    /* 0, or a negated etmkit_error: the packet is
			     reserved, malformed or truncated, and the decoder
			     has dropped sync */
	uint32_t length;  /* bytes in the packet, or in the unsynced run */
	union {
		struct etm3_atoms atoms;           /* p_header */
		struct etm3_p_header_run run;      /* p_header_run */
		uint32_t cycles;                   /* cycle_count */
		struct etm3_isync isync;           /* i_sync, i_sync_cycle */
		struct etm3_branch branch;         /* branch_address */
		uint32_t context_id;               /* context_id */
		uint8_t vmid;                      /* vmid */
		struct etm3_timestamp timestamp;   /* timestamp */
		struct etm3_data data;             /* data packets */
	} u;
	/* The packet's bytes as the trace unit emitted them; an a_sync longer
	 * than the array is (length - 1) zeros and 0x80. */
	uint8_t raw[ETM3_PKT_MAX_BYTES];
	const char *why;  /* meaningful only if error: what was wrong, a static
			     string */
};

/* ---- Decoder ------------------------------------------------------------ */

struct etm3_pkt_decoder;

/* Allocate a decoder for @cfg. Returns 0 and sets *@dec, or
 * -etmkit_err_invalid (NULL argument, bad cfg->size),
 * -etmkit_err_bad_config (ETMIDR is not ETMv3), -etmkit_err_nomem. */
int etm3_pkt_alloc(struct etm3_pkt_decoder **dec,
		   const struct etm3_config *cfg);
void etm3_pkt_free(struct etm3_pkt_decoder *dec);

/* Make @buf[0..n) the decoder's input. Byte i sits at input offset
 * offsets[i], or at base + i if @offsets is NULL. The buffer (and offsets)
 * must stay valid until etm3_pkt_next() returns -etmkit_err_eos.
 * Returns 0, -etmkit_err_invalid (NULL arguments, or input left undrained),
 * or -etmkit_err_bad_packet when stopped (ETM3_CFG_STOP_ON_ERROR). */
int etm3_pkt_feed(struct etm3_pkt_decoder *dec, const uint8_t *buf, size_t n,
		  const uint64_t *offsets, uint64_t base);

/* Declare the end of input: a packet cut short becomes a record with
 * error -etmkit_err_truncated, an open unsynced run is closed. Drain with
 * etm3_pkt_next(). Returns 0 or -etmkit_err_invalid. */
int etm3_pkt_finish(struct etm3_pkt_decoder *dec);

/* Decode up to @max records into @pkts. Returns how many (>= 1), or
 * -etmkit_err_eos when the input fed so far is used up, or
 * -etmkit_err_invalid, or (ETM3_CFG_STOP_ON_ERROR) -etmkit_err_bad_packet
 * after an error record. Records with a non-zero error are reported, then
 * the decoder searches for the next A-sync. */
int etm3_pkt_next(struct etm3_pkt_decoder *dec, struct etm3_packet *pkts,
		  size_t max);

/* The atoms of every P-header byte under the decoder's configuration:
 * 256 entries indexed by header byte (count 0 for bytes that are not valid
 * P-headers). Valid for the decoder's lifetime. */
const struct etm3_atoms *etm3_pkt_atom_table(const struct etm3_pkt_decoder *dec);

/* The input is discontinuous here: data was lost between the bytes fed so
 * far and those fed next (a dropped formatter frame). Call it with the
 * input drained. The next etm3_pkt_next() reports a packet cut by the loss
 * (error -etmkit_err_bad_frame), and the decoder drops sync and every
 * compression reference, as after an error. Returns 0, or
 * -etmkit_err_invalid (NULL, or input left undrained). */
int etm3_pkt_gap(struct etm3_pkt_decoder *dec);

/* Drop sync and all compression state (as after alloc). */
void etm3_pkt_reset(struct etm3_pkt_decoder *dec);

/* Whether the decoder has seen A-sync and not lost it since. */
int etm3_pkt_synced(const struct etm3_pkt_decoder *dec);

/* ---- Names -------------------------------------------------------------- */

/* Exception name for @number: ARMv7-M table if @m_profile, else the
 * ARMv7-A/R table (IHI 0014Q Tables 7-11, 7-12). Never NULL. */
const char *etm3_exception_name(unsigned number, int m_profile);

/* The 3-bit exception code of the deprecated original-encoding branch form
 * (exception in the 5th address byte): "reset", "irq", "reserved_2",
 * "reserved_3", "jazelle", "fiq", "async_data_abort", "debug_halt" (digest
 * etmv3.md 4.5.3; UNCONFIRMED against the spec text). */
const char *etm3_legacy_exception_name(unsigned code);

/* "periodic", "trace_on", "overflow", "debug_exit". */
const char *etm3_reason_name(unsigned reason);

/* The atoms as letters, oldest first, e.g. "WEWN". @buf needs 17 bytes. */
char *etm3_atoms_string(const struct etm3_atoms *atoms, char *buf);


/* ---- ETMv3 trace encoder ------------------------------------------------
 *
 * The inverse of the decoders above: execution record items (exec.h) in,
 * the raw (unformatted) byte stream an ETMv3 trace unit configured with
 * the given registers would emit out, so that a decode of it can be
 * checked against the record exactly.
 *
 * Use:
 *   struct etm3_enc_config cfg;
 *   etm3_enc_config_init(&cfg);
 *   cfg.etmcr = ...; cfg.etmidr = ...; cfg.etmccer = ...;
 *   struct etm3_enc *enc;
 *   etm3_enc_alloc(&enc, &cfg, sink, sink_ctx);
 *   for each item r: etm3_enc_put(enc, &r);
 *   etm3_enc_finish(enc);
 *   etm3_enc_free(enc);
 *
 * What is emitted (IHI 0014Q chapter 7): A-sync and an I-sync (tracing
 * enabled) before the first instruction and an I-sync after each gap; an
 * A-sync and a periodic I-sync once sync_period bytes have gone by; one
 * E or N atom per instruction, in the densest P-headers of the mode
 * (cycle-accurate: the W atoms of each instruction's cycles, 1 unless the
 * record gives EXEC_F_CYCLES); a branch address packet after the P-header
 * holding the atom of each taken indirect branch (and of every taken
 * branch with ETMCR branch output, and of every change of instruction
 * set), compressed against the last address the decoder knows, with
 * exception information bytes (exception 0) when NS, Hyp or AltISA
 * change; a branch address packet with exception information
 * to the first instruction of a traced exception handler; context ID,
 * VMID and timestamp packets for the record's context and timestamp
 * items.
 *
 * Data trace (7.4), with ETMCR data address and/or value tracing
 * (ETMCR[3:2]): the exec_data items after an instruction become data
 * packets after the P-header holding its atom, one per 32-bit transfer
 * (a 64-bit one is two, the lower address first): normal data packets
 * b00A0SS10, A set on the instruction's first transfer and wherever the
 * transfers stop being contiguous, the address then following when
 * addresses are traced, compressed against the last data address (all
 * five bytes, BE 0, after each A-sync and gap: D-sync, 7.10.6), the value
 * when values are traced, without its leading zero bytes (SS, Table 6.3).
 * With ETM3_ENC_OOO, loads go out of order (7.4.3): an out-of-order
 * placeholder b01A1TT00 (two with one tag for 64 bits) where the normal
 * packet would be, and the value in out-of-order data b0TT0SS00 once
 * ooo_delay more instructions have been traced, or earlier when all
 * three tags are taken, before a gap and at finish. Data items are
 * ignored when ETMCR[3:2] is 0. Data-only mode and ARMv7-M are not
 * encoded: alloc refuses them.
 *
 * Output is buffered (64 KiB) and handed to the sink when the buffer is
 * full and at etm3_enc_finish(); memory is fixed at allocation.
 */

struct etm3_enc_config {
	size_t size;          /* sizeof(struct etm3_enc_config) */
	uint32_t etmcr;       /* ETM Control Register (as struct etm3_config) */
	uint32_t etmidr;      /* ETM ID Register: version, branch encoding */
	uint32_t etmccer;     /* Configuration Code Extension Register */
	uint32_t flags;       /* ETM3_CFG_* and ETM3_ENC_*:
				 ETM3_CFG_M_PROFILE is refused */
	uint32_t sync_period; /* bytes between periodic A-sync + I-sync; 0:
				 1024 (ETMSYNCFR's reset value) */
	uint32_t ooo_delay;   /* ETM3_ENC_OOO: instructions traced after a
				 load before its value comes; 0: 1 */
};

/* etm3_enc_config.flags: trace loads' values out of order (IHI 0014Q
 * 7.4.3), a non-blocking data cache's way. Needs value tracing
 * (ETMCR[2]). */
#define ETM3_ENC_OOO 0x100u

/* Fill @cfg with zeros and set its size. */
void etm3_enc_config_init(struct etm3_enc_config *cfg);

struct etm3_enc;

/* Allocate an encoder writing to @sink with @sink_ctx. Returns 0 and sets *@out, or -etmkit_err_invalid (NULL
 * argument, bad cfg->size), -etmkit_err_bad_config (ETMIDR is not ETMv3;
 * timestamps or VMID enabled where the version or ETMCCER has none;
 * ETM3_ENC_OOO without data value tracing),
 * -etmkit_err_unsupported (data-only mode, ARMv7-M),
 * -etmkit_err_nomem. */
int etm3_enc_alloc(struct etm3_enc **out, const struct etm3_enc_config *cfg,
		   exec_sink_fn sink, void *sink_ctx);
void etm3_enc_free(struct etm3_enc *enc);

/* Encode one record item. Returns 0; -etmkit_err_invalid (NULL, unknown
 * kind or exception, an address beyond 32 bits, a size of 0, called after
 * finish; a data item whose size is not 1, 2, 4 or 8, whose value does
 * not fit its size, with unknown flags, or, with data trace on, beyond
 * 32 bits or not right after an executed load, store or coprocessor
 * transfer instruction (insn_decode()) or its other transfers);
 * -etmkit_err_unsupported (an instruction set ETMv3 or this
 * version cannot trace: A64, ThumbEE before ETMv3.3); an error the
 * sink returned, which stops the encoder: every later call returns it.
 * A refused item changes nothing. */
int etm3_enc_put(struct etm3_enc *enc, const struct exec_rec *r);

/* Emit what is pending (the atoms, the last branch address) and hand the
 * rest of the buffer to the sink. Returns 0, -etmkit_err_invalid, or the
 * sink's error. */
int etm3_enc_finish(struct etm3_enc *enc);

/* Bytes emitted so far (handed to the sink or buffered). 0 for NULL. */
uint64_t etm3_enc_offset(const struct etm3_enc *enc);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_ETM3_H */
