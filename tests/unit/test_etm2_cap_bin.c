/* ETMv2 binary and ETB capture readers and the two writers, against
 * docs/etmv2-capture.md: headers and records written byte by byte from
 * the tables there, ETB words from digest section 9's slot layout, the
 * text writer's exact output, and writer -> reader round trips. */
#include <stdlib.h>

#include "unit/etm2_cap_test.h"
#include "test_util.h"

static struct cap_run R;

/* ETMv2, 8-bit, normal, ETMCR 0x1000 present. */
static const uint8_t HDR[32] = {
	'E', 'T', 'M', '2', 'C', 'A', 'P', 0, 1, 0, 32, 0,
	2, 8, 0, 0x02, 0x00, 0x10, 0x00, 0x00, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0,
};

struct buf {
	uint8_t d[8192];
	size_t n;
};

static void cat(struct buf *b, const void *p, size_t n)
{
	assert_true(b->n + n <= sizeof(b->d));
	memcpy(b->d + b->n, p, n);
	b->n += n;
}

static void test_bin_records(void **state)
{
	static const uint8_t recs[] = { 0x21, 0x00, 0x01, 0x00, 0x0b, 0x00, 0x07, 0x00 };
	struct buf b = { .n = 0 };

	(void)state;
	cat(&b, HDR, 32);
	cat(&b, recs, sizeof(recs));
	for (size_t chunk = 1; chunk <= 2; chunk++) {
		assert_int_equal(cap_read_all(b.d, b.n, etm2_cap_auto, NULL, chunk, &R), 0);
		assert_int_equal(R.rc, 0);
		assert_int_equal(R.n, 2);
		assert_cycle(&R.c[0], 1, 0x21, 0);
		assert_cycle(&R.c[1], 7, 0x0b, 0);
	}
	assert_int_equal(R.info.format, etm2_cap_binary);
	assert_int_equal(R.info.version, 2);
	assert_int_equal(R.info.port_width, 8);
	assert_int_equal(R.info.has_etmcr, 1);
	assert_int_equal(R.info.etmcr, 0x1000);
	assert_int_equal(R.info.has_etmidr, 0);
	/* A longer header: its extra bytes are skipped. */
	b.n = 0;
	cat(&b, HDR, 32);
	b.d[10] = 40;
	cat(&b, "\xff\xff\xff\xff\xff\xff\xff\xff", 8);
	cat(&b, recs, 4);
	assert_int_equal(cap_read_all(b.d, b.n, etm2_cap_binary, NULL, 8, &R), 0);
	assert_int_equal(R.n, 1);
	assert_cycle(&R.c[0], 1, 0x21, 0);
	/* ETMv1 with TRACESYNC; ETMIDR present. */
	b.n = 0;
	cat(&b, HDR, 32);
	b.d[12] = 1;
	b.d[13] = 4;
	b.d[15] = 0x04;
	b.d[20] = 0x00; b.d[21] = 0x00; b.d[22] = 0x01; b.d[23] = 0x41;
	cat(&b, "\x09\x00\x04\x01", 4);
	assert_int_equal(cap_read_all(b.d, b.n, etm2_cap_binary, NULL, 8, &R), 0);
	assert_int_equal(R.rc, 0);
	assert_int_equal(R.n, 1);
	assert_cycle(&R.c[0], 4, 9, ETM2_CYC_TRACESYNC);
	assert_int_equal(R.info.has_etmcr, 0);
	assert_int_equal(R.info.etmidr, 0x41010000);
}

/* Demultiplexed: A then B in the file; flag bit 3: B is earlier. */
static void test_bin_demux(void **state)
{
	static const uint8_t recs[] = {
		0x01, 0, 0, 0, 0x02, 0, 1, 0, /* A0 IE 1, B0 DE 2 */
		0x03, 0, 4, 0, 0x04, 0, 7, 0, /* A1 WT 3, B1 TD 4 */
	};
	struct buf b = { .n = 0 };

	(void)state;
	cat(&b, HDR, 32);
	b.d[14] = 2;
	cat(&b, recs, sizeof(recs));
	for (size_t chunk = 1; chunk <= 3; chunk++) {
		assert_int_equal(cap_read_all(b.d, b.n, etm2_cap_auto, NULL, chunk, &R), 0);
		assert_int_equal(R.n, 4);
		assert_cycle(&R.c[0], 0, 1, 0);
		assert_cycle(&R.c[1], 1, 2, 0);
		assert_cycle(&R.c[2], 4, 3, 0);
		assert_cycle(&R.c[3], 7, 4, 0);
	}
	b.d[15] |= 0x08;
	for (size_t chunk = 1; chunk <= 3; chunk++) {
		assert_int_equal(cap_read_all(b.d, b.n, etm2_cap_auto, NULL, chunk, &R), 0);
		assert_int_equal(R.n, 4);
		assert_cycle(&R.c[0], 1, 2, 0);
		assert_cycle(&R.c[1], 0, 1, 0);
		assert_cycle(&R.c[2], 7, 4, 0);
		assert_cycle(&R.c[3], 4, 3, 0);
	}
	assert_int_equal(R.info.demux_b_first, 1);
	/* A port clock cut short. */
	b.n -= 4;
	assert_int_equal(cap_read_all(b.d, b.n, etm2_cap_auto, NULL, 8, &R), 0);
	assert_int_equal(R.n, 2);
	assert_int_equal(R.rc, -etmkit_err_truncated);
	assert_string_equal(R.diag.message,
			    "byte 40: port clock cut short (4 of 8 bytes, demultiplexed)");
	assert_int_equal(R.diag.offset, 40);
}

static void test_bin_bad_header(void **state)
{
	static const struct {
		unsigned at, value; /* byte to change, -1: none */
		size_t len;         /* bytes of the file kept */
		enum etm2_cap_format fmt;
		int rc;
		const char *message;
	} cases[] = {
		{ 3, '3', 32, etm2_cap_binary, -etmkit_err_format,
		  "byte 0: not an ETMv2 binary capture (no \"ETM2CAP\" magic)" },
		{ 3, '3', 32, etm2_cap_auto, -etmkit_err_format,
		  "line 1: not an ETMv2 text capture (expected \"etmv2-capture 1\")" },
		{ 99, 0, 20, etm2_cap_auto, -etmkit_err_format,
		  "byte 20: header cut short (20 of 32 bytes)" },
		{ 99, 0, 5, etm2_cap_auto, -etmkit_err_format,
		  "byte 5: header cut short (5 of 32 bytes)" },
		{ 99, 0, 5, etm2_cap_binary, -etmkit_err_format,
		  "byte 5: header cut short (5 of 32 bytes)" },
		{ 8, 2, 32, etm2_cap_auto, -etmkit_err_format,
		  "byte 8: format version 2 (this reader knows 1)" },
		{ 10, 16, 32, etm2_cap_auto, -etmkit_err_format,
		  "byte 10: header size 16 (32 or more, within the file)" },
		{ 10, 33, 32, etm2_cap_auto, -etmkit_err_format,
		  "byte 10: header size 33 (32 or more, within the file)" },
		{ 12, 3, 32, etm2_cap_auto, -etmkit_err_format,
		  "byte 12: ETM version 3 (1 or 2; 0 not stated)" },
		{ 13, 12, 32, etm2_cap_auto, -etmkit_err_format,
		  "byte 13: port width 12 (4, 8 or 16; 0 not stated)" },
		{ 14, 1, 32, etm2_cap_auto, -etmkit_err_format,
		  "byte 14: port mode 1 (0 normal or 2 demultiplexed)" },
		{ 15, 0x12, 32, etm2_cap_auto, -etmkit_err_format,
		  "byte 15: unknown flags 0x12" },
		/* Width not stated, ETMCR absent, no options. */
		{ 13, 0, 32, etm2_cap_auto, -etmkit_err_bad_config,
		  "no port width (neither the capture nor the options give one)" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t h[32];
		int rc;

		memcpy(h, HDR, 32);
		if (cases[i].at < 32)
			h[cases[i].at] = (uint8_t)cases[i].value;
		if (cases[i].at == 13)
			h[15] = 0; /* no ETMCR either */
		rc = cap_read_all(h, cases[i].len, cases[i].fmt, NULL, 8, &R);
		if (rc != cases[i].rc)
			fail_msg("case %zu: %d (%s)", i, rc, R.diag.message);
		assert_string_equal(R.diag.message, cases[i].message);
	}
}

static void test_bin_bad_records(void **state)
{
	struct buf b = { .n = 0 };
	struct etm2_cap_info opt = { 0 };

	(void)state;
	cat(&b, HDR, 32);
	cat(&b, "\x21\x00\x01\x00\x00\x01\x01\x00", 8); /* TRACEPKT 0x100 */
	assert_int_equal(cap_read_all(b.d, b.n, etm2_cap_auto, NULL, 8, &R), 0);
	assert_int_equal(R.n, 1);
	assert_int_equal(R.rc, -etmkit_err_format);
	assert_string_equal(R.diag.message, "byte 36: bad record (PIPESTAT 0x1, "
			    "TRACEPKT 0x100, flags 0x0 for ETMv2, 8-bit port)");
	assert_int_equal(R.diag.offset, 36);
	b.n = 36;
	cat(&b, "\x00\x00\x10\x00", 4); /* PIPESTAT 16 */
	assert_int_equal(cap_read_all(b.d, b.n, etm2_cap_auto, NULL, 8, &R), 0);
	assert_string_equal(R.diag.message, "byte 36: bad record (PIPESTAT 0x10, "
			    "TRACEPKT 0x0, flags 0x0 for ETMv2, 8-bit port)");
	b.n = 36;
	cat(&b, "\x00\x00\x00\x01", 4); /* TRACESYNC on ETMv2 */
	assert_int_equal(cap_read_all(b.d, b.n, etm2_cap_auto, NULL, 8, &R), 0);
	assert_string_equal(R.diag.message, "byte 36: bad record (PIPESTAT 0x0, "
			    "TRACEPKT 0x0, flags 0x1 for ETMv2, 8-bit port)");
	b.n = 36;
	cat(&b, "\x00\x00", 2);
	assert_int_equal(cap_read_all(b.d, b.n, etm2_cap_auto, NULL, 8, &R), 0);
	assert_int_equal(R.n, 1);
	assert_int_equal(R.rc, -etmkit_err_truncated);
	assert_string_equal(R.diag.message, "byte 36: record cut short (2 of 4 bytes)");
	/* Options disagreeing with the header. */
	opt.port_width = 16;
	assert_int_equal(cap_read_all(b.d, b.n, etm2_cap_auto, &opt, 8, &R),
			 -etmkit_err_bad_config);
	assert_string_equal(R.diag.message, "port width 8 in the capture, 16 in the options");
	memset(&opt, 0, sizeof(opt));
	opt.port_mode = etm2_port_demultiplexed;
	assert_int_equal(cap_read_all(b.d, b.n, etm2_cap_auto, &opt, 8, &R),
			 -etmkit_err_bad_config);
	assert_string_equal(R.diag.message, "port mode 0 in the capture, 2 in the options");
}

/* ---- ETB words (digest 9) ----------------------------------------------- */

static void test_etb(void **state)
{
	/* 4-bit: slots [7:0] TD pkt 1; [15:8] PIPESTAT[2:0] 4, pkt 0xa, bit 7
	 * set; [23:16] TR pkt 1. */
	static const uint8_t w4[] = { 0x0f, 0xd4, 0x0e, 0x00 };
	/* 8-bit: [11:0] ps 1 pkt 0x21; [23:12] ps 7 pkt 0xff bit 11 set. */
	static const uint8_t w8[] = { 0x09, 0xf1, 0xff, 0x00 };
	/* 16-bit: [19:0] ps 0 pkt 0xbeef bit 19 set; [31:20] junk. */
	static const uint8_t w16[] = { 0x78, 0xf7, 0xfd, 0xff };
	struct etm2_cap_info opt = { 0 };

	(void)state;
	opt.port_width = 4;
	for (size_t chunk = 1; chunk <= 3; chunk++) {
		assert_int_equal(cap_read_all(w4, 4, etm2_cap_etb, &opt, chunk, &R), 0);
		assert_int_equal(R.rc, 0);
		assert_int_equal(R.n, 3);
		assert_cycle(&R.c[0], 7, 1, 0);
		assert_cycle(&R.c[1], 12, 0xa, 0); /* bit 7: PIPESTAT[3] */
		assert_cycle(&R.c[2], 6, 1, 0);
	}
	assert_int_equal(R.info.version, 2);
	assert_int_equal(R.info.format, etm2_cap_etb);
	opt.version = 1; /* bit 7: TRACESYNC */
	assert_int_equal(cap_read_all(w4, 4, etm2_cap_etb, &opt, 8, &R), 0);
	assert_cycle(&R.c[0], 7, 1, 0);
	assert_cycle(&R.c[1], 4, 0xa, ETM2_CYC_TRACESYNC);
	assert_cycle(&R.c[2], 6, 1, 0);
	opt.version = 0;
	opt.port_width = 8;
	assert_int_equal(cap_read_all(w8, 4, etm2_cap_etb, &opt, 8, &R), 0);
	assert_int_equal(R.n, 2);
	assert_cycle(&R.c[0], 1, 0x21, 0);
	assert_cycle(&R.c[1], 15, 0xff, 0);
	opt.port_width = 16;
	assert_int_equal(cap_read_all(w16, 4, etm2_cap_etb, &opt, 8, &R), 0);
	assert_int_equal(R.n, 1);
	assert_cycle(&R.c[0], 8, 0xbeef, 0);
	/* Width from ETMCR[6:4] = 001. */
	memset(&opt, 0, sizeof(opt));
	opt.has_etmcr = 1;
	opt.etmcr = 0x10;
	assert_int_equal(cap_read_all(w8, 4, etm2_cap_etb, &opt, 8, &R), 0);
	assert_int_equal(R.n, 2);
}

static void test_etb_bad(void **state)
{
	static const uint8_t w[6] = { 0x0f, 0xd4, 0x0e, 0x00, 0x01, 0x02 };
	struct etm2_cap_info opt = { 0 };

	(void)state;
	assert_int_equal(cap_read_all(w, 4, etm2_cap_etb, &opt, 8, &R),
			 -etmkit_err_bad_config);
	assert_string_equal(R.diag.message,
			    "no port width (neither the capture nor the options give one)");
	opt.port_width = 8;
	opt.port_mode = etm2_port_demultiplexed;
	assert_int_equal(cap_read_all(w, 4, etm2_cap_etb, &opt, 8, &R),
			 -etmkit_err_bad_config);
	assert_string_equal(R.diag.message, "ETB captures of a demultiplexed port are "
			    "not supported (the slot layout is not known)");
	opt.port_mode = etm2_port_multiplexed;
	assert_int_equal(cap_read_all(w, 4, etm2_cap_etb, &opt, 8, &R),
			 -etmkit_err_bad_config);
	opt.port_mode = 0;
	opt.port_width = 4;
	assert_int_equal(cap_read_all(w, 6, etm2_cap_etb, &opt, 8, &R), 0);
	assert_int_equal(R.n, 3);
	assert_int_equal(R.rc, -etmkit_err_truncated);
	assert_string_equal(R.diag.message, "byte 4: ETB word cut short (2 of 4 bytes)");
	assert_int_equal(R.diag.offset, 4);
}

/* ---- Writers ---------------------------------------------------------------- */

static int to_buf(void *ctx, const uint8_t *data, size_t len)
{
	cat(ctx, data, len);
	return 0;
}

static int sink_fails(void *ctx, const uint8_t *data, size_t len)
{
	(void)ctx;
	(void)data;
	(void)len;
	return -etmkit_err_io;
}

static void write_all(enum etm2_cap_format fmt, const struct etm2_cap_info *info,
		      const struct etm2_config *cfg, const struct etm2_cycle *c,
		      size_t n, struct buf *b)
{
	struct etm2_cap_writer *wr;

	b->n = 0;
	assert_int_equal(etm2_cap_writer_alloc(&wr, fmt, info, cfg, to_buf, b), 0);
	for (size_t i = 0; i < n; i += 3)
		assert_int_equal(etm2_cap_write(wr, c + i, n - i < 3 ? n - i : 3), 0);
	assert_int_equal(etm2_cap_writer_finish(wr), 0);
	etm2_cap_writer_free(wr);
}

static void test_writer_exact(void **state)
{
	static const struct etm2_cycle c[] = {
		{ 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 }, { 0x21, 1, 0 },
		{ 1, 6, 0 }, { 0x51, 6, 0 }, { 0, 4, 0 },
	};
	static const char text[] =
		"etmv2-capture 1\nversion 2\nport-width 8\nport-mode normal\n"
		"half-rate 0\netmcr 0x0000100c\npipestat-table natural\ncycles\n"
		"IE x3\nDE 0x21\nTR/DE\nTR/DE 0x51\nWT\n";
	static const uint8_t recs[] = { 0x21, 0x00, 0x01, 0x00, 0x0b, 0x00, 0x07, 0x00 };
	static const struct etm2_cycle c2[] = { { 0x21, 1, 0 }, { 0x0b, 7, 0 } };
	struct etm2_cap_info info = { 0 };
	struct buf b;

	(void)state;
	info.version = 2;
	info.port_width = 8;
	info.has_etmcr = 1;
	info.etmcr = 0x100c;
	write_all(etm2_cap_text, &info, NULL, c, 7, &b);
	cat(&b, "", 1);
	assert_string_equal((const char *)b.d, text);
	/* Binary: HDR and the records of test_bin_records. */
	info.etmcr = 0x1000;
	write_all(etm2_cap_binary, &info, NULL, c2, 2, &b);
	assert_int_equal(b.n, 40);
	assert_memory_equal(b.d, HDR, 32);
	assert_memory_equal(b.d + 32, recs, 8);
	/* A user table is written out name by name; a demultiplexed port
	 * (b-first: the earlier cycle is B, the second field). */
	{
		struct etm2_config cfg;
		static const struct etm2_cycle d[] = { { 0, 7, 0 }, { 0, 0, 0 } };
		static const char text2[] =
			"etmv2-capture 1\nversion 2\nport-width 4\nport-mode "
			"demultiplexed\nhalf-rate 0\ndemux-order b-first\n"
			"pipestat-table TD,TR,DW,WT,DN,IN,DE,IE,PNDN,PNIN,PNDE,PNIE,"
			"PTDN,PTIN,PTDE,PTIE\ncycles\nTD | IE\n";

		etm2_config_init(&cfg);
		assert_int_equal(etm2_pipestat_table("TD,TR,DW,WT,DN,IN,DE,IE,PNDN,"
						     "PNIN,PNDE,PNIE,PTDN,PTIN,PTDE,"
						     "PTIE", cfg.pipestat), 0);
		memset(&info, 0, sizeof(info));
		info.version = 2;
		info.port_width = 4;
		info.port_mode = etm2_port_demultiplexed;
		info.demux_b_first = 1;
		write_all(etm2_cap_text, &info, &cfg, d, 2, &b);
		cat(&b, "", 1);
		assert_string_equal((const char *)b.d, text2);
		/* PTIE from codes 8 and 9: the reader names code 8, so code
		 * 9 is written as a number. */
		static const struct etm2_cycle e[] = { { 0, 8, 0 }, { 0, 9, 0 } };
		static const char text3[] =
			"etmv2-capture 1\nversion 2\nport-width 4\nport-mode normal\n"
			"half-rate 0\npipestat-table IE,DE,IN,DN,WT,DW,TR,TD,PTIE,PTIE,"
			"PTIN,PTDN,PNIE,PNDE,PNIN,PNDN\ncycles\nPTIE\n9\n";

		etm2_config_init(&cfg);
		cfg.pipestat[9] = etm2_st_ptie;
		info.port_mode = etm2_port_normal;
		info.demux_b_first = 0;
		write_all(etm2_cap_text, &info, &cfg, e, 2, &b);
		cat(&b, "", 1);
		assert_string_equal((const char *)b.d, text3);
	}
}

static void test_writer_refuses(void **state)
{
	struct etm2_cap_writer *wr;
	struct etm2_cap_info info = { 0 };
	struct etm2_cycle c = { 0x10, 0, 0 };
	struct buf b = { .n = 0 };

	(void)state;
	info.port_width = 4;
	assert_int_equal(etm2_cap_writer_alloc(&wr, etm2_cap_etb, &info, NULL, to_buf, &b),
			 -etmkit_err_invalid);
	info.port_width = 5;
	assert_int_equal(etm2_cap_writer_alloc(&wr, etm2_cap_binary, &info, NULL, to_buf, &b),
			 -etmkit_err_invalid);
	info.port_width = 4;
	assert_int_equal(etm2_cap_writer_alloc(&wr, etm2_cap_binary, &info, NULL, to_buf, &b), 0);
	assert_int_equal(etm2_cap_write(wr, &c, 1), -etmkit_err_invalid); /* too wide */
	c.pkt = 0;
	c.flags = ETM2_CYC_TRACESYNC;
	assert_int_equal(etm2_cap_write(wr, &c, 1), -etmkit_err_invalid); /* ETMv2 */
	c.flags = 0;
	c.ps = 16;
	assert_int_equal(etm2_cap_write(wr, &c, 1), -etmkit_err_invalid);
	etm2_cap_writer_free(wr);
	/* Half a port clock at the end. */
	info.port_mode = etm2_port_demultiplexed;
	c.ps = 0;
	assert_int_equal(etm2_cap_writer_alloc(&wr, etm2_cap_text, &info, NULL, to_buf, &b), 0);
	assert_int_equal(etm2_cap_write(wr, &c, 1), 0);
	assert_int_equal(etm2_cap_writer_finish(wr), -etmkit_err_invalid);
	etm2_cap_writer_free(wr);
	/* The sink's error comes back. */
	assert_int_equal(etm2_cap_writer_alloc(&wr, etm2_cap_text, &info, NULL,
					       sink_fails, NULL), 0);
	assert_int_equal(etm2_cap_writer_finish(wr), -etmkit_err_io);
	etm2_cap_writer_free(wr);
}

/* Random cycles through each writer and back through the reader, for
 * every version, width and port mode. */
static void test_round_trip(void **state)
{
	static struct buf b;
	struct etm2_cycle c[200];
	uint32_t x = 12345;

	(void)state;
	for (unsigned v = 1; v <= 2; v++)
	for (unsigned w = 4; w <= 16; w *= 2)
	for (unsigned mode = 0; mode < 3; mode++)
	for (unsigned fmt = etm2_cap_binary; fmt <= etm2_cap_text; fmt++) {
		struct etm2_cap_info info = { 0 };

		info.version = (uint8_t)v;
		info.port_width = (uint8_t)w;
		info.port_mode = mode ? etm2_port_demultiplexed : etm2_port_normal;
		info.demux_b_first = mode == 2;
		info.has_etmidr = v == 2;
		info.etmidr = 0x41012100;
		for (size_t i = 0; i < 200; i++) {
			x = x * 1103515245u + 12345u;
			/* Runs of repeats as well as changes. */
			if (i && (x >> 28) < 6) {
				c[i] = c[i - 1];
				continue;
			}
			c[i].ps = (uint8_t)((x >> 8) & (v == 1 ? 7 : 15));
			c[i].pkt = (uint16_t)((x >> 12) & ((1u << w) - 1));
			c[i].flags = v == 1 ? (x >> 30) & 1 : 0;
		}
		write_all((enum etm2_cap_format)fmt, &info, NULL, c, 200, &b);
		assert_int_equal(cap_read_all(b.d, b.n, etm2_cap_auto, NULL, 7, &R), 0);
		if (R.rc != 0)
			fail_msg("v%u w%u mode %u fmt %u: %s", v, w, mode, fmt,
				 R.diag.message);
		assert_int_equal(R.n, 200);
		for (size_t i = 0; i < 200; i++)
			if (memcmp(&R.c[i], &c[i], sizeof(c[i])) != 0)
				fail_msg("v%u w%u mode %u fmt %u: cycle %zu differs",
					 v, w, mode, fmt, i);
		assert_int_equal(R.info.version, v);
		assert_int_equal(R.info.port_width, w);
		assert_int_equal(R.info.demux_b_first, mode == 2);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bin_records),
		cmocka_unit_test(test_bin_demux),
		cmocka_unit_test(test_bin_bad_header),
		cmocka_unit_test(test_bin_bad_records),
		cmocka_unit_test(test_etb),
		cmocka_unit_test(test_etb_bad),
		cmocka_unit_test(test_writer_exact),
		cmocka_unit_test(test_writer_refuses),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
