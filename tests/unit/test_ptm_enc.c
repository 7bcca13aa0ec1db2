/* PTM trace encoder: the bytes it must emit, worked out by hand from the
 * packet formats of IHI 0035B chapter 4 as the digest (shared/spec/ptm.md)
 * gives them, with its byte examples turned around (atoms C8 94 98 F0 BC,
 * cycle-accurate atoms E8 20 / DE 01 / BC, branch addresses AD 05, B3 1E,
 * FD 9E 80 80 18, BD 85 80 80 0C, the I-sync cycle count CC 03, both
 * timestamp examples) and a run of Snowball's capture (a branch, a
 * waypoint update and an IRQ, bytes 2290-2302 of its PTM 0x10). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "etmkit/exec.h"
#include "etmkit/ptm.h"

#include "ts_out.h"
#include "ts_rec.h"

#include "test_ptm_enc.h"

#define IDR11 0x411CF312u  /* PFTv1.1: TC2's Cortex-A15 PTM */
#define IDR10 0x411CF301u  /* PFTv1.0: Snowball's Cortex-A9 PTM */
#define CCER_TC2 0x34C01AC2u /* timestamps 64-bit binary, return stack,
				Virtualization Extensions */
#define CCER_SNOW 0x000008EAu
#define CR_CA PTM_ETMCR_CYCLE_ACCURATE
#define CR_TS PTM_ETMCR_TIMESTAMP
#define CR_RS PTM_ETMCR_RETURN_STACK
#define CR_CID4 (3u << PTM_ETMCR_CID_SHIFT)

#define ARM etmkit_isa_arm
#define THUMB etmkit_isa_thumb

/* ---- Output capture ------------------------------------------------------- */

static struct ptm_enc *enc_new(uint32_t etmcr, uint32_t etmidr,
			       uint32_t etmccer, uint32_t sync_period,
			       struct ts_out *o)
{
	struct ptm_enc_config c;
	struct ptm_enc *e = NULL;

	ptm_enc_config_init(&c);
	c.etmcr = etmcr;
	c.etmidr = etmidr;
	c.etmccer = etmccer;
	c.sync_period = sync_period;
	memset(o, 0, sizeof(*o));
	assert_int_equal(ptm_enc_alloc(&e, &c, ts_out_sink, o), 0);
	return e;
}

static void expect_bytes(struct ptm_enc *e, struct ts_out *o,
			 const uint8_t *want, size_t n)
{
	char why[600];

	assert_int_equal(ptm_enc_finish(e), 0);
	assert_int_equal(o->empty, 0);
	if (ts_out_same(o, want, n, why, sizeof(why)))
		fail_msg("%s", why);
	assert_int_equal(ptm_enc_offset(e), n);
	ptm_enc_free(e);
	free(o->b);
}

#define EXPECT(e, o, ...)                                                    \
	do {                                                                 \
		const uint8_t want_[] = { __VA_ARGS__ };                     \
		expect_bytes(e, o, want_, sizeof(want_));                    \
	} while (0)

#define ASYNC 0, 0, 0, 0, 0, 0x80
/* I-sync (4.5.2): 08, the address (bit 0 T), information byte b0 01 0 NS
 * AltIS Hyp 1 (reason 01 tracing enabled), [cycle count], [context ID]. */
#define ISYNC_8000 0x08, 0x00, 0x80, 0x00, 0x00, 0x21

/* ---- Record items --------------------------------------------------------- */

static void put(struct ptm_enc *e, struct exec_rec r)
{
	assert_int_equal(ptm_enc_put(e, &r), 0);
}

/* An instruction that is no waypoint (opcode 0: ANDEQ r0, r0, r0). */
static void plain(struct ptm_enc *e, uint8_t isa, uint32_t addr)
{
	put(e, ts_insn(isa, addr, isa == ARM ? 4 : 2, 0));
}

static void plain_cyc(struct ptm_enc *e, uint32_t addr, uint32_t cycles)
{
	struct exec_rec r = ts_insn(ARM, addr, 4, EXEC_F_CYCLES);

	r.cycles = cycles;
	put(e, r);
}

/* A direct branch at @addr, taken to @target or not; @cycles its cycles
 * (0: none given). */
static void b_cc(struct ptm_enc *e, uint32_t addr, int taken,
		 uint32_t target, uint32_t cycles)
{
	struct exec_rec r = ts_insn(ARM, addr, 4, EXEC_F_BRANCH |
				    (taken ? EXEC_F_TAKEN : 0) |
				    (cycles ? EXEC_F_CYCLES : 0));

	r.opcode = 0xea000000; /* B (the atom does not depend on it) */
	r.target = target;
	r.target_isa = ARM;
	r.cycles = cycles;
	put(e, r);
}

/* A taken indirect branch (BX r3, or Thumb BX r3) to @target in @tisa. */
static void bx(struct ptm_enc *e, uint8_t isa, uint32_t addr,
	       uint32_t target, uint8_t tisa, uint32_t cycles)
{
	struct exec_rec r = ts_insn(isa, addr, isa == ARM ? 4 : 2,
				    EXEC_F_BRANCH | EXEC_F_INDIRECT |
				    EXEC_F_TAKEN | (cycles ? EXEC_F_CYCLES : 0));

	r.opcode = isa == ARM ? 0xe12fff13 : 0x4718; /* BX r3 */
	r.target = target;
	r.target_isa = tisa;
	r.cycles = cycles;
	put(e, r);
}

/* An instruction with opcode @op and flags @flags, taken to @target. */
static void op(struct ptm_enc *e, uint32_t addr, uint32_t opc,
	       uint32_t flags, uint32_t target, uint8_t tisa)
{
	struct exec_rec r = ts_insn(ARM, addr, 4, flags);

	r.opcode = opc;
	if (flags & EXEC_F_TAKEN) {
		r.target = target;
		r.target_isa = tisa;
	}
	put(e, r);
}

static void kind(struct ptm_enc *e, uint8_t k, uint32_t number,
		 uint32_t addr)
{
	struct exec_rec r;

	memset(&r, 0, sizeof(r));
	r.kind = k;
	r.number = number;
	r.addr = addr;
	put(e, r);
}

static void ctx(struct ptm_enc *e, uint32_t flags, uint32_t cid, uint8_t el,
		uint8_t ns, uint32_t vmid)
{
	struct exec_rec r;

	memset(&r, 0, sizeof(r));
	r.kind = exec_context;
	r.flags = flags;
	r.value = cid;
	r.el = el;
	r.ns = ns;
	r.vmid = vmid;
	put(e, r);
}

static void ts(struct ptm_enc *e, uint64_t v)
{
	struct exec_rec r;

	memset(&r, 0, sizeof(r));
	r.kind = exec_timestamp;
	r.value = v;
	put(e, r);
}

/* ---- Contracts -------------------------------------------------------------- */

static void test_config(void **state)
{
	struct ptm_enc_config c;
	struct ptm_enc *e = NULL;
	struct ts_out o = { 0 };
	struct exec_rec r;

	(void)state;
	ptm_enc_config_init(&c);
	c.etmidr = IDR11;
	assert_int_equal(ptm_enc_alloc(NULL, &c, ts_out_sink, &o), -etmkit_err_invalid);
	assert_int_equal(ptm_enc_alloc(&e, NULL, ts_out_sink, &o), -etmkit_err_invalid);
	assert_int_equal(ptm_enc_alloc(&e, &c, NULL, &o), -etmkit_err_invalid);
	c.size = 4;
	assert_int_equal(ptm_enc_alloc(&e, &c, ts_out_sink, &o), -etmkit_err_invalid);
	c.size = sizeof(c);
	c.flags = 1;
	assert_int_equal(ptm_enc_alloc(&e, &c, ts_out_sink, &o), -etmkit_err_invalid);
	c.flags = 0;
	c.etmidr = 0x410CF250u; /* ETMv3.5: ETMIDR[11:8] is 2 */
	assert_int_equal(ptm_enc_alloc(&e, &c, ts_out_sink, &o), -etmkit_err_bad_config);
	assert_null(e);
	assert_int_equal(ptm_enc_offset(NULL), 0);
	assert_int_equal(ptm_enc_finish(NULL), -etmkit_err_invalid);

	/* Items it refuses change nothing; data items are ignored. */
	e = enc_new(0, IDR11, 0, 0, &o);
	assert_int_equal(ptm_enc_put(e, NULL), -etmkit_err_invalid);
	r = ts_insn(etmkit_isa_a64, 0x8000, 4, 0);
	assert_int_equal(ptm_enc_put(e, &r), -etmkit_err_unsupported);
	r = ts_insn(etmkit_isa_jazelle, 0x8000, 1, 0);
	assert_int_equal(ptm_enc_put(e, &r), -etmkit_err_unsupported);
	r = ts_insn(ARM, 0x8000, 4, EXEC_F_BRANCH | EXEC_F_TAKEN);
	r.target = 0x100000000ull;
	assert_int_equal(ptm_enc_put(e, &r), -etmkit_err_invalid);
	r = ts_insn(ARM, 0x100000000ull, 4, 0);
	assert_int_equal(ptm_enc_put(e, &r), -etmkit_err_invalid);
	r = ts_insn(ARM, 0x8000, 0, 0);
	assert_int_equal(ptm_enc_put(e, &r), -etmkit_err_invalid);
	r.kind = 99;
	assert_int_equal(ptm_enc_put(e, &r), -etmkit_err_invalid);
	memset(&r, 0, sizeof(r));
	r.kind = exec_exception;
	r.number = exec_exc_count;
	assert_int_equal(ptm_enc_put(e, &r), -etmkit_err_invalid);
	r.kind = exec_data;
	assert_int_equal(ptm_enc_put(e, &r), 0);
	plain(e, ARM, 0x8000);
	/* The one instruction, walked by a waypoint update at the end
	 * (4.5: 72, then ARM A[7:2] = 0 with bit 0 set). */
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x72, 0x01);

	/* A sink error stops it: every later call returns it. */
	e = enc_new(0, IDR11, 0, 0, &o);
	o.fail = -etmkit_err_io;
	plain(e, ARM, 0x8000);
	assert_int_equal(ptm_enc_finish(e), -etmkit_err_io);
	r = ts_insn(ARM, 0x8004, 4, 0);
	assert_int_equal(ptm_enc_put(e, &r), -etmkit_err_io);
	ptm_enc_free(e);
	free(o.b);
}

/* ---- Atoms (4.5.3) ------------------------------------------------------------ */

/* Atoms oldest first in @a ('E'/'N'), each a direct branch. */
static uint32_t atoms(struct ptm_enc *e, uint32_t addr, const char *a)
{
	for (; *a; a++) {
		b_cc(e, addr, *a == 'E', addr + 0x100, 0);
		addr = *a == 'E' ? addr + 0x100 : addr + 4;
	}
	return addr;
}

static void test_atoms_plain(void **state)
{
	struct ts_out o;
	struct ptm_enc *e;

	(void)state;
	/* Digest 4.3: C8 = E,E,N,E,E; F0 = N,N,E,E,E; BC = N,N,N,E (a byte
	 * goes when five are in it, or when something else must follow).
	 * The walk ends on a branch target: no waypoint update. */
	e = enc_new(0, IDR11, 0, 0, &o);
	atoms(e, 0x8000, "EENEENNEEENNNE");
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0xc8, 0xf0, 0xbc);

	e = enc_new(0, IDR11, 0, 0, &o);
	atoms(e, 0x8000, "ENE"); /* 94 */
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x94);
	e = enc_new(0, IDR11, 0, 0, &o);
	atoms(e, 0x8000, "NEE"); /* 98 */
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x98);
	/* One atom: b1000 01a0; two: b1000 1ab0. */
	e = enc_new(0, IDR11, 0, 0, &o);
	atoms(e, 0x8000, "N");
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x86);
	e = enc_new(0, IDR11, 0, 0, &o);
	atoms(e, 0x8000, "EN");
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x8a);

	/* ISB is a waypoint (4.3): its own E atom (F57FF06F). Instructions
	 * past the last waypoint end in a waypoint update; the atoms before
	 * it go first. DMB (F57FF05F) is one with ETMCCER[24] only. */
	e = enc_new(0, IDR11, 0, 0, &o);
	op(e, 0x8000, 0xf57ff06f, 0, 0, 0);
	plain(e, ARM, 0x8004);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x84, 0x72, 0x03);
	e = enc_new(0, IDR11, 0, 0, &o);
	op(e, 0x8000, 0xf57ff05f, 0, 0, 0);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x72, 0x01);
	e = enc_new(0, IDR11, PTM_ETMCCER_DMB_WAYPOINT, 0, &o);
	op(e, 0x8000, 0xf57ff05f, 0, 0, 0);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x84);
}

static void test_atoms_cycle_accurate(void **state)
{
	struct ts_out o;
	struct ptm_enc *e;

	(void)state;
	/* Digest 4.3: E8 20 = E with 10 + (32 << 4) = 522 cycles; DE 01 = N,
	 * 23; BC = E, 15; 80 = E, 0 (cycle-accurate only). The cycles are
	 * those since the last count: the trace-on I-sync's, 0 (its first
	 * count byte has bit 7 set, as in the captures: 80). */
	e = enc_new(CR_CA, IDR11, 0, 0, &o);
	b_cc(e, 0x8000, 1, 0x8100, 522);
	b_cc(e, 0x8100, 0, 0, 23);
	plain_cyc(e, 0x8104, 10);
	b_cc(e, 0x8108, 1, 0x8200, 5);
	struct exec_rec r = ts_insn(ARM, 0x8200, 4, EXEC_F_BRANCH |
				    EXEC_F_TAKEN | EXEC_F_CYCLES);
	r.target = 0x8300;
	r.target_isa = ARM;
	r.cycles = 0;
	put(e, r);
	/* 0xffffffff: five count bytes, the 5th count[31:25] */
	b_cc(e, 0x8300, 1, 0x8400, 0xffffffffu);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x80, 0xe8, 0x20, 0xde, 0x01, 0xbc,
	       0x80, 0xfc, 0xff, 0xff, 0xff, 0x7f);
}

/* ---- Branch addresses (4.5.4) --------------------------------------------------- */

static void test_branch_examples(void **state)
{
	struct ts_out o;
	struct ptm_enc *e;

	(void)state;
	/* AD 05: ARM 0x558 against 0x100, A[7:2] = 0x16, A[13:8] = 5 (the
	 * last of two bytes, 6 bits); then the waypoint update to it, one
	 * byte (72 2D). */
	e = enc_new(0, IDR11, 0, 0, &o);
	bx(e, ARM, 0x100, 0x558, ARM, 0);
	plain(e, ARM, 0x558);
	EXPECT(e, &o, ASYNC, 0x08, 0x00, 0x01, 0x00, 0x00, 0x21, 0xad, 0x05,
	       0x72, 0x2d);

	/* B3 1E: Thumb 0xF32 against 0x1000 (A[6:1], A[12:7]). */
	e = enc_new(0, IDR11, 0, 0, &o);
	bx(e, THUMB, 0x1000, 0xf32, THUMB, 0);
	plain(e, THUMB, 0xf32);
	EXPECT(e, &o, ASYNC, 0x08, 0x01, 0x10, 0x00, 0x00, 0x21, 0xb3, 0x1e,
	       0x72, 0x33);

	/* FD 9E 80 80 18: ARM to Thumb 0x80000F7C, all five bytes (a new
	 * instruction set), the 5th b0001 A[31:28]. */
	e = enc_new(0, IDR11, 0, 0, &o);
	bx(e, ARM, 0x8000, 0x80000f7c, THUMB, 0);
	plain(e, THUMB, 0x80000f7c);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0xfd, 0x9e, 0x80, 0x80, 0x18,
	       0x72, 0x7d);

	/* BD 85 80 80 0C: Thumb to ARM 0x80000578, the 5th b00001 A[31:29]. */
	e = enc_new(0, IDR11, 0, 0, &o);
	bx(e, THUMB, 0x8000, 0x80000578, ARM, 0);
	plain(e, ARM, 0x80000578);
	EXPECT(e, &o, ASYNC, 0x08, 0x01, 0x80, 0x00, 0x00, 0x21, 0xbd, 0x85,
	       0x80, 0x80, 0x0c, 0x72, 0x3d);

	/* Branch broadcast (ETMCR[8]): a direct branch gets its address
	 * (0x8100 against 0x8000: 81 01... A[7:2] 0, A[13:8] 0x01) and no
	 * atom; ARM BLX (immediate) to Thumb gets one without it: five
	 * bytes, 0x9000 Thumb = 81 A0 82 80 10. */
	e = enc_new(PTM_ETMCR_BRANCH_BROADCAST, IDR11, 0, 0, &o);
	b_cc(e, 0x8000, 1, 0x8100, 0);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x81, 0x01);
	e = enc_new(0, IDR11, 0, 0, &o);
	op(e, 0x8000, 0xfa0003fe, EXEC_F_BRANCH | EXEC_F_TAKEN, 0x9000, THUMB);
	plain(e, THUMB, 0x9000);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x81, 0xa0, 0x82, 0x80, 0x10,
	       0x72, 0x01);

	/* Cycle-accurate: the count follows the address (first byte's bits
	 * 7, 1, 0 clear): 12 cycles = 30. */
	e = enc_new(CR_CA, IDR11, 0, 0, &o);
	plain_cyc(e, 0x8000, 5);
	bx(e, ARM, 0x8004, 0x8010, ARM, 7);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x80, 0x09, 0x30);
}

/* Snowball (PFTv1.0, cycle-accurate), PTM 0x10 at byte 2290: a return
 * to 0xC0010EF0 with 12 cycles (F9 8E 02 30), the waypoint update that
 * walks the instruction there (72 79), and the IRQ taken after it, to
 * 0xFFFF0018, Non-secure, 15 cycles (8D 80 FE FF 4F 1D 3C). */
static void test_snowball_irq(void **state)
{
	struct ts_out o;
	struct ptm_enc *e;

	(void)state;
	e = enc_new(CR_CA | CR_TS, IDR10, CCER_SNOW, 0, &o);
	ctx(e, EXEC_CTX_EL, 0, 1, 1, 0);
	plain_cyc(e, 0xc0020a20, 4);
	plain_cyc(e, 0xc0020a24, 4);
	bx(e, ARM, 0xc0020a28, 0xc0010ef0, ARM, 4);
	plain_cyc(e, 0xc0010ef0, 15);
	kind(e, exec_exception, exec_exc_irq, 0xc0010ef4);
	plain(e, ARM, 0xffff0018);
	EXPECT(e, &o, ASYNC, 0x08, 0x20, 0x0a, 0x02, 0xc0, 0x29, 0x80,
	       0xf9, 0x8e, 0x02, 0x30, 0x72, 0x79,
	       0x8d, 0x80, 0xfe, 0xff, 0x4f, 0x1d, 0x3c,
	       0x72, 0x0d);
}

/* ---- Exceptions and state ------------------------------------------------------ */

static void test_exceptions(void **state)
{
	struct ts_out o;
	struct ptm_enc *e;

	(void)state;
	/* SVC at 0x8004 (no waypoint): walked by a waypoint update, then the
	 * exception packet to 0x8 compressed against 0x8004 (three bytes,
	 * the last's bit 6 flagging the exception byte), exception byte
	 * 0 0 0 1010 0 (SVC = 10, Secure). */
	e = enc_new(0, IDR11, CCER_TC2, 0, &o);
	plain(e, ARM, 0x8000);
	op(e, 0x8004, 0xef000000, 0, 0, 0);
	kind(e, exec_exception, exec_exc_call, 0x8008);
	plain(e, ARM, 0x8);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x72, 0x03, 0x85, 0x80, 0x40, 0x14,
	       0x72, 0x05);

	/* Taken where the walk stands (a branch target not yet run): no
	 * waypoint update. Into Hyp mode: byte 0 continues (C), byte 1
	 * 0 0 Hyp Exception[8:4]; IRQ = 14, Non-secure. */
	e = enc_new(0, IDR11, CCER_TC2, 0, &o);
	b_cc(e, 0x8000, 1, 0x8100, 0);
	ctx(e, EXEC_CTX_EL, 0, 2, 1, 0);
	kind(e, exec_exception, exec_exc_irq, 0x8100);
	plain(e, ARM, 0x18);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x84, 0x8d, 0x80, 0x40, 0x9d, 0x20,
	       0x72, 0x0d);

	/* An exception return (SUBS PC, LR, #4) on PFTv1.1: its branch
	 * packet, then 76 (4.5); PFTv1.0 has none. */
	e = enc_new(0, IDR11, 0, 0, &o);
	op(e, 0x8000, 0xe25ef004, EXEC_F_BRANCH | EXEC_F_INDIRECT |
	   EXEC_F_TAKEN, 0x8100, ARM);
	plain(e, ARM, 0x8100);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x81, 0x01, 0x76, 0x72, 0x01);
	e = enc_new(0, IDR10, 0, 0, &o);
	op(e, 0x8000, 0xe25ef004, EXEC_F_BRANCH | EXEC_F_INDIRECT |
	   EXEC_F_TAKEN, 0x8100, ARM);
	plain(e, ARM, 0x8100);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x81, 0x01, 0x72, 0x01);
}

static void test_state_changes(void **state)
{
	struct ts_out o;
	struct ptm_enc *e;

	(void)state;
	/* Non-secure from a branch's target on: exception information with
	 * exception 0 and NS (0x8100: 81 41 01). */
	e = enc_new(0, IDR11, CCER_TC2, 0, &o);
	bx(e, ARM, 0x8000, 0x8100, ARM, 0);
	ctx(e, EXEC_CTX_EL, 0, 1, 1, 0);
	plain(e, ARM, 0x8100);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x81, 0x41, 0x01, 0x72, 0x01);

	/* Without a branch: the walk is brought to 0x8000, then a periodic
	 * I-sync at 0x8004 says NS (info 0 00 0 1 0 0 1). */
	e = enc_new(0, IDR11, CCER_TC2, 0, &o);
	plain(e, ARM, 0x8000);
	ctx(e, EXEC_CTX_EL, 0, 1, 1, 0);
	plain(e, ARM, 0x8004);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x72, 0x01,
	       0x08, 0x04, 0x80, 0x00, 0x00, 0x09, 0x72, 0x03);

	/* ThumbEE: ENTERX (F3BF 8F1F) is no waypoint, the walk goes on in
	 * ThumbEE; a branch there says AltIS in exception information
	 * (0x8100 against 0x8000: 81 42, then 0 AltIS 0 0000 0 = 40), with
	 * two address bytes: the 5th byte would say Thumb either way. */
	e = enc_new(0, IDR11, 0, 0, &o);
	{
		struct exec_rec r = ts_insn(THUMB, 0x8000, 4, EXEC_F_ISA_SWITCH);

		r.opcode = 0xf3bf8f1f;
		r.target_isa = etmkit_isa_thumbee;
		put(e, r);
	}
	plain(e, etmkit_isa_thumbee, 0x8004);
	bx(e, etmkit_isa_thumbee, 0x8006, 0x8100, etmkit_isa_thumbee, 0);
	plain(e, etmkit_isa_thumbee, 0x8100);
	EXPECT(e, &o, ASYNC, 0x08, 0x01, 0x80, 0x00, 0x00, 0x21,
	       0x81, 0x42, 0x40, 0x72, 0x01);

	/* Context ID (4 bytes, ETMCR[15:14] = 3) in the I-sync and its own
	 * packet (6E), VMID after each I-sync and on a change (3C). */
	e = enc_new(CR_CID4 | PTM_ETMCR_VMID, IDR11, CCER_TC2, 0, &o);
	ctx(e, EXEC_CTX_CONTEXTID | EXEC_CTX_VMID, 0x12345678, 0, 0, 5);
	plain(e, ARM, 0x8000);
	ctx(e, EXEC_CTX_CONTEXTID | EXEC_CTX_VMID, 0xaabbccdd, 0, 0, 6);
	plain(e, ARM, 0x8004);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x78, 0x56, 0x34, 0x12, 0x3c, 0x05,
	       0x72, 0x01, 0x6e, 0xdd, 0xcc, 0xbb, 0xaa, 0x3c, 0x06,
	       0x72, 0x03);
}

static void test_timestamps(void **state)
{
	struct ts_out o;
	struct ptm_enc *e;
	uint64_t g = 0, v = 0;
	static const uint8_t ts48[7] = { 0x64, 0x6e, 0x20, 0x48, 0x0e, 0x0b, 0 };

	(void)state;
	/* PFTv1.0, 48-bit Gray (digest 4.9): 42 E4 EE A0 C8 8E 8B 00 then
	 * the cycles since the last count, 111269 = 54 AA 36. The Gray value
	 * is the 7-bit groups of the example; the record holds it binary. */
	for (int i = 0; i < 7; i++)
		g |= (uint64_t)ts48[i] << (7 * i);
	for (uint64_t t = g; t; t >>= 1)
		v ^= t;
	e = enc_new(CR_CA | CR_TS, IDR10, CCER_SNOW, 0, &o);
	plain_cyc(e, 0x8000, 111269);
	ts(e, v);
	plain(e, ARM, 0x8004);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x80, 0x72, 0x01,
	       0x42, 0xe4, 0xee, 0xa0, 0xc8, 0x8e, 0x8b, 0x00, 0x54, 0xaa, 0x36,
	       0x72, 0x03);

	/* PFTv1.1, 64-bit binary (TC2): 42 CC 97 C6 CE AF 90 80 80 00, cycle
	 * count 0 (00); the next one only its changed low byte. */
	e = enc_new(CR_CA | CR_TS, IDR11, CCER_TC2, 0, &o);
	ts(e, 0x82f9d18bccull);
	plain(e, ARM, 0x8000);
	ts(e, 0x82f9d18bcdull);
	plain(e, ARM, 0x8004);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x80,
	       0x42, 0xcc, 0x97, 0xc6, 0xce, 0xaf, 0x90, 0x80, 0x80, 0x00, 0x00,
	       0x72, 0x01, 0x42, 0x4d, 0x04, 0x72, 0x03);
}

/* ---- Synchronisation and gaps --------------------------------------------------- */

static void test_sync_and_gaps(void **state)
{
	struct ts_out o;
	struct ptm_enc *e;
	struct exec_rec r;

	(void)state;
	/* Periodic: once 8 bytes have gone by since the A-sync, before the
	 * next instruction, an A-sync and a periodic I-sync (info 01). */
	e = enc_new(0, IDR11, 0, 8, &o);
	bx(e, ARM, 0x8000, 0x9000, ARM, 0);
	plain(e, ARM, 0x9000);
	plain(e, ARM, 0x9004);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x81, 0x10,
	       ASYNC, 0x08, 0x00, 0x90, 0x00, 0x00, 0x01, 0x72, 0x03);

	/* A gap: the walk brought to its last instruction, then trace on
	 * again; in cycle-accurate mode with the gap's cycles, digest 4.2's
	 * CC 03 = 51. */
	e = enc_new(CR_CA, IDR11, 0, 0, &o);
	plain(e, ARM, 0x8000);
	plain(e, ARM, 0x8004);
	memset(&r, 0, sizeof(r));
	r.kind = exec_gap;
	r.flags = EXEC_F_CYCLES;
	r.cycles = 51;
	put(e, r);
	plain(e, ARM, 0xa000);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x80, 0x72, 0x03,
	       0x08, 0x00, 0xa0, 0x00, 0x00, 0x21, 0xcc, 0x03, 0x72, 0x01);

	/* The record going on elsewhere without a branch: an I-sync there. */
	e = enc_new(0, IDR11, 0, 0, &o);
	plain(e, ARM, 0x8000);
	plain(e, ARM, 0xa000);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x72, 0x01,
	       0x08, 0x00, 0xa0, 0x00, 0x00, 0x01, 0x72, 0x01);
}

/* ---- Return stack ------------------------------------------------------------------ */

/* BL at 0x1000 to 0x2000 (EB0003FE), BX LR there (E12FFF1E) back to
 * @ret, then the instruction at @ret. */
static void call_return(struct ptm_enc *e, uint32_t ret)
{
	op(e, 0x1000, 0xeb0003fe, EXEC_F_BRANCH | EXEC_F_TAKEN, 0x2000, ARM);
	op(e, 0x2000, 0xe12fff1e, EXEC_F_BRANCH | EXEC_F_INDIRECT |
	   EXEC_F_TAKEN, ret, ARM);
	plain(e, ARM, ret);
}

#define ISYNC_1000 0x08, 0x00, 0x10, 0x00, 0x00, 0x21

static void test_return_stack(void **state)
{
	struct ts_out o;
	struct ptm_enc *e;

	(void)state;
	/* Off: the return's address (0x1004: 03). */
	e = enc_new(0, IDR11, CCER_TC2, 0, &o);
	call_return(e, 0x1004);
	EXPECT(e, &o, ASYNC, ISYNC_1000, 0x84, 0x03, 0x72, 0x03);
	/* On: the BL pushed 0x1004, the return there is its E atom alone. */
	e = enc_new(CR_RS, IDR11, CCER_TC2, 0, &o);
	call_return(e, 0x1004);
	EXPECT(e, &o, ASYNC, ISYNC_1000, 0x88, 0x72, 0x03);
	/* On, but the return goes elsewhere: its address. */
	e = enc_new(CR_RS, IDR11, CCER_TC2, 0, &o);
	call_return(e, 0x1010);
	EXPECT(e, &o, ASYNC, ISYNC_1000, 0x84, 0x09, 0x72, 0x09);
	/* On with branch broadcast: every taken branch its address. */
	e = enc_new(CR_RS | PTM_ETMCR_BRANCH_BROADCAST, IDR11, CCER_TC2, 0, &o);
	call_return(e, 0x1004);
	EXPECT(e, &o, ASYNC, ISYNC_1000, 0x81, 0x20, 0x83, 0x10, 0x72, 0x03);
	/* An exception empties the model: the return after it goes with its
	 * address. */
	e = enc_new(CR_RS, IDR11, CCER_TC2, 0, &o);
	op(e, 0x1000, 0xeb0003fe, EXEC_F_BRANCH | EXEC_F_TAKEN, 0x2000, ARM);
	kind(e, exec_exception, exec_exc_irq, 0x2000);
	op(e, 0x2000, 0xe12fff1e, EXEC_F_BRANCH | EXEC_F_INDIRECT |
	   EXEC_F_TAKEN, 0x1004, ARM);
	EXPECT(e, &o, ASYNC, ISYNC_1000, 0x84, 0x81, 0x60, 0x1c, 0x83, 0x10);
	/* So do a gap and an I-sync (a decoder's stack starts empty there:
	 * trace on at 0x2000, 08 00 20 00 00 21; the record going on at
	 * 0x3000, 08 00 30 00 00 01). */
	e = enc_new(CR_RS, IDR11, CCER_TC2, 0, &o);
	op(e, 0x1000, 0xeb0003fe, EXEC_F_BRANCH | EXEC_F_TAKEN, 0x2000, ARM);
	kind(e, exec_gap, 0, 0);
	op(e, 0x2000, 0xe12fff1e, EXEC_F_BRANCH | EXEC_F_INDIRECT |
	   EXEC_F_TAKEN, 0x1004, ARM);
	EXPECT(e, &o, ASYNC, ISYNC_1000, 0x84, 0x08, 0x00, 0x20, 0x00, 0x00,
	       0x21, 0x83, 0x10);
	e = enc_new(CR_RS, IDR11, CCER_TC2, 0, &o);
	op(e, 0x1000, 0xeb0003fe, EXEC_F_BRANCH | EXEC_F_TAKEN, 0x2000, ARM);
	op(e, 0x3000, 0xe12fff1e, EXEC_F_BRANCH | EXEC_F_INDIRECT |
	   EXEC_F_TAKEN, 0x1004, ARM);
	EXPECT(e, &o, ASYNC, ISYNC_1000, 0x84, 0x08, 0x00, 0x30, 0x00, 0x00,
	       0x01, 0x83, 0x10);
	/* A return to the pushed address in another instruction set: its
	 * address (Thumb 0x1004, five bytes). */
	e = enc_new(CR_RS, IDR11, CCER_TC2, 0, &o);
	op(e, 0x1000, 0xeb0003fe, EXEC_F_BRANCH | EXEC_F_TAKEN, 0x2000, ARM);
	op(e, 0x2000, 0xe12fff1e, EXEC_F_BRANCH | EXEC_F_INDIRECT |
	   EXEC_F_TAKEN, 0x1004, THUMB);
	EXPECT(e, &o, ASYNC, ISYNC_1000, 0x84, 0x85, 0xa0, 0x80, 0x80, 0x10);
}

/* A decoder may take a waypoint update's address as the reference of the
 * next branch address or not (the digest names it for the branch and
 * I-sync packets): the next branch carries every bit that differs from
 * either. 0x100010 against 0x100000 would be one byte (09); against
 * 0x8000, before the waypoint update to 0x100000 (72 81 80 20), it takes
 * three (89 80 20). */
static void test_reference_after_waypoint_update(void **state)
{
	struct ts_out o;
	struct ptm_enc *e;

	(void)state;
	e = enc_new(1u << PTM_ETMCR_CID_SHIFT, IDR11, 0, 0, &o);
	ctx(e, EXEC_CTX_CONTEXTID, 1, 0, 0, 0);
	b_cc(e, 0x8000, 1, 0x100000, 0);
	plain(e, ARM, 0x100000);
	ctx(e, EXEC_CTX_CONTEXTID, 2, 0, 0, 0);
	bx(e, ARM, 0x100004, 0x100010, ARM, 0);
	plain(e, ARM, 0x100010);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x01, 0x84, 0x72, 0x81, 0x80, 0x20,
	       0x6e, 0x02, 0x89, 0x80, 0x20, 0x72, 0x09);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_atoms_plain),
		cmocka_unit_test(test_atoms_cycle_accurate),
		cmocka_unit_test(test_branch_examples),
		cmocka_unit_test(test_snowball_irq),
		cmocka_unit_test(test_exceptions),
		cmocka_unit_test(test_state_changes),
		cmocka_unit_test(test_timestamps),
		cmocka_unit_test(test_sync_and_gaps),
		cmocka_unit_test(test_return_stack),
		cmocka_unit_test(test_reference_after_waypoint_update),
		cmocka_unit_test(test_packets_random),
		cmocka_unit_test(test_flow_round_trips),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
