/* ETMv3 packet decoder tests: the packets. Expected values are worked out
 * by hand from ARM IHI 0014Q chapter 7 (and the seed excerpts of it), not
 * by running the decoder. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "unit/etm3_pkt_test.h"

/* ---- P-headers ------------------------------------------------------------ */

static void test_example_7_1(void **state)
{
	/* Q Example 7.1 (non-cycle-accurate): b11001000 = EEN,
	 * b10001010 = NE. */
	static const uint8_t b[] = { 0xc8, 0x8a };
	struct etm3_packet *p;
	char s[17];

	(void)state;
	p = decode_body(0, IDR(5), 0, b, sizeof(b), &R);
	assert_int_equal(R.n, 3);
	assert_string_equal(atoms(&p[0], s), "EEN");
	assert_int_equal(p[0].u.atoms.instr, 3);
	assert_int_equal(p[0].u.atoms.format, 1);
	assert_string_equal(atoms(&p[1], s), "NE");
	assert_int_equal(p[1].u.atoms.format, 2);
}

static void test_example_7_2(void **state)
{
	/* Q Example 7.2 (cycle-accurate): b11001000 = WEWEWN,
	 * b10001010 = WNE, b11101000 = WWWE. */
	static const uint8_t b[] = { 0xc8, 0x8a, 0xe8 };
	struct etm3_packet *p;
	char s[17];

	(void)state;
	p = decode_body(CR_CA, IDR(5), 0, b, sizeof(b), &R);
	assert_int_equal(R.n, 4);
	assert_string_equal(atoms(&p[0], s), "WEWEWN");
	assert_int_equal(p[0].u.atoms.cycles, 3);
	assert_int_equal(p[0].u.atoms.instr, 3);
	assert_string_equal(atoms(&p[1], s), "WNE");
	assert_string_equal(atoms(&p[2], s), "WWWE");
	assert_int_equal(p[2].u.atoms.format, 3);
	assert_int_equal(p[2].u.atoms.cycles, 3);
}

static void test_p_header_extremes(void **state)
{
	/* Non-CA format 1 b1NEEEE00: 0xfc = 15 E then N; 0x80 = no atom.
	 * CA format 1 0x9c = 7 x WE; format 3 0xfc = 8 W then E (WWW + 1). */
	static const uint8_t plain[] = { 0xfc, 0x80 };
	static const uint8_t ca[] = { 0x9c, 0xfc, 0xc0 };
	struct etm3_packet *p;
	char s[17];

	(void)state;
	p = decode_body(0, IDR(5), 0, plain, sizeof(plain), &R);
	assert_string_equal(atoms(&p[0], s), "EEEEEEEEEEEEEEEN");
	assert_int_equal(p[0].u.atoms.count, 16);
	assert_string_equal(atoms(&p[1], s), "");
	p = decode_body(CR_CA, IDR(5), 0, ca, sizeof(ca), &R);
	assert_string_equal(atoms(&p[0], s), "WEWEWEWEWEWEWE");
	assert_string_equal(atoms(&p[1], s), "WWWWWWWWE");
	assert_int_equal(p[1].u.atoms.cycles, 8);
	assert_string_equal(atoms(&p[2], s), "WN"); /* b1N0EEE00, EEE = 0 */
}

static void test_format4_by_version(void **state)
{
	/* Q Table 7.4: format 4 b10010F10 from ETMv3.3: 0x92 = E, 0x96 = N;
	 * reserved in ETMv3.2, where the decoder reports it and resyncs. */
	static const uint8_t b[] = { 0x92, 0x96 };
	struct etm3_packet *p;
	char s[17];

	(void)state;
	p = decode_body(CR_CA, IDR(3), 0, b, sizeof(b), &R);
	assert_string_equal(atoms(&p[0], s), "E");
	assert_int_equal(p[0].u.atoms.cycles, 0);
	assert_int_equal(p[0].u.atoms.format, 4);
	assert_string_equal(atoms(&p[1], s), "N");
	p = decode_body(CR_CA, IDR(2), 0, b, sizeof(b), &R);
	assert_int_equal(p[0].type, etm3_pkt_reserved);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[1].type, etm3_pkt_unsynced); /* 0x96 */
	assert_int_equal(p[1].length, 1);
	/* Not cycle-accurate: 0x92 is reserved in every version. */
	p = decode_body(0, IDR(5), 0, b, 1, &R);
	assert_int_equal(p[0].type, etm3_pkt_reserved);
}

static void test_format0_by_version(void **state)
{
	/* Q Table 7.3: 0x80 = format 0 (one W) in ETMv3.0 only. */
	static const uint8_t b[] = { 0x80 };
	struct etm3_packet *p;
	char s[17];

	(void)state;
	p = decode_body(CR_CA, IDR(0), 0, b, 1, &R);
	assert_string_equal(atoms(&p[0], s), "W");
	assert_int_equal(p[0].u.atoms.format, 0);
	p = decode_body(CR_CA, IDR(1), 0, b, 1, &R);
	assert_int_equal(p[0].type, etm3_pkt_reserved);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
}

static void test_reserved_p_headers(void **state)
{
	/* b1001xx10, b101xxx10, b11xxxx10 are reserved in both modes. */
	static const uint8_t hdrs[] = { 0x92, 0x9a, 0xa2, 0xbe, 0xc2, 0xfe };

	(void)state;
	for (size_t i = 0; i < sizeof(hdrs); i++) {
		struct etm3_packet *p = decode_body(0, IDR(5), 0, &hdrs[i], 1, &R);

		assert_int_equal(p[0].type, etm3_pkt_reserved);
	}
	/* Cycle-accurate: 0x9a (b10011x10) and 0xa2 reserved, 0x92 is not. */
	assert_int_equal(decode_body(CR_CA, IDR(5), 0, &hdrs[1], 1, &R)[0].type,
			 etm3_pkt_reserved);
	assert_int_equal(decode_body(CR_CA, IDR(5), 0, &hdrs[2], 1, &R)[0].type,
			 etm3_pkt_reserved);
}


/* ---- I-sync ---------------------------------------------------------------- */

static void test_isync_tc2(void **state)
{
	/* From the TC2 capture, checked against DS-5 (etmv3.md 4.4):
	 * 08 01 5d 11 02 c0: periodic, Thumb, 0xc002115c;
	 * 70 8f 3c 21 99 f6 04 c0: CC 0x0f + 0x3c << 7 = 7695, trace on,
	 * 0xc004f698 Thumb. */
	static const uint8_t b[] = { 0x08, 0x01, 0x5d, 0x11, 0x02, 0xc0,
				     0x70, 0x8f, 0x3c, 0x21, 0x99, 0xf6, 0x04, 0xc0 };
	struct etm3_packet *p;

	(void)state;
	p = decode_body(CR_CA, IDR(5), 0, b, sizeof(b), &R);
	assert_int_equal(p[0].type, etm3_pkt_i_sync);
	assert_int_equal(p[0].length, 6);
	assert_int_equal(p[0].u.isync.reason, etm3_reason_periodic);
	assert_int_equal(p[0].u.isync.addr, 0xc002115c);
	assert_int_equal(p[0].u.isync.isa, etmkit_isa_thumb);
	assert_int_equal(p[1].type, etm3_pkt_i_sync_cycle);
	assert_int_equal(p[1].length, 8);
	assert_int_equal(p[1].u.isync.cycles, 7695);
	assert_int_equal(p[1].u.isync.reason, etm3_reason_trace_on);
	assert_int_equal(p[1].u.isync.addr, 0xc004f698);
}

static void test_isync_states_and_bits(void **state)
{
	/* Info byte: [6:5] reason, [4] J, [3] NS, [2] AltISA, [1] Hyp
	 * (Q 7.10.5, Table 7.20). */
	static const uint8_t arm_ns_hyp[] = { 0x08, 0x4a, 0x00, 0x10, 0x00, 0x80 };
	static const uint8_t thumbee[] = { 0x08, 0x64, 0x03, 0x10, 0x00, 0x80 };
	static const uint8_t jazelle[] = { 0x08, 0x30, 0x03, 0x10, 0x00, 0x80 };
	static const uint8_t reserved[] = { 0x08, 0x04, 0x00, 0x10, 0x00, 0x80 };
	uint32_t ccer = ETM3_ETMCCER_VIRT_EXT;
	struct etm3_packet *p;

	(void)state;
	p = decode_body(0, IDR(5), ccer, arm_ns_hyp, 6, &R);
	assert_int_equal(p[0].u.isync.isa, etmkit_isa_arm);
	assert_int_equal(p[0].u.isync.reason, etm3_reason_overflow);
	assert_int_equal(p[0].u.isync.ns, 1);
	assert_int_equal(p[0].u.isync.hyp, 1);
	assert_int_equal(p[0].u.isync.addr, 0x80001000);
	/* Without the Virtualization Extensions there is no Hyp bit. */
	p = decode_body(0, IDR(5), 0, arm_ns_hyp, 6, &R);
	assert_int_equal(p[0].u.isync.hyp, 0);
	p = decode_body(0, IDR(5), 0, thumbee, 6, &R);
	assert_int_equal(p[0].u.isync.isa, etmkit_isa_thumbee);
	assert_int_equal(p[0].u.isync.reason, etm3_reason_debug_exit);
	assert_int_equal(p[0].u.isync.addr, 0x80001002);
	/* Before ETMv3.3 bit 2 is not AltISA: plain Thumb. */
	p = decode_body(0, IDR(2), 0, thumbee, 6, &R);
	assert_int_equal(p[0].u.isync.isa, etmkit_isa_thumb);
	/* Jazelle: bit 0 is an address bit. */
	p = decode_body(0, IDR(5), 0, jazelle, 6, &R);
	assert_int_equal(p[0].u.isync.isa, etmkit_isa_jazelle);
	assert_int_equal(p[0].u.isync.addr, 0x80001003);
	/* A reserved J/T/AltISA combination is a malformed I-sync; the record
	 * ends at its first zero byte, where the A-sync search restarts. */
	p = decode_body(0, IDR(5), 0, reserved, 6, &R);
	assert_int_equal(p[0].type, etm3_pkt_i_sync);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].length, 2);
	assert_int_equal(p[1].type, etm3_pkt_unsynced);
}

static void test_context_id_sizes(void **state)
{
	/* ETMCR[15:14] = 1, 2, 3 gives 1, 2, 4 context ID bytes, in the
	 * I-sync (before the info byte) and in the Context ID packet 0x6E. */
	static const struct { uint32_t cr; unsigned n; uint32_t v; } c[] = {
		{ 1u << 14, 1, 0x44 }, { 2u << 14, 2, 0x3344 },
		{ 3u << 14, 4, 0x11223344 },
	};

	(void)state;
	for (int i = 0; i < 3; i++) {
		uint8_t b[32];
		size_t k = 0;
		struct etm3_packet *p;

		b[k++] = 0x08;
		memcpy(b + k, "\x44\x33\x22\x11", c[i].n);
		k += c[i].n;
		b[k++] = 0x20; /* trace on */
		memcpy(b + k, "\x00\x10\x00\x80", 4);
		k += 4;
		b[k++] = 0x6e;
		memcpy(b + k, "\x44\x33\x22\x11", c[i].n);
		k += c[i].n;
		b[k++] = 0x84;
		p = decode_body(c[i].cr, IDR(5), 0, b, k, &R);
		assert_int_equal(p[0].type, etm3_pkt_i_sync);
		assert_int_equal(p[0].u.isync.context_id_bytes, c[i].n);
		assert_int_equal(p[0].u.isync.context_id, c[i].v);
		assert_int_equal(p[0].u.isync.addr, 0x80001000);
		assert_int_equal(p[1].type, etm3_pkt_context_id);
		assert_int_equal(p[1].length, 1 + c[i].n);
		assert_int_equal(p[1].u.context_id, c[i].v);
		assert_int_equal(p[2].type, etm3_pkt_p_header);
	}
}

static void test_lsip(void **state)
{
	/* LSiP (info bit 7): data instruction at 0x80001000 (ARM), then the
	 * current address compressed like a branch against it: 0x09 carries
	 * A[7:2] = 4, giving 0x80001010 (seed 003, Q 7.10.5). */
	static const uint8_t b[] = { 0x08, 0xa0, 0x00, 0x10, 0x00, 0x80, 0x09,
				     0x84 };
	/* With cycle count, and the 6-byte form: five address bytes (Thumb
	 * 0x90002000 | T) and an information byte with NS = 1. */
	static const uint8_t c[] = { 0x70, 0x05, 0xa0, 0x01, 0x20, 0x00, 0x90,
				     0x81, 0x80, 0x80, 0x80, 0x59, 0x01, 0x84 };
	struct etm3_packet *p;

	(void)state;
	p = decode_body(CR_CA, IDR(5), 0, b, sizeof(b), &R);
	assert_int_equal(p[0].type, etm3_pkt_i_sync);
	assert_int_equal(p[0].length, 7);
	assert_true(p[0].u.isync.lsip);
	assert_int_equal(p[0].u.isync.addr, 0x80001000);
	assert_int_equal(p[0].u.isync.lsip_next.addr, 0x80001010);
	assert_int_equal(p[0].u.isync.lsip_next.isa, etmkit_isa_arm);
	assert_int_equal(p[1].type, etm3_pkt_p_header);

	p = decode_body(CR_CA, IDR(5), 0, c, sizeof(c), &R);
	assert_int_equal(p[0].type, etm3_pkt_i_sync_cycle);
	assert_int_equal(p[0].length, 13);
	assert_int_equal(p[0].u.isync.cycles, 5);
	assert_int_equal(p[0].u.isync.isa, etmkit_isa_thumb);
	assert_int_equal(p[0].u.isync.addr, 0x90002000);
	/* 5th byte 0x59 = b0101 1001: exception bytes follow, Thumb,
	 * A[31:28] = 9; low bytes give A[27:1] = 0 -> 0x90000000. */
	assert_int_equal(p[0].u.isync.lsip_next.addr, 0x90000000);
	assert_int_equal(p[0].u.isync.lsip_next.addr_bytes, 5);
	assert_int_equal(p[0].u.isync.lsip_next.exc_bytes, 1);
	assert_int_equal(p[0].u.isync.lsip_next.ns, 1);
	assert_int_equal(p[0].u.isync.lsip_next.exception, 0);
	assert_int_equal(p[1].type, etm3_pkt_p_header);
}

static void test_lsip_state_carries_on(void **state)
{
	/* An LSiP I-sync (Thumb) whose compressed address has a state byte
	 * with AltISA = 1 (0x40): the current instruction is ThumbEE, and
	 * so is the next one-byte branch (0x05: A[6:1] = 2). The exception
	 * form of the 5th byte is not allowed in an LSiP address. */
	static const uint8_t b[] = { 0x08, 0xa0, 0x01, 0x10, 0x00, 0x80,
				     0x83, 0x80, 0x80, 0x80, 0x58, 0x40, 0x05 };
	static const uint8_t c[] = { 0x08, 0xa0, 0x00, 0x10, 0x00, 0x80,
				     0x81, 0x80, 0x80, 0x80, 0xc9 };
	struct etm3_packet *p;

	(void)state;
	p = decode_body(0, IDR(5), 0, b, sizeof(b), &R);
	assert_int_equal(p[0].u.isync.lsip_next.isa, etmkit_isa_thumbee);
	assert_int_equal(p[0].u.isync.lsip_next.addr, 0x80000002);
	assert_int_equal(p[1].type, etm3_pkt_branch_address);
	assert_int_equal(p[1].u.branch.isa, etmkit_isa_thumbee);
	assert_int_equal(p[1].u.branch.addr, 0x80000004);
	p = decode_body(0, IDR(5), 0, c, sizeof(c), &R);
	assert_int_equal(p[0].type, etm3_pkt_i_sync);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].length, 2); /* up to its first zero byte */
}

static void test_data_only_isync(void **state)
{
	/* ETMCR[20]: the I-sync is header, [context ID], info byte. */
	static const uint8_t b[] = { 0x08, 0x0a, 0x02, 0x84 };
	struct etm3_packet *p;

	(void)state;
	p = decode_body(ETM3_ETMCR_DATA_ONLY | CR_DATA, IDR(5),
			ETM3_ETMCCER_VIRT_EXT, b, 3, &R);
	assert_int_equal(p[0].type, etm3_pkt_i_sync);
	assert_int_equal(p[0].length, 2);
	assert_true(p[0].u.isync.data_only);
	assert_int_equal(p[0].u.isync.ns, 1);
	assert_int_equal(p[0].u.isync.hyp, 1);
	assert_int_equal(p[1].type, etm3_pkt_normal_data);
}

/* ---- Branch addresses ------------------------------------------------------ */

/* A-sync, I-sync at @addr (Thumb if T), then @body. */
static struct etm3_packet *after_isync(uint32_t cr, uint32_t idr, uint32_t addr,
				       const uint8_t *body, size_t len)
{
	uint8_t b[128];

	b[0] = 0x08;
	b[1] = 0x20;
	b[2] = addr & 0xff;
	b[3] = (addr >> 8) & 0xff;
	b[4] = (addr >> 16) & 0xff;
	b[5] = addr >> 24;
	memcpy(b + 6, body, len);
	return decode_body(cr, idr, ETM3_ETMCCER_VIRT_EXT, b, len + 6, &R) + 1;
}

static void test_branch_original_tc2(void **state)
{
	/* TC2: Thumb, b7 fd d6 01 -> A[6:1] 0x1b, A[13:7] 0x7d, A[20:14]
	 * 0x56, A[27:21] 0x01 -> 0xc035beb6 with the top nibble kept; then
	 * 81 6d -> A[13:0] = 0x3680 over that: 0xc035b680; then 9b d8 87 80 08: 5 bytes, ARM,
	 * A[31:29] = 0 -> 0x0003d834. */
	static const uint8_t b[] = { 0xb7, 0xfd, 0xd6, 0x01, 0x81, 0x6d,
				     0x9b, 0xd8, 0x87, 0x80, 0x08 };
	struct etm3_packet *p;

	(void)state;
	p = after_isync(CR_CA, IDR(5), 0xc004f699, b, sizeof(b));
	assert_int_equal(p[0].type, etm3_pkt_branch_address);
	assert_int_equal(p[0].length, 4);
	assert_int_equal(p[0].u.branch.addr, 0xc035beb6);
	assert_int_equal(p[0].u.branch.addr_bits, 28);
	assert_int_equal(p[1].u.branch.addr, 0xc035b680);
	assert_int_equal(p[1].u.branch.addr_bits, 14);
	assert_int_equal(p[2].length, 5);
	assert_int_equal(p[2].u.branch.addr, 0x0003d834);
	assert_int_equal(p[2].u.branch.isa, etmkit_isa_arm);
	assert_true(p[2].u.branch.isa_change);
}

static void test_branch_arm_one_byte(void **state)
{
	/* After a 5-byte ARM branch to 0x0003d834, 0x11 carries A[7:2] = 8:
	 * 0x0003d820. */
	static const uint8_t b[] = { 0x9b, 0xd8, 0x87, 0x80, 0x08, 0x11 };
	struct etm3_packet *p;

	(void)state;
	p = after_isync(0, IDR(5), 0xc0000000, b, sizeof(b));
	assert_int_equal(p[1].type, etm3_pkt_branch_address);
	assert_int_equal(p[1].length, 1);
	assert_int_equal(p[1].u.branch.addr, 0x0003d820);
	assert_int_equal(p[1].u.branch.addr_bits, 8);
}

static void test_branch_alternative_encoding(void **state)
{
	/* ETMv3.4+ with ETMIDR[20]: final byte 1-3 has 6 address bits and
	 * bit 6 flags exception bytes. 81 45 1d: A[7:2] = 0, A[13:8] = 5,
	 * exception byte 0x1d: Exc = 14 (IRQ), NS = 1. */
	static const uint8_t b[] = { 0x81, 0x45, 0x1d, 0x84 };
	struct etm3_packet *p;

	(void)state;
	p = after_isync(0, IDR_ALT(4), 0x80000000, b, sizeof(b));
	assert_int_equal(p[0].type, etm3_pkt_branch_address);
	assert_int_equal(p[0].length, 3);
	assert_int_equal(p[0].u.branch.addr, 0x80000500);
	assert_int_equal(p[0].u.branch.exc_bytes, 1);
	assert_int_equal(p[0].u.branch.exception, 14);
	assert_int_equal(p[0].u.branch.ns, 1);
	assert_int_equal(p[0].u.branch.cancel, 0);
	assert_string_equal(etm3_exception_name(14, 0), "irq");
	assert_int_equal(p[1].type, etm3_pkt_p_header);
	/* The same bytes in the original encoding: 0x45 is 7 address bits
	 * (A[14:8]) and 0x1d is a new one-byte branch packet with
	 * A[7:2] = 0x0e. */
	p = after_isync(0, IDR(4), 0x80000000, b, sizeof(b));
	assert_int_equal(p[0].length, 2);
	assert_int_equal(p[0].u.branch.addr, 0x80004500);
	assert_int_equal(p[0].u.branch.exc_bytes, 0);
	assert_int_equal(p[1].type, etm3_pkt_branch_address);
	assert_int_equal(p[1].u.branch.addr, 0x80004538);
	/* ETMIDR[20] is ignored before ETMv3.4. */
	p = after_isync(0, IDR_ALT(3), 0x80000000, b, sizeof(b));
	assert_int_equal(p[0].length, 2);
}

static void test_branch_exception_bytes(void **state)
{
	/* ARMv7-M: exception 21 (BusFault) needs byte 1: byte 0 = C|Cancel|
	 * Exc[3:0]=5 -> 0x80|0x20|0x0a = 0xaa; byte 1 = Exc[8:4] = 1 -> 0x01.
	 * Then a resume byte directly after byte 0: 0x80 | ... then 0x43.
	 * Alternative encoding, Thumb, 2 address bytes. */
	static const uint8_t b[] = { 0x83, 0x41, 0xaa, 0x01,
				     0x83, 0x41, 0x80, 0x43,
				     0x83, 0x41, 0x82, 0x81, 0x47 };
	struct etm3_packet *p;

	(void)state;
	p = after_isync(0, IDR_ALT(4), 0x00001001, b, sizeof(b));
	assert_int_equal(p[0].length, 4);
	assert_int_equal(p[0].u.branch.exception, 21);
	assert_int_equal(p[0].u.branch.cancel, 1);
	assert_int_equal(p[0].u.branch.exc_bytes, 2);
	assert_string_equal(etm3_exception_name(21, 1), "bus_fault");
	assert_int_equal(p[0].u.branch.addr, 0x00000082);
	assert_int_equal(p[1].length, 4);
	assert_int_equal(p[1].u.branch.exception, 0);
	assert_true(p[1].u.branch.has_resume);
	assert_int_equal(p[1].u.branch.resume, 3);
	assert_int_equal(p[2].length, 5);
	assert_int_equal(p[2].u.branch.exception, 17); /* 1 + (1 << 4) */
	assert_true(p[2].u.branch.has_resume);
	assert_int_equal(p[2].u.branch.resume, 7);
	assert_int_equal(p[2].u.branch.exc_bytes, 3);
}

static void test_branch_security_change_and_5th_byte(void **state)
{
	/* 6-byte form: ARM 5-byte address with bit 6 set in the 5th byte
	 * (0x4d = b0100 1101: ARM, A[31:29] = 5) and an information byte
	 * 0x01: no exception, NS = 1. Then a Jazelle 5th byte 0x3f:
	 * A[31:27] = 0x1f; and a malformed 5th byte 0x07. */
	static const uint8_t b[] = { 0x81, 0x80, 0x80, 0x80, 0x4d, 0x01,
				     0xff, 0xff, 0xff, 0xff, 0x3f,
				     0x81, 0x80, 0x80, 0x80, 0x07 };
	struct etm3_packet *p;

	(void)state;
	p = after_isync(0, IDR(5), 0x80000000, b, sizeof(b));
	assert_int_equal(p[0].length, 6);
	assert_int_equal(p[0].u.branch.addr, 0xa0000000);
	assert_int_equal(p[0].u.branch.ns, 1);
	assert_int_equal(p[0].u.branch.exception, 0);
	assert_int_equal(p[1].length, 5);
	assert_int_equal(p[1].u.branch.isa, etmkit_isa_jazelle);
	assert_int_equal(p[1].u.branch.addr, 0xffffffff);
	assert_int_equal(p[2].type, etm3_pkt_branch_address);
	assert_int_equal(p[2].error, -etmkit_err_bad_packet);
	assert_int_equal(p[2].length, 5);
}

static void test_branch_thumbee_altisa(void **state)
{
	/* Exception byte 0 AltISA = 1 on a Thumb target: ThumbEE. 5th byte
	 * 0x51 = Thumb, bit 6 set, A[31:28] = 1; byte 0 = 0x40. */
	static const uint8_t b[] = { 0x83, 0x80, 0x80, 0x80, 0x51, 0x40 };
	struct etm3_packet *p;

	(void)state;
	p = after_isync(0, IDR(5), 0x80000000, b, sizeof(b));
	assert_int_equal(p[0].u.branch.isa, etmkit_isa_thumbee);
	assert_int_equal(p[0].u.branch.addr, 0x10000002);
}

static void test_branch_deprecated_exception(void **state)
{
	/* Original encoding, 5th byte b1XEEEaaa (digest etmv3.md 4.5.3,
	 * UNCONFIRMED layout): 0xc9 = cancel, code 1 (IRQ), A[31:29] = 1. */
	static const uint8_t b[] = { 0x81, 0x80, 0x80, 0x80, 0xc9, 0x84 };
	struct etm3_packet *p;

	(void)state;
	p = after_isync(0, IDR(5), 0x80000000, b, sizeof(b));
	assert_int_equal(p[0].length, 5);
	assert_true(p[0].u.branch.exc_in_addr);
	assert_int_equal(p[0].u.branch.cancel, 1);
	assert_int_equal(p[0].u.branch.legacy_exception, 1);
	assert_string_equal(etm3_legacy_exception_name(1), "irq");
	assert_int_equal(p[0].u.branch.exception, 0);
	assert_int_equal(p[0].u.branch.addr, 0x20000000);
	assert_int_equal(p[1].type, etm3_pkt_p_header);
}

/* ---- Other instruction-trace packets ---------------------------------------- */

static void test_timestamps(void **state)
{
	/* TC2 (64-bit, binary), checked against DS-5: 42 bd 9a c3 ce af 90
	 * 80 80 00 = 0x82f9d0cd3d; then 42 df 1e replaces 14 bits:
	 * 0x82f9d0cf5f; 46 sets the clock-change bit. */
	static const uint8_t b[] = { 0x42, 0xbd, 0x9a, 0xc3, 0xce, 0xaf, 0x90,
				     0x80, 0x80, 0x00, 0x42, 0xdf, 0x1e, 0x46,
				     0x01 };
	/* 48-bit: the 7th byte holds 6 bits and has no continuation bit. */
	static const uint8_t c[] = { 0x42, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				     0xff, 0x84 };
	struct etm3_packet *p;

	(void)state;
	p = decode_body(CR_CA, IDR(5), CCER_TS64, b, sizeof(b), &R);
	assert_int_equal(p[0].type, etm3_pkt_timestamp);
	assert_int_equal(p[0].length, 10);
	assert_int_equal(p[0].u.timestamp.value, 0x82f9d0cd3dull);
	assert_int_equal(p[1].length, 3);
	assert_int_equal(p[1].u.timestamp.value, 0x82f9d0cf5full);
	assert_int_equal(p[1].u.timestamp.bits, 14);
	assert_int_equal(p[2].u.timestamp.clock_change, 1);
	assert_int_equal(p[2].u.timestamp.value, 0x82f9d0cf01ull);
	p = decode_body(CR_CA, IDR(5), ETM3_ETMCCER_TIMESTAMP | ETM3_ETMCCER_TS_BINARY,
			c, sizeof(c), &R);
	assert_int_equal(p[0].length, 8);
	assert_int_equal(p[0].u.timestamp.value, 0xffffffffffffull);
	assert_int_equal(p[1].type, etm3_pkt_p_header);
	/* Timestamps are ETMv3.5 with timestamping implemented (ETMCCER[22]):
	 * 0x42 is reserved in ETMv3.4 and without ETMCCER[22]. */
	p = decode_body(CR_CA, IDR(4), CCER_TS64, b, 3, &R);
	assert_int_equal(p[0].type, etm3_pkt_reserved);
	p = decode_body(CR_CA, IDR(5), CCER_TS64 & ~ETM3_ETMCCER_TIMESTAMP, b, 3, &R);
	assert_int_equal(p[0].type, etm3_pkt_reserved);
}

static void test_timestamp_gray(void **state)
{
	/* ETMCCER[28] = 0: Gray code. Gray 0b110 (6) is binary 0b100 (4);
	 * Q 7.7.3: binary bit n = XOR of Gray bits n and above. */
	static const uint8_t b[] = { 0x42, 0x06 };
	struct etm3_packet *p;

	(void)state;
	p = decode_body(0, IDR(5), ETM3_ETMCCER_TIMESTAMP | ETM3_ETMCCER_TS_64BIT,
			b, sizeof(b), &R);
	assert_int_equal(p[0].u.timestamp.value, 4);
}

static void test_cycle_count(void **state)
{
	/* Q 7.3.4: 04 8f 3c = 7695; five bytes 04 ff ff ff ff 0f = 2^32-1. */
	static const uint8_t b[] = { 0x04, 0x8f, 0x3c, 0x04, 0xff, 0xff, 0xff,
				     0xff, 0x0f, 0x84 };
	struct etm3_packet *p;

	(void)state;
	p = decode_body(CR_CA, IDR(5), 0, b, sizeof(b), &R);
	assert_int_equal(p[0].type, etm3_pkt_cycle_count);
	assert_int_equal(p[0].u.cycles, 7695);
	assert_int_equal(p[1].length, 6);
	assert_int_equal(p[1].u.cycles, 0xffffffffu);
	assert_int_equal(p[2].type, etm3_pkt_p_header);
}

static void test_single_byte_packets(void **state)
{
	static const uint8_t b[] = { 0x0c, 0x66, 0x76, 0x7e, 0x3c, 0x2a, 0x84 };
	struct etm3_packet *p;
	struct etm3_pkt_decoder *dec;

	(void)state;
	/* An ARMv7-M core at ETMv3.5: all of them. */
	{
		static uint8_t buf[32];
		struct etm3_config cfg;

		memcpy(buf, async6, 6);
		memcpy(buf + 6, b, sizeof(b));
		etm3_config_init(&cfg);
		cfg.etmcr = CR_CA;
		cfg.etmidr = IDR(5);
		cfg.flags = ETM3_CFG_M_PROFILE;
		assert_int_equal(etm3_pkt_alloc(&dec, &cfg), 0);
		memset(&R, 0, sizeof(R));
		etm3_pkt_feed(dec, buf, 6 + sizeof(b), NULL, 0);
		drain(dec, &R, 8);
		etm3_pkt_free(dec);
		p = &R.p[1];
	}
	assert_int_equal(p[0].type, etm3_pkt_trigger);
	assert_int_equal(p[1].type, etm3_pkt_ignore);
	assert_int_equal(p[2].type, etm3_pkt_exception_exit);
	assert_int_equal(p[3].type, etm3_pkt_exception_entry);
	assert_int_equal(p[4].type, etm3_pkt_vmid);
	assert_int_equal(p[4].length, 2);
	assert_int_equal(p[4].u.vmid, 0x2a);
	assert_int_equal(p[5].type, etm3_pkt_p_header);
	/* VMID is ETMv3.5. Exception exit: ETMv3.5, or ETMv3.4 on ARMv7-M;
	 * exception entry: ARMv7-M only (Q 7.5, 7.6). */
	p = decode_body(CR_CA, IDR(4), 0, b + 4, 1, &R);
	assert_int_equal(p[0].type, etm3_pkt_reserved);
	p = decode_body(CR_CA, IDR(4), 0, b + 2, 1, &R);
	assert_int_equal(p[0].type, etm3_pkt_reserved);
	p = decode_body(CR_CA, IDR(5), 0, b + 2, 2, &R);
	assert_int_equal(p[0].type, etm3_pkt_exception_exit);
	assert_int_equal(p[1].type, etm3_pkt_reserved); /* 0x7e, not ARMv7-M */
}

/* ---- Data trace --------------------------------------------------------------- */

static void test_normal_data(void **state)
{
	/* 0x2e = b00101110: A = 1, SS = 11 (4 bytes). Address 5 bytes:
	 * 0x80 | 0x11, 0x80 | 0x22, 0x80 | 0x33, 0x80 | 0x44, 0x1a (BE in
	 * bit 4, A[31:28] = 0xa); value 78 56 34 12. Then 0x26 (A = 1, SS =
	 * 01) with a 1-byte address 0x05 and value 0xff; then 0x22 (A = 1,
	 * SS = 00): an address and the value 0, no byte; then 0x02 (A = 0,
	 * SS = 00). */
	static const uint8_t b[] = { 0x2e, 0x91, 0xa2, 0xb3, 0xc4, 0x1a, 0x78,
				     0x56, 0x34, 0x12, 0x26, 0x05, 0xff, 0x22,
				     0x06, 0x02, 0x84 };
	uint32_t a = 0x11 | 0x22u << 7 | 0x33u << 14 | 0x44u << 21 | 0xau << 28;
	struct etm3_packet *p;

	(void)state;
	p = decode_body(CR_DATA, IDR(5), 0, b, sizeof(b), &R);
	assert_int_equal(p[0].type, etm3_pkt_normal_data);
	assert_int_equal(p[0].length, 10);
	assert_int_equal(p[0].u.data.addr, a);
	assert_int_equal(p[0].u.data.be, 1);
	assert_int_equal(p[0].u.data.value, 0x12345678);
	assert_int_equal(p[0].u.data.size, 4);
	assert_int_equal(p[1].length, 3);
	assert_int_equal(p[1].u.data.addr, (a & ~0x7fu) | 0x05);
	assert_int_equal(p[1].u.data.be, 1); /* kept from the 5-byte address */
	assert_int_equal(p[1].u.data.value, 0xff);
	assert_int_equal(p[1].u.data.size, 1);
	assert_int_equal(p[2].length, 2);
	assert_true(p[2].u.data.has_addr);
	assert_int_equal(p[2].u.data.size, 0);
	assert_int_equal(p[3].length, 1);
	assert_false(p[3].u.data.has_addr);
	assert_int_equal(p[4].type, etm3_pkt_p_header);
}

static void test_data_fields_follow_etmcr(void **state)
{
	/* Address tracing off: A = 1 carries no address. Value tracing off:
	 * SS carries no value. */
	static const uint8_t b[] = { 0x2e, 0x78, 0x56, 0x34, 0x12, 0x84 };
	static const uint8_t c[] = { 0x2e, 0x05, 0x84 };
	struct etm3_packet *p;

	(void)state;
	p = decode_body(ETM3_ETMCR_DATA_VALUE, IDR(5), 0, b, sizeof(b), &R);
	assert_int_equal(p[0].length, 5);
	assert_false(p[0].u.data.has_addr);
	assert_int_equal(p[0].u.data.value, 0x12345678);
	p = decode_body(ETM3_ETMCR_DATA_ADDR, IDR(5), 0, c, sizeof(c), &R);
	assert_int_equal(p[0].length, 2);
	assert_int_equal(p[0].u.data.addr, 5);
	assert_int_equal(p[0].u.data.size, 0);
	assert_int_equal(p[1].type, etm3_pkt_p_header);
	/* Data tracing off altogether: a data header is an error. */
	p = decode_body(0, IDR(5), 0, c, sizeof(c), &R);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
}

/* SS = 00 (header bits [3:2]) with data values traced (ETMCR[2] = 1) is
 * the value 0 with no value byte, not "no value": Q Table 6.3 (seed 001)
 * "b00 | Value = 0, no data bytes follow", unchanged in ETMv3 (Q Table
 * 7.1; digest etmv3.md 4.12 "00 -> none (value 0)"). Only with value
 * tracing off is there no value at all. */
static void test_ss00_is_value_zero_when_values_traced(void **state)
{
	/* 0x22 = b00100010: A = 1, SS = 00, address 0x06; 0x02: A = 0,
	 * SS = 00, nothing follows; then a P-header. */
	static const uint8_t b[] = { 0x22, 0x06, 0x02, 0x84 };
	struct etm3_packet *p;

	(void)state;
	p = decode_body(CR_DATA, IDR(5), 0, b, sizeof(b), &R);
	assert_int_equal(p[0].type, etm3_pkt_normal_data);
	assert_int_equal(p[0].length, 2);
	assert_int_equal(p[0].u.data.addr, 6);
	assert_int_equal(p[0].u.data.has_value, 1);
	assert_int_equal(p[0].u.data.value, 0);
	assert_int_equal(p[0].u.data.size, 0);
	assert_int_equal(p[1].type, etm3_pkt_normal_data);
	assert_int_equal(p[1].length, 1);
	assert_int_equal(p[1].u.data.has_value, 1);
	assert_int_equal(p[1].u.data.value, 0);
	assert_int_equal(p[2].type, etm3_pkt_p_header);
	/* Values not traced (ETMCR[2] = 0): the same bytes carry none. */
	p = decode_body(ETM3_ETMCR_DATA_ADDR, IDR(5), 0, b, sizeof(b), &R);
	assert_int_equal(p[0].type, etm3_pkt_normal_data);
	assert_int_equal(p[0].length, 2);
	assert_int_equal(p[0].u.data.has_value, 0);
	assert_int_equal(p[1].length, 1);
	assert_int_equal(p[1].u.data.has_value, 0);
	assert_int_equal(p[2].type, etm3_pkt_p_header);
	/* SS = 01 with values off: still no value (the SS bits are ignored). */
	p = decode_body(ETM3_ETMCR_DATA_ADDR, IDR(5), 0,
			(const uint8_t[]){ 0x06, 0x84 }, 2, &R);
	assert_int_equal(p[0].length, 1);
	assert_int_equal(p[0].u.data.has_value, 0);
	assert_int_equal(p[1].type, etm3_pkt_p_header);
}

static void test_value_not_traced_and_markers(void **state)
{
	/* 0x7a = b01111010 (A = 1): address 0x10; 0x6a (A = 0): none;
	 * 0x50 store failed; 0x62 data suppressed. */
	static const uint8_t b[] = { 0x7a, 0x10, 0x6a, 0x50, 0x62, 0x84 };
	struct etm3_packet *p;

	(void)state;
	p = decode_body(CR_DATA, IDR(5), 0, b, sizeof(b), &R);
	assert_int_equal(p[0].type, etm3_pkt_value_not_traced);
	assert_int_equal(p[0].length, 2);
	assert_int_equal(p[0].u.data.addr, 0x10);
	assert_int_equal(p[1].type, etm3_pkt_value_not_traced);
	assert_int_equal(p[1].length, 1);
	assert_int_equal(p[2].type, etm3_pkt_store_failed);
	assert_int_equal(p[3].type, etm3_pkt_data_suppressed);
	assert_int_equal(p[4].type, etm3_pkt_p_header);
}

static void test_out_of_order(void **state)
{
	/* Seed 004 (Q 7.4.3). Placeholder b01A1TT00, data b0TT0SS00.
	 *  0x2c        OoO data tag 1, 4 bytes: nothing pending -> ignore
	 *  0x74 0x20   placeholder tag 1 with address 0x20
	 *  0x58        placeholder tag 2, no address
	 *  0x4c ..     data tag 2 (4 bytes) -> matches the tag 2 placeholder
	 *  0x2c ..     data tag 1 -> matches the tag 1 placeholder (addr 0x20)
	 *  0x74 0x30 0x54   two consecutive tag 1 placeholders: 64-bit value
	 *  0x2c .. 0x2c ..  its two halves
	 *  0x2c ..     nothing pending any more -> ignore */
	static const uint8_t b[] = {
		0x2c, 1, 0, 0, 0,
		0x74, 0x20,
		0x58,
		0x4c, 2, 0, 0, 0,
		0x2c, 3, 0, 0, 0,
		0x74, 0x30, 0x54,
		0x2c, 4, 0, 0, 0, 0x2c, 5, 0, 0, 0,
		0x2c, 6, 0, 0, 0, 0x84 };
	struct etm3_packet *p;

	(void)state;
	p = decode_body(CR_DATA, IDR(5), 0, b, sizeof(b), &R);
	assert_int_equal(p[0].type, etm3_pkt_ooo_data);
	assert_int_equal(p[0].u.data.tag, 1);
	assert_false(p[0].u.data.ooo_match);
	assert_int_equal(p[1].type, etm3_pkt_ooo_placeholder);
	assert_int_equal(p[1].u.data.tag, 1);
	assert_int_equal(p[1].u.data.addr, 0x20);
	assert_int_equal(p[2].u.data.tag, 2);
	assert_false(p[2].u.data.has_addr);
	assert_int_equal(p[3].u.data.tag, 2);
	assert_true(p[3].u.data.ooo_match);
	assert_int_equal(p[3].u.data.value, 2);
	assert_int_equal(p[3].u.data.placeholder_offset, p[2].offset);
	assert_int_equal(p[3].u.data.pair, -1);
	assert_true(p[4].u.data.ooo_match);
	assert_int_equal(p[4].u.data.addr, 0x20);
	assert_int_equal(p[4].u.data.placeholder_offset, p[1].offset);
	assert_true(p[7].u.data.ooo_match);
	assert_int_equal(p[7].u.data.pair, 0);
	assert_int_equal(p[7].u.data.addr, 0x30);
	assert_true(p[8].u.data.ooo_match);
	assert_int_equal(p[8].u.data.pair, 1);
	assert_int_equal(p[8].u.data.placeholder_offset, p[5].offset);
	assert_false(p[9].u.data.ooo_match);
	assert_int_equal(p[10].type, etm3_pkt_p_header);
}

static void test_ooo_not_consecutive_is_not_a_pair(void **state)
{
	/* Two tag 1 placeholders with a P-header between them: the second
	 * replaces the first (the most recent placeholder with the tag). */
	static const uint8_t b[] = { 0x74, 0x20, 0x84, 0x74, 0x30, 0x2c, 7, 0,
				     0, 0, 0x2c, 8, 0, 0, 0 };
	struct etm3_packet *p;

	(void)state;
	p = decode_body(CR_DATA | CR_CA, IDR(5), 0, b, sizeof(b), &R);
	assert_int_equal(p[3].type, etm3_pkt_ooo_data);
	assert_true(p[3].u.data.ooo_match);
	assert_int_equal(p[3].u.data.addr, 0x30);
	assert_int_equal(p[3].u.data.pair, -1);
	assert_false(p[4].u.data.ooo_match);
}


static void test_malformed_exception_bytes(void **state)
{
	/* Alternative encoding, 2 address bytes with exception bytes:
	 * byte 0 continues, then a byte with bit 6 set (byte 2) that also
	 * continues: malformed; byte 1 continues into a byte without bit 6:
	 * not a byte 2, malformed. */
	static const uint8_t b[] = { 0x81, 0x40, 0x80, 0xc3 };
	static const uint8_t c[] = { 0x81, 0x40, 0x80, 0x81, 0x01 };
	struct etm3_packet *p;

	(void)state;
	p = after_isync(0, IDR_ALT(4), 0x80000000, b, sizeof(b));
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].length, 4);
	p = after_isync(0, IDR_ALT(4), 0x80000000, c, sizeof(c));
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].length, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example_7_1),
		cmocka_unit_test(test_example_7_2),
		cmocka_unit_test(test_p_header_extremes),
		cmocka_unit_test(test_format4_by_version),
		cmocka_unit_test(test_format0_by_version),
		cmocka_unit_test(test_reserved_p_headers),
		cmocka_unit_test(test_isync_tc2),
		cmocka_unit_test(test_isync_states_and_bits),
		cmocka_unit_test(test_context_id_sizes),
		cmocka_unit_test(test_lsip),
		cmocka_unit_test(test_lsip_state_carries_on),
		cmocka_unit_test(test_data_only_isync),
		cmocka_unit_test(test_branch_original_tc2),
		cmocka_unit_test(test_branch_arm_one_byte),
		cmocka_unit_test(test_branch_alternative_encoding),
		cmocka_unit_test(test_branch_exception_bytes),
		cmocka_unit_test(test_branch_security_change_and_5th_byte),
		cmocka_unit_test(test_branch_thumbee_altisa),
		cmocka_unit_test(test_branch_deprecated_exception),
		cmocka_unit_test(test_timestamps),
		cmocka_unit_test(test_timestamp_gray),
		cmocka_unit_test(test_cycle_count),
		cmocka_unit_test(test_single_byte_packets),
		cmocka_unit_test(test_normal_data),
		cmocka_unit_test(test_data_fields_follow_etmcr),
		cmocka_unit_test(test_ss00_is_value_zero_when_values_traced),
		cmocka_unit_test(test_value_not_traced_and_markers),
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_ooo_not_consecutive_is_not_a_pair),
		cmocka_unit_test(test_malformed_exception_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
