/* ETMv2 configuration and capture readers: etm2_config_* against
 * docs/etmv2.md (sections 2 and 6) and etm2.h's list of checks; the text
 * capture form against docs/etmv2-capture.md. Every expected value is
 * worked by hand from those documents. */
#include "unit/etm2_cap_test.h"
#include "etmkit/snapshot.h"
#include "test_util.h"

static struct cap_run R;

/* ---- Configuration --------------------------------------------------- */

static void test_config_init(void **state)
{
	struct etm2_config cfg;
	struct etm2_config_info info;

	(void)state;
	etm2_config_init(&cfg);
	assert_int_equal(cfg.size, sizeof(cfg));
	assert_int_equal(cfg.fifo_latency, 1); /* docs/etmv2.md 3 */
	/* docs/etmv2.md 2, "natural": codes in status order. */
	for (unsigned c = 0; c < 16; c++)
		assert_int_equal(cfg.pipestat[c], c);
	/* docs/etmv2.md 6: normal 0x00, lsip 0x80, mask 0x9F, rr-shift 5. */
	assert_int_equal(cfg.tfo.normal, 0x00);
	assert_int_equal(cfg.tfo.lsip, 0x80);
	assert_int_equal(cfg.tfo.mask, 0x9f);
	assert_int_equal(cfg.tfo.rr_shift, 5);
	/* ETMCR 0: 4-bit port (ETMCR[6:4] = 000); no ETMIDR: ETMv2. */
	assert_int_equal(etm2_config_decode(&cfg, &info), 0);
	assert_int_equal(info.version, 2);
	assert_int_equal(info.port_width, 4);
	assert_int_equal(info.context_id_bytes, 0);
}

static void test_config_fields(void **state)
{
	struct etm2_config cfg;
	struct etm2_config_info info;

	(void)state;
	etm2_config_init(&cfg);
	/* [1] CPRT, [2] value, [3] address, [6:4] = 001 8-bit, [8] branch
	 * output, [12] CA, [15:14] = 10 two context ID bytes. */
	cfg.etmcr = 0x2 | 0x4 | 0x8 | 0x10 | 0x100 | 0x1000 | 0x8000;
	cfg.etmidr = 0x41012130; /* [11:8] = 1: ETMv2, minor 3 */
	assert_int_equal(etm2_config_decode(&cfg, &info), 0);
	assert_int_equal(info.version, 2);
	assert_int_equal(info.minor, 3);
	assert_int_equal(info.port_width, 8);
	assert_int_equal(info.cycle_accurate, 1);
	assert_int_equal(info.context_id_bytes, 2);
	assert_int_equal(info.data_addr, 1);
	assert_int_equal(info.data_value, 1);
	assert_int_equal(info.cprt, 1);
	assert_int_equal(info.branch_output, 1);
	cfg.etmcr = 0xc000; /* 4 context ID bytes, 4-bit port */
	cfg.etmidr = 0x41010000; /* [11:8] = 0: ETMv1 */
	assert_int_equal(etm2_config_decode(&cfg, &info), 0);
	assert_int_equal(info.version, 1);
	assert_int_equal(info.context_id_bytes, 4);
	assert_int_equal(info.port_width, 4);
	cfg.port_width = 16; /* stated: ETMCR[6:4] not used */
	assert_int_equal(etm2_config_decode(&cfg, &info), 0);
	assert_int_equal(info.port_width, 16);
}

/* Each check etm2.h lists for etm2_config_decode(). */
static void test_config_refused(void **state)
{
	struct etm2_config cfg;
	struct etm2_config_info info;

	(void)state;
#define REFUSED(change, err)                                                 \
	do {                                                                 \
		etm2_config_init(&cfg);                                      \
		change;                                                      \
		assert_int_equal(etm2_config_decode(&cfg, &info), err);      \
	} while (0)
	REFUSED((void)0, 0);
	REFUSED(cfg.etmidr = 0x41012200, -etmkit_err_bad_config); /* ETMv3 */
	REFUSED(cfg.etmidr = 0x41013300, -etmkit_err_bad_config); /* PTM */
	/* A version set wins over ETMIDR's (both ETMv1/ETMv2). */
	REFUSED((cfg.etmidr = 0x41012100, cfg.version = 1), 0);
	assert_int_equal(info.version, 1);
	REFUSED((cfg.etmidr = 0x41012200, cfg.version = 2), -etmkit_err_bad_config);
	REFUSED(cfg.version = 3, -etmkit_err_bad_config);
	REFUSED(cfg.etmcr = 3u << 4, -etmkit_err_bad_config); /* port size 011 */
	REFUSED(cfg.port_width = 12, -etmkit_err_bad_config);
	REFUSED(cfg.port_mode = etm2_port_multiplexed, -etmkit_err_bad_config);
	REFUSED(cfg.port_mode = 3, -etmkit_err_bad_config);
	REFUSED(cfg.etmcr = 1u << 16, -etmkit_err_bad_config); /* multiplexed */
	REFUSED(cfg.etmcr = 2u << 16, 0);                      /* demultiplexed */
	REFUSED(cfg.fifo_latency = 2, -etmkit_err_bad_config);
	/* PIPESTAT: DE from two codes, TD from none. */
	REFUSED(cfg.pipestat[7] = etm2_st_de, -etmkit_err_bad_config);
	/* TD from no code (PTIE from two: phantoms may repeat). */
	REFUSED(cfg.pipestat[7] = etm2_st_ptie, -etmkit_err_bad_config);
	REFUSED(cfg.pipestat[9] = etm2_st_ptie, 0);
	/* An ETMv1 status in the ETMv2 table. */
	REFUSED(cfg.pipestat[15] = etm2_st_id, -etmkit_err_bad_config);
	REFUSED(cfg.pipestat[15] = etm2_st_count, -etmkit_err_bad_config);
	/* ETMv1's table is fixed: the ETMv2 one is not looked at. */
	REFUSED((cfg.version = 1, cfg.pipestat[7] = etm2_st_de), 0);
	/* TFO: headers colliding, outside the mask, reason bits inside it,
	 * shift beyond 6. */
	REFUSED(cfg.tfo.lsip = cfg.tfo.normal, -etmkit_err_bad_config);
	REFUSED(cfg.tfo.normal = 0x20, -etmkit_err_bad_config);
	REFUSED(cfg.tfo.mask = 0xff, -etmkit_err_bad_config);
	REFUSED(cfg.tfo.rr_shift = 7, -etmkit_err_bad_config);
	REFUSED((cfg.tfo.mask = 0xe7, cfg.tfo.rr_shift = 3), 0);
	REFUSED(cfg.size = sizeof(cfg) - 1, -etmkit_err_invalid);
#undef REFUSED
	assert_int_equal(etm2_config_decode(NULL, &info), -etmkit_err_invalid);
	etm2_config_init(&cfg);
	assert_int_equal(etm2_config_decode(&cfg, NULL), -etmkit_err_invalid);
}

static void test_pipestat_tables(void **state)
{
	uint8_t t[16];
	static const char rev[] = "TD,TR,DW,WT,DN,IN,DE,IE,PNDN,PNIN,PNDE,PNIE,"
				  "PTDN,PTIN,PTDE,PTIE";

	(void)state;
	assert_int_equal(etm2_pipestat_table("alt", t), 0);
	/* docs/etmv2.md 2, alt: 1010 PNIE, 1011 PNDE, 1100 PTIN, 1101 PTDN */
	assert_int_equal(t[9], etm2_st_ptde);
	assert_int_equal(t[10], etm2_st_pnie);
	assert_int_equal(t[11], etm2_st_pnde);
	assert_int_equal(t[12], etm2_st_ptin);
	assert_int_equal(t[13], etm2_st_ptdn);
	assert_int_equal(t[14], etm2_st_pnin);
	assert_int_equal(etm2_pipestat_table("natural", t), 0);
	assert_int_equal(t[10], etm2_st_ptin);
	assert_int_equal(t[12], etm2_st_pnie);
	assert_int_equal(etm2_pipestat_table(rev, t), 0);
	assert_int_equal(t[0], etm2_st_td);
	assert_int_equal(t[7], etm2_st_ie);
	assert_int_equal(t[15], etm2_st_ptie);
	memset(t, 0xaa, sizeof(t));
	/* 15 names, 17 names, an unknown name, an ETMv1 status, empty. */
	assert_int_equal(etm2_pipestat_table("TD,TR,DW,WT,DN,IN,DE,IE,PNDN,PNIN,"
					     "PNDE,PNIE,PTDN,PTIN,PTDE", t),
			 -etmkit_err_not_found);
	assert_int_equal(etm2_pipestat_table("TD,TR,DW,WT,DN,IN,DE,IE,PNDN,PNIN,"
					     "PNDE,PNIE,PTDN,PTIN,PTDE,PTIE,IE", t),
			 -etmkit_err_not_found);
	assert_int_equal(etm2_pipestat_table("TD,TR,DW,WT,DN,IN,DE,IE,PNDN,PNIN,"
					     "PNDE,PNIE,PTDN,PTIN,PTDE,XX", t),
			 -etmkit_err_not_found);
	assert_int_equal(etm2_pipestat_table("TD,TR,DW,WT,DN,IN,DE,IE,PNDN,PNIN,"
					     "PNDE,PNIE,PTDN,PTIN,PTDE,ID", t),
			 -etmkit_err_not_found);
	assert_int_equal(etm2_pipestat_table("", t), -etmkit_err_not_found);
	assert_int_equal(etm2_pipestat_table("natura", t), -etmkit_err_not_found);
	assert_int_equal(t[0], 0xaa); /* unchanged */
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(etm2_status_name(etm2_st_ie), "IE");
	assert_string_equal(etm2_status_name(etm2_st_td), "TD");
	assert_string_equal(etm2_status_name(etm2_st_pndn), "PNDN");
	assert_string_equal(etm2_status_name(etm2_st_bd), "BD");
	assert_string_equal(etm2_status_name(etm2_st_count), "invalid");
	assert_string_equal(etm2_pkt_type_name(etm2_pkt_unsynced), "unsynced");
	assert_string_equal(etm2_pkt_type_name(etm2_pkt_load_miss_data),
			    "load_miss_data");
	assert_string_equal(etm2_pkt_type_name(etm2_pkt_reserved), "reserved");
	assert_string_equal(etm2_pkt_type_name(etm2_pkt_type_count), "invalid");
	assert_string_equal(etm2_reason_name(etm2_reason_overflow), "overflow");
	assert_string_equal(etm2_reason_name(etm2_reason_debug_exit), "debug_exit");
	assert_string_equal(etm2_reason_name(4), "invalid");
	assert_string_equal(etm2_vector_name(0), "reset");
	assert_string_equal(etm2_vector_name(2), "svc");
	assert_string_equal(etm2_vector_name(6), "irq");
	assert_string_equal(etm2_vector_name(7), "fiq");
	assert_string_equal(etm2_vector_name(0xffff), "not_a_vector");
	assert_string_equal(etm2_vector_name(8), "invalid");
}

/* ---- Text captures ---------------------------------------------------- */

#define HDR8 "etmv2-capture 1\nversion 2\nport-width 8\ncycles\n"

/* The example of docs/etmv2-capture.md (ETMv2 lines), natural table. */
static void test_text_example(void **state)
{
	static const char text[] =
		"# an example\n"
		"\n"
		"etmv2-capture 1\n"
		"version 2\n"
		"port-width 8\n"
		"port-mode normal\n"
		"half-rate 0\n"
		"etmcr 0x0000100c\n"
		"etmidr 0x41012100\n"
		"pipestat-table natural\n"
		"cycles\n"
		"IE\n"
		"0x1 0x21\n"
		"TR/DE   # a trigger\n"
		"TD 0x0b\r\n"
		"WT x12\n"
		"PNDN 255\n";

	(void)state;
	for (size_t chunk = 1; chunk <= 64; chunk *= 4) {
		assert_int_equal(cap_text(text, NULL, chunk, &R), 0);
		assert_int_equal(R.rc, 0);
		assert_int_equal(R.n, 17);
		assert_cycle(&R.c[0], 0, 0, 0);      /* IE = 0000 */
		assert_cycle(&R.c[1], 1, 0x21, 0);   /* raw code 1 */
		assert_cycle(&R.c[2], 6, 1, 0);      /* TR = 0110, DE = 0001 */
		assert_cycle(&R.c[3], 7, 0x0b, 0);   /* TD = 0111 */
		for (int i = 4; i < 16; i++)
			assert_cycle(&R.c[i], 4, 0, 0); /* WT = 0100 */
		assert_cycle(&R.c[16], 15, 0xff, 0); /* PNDN = 1111 */
	}
	assert_int_equal(R.info.version, 2);
	assert_int_equal(R.info.port_width, 8);
	assert_int_equal(R.info.has_etmcr, 1);
	assert_int_equal(R.info.etmcr, 0x100c);
	assert_int_equal(R.info.has_etmidr, 1);
	assert_int_equal(R.info.etmidr, 0x41012100);
	assert_int_equal(R.info.has_pipestat, 1);
	assert_int_equal(R.info.format, etm2_cap_text);
}

/* Names go through the capture's table: alt and a user table. */
static void test_text_tables(void **state)
{
	struct etm2_cap_info opt = { 0 };

	(void)state;
	assert_int_equal(cap_text("etmv2-capture 1\nport-width 4\n"
				  "pipestat-table alt\ncycles\n"
				  "PNIE\nPTIN\nPTDN\nTR/PNDE\n", NULL, 64, &R), 0);
	assert_int_equal(R.n, 4);
	assert_cycle(&R.c[0], 10, 0, 0);
	assert_cycle(&R.c[1], 12, 0, 0);
	assert_cycle(&R.c[2], 13, 0, 0);
	assert_cycle(&R.c[3], 6, 11, 0);
	/* Natural (no table line) */
	assert_int_equal(cap_text("etmv2-capture 1\nport-width 4\ncycles\n"
				  "PNIE\nPTIN\n", NULL, 64, &R), 0);
	assert_cycle(&R.c[0], 12, 0, 0);
	assert_cycle(&R.c[1], 10, 0, 0);
	assert_int_equal(R.info.has_pipestat, 0);
	/* Sixteen names, reversed: IE is code 7, TR code 1. */
	assert_int_equal(cap_text("etmv2-capture 1\nport-width 8\npipestat-table "
				  "TD,TR,DW,WT,DN,IN,DE,IE,PNDN,PNIN,PNDE,PNIE,"
				  "PTDN,PTIN,PTDE,PTIE\ncycles\nIE\nTR/IE\nPTIE\n",
				  NULL, 64, &R), 0);
	assert_int_equal(R.n, 3);
	assert_cycle(&R.c[0], 7, 0, 0);
	assert_cycle(&R.c[1], 1, 7, 0);
	assert_cycle(&R.c[2], 15, 0, 0);
	/* A status from two codes: its name is the first code. */
	assert_int_equal(cap_text("etmv2-capture 1\nport-width 8\npipestat-table "
				  "IE,DE,IN,DN,WT,DW,TR,TD,PTIE,PTIE,PTIN,PTDN,"
				  "PNIE,PNDE,PNIN,PNDN\ncycles\nPTIE\n9\n",
				  NULL, 64, &R), 0);
	assert_int_equal(R.n, 2);
	assert_cycle(&R.c[0], 8, 0, 0);
	assert_cycle(&R.c[1], 9, 0, 0);
	assert_int_equal(cap_text("etmv2-capture 1\nport-width 8\npipestat-table "
				  "IE,DE,IN,DN,WT,DW,TR,TD,PTIE,PTIE,PTIN,PTDN,"
				  "PNIE,PNDE,PNIN,PNDN\ncycles\nPTDE\n",
				  NULL, 64, &R), 0);
	assert_int_equal(R.rc, -etmkit_err_format);
	assert_string_equal(R.diag.message,
			    "line 5: status PTDE has no code in the PIPESTAT table");
	/* The options' table when the file has none. */
	opt.has_pipestat = 1;
	assert_int_equal(etm2_pipestat_table("alt", opt.pipestat), 0);
	assert_int_equal(cap_text("etmv2-capture 1\nport-width 4\ncycles\nPNIE\n",
				  &opt, 64, &R), 0);
	assert_cycle(&R.c[0], 10, 0, 0);
}

/* ETMv1: the fixed 3-bit table IE ID IN WT BE BD TR TD, TRACESYNC. */
static void test_text_etmv1(void **state)
{
	(void)state;
	assert_int_equal(cap_text("etmv2-capture 1\nversion 1\nport-width 4\ncycles\n"
				  "IE 0x04 sync\nBE 0x9 sync\nTR/BD\nID\nWT x2\n7 1\n",
				  NULL, 64, &R), 0);
	assert_int_equal(R.rc, 0);
	assert_int_equal(R.n, 7);
	assert_cycle(&R.c[0], 0, 4, ETM2_CYC_TRACESYNC);
	assert_cycle(&R.c[1], 4, 9, ETM2_CYC_TRACESYNC);
	assert_cycle(&R.c[2], 6, 5, 0);
	assert_cycle(&R.c[3], 1, 0, 0);
	assert_cycle(&R.c[4], 3, 0, 0);
	assert_cycle(&R.c[5], 3, 0, 0);
	assert_cycle(&R.c[6], 7, 1, 0);
	assert_int_equal(R.info.version, 1);
	/* ETMIDR[11:8] = 0 names ETMv1 when the version line is absent. */
	assert_int_equal(cap_text("etmv2-capture 1\netmidr 0x41010000\n"
				  "port-width 4\ncycles\nBD\n", NULL, 64, &R), 0);
	assert_int_equal(R.info.version, 1);
	assert_cycle(&R.c[0], 5, 0, 0);
}

/* Demultiplexed: `A | B`, A the earlier cycle unless b-first; a repeat
 * repeats the port clock. */
static void test_text_demux(void **state)
{
	static const char a_first[] =
		"etmv2-capture 1\nport-width 8\nport-mode demultiplexed\ncycles\n"
		"IE | DE 0x3\nWT | TD 0x1 x2\n";
	static const char b_first[] =
		"etmv2-capture 1\nport-width 8\nport-mode demultiplexed\n"
		"demux-order b-first\ncycles\nIE | DE 0x3\nWT | TD 0x1 x2\n";

	(void)state;
	for (size_t chunk = 1; chunk <= 4; chunk++) {
		assert_int_equal(cap_text(a_first, NULL, chunk, &R), 0);
		assert_int_equal(R.n, 6);
		assert_cycle(&R.c[0], 0, 0, 0);
		assert_cycle(&R.c[1], 1, 3, 0);
		assert_cycle(&R.c[2], 4, 0, 0);
		assert_cycle(&R.c[3], 7, 1, 0);
		assert_cycle(&R.c[4], 4, 0, 0);
		assert_cycle(&R.c[5], 7, 1, 0);
		assert_int_equal(R.info.port_mode, etm2_port_demultiplexed);
		assert_int_equal(cap_text(b_first, NULL, chunk, &R), 0);
		assert_int_equal(R.n, 6);
		assert_cycle(&R.c[0], 1, 3, 0);
		assert_cycle(&R.c[1], 0, 0, 0);
		assert_cycle(&R.c[2], 7, 1, 0);
		assert_cycle(&R.c[3], 4, 0, 0);
		assert_int_equal(R.info.demux_b_first, 1);
	}
}

/* Header values from the registers and the options. */
static void test_text_merge(void **state)
{
	struct etm2_cap_info opt = { 0 };

	(void)state;
	/* ETMCR[6:4] = 010: 16-bit; ETMCR[17:16] = 10: demultiplexed. */
	assert_int_equal(cap_text("etmv2-capture 1\netmcr 0x20020\ncycles\n"
				  "IE 0xffff | WT\n", NULL, 64, &R), 0);
	assert_int_equal(R.info.port_width, 16);
	assert_int_equal(R.info.port_mode, etm2_port_demultiplexed);
	assert_int_equal(R.n, 2);
	assert_cycle(&R.c[0], 0, 0xffff, 0);
	/* Width from the options; the same width stated twice agrees. */
	opt.port_width = 8;
	assert_int_equal(cap_text("etmv2-capture 1\ncycles\nIE 0xff\n", &opt, 64, &R), 0);
	assert_int_equal(R.info.port_width, 8);
	assert_int_equal(cap_text(HDR8 "IE 0xff\n", &opt, 64, &R), 0);
	/* Disagreements. */
	opt.port_width = 4;
	assert_int_equal(cap_text(HDR8 "IE\n", &opt, 64, &R), -etmkit_err_bad_config);
	assert_string_equal(R.diag.message, "port width 8 in the capture, 4 in the options");
	memset(&opt, 0, sizeof(opt));
	opt.has_etmcr = 1;
	opt.etmcr = 0x1000;
	assert_int_equal(cap_text("etmv2-capture 1\nport-width 8\netmcr 0x100c\ncycles\n",
				  &opt, 64, &R), -etmkit_err_bad_config);
	assert_string_equal(R.diag.message,
			    "ETMCR 0x0000100c in the capture, 0x00001000 in the options");
	memset(&opt, 0, sizeof(opt));
	opt.has_pipestat = 1;
	etm2_pipestat_table("alt", opt.pipestat);
	assert_int_equal(cap_text("etmv2-capture 1\nport-width 8\npipestat-table natural\n"
				  "cycles\n", &opt, 64, &R), -etmkit_err_bad_config);
	assert_string_equal(R.diag.message,
			    "the PIPESTAT table of the capture differs from the options'");
	assert_int_equal(cap_text("etmv2-capture 1\ncycles\nIE\n", NULL, 64, &R),
			 -etmkit_err_bad_config);
	assert_string_equal(R.diag.message, "no port width (neither the capture "
			    "nor the options give one)");
}

/* Header errors: exact messages, at open. */
static void test_text_bad_header(void **state)
{
	static const struct {
		const char *text, *message;
		unsigned line;
	} cases[] = {
		{ "hello\n", "line 1: not an ETMv2 text capture (expected "
		  "\"etmv2-capture 1\")", 1 },
		{ "", "line 0: not an ETMv2 text capture (expected "
		  "\"etmv2-capture 1\")", 0 },
		{ "# c\n\netmv2-capture 2\n", "line 3: text capture version 2 "
		  "(this reader knows 1)", 3 },
		{ "etmv2-capture 1\ncolour red\ncycles\n",
		  "line 2: unknown header line 'colour'", 2 },
		{ "etmv2-capture 1\nport-width 12\ncycles\n",
		  "line 2: bad value '12' for port-width", 2 },
		{ "etmv2-capture 1\nport-width\ncycles\n",
		  "line 2: port-width takes one value", 2 },
		{ "etmv2-capture 1\nport-width 8\nport-width 8\ncycles\n",
		  "line 3: port-width given twice", 3 },
		{ "etmv2-capture 1\nversion 3\ncycles\n",
		  "line 2: bad value '3' for version", 2 },
		{ "etmv2-capture 1\nport-mode multiplexed\ncycles\n",
		  "line 2: bad value 'multiplexed' for port-mode", 2 },
		{ "etmv2-capture 1\netmcr 0x1000000000\ncycles\n",
		  "line 2: bad value '0x1000000000' for etmcr", 2 },
		{ "etmv2-capture 1\netmidr 12a\ncycles\n",
		  "line 2: bad value '12a' for etmidr", 2 },
		{ "etmv2-capture 1\npipestat-table IE,DE\ncycles\n",
		  "line 2: bad value 'IE,DE' for pipestat-table", 2 },
		{ "etmv2-capture 1\ndemux-order c-first\ncycles\n",
		  "line 2: bad value 'c-first' for demux-order", 2 },
		{ "etmv2-capture 1\nport-width 8\n",
		  "line 2: end of file before the \"cycles\" line", 2 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = cap_text(cases[i].text, NULL, 64, &R);

		if (rc != -etmkit_err_format)
			fail_msg("case %zu: %d (%s)", i, rc, R.diag.message);
		assert_string_equal(R.diag.message, cases[i].message);
		assert_int_equal(R.diag.line, cases[i].line);
	}
}

/* Cycle line errors: the cycles before come out, then the error, with
 * its line; later reads return it again. */
static void test_text_bad_cycles(void **state)
{
	static const struct {
		const char *line, *message;
	} cases[] = {
		{ "XX", "line 6: unknown status 'XX'" },
		{ "ie", "line 6: unknown status 'ie'" },
		{ "ID", "line 6: status ID has no code in the PIPESTAT table" },
		{ "IE 0xZZ", "line 6: bad number '0xZZ'" },
		{ "IE 0x", "line 6: bad number '0x'" },
		{ "IE 256", "line 6: TRACEPKT '256' wider than the 8-bit port" },
		{ "IE 99999999999", "line 6: bad number '99999999999'" },
		{ "16", "line 6: PIPESTAT code '16' too large for the ETM version" },
		{ "IE sync", "line 6: 'sync' (TRACESYNC) is ETMv1 only" },
		{ "IE 1 2", "line 6: unexpected '2'" },
		{ "IE foo", "line 6: unexpected 'foo'" },
		{ "WT x0", "line 6: bad repeat 'x0' (x1 to x16777216)" },
		{ "WT x16777217", "line 6: bad repeat 'x16777217' (x1 to x16777216)" },
		{ "WT xx", "line 6: bad repeat 'xx' (x1 to x16777216)" },
		{ "IE | DE", "line 6: '|' in a normal port capture" },
		{ "IE/DE", "line 6: 'IE/DE': only a TR cycle names the status it replaces" },
		{ "TR/", "line 6: 'TR/': no status after '/'" },
		{ "TR/XY", "line 6: unknown status 'XY'" },
		{ "TR/DE 0x22", "line 6: TRACEPKT '0x22' does not hold the replaced "
		  "status's code" },
		{ "IE 1 2 3 4 5 6 7 8 9", "line 6: too many fields" },
	};
	char text[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), HDR8 "IE\n%s\nIE\n", cases[i].line);
		assert_int_equal(cap_text(text, NULL, 64, &R), 0);
		if (R.n != 1 || R.rc != -etmkit_err_format)
			fail_msg("'%s': %zu cycles, rc %ld", cases[i].line, R.n, R.rc);
		assert_string_equal(R.diag.message, cases[i].message);
		assert_int_equal(R.diag.line, 6);
	}
}

/* A repeat on the A half, a missing half, 4-bit width. */
static void test_text_bad_demux(void **state)
{
	(void)state;
	assert_int_equal(cap_text("etmv2-capture 1\nport-width 4\nport-mode "
				  "demultiplexed\ncycles\nIE\n", NULL, 64, &R), 0);
	assert_int_equal(R.rc, -etmkit_err_format);
	assert_string_equal(R.diag.message,
			    "line 5: expected 'A | B' (a demultiplexed port)");
	assert_int_equal(cap_text("etmv2-capture 1\nport-width 4\nport-mode "
				  "demultiplexed\ncycles\nIE x2 | IE\n", NULL, 64, &R), 0);
	assert_string_equal(R.diag.message, "line 5: unexpected 'x2'");
	assert_int_equal(cap_text("etmv2-capture 1\nport-width 4\nport-mode "
				  "demultiplexed\ncycles\nIE | \n", NULL, 64, &R), 0);
	assert_string_equal(R.diag.message, "line 5: no status");
	assert_int_equal(cap_text("etmv2-capture 1\nport-width 4\nport-mode "
				  "demultiplexed\ncycles\nIE | IE 0x10\n", NULL, 64, &R), 0);
	assert_string_equal(R.diag.message,
			    "line 5: TRACEPKT '0x10' wider than the 4-bit port");
}

/* The error stays: every later read returns it. */
static void test_text_sticky(void **state)
{
	static const char text[] = HDR8 "IE\nWT x3\nBAD\nIE\n";
	struct etm2_cap_reader *rd;
	struct etm2_cycle c[8];
	struct etm2_cap_diag d;

	(void)state;
	assert_int_equal(etm2_cap_open(&rd, (const uint8_t *)text, strlen(text),
				       etm2_cap_auto, NULL, &d), 0);
	assert_int_equal(etm2_cap_get_info(rd)->format, etm2_cap_text);
	assert_int_equal(etm2_cap_read(rd, c, 2, &d), 2);
	assert_int_equal(etm2_cap_read(rd, c, 8, &d), 2);
	assert_int_equal(etm2_cap_read(rd, c, 8, &d), -etmkit_err_format);
	assert_string_equal(d.message, "line 7: unknown status 'BAD'");
	memset(&d, 0, sizeof(d));
	assert_int_equal(etm2_cap_read(rd, c, 8, &d), -etmkit_err_format);
	assert_string_equal(d.message, "line 7: unknown status 'BAD'");
	assert_int_equal(d.line, 7);
	assert_int_equal(etm2_cap_read(NULL, c, 8, &d), -etmkit_err_invalid);
	etm2_cap_close(rd);
	assert_int_equal(etm2_cap_open(NULL, (const uint8_t *)text, 1,
				       etm2_cap_text, NULL, &d), -etmkit_err_invalid);
	assert_int_equal(etm2_cap_open(&rd, (const uint8_t *)text, 1,
				       (enum etm2_cap_format)9, NULL, &d),
			 -etmkit_err_invalid);
}

/* The snapshot form (docs/etmv2-capture.md "Snapshot directories"): a
 * trace source of type ETM2 / ETM1 and its registers. */
static void test_snapshot_device(void **state)
{
	struct snapshot_reg regs[2] = {
		{ .name = "ETMCR", .value = 0x100c },
		{ .name = "ETMIDR", .value = 0x41012100 },
	};
	struct snapshot_device dev = {
		.name = "ETM_0", .klass = "trace_source", .type = "ETM2",
		.path = "etm_0.ini", .nregs = 2, .regs = regs,
	};
	struct etm2_config cfg;
	struct snapshot_diag d;

	(void)state;
	assert_int_equal(snapshot_device_protocol(&dev), etmkit_proto_etmv2);
	assert_int_equal(snapshot_etm2_config(&dev, &cfg, &d), 0);
	assert_int_equal(cfg.etmcr, 0x100c);
	assert_int_equal(cfg.etmidr, 0x41012100);
	assert_int_equal(cfg.version, 2);
	assert_int_equal(cfg.fifo_latency, 1); /* etm2_config_init()'s */
	dev.type = "etm1.3";
	dev.nregs = 1; /* no ETMIDR: allowed */
	assert_int_equal(snapshot_device_protocol(&dev), etmkit_proto_etmv2);
	assert_int_equal(snapshot_etm2_config(&dev, &cfg, &d), 0);
	assert_int_equal(cfg.version, 1);
	assert_int_equal(cfg.etmidr, 0);
	dev.type = "ETM10";
	assert_int_equal(snapshot_device_protocol(&dev), etmkit_proto_none);
	dev.type = "ETM2";
	regs[0].name = "ETMSR";
	assert_int_equal(snapshot_etm2_config(&dev, &cfg, &d), -etmkit_err_format);
	assert_string_equal(d.message, "register ETMCR missing in [regs] of device ETM_0");
	regs[0].name = "ETMCR";
	regs[0].value = 0x100000000ull;
	assert_int_equal(snapshot_etm2_config(&dev, &cfg, &d), -etmkit_err_format);
	assert_string_equal(d.message, "register ETMCR of device ETM_0 does not fit in 32 bits");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_init),
		cmocka_unit_test(test_config_fields),
		cmocka_unit_test(test_config_refused),
		cmocka_unit_test(test_pipestat_tables),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_text_example),
		cmocka_unit_test(test_text_tables),
		cmocka_unit_test(test_text_etmv1),
		cmocka_unit_test(test_text_demux),
		cmocka_unit_test(test_text_merge),
		cmocka_unit_test(test_text_bad_header),
		cmocka_unit_test(test_text_bad_cycles),
		cmocka_unit_test(test_text_bad_demux),
		cmocka_unit_test(test_text_sticky),
		cmocka_unit_test(test_snapshot_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
