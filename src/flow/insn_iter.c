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
	it->image = img;
	it->space = space;
	it->it_at = UINT64_MAX;
}

void etmkit_insn_iter_set_image(struct etmkit_insn_iter *it,
				const struct image *img)
{
	if (!it || img == it->image)
		return;
	it->image = img;
	it->buf_len = 0;
}

int etmkit_insn_iter_context(struct etmkit_insn_iter *it,
			     const struct etmkit_elem *ctx)
{
	uint8_t space;

	if (!it || !ctx || ctx->kind != etmkit_elem_context)
		return -etmkit_err_invalid;
	space = etmkit_context_space(ctx);
	if (space != it->space)
		it->buf_len = 0; /* other bytes may serve it */
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

/* Read code from @it->addr on into the buffer. */
static void refill(struct etmkit_insn_iter *it)
{
	size_t want = sizeof(it->buf);

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

	if (it->addr < it->buf_addr || off >= it->buf_len ||
	    (it->buf_len - off < INSN_MAX_BYTES &&
	     it->buf_len == sizeof(it->buf))) {
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

/* Stop the block with error @err (positive). */
static void stop(struct etmkit_insn_iter *it, int err)
{
	it->left = 0;
	it->err = (uint8_t)err;
	it->it_left = 0;
	it->it_at = UINT64_MAX;
}

int etmkit_insn_iter_next(struct etmkit_insn_iter *it,
			  struct etmkit_elem *out, size_t max)
{
	size_t n = 0;

	if (!it || !out || !max)
		return -etmkit_err_invalid;
	if (it->err) {
		int err = it->err;

		it->err = 0;
		return -err;
	}
	while (n < max && it->left) {
		struct etmkit_elem *e = &out[n];
		struct insn_info ii;
		const uint8_t *p;
		size_t avail;
		uint32_t cls;

		p = code_at(it, &avail);
		if (!avail || insn_decode(&ii, (enum etmkit_isa)it->isa,
					  it->addr, p, avail) < 0) {
			stop(it, etmkit_err_not_found);
			break;
		}
		cls = ii.flags;
		if (it->it_left) {
			cls |= INSN_F_COND;
			it->it_left--;
		}
		if (ii.flags & INSN_F_IT)
			it->it_left = (uint8_t)it_length(ii.it_mask);
		memset(e, 0, sizeof(*e));
		e->offset = it->offset;
		e->addr = it->addr;
		e->kind = etmkit_elem_insn;
		e->isa = it->isa;
		e->size = ii.size;
		e->u.insn.opcode = ii.opcode;
		e->u.insn.class_flags = cls;
		it->addr += ii.size;
		n++;
		if (--it->left) {
			if (it->addr >= it->end) {
				stop(it, etmkit_err_format);
				n--; /* not an instruction of the block */
				break;
			}
			e->flags = ETMKIT_INSN_EXEC;
			continue;
		}
		if (it->addr != it->end || ii.size != it->last_size ||
		    ii.opcode != it->last_opcode) {
			stop(it, etmkit_err_format);
			n--;
			break;
		}
		e->flags = it->last_flags;
		e->cycles = it->cycles;
		it->it_at = it->end;
		it->it_isa = it->isa;
	}
	if (n)
		return (int)n;
	if (it->err) {
		int err = it->err;

		it->err = 0;
		return -err;
	}
	return -etmkit_err_eos;
}
