/* etmkit: flow decoders, trace plus program image to execution.
 *
 * Layer: flow (src/flow/), above packets and image.
 *
 * A flow decoder takes one trace source's bytes, decodes its packets with
 * the protocol's packet decoder (held inside it), and walks the program
 * image as the packets direct, delivering struct etmkit_elem records
 * (elem.h): every instruction executed, in order, and the events between
 * them. Layer 3 of the trace model (seed 002 D4.3.1); for ETMv3 layer 2
 * (speculation) is empty.
 *
 * Use (ETMv3):
 *   struct etm3_flow_config cfg;
 *   etm3_flow_config_init(&cfg);
 *   cfg.etm.etmcr = ...; cfg.image = img;
 *   etm3_flow_alloc(&dec, &cfg);
 *   for each chunk: etm3_flow_feed(dec, buf, n, NULL, base);
 *                   while ((n = etm3_flow_batch(dec, &el)) > 0) use el[];
 *   etm3_flow_finish(dec); drain etm3_flow_batch() once more;
 *   etm3_flow_free(dec);
 * As with the packet decoder, the fed buffer is not copied: drain
 * etm3_flow_batch() (or etm3_flow_next()) until -etmkit_err_eos before
 * feeding more.
 *
 * Memory is fixed at allocation: the decoder caches decoded blocks of
 * instructions (keyed by address, instruction set and memory space) in
 * cfg.cache_bytes and starts the cache afresh when it is full.
 *
 * The fast path is the block form (ETM3_FLOW_RANGES, ETM4_FLOW_RANGES):
 * each run of instructions as one insn_range element (a block: blocks.h
 * says what it holds and what comes before it). The default form, one insn
 * element per instruction, is what etmkit_insn_iter (blocks.h) makes of
 * the blocks, for those who want it.
 */
#ifndef ETMKIT_FLOW_H
#define ETMKIT_FLOW_H

#include "etmkit/common.h"
#include "etmkit/elem.h"
#include "etmkit/etm2.h"
#include "etmkit/etm3.h"
#include "etmkit/etm4.h"
#include "etmkit/image.h"
#include "etmkit/ptm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- ETMv3 -------------------------------------------------------------- */

/* Per-process images (a perf.data recording: each process has its own
 * address space, digest perf-data.md 3.11). With @image_for_context set, the
 * decoder calls it with every context element it delivers (a change of
 * context ID, VMID, exception level or security state, and the first
 * context after sync), before it reads code in that context, and reads
 * from the image it returns from then on (NULL: an empty image). The
 * block cache starts afresh when the image changes, so no instruction
 * of one image is taken for the other's. The image stays in use until the
 * next call: it must outlive it. etmX_flow_reset() keeps the current
 * image. */
typedef const struct image *(*etmkit_image_for_context_fn)(
	void *ctx, const struct etmkit_elem *context);


struct etm3_flow_config {
	size_t size;              /* sizeof(struct etm3_flow_config) */
	struct etm3_config etm;   /* the trace unit's registers and
				     ETM3_CFG_M_PROFILE / _STOP_ON_ERROR
				     (ETM3_CFG_P_HEADER_RUNS is implied) */
	const struct image *image; /* the program image; NULL: an empty
				      image (every address is no_image) */
	size_t cache_bytes;       /* block cache size; 0: 4 MiB. At least
				     64 KiB is used. */
	/* Optional (a caller built before they existed passes a smaller
	 * size and has none): */
	etmkit_image_for_context_fn image_for_context;
	void *image_ctx;          /* its first argument */
	uint32_t flags;           /* ETM3_FLOW_* */
};

/* Deliver executed instructions as insn_range elements instead of one
 * insn element each, as ETM4_FLOW_RANGES does for ETMv4: consecutive
 * instructions of one P-header (ETMv3 traces one atom per instruction,
 * IHI 0014Q 7.3.1), each the next after the one before, make one range,
 * which ends at an instruction that failed its condition (N atom), at a
 * taken branch or instruction set change, or where the P-header's atoms
 * end (a range never spans two packets). The range's flags, size and
 * opcode are its last instruction's (ETMKIT_INSN_COND_FAIL, and
 * ETMKIT_INSN_CANCEL when a Cancel follows it, as for an insn element);
 * every other instruction of it was executed. The LSiP I-sync's implied
 * instruction is a range of its own (ETMKIT_INSN_IMPLIED). The elements
 * of other kinds are the same, in the same order, and the instructions
 * the ranges stand for are the insn elements' in order.
 * Cycle-accurate trace: a range carries ETMKIT_INSN_CYCLES and cycles,
 * the sum of its instructions' cycles (the W atoms before each, as an
 * insn element counts them; saturated as there): how they split between
 * the instructions of the range is not delivered. */
#define ETM3_FLOW_RANGES 0x1u

/* Fill @cfg with defaults: zeros, etm3_config_init(&cfg->etm), size. */
void etm3_flow_config_init(struct etm3_flow_config *cfg);

struct etm3_flow_decoder;

/* Returns 0 and sets *@dec; -etmkit_err_invalid (NULL, bad sizes, flags
 * other than ETM3_FLOW_*), -etmkit_err_bad_config (ETMIDR is not ETMv3),
 * -etmkit_err_nomem. */
int etm3_flow_alloc(struct etm3_flow_decoder **dec,
		    const struct etm3_flow_config *cfg);
void etm3_flow_free(struct etm3_flow_decoder *dec);

/* As etm3_pkt_feed(): @buf (and @offsets) must stay valid until
 * etm3_flow_batch() returns -etmkit_err_eos. Returns 0,
 * -etmkit_err_invalid (NULL, input left undrained), or with
 * ETM3_CFG_STOP_ON_ERROR -etmkit_err_bad_packet once stopped. */
int etm3_flow_feed(struct etm3_flow_decoder *dec, const uint8_t *buf,
		   size_t n, const uint64_t *offsets, uint64_t base);

/* End of input; then drain etm3_flow_batch(). Returns 0 or
 * -etmkit_err_invalid. */
int etm3_flow_finish(struct etm3_flow_decoder *dec);

/* Data was lost in transport before the bytes fed next (as
 * etm3_pkt_gap()): a gap element follows. Returns 0 or
 * -etmkit_err_invalid (NULL, input left undrained). */
int etm3_flow_gap(struct etm3_flow_decoder *dec);

/* The next elements, zero-copy: *@elems points to the returned number of
 * elements inside the decoder, valid until the next call to any
 * etm3_flow_ function for @dec. Returns how many (>= 1),
 * -etmkit_err_eos when the input fed so far is used up,
 * -etmkit_err_invalid, or with ETM3_CFG_STOP_ON_ERROR
 * -etmkit_err_bad_packet after the gap element of the first error.
 * An instruction is delivered once the packets after it show whether it
 * was canceled (ETMKIT_INSN_CANCEL), so the last one may wait for more
 * input or for etm3_flow_finish(); if the decoder's queue of 256 elements
 * fills up behind it, it is delivered as it is (the exception's
 * ETMKIT_EXC_CANCEL still says).
 * Output depends only on the input, not on how it was fed. */
int etm3_flow_batch(struct etm3_flow_decoder *dec,
		    const struct etmkit_elem **elems);

/* As etm3_flow_batch(), copying up to @max elements into @elems. Use one
 * of the two for a decoder, not both. */
int etm3_flow_next(struct etm3_flow_decoder *dec, struct etmkit_elem *elems,
		   size_t max);

/* Forget all trace state (the block cache is kept: the image is the
 * same). */
void etm3_flow_reset(struct etm3_flow_decoder *dec);

struct etm3_flow_stats {
	uint64_t packets;       /* packet records read (a P-header run counts
				   its headers) */
	uint64_t insns;         /* insn elements delivered */
	uint64_t atoms_lost;    /* E/N atoms with no known instruction
				   (before the first I-sync, after no_image
				   or a gap) */
	uint64_t blocks;        /* instruction blocks decoded */
	uint64_t cache_flushes; /* times the block cache was started afresh */
};

/* Counters since allocation (or reset). NULL for NULL. */
const struct etm3_flow_stats *etm3_flow_get_stats(
	const struct etm3_flow_decoder *dec);

/* ---- ETMv4 and ETE ------------------------------------------------------
 *
 * The ETMv4/ETE flow decoder stacks the three layers of seed 002 D4.3.1:
 * packets (etm4_pkt_*), speculation resolution (P0 elements wait until a
 * Commit, or until more than TRCIDR8.MAXSPEC are outstanding; Cancel,
 * Mispredict and Discard correct them; D4.3.3, D4.3.8), and the program
 * walk: from each committed atom's start address through the image to the
 * next P0 instruction (branch, ISB, and WFI/WFE when TRCIDR2.WFXMODE is
 * set, TSTART), with the return stack when TRCCONFIGR.RS is set.
 *
 * Only committed execution is delivered. An insn element carries
 * ETMKIT_INSN_EXEC, except a not-taken P0 instruction, which carries
 * ETMKIT_INSN_COND_FAIL instead (as an ETMv3 N atom). The instruction that
 * ends a range (an atom's P0 instruction, a source address, a Q's last)
 * carries ETMKIT_INSN_P0; P0 instructions a source address passes without
 * taking them carry COND_FAIL without P0, since the range runs on.
 * Transactions (ETE) are delivered as they are traced: a transaction
 * element with etmkit_txn_fail tells the consumer that everything since
 * the matching etmkit_txn_start did not happen (seed 002 D4.3.11).
 *
 * The functions behave as their etm3_flow_* namesakes.
 */

/* Deliver executed instructions as insn_range elements instead of one
 * insn element each: consecutive instructions of one packet, each the
 * next after the one before, make one range, which ends at a P0
 * instruction or a COND_FAIL one (whose flags it then carries), or where
 * the packet's instructions end (a range never spans two packets). The
 * sequence of instructions is the same in both forms; ranges cost the
 * decoder and its consumer far less per instruction. */
#define ETM4_FLOW_RANGES 0x1u

/* With ETM4_FLOW_RANGES, for consumers that count what ran (profiles):
 * the common range, a whole cached block from its first instruction to
 * the P0 instruction that ends it, after a range that ended (not one a
 * packet cut), is counted inside the decoder instead of written out, and
 * delivered later as one insn_range element per range and outcome (taken:
 * ETMKIT_INSN_EXEC, not: COND_FAIL; both with P0) with u.range.repeats
 * the extra runs. The instructions and ranges delivered are the same as
 * without it; what is lost is their order among ranges and their packet
 * offsets (a counted range carries the offset of its first run): every
 * counted range comes after the elements of other kinds that preceded
 * its runs and before those that followed them, and a range a packet
 * cut is followed by its rest, as without the flag. Counted ranges wait
 * across feeds: they come with the next element of another kind, when a
 * table of 256 ranges needs the room, or at the end of the trace
 * (etm4_flow_finish()), and the instruction count of the stats includes
 * them from the start. So much cheaper per range that a profile costs
 * less than the plain ranges decode (bench/README.md). */
#define ETM4_FLOW_TALLY 0x2u

/* With ETM4_FLOW_RANGES, for consumers of taken-branch traces (BOLT's
 * and llvm-profgen's ranges and branches, digest perf-data.md 4c, 4d),
 * in place of ETM4_FLOW_TALLY: a trace is what runs from the target of
 * a taken branch to the next taken branch, through branches not taken
 * (and ISB, WFx, TSTART, whose atoms take nothing). A trace walked as
 * whole cached blocks after a range that ended, ended by a taken branch
 * and followed by another such block, is counted inside the decoder by
 * its start, its end and its branch's target, where that block starts
 * (for a direct branch too: a Target Address packet may move the walk
 * where the image is not what ran). It is delivered later as one
 * branch_run element per distinct trace (elem.h: u.brun, repeats the
 * extra runs). The counted traces come in the order in which each first
 * ran, before any element of another kind or any insn_range that
 * followed them, so that the first run of the first one delivered is
 * the trace that ran right after the element before it: it goes on from
 * that element's range when it starts where that range ends, and it is
 * where that element's taken branch went, when that element is no
 * branch_run (a trace that finds no room delivers the table before it
 * counts itself: then the first one delivered is the first that ran
 * since the last delivery). The trace walked last, not
 * counted (not ended, or not followed by a block yet) when another
 * element comes, or cut where an address packet moves the walk between
 * its blocks, is delivered before it as one insn_range element from
 * the trace's start to the last block's P0 instruction, with that one's
 * flags: such a range may pass P0 instructions not taken, as a
 * branch_run does. Counted traces wait across feeds as ETM4_FLOW_TALLY's
 * ranges do (a table of 256, all delivered when a new trace finds no
 * room). The order of calls and returns among counted traces is lost:
 * not for call-context profiles. Requires ETM4_FLOW_RANGES; excludes
 * ETM4_FLOW_TALLY. */
#define ETM4_FLOW_TRACES 0x4u

struct etm4_flow_config {
	size_t size;              /* sizeof(struct etm4_flow_config) */
	struct etm4_config etm;   /* the trace unit's registers */
	const struct image *image; /* NULL: an empty image */
	size_t cache_bytes;       /* block cache size; 0: 4 MiB */
	uint32_t flags;           /* ETM4_FLOW_* */
	/* Optional, as in struct etm3_flow_config: */
	etmkit_image_for_context_fn image_for_context;
	void *image_ctx;
};

void etm4_flow_config_init(struct etm4_flow_config *cfg);

struct etm4_flow_decoder;

/* Returns 0 and sets *@dec; -etmkit_err_invalid (NULL, bad sizes),
 * -etmkit_err_bad_config (etm4_config_decode() refuses the registers),
 * -etmkit_err_unsupported (conditional-instruction or data trace is
 * enabled: the flow decoder follows instruction trace only),
 * -etmkit_err_nomem. */
int etm4_flow_alloc(struct etm4_flow_decoder **dec,
		    const struct etm4_flow_config *cfg);
void etm4_flow_free(struct etm4_flow_decoder *dec);
int etm4_flow_feed(struct etm4_flow_decoder *dec, const uint8_t *buf,
		   size_t n, const uint64_t *offsets, uint64_t base);
int etm4_flow_finish(struct etm4_flow_decoder *dec);
int etm4_flow_gap(struct etm4_flow_decoder *dec);
int etm4_flow_batch(struct etm4_flow_decoder *dec,
		    const struct etmkit_elem **elems);
int etm4_flow_next(struct etm4_flow_decoder *dec, struct etmkit_elem *elems,
		   size_t max);
void etm4_flow_reset(struct etm4_flow_decoder *dec);

struct etm4_flow_stats {
	uint64_t packets;       /* packet records read */
	uint64_t insns;         /* instructions delivered (insn elements, or
				   the instructions of insn_range ones) */
	uint64_t atoms_lost;    /* committed P0 elements with no known
				   instruction (address unknown, no image) */
	uint64_t blocks;        /* instruction blocks decoded */
	uint64_t cache_flushes; /* times the block cache was started afresh */
	uint64_t protocol_errors; /* reserved or malformed packets, and
				     resolution errors: commit or cancel of
				     more elements than were speculative,
				     queue overrun (not a packet cut by the
				     end of the input: a gap of reason
				     etmkit_loss_truncated) */
};

const struct etm4_flow_stats *etm4_flow_get_stats(
	const struct etm4_flow_decoder *dec);

/* ---- PTM (PFTv1.0, PFTv1.1) ----------------------------------------------
 *
 * The PTM flow decoder walks the image from waypoint to waypoint (IHI
 * 0035B 4.3; digest ptm.md 4.3, 4.4): each atom takes the walk through the
 * instructions that are not waypoints up to and including the next
 * waypoint, which executed (E, ETMKIT_INSN_EXEC) or failed its condition
 * (N, ETMKIT_INSN_COND_FAIL), then on to its target when it is a taken
 * direct branch; a branch address packet that is no exception stands for
 * an E atom whose waypoint goes to the packet's address; an exception's
 * branch address packet goes to the handler from where the walk stands
 * (after a waypoint update, from past its address), with the preferred
 * return address in the exception element; with the return stack on
 * (ETMCR[29]), a return whose atom came without an address goes to the
 * address the decoder's model stack pops. Cycle-accurate trace: each
 * atom's and branch packet's cycle count goes on the waypoint it traces
 * (ETMKIT_INSN_CYCLES; in the ranges form, on the range it ends); every
 * other instruction carries ETMKIT_INSN_CYCLES with 0 cycles. A count
 * that traces no waypoint, an exception's or a timestamp's (the cycles
 * since the count before, IHI 0035B 4.4), comes as a cycle_count element
 * before the exception or timestamp element; an I-sync's, as the
 * trace_on element's cycles (not from PFTv1.1 after an overflow or debug
 * state, where it is unknown).
 *
 * The waypoints are the branches, ISB, and with ETMCCER[24] DMB and DSB
 * (INSN_F_BARRIER). An N atom's waypoint carries ETMKIT_INSN_COND_FAIL;
 * a branch a waypoint update's walk passes (it went on, not taken) too.
 * A ThumbEE ENTERX or LEAVEX is no waypoint: the walk goes on in the
 * other instruction set. The return stack starts empty at every I-sync;
 * a branch with link traced taken pushes the address after it; an E atom
 * that comes alone for an indirect branch pops.
 *
 * The functions behave as their etm3_flow_* namesakes.
 */

/* Deliver executed instructions as insn_range elements, one per run of
 * instructions an atom or address packet walks (a range ends at the
 * waypoint, whose flags and cycles it carries, or where the instruction
 * set changes; a range never spans two packets). The instructions the
 * ranges stand for are the insn elements' in order; the other elements
 * are the same. */
#define PTM_FLOW_RANGES 0x1u

struct ptm_flow_config {
	size_t size;              /* sizeof(struct ptm_flow_config) */
	struct ptm_config ptm;    /* the trace unit's registers and
				     PTM_CFG_STOP_ON_ERROR */
	const struct image *image; /* NULL: an empty image */
	size_t cache_bytes;       /* block cache size; 0: 4 MiB */
	uint32_t flags;           /* PTM_FLOW_* */
	/* Optional, as in struct etm3_flow_config: */
	etmkit_image_for_context_fn image_for_context;
	void *image_ctx;
};

void ptm_flow_config_init(struct ptm_flow_config *cfg);

struct ptm_flow_decoder;

/* Returns 0 and sets *@dec; -etmkit_err_invalid (NULL, bad sizes, flags
 * other than PTM_FLOW_*), -etmkit_err_bad_config (ETMIDR is not PFT),
 * -etmkit_err_nomem. */
int ptm_flow_alloc(struct ptm_flow_decoder **dec,
		   const struct ptm_flow_config *cfg);
void ptm_flow_free(struct ptm_flow_decoder *dec);
int ptm_flow_feed(struct ptm_flow_decoder *dec, const uint8_t *buf,
		  size_t n, const uint64_t *offsets, uint64_t base);
int ptm_flow_finish(struct ptm_flow_decoder *dec);
int ptm_flow_gap(struct ptm_flow_decoder *dec);
int ptm_flow_batch(struct ptm_flow_decoder *dec,
		   const struct etmkit_elem **elems);
int ptm_flow_next(struct ptm_flow_decoder *dec, struct etmkit_elem *elems,
		  size_t max);
void ptm_flow_reset(struct ptm_flow_decoder *dec);

struct ptm_flow_stats {
	uint64_t packets;       /* packet records read */
	uint64_t insns;         /* instructions delivered (insn elements, or
				   the instructions of insn_range ones) */
	uint64_t atoms_lost;    /* atoms with no known instruction (before
				   the first I-sync, after no_image or a
				   gap) */
	uint64_t blocks;        /* instruction blocks decoded */
	uint64_t cache_flushes; /* times the block cache was started afresh */
};

const struct ptm_flow_stats *ptm_flow_get_stats(
	const struct ptm_flow_decoder *dec);

/* ---- ETMv2 (and ETMv1) ----------------------------------------------------
 *
 * The ETMv2 flow decoder is fed capture cycles (etm2.h), not bytes, and
 * walks the image one instruction per executed status (docs/etmv2.md 7):
 * IE/DE executed (ETMKIT_INSN_EXEC; a taken direct branch goes to its
 * target), IN/DN failed their condition (ETMKIT_INSN_COND_FAIL), a phantom
 * status is the folded direct branch (taken or not) then the instruction
 * after it; a periodic TFO stands for an IE at its address. A branch
 * address in an instruction's group is where it went; in a DW group it is
 * an exception entry (exception element, ETMKIT_EXC_VECTOR). Data packets
 * become data elements after their instruction (load miss data matched to
 * its miss by tag: ETMKIT_DATA_OOO). Every element's offset is the cycle
 * index of the status that made it. Cycle-accurate: an insn's cycles are
 * the cycles since the previous instruction's status.
 *
 * ETMv1 (etm2_config.version 1; docs/etmv2.md 7b): ID is an executed
 * instruction with its data (one 4-byte transfer), BE one whose branch
 * address follows, BD both; trace starts (trace_on) at the first branch
 * address with 5 bytes and a reason, and restarts at one of reason 1 to
 * 3; a BE or BD to an exception vector is an exception entry.
 *
 * The functions behave as their etm3_flow_* namesakes, except feed, which
 * takes cycles.
 */

/* insn_range elements instead of insn elements (as ETM3_FLOW_RANGES):
 * consecutive instructions, each the next after the one before, make one
 * range, across statuses (the range's offset is its first instruction's
 * cycle); it ends at an instruction that failed its condition (whose
 * flags it then carries), at a branch or instruction set switch, at a
 * status that placed packets, at an LSiP TFO's implied instruction, or
 * where an element of another kind comes. The last range waits for the
 * next instruction until etm2_flow_finish(), so that ranges do not
 * depend on how the input is fed. Cycle-accurate: a range's cycles are
 * its instructions' sum. */
#define ETM2_FLOW_RANGES 0x1u

struct etm2_flow_config {
	size_t size;              /* sizeof(struct etm2_flow_config) */
	struct etm2_config etm;   /* the trace unit and its port */
	const struct image *image; /* NULL: an empty image */
	size_t cache_bytes;       /* block cache size; 0: 4 MiB */
	uint32_t flags;           /* ETM2_FLOW_* */
	etmkit_image_for_context_fn image_for_context;
	void *image_ctx;
};

void etm2_flow_config_init(struct etm2_flow_config *cfg);

struct etm2_flow_decoder;

int etm2_flow_alloc(struct etm2_flow_decoder **dec,
		    const struct etm2_flow_config *cfg);
void etm2_flow_free(struct etm2_flow_decoder *dec);
int etm2_flow_feed(struct etm2_flow_decoder *dec,
		   const struct etm2_cycle *cycles, size_t n, uint64_t first);
int etm2_flow_finish(struct etm2_flow_decoder *dec);
int etm2_flow_gap(struct etm2_flow_decoder *dec);
int etm2_flow_batch(struct etm2_flow_decoder *dec,
		    const struct etmkit_elem **elems);
int etm2_flow_next(struct etm2_flow_decoder *dec, struct etmkit_elem *elems,
		   size_t max);
void etm2_flow_reset(struct etm2_flow_decoder *dec);

struct etm2_flow_stats {
	uint64_t cycles;        /* capture cycles read */
	uint64_t packets;       /* packet records read */
	uint64_t insns;         /* instructions delivered */
	uint64_t statuses_lost; /* instruction statuses with no known
				   instruction (before sync, after no_image
				   or a gap) */
	uint64_t blocks;
	uint64_t cache_flushes;
	uint64_t protocol_errors;
};

const struct etm2_flow_stats *etm2_flow_get_stats(
	const struct etm2_flow_decoder *dec);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_FLOW_H */
