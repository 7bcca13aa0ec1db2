/* etmkit: ETMv2 (and ETMv1) per-cycle trace port protocol: captures and
 * packet layer; its encoder section (etm2_enc_*) is the encode layer.
 *
 * Layer: packets (src/packets/etmv2/); captures (src/packets/etmv2/
 * etm2_cap*.c); encoder (src/encode/etm2_enc*.c).
 *
 * ETMv2 (ARM IHI 0014Q chapter 6; digest spec/etmv2.md; what etmkit
 * assumes where the specification pages are lost: docs/etmv2.md) is not a
 * byte stream: a capture is one record per processor cycle, the pipeline
 * status (PIPESTAT) and a sample of the trace packet pins (TRACEPKT). The
 * trace unit places packets in a FIFO in the cycle of the status that made
 * them, and they reach TRACEPKT later. The packet decoder models that FIFO:
 * it syncs at a trace FIFO offset (TFO), then delivers records in status
 * order, each cycle's instruction status followed by the packets that cycle
 * placed, once their bytes have come out of the FIFO. ETMv1 (3-bit
 * PIPESTAT, TRACESYNC) syncs at a full branch address instead
 * (docs/etmv2.md 7b).
 *
 * Use:
 *   struct etm2_config cfg;
 *   etm2_config_init(&cfg);
 *   cfg.etmcr = ...; cfg.port_width = 8;
 *   struct etm2_pkt_decoder *dec;
 *   etm2_pkt_alloc(&dec, &cfg);
 *   for each chunk of cycles:
 *     etm2_pkt_feed(dec, cycles, n, first_cycle_index);
 *     while ((n = etm2_pkt_next(dec, pkts, 64)) > 0) use pkts[0..n-1];
 *   etm2_pkt_finish(dec);  then drain etm2_pkt_next() once more;
 *   etm2_pkt_free(dec);
 *
 * The decoder does not copy the fed cycles: every record must be drained
 * with etm2_pkt_next() before the buffer changes. Records whose bytes have
 * not come out yet wait inside the decoder (in bounded memory) for the
 * next feed.
 */
#ifndef ETMKIT_ETM2_H
#define ETMKIT_ETM2_H

#include "etmkit/common.h"
#include "etmkit/exec.h" /* the encoder's input */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Configuration ---------------------------------------------------- */

/* ETMCR bits (IHI 0014Q 3.5.1; digest etmv2.md section 1). */
#define ETM2_ETMCR_MONITOR_CPRT    (1u << 1)  /* coprocessor register
						 transfers traced as data */
#define ETM2_ETMCR_DATA_VALUE      (1u << 2)
#define ETM2_ETMCR_DATA_ADDR       (1u << 3)
#define ETM2_ETMCR_PORT_SIZE_SHIFT 4          /* 3 bits: 0 4-bit, 1 8-bit,
						 2 16-bit (OpenOCD only) */
#define ETM2_ETMCR_BRANCH_OUTPUT   (1u << 8)  /* every branch gives an
						 address */
#define ETM2_ETMCR_CYCLE_ACCURATE  (1u << 12)
#define ETM2_ETMCR_HALF_RATE       (1u << 13)
#define ETM2_ETMCR_CID_SHIFT       14         /* ContextIDsize, 2 bits */
#define ETM2_ETMCR_PORT_MODE_SHIFT 16         /* 2 bits, enum etm2_port_mode */

enum etm2_port_mode {
	etm2_port_normal = 0,
	etm2_port_multiplexed = 1, /* not supported (docs/etmv2.md 8) */
	etm2_port_demultiplexed = 2
};

/* What a cycle's PIPESTAT means, after the table lookup (docs/etmv2.md
 * section 2). ETMv2 statuses first; ETMv1 adds ID, BE and BD. */
enum etm2_status {
	etm2_st_ie = 0, /* instruction executed */
	etm2_st_de,     /* executed, packets placed */
	etm2_st_in,     /* failed its condition */
	etm2_st_dn,     /* failed its condition, packets placed */
	etm2_st_wt,     /* no instruction, FIFO outputting */
	etm2_st_dw,     /* no instruction, packets placed */
	etm2_st_tr,     /* trigger: the replaced status is on TRACEPKT */
	etm2_st_td,     /* no FIFO data this cycle (TRACEPKT[0] = 1: TFO) */
	etm2_st_ptie,   /* phantom branch taken, then IE ... */
	etm2_st_ptde,
	etm2_st_ptin,
	etm2_st_ptdn,
	etm2_st_pnie,   /* phantom branch not taken, then IE ... */
	etm2_st_pnde,
	etm2_st_pnin,
	etm2_st_pndn,
	etm2_st_id,     /* ETMv1: executed, data traced */
	etm2_st_be,     /* ETMv1: branch executed, address follows */
	etm2_st_bd,     /* ETMv1: branch with data */
	etm2_st_count
};

/* Status names: "IE", "DE", ..., "PNDN", "ID", "BE", "BD"; "invalid"
 * beyond. Never NULL. */
const char *etm2_status_name(unsigned status);

/* The TFO header table (docs/etmv2.md section 6; Q Table 6.6 is lost): a
 * header byte h starts a TFO packet when (h & mask) == normal, an LSiP TFO
 * packet when (h & mask) == lsip; its reason is (h >> rr_shift) & 3. */
struct etm2_tfo_table {
	uint8_t mask;
	uint8_t normal;
	uint8_t lsip;
	uint8_t rr_shift; /* 0 to 6 */
};

/* Stop at the first error instead of resynchronising, as
 * ETM3_CFG_STOP_ON_ERROR. */
#define ETM2_CFG_STOP_ON_ERROR 0x4u

struct etm2_config {
	size_t size;          /* sizeof(struct etm2_config) */
	uint32_t etmcr;       /* ETM Control Register */
	uint32_t etmidr;      /* ETM ID Register; 0: absent (ETMv1 parts may
				 lack it), version then says */
	uint32_t flags;       /* ETM2_CFG_* */
	uint8_t version;      /* 1: ETMv1 (3-bit PIPESTAT, TRACESYNC), 2:
				 ETMv2; 0: from ETMIDR[11:8] (ETMv2 if
				 ETMIDR is 0) */
	uint8_t port_width;   /* 4, 8 or 16; 0: from ETMCR[6:4] */
	uint8_t port_mode;    /* enum etm2_port_mode, as captured (the
				 capture readers unfold demultiplexed
				 captures: the decoder sees one record per
				 cycle either way) */
	uint8_t fifo_latency; /* 0 or 1: a byte placed in cycle t may leave
				 from t + fifo_latency (docs/etmv2.md 3) */
	uint8_t pipestat[16]; /* raw PIPESTAT code -> enum etm2_status
				 (ETMv2; ETMv1's table is fixed) */
	struct etm2_tfo_table tfo;
};

/* Fill @cfg: zeros, its size, fifo_latency 1, the "natural" PIPESTAT
 * table and the default TFO table (docs/etmv2.md). */
void etm2_config_init(struct etm2_config *cfg);

/* Fill @table[16] with a built-in PIPESTAT table: "natural" (the default)
 * or "alt" (docs/etmv2.md section 2), or a user table: sixteen ETMv2
 * status names in code order, separated by commas ("IE,DE,...,PNDN").
 * Returns 0 or -etmkit_err_not_found (@table unchanged). */
int etm2_pipestat_table(const char *name, uint8_t table[16]);

/* The default TFO table (docs/etmv2.md section 6). */
void etm2_tfo_table_default(struct etm2_tfo_table *table);

struct etm2_config_info {
	uint8_t version;          /* 1 or 2 */
	uint8_t minor;            /* ETMIDR[7:4] (0 without ETMIDR) */
	uint8_t port_width;       /* 4, 8 or 16 */
	uint8_t cycle_accurate;
	uint8_t context_id_bytes; /* 0, 1, 2 or 4 */
	uint8_t data_addr, data_value, cprt;
	uint8_t branch_output;
};

/* Decode @cfg. Returns 0, or -etmkit_err_bad_config (ETMIDR names another
 * architecture, a port width other than 4/8/16, a multiplexed port,
 * fifo_latency above 1, a PIPESTAT table that does not map each of IE,
 * DE, IN, DN, WT, DW, TR and TD from exactly one code, a TFO table whose
 * normal and lsip headers collide or fall outside mask), or
 * -etmkit_err_invalid (NULL, bad size). */
int etm2_config_decode(const struct etm2_config *cfg,
		       struct etm2_config_info *info);

/* ---- Cycles and captures ---------------------------------------------- */

/* One processor cycle as the trace port showed it. Also the record of the
 * binary capture format (docs/etmv2-capture.md), 4 bytes little-endian. */
struct etm2_cycle {
	uint16_t pkt;   /* TRACEPKT: [3:0], [7:0] or [15:0] by port width */
	uint8_t ps;     /* PIPESTAT as captured: [3:0] (ETMv1: [2:0]) */
	uint8_t flags;  /* ETM2_CYC_* */
};

#define ETM2_CYC_TRACESYNC 0x1u /* ETMv1 TRACESYNC pin */

/* What a capture file's header (or the options) says. */
struct etm2_cap_info {
	uint32_t etmcr, etmidr;
	uint8_t has_etmcr, has_etmidr;
	uint8_t version;     /* 1 or 2; 0 unknown */
	uint8_t port_width;  /* 4, 8, 16; 0 unknown */
	uint8_t port_mode;   /* enum etm2_port_mode */
	uint8_t half_rate;   /* ETMCR[13] clocking (informative) */
	uint8_t demux_b_first; /* demultiplexed: the B half is the earlier
				  cycle (docs/etmv2.md 1: ASSUMED A first) */
	uint8_t format;      /* enum etm2_cap_format it was read as */
	uint8_t has_pipestat; /* pipestat holds the table the capture's
				 status names were written with (text
				 header or the options) */
	uint8_t pipestat[16];
};

enum etm2_cap_format {
	etm2_cap_auto = 0, /* binary by its magic, else text */
	etm2_cap_binary,   /* "ETM2CAP" header + 4-byte records */
	etm2_cap_text,     /* one line per cycle */
	etm2_cap_etb       /* pre-CoreSight ETB RAM words (digest 9); needs
			      port width (and version) from the options */
};

/* Where and why reading a capture failed. */
struct etm2_cap_diag {
	uint64_t line;       /* text: 1-based line, else 0 */
	uint64_t offset;     /* binary/ETB: byte offset of the bad record */
	char message[160];
};

struct etm2_cap_reader;

/* Read a capture held in @data[0..n) (a mapped or read file; it must stay
 * valid until the reader is freed) of @format; @opt (may be NULL) gives
 * what the file does not (port width, version, registers; fields 0 =
 * unknown), and overrides nothing the file states: a field @opt sets
 * (non-zero, or has_*) that the file states otherwise is an error.
 * Returns 0 and sets *@rd, or -etmkit_err_format (bad magic, header;
 * *@diag filled), -etmkit_err_bad_config (no port width known, a
 * multiplexed port, an ETB capture of a demultiplexed port, options
 * that disagree with the file; *@diag filled), -etmkit_err_invalid,
 * -etmkit_err_nomem. */
int etm2_cap_open(struct etm2_cap_reader **rd, const uint8_t *data, size_t n,
		  enum etm2_cap_format format, const struct etm2_cap_info *opt,
		  struct etm2_cap_diag *diag);
void etm2_cap_close(struct etm2_cap_reader *rd);

/* The capture's header merged with the options. */
const struct etm2_cap_info *etm2_cap_get_info(const struct etm2_cap_reader *rd);

/* How many bytes of the capture the cycles read so far came from (and
 * the header): the reader's position, for progress; 0 for a NULL @rd. */
uint64_t etm2_cap_tell(const struct etm2_cap_reader *rd);

/* The next cycles, up to @max, into @out. Returns how many (>= 1), 0 at
 * the end, or -etmkit_err_format (*@diag names the line or offset) /
 * -etmkit_err_truncated (a binary record or ETB word cut short). The
 * cycles before a bad line or record are returned first; the error
 * comes from the next call, and again from every call after it. */
long etm2_cap_read(struct etm2_cap_reader *rd, struct etm2_cycle *out,
		   size_t max, struct etm2_cap_diag *diag);

/* Writers of the two own formats, used by the encoder's CLI. @sink gets
 * the bytes (exec_sink_fn, exec.h). The header states @info's fields. */
struct etm2_cap_writer;
int etm2_cap_writer_alloc(struct etm2_cap_writer **wr,
			  enum etm2_cap_format format,
			  const struct etm2_cap_info *info,
			  const struct etm2_config *cfg, /* text: names */
			  exec_sink_fn sink, void *ctx);
int etm2_cap_write(struct etm2_cap_writer *wr, const struct etm2_cycle *c,
		   size_t n);
int etm2_cap_writer_finish(struct etm2_cap_writer *wr);
void etm2_cap_writer_free(struct etm2_cap_writer *wr);

/* ---- Packets ------------------------------------------------------------ */

/* Records come in status order: each cycle's record(s), a D status
 * followed by the packets its cycle placed (their out_cycle is later).
 * A trigger record comes before the record of the status it replaced
 * (a TFO's: the tfo record). A TFO's value cycles with status TD give no
 * record (docs/etmv2.md 6). On an error the record that failed carries
 * it (reserved, branch_address in a DN group or malformed, tfo out of
 * alignment); a loss no packet explains (a WT or TD the FIFO contradicts,
 * a group owed too long, the capture ending first) is an `unsynced`
 * record of length 0 with the error, at the owing cycle. Then an
 * unsynced run covers the cycles from the first one not delivered to the
 * next TFO. A TFO the decoder fails to sync at gives no error: its
 * cycles start a new unsynced run (two runs may follow each other). */

enum etm2_pkt_type {
	etm2_pkt_unsynced = 0, /* a run of cycles outside sync: not a packet */
	etm2_pkt_tfo,          /* a TFO cycle and its packet */
	etm2_pkt_status,       /* a cycle with an instruction (IE, DE, IN, DN,
				  phantoms; ETMv1 ID, BE, BD) or DW */
	etm2_pkt_wait,         /* a run of cycles without instruction or
				  packets placed (WT, TD that is no TFO) */
	etm2_pkt_trigger,      /* a TR cycle (its replaced status comes as
				  its own record right after) */
	etm2_pkt_branch_address,
	etm2_pkt_normal_data,
	etm2_pkt_value_not_traced,
	etm2_pkt_load_miss,      /* load miss occurred */
	etm2_pkt_load_miss_data,
	etm2_pkt_context_id,
	etm2_pkt_reserved,       /* a reserved header (error) */
	etm2_pkt_type_count
};

/* "unsynced", "tfo", "status", "wait", "trigger", "branch_address",
 * "normal_data", "value_not_traced", "load_miss", "load_miss_data",
 * "context_id", "reserved"; "invalid" beyond. */
const char *etm2_pkt_type_name(unsigned type);

/* TFO reasons (Q Table 6.7). */
enum etm2_reason {
	etm2_reason_periodic = 0,
	etm2_reason_trace_on = 1,
	etm2_reason_overflow = 2,
	etm2_reason_debug_exit = 3
};

struct etm2_tfo {
	uint32_t addr;       /* instruction address (bit 0 cleared); LSiP:
				the LSM's */
	uint32_t next_addr;  /* LSiP: where execution goes on */
	uint32_t context_id;
	uint8_t offset;      /* the TFO value N: bytes skipped before it */
	uint8_t header;
	uint8_t reason;      /* enum etm2_reason */
	uint8_t lsip;
	uint8_t isa;         /* enum etmkit_isa: arm or thumb */
	uint8_t next_isa;    /* LSiP */
	uint8_t context_id_bytes;
	uint8_t first;       /* the TFO the decoder synced at (its skipped
				bytes are not attributed) */
};

/* ETMv1 branch address reason codes (Q§5.6.2; 5 to 7 reserved). 1 to 3
 * equal enum etm2_reason's values; ETMv2's periodic TFO is 0 there. */
enum etm1_reason {
	etm1_reason_normal = 0,
	etm1_reason_trace_on = 1,
	etm1_reason_overflow = 2,
	etm1_reason_debug_exit = 3,
	etm1_reason_periodic = 4  /* full address every so often, v1.2+ */
};

struct etm2_branch {
	uint32_t addr;       /* full address after merging */
	uint8_t addr_bits;   /* low bits the packet carried */
	uint8_t addr_bytes;  /* 1 to 5 */
	uint8_t isa;         /* enum etmkit_isa after the branch */
	uint8_t isa_change;  /* a 5th byte set the instruction set (ETMv1:
				address bit 0 changed it) */
	uint8_t has_reason;  /* ETMv1 5-byte address: reason holds its code */
	uint8_t reason;      /* ETMv1 reason code, enum etm1_reason */
	uint8_t first;       /* ETMv1: the branch address the decoder synced
				at (docs/etmv2.md 7b) */
};

/* normal_data, value_not_traced, load_miss, load_miss_data */
struct etm2_data {
	uint32_t addr;       /* if has_addr: full data address after merging */
	uint32_t value;      /* if has_value */
	uint8_t has_addr;
	uint8_t addr_bytes;  /* 1 to 5 */
	uint8_t addr_partial;/* no full data address since sync: the bits
				above the carried ones are unknown (0) */
	uint8_t has_value;
	uint8_t value_bytes; /* 0, 1, 2, 4 (SS) */
	uint8_t a_bit;       /* first packet of an instruction's transfers */
	uint8_t tag;         /* load miss: TT */
};

/* Largest packet kept raw: an LSiP TFO with a 4-byte context ID
 * (1 + 4 + 4 + 5 = 14); a data packet (1 + 5 + 4 = 10). */
#define ETM2_PKT_MAX_BYTES 16

struct etm2_packet {
	uint64_t cycle;      /* status, trigger, tfo: the cycle; packets: the
				cycle whose status placed them; runs: the
				first cycle */
	uint64_t out_cycle;  /* packets and tfo: the cycle that carried the
				first byte (tfo: of the TFO packet) */
	uint8_t type;        /* enum etm2_pkt_type */
	uint8_t status;      /* status: enum etm2_status (for a TR cycle, the
				replaced one; for a TFO, td); trigger: the
				replaced status */
	uint8_t size;        /* bytes stored in raw */
	uint8_t c_bit;       /* headers: C (more packets in this cycle) */
	int16_t error;       /* 0, or a negated etmkit_error: the decoder has
				dropped sync */
	uint16_t pad;
	uint32_t length;     /* runs: cycles; packets: bytes */
	union {
		struct etm2_tfo tfo;
		struct etm2_branch branch;
		struct etm2_data data;
		uint32_t context_id;
		struct {
			uint32_t wt, td; /* wait: cycles of each */
		} wait;
	} u;
	uint8_t raw[ETM2_PKT_MAX_BYTES];
	const char *why;     /* if error: what was wrong (static string) */
};

/* ---- Decoder ------------------------------------------------------------ */

struct etm2_pkt_decoder;

/* Returns 0 and sets *@dec, or -etmkit_err_invalid,
 * -etmkit_err_bad_config (etm2_config_decode() refuses), -etmkit_err_nomem. */
int etm2_pkt_alloc(struct etm2_pkt_decoder **dec,
		   const struct etm2_config *cfg);
void etm2_pkt_free(struct etm2_pkt_decoder *dec);

/* Make @cycles[0..n) the input; cycle i has index @first + i (indexes
 * must grow across feeds; a jump is a gap, as etm2_pkt_gap()). Returns 0,
 * -etmkit_err_invalid (NULL, input left undrained), or
 * -etmkit_err_bad_packet when stopped. */
int etm2_pkt_feed(struct etm2_pkt_decoder *dec,
		  const struct etm2_cycle *cycles, size_t n, uint64_t first);

/* End of input: records waiting for bytes that never came are delivered
 * with error -etmkit_err_truncated. Returns 0 or -etmkit_err_invalid. */
int etm2_pkt_finish(struct etm2_pkt_decoder *dec);

/* Decode up to @max records. Returns how many (>= 1), -etmkit_err_eos,
 * -etmkit_err_invalid, or (ETM2_CFG_STOP_ON_ERROR) -etmkit_err_bad_packet
 * after an error record. */
int etm2_pkt_next(struct etm2_pkt_decoder *dec, struct etm2_packet *pkts,
		  size_t max);

/* Cycles were lost before those fed next: drop sync (as an error does). */
int etm2_pkt_gap(struct etm2_pkt_decoder *dec);
void etm2_pkt_reset(struct etm2_pkt_decoder *dec);
int etm2_pkt_synced(const struct etm2_pkt_decoder *dec);

/* ---- Names -------------------------------------------------------------- */

/* "periodic", "trace_on", "overflow", "debug_exit". */
const char *etm2_reason_name(unsigned reason);

/* The exception of an ETMv2 exception element (ETMKIT_EXC_VECTOR: the ARM
 * vector index, docs/etmv2.md 7): "reset", "undefined_instruction",
 * "svc", "prefetch_abort", "data_abort", "reserved_5", "irq", "fiq";
 * "not_a_vector" for 0xFFFF; "invalid" beyond. */
const char *etm2_vector_name(unsigned number);

/* ---- ETMv2 trace encoder -------------------------------------------------
 *
 * Execution record items (exec.h) in, the cycles a trace port of the
 * configured ETMv2 would show for them out (docs/etmv2.md is the protocol
 * both sides follow), with a pipeline model: wait cycles (the record's
 * EXEC_F_CYCLES; 1 cycle an instruction otherwise), packets through a FIFO
 * of fifo_depth bytes drained by the port, phantoms for folded direct
 * branches, periodic TFOs every sync_period cycles, and an overflow when a
 * group does not fit: tracing stops, the FIFO drains, and a TFO of reason
 * overflow restarts it at the next instruction.
 *
 * ETMv1 (etm.version 1, or an ETMIDR with [11:8] = 0; docs/etmv2.md 7b):
 * 3-bit statuses, APO cycles, TRACESYNC, and branch addresses with a
 * reason where ETMv2 has TFOs. etm2_enc_alloc() refuses 16-bit ports,
 * fifo_latency 0, phantoms and load misses with it.
 */

/* Fold direct branches without link into phantom statuses with the
 * instruction after them (docs/etmv2.md 2). */
#define ETM2_ENC_PHANTOMS 0x1u

struct etm2_enc_config {
	size_t size;          /* sizeof(struct etm2_enc_config) */
	struct etm2_config etm; /* registers, port width, tables, latency */
	uint32_t flags;       /* ETM2_ENC_* */
	uint32_t fifo_depth;  /* bytes; 0: 64 */
	uint32_t sync_period; /* cycles between periodic TFOs; 0: 1024 */
	uint32_t miss_every;  /* data trace: every Nth load is a load miss
				 whose data comes later; 0: none */
};

void etm2_enc_config_init(struct etm2_enc_config *cfg);

/* Where the encoder writes its cycles. Returns 0 or a negated
 * etmkit_error the encoder stops with. */
typedef int (*etm2_cycle_sink_fn)(void *ctx, const struct etm2_cycle *c,
				  size_t n);

struct etm2_enc;

/* Returns 0, or -etmkit_err_invalid, -etmkit_err_bad_config,
 * -etmkit_err_nomem. */
int etm2_enc_alloc(struct etm2_enc **enc, const struct etm2_enc_config *cfg,
		   etm2_cycle_sink_fn sink, void *ctx);
/* One item. Returns 0, -etmkit_err_invalid (an item the protocol cannot
 * trace: A64, Jazelle, ThumbEE), -etmkit_err_unsupported (ETMv1 with data
 * tracing: a transfer that is not the instruction's only one, or not of 4
 * bytes; etm2_enc_refused() says which), or the sink's error. */
int etm2_enc_put(struct etm2_enc *enc, const struct exec_rec *r);
/* After -etmkit_err_unsupported: why, and the instruction's address in
 * *@addr (may be NULL); NULL when nothing was refused. */
const char *etm2_enc_refused(const struct etm2_enc *enc, uint64_t *addr);
/* Flush: drain the FIFO (WT then TD cycles). */
int etm2_enc_finish(struct etm2_enc *enc);
void etm2_enc_free(struct etm2_enc *enc);

struct etm2_enc_stats {
	uint64_t cycles, insns,
		 tfos, /* ETMv1: 5-byte branch addresses with a reason */
		 overflows, insns_lost, bytes;
};
const struct etm2_enc_stats *etm2_enc_get_stats(const struct etm2_enc *enc);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_ETM2_H */
