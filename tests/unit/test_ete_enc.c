/* ETMv4/ETE trace encoder (ete_enc_*).
 *
 * Two kinds of test. Byte-exact: small records whose trace is worked out
 * by hand from the packet layouts of the protocol digest
 * (../shared/spec/etmv4-ete.md; sections cited beside each), not by
 * running the encoder. Round trips: records of walks over an A64 program
 * in memory (and A32/T32 for ETMv4), encoded, then decoded by etm4_flow
 * with the encoder's decoder configuration; the decoded instructions and
 * exceptions must be the record's, one for one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit/test_util.h"

#include "etmkit/etm4.h"
#include "etmkit/insn.h"
#include "etmkit/exec.h"
#include "etmkit/flow.h"
#include "etmkit/image.h"

#include "ts_out.h"
#include "ts_rec.h"

/* A64 opcodes. */
#define NOP 0xd503201fu
#define RET 0xd65f03c0u
#define BR_X0 0xd61f0000u
#define BLR_X1 0xd63f0020u
#define ISB 0xd5033fdfu
static uint32_t op_b(int64_t off) { return 0x14000000u | (uint32_t)((off / 4) & 0x3ffffff); }
static uint32_t op_bl(int64_t off) { return 0x94000000u | (uint32_t)((off / 4) & 0x3ffffff); }
static uint32_t op_bcond(int64_t off) { return 0x54000000u | (uint32_t)((off / 4) & 0x7ffff) << 5; }
static uint32_t op_cbz(int64_t off) { return 0xb4000000u | (uint32_t)((off / 4) & 0x7ffff) << 5; }

/* ---- Records ---------------------------------------------------------------- */

/* An A64 instruction @op at @addr; @flags EXEC_F_*; @target when taken. */
static void a64(struct ts_rec *rc, uint64_t addr, uint32_t op, uint32_t flags,
		uint64_t target)
{
	ts_rec_insn(rc, etmkit_isa_a64, 4, addr, op, flags, target,
		    etmkit_isa_a64);
}

static void exc(struct ts_rec *rc, unsigned number, uint64_t ret)
{
	struct exec_rec *r = ts_rec_add(rc, exec_exception);

	r->number = number;
	r->addr = ret;
}

#define BRANCH EXEC_F_BRANCH
#define TAKEN (EXEC_F_BRANCH | EXEC_F_TAKEN)
#define IND (EXEC_F_BRANCH | EXEC_F_INDIRECT | EXEC_F_TAKEN)

static struct ete_enc_stats last_stats; /* of encode()'s encoder */

/* Encode @rc with @c; the trace into @o (freed by the caller). */
static void encode(const struct ete_enc_config *c, const struct ts_rec *rc,
		   struct ts_out *o)
{
	struct ete_enc *e;

	memset(o, 0, sizeof(*o));
	assert_int_equal(ete_enc_alloc(&e, c, ts_out_sink, o), 0);
	for (size_t i = 0; i < rc->n; i++)
		assert_int_equal(ete_enc_put(e, &rc->r[i]), 0);
	assert_int_equal(ete_enc_finish(e), 0);
	last_stats = *ete_enc_get_stats(e);
	ete_enc_free(e);
}

/* The start every trace here has (digest 5.1, 5.2, 5.4, 5.20): A-sync,
 * Trace Info with no sections, Trace On, Address + Context 32-bit IS0
 * 0x1000 with info 0x31 (EL1, SF, NS: ete_enc_config_init()'s context). */
static const uint8_t head[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
				0x01, 0x00, 0x04,
				0x82, 0x00, 0x08, 0x00, 0x00, 0x31 };

/* @o is head[] then the @n bytes @want. */
static void expect_after_head(const struct ts_out *o, const uint8_t *want,
			      size_t n)
{
	char msg[512];
	size_t k = 0;

	for (size_t i = 0; i < o->n && k + 4 < sizeof(msg); i++)
		k += (size_t)snprintf(msg + k, sizeof(msg) - k, "%02x ", o->b[i]);
	if (o->n != sizeof(head) + n ||
	    memcmp(o->b, head, sizeof(head)) != 0 ||
	    memcmp(o->b + sizeof(head), want, n) != 0)
		fail_msg("trace: %s", msg);
}

/* ---- Byte-exact ------------------------------------------------------------- */

/* A run of b.eq +4 at 0x1000, 0x1004, ..., taken as @pattern says ('E'
 * taken, 'N' not): its atoms, oldest first. */
static void atoms_trace(const char *pattern, struct ts_out *o, uint32_t maxspec,
			uint32_t depth)
{
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };

	for (size_t i = 0; pattern[i]; i++) {
		uint64_t a = 0x1000 + 4 * i;

		a64(&rc, a, op_bcond(4), pattern[i] == 'E' ? TAKEN : BRANCH,
		    a + 4);
	}
	ete_enc_config_init(&c);
	c.etm.trcidr8 = maxspec;
	c.spec_depth = depth;
	encode(&c, &rc, o);
	free(rc.r);
}

static void expect_atoms(const char *pattern, const uint8_t *want, size_t n)
{
	struct ts_out o;

	atoms_trace(pattern, &o, 0, 0);
	expect_after_head(&o, want, n);
	free(o.b);
}

#define EXPECT_ATOMS(p, ...)                                                   \
	do {                                                                   \
		static const uint8_t w_[] = { __VA_ARGS__ };                   \
		expect_atoms(p, w_, sizeof(w_));                               \
	} while (0)

/* Digest 5.14: one packet per pattern, the densest format; the examples
 * of the digest's table. MAXSPEC 0: no Commit packets (digest 7.2). */
static void test_atom_formats(void **state)
{
	(void)state;
	EXPECT_ATOMS("E", 0xf7);
	EXPECT_ATOMS("N", 0xf6);
	EXPECT_ATOMS("NE", 0xda);
	EXPECT_ATOMS("EN", 0xd9);
	EXPECT_ATOMS("EE", 0xdb);
	EXPECT_ATOMS("NNE", 0xfc);
	EXPECT_ATOMS("EEN", 0xfb);
	EXPECT_ATOMS("ENE", 0xfd);
	EXPECT_ATOMS("NEEE", 0xdc);
	EXPECT_ATOMS("NNNN", 0xdd);
	EXPECT_ATOMS("NENE", 0xde);
	EXPECT_ATOMS("ENEN", 0xdf);
	EXPECT_ATOMS("NNNNN", 0xd5);
	EXPECT_ATOMS("NENEN", 0xd6);
	EXPECT_ATOMS("ENENE", 0xd7);
	EXPECT_ATOMS("NEEEE", 0xf5);
	EXPECT_ATOMS("EEEE", 0xc0);
	EXPECT_ATOMS("EEEEEE", 0xc2);
	EXPECT_ATOMS("EEEN", 0xe0);
	EXPECT_ATOMS("EEEEEEEEEEEEEN", 0xea); /* 13 E then N */
	EXPECT_ATOMS("EEEEEEEEEEEEEEEEEEEEEEEE", 0xd4); /* 24 E */
	/* Two packets at least: 24 E then E; NNNN then E (F4 + F1, not
	 * F3 + F2). */
	EXPECT_ATOMS("EEEEEEEEEEEEEEEEEEEEEEEEE", 0xd4, 0xf7);
	EXPECT_ATOMS("NNNNNNE", 0xd5, 0xda);
}

/* Digest 5.9, 7.2: with spec_depth 2 no more than two P0 elements are
 * ever uncommitted: EE, Commit 2, EE, Commit 1 (room for the last E),
 * E, then at the end Commit 2. */
static void test_commit_depth(void **state)
{
	static const uint8_t w[] = { 0xdb, 0x2d, 0x02, 0xdb, 0x2d, 0x01,
				     0xf7, 0x2d, 0x02 };
	/* spec_depth 0 under MAXSPEC 8: each packet committed at once. */
	static const uint8_t w0[] = { 0xc1, 0x2d, 0x05 };
	struct ts_out o;

	(void)state;
	atoms_trace("EEEEE", &o, 4, 2);
	expect_after_head(&o, w, sizeof(w));
	free(o.b);
	atoms_trace("EEEEE", &o, 8, 0);
	expect_after_head(&o, w0, sizeof(w0));
	free(o.b);
}

/* br x0 at 0x1000 to @target, then a nop there: the E atom, then the
 * target's address packet (digest 5.19). */
static void expect_target(uint64_t target, const uint8_t *want, size_t n)
{
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;
	uint8_t w[16];

	a64(&rc, 0x1000, BR_X0, IND, target);
	a64(&rc, target, NOP, 0, 0);
	ete_enc_config_init(&c);
	encode(&c, &rc, &o);
	assert_int_equal(last_stats.untraceable, 1); /* the nop */
	w[0] = 0xf7;
	memcpy(w + 1, want, n);
	expect_after_head(&o, w, n + 1);
	free(o.b);
	free(rc.r);
}

#define EXPECT_TARGET(t, ...)                                                  \
	do {                                                                   \
		static const uint8_t w_[] = { __VA_ARGS__ };                   \
		expect_target(t, w_, sizeof(w_));                              \
	} while (0)

/* Digest 2.3, 2.4, 5.19: the fewest bytes against history entry 0 =
 * 0x1000 (the Address + Context of head[]). */
static void test_address_forms(void **state)
{
	(void)state;
	/* exact match, entry 0 */
	EXPECT_TARGET(0x1000, 0x90);
	/* short, 1 byte: A[8:2] = 0x40 (0x1100 differs from 0x1000 in
	 * bit 8 only) */
	EXPECT_TARGET(0x1100, 0x95, 0x40);
	/* short, 2 bytes: A[8:2] = 0, A[16:9] = 0x88 */
	EXPECT_TARGET(0x11000, 0x95, 0x80, 0x88);
	/* long 32: A[8:2] 0x1e, A[15:9] 0x2b, A[23:16], A[31:24]; the
	 * context is AArch64, so A[63:32] come from entry 0 (zero) */
	EXPECT_TARGET(0x12345678, 0x9a, 0x1e, 0x2b, 0x34, 0x12);
	/* long 64 */
	EXPECT_TARGET(0xffffff8000001000ull, 0x9d, 0x00, 0x08, 0x00, 0x00,
		      0x80, 0xff, 0xff, 0xff);
}

/* Digest 2.4: every address packet pushes, exact matches included.
 * 0x1000 br -> 0x2000 (short 2 bytes: 95 80 10), br -> 0x1000: history
 * entry 1 (91), br -> 0x2000: entry 1 again (the 91 pushed 0x1000). */
static void test_address_history(void **state)
{
	static const uint8_t w[] = { 0xf7, 0x95, 0x80, 0x10, 0xf7, 0x91,
				     0xf7, 0x91 };
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;

	(void)state;
	a64(&rc, 0x1000, BR_X0, IND, 0x2000);
	a64(&rc, 0x2000, BR_X0, IND, 0x1000);
	a64(&rc, 0x1000, BR_X0, IND, 0x2000);
	a64(&rc, 0x2000, NOP, 0, 0);
	ete_enc_config_init(&c);
	encode(&c, &rc, &o);
	expect_after_head(&o, w, sizeof(w));
	free(o.b);
	free(rc.r);
}

/* Digest 5.18, 5.20: context ID and VMID traced (TRCCONFIGR bits 6, 7;
 * TRCIDR2 gives 4 bytes each): info 0xf1 = EL1, SF, C, V (Secure), then
 * VMID, then context ID, little-endian. A later change of EL alone, with
 * the address unchanged: a Context packet (81). */
static void test_context(void **state)
{
	static const uint8_t w[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x01, 0x00, 0x04,
		0x82, 0x00, 0x08, 0x00, 0x00, 0xd1, 0x44, 0x33, 0x22, 0x11,
		0x78, 0x56, 0x34, 0x12,
		0xf7,                                   /* isb */
		0x81, 0xd2, 0x44, 0x33, 0x22, 0x11, 0x78, 0x56, 0x34, 0x12,
		0xf7,                                   /* b.eq */
	};
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct exec_rec *r;
	struct ts_out o;

	(void)state;
	a64(&rc, 0x1000, ISB, 0, 0);
	r = ts_rec_add(&rc, exec_context);
	r->flags = EXEC_CTX_EL;
	r->el = 2;
	a64(&rc, 0x1004, op_bcond(4), TAKEN, 0x1008);
	ete_enc_config_init(&c);
	c.etm.trcconfigr = (1u << 6) | (1u << 7);
	c.ns = 0;
	c.vmid = 0x11223344;
	c.context_id = 0x12345678;
	encode(&c, &rc, &o);
	assert_int_equal(o.n, sizeof(w));
	assert_memory_equal(o.b, w, sizeof(w));
	free(o.b);
	free(rc.r);
}

/* Digest 5.5, 7.8: nop, nop, a call with return address 0x1008 (06 05:
 * type 2, E1:E0 = 01; short 95 02), its handler at 0x2000 (95 80 10)
 * running b.eq. Then a br to 0x3000 and an IRQ before anything ran
 * there: E1:E0 = 10, the return address is also the br's target (06 5c,
 * 95 80 18). The handler at 0x2000 again: history entry 1 (91). */
static void test_exception(void **state)
{
	static const uint8_t w[] = {
		0x06, 0x05, 0x95, 0x02, 0x95, 0x80, 0x10, /* call, handler */
		0xdb,                                     /* b.eq E, br E */
		0x06, 0x5c, 0x95, 0x80, 0x18,             /* IRQ at 0x3000 */
		0x91,                                     /* handler */
		0xf7,                                     /* b.eq */
	};
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;

	(void)state;
	a64(&rc, 0x1000, NOP, 0, 0);
	a64(&rc, 0x1004, NOP, 0, 0);
	exc(&rc, exec_exc_call, 0x1008);
	a64(&rc, 0x2000, op_bcond(4), TAKEN, 0x2004);
	a64(&rc, 0x2004, BR_X0, IND, 0x3000);
	exc(&rc, exec_exc_irq, 0x3000);
	a64(&rc, 0x2000, op_bcond(4), TAKEN, 0x2004);
	ete_enc_config_init(&c);
	encode(&c, &rc, &o);
	expect_after_head(&o, w, sizeof(w));
	free(o.b);
	free(rc.r);
}

/* Digest 2.2, 5.3: TRCCONFIGR.TS; a timestamp before the first
 * instruction follows the start; the next carries only the low bits that
 * changed. 0x6fd7 = 02 d7 df 01; 0x6fd8 differs in bits 6:0 only. */
static void test_timestamp(void **state)
{
	static const uint8_t w[] = { 0x02, 0xd7, 0xdf, 0x01, 0xf7, 0x02, 0x58,
				     0xf7 };
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;

	(void)state;
	ts_rec_add(&rc, exec_timestamp)->value = 0x6fd7;
	a64(&rc, 0x1000, op_bcond(4), TAKEN, 0x1004);
	ts_rec_add(&rc, exec_timestamp)->value = 0x6fd8;
	a64(&rc, 0x1004, op_bcond(4), TAKEN, 0x1008);
	ete_enc_config_init(&c);
	c.etm.trcconfigr = 1u << 11;
	encode(&c, &rc, &o);
	expect_after_head(&o, w, sizeof(w));
	free(o.b);
	free(rc.r);
}

/* Digest 5.24: a timestamp marker (88) before each timestamp when
 * TRCIDR0.TSMARK (bit 23) is set, but only from ETE 1.1 (TRCDEVARCH
 * revision 1): the same registers on ETE 1.0 give test_timestamp's
 * bytes, since 1.0 has no 0x88 header. */
static void test_timestamp_marker(void **state)
{
	static const uint8_t w11[] = { 0x88, 0x02, 0xd7, 0xdf, 0x01, 0xf7,
				       0x88, 0x02, 0x58, 0xf7 };
	static const uint8_t w10[] = { 0x02, 0xd7, 0xdf, 0x01, 0xf7, 0x02,
				       0x58, 0xf7 };
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;

	(void)state;
	ts_rec_add(&rc, exec_timestamp)->value = 0x6fd7;
	a64(&rc, 0x1000, op_bcond(4), TAKEN, 0x1004);
	ts_rec_add(&rc, exec_timestamp)->value = 0x6fd8;
	a64(&rc, 0x1004, op_bcond(4), TAKEN, 0x1008);
	for (int rev = 0; rev <= 1; rev++) {
		ete_enc_config_init(&c);
		c.etm.trcconfigr = 1u << 11;
		c.etm.trcidr0 |= 1u << 23;
		c.etm.trcdevarch = rev ? 0x47715a13 : 0x47705a13;
		encode(&c, &rc, &o);
		if (rev)
			expect_after_head(&o, w11, sizeof(w11));
		else
			expect_after_head(&o, w10, sizeof(w10));
		free(o.b);
	}
	free(rc.r);
}

/* Digest 5.4: after a gap, Trace On, then the context (81 31) and the
 * address, here 0x1000 again: history entry 0 (90). */
static void test_gap(void **state)
{
	static const uint8_t w[] = { 0xf7, 0x04, 0x81, 0x31, 0x90, 0xf7 };
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;

	(void)state;
	a64(&rc, 0x1000, op_bcond(4), TAKEN, 0x1004);
	ts_rec_add(&rc, exec_gap);
	a64(&rc, 0x1000, op_bcond(4), TAKEN, 0x1004);
	ete_enc_config_init(&c);
	encode(&c, &rc, &o);
	expect_after_head(&o, w, sizeof(w));
	free(o.b);
	free(rc.r);
}

/* Digest 5.10, 5.11: with mispredict_every 1 and MAXSPEC 4, the first
 * atom (E) goes as 33 (append N, flip it to E), the second (N) as an E
 * atom then 30 (flip it to N). Commit 2 at the end. */
static void test_mispredict_bytes(void **state)
{
	static const uint8_t w[] = { 0x33, 0xf7, 0x30, 0x2d, 0x02 };
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;

	(void)state;
	a64(&rc, 0x1000, op_bcond(4), TAKEN, 0x1004);
	a64(&rc, 0x1004, op_bcond(4), BRANCH, 0x1008);
	ete_enc_config_init(&c);
	c.etm.trcidr8 = 4;
	c.spec_depth = 4;
	c.mispredict_every = 1;
	encode(&c, &rc, &o);
	expect_after_head(&o, w, sizeof(w));
	free(o.b);
	free(rc.r);
}

/* Digest 5.8, D4.3.7.1: cycle counts with commit mode 1 (TRCIDR0.COMMOPT
 * 1) and MAXSPEC 0: each atom packet commits at once; a count follows
 * it with the cycles since the last count, less the threshold (1, in
 * Trace Info: 01 09 01 01). br x0 to 0x1000 five times, with 5, 2, 100,
 * 0 and 3 cycles: F2 0c 04, F3 11, F1 0e 63, none (0 is below the
 * threshold), F3 12 (3 cycles); then 2^22 cycles: unknown (0f), the
 * 20-bit counter cannot hold it. */
static void test_cycle_counts(void **state)
{
	static const uint8_t w[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x01, 0x09, 0x01, 0x01,
		0x04, 0x82, 0x00, 0x08, 0x00, 0x00, 0x31,
		0xf7, 0x0c, 0x04, 0x90, 0xf7, 0x11, 0x90, 0xf7, 0x0e, 0x63,
		0x90, 0xf7, 0x90, 0xf7, 0x12, 0x90, 0xf7, 0x0f, 0x90,
	};
	static const uint32_t cyc[] = { 5, 2, 100, 0, 3, 1u << 22 };
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;

	(void)state;
	for (int i = 0; i < 6; i++) {
		a64(&rc, 0x1000, BR_X0, IND, 0x1000);
		rc.r[rc.n - 1].flags |= EXEC_F_CYCLES;
		rc.r[rc.n - 1].cycles = cyc[i];
	}
	a64(&rc, 0x1000, NOP, 0, 0);
	ete_enc_config_init(&c);
	c.etm.trcconfigr = 1u << 4;
	c.cc_threshold = 1;
	encode(&c, &rc, &o);
	assert_int_equal(o.n, sizeof(w));
	assert_memory_equal(o.b, w, sizeof(w));
	free(o.b);
	/* Commit mode 0 is not supported. */
	c.etm.trcidr0 &= ~(1u << 29);
	{
		struct ete_enc *e;

		assert_int_equal(ete_enc_alloc(&e, &c, ts_out_sink, &o),
				 -etmkit_err_unsupported);
	}
	free(rc.r);
}

/* ---- Q elements (digest 5.17, D4.3.5.4) ------------------------------------ */

/* TRCCONFIGR.QE = 0b01: Q elements with instruction counts (digest 6;
 * the default TRCIDR0 0x2801cea1 has QSUPP 0b11). */
#define QE1 (1u << 13)

static void q_config(struct ete_enc_config *c, uint32_t every)
{
	ete_enc_config_init(c);
	c->etm.trcconfigr = QE1;
	c->q_every = every;
}

/* nop at 0x1000, br x0 at 0x1004 to @target; with q_every 1 one Q of
 * count 2 (digest 5.17: address part first, then the C7 count) whose
 * address is compressed against history entry 0 = 0x1000 as an address
 * packet would be (digest 2.3, 2.4, 5.19). */
static void expect_q(uint64_t target, const uint8_t *want, size_t n)
{
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;

	a64(&rc, 0x1000, NOP, 0, 0);
	a64(&rc, 0x1004, BR_X0, IND, target);
	q_config(&c, 1);
	encode(&c, &rc, &o);
	assert_int_equal(last_stats.untraceable, 0);
	assert_int_equal(last_stats.p0, 1);
	expect_after_head(&o, want, n);
	free(o.b);
	free(rc.r);
}

#define EXPECT_Q(t, ...)                                                       \
	do {                                                                   \
		static const uint8_t w_[] = { __VA_ARGS__ };                   \
		expect_q(t, w_, sizeof(w_));                                   \
	} while (0)

/* Each Q type with an address (digest 5.17 table). */
static void test_q_forms(void **state)
{
	(void)state;
	/* type 0: exact match entry 0, count 2 */
	EXPECT_Q(0x1000, 0xa0, 0x02);
	/* type 5, 1-byte short: A[8:2] = 0x40 */
	EXPECT_Q(0x1100, 0xa5, 0x40, 0x02);
	/* type 5, 2-byte short: A[8:2] = 0 (C set), A[16:9] = 0x88 */
	EXPECT_Q(0x11000, 0xa5, 0x80, 0x88, 0x02);
	/* type 0xA, long 32 IS0: A[8:2] 0x1e, A[15:9] 0x2b, A[23:16],
	 * A[31:24]; A[63:32] from entry 0 (AArch64 context) */
	EXPECT_Q(0x12345678, 0xaa, 0x1e, 0x2b, 0x34, 0x12, 0x02);
	/* type 0xC, count only, then a long 64 address packet */
	EXPECT_Q(0xffffff8000001000ull, 0xac, 0x02, 0x9d, 0x00, 0x08, 0x00,
		 0x00, 0x80, 0xff, 0xff, 0xff);
}

/* The two Q packets of the digest's capture [CAP:q_elem] (digest 5.17
 * and its table of examples), each of count 3: long 32 IS0 0x67ed0 (aa
 * 34 3f 06 00 03), then, with history entry 0 = 0x68858 (the 2-byte
 * short Q a5 96 44 01 to there), short IS0 0x63818 (a5 86 1c 03). */
static void test_q_capture(void **state)
{
	static const uint8_t w[] = { 0xaa, 0x34, 0x3f, 0x06, 0x00, 0x03,
				     0xa5, 0x96, 0x44, 0x01,
				     0xa5, 0x86, 0x1c, 0x03 };
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;

	(void)state;
	a64(&rc, 0x1000, NOP, 0, 0);
	a64(&rc, 0x1004, NOP, 0, 0);
	a64(&rc, 0x1008, BR_X0, IND, 0x67ed0);
	a64(&rc, 0x67ed0, BR_X0, IND, 0x68858);
	a64(&rc, 0x68858, NOP, 0, 0);
	a64(&rc, 0x6885c, NOP, 0, 0);
	a64(&rc, 0x68860, BR_X0, IND, 0x63818);
	q_config(&c, 1);
	encode(&c, &rc, &o);
	expect_after_head(&o, w, sizeof(w));
	assert_int_equal(last_stats.q_packets[0xa], 1);
	assert_int_equal(last_stats.q_packets[0x5], 2);
	free(o.b);
	free(rc.r);
}

/* Digest 2.4, 5.17: a Q with an address pushes it, an exact match
 * included. br 0x1000 -> 0x2000 (a5 80 10, count 1), br 0x2000 ->
 * 0x1000 (entry 1: a1), br 0x1000 -> 0x3000 (a5 80 18), br 0x3000 ->
 * 0x2000 (entry 2: a2; the a1 pushed 0x1000 again). */
static void test_q_history(void **state)
{
	static const uint8_t w[] = { 0xa5, 0x80, 0x10, 0x01, 0xa1, 0x01,
				     0xa5, 0x80, 0x18, 0x01, 0xa2, 0x01 };
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;

	(void)state;
	a64(&rc, 0x1000, BR_X0, IND, 0x2000);
	a64(&rc, 0x2000, BR_X0, IND, 0x1000);
	a64(&rc, 0x1000, BR_X0, IND, 0x3000);
	a64(&rc, 0x3000, BR_X0, IND, 0x2000);
	q_config(&c, 1);
	encode(&c, &rc, &o);
	expect_after_head(&o, w, sizeof(w));
	assert_int_equal(last_stats.q_packets[0x1], 1);
	assert_int_equal(last_stats.q_packets[0x2], 1);
	assert_int_equal(last_stats.q_packets[0x5], 2);
	free(o.b);
	free(rc.r);
}

/* D4.3.5.4: a Q counts every instruction since the previous P0 element;
 * it says nothing of the way its branches went, so a taken branch ends
 * one and a branch not taken gets an atom, while an ISB (P0, not a
 * branch) is run over. nop, isb, nop, b.eq not taken: a Q of 2 to
 * 0x1008 (a5 02 02), then the N atom (f6); b.eq at 0x1010 taken to
 * 0x1020: a Q of 1 (a5 08 01); isb at 0x1020, then the end: a Q of 1 to
 * 0x1024 (a5 09 01), the nop after it untraceable. With q_every 2 over
 * four taken b.eq: atom, Q, atom, Q (f7 a5 02 01 f7 a5 04 01). */
static void test_q_runs(void **state)
{
	static const uint8_t w1[] = { 0xa5, 0x02, 0x02, 0xf6, 0xa5, 0x08, 0x01,
				      0xa5, 0x09, 0x01 };
	static const uint8_t w2[] = { 0xf7, 0xa5, 0x02, 0x01,
				      0xf7, 0xa5, 0x04, 0x01 };
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;

	(void)state;
	a64(&rc, 0x1000, NOP, 0, 0);
	a64(&rc, 0x1004, ISB, 0, 0);
	a64(&rc, 0x1008, NOP, 0, 0);
	a64(&rc, 0x100c, op_bcond(8), BRANCH, 0);
	a64(&rc, 0x1010, op_bcond(0x10), TAKEN, 0x1020);
	a64(&rc, 0x1020, ISB, 0, 0);
	a64(&rc, 0x1024, NOP, 0, 0);
	q_config(&c, 1);
	encode(&c, &rc, &o);
	expect_after_head(&o, w1, sizeof(w1));
	assert_int_equal(last_stats.p0, 4);
	assert_int_equal(last_stats.untraceable, 1);
	free(o.b);
	rc.n = 0;
	for (int i = 0; i < 4; i++)
		a64(&rc, 0x1000 + 4 * (uint64_t)i, op_bcond(4), TAKEN,
		    0x1004 + 4 * (uint64_t)i);
	q_config(&c, 2);
	encode(&c, &rc, &o);
	expect_after_head(&o, w2, sizeof(w2));
	free(o.b);
	free(rc.r);
}

/* Digest 7.2: a Q is one P0 element for commits. MAXSPEC 4, spec_depth
 * 2, four taken b.eq as Q elements: Q Q, Commit 1, Q, Commit 1, Q, then
 * Commit 2 at the end. A type 0xC Q is counted by the decoder when its
 * address packet arrives: with spec_depth 0 its Commit comes after that
 * packet. */
static void test_q_commit(void **state)
{
	static const uint8_t w1[] = { 0xa5, 0x01, 0x01, 0xa5, 0x02, 0x01,
				      0x2d, 0x01, 0xa5, 0x03, 0x01, 0x2d, 0x01,
				      0xa5, 0x04, 0x01, 0x2d, 0x02 };
	static const uint8_t w2[] = { 0xac, 0x01, 0x9d, 0x00, 0x08, 0x00, 0x00,
				      0x80, 0xff, 0xff, 0xff, 0x2d, 0x01 };
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;

	(void)state;
	for (int i = 0; i < 4; i++)
		a64(&rc, 0x1000 + 4 * (uint64_t)i, op_bcond(4), TAKEN,
		    0x1004 + 4 * (uint64_t)i);
	q_config(&c, 1);
	c.etm.trcidr8 = 4;
	c.spec_depth = 2;
	encode(&c, &rc, &o);
	expect_after_head(&o, w1, sizeof(w1));
	free(o.b);
	rc.n = 0;
	a64(&rc, 0x1000, BR_X0, IND, 0xffffff8000001000ull);
	c.spec_depth = 0;
	encode(&c, &rc, &o);
	expect_after_head(&o, w2, sizeof(w2));
	assert_int_equal(last_stats.q_packets[0xc], 1);
	free(o.b);
	free(rc.r);
}

static void t32(struct ts_rec *rc, uint64_t addr, uint32_t op, uint32_t flags,
		uint64_t target, uint8_t tisa);

/* IS1 forms (digest 2.3, 5.17): T32 nop at 0x9000, bx lr to 0x9010: a
 * 1-byte short IS1 Q, A[7:1] = 0x08 (a6 08 02); bx lr there to
 * 0x12345678: long 32 IS1, A[7:1] 0x3c, A[15:8], A[23:16], A[31:24]
 * (ab 3c 56 34 12 01). The start: Address + Context 32-bit IS1 (83),
 * info 0x21 (EL1, NS, SF 0). */
static void test_q_t32(void **state)
{
	static const uint8_t w[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x01, 0x00, 0x04,
		0x83, 0x00, 0x90, 0x00, 0x00, 0x21,
		0xa6, 0x08, 0x02, 0xab, 0x3c, 0x56, 0x34, 0x12, 0x01,
	};
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;

	(void)state;
	t32(&rc, 0x9000, 0xbf00, 0, 0, 0);
	t32(&rc, 0x9002, 0x4770, IND, 0x9010, etmkit_isa_thumb);
	t32(&rc, 0x9010, 0x4770, IND, 0x12345678, etmkit_isa_thumb);
	q_config(&c, 1);
	encode(&c, &rc, &o);
	assert_int_equal(o.n, sizeof(w));
	assert_memory_equal(o.b, w, sizeof(w));
	free(o.b);
	free(rc.r);
}

/* q_every needs Q elements with counts: TRCIDR0.QSUPP and TRCCONFIGR.QE
 * bit 0 (digest 6, U13). */
static void test_q_config(void **state)
{
	static const uint32_t qsupp[] = { 0, 2, 1, 3, 3, 3, 3 };
	static const uint32_t qe[] = { 1, 1, 0, 0, 2, 1, 3 };
	struct ete_enc_config c;
	struct ete_enc *e;
	struct ts_out o = { 0 };

	(void)state;
	for (int i = 0; i < 7; i++) {
		q_config(&c, 3);
		c.etm.trcidr0 = (c.etm.trcidr0 & ~(3u << 15)) | qsupp[i] << 15;
		c.etm.trcconfigr = qe[i] << 13;
		if (i < 5) {
			assert_int_equal(ete_enc_alloc(&e, &c, ts_out_sink, &o),
					 -etmkit_err_bad_config);
		} else {
			assert_int_equal(ete_enc_alloc(&e, &c, ts_out_sink, &o), 0);
			ete_enc_free(e);
		}
	}
	/* Q enabled but not asked for: atoms only. */
	q_config(&c, 0);
	assert_int_equal(ete_enc_alloc(&e, &c, ts_out_sink, &o), 0);
	ete_enc_free(e);
}

/* Configuration errors. */
static void test_config(void **state)
{
	struct ete_enc_config c;
	struct ete_enc *e;
	struct ts_out o = { 0 };

	(void)state;
	ete_enc_config_init(&c);
	assert_int_equal(ete_enc_alloc(NULL, &c, ts_out_sink, &o), -etmkit_err_invalid);
	assert_int_equal(ete_enc_alloc(&e, &c, NULL, &o), -etmkit_err_invalid);
	c.size = 8;
	assert_int_equal(ete_enc_alloc(&e, &c, ts_out_sink, &o), -etmkit_err_invalid);
	ete_enc_config_init(&c);
	c.spec_depth = 1; /* MAXSPEC 0 */
	assert_int_equal(ete_enc_alloc(&e, &c, ts_out_sink, &o), -etmkit_err_bad_config);
	ete_enc_config_init(&c);
	c.cancel_every = 3;
	c.etm.trcidr8 = 1;
	assert_int_equal(ete_enc_alloc(&e, &c, ts_out_sink, &o), -etmkit_err_bad_config);
	ete_enc_config_init(&c);
	c.etm.trcconfigr = 1u << 12; /* return stack */
	assert_int_equal(ete_enc_alloc(&e, &c, ts_out_sink, &o),
			 -etmkit_err_unsupported);
	ete_enc_config_init(&c);
	c.etm.trcdevarch = 0x47704a13; /* ETMv4 devarch with ETE flag */
	assert_int_equal(ete_enc_alloc(&e, &c, ts_out_sink, &o), -etmkit_err_bad_config);
	ete_enc_config_init(&c);
	assert_int_equal(ete_enc_alloc(&e, &c, ts_out_sink, &o), 0);
	{
		struct exec_rec r;

		memset(&r, 0, sizeof(r));
		r.kind = 99;
		assert_int_equal(ete_enc_put(e, &r), -etmkit_err_invalid);
		r.kind = exec_insn;
		r.isa = etmkit_isa_a64;
		r.size = 4;
		r.addr = 0x1002; /* misaligned */
		assert_int_equal(ete_enc_put(e, &r), -etmkit_err_invalid);
	}
	assert_int_equal(ete_enc_finish(e), 0);
	assert_int_equal(ete_enc_finish(e), -etmkit_err_invalid);
	ete_enc_free(e);
	free(o.b);
}

/* A sink error stops the encoder and is returned from then on. */
static void test_sink_error(void **state)
{
	struct ete_enc_config c;
	struct ete_enc *e;
	struct ts_out o = { 0 };
	struct exec_rec r;
	int rc = 0;

	(void)state;
	ete_enc_config_init(&c);
	o.fail = -etmkit_err_io;
	o.fail_at = 1;
	assert_int_equal(ete_enc_alloc(&e, &c, ts_out_sink, &o), 0);
	memset(&r, 0, sizeof(r));
	r.kind = exec_insn;
	r.isa = etmkit_isa_a64;
	r.size = 4;
	r.flags = IND;
	r.opcode = BR_X0;
	for (unsigned i = 0; i < 100000 && rc == 0; i++) {
		r.addr = 0x1000 + 4 * (uint64_t)(i % 4096);
		r.target = 0x100000 + 0x1000 * (uint64_t)(i % 7);
		r.addr = i ? r.addr : 0x1000;
		rc = ete_enc_put(e, &r);
	}
	assert_int_equal(rc, -etmkit_err_io);
	assert_int_equal(ete_enc_put(e, &r), -etmkit_err_io);
	assert_int_equal(ete_enc_finish(e), -etmkit_err_io);
	ete_enc_free(e);
	free(o.b);
}

/* ---- Round trips ------------------------------------------------------------ */

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

static void ctx_add(struct evs *s, uint64_t c)
{
	if (s->nctx && s->ctx[s->nctx - 1] == c)
		return;
	assert_true(s->nctx < 4096);
	s->ctx[s->nctx++] = c;
}

static void ev_add(struct evs *s, uint8_t kind, uint64_t addr, uint8_t isa,
		   uint8_t size, uint16_t number)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		assert_non_null(s->v);
	}
	s->v[s->n].kind = kind;
	s->v[s->n].addr = addr;
	s->v[s->n].isa = isa;
	s->v[s->n].size = size;
	s->v[s->n].number = number;
	s->v[s->n].cycles = 0;
	s->n++;
}

/* enum exec_exc to the packet type the encoder is to use (digest 5.5). */
static const uint16_t exc_type[exec_exc_count] = {
	0x00, 0x03, 0x02, 0x0b, 0x0c, 0x0e, 0x0f, 0x06,
};

/* The events of record @rc: every instruction up to the last P0 one
 * (@last_p0: index of the item after it), and every exception. */
static void expected_of(const struct ts_rec *rc, size_t end,
			const struct ete_enc_config *c, struct evs *s)
{
	uint64_t cid = c->context_id, vmid = c->vmid, el = c->el, ns = c->ns;
	int cid_on = (c->etm.trcconfigr >> 6) & 1;
	int vmid_on = (c->etm.trcconfigr >> 7) & 1;

	s->n = s->nts = s->nctx = 0;
	for (size_t i = 0; i < end; i++) {
		const struct exec_rec *r = &rc->r[i];

		if (r->kind == exec_timestamp && (c->etm.trcconfigr & (1u << 11)))
			s->ts[s->nts++] = r->value;
		if (r->kind == exec_context) {
			if (r->flags & EXEC_CTX_EL) {
				el = r->el;
				ns = r->ns;
			}
			if (r->flags & EXEC_CTX_CONTEXTID)
				cid = (uint32_t)r->value;
			if (r->flags & EXEC_CTX_VMID)
				vmid = r->vmid;
		}
		if (r->kind == exec_insn) {
			ctx_add(s, el | ns << 2 | (cid_on ? cid << 8 : 0) |
				       (vmid_on ? vmid << 40 : 0));
			ev_add(s, etmkit_elem_insn, r->addr, r->isa, r->size, 0);
			if (r->flags & EXEC_F_CYCLES)
				s->v[s->n - 1].cycles = r->cycles;
		}
		else if (r->kind == exec_exception)
			ev_add(s, etmkit_elem_exception, r->addr, 0, 0,
			       exc_type[r->number]);
	}
}

struct cmp {
	const struct evs *want;
	size_t at;
	char why[256];
	struct evs got; /* timestamps and contexts */
	uint64_t cycles; /* of the instructions since the last count */
	uint64_t counts; /* cycle counts */
};

static void cmp_elem(struct cmp *c, const struct etmkit_elem *el)
{
	const struct ev *w;

	if (el->kind == etmkit_elem_timestamp) {
		assert_true(c->got.nts < 4096);
		c->got.ts[c->got.nts++] = el->u.timestamp.value;
		return;
	}
	if (el->kind == etmkit_elem_cycle_count) {
		/* D4.3.7.1: the cycles since the previous count, to the
		 * commit point: the instructions delivered before it. */
		if (!(el->flags & ETMKIT_CC_UNKNOWN) && !c->why[0] &&
		    el->cycles != c->cycles)
			snprintf(c->why, sizeof(c->why),
				 "cycle count %u after event %zu, want %llu",
				 el->cycles, c->at,
				 (unsigned long long)c->cycles);
		c->counts++;
		c->cycles = 0;
		return;
	}
	if (el->kind == etmkit_elem_context) {
		ctx_add(&c->got, el->u.context.el |
				 (uint64_t)el->u.context.ns << 2 |
				 (el->flags & ETMKIT_CTX_CONTEXT_ID ?
				  (uint64_t)el->u.context.context_id << 8 : 0) |
				 (el->flags & ETMKIT_CTX_VMID ?
				  (uint64_t)el->u.context.vmid << 40 : 0));
		return;
	}
	if (el->kind != etmkit_elem_insn && el->kind != etmkit_elem_exception)
		return;
	if (c->why[0])
		return;
	if (c->at >= c->want->n) {
		snprintf(c->why, sizeof(c->why),
			 "extra element kind %u at %llx after %zu", el->kind,
			 (unsigned long long)el->addr, c->at);
		return;
	}
	w = &c->want->v[c->at];
	if (el->kind != w->kind ||
	    (w->kind == etmkit_elem_insn &&
	     (el->addr != w->addr || el->isa != w->isa || el->size != w->size)) ||
	    (w->kind == etmkit_elem_exception &&
	     (el->u.exception.ret_addr != w->addr ||
	      el->u.exception.number != w->number))) {
		snprintf(c->why, sizeof(c->why),
			 "event %zu: want kind %u addr %llx isa %u num %u, got "
			 "kind %u addr %llx isa %u ret %llx num %u",
			 c->at, w->kind, (unsigned long long)w->addr, w->isa,
			 w->number, el->kind, (unsigned long long)el->addr,
			 el->isa,
			 (unsigned long long)el->u.exception.ret_addr,
			 el->u.exception.number);
		return;
	}
	c->cycles += w->cycles;
	c->at++;
}

static void drain(struct etm4_flow_decoder *d, struct cmp *c)
{
	const struct etmkit_elem *el;
	int k;

	while ((k = etm4_flow_batch(d, &el)) > 0)
		for (int i = 0; i < k; i++)
			cmp_elem(c, &el[i]);
	assert_int_equal(k, -etmkit_err_eos);
}

/* Decode @o (in chunks of 1 to @chunk bytes from @seed, or whole when
 * @chunk is 0) over @img and compare with @want. */
static void decode_check(const struct ete_enc_config *ec, const struct ts_out *o,
			 const struct image *img, const struct evs *want,
			 unsigned chunk, uint32_t seed)
{
	struct etm4_flow_config fc;
	struct etm4_flow_decoder *d;
	struct ete_enc *e;
	static struct cmp c;
	struct ts_out dummy = { 0 };
	size_t at = 0;

	etm4_flow_config_init(&fc);
	assert_int_equal(ete_enc_alloc(&e, ec, ts_out_sink, &dummy), 0);
	assert_int_equal(ete_enc_decoder_config(e, &fc.etm), 0);
	ete_enc_free(e);
	fc.image = img;
	assert_int_equal(etm4_flow_alloc(&d, &fc), 0);
	memset(&c, 0, sizeof(c));
	c.want = want;
	c.got.nts = c.got.nctx = 0;
	c.cycles = c.counts = 0;
	while (at < o->n) {
		size_t n = o->n - at;

		if (chunk) {
			seed = seed * 1103515245u + 12345u;
			n = 1 + (seed >> 8) % chunk;
			if (n > o->n - at)
				n = o->n - at;
		}
		assert_int_equal(etm4_flow_feed(d, o->b + at, n, NULL, at), 0);
		drain(d, &c);
		at += n;
	}
	assert_int_equal(etm4_flow_finish(d), 0);
	drain(d, &c);
	if (!c.why[0] && c.at != want->n)
		snprintf(c.why, sizeof(c.why), "decoded %zu of %zu events",
			 c.at, want->n);
	if (!c.why[0] && (c.got.nts != want->nts ||
			  memcmp(c.got.ts, want->ts, want->nts * 8) != 0))
		snprintf(c.why, sizeof(c.why), "timestamps: %zu, want %zu",
			 c.got.nts, want->nts);
	if (!c.why[0] && (c.got.nctx != want->nctx ||
			  memcmp(c.got.ctx, want->ctx, want->nctx * 8) != 0))
		snprintf(c.why, sizeof(c.why), "contexts: %zu, want %zu",
			 c.got.nctx, want->nctx);
	if (!c.why[0] && c.counts != want->ncc)
		snprintf(c.why, sizeof(c.why), "%llu cycle counts, want %llu",
			 (unsigned long long)c.counts,
			 (unsigned long long)want->ncc);
	assert_int_equal(etm4_flow_get_stats(d)->protocol_errors, 0);
	etm4_flow_free(d);
	free(dummy.b);
	if (c.why[0])
		fail_msg("%s", c.why);
}

/* ---- A generated A64 program and random walks over it ----------------------- */

enum { K_NOP, K_B, K_BL, K_BCOND, K_CBZ, K_RET, K_BR, K_BLR, K_ISB, K_N };

#define PROG_BASE 0x40000ull
#define PROG_N 8192u

struct prog {
	uint8_t bytes[PROG_N * 4];
	uint8_t kind[PROG_N];
	uint64_t target[PROG_N];
};

static uint32_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 11);
}

static void prog_make(struct prog *p, uint64_t seed)
{
	for (unsigned i = 0; i < PROG_N; i++) {
		uint64_t a = PROG_BASE + 4ull * i, t;
		unsigned r = rnd(&seed) % 100, k;
		uint32_t op;

		k = r < 55 ? K_NOP : r < 62 ? K_B : r < 67 ? K_BL :
		    r < 80 ? K_BCOND : r < 85 ? K_CBZ : r < 89 ? K_RET :
		    r < 93 ? K_BR : r < 96 ? K_BLR : K_ISB;
		if (i == PROG_N - 1)
			k = K_B; /* never run off the end */
		/* Direct targets: near (short addresses), mostly forward
		 * so that walks do not stay in loops, or anywhere. */
		if (rnd(&seed) % 8)
			t = a + 4 * ((int64_t)(rnd(&seed) % 64) - 8);
		else
			t = PROG_BASE + 4ull * (rnd(&seed) % PROG_N);
		if ((k == K_B || k == K_BL) && t <= a)
			t = a + 4 * (1 + rnd(&seed) % 64); /* no loops of B */
		if (t < PROG_BASE || t >= PROG_BASE + 4ull * PROG_N)
			t = PROG_BASE;
		switch (k) {
		case K_B: op = op_b((int64_t)(t - a)); break;
		case K_BL: op = op_bl((int64_t)(t - a)); break;
		case K_BCOND: op = op_bcond((int64_t)(t - a)); break;
		case K_CBZ: op = op_cbz((int64_t)(t - a)); break;
		case K_RET: op = RET; break;
		case K_BR: op = BR_X0; break;
		case K_BLR: op = BLR_X1; break;
		case K_ISB: op = ISB; break;
		default: op = NOP; break;
		}
		p->kind[i] = (uint8_t)k;
		p->target[i] = t;
		for (int b = 0; b < 4; b++)
			p->bytes[4 * i + b] = (uint8_t)(op >> (8 * b));
	}
}

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

/* The program is mapped at each of these bases, so that indirect
 * branches between them need every address form: 2-byte short (bit 16),
 * long 32 (bit 17 up), the upper half kept (bit 32 up) or not. */
static const uint64_t bases[] = {
	PROG_BASE, 0x50000ull, 0x60000ull, 0x12340000ull, 0x100040000ull,
	0xffff800000040000ull,
};
#define NBASES (sizeof(bases) / sizeof(bases[0]))

/* A random instruction of the program, in region @*base, or (1 in
 * @far) in a random region, which becomes *@base. */
static uint64_t prog_addr(uint64_t *s, uint64_t *base, unsigned far)
{
	if (far && rnd(s) % far == 0)
		*base = bases[rnd(s) % NBASES];
	return *base + 4ull * (rnd(s) % PROG_N);
}

/* A random walk of @o->steps instructions; returns the number of items up
 * to and including the last P0 instruction. */
static size_t walk(const struct prog *p, struct ts_rec *rc, uint64_t seed,
		   const struct walk_opts *o)
{
	uint64_t base = PROG_BASE, pc = prog_addr(&seed, &base, o->far);
	uint64_t ts = 1000, hot[3] = { pc, pc, pc };
	size_t last = 0;
	uint8_t el = 1;

	rc->n = 0;
	for (unsigned s = 0; s < o->steps; s++) {
		unsigned i = (unsigned)((pc - base) / 4), k = p->kind[i];
		uint32_t op = (uint32_t)p->bytes[4 * i] |
			      (uint32_t)p->bytes[4 * i + 1] << 8 |
			      (uint32_t)p->bytes[4 * i + 2] << 16 |
			      (uint32_t)p->bytes[4 * i + 3] << 24;
		uint32_t fl = 0;
		uint64_t next = pc + 4, t = 0;
		int p0 = k != K_NOP;

		if (o->ts_pct10 && rnd(&seed) % 1000 < o->ts_pct10) {
			ts += rnd(&seed) % 3 ? rnd(&seed) % 100 :
			      (uint64_t)rnd(&seed) << 20;
			ts_rec_add(rc, exec_timestamp)->value = ts;
		}
		switch (k) {
		case K_B:
		case K_BL:
			fl = TAKEN;
			t = base + (p->target[i] - PROG_BASE);
			break;
		case K_BCOND:
		case K_CBZ:
			fl = rnd(&seed) % 2 ? TAKEN : BRANCH;
			t = base + (p->target[i] - PROG_BASE);
			break;
		case K_RET:
		case K_BR:
		case K_BLR:
			fl = rnd(&seed) % 8 ? IND : BRANCH | EXEC_F_INDIRECT;
			/* Half the time one of three hot targets: exact
			 * matches of each history entry. */
			if (!(fl & EXEC_F_TAKEN)) {
				t = 0;
			} else if (rnd(&seed) % 2) {
				t = hot[rnd(&seed) % 3];
				base = t - (t - PROG_BASE) % 0x10000;
				for (unsigned b = 0; b < NBASES; b++)
					if (t >= bases[b] &&
					    t < bases[b] + 4ull * PROG_N)
						base = bases[b];
			} else {
				t = prog_addr(&seed, &base, o->far);
				hot[rnd(&seed) % 3] = t;
			}
			break;
		}
		if (fl & EXEC_F_TAKEN)
			next = t;
		a64(rc, pc, op, fl, t);
		if (o->cyc) {
			rc->r[rc->n - 1].flags |= EXEC_F_CYCLES;
			rc->r[rc->n - 1].cycles = rnd(&seed) % 64 ? rnd(&seed) % 4 :
						  rnd(&seed) % 3000000;
		}
		if (p0)
			last = rc->n;
		pc = next;
		if (o->exc_pct10 && rnd(&seed) % 1000 < o->exc_pct10) {
			unsigned num = 1 + rnd(&seed) % (exec_exc_count - 1);

			exc(rc, num, pc);
			if (o->ctx_pct && rnd(&seed) % 100 < o->ctx_pct) {
				struct exec_rec *r = ts_rec_add(rc, exec_context);

				if (rnd(&seed) % 2)
					el = (uint8_t)(el == 1 ? 2 : 1);
				r->flags = EXEC_CTX_EL | EXEC_CTX_CONTEXTID |
					   EXEC_CTX_VMID;
				r->el = el;
				r->ns = 1;
				r->value = rnd(&seed);
				r->vmid = rnd(&seed) % 3;
			}
			if (rnd(&seed) % 100 < o->untraced_handlers)
				ts_rec_add(rc, exec_gap);
			last = rc->n;
			pc = prog_addr(&seed, &base, o->far);
		} else if (p0 && o->gap_pct10 &&
			   rnd(&seed) % 1000 < o->gap_pct10) {
			ts_rec_add(rc, exec_gap);
			pc = prog_addr(&seed, &base, o->far);
		} else if (o->ctx_pct10 && rnd(&seed) % 1000 < o->ctx_pct10) {
			struct exec_rec *r = ts_rec_add(rc, exec_context);

			el = (uint8_t)(el == 1 ? 2 : 1);
			r->flags = EXEC_CTX_EL | EXEC_CTX_CONTEXTID |
				   EXEC_CTX_VMID;
			r->el = el;
			r->ns = 1;
			r->value = rnd(&seed);
			r->vmid = rnd(&seed) % 3;
		}
	}
	return last;
}

struct rt_case {
	uint32_t maxspec, depth, mis, can, cfgr, flags, sync;
	int etmv4;
	uint32_t cyct;
	uint32_t q;     /* q_every; TRCCONFIGR.QE 0b01 (odd) or 0b11 */
};

static void rt_config(struct ete_enc_config *c, const struct rt_case *k)
{
	ete_enc_config_init(c);
	if (k->etmv4) {
		c->etm.flags = 0;
		c->etm.trcdevarch = 0;
		c->etm.trcidr0 = 0x28000ea1u;
		c->etm.trcidr1 = 0x4100f443u; /* ETMv4.4 */
		c->etm.trcidr2 = 0x00001088u;
	}
	c->etm.trcidr8 = k->maxspec;
	c->etm.trcconfigr = k->cfgr;
	c->spec_depth = k->depth;
	c->mispredict_every = k->mis;
	c->cancel_every = k->can;
	c->flags = k->flags;
	c->sync_period = k->sync;
	c->cc_threshold = k->cyct;
	if (k->q) {
		c->q_every = k->q;
		c->etm.trcidr0 |= 3u << 15; /* QSUPP: ETMv4's has none */
		c->etm.trcconfigr |= (k->q & 1 ? 1u : 3u) << 13;
	}
}

static struct prog P;

static void round_trip(const struct rt_case *k, const struct walk_opts *wo,
		       uint64_t seed, struct ete_enc_stats *st_out)
{
	struct ete_enc_config c;
	struct ete_enc *e;
	struct ts_rec rc = { 0 };
	static struct evs want;
	struct ts_out o = { 0 };
	struct image *img;
	size_t end;
	uint64_t ncc;

	end = walk(&P, &rc, seed, wo);
	rt_config(&c, k);
	assert_int_equal(ete_enc_alloc(&e, &c, ts_out_sink, &o), 0);
	for (size_t i = 0; i < end; i++)
		assert_int_equal(ete_enc_put(e, &rc.r[i]), 0);
	assert_int_equal(ete_enc_finish(e), 0);
	if (st_out)
		*st_out = *ete_enc_get_stats(e);
	ncc = ete_enc_get_stats(e)->cycle_counts;
	if (k->cfgr & (1u << 4))
		assert_true(ncc > 0 || !wo->cyc || k->cyct > 0);
	assert_int_equal(ete_enc_get_stats(e)->untraceable, 0);
	assert_int_equal(ete_enc_get_stats(e)->bytes, o.n);
	ete_enc_free(e);
	expected_of(&rc, end, &c, &want);
	want.ncc = st_out ? st_out->cycle_counts : ncc;
	assert_int_equal(image_alloc(&img), 0);
	for (unsigned b = 0; b < NBASES; b++)
		assert_int_equal(image_add_buffer(img, P.bytes, sizeof(P.bytes),
						  bases[b], 0), 0);
	decode_check(&c, &o, img, &want, 0, 0);
	decode_check(&c, &o, img, &want, 37, (uint32_t)seed);
	image_free(img);
	free(o.b);
	free(rc.r);
	free(want.v);
	memset(&want, 0, sizeof(want));
}

static int setup_prog(void **state)
{
	(void)state;
	prog_make(&P, 0x1234567);
	return 0;
}

static const struct walk_opts plain = { 20000, 0, 0, 0, 0, 0, 4, 0, 0 };
static const struct walk_opts busy = { 20000, 20, 20, 30, 30, 50, 3, 1, 0 };
/* busy, and contexts changing between instructions */
static const struct walk_opts busy_ctx = { 20000, 20, 20, 30, 30, 50, 3, 1,
					   20 };

/* MAXSPEC 0, straight walks: atoms, addresses. */
static void test_rt_plain(void **state)
{
	static const struct rt_case k = { 0 };
	struct ete_enc_stats st;

	(void)state;
	round_trip(&k, &plain, 1, &st);
	assert_true(st.p0 > 2000);
	for (int f = 1; f <= 6; f++)
		if (st.atom_packets[f] == 0)
			fail_msg("atom format %d not used", f);
	for (int f = 0; f < 4; f++)
		if (st.addr_forms[f] == 0)
			fail_msg("address form %d not used", f);
}

/* Exceptions (traced and untraced handlers), gaps, context changes,
 * timestamps, context ID and VMID. */
static void test_rt_events(void **state)
{
	static const struct rt_case k = { 0, 0, 0, 0,
					  (1u << 6) | (1u << 7) | (1u << 11) |
					  (1u << 4), 0, 0, 0, 1, 0 };
	struct ete_enc_stats st;

	(void)state;
	round_trip(&k, &busy, 2, &st);
	assert_true(st.syncs > 1); /* periodic resync happened */
}

/* Speculation: spec_depth below MAXSPEC, commit at once, and synthesized
 * mispredicts and cancels of every form. */
static void test_rt_speculation(void **state)
{
	static const struct rt_case ks[] = {
		{ 16, 4, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ 8, 0, 0, 0, 1u << 4, 0, 0, 0, 0, 0 },
		{ 32, 32, 7, 5, 1u << 4, 0, 0, 0, 3, 0 },
		{ 0, 0, 0, 0, 1u << 4, 0, 300, 0, 1, 0 },
		{ 4, 3, 3, 2, 0, 0, 0, 0, 0, 0 },
		{ 2, 2, 0, 1, 0, 0, 0, 0, 0, 0 },
		{ 1, 1, 1, 0, 0, 0, 0, 0, 0, 0 },
		{ 255, 24, 11, 3, (1u << 11), 0, 512, 0, 0, 0 },
	};
	struct ete_enc_stats st;

	(void)state;
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		round_trip(&ks[i], &busy, 10 + i, &st);
		if (ks[i].mis)
			assert_true(st.mispredicts > 0);
		if (ks[i].can)
			assert_true(st.cancels > 0);
	}
}

/* ETMv4 registers (TRCIDR1 4.4, no ETE flag); no compression. */
static void test_rt_etmv4(void **state)
{
	static const struct rt_case k1 = { 16, 8, 5, 4, 1u << 11, 0, 0, 1, 0, 0 };
	static const struct rt_case k2 = { 0, 0, 0, 0, 1u << 4,
					   ETE_ENC_NO_COMPRESS, 0, 0, 5, 0 };

	(void)state;
	round_trip(&k1, &busy, 20, NULL);
	round_trip(&k2, &busy, 21, NULL);
}

/* D4.3.5.4 (R LZLDH and the rule after I BTNZC): a context change that
 * is not at a P0 instruction ends the Q after the last instruction in
 * the old context, and the Context follows the Q. nop, isb, nop, EL2,
 * b.eq taken to 0x1014: Q of 3 to 0x100c (a5 03 03),
 * Context EL2 (81 32), Q of 1 to 0x1014 (a5 05 01). Decoded over the
 * program, the instructions and both contexts come back. */
static void test_q_context(void **state)
{
	static const uint8_t w[] = { 0xa5, 0x03, 0x03, 0x81, 0x32,
				     0xa5, 0x05, 0x01 };
	const uint32_t ops[] = { NOP, ISB, NOP, op_bcond(8) };
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct exec_rec *r;
	struct ts_out o;
	struct image *img;
	static struct evs want;
	uint8_t code[32];

	(void)state;
	memset(code, 0, sizeof(code));
	for (int i = 0; i < 4; i++)
		for (int b = 0; b < 4; b++)
			code[4 * i + b] = (uint8_t)(ops[i] >> (8 * b));
	a64(&rc, 0x1000, ops[0], 0, 0);
	a64(&rc, 0x1004, ops[1], 0, 0);
	a64(&rc, 0x1008, ops[2], 0, 0);
	r = ts_rec_add(&rc, exec_context);
	r->flags = EXEC_CTX_EL;
	r->el = 2;
	r->ns = 1;
	a64(&rc, 0x100c, ops[3], TAKEN, 0x1014);
	q_config(&c, 1);
	encode(&c, &rc, &o);
	expect_after_head(&o, w, sizeof(w));
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, code, sizeof(code), 0x1000, 0),
			 0);
	expected_of(&rc, rc.n, &c, &want);
	assert_int_equal(want.nctx, 2);
	decode_check(&c, &o, img, &want, 0, 0);
	image_free(img);
	free(o.b);
	free(rc.r);
	free(want.v);
	memset(&want, 0, sizeof(want));
}

/* Q elements (digest 5.17, D4.3.5.4) in place of atoms: alone, every
 * address form; with speculation, mispredicts and cancels (a Q is a P0
 * element, digest 7.1, 7.2), cycle counts, branch broadcast, events,
 * ETMv4, no compression. */
static void test_rt_q(void **state)
{
	static const struct rt_case ks[] = {
		{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 },
		{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 3 },
		{ 16, 4, 0, 0, 0, 0, 0, 0, 0, 2 },
		{ 8, 0, 0, 0, 1u << 4, 0, 0, 0, 0, 1 },
		{ 32, 32, 7, 5, 1u << 4, 0, 0, 0, 3, 3 },
		{ 4, 3, 3, 2, 0, 0, 0, 0, 0, 2 },
		{ 2, 2, 0, 1, 0, 0, 0, 0, 0, 3 },
		{ 1, 1, 1, 0, 0, 0, 0, 0, 0, 2 },
		{ 255, 24, 11, 3, (1u << 11) | (1u << 3), 0, 512, 0, 0, 4 },
		{ 0, 0, 0, 0, (1u << 6) | (1u << 7) | (1u << 11) | (1u << 4),
		  0, 0, 0, 1, 1 },
		{ 16, 8, 5, 4, 1u << 11, 0, 0, 1, 0, 2 },
		{ 0, 0, 0, 0, 1u << 4, ETE_ENC_NO_COMPRESS, 0, 0, 5, 1 },
		{ 8, 0, 0, 0, 0, ETE_ENC_NO_COMPRESS, 0, 1, 0, 3 },
	};
	struct ete_enc_stats st;
	uint64_t nq = 0;

	(void)state;
	round_trip(&ks[0], &plain, 30, &st);
	/* Every Q type with an address and a count; atoms only for the
	 * branches not taken (about a quarter of the P0 instructions). */
	for (unsigned t = 0; t < 16; t++) {
		if ((t <= 2 || t == 5 || t == 0xa || t == 0xc) &&
		    st.q_packets[t] == 0)
			fail_msg("Q type %x not used", t);
		nq += st.q_packets[t];
	}
	assert_true(nq > st.p0 / 2);
	for (size_t i = 1; i < sizeof(ks) / sizeof(ks[0]); i++) {
		nq = 0;
		round_trip(&ks[i], i < 9 ? &plain : i % 2 ? &busy_ctx : &busy,
			   30 + i, &st);
		for (unsigned t = 0; t < 16; t++)
			nq += st.q_packets[t];
		assert_true(nq > 0);
		if (ks[i].q > 1)
			assert_true(st.atom_packets[1] + st.atom_packets[2] +
				    st.atom_packets[3] + st.atom_packets[6] > 0);
		if (ks[i].mis)
			assert_true(st.mispredicts > 0);
		if (ks[i].can)
			assert_true(st.cancels > 0);
	}
}

/* Many seeds, each a random configuration (ETE_ENC_SEEDS=n in the
 * environment for a longer soak). */
static void test_rt_random(void **state)
{
	const char *env = getenv("ETE_ENC_SEEDS");
	uint64_t nseeds = env ? strtoull(env, NULL, 0) : 60;

	(void)state;
	for (uint64_t seed = 100; seed < 100 + nseeds; seed++) {
		uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
		struct rt_case k;
		struct walk_opts w;

		memset(&k, 0, sizeof(k));
		k.maxspec = rnd(&s) % 3 ? rnd(&s) % 40 : 0;
		k.depth = k.maxspec ? rnd(&s) % (k.maxspec + 1) : 0;
		k.mis = k.maxspec && rnd(&s) % 2 ? 1 + rnd(&s) % 9 : 0;
		k.can = k.maxspec >= 2 && rnd(&s) % 2 ? 1 + rnd(&s) % 9 : 0;
		k.cfgr = (rnd(&s) % 2 ? 1u << 11 : 0) |
			 (rnd(&s) % 2 ? (1u << 6) | (1u << 7) : 0) |
			 (rnd(&s) % 4 == 0 ? 1u << 3 : 0) |
			 (rnd(&s) % 2 ? 1u << 4 : 0);
		k.cyct = rnd(&s) % 3 ? rnd(&s) % 4 : rnd(&s) % 4096;
		k.sync = rnd(&s) % 2 ? 64 + rnd(&s) % 1024 : 0;
		k.etmv4 = rnd(&s) % 4 == 0;
		w.steps = 500 + rnd(&s) % 3000;
		w.exc_pct10 = rnd(&s) % 40;
		w.gap_pct10 = rnd(&s) % 40;
		w.untraced_handlers = rnd(&s) % 50;
		w.ts_pct10 = rnd(&s) % 50;
		w.ctx_pct = rnd(&s) % 100;
		w.far = rnd(&s) % 6;
		w.cyc = rnd(&s) % 4 != 0;
		k.q = rnd(&s) % 3 == 0 ? 1 + rnd(&s) % 6 : 0;
		w.ctx_pct10 = rnd(&s) % 2 ? rnd(&s) % 30 : 0;
		round_trip(&k, &w, seed, NULL);
	}
}

/* A long run: several sink calls (64 KiB buffer), bounded memory. */
static void test_rt_long(void **state)
{
	static const struct rt_case k = { 16, 8, 13, 17, 1u << 4, 0, 0, 0, 2, 0 };
	static const struct walk_opts w = { 400000, 5, 5, 20, 5, 20, 5, 1, 0 };
	struct ete_enc_stats st;

	(void)state;
	round_trip(&k, &w, 77, &st);
	assert_true(st.bytes > 3 * 65536);
}

/* Digest 5.5 (U4, U5): an ETE PE reset is 3 bytes (06 81 00: C set,
 * TYPE 0, E1:E0 = 01) with no address; in ETMv4 it is 06 01 and its
 * return address. */
static void test_reset(void **state)
{
	static const uint8_t w_ete[] = { 0xf7, 0x06, 0x81, 0x00, 0x95, 0x80,
					 0x10, 0xf7 };
	static const uint8_t w_v4[] = { 0xf7, 0x06, 0x01, 0x95, 0x02, 0x95,
					0x80, 0x10, 0xf7 };
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;

	(void)state;
	a64(&rc, 0x1000, op_bcond(4), TAKEN, 0x1004);
	a64(&rc, 0x1004, NOP, 0, 0);
	exc(&rc, exec_exc_reset, 0x1008);
	a64(&rc, 0x2000, op_bcond(4), TAKEN, 0x2004);
	ete_enc_config_init(&c);
	encode(&c, &rc, &o);
	expect_after_head(&o, w_ete, sizeof(w_ete));
	free(o.b);
	c.etm.flags = 0;
	c.etm.trcdevarch = 0;
	c.etm.trcidr1 = 0x4100f443u;
	encode(&c, &rc, &o);
	expect_after_head(&o, w_v4, sizeof(w_v4));
	free(o.b);
	free(rc.r);
}

/* ETMv4 AArch32 (digest 2.3, 5.18): A32 at 0x8000 and T32 at 0x9000,
 * interworking by BX; IS1 addresses for T32, context SF 0.
 *   8000 mov r0, r0     9000 nop
 *   8004 b 0x800c       9002 b 0x9006
 *   8008 mov r0, r0     9004 nop
 *   800c bx r1          9006 bx lr
 * The walk: 8000 8004 800c -> 9000 9002 9006 -> 8000 ..., an IRQ in
 * T32 after 9000 (return address 0x9002, IS1), its handler at 0x8008. */
static void t32(struct ts_rec *rc, uint64_t addr, uint32_t op, uint32_t flags,
		uint64_t target, uint8_t tisa)
{
	ts_rec_insn(rc, etmkit_isa_thumb, 2, addr, op, flags, target, tisa);
}

static void a32(struct ts_rec *rc, uint64_t addr, uint32_t op, uint32_t flags,
		uint64_t target, uint8_t tisa)
{
	ts_rec_insn(rc, etmkit_isa_arm, 4, addr, op, flags, target, tisa);
}

static void test_rt_aarch32(void **state)
{
	static const uint32_t arm[] = { 0xe1a00000, 0xea000000, 0xe1a00000,
					0xe12fff11 };
	static const uint16_t thumb[] = { 0xbf00, 0xe000, 0xbf00, 0x4770 };
	static const struct rt_case ks[] = {
		{ 0, 0, 0, 0, 0, 0, 0, 1, 0, 0 },
		{ 8, 2, 3, 2, 0, 0, 0, 1, 0, 0 },
		{ 8, 0, 0, 0, 0, ETE_ENC_NO_COMPRESS, 0, 1, 0, 0 },
		{ 0, 0, 0, 0, 0, 0, 0, 1, 0, 1 },
		{ 8, 2, 3, 2, 0, 0, 0, 1, 0, 2 },
		{ 8, 0, 0, 0, 0, ETE_ENC_NO_COMPRESS, 0, 1, 0, 1 },
	};
	uint8_t code[0x1008];
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;
	struct image *img;
	static struct evs want;

	(void)state;
	memset(code, 0, sizeof(code));
	for (int i = 0; i < 4; i++)
		for (int b = 0; b < 4; b++)
			code[4 * i + b] = (uint8_t)(arm[i] >> (8 * b));
	for (int i = 0; i < 4; i++) {
		code[0x1000 + 2 * i] = (uint8_t)thumb[i];
		code[0x1000 + 2 * i + 1] = (uint8_t)(thumb[i] >> 8);
	}
	for (int it = 0; it < 3; it++) {
		a32(&rc, 0x8000, arm[0], 0, 0, 0);
		a32(&rc, 0x8004, arm[1], TAKEN, 0x800c, etmkit_isa_arm);
		a32(&rc, 0x800c, arm[3], IND, 0x9000, etmkit_isa_thumb);
		t32(&rc, 0x9000, thumb[0], 0, 0, 0);
		if (it == 1) {
			exc(&rc, exec_exc_irq, 0x9002);
			a32(&rc, 0x8008, arm[2], 0, 0, 0);
			a32(&rc, 0x800c, arm[3], IND, 0x9002, etmkit_isa_thumb);
		}
		t32(&rc, 0x9002, thumb[1], TAKEN, 0x9006, etmkit_isa_thumb);
		t32(&rc, 0x9006, thumb[3], IND, 0x8000, etmkit_isa_arm);
	}
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, code, sizeof(code), 0x8000, 0),
			 0);
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		rt_config(&c, &ks[i]);
		c.etm.trcidr2 = 0x00001084u; /* 32-bit addresses */
		encode(&c, &rc, &o);
		expected_of(&rc, rc.n, &c, &want);
		want.ncc = last_stats.cycle_counts;
		decode_check(&c, &o, img, &want, 0, 0);
		decode_check(&c, &o, img, &want, 3, 9);
		free(o.b);
	}
	image_free(img);
	free(rc.r);
	free(want.v);
}

/* ETE with AArch32 at EL0 and an AArch64 EL1 handler (digest 5.18: the
 * context's SF selects A32 or A64 for IS0): A32 at 0x8000 (the program
 * of test_rt_aarch32), a call after 0x8000 with return address 0x8004;
 * the handler at 0xa000 is A64 (nop, eret) and returns to 0x8004 at
 * EL0, AArch32. */
static void test_rt_interstate(void **state)
{
	static const uint32_t arm[] = { 0xe1a00000, 0xea000000, 0xe1a00000,
					0xe12fff11 };
	static const uint32_t a64c[] = { NOP, 0xd69f03e0 /* eret */ };
	static const struct rt_case ks[] = {
		{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ 8, 4, 2, 3, 1u << 4, 0, 0, 0, 0, 0 },
		{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 },
		{ 8, 4, 2, 3, 1u << 4, 0, 0, 0, 0, 2 },
	};
	uint8_t code[0x2008];
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;
	struct image *img;
	struct exec_rec *r;
	static struct evs want;

	(void)state;
	memset(code, 0, sizeof(code));
	for (int i = 0; i < 4; i++)
		for (int b = 0; b < 4; b++)
			code[4 * i + b] = (uint8_t)(arm[i] >> (8 * b));
	for (int i = 0; i < 2; i++)
		for (int b = 0; b < 4; b++)
			code[0x2000 + 4 * i + b] = (uint8_t)(a64c[i] >> (8 * b));
	for (int it = 0; it < 4; it++) {
		r = ts_rec_add(&rc, exec_context);
		r->flags = EXEC_CTX_EL;
		r->el = 0;
		r->ns = 1;
		a32(&rc, 0x8000, arm[0], 0, 0, 0);
		exc(&rc, exec_exc_call, 0x8004);
		r = ts_rec_add(&rc, exec_context);
		r->flags = EXEC_CTX_EL;
		r->el = 1;
		r->ns = 1;
		a64(&rc, 0xa000, a64c[0], 0, 0);
		a64(&rc, 0xa004, a64c[1], IND, 0x8004);
		rc.r[rc.n - 1].target_isa = etmkit_isa_arm;
		r = ts_rec_add(&rc, exec_context);
		r->flags = EXEC_CTX_EL;
		r->el = 0;
		r->ns = 1;
		a32(&rc, 0x8004, arm[1], TAKEN, 0x800c, etmkit_isa_arm);
		a32(&rc, 0x800c, arm[3], IND, 0x8000, etmkit_isa_arm);
		rc.r[rc.n - 1].flags |= EXEC_F_CYCLES;
		rc.r[rc.n - 1].cycles = 9;
	}
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, code, sizeof(code), 0x8000, 0),
			 0);
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		rt_config(&c, &ks[i]);
		encode(&c, &rc, &o);
		expected_of(&rc, rc.n, &c, &want);
		want.ncc = last_stats.cycle_counts;
		assert_true(last_stats.mispredicts >= (ks[i].mis ? 1u : 0u));
		decode_check(&c, &o, img, &want, 0, 0);
		free(o.b);
	}
	image_free(img);
	free(rc.r);
	free(want.v);
}

/* ETMv4, AArch32: a BLX (immediate) from T32 to A32, then a Context
 * packet (the security state changes) before the next atom. A Context
 * packet has no instruction-set bit, so the A32 the BLX switched to
 * stands; the decoder once re-read the T32 bit of the last address
 * packet there (fuzz_encode finding). */
static void test_ctx_after_blx(void **state)
{
	static const uint8_t t32code[] = { 0x15, 0x20, 0x07, 0xf4, 0xfc, 0xee };
	static const uint32_t arm[] = { 0xe2800001, 0xeb0000bc };
	uint8_t armcode[8];
	struct insn_info in;
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;
	struct image *img;
	struct exec_rec *r;
	static struct evs want;

	(void)state;
	for (int i = 0; i < 2; i++)
		for (int b = 0; b < 4; b++)
			armcode[4 * i + b] = (uint8_t)(arm[i] >> (8 * b));
	/* f407 eefc: BLX to 0x890c (the classifier says so too) */
	assert_int_equal(insn_decode(&in, etmkit_isa_thumb, 0x400b10,
				     t32code + 2, 4), 0);
	assert_int_equal(in.target, 0x890c);
	assert_int_equal(in.target_isa, etmkit_isa_arm);
	t32(&rc, 0x400b0e, 0x2015, 0, 0, 0);
	t32(&rc, 0x400b10, 0xf407eefc, BRANCH | TAKEN, 0x890c,
	    etmkit_isa_arm);
	rc.r[rc.n - 1].size = 4;
	r = ts_rec_add(&rc, exec_context);
	r->flags = EXEC_CTX_EL;
	r->el = 1;
	r->ns = 0;
	a32(&rc, 0x890c, arm[0], 0, 0, 0);
	a32(&rc, 0x8910, arm[1], BRANCH | TAKEN, 0x8c08, etmkit_isa_arm);
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, t32code, sizeof(t32code),
					  0x400b0e, 0), 0);
	assert_int_equal(image_add_buffer(img, armcode, sizeof(armcode),
					  0x890c, 0), 0);
	ete_enc_config_init(&c);
	c.etm.flags &= ~ETM4_CFG_ETE;
	c.etm.trcidr0 = 0x28000EA1;
	c.etm.trcidr1 = 0x4100F403;
	c.etm.trcidr2 = 0x00000488;
	c.etm.trcdevarch = 0;
	c.etm.trcconfigr = 0x8C0; /* TS, CID, VMID */
	encode(&c, &rc, &o);
	expected_of(&rc, rc.n, &c, &want);
	decode_check(&c, &o, img, &want, 0, 0);
	free(o.b);
	image_free(img);
	free(rc.r);
	free(want.v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_atom_formats),
		cmocka_unit_test(test_commit_depth),
		cmocka_unit_test(test_address_forms),
		cmocka_unit_test(test_address_history),
		cmocka_unit_test(test_context),
		cmocka_unit_test(test_exception),
		cmocka_unit_test(test_timestamp),
		cmocka_unit_test(test_timestamp_marker),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_mispredict_bytes),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_cycle_counts),
		cmocka_unit_test(test_q_forms),
		cmocka_unit_test(test_q_capture),
		cmocka_unit_test(test_q_history),
		cmocka_unit_test(test_q_runs),
		cmocka_unit_test(test_q_commit),
		cmocka_unit_test(test_q_t32),
		cmocka_unit_test(test_q_context),
		cmocka_unit_test(test_q_config),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_sink_error),
		cmocka_unit_test(test_rt_plain),
		cmocka_unit_test(test_rt_events),
		cmocka_unit_test(test_rt_speculation),
		cmocka_unit_test(test_rt_etmv4),
		cmocka_unit_test(test_rt_q),
		cmocka_unit_test(test_rt_random),
		cmocka_unit_test(test_rt_long),
		cmocka_unit_test(test_rt_aarch32),
		cmocka_unit_test(test_rt_interstate),
		cmocka_unit_test(test_ctx_after_blx),
	};

	return cmocka_run_group_tests(tests, setup_prog, NULL);
}
