/* ETMv3 trace encoder: the bytes it must emit, worked out by hand from
 * IHI 0014Q chapter 7 (P-header Examples 7.1 and 7.2 turned around, each
 * branch address length in both encodings, I-sync forms, exception,
 * context ID, VMID and timestamp packets), and round trips: records of
 * A32, T32 and mixed code walked over an in-memory image, encoded, decoded
 * by etm3_pkt + etm3_flow fed in chunks, and compared instruction by
 * instruction with the record. */
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
#include "ts_prog32.h"
#include "ts_rec.h"

#define IDR35     0x410CF250u /* ETMv3.5, original branch encoding */
#define IDR35_ALT 0x411CF250u /* ETMv3.5, alternative encoding (ETMIDR[20]) */
#define IDR32     0x410CF220u /* ETMv3.2: no format 4, no AltISA */
#define CR_CA     ETM3_ETMCR_CYCLE_ACCURATE

/* ---- Output capture ------------------------------------------------------- */

static struct etm3_enc *enc_new(uint32_t etmcr, uint32_t etmidr,
				uint32_t etmccer, struct ts_out *o)
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
	assert_int_equal(etm3_enc_finish(e), 0);
	assert_int_equal(o->empty, 0); /* the sink never gets 0 bytes */
	if (o->n != n || memcmp(o->b, want, n)) {
		char got[512] = "", *p = got;

		for (size_t i = 0; i < o->n && p < got + sizeof(got) - 4; i++)
			p += snprintf(p, 4, "%02x ", o->b[i]);
		fail_msg("encoded %zu bytes, want %zu: %s", o->n, n, got);
	}
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

/* The stream test_etm3_flow.c decodes: A-sync, I-sync at 0x8000, E E N
 * (0xc8, Table 7.2 format 1), E for BX r3, its branch packet after the
 * P-header holding its atom (7.3.5), E at 0x8100. */
static void test_small_stream(void **state)
{
	struct ts_out o;
	struct etm3_enc *e = enc_new(0, IDR35, 0, &o);

	(void)state;
	put_insn(e, etmkit_isa_arm, 0x8000, 4, 0);
	put_insn(e, etmkit_isa_arm, 0x8004, 4, 0);
	put_insn(e, etmkit_isa_arm, 0x8008, 4, EXEC_F_COND_FAIL);
	put_bx(e, etmkit_isa_arm, 0x800c, 4, 0x8100, etmkit_isa_arm);
	put_insn(e, etmkit_isa_arm, 0x8100, 4, 0);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0xc8, 0x84, 0x81, 0x01, 0x84);
}

/* A branch the record says was not taken, without EXEC_F_COND_FAIL (what
 * a QEMU block log gives): it did not pass its condition, so its atom is
 * N, the same stream as test_small_stream's with the failed instruction
 * a not-taken branch (IHI 0014Q 7.3.1). */
static void test_branch_not_taken(void **state)
{
	struct ts_out o;
	struct etm3_enc *e = enc_new(0, IDR35, 0, &o);

	(void)state;
	put_insn(e, etmkit_isa_arm, 0x8000, 4, 0);
	put_insn(e, etmkit_isa_arm, 0x8004, 4, 0);
	put_insn(e, etmkit_isa_arm, 0x8008, 4, EXEC_F_BRANCH);
	put_bx(e, etmkit_isa_arm, 0x800c, 4, 0x8100, etmkit_isa_arm);
	put_insn(e, etmkit_isa_arm, 0x8100, 4, 0);
	EXPECT(e, &o, ASYNC, ISYNC_8000, 0xc8, 0x84, 0x81, 0x01, 0x84);
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

#define CR_DATA (ETM3_ETMCR_DATA_ADDR | ETM3_ETMCR_DATA_VALUE)

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

/* ---- Round trips ----------------------------------------------------------- */

static uint64_t rng_state;

static uint32_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

static uint32_t below(uint32_t n)
{
	return rnd() % n;
}

#define REGION_BYTES 0x4000u

/* Programs with loads and stores (data trace round trips). */
static int gen_data;

struct prog {
	struct ts_region *r; /* code.r */
	unsigned n;
	struct ts_prog32 code;
	struct image *img;
};

static uint32_t rnd_of(void *ctx)
{
	(void)ctx;
	return rnd();
}

/* Regions (tests/support/ts_prog32.h): ARM and Thumb close together (BLX
 * immediate between them), and apart by every distance a branch address
 * length covers. */
static void prog_build(struct prog *p, int arm, int thumb)
{
	static const uint32_t arm_base[4] = { 0x00008000u, 0x00108000u,
					      0x02008000u, 0x92340000u };
	static const uint32_t thumb_base[4] = { 0x00400000u, 0x00480000u,
						0x08400000u, 0xc0000000u };
	struct ts_prog32_opts o = {
		.region_bytes = REGION_BYTES,
		.arm_base = arm ? arm_base : NULL,
		.thumb_base = thumb ? thumb_base : NULL,
		.nbase = 4,
		.data = gen_data,
		.rnd = rnd_of,
	};

	ts_prog32_make(&p->code, &o);
	p->r = p->code.r;
	p->n = p->code.n;
	assert_int_equal(image_alloc(&p->img), 0);
	for (unsigned i = 0; i < p->n; i++)
		assert_int_equal(image_add_buffer(p->img, p->r[i].mem,
						  REGION_BYTES, p->r[i].base,
						  0), 0);
}

static void prog_free(struct prog *p)
{
	image_free(p->img);
	ts_prog32_free(&p->code);
}

static const struct ts_region *region_of(const struct prog *p, uint32_t a)
{
	const struct ts_region *g = ts_region_of(&p->code, a);

	if (!g)
		fail_msg("address 0x%x outside the image", a);
	return g;
}

static uint32_t pick(const struct ts_region *g)
{
	return g->starts[below(g->nstarts)];
}

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

static void want_insn(struct want *w, const struct exec_rec *r)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 4096;
		w->insn = realloc(w->insn, w->cap * sizeof(*w->insn));
		assert_non_null(w->insn);
	}
	w->insn[w->n++] = *r;
}

static void want_data(struct want *w, const struct want_data *d)
{
	if (w->nd == w->capd) {
		w->capd = w->capd ? 2 * w->capd : 4096;
		w->data = realloc(w->data, w->capd * sizeof(*w->data));
		assert_non_null(w->data);
	}
	w->data[w->nd++] = *d;
}

struct walk_opts {
	uint32_t etmcr, etmidr, etmccer;
	uint32_t flags, ooo_delay; /* etm3_enc_config's */
	int arm, thumb;
	unsigned steps;
	unsigned gap_per_mille, exc_per_mille, ctx_per_mille;
	uint32_t sync_period;
};

/* Cycles the decoder must report for @r. */
static uint32_t want_cycles(const struct walk_opts *o, const struct exec_rec *r)
{
	uint32_t c = (r->flags & EXEC_F_CYCLES) ? r->cycles : 1;

	if (!c && ((o->etmidr >> 4) & 0xf) < 3)
		c = 1;
	return c;
}

static void do_put(struct etm3_enc *e, const struct exec_rec *r)
{
	assert_int_equal(etm3_enc_put(e, r), 0);
}

static uint64_t rnd64(void)
{
	uint64_t v = (uint64_t)rnd() << 32;

	return v | rnd();
}

/* The data transfers of the instruction just walked (w->insn's last), an
 * executed load or store per @flags (INSN_F_*): 1 to 4, of 1, 2, 4 or 8
 * bytes, mostly contiguous, at addresses every data address length
 * reaches; encoded, and noted as the 32-bit transfers the decode gives. */
static void walk_data(const struct walk_opts *o, struct etm3_enc *e,
		      struct want *w, uint32_t flags)
{
	static const uint32_t base[6] = { 0x20000000u, 0x20000400u,
					  0x20100000u, 0x2a000000u,
					  0x80000000u, 0xffffff00u };
	static const uint8_t sizes[6] = { 1, 2, 4, 4, 4, 8 };
	unsigned n = 1 + (below(3) ? 0 : below(4));
	uint64_t end = 0;
	struct exec_rec r;

	for (unsigned i = 0; i < n; i++) {
		uint8_t size = sizes[below(6)];
		uint64_t v = rnd64() >> below(64);
		int store = (flags & INSN_F_STORE) &&
			    (!(flags & INSN_F_LOAD) || below(2));
		struct want_data d;

		memset(&r, 0, sizeof(r));
		r.kind = exec_data;
		r.flags = store ? EXEC_D_STORE : 0;
		r.size = size;
		if (i && below(4) && end + size <= 0x100000000ull)
			r.addr = end;
		else
			r.addr = base[below(6)] + (below(32) << 3);
		if (size < 8)
			v &= (1ull << (8 * size)) - 1;
		r.value = below(6) ? v : 0;
		do_put(e, &r);
		memset(&d, 0, sizeof(d));
		d.insn = w->n - 1;
		d.iaddr = (uint32_t)w->insn[w->n - 1].addr;
		d.access = (uint32_t)r.addr;
		d.ooo = !store && (o->flags & ETM3_ENC_OOO);
		for (unsigned h = 0; h < (size == 8 ? 2u : 1u); h++) {
			d.addr = (uint32_t)r.addr + 4 * h;
			d.value = (uint32_t)(r.value >> (32 * h));
			d.first = i == 0 && h == 0;
			d.contig = !d.first && d.addr == end;
			d.half = d.ooo && size == 8 ? (uint8_t)(h + 1) : 0;
			want_data(w, &d);
			end = d.addr + (size == 8 ? 4u : size);
		}
	}
}

/* Walk @o->steps instructions over @p from a random start, choosing
 * condition outcomes and indirect targets at random; encode every item
 * and note what the decode must give. */
static void walk(const struct prog *p, const struct walk_opts *o,
		 struct etm3_enc *e, struct want *w)
{
	const struct ts_region *g = &p->r[below(p->n)];
	uint32_t a = pick(g), it_left = 0;
	uint8_t isa = g->isa;
	uint64_t ts = 1000;
	uint32_t cid = 0;
	uint8_t ns = 0, el = 1;
	int virt = !!(o->etmccer & ETM3_ETMCCER_VIRT_EXT);
	struct exec_rec r;
	int ca = !!(o->etmcr & CR_CA), cid_on = !!(o->etmcr & (3u << 14));
	int ts_on = !!(o->etmcr & ETM3_ETMCR_TIMESTAMP);

	for (unsigned step = 0; step < o->steps; step++) {
		struct insn_info info;
		uint32_t off;

		if (below(1000) < o->gap_per_mille) {
			memset(&r, 0, sizeof(r));
			r.kind = exec_gap;
			do_put(e, &r);
			g = &p->r[below(p->n)];
			a = pick(g);
			isa = g->isa;
			it_left = 0;
		} else if (below(1000) < o->exc_per_mille) {
			memset(&r, 0, sizeof(r));
			r.kind = exec_exception;
			r.number = below(exec_exc_count);
			r.addr = a;
			do_put(e, &r);
			g = &p->r[below(p->n)];
			a = pick(g);
			isa = g->isa;
			it_left = 0;
			if (below(5) == 0) {
				/* The handler is not traced. */
				r.kind = exec_gap;
				do_put(e, &r);
			} else {
				static const uint8_t num[exec_exc_count] = {
					8, 9, 10, 11, 12, 14, 15, 11 };

				if (step && w->nexc < 4096)
					w->exc[w->nexc++] = num[r.number];
				if (below(2)) {
					/* The handler runs in another state:
					 * exception bytes carry NS and Hyp. */
					ns = (uint8_t)below(2);
					el = ns && virt && below(2) ? 2 : 1;
					memset(&r, 0, sizeof(r));
					r.kind = exec_context;
					r.flags = EXEC_CTX_EL;
					r.el = el;
					r.ns = ns;
					do_put(e, &r);
				}
			}
		}
		if (cid_on && below(1000) < o->ctx_per_mille) {
			memset(&r, 0, sizeof(r));
			r.kind = exec_context;
			r.flags = EXEC_CTX_CONTEXTID;
			r.value = rnd() & (o->etmcr & (1u << 15) ?
					   (o->etmcr & (1u << 14) ? 0xffffffffu :
					    0xffffu) : 0xffu);
			do_put(e, &r);
			cid = (uint32_t)r.value;
		}
		if (below(1000) < o->ctx_per_mille) {
			/* A change of state without a branch. */
			ns = (uint8_t)below(2);
			el = ns && virt && below(2) ? 2 : 1;
			memset(&r, 0, sizeof(r));
			r.kind = exec_context;
			r.flags = EXEC_CTX_EL;
			r.el = el;
			r.ns = ns;
			do_put(e, &r);
		}
		if (ts_on && below(1000) < o->ctx_per_mille) {
			memset(&r, 0, sizeof(r));
			r.kind = exec_timestamp;
			ts += 1 + below(1u << below(30));
			r.value = ts;
			do_put(e, &r);
			if (w->nts < 4096)
				w->ts[w->nts++] = ts;
		}
		g = region_of(p, a);
		off = a - g->base;
		assert_int_equal(insn_decode(&info, isa, a, g->mem + off,
					     REGION_BYTES - off), 0);
		memset(&r, 0, sizeof(r));
		r.kind = exec_insn;
		r.isa = isa;
		r.addr = a;
		r.size = info.size;
		r.opcode = info.opcode;
		/* Not the encoder's: what the decode must say. */
		r.value = cid;
		r.ns = ns;
		r.el = el;
		if (it_left) {
			it_left--;
			if (below(10) < 4)
				r.flags |= EXEC_F_COND_FAIL;
		} else if ((info.flags & INSN_F_COND) && below(10) < 4) {
			r.flags |= EXEC_F_COND_FAIL;
		}
		if (info.flags & INSN_F_IT) {
			unsigned m = info.it_mask & 0xf;

			it_left = m & 1 ? 4 : m & 2 ? 3 : m & 4 ? 2 : 1;
		}
		if (ca && below(10) < 7) {
			r.flags |= EXEC_F_CYCLES;
			r.cycles = below(4) ? below(4) : below(40);
		}
		if (info.flags & INSN_F_BRANCH) {
			r.flags |= EXEC_F_BRANCH;
			if (info.flags & INSN_F_INDIRECT)
				r.flags |= EXEC_F_INDIRECT;
		}
		if ((r.flags & EXEC_F_BRANCH) && !(r.flags & EXEC_F_COND_FAIL)) {
			r.flags |= EXEC_F_TAKEN;
			if (info.flags & INSN_F_INDIRECT) {
				const struct ts_region *t = &p->r[below(p->n)];

				r.target = pick(t);
				r.target_isa = t->isa;
			} else {
				r.target = (uint32_t)info.target;
				r.target_isa = info.target_isa;
			}
		}
		do_put(e, &r);
		r.cycles = want_cycles(o, &r);
		want_insn(w, &r);
		if ((o->etmcr & (ETM3_ETMCR_DATA_ADDR | ETM3_ETMCR_DATA_VALUE)) &&
		    !(r.flags & EXEC_F_COND_FAIL) &&
		    (info.flags & (INSN_F_LOAD | INSN_F_STORE)))
			walk_data(o, e, w, info.flags);
		if (r.flags & EXEC_F_TAKEN) {
			a = (uint32_t)r.target;
			isa = r.target_isa;
			it_left = 0;
		} else {
			a += r.size;
		}
	}
}

/* Bytes the value of a normal or out-of-order data packet has: SS
 * (Table 6.3). */
static unsigned ss_bytes_of(uint32_t v)
{
	return v == 0 ? 0 : v < 0x100 ? 1 : v < 0x10000 ? 2 : 4;
}

/* Data element @x against the transfer @d it must be, @ni instructions
 * decoded so far. */
static void check_data(const struct walk_opts *o, const struct etmkit_elem *x,
		       const struct want_data *d, size_t ni)
{
	int addr_on = !!(o->etmcr & ETM3_ETMCR_DATA_ADDR);
	int value_on = !!(o->etmcr & ETM3_ETMCR_DATA_VALUE);
	uint32_t want_addr = d->half == 2 ? d->access : d->addr;

	if (!(x->flags & ETMKIT_DATA_INSN) || x->addr != d->iaddr)
		fail_msg("data at offset %llu: instruction 0x%llx (flags 0x%x), "
			 "want 0x%x", (unsigned long long)x->offset,
			 (unsigned long long)x->addr, x->flags, d->iaddr);
	/* A normal data packet comes right after its instruction's atom;
	 * out-of-order data when the value came. */
	if (!d->ooo && ni != d->insn + 1)
		fail_msg("data of instruction %zu after %zu instructions",
			 d->insn, ni);
	if (x->flags & (ETMKIT_DATA_BE | ETMKIT_DATA_STORE_FAILED |
			ETMKIT_DATA_SUPPRESSED))
		fail_msg("data flags 0x%x", x->flags);
	if (!!(x->flags & ETMKIT_DATA_OOO) != d->ooo ||
	    (d->ooo && (x->u.data.tag < 1 || x->u.data.tag > 3)) ||
	    (d->ooo && x->u.data.half != d->half))
		fail_msg("data at offset %llu: flags 0x%x tag %u half %u, want "
			 "ooo %u half %u", (unsigned long long)x->offset,
			 x->flags, x->u.data.tag, x->u.data.half, d->ooo,
			 d->half);
	if (x->flags & ETMKIT_DATA_ADDR) {
		if (!addr_on || x->u.data.data_addr != want_addr)
			fail_msg("data at offset %llu: address 0x%llx, want "
				 "0x%x", (unsigned long long)x->offset,
				 (unsigned long long)x->u.data.data_addr,
				 addr_on ? want_addr : 0);
	} else if (addr_on && !d->contig && !(d->half == 2)) {
		/* Only a transfer at the end of the one before may leave
		 * its address out (7.4.2). */
		fail_msg("data at offset %llu: no address, want 0x%x",
			 (unsigned long long)x->offset, d->addr);
	}
	if (x->flags & ETMKIT_DATA_VALUE) {
		if (!value_on || x->u.data.value != d->value ||
		    x->size != ss_bytes_of(d->value))
			fail_msg("data at offset %llu: value 0x%llx size %u, "
				 "want 0x%x", (unsigned long long)x->offset,
				 (unsigned long long)x->u.data.value, x->size,
				 d->value);
	} else if (value_on && d->value != 0) {
		/* SS 00 is the value 0 (Table 6.3): etm3_flow reports a
		 * normal data packet's as no value (see the report). */
		fail_msg("data at offset %llu: no value, want 0x%x",
			 (unsigned long long)x->offset, d->value);
	}
}

/* Decode @o->n bytes with etm3_flow fed in random chunks; compare. */
static void check_decode(const struct walk_opts *o, const struct prog *p,
			 const struct ts_out *t, const struct want *w)
{
	size_t nd_in = 0, nd_ooo = 0; /* next in-order, out-of-order data */
	struct etm3_flow_config c;
	struct etm3_flow_decoder *d;
	const struct etmkit_elem *el;
	size_t at = 0, ni = 0, nexc = 0, nts = 0;
	int k, ca = !!(o->etmcr & CR_CA), cid_on = !!(o->etmcr & (3u << 14));
	uint32_t cid = 0;
	uint8_t ns = 0, hyp = 0;

	etm3_flow_config_init(&c);
	c.etm.etmcr = o->etmcr;
	c.etm.etmidr = o->etmidr;
	c.etm.etmccer = o->etmccer;
	c.image = p->img;
	assert_int_equal(etm3_flow_alloc(&d, &c), 0);
	for (int done = 0; !done;) {
		if (at < t->n) {
			size_t len = 1 + below(below(4) ? 64 : 4096);

			if (len > t->n - at)
				len = t->n - at;
			assert_int_equal(etm3_flow_feed(d, t->b + at, len, NULL,
							at), 0);
			at += len;
		} else {
			assert_int_equal(etm3_flow_finish(d), 0);
			done = 1;
		}
		while ((k = etm3_flow_batch(d, &el)) > 0) {
			for (int i = 0; i < k; i++) {
				const struct etmkit_elem *x = &el[i];
				const struct exec_rec *r;

				switch (x->kind) {
				case etmkit_elem_insn:
					if (ni >= w->n)
						fail_msg("extra instruction at "
							 "0x%llx", (unsigned long long)x->addr);
					r = &w->insn[ni];
					if (x->addr != r->addr || x->isa != r->isa ||
					    x->size != r->size ||
					    (x->flags & (ETMKIT_INSN_EXEC |
							 ETMKIT_INSN_COND_FAIL |
							 ETMKIT_INSN_CANCEL)) !=
					    ((r->flags & EXEC_F_COND_FAIL) ?
					     ETMKIT_INSN_COND_FAIL : ETMKIT_INSN_EXEC) ||
					    (ca && (!(x->flags & ETMKIT_INSN_CYCLES) ||
						    x->cycles != r->cycles)))
						fail_msg("instruction %zu: got 0x%llx "
							 "isa %u size %u flags 0x%x "
							 "cycles %u; want 0x%llx isa "
							 "%u size %u flags 0x%x "
							 "cycles %u", ni,
							 (unsigned long long)x->addr,
							 x->isa, x->size, x->flags,
							 x->cycles,
							 (unsigned long long)r->addr,
							 r->isa, r->size, r->flags,
							 r->cycles);
					if (ns != r->ns || hyp != (r->el == 2))
						fail_msg("instruction %zu: ns %u hyp %u, "
							 "want ns %u el %u", ni, ns, hyp,
							 r->ns, r->el);
					if (cid_on && cid != r->value)
						fail_msg("instruction %zu: context ID "
							 "0x%x, want 0x%llx", ni, cid,
							 (unsigned long long)r->value);
					ni++;
					break;
				case etmkit_elem_context:
					if (x->flags & ETMKIT_CTX_CONTEXT_ID)
						cid = x->u.context.context_id;
					ns = x->u.context.ns;
					hyp = x->u.context.hyp;
					break;
				case etmkit_elem_timestamp:
					if (nts < w->nts)
						assert_int_equal(x->u.timestamp.value,
								 w->ts[nts]);
					nts++;
					break;
				case etmkit_elem_exception:
					if (nexc < w->nexc)
						assert_int_equal(x->u.exception.number,
								 w->exc[nexc]);
					assert_false(x->flags & ETMKIT_EXC_CANCEL);
					nexc++;
					break;
				case etmkit_elem_data: {
					int ooo = !!(x->flags & ETMKIT_DATA_OOO);
					size_t *at_d = ooo ? &nd_ooo : &nd_in;

					while (*at_d < w->nd &&
					       w->data[*at_d].ooo != ooo)
						(*at_d)++;
					if (*at_d == w->nd)
						fail_msg("extra data element at "
							 "offset %llu", (unsigned long long)
							 x->offset);
					check_data(o, x, &w->data[*at_d], ni);
					(*at_d)++;
					break;
				}
				case etmkit_elem_gap:
				case etmkit_elem_no_image:
				case etmkit_elem_overflow:
					fail_msg("element kind %u at offset %llu "
						 "after %zu instructions", x->kind,
						 (unsigned long long)x->offset, ni);
					break;
				default:
					break;
				}
			}
		}
		assert_int_equal(k, -etmkit_err_eos);
	}
	assert_int_equal(ni, w->n);
	/* every transfer came back */
	while (nd_in < w->nd && w->data[nd_in].ooo)
		nd_in++;
	while (nd_ooo < w->nd && !w->data[nd_ooo].ooo)
		nd_ooo++;
	assert_int_equal(nd_in, w->nd);
	assert_int_equal(nd_ooo, w->nd);
	if (w->nexc < 4096)
		assert_int_equal(nexc, w->nexc);
	if (w->nts < 4096)
		assert_int_equal(nts, w->nts);
	etm3_flow_free(d);
}

/* What the packets of a round trip were: so that a walk that stopped
 * exercising something (every branch address length, exceptions, the
 * P-header formats) shows. */
struct census {
	unsigned branch_len[6];   /* branch packets by address bytes */
	unsigned exc_bytes;       /* branch packets with exception bytes */
	unsigned isync[4];        /* by reason */
	unsigned ph_format[5];    /* P-headers by format */
	unsigned a_sync, cid, ts, vmid;
	unsigned data, placeholder, ooo_data; /* data packets */
	unsigned data_addr_len[6]; /* data addresses by bytes (1-5) */
	uint64_t last_a_sync;     /* offset of the last A-sync */
};

static void take_census(const struct walk_opts *o, const struct ts_out *t,
			struct census *c)
{
	struct etm3_config cfg;
	struct etm3_pkt_decoder *d;
	struct etm3_packet pk[64];
	int k;

	memset(c, 0, sizeof(*c));
	etm3_config_init(&cfg);
	cfg.etmcr = o->etmcr;
	cfg.etmidr = o->etmidr;
	cfg.etmccer = o->etmccer;
	assert_int_equal(etm3_pkt_alloc(&d, &cfg), 0);
	assert_int_equal(etm3_pkt_feed(d, t->b, t->n, NULL, 0), 0);
	for (int pass = 0; pass < 2; pass++) {
		while ((k = etm3_pkt_next(d, pk, 64)) > 0) {
			for (int i = 0; i < k; i++) {
				const struct etm3_packet *p = &pk[i];

				assert_int_equal(p->error, 0);
				switch (p->type) {
				case etm3_pkt_branch_address:
					c->branch_len[p->u.branch.addr_bytes]++;
					c->exc_bytes += p->u.branch.exc_bytes > 0;
					break;
				case etm3_pkt_i_sync:
				case etm3_pkt_i_sync_cycle:
					c->isync[p->u.isync.reason & 3]++;
					break;
				case etm3_pkt_p_header:
					c->ph_format[p->u.atoms.format % 5]++;
					break;
				case etm3_pkt_a_sync:
					c->a_sync++;
					c->last_a_sync = p->offset;
					break;
				case etm3_pkt_normal_data:
				case etm3_pkt_ooo_placeholder:
					if (p->type == etm3_pkt_normal_data)
						c->data++;
					else
						c->placeholder++;
					if (p->u.data.has_addr)
						c->data_addr_len[(p->u.data.addr_bits +
								  6) / 7]++;
					break;
				case etm3_pkt_ooo_data:
					assert_true(p->u.data.ooo_match);
					c->ooo_data++;
					break;
				case etm3_pkt_context_id: c->cid++; break;
				case etm3_pkt_timestamp: c->ts++; break;
				case etm3_pkt_vmid: c->vmid++; break;
				case etm3_pkt_unsynced:
					fail_msg("unsynced bytes at %llu",
						 (unsigned long long)p->offset);
					break;
				default:
					break;
				}
			}
		}
		assert_int_equal(k, -etmkit_err_eos);
		if (!pass)
			assert_int_equal(etm3_pkt_finish(d), 0);
	}
	etm3_pkt_free(d);
}

/* A decoder that starts at the last A-sync (a capture that begins there)
 * must give the record's last instructions, and nothing else: the
 * periodic sync carries everything a decode needs. */
static void check_tail(const struct walk_opts *o, const struct prog *p,
		       const struct ts_out *t, uint64_t from, const struct want *w)
{
	struct etm3_flow_config c;
	struct etm3_flow_decoder *d;
	const struct etmkit_elem *el;
	struct exec_rec *got = NULL;
	size_t n = 0, cap = 0;
	int k, ca = !!(o->etmcr & CR_CA);

	etm3_flow_config_init(&c);
	c.etm.etmcr = o->etmcr;
	c.etm.etmidr = o->etmidr;
	c.etm.etmccer = o->etmccer;
	c.image = p->img;
	assert_int_equal(etm3_flow_alloc(&d, &c), 0);
	assert_int_equal(etm3_flow_feed(d, t->b + from, t->n - (size_t)from,
					NULL, from), 0);
	for (int pass = 0; pass < 2; pass++) {
		while ((k = etm3_flow_batch(d, &el)) > 0)
			for (int i = 0; i < k; i++) {
				if (el[i].kind != etmkit_elem_insn)
					continue;
				if (n == cap) {
					cap = cap ? 2 * cap : 1024;
					got = realloc(got, cap * sizeof(*got));
					assert_non_null(got);
				}
				memset(&got[n], 0, sizeof(got[n]));
				got[n].addr = el[i].addr;
				got[n].isa = el[i].isa;
				got[n].size = el[i].size;
				got[n].flags = el[i].flags;
				got[n].cycles = el[i].cycles;
				n++;
			}
		assert_int_equal(k, -etmkit_err_eos);
		if (!pass)
			assert_int_equal(etm3_flow_finish(d), 0);
	}
	/* An I-sync right after the A-sync: no atom before it is lost. */
	assert_int_equal(etm3_flow_get_stats(d)->atoms_lost, 0);
	assert_true(n > 0 && n <= w->n);
	for (size_t i = 0; i < n; i++) {
		const struct exec_rec *r = &w->insn[w->n - n + i];

		assert_int_equal(got[i].addr, r->addr);
		assert_int_equal(got[i].isa, r->isa);
		assert_int_equal(got[i].size, r->size);
		assert_int_equal(got[i].flags & (ETMKIT_INSN_EXEC |
						 ETMKIT_INSN_COND_FAIL),
				 (r->flags & EXEC_F_COND_FAIL) ?
				 ETMKIT_INSN_COND_FAIL : ETMKIT_INSN_EXEC);
		if (ca)
			assert_int_equal(got[i].cycles, r->cycles);
	}
	free(got);
	etm3_flow_free(d);
}

static void round_trip_census(const struct walk_opts *o, uint64_t seed,
			      struct census *cen, unsigned *sink_calls)
{
	struct prog p;
	struct ts_out t;
	struct want *w = calloc(1, sizeof(*w));
	struct etm3_enc_config c;
	struct etm3_enc *e;

	assert_non_null(w);
	rng_state = seed;
	gen_data = !!(o->etmcr & (ETM3_ETMCR_DATA_ADDR | ETM3_ETMCR_DATA_VALUE));
	prog_build(&p, o->arm, o->thumb);
	etm3_enc_config_init(&c);
	c.etmcr = o->etmcr;
	c.etmidr = o->etmidr;
	c.etmccer = o->etmccer;
	c.sync_period = o->sync_period;
	c.flags = o->flags;
	c.ooo_delay = o->ooo_delay;
	memset(&t, 0, sizeof(t));
	assert_int_equal(etm3_enc_alloc(&e, &c, ts_out_sink, &t), 0);
	walk(&p, o, e, w);
	assert_int_equal(etm3_enc_finish(e), 0);
	assert_int_equal(t.empty, 0); /* the sink never gets 0 bytes */
	assert_int_equal(etm3_enc_offset(e), t.n);
	etm3_enc_free(e);
	check_decode(o, &p, &t, w);
	{
		struct census own;

		if (!cen)
			cen = &own;
		take_census(o, &t, cen);
		if (cen->a_sync > 1)
			check_tail(o, &p, &t, cen->last_a_sync, w);
	}
	if (sink_calls)
		*sink_calls = t.calls;
	free(t.b);
	free(w->insn);
	free(w->data);
	free(w);
	prog_free(&p);
}

static void round_trip(const struct walk_opts *o, uint64_t seed)
{
	round_trip_census(o, seed, NULL, NULL);
}

/* A hand-written mixed A32/T32 run (opcodes checked against the ARMv7-AR
 * encodings): a failed MOVNE, BLX (immediate) to Thumb, an ITE block
 * whose second instruction fails, an IRQ taken inside the IT block and
 * its return by SUBS pc, lr, #4, BX lr back to ARM, a taken BEQ, BX to
 * Thumb, BL, a failed BNE, BX to ARM, a gap. */
static const uint32_t mixed_arm[] = {
	0xe3a00001, /* 8000 mov r0, #1 */
	0xe3500001, /* 8004 cmp r0, #1 */
	0x13a01002, /* 8008 movne r1, #2 */
	0xfa00003b, /* 800c blx 0x8100 */
	0xe1a00000, /* 8010 nop */
	0x0a000001, /* 8014 beq 0x8020 */
	0xe1a00000, /* 8018 */
	0xe1a00000, /* 801c */
	0xe12fff13, /* 8020 bx r3 */
};
static const uint16_t mixed_thumb[] = {
	0x2801,         /* 8100 cmp r0, #1 */
	0xbf0c,         /* 8102 ite eq */
	0x2102,         /* 8104 moveq r1, #2 */
	0x2103,         /* 8106 movne r1, #3 */
	0x4770,         /* 8108 bx lr */
	0xbf00, 0xbf00, 0xbf00,
	0xf000, 0xf802, /* 8110 bl 0x8118 */
	0xbf00, 0xbf00,
	0xd1fc,         /* 8118 bne 0x8114 */
	0x4718,         /* 811a bx r3 */
};
static const uint32_t mixed_vector[] = { 0xe25ef004 /* 0x18 subs pc, lr, #4 */ };

static void test_round_trip_mixed(void **state)
{
	const uint8_t A = etmkit_isa_arm, T = etmkit_isa_thumb;
	const uint32_t B = EXEC_F_BRANCH | EXEC_F_TAKEN, I = EXEC_F_INDIRECT;
	static const struct {
		uint8_t kind, isa, size, tisa;
		uint32_t addr, flags, target;
	} items[] = {
		{ exec_insn, 0, 4, 0, 0x8000, 0, 0 },
		{ exec_insn, 0, 4, 0, 0x8004, 0, 0 },
		{ exec_insn, 0, 4, 0, 0x8008, EXEC_F_COND_FAIL, 0 },
		{ exec_insn, 0, 4, 1, 0x800c, 1, 0x8100 },
		{ exec_insn, 1, 2, 0, 0x8100, 0, 0 },
		{ exec_insn, 1, 2, 0, 0x8102, 0, 0 },
		{ exec_insn, 1, 2, 0, 0x8104, 0, 0 },
		{ exec_exception, 0, 0, 0, 0x8106, exec_exc_irq, 0 },
		{ exec_insn, 0, 4, 1, 0x18, 2, 0x8106 },
		{ exec_insn, 1, 2, 0, 0x8106, EXEC_F_COND_FAIL, 0 },
		{ exec_insn, 1, 2, 0, 0x8108, 2, 0x8010 },
		{ exec_insn, 0, 4, 0, 0x8010, 0, 0 },
		{ exec_insn, 0, 4, 0, 0x8014, 1, 0x8020 },
		{ exec_insn, 0, 4, 1, 0x8020, 2, 0x8110 },
		{ exec_insn, 1, 4, 1, 0x8110, 1, 0x8118 },
		{ exec_insn, 1, 2, 0, 0x8118, EXEC_F_COND_FAIL | 4, 0 },
		{ exec_insn, 1, 2, 0, 0x811a, 2, 0x8000 },
		{ exec_gap, 0, 0, 0, 0, 0, 0 },
		{ exec_insn, 0, 4, 0, 0x8000, 0, 0 },
	};
	static const struct {
		uint32_t etmcr, etmidr;
	} cfgs[] = { { 0, IDR35 }, { 0, IDR35_ALT }, { CR_CA, IDR35 },
		     { CR_CA, IDR32 }, { ETM3_ETMCR_BRANCH_OUTPUT, IDR35 } };
	struct prog p = { 0 };

	(void)state;
	assert_int_equal(image_alloc(&p.img), 0);
	assert_int_equal(image_add_buffer(p.img, mixed_arm, sizeof(mixed_arm),
					  0x8000, 0), 0);
	assert_int_equal(image_add_buffer(p.img, mixed_thumb,
					  sizeof(mixed_thumb), 0x8100, 0), 0);
	assert_int_equal(image_add_buffer(p.img, mixed_vector,
					  sizeof(mixed_vector), 0x18, 0), 0);
	for (size_t c = 0; c < sizeof(cfgs) / sizeof(cfgs[0]); c++) {
		struct walk_opts o;
		struct want *w = calloc(1, sizeof(*w));
		struct etm3_enc *e;
		struct ts_out t;

		assert_non_null(w);
		memset(&o, 0, sizeof(o));
		o.etmcr = cfgs[c].etmcr;
		o.etmidr = cfgs[c].etmidr;
		e = enc_new(o.etmcr, o.etmidr, 0, &t);
		for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
			struct exec_rec r;
			uint32_t f = items[i].flags;

			memset(&r, 0, sizeof(r));
			r.kind = items[i].kind;
			r.addr = items[i].addr;
			if (r.kind == exec_exception) {
				r.number = f;
				w->exc[w->nexc++] = 14; /* IRQ, Table 7-12 */
			} else if (r.kind == exec_insn) {
				r.isa = items[i].isa ? T : A;
				r.size = items[i].size;
				/* flags: 1 direct taken, 2 indirect taken, 4 a
				 * branch (failed) */
				r.flags = f & EXEC_F_COND_FAIL;
				if (f & 1)
					r.flags |= B;
				if (f & 2)
					r.flags |= B | I;
				if (f & 4)
					r.flags |= EXEC_F_BRANCH;
				r.target = items[i].target;
				r.target_isa = items[i].tisa ? T : A;
				if (!(r.flags & EXEC_F_TAKEN))
					r.target_isa = 0;
				r.cycles = (uint32_t)(i % 3); /* 0, 1, 2 */
				r.flags |= EXEC_F_CYCLES;
			}
			assert_int_equal(etm3_enc_put(e, &r), 0);
			if (r.kind == exec_insn) {
				r.cycles = want_cycles(&o, &r);
				r.el = 1;
				want_insn(w, &r);
			}
		}
		assert_int_equal(etm3_enc_finish(e), 0);
		assert_int_equal(t.empty, 0); /* the sink never gets 0 bytes */
		etm3_enc_free(e);
		check_decode(&o, &p, &t, w);
		free(t.b);
		free(w->insn);
		free(w->data);
		free(w);
	}
	image_free(p.img);
}

/* A32 only, T32 only, mixed; normal and cycle-accurate; both branch
 * encodings; ETMv3.2; with gaps, exceptions, context IDs, timestamps. */
static void test_round_trip_isa(void **state)
{
	struct walk_opts o;
	struct census c;

	(void)state;
	for (int mix = 0; mix < 3; mix++) {
		for (int ca = 0; ca < 2; ca++) {
			memset(&o, 0, sizeof(o));
			o.arm = mix != 1;
			o.thumb = mix != 0;
			o.etmcr = ca ? CR_CA : 0;
			o.etmidr = mix == 2 ? IDR35_ALT : IDR35;
			o.steps = 20000;
			o.gap_per_mille = 2;
			o.exc_per_mille = 3;
			o.sync_period = 4096;
			round_trip_census(&o, 0x1234567ull + (uint64_t)(mix * 2 + ca),
					  &c, NULL);
			/* The walk reached every address length, exceptions,
			 * periodic sync, every P-header format of the mode. */
			if (getenv("ENC_CENSUS"))
				printf("mix %d ca %d: len %u %u %u %u %u exc %u "
				       "isync %u %u async %u ph %u %u %u %u %u\n",
				       mix, ca, c.branch_len[1], c.branch_len[2],
				       c.branch_len[3], c.branch_len[4],
				       c.branch_len[5], c.exc_bytes, c.isync[0],
				       c.isync[1], c.a_sync, c.ph_format[0],
				       c.ph_format[1], c.ph_format[2],
				       c.ph_format[3], c.ph_format[4]);
			for (int n = 1; n <= 5; n++)
				assert_true(c.branch_len[n] > 0);
			assert_true(c.exc_bytes > 0);
			assert_true(c.isync[etm3_reason_periodic] > 0);
			assert_true(c.isync[etm3_reason_trace_on] > 1);
			assert_true(c.a_sync > 1);
			for (int f = ca ? 1 : 1; f <= (ca ? 4 : 2); f++)
				assert_true(c.ph_format[f] > 0);
		}
	}
}

static void test_round_trip_configs(void **state)
{
	static const struct {
		uint32_t etmcr, etmidr, etmccer, sync;
	} cfgs[] = {
		{ 0, IDR35_ALT, 0, 64 },
		{ CR_CA, IDR35_ALT, 0, 0 },
		{ CR_CA, IDR32, 0, 0 },
		{ 0, IDR32, 0, 100 },
		{ ETM3_ETMCR_BRANCH_OUTPUT | (1u << 14), IDR35, 0, 0 },
		{ ETM3_ETMCR_BRANCH_OUTPUT | CR_CA | (2u << 14), IDR35_ALT, 0, 0 },
		{ (3u << 14) | ETM3_ETMCR_TIMESTAMP | ETM3_ETMCR_VMID, IDR35,
		  ETM3_ETMCCER_TIMESTAMP | ETM3_ETMCCER_VIRT_EXT, 0 },
		{ CR_CA | ETM3_ETMCR_TIMESTAMP, IDR35_ALT,
		  ETM3_ETMCCER_TIMESTAMP | ETM3_ETMCCER_TS_64BIT |
		  ETM3_ETMCCER_TS_BINARY, 200 },
	};
	struct walk_opts o;

	(void)state;
	for (size_t i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++) {
		memset(&o, 0, sizeof(o));
		o.arm = o.thumb = 1;
		o.etmcr = cfgs[i].etmcr;
		o.etmidr = cfgs[i].etmidr;
		o.etmccer = cfgs[i].etmccer;
		o.sync_period = cfgs[i].sync;
		o.steps = 10000;
		o.gap_per_mille = 3;
		o.exc_per_mille = 5;
		o.ctx_per_mille = 20;
		round_trip(&o, 0xabcdef01ull + i);
	}
}

/* Data trace: addresses, values or both, in order and out of order, in
 * every instruction-trace configuration; every data packet form and
 * data address length, checked transfer by transfer. */
static void test_round_trip_data(void **state)
{
	const uint32_t AV = CR_DATA, A = ETM3_ETMCR_DATA_ADDR,
		       V = ETM3_ETMCR_DATA_VALUE, O = ETM3_ENC_OOO;
	static const struct {
		uint32_t etmcr, etmidr, etmccer, sync, flags, delay;
	} cfgs[] = {
		{ AV, IDR35, 0, 0, 0, 0 },
		{ A, IDR35_ALT, 0, 64, 0, 0 },
		{ V | CR_CA, IDR32, 0, 0, 0, 0 },
		{ AV | CR_CA, IDR35, 0, 0, 0, 0 },
		{ AV, IDR35, 0, 0, O, 0 },
		{ AV | CR_CA, IDR35_ALT, 0, 100, O, 3 },
		{ V, IDR32, 0, 0, O, 2 },
		{ AV | CR_CA, IDR32, 0, 0, O, 9 },
		{ AV | ETM3_ETMCR_BRANCH_OUTPUT | (1u << 14), IDR35, 0, 0, O, 1 },
		{ AV | (3u << 14) | ETM3_ETMCR_TIMESTAMP | ETM3_ETMCR_VMID,
		  IDR35, ETM3_ETMCCER_TIMESTAMP | ETM3_ETMCCER_VIRT_EXT, 0, O,
		  5 },
	};
	struct walk_opts o;
	struct census c;

	(void)state;
	for (size_t i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++) {
		memset(&o, 0, sizeof(o));
		o.arm = o.thumb = 1;
		o.etmcr = cfgs[i].etmcr;
		o.etmidr = cfgs[i].etmidr;
		o.etmccer = cfgs[i].etmccer;
		o.sync_period = cfgs[i].sync;
		o.flags = cfgs[i].flags;
		o.ooo_delay = cfgs[i].delay;
		o.steps = 10000;
		o.gap_per_mille = 3;
		o.exc_per_mille = 5;
		o.ctx_per_mille = 20;
		round_trip_census(&o, 0x5eed0000ull + i, &c, NULL);
		if (getenv("ENC_CENSUS"))
			printf("data cfg %zu: data %u placeholder %u ooo %u "
			       "addr %u %u %u %u %u\n", i, c.data,
			       c.placeholder, c.ooo_data, c.data_addr_len[1],
			       c.data_addr_len[2], c.data_addr_len[3],
			       c.data_addr_len[4], c.data_addr_len[5]);
		assert_true(c.data > 100);
		if (cfgs[i].flags & O) {
			assert_true(c.placeholder > 100);
			assert_true(c.ooo_data >= c.placeholder);
		} else {
			assert_int_equal(c.placeholder + c.ooo_data, 0);
		}
		if (cfgs[i].etmcr & A)
			for (int n = 1; n <= 5; n++)
				assert_true(c.data_addr_len[n] > 0);
	}
}

/* Long enough for several 64 KiB sink calls; many seeds, small. */
static void test_round_trip_long(void **state)
{
	struct walk_opts o;
	unsigned calls = 0;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.arm = o.thumb = 1;
	o.etmcr = CR_CA;
	o.etmidr = IDR35;
	o.steps = 300000;
	o.gap_per_mille = 1;
	o.exc_per_mille = 1;
	round_trip_census(&o, 42, NULL, &calls);
	assert_true(calls > 2); /* 64 KiB at a time */
	/* ETMKIT_ENC_SEEDS=n: a longer shake-out. */
	const char *env = getenv("ETMKIT_ENC_SEEDS");
	uint64_t seeds = env ? strtoull(env, NULL, 0) : 40;

	for (uint64_t seed = 1; seed <= seeds; seed++) {
		memset(&o, 0, sizeof(o));
		o.arm = o.thumb = 1;
		rng_state = seed * 7919;
		o.etmcr = below(2) ? CR_CA : 0;
		o.etmidr = below(2) ? IDR35 : IDR35_ALT;
		o.steps = 2000;
		o.gap_per_mille = below(20);
		o.exc_per_mille = below(50);
		o.sync_period = below(2) ? 0 : 16 + below(200);
		o.ctx_per_mille = below(30);
		switch (below(4)) {
		case 0: break;
		case 1: o.etmidr = IDR32; break;
		case 2: o.etmcr |= ETM3_ETMCR_BRANCH_OUTPUT; break;
		default:
			o.etmcr |= (1u + below(3)) << 14 | ETM3_ETMCR_TIMESTAMP;
			o.etmccer = ETM3_ETMCCER_TIMESTAMP |
				    ETM3_ETMCCER_VIRT_EXT |
				    (below(2) ? ETM3_ETMCCER_TS_64BIT : 0) |
				    (below(2) ? ETM3_ETMCCER_TS_BINARY : 0);
			o.etmidr = below(2) ? IDR35 : IDR35_ALT;
			break;
		}
		if (below(2)) { /* data trace, maybe out of order */
			o.etmcr |= (1u + below(3)) << 2;
			if ((o.etmcr & ETM3_ETMCR_DATA_VALUE) && below(2)) {
				o.flags = ETM3_ENC_OOO;
				o.ooo_delay = below(8);
			}
		}
		round_trip(&o, seed);
	}
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
