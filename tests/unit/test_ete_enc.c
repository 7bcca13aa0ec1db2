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

#include "test_ete_enc.h"

/* ---- Records ---------------------------------------------------------------- */

/* An A64 instruction @op at @addr; @flags EXEC_F_*; @target when taken. */
void a64(struct ts_rec *rc, uint64_t addr, uint32_t op, uint32_t flags,
		uint64_t target)
{
	ts_rec_insn(rc, etmkit_isa_a64, 4, addr, op, flags, target,
		    etmkit_isa_a64);
}

void exc(struct ts_rec *rc, unsigned number, uint64_t ret)
{
	struct exec_rec *r = ts_rec_add(rc, exec_exception);

	r->number = number;
	r->addr = ret;
}


struct ete_enc_stats last_stats; /* of encode()'s encoder */

/* Encode @rc with @c; the trace into @o (freed by the caller). */
void encode(const struct ete_enc_config *c, const struct ts_rec *rc,
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
void expect_after_head(const struct ts_out *o, const uint8_t *want,
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

/* Encode @rc (freed here) with @c: the trace must be head[] then the @n
 * bytes @want; last_stats holds the encoder's statistics after. */
static void expect_trace(const struct ete_enc_config *c, struct ts_rec *rc,
			 const uint8_t *want, size_t n)
{
	struct ts_out o;

	encode(c, rc, &o);
	expect_after_head(&o, want, n);
	free(o.b);
	ts_rec_free(rc);
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
	uint8_t w[16];

	a64(&rc, 0x1000, BR_X0, IND, target);
	a64(&rc, target, NOP, 0, 0);
	ete_enc_config_init(&c);
	w[0] = 0xf7;
	memcpy(w + 1, want, n);
	expect_trace(&c, &rc, w, n + 1);
	assert_int_equal(last_stats.untraceable, 1); /* the nop */
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

	(void)state;
	a64(&rc, 0x1000, BR_X0, IND, 0x2000);
	a64(&rc, 0x2000, BR_X0, IND, 0x1000);
	a64(&rc, 0x1000, BR_X0, IND, 0x2000);
	a64(&rc, 0x2000, NOP, 0, 0);
	ete_enc_config_init(&c);
	expect_trace(&c, &rc, w, sizeof(w));
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

	(void)state;
	a64(&rc, 0x1000, NOP, 0, 0);
	a64(&rc, 0x1004, NOP, 0, 0);
	exc(&rc, exec_exc_call, 0x1008);
	a64(&rc, 0x2000, op_bcond(4), TAKEN, 0x2004);
	a64(&rc, 0x2004, BR_X0, IND, 0x3000);
	exc(&rc, exec_exc_irq, 0x3000);
	a64(&rc, 0x2000, op_bcond(4), TAKEN, 0x2004);
	ete_enc_config_init(&c);
	expect_trace(&c, &rc, w, sizeof(w));
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

	(void)state;
	ts_rec_add(&rc, exec_timestamp)->value = 0x6fd7;
	a64(&rc, 0x1000, op_bcond(4), TAKEN, 0x1004);
	ts_rec_add(&rc, exec_timestamp)->value = 0x6fd8;
	a64(&rc, 0x1004, op_bcond(4), TAKEN, 0x1008);
	ete_enc_config_init(&c);
	c.etm.trcconfigr = 1u << 11;
	expect_trace(&c, &rc, w, sizeof(w));
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

	(void)state;
	a64(&rc, 0x1000, op_bcond(4), TAKEN, 0x1004);
	ts_rec_add(&rc, exec_gap);
	a64(&rc, 0x1000, op_bcond(4), TAKEN, 0x1004);
	ete_enc_config_init(&c);
	expect_trace(&c, &rc, w, sizeof(w));
}

/* Digest 5.10, 5.11: with mispredict_every 1 and MAXSPEC 4, the first
 * atom (E) goes as 33 (append N, flip it to E), the second (N) as an E
 * atom then 30 (flip it to N). Commit 2 at the end. */
static void test_mispredict_bytes(void **state)
{
	static const uint8_t w[] = { 0x33, 0xf7, 0x30, 0x2d, 0x02 };
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };

	(void)state;
	a64(&rc, 0x1000, op_bcond(4), TAKEN, 0x1004);
	a64(&rc, 0x1004, op_bcond(4), BRANCH, 0x1008);
	ete_enc_config_init(&c);
	c.etm.trcidr8 = 4;
	c.spec_depth = 4;
	c.mispredict_every = 1;
	expect_trace(&c, &rc, w, sizeof(w));
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

void q_config(struct ete_enc_config *c, uint32_t every)
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

	a64(&rc, 0x1000, NOP, 0, 0);
	a64(&rc, 0x1004, BR_X0, IND, target);
	q_config(&c, 1);
	expect_trace(&c, &rc, want, n);
	assert_int_equal(last_stats.untraceable, 0);
	assert_int_equal(last_stats.p0, 1);
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
	expect_trace(&c, &rc, w2, sizeof(w2));
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
