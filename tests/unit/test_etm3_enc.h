/* Shared by the ETMv3 encoder tests: test_etm3_enc.c (bytes worked out by
 * hand, and main()), test_etm3_enc_walk.c (programs and walks) and
 * test_etm3_enc_rt.c (round trips through etm3_pkt + etm3_flow). */
#ifndef ETMKIT_TEST_ETM3_ENC_H
#define ETMKIT_TEST_ETM3_ENC_H

#include <stdint.h>

#include <stddef.h>

#include "etmkit/etm3.h"
#include "etmkit/exec.h"
#include "etmkit/image.h"
#include "ts_out.h"
#include "ts_prog32.h"

#define IDR35     0x410CF250u /* ETMv3.5, original branch encoding */
#define IDR35_ALT 0x411CF250u /* ETMv3.5, alternative encoding (ETMIDR[20]) */
#define IDR32     0x410CF220u /* ETMv3.2: no format 4, no AltISA */
#define CR_CA     ETM3_ETMCR_CYCLE_ACCURATE

/* test_etm3_enc.c: an encoder with these registers writing to @o (reset). */
struct etm3_enc *enc_new(uint32_t etmcr, uint32_t etmidr, uint32_t etmccer,
			 struct ts_out *o);

/* test_etm3_enc_walk.c: the programs (tests/support/ts_prog32.h) and the
 * random walks over them, with what the decode must give back. */
#define CR_DATA (ETM3_ETMCR_DATA_ADDR | ETM3_ETMCR_DATA_VALUE)

extern uint64_t rng_state; /* rnd()'s, xorshift64* */
extern int gen_data;       /* programs with loads and stores */

struct prog {
	struct ts_region *r; /* code.r */
	unsigned n;
	struct ts_prog32 code;
	struct image *img;
};

/* A 32-bit data transfer the decode must give back (a 64-bit one is
 * two). */
struct want_data {
	size_t insn;        /* index of its instruction in want.insn */
	uint32_t iaddr;     /* that instruction's address */
	uint32_t addr, value;
	uint32_t access;    /* the record item's address */
	uint8_t first;      /* its instruction's first transfer */
	uint8_t contig;     /* at the end of the one before (same insn) */
	uint8_t ooo;        /* a load traced out of order */
	uint8_t half;       /* out-of-order 64-bit: 1, 2; else 0 */
};

/* What the decode must give back. */
struct want {
	struct want_data *data;
	size_t nd, capd;
	struct exec_rec *insn;
	size_t n, cap;
	uint16_t exc[4096];
	size_t nexc;
	uint64_t ts[4096];
	size_t nts;
};

struct walk_opts {
	uint32_t etmcr, etmidr, etmccer;
	uint32_t flags, ooo_delay; /* etm3_enc_config's */
	int arm, thumb;
	unsigned steps;
	unsigned gap_per_mille, exc_per_mille, ctx_per_mille;
	uint32_t sync_period;
};

uint32_t below(uint32_t n);
void prog_build(struct prog *p, int arm, int thumb);
void prog_free(struct prog *p);
void want_insn(struct want *w, const struct exec_rec *r);
void want_data(struct want *w, const struct want_data *d);
uint32_t want_cycles(const struct walk_opts *o, const struct exec_rec *r);
void walk(const struct prog *p, const struct walk_opts *o,
	  struct etm3_enc *e, struct want *w);

/* test_etm3_enc_rt.c */
void test_round_trip_mixed(void **state);
void test_round_trip_isa(void **state);
void test_round_trip_configs(void **state);
void test_round_trip_data(void **state);
void test_round_trip_long(void **state);

#endif
