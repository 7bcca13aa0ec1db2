/* ETMv4 / ETE packet decoder tests: every packet of the raw (unformatted)
 * captures under ../shared against OpenCSD 1.8.0's listing of them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "unit/etm4_pkt_test.h"

#include "ts_session.h"
#include "unit/ocsd_listing.h"

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
		data = ts_read_file(path, &len);
		if (!data)
			fail_msg("cannot read %s", path);
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
		cmocka_unit_test(test_captures),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	return test_exit(failed, shared_missing());
}
