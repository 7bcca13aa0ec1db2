/* Packet forms of `etmkit packets --stats` (cli/packet_forms.c): bytes of
 * each form, written from the digests' layouts (shared spec etmv3.md 4,
 * ptm.md 2-4, etmv4-ete.md 5), through the packet decoders, to the form's name. The
 * forms the encoders never emit are here; tests/encode/coverage.py sees
 * the others in encoded traces. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "etmkit/etm3.h"
#include "etmkit/etm4.h"
#include "etmkit/ptm.h"
#include "../../cli/packet_forms.h"

#define NAMES_CAP 1024

/* The names of the records after the leading A-sync, "|" between. */
static void join(char *out, const char *name)
{
	if (out[0])
		strncat(out, "|", NAMES_CAP - strlen(out) - 1);
	strncat(out, name, NAMES_CAP - strlen(out) - 1);
}

static void etm3_forms(uint32_t cr, uint32_t idr, uint32_t ccer,
		       const uint8_t *body, size_t n, char *out)
{
	static const uint8_t async[6] = { 0, 0, 0, 0, 0, 0x80 };
	struct etm3_config cfg;
	struct etm3_config_info info;
	struct etm3_pkt_decoder *dec;
	struct etm3_packet p[64];
	uint8_t buf[128];
	unsigned form = 0;
	char name[96];
	int k;

	etm3_config_init(&cfg);
	cfg.etmcr = cr;
	cfg.etmidr = idr;
	cfg.etmccer = ccer;
	assert_int_equal(etm3_config_decode(&cfg, &info), 0);
	if (info.cycle_accurate)
		form |= CLI_FORM_ETM3_CA;
	if (info.alt_branch)
		form |= CLI_FORM_ETM3_ALT;
	assert_int_equal(etm3_pkt_alloc(&dec, &cfg), 0);
	memcpy(buf, async, 6);
	memcpy(buf + 6, body, n);
	assert_int_equal(etm3_pkt_feed(dec, buf, 6 + n, NULL, 0), 0);
	etm3_pkt_finish(dec);
	out[0] = '\0';
	while ((k = etm3_pkt_next(dec, p, 64)) > 0)
		for (int i = 0; i < k; i++)
			if (p[i].type != etm3_pkt_a_sync)
				join(out, cli_form_etm3_name(
					     cli_form_etm3_key(&p[i], form),
					     name, sizeof(name)));
	etm3_pkt_free(dec);
}

/* ETMv3.5 (ETMIDR), 64-bit binary timestamps and the Virtualization
 * Extensions (ETMCCER), as TC2's; ETMIDR[20] the alternative encoding. */
#define IDR35 0x410cf250u
#define IDR30 0x410cf200u
#define CCER 0x344008f2u
#define ALT (1u << 20)

static void test_etm3_normal(void **state)
{
	/* I-sync (no context ID; info 0x21: tracing enabled), P-headers
	 * 0x84 (format 1: E) and 0x8a (format 2: N E), cycle count,
	 * trigger, ignore, a timestamp with R (clock change). */
	static const uint8_t b[] = { 0x08, 0x21, 0x00, 0x80, 0x00, 0x00,
				     0x84, 0x8a, 0x04, 0x05, 0x0c, 0x66,
				     0x46, 0x05 };
	char out[NAMES_CAP];

	(void)state;
	etm3_forms(1u << 28, IDR35, CCER, b, sizeof(b), out);
	assert_string_equal(out, "i_sync|p_header format=1|p_header format=2|"
			    "cycle_count|trigger|ignore|timestamp clock_change");
}

static void test_etm3_isync_forms(void **state)
{
	/* Context ID (1 byte, ETMCR[15:14] = 01): I-sync with it; LSiP
	 * (info bit 7) with a 1-byte compressed address; a Context ID
	 * packet of 1 byte. */
	static const uint8_t b[] = { 0x08, 0x05, 0x21, 0x00, 0x80, 0x00, 0x00,
				     0x08, 0x05, 0xa1, 0x00, 0x80, 0x00, 0x00,
				     0x21, 0x6e, 0x07 };
	/* Data-only (ETMCR[20]): information byte, no address. */
	static const uint8_t d[] = { 0x08, 0x20 };
	char out[NAMES_CAP];

	(void)state;
	etm3_forms(1u << 14, IDR35, CCER, b, sizeof(b), out);
	assert_string_equal(out, "i_sync context_id|i_sync context_id lsip|"
			    "context_id bytes=1");
	etm3_forms(1u << 20 | 1u << 3, IDR35, CCER, d, sizeof(d), out);
	assert_string_equal(out, "i_sync data_only");
}

static void test_etm3_cycle_accurate(void **state)
{
	/* 0x70 I-sync with a cycle count; formats 1 (0x84: W E), 2 (0x82:
	 * W E E), 3 (0xa0: W), 4 (0x92: E, ETMv3.3+). */
	static const uint8_t b[] = { 0x70, 0x05, 0x21, 0x00, 0x80, 0x00, 0x00,
				     0x84, 0x82, 0xa0, 0x92 };
	/* ETMv3.0: 0x80 is format 0 (one W). */
	static const uint8_t b0[] = { 0x08, 0x21, 0x00, 0x80, 0x00, 0x00,
				      0x80 };
	char out[NAMES_CAP];

	(void)state;
	etm3_forms(1u << 12, IDR35, CCER, b, sizeof(b), out);
	assert_string_equal(out, "i_sync_cycle|"
			    "p_header cycle_accurate format=1|"
			    "p_header cycle_accurate format=2|"
			    "p_header cycle_accurate format=3|"
			    "p_header cycle_accurate format=4");
	etm3_forms(1u << 12, IDR30, 0, b0, sizeof(b0), out);
	assert_string_equal(out, "i_sync|p_header cycle_accurate format=0");
}

static void test_etm3_branches(void **state)
{
	/* After an I-sync at 0x8000 (ARM): 1 and 2 address bytes; 5 bytes
	 * (ARM, X = 1) with exception byte 0 (SVC = 10, Cancel); 5 bytes,
	 * Thumb, with bytes 0 and 1 (Hyp, no exception); the deprecated
	 * exception-in-5th-byte form (0x88: code 1). */
	static const uint8_t b[] = { 0x08, 0x21, 0x00, 0x80, 0x00, 0x00,
				     0x21,
				     0x81, 0x01,
				     0x81, 0x80, 0x80, 0x80, 0x48, 0x34,
				     0x81, 0x80, 0x80, 0x80, 0x50, 0x81, 0x20,
				     0x81, 0x80, 0x80, 0x80, 0x88 };
	/* Alternative encoding: 2 address bytes, the final one's bit 6
	 * flagging exception byte 0 (IRQ = 14). */
	static const uint8_t a[] = { 0x08, 0x21, 0x00, 0x80, 0x00, 0x00,
				     0x81, 0x41, 0x1c };
	char out[NAMES_CAP];

	(void)state;
	etm3_forms(0, IDR35, CCER, b, sizeof(b), out);
	assert_string_equal(out, "i_sync|branch_address bytes=1|"
			    "branch_address bytes=2|"
			    "branch_address bytes=5 isa=arm exc_bytes=1 "
			    "exception cancel|"
			    "branch_address bytes=5 isa=thumb exc_bytes=2|"
			    "branch_address bytes=5 isa=arm legacy_exception");
	etm3_forms(0, IDR35 | ALT, CCER, a, sizeof(a), out);
	assert_string_equal(out, "i_sync|branch_address alt bytes=2 "
			    "exc_bytes=1 exception");
}

static void test_etm3_error(void **state)
{
	/* 0x10: a reserved header (Table 7.1, digest 2.1). */
	static const uint8_t b[] = { 0x08, 0x21, 0x00, 0x80, 0x00, 0x00,
				     0x10 };
	char out[NAMES_CAP];

	(void)state;
	etm3_forms(0, IDR35, CCER, b, sizeof(b), out);
	assert_string_equal(out, "i_sync|reserved error");
}

/* ---- ETMv4 / ETE -------------------------------------------------------- */

/* ---- PTM ------------------------------------------------------------------ */

static void ptm_forms(uint32_t cr, const uint8_t *body, size_t n, char *out)
{
	static const uint8_t async[6] = { 0, 0, 0, 0, 0, 0x80 };
	struct ptm_config cfg;
	struct ptm_pkt_decoder *dec;
	struct ptm_packet p[64];
	uint8_t buf[128];
	char name[96];
	int k;

	/* TC2's PTM_0: PFTv1.1, 64-bit binary timestamps, Virtualization
	 * Extensions (ETMIDR 0x411CF312, ETMCCER 0x34C01AC2) */
	ptm_config_init(&cfg);
	cfg.etmcr = cr;
	cfg.etmidr = 0x411cf312u;
	cfg.etmccer = 0x34c01ac2u;
	assert_int_equal(ptm_pkt_alloc(&dec, &cfg), 0);
	memcpy(buf, async, 6);
	memcpy(buf + 6, body, n);
	assert_int_equal(ptm_pkt_feed(dec, buf, 6 + n, NULL, 0), 0);
	ptm_pkt_finish(dec);
	out[0] = '\0';
	while ((k = ptm_pkt_next(dec, p, 64)) > 0)
		for (int i = 0; i < k; i++)
			if (p[i].type != ptm_pkt_a_sync)
				join(out, cli_form_ptm_name(cli_form_ptm_key(&p[i]),
							    name, sizeof(name)));
	ptm_pkt_free(dec);
}

#define PTM_CID1 (1u << 14)  /* ETMCR[15:14] = 01: 1-byte context IDs */
#define PTM_TS   (1u << 28)
#define PTM_VMID (1u << 30)
#define PTM_CA   (1u << 12)

static void test_ptm_forms(void **state)
{
	/* The digest's examples (ptm.md 4.2-4.5): I-sync 08 DF 8D 01 C0 21
	 * (Thumb, trace on) with a 1-byte context ID; atoms C8 (5) and 94
	 * (3); branches AD 05 (2 bytes), FD 9E 80 80 18 (5, Thumb) and
	 * 81 80 80 80 48 02 (5, ARM, exception byte 02: halting debug);
	 * waypoint update 72 79; context ID 6E 07; VMID 3C 05; timestamps
	 * 42 05 and 46 05 (R); trigger, exception return, ignore; then 04,
	 * reserved (ETMv3's cycle count). */
	static const uint8_t b[] = { 0x08, 0xdf, 0x8d, 0x01, 0xc0, 0x21, 0x07,
				     0xc8, 0x94, 0xad, 0x05,
				     0xfd, 0x9e, 0x80, 0x80, 0x18,
				     0x81, 0x80, 0x80, 0x80, 0x48, 0x02,
				     0x72, 0x79, 0x6e, 0x07, 0x3c, 0x05,
				     0x42, 0x05, 0x46, 0x05, 0x0c, 0x76, 0x66,
				     0x04 };
	char out[NAMES_CAP];

	(void)state;
	ptm_forms(PTM_CID1 | PTM_TS | PTM_VMID, b, sizeof(b), out);
	assert_string_equal(out, "i_sync context_id|atom atoms=5|atom atoms=3|"
			    "branch_address bytes=2|"
			    "branch_address bytes=5 isa=thumb|"
			    "branch_address bytes=5 isa=arm exc_bytes=1 "
			    "exception|waypoint_update bytes=1|"
			    "context_id bytes=1|vmid|timestamp|"
			    "timestamp clock_change|trigger|exception_return|"
			    "ignore|reserved error");
}

static void test_ptm_cycle_accurate_forms(void **state)
{
	/* Cycle-accurate (ETMCR[12]): I-sync 08 DF 8D 01 C0 21 CC 03 (cycle
	 * count 51), atom E8 20 (E, 522 cycles), branch AD 05 with a count
	 * byte 04, timestamp 42 05 with a count byte 04 (ptm.md 3, 4.3). */
	static const uint8_t b[] = { 0x08, 0xdf, 0x8d, 0x01, 0xc0, 0x21, 0xcc,
				     0x03, 0xe8, 0x20, 0xad, 0x05, 0x04,
				     0x42, 0x05, 0x04 };
	char out[NAMES_CAP];

	(void)state;
	ptm_forms(PTM_CA | PTM_TS, b, sizeof(b), out);
	assert_string_equal(out, "i_sync cycles|atom cycle_accurate atoms=1|"
			    "branch_address bytes=2 cycles|timestamp cycles");
}

#define ETE_IDR0 0x2801cea1u
#define ETE_IDR2 0xd0001088u
#define ETE_DEVARCH 0x47705a13u
#define V4_IDR0 0x28000ea1u
#define V4_IDR1 0x4100f403u
#define V4_IDR2 0x00000488u
#define CFGR_CCI (1u << 4)
#define CFGR_CID (1u << 6)
#define CFGR_VMID (1u << 7)

static void etm4_forms(const struct etm4_config *cfg, const uint8_t *body,
		       size_t n, char *out)
{
	static const uint8_t async[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					   0x80 };
	struct etm4_pkt_decoder *dec;
	struct etm4_packet p[64];
	uint8_t buf[128];
	char name[96];
	int k;

	assert_int_equal(etm4_pkt_alloc(&dec, cfg), 0);
	memcpy(buf, async, 12);
	memcpy(buf + 12, body, n);
	assert_int_equal(etm4_pkt_feed(dec, buf, 12 + n, NULL, 0), 0);
	etm4_pkt_finish(dec);
	out[0] = '\0';
	while ((k = etm4_pkt_next(dec, p, 64)) > 0)
		for (int i = 0; i < k; i++)
			if (p[i].type != etm4_pkt_a_sync)
				join(out, cli_form_etm4_name(
					     cli_form_etm4_key(&p[i]),
					     name, sizeof(name)));
	etm4_pkt_free(dec);
}

static void ete_config(struct etm4_config *c, uint32_t cfgr)
{
	etm4_config_init(c);
	c->flags = ETM4_CFG_ETE;
	c->trcidr0 = ETE_IDR0;
	c->trcidr1 = 0x4100fff0u;
	c->trcidr2 = ETE_IDR2;
	c->trcidr8 = 16;
	c->trcdevarch = ETE_DEVARCH;
	c->trcconfigr = cfgr;
}

static void test_etm4_sync_and_spec(void **state)
{
	/* Trace Info with INFO, KEY and SPEC (PLCTL 0x07); Trace On;
	 * Context unchanged (0x80); Mispredict 0x32 (E E); Cancel format 2
	 * 0x34 (no atoms) and 0x36 (E E); format 3 0x3b (A: E); format 1
	 * 0x2e 01; Commit 0x2d 01; Timestamp with a cycle count (0x03). */
	static const uint8_t b[] = { 0x01, 0x07, 0x00, 0x00, 0x08, 0x04, 0x80,
				     0xf7, 0xf7, 0xf7, 0xf7,
				     0x32, 0x34, 0x36, 0x3b, 0x2e, 0x01,
				     0x2d, 0x01, 0x03, 0x05, 0x05 };
	struct etm4_config c;
	char out[NAMES_CAP];

	(void)state;
	ete_config(&c, CFGR_CCI | 1u << 11);
	etm4_forms(&c, b, sizeof(b), out);
	assert_string_equal(out, "trace_info sections=info,key,spec|trace_on|"
			    "context unchanged|atom format=1|atom format=1|"
			    "atom format=1|atom format=1|mispredict atoms=EE|"
			    "cancel format=2|cancel format=2 atoms=EE|"
			    "cancel format=3 atoms=E|cancel format=1|commit|"
			    "timestamp cycles");
}

static void test_etm4_addresses(void **state)
{
	/* Trace Info; Address + Context long 64 IS1 (0x86) with EL1, SF,
	 * context ID; exact match 0x92 (entry 2); short IS1 0x96 one byte;
	 * long 64 IS1 0x9e; long 32 IS0 0x9a; Context 0x81 with VMID and
	 * context ID. */
	static const uint8_t b[] = { 0x01, 0x00, 0x04,
				     0x86, 0x00, 0x10, 0, 0, 0, 0, 0, 0,
				     0x91, 0x44, 0x33, 0x22, 0x11,
				     0x92, 0x96, 0x02,
				     0x9e, 0x00, 0x20, 0, 0, 0, 0, 0, 0,
				     0x9a, 0x00, 0x20, 0x00, 0x00,
				     0x81, 0xc1, 0x01, 0x00, 0x00, 0x00,
				     0x02, 0x00, 0x00, 0x00 };
	struct etm4_config c;
	char out[NAMES_CAP];

	(void)state;
	ete_config(&c, CFGR_CID | CFGR_VMID);
	etm4_forms(&c, b, sizeof(b), out);
	assert_string_equal(out, "trace_info sections=none|trace_on|"
			    "address_context long64 is=1 context_id|"
			    "address exact hist=2|address short is=1 bits=8|"
			    "address long64 is=1|address long32 is=0|"
			    "context updated vmid context_id");
}

static void test_etm4_cycle_count_commit(void **state)
{
	/* ETMv4 with TRCIDR0.COMMOPT 0: cycle counts carry a commit;
	 * format 3 0x15 (commit 2, count 1); format 1 with U = 1 (0x0f,
	 * then the commit, 1).
	 * An Exception (0x06, type 0x0e IRQ, E1:E0 0b01) and its address. */
	static const uint8_t b[] = { 0x01, 0x09, 0x01, 0x00, 0x04,
				     0x15, 0x0f, 0x01,
				     0x06, 0x1d, 0x95, 0x10 };
	struct etm4_config c;
	char out[NAMES_CAP];

	(void)state;
	etm4_config_init(&c);
	c.trcidr0 = V4_IDR0 & ~(1u << 29);
	c.trcidr1 = V4_IDR1;
	c.trcidr2 = V4_IDR2;
	c.trcidr8 = 16;
	c.trcconfigr = CFGR_CCI;
	etm4_forms(&c, b, sizeof(b), out);
	assert_string_equal(out, "trace_info sections=info,cyct|trace_on|"
			    "cycle_count format=3 commit|"
			    "cycle_count format=1 unknown commit|"
			    "exception bytes=2|address short is=0 bits=9");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_etm3_normal),
		cmocka_unit_test(test_etm3_isync_forms),
		cmocka_unit_test(test_etm3_cycle_accurate),
		cmocka_unit_test(test_etm3_branches),
		cmocka_unit_test(test_etm3_error),
		cmocka_unit_test(test_ptm_forms),
		cmocka_unit_test(test_ptm_cycle_accurate_forms),
		cmocka_unit_test(test_etm4_sync_and_spec),
		cmocka_unit_test(test_etm4_addresses),
		cmocka_unit_test(test_etm4_cycle_count_commit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
