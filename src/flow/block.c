/* Block cache: see block.h. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "flow/block.h"

#define FLOW_CACHE_MIN (64u * 1024u)
/* A block may run up to 4 instructions past FLOW_BLOCK_MAX to end an IT
 * block (which covers at most 4): the conditions of an IT block's
 * instructions are known only within the block holding its IT. */
#define FLOW_BLOCK_LIMIT (FLOW_BLOCK_MAX + 4)
/* Bytes read from the image per block: that many 4-byte instructions and
 * the longest classification window after them. */
#define FLOW_READ (FLOW_BLOCK_LIMIT * 4 + INSN_MAX_BYTES)
#define BLOCK_BYTES_MAX \
	(sizeof(struct flow_block) + FLOW_BLOCK_LIMIT * sizeof(struct flow_insn))
/* Blocks start on a cache line (block.h). */
#define FLOW_ALIGN 64u
_Static_assert(offsetof(struct flow_block, start) == FLOW_ALIGN,
	       "a block's walk fields fill its first cache line");

/* The span of the image's regions, first to last byte (lo > hi when it
 * has none), and the region count it was computed for. */
static void set_hull(struct flow_cache *c)
{
	size_t n = c->image ? image_region_count(c->image) : 0;

	c->lo = UINT64_MAX;
	c->hi = 0;
	for (size_t i = 0; i < n; i++) {
		const struct image_region *r = image_region_at(c->image, i);

		if (!r || !r->length)
			continue;
		if (r->addr < c->lo)
			c->lo = r->addr;
		if (r->addr + (r->length - 1) > c->hi)
			c->hi = r->addr + (r->length - 1);
	}
	c->nregions = n;
}

void flow_cache_sync(struct flow_cache *c)
{
	size_t n = c->image ? image_region_count(c->image) : 0;

	if (n != c->nregions)
		set_hull(c); /* regions were added since */
}

int flow_cache_init(struct flow_cache *c, const struct image *img,
		    size_t bytes, uint8_t insn_flags)
{
	size_t nb;

	memset(c, 0, sizeof(*c));
	if (bytes < FLOW_CACHE_MIN)
		bytes = FLOW_CACHE_MIN;
	/* One bucket per 128 bytes of arena: about one per average block. */
	c->bits = 8;
	while (((size_t)1 << (c->bits + 1)) * 128 <= bytes && c->bits < 24)
		c->bits++;
	nb = (size_t)1 << c->bits;
	c->buckets = calloc(nb, sizeof(*c->buckets));
	c->cap = bytes - nb * sizeof(*c->buckets);
	c->cap &= ~(size_t)(FLOW_ALIGN - 1);
	/* Aligned by hand: aligned_alloc() of a block this size leaves a
	 * little of the heap behind each time a decoder is freed (glibc;
	 * bench_profile's check of the heap saw it grow). */
	c->arena_mem = malloc(c->cap + FLOW_ALIGN - 1);
	c->arena = c->arena_mem ? (uint8_t *)c->arena_mem +
		   (-(uintptr_t)c->arena_mem & (FLOW_ALIGN - 1)) : NULL;
	if (!c->buckets || !c->arena) {
		flow_cache_fini(c);
		return -etmkit_err_nomem;
	}
	c->image = img;
	set_hull(c);
	c->insn_flags = insn_flags;
	c->end_flags = INSN_F_BRANCH | INSN_F_ISA_SWITCH;
	return 0;
}

void flow_cache_fini(struct flow_cache *c)
{
	free(c->buckets);
	free(c->arena_mem);
	c->buckets = NULL;
	c->arena = NULL;
	c->arena_mem = NULL;
}

static void flush(struct flow_cache *c)
{
	memset(c->buckets, 0, ((size_t)1 << c->bits) * sizeof(*c->buckets));
	memset(c->front, 0, sizeof(c->front));
	c->used = 0;
	c->flushes++;
}

void flow_cache_set_image(struct flow_cache *c, const struct image *img)
{
	if (img == c->image)
		return;
	flush(c);
	memset(c->miss_tag, 0, sizeof(c->miss_tag));
	c->image = img;
	set_hull(c);
}

/* Instructions in a T32 IT block: 4 minus the trailing zeros of the mask
 * (DDI 0406C A8.8.54). */
static unsigned it_length(uint8_t mask)
{
	mask &= 0xf;
	return mask ? 4u - (unsigned)__builtin_ctz(mask) : 0u;
}

/* A32 and T32 addresses are 32 bits: a block stops at the top. */
static size_t addr_room(uint8_t isa, uint64_t addr)
{
	if (isa == etmkit_isa_a64)
		return ~(size_t)0;
	return (size_t)(0x100000000ull - (addr & 0xffffffffull));
}

/* Classify instructions from @buf (@got bytes read at @b->start) into
 * @b. Returns the number of instructions. */
static unsigned fill_block(struct flow_block *b, const uint8_t *buf,
			   size_t got, uint8_t flags, uint32_t ends)
{
	size_t pos = 0, room = addr_room(b->isa, b->start);
	unsigned n = 0, it_left = 0;

	b->target = 0;
	b->target_isa = b->isa;
	while ((n < FLOW_BLOCK_MAX || (it_left && n < FLOW_BLOCK_LIMIT)) &&
	       pos < got && pos < room) {
		struct insn_info ii;
		struct flow_insn *fi = &b->insn[n];

		if (insn_decode(&ii, (enum etmkit_isa)b->isa, b->start + pos,
				buf + pos, got - pos) < 0)
			break; /* cut by the end of the bytes read */
		fi->addr = b->start + pos;
		fi->head[0] = etmkit_elem_insn;
		fi->head[1] = b->isa;
		fi->head[2] = ii.size;
		fi->head[3] = flags;
		fi->opcode = ii.opcode;
		fi->flags = ii.flags;
		fi->last = 0;
		if (it_left) {
			fi->flags |= INSN_F_COND;
			it_left--;
		}
		if (ii.flags & INSN_F_IT)
			it_left = it_length(ii.it_mask);
		pos += ii.size;
		n++;
		if (ii.flags & ends) {
			/* A direct branch's target, or where an ISA switch
			 * (or any other block end) continues. */
			b->target = (ii.flags & INSN_F_BRANCH) ?
					    ii.target : b->start + pos;
			b->target_isa = (ii.flags & (INSN_F_BRANCH |
						     INSN_F_ISA_SWITCH)) ?
						ii.target_isa : b->isa;
			break;
		}
	}
	b->len = (uint16_t)pos;
	if (n)
		b->insn[n - 1].last = 1;
	return n;
}

/* The block's range template (block.h). */
static void set_range(struct flow_block *b)
{
	const struct flow_insn *last = &b->insn[b->n - 1];

	memset(&b->range, 0, sizeof(b->range));
	b->range.addr = b->start;
	b->range.head[0] = etmkit_elem_insn_range;
	b->range.head[1] = b->isa;
	b->range.head[2] = last->head[2];
	b->range.head[3] = ETMKIT_INSN_EXEC;
	b->range.opcode = last->opcode;
	b->range.class_flags = last->flags;
	b->range.end = b->start + b->len;
	b->range.count = b->n;
}

/* Build the block at @addr in the arena (room for the largest block has
 * been made). Returns it, or NULL with *loss set. */
static struct flow_block *build(struct flow_cache *c, uint64_t addr,
				uint8_t isa, uint8_t space, uint8_t *loss)
{
	uint8_t buf[FLOW_READ];
	struct flow_block *b = (struct flow_block *)(void *)(c->arena + c->used);
	size_t got = c->image ? image_read(c->image, space, addr, buf,
					   sizeof(buf)) : 0;
	unsigned n;

	if (!got) {
		*loss = etmkit_loss_unmapped;
		return NULL;
	}
	b->start = addr;
	b->isa = isa;
	b->space = space;
	b->succ[0] = b->succ[1] = NULL;
	memset(b->ind, 0, sizeof(b->ind));
	n = fill_block(b, buf, got, c->insn_flags, c->end_flags);
	if (!n) {
		*loss = etmkit_loss_cut;
		return NULL;
	}
	b->n = (uint8_t)n;
	set_range(b);
	c->used += (sizeof(*b) + n * sizeof(b->insn[0]) + FLOW_ALIGN - 1) &
		   ~(size_t)(FLOW_ALIGN - 1);
	c->blocks++;
	return b;
}

struct flow_block *flow_cache_get(struct flow_cache *c, uint64_t addr,
				  uint8_t isa, uint8_t space, uint8_t *loss)
{
	uint32_t h;
	uint64_t k;
	struct flow_block *b, **fr;

	/* Outside every region: no code, and no hashing (a trace that runs
	 * mostly outside the image, as juno_r1_1's, asks this often). */
	if (flow_cache_outside(c, addr)) {
		*loss = etmkit_loss_unmapped;
		return NULL;
	}
	/* The first cache line of a block holds the key (block.h). */
	k = flow_cache_hash(addr, isa, space);
	fr = &c->front[k >> (64 - FLOW_FRONT_BITS)];
	b = *fr;
	if (b && b->range.addr == addr && b->isa == isa && b->space == space)
		return b;
	h = (uint32_t)(k >> (64 - c->bits));
	for (b = c->buckets[h]; b; b = b->hnext)
		if (b->range.addr == addr && b->isa == isa &&
		    b->space == space) {
			*fr = b;
			return b;
		}
	/* Addresses without code come back often (a trace of code outside
	 * the image): remember the last few misses. */
	uint16_t tag = (uint16_t)(isa << 8 | space);
	uint32_t m = h & 255;

	if (c->miss_tag[m] == tag && c->miss_addr[m] == addr && tag) {
		*loss = c->miss_loss[m];
		return NULL;
	}
	if (c->cap - c->used < BLOCK_BYTES_MAX)
		flush(c); /* (the front too) */
	b = build(c, addr, isa, space, loss);
	if (b) {
		b->hnext = c->buckets[h];
		c->buckets[h] = b;
		*fr = b;
	} else {
		c->miss_addr[m] = addr;
		c->miss_tag[m] = tag;
		c->miss_loss[m] = *loss;
	}
	return b;
}
