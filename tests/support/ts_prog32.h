/* Test support: random A32/T32 programs in memory for encoder round trips
 * (tests/unit/test_etm3_enc.c, fuzz/fuzz_encode.c) and any test that
 * walks an AArch32 program (the flow decoders' tests could).
 *
 * A program is a few regions, each all ARM or all Thumb, at bases the
 * caller chooses (ARM and Thumb close together for BLX immediate between
 * them, and apart by every distance a branch address length covers). The
 * instructions: ADD/MOVS fillers, conditional and unconditional direct
 * branches and calls (B<c>, BL<c>, T1/T2 B, BL), BX/BLX register, BLX
 * immediate to the other set, LDR pc / POP {pc}, IT blocks, and by option
 * ISB, CBZ and loads and stores. Each region ends in a branch back to its
 * start, so a walk never falls off its end. Branch encodings: ARMv7-AR
 * A8.8.18 (B), A8.8.25 (BL, BLX immediate), A8.8.27 (BX), A8.6.50 (IT).
 *
 * Random numbers come from the caller's function, so a test keeps its own
 * generator and seeds. Aborts when memory runs out; never prints. */
#ifndef ETMKIT_TS_PROG32_H
#define ETMKIT_TS_PROG32_H

#include <stdint.h>

/* Regions' largest size. */
#define TS_REGION_MAX 0x4000u

struct ts_region {
	uint32_t base;
	uint8_t isa;        /* etmkit_isa_arm or etmkit_isa_thumb */
	uint32_t size;      /* bytes at @mem */
	uint8_t *mem;       /* the code, little-endian */
	uint32_t *starts;   /* instruction addresses, @nstarts of them */
	uint32_t nstarts;
};

struct ts_prog32 {
	struct ts_region *r;
	unsigned n;
};

struct ts_prog32_opts {
	uint32_t region_bytes;       /* each region's size (<= TS_REGION_MAX, a multiple of 4) */
	const uint32_t *arm_base;    /* ARM regions' bases, @nbase of them, or NULL for none */
	const uint32_t *thumb_base;  /* Thumb regions' bases, or NULL for none */
	unsigned nbase;
	int data;                    /* loads and stores (data trace) */
	int isb;                     /* ISB (A32) */
	int cbz;                     /* CBZ (T32) */
	uint32_t (*rnd)(void *ctx);  /* the random numbers */
	void *rnd_ctx;
};

/* Build @p (freed with ts_prog32_free()) as @o says. Regions are laid out
 * ARM then Thumb for each base index; Thumb regions are generated first
 * (every start is known before a BLX immediate picks one), then ARM. */
void ts_prog32_make(struct ts_prog32 *p, const struct ts_prog32_opts *o);

void ts_prog32_free(struct ts_prog32 *p);

/* The region holding @a, or NULL. */
const struct ts_region *ts_region_of(const struct ts_prog32 *p, uint32_t a);

#endif
