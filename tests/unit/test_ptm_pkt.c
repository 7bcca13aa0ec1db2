/* PTM packet decoder tests: the byte examples of the digest (spec/ptm.md,
 * IHI 0035B chapter 4) with the fields written from the spec, every
 * packet form, compression, chunking, errors and resynchronisation, gaps
 * and truncation. The real captures are test_ptm_pkt_captures.c. */
#include "unit/ptm_pkt_test.h"

static struct prun R;

/* PFTv1.1, TC2's ETMCCER (Virtualization Extensions, 64-bit binary
 * timestamps), cycle-accurate or not. */
#define V11 PIDR(1), PCCER_TC2
/* An I-sync (periodic, Secure) at ARM 0xc0010e00 and at Thumb 0x80000100,
 * to set the address reference and the instruction set. */
#define ISYNC_ARM 0x08, 0x00, 0x0e, 0x01, 0xc0, 0x01
#define ISYNC_THUMB 0x08, 0x01, 0x01, 0x00, 0x80, 0x01

/* Decode @body after an A-sync; returns the record at index @at after the
 * A-sync and checks there are @n records after it. */
static const struct ptm_packet *one(uint32_t cr, uint32_t idr, uint32_t ccer,
				    const uint8_t *body, size_t len, int n, int at)
{
	const struct ptm_packet *p = pdecode_body(cr, idr, ccer, body, len, &R);

	if (R.n - 1 != n)
		fail_msg("%d records after the A-sync, expected %d", R.n - 1, n);
	for (int i = 0; i < n; i++)
		if (p[i].error)
			fail_msg("record %d: error %d (%s)", i, p[i].error,
				 p[i].why ? p[i].why : "");
	return &p[at];
}

/* Independent of the decoder's: binary bit n is the XOR of Gray bits n
 * and above. */
static uint64_t gray_decode(uint64_t g)
{
	uint64_t b = 0;

	for (int i = 63; i >= 0; i--) {
		uint64_t above = i == 63 ? 0 : (b >> (i + 1)) & 1;

		b |= (((g >> i) & 1) ^ above) << i;
	}
	return b;
}

/* ---- Configuration --------------------------------------------------------- */

static void test_config(void **state)
{
	struct ptm_config c;
	struct ptm_config_info ci;
	struct ptm_pkt_decoder *dec;

	(void)state;
	assert_true(ptm_etmidr_is_ptm(0x411cf312)); /* TC2 A15 PTM */
	assert_true(ptm_etmidr_is_ptm(0x411cf301)); /* Snowball A9 PTM */
	assert_false(ptm_etmidr_is_ptm(0x410cf250)); /* ETMv3.5 */
	assert_false(ptm_etmidr_is_ptm(0x4100f403)); /* ETMv4 TRCIDR1 */
	ptm_config_init(&c);
	assert_int_equal(c.size, sizeof(c));
	/* TC2 PTM 0x13: ETMCR 0x10001000 (cycle-accurate, timestamps). */
	c.etmcr = 0x10001000;
	c.etmidr = 0x411cf312;
	c.etmccer = 0x34c01ac2;
	assert_int_equal(ptm_config_decode(&c, &ci), 0);
	assert_int_equal(ci.major, 1);
	assert_int_equal(ci.minor, 1);
	assert_int_equal(ci.cycle_accurate, 1);
	assert_int_equal(ci.context_id_bytes, 0);
	assert_int_equal(ci.timestamps, 1);
	assert_int_equal(ci.ts_bits, 64);      /* ETMCCER[29] */
	assert_int_equal(ci.ts_binary, 1);     /* ETMCCER[28] */
	assert_int_equal(ci.virt_ext, 1);      /* ETMCCER[26] */
	assert_int_equal(ci.return_stack, 0);
	/* tc2-ptm-rstk-t32: ETMCR 0x20000400, return stack (bit 29). */
	c.etmcr = 0x20000400;
	assert_int_equal(ptm_config_decode(&c, &ci), 0);
	assert_int_equal(ci.cycle_accurate, 0);
	assert_int_equal(ci.return_stack, 1);
	/* ContextIDsize 00/01/10/11 -> 0/1/2/4 bytes (4.5.7), broadcast,
	 * VMID. */
	for (unsigned sz = 0; sz < 4; sz++) {
		static const uint8_t bytes[4] = { 0, 1, 2, 4 };

		c.etmcr = PCR_CID(sz) | PTM_ETMCR_BRANCH_BROADCAST | PTM_ETMCR_VMID;
		assert_int_equal(ptm_config_decode(&c, &ci), 0);
		assert_int_equal(ci.context_id_bytes, bytes[sz]);
		assert_int_equal(ci.branch_broadcast, 1);
		assert_int_equal(ci.vmid, 1);
	}
	/* PFTv1.0: ETMCCER[29:28] RAZ, so 48-bit Gray whatever they read. */
	c.etmidr = 0x411cf301;
	assert_int_equal(ptm_config_decode(&c, &ci), 0);
	assert_int_equal(ci.minor, 0);
	assert_int_equal(ci.ts_bits, 48);
	assert_int_equal(ci.ts_binary, 0);
	/* Not a PTM; bad size; NULL. */
	c.etmidr = 0x410cf250;
	assert_int_equal(ptm_config_decode(&c, &ci), -etmkit_err_bad_config);
	assert_int_equal(ptm_pkt_alloc(&dec, &c), -etmkit_err_bad_config);
	c.etmidr = 0x411cf312;
	c.size = 4;
	assert_int_equal(ptm_config_decode(&c, &ci), -etmkit_err_invalid);
	assert_int_equal(ptm_pkt_alloc(&dec, &c), -etmkit_err_invalid);
	assert_int_equal(ptm_config_decode(NULL, &ci), -etmkit_err_invalid);
	assert_int_equal(ptm_pkt_alloc(NULL, &c), -etmkit_err_invalid);
}

static void test_names(void **state)
{
	char s[6];
	struct ptm_atoms a = { .bits = 0x04, .count = 5 };

	(void)state;
	assert_string_equal(ptm_pkt_type_name(ptm_pkt_atom), "atom");
	assert_string_equal(ptm_pkt_type_name(ptm_pkt_waypoint_update),
			    "waypoint_update");
	assert_string_equal(ptm_pkt_type_name(ptm_pkt_type_count), "invalid");
	for (unsigned t = 0; t < ptm_pkt_type_count; t++)
		assert_non_null(ptm_pkt_type_name(t));
	assert_string_equal(ptm_reason_name(ptm_reason_overflow), "overflow");
	assert_string_equal(ptm_reason_name(4), "invalid");
	/* Digest 4.4's table: 5 is the ThumbEE check failure. */
	assert_string_equal(ptm_exception_name(1), "halting_debug");
	assert_string_equal(ptm_exception_name(5), "thumbee_check_fail");
	assert_string_equal(ptm_exception_name(14), "irq");
	assert_string_equal(ptm_exception_name(16), "invalid");
	assert_string_equal(ptm_atoms_string(&a, s), "EENEE");
}

/* ---- Atoms (IHI 0035B 4.5.3; digest 4.3) ------------------------------------ */

static void check_atoms(uint8_t hdr, const char *want)
{
	const uint8_t body[] = { hdr };
	const struct ptm_packet *p = one(0, V11, body, 1, 1, 0);
	char s[6];

	assert_int_equal(p->type, ptm_pkt_atom);
	assert_int_equal(p->length, 1);
	assert_int_equal(p->u.atoms.has_cycles, 0);
	assert_int_equal(p->u.atoms.count, strlen(want));
	assert_string_equal(ptm_atoms_string(&p->u.atoms, s), want);
}

static void test_atoms_plain(void **state)
{
	(void)state;
	/* The digest's examples, oldest first. */
	check_atoms(0xc8, "EENEE");
	check_atoms(0x94, "ENE");
	check_atoms(0x98, "NEE");
	check_atoms(0xf0, "NNEEE"); /* tc2-ptm-rstk-t32, DS-5 */
	check_atoms(0xbc, "NNNE");
	/* One of each count: 1000 01a0, 1000 1ab0, 1001 abc0, 101a bcd0. */
	check_atoms(0x84, "E");
	check_atoms(0x86, "N");
	check_atoms(0x8a, "EN");
	check_atoms(0x9e, "NNN");
	check_atoms(0xa2, "EEEN");
	check_atoms(0xfe, "NNNNN");
	check_atoms(0xc0, "EEEEE");
}

static void test_atoms_80_82_reserved(void **state)
{
	/* No marker bit: reserved without cycle-accurate tracing (the
	 * UNCONFIRMED point decided in ptm_config.c). */
	static const uint8_t body[] = { 0x80, 0x84 };
	const struct ptm_packet *p;

	(void)state;
	for (int h = 0x80; h <= 0x82; h += 2) {
		uint8_t b[] = { (uint8_t)h, 0x84 };

		p = pdecode_body(0, V11, b, sizeof(b), &R);
		assert_int_equal(p[0].type, ptm_pkt_reserved);
		assert_int_equal(p[0].error, -etmkit_err_bad_packet);
		assert_int_equal(p[0].length, 1);
		/* Sync is lost: the atom after it is unsynced. */
		assert_int_equal(p[1].type, ptm_pkt_unsynced);
	}
	/* Cycle-accurate, 0x80 is an E atom with a count of 0. */
	p = one(PCR_CA, V11, body, 2, 2, 0);
	assert_int_equal(p->type, ptm_pkt_atom);
	assert_int_equal(p->u.atoms.count, 1);
	assert_int_equal(p->u.atoms.bits, 0);
	assert_int_equal(p->u.atoms.cycles, 0);
}

static void test_atoms_cycle_accurate(void **state)
{
	/* TC2 (digest 4.3): E8 20 -> E, 10 + (32 << 4) = 522; DE 01 -> N,
	 * 7 + (1 << 4) = 23; BC -> E, 15. Then a 5-byte count: header
	 * count[3:0] = 0xf with C, 0xff 0xff 0xff continuing, the 5th
	 * byte 0x7f: count = 0xffffffff. */
	static const uint8_t body[] = { 0xe8, 0x20, 0xde, 0x01, 0xbc,
					0xfe, 0xff, 0xff, 0xff, 0x7f,
					0xc4, 0x80, 0x80, 0x80, 0xff, 0x84 };
	const struct ptm_packet *p = one(PCR_CA, V11, body, sizeof(body), 6, 0);

	(void)state;
	assert_int_equal(p[0].length, 2);
	assert_int_equal(p[0].u.atoms.count, 1);
	assert_int_equal(p[0].u.atoms.bits, 0);
	assert_int_equal(p[0].u.atoms.has_cycles, 1);
	assert_int_equal(p[0].u.atoms.cycles, 522);
	assert_int_equal(p[1].u.atoms.bits, 1);
	assert_int_equal(p[1].u.atoms.cycles, 23);
	assert_int_equal(p[2].length, 1);
	assert_int_equal(p[2].u.atoms.bits, 0);
	assert_int_equal(p[2].u.atoms.cycles, 15);
	assert_int_equal(p[3].length, 5);
	assert_int_equal(p[3].u.atoms.bits, 1);
	assert_int_equal(p[3].u.atoms.cycles, 0xffffffffu);
	/* The 5th count byte is always the last, whatever its bit 7: the
	 * 0x84 after it is an atom of its own (count 1). */
	assert_int_equal(p[4].length, 5);
	assert_int_equal(p[4].u.atoms.cycles, 1u | 0x7fu << 25);
	assert_int_equal(p[5].length, 1);
	assert_int_equal(p[5].u.atoms.cycles, 1);
}

/* ---- I-sync (IHI 0035B 4.5.2; digest 4.2) ----------------------------------- */

static void test_isync(void **state)
{
	/* TC2: 08 DF 8D 01 C0 21 CC 03 -> 0xc0018dde Thumb (bit 0 the T
	 * flag), reason 01 (trace on), Secure, cycles 3 + (3 << 4) = 51. */
	static const uint8_t ca[] = { 0x08, 0xdf, 0x8d, 0x01, 0xc0, 0x21, 0xcc, 0x03 };
	/* A periodic I-sync has no cycle count, even cycle-accurate. */
	static const uint8_t periodic[] = { 0x08, 0x83, 0x8d, 0x01, 0xc0, 0x01, 0x84 };
	/* Non-secure (bit 3), ThumbEE (T and AltIS, bit 2), Hyp (bit 1),
	 * overflow (10), a 4-byte context ID 0x12345678. */
	static const uint8_t full[] = { 0x08, 0x01, 0x20, 0x00, 0x00, 0x4f,
					0x78, 0x56, 0x34, 0x12 };
	const struct ptm_packet *p;

	(void)state;
	p = one(PCR_CA, V11, ca, sizeof(ca), 1, 0);
	assert_int_equal(p->type, ptm_pkt_i_sync);
	assert_int_equal(p->length, 8);
	assert_int_equal(p->u.isync.addr, 0xc0018dde);
	assert_int_equal(p->u.isync.isa, etmkit_isa_thumb);
	assert_int_equal(p->u.isync.reason, ptm_reason_trace_on);
	assert_int_equal(p->u.isync.ns, 0);
	assert_int_equal(p->u.isync.hyp, 0);
	assert_int_equal(p->u.isync.info, 0x21);
	assert_int_equal(p->u.isync.has_cycles, 1);
	assert_int_equal(p->u.isync.cycles, 51);
	assert_int_equal(p->u.isync.context_id_bytes, 0);

	p = one(PCR_CA, V11, periodic, sizeof(periodic), 2, 0);
	assert_int_equal(p->length, 6);
	assert_int_equal(p->u.isync.reason, ptm_reason_periodic);
	assert_int_equal(p->u.isync.has_cycles, 0);
	assert_int_equal(p->u.isync.addr, 0xc0018d82);
	assert_int_equal(p[1].type, ptm_pkt_atom);

	p = one(PCR_CID(3), V11, full, sizeof(full), 1, 0);
	assert_int_equal(p->length, 10);
	assert_int_equal(p->u.isync.addr, 0x2000);
	assert_int_equal(p->u.isync.isa, etmkit_isa_thumbee);
	assert_int_equal(p->u.isync.reason, ptm_reason_overflow);
	assert_int_equal(p->u.isync.ns, 1);
	assert_int_equal(p->u.isync.hyp, 1);
	assert_int_equal(p->u.isync.context_id_bytes, 4);
	assert_int_equal(p->u.isync.context_id, 0x12345678);
	/* Without the Virtualization Extensions there is no Hyp. */
	p = one(PCR_CID(3), PIDR(1), 0, full, sizeof(full), 1, 0);
	assert_int_equal(p->u.isync.hyp, 0);
	/* Context ID of 1 and 2 bytes; debug exit; ARM. */
	{
		static const uint8_t c1[] = { 0x08, 0x54, 0x05, 0x00, 0x80, 0x61, 0xab };
		static const uint8_t c2[] = { 0x08, 0x54, 0x05, 0x00, 0x80, 0x61,
					      0xab, 0xcd };

		p = one(PCR_CID(1), V11, c1, sizeof(c1), 1, 0);
		assert_int_equal(p->u.isync.addr, 0x80000554);
		assert_int_equal(p->u.isync.isa, etmkit_isa_arm);
		assert_int_equal(p->u.isync.reason, ptm_reason_debug_exit);
		assert_int_equal(p->u.isync.context_id, 0xab);
		p = one(PCR_CID(2), V11, c2, sizeof(c2), 1, 0);
		assert_int_equal(p->u.isync.context_id, 0xcdab);
		assert_int_equal(p->length, 8);
	}
}

/* ---- Branch addresses (IHI 0035B 4.5.4; digest 4.4) ------------------------- */

static void test_branch_examples(void **state)
{
	/* ARM: AD 05 -> A[7:2] = 0x16, A[13:8] = 5: 0x558 in 14 bits, the
	 * rest from the I-sync's 0xc0010e00. */
	static const uint8_t arm[] = { ISYNC_ARM, 0xad, 0x05 };
	/* Thumb: B3 1E -> A[6:1] = 0x19, A[12:7] = 0x1e: 0xf32 in 13 bits. */
	static const uint8_t thumb[] = { ISYNC_THUMB, 0xb3, 0x1e };
	/* Thumb 5-byte: FD 9E 80 80 18 -> 0x80000f7c; ARM 5-byte:
	 * BD 85 80 80 0C -> 0x80000578 (tc2-ptm-rstk-t32). */
	static const uint8_t five[] = { ISYNC_ARM, 0xfd, 0x9e, 0x80, 0x80, 0x18,
					0xbd, 0x85, 0x80, 0x80, 0x0c };
	const struct ptm_packet *p;

	(void)state;
	p = one(0, V11, arm, sizeof(arm), 2, 1);
	assert_int_equal(p->type, ptm_pkt_branch_address);
	assert_int_equal(p->length, 2);
	assert_int_equal(p->u.branch.addr, 0xc0010558);
	assert_int_equal(p->u.branch.addr_bits, 14);
	assert_int_equal(p->u.branch.addr_bytes, 2);
	assert_int_equal(p->u.branch.isa, etmkit_isa_arm);
	assert_int_equal(p->u.branch.isa_change, 0);
	assert_int_equal(p->u.branch.exc_bytes, 0);
	assert_int_equal(p->u.branch.exception, 0);
	assert_int_equal(p->u.branch.partial, 0);
	assert_int_equal(p->u.branch.has_cycles, 0);

	p = one(0, V11, thumb, sizeof(thumb), 2, 1);
	assert_int_equal(p->u.branch.addr, 0x80000f32);
	assert_int_equal(p->u.branch.addr_bits, 13);
	assert_int_equal(p->u.branch.isa, etmkit_isa_thumb);

	p = one(0, V11, five, sizeof(five), 3, 1);
	assert_int_equal(p[0].length, 5);
	assert_int_equal(p[0].u.branch.addr, 0x80000f7c);
	assert_int_equal(p[0].u.branch.addr_bits, 32);
	assert_int_equal(p[0].u.branch.isa, etmkit_isa_thumb);
	assert_int_equal(p[0].u.branch.isa_change, 1);
	assert_int_equal(p[1].u.branch.addr, 0x80000578);
	assert_int_equal(p[1].u.branch.isa, etmkit_isa_arm);
	assert_int_equal(p[1].u.branch.isa_change, 1);
}

static void test_branch_every_length(void **state)
{
	/* ARM from 0xffffffff-ish reference: the I-sync at 0xfffffffc,
	 * then addresses of 1-4 bytes, each merged with the previous
	 * branch's: byte 0 bits [6:1] -> A[7:2] (6 bits); a continuing byte
	 * 7 bits; a final byte 2-4 six. */
	static const uint8_t body[] = {
		0x08, 0xfc, 0xff, 0xff, 0xff, 0x01,
		0x03,                   /* A[7:2] = 1: 0xffffff04, 8 bits */
		0x83, 0x01,             /* A[13:8] = 1: 0x104 in 14 bits */
		0x83, 0x81, 0x02,       /* 0x01, 0x01, 0x02: 21 bits */
		0x85, 0x80, 0x80, 0x3f, /* 28 bits: A[27:22] = 0x3f */
	};
	const struct ptm_packet *p = one(0, V11, body, sizeof(body), 5, 1);

	(void)state;
	assert_int_equal(p[0].length, 1);
	assert_int_equal(p[0].u.branch.addr_bits, 8);
	assert_int_equal(p[0].u.branch.addr, 0xffffff04);
	/* A[7:2] = 1, A[13:8] = 1: 0x104 in 14 bits. */
	assert_int_equal(p[1].length, 2);
	assert_int_equal(p[1].u.branch.addr_bits, 14);
	assert_int_equal(p[1].u.branch.addr, 0xffffc104);
	/* A[7:2] = 1, A[14:8] = 1, A[20:15] = 2: 0x10104 in 21 bits. */
	assert_int_equal(p[2].length, 3);
	assert_int_equal(p[2].u.branch.addr_bits, 21);
	assert_int_equal(p[2].u.branch.addr, 0xffe10104);
	/* A[7:2] = 2, A[27:22] = 0x3f: 0x0fc00008 in 28 bits. */
	assert_int_equal(p[3].length, 4);
	assert_int_equal(p[3].u.branch.addr_bits, 28);
	assert_int_equal(p[3].u.branch.addr, 0xffc00008);
	assert_int_equal(p[3].u.branch.exc_bytes, 0);
}

static void test_branch_exception(void **state)
{
	/* tc2-ptm-rstk-t32: 81 80 80 80 48 02 -> address 0, ARM, exception
	 * byte 02: exception 1 (halting debug), Secure. */
	static const uint8_t halt[] = { ISYNC_ARM, 0x81, 0x80, 0x80, 0x80, 0x48, 0x02 };
	/* Snowball: 8D 80 FE FF 4F 1D 3C, cycle-accurate -> 0xffff0018 ARM,
	 * exception byte 1D: IRQ (14), NS; cycles 15. */
	static const uint8_t irq[] = { ISYNC_ARM, 0x8d, 0x80, 0xfe, 0xff, 0x4f,
				       0x1d, 0x3c };
	/* Two exception bytes after a 2-byte Thumb address: byte 0 C=1,
	 * AltIS, Exc[3:0] = 3 (Hyp entry), NS; byte 1 Hyp, Exc[8:4] = 0. */
	static const uint8_t hyp[] = { ISYNC_THUMB, 0x83, 0x41, 0xc7, 0x20 };
	/* Exception byte 1 with Exc[8:4] = 1: exception 0x12. */
	static const uint8_t big[] = { ISYNC_THUMB, 0x83, 0x41, 0x84, 0x01 };
	const struct ptm_packet *p;

	(void)state;
	p = one(0, V11, halt, sizeof(halt), 2, 1);
	assert_int_equal(p->length, 6);
	assert_int_equal(p->u.branch.addr, 0);
	assert_int_equal(p->u.branch.isa, etmkit_isa_arm);
	assert_int_equal(p->u.branch.exc_bytes, 1);
	assert_int_equal(p->u.branch.exception, 1);
	assert_int_equal(p->u.branch.ns, 0);

	p = one(PCR_CA, PIDR(0), 0x8ea, irq, sizeof(irq), 2, 1);
	assert_int_equal(p->length, 7);
	assert_int_equal(p->u.branch.addr, 0xffff0018);
	assert_int_equal(p->u.branch.exception, 14);
	assert_int_equal(p->u.branch.ns, 1);
	assert_int_equal(p->u.branch.has_cycles, 1);
	assert_int_equal(p->u.branch.cycles, 15);

	p = one(0, V11, hyp, sizeof(hyp), 2, 1);
	assert_int_equal(p->length, 4);
	/* A[6:1] = 1, A[12:7] = 1 (a final byte's six bits). */
	assert_int_equal(p->u.branch.addr, 0x80000082);
	assert_int_equal(p->u.branch.exc_bytes, 2);
	assert_int_equal(p->u.branch.exception, 3);
	assert_int_equal(p->u.branch.altis, 1);
	assert_int_equal(p->u.branch.isa, etmkit_isa_thumbee);
	assert_int_equal(p->u.branch.ns, 1);
	assert_int_equal(p->u.branch.hyp, 1);

	p = one(0, V11, big, sizeof(big), 2, 1);
	assert_int_equal(p->u.branch.exception, 0x12);
	assert_int_equal(p->u.branch.hyp, 0);
	assert_int_equal(p->u.branch.altis, 0);
	assert_int_equal(p->u.branch.isa, etmkit_isa_thumb);
}

static void test_branch_state_carries(void **state)
{
	/* ThumbEE (AltIS) and NS set by an exception branch stay for the
	 * following branches without exception bytes, until exception
	 * bytes with AltIS 0 turn ThumbEE back into Thumb (digest 4.4). */
	static const uint8_t body[] = {
		ISYNC_THUMB,
		0x83, 0x41, 0x41,   /* AltIS, NS, exception 0 */
		0x05,               /* 1 byte: ThumbEE, A[6:1] = 2 */
		0x83, 0x41, 0x00,   /* AltIS 0, Secure */
		0x05,
	};
	const struct ptm_packet *p = one(0, V11, body, sizeof(body), 5, 1);

	(void)state;
	assert_int_equal(p[0].u.branch.isa, etmkit_isa_thumbee);
	assert_int_equal(p[0].u.branch.ns, 1);
	assert_int_equal(p[1].u.branch.isa, etmkit_isa_thumbee);
	assert_int_equal(p[1].u.branch.ns, 1);
	assert_int_equal(p[1].u.branch.addr, 0x80000084);
	assert_int_equal(p[1].u.branch.addr_bits, 7);
	assert_int_equal(p[2].u.branch.isa, etmkit_isa_thumb);
	assert_int_equal(p[2].u.branch.ns, 0);
	assert_int_equal(p[3].u.branch.isa, etmkit_isa_thumb);
}

static void test_branch_jazelle(void **state)
{
	/* Jazelle 5th byte b0X1aaaaa: A[31:27] = 5; byte 0 bits [6:1] are
	 * A[5:0] = 5, byte 1 A[12:6] = 1. Then a 1-byte Jazelle branch:
	 * A[5:0] = 0x3f. */
	static const uint8_t body[] = { ISYNC_ARM, 0x8b, 0x81, 0x80, 0x80, 0x25,
					0x7f };
	const struct ptm_packet *p = one(0, V11, body, sizeof(body), 3, 1);

	(void)state;
	assert_int_equal(p[0].u.branch.isa, etmkit_isa_jazelle);
	assert_int_equal(p[0].u.branch.addr, 0x28000045);
	assert_int_equal(p[0].u.branch.addr_bits, 32);
	assert_int_equal(p[1].u.branch.isa, etmkit_isa_jazelle);
	assert_int_equal(p[1].u.branch.addr_bits, 6);
	assert_int_equal(p[1].u.branch.addr, 0x2800007f);
}

static void test_branch_cycle_accurate(void **state)
{
	/* Cycle-accurate: even a 1-byte branch has a cycle count (TC2:
	 * EF 1F 18 -> Thumb 0x...fee, 2 address bytes, cycles 6). */
	static const uint8_t body[] = { ISYNC_THUMB, 0xef, 0x1f, 0x18, 0x03, 0x04 };
	const struct ptm_packet *p = one(PCR_CA, V11, body, sizeof(body), 3, 1);

	(void)state;
	assert_int_equal(p[0].length, 3);
	assert_int_equal(p[0].u.branch.addr, 0x80000fee);
	assert_int_equal(p[0].u.branch.cycles, 6);
	assert_int_equal(p[1].length, 2);
	assert_int_equal(p[1].u.branch.addr_bits, 7);
	assert_int_equal(p[1].u.branch.addr, 0x80000f82);
	assert_int_equal(p[1].u.branch.cycles, 1);
}

static void test_branch_before_isync_partial(void **state)
{
	static const uint8_t body[] = { 0xad, 0x05, ISYNC_ARM, 0xad, 0x05 };
	const struct ptm_packet *p = one(0, V11, body, sizeof(body), 3, 0);

	(void)state;
	assert_int_equal(p[0].u.branch.partial, 1);
	assert_int_equal(p[0].u.branch.addr_bits, 14);
	assert_int_equal(p[0].u.branch.addr & 0x3fff, 0x558);
	assert_int_equal(p[2].u.branch.partial, 0);
}

static void test_branch_malformed(void **state)
{
	/* 5th byte b0X000xxx names no instruction set; a 5th byte with
	 * bit 7 set; an exception byte 1 that continues. */
	static const uint8_t b1[] = { ISYNC_ARM, 0x81, 0x80, 0x80, 0x80, 0x07, 0x84 };
	static const uint8_t b2[] = { ISYNC_ARM, 0x81, 0x80, 0x80, 0x80, 0x88, 0x84 };
	static const uint8_t b3[] = { ISYNC_ARM, 0x83, 0x41, 0x80, 0x80, 0x84 };
	const struct ptm_packet *p;

	(void)state;
	p = pdecode_body(0, V11, b1, sizeof(b1), &R);
	assert_int_equal(p[1].type, ptm_pkt_branch_address);
	assert_int_equal(p[1].error, -etmkit_err_bad_packet);
	assert_int_equal(p[1].length, 5);
	assert_non_null(p[1].why);
	assert_int_equal(p[2].type, ptm_pkt_unsynced);
	p = pdecode_body(0, V11, b2, sizeof(b2), &R);
	assert_int_equal(p[1].error, -etmkit_err_bad_packet);
	assert_int_equal(p[1].length, 5);
	p = pdecode_body(0, V11, b3, sizeof(b3), &R);
	assert_int_equal(p[1].error, -etmkit_err_bad_packet);
	assert_int_equal(p[1].length, 4);
	assert_int_equal(p[2].type, ptm_pkt_unsynced);
}

/* ---- Waypoint update (IHI 0035B 4.5; digest 4.5) ---------------------------- */

static void test_waypoint(void **state)
{
	/* Snowball: 72 79 -> bits [6:1] = 0x3c, ARM A[7:2]: 0xc0010ef0 from
	 * the reference 0xc0010e00 (bit 0 of 0x79 is not an address bit). */
	static const uint8_t snow[] = { ISYNC_ARM, 0x72, 0x79, 0x72, 0x81, 0x42 };
	/* 5 address bytes with bit 6 of the 5th set: the AltIS byte
	 * follows (0x40: AltIS 1): Thumb 0x10000002 becomes ThumbEE. */
	static const uint8_t five[] = { ISYNC_ARM, 0x72, 0x83, 0x80, 0x80, 0x80,
					0x51, 0x40, 0x84 };
	const struct ptm_packet *p;

	(void)state;
	p = one(0, V11, snow, sizeof(snow), 3, 1);
	assert_int_equal(p[0].type, ptm_pkt_waypoint_update);
	assert_int_equal(p[0].length, 2);
	assert_int_equal(p[0].u.branch.addr, 0xc0010ef0);
	assert_int_equal(p[0].u.branch.addr_bits, 8);
	assert_int_equal(p[0].u.branch.addr_bytes, 1);
	assert_int_equal(p[0].u.branch.exc_bytes, 0);
	assert_int_equal(p[0].u.branch.has_cycles, 0);
	/* The update is the reference for the next: 81 42 -> A[7:2] = 0,
	 * a final byte's six bits 0x02 at A[13:8] (bit 6 is not an
	 * exception flag here). */
	assert_int_equal(p[1].length, 3);
	assert_int_equal(p[1].u.branch.addr, 0xc0010200);
	assert_int_equal(p[1].u.branch.addr_bits, 14);

	p = one(0, V11, five, sizeof(five), 3, 1);
	assert_int_equal(p[0].length, 7);
	assert_int_equal(p[0].u.branch.addr, 0x10000002);
	assert_int_equal(p[0].u.branch.isa, etmkit_isa_thumbee);
	assert_int_equal(p[0].u.branch.altis, 1);
	assert_int_equal(p[0].u.branch.exc_bytes, 1);
	assert_int_equal(p[1].type, ptm_pkt_atom);
	/* Cycle-accurate: still no cycle count. */
	p = one(PCR_CA, V11, snow, sizeof(snow), 3, 1);
	assert_int_equal(p[0].length, 2);
}

/* ---- Other packets ------------------------------------------------------- */

static void test_simple_packets(void **state)
{
	/* Trigger, ignore, exception return, VMID 0x5a, context ID (2
	 * bytes) 0xbeef. */
	static const uint8_t body[] = { 0x0c, 0x66, 0x76, 0x3c, 0x5a, 0x6e, 0xef, 0xbe };
	const struct ptm_packet *p = one(PCR_CID(2), V11, body, sizeof(body), 5, 0);

	(void)state;
	assert_int_equal(p[0].type, ptm_pkt_trigger);
	assert_int_equal(p[1].type, ptm_pkt_ignore);
	assert_int_equal(p[2].type, ptm_pkt_exception_return);
	assert_int_equal(p[3].type, ptm_pkt_vmid);
	assert_int_equal(p[3].length, 2);
	assert_int_equal(p[3].u.vmid, 0x5a);
	assert_int_equal(p[4].type, ptm_pkt_context_id);
	assert_int_equal(p[4].length, 3);
	assert_int_equal(p[4].u.context_id, 0xbeef);
	for (int i = 0; i < 3; i++)
		assert_int_equal(p[i].length, 1);
}

static void test_context_id_sizes(void **state)
{
	static const uint8_t body[] = { 0x6e, 0x11, 0x22, 0x33, 0x44, 0x84 };
	static const uint32_t want[4] = { 0, 0x11, 0x2211, 0x44332211 };
	static const uint8_t len[4] = { 0, 2, 3, 5 };
	const struct ptm_packet *p;

	(void)state;
	for (unsigned sz = 1; sz < 4; sz++) {
		p = pdecode_body(PCR_CID(sz), V11, body, sizeof(body), &R);
		assert_int_equal(p[0].type, ptm_pkt_context_id);
		assert_int_equal(p[0].error, 0);
		assert_int_equal(p[0].length, len[sz]);
		assert_int_equal(p[0].u.context_id, want[sz]);
	}
	/* ContextIDsize 0: a context ID packet is an error (4.5.7). */
	p = pdecode_body(0, V11, body, sizeof(body), &R);
	assert_int_equal(p[0].type, ptm_pkt_context_id);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].length, 1);
}

static void test_reserved_headers(void **state)
{
	/* Every even header below 0x80 but the defined ones is reserved
	 * (IHI 0035B Table 4.1), among them ETMv3's 0x04 cycle count and
	 * 0x70 I-sync with cycle count. */
	static const uint8_t defined[] = { 0x00, 0x08, 0x0c, 0x3c, 0x42, 0x46,
					   0x66, 0x6e, 0x72, 0x76 };
	int reserved = 0;

	(void)state;
	for (unsigned h = 2; h < 0x80; h += 2) {
		uint8_t body[] = { (uint8_t)h, 0x84 };
		int is_defined = 0;
		const struct ptm_packet *p;

		for (size_t i = 0; i < sizeof(defined); i++)
			is_defined |= defined[i] == h;
		if (is_defined)
			continue;
		p = pdecode_body(0, V11, body, sizeof(body), &R);
		assert_int_equal(p[0].type, ptm_pkt_reserved);
		assert_int_equal(p[0].error, -etmkit_err_bad_packet);
		assert_int_equal(p[0].raw[0], h);
		reserved++;
	}
	assert_int_equal(reserved, 63 - 9);
	/* Timestamps without ETMCCER[22] or ETMCR[28]: reserved. */
	{
		static const uint8_t ts[] = { 0x42, 0x01 };
		const struct ptm_packet *p = pdecode_body(0, PIDR(1), 0, ts, 2, &R);

		assert_int_equal(p[0].type, ptm_pkt_reserved);
	}
}

/* ---- Timestamps (IHI 0035B 4.5.9; digest 4.9) ------------------------------- */

static void test_timestamp_64_binary(void **state)
{
	/* TC2, cycle-accurate: 42 CC 97 C6 CE AF 90 80 80 00 00 -> nine
	 * timestamp bytes (64-bit form: 8 x 7 bits and 8 in the 9th), then
	 * the cycle count 0. Then 42 C8 19 00: two bytes (14 bits) merged
	 * with it, cycles 0; then 46 (R: clock change) 49 00. */
	static const uint8_t body[] = { 0x42, 0xcc, 0x97, 0xc6, 0xce, 0xaf, 0x90,
					0x80, 0x80, 0x00, 0x00, 0x42, 0xc8, 0x19,
					0x00, 0x46, 0x49, 0x00 };
	const uint64_t first = 0x4cull | 0x17ull << 7 | 0x46ull << 14 |
			       0x4eull << 21 | 0x2full << 28 | 0x10ull << 35;
	const struct ptm_packet *p = one(0x10001000, V11, body, sizeof(body), 3, 0);

	(void)state;
	assert_int_equal(p[0].type, ptm_pkt_timestamp);
	assert_int_equal(p[0].length, 11);
	assert_int_equal(p[0].u.timestamp.bits, 64);
	assert_int_equal(p[0].u.timestamp.value, first);
	assert_int_equal(first, 0x82f9d18bccull); /* as DS-5/OpenCSD */
	assert_int_equal(p[0].u.timestamp.has_cycles, 1);
	assert_int_equal(p[0].u.timestamp.cycles, 0);
	assert_int_equal(p[0].u.timestamp.clock_change, 0);
	assert_int_equal(p[1].length, 4);
	assert_int_equal(p[1].u.timestamp.bits, 14);
	assert_int_equal(p[1].u.timestamp.value,
			 (first & ~0x3fffull) | 0x48 | 0x19 << 7);
	assert_int_equal(p[2].length, 3);
	assert_int_equal(p[2].u.timestamp.clock_change, 1);
	assert_int_equal(p[2].u.timestamp.value, (first & ~0x3fffull) | 0xcc9);
}

static void test_timestamp_48_gray(void **state)
{
	/* Snowball (PFTv1.0: 48-bit, Gray code), cycle-accurate:
	 * 42 E4 EE A0 C8 8E 8B 00 54 AA 36 -> seven timestamp bytes, the 7th
	 * carrying 6 bits, then the cycle count 5 + (0x2a << 4) +
	 * (0x36 << 11) = 111269. The value is the Gray code decoded. */
	static const uint8_t body[] = { 0x42, 0xe4, 0xee, 0xa0, 0xc8, 0x8e, 0x8b,
					0x00, 0x54, 0xaa, 0x36, 0x42, 0x81, 0x15,
					0x64, 0x01 };
	const uint64_t gray = 0x64ull | 0x6eull << 7 | 0x20ull << 14 |
			      0x48ull << 21 | 0x0eull << 28 | 0x0bull << 35;
	const struct ptm_packet *p = one(0x10001000, PIDR(0), 0x8ea, body,
					 sizeof(body), 2, 0);

	(void)state;
	assert_int_equal(p[0].length, 11);
	assert_int_equal(p[0].u.timestamp.bits, 48);
	assert_int_equal(p[0].u.timestamp.cycles, 111269);
	assert_int_equal(p[0].u.timestamp.value, gray_decode(gray));
	/* 42 81 15 64 01: 14 bits (0x81 0x15) merged with the Gray code,
	 * then decoded; cycles 9 + (1 << 4) = 25. */
	assert_int_equal(p[1].length, 5);
	assert_int_equal(p[1].u.timestamp.bits, 14);
	assert_int_equal(p[1].u.timestamp.cycles, 25);
	assert_int_equal(p[1].u.timestamp.value,
			 gray_decode((gray & ~0x3fffull) | 0x01 | 0x15 << 7));
}

static void test_timestamp_48_full(void **state)
{
	/* Not cycle-accurate, binary (PFTv1.1 with ETMCCER[28] and not
	 * [29]): the 7th byte carries bits [47:42] only, its bit 7 and 6
	 * not continuing. */
	static const uint8_t body[] = { 0x42, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					0xff, 0x84 };
	const struct ptm_packet *p = one(0, PIDR(1),
					 PTM_ETMCCER_TIMESTAMP | PTM_ETMCCER_TS_BINARY,
					 body, sizeof(body), 2, 0);

	(void)state;
	assert_int_equal(p[0].length, 8);
	assert_int_equal(p[0].u.timestamp.bits, 48);
	assert_int_equal(p[0].u.timestamp.value, 0xffffffffffffull);
	assert_int_equal(p[0].u.timestamp.has_cycles, 0);
	assert_int_equal(p[1].type, ptm_pkt_atom);
}

/* ---- The stream ------------------------------------------------------------ */

/* Every packet form, cycle-accurate, 4-byte context IDs, with errors and
 * A-syncs in the middle. */
static const uint8_t stream[] = {
	0x55, 0x00, 0x17,                                /* unsynced */
	0, 0, 0, 0, 0, 0x80,                             /* A-sync */
	0x08, 0xdf, 0x8d, 0x01, 0xc0, 0x21, 0xcc, 0x03,  /* I-sync, cycles */
	0x78, 0x56, 0x34, 0x12,                          /* ... context ID */
	0xe8, 0x20, 0xde, 0x01, 0xbc,                    /* atoms */
	0xef, 0x1f, 0x18,                                /* branch + cycles */
	0x8d, 0x80, 0xfe, 0xff, 0x4f, 0x1d, 0x3c,        /* exception branch */
	0x72, 0x83, 0x80, 0x80, 0x80, 0x51, 0x40,        /* waypoint + AltIS */
	0x42, 0xcc, 0x97, 0xc6, 0xce, 0xaf, 0x90, 0x80, 0x80, 0x00, 0x00,
	0x0c, 0x66, 0x76, 0x3c, 0x01,                    /* trigger .. VMID */
	0x6e, 0x01, 0x02, 0x03, 0x04,                    /* context ID */
	0, 0, 0, 0, 0, 0, 0, 0x80,                       /* A-sync, 7 zeros */
	0x04,                                            /* reserved */
	0x99, 0x00, 0x01,                                /* unsynced */
	0, 0, 0, 0, 0, 0x80,                             /* A-sync */
	0x84,
	0x08, 0x01, 0x02,                                /* truncated I-sync */
};

static void test_stream_records(void **state)
{
	static const uint8_t types[] = {
		ptm_pkt_unsynced, ptm_pkt_a_sync, ptm_pkt_i_sync, ptm_pkt_atom,
		ptm_pkt_atom, ptm_pkt_atom, ptm_pkt_branch_address,
		ptm_pkt_branch_address, ptm_pkt_waypoint_update,
		ptm_pkt_timestamp, ptm_pkt_trigger, ptm_pkt_ignore,
		ptm_pkt_exception_return, ptm_pkt_vmid, ptm_pkt_context_id,
		ptm_pkt_a_sync, ptm_pkt_reserved, ptm_pkt_unsynced,
		ptm_pkt_a_sync, ptm_pkt_atom, ptm_pkt_i_sync,
	};
	uint64_t sum = 0;

	(void)state;
	pdecode_chunked(PCR_CA | PCR_CID(3), V11, stream, sizeof(stream), 0, &R);
	assert_int_equal(R.n, sizeof(types));
	for (int i = 0; i < R.n; i++) {
		assert_int_equal(R.p[i].type, types[i]);
		/* Every byte in exactly one record, in order. */
		assert_int_equal(R.p[i].offset, sum);
		sum += R.p[i].length;
	}
	assert_int_equal(sum, sizeof(stream));
	assert_int_equal(R.p[0].length, 3);
	assert_int_equal(R.p[2].u.isync.context_id, 0x12345678);
	assert_int_equal(R.p[15].length, 8);   /* all 7 zeros and 0x80 */
	assert_int_equal(R.p[15].error, 0);
	assert_int_equal(R.p[16].error, -etmkit_err_bad_packet);
	assert_int_equal(R.p[17].length, 3);
	assert_int_equal(R.p[20].error, -etmkit_err_truncated);
	assert_int_equal(R.p[20].length, 3);
	assert_int_equal(R.p[20].raw[2], 0x02);
	/* The cycle-accurate atom after the last A-sync: E, count 1. */
	assert_int_equal(R.p[19].error, 0);
	assert_int_equal(R.p[19].u.atoms.cycles, 1);
}

static void same_records(const struct prun *a, const struct prun *b)
{
	assert_int_equal(a->n, b->n);
	for (int i = 0; i < a->n; i++) {
		const struct ptm_packet *x = &a->p[i], *y = &b->p[i];

		assert_int_equal(x->type, y->type);
		assert_int_equal(x->offset, y->offset);
		assert_int_equal(x->length, y->length);
		assert_int_equal(x->size, y->size);
		assert_int_equal(x->error, y->error);
		assert_memory_equal(x->raw, y->raw, x->size);
		if (!x->error)
			assert_true(psame_payload(x, y));
	}
}

static void test_chunking_is_invisible(void **state)
{
	static struct prun whole;

	(void)state;
	pdecode_chunked(PCR_CA | PCR_CID(3), V11, stream, sizeof(stream), 0, &whole);
	/* Every chunk size, and every single split point. */
	for (size_t chunk = 1; chunk < sizeof(stream); chunk++) {
		pdecode_chunked(PCR_CA | PCR_CID(3), V11, stream, sizeof(stream),
				chunk, &R);
		same_records(&whole, &R);
	}
	for (size_t cut = 1; cut < sizeof(stream); cut++) {
		struct ptm_pkt_decoder *dec = pmk(PCR_CA | PCR_CID(3), V11);

		memset(&R, 0, sizeof(R));
		assert_int_equal(ptm_pkt_feed(dec, stream, cut, NULL, 0), 0);
		pdrain(dec, &R, 3);
		assert_int_equal(ptm_pkt_feed(dec, stream + cut,
					      sizeof(stream) - cut, NULL, cut), 0);
		pdrain(dec, &R, 3);
		ptm_pkt_finish(dec);
		pdrain(dec, &R, 3);
		ptm_pkt_free(dec);
		same_records(&whole, &R);
	}
}

static void test_fast_path_is_the_general_decoder(void **state)
{
	/* The stream in every configuration it parses in, not
	 * cycle-accurate too (its atoms then one byte each). */
	static const uint32_t crs[] = { PCR_CA | PCR_CID(3), PCR_CID(3),
					PCR_CA | PCR_CID(1), 0 };

	(void)state;
	for (size_t c = 0; c < sizeof(crs) / sizeof(crs[0]); c++) {
		pdecode_chunked(crs[c], V11, stream, sizeof(stream), 0, &R);
		size_t k = pgeneral_same(crs[c], V11, stream, sizeof(stream),
					 R.p, (size_t)R.n);

		/* Its own configuration: every packet (the 14 of
		 * test_stream_records' 21 records that are not unsynced,
		 * A-sync or error records); others lose sync earlier. */
		assert_true(c == 0 ? k == 14 : k >= 2);
	}
}

static void test_offsets_array_and_batch_of_one(void **state)
{
	static const uint8_t b[] = { 0x55, 0, 0, 0, 0, 0, 0x80, 0x84, 0x08 };
	uint64_t offs[sizeof(b)];
	struct ptm_pkt_decoder *dec = pmk(0, V11);

	(void)state;
	for (size_t i = 0; i < sizeof(b); i++)
		offs[i] = 1000 + 3 * i;
	memset(&R, 0, sizeof(R));
	assert_int_equal(ptm_pkt_feed(dec, b, sizeof(b), offs, 0), 0);
	pdrain(dec, &R, 1);
	assert_true(ptm_pkt_synced(dec));
	ptm_pkt_finish(dec);
	pdrain(dec, &R, 1);
	assert_int_equal(R.n, 4);
	assert_int_equal(R.p[0].offset, 1000);
	assert_int_equal(R.p[1].type, ptm_pkt_a_sync);
	assert_int_equal(R.p[1].offset, 1003);
	assert_int_equal(R.p[2].offset, 1021);
	assert_int_equal(R.p[3].offset, 1024);
	assert_int_equal(R.p[3].error, -etmkit_err_truncated);
	assert_false(ptm_pkt_synced(dec));
	ptm_pkt_free(dec);
}

static void test_async_while_synced(void **state)
{
	/* Five zeros and 0x80 between packets: an A-sync (IHI 0035B 4.5.1),
	 * its record the six bytes; four zeros and 0x80: malformed, sync
	 * lost, the 0x80 searched on from. */
	static const uint8_t body[] = { 0x84, 0, 0, 0, 0, 0, 0x80, 0x86,
					0, 0, 0, 0, 0x80, 0x84 };
	static const uint8_t async[] = { 0, 0, 0, 0, 0, 0x80 };
	const struct ptm_packet *p = pdecode_body(0, V11, body, sizeof(body), &R);

	(void)state;
	assert_int_equal(R.n, 6);
	assert_int_equal(p[0].type, ptm_pkt_atom);
	assert_int_equal(p[1].type, ptm_pkt_a_sync);
	assert_int_equal(p[1].error, 0);
	assert_int_equal(p[1].offset, 7);
	assert_int_equal(p[1].length, 6);
	assert_memory_equal(p[1].raw, async, 6);
	assert_int_equal(p[2].u.atoms.bits, 1);
	assert_int_equal(p[3].type, ptm_pkt_a_sync);
	assert_int_equal(p[3].error, -etmkit_err_bad_packet);
	assert_int_equal(p[3].length, 4);
	assert_int_equal(p[4].type, ptm_pkt_unsynced);
	assert_int_equal(p[4].length, 2);
}

static void test_state_dropped_after_error(void **state)
{
	/* After an error and a new A-sync, branches are partial again (the
	 * I-sync's reference is gone) and timestamps merge with nothing. */
	static const uint8_t body[] = { ISYNC_ARM, 0x03, 0x04, 0, 0, 0, 0, 0, 0x80,
					0x03 };
	const struct ptm_packet *p = pdecode_body(0, V11, body, sizeof(body), &R);

	(void)state;
	assert_int_equal(p[1].u.branch.partial, 0);
	assert_int_equal(p[1].u.branch.addr, 0xc0010e04);
	assert_int_equal(p[2].type, ptm_pkt_reserved);
	assert_int_equal(p[3].type, ptm_pkt_a_sync);
	assert_int_equal(p[4].u.branch.partial, 1);
	assert_int_equal(p[4].u.branch.addr, 0x04);
}

static void test_timestamp_reference_dropped(void **state)
{
	/* A full 64-bit timestamp, an error, a new A-sync, then a 1-byte
	 * timestamp: its 7 bits merge with nothing (digest 5.4). */
	static const uint8_t body[] = { 0x42, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					0xff, 0xff, 0xff, 0x04, 0, 0, 0, 0, 0,
					0x80, 0x42, 0x05 };
	const struct ptm_packet *p = pdecode_body(0, V11, body, sizeof(body), &R);

	(void)state;
	assert_int_equal(p[0].u.timestamp.value, ~0ull);
	assert_int_equal(p[1].type, ptm_pkt_reserved);
	assert_int_equal(p[2].type, ptm_pkt_a_sync);
	assert_int_equal(p[3].u.timestamp.bits, 7);
	assert_int_equal(p[3].u.timestamp.value, 5);
}

static void test_async_inside_bad_packet(void **state)
{
	/* A malformed branch (its 5th byte names no set) running into an
	 * A-sync: the record is cut at the first zero and the A-sync
	 * found. */
	static const uint8_t body[] = { ISYNC_ARM, 0x81, 0x80, 0x80, 0x80, 0x00,
					0, 0, 0, 0, 0x80, 0x84 };
	const struct ptm_packet *p = pdecode_body(0, V11, body, sizeof(body), &R);

	(void)state;
	assert_int_equal(p[1].type, ptm_pkt_branch_address);
	assert_int_equal(p[1].error, -etmkit_err_bad_packet);
	assert_int_equal(p[1].length, 4);
	assert_int_equal(p[2].type, ptm_pkt_a_sync);
	assert_int_equal(p[2].offset, 6 + 6 + 4);
	assert_int_equal(p[3].type, ptm_pkt_atom);
	assert_int_equal(R.n, 5);
}

static void test_stop_on_error(void **state)
{
	static const uint8_t b[] = { 0, 0, 0, 0, 0, 0x80, 0x84, 0x04, 0x84,
				     0, 0, 0, 0, 0, 0x80, 0x86 };
	struct ptm_config cfg;
	struct ptm_pkt_decoder *dec;
	int n;

	(void)state;
	ptm_config_init(&cfg);
	cfg.etmidr = PIDR(1);
	cfg.flags = PTM_CFG_STOP_ON_ERROR;
	assert_int_equal(ptm_pkt_alloc(&dec, &cfg), 0);
	memset(&R, 0, sizeof(R));
	assert_int_equal(ptm_pkt_feed(dec, b, sizeof(b), NULL, 0), 0);
	n = ptm_pkt_next(dec, R.p, 16);
	assert_int_equal(n, 3);
	assert_int_equal(R.p[2].type, ptm_pkt_reserved);
	assert_int_equal(ptm_pkt_next(dec, R.p, 16), -etmkit_err_bad_packet);
	assert_int_equal(ptm_pkt_feed(dec, b, 1, NULL, 0), -etmkit_err_bad_packet);
	/* Reset: decoding starts afresh. */
	ptm_pkt_reset(dec);
	assert_int_equal(ptm_pkt_feed(dec, b + 9, sizeof(b) - 9, NULL, 9), 0);
	n = ptm_pkt_next(dec, R.p, 16);
	assert_int_equal(n, 2);
	assert_int_equal(R.p[0].type, ptm_pkt_a_sync);
	assert_int_equal(R.p[0].offset, 9);
	assert_int_equal(R.p[1].u.atoms.bits, 1);
	ptm_pkt_free(dec);
}

static void test_gap(void **state)
{
	/* An I-sync cut by lost data: reported with bad_frame, sync
	 * dropped, the bytes after the gap unsynced until an A-sync. */
	static const uint8_t a[] = { 0, 0, 0, 0, 0, 0x80, 0x84, 0x08, 0x01, 0x02 };
	static const uint8_t b[] = { 0x84, 0x86, 0, 0, 0, 0, 0, 0x80, 0x88 };
	struct ptm_pkt_decoder *dec = pmk(0, V11);

	(void)state;
	memset(&R, 0, sizeof(R));
	assert_int_equal(ptm_pkt_feed(dec, a, sizeof(a), NULL, 0), 0);
	pdrain(dec, &R, 8);
	assert_int_equal(R.n, 2);
	assert_int_equal(ptm_pkt_gap(dec), 0);
	assert_int_equal(ptm_pkt_feed(dec, b, sizeof(b), NULL, 100), 0);
	pdrain(dec, &R, 8);
	ptm_pkt_finish(dec);
	pdrain(dec, &R, 8);
	assert_int_equal(R.n, 6);
	assert_int_equal(R.p[2].type, ptm_pkt_i_sync);
	assert_int_equal(R.p[2].error, -etmkit_err_bad_frame);
	assert_int_equal(R.p[2].offset, 7);
	assert_int_equal(R.p[2].length, 3);
	assert_int_equal(R.p[3].type, ptm_pkt_unsynced);
	assert_int_equal(R.p[3].offset, 100);
	assert_int_equal(R.p[3].length, 2);
	assert_int_equal(R.p[4].type, ptm_pkt_a_sync);
	assert_int_equal(R.p[5].type, ptm_pkt_atom);
	/* A gap with input left undrained is refused. */
	assert_int_equal(ptm_pkt_feed(dec, b, 1, NULL, 0), -etmkit_err_invalid);
	ptm_pkt_free(dec);
}

static void test_truncated_every_packet(void **state)
{
	/* Each multi-byte packet cut anywhere and the input finished: one
	 * truncated record of the bytes given, of the packet's type. */
	static const struct { uint8_t b[16]; uint8_t n; uint8_t type; } pk[] = {
		{ { 0x08, 0xdf, 0x8d, 0x01, 0xc0, 0x21, 0xcc, 0x83, 0x80, 0x80,
		    0x01, 0x11, 0x22, 0x33, 0x44 }, 15, ptm_pkt_i_sync },
		{ { 0x8d, 0x80, 0xfe, 0xff, 0x4f, 0x9d, 0x20, 0x7c, 0x81, 0x81,
		    0x81, 0x01 }, 12, ptm_pkt_branch_address },
		{ { 0x72, 0x83, 0x80, 0x80, 0x80, 0x51, 0x40 }, 7,
		  ptm_pkt_waypoint_update },
		{ { 0x42, 0xcc, 0x97, 0xc6, 0xce, 0xaf, 0x90, 0x80, 0x80, 0x00,
		    0x40, 0x80, 0x80, 0x80, 0x01 }, 15, ptm_pkt_timestamp },
		{ { 0xfe, 0xff, 0xff, 0xff, 0x7f }, 5, ptm_pkt_atom },
		{ { 0x6e, 1, 2, 3, 4 }, 5, ptm_pkt_context_id },
		{ { 0x3c, 1 }, 2, ptm_pkt_vmid },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(pk) / sizeof(pk[0]); k++) {
		const struct ptm_packet *p;

		/* Whole, it is one record of its length. */
		p = one(PCR_CA | PCR_CID(3), V11, pk[k].b, pk[k].n, 1, 0);
		assert_int_equal(p->type, pk[k].type);
		assert_int_equal(p->length, pk[k].n);
		for (uint8_t cut = 1; cut < pk[k].n; cut++) {
			p = pdecode_body(PCR_CA | PCR_CID(3), V11, pk[k].b, cut, &R);
			assert_int_equal(R.n, 2);
			assert_int_equal(p->type, pk[k].type);
			assert_int_equal(p->error, -etmkit_err_truncated);
			assert_int_equal(p->length, cut);
			assert_memory_equal(p->raw, pk[k].b, cut);
		}
	}
}

static void test_api_errors(void **state)
{
	struct ptm_pkt_decoder *dec = pmk(0, V11);
	static const uint8_t b[] = { 0x84 };

	(void)state;
	assert_int_equal(ptm_pkt_next(dec, R.p, 4), -etmkit_err_eos);
	assert_int_equal(ptm_pkt_next(dec, NULL, 4), -etmkit_err_invalid);
	assert_int_equal(ptm_pkt_next(dec, R.p, 0), -etmkit_err_invalid);
	assert_int_equal(ptm_pkt_next(NULL, R.p, 4), -etmkit_err_invalid);
	assert_int_equal(ptm_pkt_feed(NULL, b, 1, NULL, 0), -etmkit_err_invalid);
	assert_int_equal(ptm_pkt_feed(dec, NULL, 1, NULL, 0), -etmkit_err_invalid);
	assert_int_equal(ptm_pkt_feed(dec, b, 1, NULL, 0), 0);
	/* Undrained input: a second feed and a gap are refused. */
	assert_int_equal(ptm_pkt_feed(dec, b, 1, NULL, 1), -etmkit_err_invalid);
	assert_int_equal(ptm_pkt_gap(dec), -etmkit_err_invalid);
	assert_int_equal(ptm_pkt_gap(NULL), -etmkit_err_invalid);
	assert_int_equal(ptm_pkt_finish(NULL), -etmkit_err_invalid);
	assert_false(ptm_pkt_synced(NULL));
	ptm_pkt_reset(NULL);
	ptm_pkt_free(dec);
	ptm_pkt_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_atoms_plain),
		cmocka_unit_test(test_atoms_80_82_reserved),
		cmocka_unit_test(test_atoms_cycle_accurate),
		cmocka_unit_test(test_isync),
		cmocka_unit_test(test_branch_examples),
		cmocka_unit_test(test_branch_every_length),
		cmocka_unit_test(test_branch_exception),
		cmocka_unit_test(test_branch_state_carries),
		cmocka_unit_test(test_branch_jazelle),
		cmocka_unit_test(test_branch_cycle_accurate),
		cmocka_unit_test(test_branch_before_isync_partial),
		cmocka_unit_test(test_branch_malformed),
		cmocka_unit_test(test_waypoint),
		cmocka_unit_test(test_simple_packets),
		cmocka_unit_test(test_context_id_sizes),
		cmocka_unit_test(test_reserved_headers),
		cmocka_unit_test(test_timestamp_64_binary),
		cmocka_unit_test(test_timestamp_48_gray),
		cmocka_unit_test(test_timestamp_48_full),
		cmocka_unit_test(test_stream_records),
		cmocka_unit_test(test_chunking_is_invisible),
		cmocka_unit_test(test_fast_path_is_the_general_decoder),
		cmocka_unit_test(test_offsets_array_and_batch_of_one),
		cmocka_unit_test(test_async_while_synced),
		cmocka_unit_test(test_state_dropped_after_error),
		cmocka_unit_test(test_timestamp_reference_dropped),
		cmocka_unit_test(test_async_inside_bad_packet),
		cmocka_unit_test(test_stop_on_error),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_truncated_every_packet),
		cmocka_unit_test(test_api_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
