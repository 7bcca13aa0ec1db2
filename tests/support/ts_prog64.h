/* Test support: a random A64 program (struct ts_prog64) for the ETMv4/ETE
 * encoder round trips and fuzz_encode: each slot an instruction of one
 * kind (enum ts_k64) from a caller's mix, direct branches mostly near
 * and forward, the last slot a B so that no walk runs off the end. The
 * caller supplies the random numbers, so the same seeds give the same
 * programs. Also what the walks over it share: the bases the program is
 * mapped at, a slot's opcode, a direct branch's target at a base. Aborts
 * when memory runs out; never prints. */
#ifndef ETMKIT_TS_PROG64_H
#define ETMKIT_TS_PROG64_H

#include <stddef.h>
#include <stdint.h>

/* The kinds of instruction; K_B..K_TSTART are P0 instructions (the
 * callers test with this order). */
enum ts_k64 {
	TS_K_NOP, TS_K_ADD, TS_K_LDR, TS_K_B, TS_K_BL, TS_K_BCOND, TS_K_CBZ,
	TS_K_CBNZ, TS_K_TBZ, TS_K_RET, TS_K_BR, TS_K_BLR, TS_K_ERET, TS_K_ISB,
	TS_K_WFI, TS_K_WFE, TS_K_TSTART, TS_K_N
};

/* The address the program is built for (slot 0). */
#define TS_PROG64_BASE 0x40000ull

/* The program is mapped at each of these bases, so that indirect
 * branches between them need every address form: 2-byte short (bit 16),
 * long 32 (bit 17 up), the upper half kept (bit 32 up) or not. */
extern const uint64_t ts_prog64_bases[6];
#define TS_PROG64_NBASES 6u

struct ts_prog64 {
	unsigned n;        /* slots */
	uint8_t *bytes;    /* 4 * n, little-endian opcodes */
	uint8_t *kind;     /* n, enum ts_k64 */
	uint64_t *target;  /* n, direct branch target at TS_PROG64_BASE */
};

/* One step of the mix: a random number r % 100 below @upto (and not
 * below the step before's) gives @kind; past the last step, TS_K_NOP. */
struct ts_k64_mix {
	uint8_t upto, kind;
};

struct ts_prog64_opts {
	unsigned n;                    /* slots (> 0) */
	const struct ts_k64_mix *mix;  /* ascending upto */
	unsigned nmix;
	int bcond_rnd;                 /* B.cond: a random condition (one
					  more number) rather than EQ */
	uint32_t (*rnd)(void *ctx);    /* the random numbers */
	void *rnd_ctx;
};

/* Fill @p (freed first; zeroed before first use) from @o. */
void ts_prog64_make(struct ts_prog64 *p, const struct ts_prog64_opts *o);

/* Free @p's arrays and zero it. */
void ts_prog64_free(struct ts_prog64 *p);

/* Store A64 opcode @op at @p, little-endian (instructions are
 * little-endian whatever the data endianness, ARM DDI 0487). */
static inline void ts_a64_put(uint8_t *p, uint32_t op)
{
	for (int b = 0; b < 4; b++)
		p[b] = (uint8_t)(op >> (8 * b));
}

/* Slot @i's opcode. */
static inline uint32_t ts_prog64_op(const struct ts_prog64 *p, unsigned i)
{
	const uint8_t *b = p->bytes + 4 * (size_t)i;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

/* Slot @i's direct branch target in the copy mapped at @base. */
static inline uint64_t ts_prog64_target(const struct ts_prog64 *p,
					unsigned i, uint64_t base)
{
	return base + (p->target[i] - TS_PROG64_BASE);
}

#endif
