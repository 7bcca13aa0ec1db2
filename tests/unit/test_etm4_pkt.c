/* ETMv4 / ETE packet decoder tests. Expected values are the digest's
 * (shared spec etmv4-ete.md: section 10 test vectors, worked out by hand
 * from the layouts of sections 2 and 5), not the decoder's output; the
 * capture test checks every packet of the raw (unformatted) captures under
 * ../shared against OpenCSD 1.8.0's listing of them. */
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
#include "packets/etmv4/etm4_internal.h"

#define TESTDATA ETMKIT_SHARED_DIR "/testdata"

/* Registers of the ETE snapshots (ete_spec_1 and most others, digest 9):
 * TRCIDR0 COMMOPT = 1, TRCCCI, QSUPP = 3, 64-bit TS; TRCIDR2 64-bit IA,
 * 32-bit CID and VMID, 20-bit cycle counter, WFXMODE. */
#define ETE_IDR0 0x2801cea1u
#define ETE_IDR2 0xd0001088u
#define DEVARCH(minor) (0x47705a13u | ((uint32_t)(minor) << 16))
/* ETMv4: TRCIDR1 with architecture 4.minor (digest 6.2). */
#define IDR1(minor) (0x4100f403u | ((uint32_t)(minor) << 4))
#define V4_IDR0 0x28000ea1u /* Juno A57 ETM */
#define CFGR_CCI (1u << 4)
#define CFGR_QE (1u << 13)
#define CFGR_COND (7u << 8)
#define CFGR_DA (1u << 16)
#define IDR0_COMMOPT (1u << 29)
#define IDR0_QSUPP (3u << 15)
#define IDR0_TRCCOND (1u << 6)

static const uint8_t async12[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80 };

static struct etm4_config ete(unsigned minor, uint32_t configr)
{
	struct etm4_config c;

	etm4_config_init(&c);
	c.trcidr0 = ETE_IDR0;
	c.trcidr1 = 0x4100fff0u;
	c.trcidr2 = ETE_IDR2;
	c.trcdevarch = DEVARCH(minor);
	c.trcconfigr = configr;
	c.flags = ETM4_CFG_ETE;
	return c;
}

static struct etm4_config v4(unsigned minor, uint32_t idr0, uint32_t configr)
{
	struct etm4_config c;

	etm4_config_init(&c);
	c.trcidr0 = idr0;
	c.trcidr1 = IDR1(minor);
	c.trcidr2 = ETE_IDR2;
	c.trcconfigr = configr;
	return c;
}

#define MAXREC 1024
struct run {
	struct etm4_packet p[MAXREC];
	int n;
};

static struct run R, R2; /* large: keep off the stack */

static struct etm4_pkt_decoder *mk(const struct etm4_config *c)
{
	struct etm4_pkt_decoder *dec = NULL;

	assert_int_equal(etm4_pkt_alloc(&dec, c), 0);
	return dec;
}

static void drain(struct etm4_pkt_decoder *dec, struct run *r, size_t batch)
{
	for (;;) {
		int n = etm4_pkt_next(dec, r->p + r->n, batch);

		if (n == -etmkit_err_eos)
			return;
		assert_true(n > 0);
		r->n += n;
		assert_true(r->n + (int)batch <= MAXREC);
	}
}

/* Decode @buf in chunks of @chunk bytes (0: all at once). */
static void decode_chunked(const struct etm4_config *c, const uint8_t *buf,
			   size_t len, size_t chunk, struct run *r)
{
	struct etm4_pkt_decoder *dec = mk(c);
	size_t step = chunk ? chunk : (len ? len : 1);

	memset(r, 0, sizeof(*r));
	for (size_t at = 0; at < len; at += step) {
		size_t n = len - at < step ? len - at : step;

		assert_int_equal(etm4_pkt_feed(dec, buf + at, n, NULL, at), 0);
		drain(dec, r, 8);
	}
	assert_int_equal(etm4_pkt_finish(dec), 0);
	drain(dec, r, 8);
	etm4_pkt_free(dec);
}

/* Decode A-sync then @body; returns the records after the A-sync. */
static struct etm4_packet *body(const struct etm4_config *c, const uint8_t *b,
				size_t len, struct run *r)
{
	static uint8_t buf[512];

	assert_true(len + sizeof(async12) <= sizeof(buf));
	memcpy(buf, async12, sizeof(async12));
	memcpy(buf + sizeof(async12), b, len);
	decode_chunked(c, buf, len + sizeof(async12), 0, r);
	assert_true(r->n >= 1);
	assert_int_equal(r->p[0].type, etm4_pkt_a_sync);
	assert_int_equal(r->p[0].error, 0);
	return &r->p[1];
}

static struct etm4_packet *body_with(struct etm4_config c, const uint8_t *b,
				     size_t len)
{
	return body(&c, b, len, &R);
}

/* Decode A-sync and the bytes given, with configuration @cfg, into R. */
#define BODY(cfg, ...)                                                         \
	body_with((cfg), (const uint8_t[]){ __VA_ARGS__ },                     \
		  sizeof((const uint8_t[]){ __VA_ARGS__ }))

/* One packet @len bytes long at @off, no error, of @type. */
static void is_pkt(const struct etm4_packet *p, unsigned type, uint64_t off,
		   unsigned len)
{
	if (p->type != type || p->offset != off || p->length != len || p->error)
		fail_msg("record %s at %llu, %u bytes, error %d: expected %s at "
			 "%llu, %u bytes", etm4_pkt_type_name(p->type),
			 (unsigned long long)p->offset, p->length, p->error,
			 etm4_pkt_type_name(type), (unsigned long long)off, len);
	assert_int_equal(p->size, len < ETM4_PKT_MAX_BYTES ? len : ETM4_PKT_MAX_BYTES);
}

static const char *atoms_str(const struct etm4_atoms *a, char *s)
{
	unsigned i;

	for (i = 0; i < a->count; i++)
		s[i] = (a->bits >> i) & 1 ? 'E' : 'N';
	s[i] = '\0';
	return s;
}

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

/* ---- Synchronisation (digest 3, 5.1, 5.12, 5.13) ------------------------- */

static void test_async_search(void **state)
{
	/* Garbage, then 13 zeros and 0x80: the A-sync is the last 11 zeros
	 * and the 0x80 (offset 5); garbage and 2 extra zeros are one
	 * unsynced record. */
	static const uint8_t b[] = { 0x12, 0x9a, 0x56, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				     0, 0, 0, 0, 0x80, 0x04 };
	struct etm4_config c = ete(0, 0);

	(void)state;
	decode_chunked(&c, b, sizeof(b), 0, &R);
	assert_int_equal(R.n, 3);
	is_pkt(&R.p[0], etm4_pkt_unsynced, 0, 5);
	assert_memory_equal(R.p[0].raw, b, 5);
	is_pkt(&R.p[1], etm4_pkt_a_sync, 5, 12);
	assert_memory_equal(R.p[1].raw, async12, 12);
	is_pkt(&R.p[2], etm4_pkt_trace_on, 17, 1);
	/* Ten zeros and 0x80 are not an A-sync: nothing syncs. */
	decode_chunked(&c, async12 + 1, 11, 0, &R);
	assert_int_equal(R.n, 1);
	is_pkt(&R.p[0], etm4_pkt_unsynced, 0, 11);
}

static void test_async_in_sync(void **state)
{
	struct etm4_config c = ete(0, 0);
	struct etm4_packet *p;

	(void)state;
	/* A periodic A-sync, Discard, Overflow. */
	p = BODY(c, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x00, 0x03,
		 0x00, 0x05, 0x04);
	assert_int_equal(R.n, 6);
	is_pkt(&p[0], etm4_pkt_trace_on, 12, 1);
	is_pkt(&p[1], etm4_pkt_a_sync, 13, 12);
	is_pkt(&p[2], etm4_pkt_discard, 25, 2);
	assert_int_equal(p[2].raw[1], 0x03);
	is_pkt(&p[3], etm4_pkt_overflow, 27, 2);
	is_pkt(&p[4], etm4_pkt_trace_on, 29, 1);
	/* Ten zeros and 0x80 in sync: malformed; the 0x80 and what follows
	 * are unsynced until the next A-sync. */
	p = BODY(c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x04);
	assert_int_equal(R.n, 3);
	assert_int_equal(p[0].type, etm4_pkt_a_sync);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].length, 10);
	is_pkt(&p[1], etm4_pkt_unsynced, 22, 2);
	/* 13 zeros and 0x80 in sync: the two extra zeros are malformed, the
	 * A-sync after them is kept. */
	p = BODY(c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x04);
	assert_int_equal(R.n, 4);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].offset, 12);
	assert_int_equal(p[0].length, 2);
	is_pkt(&p[1], etm4_pkt_a_sync, 14, 12);
	is_pkt(&p[2], etm4_pkt_trace_on, 26, 1);
	/* 00 07 (not Discard, Overflow or A-sync) is malformed (U2). */
	p = BODY(c, 0x00, 0x07, 0x04);
	assert_int_equal(R.n, 3);
	assert_int_equal(p[0].type, etm4_pkt_reserved);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].length, 2);
	assert_int_equal(p[0].raw[1], 0x07);
	is_pkt(&p[1], etm4_pkt_unsynced, 14, 1);
	/* Zeros followed by 0x03: not a Discard. */
	p = BODY(c, 0x00, 0x00, 0x03);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].length, 2);
	is_pkt(&p[1], etm4_pkt_unsynced, 14, 1);
}

static void test_resync_after_garbage(void **state)
{
	/* A reserved header (0x08), garbage with short zero runs, 12 zeros
	 * and 0x80: one error record, one unsynced record for everything up
	 * to the A-sync's 11 zeros, then decoding goes on. */
	static const uint8_t b[] = { 0x08, 0x9a, 0x00, 0x00, 0x80, 0xff, 0x00,
				     0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0xf7 };
	struct etm4_config c = ete(0, 0);
	struct etm4_packet *p;

	(void)state;
	p = body(&c, b, sizeof(b), &R);
	assert_int_equal(R.n, 5);
	assert_int_equal(p[0].type, etm4_pkt_reserved);
	assert_int_equal(p[0].error, -etmkit_err_bad_packet);
	assert_int_equal(p[0].length, 1);
	assert_non_null(p[0].why);
	is_pkt(&p[1], etm4_pkt_unsynced, 13, 6);
	is_pkt(&p[2], etm4_pkt_a_sync, 19, 12);
	is_pkt(&p[3], etm4_pkt_atom, 31, 1);
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

static void is_addr(const struct etm4_packet *p, uint64_t addr, unsigned is,
		    unsigned form)
{
	if (p->u.a.addr.addr != addr)
		fail_msg("address 0x%llx, expected 0x%llx",
			 (unsigned long long)p->u.a.addr.addr,
			 (unsigned long long)addr);
	assert_int_equal(p->u.a.addr.is, is);
	assert_int_equal(p->u.a.addr.form, form);
}

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

/* ---- Chunks, truncation, errors -------------------------------------------- */

/* A stream with every kind of packet, some errors and resyncs. */
static const uint8_t mixed[] = {
	0x55, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
	0x01, 0x09, 0x01, 0x16, 0x04, 0x82, 0x21, 0x0a, 0x0c, 0x00, 0x11,
	0xf6, 0x30, 0x2d, 0x01, 0x9a, 0x4e, 0x4a, 0x06, 0x00, 0xdb, 0x2d, 0x02,
	0x95, 0xb0, 0x4f, 0x02, 0xe1, 0xcd, 0x81, 0x80, 0xff, 0xff, 0xff, 0xff,
	0xff, 0x0e, 0x88, 0x01, 0x0d, 0xf8, 0x10, 0x81, 0xf2, 1, 2, 3, 4, 5, 6,
	7, 8, 0x90, 0xaa, 0x34, 0x3f, 0x06, 0x00, 0x03, 0x06, 0x31, 0x70,
	0xb4, 0x48, 0x88, 0x09, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 0x00, 0x03,
	0x2e, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x9a, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0x80, 0x85, 0x28, 0x70, 0x1a, 0x00, 0xc0, 0xff, 0xff, 0xff,
	0x31, 0x08, 0x9d, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0x80, 0x01, 0x00, 0x9a, 0x4e,
};

/* The fields of @p that mean something for its type (not padding or
 * unused union bytes). */
static void assert_same_pkt(const struct etm4_packet *a, const struct etm4_packet *b)
{
	assert_int_equal(a->offset, b->offset);
	assert_int_equal(a->type, b->type);
	assert_int_equal(a->length, b->length);
	assert_int_equal(a->size, b->size);
	assert_int_equal(a->error, b->error);
	assert_memory_equal(a->raw, b->raw, a->size);
	if (a->error)
		return;
	switch (a->type) {
	case etm4_pkt_address:
	case etm4_pkt_source_address:
	case etm4_pkt_address_context:
		assert_int_equal(a->u.a.addr.addr, b->u.a.addr.addr);
		assert_int_equal(a->u.a.addr.is, b->u.a.addr.is);
		break;
	case etm4_pkt_timestamp:
		assert_int_equal(a->u.ts.value, b->u.ts.value);
		break;
	case etm4_pkt_cycle_count:
		assert_int_equal(a->u.cc.count, b->u.cc.count);
		assert_int_equal(a->u.cc.commit, b->u.cc.commit);
		break;
	case etm4_pkt_atom:
		assert_int_equal(a->u.atoms.bits, b->u.atoms.bits);
		assert_int_equal(a->u.atoms.count, b->u.atoms.count);
		break;
	case etm4_pkt_q:
		assert_int_equal(a->u.q.addr.addr, b->u.q.addr.addr);
		assert_int_equal(a->u.q.count, b->u.q.count);
		break;
	case etm4_pkt_instrumentation:
		assert_int_equal(a->u.ite.value, b->u.ite.value);
		break;
	default:
		break;
	}
}

static void test_chunking_is_invisible(void **state)
{
	struct etm4_config c = ete(3, CFGR_CCI | CFGR_QE);
	uint64_t expect = 0;

	(void)state;
	decode_chunked(&c, mixed, sizeof(mixed), 0, &R);
	/* Every byte in exactly one record, in order. */
	for (int i = 0; i < R.n; i++) {
		assert_int_equal(R.p[i].offset, expect);
		expect += R.p[i].length;
	}
	assert_int_equal(expect, sizeof(mixed));
	assert_int_equal(R.p[R.n - 1].error, -etmkit_err_truncated);
	assert_int_equal(R.p[R.n - 1].type, etm4_pkt_address);
	assert_int_equal(R.p[R.n - 1].length, 2);
	for (size_t chunk = 1; chunk <= 17; chunk++) {
		decode_chunked(&c, mixed, sizeof(mixed), chunk, &R2);
		assert_int_equal(R2.n, R.n);
		for (int i = 0; i < R.n; i++)
			assert_same_pkt(&R.p[i], &R2.p[i]);
	}
}

static void test_offsets_array_and_batch_of_one(void **state)
{
	struct etm4_config c = ete(3, CFGR_CCI | CFGR_QE);
	static uint64_t offs[sizeof(mixed)];
	struct etm4_pkt_decoder *dec = mk(&c);

	(void)state;
	for (size_t i = 0; i < sizeof(mixed); i++)
		offs[i] = 1000 + 3 * i;
	decode_chunked(&c, mixed, sizeof(mixed), 0, &R);
	memset(&R2, 0, sizeof(R2));
	assert_int_equal(etm4_pkt_feed(dec, mixed, sizeof(mixed), offs, 0), 0);
	etm4_pkt_finish(dec);
	drain(dec, &R2, 1);
	assert_int_equal(R2.n, R.n);
	for (int i = 0; i < R.n; i++) {
		assert_int_equal(R2.p[i].offset, 1000 + 3 * R.p[i].offset);
		R2.p[i].offset = R.p[i].offset;
		assert_same_pkt(&R.p[i], &R2.p[i]);
	}
	etm4_pkt_free(dec);
}

/* ---- Atom runs (ETM4_CFG_ATOM_RUNS, digest 5.14) ---------------------------- */

static struct run R3;

static void test_atom_table(void **state)
{
	/* Decoded by hand from digest 5.14's layouts, E = 1, oldest first. */
	static const struct { uint8_t b; const char *s; uint8_t fmt; } v[] = {
		{ 0xf7, "E", 1 },   /* 1111 011A, A = 1 */
		{ 0xf6, "N", 1 },
		{ 0xd9, "EN", 2 },  /* 1101 10AA: A0 = 1, A1 = 0 */
		{ 0xfc, "NNE", 3 }, /* 1111 1AAA: A0 = 0, A1 = 0, A2 = 1 */
		{ 0xf9, "ENN", 3 },
		{ 0xdd, "NNNN", 4 },
		{ 0xf5, "NEEEE", 5 },
		{ 0xc2, "EEEEEE", 6 },     /* A = 0, CCCCC = 2: 5 E, then E */
		{ 0xe5, "EEEEEEEEN", 6 },  /* A = 1, CCCCC = 5: 8 E, then N */
		{ 0xf4, "EEEEEEEEEEEEEEEEEEEEEEEN", 6 }, /* CCCCC = 20 */
	};
	struct etm4_config c = ete(0, 0);
	const struct etm4_atoms *t;
	struct etm4_pkt_decoder *dec;
	char s[32];

	(void)state;
	assert_null(etm4_pkt_atom_table(NULL));
	c.flags |= ETM4_CFG_ATOM_RUNS;
	dec = mk(&c);
	t = etm4_pkt_atom_table(dec);
	assert_non_null(t);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		assert_string_equal(atoms_str(&t[v[i].b], s), v[i].s);
		assert_int_equal(t[v[i].b].format, v[i].fmt);
	}
	assert_int_equal(t[0xf4].bits, 0x7fffff);
	/* A-sync/extension, short address, Trace On: not atom headers. */
	assert_int_equal(t[0x00].count, 0);
	assert_int_equal(t[0x95].count, 0);
	assert_int_equal(t[0x04].count, 0);
	/* Exactly the headers from 0xc0 are atoms (digest 4, 5.14). */
	for (unsigned b = 0; b < 256; b++)
		assert_int_equal(t[b].count != 0, b >= 0xc0);
	etm4_pkt_free(dec);
	/* The same table in an ETMv4 configuration with every option. */
	c = v4(4, V4_IDR0 | IDR0_TRCCOND, CFGR_CCI | CFGR_COND | CFGR_DA);
	dec = mk(&c);
	t = etm4_pkt_atom_table(dec);
	assert_string_equal(atoms_str(&t[0xe5], s), "EEEEEEEEN");
	for (unsigned b = 0; b < 256; b++)
		assert_int_equal(t[b].count != 0, b >= 0xc0);
	etm4_pkt_free(dec);
}

/* A-sync, Trace Info, long address, 4 atoms, short address, 2 atoms,
 * Event, 2 atoms, Trace On, 1 atom, Commit, 3 atoms at the end. */
static const uint8_t atom_stream[] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
	0x01, 0x01, 0x00,                   /* 12 Trace Info */
	0x9a, 0x4e, 0x4a, 0x06, 0x00,       /* 15 address 0x69538 */
	0xf7, 0xdb, 0xfc, 0xc2,             /* 20 */
	0x95, 0x4b,                         /* 24 address 0x6952c */
	0xf6, 0xe5,                         /* 26 */
	0x71,                               /* 28 Event */
	0xd5, 0xdf,                         /* 29 */
	0x04,                               /* 31 Trace On */
	0xff,                               /* 32 */
	0x2d, 0x02,                         /* 33 Commit 2 */
	0xf5, 0xf6, 0xf4,                   /* 35, to the end */
};

/* An atom run of @count headers at @off, its headers @headers (the fed
 * input) and its offsets @offs. */
static void is_run(const struct etm4_packet *p, uint64_t off, unsigned count,
		   const uint8_t *headers, const uint64_t *offs)
{
	if (p->type != etm4_pkt_atom_run || p->offset != off ||
	    p->u.run.count != count || p->error)
		fail_msg("record %s at %llu, count %u, error %d: expected an "
			 "atom run at %llu, count %u", etm4_pkt_type_name(p->type),
			 (unsigned long long)p->offset, p->u.run.count, p->error,
			 (unsigned long long)off, count);
	assert_int_equal(p->length, count);
	assert_ptr_equal(p->u.run.headers, headers);
	assert_ptr_equal(p->u.run.offsets, offs);
	assert_int_equal(p->raw[0], headers[0]);
}

/* Run @p expanded into @out as the records the decoder gives without
 * runs (atom and address records), checked against @dec's table. */
static void expand_run_into(const struct etm4_pkt_decoder *dec,
			    const struct etm4_packet *p, struct run *out)
{
	const struct etm4_atoms *t = etm4_pkt_atom_table(dec);
	const struct etm4_atom_run *r = &p->u.run;
	uint32_t ia = 0;

	assert_true(r->count >= 1);
	assert_true(!r->naddr == !r->addrs);
	for (uint32_t k = 0; k < r->count;) {
		struct etm4_packet *a;
		uint32_t len = 1;

		assert_true(out->n < MAXREC);
		a = &out->p[out->n++];
		memset(a, 0, sizeof(*a));
		a->offset = r->offsets ? r->offsets[k] : p->offset + k;
		if (t[r->headers[k]].count) {
			a->type = etm4_pkt_atom;
			a->u.atoms = t[r->headers[k]];
		} else {
			assert_true(ia < r->naddr);
			len = r->addrs[ia].length;
			assert_true(len >= 1 && len <= r->count - k);
			a->type = etm4_pkt_address;
			a->u.a.addr = r->addrs[ia++].addr;
		}
		a->size = (uint8_t)len;
		a->length = len;
		memcpy(a->raw, r->headers + k, len);
		k += len;
	}
	assert_int_equal(ia, r->naddr);
}

/* @in with every run expanded (expand_run_into()), into @out. The runs'
 * headers point into the input, still there; only @c's atom table is
 * needed (atom runs have no addresses to outlive). */
static void expand_runs(const struct etm4_config *c, const struct run *in,
			struct run *out)
{
	struct etm4_pkt_decoder *dec = mk(c);

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < in->n; i++) {
		if (in->p[i].type != etm4_pkt_atom_run) {
			assert_true(out->n < MAXREC);
			out->p[out->n++] = in->p[i];
			continue;
		}
		assert_int_equal(in->p[i].u.run.naddr, 0);
		expand_run_into(dec, &in->p[i], out);
	}
	etm4_pkt_free(dec);
}

/* The same records, atoms' formats included. */
static void assert_same_run(const struct run *a, const struct run *b)
{
	assert_int_equal(a->n, b->n);
	for (int i = 0; i < a->n; i++) {
		assert_same_pkt(&a->p[i], &b->p[i]);
		if (a->p[i].type == etm4_pkt_atom && !a->p[i].error)
			assert_int_equal(a->p[i].u.atoms.format,
					 b->p[i].u.atoms.format);
	}
}

static void test_atom_runs(void **state)
{
	struct etm4_config plain = ete(0, 0), c = plain;
	const uint8_t *s = atom_stream;
	const struct etm4_atoms *t;
	struct etm4_pkt_decoder *dec;
	char str[32];

	(void)state;
	c.flags |= ETM4_CFG_ATOM_RUNS;
	decode_chunked(&c, s, sizeof(atom_stream), 0, &R);
	assert_int_equal(R.n, 12);
	is_pkt(&R.p[0], etm4_pkt_a_sync, 0, 12);
	is_pkt(&R.p[1], etm4_pkt_trace_info, 12, 3);
	is_pkt(&R.p[2], etm4_pkt_address, 15, 5);
	is_addr(&R.p[2], 0x69538, 0, etm4_addr_long32);
	is_run(&R.p[3], 20, 4, s + 20, NULL);
	is_pkt(&R.p[4], etm4_pkt_address, 24, 2);
	is_addr(&R.p[4], 0x6952c, 0, etm4_addr_short);
	is_run(&R.p[5], 26, 2, s + 26, NULL);
	is_pkt(&R.p[6], etm4_pkt_event, 28, 1);
	is_run(&R.p[7], 29, 2, s + 29, NULL);
	is_pkt(&R.p[8], etm4_pkt_trace_on, 31, 1);
	is_run(&R.p[9], 32, 1, s + 32, NULL);
	is_pkt(&R.p[10], etm4_pkt_commit, 33, 2);
	assert_int_equal(R.p[10].u.spec.count, 2);
	is_run(&R.p[11], 35, 3, s + 35, NULL);
	/* The first run's atoms, by hand: E; E E; N N E; 6 x E. */
	dec = mk(&c);
	t = etm4_pkt_atom_table(dec);
	assert_string_equal(atoms_str(&t[R.p[3].u.run.headers[0]], str), "E");
	assert_string_equal(atoms_str(&t[R.p[3].u.run.headers[1]], str), "EE");
	assert_string_equal(atoms_str(&t[R.p[3].u.run.headers[2]], str), "NNE");
	assert_string_equal(atoms_str(&t[R.p[3].u.run.headers[3]], str), "EEEEEE");
	etm4_pkt_free(dec);
	/* Without the flag: one atom record per header, the rest alike. */
	decode_chunked(&plain, s, sizeof(atom_stream), 0, &R2);
	assert_int_equal(R2.n, 12 - 5 + 12);
	is_pkt(&R2.p[3], etm4_pkt_atom, 20, 1);
	is_pkt(&R2.p[18], etm4_pkt_atom, 37, 1);
	expand_runs(&c, &R, &R3);
	assert_same_run(&R2, &R3);
	/* A stream with errors and resynchronisations, in every chunking:
	 * expanded, the same records as without runs in one feed. */
	decode_chunked(&plain, mixed, sizeof(mixed), 0, &R2);
	for (size_t chunk = 0; chunk <= 17; chunk++) {
		decode_chunked(&c, mixed, sizeof(mixed), chunk, &R);
		expand_runs(&c, &R, &R3);
		assert_same_run(&R2, &R3);
	}
}

/* Decode @buf[0..n) in one feed, byte i at offset @offs[i]. */
static void decode_offs(const struct etm4_config *c, const uint8_t *buf,
			size_t n, const uint64_t *offs, struct run *r)
{
	struct etm4_pkt_decoder *dec = mk(c);

	memset(r, 0, sizeof(*r));
	assert_int_equal(etm4_pkt_feed(dec, buf, n, offs, 0), 0);
	assert_int_equal(etm4_pkt_finish(dec), 0);
	drain(dec, r, 8);
	etm4_pkt_free(dec);
}

static void test_atom_runs_offsets_array(void **state)
{
	static uint64_t offs[sizeof(atom_stream)];
	struct etm4_config plain = ete(0, 0), c = plain;

	(void)state;
	c.flags |= ETM4_CFG_ATOM_RUNS;
	/* Framed input: every other byte was a frame byte, removed. */
	for (size_t i = 0; i < sizeof(atom_stream); i++)
		offs[i] = 5000 + 2 * i;
	decode_offs(&c, atom_stream, sizeof(atom_stream), offs, &R);
	assert_int_equal(R.n, 12);
	is_pkt(&R.p[1], etm4_pkt_trace_info, offs[12], 3);
	is_run(&R.p[3], offs[20], 4, atom_stream + 20, offs + 20);
	is_pkt(&R.p[4], etm4_pkt_address, offs[24], 2);
	is_run(&R.p[5], offs[26], 2, atom_stream + 26, offs + 26);
	is_run(&R.p[7], offs[29], 2, atom_stream + 29, offs + 29);
	is_run(&R.p[9], offs[32], 1, atom_stream + 32, offs + 32);
	is_run(&R.p[11], offs[35], 3, atom_stream + 35, offs + 35);
	/* Expanded: the records without runs, at the same offsets. */
	decode_offs(&plain, atom_stream, sizeof(atom_stream), offs, &R2);
	expand_runs(&c, &R, &R3);
	assert_same_run(&R2, &R3);
	assert_int_equal(R3.p[4].offset, 5000 + 2 * 21);
}

static void test_atom_runs_cut(void **state)
{
	static const uint8_t tail[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
					0xf7, 0xf6, 0xc0 };
	struct etm4_config c = ete(0, 0);
	const uint8_t *s = atom_stream;
	struct etm4_pkt_decoder *dec;
	struct etm4_packet p[4];

	(void)state;
	c.flags |= ETM4_CFG_ATOM_RUNS;
	/* Chunks [0, 22) and [22, 38): the run at 20 ends with the first
	 * chunk and goes on in the second, which starts at offset 22. */
	decode_chunked(&c, s, sizeof(atom_stream), 22, &R);
	assert_int_equal(R.n, 13);
	is_pkt(&R.p[2], etm4_pkt_address, 15, 5);
	is_run(&R.p[3], 20, 2, s + 20, NULL);
	is_run(&R.p[4], 22, 2, s + 22, NULL);
	is_pkt(&R.p[5], etm4_pkt_address, 24, 2);
	is_run(&R.p[12], 35, 3, s + 35, NULL);
	/* Chunks [0, 25) and [25, 38): a short address cut after its
	 * header, then a run in the second chunk. */
	decode_chunked(&c, s, sizeof(atom_stream), 25, &R);
	assert_int_equal(R.n, 12);
	is_pkt(&R.p[4], etm4_pkt_address, 24, 2);
	is_addr(&R.p[4], 0x6952c, 0, etm4_addr_short);
	is_run(&R.p[5], 26, 2, s + 26, NULL);
	/* A run at the very end of the input, with records taken one at a
	 * time after finishing: nothing follows it, nothing is cut. */
	dec = mk(&c);
	assert_int_equal(etm4_pkt_feed(dec, s, sizeof(atom_stream), NULL, 100), 0);
	assert_int_equal(etm4_pkt_finish(dec), 0);
	memset(&R, 0, sizeof(R));
	drain(dec, &R, 1);
	assert_int_equal(R.n, 12);
	is_run(&R.p[11], 135, 3, s + 35, NULL);
	assert_int_equal(etm4_pkt_next(dec, p, 4), -etmkit_err_eos);
	etm4_pkt_free(dec);
	/* A chunk of nothing but atoms, right after the A-sync's chunk: one
	 * run, its offsets from the chunk's base. */
	dec = mk(&c);
	assert_int_equal(etm4_pkt_feed(dec, tail, 12, NULL, 0), 0);
	assert_int_equal(etm4_pkt_next(dec, p, 4), 1);
	assert_int_equal(p[0].type, etm4_pkt_a_sync);
	assert_int_equal(etm4_pkt_feed(dec, tail + 12, 3, NULL, 12), 0);
	assert_int_equal(etm4_pkt_finish(dec), 0);
	assert_int_equal(etm4_pkt_next(dec, p, 4), 1);
	is_run(&p[0], 12, 3, tail + 12, NULL);
	assert_int_equal(etm4_pkt_next(dec, p, 4), -etmkit_err_eos);
	etm4_pkt_free(dec);
}

/* ---- Address runs (ETM4_CFG_ADDR_RUNS) ------------------------------------ */

/* Target addresses of every form between atoms (digest 5.14, 5.19), the
 * values worked by hand from the history rules (digest 2.4). A packet
 * joins a run only with ETM4_FAST_MIN (16) bytes at hand: the address at
 * 59 does not. */
static const uint8_t addr_stream[] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
	0x01, 0x01, 0x00,                   /* 12 Trace Info: history 0 */
	0x9a, 0x4e, 0x4a, 0x06, 0x00,       /* 15 long32 0x69538 */
	0xf7, 0xdb,                         /* 20 */
	0x95, 0x4b,                         /* 22 short: A[8:2] = 0x4b:
					       0x6952c */
	0xf6,                               /* 24 */
	0x90,                               /* 25 exact, entry 0: 0x6952c */
	0x92,                               /* 26 exact, entry 2: 0x69538 */
	0xe5,                               /* 27 */
	0x71,                               /* 28 Event: not in a run */
	0x9d, 0x40, 0x42, 0x10, 0, 0, 0, 0x80, 0xff, /* 29 long64:
					       0xff80000000108500 */
	0xd5, 0xdf,                         /* 38 */
	0x04,                               /* 40 Trace On */
	0x95, 0x01,                         /* 41 short: 0xff80000000108404 */
	0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, /* 43 */
	0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, /* 51 */
	0x95, 0x02,                         /* 59 short: 0xff80000000108408 */
	0xf6,                               /* 61 */
};

/* What one run holds (its pointers die with the next call). */
struct run_shape {
	uint64_t offset;
	uint32_t count, naddr;
};

/* Decode @buf with @c in chunks of @chunk (0: one feed), @batch records
 * per call, byte i at @offs[i] when given: the records with each run
 * expanded as it comes into @out, and the runs' shapes into @shape
 * (@nshape of them). */
static void decode_expanded(const struct etm4_config *c, const uint8_t *buf,
			    size_t len, const uint64_t *offs, size_t chunk,
			    size_t batch, struct run *out,
			    struct run_shape *shape, size_t *nshape)
{
	struct etm4_pkt_decoder *dec = mk(c);
	size_t step = chunk ? chunk : len;
	struct etm4_packet p[8];
	int got;

	memset(out, 0, sizeof(*out));
	*nshape = 0;
	for (size_t at = 0; at < len; at += step) {
		size_t n = len - at < step ? len - at : step;
		int last = at + n == len;

		assert_int_equal(etm4_pkt_feed(dec, buf + at, n,
					       offs ? offs + at : NULL, at), 0);
		if (last)
			assert_int_equal(etm4_pkt_finish(dec), 0);
		while ((got = etm4_pkt_next(dec, p, batch)) > 0) {
			for (int i = 0; i < got; i++) {
				if (p[i].type != etm4_pkt_atom_run) {
					assert_true(out->n < MAXREC);
					out->p[out->n++] = p[i];
					continue;
				}
				assert_true(*nshape < 64);
				shape[*nshape].offset = p[i].offset;
				shape[*nshape].count = p[i].u.run.count;
				shape[(*nshape)++].naddr = p[i].u.run.naddr;
				assert_int_equal(p[i].length, p[i].u.run.count);
				assert_ptr_equal(p[i].u.run.offsets,
						 offs ? offs + (p[i].u.run.headers -
								buf) : NULL);
				expand_run_into(dec, &p[i], out);
			}
		}
		assert_int_equal(got, -etmkit_err_eos);
	}
	etm4_pkt_free(dec);
}

static void test_addr_runs(void **state)
{
	static const struct run_shape want[] = {
		{ 15, 13, 4 }, { 29, 11, 1 }, { 41, 18, 1 }, { 61, 1, 0 },
	};
	static const struct { uint64_t off, addr; uint8_t form; } addrs[] = {
		{ 15, 0x69538, etm4_addr_long32 },
		{ 22, 0x6952c, etm4_addr_short },
		{ 25, 0x6952c, etm4_addr_exact },
		{ 26, 0x69538, etm4_addr_exact },
		{ 29, 0xff80000000108500ull, etm4_addr_long64 },
		{ 41, 0xff80000000108404ull, etm4_addr_short },
		{ 59, 0xff80000000108408ull, etm4_addr_short },
	};
	static struct run_shape shape[64];
	static uint64_t offs[sizeof(addr_stream)];
	struct etm4_config plain = ete(0, 0), c = plain;
	size_t ns, k = 0;

	(void)state;
	c.flags |= ETM4_CFG_ADDR_RUNS; /* implies ETM4_CFG_ATOM_RUNS */
	decode_expanded(&c, addr_stream, sizeof(addr_stream), NULL, 0, 8,
			&R3, shape, &ns);
	assert_int_equal(ns, 4);
	for (size_t i = 0; i < ns; i++) {
		assert_int_equal(shape[i].offset, want[i].offset);
		assert_int_equal(shape[i].count, want[i].count);
		assert_int_equal(shape[i].naddr, want[i].naddr);
	}
	for (int i = 0; i < R3.n; i++) {
		if (R3.p[i].type != etm4_pkt_address)
			continue;
		assert_true(k < 7);
		assert_int_equal(R3.p[i].offset, addrs[k].off);
		is_addr(&R3.p[i], addrs[k].addr, 0, addrs[k].form);
		k++;
	}
	assert_int_equal(k, 7);
	/* Expanded, the records without runs; in every chunking and batch
	 * size, and with an offsets array (framed input). */
	decode_chunked(&plain, addr_stream, sizeof(addr_stream), 0, &R2);
	assert_same_run(&R2, &R3);
	for (size_t chunk = 0; chunk <= 17; chunk++) {
		for (size_t batch = 1; batch <= 8; batch += 7) {
			decode_expanded(&c, addr_stream, sizeof(addr_stream),
					NULL, chunk, batch, &R3, shape, &ns);
			assert_same_run(&R2, &R3);
		}
	}
	for (size_t i = 0; i < sizeof(addr_stream); i++)
		offs[i] = 7000 + 3 * i;
	decode_expanded(&c, addr_stream, sizeof(addr_stream), offs, 0, 8, &R3,
			shape, &ns);
	for (int i = 0; i < R2.n; i++)
		R2.p[i].offset = offs[R2.p[i].offset];
	assert_same_run(&R2, &R3);
}

/* A source address (ETE, b4: short IS0, digest 5.22) is a P0 element of
 * its own, and an address with context carries more: neither joins a run,
 * both still update the history. */
static void test_addr_runs_exclude(void **state)
{
	static const uint8_t s[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
		0x01, 0x01, 0x00,                   /* 12 Trace Info */
		0xf7,                               /* 15 */
		0xb4, 0x4b,                         /* 16 source 0x12c */
		0xf7,                               /* 18 */
		0x82, 0x00, 0x08, 0x00, 0x00, 0x11, /* 19 0x1000, context */
		0x95, 0x01,                         /* 25 short: 0x1004 */
		0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, /* 27 */
		0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, /* 35 */
	};
	static struct run_shape shape[64];
	struct etm4_config c = ete(0, 0);
	size_t ns;

	(void)state;
	c.flags |= ETM4_CFG_ADDR_RUNS;
	decode_expanded(&c, s, sizeof(s), NULL, 0, 8, &R3, shape, &ns);
	assert_int_equal(ns, 3);
	assert_int_equal(shape[0].offset, 15);
	assert_int_equal(shape[0].count, 1);
	assert_int_equal(shape[1].offset, 18);
	assert_int_equal(shape[1].count, 1);
	assert_int_equal(shape[2].offset, 25);
	assert_int_equal(shape[2].count, 18);
	assert_int_equal(shape[2].naddr, 1);
	/* a_sync, trace info, atom, source, atom, address+context, then the
	 * third run: short address, 16 atoms. */
	assert_int_equal(R3.n, 6 + 17);
	is_pkt(&R3.p[3], etm4_pkt_source_address, 16, 2);
	is_addr(&R3.p[3], 0x12c, 0, etm4_addr_short);
	is_pkt(&R3.p[5], etm4_pkt_address_context, 19, 6);
	is_pkt(&R3.p[6], etm4_pkt_address, 25, 2);
	is_addr(&R3.p[6], 0x1004, 0, etm4_addr_short);
}

/* One call's runs hold at most ETM4_RUN_ADDRS (1024) addresses; the rest
 * come as records until the next call, and every address is there with
 * its value. 1100 x
 * (short address 95 01, atom f7), then 16 atoms. */
static void test_addr_runs_cap(void **state)
{
	static uint8_t s[12 + 3 + 1100 * 3 + 16];
	struct etm4_config c = ete(0, 0);
	struct etm4_pkt_decoder *dec;
	struct etm4_packet p[64];
	uint32_t in_runs = 0, records = 0, most = 0, later = 0;
	int got;

	(void)state;
	c.flags |= ETM4_CFG_ADDR_RUNS;
	memcpy(s, async12, 12);
	s[12] = 0x01; s[13] = 0x01; s[14] = 0x00; /* Trace Info */
	for (size_t i = 0; i < 1100; i++) {
		s[15 + 3 * i] = 0x95;
		s[16 + 3 * i] = 0x01;
		s[17 + 3 * i] = 0xf7;
	}
	memset(s + 15 + 3300, 0xf7, 16);
	dec = mk(&c);
	assert_int_equal(etm4_pkt_feed(dec, s, sizeof(s), NULL, 0), 0);
	assert_int_equal(etm4_pkt_finish(dec), 0);
	while ((got = etm4_pkt_next(dec, p, 64)) > 0) {
		for (int i = 0; i < got; i++) {
			if (p[i].type == etm4_pkt_address) {
				is_addr(&p[i], 0x4, 0, etm4_addr_short);
				records++;
			}
			if (p[i].type != etm4_pkt_atom_run)
				continue;
			for (uint32_t k = 0; k < p[i].u.run.naddr; k++)
				assert_int_equal(p[i].u.run.addrs[k].addr.addr,
						 0x4);
			in_runs += p[i].u.run.naddr;
			if (most == 1024)
				later += p[i].u.run.naddr;
			if (p[i].u.run.naddr > most)
				most = p[i].u.run.naddr;
		}
	}
	assert_int_equal(got, -etmkit_err_eos);
	etm4_pkt_free(dec);
	assert_int_equal(most, 1024);
	assert_true(records >= 1);
	/* The next call's runs take addresses again: 64 records a call, so
	 * the first call holds the run of 1024 and at most 63 more. */
	assert_true(later >= 1100 - 1024 - 63);
	assert_int_equal(in_runs + records, 1100);
}

static void test_truncation(void **state)
{
	struct etm4_config c = ete(0, 0);

	(void)state;
	/* A long address cut by the end of the input; a lone zero. */
	static const uint8_t a[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
				     0x9a, 0x4e, 0x4a };
	static const uint8_t z[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
				     0x04, 0x00, 0x00 };
	decode_chunked(&c, a, sizeof(a), 2, &R);
	assert_int_equal(R.n, 2);
	assert_int_equal(R.p[1].type, etm4_pkt_address);
	assert_int_equal(R.p[1].error, -etmkit_err_truncated);
	assert_int_equal(R.p[1].offset, 12);
	assert_int_equal(R.p[1].length, 3);
	assert_memory_equal(R.p[1].raw, a + 12, 3);
	decode_chunked(&c, z, sizeof(z), 0, &R);
	assert_int_equal(R.n, 3);
	assert_int_equal(R.p[2].type, etm4_pkt_a_sync);
	assert_int_equal(R.p[2].error, -etmkit_err_truncated);
	assert_int_equal(R.p[2].length, 2);
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Random streams from packet pieces and noise, random chunks and batch
 * sizes, runs split early: every byte in one record, in order; the same
 * records as one feed. */
static void test_every_byte_accounted(void **state)
{
	static uint8_t buf[4096];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	struct etm4_config cfgs[4];

	(void)state;
	cfgs[0] = ete(3, CFGR_CCI | CFGR_QE);
	cfgs[1] = ete(0, 0);
	cfgs[2] = v4(4, V4_IDR0 | IDR0_TRCCOND, CFGR_CCI | CFGR_COND | CFGR_DA);
	cfgs[3] = v4(0, V4_IDR0 & ~IDR0_COMMOPT, CFGR_CCI);
	for (int iter = 0; iter < 300; iter++) {
		size_t len = rnd(&x) % sizeof(buf), chunk = 1 + rnd(&x) % 64;
		struct etm4_config *c = &cfgs[rnd(&x) % 4];
		struct etm4_pkt_decoder *dec;
		uint64_t expect = 0;
		int ri = 0;

		for (size_t i = 0; i < len;) {
			if (rnd(&x) % 4) {
				size_t at = rnd(&x) % sizeof(mixed);
				size_t k = 1 + rnd(&x) % 24;

				for (; k && at < sizeof(mixed) && i < len; k--)
					buf[i++] = mixed[at++];
			} else {
				buf[i++] = (uint8_t)rnd(&x);
			}
		}
		decode_chunked(c, buf, len, 0, &R);
		dec = mk(c);
		if (iter % 4 == 0)
			dec->uns_max = 12 + rnd(&x) % 20;
		for (size_t at = 0; at <= len; at += chunk) {
			size_t n = len - at < chunk ? len - at : chunk;
			int last = at + chunk > len;
			struct etm4_packet p[7];
			int got;
			size_t batch = 1 + rnd(&x) % 7;

			if (n)
				assert_int_equal(etm4_pkt_feed(dec, buf + at, n, NULL, at), 0);
			if (last)
				etm4_pkt_finish(dec);
			while ((got = etm4_pkt_next(dec, p, batch)) > 0) {
				for (int i = 0; i < got; i++) {
					assert_int_equal(p[i].offset, expect);
					assert_true(p[i].length > 0);
					assert_true(p[i].size <= ETM4_PKT_MAX_BYTES);
					assert_true(p[i].type < etm4_pkt_type_count);
					if (p[i].error)
						assert_non_null(p[i].why);
					expect += p[i].length;
					/* Same records as one feed, unless
					 * runs were split early. */
					if (iter % 4) {
						assert_true(ri < R.n);
						assert_same_pkt(&R.p[ri], &p[i]);
					}
					ri++;
				}
			}
			assert_int_equal(got, -etmkit_err_eos);
			if (last)
				break;
		}
		assert_int_equal(expect, len);
		if (iter % 4)
			assert_int_equal(ri, R.n);
		etm4_pkt_free(dec);
	}
}

static void test_stop_on_error(void **state)
{
	static const uint8_t b[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x04,
				     0x84, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				     0, 0x80, 0x04 };
	static const uint8_t cut[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
				       0x9a, 0x01 };
	struct etm4_config c = ete(0, 0);
	struct etm4_pkt_decoder *dec;
	struct etm4_packet p[8];

	(void)state;
	c.flags |= ETM4_CFG_STOP_ON_ERROR;
	dec = mk(&c);
	assert_int_equal(etm4_pkt_feed(dec, b, sizeof(b), NULL, 0), 0);
	assert_int_equal(etm4_pkt_next(dec, p, 8), 3);
	assert_int_equal(p[2].type, etm4_pkt_reserved);
	assert_int_equal(p[2].error, -etmkit_err_bad_packet);
	assert_int_equal(etm4_pkt_next(dec, p, 8), -etmkit_err_bad_packet);
	assert_int_equal(etm4_pkt_feed(dec, b, sizeof(b), NULL, 0),
			 -etmkit_err_bad_packet);
	etm4_pkt_reset(dec);
	/* A packet cut by the end of the input does not stop anything. */
	assert_int_equal(etm4_pkt_feed(dec, cut, sizeof(cut), NULL, 0), 0);
	assert_int_equal(etm4_pkt_finish(dec), 0);
	assert_int_equal(etm4_pkt_next(dec, p, 8), 2);
	assert_int_equal(p[1].error, -etmkit_err_truncated);
	assert_int_equal(etm4_pkt_next(dec, p, 8), -etmkit_err_eos);
	etm4_pkt_free(dec);
}

static void test_gap(void **state)
{
	static const uint8_t cut[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
				       0x04, 0x9a, 0x01 };
	static const uint8_t after[] = { 0x00, 0x00, 0x04 };
	struct etm4_config c = ete(0, 0);
	struct etm4_pkt_decoder *dec = mk(&c);

	(void)state;
	memset(&R, 0, sizeof(R));
	assert_int_equal(etm4_pkt_feed(dec, cut, sizeof(cut), NULL, 0), 0);
	drain(dec, &R, 8);
	assert_int_equal(etm4_pkt_gap(dec), 0);
	assert_int_equal(etm4_pkt_feed(dec, after, sizeof(after), NULL, 100), 0);
	drain(dec, &R, 8);
	etm4_pkt_finish(dec);
	drain(dec, &R, 8);
	assert_int_equal(R.n, 4);
	assert_int_equal(R.p[2].type, etm4_pkt_address);
	assert_int_equal(R.p[2].error, -etmkit_err_bad_frame);
	assert_int_equal(R.p[2].offset, 13);
	assert_int_equal(R.p[2].length, 2);
	is_pkt(&R.p[3], etm4_pkt_unsynced, 100, 3);
	/* Zeros cut by the loss: an error record; zeros on both sides do
	 * not make an A-sync. */
	etm4_pkt_reset(dec);
	memset(&R, 0, sizeof(R));
	assert_int_equal(etm4_pkt_feed(dec, async12, 12, NULL, 0), 0);
	drain(dec, &R, 8);
	assert_int_equal(etm4_pkt_feed(dec, async12, 5, NULL, 12), 0);
	drain(dec, &R, 8);
	assert_int_equal(etm4_pkt_gap(dec), 0);
	assert_int_equal(etm4_pkt_feed(dec, async12 + 5, 7, NULL, 40), 0);
	drain(dec, &R, 8);
	etm4_pkt_finish(dec);
	drain(dec, &R, 8);
	assert_int_equal(R.n, 3);
	assert_int_equal(R.p[1].type, etm4_pkt_a_sync);
	assert_int_equal(R.p[1].error, -etmkit_err_bad_frame);
	assert_int_equal(R.p[1].offset, 12);
	assert_int_equal(R.p[1].length, 5);
	is_pkt(&R.p[2], etm4_pkt_unsynced, 40, 7);
	/* Undrained input is refused. */
	etm4_pkt_reset(dec);
	etm4_pkt_feed(dec, cut, sizeof(cut), NULL, 0);
	assert_int_equal(etm4_pkt_gap(dec), -etmkit_err_invalid);
	etm4_pkt_free(dec);
}

static void test_api_errors(void **state)
{
	struct etm4_config c = ete(0, 0);
	struct etm4_pkt_decoder *dec = NULL;
	struct etm4_packet p;

	(void)state;
	c.trcdevarch = 0x47704a13u;
	assert_int_equal(etm4_pkt_alloc(&dec, &c), -etmkit_err_bad_config);
	assert_null(dec);
	assert_int_equal(etm4_pkt_alloc(NULL, &c), -etmkit_err_invalid);
	c = ete(0, 0);
	c.size = 4;
	assert_int_equal(etm4_pkt_alloc(&dec, &c), -etmkit_err_invalid);
	c = ete(0, 0);
	dec = mk(&c);
	assert_int_equal(etm4_pkt_config(dec)->ete, 1);
	assert_null(etm4_pkt_config(NULL));
	assert_int_equal(etm4_pkt_next(dec, &p, 1), -etmkit_err_eos);
	assert_int_equal(etm4_pkt_next(dec, &p, 0), -etmkit_err_invalid);
	assert_int_equal(etm4_pkt_feed(dec, NULL, 3, NULL, 0), -etmkit_err_invalid);
	assert_int_equal(etm4_pkt_feed(dec, async12, 12, NULL, 0), 0);
	assert_int_equal(etm4_pkt_feed(dec, async12, 12, NULL, 0), -etmkit_err_invalid);
	assert_int_equal(etm4_pkt_finish(NULL), -etmkit_err_invalid);
	assert_int_equal(etm4_pkt_gap(NULL), -etmkit_err_invalid);
	etm4_pkt_free(dec);
	etm4_pkt_free(NULL);
	etm4_pkt_reset(NULL);
	etm4_config_init(NULL);
}

/* ---- Real captures against OpenCSD's listing ----------------------------- */

/* The raw (unformatted) snapshots: the buffer the listing decodes ("Using
 * ETB_n"), and the trace unit's device file. */
static const struct capture {
	const char *dir, *bin, *ini;
	int ete;
} captures[] = {
	{ "ete/001-ack_test", "session1.bin", "ETE_0_s1.ini", 1 },
	{ "ete/ete-bc-instr", "session1.bin", "ETE_0_s1.ini", 1 },
	{ "ete/ete-ite-instr", "session2.bin", "ETE_0_s2.ini", 1 },
	{ "ete/ete_ip", "session1.bin", "ETE_0_s1.ini", 1 },
	{ "ete/ete_mem", "session1.bin", "ETE_0_s1.ini", 1 },
	{ "ete/ete_spec_1", "session1.bin", "ETE_0_s1.ini", 1 },
	{ "ete/ete_spec_2", "session1.bin", "ETE_0_s1.ini", 1 },
	{ "ete/event_test", "session1.bin", "ETE_0_s1.ini", 1 },
	{ "ete/maxspec0_commopt1", "session1.bin", "ETE_0_s1.ini", 1 },
	{ "ete/q_elem", "session2.bin", "ETE_0_s2.ini", 1 },
	{ "ete/src_addr", "session1.bin", "ETE_0_s1.ini", 1 },
	{ "ete/ss_ib_el1ns", "session1.bin", "ETE_0_s1.ini", 1 },
	{ "ete/tme_simple", "session1.bin", "ETE_0_s1.ini", 1 },
	{ "ete/tme_test", "session1.bin", "ETE_0_s1.ini", 1 },
	{ "ete/trace_file_vmid", "session1.bin", "ETE_0_s1.ini", 1 },
	{ "ete/ts_marker", "session1.bin", "ETE_0_s1.ini", 1 },
	{ "etmv4/armv8_1m_branches", "trace.bin", "etm_0.ini", 0 },
	{ "etmv4/init-short-addr", "tracebuffer.bin", "device2.ini", 0 },
};

/* The captures and OpenCSD 1.8.0's listings of them: a copy fetched from
 * the public sources (tools/fetch-testdata) has no listings. */
static int shared_missing(void)
{
	FILE *f = fopen(TESTDATA "/ete/ete_spec_1/ocsd-1.8.0-decode.ppl", "rb");

	if (!f)
		return 1;
	fclose(f);
	return 0;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* A register from a device .ini: "NAME=0x..." or "NAME(...)=0x...". */
static uint32_t ini_reg(const char *path, const char *name)
{
	FILE *f = fopen(path, "r");
	char line[256];
	size_t nl = strlen(name);
	uint32_t v = 0;

	if (!f)
		fail_msg("cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, name, nl) || (line[nl] != '=' && line[nl] != '('))
			continue;
		v = (uint32_t)strtoul(strchr(line, '=') + 1, NULL, 0);
		break;
	}
	fclose(f);
	return v;
}

static struct etm4_config capture_config(const struct capture *cap)
{
	static const char *const regs[] = { "TRCIDR0", "TRCIDR1", "TRCIDR2",
					    "TRCIDR8", "TRCCONFIGR", "TRCDEVARCH" };
	struct etm4_config c;
	char path[512];
	uint32_t v[6];

	snprintf(path, sizeof(path), "%s/%s/%s", TESTDATA, cap->dir, cap->ini);
	for (int i = 0; i < 6; i++)
		v[i] = ini_reg(path, regs[i]);
	etm4_config_init(&c);
	c.trcidr0 = v[0];
	c.trcidr1 = v[1];
	c.trcidr2 = v[2];
	c.trcidr8 = v[3];
	c.trcconfigr = v[4];
	c.trcdevarch = v[5];
	c.flags = cap->ete ? ETM4_CFG_ETE : 0;
	return c;
}

/* OpenCSD's packet names (I_...) and ours. */
static int ocsd_type(const char *name)
{
	static const struct { const char *prefix; uint8_t type; } map[] = {
		{ "I_ASYNC", etm4_pkt_a_sync },
		{ "I_TRACE_INFO", etm4_pkt_trace_info },
		{ "I_TRACE_ON", etm4_pkt_trace_on },
		{ "I_TIMESTAMP", etm4_pkt_timestamp },
		{ "I_TS_MARKER", etm4_pkt_ts_marker },
		{ "I_EXCEPT_RTN", etm4_pkt_exception_return },
		{ "I_EXCEPT", etm4_pkt_exception },
		{ "I_TRANS_FAIL", etm4_pkt_exception },
		{ "I_PE_RESET", etm4_pkt_exception },
		{ "I_CCNT_F", etm4_pkt_cycle_count },
		{ "I_COMMIT", etm4_pkt_commit },
		{ "I_CANCEL_F", etm4_pkt_cancel },
		{ "I_MISPREDICT", etm4_pkt_mispredict },
		{ "I_DISCARD", etm4_pkt_discard },
		{ "I_OVERFLOW", etm4_pkt_overflow },
		{ "I_ATOM_F", etm4_pkt_atom },
		{ "I_Q", etm4_pkt_q },
		{ "I_CTXT", etm4_pkt_context },
		{ "I_ADDR_CTXT", etm4_pkt_address_context },
		{ "I_ADDR_", etm4_pkt_address },
		{ "I_SRC_ADDR", etm4_pkt_source_address },
		{ "I_SCR_ADDR", etm4_pkt_source_address }, /* sic, OpenCSD */
		{ "I_EVENT", etm4_pkt_event },
		{ "I_ITE", etm4_pkt_instrumentation },
		{ "I_TRANS_ST", etm4_pkt_transaction_start },
		{ "I_TRANS_COMMIT", etm4_pkt_transaction_commit },
		{ "I_IGNORE", etm4_pkt_ignore },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strncmp(name, map[i].prefix, strlen(map[i].prefix)))
			return map[i].type;
	return -1;
}

/* The hex number after @key in @s, if there. */
static int field_hex(const char *s, const char *key, uint64_t *v)
{
	const char *at = strstr(s, key);

	if (!at)
		return 0;
	*v = strtoull(at + strlen(key), NULL, 16);
	return 1;
}

static int field_dec(const char *s, const char *key, uint64_t *v)
{
	const char *at = strstr(s, key);

	if (!at)
		return 0;
	*v = strtoull(at + strlen(key), NULL, 10);
	return 1;
}

/* Exception names in OpenCSD's listing (A-profile). */
static int exception_number(const char *s)
{
	static const struct { const char *name; uint8_t type; } names[] = {
		{ "; Debug Halt;", 1 }, { "; Call;", 2 }, { "; Trap;", 3 },
		{ "; System Error;", 4 }, { "; Inst Debug;", 6 },
		{ "; Data Debug;", 7 }, { "; Alignment;", 0xa },
		{ "; Inst Fault;", 0xb }, { "; Data Fault;", 0xc },
		{ "; IRQ;", 0xe }, { "; FIQ;", 0xf },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strstr(s, names[i].name))
			return names[i].type;
	return -1;
}

/* The decoded values OpenCSD prints for the packet, against ours. Returns
 * how many values were compared. */
static int check_fields(const struct etm4_packet *p, const char *text,
			const char *where)
{
	uint64_t v;
	char s[32];
	int n = 0;

#define SAME(ours, theirs, what)                                               \
	do {                                                                   \
		if ((uint64_t)(ours) != (uint64_t)(theirs))                    \
			fail_msg("%s: %s 0x%llx, OpenCSD 0x%llx", where, what, \
				 (unsigned long long)(ours),                   \
				 (unsigned long long)(theirs));                \
		n++;                                                           \
	} while (0)

	switch (p->type) {
	case etm4_pkt_address:
	case etm4_pkt_source_address:
	case etm4_pkt_address_context:
		if (field_hex(text, "Addr=0x", &v))
			SAME(p->u.a.addr.addr, v, "address");
		break;
	case etm4_pkt_q:
		if (field_hex(text, "Addr=0x", &v))
			SAME(p->u.q.addr.addr, v, "Q address");
		if (field_dec(text, "Count(", &v))
			SAME(p->u.q.count, v, "Q count");
		break;
	case etm4_pkt_timestamp:
		if (field_hex(text, "Updated val = 0x", &v))
			SAME(p->u.ts.value, v, "timestamp");
		break;
	case etm4_pkt_cycle_count:
		if (field_hex(text, "Count=0x", &v))
			SAME(p->u.cc.count, v, "cycle count");
		break;
	case etm4_pkt_commit:
		if (field_dec(text, "Commit(", &v))
			SAME(p->u.spec.count, v, "commit");
		break;
	case etm4_pkt_cancel:
		if (field_dec(text, "Cancel(", &v))
			SAME(p->u.spec.count, v, "cancel");
		break;
	case etm4_pkt_trace_info:
		if (field_hex(text, "INFO=0x", &v))
			SAME(p->u.tinfo.info, v, "INFO");
		if (field_hex(text, "CC_THRESHOLD=0x", &v))
			SAME(p->u.tinfo.cyct, v, "CYCT");
		break;
	case etm4_pkt_instrumentation:
		if (field_hex(text, "Payload=0x", &v))
			SAME(p->u.ite.value, v, "ITE payload");
		if (field_dec(text, "; EL", &v))
			SAME(p->u.ite.el, v, "ITE EL");
		break;
	case etm4_pkt_exception:
		if (strstr(text, "I_TRANS_FAIL")) {
			SAME(p->u.exception.type, 0x18, "exception type");
		} else if (exception_number(text) >= 0) {
			SAME(p->u.exception.type, exception_number(text),
			     "exception type");
		}
		if (strstr(text, "Ret Addr Follows"))
			SAME(p->u.exception.addr_interp, 1, "E1:E0");
		break;
	case etm4_pkt_atom: {
		const char *at = strstr(text, "Atom format ");

		if (at && (at = strstr(at, ".; "))) {
			size_t k = strcspn(at + 3, " \r\n");

			atoms_str(&p->u.atoms, s);
			if (strlen(s) != k || strncmp(s, at + 3, k))
				fail_msg("%s: atoms %s, OpenCSD %.*s", where, s,
					 (int)k, at + 3);
			n++;
		}
		break;
	}
	default:
		break;
	}
	if (p->type == etm4_pkt_context || p->type == etm4_pkt_address_context) {
		const struct etm4_context *ctx = p->type == etm4_pkt_context ?
			&p->u.context : &p->u.a.context;
		const char *at = strstr(text, "Ctxt: ");

		if (at && ctx->updated) {
			SAME(ctx->sf, !strncmp(at + 6, "AArch64", 7), "SF");
			if (field_dec(at, "EL", &v))
				SAME(ctx->el, v, "EL");
			SAME(ctx->ns, strstr(at, " NS;") != NULL, "NS");
			if (field_hex(at, "CID=0x", &v))
				SAME(ctx->context_id, v, "context ID");
			if (field_hex(at, "VMID=0x", &v))
				SAME(ctx->vmid, v, "VMID");
		}
	}
	return n;
#undef SAME
}

static void test_captures(void **state)
{
	size_t total_pkts = 0, total_fields = 0;

	(void)state;
	test_need(shared_missing(), TESTDATA);
	for (size_t ci = 0; ci < sizeof(captures) / sizeof(captures[0]); ci++) {
		const struct capture *cap = &captures[ci];
		struct etm4_config c = capture_config(cap);
		struct etm4_pkt_decoder *dec = mk(&c);
		struct etm4_packet *recs;
		size_t len, nrec = 0, at = 0, lines = 0;
		char path[512], line[4096];
		uint8_t *data;
		FILE *ppl;
		int got;

		snprintf(path, sizeof(path), "%s/%s/%s", TESTDATA, cap->dir, cap->bin);
		data = slurp(path, &len);
		recs = calloc(len + 1, sizeof(*recs));
		assert_non_null(recs);
		/* Fed in odd-sized chunks: the listing must not depend on
		 * them. */
		for (size_t off = 0; off < len; off += 61) {
			size_t k = len - off < 61 ? len - off : 61;

			assert_int_equal(etm4_pkt_feed(dec, data + off, k, NULL, off), 0);
			while ((got = etm4_pkt_next(dec, recs + nrec, 16)) > 0)
				nrec += (size_t)got;
		}
		etm4_pkt_finish(dec);
		while ((got = etm4_pkt_next(dec, recs + nrec, 16)) > 0)
			nrec += (size_t)got;
		etm4_pkt_free(dec);

		snprintf(path, sizeof(path), "%s/%s/ocsd-1.8.0-decode.ppl", TESTDATA,
			 cap->dir);
		ppl = fopen(path, "r");
		assert_non_null(ppl);
		while (fgets(line, sizeof(line), ppl)) {
			unsigned long long idx;
			uint8_t bytes[64];
			size_t nb = 0;
			const char *s, *name;
			char where[640];
			unsigned id;
			int type, k = 0;

			/* Packet lines only: "Idx:N; ID:x; [0x.. ];\tI_...". */
			if (sscanf(line, "Idx:%llu; ID:%x; [%n", &idx, &id, &k) != 2 ||
			    k == 0)
				continue;
			for (s = line + k; s[0] == '0' && s[1] == 'x'; s += 5)
				bytes[nb++] = (uint8_t)strtoul(s, NULL, 16);
			name = strstr(s, "];\t");
			assert_non_null(name);
			name += 3;
			snprintf(where, sizeof(where), "%s offset %llu", cap->dir, idx);
			if (at >= nrec)
				fail_msg("%s: no record for OpenCSD's %s", where, name);
			type = ocsd_type(name);
			if (type < 0)
				fail_msg("%s: unexpected OpenCSD packet %s", where, name);
			if (recs[at].offset != idx || recs[at].length != nb ||
			    recs[at].type != type || recs[at].error)
				fail_msg("%s: record %s at %llu, %u bytes, error %d "
					 "(%s); OpenCSD %s, %zu bytes", where,
					 etm4_pkt_type_name(recs[at].type),
					 (unsigned long long)recs[at].offset,
					 recs[at].length, recs[at].error,
					 recs[at].why ? recs[at].why : "", name, nb);
			assert_memory_equal(recs[at].raw, bytes,
					    nb < ETM4_PKT_MAX_BYTES ? nb : ETM4_PKT_MAX_BYTES);
			assert_memory_equal(data + idx, bytes, nb);
			total_fields += (size_t)check_fields(&recs[at], name, where);
			at++;
			lines++;
		}
		fclose(ppl);
		if (at != nrec)
			fail_msg("%s: %zu records, OpenCSD lists %zu packets",
				 cap->dir, nrec, at);
		assert_true(lines > 0);
		total_pkts += lines;
		free(recs);
		free(data);
	}
	print_message("captures: %zu snapshots, %zu packets matched (offset, "
		      "bytes, type), %zu decoded values compared\n",
		      sizeof(captures) / sizeof(captures[0]), total_pkts,
		      total_fields);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_decode),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_async_search),
		cmocka_unit_test(test_async_in_sync),
		cmocka_unit_test(test_resync_after_garbage),
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
		cmocka_unit_test(test_chunking_is_invisible),
		cmocka_unit_test(test_offsets_array_and_batch_of_one),
		cmocka_unit_test(test_atom_table),
		cmocka_unit_test(test_atom_runs),
		cmocka_unit_test(test_atom_runs_offsets_array),
		cmocka_unit_test(test_atom_runs_cut),
		cmocka_unit_test(test_addr_runs),
		cmocka_unit_test(test_addr_runs_cap),
		cmocka_unit_test(test_addr_runs_exclude),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_every_byte_accounted),
		cmocka_unit_test(test_stop_on_error),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_api_errors),
		cmocka_unit_test(test_captures),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	return test_exit(failed, shared_missing());
}
