/* The instructions of a block (include/etmkit/blocks.h): each read from the
 * image and classified again, as the decoder's block cache classified it
 * (src/flow/block.c), and given as the insn element the per-instruction
 * form delivers. */
#include <string.h>

#include "etmkit/blocks.h"
#include "etmkit/insn.h"

uint8_t etmkit_context_space(const struct etmkit_elem *ctx)
{
	unsigned el;

	if (!ctx || ctx->kind != etmkit_elem_context)
		return IMAGE_SPACE_ANY;
	el = ctx->u.context.el;
	/* ETMv3: the security state and, from ETMv3.5, Hyp mode. */
	if (!(ctx->flags & ETMKIT_CTX_EL)) {
		if (!ctx->u.context.ns)
			return IMAGE_SPACE_S;
		return ctx->u.context.hyp ? IMAGE_SPACE_EL2 : IMAGE_SPACE_EL1N;
	}
	/* ETMv4/ETE: exception level and NSE:NS (seed 002 D4.3.6.3). */
	if (el == 3)
		return ctx->u.context.sec == etmkit_sec_root ? IMAGE_SPACE_ROOT :
							      IMAGE_SPACE_EL3;
	switch (ctx->u.context.sec) {
	case etmkit_sec_nonsecure:
		return el == 2 ? IMAGE_SPACE_EL2 : IMAGE_SPACE_EL1N;
	case etmkit_sec_realm:
		return el == 2 ? IMAGE_SPACE_EL2R : IMAGE_SPACE_EL1R;
	case etmkit_sec_root:
		return IMAGE_SPACE_ROOT;
	default:
		return el == 2 ? IMAGE_SPACE_EL2S : IMAGE_SPACE_EL1S;
	}
}

void etmkit_insn_iter_init(struct etmkit_insn_iter *it,
			   const struct image *img, uint8_t space)
{
	if (!it)
		return;
	memset(it, 0, offsetof(struct etmkit_insn_iter, buf));
	memset(it->cache, 0, sizeof(it->cache));
	it->image = img;
	it->space = space;
	it->it_at = UINT64_MAX;
}

void etmkit_insn_iter_set_image(struct etmkit_insn_iter *it,
				const struct image *img)
{
	if (!it)
		return;
	it->image = img;
	it->buf_len = 0;
	memset(it->cache, 0, sizeof(it->cache));
}

int etmkit_insn_iter_context(struct etmkit_insn_iter *it,
			     const struct etmkit_elem *ctx)
{
	uint8_t space;

	if (!it || !ctx || ctx->kind != etmkit_elem_context)
		return -etmkit_err_invalid;
	space = etmkit_context_space(ctx);
	if (space != it->space) {
		/* Other bytes may serve it. */
		it->buf_len = 0;
		memset(it->cache, 0, sizeof(it->cache));
	}
	it->space = space;
	return 0;
}

/* A32, T32, ThumbEE and Jazelle addresses are 32 bits (insn.h). */
static int narrow(uint8_t isa)
{
	return isa != etmkit_isa_a64;
}

int etmkit_insn_iter_start(struct etmkit_insn_iter *it,
			   const struct etmkit_elem *range)
{
	uint8_t isa;

	if (!it)
		return -etmkit_err_invalid;
	it->left = 0;
	it->err = 0;
	if (!range || range->kind != etmkit_elem_insn_range ||
	    !range->u.range.count)
		return -etmkit_err_invalid;
	isa = range->isa;
	if (isa != etmkit_isa_arm && isa != etmkit_isa_thumb &&
	    isa != etmkit_isa_thumbee && isa != etmkit_isa_jazelle &&
	    isa != etmkit_isa_a64)
		return -etmkit_err_invalid;
	if (range->u.range.end <= range->addr ||
	    (narrow(isa) && range->u.range.end > 0x100000000ull))
		return -etmkit_err_invalid;
	/* The IT state goes on only into the block that starts where the
	 * last one ended (blocks.h). */
	if (range->addr != it->it_at || isa != it->it_isa)
		it->it_left = 0;
	it->addr = range->addr;
	it->end = range->u.range.end;
	it->offset = range->offset;
	it->left = range->u.range.count;
	it->cycles = range->cycles;
	it->last_opcode = range->u.range.opcode;
	it->last_size = range->size;
	it->last_flags = range->flags;
	it->isa = isa;
	return 0;
}

/* Read code from @it->addr on into the buffer: the rest of the block
 * and what the classifier may need after its last instruction. */
static void refill(struct etmkit_insn_iter *it)
{
	size_t want = sizeof(it->buf);

	if (it->end - it->addr < want - INSN_MAX_BYTES)
		want = (size_t)(it->end - it->addr) + INSN_MAX_BYTES;
	if (narrow(it->isa) && 0x100000000ull - it->addr < want)
		want = (size_t)(0x100000000ull - it->addr);
	it->buf_addr = it->addr;
	it->buf_len = (uint16_t)(it->image ? image_read(it->image, it->space,
							 it->addr, it->buf,
							 want) : 0);
}

/* The bytes at @it->addr: *@avail of them, at least INSN_MAX_BYTES
 * unless the image or the 32-bit address space ends first. */
static const uint8_t *code_at(struct etmkit_insn_iter *it, size_t *avail)
{
	uint64_t off = it->addr - it->buf_addr;

	/* Fewer than the classifier may need: read on (the same again only
	 * where the image or the address space ends). */
	if (it->addr < it->buf_addr || off >= it->buf_len ||
	    it->buf_len - off < INSN_MAX_BYTES) {
		refill(it);
		off = 0;
	}
	*avail = it->buf_len - (size_t)off;
	return it->buf + off;
}

/* Instructions in a T32 IT block: 4 minus the trailing zeros of the mask
 * (DDI 0406C A8.8.54). */
static unsigned it_length(uint8_t mask)
{
	mask &= 0xf;
	return mask ? 4u - (unsigned)__builtin_ctz(mask) : 0u;
}

/* The cache slot of @addr. */
static struct etmkit_insn_iter_entry *slot(struct etmkit_insn_iter *it,
					   uint64_t addr)
{
	uint32_t h = (uint32_t)(addr >> 1) * 0x9e3779b1u;

	return &it->cache[h >> (32 - 12)];
}
_Static_assert(ETMKIT_INSN_ITER_CACHE == 4096, "slot() takes 12 bits");
_Static_assert(INSN_F_BARRIER < (1u << 21), "the class fits 21 bits");

/* An entry's info: the class, the instruction set, the size. An IT
 * instruction's mask is its opcode's low 4 bits (T32 16-bit IT, 1011 1111
 * firstcond mask: DDI 0406C A8.8.54). */
#define INFO_FLAGS(i) ((i) & 0x1fffffu)
#define ENTRY_IT(c) ((uint8_t)((c)->opcode & 0xf))
#define INFO_ISA(i) ((i) >> 21 & 7u)
#define INFO_SIZE(i) ((uint8_t)((i) >> 24))

/* The instruction at @it->addr, from the cache or classified from the
 * image (and cached). Returns 0, or -1 when the image cannot give it. */
static int classify(struct etmkit_insn_iter *it,
		    const struct etmkit_insn_iter_entry **out)
{
	struct etmkit_insn_iter_entry *c = slot(it, it->addr);
	struct insn_info ii;
	const uint8_t *p;
	size_t avail;

	if (c->addr == it->addr && INFO_ISA(c->info) == it->isa) {
		*out = c;
		return 0;
	}
	p = code_at(it, &avail);
	if (!avail || insn_decode(&ii, (enum etmkit_isa)it->isa, it->addr, p,
				  avail) < 0)
		return -1;
	c->addr = it->addr;
	c->opcode = ii.opcode;
	c->info = ii.flags |
		  (uint32_t)it->isa << 21 | (uint32_t)ii.size << 24;
	*out = c;
	return 0;
}

/* Stop the block with error @err (positive). */
static void stop(struct etmkit_insn_iter *it, int err)
{
	it->left = 0;
	it->err = (uint8_t)err;
	it->it_left = 0;
	it->it_at = UINT64_MAX;
}

/* Return the error stopped at, once. */
static int take_err(struct etmkit_insn_iter *it)
{
	int err = it->err;

	it->err = 0;
	return -err;
}

int etmkit_insn_iter_next(struct etmkit_insn_iter *it,
			  struct etmkit_elem *out, size_t max)
{
	/* The walk's state in locals: stores to @out could alias @it's
	 * fields, which the compiler would then read again each time. */
	uint64_t addr, offset, end;
	uint32_t left;
	uint8_t isa, it_left;
	size_t n = 0;
	int err = 0;

	if (!it || !out || !max)
		return -etmkit_err_invalid;
	if (it->err)
		return take_err(it);
	addr = it->addr;
	offset = it->offset;
	end = it->end;
	left = it->left;
	isa = it->isa;
	it_left = it->it_left;
	while (n < max && left) {
		struct etmkit_elem *e = &out[n];
		const struct etmkit_insn_iter_entry *c = slot(it, addr);
		uint64_t next;
		uint32_t cls;

		if (c->addr != addr || INFO_ISA(c->info) != isa) {
			it->addr = addr;
			if (classify(it, &c)) {
				err = etmkit_err_not_found;
				break;
			}
		}
		next = addr + INFO_SIZE(c->info);
		/* Each instruction but the last ends inside the block. */
		if (--left && (next >= end || next < addr)) {
			err = etmkit_err_format;
			break;
		}
		cls = INFO_FLAGS(c->info);
		if (it_left) {
			cls |= INSN_F_COND;
			it_left--;
		}
		if (cls & INSN_F_IT)
			it_left = (uint8_t)it_length(ENTRY_IT(c));
		memset(e, 0, sizeof(*e));
		e->offset = offset;
		e->addr = addr;
		e->kind = etmkit_elem_insn;
		e->isa = isa;
		e->size = INFO_SIZE(c->info);
		e->flags = ETMKIT_INSN_EXEC;
		e->u.insn.opcode = c->opcode;
		e->u.insn.class_flags = cls;
		addr = next;
		n++;
		if (!left) {
			/* The last: at the block's end, as the block says. */
			if (addr != end || e->size != it->last_size ||
			    e->u.insn.opcode != it->last_opcode) {
				n--;
				err = etmkit_err_format;
				break;
			}
			e->flags = it->last_flags;
			e->cycles = it->cycles;
			it->it_at = end;
			it->it_isa = isa;
		}
	}
	it->addr = addr;
	it->left = left;
	it->it_left = it_left;
	if (err)
		stop(it, err);
	if (n)
		return (int)n;
	return it->err ? take_err(it) : -etmkit_err_eos;
}
