/* etmkit: blocks, the fast path, and the instructions inside them.
 *
 * Layer: flow (src/flow/), over the flow decoders' output (flow.h).
 *
 * A block is a run of instructions executed one after another: from
 * addr to u.range.end (exclusive) in instruction set isa, u.range.count
 * of them, each the next in memory after the one before. It is an
 * etmkit_elem_insn_range element (elem.h), what ETM3_FLOW_RANGES and
 * ETM4_FLOW_RANGES (flow.h) make every protocol's flow decoder deliver:
 *   addr, u.range.end    first instruction, the address after the last
 *   u.range.count        instructions (1 or more)
 *   isa                  enum etmkit_isa of all of them
 *   size, u.range.opcode, u.range.class_flags
 *                        the last instruction's bytes, opcode (as
 *                        insn_info.opcode) and INSN_F_* class: the kind
 *                        of instruction that ends the block (a branch,
 *                        ISB, WFx, or none where a packet's atoms end)
 *   flags                the last instruction's ETMKIT_INSN_* (EXEC,
 *                        COND_FAIL, CANCEL, IMPLIED, P0, CYCLES); every
 *                        other instruction of the block was executed
 *   cycles               ETMKIT_INSN_CYCLES: the sum of its instructions'
 *   offset               the input offset of the packet that traced it
 * What comes before a block is what came before its first instruction
 * in the per-instruction form, in the same order: trace_on, context
 * (which memory space and, for perf.data, which process image the
 * block's code is read from), exceptions, timestamps, gaps. A block never
 * spans two packets, so it is as precise in time as its instructions.
 *
 * Blocks cost the decoder and its consumer a fraction of what one element
 * per instruction does: a profile or a coverage count adds a block's
 * count in one step. Those who want one record per instruction iterate a
 * block with struct etmkit_insn_iter, below, and pay for that alone:
 *
 *   struct etmkit_insn_iter it;
 *   struct etmkit_elem insn[64];
 *   etmkit_insn_iter_init(&it, img, IMAGE_SPACE_ANY);
 *   for each element e the decoder delivers, in order:
 *     if (e->kind == etmkit_elem_context)
 *       etmkit_insn_iter_context(&it, e);   (and a new image if the
 *                                            decoder's image_for_context
 *                                            gives one: _set_image())
 *     if (e->kind == etmkit_elem_insn_range) {
 *       etmkit_insn_iter_start(&it, e);
 *       while ((n = etmkit_insn_iter_next(&it, insn, 64)) > 0) use insn[];
 *     }
 *
 * The iterator gives each instruction as the insn element the decoder's
 * per-instruction form (flags without ETM3_FLOW_RANGES / ETM4_FLOW_RANGES)
 * delivers for it: addr, isa, size, u.insn.opcode, u.insn.class_flags and
 * offset; flags ETMKIT_INSN_EXEC for every instruction but the last,
 * which has the block's. Except:
 *   - cycles (ETMv3 cycle-accurate trace): a block carries the sum of
 *     its instructions' cycles, not how they split. The last instruction
 *     gets the sum, with ETMKIT_INSN_CYCLES; the others get 0 cycles and
 *     no ETMKIT_INSN_CYCLES (not known), where the per-instruction form
 *     gives each its own. So the cycles of the instructions that carry
 *     ETMKIT_INSN_CYCLES add up to the same total, and the time at the
 *     end of each block is the same;
 *   - T32 IT blocks: an instruction inside one has INSN_F_COND in its
 *     class. The iterator knows that from the IT instruction, which may be
 *     in an earlier block: it carries the IT state from a block to the
 *     next when the next starts where the one before ended, in the same
 *     instruction set. The decoder knows it within its cached blocks
 *     (src/flow/block.h), which a walk may enter inside an IT block (at an
 *     I-sync or a block end other than a branch): there the iterator's
 *     class has INSN_F_COND where the per-instruction form's has not;
 *   - u.range.repeats (ETM4_FLOW_TALLY): the iterator gives one run;
 *   - ETM4_FLOW_TRACES ranges may pass P0 instructions not taken: the
 *     iterator flags them executed, as the range does.
 * branch_run elements are not blocks of known length: not iterated.
 *
 * The state is a fixed struct the caller owns; nothing is allocated.
 * Reading code for a block reads the image (image_read(), the block's
 * bytes and a few after them, at most ETMKIT_INSN_ITER_BYTES at a time),
 * the same bytes the decoder read if the image and memory space are the
 * ones it used; the state remembers up to ETMKIT_INSN_ITER_CACHE
 * instructions classified (by address and instruction set, forgotten when
 * the memory space or the image changes), so code that runs again costs
 * a look-up per instruction.
 */
#ifndef ETMKIT_BLOCKS_H
#define ETMKIT_BLOCKS_H

#include "etmkit/common.h"
#include "etmkit/elem.h"
#include "etmkit/image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of code the iterator holds at once. */
#define ETMKIT_INSN_ITER_BYTES 256
/* Instructions it remembers classified (a power of 2). */
#define ETMKIT_INSN_ITER_CACHE 4096

/* One classified instruction (private). */
struct etmkit_insn_iter_entry {
	uint64_t addr;
	uint32_t opcode;
	uint32_t info;        /* INSN_F_* (bits 0-16), IT mask (17-20),
				 isa (21-23; 0: empty), size (24-31) */
};

/* Caller-owned iterator state, about 65 KiB (allocate it, or make it
 * static, rather than put it on a small stack); its fields are private. */
struct etmkit_insn_iter {
	const struct image *image;
	uint64_t addr;        /* the next instruction */
	uint64_t end;         /* the block's end */
	uint64_t offset;      /* the block's offset */
	uint64_t buf_addr;    /* buf[0]'s address */
	uint64_t it_at;       /* where the IT state applies */
	uint32_t left;        /* instructions still to give */
	uint32_t cycles;      /* the block's */
	uint32_t last_opcode; /* the block's last instruction: */
	uint8_t last_size;
	uint8_t last_flags;   /* the block's flags */
	uint8_t isa;
	uint8_t space;        /* IMAGE_SPACE_* read */
	uint8_t it_left;      /* T32 IT: instructions of an IT block left */
	uint8_t it_isa;
	uint8_t err;          /* an error to return next (positive) */
	uint16_t buf_len;     /* bytes in buf */
	uint8_t buf[ETMKIT_INSN_ITER_BYTES];
	/* Instructions classified in this memory space, by address and
	 * instruction set, so that code run again is not read and
	 * classified again. */
	struct etmkit_insn_iter_entry cache[ETMKIT_INSN_ITER_CACHE];
};

/* The memory space (IMAGE_SPACE_*, image.h) a flow decoder reads code
 * from after context element @ctx: ETMv3 from its NS and Hyp bits (Secure:
 * IMAGE_SPACE_S), ETMv4 and ETE (ETMKIT_CTX_EL) from its exception level
 * and security state. IMAGE_SPACE_ANY for NULL or another kind. */
uint8_t etmkit_context_space(const struct etmkit_elem *ctx);

/* Threads: an iterator belongs to one thread at a time; several iterators
 * may read one image at once (the image is only read).
 *
 * Start @it with no block: code is read from @img (NULL: an empty image)
 * as seen from memory space @space (IMAGE_SPACE_ANY until the decoder
 * delivers a context: flow decoders read any space before one). */
void etmkit_insn_iter_init(struct etmkit_insn_iter *it,
			   const struct image *img, uint8_t space);

/* Read from @img from now on (a flow decoder's image_for_context gave
 * another image at a context element), forgetting every instruction
 * classified: call it with the same image when regions were added to it
 * (images are built between decoder calls, image.h). */
void etmkit_insn_iter_set_image(struct etmkit_insn_iter *it,
				const struct image *img);

/* Context element @ctx was delivered: read from its memory space
 * (etmkit_context_space()) from now on. Returns 0, or -etmkit_err_invalid
 * for NULL or an element of another kind. */
int etmkit_insn_iter_context(struct etmkit_insn_iter *it,
			     const struct etmkit_elem *ctx);

/* Iterate block @range (an insn_range element, which need not outlive
 * the call) from its first instruction; a block not fully iterated is
 * dropped. Returns 0, or -etmkit_err_invalid for NULL, an element of
 * another kind, a count of 0, an instruction set other than A32, T32,
 * ThumbEE, Jazelle and A64, or an end not after addr (in A32, T32,
 * ThumbEE and Jazelle: beyond 2^32); then nothing is iterated. */
int etmkit_insn_iter_start(struct etmkit_insn_iter *it,
			   const struct etmkit_elem *range);

/* The next instructions of the block: fills @out[0..n) with up to @max
 * insn elements and returns n (>= 1); -etmkit_err_eos when the block's
 * instructions have all been given (or none was started);
 * -etmkit_err_invalid for NULL or @max 0. When the image does not hold
 * the block's code (another image or space than the decoder read, or an
 * image changed since): -etmkit_err_not_found where no byte of the image
 * is at the next instruction's address, or too few to classify it;
 * -etmkit_err_format where the instructions read do not make the block
 * (the count ends before or after u.range.end, or the last instruction's
 * size or opcode differs). Instructions read before such an error in
 * the same call are returned first, the error on the next call; then the
 * block is dropped (-etmkit_err_eos after it). */
int etmkit_insn_iter_next(struct etmkit_insn_iter *it,
			  struct etmkit_elem *out, size_t max);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_BLOCKS_H */
