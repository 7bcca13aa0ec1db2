/* ETMv4 / ETE packet decoder tests: configuration and the packets.
 * Expected values are the digest's (shared spec etmv4-ete.md: section 10
 * test vectors, worked out by hand from the layouts of sections 2 and 5),
 * not the decoder's output. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "unit/etm4_pkt_test.h"

/* ---- Configuration (digest 6) ----------------------------------------------- */

static void test_config_decode(void **state)
{
	struct etm4_config c;
	struct etm4_config_info i;

	(void)state;
	c = ete(0, 0xa001); /* q_elem: QE = 1, TRCCONFIGR bit 0 */
	assert_int_equal(etm4_config_decode(&c, &i), 0);
	assert_int_equal(i.ete, 1);
	assert_int_equal(i.major, 5);
	assert_int_equal(i.minor, 0);
	assert_int_equal(i.ia64, 1);
	assert_int_equal(i.cid_bytes, 4);
	assert_int_equal(i.vmid_bytes, 4);
	assert_int_equal(i.cc_bits, 20); /* CCSIZE 8 */
	assert_int_equal(i.ts_bits, 64);
	assert_int_equal(i.commopt, 1);
	assert_int_equal(i.q, 1);
	assert_int_equal(i.cci, 0);
	assert_int_equal(i.wfx_p0, 1);
	assert_int_equal(i.trans_p0, 1); /* TRCIDR0 bit 30 clear */
	assert_int_equal(i.cond, 0);
	assert_int_equal(i.data, 0);
	/* tme_test: TRCIDR0 0x4801cea1, bit 30 set, COMMOPT 0. */
	c.trcidr0 = 0x4801cea1u;
	c.trcconfigr = 0x1;
	assert_int_equal(etm4_config_decode(&c, &i), 0);
	assert_int_equal(i.trans_p0, 0);
	assert_int_equal(i.commopt, 0);
	assert_int_equal(i.q, 0);
	/* ts_marker: ETE 1.1, TSMARK; 48-bit timestamps, RS, BB, CCI. */
	c = ete(1, (1u << 12) | (1u << 3) | CFGR_CCI);
	c.trcidr0 = 0x2681cea1u;
	c.trcidr8 = 78;
	assert_int_equal(etm4_config_decode(&c, &i), 0);
	assert_int_equal(i.minor, 1);
	assert_int_equal(i.tsmark, 1);
	assert_int_equal(i.ts_bits, 48);
	assert_int_equal(i.retstack, 1);
	assert_int_equal(i.bb, 1);
	assert_int_equal(i.cci, 1);
	assert_int_equal(i.maxspec, 78);
	/* COMMOPT without TRCCCI does not count (OpenCSD). */
	c.trcidr0 = 0x20000021u;
	assert_int_equal(etm4_config_decode(&c, &i), 0);
	assert_int_equal(i.commopt, 0);
	assert_int_equal(i.ts_bits, 0);
	/* ETE with TRCDEVARCH 0: ETE 1.0. A non-ETE ARCHVER is refused. */
	c = ete(3, 0);
	c.trcdevarch = 0;
	assert_int_equal(etm4_config_decode(&c, &i), 0);
	assert_int_equal(i.minor, 0);
	c.trcdevarch = 0x47704a13u; /* ARCHVER 4 */
	assert_int_equal(etm4_config_decode(&c, &i), -etmkit_err_bad_config);
	/* ETE forces conditional and data trace off. */
	c = ete(0, CFGR_COND | CFGR_DA);
	c.trcidr0 |= IDR0_TRCCOND;
	assert_int_equal(etm4_config_decode(&c, &i), 0);
	assert_int_equal(i.cond, 0);
	assert_int_equal(i.data, 0);
	c = v4(4, V4_IDR0 | IDR0_TRCCOND, CFGR_COND | CFGR_DA);
	assert_int_equal(etm4_config_decode(&c, &i), 0);
	assert_int_equal(i.ete, 0);
	assert_int_equal(i.major, 4);
	assert_int_equal(i.minor, 4);
	assert_int_equal(i.cond, 1);
	assert_int_equal(i.data, 1);
	/* Conditional tracing needs TRCIDR0.TRCCOND too; INSTP0 alone is
	 * data trace. */
	c = v4(4, V4_IDR0, CFGR_COND | (1u << 1));
	assert_int_equal(etm4_config_decode(&c, &i), 0);
	assert_int_equal(i.cond, 0);
	assert_int_equal(i.data, 1);
	/* VMIDSIZE 2 and 4 from ETMv4.1; 1 always. */
	c = v4(0, V4_IDR0, 0);
	assert_int_equal(etm4_config_decode(&c, &i), 0);
	assert_int_equal(i.vmid_bytes, 0);
	c.trcidr2 = (ETE_IDR2 & ~(0x1fu << 10)) | (1u << 10);
	assert_int_equal(etm4_config_decode(&c, &i), 0);
	assert_int_equal(i.vmid_bytes, 1);
	c.trcidr2 = (ETE_IDR2 & ~(0x1fu << 10)) | (2u << 10);
	c.trcidr1 = IDR1(1);
	assert_int_equal(etm4_config_decode(&c, &i), 0);
	assert_int_equal(i.vmid_bytes, 2);
	/* TRCIDR1 major 4 only; NULL and bad size. */
	c.trcidr1 = 0x4100fff0u;
	assert_int_equal(etm4_config_decode(&c, &i), -etmkit_err_bad_config);
	assert_int_equal(etm4_config_decode(NULL, &i), -etmkit_err_invalid);
	c = v4(4, V4_IDR0, 0);
	c.size = 8;
	assert_int_equal(etm4_config_decode(&c, &i), -etmkit_err_invalid);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(etm4_pkt_type_name(etm4_pkt_a_sync), "a_sync");
	assert_string_equal(etm4_pkt_type_name(etm4_pkt_trace_info), "trace_info");
	assert_string_equal(etm4_pkt_type_name(etm4_pkt_address_context),
			    "address_context");
	assert_string_equal(etm4_pkt_type_name(etm4_pkt_reserved), "reserved");
	assert_string_equal(etm4_pkt_type_name(etm4_pkt_type_count), "invalid");
	for (unsigned t = 0; t < etm4_pkt_type_count; t++)
		assert_string_not_equal(etm4_pkt_type_name(t), "invalid");
}


/* ---- Trace Info, Trace On, Timestamp (digest 5.2-5.4, 5.24) -------------- */

static void test_trace_info(void **state)
{
	struct etm4_config c = ete(0, CFGR_CCI);
	struct etm4_packet *p;

	(void)state;
	/* 01 00 (nothing present); 01 01 00 (INFO = 0); 01 09 01 16 (INFO =
	 * 1, CYCT = 0x16): then CC format 3 0x10 counts 0x16 + 0. */
	p = BODY(c, 0x01, 0x00, 0x01, 0x01, 0x00, 0x01, 0x09, 0x01, 0x16, 0x10);
	is_pkt(&p[0], etm4_pkt_trace_info, 12, 2);
	assert_int_equal(p[0].u.tinfo.plctl, 0);
	is_pkt(&p[1], etm4_pkt_trace_info, 14, 3);
	assert_int_equal(p[1].u.tinfo.plctl, ETM4_TINFO_INFO);
	assert_int_equal(p[1].u.tinfo.info, 0);
	is_pkt(&p[2], etm4_pkt_trace_info, 17, 4);
	assert_int_equal(p[2].u.tinfo.plctl, ETM4_TINFO_INFO | ETM4_TINFO_CYCT);
	assert_int_equal(p[2].u.tinfo.info, 1);
	assert_int_equal(p[2].u.tinfo.cyct, 0x16);
	assert_int_equal(p[2].u.tinfo.spec, 0);
	is_pkt(&p[3], etm4_pkt_cycle_count, 21, 1);
	assert_int_equal(p[3].u.cc.count, 0x16);
	/* All five sections, multi-byte: INFO 0x81 0x01 = 0x81, KEY 0x05,
	 * SPEC 0xff 0x7f = 0x3fff, CYCT 0x80 0x80 0x01 = 0x4000, WNDW 0x02. */
	p = BODY(c, 0x01, 0x1f, 0x81, 0x01, 0x05, 0xff, 0x7f, 0x80, 0x80, 0x01,
		 0x02, 0x10);
	is_pkt(&p[0], etm4_pkt_trace_info, 12, 11);
	assert_int_equal(p[0].u.tinfo.info, 0x81);
	assert_int_equal(p[0].u.tinfo.key, 5);
	assert_int_equal(p[0].u.tinfo.spec, 0x3fff);
	assert_int_equal(p[0].u.tinfo.cyct, 0x4000);
	assert_int_equal(p[0].u.tinfo.wndw, 2);
	assert_int_equal(p[1].u.cc.count, 0x4000);
	/* The longest Trace Info: PLCTL and five sections of 5 bytes, 31
	 * bytes (ETM4_PKT_MAX_BYTES' reason). */
	p = BODY(c, 0x01, 0x9f, 0x80, 0x80, 0x80, 0x00,
		 0xff, 0xff, 0xff, 0xff, 0x0f, 0x80, 0x80, 0x80, 0x80, 0x01,
		 0x80, 0x80, 0x80, 0x80, 0x02, 0x80, 0x80, 0x80, 0x80, 0x03,
		 0x80, 0x80, 0x80, 0x80, 0x04, 0x04);
	is_pkt(&p[0], etm4_pkt_trace_info, 12, 31);
	assert_int_equal(p[0].u.tinfo.plctl, 0x1f);
	assert_int_equal(p[0].u.tinfo.info, 0xffffffffu);
	assert_int_equal(p[0].u.tinfo.key, 0x10000000u);
	assert_int_equal(p[0].u.tinfo.cyct, 0x30000000u);
	is_pkt(&p[1], etm4_pkt_trace_on, 43, 1);
	/* A section whose 5th byte continues is malformed (digest 11.3). */
	p = BODY(c, 0x01, 0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x04);
	assert_int_equal(p[0].type, etm4_pkt_trace_info);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].length, 7);
	is_pkt(&p[1], etm4_pkt_unsynced, 19, 1);
}

static void test_timestamps(void **state)
{
	struct etm4_config c = ete(0, 0);
	struct etm4_packet *p;

	(void)state;
	/* ts_marker: 02 d7 df 01 after Trace Info = 0x6fd7, 21 bits. */
	p = BODY(c, 0x01, 0x00, 0x02, 0xd7, 0xdf, 0x01);
	is_pkt(&p[1], etm4_pkt_timestamp, 14, 4);
	assert_int_equal(p[1].u.ts.value, 0x6fd7);
	assert_int_equal(p[1].u.ts.bits, 21);
	assert_int_equal(p[1].u.ts.has_cc, 0);
	/* a57_single_step: 7 bytes, upper bits explicitly zero. */
	p = BODY(c, 0x02, 0xc0, 0xa1, 0xc5, 0x97, 0x80, 0x80, 0x00);
	is_pkt(&p[0], etm4_pkt_timestamp, 12, 8);
	assert_int_equal(p[0].u.ts.value, 0x2f150c0);
	assert_int_equal(p[0].u.ts.bits, 49);
	/* ts_bit64_set: the 9-byte form, all of byte 9 is bits 63:56; then
	 * one byte replaces bits 6:0 only, and a Trace Info resets the
	 * reference. */
	p = BODY(c, 0x02, 0xe1, 0xcd, 0x81, 0x80, 0xff, 0xff, 0xff, 0xff, 0xff,
		 0x02, 0x05, 0x01, 0x00, 0x02, 0x05);
	is_pkt(&p[0], etm4_pkt_timestamp, 12, 10);
	assert_int_equal(p[0].u.ts.value, 0xfffffffff00066e1ull);
	assert_int_equal(p[0].u.ts.bits, 64);
	assert_int_equal(p[1].u.ts.value, 0xfffffffff0006685ull);
	assert_int_equal(p[1].u.ts.bits, 7);
	assert_int_equal(p[3].u.ts.value, 0x05);
	/* Eight bytes: 56 bits replaced, the top byte kept. */
	p = BODY(c, 0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		 0x02, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00);
	assert_int_equal(p[0].u.ts.value, ~0ull);
	is_pkt(&p[1], etm4_pkt_timestamp, 22, 9);
	assert_int_equal(p[1].u.ts.bits, 56);
	assert_int_equal(p[1].u.ts.value, 0xff00000000000001ull);
	/* Header 0x03: a cycle count follows (C7, at most 3 bytes), masked
	 * to 20 bits (TRCIDR2.CCSIZE 8), never offset by CYCT. */
	p = BODY(c, 0x01, 0x08, 0x16, 0x03, 0x05, 0xff, 0xff, 0x7f, 0x03, 0x05,
		 0x07);
	is_pkt(&p[1], etm4_pkt_timestamp, 15, 5);
	assert_int_equal(p[1].u.ts.has_cc, 1);
	assert_int_equal(p[1].u.ts.cc, 0x1fffff & 0xfffff);
	is_pkt(&p[2], etm4_pkt_timestamp, 20, 3);
	assert_int_equal(p[2].u.ts.cc, 7);
	/* A cycle count field of 3 continuing bytes is malformed. */
	p = BODY(c, 0x03, 0x05, 0x80, 0x80, 0x80, 0x04);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].length, 5);
}

static void test_single_byte_packets(void **state)
{
	struct etm4_config c = ete(3, 0);
	struct etm4_packet *p;

	(void)state;
	/* Trace On, Ignore, Events 71 and 7f, Transaction Start/Commit,
	 * Timestamp Marker (ETE 1.1+). */
	p = BODY(c, 0x04, 0x70, 0x71, 0x7f, 0x0a, 0x0b, 0x88);
	assert_int_equal(R.n, 8);
	is_pkt(&p[0], etm4_pkt_trace_on, 12, 1);
	is_pkt(&p[1], etm4_pkt_ignore, 13, 1);
	is_pkt(&p[2], etm4_pkt_event, 14, 1);
	assert_int_equal(p[2].u.event, 1);
	assert_int_equal(p[3].u.event, 0xf);
	is_pkt(&p[4], etm4_pkt_transaction_start, 16, 1);
	is_pkt(&p[5], etm4_pkt_transaction_commit, 17, 1);
	is_pkt(&p[6], etm4_pkt_ts_marker, 18, 1);
	assert_int_equal(p[6].raw[0], 0x88);
	/* ETMv4: Exception Return 07 (juno_r1_1); Ignore from ETMv4.3. */
	p = BODY(v4(3, V4_IDR0, 0), 0x07, 0x70);
	is_pkt(&p[0], etm4_pkt_exception_return, 12, 1);
	is_pkt(&p[1], etm4_pkt_ignore, 13, 1);
}

/* ---- Exceptions (digest 5.5) ---------------------------------------------- */

static void test_exceptions(void **state)
{
	struct etm4_config c = ete(0, 0);
	struct etm4_packet *p;

	(void)state;
	/* 06 05 Call, E1:E0 = 01; 06 1d IRQ, 01; 06 58 data fault, 10;
	 * 06 5c IRQ, 10. */
	p = BODY(c, 0x06, 0x05, 0x06, 0x1d, 0x06, 0x58, 0x06, 0x5c);
	is_pkt(&p[0], etm4_pkt_exception, 12, 2);
	assert_int_equal(p[0].u.exception.type, 0x02);
	assert_int_equal(p[0].u.exception.addr_interp, etm4_exc_addr_follows);
	assert_int_equal(p[1].u.exception.type, 0x0e);
	assert_int_equal(p[1].u.exception.addr_interp, etm4_exc_addr_follows);
	assert_int_equal(p[2].u.exception.type, 0x0c);
	assert_int_equal(p[2].u.exception.addr_interp, etm4_exc_addr_target);
	assert_int_equal(p[3].u.exception.type, 0x0e);
	assert_int_equal(p[3].u.exception.addr_interp, etm4_exc_addr_target);
	/* C = 1: a second byte with TYPE[9:5] and P. */
	p = BODY(c, 0x06, 0x87, 0x25, 0x04);
	is_pkt(&p[0], etm4_pkt_exception, 12, 3);
	assert_int_equal(p[0].u.exception.type, 0x03 | (5 << 5));
	assert_int_equal(p[0].u.exception.pending, 1);
	assert_int_equal(p[0].u.exception.addr_interp, 1);
	/* ETE transaction failure 06 31 70 (tme_test): three bytes though
	 * C = 0 (OpenCSD, U4); PE reset (type 0) too. */
	p = BODY(c, 0x06, 0x31, 0x70, 0x06, 0x01, 0x00, 0x04);
	is_pkt(&p[0], etm4_pkt_exception, 12, 3);
	assert_int_equal(p[0].u.exception.type, 0x18);
	assert_int_equal(p[0].u.exception.addr_interp, 1);
	is_pkt(&p[1], etm4_pkt_exception, 15, 3);
	assert_int_equal(p[1].u.exception.type, 0);
	is_pkt(&p[2], etm4_pkt_trace_on, 18, 1);
	/* ETMv4 (4.3+): 06 31 is two bytes, then 70 is an Ignore. */
	p = BODY(v4(4, V4_IDR0, 0), 0x06, 0x31, 0x70);
	is_pkt(&p[0], etm4_pkt_exception, 12, 2);
	assert_int_equal(p[0].u.exception.type, 0x18);
	is_pkt(&p[1], etm4_pkt_ignore, 14, 1);
}

/* ---- Cycle counts (digest 5.8) --------------------------------------------- */

static void test_cycle_counts(void **state)
{
	/* CYCT 0x16 from Trace Info 01 09 01 16. */
	struct etm4_config c1 = ete(0, CFGR_CCI);           /* COMMOPT 1 */
	struct etm4_config c0 = ete(0, CFGR_CCI);
	struct etm4_packet *p;

	(void)state;
	c0.trcidr0 &= ~IDR0_COMMOPT;                         /* COMMOPT 0 */
	c0.trcidr8 = 78;
	/* COMMOPT 1: 10 count 0x16; 0d f8 count 0x1e; 0f unknown, one byte;
	 * 0e 88 01 count 0x88 + 0x16 = 0x9e. No commits. */
	p = BODY(c1, 0x01, 0x09, 0x01, 0x16, 0x10, 0x0d, 0xf8, 0x0f, 0x0e, 0x88,
		 0x01);
	is_pkt(&p[1], etm4_pkt_cycle_count, 16, 1);
	assert_int_equal(p[1].u.cc.format, 3);
	assert_int_equal(p[1].u.cc.count, 0x16);
	assert_int_equal(p[1].u.cc.has_commit, 0);
	is_pkt(&p[2], etm4_pkt_cycle_count, 17, 2);
	assert_int_equal(p[2].u.cc.format, 2);
	assert_int_equal(p[2].u.cc.count, 0x1e);
	assert_int_equal(p[2].u.cc.has_commit, 0);
	is_pkt(&p[3], etm4_pkt_cycle_count, 19, 1);
	assert_int_equal(p[3].u.cc.format, 1);
	assert_int_equal(p[3].u.cc.unknown, 1);
	assert_int_equal(p[3].u.cc.count, 0);
	is_pkt(&p[4], etm4_pkt_cycle_count, 20, 3);
	assert_int_equal(p[4].u.cc.count, 0x9e);
	/* COMMOPT 0: 1c commit 4 count 0x16; 0c 96 commit 10 count 0x1c;
	 * 0e 01 21 commit 1 count 0x37; 0f 01 commit 1, unknown; 0d 30
	 * (F = 1) commit MAXSPEC - 15 + 3 = 66, count 0x16. */
	p = BODY(c0, 0x01, 0x09, 0x01, 0x16, 0x1c, 0x0c, 0x96, 0x0e, 0x01, 0x21,
		 0x0f, 0x01, 0x0d, 0x30);
	assert_int_equal(p[1].u.cc.commit, 4);
	assert_int_equal(p[1].u.cc.has_commit, 1);
	assert_int_equal(p[1].u.cc.count, 0x16);
	is_pkt(&p[2], etm4_pkt_cycle_count, 17, 2);
	assert_int_equal(p[2].u.cc.commit, 10);
	assert_int_equal(p[2].u.cc.count, 0x1c);
	is_pkt(&p[3], etm4_pkt_cycle_count, 19, 3);
	assert_int_equal(p[3].u.cc.commit, 1);
	assert_int_equal(p[3].u.cc.count, 0x37);
	is_pkt(&p[4], etm4_pkt_cycle_count, 22, 2);
	assert_int_equal(p[4].u.cc.commit, 1);
	assert_int_equal(p[4].u.cc.unknown, 1);
	is_pkt(&p[5], etm4_pkt_cycle_count, 24, 2);
	assert_int_equal(p[5].u.cc.commit, 66);
	assert_int_equal(p[5].u.cc.count, 0x16);
	/* F = 1 with MAXSPEC < 15 - AAAA would commit a negative number. */
	c0.trcidr8 = 6;
	p = BODY(c0, 0x0d, 0x30);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	/* Format 1 count: at most 3 bytes, masked to 20 bits; commit at
	 * most 5 bytes. */
	p = BODY(c0, 0x0e, 0x01, 0xff, 0xff, 0x7f);
	assert_int_equal(p[0].u.cc.count, 0xfffff);
	p = BODY(c0, 0x0e, 0x01, 0x80, 0x80, 0x80, 0x04);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].length, 5);
	p = BODY(c0, 0x0e, 0x80, 0x80, 0x80, 0x80, 0x80, 0x04);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].length, 6);
	/* Without TRCCONFIGR.CCI, cycle count headers are reserved. */
	p = BODY(ete(0, 0), 0x10);
	assert_int_equal(p[0].type, etm4_pkt_reserved);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
}

/* ---- Speculation (digest 5.9-5.11) ----------------------------------------- */

static void test_commit_cancel_mispredict(void **state)
{
	struct etm4_config c = ete(0, 0);
	struct etm4_packet *p;
	char s[32];

	(void)state;
	p = BODY(c, 0x2d, 0x04, 0x2e, 0x04, 0x2f, 0x81, 0x01, 0x30, 0x31, 0x32,
		 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x3f);
	is_pkt(&p[0], etm4_pkt_commit, 12, 2);
	assert_int_equal(p[0].u.spec.count, 4);
	assert_int_equal(p[0].u.spec.atoms.count, 0);
	is_pkt(&p[1], etm4_pkt_cancel, 14, 2);
	assert_int_equal(p[1].u.spec.count, 4);
	assert_int_equal(p[1].u.spec.format, 1);
	assert_int_equal(p[1].u.spec.mispredict, 0);
	is_pkt(&p[2], etm4_pkt_cancel, 16, 3);
	assert_int_equal(p[2].u.spec.count, 0x81);
	assert_int_equal(p[2].u.spec.mispredict, 1);
	/* Mispredict 30-33: atoms none, E, E E, N. */
	for (int i = 0; i < 4; i++) {
		static const char *const aa[4] = { "", "E", "EE", "N" };

		is_pkt(&p[3 + i], etm4_pkt_mispredict, 19 + i, 1);
		assert_int_equal(p[3 + i].u.spec.mispredict, 1);
		assert_int_equal(p[3 + i].u.spec.count, 0);
		assert_string_equal(atoms_str(&p[3 + i].u.spec.atoms, s), aa[i]);
		/* Cancel format 2 34-37: the same atoms, cancel 1. */
		is_pkt(&p[7 + i], etm4_pkt_cancel, 23 + i, 1);
		assert_int_equal(p[7 + i].u.spec.format, 2);
		assert_int_equal(p[7 + i].u.spec.count, 1);
		assert_int_equal(p[7 + i].u.spec.mispredict, 1);
		assert_string_equal(atoms_str(&p[7 + i].u.spec.atoms, s), aa[i]);
	}
	/* Cancel format 3 0011 1CCA: 38 cancel 2, no atom; 3f cancel 5, E. */
	is_pkt(&p[11], etm4_pkt_cancel, 27, 1);
	assert_int_equal(p[11].u.spec.format, 3);
	assert_int_equal(p[11].u.spec.count, 2);
	assert_int_equal(p[11].u.spec.atoms.count, 0);
	assert_int_equal(p[12].u.spec.count, 5);
	assert_string_equal(atoms_str(&p[12].u.spec.atoms, s), "E");
	assert_int_equal(p[12].u.spec.mispredict, 1);
	/* Commit count of 5 continuing bytes: malformed. */
	p = BODY(c, 0x2d, 0x80, 0x80, 0x80, 0x80, 0x80, 0x04);
	assert_int_equal(p[0].type, etm4_pkt_commit);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].length, 6);
	/* The longest count: 5 bytes, 32 bits. */
	p = BODY(c, 0x2d, 0xff, 0xff, 0xff, 0xff, 0x0f);
	assert_int_equal(p[0].u.spec.count, 0xffffffffu);
}

/* ---- Atoms (digest 5.14) ----------------------------------------------------- */

static void test_atoms(void **state)
{
	static const struct { uint8_t b; const char *s; uint8_t fmt; } v[] = {
		{ 0xf6, "N", 1 }, { 0xf7, "E", 1 }, { 0xda, "NE", 2 },
		{ 0xd9, "EN", 2 }, { 0xdb, "EE", 2 }, { 0xd8, "NN", 2 },
		{ 0xfc, "NNE", 3 }, { 0xfb, "EEN", 3 }, { 0xfd, "ENE", 3 },
		{ 0xf8, "NNN", 3 }, { 0xff, "EEE", 3 },
		{ 0xdc, "NEEE", 4 }, { 0xdd, "NNNN", 4 }, { 0xde, "NENE", 4 },
		{ 0xdf, "ENEN", 4 }, { 0xd5, "NNNNN", 5 }, { 0xd6, "NENEN", 5 },
		{ 0xd7, "ENENE", 5 }, { 0xf5, "NEEEE", 5 }, { 0xc0, "EEEE", 6 },
		{ 0xc2, "EEEEEE", 6 }, { 0xe0, "EEEN", 6 }, { 0xc1, "EEEEE", 6 },
		{ 0xea, "EEEEEEEEEEEEEN", 6 },
		{ 0xd4, "EEEEEEEEEEEEEEEEEEEEEEEE", 6 },
		{ 0xf4, "EEEEEEEEEEEEEEEEEEEEEEEN", 6 },
	};
	const size_t nv = sizeof(v) / sizeof(v[0]);
	struct etm4_config c = ete(0, 0);
	uint8_t b[64];
	struct etm4_packet *p;
	char s[32];

	(void)state;
	for (size_t i = 0; i < nv; i++)
		b[i] = v[i].b;
	p = body(&c, b, nv, &R);
	assert_int_equal(R.n, (int)nv + 1);
	for (size_t i = 0; i < nv; i++) {
		is_pkt(&p[i], etm4_pkt_atom, 12 + i, 1);
		assert_string_equal(atoms_str(&p[i].u.atoms, s), v[i].s);
		assert_int_equal(p[i].u.atoms.format, v[i].fmt);
		assert_int_equal(p[i].raw[0], v[i].b);
	}
	/* Every header from 0xc0 is an atom packet, in every configuration. */
	for (unsigned x = 0xc0; x < 0x100; x++)
		b[x - 0xc0] = (uint8_t)x;
	p = body(&c, b, 64, &R);
	for (unsigned i = 0; i < 64; i++) {
		assert_int_equal(p[i].type, etm4_pkt_atom);
		assert_true(p[i].u.atoms.count >= 1 && p[i].u.atoms.count <= 24);
		assert_true(p[i].u.atoms.bits >> p[i].u.atoms.count == 0);
	}
}

/* ---- Addresses (digest 2.3, 2.4, 5.19, 5.20, 5.22) ----------------------- */


static void test_address_vectors(void **state)
{
	struct etm4_config c = ete(0, 0);
	struct etm4_packet *p;

	(void)state;
	/* ete_spec_1, digest 9.1: 9a 4e 4a 06 00 = 0x69538; 95 b0 4f with
	 * H0 0x69538 = 0x69ec0; 95 ca 1e = 0x63d28; 95 4b = 0x63d2c. */
	p = BODY(c, 0x01, 0x00, 0x9a, 0x4e, 0x4a, 0x06, 0x00, 0x95, 0xb0, 0x4f,
		 0x95, 0xca, 0x1e, 0x95, 0x4b);
	is_pkt(&p[1], etm4_pkt_address, 14, 5);
	is_addr(&p[1], 0x69538, 0, etm4_addr_long32);
	assert_int_equal(p[1].u.a.addr.bits, 32);
	is_pkt(&p[2], etm4_pkt_address, 19, 3);
	is_addr(&p[2], 0x69ec0, 0, etm4_addr_short);
	assert_int_equal(p[2].u.a.addr.bits, 17);
	is_addr(&p[3], 0x63d28, 0, etm4_addr_short);
	is_pkt(&p[4], etm4_pkt_address, 25, 2);
	is_addr(&p[4], 0x63d2c, 0, etm4_addr_short);
	assert_int_equal(p[4].u.a.addr.bits, 9);
	/* 9d: 64-bit IS0 (juno-uname-002); ete_mem's 64-bit values. */
	p = BODY(c, 0x9d, 0x71, 0x1a, 0x09, 0x00, 0xc0, 0xff, 0xff, 0xff,
		 0x9d, 0x0e, 0x02, 0x00, 0x80, 0x00, 0x00, 0x00, 0x63);
	is_pkt(&p[0], etm4_pkt_address, 12, 9);
	is_addr(&p[0], 0xffffffc0000935c4ull, 0, etm4_addr_long64);
	assert_int_equal(p[0].u.a.addr.bits, 64);
	is_addr(&p[1], 0x6300000080000438ull, 0, etm4_addr_long64);
	/* IS1: 83 01 9a 4f 00 00 = 0x4f9a02 T32, EL0 Secure AArch32; then
	 * 96 81 9a = 0x4f9a02 (armv8_1m_branches). 9b, 9e: IS1 long. */
	p = BODY(v4(5, 0x280006e1u, 1), 0x83, 0x01, 0x9a, 0x4f, 0x00, 0x00,
		 0x96, 0x81, 0x9a, 0x96, 0x05, 0x9b, 0x81, 0x9a, 0x4f, 0x00,
		 0x9e, 0x03, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde);
	is_pkt(&p[0], etm4_pkt_address_context, 12, 6);
	is_addr(&p[0], 0x4f9a02, 1, etm4_addr_long32);
	assert_int_equal(p[0].u.a.context.updated, 1);
	assert_int_equal(p[0].u.a.context.sf, 0);
	assert_int_equal(p[0].u.a.context.el, 0);
	assert_int_equal(p[0].u.a.context.ns, 0);
	is_pkt(&p[1], etm4_pkt_address, 18, 3);
	is_addr(&p[1], 0x4f9a02, 1, etm4_addr_short);
	assert_int_equal(p[1].u.a.addr.bits, 16);
	is_addr(&p[2], 0x4f9a0a, 1, etm4_addr_short); /* 8 bits: A[7:1] */
	assert_int_equal(p[2].u.a.addr.bits, 8);
	is_addr(&p[3], 0x4f9a02, 1, etm4_addr_long32);
	is_addr(&p[4], 0xdebc9a7856341206ull, 1, etm4_addr_long64);
}

static void test_address_history(void **state)
{
	struct etm4_config c = ete(0, 0);
	struct etm4_packet *p;

	(void)state;
	/* texit-poe2: 95 b3 c2 = 0x184cc; 90 re-pushes it, so 91 is
	 * 0x184cc too. */
	p = BODY(c, 0x01, 0x00, 0x95, 0xb3, 0xc2, 0xfc, 0x90, 0xfc, 0x91);
	is_addr(&p[1], 0x184cc, 0, etm4_addr_short);
	is_pkt(&p[3], etm4_pkt_address, 18, 1);
	is_addr(&p[3], 0x184cc, 0, etm4_addr_exact);
	assert_int_equal(p[3].u.a.addr.hist, 0);
	is_addr(&p[5], 0x184cc, 0, etm4_addr_exact);
	assert_int_equal(p[5].u.a.addr.hist, 1);
	/* Push A = 0x4, B = 0x6 (IS1), C = 0x14: [C B A]. 92 is A and
	 * pushes it: [A C B]; 92 is now B: [B A C]; 91 is A; 90 is A. A
	 * Trace Info resets all three to 0, IS0. */
	p = BODY(c, 0x9a, 0x01, 0x00, 0x00, 0x00, 0x9b, 0x03, 0x00, 0x00, 0x00,
		 0x9a, 0x05, 0x00, 0x00, 0x00, 0x92, 0x92, 0x91, 0x90, 0x01,
		 0x00, 0x92, 0x95, 0x01);
	is_addr(&p[2], 0x14, 0, etm4_addr_long32);
	is_addr(&p[3], 0x4, 0, etm4_addr_exact);
	assert_int_equal(p[3].u.a.addr.hist, 2);
	is_addr(&p[4], 0x6, 1, etm4_addr_exact);
	is_addr(&p[5], 0x4, 0, etm4_addr_exact);
	assert_int_equal(p[5].u.a.addr.hist, 1);
	is_addr(&p[6], 0x4, 0, etm4_addr_exact);
	is_addr(&p[8], 0x0, 0, etm4_addr_exact);  /* after Trace Info */
	is_addr(&p[9], 0x4, 0, etm4_addr_short);  /* merged with 0 */
}

static void test_long32_upper_half(void **state)
{
	struct etm4_config c = ete(0, 0);
	struct etm4_packet *p;

	(void)state;
	/* Policy (digest 2.3, U17): a 32-bit address keeps A[63:32] of H0
	 * only when the last context since sync is AArch64. Before any
	 * context: zero-extended. */
	p = BODY(c, 0x9d, 0x00, 0x00, 0x00, 0x00, 0xc0, 0xff, 0xff, 0xff,
		 0x9a, 0x01, 0x00, 0x00, 0x00,
		 0x9d, 0x00, 0x00, 0x00, 0x00, 0xc0, 0xff, 0xff, 0xff,
		 0x81, 0x31, 0x9a, 0x01, 0x00, 0x00, 0x00,
		 0x80, 0x9a, 0x02, 0x00, 0x00, 0x00,
		 0x81, 0x01, 0x9a, 0x03, 0x00, 0x00, 0x00);
	is_addr(&p[1], 0x4, 0, etm4_addr_long32);
	is_addr(&p[4], 0xffffffc000000004ull, 0, etm4_addr_long32);
	is_addr(&p[6], 0xffffffc000000008ull, 0, etm4_addr_long32); /* 80 */
	is_addr(&p[8], 0xc, 0, etm4_addr_long32); /* AArch32 */
	/* Address with Context: by the context in the same packet. */
	p = BODY(c, 0x9d, 0x00, 0x00, 0x00, 0x00, 0xc0, 0xff, 0xff, 0xff,
		 0x82, 0x01, 0x00, 0x00, 0x00, 0x11,
		 0x9d, 0x00, 0x00, 0x00, 0x00, 0xc0, 0xff, 0xff, 0xff,
		 0x82, 0x01, 0x00, 0x00, 0x00, 0x01);
	is_addr(&p[1], 0xffffffc000000004ull, 0, etm4_addr_long32);
	is_addr(&p[3], 0x4, 0, etm4_addr_long32);
	/* Short addresses merge with H0 whatever the context. */
	p = BODY(c, 0x9d, 0x00, 0x00, 0x00, 0x00, 0xc0, 0xff, 0xff, 0xff, 0x95, 0x7f);
	is_addr(&p[1], 0xffffffc0000001fcull, 0, etm4_addr_short);
}

static void test_context(void **state)
{
	struct etm4_config c = ete(0, 0);
	struct etm4_packet *p;

	(void)state;
	/* 81 31 EL1 NS AArch64; 81 30 EL0; 81 1b EL3 Root (NSE 1, NS 0);
	 * 81 39 EL1 Realm; 80 unchanged. */
	p = BODY(c, 0x81, 0x31, 0x81, 0x30, 0x81, 0x1b, 0x81, 0x39, 0x80);
	is_pkt(&p[0], etm4_pkt_context, 12, 2);
	assert_int_equal(p[0].u.context.updated, 1);
	assert_int_equal(p[0].u.context.el, 1);
	assert_int_equal(p[0].u.context.sf, 1);
	assert_int_equal(p[0].u.context.ns, 1);
	assert_int_equal(p[0].u.context.nse, 0);
	assert_int_equal(p[0].u.context.has_vmid, 0);
	assert_int_equal(p[0].u.context.has_cid, 0);
	assert_int_equal(p[1].u.context.el, 0);
	assert_int_equal(p[2].u.context.el, 3);
	assert_int_equal(p[2].u.context.nse, 1);
	assert_int_equal(p[2].u.context.ns, 0);
	assert_int_equal(p[3].u.context.el, 1);
	assert_int_equal(p[3].u.context.nse, 1);
	assert_int_equal(p[3].u.context.ns, 1);
	is_pkt(&p[4], etm4_pkt_context, 20, 1);
	assert_int_equal(p[4].u.context.updated, 0);
	/* a57_single_step: 81 f2 + VMID (4) + CID (4). */
	p = BODY(c, 0x81, 0xf2, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88);
	is_pkt(&p[0], etm4_pkt_context, 12, 10);
	assert_int_equal(p[0].u.context.el, 2);
	assert_int_equal(p[0].u.context.has_vmid, 1);
	assert_int_equal(p[0].u.context.vmid, 0x44332211);
	assert_int_equal(p[0].u.context.has_cid, 1);
	assert_int_equal(p[0].u.context.context_id, 0x88776655);
	/* trace_file_cid_vmid: 82 6e 08 0a 00 f1 + VMID 0 + CID 0x4300. */
	p = BODY(c, 0x82, 0x6e, 0x08, 0x0a, 0x00, 0xf1, 0x00, 0x00, 0x00, 0x00,
		 0x00, 0x43, 0x00, 0x00);
	is_pkt(&p[0], etm4_pkt_address_context, 12, 14);
	is_addr(&p[0], 0xa11b8, 0, etm4_addr_long32);
	assert_int_equal(p[0].u.a.context.el, 1);
	assert_int_equal(p[0].u.a.context.ns, 1);
	assert_int_equal(p[0].u.a.context.sf, 1);
	assert_int_equal(p[0].u.a.context.vmid, 0);
	assert_int_equal(p[0].u.a.context.context_id, 0x4300);
	/* ete_spec_1 82 21 0a 0c 00 11: 0xc1484, EL1 Secure AArch64;
	 * juno-uname-002 85 ... 31: 0xffffffc0001ae0a0, EL1 NS. */
	p = BODY(c, 0x82, 0x21, 0x0a, 0x0c, 0x00, 0x11, 0x85, 0x28, 0x70, 0x1a,
		 0x00, 0xc0, 0xff, 0xff, 0xff, 0x31);
	is_addr(&p[0], 0xc1484, 0, etm4_addr_long32);
	assert_int_equal(p[0].u.a.context.ns, 0);
	is_pkt(&p[1], etm4_pkt_address_context, 18, 10);
	is_addr(&p[1], 0xffffffc0001ae0a0ull, 0, etm4_addr_long64);
	/* VMID sizes: 1 and 2 bytes (ETMv4.1+); 86 is 64-bit IS1. */
	c = v4(1, V4_IDR0, 0);
	c.trcidr2 = (ETE_IDR2 & ~(0x1fu << 10)) | (2u << 10);
	p = BODY(c, 0x81, 0x40, 0x34, 0x12, 0x86, 0x01, 0, 0, 0, 0, 0, 0, 0,
		 0xc0, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12);
	is_pkt(&p[0], etm4_pkt_context, 12, 4);
	assert_int_equal(p[0].u.context.vmid, 0x1234);
	is_pkt(&p[1], etm4_pkt_address_context, 16, 16);
	is_addr(&p[1], 0x2, 1, etm4_addr_long64);
	assert_int_equal(p[1].u.a.context.context_id, 0x12345678);
	/* A V bit with VMIDSIZE 0: the registers do not describe this trace:
	 * malformed rather than a silent loss of alignment. */
	c.trcidr2 = ETE_IDR2 & ~(0x1fu << 10);
	p = BODY(c, 0x81, 0x40, 0x04);
	assert_int_equal(p[0].type, etm4_pkt_context);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].length, 2);
}

static void test_source_addresses(void **state)
{
	struct etm4_config c = ete(0, 0);
	struct etm4_packet *p;

	(void)state;
	/* src_addr: history 0x1b0f8, then b4 48 = 0x1b120; b6 31 03 06 00 =
	 * 0x606c4. ete_ip: b5 7c on 0x1a8688 = 0x1a86f8 (IS1). */
	p = BODY(c, 0x9a, 0x3e, 0x58, 0x01, 0x00, 0xb4, 0x48, 0xb6, 0x31, 0x03,
		 0x06, 0x00, 0x9a, 0x22, 0x43, 0x1a, 0x00, 0xb5, 0x7c, 0xb0, 0xb2,
		 0xb7, 0x01, 0x00, 0x00, 0x00, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0x80,
		 0xb9, 0x01, 0, 0, 0, 0, 0, 0, 0);
	is_addr(&p[0], 0x1b0f8, 0, etm4_addr_long32);
	is_pkt(&p[1], etm4_pkt_source_address, 17, 2);
	is_addr(&p[1], 0x1b120, 0, etm4_addr_short);
	is_pkt(&p[2], etm4_pkt_source_address, 19, 5);
	is_addr(&p[2], 0x606c4, 0, etm4_addr_long32);
	is_addr(&p[3], 0x1a8688, 0, etm4_addr_long32);
	is_addr(&p[4], 0x1a86f8, 1, etm4_addr_short);
	is_pkt(&p[5], etm4_pkt_source_address, 31, 1);
	is_addr(&p[5], 0x1a86f8, 1, etm4_addr_exact);
	is_addr(&p[6], 0x1a8688, 0, etm4_addr_exact); /* [F8 F8 88]: H2 */
	assert_int_equal(p[6].u.a.addr.hist, 2);
	is_addr(&p[7], 0x2, 1, etm4_addr_long32);
	is_pkt(&p[8], etm4_pkt_source_address, 38, 9);
	is_addr(&p[8], 0x8000000000000000ull, 0, etm4_addr_long64);
	is_addr(&p[9], 0x2, 1, etm4_addr_long64);
	/* Reserved in ETMv4. */
	p = BODY(v4(4, V4_IDR0, 0), 0xb4, 0x48);
	assert_int_equal(p[0].type, etm4_pkt_reserved);
}

/* ---- Q (digest 5.17) ------------------------------------------------------- */

static void test_q(void **state)
{
	struct etm4_config c = ete(0, CFGR_QE);
	struct etm4_packet *p;

	(void)state;
	/* q_elem: aa 34 3f 06 00 03 = 0x67ed0, count 3; 95 96 44 =
	 * 0x68858; a5 86 1c 03 = 0x63818, count 3. */
	p = BODY(c, 0x01, 0x00, 0xaa, 0x34, 0x3f, 0x06, 0x00, 0x03, 0x95, 0x96,
		 0x44, 0xa5, 0x86, 0x1c, 0x03);
	is_pkt(&p[1], etm4_pkt_q, 14, 6);
	assert_int_equal(p[1].u.q.qtype, 0xa);
	assert_int_equal(p[1].u.q.has_addr, 1);
	assert_int_equal(p[1].u.q.has_count, 1);
	assert_int_equal(p[1].u.q.count, 3);
	assert_int_equal(p[1].u.q.addr.addr, 0x67ed0);
	assert_int_equal(p[2].u.a.addr.addr, 0x68858);
	is_pkt(&p[3], etm4_pkt_q, 23, 4);
	assert_int_equal(p[3].u.q.addr.addr, 0x63818);
	assert_int_equal(p[3].u.q.addr.form, etm4_addr_short);
	assert_int_equal(p[3].u.q.count, 3);
	/* The Q addresses were pushed, [63818 68858 67ED0]: 90 = 0x63818,
	 * then [63818 63818 68858]: 92 = 0x68858. */
	p = BODY(c, 0x01, 0x00, 0xaa, 0x34, 0x3f, 0x06, 0x00, 0x03, 0x95, 0x96,
		 0x44, 0xa5, 0x86, 0x1c, 0x03, 0x90, 0x92,
		 /* a0-a2: exact match + count (re-pushed); a6 short IS1; ab
		  * long IS1; ac count only; af nothing. */
		 0xa2, 0x81, 0x01, 0xa6, 0x05, 0x07, 0xab, 0x01, 0, 0, 0, 0x00,
		 0xac, 0x09, 0xaf, 0x04);
	assert_int_equal(p[4].u.a.addr.addr, 0x63818);
	assert_int_equal(p[5].u.a.addr.addr, 0x68858);
	/* History now [68858 63818 63818]: a2 = 0x63818, count 0x81. */
	is_pkt(&p[6], etm4_pkt_q, 29, 3);
	assert_int_equal(p[6].u.q.addr.addr, 0x63818);
	assert_int_equal(p[6].u.q.addr.form, etm4_addr_exact);
	assert_int_equal(p[6].u.q.count, 0x81);
	is_pkt(&p[7], etm4_pkt_q, 32, 3);
	assert_int_equal(p[7].u.q.addr.addr, 0x6380a);
	assert_int_equal(p[7].u.q.addr.is, 1);
	assert_int_equal(p[7].u.q.count, 7);
	is_pkt(&p[8], etm4_pkt_q, 35, 6);
	assert_int_equal(p[8].u.q.addr.addr, 0x2);
	assert_int_equal(p[8].u.q.count, 0);
	is_pkt(&p[9], etm4_pkt_q, 41, 2);
	assert_int_equal(p[9].u.q.has_addr, 0);
	assert_int_equal(p[9].u.q.addr_follows, 1);
	assert_int_equal(p[9].u.q.count, 9);
	is_pkt(&p[10], etm4_pkt_q, 43, 1);
	assert_int_equal(p[10].u.q.has_count, 0);
	assert_int_equal(p[10].u.q.addr_follows, 1);
	is_pkt(&p[11], etm4_pkt_trace_on, 44, 1);
	/* Reserved Q types; Q off (QE 0 or QSUPP 0). */
	for (unsigned t = 0; t < 16; t++) {
		uint8_t b = (uint8_t)(0xa0 + t);
		int reserved = t == 3 || t == 4 || t == 7 || t == 8 || t == 9 ||
			       t == 0xd || t == 0xe;

		p = body(&c, &b, 1, &R);
		assert_int_equal(p[0].type == etm4_pkt_reserved, reserved);
	}
	p = BODY(ete(0, 0), 0xaf);
	assert_int_equal(p[0].type, etm4_pkt_reserved);
	c.trcidr0 &= ~IDR0_QSUPP;
	p = BODY(c, 0xaf);
	assert_int_equal(p[0].type, etm4_pkt_reserved);
}

/* ---- ETE instrumentation, ETMv4 conditional and data-sync packets --------- */

static void test_ite(void **state)
{
	struct etm4_packet *p;

	(void)state;
	/* ete-ite-instr: 09 01 ff ff 0f 00 00 00 00 00 = EL1, 0xfffff; the
	 * 10th byte is bits 63:56. */
	p = BODY(ete(3, 0), 0x09, 0x01, 0xff, 0xff, 0x0f, 0, 0, 0, 0, 0,
		 0x09, 0x02, 0x01, 0, 0, 0, 0, 0, 0, 0x80);
	is_pkt(&p[0], etm4_pkt_instrumentation, 12, 10);
	assert_int_equal(p[0].u.ite.el, 1);
	assert_int_equal(p[0].u.ite.value, 0xfffff);
	is_pkt(&p[1], etm4_pkt_instrumentation, 22, 10);
	assert_int_equal(p[1].u.ite.el, 2);
	assert_int_equal(p[1].u.ite.value, 0x8000000000000001ull);
	/* FEAT_ITE is ETE 1.3. */
	p = BODY(ete(2, 0), 0x09);
	assert_int_equal(p[0].type, etm4_pkt_reserved);
	p = BODY(v4(6, V4_IDR0, 0), 0x09);
	assert_int_equal(p[0].type, etm4_pkt_reserved);
}

static void test_conditional_and_data_sync(void **state)
{
	struct etm4_config c = v4(4, V4_IDR0 | IDR0_TRCCOND, CFGR_COND | CFGR_DA);
	struct etm4_packet *p;

	(void)state;
	p = BODY(c, 0x6c, 0x85, 0x01, 0x40, 0x42, 0x6d, 0x0b, 0x43, 0x44, 0x46,
		 0x49, 0x4e, 0x5a, 0xbc, 0x68, 0x93, 0x02, 0x25, 0x6f, 0x17,
		 0x23, 0x2c);
	is_pkt(&p[0], etm4_pkt_cond_instr, 12, 3);
	assert_int_equal(p[0].u.cond.format, 1);
	assert_int_equal(p[0].u.cond.key, 0x85);
	is_pkt(&p[1], etm4_pkt_cond_instr, 15, 1);
	assert_int_equal(p[1].u.cond.format, 2);
	assert_int_equal(p[1].u.cond.token, 0);
	assert_int_equal(p[2].u.cond.token, 2);
	is_pkt(&p[3], etm4_pkt_cond_instr, 17, 2);
	assert_int_equal(p[3].u.cond.format, 3);
	assert_int_equal(p[3].u.cond.num, 5);
	assert_int_equal(p[3].u.cond.flags, 1);
	is_pkt(&p[4], etm4_pkt_cond_flush, 19, 1);
	is_pkt(&p[5], etm4_pkt_cond_result, 20, 1);
	assert_int_equal(p[5].u.cond.format, 4);
	assert_int_equal(p[6].u.cond.token, 2);
	is_pkt(&p[7], etm4_pkt_cond_result, 22, 1);
	assert_int_equal(p[7].u.cond.format, 2);
	assert_int_equal(p[7].u.cond.flags, 0);
	assert_int_equal(p[7].u.cond.token, 1);
	assert_int_equal(p[8].u.cond.flags, 1);
	assert_int_equal(p[8].u.cond.token, 2);
	is_pkt(&p[9], etm4_pkt_cond_result, 24, 2);
	assert_int_equal(p[9].u.cond.format, 3);
	assert_int_equal(p[9].u.cond.token, 0xabc);
	/* F1, two results: 93 02 = RESULT 3, KEY 1 | 2 << 3; 25 = RESULT 5,
	 * KEY 2. Then one result 6f: 17. */
	is_pkt(&p[10], etm4_pkt_cond_result, 26, 4);
	assert_int_equal(p[10].u.cond.format, 1);
	assert_int_equal(p[10].u.cond.num, 2);
	assert_int_equal(p[10].u.cond.flags, 0);
	assert_int_equal(p[10].u.cond.result, 3);
	assert_int_equal(p[10].u.cond.key, 0x11);
	assert_int_equal(p[10].u.cond.result2, 5);
	assert_int_equal(p[10].u.cond.key2, 2);
	is_pkt(&p[11], etm4_pkt_cond_result, 30, 2);
	assert_int_equal(p[11].u.cond.num, 1);
	assert_int_equal(p[11].u.cond.flags, 1);
	assert_int_equal(p[11].u.cond.result, 7);
	assert_int_equal(p[11].u.cond.key, 1);
	is_pkt(&p[12], etm4_pkt_data_sync, 32, 1);
	assert_int_equal(p[12].u.cond.num, 3);
	assert_int_equal(p[12].u.cond.flags, 0);
	assert_int_equal(p[13].u.cond.num, 4);
	assert_int_equal(p[13].u.cond.flags, 1);
	/* A result field longer than 6 bytes is malformed. */
	p = BODY(c, 0x6e, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x04);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].length, 7);
	/* Off: reserved (and always in ETE). */
	p = BODY(v4(4, V4_IDR0, 0), 0x6c, 0x01);
	assert_int_equal(p[0].type, etm4_pkt_reserved);
	p = BODY(v4(4, V4_IDR0, 0), 0x20);
	assert_int_equal(p[0].type, etm4_pkt_reserved);
	p = BODY(ete(0, CFGR_COND | CFGR_DA), 0x43);
	assert_int_equal(p[0].type, etm4_pkt_reserved);
}

/* Which headers are reserved, per configuration (digest 4, 6.1). */
static void test_reserved_per_configuration(void **state)
{
	/* Columns: the version- and feature-gated headers, and some reserved
	 * everywhere (08, 47, b3, ba, 84, 93, 97, 9c, 9f, 60, 89). */
	static const uint8_t hdr[] = { 0x05, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x10,
				       0x20, 0x40, 0x47, 0x70, 0x88, 0xa0, 0xb0,
				       0xb3, 0xba, 0x84, 0x93, 0x97, 0x9c, 0x9f,
				       0x60, 0x89 };
	/* Rows: the configurations below; 1 = valid. */
	static const char *const want[7] = {
		"00001100001001000000000", /* ETE 1.0 */
		"00001110001111000000000", /* ETE 1.1, CCI, QE */
		"00011100001101000000000", /* ETE 1.3, COND and DA ignored */
		"01000000000000000000000", /* ETMv4.0 */
		"01000011101010000000000", /* ETMv4.3, everything on */
		"01000000001100000000000", /* ETMv4.6 */
		"01000000100000000000000", /* ETMv4.2, COND only */
	};
	struct etm4_config cfgs[7];
	struct etm4_packet *p;

	(void)state;
	cfgs[0] = ete(0, 0);
	cfgs[1] = ete(1, CFGR_CCI | CFGR_QE);
	cfgs[2] = ete(3, CFGR_COND | CFGR_DA);
	cfgs[3] = v4(0, V4_IDR0, 0);
	cfgs[4] = v4(3, V4_IDR0 | IDR0_TRCCOND | IDR0_QSUPP,
		     CFGR_CCI | CFGR_QE | CFGR_COND | CFGR_DA);
	cfgs[5] = v4(6, V4_IDR0, 0);
	cfgs[6] = v4(2, V4_IDR0 | IDR0_TRCCOND, CFGR_COND);
	for (int ci = 0; ci < 7; ci++) {
		struct etm4_pkt_decoder *dec = mk(&cfgs[ci]);

		for (size_t h = 0; h < sizeof(hdr); h++) {
			int ok = dec->kind[hdr[h]] != ETM4_K_RESERVED;

			if (ok != (want[ci][h] == '1'))
				fail_msg("configuration %d, header 0x%02x: %s", ci,
					 hdr[h], ok ? "valid" : "reserved");
			if (!ok)
				assert_non_null(dec->why[hdr[h]]);
		}
		/* Valid everywhere. */
		for (unsigned b = 0xc0; b < 0x100; b++)
			assert_int_not_equal(dec->kind[b], ETM4_K_RESERVED);
		assert_int_equal(dec->kind[0x00], ETM4_K_EXT);
		assert_int_not_equal(dec->kind[0x2d], ETM4_K_RESERVED);
		assert_int_not_equal(dec->kind[0x9a], ETM4_K_RESERVED);
		etm4_pkt_free(dec);
	}
	/* A reserved header decodes as one error record of type reserved;
	 * the search for A-sync starts after it. */
	p = BODY(ete(0, 0), 0x84, 0x04);
	assert_int_equal(p[0].type, etm4_pkt_reserved);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].length, 1);
	assert_int_equal(p[0].raw[0], 0x84);
	assert_string_equal(p[0].why, "reserved header");
	is_pkt(&p[1], etm4_pkt_unsynced, 13, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_decode),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_trace_info),
		cmocka_unit_test(test_timestamps),
		cmocka_unit_test(test_single_byte_packets),
		cmocka_unit_test(test_exceptions),
		cmocka_unit_test(test_cycle_counts),
		cmocka_unit_test(test_commit_cancel_mispredict),
		cmocka_unit_test(test_atoms),
		cmocka_unit_test(test_address_vectors),
		cmocka_unit_test(test_address_history),
		cmocka_unit_test(test_long32_upper_half),
		cmocka_unit_test(test_context),
		cmocka_unit_test(test_source_addresses),
		cmocka_unit_test(test_q),
		cmocka_unit_test(test_ite),
		cmocka_unit_test(test_conditional_and_data_sync),
		cmocka_unit_test(test_reserved_per_configuration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
