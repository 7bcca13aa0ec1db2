/* Shared by the ETMv4/ETE encoder tests, one executable: test_ete_enc.c
 * (bytes worked out by hand, and main()), test_ete_enc_walk.c (what the
 * decoder must give back, the generated A64 program and its walks) and
 * test_ete_enc_rt.c (the round trips). */
#ifndef ETMKIT_TEST_ETE_ENC_H
#define ETMKIT_TEST_ETE_ENC_H

#include <stddef.h>
#include <stdint.h>

#include "etmkit/etm4.h"
#include "etmkit/exec.h"
#include "etmkit/image.h"
#include "ts_out.h"
#include "ts_prog64.h"
#include "ts_rec.h"

/* A64 opcodes. */
#define NOP 0xd503201fu
#define RET 0xd65f03c0u
#define BR_X0 0xd61f0000u
#define BLR_X1 0xd63f0020u
#define ISB 0xd5033fdfu
static inline uint32_t op_b(int64_t off) { return 0x14000000u | (uint32_t)((off / 4) & 0x3ffffff); }
static inline uint32_t op_bl(int64_t off) { return 0x94000000u | (uint32_t)((off / 4) & 0x3ffffff); }
static inline uint32_t op_bcond(int64_t off) { return 0x54000000u | (uint32_t)((off / 4) & 0x7ffff) << 5; }
static inline uint32_t op_cbz(int64_t off) { return 0xb4000000u | (uint32_t)((off / 4) & 0x7ffff) << 5; }

#define BRANCH EXEC_F_BRANCH
#define TAKEN (EXEC_F_BRANCH | EXEC_F_TAKEN)
#define IND (EXEC_F_BRANCH | EXEC_F_INDIRECT | EXEC_F_TAKEN)

/* What the decoder must give back: instructions and exceptions. */
struct ev {
	uint8_t kind;   /* etmkit_elem_insn or etmkit_elem_exception */
	uint8_t isa, size;
	uint16_t number;
	uint32_t cycles; /* insn: EXEC_F_CYCLES */
	uint64_t addr;  /* insn address; exception return address */
};

struct evs {
	struct ev *v;
	size_t n, cap;
	/* Timestamps and contexts in order (contexts without consecutive
	 * repeats: the decoder reports a context when it changes). */
	uint64_t ts[4096];
	size_t nts;
	uint64_t ctx[4096]; /* el | ns << 2 | cid << 8 | vmid << 40 */
	size_t nctx;
	uint64_t ncc;       /* cycle counts (the encoder's count) */
};

#define PROG_N 8192u /* slots of the A64 program (ts_prog64.h) */

struct walk_opts {
	unsigned steps;
	unsigned exc_pct10;  /* per mille of instructions followed by an
				exception */
	unsigned gap_pct10;  /* per mille of P0 instructions followed by
				a gap */
	unsigned untraced_handlers; /* per cent of exceptions with a gap */
	unsigned ts_pct10;
	unsigned ctx_pct;    /* per cent of exceptions changing EL/CID */
	unsigned far;        /* indirect targets: 1 in far anywhere in a
				   64-bit space copy of the program */
	unsigned cyc;        /* instructions carry cycle counts */
	unsigned ctx_pct10;  /* per mille of instructions followed by a
				context change (EL, CID, VMID) */
};

extern struct ete_enc_stats last_stats; /* of encode()'s encoder */

/* test_ete_enc.c */
void a64(struct ts_rec *rc, uint64_t addr, uint32_t op, uint32_t flags,
	 uint64_t target);
void exc(struct ts_rec *rc, unsigned number, uint64_t ret);
void encode(const struct ete_enc_config *c, const struct ts_rec *rc,
	    struct ts_out *o);
void expect_after_head(const struct ts_out *o, const uint8_t *want,
		       size_t n);
void q_config(struct ete_enc_config *c, uint32_t every);
/* test_ete_enc_walk.c */
void expected_of(const struct ts_rec *rc, size_t end,
		 const struct ete_enc_config *c, struct evs *s);
void decode_check(const struct ete_enc_config *ec, const struct ts_out *o,
		  const struct image *img, const struct evs *want,
		  unsigned chunk, uint32_t seed);
uint32_t rnd(uint64_t *s);
void prog_make(struct ts_prog64 *p, uint64_t seed);
size_t walk(const struct ts_prog64 *p, struct ts_rec *rc, uint64_t seed,
	    const struct walk_opts *o);
/* test_ete_enc_rt.c */
void t32(struct ts_rec *rc, uint64_t addr, uint32_t op, uint32_t flags,
	 uint64_t target, uint8_t tisa);
int setup_prog(void **state);
void test_rt_plain(void **state);
void test_rt_events(void **state);
void test_rt_speculation(void **state);
void test_rt_etmv4(void **state);
void test_q_context(void **state);
void test_rt_q(void **state);
void test_rt_random(void **state);
void test_rt_long(void **state);
void test_reset(void **state);
void test_rt_aarch32(void **state);
void test_rt_interstate(void **state);
void test_ctx_after_blx(void **state);

#endif
