/* libFuzzer target: the instructions of a block (include/etmkit/blocks.h).
 *
 * Input: byte 0 the instruction set (A32, T32, ThumbEE, Jazelle, A64),
 * byte 1 the batch size - 1, bytes 2-5 the image's address (low 32 bits,
 * A64 also above 2^32 when byte 0 says), bytes 6-7 the image's length
 * (at most what follows), the image's bytes, then blocks of 12 bytes each:
 * start (16 bits from the image's address, below it when the top bit is
 * set), count (8 bits), end (16 bits from the start), flags, cycles (16
 * bits), opcode (32 bits).
 *
 * The image's bytes are copied to an allocation of their exact length, so
 * a read outside them is a sanitizer report. Checks, for every block:
 * - the random block gives no more instructions than its count, each an
 *   insn element of the block's isa and offset, each where the one before
 *   ended, inside [addr, end), every one but the last executed; if it
 *   gives its count without error, the last ends at end with the block's
 *   flags, cycles, size and opcode; each instruction's bytes are the
 *   image's and insn_decode() classifies them as given (but INSN_F_COND of
 *   an IT block);
 * - batches of one give the same instructions and outcome as batches of
 *   the input's size;
 * - a block walked from the same start through the image with
 *   insn_decode() (its count, its end, its last instruction's size and
 *   opcode: what a decoder builds from the image) expands without an
 *   error, to the same instructions.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/etmkit.h"

#define MAXI 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t isas[] = { etmkit_isa_arm, etmkit_isa_thumb,
				etmkit_isa_thumbee, etmkit_isa_jazelle,
				etmkit_isa_a64 };

/* Expand @r in batches of @batch into @out (room for MAXI). Returns the
 * count given; *@err the final status (-etmkit_err_eos, or an error). */
static size_t expand(struct etmkit_insn_iter *it, const struct etmkit_elem *r,
		     size_t batch, struct etmkit_elem *out, int *err)
{
	size_t got = 0;
	int n;

	*err = etmkit_insn_iter_start(it, r);
	if (*err)
		return 0;
	while ((n = etmkit_insn_iter_next(it, out + got, batch)) > 0) {
		if ((size_t)n > batch || got + (size_t)n > r->u.range.count)
			abort();
		got += (size_t)n;
	}
	*err = n;
	/* Ended: nothing more. */
	if (etmkit_insn_iter_next(it, out + got, 1) != -etmkit_err_eos)
		abort();
	return got;
}

static void check(const struct image *img, const struct etmkit_elem *r,
		  const struct etmkit_elem *x, size_t n, int err)
{
	uint64_t addr = r->addr;

	if (err != -etmkit_err_eos && err != -etmkit_err_not_found &&
	    err != -etmkit_err_format && err != -etmkit_err_invalid)
		abort();
	if (err == -etmkit_err_eos && n != r->u.range.count)
		abort();
	for (size_t i = 0; i < n; i++) {
		const struct etmkit_elem *e = &x[i];
		uint8_t b[INSN_MAX_BYTES];
		struct insn_info ii;
		size_t got;
		int last = err == -etmkit_err_eos && i + 1 == n;

		if (e->kind != etmkit_elem_insn || e->isa != r->isa ||
		    e->offset != r->offset || e->addr != addr || !e->size ||
		    e->addr < r->addr || e->addr >= r->u.range.end)
			abort();
		if (!last && (e->flags != ETMKIT_INSN_EXEC || e->cycles))
			abort();
		if (last && (e->flags != r->flags || e->cycles != r->cycles ||
			     e->size != r->size ||
			     e->u.insn.opcode != r->u.range.opcode ||
			     e->addr + e->size != r->u.range.end))
			abort();
		got = image_read(img, IMAGE_SPACE_ANY, e->addr, b, sizeof(b));
		if (!got || insn_decode(&ii, (enum etmkit_isa)r->isa, e->addr,
					b, got) < 0)
			abort();
		if (ii.size != e->size || ii.opcode != e->u.insn.opcode ||
		    (ii.flags | INSN_F_COND) !=
			    (e->u.insn.class_flags | INSN_F_COND))
			abort();
		addr += e->size;
	}
}

/* The block a decoder would build from @img at @r->addr: up to @want
 * instructions, in @r's isa. Returns 0 when none can be read. */
static int build(const struct image *img, struct etmkit_elem *r,
		 uint32_t want)
{
	uint64_t addr = r->addr;
	uint32_t n = 0;

	while (n < want) {
		uint8_t b[INSN_MAX_BYTES];
		struct insn_info ii;
		size_t got = image_read(img, IMAGE_SPACE_ANY, addr, b,
					sizeof(b));

		if (r->isa != etmkit_isa_a64 &&
		    0x100000000ull - addr < got)
			got = (size_t)(0x100000000ull - addr);
		if (!got || insn_decode(&ii, (enum etmkit_isa)r->isa, addr, b,
					got) < 0)
			break;
		if (r->isa != etmkit_isa_a64 &&
		    addr + ii.size > 0x100000000ull)
			break;
		if (r->isa == etmkit_isa_a64 && addr + ii.size < addr)
			break;
		r->size = ii.size;
		r->u.range.opcode = ii.opcode;
		addr += ii.size;
		n++;
	}
	r->u.range.count = n;
	r->u.range.end = addr;
	return n > 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct etmkit_elem a[MAXI], b[MAXI];
	struct etmkit_insn_iter it, one;
	struct image *img = NULL;
	uint8_t *code;
	uint64_t base;
	size_t ilen, batch, pos;
	uint8_t isa;

	if (size < 8)
		return 0;
	isa = isas[data[0] % 5];
	batch = (size_t)data[1] % 64 + 1;
	base = (uint64_t)data[2] | (uint64_t)data[3] << 8 |
	       (uint64_t)data[4] << 16 | (uint64_t)data[5] << 24;
	if (isa == etmkit_isa_a64 && (data[0] & 0x80))
		base = ~base & ~(uint64_t)0xffff; /* near the top */
	ilen = (size_t)(data[6] | data[7] << 8);
	if (ilen > size - 8)
		ilen = size - 8;
	if (isa != etmkit_isa_a64 && base + ilen > 0x100000000ull)
		ilen = (size_t)(0x100000000ull - base);
	if (!ilen || base + ilen < base)
		return 0;
	code = malloc(ilen);
	if (!code || image_alloc(&img))
		abort();
	memcpy(code, data + 8, ilen);
	if (image_add_buffer(img, code, ilen, base, 0))
		abort();
	etmkit_insn_iter_init(&it, img, IMAGE_SPACE_ANY);
	etmkit_insn_iter_init(&one, img, IMAGE_SPACE_ANY);
	for (pos = 8 + ilen; pos + 12 <= size; pos += 12) {
		const uint8_t *p = data + pos;
		struct etmkit_elem r;
		uint64_t d = (uint64_t)(p[0] | p[1] << 8);
		size_t na, nb;
		int ea, eb;

		memset(&r, 0, sizeof(r));
		r.kind = etmkit_elem_insn_range;
		r.offset = pos;
		r.isa = isa;
		r.addr = (d & 0x8000) ? base - (d & 0x7fff) : base + d;
		if (isa != etmkit_isa_a64)
			r.addr &= 0xffffffffull;
		r.u.range.count = p[2] % MAXI;
		r.u.range.end = r.addr + (uint64_t)(p[3] | p[4] << 8);
		r.flags = p[5];
		r.cycles = (uint32_t)(p[6] | p[7] << 8);
		r.u.range.opcode = (uint32_t)p[8] | (uint32_t)p[9] << 8 |
				   (uint32_t)p[10] << 16 |
				   (uint32_t)p[11] << 24;
		r.size = p[9];
		/* The random block, in the input's batches and in ones. */
		na = expand(&it, &r, batch, a, &ea);
		nb = expand(&one, &r, 1, b, &eb);
		if (na != nb || ea != eb)
			abort();
		for (size_t i = 0; i < na; i++)
			if (memcmp(&a[i], &b[i], sizeof(a[i])) &&
			    (a[i].addr != b[i].addr ||
			     a[i].u.insn.opcode != b[i].u.insn.opcode ||
			     a[i].flags != b[i].flags))
				abort();
		if (ea != -etmkit_err_invalid)
			check(img, &r, a, na, ea);
		/* The block the image makes from there: no error. */
		if (build(img, &r, p[2] % MAXI + 1)) {
			na = expand(&it, &r, batch, a, &ea);
			if (ea != -etmkit_err_eos || na != r.u.range.count)
				abort();
			check(img, &r, a, na, ea);
		}
	}
	image_free(img);
	free(code);
	return 0;
}
