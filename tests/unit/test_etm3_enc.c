/* ETMv3 trace encoder: the bytes it must emit, worked out by hand from
 * IHI 0014Q chapter 7 (P-header Examples 7.1 and 7.2 turned around, each
 * branch address length in both encodings, I-sync forms, exception,
 * context ID, VMID and timestamp packets); the round trips are in
 * test_etm3_enc_rt.c, run from main() here. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "etmkit/etm3.h"
#include "etmkit/exec.h"
#include "etmkit/flow.h"
#include "etmkit/image.h"
#include "etmkit/insn.h"

#include "ts_out.h"
#include "ts_rec.h"

#include "test_etm3_enc.h"


/* ---- Output capture ------------------------------------------------------- */

struct etm3_enc *enc_new(uint32_t etmcr, uint32_t etmidr, uint32_t etmccer,
			 struct ts_out *o)
{
	struct etm3_enc_config c;
	struct etm3_enc *e = NULL;

	etm3_enc_config_init(&c);
	c.etmcr = etmcr;
	c.etmidr = etmidr;
	c.etmccer = etmccer;
	memset(o, 0, sizeof(*o));
	assert_int_equal(etm3_enc_alloc(&e, &c, ts_out_sink, o), 0);
	return e;
}

/* ---- Record items ------------------------------------------------------- */

static void put_insn(struct etm3_enc *e, uint8_t isa, uint32_t addr,
		     uint8_t size, uint32_t flags)
{
	struct exec_rec r = ts_insn(isa, addr, size, flags);

	assert_int_equal(etm3_enc_put(e, &r), 0);
}

static void put_cyc(struct etm3_enc *e, uint32_t addr, uint32_t flags,
		    uint32_t cycles)
{
	struct exec_rec r = ts_insn(etmkit_isa_arm, addr, 4, flags | EXEC_F_CYCLES);

	r.cycles = cycles;
	assert_int_equal(etm3_enc_put(e, &r), 0);
}

/* A taken indirect branch at @addr to @target in @tisa. */
static void put_bx(struct etm3_enc *e, uint8_t isa, uint32_t addr,
		   uint8_t size, uint32_t target, uint8_t tisa)
{
	struct exec_rec r = ts_insn(isa, addr, size, EXEC_F_BRANCH |
				 EXEC_F_INDIRECT | EXEC_F_TAKEN);

	r.target = target;
	r.target_isa = tisa;
	assert_int_equal(etm3_enc_put(e, &r), 0);
}

static void put_kind(struct etm3_enc *e, uint8_t kind, uint32_t number)
{
	struct exec_rec r;

	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.number = number;
	assert_int_equal(etm3_enc_put(e, &r), 0);
}

static void put_ctx(struct etm3_enc *e, uint32_t flags, uint32_t cid,
		    uint8_t el, uint8_t ns, uint32_t vmid)
{
	struct exec_rec r;

	memset(&r, 0, sizeof(r));
	r.kind = exec_context;
	r.flags = flags;
	r.value = cid;
	r.el = el;
	r.ns = ns;
	r.vmid = vmid;
	assert_int_equal(etm3_enc_put(e, &r), 0);
}

static void put_ts(struct etm3_enc *e, uint64_t ts)
{
	struct exec_rec r;

	memset(&r, 0, sizeof(r));
	r.kind = exec_timestamp;
	r.value = ts;
	assert_int_equal(etm3_enc_put(e, &r), 0);
}

static void expect_bytes(struct etm3_enc *e, struct ts_out *o,
			 const uint8_t *want, size_t n)
{
	char why[600];

	assert_int_equal(etm3_enc_finish(e), 0);
	assert_int_equal(o->empty, 0); /* the sink never gets 0 bytes */
	if (ts_out_same(o, want, n, why, sizeof(why)))
		fail_msg("%s", why);
	assert_int_equal(etm3_enc_offset(e), n);
	etm3_enc_free(e);
	free(o->b);
}

#define EXPECT(e, o, ...)                                                    \
	do {                                                                 \
		const uint8_t want_[] = { __VA_ARGS__ };                     \
		expect_bytes(e, o, want_, sizeof(want_));                    \
	} while (0)

#define ASYNC 0, 0, 0, 0, 0, 0x80
/* I-sync, tracing enabled (info b0 01 0 0 0 0 1), ARM at 0x8000 (7.10.5) */
#define ISYNC_8000 0x08, 0x21, 0x00, 0x80, 0x00, 0x00

/* ---- Contracts ------------------------------------------------------------ */

static void test_config(void **state)
{
	struct etm3_enc_config c;
	struct etm3_enc *e = NULL;
	struct ts_out o = { 0 };
	struct exec_rec r;

	(void)state;
	etm3_enc_config_init(&c);
	c.etmidr = IDR35;
	assert_int_equal(etm3_enc_alloc(NULL, &c, ts_out_sink, &o), -etmkit_err_invalid);
	assert_int_equal(etm3_enc_alloc(&e, NULL, ts_out_sink, &o), -etmkit_err_invalid);
	assert_int_equal(etm3_enc_alloc(&e, &c, NULL, &o), -etmkit_err_invalid);
	c.size = 4;
	assert_int_equal(etm3_enc_alloc(&e, &c, ts_out_sink, &o), -etmkit_err_invalid);
	c.size = sizeof(c);
	c.etmidr = 0x410CF150u; /* major field 1: ETMv2 */
	assert_int_equal(etm3_enc_alloc(&e, &c, ts_out_sink, &o), -etmkit_err_bad_config);
	c.etmidr = IDR35;
	/* Data-only, ARMv7-M: not encoded; out-of-order data needs values. */
	c.etmcr = ETM3_ETMCR_DATA_ONLY | ETM3_ETMCR_DATA_VALUE;
	assert_int_equal(etm3_enc_alloc(&e, &c, ts_out_sink, &o), -etmkit_err_unsupported);
	c.etmcr = ETM3_ETMCR_DATA_ADDR;
	c.flags = ETM3_ENC_OOO;
	assert_int_equal(etm3_enc_alloc(&e, &c, ts_out_sink, &o), -etmkit_err_bad_config);
	c.flags = 0;
	c.etmcr = ETM3_ETMCR_DATA_ONLY;
	assert_int_equal(etm3_enc_alloc(&e, &c, ts_out_sink, &o), -etmkit_err_unsupported);
	c.etmcr = 0;
	c.flags = ETM3_CFG_M_PROFILE;
	assert_int_equal(etm3_enc_alloc(&e, &c, ts_out_sink, &o), -etmkit_err_unsupported);
	c.flags = 0;
	/* Timestamps without ETMCCER[22], or before ETMv3.5; VMID before 3.5. */
	c.etmcr = ETM3_ETMCR_TIMESTAMP;
	assert_int_equal(etm3_enc_alloc(&e, &c, ts_out_sink, &o), -etmkit_err_bad_config);
	c.etmccer = ETM3_ETMCCER_TIMESTAMP;
	c.etmidr = IDR32;
	assert_int_equal(etm3_enc_alloc(&e, &c, ts_out_sink, &o), -etmkit_err_bad_config);
	c.etmcr = ETM3_ETMCR_VMID;
	assert_int_equal(etm3_enc_alloc(&e, &c, ts_out_sink, &o), -etmkit_err_bad_config);
	assert_null(e);

	/* Items it refuses change nothing. */
	e = enc_new(0, IDR32, 0, &o);
	assert_int_equal(etm3_enc_put(e, NULL), -etmkit_err_invalid);
	r = ts_insn(etmkit_isa_a64, 0x8000, 4, 0);
	assert_int_equal(etm3_enc_put(e, &r), -etmkit_err_unsupported);
	r = ts_insn(etmkit_isa_thumbee, 0x8000, 2, 0); /* no AltISA in v3.2 */
	assert_int_equal(etm3_enc_put(e, &r), -etmkit_err_unsupported);
	r = ts_insn(etmkit_isa_thumb, 0x8000, 2, EXEC_F_ISA_SWITCH);
	r.target_isa = etmkit_isa_a64;
	assert_int_equal(etm3_enc_put(e, &r), -etmkit_err_unsupported);
	r = ts_insn(etmkit_isa_arm, 0x8000, 4, EXEC_F_BRANCH | EXEC_F_TAKEN);
	r.target = 0x100000000ull;
	assert_int_equal(etm3_enc_put(e, &r), -etmkit_err_invalid);
	r = ts_insn(etmkit_isa_arm, 0x8000, 4, 0);
	r.addr = 0x100000000ull;
	assert_int_equal(etm3_enc_put(e, &r), -etmkit_err_invalid);
	r = ts_insn(etmkit_isa_arm, 0x8000, 0, 0);
	assert_int_equal(etm3_enc_put(e, &r), -etmkit_err_invalid);
	r.kind = 99;
	assert_int_equal(etm3_enc_put(e, &r), -etmkit_err_invalid);
	r.kind = exec_exception;
	r.number = exec_exc_count;
	assert_int_equal(etm3_enc_put(e, &r), -etmkit_err_invalid);
	assert_int_equal(etm3_enc_offset(e), 0);
	assert_int_equal(etm3_enc_finish(e), 0);
	assert_int_equal(o.n, 0); /* nothing traced: nothing emitted */
	assert_int_equal(o.empty, 0);
	r = ts_insn(etmkit_isa_arm, 0x8000, 4, 0);
	assert_int_equal(etm3_enc_put(e, &r), -etmkit_err_invalid); /* finished */
	etm3_enc_free(e);
	etm3_enc_free(NULL);
	assert_int_equal(etm3_enc_finish(NULL), -etmkit_err_invalid);
	assert_int_equal(etm3_enc_offset(NULL), 0);

	/* A sink error stops the encoder and is returned from then on. */
	e = enc_new(0, IDR35, 0, &o);
	o.fail = -etmkit_err_io;
	put_insn(e, etmkit_isa_arm, 0x8000, 4, 0);
	assert_int_equal(etm3_enc_finish(e), -etmkit_err_io);
	assert_int_equal(etm3_enc_put(e, &r), -etmkit_err_io);
	assert_int_equal(o.calls, 1);
	etm3_enc_free(e);
}

/* ---- P-headers (7.3.1) ----------------------------------------------------- */

/* The stream of test_small_stream with @third_flags on its third
 * instruction. */
static void small_stream(uint32_t third_flags)
{
	struct ts_out o;
	struct etm3_enc *e = enc_new(0, IDR35, 0, &o);

	put_insn(e, etmkit_isa_arm, 0x8000, 4, 0);
	put_insn(e, etmkit_isa_arm, 0x8004, 4, 0);
	put_insn(e, etmkit_isa_arm, 0x8008, 4, third_flags);
	put_bx(e, etmkit_isa_arm, 0x800c, 4, 0x8100, etmkit_isa_arm);
	put_insn(e, etmkit_isa_arm, 0x8100, 4, 0);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0xc8, 0x84, 0x81, 0x01, 0x84);
}

/* The stream test_etm3_flow.c decodes: A-sync, I-sync at 0x8000, E E N
 * (0xc8, Table 7.2 format 1), E for BX r3, its branch packet after the
 * P-header holding its atom (7.3.5), E at 0x8100. */
static void test_small_stream(void **state)
{
	(void)state;
	small_stream(EXEC_F_COND_FAIL);
}

/* A branch the record says was not taken, without EXEC_F_COND_FAIL (what
 * a QEMU block log gives): it did not pass its condition, so its atom is
 * N, the same stream as test_small_stream's with the failed instruction
 * a not-taken branch (IHI 0014Q 7.3.1). */
static void test_branch_not_taken(void **state)
{
	(void)state;
	small_stream(EXEC_F_BRANCH);
}

/* Example 7.1 turned around: EEN is b11001000, NE is b10001010; and
 * runs longer than format 1's 15 E atoms. */
static void test_example_7_1(void **state)
{
	struct ts_out o;
	struct etm3_enc *e;

	(void)state;
	e = enc_new(0, IDR35, 0, &o);
	put_insn(e, etmkit_isa_arm, 0x8000, 4, 0);
	put_insn(e, etmkit_isa_arm, 0x8004, 4, 0);
	put_insn(e, etmkit_isa_arm, 0x8008, 4, EXEC_F_COND_FAIL);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0xc8);

	e = enc_new(0, IDR35, 0, &o);
	put_insn(e, etmkit_isa_arm, 0x8000, 4, EXEC_F_COND_FAIL);
	put_insn(e, etmkit_isa_arm, 0x8004, 4, 0);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x8a);

	/* 17 E then 3 N: 15 E (b10111100), E E N (b11001000), N N (format
	 * 2, b10001110). */
	e = enc_new(0, IDR35, 0, &o);
	for (uint32_t i = 0; i < 17; i++)
		put_insn(e, etmkit_isa_arm, 0x8000 + 4 * i, 4, 0);
	put_insn(e, etmkit_isa_arm, 0x8044, 4, EXEC_F_COND_FAIL);
	put_insn(e, etmkit_isa_arm, 0x8048, 4, EXEC_F_COND_FAIL);
	put_insn(e, etmkit_isa_arm, 0x804c, 4, EXEC_F_COND_FAIL);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0xbc, 0xc8, 0x8e);
}

/* I-sync of a cycle-accurate trace: header 0x70, cycle count 0 (unknown
 * gap), info, address (7.10.5). */
#define ISYNC_CA_8000 0x70, 0x00, 0x21, 0x00, 0x80, 0x00, 0x00

/* Example 7.2 turned around: WEWEWN is b11001000, WNE b10001010, WWWE
 * b11101000; format 4 (b10010010) for an instruction in the cycle of the
 * one before a branch packet (Table 7.4). */
static void test_example_7_2(void **state)
{
	struct ts_out o;
	struct etm3_enc *e;

	(void)state;
	e = enc_new(CR_CA, IDR35, 0, &o);
	put_cyc(e, 0x8000, 0, 1);
	put_cyc(e, 0x8004, 0, 1);
	put_cyc(e, 0x8008, EXEC_F_COND_FAIL, 1);
	EXPECT(e, &o, ASYNC, ISYNC_CA_8000, 0xc8);

	e = enc_new(CR_CA, IDR35, 0, &o);
	put_cyc(e, 0x8000, EXEC_F_COND_FAIL, 1);
	put_cyc(e, 0x8004, 0, 0);
	EXPECT(e, &o, ASYNC, ISYNC_CA_8000, 0x8a);

	e = enc_new(CR_CA, IDR35, 0, &o);
	put_cyc(e, 0x8000, 0, 3);
	EXPECT(e, &o, ASYNC, ISYNC_CA_8000, 0xe8);

	/* Without EXEC_F_CYCLES one cycle each: W E (b10000100); then the
	 * branch packet, then the target in the same cycle: format 4. */
	e = enc_new(CR_CA, IDR35, 0, &o);
	put_bx(e, etmkit_isa_arm, 0x8000, 4, 0x8010, etmkit_isa_arm);
	put_cyc(e, 0x8010, 0, 0);
	put_cyc(e, 0x8014, EXEC_F_COND_FAIL, 0);
	EXPECT(e, &o, ASYNC, ISYNC_CA_8000, 0x84, 0x09, 0x92, 0x96);

	/* 11 cycles: 8 W (b10111100), then WWWE (b11101000). */
	e = enc_new(CR_CA, IDR35, 0, &o);
	put_cyc(e, 0x8000, 0, 11);
	EXPECT(e, &o, ASYNC, ISYNC_CA_8000, 0xbc, 0xe8);

	/* ETMv3.2 has no format 4: a 0-cycle instruction gets one. */
	e = enc_new(CR_CA, IDR32, 0, &o);
	put_cyc(e, 0x8000, 0, 0);
	EXPECT(e, &o, ASYNC, ISYNC_CA_8000, 0x84);
}

/* ---- Branch addresses (7.3.5) ----------------------------------------------- */

/* From 0x8000 (the I-sync's address, the reference) by BX to @target in
 * @tisa; the branch packet must be @pkt. */
static void check_branch(uint32_t etmidr, uint8_t isa, uint32_t target,
			 uint8_t tisa, const uint8_t *pkt, size_t n)
{
	struct ts_out o;
	struct etm3_enc *e = enc_new(0, etmidr, 0, &o);
	uint8_t want[64] = { ASYNC, 0x08, 0x21, 0x00, 0x80, 0x00, 0x00 };
	size_t k = 12;

	if (isa == etmkit_isa_thumb)
		want[8] |= 1; /* T bit (Table 7.20) */
	put_bx(e, isa, 0x8000, isa == etmkit_isa_thumb ? 2 : 4, target, tisa);
	put_insn(e, tisa, target, tisa == etmkit_isa_thumb ? 2 : 4, 0);
	want[k++] = 0x84;
	memcpy(want + k, pkt, n);
	k += n;
	want[k++] = 0x84;
	expect_bytes(e, &o, want, k);
}

#define BRANCH(idr, isa, target, tisa, ...)                                  \
	do {                                                                 \
		const uint8_t p_[] = { __VA_ARGS__ };                        \
		check_branch(idr, isa, target, tisa, p_, sizeof(p_));        \
	} while (0)

static void test_branch_lengths(void **state)
{
	const uint8_t A = etmkit_isa_arm, T = etmkit_isa_thumb;

	(void)state;
	/* Original encoding, ARM: byte 0 A[7:2], then A[14:8], A[21:15],
	 * A[28:22] (7 bits each), 5th byte b00001 A[31:29]. */
	BRANCH(IDR35, A, 0x8010, A, 0x09);
	BRANCH(IDR35, A, 0x8100, A, 0x81, 0x01);
	BRANCH(IDR35, A, 0xc000, A, 0x81, 0x40);
	BRANCH(IDR35, A, 0x00120000, A, 0x81, 0x80, 0x24);
	BRANCH(IDR35, A, 0x10000000, A, 0x81, 0x80, 0x80, 0x40);
	BRANCH(IDR35, A, 0x80000000, A, 0x81, 0x80, 0x80, 0x80, 0x0c);
	BRANCH(IDR35, A, 0xfffffffc, A, 0xff, 0xff, 0xff, 0xff, 0x0f);
	/* Alternative encoding: the final byte 1-3 has 6 address bits,
	 * bit 6 being the exception flag. 0xc000 needs bit 14: 3 bytes. */
	BRANCH(IDR35_ALT, A, 0x8010, A, 0x09);
	BRANCH(IDR35_ALT, A, 0x8100, A, 0x81, 0x01);
	BRANCH(IDR35_ALT, A, 0xc000, A, 0x81, 0xc0, 0x01);
	BRANCH(IDR35_ALT, A, 0x00120000, A, 0x81, 0x80, 0x24);
	BRANCH(IDR35_ALT, A, 0x00200000, A, 0x81, 0x80, 0xc0, 0x00);
	BRANCH(IDR35_ALT, A, 0x10000000, A, 0x81, 0x80, 0x80, 0xc0, 0x08);
	/* Thumb: byte 0 A[6:1], then A[13:7], ... */
	BRANCH(IDR35, T, 0x8100, T, 0x81, 0x02);
	BRANCH(IDR35, T, 0x8002, T, 0x03);
	BRANCH(IDR35, T, 0x90000000, T, 0x81, 0x80, 0x80, 0x80, 0x19);
	/* A change of instruction set: five bytes, the 5th naming the new
	 * one (b00001aaa ARM, b0001aaaa Thumb). */
	BRANCH(IDR35, T, 0x8100, A, 0x81, 0x81, 0x81, 0x80, 0x08);
	BRANCH(IDR35, A, 0x8102, T, 0x83, 0x82, 0x82, 0x80, 0x10);
	BRANCH(IDR35_ALT, A, 0x8102, T, 0x83, 0x82, 0x82, 0x80, 0x10);
	/* ThumbEE: the Thumb 5th byte, and exception byte 0 with AltISA set
	 * and exception 0 (7.3.5; Table 7.20). */
	BRANCH(IDR35, T, 0x8100, etmkit_isa_thumbee, 0x81, 0x82, 0x82, 0x80,
	       0x50, 0x40);
	BRANCH(IDR35_ALT, T, 0x8100, etmkit_isa_thumbee, 0x81, 0x82, 0x82,
	       0x80, 0x50, 0x40);
}

/* A state change by a direct branch (BLX immediate) is also given as
 * its destination address (4.5.2); Jazelle state in an I-sync: J set,
 * address bit 0 an address bit (Table 7.20). */
static void test_state_changes(void **state)
{
	struct ts_out o;
	struct etm3_enc *e;
	struct exec_rec r;

	(void)state;
	e = enc_new(0, IDR35, 0, &o);
	r = ts_insn(etmkit_isa_arm, 0x8000, 4, EXEC_F_BRANCH | EXEC_F_TAKEN);
	r.target = 0x8102;
	r.target_isa = etmkit_isa_thumb;
	assert_int_equal(etm3_enc_put(e, &r), 0);
	put_insn(e, etmkit_isa_thumb, 0x8102, 2, 0);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x84, 0x83, 0x82, 0x82, 0x80, 0x10,
	       0x84);

	e = enc_new(0, IDR35, 0, &o);
	put_insn(e, etmkit_isa_jazelle, 0x8001, 1, 0);
	EXPECT(e, &o, ASYNC, 0x08, 0x31, 0x01, 0x80, 0x00, 0x00, 0x84);
}

/* Compression runs against the last branch address, not the I-sync's:
 * 0x8000 -> 0x00120000 (3 bytes) -> 0x00120010 (1 byte). */
static void test_branch_reference(void **state)
{
	struct ts_out o;
	struct etm3_enc *e = enc_new(0, IDR35, 0, &o);

	(void)state;
	put_bx(e, etmkit_isa_arm, 0x8000, 4, 0x00120000, etmkit_isa_arm);
	put_bx(e, etmkit_isa_arm, 0x00120000, 4, 0x00120010, etmkit_isa_arm);
	put_insn(e, etmkit_isa_arm, 0x00120010, 4, 0);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x84, 0x81, 0x80, 0x24, 0x84, 0x09,
	       0x84);

	/* ETMCR[8] branch output: a taken direct branch gets its packet;
	 * a failed one does not. */
	e = enc_new(ETM3_ETMCR_BRANCH_OUTPUT, IDR35, 0, &o);
	{
		struct exec_rec r = ts_insn(etmkit_isa_arm, 0x8000, 4,
					 EXEC_F_BRANCH | EXEC_F_TAKEN);

		r.target = 0x8010;
		r.target_isa = etmkit_isa_arm;
		assert_int_equal(etm3_enc_put(e, &r), 0);
		r.addr = 0x8010;
		r.flags |= EXEC_F_COND_FAIL;
		assert_int_equal(etm3_enc_put(e, &r), 0);
	}
	put_insn(e, etmkit_isa_arm, 0x8014, 4, 0);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x84, 0x09, 0x8a);
}

/* Exceptions (7.3.5, 4.5.4): byte 0 C AltISA Cancel Exception[3:0] NS;
 * IRQ is 14 (Table 7-12). The original encoding needs a 5-byte address
 * (5th byte bit 6 set), the alternative one at least two bytes (final
 * byte bit 6 set). */
static void test_exception(void **state)
{
	struct ts_out o;
	struct etm3_enc *e;

	(void)state;
	e = enc_new(0, IDR35, 0, &o);
	put_insn(e, etmkit_isa_arm, 0x8000, 4, 0);
	put_kind(e, exec_exception, exec_exc_irq);
	put_insn(e, etmkit_isa_arm, 0x18, 4, 0);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x84, 0x8d, 0x80, 0x80, 0x80, 0x48,
	       0x1c, 0x84);

	e = enc_new(0, IDR35_ALT, 0, &o);
	put_insn(e, etmkit_isa_arm, 0x8000, 4, 0);
	put_kind(e, exec_exception, exec_exc_irq);
	put_insn(e, etmkit_isa_arm, 0x18, 4, 0);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x84, 0x8d, 0x80, 0x40, 0x1c, 0x84);

	/* SVC (10) in Non-secure state (NS in byte 0), Thumb to an ARM
	 * handler: five bytes. Then an FIQ whose handler is not traced:
	 * the exception is not in the trace, an I-sync restarts it. */
	e = enc_new(0, IDR35_ALT, 0, &o);
	put_ctx(e, EXEC_CTX_EL, 0, 1, 1, 0);
	put_insn(e, etmkit_isa_thumb, 0x8000, 2, 0);
	put_kind(e, exec_exception, exec_exc_call);
	put_insn(e, etmkit_isa_arm, 0x8, 4, 0);
	put_kind(e, exec_exception, exec_exc_fiq);
	put_kind(e, exec_gap, 0);
	put_insn(e, etmkit_isa_arm, 0x8, 4, 0);
	EXPECT(e, &o, ASYNC, 0x08, 0x29, 0x01, 0x80, 0x00, 0x00, 0x84,
	       0x85, 0x80, 0x80, 0x80, 0x48, 0x15, 0x84,
	       0x08, 0x29, 0x08, 0x00, 0x00, 0x00, 0x84);
}

/* ---- I-sync and the other packets ------------------------------------------ */

static void test_isync_forms(void **state)
{
	struct ts_out o;
	struct etm3_enc *e;

	(void)state;
	/* ContextIDsize 4 (ETMCR[15:14] = 3): the context ID before the
	 * information byte; Thumb: address bit 0 set. */
	e = enc_new(3u << ETM3_ETMCR_CID_SHIFT, IDR35, 0, &o);
	put_ctx(e, EXEC_CTX_CONTEXTID, 0x12345678, 0, 0, 0);
	put_insn(e, etmkit_isa_thumb, 0x10002, 2, 0);
	/* A new context ID: Context ID packet (7.3.6). */
	put_ctx(e, EXEC_CTX_CONTEXTID, 0xcafe, 0, 0, 0);
	put_insn(e, etmkit_isa_thumb, 0x10004, 2, 0);
	EXPECT(e, &o, ASYNC, 0x08, 0x78, 0x56, 0x34, 0x12, 0x21, 0x03, 0x00,
	       0x01, 0x00, 0x84, 0x6e, 0xfe, 0xca, 0x00, 0x00, 0x84);

	/* Hyp (info bit 1) with the Virtualization Extensions; a gap in
	 * cycle-accurate mode: I-sync with the gap's cycle count 300
	 * (0xac 0x02). */
	e = enc_new(CR_CA, IDR35, ETM3_ETMCCER_VIRT_EXT, &o);
	put_ctx(e, EXEC_CTX_EL, 0, 2, 1, 0);
	put_cyc(e, 0x8000, 0, 2); /* W W E: b11100100 */
	{
		struct exec_rec g;

		memset(&g, 0, sizeof(g));
		g.kind = exec_gap;
		g.flags = EXEC_F_CYCLES;
		g.cycles = 300;
		assert_int_equal(etm3_enc_put(e, &g), 0);
	}
	put_cyc(e, 0x9000, 0, 1);
	EXPECT(e, &o, ASYNC, 0x70, 0x00, 0x2b, 0x00, 0x80, 0x00, 0x00, 0xe4,
	       0x70, 0xac, 0x02, 0x2b, 0x00, 0x90, 0x00, 0x00, 0x84);

	/* A change to Non-secure state without a branch: an I-sync says
	 * so (periodic reason, 7.10.5). */
	e = enc_new(0, IDR35, 0, &o);
	put_insn(e, etmkit_isa_arm, 0x8000, 4, 0);
	put_ctx(e, EXEC_CTX_EL, 0, 1, 1, 0);
	put_insn(e, etmkit_isa_arm, 0x8004, 4, 0);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x84, 0x08, 0x09, 0x04, 0x80, 0x00,
	       0x00, 0x84);
}

/* Timestamps (7.7.4), binary 48-bit: the first after A-sync in full
 * (7 bytes), then only the changed low groups; VMID after the I-sync and
 * on change (7.3.7). */
static void test_timestamp_vmid(void **state)
{
	struct ts_out o;
	struct etm3_enc *e;

	(void)state;
	e = enc_new(ETM3_ETMCR_TIMESTAMP | ETM3_ETMCR_VMID, IDR35,
		    ETM3_ETMCCER_TIMESTAMP | ETM3_ETMCCER_TS_BINARY, &o);
	put_ctx(e, EXEC_CTX_VMID, 0, 0, 0, 7);
	put_ts(e, 0x1234);
	put_insn(e, etmkit_isa_arm, 0x8000, 4, 0);
	put_ts(e, 0x1240);
	put_ctx(e, EXEC_CTX_VMID, 0, 0, 0, 9);
	put_insn(e, etmkit_isa_arm, 0x8004, 4, 0);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x3c, 0x07,
	       0x42, 0xb4, 0xa4, 0x80, 0x80, 0x80, 0x80, 0x00, 0x84,
	       0x3c, 0x09, 0x42, 0x40, 0x84);
}

/* ---- Data trace (7.4) -------------------------------------------------------- */

/* An ARM instruction with its opcode (data transfers need it: only loads,
 * stores and coprocessor transfers make them). */
static void put_op(struct etm3_enc *e, uint32_t addr, uint32_t opcode)
{
	struct exec_rec r = ts_insn(etmkit_isa_arm, addr, 4, 0);

	r.opcode = opcode;
	assert_int_equal(etm3_enc_put(e, &r), 0);
}

static struct exec_rec data_rec(int store, uint64_t addr, uint8_t size,
				uint64_t value)
{
	struct exec_rec r;

	memset(&r, 0, sizeof(r));
	r.kind = exec_data;
	r.flags = store ? EXEC_D_STORE : 0;
	r.addr = addr;
	r.size = size;
	r.value = value;
	return r;
}

static void put_data(struct etm3_enc *e, int store, uint64_t addr,
		     uint8_t size, uint64_t value)
{
	struct exec_rec r = data_rec(store, addr, size, value);

	assert_int_equal(etm3_enc_put(e, &r), 0);
}

#define LDR   0xe5910000u /* ldr r0, [r1] */
#define STRB4 0xe5c10004u /* strb r0, [r1, #4] */
#define LDM45 0xe8910030u /* ldm r1, {r4, r5} */
#define ADD   0xe2800001u /* add r0, r0, #1 */
#define LDR2  0xe5920000u /* ldr r0, [r2] */
#define LDRD  0xe1c120d0u /* ldrd r2, r3, [r1] */
#define STR4  0xe5810004u /* str r0, [r1, #4] */

/* Normal data packets b00A0SS10 (7.4.2): each after the P-header holding
 * its instruction's atom; the address (A) on an instruction's first
 * transfer only while the transfers are contiguous, in 7-bit groups,
 * all five bytes after A-sync (D-sync, 7.10.6) and then only the low
 * groups that changed; the value without its leading zero bytes (SS,
 * Table 6.3: 00 the value 0, 01 one byte, 10 two, 11 four), least
 * significant byte first; a 64-bit transfer as two 32-bit ones. */
static void test_data_normal(void **state)
{
	struct ts_out o;
	struct etm3_enc *e = enc_new(CR_DATA, IDR35, 0, &o);

	(void)state;
	put_op(e, 0x8000, LDR);
	put_data(e, 0, 0x20000000, 4, 0x12345678);
	put_op(e, 0x8004, STRB4);
	put_data(e, 1, 0x20000004, 1, 0x78);
	put_op(e, 0x8008, LDM45);
	put_data(e, 0, 0x20000000, 4, 0x7);
	put_data(e, 0, 0x20000004, 4, 0);
	put_op(e, 0x800c, ADD);
	put_op(e, 0x8010, LDR2);
	put_data(e, 0, 0x20004000, 2, 0xbeef);
	put_op(e, 0x8014, LDRD);
	put_data(e, 0, 0x20000010, 8, 0x1111111122222222ull);
	EXPECT(e, &o, ASYNC, ISYNC_8000,
	       0x84, 0x2e, 0x80, 0x80, 0x80, 0x80, 0x02, 0x78, 0x56, 0x34, 0x12,
	       0x84, 0x26, 0x04, 0x78,
	       0x84, 0x26, 0x00, 0x07, 0x02,
	       0x88, 0x2a, 0x80, 0x80, 0x01, 0xef, 0xbe,
	       0x84, 0x2e, 0x90, 0x80, 0x00, 0x22, 0x22, 0x22, 0x22,
	       0x0e, 0x11, 0x11, 0x11, 0x11);

	/* Addresses only (ETMCR[3]): SS 00, no value. Values only
	 * (ETMCR[2]): A still marks the first transfer, no address. */
	e = enc_new(ETM3_ETMCR_DATA_ADDR, IDR35, 0, &o);
	put_op(e, 0x8000, LDR);
	put_data(e, 0, 0x20000000, 4, 0x12345678);
	put_data(e, 0, 0x20000100, 4, 0x1);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x84, 0x22, 0x80, 0x80, 0x80, 0x80, 0x02,
	       0x22, 0x80, 0x02);
	e = enc_new(ETM3_ETMCR_DATA_VALUE, IDR35, 0, &o);
	put_op(e, 0x8000, LDR);
	put_data(e, 0, 0x20000000, 4, 0x12345678);
	put_data(e, 0, 0x20000100, 4, 0x1);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x84, 0x2e, 0x78, 0x56, 0x34, 0x12,
	       0x26, 0x01);

	/* After a periodic A-sync the next address is sent in full; an
	 * indirect load to the PC has its data before its branch packet. */
	{
		struct etm3_enc_config c;

		etm3_enc_config_init(&c);
		c.etmcr = CR_DATA;
		c.etmidr = IDR35;
		c.sync_period = 16;
		memset(&o, 0, sizeof(o));
		assert_int_equal(etm3_enc_alloc(&e, &c, ts_out_sink, &o), 0);
	}
	put_op(e, 0x8000, LDR);
	put_data(e, 0, 0x20000000, 4, 0x1);
	{
		struct exec_rec r = ts_insn(etmkit_isa_arm, 0x8004, 4,
					 EXEC_F_BRANCH | EXEC_F_INDIRECT |
					 EXEC_F_TAKEN);

		r.opcode = 0xe49df004; /* ldr pc, [sp], #4 */
		r.target = 0x8100;
		r.target_isa = etmkit_isa_arm;
		assert_int_equal(etm3_enc_put(e, &r), 0);
	}
	put_data(e, 0, 0x20000004, 4, 0x8100);
	put_op(e, 0x8100, LDR);
	put_data(e, 0, 0x20000008, 4, 0x2);
	EXPECT(e, &o, ASYNC, ISYNC_8000,
	       0x84, 0x26, 0x80, 0x80, 0x80, 0x80, 0x02, 0x01,
	       0x84, 0x2a, 0x04, 0x00, 0x81,
	       0x81, 0x01, /* its branch packet: 0x8100 (7.3.5) */
	       ASYNC, 0x08, 0x01, 0x00, 0x81, 0x00, 0x00, /* periodic I-sync */
	       0x84, 0x26, 0x88, 0x80, 0x80, 0x80, 0x02, 0x02);
}

/* Out-of-order data (7.4.3, seed 004): a load's placeholder b01A1TT00
 * where its normal data packet would be, two with one tag for a 64-bit
 * value (the address on the first only); the value later in b0TT0SS00,
 * the tag's most recent placeholder's; stores in order. */
static void test_data_ooo(void **state)
{
	struct etm3_enc_config c;
	struct etm3_enc *e;
	struct ts_out o;
	struct exec_rec r;

	(void)state;
	etm3_enc_config_init(&c);
	c.etmcr = CR_DATA;
	c.etmidr = IDR35;
	c.flags = ETM3_ENC_OOO;
	c.ooo_delay = 1;
	memset(&o, 0, sizeof(o));
	assert_int_equal(etm3_enc_alloc(&e, &c, ts_out_sink, &o), 0);
	put_op(e, 0x8000, LDR);
	put_data(e, 0, 0x20000000, 4, 0xab);
	put_op(e, 0x8004, LDRD);
	put_data(e, 0, 0x20000008, 8, 0x1111111122222222ull);
	put_op(e, 0x8008, STR4);  /* the first value is due */
	put_data(e, 1, 0x20000004, 4, 0x1234);
	put_op(e, 0x800c, ADD);   /* the second */
	EXPECT(e, &o, ASYNC, ISYNC_8000,
	       0x84, 0x74, 0x80, 0x80, 0x80, 0x80, 0x02,
	       0x84, 0x78, 0x08, 0x58,
	       0x24, 0xab,
	       0x84, 0x2a, 0x04, 0x34, 0x12,
	       0x4c, 0x22, 0x22, 0x22, 0x22, 0x4c, 0x11, 0x11, 0x11, 0x11,
	       0x84);

	/* Values only, a long delay: the fourth load waits for the oldest
	 * tag's value; the rest come before the gap, oldest first. */
	c.etmcr = ETM3_ETMCR_DATA_VALUE;
	c.ooo_delay = 100;
	memset(&o, 0, sizeof(o));
	assert_int_equal(etm3_enc_alloc(&e, &c, ts_out_sink, &o), 0);
	put_op(e, 0x8000, LDM45);
	put_data(e, 0, 0x20000000, 4, 0x1);
	put_data(e, 0, 0x20000004, 4, 0x2);
	put_op(e, 0x8004, LDR);
	put_data(e, 0, 0x20000000, 4, 0x3);
	put_op(e, 0x8008, LDR);
	put_data(e, 0, 0x20000000, 4, 0);
	put_kind(e, exec_gap, 0);
	put_op(e, 0x8000, ADD);
	EXPECT(e, &o, ASYNC, ISYNC_8000,
	       0x84, 0x74, 0x58, 0x84, 0x7c,
	       0x84, 0x24, 0x01, 0x74,
	       0x44, 0x02, 0x64, 0x03, 0x20,
	       ISYNC_8000, 0x84);

	/* Refused: a transfer not after its instruction, after one that
	 * makes none or failed its condition; a bad size or value; beyond
	 * 32 bits. */
	e = enc_new(CR_DATA, IDR35, 0, &o);
	r = data_rec(0, 0x1000, 4, 1);
	assert_int_equal(etm3_enc_put(e, &r), -etmkit_err_invalid);
	put_op(e, 0x8000, ADD);
	assert_int_equal(etm3_enc_put(e, &r), -etmkit_err_invalid);
	r = ts_insn(etmkit_isa_arm, 0x8004, 4, EXEC_F_COND_FAIL);
	r.opcode = 0x05910000; /* ldreq r0, [r1] */
	assert_int_equal(etm3_enc_put(e, &r), 0);
	r = data_rec(0, 0x1000, 4, 1);
	assert_int_equal(etm3_enc_put(e, &r), -etmkit_err_invalid);
	put_op(e, 0x8008, LDR);
	r.size = 3;
	assert_int_equal(etm3_enc_put(e, &r), -etmkit_err_invalid);
	r.size = 1;
	r.value = 0x100;
	assert_int_equal(etm3_enc_put(e, &r), -etmkit_err_invalid);
	r = data_rec(0, 0xfffffffcull, 8, 1);
	assert_int_equal(etm3_enc_put(e, &r), -etmkit_err_invalid);
	r = data_rec(0, 0x1000, 4, 1);
	r.flags = 0x80;
	assert_int_equal(etm3_enc_put(e, &r), -etmkit_err_invalid);
	put_data(e, 0, 0xfffffff8ull, 8, 1);
	put_ctx(e, EXEC_CTX_EL, 0, 1, 0, 0);
	r = data_rec(1, 0x1000, 4, 1);
	assert_int_equal(etm3_enc_put(e, &r), -etmkit_err_invalid);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0xc4, 0x84, 0x26,
	       0xf8, 0xff, 0xff, 0xff, 0x0f, 0x01, 0x02);

	/* Without data trace, data items are ignored. */
	e = enc_new(0, IDR35, 0, &o);
	put_op(e, 0x8000, LDR);
	put_data(e, 0, 0x20000000, 4, 0x12345678);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0x84);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_small_stream),
		cmocka_unit_test(test_branch_not_taken),
		cmocka_unit_test(test_example_7_1),
		cmocka_unit_test(test_example_7_2),
		cmocka_unit_test(test_branch_lengths),
		cmocka_unit_test(test_branch_reference),
		cmocka_unit_test(test_state_changes),
		cmocka_unit_test(test_exception),
		cmocka_unit_test(test_isync_forms),
		cmocka_unit_test(test_timestamp_vmid),
		cmocka_unit_test(test_data_normal),
		cmocka_unit_test(test_data_ooo),
		cmocka_unit_test(test_round_trip_mixed),
		cmocka_unit_test(test_round_trip_isa),
		cmocka_unit_test(test_round_trip_configs),
		cmocka_unit_test(test_round_trip_data),
		cmocka_unit_test(test_round_trip_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
