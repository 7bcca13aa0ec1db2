/* ETMv2 trace encoder: the cycles it must write, worked out by hand from
 * docs/etmv2.md (the protocol etmkit's ETMv2 decoder and encoder follow)
 * and the packet formats of IHI 0014Q chapter 6 as the digest
 * (shared/spec/etmv2.md) gives them. The default ("natural") PIPESTAT
 * table maps code i to status i for IE..PNDN, so the expected statuses
 * below are the raw codes. Each case says how its cycles come about. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "etmkit/etm2.h"
#include "etmkit/exec.h"

#include "ts_rec.h"

#include "test_etm2_enc.h"

#define ARM etmkit_isa_arm
#define THUMB etmkit_isa_thumb

#define IE etm2_st_ie
#define DE etm2_st_de
#define IN etm2_st_in
#define DN etm2_st_dn
#define WT etm2_st_wt
#define DW etm2_st_dw
#define TD etm2_st_td
#define PTIE etm2_st_ptie
#define PNIE etm2_st_pnie

#define CR_VALUE ETM2_ETMCR_DATA_VALUE
#define CR_ADDR ETM2_ETMCR_DATA_ADDR
#define CR_CID1 (1u << ETM2_ETMCR_CID_SHIFT)

/* ---- The cycles written --------------------------------------------------- */

struct cyc_out {
	struct etm2_cycle c[512];
	size_t n;
	unsigned calls;
	int fail;
};

static int cyc_sink(void *ctx, const struct etm2_cycle *c, size_t n)
{
	struct cyc_out *o = ctx;

	o->calls++;
	if (o->fail)
		return o->fail;
	assert_true(o->n + n <= 512);
	memcpy(o->c + o->n, c, n * sizeof(*c));
	o->n += n;
	return 0;
}

struct setup {
	uint32_t etmcr;
	uint8_t width, latency, version;
	uint32_t flags, depth, sync, miss_every;
};

static struct etm2_enc *enc_new(const struct setup *s, struct cyc_out *o)
{
	struct etm2_enc_config c;
	struct etm2_enc *e = NULL;

	etm2_enc_config_init(&c);
	c.etm.etmcr = s->etmcr;
	c.etm.port_width = s->width ? s->width : 8;
	c.etm.fifo_latency = s->latency;
	c.etm.version = s->version;
	c.flags = s->flags;
	c.fifo_depth = s->depth;
	c.sync_period = s->sync;
	c.miss_every = s->miss_every;
	memset(o, 0, sizeof(*o));
	assert_int_equal(etm2_enc_alloc(&e, &c, cyc_sink, o), 0);
	return e;
}

/* Expected cycles as status, TRACEPKT pairs. */
static void expect(struct etm2_enc *e, struct cyc_out *o, const unsigned *want,
		   size_t n2)
{
	size_t n = n2 / 2;

	assert_int_equal(etm2_enc_finish(e), 0);
	for (size_t i = 0; i < n && i < o->n; i++) {
		if (o->c[i].ps != want[2 * i] || o->c[i].pkt != want[2 * i + 1])
			fail_msg("cycle %zu: %s 0x%x, want %s 0x%x", i,
				 etm2_status_name(o->c[i].ps), o->c[i].pkt,
				 etm2_status_name(want[2 * i]),
				 want[2 * i + 1]);
	}
	if (o->n != n)
		fail_msg("%zu cycles, want %zu", o->n, n);
	assert_int_equal(etm2_enc_get_stats(e)->cycles, n);
	etm2_enc_free(e);
}

#define EXPECT(e, o, ...)                                                    \
	do {                                                                 \
		const unsigned want_[] = { __VA_ARGS__ };                    \
		expect(e, o, want_, sizeof(want_) / sizeof(want_[0]));       \
	} while (0)

/* ---- Record items --------------------------------------------------------- */

static void put(struct etm2_enc *e, struct exec_rec r)
{
	assert_int_equal(etm2_enc_put(e, &r), 0);
}

/* An instruction that is no branch (opcode 0: ANDEQ r0, r0, r0). */
static void plain(struct etm2_enc *e, uint8_t isa, uint32_t addr)
{
	put(e, ts_insn(isa, addr, isa == ARM ? 4 : 2, 0));
}

static void plains(struct etm2_enc *e, uint32_t addr, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		plain(e, ARM, addr + 4 * i);
}

/* A taken indirect branch (BX r3) to @target in @tisa. */
static void bx(struct etm2_enc *e, uint32_t addr, uint32_t target,
	       uint8_t tisa)
{
	struct exec_rec r = ts_insn(ARM, addr, 4, EXEC_F_BRANCH |
				    EXEC_F_INDIRECT | EXEC_F_TAKEN);

	r.opcode = 0xe12fff13;
	r.target = target;
	r.target_isa = tisa;
	put(e, r);
}

/* B at @addr to @target (ARM), taken or not. */
static void b(struct etm2_enc *e, uint32_t addr, uint32_t target, int taken)
{
	struct exec_rec r = ts_insn(ARM, addr, 4, EXEC_F_BRANCH |
				    (taken ? EXEC_F_TAKEN : 0));

	r.opcode = 0xea000000 | (((target - addr - 8) >> 2) & 0xffffff);
	r.target = target;
	r.target_isa = ARM;
	put(e, r);
}

static void data(struct etm2_enc *e, int store, uint32_t addr,
		 uint64_t value, uint8_t size)
{
	struct exec_rec r;

	memset(&r, 0, sizeof(r));
	r.kind = exec_data;
	r.flags = store ? EXEC_D_STORE : 0;
	r.addr = addr;
	r.value = value;
	r.size = size;
	put(e, r);
}

static void item(struct etm2_enc *e, uint8_t kind, uint32_t flags,
		 uint64_t value, uint32_t cycles)
{
	struct exec_rec r;

	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.flags = flags;
	r.value = value;
	r.cycles = cycles;
	put(e, r);
}

/* The record of the port cases: two plain instructions, BX r3 to
 * 0x9000, one there. */
static void port_record(struct etm2_enc *e)
{
	plain(e, ARM, 0x8000);
	plain(e, ARM, 0x8004);
	bx(e, 0x8008, 0x9000, ARM);
	plain(e, ARM, 0x9000);
}

/* ---- Cases ------------------------------------------------------------------ */

/* 8-bit port, latency 1 (docs/etmv2.md 3). A trace-on TFO before the
 * first instruction (6: TD, TRACEPKT[0] = 1, N = 0 on [7:1]) places
 * 20 00 80 00 00 (header reason 01 << 5, address LSB first); a byte
 * placed in cycle t leaves from t + 1. BX r3 to 0x9000: DE with a branch
 * address compressed against the TFO's 0x8000 (4: ARM A[7:2] in byte 0,
 * A[14:8] in byte 1; A[31:15] unchanged): 81 10. */
static void test_port8(void **state)
{
	struct setup s = { 0 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);

	(void)state;
	port_record(e);
	EXPECT(e, &o, TD, 0x01, IE, 0x20, IE, 0x00, DE, 0x80, IE, 0x00,
	       WT, 0x00, WT, 0x81, WT, 0x10);
}

/* The same on a 4-bit port: the TFO value in two cycles (N[2:0] on [3:1]
 * with [0] = 1, then N[6:3], both TD), bytes a nibble a cycle, the low
 * nibble first. */
static void test_port4(void **state)
{
	struct setup s = { .width = 4, .latency = 1 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);

	(void)state;
	port_record(e);
	EXPECT(e, &o, TD, 0x1, TD, 0x0, IE, 0x0, IE, 0x2, DE, 0x0, IE, 0x0,
	       WT, 0x0, WT, 0x8, WT, 0x0, WT, 0x0, WT, 0x0, WT, 0x0,
	       WT, 0x1, WT, 0x8, WT, 0x0, WT, 0x1);
}

/* 16-bit port, latency 0: two bytes a cycle, [7:0] first, when two may
 * leave, else one (Q§6.3); a group placed in an empty FIFO leaves in its
 * own cycle (the second BX: 0x9100 against 0x9000, 81 11); an IE with
 * the FIFO empty carries junk (0). */
static void test_port16(void **state)
{
	struct setup s = { .width = 16, .latency = 0 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);

	(void)state;
	port_record(e);
	bx(e, 0x9004, 0x9100, ARM);
	plain(e, ARM, 0x9100);
	EXPECT(e, &o, TD, 0x01, IE, 0x0020, IE, 0x0080, DE, 0x8100,
	       IE, 0x0010, DE, 0x1181, IE, 0x0000);
}

/* A BX from ARM to Thumb sends all five address bytes (4): Thumb A[6:1]
 * in byte 0, then 7 bits a byte, the 5th 0001 A[31:28]. */
static void test_isa_change(void **state)
{
	struct setup s = { 0 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);

	(void)state;
	bx(e, 0x8000, 0x9000, THUMB);
	plain(e, THUMB, 0x9000);
	EXPECT(e, &o, TD, 0x01, DE, 0x20, IE, 0x00, WT, 0x80, WT, 0x00,
	       WT, 0x00, WT, 0x81, WT, 0xa0, WT, 0x82, WT, 0x80, WT, 0x10);
}

/* Data trace, addresses and values (ETMCR[3:2]): an LDR's normal data
 * `C0A0SS10` with A = 1: 26, the full address after the TFO
 * (0x20001000: 80 A0 80 80 02), the value in one byte (SS 01); an STR
 * next to it: 2E, one address byte (only A[6:0] changed), the value in
 * four (SS 11, least significant first). */
static void test_data(void **state)
{
	struct setup s = { .etmcr = CR_VALUE | CR_ADDR, .latency = 1 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);

	(void)state;
	plain(e, ARM, 0x8000);
	data(e, 0, 0x20001000, 0x12, 4);
	plain(e, ARM, 0x8004);
	data(e, 1, 0x20001004, 0x12345, 4);
	plain(e, ARM, 0x8008);
	EXPECT(e, &o, TD, 0x01, DE, 0x20, DE, 0x00, IE, 0x80,
	       WT, 0x00, WT, 0x00,
	       WT, 0x26, WT, 0x80, WT, 0xa0, WT, 0x80, WT, 0x80, WT, 0x02,
	       WT, 0x12,
	       WT, 0x2e, WT, 0x04, WT, 0x45, WT, 0x23, WT, 0x01, WT, 0x00);
}

/* After a TFO the first data address goes in full (docs/etmv2.md 4):
 * stores at 0x1000 and, after a gap, 0x1004 (84 A0 80 80 00, not the one
 * byte 04 that compression against 0x1000 would give). Address tracing
 * only: SS is 0 and no value follows. */
static void test_data_after_tfo(void **state)
{
	struct setup s = { .etmcr = CR_ADDR, .latency = 1 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);

	(void)state;
	plain(e, ARM, 0x8000);
	data(e, 1, 0x1000, 0x55, 4);
	item(e, exec_gap, 0, 0, 0);
	plain(e, ARM, 0x8000);
	data(e, 1, 0x1004, 0x55, 4);
	EXPECT(e, &o, TD, 0x01, DE, 0x20, WT, 0x00, WT, 0x80, WT, 0x00,
	       WT, 0x00, WT, 0x22, WT, 0x80, WT, 0xa0, WT, 0x80, WT, 0x80,
	       WT, 0x00,
	       TD, 0x01, DE, 0x20, WT, 0x00, WT, 0x80, WT, 0x00, WT, 0x00,
	       WT, 0x22, WT, 0x84, WT, 0xa0, WT, 0x80, WT, 0x80, WT, 0x00);
}

/* A doubleword store is two normal data packets, low word first, A on
 * the first only; C = 1 on the first (another packet follows, Q§6.4.1):
 * A6, address 0x2000 in full (80 C0 80 80 00), 03; then 06, 05. */
static void test_doubleword(void **state)
{
	struct setup s = { .etmcr = CR_VALUE | CR_ADDR, .latency = 1 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);

	(void)state;
	plain(e, ARM, 0x8000);
	data(e, 1, 0x2000, 0x0000000500000003ull, 8);
	EXPECT(e, &o, TD, 0x01, DE, 0x20, WT, 0x00, WT, 0x80, WT, 0x00,
	       WT, 0x00, WT, 0xa6, WT, 0x80, WT, 0xc0, WT, 0x80, WT, 0x80,
	       WT, 0x00, WT, 0x03, WT, 0x06, WT, 0x05);
}

/* A load miss (miss_every 1, value tracing only): "occurred" `C1A1TT00`
 * with A = 1 and tag 0 (70) in the LDR's cycle; its data `CTT0SS00`
 * (04) and value in the next instruction's group (that cycle is DE). */
static void test_load_miss(void **state)
{
	struct setup s = { .etmcr = CR_VALUE, .latency = 1, .miss_every = 1 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);

	(void)state;
	plain(e, ARM, 0x8000);
	data(e, 0, 0x1000, 0x99, 4);
	plain(e, ARM, 0x8004);
	plain(e, ARM, 0x8008);
	EXPECT(e, &o, TD, 0x01, DE, 0x20, DE, 0x00, IE, 0x80, WT, 0x00,
	       WT, 0x00, WT, 0x70, WT, 0x04, WT, 0x99);
}

/* Context ID (ETMCR[15:14] = 1 byte), latency 0: the TFO carries the
 * context ID (20 05, address); an exception is a DW cycle whose group is
 * the branch address of the handler (0x18 against 0x8000: three bytes,
 * 8D 80 00); a later change a DW cycle with 6E 07 before the next
 * instruction. */
static void test_exception_context(void **state)
{
	struct setup s = { .etmcr = CR_CID1, .latency = 0 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);

	(void)state;
	item(e, exec_context, EXEC_CTX_CONTEXTID, 5, 0);
	plain(e, ARM, 0x8000);
	item(e, exec_exception, 0, 0, 0);
	plain(e, ARM, 0x18);
	item(e, exec_context, EXEC_CTX_CONTEXTID, 7, 0);
	plain(e, ARM, 0x1c);
	EXPECT(e, &o, TD, 0x01, IE, 0x20, DW, 0x05, IE, 0x00, DW, 0x80,
	       IE, 0x00, WT, 0x00, WT, 0x8d, WT, 0x80, WT, 0x00, WT, 0x6e,
	       WT, 0x07);
}

/* A gap of 6 cycles: the FIFO drains (WT), TD for the rest of the gap,
 * then a trace-on TFO before the next instruction. */
static void test_gap(void **state)
{
	struct setup s = { 0 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);

	(void)state;
	plain(e, ARM, 0x8000);
	item(e, exec_gap, EXEC_F_CYCLES, 0, 6);
	plain(e, ARM, 0x9000);
	EXPECT(e, &o, TD, 0x01, IE, 0x20, WT, 0x00, WT, 0x80, WT, 0x00,
	       WT, 0x00, TD, 0x00, TD, 0x00, TD, 0x01, IE, 0x20, WT, 0x00, WT, 0x90, WT, 0x00,
	       WT, 0x00);
}

/* Periodic TFO (sync period 4 cycles): at the first IE once 4 cycles
 * have passed since the last TFO it replaces that IE (6): TD with N = 1
 * (the last TFO byte not out yet), then its packet 00 10 80 00 00. */
static void test_periodic(void **state)
{
	struct setup s = { .sync = 4, .latency = 1 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);

	(void)state;
	plains(e, 0x8000, 8);
	EXPECT(e, &o, TD, 0x01, IE, 0x20, IE, 0x00, IE, 0x80, IE, 0x00,
	       TD, 0x03, IE, 0x00, IE, 0x00, IE, 0x10, WT, 0x80, WT, 0x00,
	       WT, 0x00);
	assert_int_equal(o.n, 12);
}

/* Phantoms: a taken B folded with the instruction after it is PTIE, a
 * B that is not taken PNIE (Q§6.1.2); the second instruction's status
 * follows the prefix. */
static void test_phantoms(void **state)
{
	struct setup s = { .flags = ETM2_ENC_PHANTOMS, .latency = 1 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);

	(void)state;
	b(e, 0x8000, 0x8100, 1);
	plain(e, ARM, 0x8100);
	b(e, 0x8104, 0x8200, 0);
	plain(e, ARM, 0x8108);
	plain(e, ARM, 0x810c);
	EXPECT(e, &o, TD, 0x01, PTIE, 0x20, PNIE, 0x00, IE, 0x80,
	       WT, 0x00, WT, 0x00);
}

/* A FIFO of 16 bytes, value tracing, stores of 0x11223344 (groups of
 * 2E 44 33 22 11, five bytes) on an 8-bit port, latency 1: after the
 * TFO (5), S1 (10 - 1) and S2 (14 - 1) S3's group does not fit (18 >
 * 16): S3 is lost (WT), tracing stops; each instruction while the FIFO
 * drains is lost (WT); at the first instruction with the FIFO empty a
 * TFO of reason overflow (40) restarts it. */
static void test_overflow(void **state)
{
	struct setup s = { .etmcr = CR_VALUE, .latency = 1, .depth = 16 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);
	const struct etm2_enc_stats *st;

	(void)state;
	for (unsigned i = 0; i < 4; i++) {
		plain(e, ARM, 0x8000 + 4 * i);
		data(e, 1, 0x100, 0x11223344, 4);
	}
	plains(e, 0x8010, 12);
	st = etm2_enc_get_stats(e);
	assert_int_equal(etm2_enc_finish(e), 0);
	assert_int_equal(st->overflows, 1);
	assert_int_equal(st->insns_lost, 13);
	assert_int_equal(st->insns, 3);
	assert_int_equal(st->tfos, 2);
	EXPECT(e, &o, TD, 0x01, DE, 0x20, DE, 0x00, WT, 0x80, WT, 0x00,
	       WT, 0x00,
	       WT, 0x2e, WT, 0x44, WT, 0x33, WT, 0x22, WT, 0x11,
	       WT, 0x2e, WT, 0x44, WT, 0x33, WT, 0x22, WT, 0x11,
	       TD, 0x01, IE, 0x40, WT, 0x3c, WT, 0x80, WT, 0x00, WT, 0x00);
}

/* An overflow, then a gap before tracing restarted: the TFO after the
 * gap still has reason overflow (40), so that the decode reports what
 * was lost (the same FIFO and stores as test_overflow: S3 overflows, the
 * gap drains the FIFO). */
static void test_overflow_gap(void **state)
{
	struct setup s = { .etmcr = CR_VALUE, .latency = 1, .depth = 16 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);

	(void)state;
	for (unsigned i = 0; i < 3; i++) {
		plain(e, ARM, 0x8000 + 4 * i);
		data(e, 1, 0x100, 0x11223344, 4);
	}
	item(e, exec_gap, 0, 0, 0);
	plain(e, ARM, 0x9000);
	EXPECT(e, &o, TD, 0x01, DE, 0x20, DE, 0x00, WT, 0x80, WT, 0x00,
	       WT, 0x00,
	       WT, 0x2e, WT, 0x44, WT, 0x33, WT, 0x22, WT, 0x11,
	       WT, 0x2e, WT, 0x44, WT, 0x33, WT, 0x22, WT, 0x11,
	       TD, 0x01, IE, 0x40, WT, 0x00, WT, 0x90, WT, 0x00, WT, 0x00);
}

/* Condition-failed instructions are IN; extra cycles (EXEC_F_CYCLES)
 * come before the status as cycles without instruction: WT while the
 * FIFO outputs, TD once it is empty (3). With latency 1 a group placed
 * in the empty FIFO leaves from the next cycle (BX to 0x8100: 81 01). */
static void test_wait_cycles(void **state)
{
	struct setup s = { .latency = 1 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);
	struct exec_rec r = ts_insn(ARM, 0x8004, 4, EXEC_F_COND_FAIL |
				    EXEC_F_CYCLES);

	(void)state;
	plain(e, ARM, 0x8000);
	r.cycles = 7;
	put(e, r);
	bx(e, 0x8008, 0x8100, ARM);
	EXPECT(e, &o, TD, 0x01, IE, 0x20, WT, 0x00, WT, 0x80, WT, 0x00,
	       WT, 0x00, TD, 0x00, TD, 0x00, IN, 0x00, DE, 0x00, WT, 0x81,
	       WT, 0x01);
}

/* An instruction's record cycles n count from the status before it, so
 * the cycles a TFO or a DW cycle takes before it are among its n - 1
 * (docs/etmv2.md 7 and 7a). Cycle-accurate, latency 1, 8-bit: the TFO
 * (TD 01; 20 00 80 00 00 leave from the next cycle) then two cycles
 * without instruction (WT 20, WT 00) before 0x8000 (n = 3); the
 * exception's DW cycle (8D 80 00 placed, 00 out) is the one cycle
 * before 0x18 (n = 2); 0x1c (n = 1) next; then the FIFO drains. */
static void test_cycles_count_tfo_dw(void **state)
{
	struct setup s = { .etmcr = ETM2_ETMCR_CYCLE_ACCURATE, .latency = 1 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);
	struct exec_rec r = ts_insn(ARM, 0x8000, 4, EXEC_F_CYCLES);

	(void)state;
	r.cycles = 3;
	put(e, r);
	item(e, exec_exception, 0, 0, 0);
	r.addr = 0x18;
	r.cycles = 2;
	put(e, r);
	plain(e, ARM, 0x1c);
	EXPECT(e, &o, TD, 0x01, WT, 0x20, WT, 0x00, IE, 0x80, DW, 0x00,
	       IE, 0x00, IE, 0x8d, WT, 0x80, WT, 0x00);
}

/* Cycle-accurate on a 4-bit port a TFO takes two cycles (docs/etmv2.md
 * 6), so the instruction after a periodic TFO is two cycles after it at
 * least: the encoder places one only where that instruction's record
 * count is 2 or more (7a). Eight instructions of one cycle each, sync
 * period 4: the trace-on TFO alone; the same with the sixth waiting
 * (n = 2): a periodic TFO replaces the fifth's IE, and the sixth's IE
 * is two cycles after that TFO's first. */
static void test_periodic_4bit_cycles(void **state)
{
	struct setup s = { .etmcr = ETM2_ETMCR_CYCLE_ACCURATE, .width = 4,
			   .sync = 4 };

	(void)state;
	for (unsigned wait = 0; wait < 2; wait++) {
		struct cyc_out o;
		struct etm2_enc *e = enc_new(&s, &o);
		size_t at[8], k = 0;

		for (unsigned i = 0; i < 8; i++) {
			struct exec_rec r = ts_insn(ARM, 0x8000 + 4 * i, 4,
						    EXEC_F_CYCLES);

			r.cycles = wait && i == 5 ? 2 : 1;
			put(e, r);
		}
		assert_int_equal(etm2_enc_finish(e), 0);
		assert_int_equal(etm2_enc_get_stats(e)->tfos, 1 + wait);
		/* The trace-on TFO's two cycles (TD, TD), then an IE per
		 * instruction, the periodic TFO's first cycle standing for
		 * the fifth. */
		assert_int_equal(o.c[0].ps, TD);
		assert_int_equal(o.c[1].ps, TD);
		for (size_t i = 2; i < o.n && k < 8; i++)
			if (o.c[i].ps == IE || (wait && k == 4 &&
						o.c[i].ps == TD))
				at[k++] = i;
		assert_int_equal(k, 8);
		assert_int_equal(at[5] - at[4], wait ? 2 : 1);
		for (unsigned i = 1; i < 8; i++)
			if (i != 5)
				assert_int_equal(at[i] - at[i - 1], 1);
		etm2_enc_free(e);
	}
}

/* ---- ETMv1 (docs/etmv2.md 7b, "What the ETMv1 encoder writes") --------------
 *
 * Raw PIPESTAT codes of Q Table 5.1: IE 0, ID 1, IN 2, WT 3, BE 4, BD 5,
 * TR 6, TD 7; an APO cycle's code is its two APO bits. Cycles as status,
 * TRACEPKT, TRACESYNC triples. Branch address bytes (Q§5.5.4): 7 bits
 * each, bit 7 = more, the 5th A[31:28] with the reason in [6:4]; the
 * restart's 0x8000 is 80 80 82 80 1r (r the reason). */

#define V1_IE 0u
#define V1_ID 1u
#define V1_WT 3u
#define V1_BE 4u
#define V1_BD 5u
#define V1_TD 7u
#define S ETM2_CYC_TRACESYNC

static void expect1(struct etm2_enc *e, struct cyc_out *o,
		    const unsigned *want, size_t n3)
{
	size_t n = n3 / 3;

	assert_int_equal(etm2_enc_finish(e), 0);
	for (size_t i = 0; i < n && i < o->n; i++) {
		const unsigned *w = want + 3 * i;

		if (o->c[i].ps != w[0] || o->c[i].pkt != w[1] ||
		    o->c[i].flags != w[2])
			fail_msg("cycle %zu: code %u 0x%x sync %u, want code "
				 "%u 0x%x sync %u", i, o->c[i].ps, o->c[i].pkt,
				 o->c[i].flags, w[0], w[1], w[2]);
	}
	if (o->n != n)
		fail_msg("%zu cycles, want %zu", o->n, n);
	etm2_enc_free(e);
}

#define EXPECT1(e, o, ...)                                                   \
	do {                                                                 \
		const unsigned want_[] = { __VA_ARGS__ };                    \
		expect1(e, o, want_, sizeof(want_) / sizeof(want_[0]));      \
	} while (0)

/* 8-bit port, latency 1. The restart before 0x8000: a BE of no
 * instruction placing 80 80 82 80 10 (reason 1), nothing out in its own
 * cycle; its APO cycles (APO 0: code 0) carry the first two bytes, the
 * first with TRACESYNC. BX r3 to 0x9000: BE, 0x9000 against 0x8000 in
 * two bytes (A[31:14] unchanged): 80 20; the old 10 leaves in its cycle,
 * no earlier branch address is waiting (APO 0), its first byte leaves
 * in the first APO cycle with TRACESYNC. */
static void test_v1_port8(void **state)
{
	struct setup s = { .latency = 1, .version = 1 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);

	(void)state;
	port_record(e);
	EXPECT1(e, &o, V1_BE, 0, 0, 0, 0x80, S, 0, 0x80, 0,
		V1_IE, 0x82, 0, V1_IE, 0x80, 0,
		V1_BE, 0x10, 0, 0, 0x80, S, 0, 0x20, 0,
		V1_IE, 0, 0);
}

/* An instruction set change (docs/etmv2.md 7b, the encoder: 5 bytes when
 * the instruction set changes, reason 0, no context ID). As
 * test_v1_port8, but BX r3 to Thumb 0x9000: 0x9001 in full, 81 A0 82 80
 * 00 (not 81 20 against 0x8000), its first byte with TRACESYNC in the
 * first APO cycle (APO 0), the rest out from the next cycles on. */
static void test_v1_isa_change(void **state)
{
	struct setup s = { .latency = 1, .version = 1 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);

	(void)state;
	plain(e, ARM, 0x8000);
	plain(e, ARM, 0x8004);
	bx(e, 0x8008, 0x9000, THUMB);
	plain(e, THUMB, 0x9000);
	EXPECT1(e, &o, V1_BE, 0, 0, 0, 0x80, S, 0, 0x80, 0,
		V1_IE, 0x82, 0, V1_IE, 0x80, 0,
		V1_BE, 0x10, 0, 0, 0x81, S, 0, 0xa0, 0,
		V1_IE, 0x82, 0, V1_WT, 0x80, 0, V1_WT, 0x00, 0);
}

/* 4-bit port: a nibble a cycle, the low one first, TRACESYNC with a
 * branch address's low nibble. Two BX in a row (0x8004 to 0x9000: 80
 * 20; 0x9000 to 0xA000: 80 40): when the second is placed the first's
 * address has not started leaving, so its APO is 1 (code 1 in the first
 * APO cycle, 0 in the second): its address starts in the second cycle
 * with TRACESYNC after it. */
static void test_v1_port4_apo(void **state)
{
	struct setup s = { .width = 4, .latency = 1, .version = 1 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);

	(void)state;
	plain(e, ARM, 0x8000);
	bx(e, 0x8004, 0x9000, ARM);
	bx(e, 0x9000, 0xa000, ARM);
	plain(e, ARM, 0xa000);
	EXPECT1(e, &o, V1_BE, 0, 0, 0, 0x0, S, 0, 0x8, 0,
		V1_IE, 0x0, 0,
		V1_BE, 0x8, 0, 0, 0x2, 0, 0, 0x8, 0,
		V1_BE, 0x0, 0, 1, 0x8, 0, 0, 0x0, 0,
		V1_IE, 0x1, 0,
		V1_WT, 0x0, S, V1_WT, 0x8, 0, V1_WT, 0x0, 0, V1_WT, 0x2, 0,
		V1_WT, 0x0, S, V1_WT, 0x8, 0, V1_WT, 0x0, 0, V1_WT, 0x4, 0);
}

/* Data addresses and values, context ID 1 byte. The context item before
 * the first instruction: the restart carries it after its address (05).
 * LDR at 0x8000 of 0x20000004: ID, the full data address after the
 * restart (84 80 80 80 02), the value in 4 bytes (44 33 22 11). LDR PC
 * at 0x8004 from 0x20000008 (value 0x9000): BD, its data first (the
 * address in one byte, 08; 00 90 00 00), then the branch address 80 20
 * with TRACESYNC. */
static void test_v1_data_cid(void **state)
{
	struct setup s = { .etmcr = CR_VALUE | CR_ADDR | CR_CID1,
			   .latency = 1, .version = 1 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);
	struct exec_rec r = ts_insn(ARM, 0x8004, 4, EXEC_F_BRANCH |
				    EXEC_F_INDIRECT | EXEC_F_TAKEN);

	(void)state;
	r.opcode = 0xe591f000; /* LDR pc, [r1] */
	r.target = 0x9000;
	r.target_isa = ARM;
	item(e, exec_context, EXEC_CTX_CONTEXTID, 5, 0);
	plain(e, ARM, 0x8000);
	data(e, 0, 0x20000004, 0x11223344, 4);
	put(e, r);
	data(e, 0, 0x20000008, 0x9000, 4);
	plain(e, ARM, 0x9000);
	EXPECT1(e, &o, V1_BE, 0, 0, 0, 0x80, S, 0, 0x80, 0,
		V1_ID, 0x82, 0, V1_BD, 0x80, 0, 0, 0x10, 0, 0, 0x05, 0,
		V1_IE, 0x84, 0,
		V1_WT, 0x80, 0, V1_WT, 0x80, 0, V1_WT, 0x80, 0,
		V1_WT, 0x02, 0, V1_WT, 0x44, 0, V1_WT, 0x33, 0,
		V1_WT, 0x22, 0, V1_WT, 0x11, 0,
		V1_WT, 0x08, 0, V1_WT, 0x00, 0, V1_WT, 0x90, 0,
		V1_WT, 0x00, 0, V1_WT, 0x00, 0,
		V1_WT, 0x80, S, V1_WT, 0x20, 0);
}

/* A context change restarts trace before the next instruction
 * (docs/etmv2.md 7b): the FIFO drains (80 10 00: the first restart's
 * address and its context ID 0 left), then a BE of no instruction with
 * 0x8004 (84 80 82 80 10) and the new context ID (07). */
static void test_v1_context(void **state)
{
	struct setup s = { .etmcr = CR_CID1, .latency = 1, .version = 1 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);

	(void)state;
	plain(e, ARM, 0x8000);
	item(e, exec_context, EXEC_CTX_CONTEXTID, 7, 0);
	plain(e, ARM, 0x8004);
	EXPECT1(e, &o, V1_BE, 0, 0, 0, 0x80, S, 0, 0x80, 0, V1_IE, 0x82, 0,
		V1_WT, 0x80, 0, V1_WT, 0x10, 0, V1_WT, 0x00, 0,
		V1_BE, 0, 0, 0, 0x84, S, 0, 0x80, 0, V1_IE, 0x82, 0,
		V1_WT, 0x80, 0, V1_WT, 0x10, 0, V1_WT, 0x07, 0);
}

/* Sync period 4: the restart's three cycles and three IEs make six; the
 * next taken branch (B 0x800C to 0x8000, direct: no address otherwise)
 * is a BE with its target in full, reason 4: 80 80 82 80 40. */
static void test_v1_periodic(void **state)
{
	struct setup s = { .latency = 1, .version = 1, .sync = 4 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);

	(void)state;
	plains(e, 0x8000, 3);
	b(e, 0x800c, 0x8000, 1);
	plain(e, ARM, 0x8000);
	assert_int_equal(etm2_enc_get_stats(e)->tfos, 2); /* and the restart */
	EXPECT1(e, &o, V1_BE, 0, 0, 0, 0x80, S, 0, 0x80, 0,
		V1_IE, 0x82, 0, V1_IE, 0x80, 0, V1_IE, 0x10, 0,
		V1_BE, 0, 0, 0, 0x80, S, 0, 0x80, 0,
		V1_IE, 0x82, 0, V1_WT, 0x80, 0, V1_WT, 0x40, 0);
}

/* Cycle-accurate: a TD has TRACEPKT[0] = TraceEnable (Q§5.10): 0 in the
 * gap's cycles (4: two WT while the FIFO drains, two TD), 1 while
 * tracing waits. After the gap a restart at 0x9000 (80 A0 82 80 10);
 * 0x9000's count of 8 runs from the restart's BE cycle (8): three WT
 * drain the FIFO, two TD, the IE in cycle 16. */
static void test_v1_gap_ca(void **state)
{
	struct setup s = { .etmcr = ETM2_ETMCR_CYCLE_ACCURATE, .latency = 1,
			   .version = 1 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);
	struct exec_rec r = ts_insn(ARM, 0x9000, 4, EXEC_F_CYCLES);

	(void)state;
	r.cycles = 8;
	plain(e, ARM, 0x8000);
	item(e, exec_gap, EXEC_F_CYCLES, 0, 4);
	put(e, r);
	EXPECT1(e, &o, V1_BE, 0, 0, 0, 0x80, S, 0, 0x80, 0, V1_IE, 0x82, 0,
		V1_WT, 0x80, 0, V1_WT, 0x10, 0, V1_TD, 0, 0, V1_TD, 0, 0,
		V1_BE, 0, 0, 0, 0x80, S, 0, 0xa0, 0,
		V1_WT, 0x82, 0, V1_WT, 0x80, 0, V1_WT, 0x10, 0,
		V1_TD, 1, 0, V1_TD, 1, 0, V1_IE, 0, 0);
}

/* A FIFO of 16 bytes, a 4-bit port, data addresses and values: the
 * restart (5 bytes) and the first load's group (9: its full address
 * 80 80 80 80 02, value 0) fit (4 + 9 after the APO cycles); the second
 * load's (04 00 00 00 00) does not (13 + 5): it is lost (WT), and every
 * instruction while the 24 nibbles left drain (WT); the next one gets a
 * restart of reason 2 (0x8068: E8 80 82 80 20). */
static void test_v1_overflow(void **state)
{
	static const uint8_t left[12] = { 0x82, 0x80, 0x10, 0x80, 0x80, 0x80,
					   0x80, 0x02, 0, 0, 0, 0 };
	static const uint8_t restart[5] = { 0xe8, 0x80, 0x82, 0x80, 0x20 };
	struct setup s = { .etmcr = CR_VALUE | CR_ADDR, .width = 4,
			   .latency = 1, .version = 1, .depth = 16 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);
	const struct etm2_enc_stats *st = etm2_enc_get_stats(e);
	unsigned want[3 * 64], n = 0;

	(void)state;
	plain(e, ARM, 0x8000);
	data(e, 0, 0x20000000, 0, 4);
	plain(e, ARM, 0x8004);
	data(e, 0, 0x20000004, 0, 4);
	plains(e, 0x8008, 25);
#define W(ps, pkt, sy) (want[n++] = (ps), want[n++] = (pkt), want[n++] = (sy))
	W(V1_BE, 0, 0); W(0, 0x0, S); W(0, 0x8, 0);
	W(V1_ID, 0x0, 0); W(V1_WT, 0x8, 0);
	for (unsigned i = 0; i < 12; i++) {
		W(V1_WT, left[i] & 0xfu, 0);
		W(V1_WT, left[i] >> 4, 0);
	}
	W(V1_BE, 0, 0); W(0, 0x8, S); W(0, 0xe, 0);
	W(V1_IE, 0x0, 0); W(V1_WT, 0x8, 0);
	for (unsigned i = 2; i < 5; i++) {
		W(V1_WT, restart[i] & 0xfu, 0);
		W(V1_WT, restart[i] >> 4, 0);
	}
#undef W
	assert_int_equal(etm2_enc_finish(e), 0);
	assert_int_equal(st->overflows, 1);
	assert_int_equal(st->insns_lost, 25);
	assert_int_equal(st->insns, 2);
	expect1(e, &o, want, n);
}

/* The APO's limit (Q§5.6.1, docs/etmv2.md 7b): 15 is reserved. A 4-bit
 * port, data values, LDR PC in a row (BD: 4 value bytes, then a 1-byte
 * branch address): each BD places 5 bytes in 3 cycles while 1.5 leave,
 * so the branch addresses waiting grow by one BD at a time (never by
 * two): the APOs written climb to 14, and the BD whose APO would be 15
 * is not placed (an overflow) instead of writing the reserved code. */
static void test_v1_apo_limit(void **state)
{
	struct setup s = { .etmcr = CR_VALUE, .width = 4, .latency = 1,
			   .version = 1, .depth = 256 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);
	unsigned top = 0;

	(void)state;
	for (uint32_t a = 0x8000; a < 0x8000 + 4 * 24; a += 4) {
		struct exec_rec r = ts_insn(ARM, a, 4, EXEC_F_BRANCH |
					    EXEC_F_INDIRECT | EXEC_F_TAKEN);

		r.opcode = 0xe591f000; /* LDR pc, [r1] */
		r.target = a + 4;
		r.target_isa = ARM;
		put(e, r);
		data(e, 0, 0x20000000, a + 4, 4);
	}
	assert_int_equal(etm2_enc_finish(e), 0);
	assert_int_equal(etm2_enc_get_stats(e)->overflows, 1);
	for (size_t i = 0; i + 2 < o.n; i++) {
		unsigned apo;

		if (o.c[i].ps != V1_BE && o.c[i].ps != V1_BD)
			continue;
		apo = (o.c[i + 1].ps & 3u) | (o.c[i + 2].ps & 3u) << 2;
		if (apo == 15)
			fail_msg("cycle %zu: APO 15 (reserved)", i);
		top = apo > top ? apo : top;
		i += 2;
	}
	assert_int_equal(top, 14);
	etm2_enc_free(e);
}

/* With data tracing, ETMv1 carries one 4-byte transfer an instruction
 * (docs/etmv2.md 7b): a byte load, or a second transfer, is refused and
 * names its instruction; without data tracing both are fine. */
static void test_v1_refused(void **state)
{
	struct setup s = { .etmcr = CR_VALUE, .latency = 1, .version = 1 };
	struct cyc_out o;
	struct etm2_enc *e = enc_new(&s, &o);
	struct exec_rec r;
	uint64_t at = 0;

	(void)state;
	assert_null(etm2_enc_refused(e, &at));
	plain(e, ARM, 0x8000);
	memset(&r, 0, sizeof(r));
	r.kind = exec_data;
	r.size = 1;
	assert_int_equal(etm2_enc_put(e, &r), -etmkit_err_unsupported);
	assert_non_null(etm2_enc_refused(e, &at));
	assert_int_equal(at, 0x8000);
	plain(e, ARM, 0x8004);
	data(e, 0, 0x100, 1, 4);
	r.size = 4;
	assert_int_equal(etm2_enc_put(e, &r), -etmkit_err_unsupported);
	assert_non_null(etm2_enc_refused(e, &at));
	assert_int_equal(at, 0x8004);
	etm2_enc_free(e);
	s.etmcr = 0;
	e = enc_new(&s, &o);
	plain(e, ARM, 0x8000);
	data(e, 0, 0x100, 1, 1);
	data(e, 0, 0x100, 1, 8);
	assert_int_equal(etm2_enc_finish(e), 0);
	assert_null(etm2_enc_refused(e, NULL));
	etm2_enc_free(e);
}

static void test_contracts(void **state)
{
	struct etm2_enc_config c;
	struct etm2_enc *e = NULL;
	struct cyc_out o = { 0 };
	struct exec_rec r;

	(void)state;
	etm2_enc_config_init(&c);
	assert_int_equal(etm2_enc_alloc(NULL, &c, cyc_sink, &o), -etmkit_err_invalid);
	assert_int_equal(etm2_enc_alloc(&e, NULL, cyc_sink, &o), -etmkit_err_invalid);
	assert_int_equal(etm2_enc_alloc(&e, &c, NULL, &o), -etmkit_err_invalid);
	c.flags = 0x80;
	assert_int_equal(etm2_enc_alloc(&e, &c, cyc_sink, &o), -etmkit_err_invalid);
	c.flags = 0;
	c.etm.port_width = 12;
	assert_int_equal(etm2_enc_alloc(&e, &c, cyc_sink, &o), -etmkit_err_bad_config);
	c.etm.port_width = 8;
	c.fifo_depth = 8;
	assert_int_equal(etm2_enc_alloc(&e, &c, cyc_sink, &o), -etmkit_err_bad_config);
	c.fifo_depth = 0;
	/* ETMv1 (docs/etmv2.md 7b): no 16-bit port, no latency 0, no
	 * phantoms, no load misses */
	c.etm.version = 1;
	c.etm.port_width = 16;
	assert_int_equal(etm2_enc_alloc(&e, &c, cyc_sink, &o), -etmkit_err_bad_config);
	c.etm.port_width = 8;
	c.etm.fifo_latency = 0;
	assert_int_equal(etm2_enc_alloc(&e, &c, cyc_sink, &o), -etmkit_err_bad_config);
	c.etm.fifo_latency = 1;
	c.flags = ETM2_ENC_PHANTOMS;
	assert_int_equal(etm2_enc_alloc(&e, &c, cyc_sink, &o), -etmkit_err_bad_config);
	c.flags = 0;
	c.miss_every = 4;
	assert_int_equal(etm2_enc_alloc(&e, &c, cyc_sink, &o), -etmkit_err_bad_config);
	c.miss_every = 0;
	assert_int_equal(etm2_enc_alloc(&e, &c, cyc_sink, &o), 0);
	etm2_enc_free(e);
	c.etm.version = 0;
	assert_int_equal(etm2_enc_alloc(&e, &c, cyc_sink, &o), 0);
	r = ts_insn(etmkit_isa_a64, 0x1000, 4, 0);
	assert_int_equal(etm2_enc_put(e, &r), -etmkit_err_invalid);
	r = ts_insn(etmkit_isa_thumbee, 0x1000, 2, 0);
	assert_int_equal(etm2_enc_put(e, &r), -etmkit_err_invalid);
	r = ts_insn(ARM, 0x100000000ull, 4, 0);
	assert_int_equal(etm2_enc_put(e, &r), -etmkit_err_invalid);
	/* The sink's error is kept and returned. */
	o.fail = -etmkit_err_io;
	r = ts_insn(ARM, 0x1000, 4, 0);
	assert_int_equal(etm2_enc_put(e, &r), 0);
	assert_int_equal(etm2_enc_finish(e), -etmkit_err_io);
	assert_int_equal(etm2_enc_put(e, &r), -etmkit_err_io);
	assert_int_equal(o.calls, 1);
	etm2_enc_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port8),
		cmocka_unit_test(test_port4),
		cmocka_unit_test(test_port16),
		cmocka_unit_test(test_isa_change),
		cmocka_unit_test(test_data),
		cmocka_unit_test(test_data_after_tfo),
		cmocka_unit_test(test_doubleword),
		cmocka_unit_test(test_load_miss),
		cmocka_unit_test(test_exception_context),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_periodic),
		cmocka_unit_test(test_phantoms),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_overflow_gap),
		cmocka_unit_test(test_wait_cycles),
		cmocka_unit_test(test_cycles_count_tfo_dw),
		cmocka_unit_test(test_periodic_4bit_cycles),
		cmocka_unit_test(test_v1_port8),
		cmocka_unit_test(test_v1_isa_change),
		cmocka_unit_test(test_v1_port4_apo),
		cmocka_unit_test(test_v1_data_cid),
		cmocka_unit_test(test_v1_context),
		cmocka_unit_test(test_v1_periodic),
		cmocka_unit_test(test_v1_gap_ca),
		cmocka_unit_test(test_v1_overflow),
		cmocka_unit_test(test_v1_apo_limit),
		cmocka_unit_test(test_v1_refused),
		cmocka_unit_test(test_contracts),
		cmocka_unit_test(test_packets_random),
		cmocka_unit_test(test_overflow_random),
		cmocka_unit_test(test_deep_fifo),
		cmocka_unit_test(test_captures_real_code),
		cmocka_unit_test(test_v1_random),
		cmocka_unit_test(test_v1_overflow_random),
		cmocka_unit_test(test_v1_captures_real_code),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
