/* insn_vs_capstone: what its two files share (insn_vs_capstone.c: the
 * comparison, A32/T32 sweeps and main(); insn_vs_capstone_a64.c: the A64
 * sweeps). */
#ifndef ETMKIT_INSN_VS_CAPSTONE_H
#define ETMKIT_INSN_VS_CAPSTONE_H

#include <capstone/capstone.h>
#include <stdint.h>

#include "etmkit/insn.h"

struct stats;

/* Classify the instruction at @b both ways and compare. Returns our size
 * (0 when we cannot decode it, which is itself a failure). */
unsigned one(struct stats *s, csh h, enum etmkit_isa isa,
	     const uint8_t *b, size_t n, uint64_t addr);
void store_le(uint8_t *b, uint32_t v, unsigned n);
/* xorshift64*, fixed seed (or main()'s): the same samples on every run. */
uint32_t rng(void);

/* Every [dump] of the snapshots' AArch64 cores, each distinct one once. */
#define MAX_DUMPS 512

struct a64_images {
	unsigned long dumps, bytes;
	uint64_t seen[MAX_DUMPS * 4];
	size_t nseen;
};

void run_a64_random(struct stats *s, csh h, unsigned long n);
void run_a64_branch_sys(struct stats *s, csh h, unsigned long n);
void run_a64_images(struct stats *s, csh h, struct a64_images *im);
/* Each form that ends an atom's range, 64 samples; prints which forms
 * capstone decodes. */
void run_a64_forms(struct stats *s, csh h);

#endif
