/* Block cache: instructions classified once, walked many times (internal).
 *
 * A block is a run of instructions that execution enters at its first and
 * leaves after its last: it ends at the first instruction that may branch
 * or switch instruction set, or after FLOW_BLOCK_MAX instructions (a few
 * more to end an IT block), or where the image's bytes end. Blocks are keyed by start address,
 * instruction set and memory space, and remember their successors (the
 * block after the last instruction, and the direct branch target), so a
 * walk follows pointers and hashes only at indirect branches.
 *
 * All blocks live in one arena of fixed size. When it is full the cache
 * starts afresh (every block pointer becomes invalid): callers keep
 * addresses, not pointers, across flow_cache_get() calls, or compare
 * flow_cache_generation() before and after.
 */
#ifndef ETMKIT_FLOW_BLOCK_H
#define ETMKIT_FLOW_BLOCK_H

#include "etmkit/elem.h"
#include "etmkit/image.h"
#include "etmkit/insn.h"

#define FLOW_BLOCK_MAX 32
/* Indirect-branch targets a block remembers (ind[]). Callgrind,
 * bench_etm4_flow --mb 4, tme_test's returns (M instructions): 2 of them
 * 505, 4 494, 5 495, 6 489, 7 491, 8 492 (not monotonic: the guess loop
 * is inlined into the walk's hot loop, and its size moves that loop's
 * registers); TC2 ETMv3 532, 530 with 4 and 6; juno_r1_1 and the small
 * ETE corpus within 0.3 M. */
#define FLOW_IND 6
#define FLOW_FRONT_BITS 11
#define FLOW_FRONT (1u << FLOW_FRONT_BITS) /* struct flow_cache's front */

/* One instruction, laid out as bytes 8..32 of its insn element (struct
 * etmkit_elem: addr, kind/isa/size/flags, cycles, u.insn), so that an
 * element is a copy of it with offset and cycles stored over: `last` sits
 * where cycles go. head[3] holds the flags of an executed instruction (the
 * cache's insn_flags); a failed one's are one more (ETMKIT_INSN_COND_FAIL
 * = ETMKIT_INSN_EXEC + 1). */
struct flow_insn {
	uint64_t addr;
	uint8_t head[4]; /* kind, isa, size, flags */
	uint32_t last;   /* 1 for the block's last instruction */
	uint32_t opcode;
	uint32_t flags;  /* INSN_F_*; COND also inside a T32 IT block */
};

/* The whole block as one instruction range, laid out as bytes 8..48 of
 * its insn_range element (struct etmkit_elem: addr, kind/isa/size/flags,
 * cycles, u.range), so that a range element of the whole block is a copy
 * of it with offset (and flags) stored over. flags is ETMKIT_INSN_EXEC. */
struct flow_range {
	uint64_t addr;
	uint8_t head[4]; /* etmkit_elem_insn_range, isa, last size, flags */
	uint32_t cycles; /* 0 */
	uint32_t opcode; /* the last instruction's */
	uint32_t class_flags;
	uint64_t end;    /* the address after the last instruction */
	uint32_t count;  /* n */
	uint32_t pad;
};

/* The first 64 bytes (one cache line: blocks are 64-byte aligned in the
 * arena) hold what a walk from block to block reads: the range template,
 * the successors, the key's instruction set and memory space, the size. */
struct flow_block {
	struct flow_range range;     /* the whole block as a range */
	struct flow_block *succ[2];  /* [0] after the last instruction falls
					through, [1] after it branches (direct)
					or switches ISA; NULL until known */
	uint16_t len;                /* bytes */
	uint8_t n;                   /* instructions, 1..FLOW_BLOCK_MAX (+4 to
					end an IT block) */
	uint8_t isa, space;
	uint8_t target_isa;
	uint64_t start;              /* = range.addr */
	uint64_t target;             /* last instruction: direct target, or
					the next address of an ISA switch */
	struct flow_block *hnext;    /* hash chain */
	struct flow_block *ind[FLOW_IND];   /* the last FLOW_IND
					targets of its indirect branch that a
					lookup found, [0] the latest (guesses,
					checked before use; ETMv3 and
					ETMv4/ETE), or NULL: a branch that
					goes to a few places (a return to a
					few callers) finds each without one */
	struct flow_insn insn[];
};

struct flow_cache {
	const struct image *image;
	uint8_t *arena;              /* FLOW_ALIGN-aligned, in: */
	void *arena_mem;             /* the allocation (freed) */
	size_t cap, used;
	struct flow_block **buckets;
	uint32_t bits;               /* log2 of the bucket count */
	struct flow_block *front[FLOW_FRONT]; /* the last block found for
					each address hash, looked at before
					the buckets: a few KiB that stay in
					cache where the buckets (one per
					128 bytes of arena) do not */
	uint64_t blocks;             /* built since init */
	uint64_t flushes;            /* the generation */
	uint8_t insn_flags;          /* head[3] of every instruction */
	uint64_t miss_addr[256];     /* recent addresses with no code (the
					image does not change) */
	uint16_t miss_tag[256];      /* their isa << 8 | space, 0: empty */
	uint8_t miss_loss[256];      /* their etmkit_loss */
	uint64_t lo, hi;             /* the image's regions span [lo, hi]:
					no code outside (lo > hi: none) */
	size_t nregions;             /* the region count they cover */
	uint32_t end_flags;          /* INSN_F_* that end a block: where
					the flow can leave it. ETMv3 (the
					default): BRANCH | ISA_SWITCH; ETMv4
					and ETE: their P0 instructions */
};

/* @bytes of memory in all (arena and buckets); at least 64 KiB is used.
 * @insn_flags: the element flags of an executed instruction, for
 * head[3].
 * The block ends are INSN_F_BRANCH | INSN_F_ISA_SWITCH unless
 * flow_cache_set_ends() says otherwise before the first lookup.
 * Returns 0 or -etmkit_err_nomem. */
int flow_cache_init(struct flow_cache *c, const struct image *img,
		    size_t bytes, uint8_t insn_flags);
void flow_cache_fini(struct flow_cache *c);

/* Read from @img from now on (a flow decoder's image_for_context hook
 * chose another process's image): when it differs from the current one
 * the cache starts afresh and forgets its misses, so no block or miss of
 * the old image serves the new one (every block pointer becomes invalid,
 * as after a full arena). */
void flow_cache_set_image(struct flow_cache *c, const struct image *img);

/* The image may have gained regions since the last call (images are
 * built between decoder calls, image.h): take them into the span
 * flow_cache_outside() and flow_cache_get() check. Call at the start of
 * each decoder call that may look blocks up. */
void flow_cache_sync(struct flow_cache *c);

/* Whether @addr lies outside every region of the image (as of the last
 * flow_cache_sync()): no code there, no lookup needed. */
static inline int flow_cache_outside(const struct flow_cache *c,
				     uint64_t addr)
{
	return addr < c->lo || addr > c->hi;
}

/* The block that starts at @addr in @isa, seen from @space: found, or
 * built from the image. NULL when the image has no instruction there;
 * then *@loss is etmkit_loss_unmapped or etmkit_loss_cut. May start the
 * cache afresh. */
struct flow_block *flow_cache_get(struct flow_cache *c, uint64_t addr,
				  uint8_t isa, uint8_t space, uint8_t *loss);

/* The key's hash: its top bits index the buckets and the front. */
static inline uint64_t flow_cache_hash(uint64_t addr, uint8_t isa,
				       uint8_t space)
{
	uint64_t k = addr ^ ((uint64_t)isa << 56) ^ ((uint64_t)space << 48);

	return k * 0x9e3779b97f4a7c15ull;
}

/* The block flow_cache_get() would return at once, from the front: the
 * last block found for the key's hash, if it has the key; else NULL (ask
 * flow_cache_get()). Inline, for a caller's hot path: no call, no
 * registers saved. */
static inline struct flow_block *flow_cache_front(const struct flow_cache *c,
						  uint64_t addr, uint8_t isa,
						  uint8_t space)
{
	uint64_t k = flow_cache_hash(addr, isa, space);
	struct flow_block *b = c->front[k >> (64 - FLOW_FRONT_BITS)];

	if (b && b->range.addr == addr && b->isa == isa && b->space == space)
		return b;
	return NULL;
}

/* Which instructions end a block (INSN_F_* mask, BRANCH always
 * included). Call before any flow_cache_get(). */
static inline void flow_cache_set_ends(struct flow_cache *c, uint32_t flags)
{
	c->end_flags = flags | INSN_F_BRANCH;
}

static inline uint64_t flow_cache_generation(const struct flow_cache *c)
{
	return c->flushes;
}

/* The address after @b's last instruction. */
static inline uint64_t flow_block_end(const struct flow_block *b)
{
	return b->start + b->len;
}

/* Whether @g (a guess, or NULL) is the block of key @addr, @isa,
 * @space. */
static inline int flow_guess_is(const struct flow_block *g, uint64_t addr,
				uint8_t isa, uint8_t space)
{
	return g && g->range.addr == addr && g->isa == isa && g->space == space;
}

/* The one of @f's indirect-target guesses (ind[]) that is the block of
 * key @addr, @isa, @space, or NULL. The caller checks that the cache is
 * still at the generation @f was seen in. */
static inline struct flow_block *flow_ind_guess(const struct flow_block *f,
						uint64_t addr, uint8_t isa,
						uint8_t space)
{
	for (unsigned i = 0; i < FLOW_IND; i++) {
		struct flow_block *g = f->ind[i];

		if (flow_guess_is(g, addr, isa, space))
			return g;
	}
	return NULL;
}

/* A lookup found @b (same generation) as the target of @f's indirect
 * branch: the latest guess, the oldest dropped. A hit leaves their order
 * as it is: replacing the oldest at the next miss measured better
 * (tme_test, two guesses) than keeping the one hit last. */
static inline void flow_ind_note(struct flow_block *f, struct flow_block *b)
{
	if (f->ind[0] != b) {
		for (unsigned i = FLOW_IND - 1; i > 0; i--)
			f->ind[i] = f->ind[i - 1];
		f->ind[0] = b;
	}
}

#endif
