/* etmkit: ETMv4 and ETE packet layer.
 *
 * Layer: packets (src/packets/etmv4/); its encoder section (ete_enc_*)
 * is the encode layer (src/encode/).
 *
 * The ETMv4 packet decoder turns the byte stream of one ETMv4 (IHI 0064) or
 * ETE (Arm ARM chapter D4, FEAT_ETE) trace source into packets: layer 1 of
 * the trace model (seed 002 D4.3.1, Table D4-3). It is configured from the
 * trace unit's ID and configuration registers, searches for A-sync, then
 * decodes every packet, keeping the address history (three entries), the
 * running timestamp and the cycle-count threshold that later packets are
 * decoded against. Speculation is not resolved here: that is the element
 * layer's job (etm4_flow_*, flow.h).
 *
 * Use (the same shape as etm3.h):
 *   struct etm4_config cfg;
 *   etm4_config_init(&cfg);
 *   cfg.trcidr0 = ...; ... cfg.flags = ETM4_CFG_ETE if the source is ETE;
 *   struct etm4_pkt_decoder *dec;
 *   etm4_pkt_alloc(&dec, &cfg);
 *   for each chunk of input:
 *     etm4_pkt_feed(dec, buf, n, offsets, base);
 *     while ((n = etm4_pkt_next(dec, pkts, 64)) > 0) use pkts[0..n-1];
 *   etm4_pkt_finish(dec);  then drain etm4_pkt_next() once more;
 *   etm4_pkt_free(dec);
 *
 * The decoder does not copy the fed buffer: every record must be drained
 * with etm4_pkt_next() before the buffer changes. A packet cut by the end of
 * a chunk is completed from the next chunk.
 */
#ifndef ETMKIT_ETM4_H
#define ETMKIT_ETM4_H

#include "etmkit/common.h"
#include "etmkit/exec.h" /* the encoder section: struct exec_rec, exec_sink_fn */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Configuration ---------------------------------------------------- */

/* Configuration flags. */
#define ETM4_CFG_ETE            0x1u /* the source is an ETE (FEAT_ETE):
					ETE header set (seed 002, D4) */
#define ETM4_CFG_ATOM_RUNS      0x2u /* deliver each run of consecutive
					atom packets as one etm4_pkt_atom_run
					record pointing into the input (as
					ETM3_CFG_P_HEADER_RUNS): the form a
					consumer of atoms in bulk wants */
#define ETM4_CFG_STOP_ON_ERROR  0x4u /* as ETM3_CFG_STOP_ON_ERROR */
#define ETM4_CFG_ADDR_RUNS      0x8u /* runs (as ETM4_CFG_ATOM_RUNS, which
					this implies) also take target
					address packets, decoded: atoms and
					the addresses between them in one
					record (struct etm4_atom_run) */

struct etm4_config {
	size_t size;         /* sizeof(struct etm4_config) */
	uint32_t trcidr0;    /* features: COMMOPT, QSUPP, TSSIZE, TSMARK, ... */
	uint32_t trcidr1;    /* ETMv4 architecture version */
	uint32_t trcidr2;    /* IASIZE, CIDSIZE, VMIDSIZE, CCSIZE, WFXMODE */
	uint32_t trcidr8;    /* MAXSPEC */
	uint32_t trcidr9, trcidr10, trcidr11, trcidr12, trcidr13; /* keys */
	uint32_t trcconfigr; /* what was enabled: CCI, RS, QE, COND, ... */
	uint32_t trcdevarch; /* ETE: the version (revision = minor) */
	uint32_t flags;      /* ETM4_CFG_* */
};

/* Fill @cfg with zeros and set its size. */
void etm4_config_init(struct etm4_config *cfg);

/* What the registers say, decoded once. */
struct etm4_config_info {
	uint8_t ete;              /* ETM4_CFG_ETE */
	uint8_t major, minor;     /* 4.minor (ETMv4) or 5.minor (ETE:
				     TRCDEVARCH.REVISION) */
	uint8_t ia64;             /* TRCIDR2.IASIZE: 64-bit addresses */
	uint8_t cid_bytes;        /* context ID bytes in a context packet */
	uint8_t vmid_bytes;       /* VMID bytes: 0, 1, 2 or 4 */
	uint8_t cc_bits;          /* cycle counter width (12 + CCSIZE) */
	uint8_t ts_bits;          /* 0 (no timestamps), 48 or 64 */
	uint8_t commopt;          /* TRCIDR0.COMMOPT (with TRCCCI): cycle
				     count packets carry no commit */
	uint8_t cci;              /* TRCCONFIGR.CCI: cycle counting on */
	uint8_t retstack;         /* TRCCONFIGR.RS: return stack on */
	uint8_t bb;               /* TRCCONFIGR.BB: branch broadcast */
	uint8_t q;                /* Q packets valid (QSUPP and QE) */
	uint8_t cond;             /* conditional non-branch tracing (ETMv4) */
	uint8_t data;             /* data trace packets valid (ETMv4) */
	uint8_t tsmark;           /* TRCIDR0.TSMARK: timestamp markers */
	uint8_t wfx_p0;           /* TRCIDR2.WFXMODE: WFI/WFE are P0 */
	uint8_t trans_p0;         /* Transaction Start is a P0 element
				     (TRCIDR0.COMMTRANS = 0) */
	uint32_t maxspec;         /* TRCIDR8.MAXSPEC */
};

/* Decode @cfg. Returns 0, or -etmkit_err_bad_config when the registers do
 * not name ETMv4 (TRCIDR1 major 4) or ETE (with ETM4_CFG_ETE: TRCDEVARCH
 * ARCHVER 5, or TRCDEVARCH 0 — not recorded — taken as ETE 1.0),
 * -etmkit_err_invalid for NULL or a bad size. */
int etm4_config_decode(const struct etm4_config *cfg,
		       struct etm4_config_info *info);

/* ---- Packets ----------------------------------------------------------- */

enum etm4_pkt_type {
	etm4_pkt_unsynced = 0,   /* a run of bytes outside sync */
	etm4_pkt_a_sync,
	etm4_pkt_trace_info,
	etm4_pkt_trace_on,
	etm4_pkt_timestamp,
	etm4_pkt_ts_marker,      /* ETE: timestamp marker */
	etm4_pkt_exception,      /* u.exception; ETE also PE reset and
				    transaction failure (type 0x18) */
	etm4_pkt_exception_return, /* ETMv4 */
	etm4_pkt_function_return,  /* ETMv4 v8-M (not produced: the
				      configuration cannot name an ARMv8-M
				      PE, so header 0x05 is reserved) */
	etm4_pkt_cycle_count,    /* u.cc, formats 1-3 */
	etm4_pkt_commit,         /* u.spec.count */
	etm4_pkt_cancel,         /* u.spec: formats 1-3 */
	etm4_pkt_mispredict,     /* u.spec: atoms, then mispredict */
	etm4_pkt_discard,
	etm4_pkt_overflow,
	etm4_pkt_atom,           /* u.atoms, formats 1-6 */
	etm4_pkt_q,              /* u.q */
	etm4_pkt_context,        /* u.context (0x80: unchanged) */
	etm4_pkt_address,        /* u.addr: exact, short, long 32/64 */
	etm4_pkt_address_context,/* u.addr and u.context */
	etm4_pkt_source_address, /* ETE: u.addr */
	etm4_pkt_event,          /* u.event */
	etm4_pkt_instrumentation,/* ETE ITE: u.ite */
	etm4_pkt_transaction_start,  /* ETE */
	etm4_pkt_transaction_commit, /* ETE */
	etm4_pkt_ignore,
	etm4_pkt_cond_instr,     /* ETMv4 conditional packets: u.cond */
	etm4_pkt_cond_result,
	etm4_pkt_cond_flush,
	etm4_pkt_data_sync,      /* ETMv4 data synchronization markers */
	etm4_pkt_reserved,       /* reserved header (error record) */
	etm4_pkt_atom_run,       /* u.run: consecutive atom packets (and
				    target addresses), only with
				    ETM4_CFG_ATOM_RUNS / ETM4_CFG_ADDR_RUNS */
	etm4_pkt_type_count
};

/* The type's name as used in etmkit's JSON output ("trace_info", ...). */
const char *etm4_pkt_type_name(enum etm4_pkt_type type);

/* Trace Info sections (IHI 0064 "Trace Info packet"). */
#define ETM4_TINFO_INFO 0x01u
#define ETM4_TINFO_KEY  0x02u
#define ETM4_TINFO_SPEC 0x04u
#define ETM4_TINFO_CYCT 0x08u
#define ETM4_TINFO_WNDW 0x10u
struct etm4_trace_info {
	uint32_t plctl;     /* which sections are present (ETM4_TINFO_*) */
	uint32_t info;      /* bit 0: cycle counting; 3:1 cond; 4: P0 load;
			       5: P0 store; 6: in transaction (ETE) */
	uint32_t key;
	uint32_t spec;      /* unresolved P0 elements before this packet */
	uint32_t cyct;      /* cycle count threshold */
	uint32_t wndw;
};

struct etm4_timestamp {
	uint64_t value;     /* running timestamp after merging */
	uint32_t cc;        /* cycle count (has_cc) */
	uint8_t bits;       /* value bits the packet carried (7 per byte,
			       64 for a 9-byte field) */
	uint8_t has_cc;     /* header 0x03 */
};

/* Exception address interpretation (E1:E0). */
enum etm4_exc_addr {
	etm4_exc_addr_reserved0 = 0,
	etm4_exc_addr_follows = 1,   /* the address that follows is the
					preferred return address */
	etm4_exc_addr_target = 2,    /* it is also the previous P0's target */
	etm4_exc_addr_reserved3 = 3
};
struct etm4_exception {
	uint16_t type;      /* 10-bit exception type */
	uint8_t addr_interp;/* enum etm4_exc_addr */
	uint8_t pending;    /* M-profile P bit */
};

struct etm4_cc {
	uint32_t count;     /* cycles: field + CYCT from the last Trace Info */
	uint32_t commit;    /* P0 elements committed (has_commit) */
	uint8_t format;     /* 1, 2 or 3 */
	uint8_t unknown;    /* format 1 U bit: count unknown (count 0) */
	uint8_t has_commit; /* commit mode 0 (COMMOPT 0) */
};

/* Atoms: bit i of bits is atom i, oldest first; 1 = E, 0 = N. */
struct etm4_atoms {
	uint32_t bits;
	uint8_t count;      /* 1 to 24 */
	uint8_t format;     /* 1 to 6 */
};

/* Commit, Cancel and Mispredict packets. Applied in this order: append
 * atoms, cancel count, then mispredict (digest 5.10). */
struct etm4_spec {
	uint32_t count;         /* commit: elements committed; cancel:
				   elements cancelled */
	struct etm4_atoms atoms;/* atoms carried (count 0: none) */
	uint8_t mispredict;     /* a mispredict follows the cancel */
	uint8_t format;         /* cancel format 1-3 */
};

enum etm4_addr_form {
	etm4_addr_exact = 0,     /* history entry u.addr.hist */
	etm4_addr_short,
	etm4_addr_long32,
	etm4_addr_long64
};
struct etm4_address {
	uint64_t addr;      /* full address after merging with history */
	uint8_t is;         /* 0: IS0 (A64/A32), 1: IS1 (T32) */
	uint8_t form;       /* enum etm4_addr_form */
	uint8_t bits;       /* address bits carried (short: 9/17 or 8/16) */
	uint8_t hist;       /* exact match: the history entry 0-2 */
};

/* A target address packet of a run (ETM4_CFG_ADDR_RUNS): its address,
 * as an etm4_pkt_address record's u.a.addr, and its length in bytes. */
struct etm4_run_addr {
	struct etm4_address addr;
	uint32_t length;          /* 1 (exact match), 2 or 3 (short), 5 or 9 */
};

/* Consecutive atom packets (ETM4_CFG_ATOM_RUNS), each one byte, and with
 * ETM4_CFG_ADDR_RUNS the target address packets among them (exact match,
 * short, long; not source addresses or addresses with context). The
 * pointers lead into the fed input (or the decoder's copy of bytes carried
 * over from an earlier chunk) and into the decoder: valid until the next
 * etm4_pkt_feed() or etm4_pkt_next().
 * Reading the run: at byte i, a header byte h with
 * etm4_pkt_atom_table(dec)[h].count != 0 is an atom packet (next byte
 * i + 1); any other is the next address packet of addrs[] (next byte
 * i + its length). The record's length is count; its raw holds the first
 * byte only (size 1). */
struct etm4_atom_run {
	const uint8_t *headers;   /* count bytes: the run's packets */
	const uint64_t *offsets;  /* their input offsets, or NULL when they
				     are at offset, offset + 1, ... */
	uint32_t count;
	uint32_t naddr;           /* address packets in the run */
	const struct etm4_run_addr *addrs; /* naddr, in order; NULL if 0 */
};

struct etm4_context {
	uint32_t context_id;  /* if has_cid */
	uint32_t vmid;        /* if has_vmid */
	uint8_t updated;      /* 0: header 0x80, context unchanged (the
				 other members are not set) */
	uint8_t el;           /* exception level 0-3 */
	uint8_t sf;           /* 1: AArch64 */
	uint8_t ns;           /* NS bit */
	uint8_t nse;          /* NSE bit (RME): with ns, the security state */
	uint8_t has_vmid, has_cid;
};

struct etm4_q {
	struct etm4_address addr; /* if has_addr */
	uint32_t count;           /* instructions, if has_count */
	uint8_t qtype;            /* header bits 3:0 */
	uint8_t has_addr;
	uint8_t has_count;
	uint8_t addr_follows;     /* types 0xC, 0xF: the target comes in a
				     following address packet */
};

struct etm4_ite {
	uint64_t value;     /* TRCIT operand */
	uint8_t el;         /* exception level of the TRCIT */
};

/* ETMv4 conditional and data-sync packets: fields as carried. */
struct etm4_cond {
	uint32_t key;       /* cond_instr F1, cond_result F1 */
	uint32_t token;     /* cond_result F2-F4 token; F3 12-bit string;
			       cond_instr F2: its 2-bit field */
	uint8_t format;     /* 1-4 */
	uint8_t num;        /* cond_instr F3: NUM; data_sync: marker;
			       cond_result F1: results (1 or 2) */
	uint8_t flags;      /* format-specific bits: cond_result F1 CI (bit i
			       for result i), F2 K; cond_instr F3 Z;
			       data_sync 1 = unnumbered */
	uint8_t result;     /* cond_result F1 */
	uint32_t key2;      /* cond_result F1, second result (num 2) */
	uint8_t result2;
};

/* Largest packet kept in raw: a Trace Info with all six fields at their
 * five-byte limit is 1 + 6 * 5 = 31 bytes. */
#define ETM4_PKT_MAX_BYTES 32

struct etm4_packet {
	uint64_t offset;  /* input offset of the first byte */
	uint8_t type;     /* enum etm4_pkt_type */
	uint8_t size;     /* bytes stored in raw: min(length, ETM4_PKT_MAX_BYTES) */
	int16_t error;    /* 0, or a negated etmkit_error: the packet is
			     reserved, malformed or truncated, and the decoder
			     has dropped sync */
	uint32_t length;  /* bytes in the packet, or in the unsynced run */
	union {
		struct etm4_trace_info tinfo;
		struct etm4_timestamp ts;
		struct etm4_exception exception;
		struct etm4_cc cc;
		struct etm4_spec spec;
		struct etm4_atoms atoms;
		struct etm4_atom_run run;
		struct {
			struct etm4_address addr;
			struct etm4_context context; /* address_context */
		} a;
		struct etm4_context context;
		struct etm4_q q;
		struct etm4_ite ite;
		struct etm4_cond cond;
		uint8_t event;    /* the 4 event bits */
	} u;
	uint8_t raw[ETM4_PKT_MAX_BYTES]; /* the packet's bytes */
	const char *why;  /* meaningful only if error: a static string */
};

/* ---- Decoder ------------------------------------------------------------ */

struct etm4_pkt_decoder;

/* Allocate a decoder for @cfg. Returns 0 and sets *@dec, or
 * -etmkit_err_invalid (NULL argument, bad cfg->size),
 * -etmkit_err_bad_config (etm4_config_decode() refuses it),
 * -etmkit_err_nomem. */
int etm4_pkt_alloc(struct etm4_pkt_decoder **dec,
		   const struct etm4_config *cfg);
void etm4_pkt_free(struct etm4_pkt_decoder *dec);

/* As etm3_pkt_feed(). */
int etm4_pkt_feed(struct etm4_pkt_decoder *dec, const uint8_t *buf, size_t n,
		  const uint64_t *offsets, uint64_t base);

/* As etm3_pkt_finish(). */
int etm4_pkt_finish(struct etm4_pkt_decoder *dec);

/* Data was lost in transport before the bytes fed next: drop sync. */
int etm4_pkt_gap(struct etm4_pkt_decoder *dec);

/* Decode up to @max records into @pkts. Returns how many (>= 1), or
 * -etmkit_err_eos when the input fed so far is used up, or
 * -etmkit_err_invalid, or (ETM4_CFG_STOP_ON_ERROR) -etmkit_err_bad_packet
 * after an error record. Records with a non-zero error are reported, then
 * the decoder searches for the next A-sync. */
int etm4_pkt_next(struct etm4_pkt_decoder *dec, struct etm4_packet *pkts,
		  size_t max);

/* Forget all state, as if just allocated. */
void etm4_pkt_reset(struct etm4_pkt_decoder *dec);

/* The atoms of each header byte: 256 entries, count 0 for a byte that is
 * not an atom header (formats 1-6, digest 5.14). For reading the headers of
 * an etm4_pkt_atom_run record. */
const struct etm4_atoms *etm4_pkt_atom_table(const struct etm4_pkt_decoder *dec);

/* The name of exception packet type @type (digest 5.5, Arm ARM Tables
 * D4-4/D4-5): "pe_reset", "debug_halt", "call", "trap", ..., "impdef"
 * (0x10-0x17), "transaction_failure" (0x18 with @ete), else "reserved" or
 * "reserved_N". Never NULL. */
const char *etm4_exception_name(unsigned type, int ete);

/* The configuration as decoded at allocation. */
const struct etm4_config_info *etm4_pkt_config(
	const struct etm4_pkt_decoder *dec);

/* ---- ETMv4/ETE trace encoder ------------------------------------------ *
 *
 * The inverse of the decoders above: execution record items (exec.h) in,
 * the raw (unformatted) byte stream an ETMv4 or ETE trace unit configured
 * as cfg.etm would emit for that execution out, so that etm4_pkt_* and
 * etm4_flow_* decoding it with ete_enc_decoder_config() and the program
 * image give back the record's instructions. What it emits: A-sync, Trace
 * Info, Trace On (at the start and after each exec_gap), Context and
 * Address + Context packets, atoms packed in the fewest packets (formats
 * 1-6), target addresses after taken indirect branches (compressed against
 * the address history: exact match, short, long 32/64), exceptions with
 * their return address, Commit packets keeping at most spec_depth P0
 * elements uncommitted, synthesized mispredicts and cancels, timestamps
 * (TRCCONFIGR.TS, with markers when TRCIDR0.TSMARK), cycle counts at
 * commit points (TRCCONFIGR.CCI, commit mode 1: the instructions'
 * EXEC_F_CYCLES summed), Q elements in place of some atoms (q_every) and
 * a periodic A-sync + Trace Info + Context + Address resync.
 *
 * Use:
 *   struct ete_enc_config c;
 *   ete_enc_config_init(&c);           (ETE 1.0, A64, MAXSPEC 0)
 *   c.etm.trcidr8 = 16; c.spec_depth = 8; ...
 *   ete_enc_alloc(&e, &c, sink, ctx);
 *   for each item: ete_enc_put(e, &rec);
 *   ete_enc_finish(e);  ete_enc_free(e);
 * Memory is fixed at allocation (a 64 KiB output buffer); nothing is
 * allocated per item.
 */

/* ete_enc_config.flags */
#define ETE_ENC_NO_COMPRESS 0x1u /* every address in its long form (for
				    testing decoders' history handling) */

struct ete_enc_config {
	size_t size;            /* sizeof(struct ete_enc_config) */
	struct etm4_config etm; /* the trace unit: ETM4_CFG_ETE for ETE,
				   TRCIDR0/1/2/8, TRCCONFIGR, TRCDEVARCH.
				   TRCCONFIGR.CCI needs TRCIDR0.COMMOPT 1;
				   RS, COND, DA/DV and INSTP0 are not
				   supported */
	uint32_t flags;         /* ETE_ENC_* */
	uint32_t sync_period;   /* bytes between periodic A-sync + Trace
				   Info resyncs (at the next instruction
				   that starts an atom's range); 0: 4096 */
	uint32_t spec_depth;    /* P0 elements left uncommitted before a
				   Commit, at most TRCIDR8.MAXSPEC; 0 with
				   MAXSPEC > 0: a Commit after each P0
				   packet; MAXSPEC 0: implicit commits */
	uint32_t mispredict_every; /* every N-th atom is first traced wrong
				      and corrected by a mispredict; 0 never.
				      Needs MAXSPEC > 0 */
	uint32_t cancel_every;  /* every N-th atom is followed by wrong-path
				   atoms that a Cancel removes (some forms
				   also mispredict the atom); 0 never.
				   Needs MAXSPEC >= 2 */
	uint32_t cc_threshold;  /* TRCCONFIGR.CCI: TRCCCCTLR.THRESHOLD
				   (0-4095), Trace Info's CYCT: cycle counts
				   below it are carried on to the next */
	uint8_t el, ns;         /* the context before the first
				   exec_context item: EL 0-3, Non-secure */
	uint32_t vmid;          /* ... its VMID and context ID */
	uint32_t context_id;
	uint32_t q_every;       /* every N-th P0 instruction that may start
				   one opens a Q element (D4.3.5.4, digest
				   5.17) instead of its atom; 0 never. A Q
				   counts the instructions since the P0
				   element before it, runs on over P0
				   instructions that are not branches (ISB)
				   and ends at a taken branch (a branch not
				   taken gets its N atom) or before any other
				   packet, with the address where execution
				   goes on: in the Q packet (types 0-2, 5, 6,
				   0xA, 0xB) or, 64-bit, in an address packet
				   right after it (type 0xC). Needs Q
				   elements with instruction counts:
				   TRCIDR0.QSUPP and TRCCONFIGR.QE 0b01 or
				   0b11 */
};

/* Defaults: zeros, size, ETE 1.0 registers as in OpenCSD's ete_spec_1
 * (TRCIDR0 0x2801cea1, TRCIDR1 0x4100fff0, TRCIDR2 0xd0001088, TRCDEVARCH
 * 0x47705a13, flags ETM4_CFG_ETE), TRCIDR8 0, TRCCONFIGR 0, EL1
 * Non-secure. */
void ete_enc_config_init(struct ete_enc_config *cfg);

/* What an encoder has done so far. */
struct ete_enc_stats {
	uint64_t bytes;          /* trace bytes emitted (sent or buffered) */
	uint64_t insns;          /* instruction items put */
	uint64_t p0;             /* P0 elements traced (atoms, exceptions,
				    Q elements), synthesized wrong-path ones
				    excluded */
	uint64_t atom_packets[7];/* atom packets by format (index 1-6) */
	uint64_t addr_forms[4];  /* address packets by enum etm4_addr_form
				    (address + context counted as long) */
	uint64_t commits;        /* Commit packets */
	uint64_t mispredicts;    /* synthesized mispredicts */
	uint64_t cancels;        /* synthesized cancels */
	uint64_t cycle_counts;   /* Cycle Count packets */
	uint64_t syncs;          /* A-sync + Trace Info sequences */
	uint64_t untraceable;    /* items the trace cannot show (the
				    decode will miss or differ there):
				    instructions after the last P0 element
				    before a gap or the end; an instruction
				    not where the one before leads with no
				    P0 element, gap or exception between;
				    an exception whose return address is
				    not where execution stands, or taken
				    while trace is off */
	uint64_t q_packets[16];  /* Q packets by type (header bits 3:0) */
};

struct ete_enc;

/* Allocate an encoder writing to @sink (called with @sink_ctx). Returns 0
 * and sets *@out, or -etmkit_err_invalid (NULL argument, bad cfg->size or
 * cfg->etm.size, unknown flags), -etmkit_err_bad_config (etm4_config_decode()
 * refuses cfg->etm; spec_depth above MAXSPEC; mispredict_every or
 * cancel_every without the MAXSPEC they need; cc_threshold above 4095;
 * cycle counting with MAXSPEC above 65536; q_every without TRCIDR0.QSUPP
 * and TRCCONFIGR.QE allowing Q elements with counts), -etmkit_err_unsupported
 * (cycle counting with TRCIDR0.COMMOPT 0, return stack, conditional or
 * data trace enabled),
 * -etmkit_err_nomem. */
int ete_enc_alloc(struct ete_enc **out, const struct ete_enc_config *cfg,
		  exec_sink_fn sink, void *sink_ctx);
void ete_enc_free(struct ete_enc *e);

/* Encode one item. Returns 0, or -etmkit_err_invalid (NULL, an unknown
 * kind, an instruction of another instruction set than A64, A32 or T32,
 * of a size other than 2 or 4, or misaligned; an exception number not in
 * enum exec_exc; an item after ete_enc_finish()), or the sink's error
 * (after which every call returns it). */
int ete_enc_put(struct ete_enc *e, const struct exec_rec *r);

/* End of the record: the pending atoms, a Commit of everything still
 * speculative, and the buffered bytes to the sink. Instructions after the
 * last P0 element are not in the trace (no atom covers them). Returns 0,
 * -etmkit_err_invalid, or the sink's error. */
int ete_enc_finish(struct ete_enc *e);

/* The configuration that decodes this encoder's output (cfg.etm). Returns
 * 0 or -etmkit_err_invalid. */
int ete_enc_decoder_config(const struct ete_enc *e, struct etm4_config *out);

/* Counters since allocation; NULL for NULL. */
const struct ete_enc_stats *ete_enc_get_stats(const struct ete_enc *e);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_ETM4_H */
