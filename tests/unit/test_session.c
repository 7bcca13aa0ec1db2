/* Session tests: formatter frames through the transport and the ETMv3,
 * ETMv4 and ETE packet layers, with the input offset of every packet
 * checked by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "etmkit/session.h"
#include "etmkit/image.h"

/* Gaps reported through on_gap (session breaks). */
struct gaps {
	int n;
	uint8_t id[8];
	uint8_t reason[8];
	uint64_t offset[8];
};

struct seen {
	struct gaps g;
	int n;
	uint8_t id[64];
	uint8_t proto[64];
	uint8_t type[64];
	uint64_t offset[64];
	uint32_t length[64];
	int16_t error[64];
	uint64_t addr[64];  /* ETMv4 address packets */
	int stop_after;
};

static int on_packet(void *ctx, uint8_t id, enum etmkit_protocol proto,
		     const void *packet)
{
	struct seen *s = ctx;

	assert_true(s->n < 64);
	s->id[s->n] = id;
	s->proto[s->n] = (uint8_t)proto;
	if (proto == etmkit_proto_etmv3) {
		const struct etm3_packet *p = packet;

		s->type[s->n] = p->type;
		s->offset[s->n] = p->offset;
		s->length[s->n] = p->length;
		s->error[s->n] = p->error;
	} else {
		const struct etm4_packet *p = packet;

		assert_true(proto == etmkit_proto_etmv4 ||
			    proto == etmkit_proto_ete);
		s->type[s->n] = p->type;
		s->offset[s->n] = p->offset;
		s->length[s->n] = p->length;
		s->error[s->n] = p->error;
		if (p->type == etm4_pkt_address ||
		    p->type == etm4_pkt_address_context)
			s->addr[s->n] = p->u.a.addr.addr;
	}
	s->n++;
	if (s->stop_after && s->n == s->stop_after)
		return -etmkit_err_internal;
	return 0;
}

static struct etmkit_session *mk(enum deformat_mode mode, uint8_t raw_id,
				 struct seen *s)
{
	struct etmkit_session_config sc;
	struct etmkit_session *ses = NULL;
	struct etm3_config cfg;

	memset(&sc, 0, sizeof(sc));
	sc.size = sizeof(sc);
	sc.frames = mode;
	sc.raw_id = raw_id;
	sc.on_packet = on_packet;
	sc.ctx = s;
	assert_int_equal(etmkit_session_alloc(&ses, &sc), 0);
	etm3_config_init(&cfg);
	cfg.etmcr = ETM3_ETMCR_CYCLE_ACCURATE;
	cfg.etmidr = 0x410cf250;
	assert_int_equal(etmkit_session_add_etm3(ses, mode == deformat_none ? raw_id : 0x10, &cfg), 0);
	if (mode != deformat_none)
		assert_int_equal(etmkit_session_add_etm3(ses, 0x20, &cfg), 0);
	return ses;
}

/* Frame (DDI 0314H 8.12.1): ID 0x10 (0x21) at byte 0, its data bytes 1-6
 * (A-sync 00 00 00 00 00 80; byte 2 and 4 are flag bytes holding data,
 * bit 0 from the aux byte); byte 8 switches to ID 0x20 (0x41) at once
 * (aux bit 4 = 0); 0x20 gets 9..14: 00 00 00 00 00 80 (A-sync).
 * Second frame: ID 0x10 continues? No: the current ID carries over (0x20):
 * byte 0 = 0x84 & ~1 data (P-header 0x84), byte 1 = 0x84; then byte 2 = ID
 * 0x10 with aux 1 (delayed): byte 3 (0x88) still for 0x20; then bytes 4..14
 * for 0x10: 84 84 a0 ... */
static const uint8_t frames[32] = {
	0x21, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x84,
	0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00,
	0x84, 0x84, 0x21, 0x88, 0x84, 0x84, 0xa0, 0xa0,
	0x84, 0x84, 0x84, 0x84, 0x84, 0x84, 0x84, 0x02,
};

static void test_two_ids_offsets(void **state)
{
	struct seen s;
	struct etmkit_session *ses;

	(void)state;
	memset(&s, 0, sizeof(s));
	ses = mk(deformat_coresight, 0, &s);
	assert_int_equal(etmkit_session_feed(ses, frames, 7), 0);
	assert_int_equal(etmkit_session_feed(ses, frames + 7, 25), 0);
	assert_int_equal(etmkit_session_finish(ses), 0);
	/* ID 0x10: A-sync at offset 1 (bytes 1..6), P-header 0x84 at 7.
	 * ID 0x20: A-sync at 9; then 0x84 at 16, 0x84 at 17, 0x88 at 19.
	 * ID 0x10 again: 0x84 at 20, 21; 0xa0 at 22, 23; 0x84 at 24..30. */
	static const struct { uint8_t id, type; uint64_t off; } want[] = {
		{ 0x10, etm3_pkt_a_sync, 1 }, { 0x10, etm3_pkt_p_header, 7 },
		{ 0x20, etm3_pkt_a_sync, 9 }, { 0x20, etm3_pkt_p_header, 16 },
		{ 0x20, etm3_pkt_p_header, 17 }, { 0x20, etm3_pkt_p_header, 19 },
		{ 0x10, etm3_pkt_p_header, 20 }, { 0x10, etm3_pkt_p_header, 21 },
		{ 0x10, etm3_pkt_p_header, 22 }, { 0x10, etm3_pkt_p_header, 23 },
		{ 0x10, etm3_pkt_p_header, 24 }, { 0x10, etm3_pkt_p_header, 25 },
		{ 0x10, etm3_pkt_p_header, 26 }, { 0x10, etm3_pkt_p_header, 27 },
		{ 0x10, etm3_pkt_p_header, 28 }, { 0x10, etm3_pkt_p_header, 29 },
		{ 0x10, etm3_pkt_p_header, 30 },
	};
	assert_int_equal(s.n, sizeof(want) / sizeof(want[0]));
	for (int i = 0; i < s.n; i++) {
		assert_int_equal(s.id[i], want[i].id);
		assert_int_equal(s.type[i], want[i].type);
		assert_int_equal(s.offset[i], want[i].off);
	}
	assert_int_equal(etmkit_session_frame_stats(ses)->frames, 2);
	etmkit_session_free(ses);
}

static void test_raw_stream(void **state)
{
	static const uint8_t raw[] = { 0x77, 0, 0, 0, 0, 0, 0x80, 0x84, 0x08, 0x01 };
	struct seen s;
	struct etmkit_session *ses;

	(void)state;
	memset(&s, 0, sizeof(s));
	ses = mk(deformat_none, 0x33, &s);
	assert_int_equal(etmkit_session_feed(ses, raw, 4), 0);
	assert_int_equal(etmkit_session_feed(ses, raw + 4, 6), 0);
	assert_int_equal(etmkit_session_finish(ses), 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.id[0], 0x33);
	assert_int_equal(s.type[0], etm3_pkt_unsynced);
	assert_int_equal(s.type[1], etm3_pkt_a_sync);
	assert_int_equal(s.offset[1], 1);
	assert_int_equal(s.offset[2], 7);
	assert_int_equal(s.type[3], etm3_pkt_i_sync); /* truncated */
	assert_int_equal(s.offset[3], 8);
	assert_int_equal(s.length[3], 2);
	etmkit_session_free(ses);
}

static void test_callback_stops_feed(void **state)
{
	struct seen s;
	struct etmkit_session *ses;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.stop_after = 2;
	ses = mk(deformat_coresight, 0, &s);
	assert_int_equal(etmkit_session_feed(ses, frames, sizeof(frames)),
			 -etmkit_err_internal);
	etmkit_session_free(ses);
}

/* stop_on_error: a malformed frame (ID 0x7F) or packet stops the feed. */
static void test_stop_on_error(void **state)
{
	static const uint8_t bad_frame[16] = { 0xff, 0, 0, 0, 0, 0, 0, 0,
					       0, 0, 0, 0, 0, 0, 0, 0 };
	/* ID 0x10: A-sync, then the reserved header 0x10. */
	static const uint8_t bad_packet[16] = { 0x21, 0x00, 0x00, 0x00, 0x00, 0x00,
						0x80, 0x10, 0x01, 0x00, 0x00, 0x00,
						0x00, 0x00, 0x00, 0x00 };
	struct etmkit_session_config sc;
	struct etmkit_session *ses = NULL;
	struct etm3_config cfg;
	struct seen s;

	(void)state;
	etm3_config_init(&cfg);
	cfg.etmcr = ETM3_ETMCR_CYCLE_ACCURATE;
	cfg.etmidr = 0x410cf250;
	for (int k = 0; k < 2; k++) {
		memset(&s, 0, sizeof(s));
		memset(&sc, 0, sizeof(sc));
		sc.size = sizeof(sc);
		sc.frames = deformat_coresight;
		sc.on_packet = on_packet;
		sc.ctx = &s;
		sc.stop_on_error = 1;
		assert_int_equal(etmkit_session_alloc(&ses, &sc), 0);
		assert_int_equal(etmkit_session_add_etm3(ses, 0x10, &cfg), 0);
		if (k == 0) {
			assert_int_equal(etmkit_session_feed(ses, bad_frame, 16),
					 -etmkit_err_bad_frame);
		} else {
			assert_int_equal(etmkit_session_feed(ses, bad_packet, 16),
					 -etmkit_err_bad_packet);
			assert_int_equal(s.n, 2); /* the A-sync and the error */
			assert_int_equal(s.type[1], etm3_pkt_reserved);
		}
		etmkit_session_free(ses);
	}
}

/* A frame dropped by the transport (ID 0x7F) between the bytes of a branch
 * packet: the decoder reports the packet as cut, instead of completing it
 * with bytes from after the loss. */
static void test_dropped_frame_is_a_gap(void **state)
{
	static const uint8_t in[48] = {
		/* ID 0x10 (byte 0): A-sync at 1-6, I-sync 08 21 00 10 00 80
		 * at 7-12 (byte 8 is 0x21 through aux bit 4), then 0x81 at 13
		 * (a branch whose second byte would follow); byte 14 switches
		 * to the null ID for the next frame. */
		0x21, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x08, 0x20, 0x00, 0x10,
		0x00, 0x80, 0x81, 0x01, 0x10,
		/* a bad frame: flag byte 0xFF */
		0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		/* ID 0x10 again: 0x02 at 33 would have ended the branch */
		0x21, 0x02, 0x84, 0x84, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	struct seen s;
	struct etmkit_session *ses;

	(void)state;
	memset(&s, 0, sizeof(s));
	ses = mk(deformat_coresight, 0, &s);
	assert_int_equal(etmkit_session_feed(ses, in, sizeof(in)), 0);
	assert_int_equal(etmkit_session_finish(ses), 0);
	/* a_sync, i_sync, the cut branch, then unsynced bytes after the loss */
	assert_true(s.n >= 4);
	assert_int_equal(s.type[0], etm3_pkt_a_sync);
	assert_int_equal(s.type[1], etm3_pkt_i_sync);
	assert_int_equal(s.type[2], etm3_pkt_branch_address);
	assert_int_equal(s.offset[2], 13);
	assert_int_equal(s.length[2], 1);
	assert_int_equal(s.type[3], etm3_pkt_unsynced);
	assert_int_equal(s.offset[3], 33);
	etmkit_session_free(ses);
}

static void test_bad_arguments(void **state)
{
	struct etmkit_session_config sc;
	struct etmkit_session *ses = NULL;
	struct etm3_config cfg;
	struct seen s;

	(void)state;
	memset(&sc, 0, sizeof(sc));
	sc.size = sizeof(sc);
	assert_int_equal(etmkit_session_alloc(&ses, &sc), -etmkit_err_invalid);
	memset(&s, 0, sizeof(s));
	ses = mk(deformat_coresight, 0, &s);
	etm3_config_init(&cfg);
	cfg.etmidr = 0x410cf250;
	assert_int_equal(etmkit_session_add_etm3(ses, 0x10, &cfg), -etmkit_err_invalid);
	assert_int_equal(etmkit_session_add_etm3(ses, 0x00, &cfg), -etmkit_err_invalid);
	assert_int_equal(etmkit_session_add_etm3(ses, 0x70, &cfg), -etmkit_err_invalid);
	cfg.etmidr = 0;
	assert_int_equal(etmkit_session_add_etm3(ses, 0x11, &cfg), -etmkit_err_bad_config);
	etmkit_session_free(ses);
}

/* ---- ETMv4 and ETE ------------------------------------------------------- */

/* The ETE 1.0 of snapshot ete_spec_1 (its device file). */
static void ete_config(struct etm4_config *cfg)
{
	etm4_config_init(cfg);
	cfg->trcidr0 = 0x2801cea1;
	cfg->trcidr1 = 0x4100fff0;
	cfg->trcidr2 = 0xd0001088;
	cfg->trcidr8 = 0xff;
	cfg->trcdevarch = 0x47705a13;
	cfg->flags = ETM4_CFG_ETE;
}

/* The ETMv4.0 of snapshot juno_r1_1. */
static void etm4_config(struct etm4_config *cfg)
{
	etm4_config_init(cfg);
	cfg->trcidr0 = 0x28000EA1;
	cfg->trcidr1 = 0x4100F403;
	cfg->trcidr2 = 0x00000488;
	cfg->trcconfigr = 0xC1;
}

static struct etmkit_session *mk4(enum deformat_mode mode, uint8_t raw_id,
				  struct seen *s, int stop_on_error)
{
	struct etmkit_session_config sc;
	struct etmkit_session *ses = NULL;

	memset(&sc, 0, sizeof(sc));
	sc.size = sizeof(sc);
	sc.frames = mode;
	sc.raw_id = raw_id;
	sc.on_packet = on_packet;
	sc.ctx = s;
	sc.stop_on_error = (uint8_t)stop_on_error;
	assert_int_equal(etmkit_session_alloc(&ses, &sc), 0);
	return ses;
}

/* A raw ETE stream fed in two chunks that split a packet: every record is
 * reported as ETE with its input offset; the packet cut by the end of the
 * input is reported at finish (digest 10: the byte vectors). */
static void test_ete_raw_stream(void **state)
{
	static const uint8_t raw[] = {
		0x77,                                     /* 0: before sync */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,    /* 1: A-sync */
		0x01, 0x00,                               /* 13: Trace Info */
		0x04,                                     /* 15: Trace On */
		0x82, 0x21, 0x0a, 0x0c, 0x00, 0x11,       /* 16: 0xC1484 */
		0xf7,                                     /* 22: atom E */
		0x06, 0x05,                               /* 23: exception */
		0x9a, 0x4e, 0x4a, 0x06, 0x00,             /* 25: 0x69538 */
		0x95,                                     /* 30: cut */
	};
	static const struct { uint8_t type; uint64_t off; uint32_t len; } want[] = {
		{ etm4_pkt_unsynced, 0, 1 }, { etm4_pkt_a_sync, 1, 12 },
		{ etm4_pkt_trace_info, 13, 2 }, { etm4_pkt_trace_on, 15, 1 },
		{ etm4_pkt_address_context, 16, 6 }, { etm4_pkt_atom, 22, 1 },
		{ etm4_pkt_exception, 23, 2 }, { etm4_pkt_address, 25, 5 },
		{ etm4_pkt_address, 30, 1 },
	};
	struct etm4_config cfg;
	struct etmkit_session *ses;
	struct seen s;

	(void)state;
	memset(&s, 0, sizeof(s));
	ses = mk4(deformat_none, 0x42, &s, 0);
	ete_config(&cfg);
	assert_int_equal(etmkit_session_add_etm4(ses, 0x42, &cfg), 0);
	assert_int_equal(etmkit_session_feed(ses, raw, 19), 0);
	assert_int_equal(etmkit_session_feed(ses, raw + 19, sizeof(raw) - 19), 0);
	assert_int_equal(etmkit_session_finish(ses), 0);
	assert_int_equal(s.n, sizeof(want) / sizeof(want[0]));
	for (int i = 0; i < s.n; i++) {
		assert_int_equal(s.id[i], 0x42);
		assert_int_equal(s.proto[i], etmkit_proto_ete);
		assert_int_equal(s.type[i], want[i].type);
		assert_int_equal(s.offset[i], want[i].off);
		assert_int_equal(s.length[i], want[i].len);
		assert_int_equal(s.error[i], i + 1 == s.n ?
				 -etmkit_err_truncated : 0);
	}
	assert_int_equal(s.addr[4], 0xC1484);
	assert_int_equal(s.addr[7], 0x69538);
	etmkit_session_free(ses);
}

/* ETMv3 on ID 0x10 and ETMv4 on ID 0x20 in one formatted buffer.
 * Frame 1: ID 0x10 (byte 0), ETMv3 A-sync at 1-6, P-header 0x84 at 7;
 * ID 0x20 at byte 8, the first six zeros of an ETMv4 A-sync at 9-14.
 * Frame 2 (ID 0x20 goes on): five zeros at 16-20 and 0x80 at 21 end the
 * A-sync; Trace Info 01 00 at 22-23 (0x01 is written 0x00 with aux bit 3);
 * Trace On at 24; atom E at 25; ID 0x10 at 26; P-headers at 27-30. */
static const uint8_t mixed_frames[32] = {
	0x21, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x84,
	0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00,
	0x04, 0xf7, 0x21, 0x84, 0x84, 0x84, 0x84, 0x08,
};

static void test_mixed_protocols(void **state)
{
	static const struct { uint8_t id, proto, type; uint64_t off; } want[] = {
		{ 0x10, etmkit_proto_etmv3, etm3_pkt_a_sync, 1 },
		{ 0x10, etmkit_proto_etmv3, etm3_pkt_p_header, 7 },
		{ 0x10, etmkit_proto_etmv3, etm3_pkt_p_header, 27 },
		{ 0x10, etmkit_proto_etmv3, etm3_pkt_p_header, 28 },
		{ 0x10, etmkit_proto_etmv3, etm3_pkt_p_header, 29 },
		{ 0x10, etmkit_proto_etmv3, etm3_pkt_p_header, 30 },
		{ 0x20, etmkit_proto_etmv4, etm4_pkt_a_sync, 9 },
		{ 0x20, etmkit_proto_etmv4, etm4_pkt_trace_info, 22 },
		{ 0x20, etmkit_proto_etmv4, etm4_pkt_trace_on, 24 },
		{ 0x20, etmkit_proto_etmv4, etm4_pkt_atom, 25 },
	};
	struct etm3_config c3;
	struct etm4_config c4;
	struct etmkit_session *ses;
	struct seen s;
	size_t k = 0;

	(void)state;
	memset(&s, 0, sizeof(s));
	ses = mk4(deformat_coresight, 0, &s, 0);
	etm3_config_init(&c3);
	c3.etmidr = 0x410cf250;
	etm4_config(&c4);
	assert_int_equal(etmkit_session_add_etm3(ses, 0x10, &c3), 0);
	assert_int_equal(etmkit_session_add_etm4(ses, 0x20, &c4), 0);
	assert_int_equal(etmkit_session_feed(ses, mixed_frames, 32), 0);
	assert_int_equal(etmkit_session_finish(ses), 0);
	assert_int_equal(s.n, sizeof(want) / sizeof(want[0]));
	/* In order per ID (the IDs interleave as their packets complete). */
	for (uint8_t id = 0x10; id <= 0x20; id += 0x10) {
		for (int i = 0; i < s.n; i++) {
			if (s.id[i] != id)
				continue;
			assert_int_equal(s.proto[i], want[k].proto);
			assert_int_equal(s.type[i], want[k].type);
			assert_int_equal(s.offset[i], want[k].off);
			assert_int_equal(s.error[i], 0);
			k++;
		}
	}
	assert_int_equal(k, s.n);
	etmkit_session_free(ses);
}

/* stop_on_error: header 0x07 (Exception Return) is reserved in ETE
 * (digest 5.6), so the feed stops after reporting it. */
static void test_ete_stop_on_error(void **state)
{
	static const uint8_t raw[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
				       0x07, 0x04, 0x04 };
	struct etm4_config cfg;
	struct etmkit_session *ses;
	struct seen s;

	(void)state;
	memset(&s, 0, sizeof(s));
	ses = mk4(deformat_none, 1, &s, 1);
	ete_config(&cfg);
	assert_int_equal(etmkit_session_add_etm4(ses, 1, &cfg), 0);
	assert_int_equal(etmkit_session_feed(ses, raw, sizeof(raw)),
			 -etmkit_err_bad_packet);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.type[0], etm4_pkt_a_sync);
	assert_int_equal(s.offset[1], 12);
	assert_true(s.error[1] < 0);
	etmkit_session_free(ses);
}

static int no_elem(void *ctx, uint8_t id, const struct etmkit_elem *e)
{
	(void)ctx;
	(void)id;
	(void)e;
	return 0;
}

static void test_etm4_bad_arguments(void **state)
{
	struct etmkit_session_config sc;
	struct etmkit_session *ses;
	struct etm4_config cfg;
	struct etm3_config c3;
	struct seen s;

	(void)state;
	memset(&s, 0, sizeof(s));
	ses = mk4(deformat_coresight, 0, &s, 0);
	etm4_config(&cfg);
	assert_int_equal(etmkit_session_add_etm4(NULL, 0x10, &cfg),
			 -etmkit_err_invalid);
	assert_int_equal(etmkit_session_add_etm4(ses, 0x10, NULL),
			 -etmkit_err_invalid);
	assert_int_equal(etmkit_session_add_etm4(ses, 0x00, &cfg),
			 -etmkit_err_invalid);
	assert_int_equal(etmkit_session_add_etm4(ses, 0x70, &cfg),
			 -etmkit_err_invalid);
	cfg.size = sizeof(cfg) - 1;
	assert_int_equal(etmkit_session_add_etm4(ses, 0x10, &cfg),
			 -etmkit_err_invalid);
	etm4_config(&cfg);
	/* one decoder per ID, whatever its protocol */
	etm3_config_init(&c3);
	c3.etmidr = 0x410cf250;
	assert_int_equal(etmkit_session_add_etm3(ses, 0x10, &c3), 0);
	assert_int_equal(etmkit_session_add_etm4(ses, 0x10, &cfg),
			 -etmkit_err_invalid);
	assert_int_equal(etmkit_session_add_etm4(ses, 0x11, &cfg), 0);
	assert_int_equal(etmkit_session_add_etm3(ses, 0x11, &c3),
			 -etmkit_err_invalid);
	/* TRCIDR1 naming no ETMv4 */
	cfg.trcidr1 = 0;
	assert_int_equal(etmkit_session_add_etm4(ses, 0x12, &cfg),
			 -etmkit_err_bad_config);
	etmkit_session_free(ses);

	/* a packet decoder needs on_packet */
	memset(&sc, 0, sizeof(sc));
	sc.size = sizeof(sc);
	sc.on_elem = no_elem;
	ses = NULL;
	assert_int_equal(etmkit_session_alloc(&ses, &sc), 0);
	etm4_config(&cfg);
	assert_int_equal(etmkit_session_add_etm4(ses, 0x10, &cfg),
			 -etmkit_err_invalid);
	etmkit_session_free(ses);
}

/* etmkit_session_config_init() sets size and zeros the rest (like
 * etm3_config_init() and the flow configs), and its result is accepted by
 * etmkit_session_alloc() once a callback is set. */
static void test_config_init(void **state)
{
	struct etmkit_session_config sc, zero;
	struct etmkit_session *ses = NULL;
	struct seen s;

	(void)state;
	memset(&sc, 0xa5, sizeof(sc));
	etmkit_session_config_init(&sc);
	assert_int_equal(sc.size, sizeof(sc));
	/* every byte, padding and fields added later included */
	memset(&zero, 0, sizeof(zero));
	zero.size = sizeof(zero);
	assert_memory_equal(&sc, &zero, sizeof(sc));
	assert_int_equal(sc.frames, deformat_none);
	assert_int_equal(sc.raw_id, 0);
	assert_int_equal(sc.stop_on_error, 0);
	assert_null(sc.on_packet);
	assert_null(sc.on_elem);
	assert_null(sc.on_frame_event);
	assert_null(sc.ctx);
	/* no callback: still refused */
	assert_int_equal(etmkit_session_alloc(&ses, &sc), -etmkit_err_invalid);
	memset(&s, 0, sizeof(s));
	sc.frames = deformat_coresight;
	sc.on_packet = on_packet;
	sc.ctx = &s;
	assert_int_equal(etmkit_session_alloc(&ses, &sc), 0);
	etmkit_session_free(ses);
	etmkit_session_config_init(NULL); /* no crash */
}


/* ---- Breaks between pieces of a ring buffer (perf AUX records) ------------
 *
 * The rule (digest perf-data.md 3.10, 3.7): each piece is its own stream.
 * A packet cut by a break is reported as truncated (a record with error
 * -etmkit_err_truncated, or a gap of reason etmkit_loss_truncated); the
 * bytes after it start unsynced, never joined to the bytes before; a break
 * that says trace was lost gives every source that had data since the
 * previous break a gap of that reason. */

static int on_gap_cb(void *ctx, uint8_t id, enum etmkit_loss reason,
		     uint64_t offset)
{
	struct gaps *g = &((struct seen *)ctx)->g;

	assert_true(g->n < 8);
	g->id[g->n] = id;
	g->reason[g->n] = (uint8_t)reason;
	g->offset[g->n] = offset;
	g->n++;
	return 0;
}

static struct etmkit_session *mk_break(enum deformat_mode mode, uint8_t raw_id,
				       struct seen *s)
{
	struct etmkit_session_config sc;
	struct etmkit_session *ses = NULL;

	etmkit_session_config_init(&sc);
	sc.frames = mode;
	sc.raw_id = raw_id;
	sc.on_packet = on_packet;
	sc.on_gap = on_gap_cb;
	sc.ctx = s;
	assert_int_equal(etmkit_session_alloc(&ses, &sc), 0);
	return ses;
}

static void etm3_cfg(struct etm3_config *cfg)
{
	etm3_config_init(cfg);
	cfg->etmcr = ETM3_ETMCR_CYCLE_ACCURATE;
	cfg->etmidr = 0x410cf250;
}

/* ETMv3, unframed. Piece 1 (offsets 0-7): A-sync at 0-5, P-header 0x84 at
 * 6, the first byte of an I-sync (0x08) at 7, cut by the break. Piece 2
 * (8-15): 0x84 0x84 (would finish nothing: not synced), then A-sync at
 * 10-15. Joined, 0x08 would take 0x84 0x84 as its address. */
static void test_break_etm3_raw(void **state)
{
	static const uint8_t p1[] = { 0, 0, 0, 0, 0, 0x80, 0x84, 0x08 };
	static const uint8_t p2[] = { 0x84, 0x84, 0, 0, 0, 0, 0, 0x80 };
	static const struct { uint8_t type; uint64_t off; uint32_t len;
			      int16_t err; } want[] = {
		{ etm3_pkt_a_sync, 0, 6, 0 }, { etm3_pkt_p_header, 6, 1, 0 },
		{ etm3_pkt_i_sync, 7, 1, -etmkit_err_truncated },
		{ etm3_pkt_unsynced, 8, 2, 0 }, { etm3_pkt_a_sync, 10, 6, 0 },
	};
	struct etm3_config cfg;
	struct etmkit_session *ses;
	struct seen s;
	struct gaps *g;

	(void)state;
	memset(&s, 0, sizeof(s));
	ses = mk_break(deformat_none, 0x10, &s);
	g = &s.g;
	etm3_cfg(&cfg);
	assert_int_equal(etmkit_session_add_etm3(ses, 0x10, &cfg), 0);
	assert_int_equal(etmkit_session_feed(ses, p1, sizeof(p1)), 0);
	assert_int_equal(etmkit_session_break(ses, etmkit_loss_aux_truncated),
			 0);
	assert_int_equal(etmkit_session_feed(ses, p2, sizeof(p2)), 0);
	assert_int_equal(etmkit_session_finish(ses), 0);
	assert_int_equal(s.n, 5);
	for (int i = 0; i < s.n; i++) {
		assert_int_equal(s.type[i], want[i].type);
		assert_int_equal(s.offset[i], want[i].off);
		assert_int_equal(s.length[i], want[i].len);
		assert_int_equal(s.error[i], want[i].err);
	}
	/* One gap, for the only source, at the break (offset 8). */
	assert_int_equal(g->n, 1);
	assert_int_equal(g->id[0], 0x10);
	assert_int_equal(g->reason[0], etmkit_loss_aux_truncated);
	assert_int_equal(g->offset[0], 8);
	etmkit_session_free(ses);
}

/* ETMv3, framed: the 32 bytes of `frames` (two IDs) fed as two 16-byte
 * pieces with a break between. Piece 1 ends with ID 0x20's A-sync (9-14)
 * and 0x10's P-header at 7; the second frame starts with data bytes for
 * the ID current before the break (0x20): after a break no ID is current,
 * so 16, 17 are dropped, ID 0x10 takes over at 18 (0x21, aux bit 1:
 * delayed, so 19 is dropped too) and 0x10 is unsynced from 20 on. */
static void test_break_etm3_framed(void **state)
{
	struct etmkit_session *ses;
	struct seen s;
	struct gaps *g;

	(void)state;
	memset(&s, 0, sizeof(s));
	ses = mk_break(deformat_coresight, 0, &s);
	g = &s.g;
	{
		struct etm3_config cfg;

		etm3_cfg(&cfg);
		assert_int_equal(etmkit_session_add_etm3(ses, 0x10, &cfg), 0);
		assert_int_equal(etmkit_session_add_etm3(ses, 0x20, &cfg), 0);
	}
	assert_int_equal(etmkit_session_feed(ses, frames, 16), 0);
	assert_int_equal(etmkit_session_break(ses, etmkit_loss_aux_collision),
			 0);
	assert_int_equal(etmkit_session_feed(ses, frames + 16, 16), 0);
	assert_int_equal(etmkit_session_finish(ses), 0);
	/* Before the break: 0x10 A-sync at 1, P-header at 7; 0x20 A-sync at 9.
	 * After: 0x10's bytes 20-30 are an unsynced run from 20, 0x20 has
	 * nothing (its bytes 16, 17, 19 are not owned after the break). */
	assert_int_equal(s.n, 4);
	assert_int_equal(s.id[0], 0x10);
	assert_int_equal(s.type[0], etm3_pkt_a_sync);
	assert_int_equal(s.type[1], etm3_pkt_p_header);
	assert_int_equal(s.id[2], 0x20);
	assert_int_equal(s.type[2], etm3_pkt_a_sync);
	assert_int_equal(s.offset[2], 9);
	assert_int_equal(s.id[3], 0x10);
	assert_int_equal(s.type[3], etm3_pkt_unsynced);
	assert_int_equal(s.offset[3], 20);
	/* Both IDs had data before the break: a gap each, offset 16. */
	assert_int_equal(g->n, 2);
	assert_int_equal(g->id[0], 0x10);
	assert_int_equal(g->id[1], 0x20);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(g->reason[i], etmkit_loss_aux_collision);
		assert_int_equal(g->offset[i], 16);
	}
	etmkit_session_free(ses);
}

/* ETE, unframed: piece 1 is an A-sync (0-11), Trace Info (12-13) and the
 * first byte of a long address packet (0x9a at 14), cut. Piece 2 begins
 * with the four address bytes that would have completed it, then an
 * A-sync at 19-30. A break without loss gives no gap. */
static void test_break_ete_raw(void **state)
{
	static const uint8_t p1[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
				      0x01, 0x00, 0x9a };
	static const uint8_t p2[] = { 0x4e, 0x4a, 0x06, 0x01,
				      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80 };
	static const struct { uint8_t type; uint64_t off; uint32_t len;
			      int16_t err; } want[] = {
		{ etm4_pkt_a_sync, 0, 12, 0 }, { etm4_pkt_trace_info, 12, 2, 0 },
		{ etm4_pkt_address, 14, 1, -etmkit_err_truncated },
		{ etm4_pkt_unsynced, 15, 4, 0 }, { etm4_pkt_a_sync, 19, 12, 0 },
	};
	struct etm4_config cfg;
	struct etmkit_session *ses;
	struct seen s;
	struct gaps *g;

	(void)state;
	memset(&s, 0, sizeof(s));
	ses = mk_break(deformat_none, 0x42, &s);
	g = &s.g;
	ete_config(&cfg);
	assert_int_equal(etmkit_session_add_etm4(ses, 0x42, &cfg), 0);
	assert_int_equal(etmkit_session_feed(ses, p1, sizeof(p1)), 0);
	assert_int_equal(etmkit_session_break(ses, etmkit_loss_none), 0);
	assert_int_equal(etmkit_session_feed(ses, p2, sizeof(p2)), 0);
	assert_int_equal(etmkit_session_finish(ses), 0);
	assert_int_equal(s.n, 5);
	for (int i = 0; i < s.n; i++) {
		assert_int_equal(s.proto[i], etmkit_proto_ete);
		assert_int_equal(s.type[i], want[i].type);
		assert_int_equal(s.offset[i], want[i].off);
		assert_int_equal(s.length[i], want[i].len);
		assert_int_equal(s.error[i], want[i].err);
	}
	assert_int_equal(g->n, 0);
	etmkit_session_free(ses);
}

/* ETMv4, framed, with the input offset moved at the break (the AUX bytes'
 * file offsets): `mixed_frames` frame 1 then frame 1 again at offset
 * 0x1000. ID 0x20 (ETMv4) had only six A-sync zeros when the break came:
 * they are reported cut; after the break its bytes start a fresh stream.
 * Only ID 0x20 has a source, and gets the gap. */
static void test_break_etm4_framed_offset(void **state)
{
	struct etm4_config cfg;
	struct etmkit_session *ses;
	struct seen s;
	struct gaps *g;

	(void)state;
	memset(&s, 0, sizeof(s));
	ses = mk_break(deformat_coresight, 0, &s);
	g = &s.g;
	etm4_config(&cfg);
	assert_int_equal(etmkit_session_add_etm4(ses, 0x20, &cfg), 0);
	assert_int_equal(etmkit_session_feed(ses, mixed_frames, 16), 0);
	assert_int_equal(etmkit_session_break(ses, etmkit_loss_aux_partial),
			 0);
	assert_int_equal(etmkit_session_set_offset(ses, 0x1000), 0);
	assert_int_equal(etmkit_session_feed(ses, mixed_frames, 16), 0);
	assert_int_equal(etmkit_session_finish(ses), 0);
	/* Zeros 9-14 closed by the break; the same bytes again at 0x1009,
	 * reported the same way. Joined they would be one run of 12 zeros. */
	assert_int_equal(s.n, 2);
	assert_int_equal(s.offset[0], 9);
	assert_int_equal(s.length[0], 6);
	assert_int_equal(s.offset[1], 0x1009);
	assert_int_equal(s.length[1], 6);
	assert_int_equal(s.type[0], s.type[1]);
	assert_int_equal(s.error[0], s.error[1]);
	assert_int_equal(g->n, 1);
	assert_int_equal(g->id[0], 0x20);
	assert_int_equal(g->reason[0], etmkit_loss_aux_partial);
	assert_int_equal(g->offset[0], 16);
	/* The offset moves only at a boundary. */
	assert_int_equal(etmkit_session_set_offset(ses, 0), -etmkit_err_invalid);
	assert_int_equal(etmkit_session_break(NULL, etmkit_loss_none),
			 -etmkit_err_invalid);
	assert_int_equal(etmkit_session_break(ses, etmkit_loss_count),
			 -etmkit_err_invalid);
	etmkit_session_free(ses);
}

/* A flow source (ETMv3, no image): an I-sync cut by the break is a gap of
 * reason truncated, then the break's own gap of reason aux_truncated. */
struct elems {
	int n;
	uint8_t kind[16];
	uint8_t reason[16];
	uint64_t offset[16];
};

static int on_elem_cb(void *ctx, uint8_t id, const struct etmkit_elem *e)
{
	struct elems *l = ctx;

	assert_int_equal(id, 0x10);
	assert_true(l->n < 16);
	l->kind[l->n] = e->kind;
	l->reason[l->n] = e->kind == etmkit_elem_gap ? e->u.loss.reason : 0;
	l->offset[l->n] = e->offset;
	l->n++;
	return 0;
}

/* The gaps a break leaves in @l: the cut packet's (reason truncated) at
 * @cut_off, then the break's own (@why) at @aux_off. */
static void assert_break_gaps(const struct elems *l, uint8_t why,
			      uint64_t cut_off, uint64_t aux_off)
{
	int cut = -1, aux = -1;

	for (int i = 0; i < l->n; i++) {
		if (l->kind[i] != etmkit_elem_gap)
			continue;
		if (l->reason[i] == etmkit_loss_truncated && cut < 0)
			cut = i;
		if (l->reason[i] == why)
			aux = i;
	}
	assert_true(cut >= 0);
	assert_int_equal(l->offset[cut], cut_off);
	assert_true(aux > cut);
	assert_int_equal(l->offset[aux], aux_off);
}

static void test_break_etm3_flow(void **state)
{
	static const uint8_t p1[] = { 0, 0, 0, 0, 0, 0x80, 0x08, 0x00 };
	struct etmkit_session_config sc;
	struct etm3_flow_config fc;
	struct etmkit_session *ses;
	struct elems l;

	(void)state;
	memset(&l, 0, sizeof(l));
	etmkit_session_config_init(&sc);
	sc.frames = deformat_none;
	sc.raw_id = 0x10;
	sc.on_elem = on_elem_cb;
	sc.ctx = &l;
	assert_int_equal(etmkit_session_alloc(&ses, &sc), 0);
	etm3_flow_config_init(&fc);
	etm3_cfg(&fc.etm);
	assert_int_equal(etmkit_session_add_etm3_flow(ses, 0x10, &fc), 0);
	assert_int_equal(etmkit_session_feed(ses, p1, sizeof(p1)), 0);
	assert_int_equal(etmkit_session_break(ses, etmkit_loss_aux_truncated),
			 0);
	assert_int_equal(etmkit_session_finish(ses), 0);
	assert_break_gaps(&l, etmkit_loss_aux_truncated, 6, 8);
	etmkit_session_free(ses);
}

/* The same for an ETE flow source, framed (ID 0x20). One frame: ID byte
 * 0x41 at 0, the A-sync (eleven zeros, 0x80) at 1-12, then Trace Info
 * 01 01 at 13-14 (byte 14 is written 0x00, its bit 0 in aux bit 7: aux
 * byte 0x80) which wants one more byte: the break cuts it (a gap of reason
 * truncated at 13), then the break's own gap, aux_collision, at 16. */
static int on_elem_any(void *ctx, uint8_t id, const struct etmkit_elem *e)
{
	struct elems *l = ctx;

	assert_int_equal(id, 0x20);
	assert_true(l->n < 16);
	l->kind[l->n] = e->kind;
	l->reason[l->n] = e->kind == etmkit_elem_gap ? e->u.loss.reason : 0;
	l->offset[l->n] = e->offset;
	l->n++;
	return 0;
}

static void test_break_ete_flow_framed(void **state)
{
	static const uint8_t frame[16] = {
		0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x80, 0x01, 0x00, 0x80,
	};
	struct etmkit_session_config sc;
	struct etm4_flow_config fc;
	struct etmkit_session *ses;
	struct elems l;

	(void)state;
	memset(&l, 0, sizeof(l));
	etmkit_session_config_init(&sc);
	sc.frames = deformat_coresight;
	sc.on_elem = on_elem_any;
	sc.ctx = &l;
	assert_int_equal(etmkit_session_alloc(&ses, &sc), 0);
	etm4_flow_config_init(&fc);
	ete_config(&fc.etm);
	assert_int_equal(etmkit_session_add_etm4_flow(ses, 0x20, &fc), 0);
	assert_int_equal(etmkit_session_feed(ses, frame, sizeof(frame)), 0);
	assert_int_equal(etmkit_session_break(ses, etmkit_loss_aux_collision),
			 0);
	assert_int_equal(etmkit_session_finish(ses), 0);
	assert_break_gaps(&l, etmkit_loss_aux_collision, 13, 16);
	etmkit_session_free(ses);
}

/* A raw piece in a framed session (etmkit_session_feed_raw(), a TRBE AUX
 * record): test_ete_raw_stream's bytes fed to ID 0x42 of a CoreSight-framed
 * session at file offset 1000 give the same records at offsets 1000 on,
 * with nothing for the ETMv3 source of ID 0x10; the break after the piece
 * reports the cut packet and a gap for 0x42 alone (0x10 had no bytes). An
 * ID without a decoder takes bytes and gives nothing; ID 0x80 is refused. */
static void test_feed_raw_in_framed_session(void **state)
{
	static const uint8_t raw[] = {
		0x77,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
		0x01, 0x00,
		0x04,
		0x82, 0x21, 0x0a, 0x0c, 0x00, 0x11,
		0xf7,
		0x06, 0x05,
		0x9a, 0x4e, 0x4a, 0x06, 0x00,
		0x95,
	};
	static const struct { uint8_t type; uint64_t off; } want[] = {
		{ etm4_pkt_unsynced, 1000 }, { etm4_pkt_a_sync, 1001 },
		{ etm4_pkt_trace_info, 1013 }, { etm4_pkt_trace_on, 1015 },
		{ etm4_pkt_address_context, 1016 }, { etm4_pkt_atom, 1022 },
		{ etm4_pkt_exception, 1023 }, { etm4_pkt_address, 1025 },
		{ etm4_pkt_address, 1030 },
	};
	struct etm4_config cfg;
	struct etm3_config c3;
	struct etmkit_session *ses;
	struct seen s;

	(void)state;
	memset(&s, 0, sizeof(s));
	ses = mk_break(deformat_coresight, 0, &s);
	ete_config(&cfg);
	etm3_cfg(&c3);
	assert_int_equal(etmkit_session_add_etm4(ses, 0x42, &cfg), 0);
	assert_int_equal(etmkit_session_add_etm3(ses, 0x10, &c3), 0);
	assert_int_equal(etmkit_session_set_offset(ses, 1000), 0);
	assert_int_equal(etmkit_session_feed_raw(ses, 0x42, raw, 19), 0);
	assert_int_equal(etmkit_session_feed_raw(ses, 0x42, raw + 19,
						 sizeof(raw) - 19), 0);
	assert_int_equal(s.n, 8); /* the cut address waits for more */
	assert_int_equal(etmkit_session_break(ses, etmkit_loss_aux_truncated),
			 0);
	assert_int_equal(s.n, sizeof(want) / sizeof(want[0]));
	for (int i = 0; i < s.n; i++) {
		assert_int_equal(s.id[i], 0x42);
		assert_int_equal(s.type[i], want[i].type);
		assert_int_equal(s.offset[i], want[i].off);
		assert_int_equal(s.error[i], i + 1 == s.n ?
				 -etmkit_err_truncated : 0);
	}
	assert_int_equal(s.g.n, 1);
	assert_int_equal(s.g.id[0], 0x42);
	assert_int_equal(s.g.reason[0], etmkit_loss_aux_truncated);
	assert_int_equal(s.g.offset[0], 1000 + sizeof(raw));
	assert_int_equal(etmkit_session_feed_raw(ses, 0x30, raw, sizeof(raw)),
			 0);
	assert_int_equal(s.n, sizeof(want) / sizeof(want[0]));
	assert_int_equal(etmkit_session_feed_raw(ses, 0x80, raw, 1),
			 -etmkit_err_invalid);
	assert_int_equal(etmkit_session_feed_raw(NULL, 0x42, raw, 1),
			 -etmkit_err_invalid);
	assert_int_equal(etmkit_session_feed_raw(ses, 0x42, NULL, 1),
			 -etmkit_err_invalid);
	etmkit_session_free(ses);
}

/* on_elems (session.h): the elements of a flow source in the batches the
 * decoder makes, the session's own gaps as batches of 1, the same
 * elements in the same order as on_elem. An ETE source (raw, ID 0x10)
 * over a small A64 program at 0x1000 (the nops, b.eq and bl of
 * test_etm4_flow.c): A-sync, Trace Info, Trace On, Address + Context
 * 0x1000, a source address, an address, an E atom and a commit, three
 * times, with a break (aux_partial) and a lose (aux_missing) between. */
static const uint32_t flow_prog[] = {
	0xd503201f, 0xd503201f, 0x54000040, 0xd503201f, /* 1000 */
	0x94000004, 0xd503201f, 0xd65f03c0, 0xd503201f, /* 1010 */
	0xd503201f, 0xd65f03c0,                         /* 1020 */
};

struct flow_seen {
	struct etmkit_elem e[128];
	size_t n;
	size_t batch[64];   /* on_elems: the size of each call */
	size_t nb;
	int stop;           /* on_elems: return -etmkit_err_nomem at call
			       number stop (1 the first; 0 never) */
};

static void flow_keep(struct flow_seen *f, uint8_t id,
		      const struct etmkit_elem *e)
{
	assert_int_equal(id, 0x10);
	assert_true(f->n < 128);
	f->e[f->n++] = *e;
}

static int flow_one(void *ctx, uint8_t id, const struct etmkit_elem *e)
{
	flow_keep(ctx, id, e);
	return 0;
}

static int flow_many(void *ctx, uint8_t id, const struct etmkit_elem *e,
		     size_t n)
{
	struct flow_seen *f = ctx;

	assert_true(n >= 1);
	assert_true(f->nb < 64);
	f->batch[f->nb++] = n;
	for (size_t i = 0; i < n; i++)
		flow_keep(f, id, &e[i]);
	return f->stop && (int)f->nb == f->stop ? -etmkit_err_nomem : 0;
}

/* Decode the three pieces into @f through on_elem (@batched 0) or
 * on_elems; returns the first feed's result. */
static int flow_run(struct flow_seen *f, int batched)
{
	static const uint8_t piece[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x01, 0x00, 0x04,
		0x82, 0x00, 0x08, 0x00, 0x00, 0x11,
		0xb4, 0x06, 0x95, 0x00, 0xf7, 0x2d, 0x02,
	};
	uint8_t code[sizeof(flow_prog)];
	struct etmkit_session_config sc;
	struct etm4_flow_config fc;
	struct etmkit_session *ses;
	struct image *img;
	int first;

	for (size_t i = 0; i < sizeof(code); i++)
		code[i] = (uint8_t)(flow_prog[i / 4] >> (8 * (i % 4)));
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, code, sizeof(code), 0x1000, 0),
			 0);
	etmkit_session_config_init(&sc);
	sc.frames = deformat_none;
	sc.raw_id = 0x10;
	if (batched)
		sc.on_elems = flow_many;
	else
		sc.on_elem = flow_one;
	sc.ctx = f;
	assert_int_equal(etmkit_session_alloc(&ses, &sc), 0);
	etm4_flow_config_init(&fc);
	ete_config(&fc.etm);
	fc.image = img;
	assert_int_equal(etmkit_session_add_etm4_flow(ses, 0x10, &fc), 0);
	first = etmkit_session_feed(ses, piece, sizeof(piece));
	if (first == 0) {
		assert_int_equal(etmkit_session_break(ses,
						      etmkit_loss_aux_partial),
				 0);
		assert_int_equal(etmkit_session_feed(ses, piece,
						     sizeof(piece)), 0);
		assert_int_equal(etmkit_session_lose(ses, 0x10,
						     etmkit_loss_aux_missing),
				 0);
		assert_int_equal(etmkit_session_feed(ses, piece,
						     sizeof(piece)), 0);
		assert_int_equal(etmkit_session_finish(ses), 0);
	}
	etmkit_session_free(ses);
	image_free(img);
	return first;
}

static void test_flow_batches(void **state)
{
	static struct flow_seen one, many;
	size_t k = 0, big = 0, gaps = 0;

	(void)state;
	memset(&one, 0, sizeof(one));
	memset(&many, 0, sizeof(many));
	assert_int_equal(flow_run(&one, 0), 0);
	assert_int_equal(flow_run(&many, 1), 0);
	assert_int_equal(many.n, one.n);
	assert_true(one.n > 20);
	for (size_t i = 0; i < one.n; i++) {
		const struct etmkit_elem *a = &one.e[i], *b = &many.e[i];

		assert_int_equal(b->kind, a->kind);
		assert_int_equal(b->offset, a->offset);
		assert_int_equal(b->addr, a->addr);
		assert_int_equal(b->flags, a->flags);
		assert_int_equal(b->size, a->size);
		if (a->kind == etmkit_elem_insn)
			assert_int_equal(b->u.insn.opcode, a->u.insn.opcode);
		if (a->kind == etmkit_elem_gap)
			assert_int_equal(b->u.loss.reason, a->u.loss.reason);
	}
	/* The decoder's batches hold several elements; the session's own
	 * gaps (the break's and the lose's, at the offsets of the bytes
	 * after their piece) come alone. */
	for (size_t b = 0; b < many.nb; b++) {
		const struct etmkit_elem *e = &many.e[k];

		if (many.batch[b] > 1)
			big++;
		if (e->kind == etmkit_elem_gap &&
		    (e->u.loss.reason == etmkit_loss_aux_partial ||
		     e->u.loss.reason == etmkit_loss_aux_missing)) {
			assert_int_equal(many.batch[b], 1);
			assert_int_equal(e->offset, 28 * (gaps + 1));
			gaps++;
		}
		k += many.batch[b];
	}
	assert_int_equal(k, many.n);
	assert_int_equal(gaps, 2);
	assert_true(big > 0);
	assert_true(many.nb < many.n);

	/* A negative return stops the feed after that batch. */
	memset(&many, 0, sizeof(many));
	many.stop = 1;
	assert_int_equal(flow_run(&many, 1), -etmkit_err_nomem);
	assert_int_equal(many.nb, 1);
}

/* A session with on_elems alone takes flow decoders, not packet ones; a
 * caller whose struct ends before on_elems gets on_elem. */
static void test_elems_config(void **state)
{
	struct etmkit_session_config sc;
	struct etm4_flow_config fc;
	struct etm4_config pc;
	struct etmkit_session *ses;
	struct flow_seen f;

	(void)state;
	etmkit_session_config_init(&sc);
	assert_null(sc.on_elems);
	sc.frames = deformat_none;
	sc.raw_id = 0x10;
	sc.on_elems = flow_many;
	sc.ctx = &f;
	assert_int_equal(etmkit_session_alloc(&ses, &sc), 0);
	etm4_flow_config_init(&fc);
	ete_config(&fc.etm);
	ete_config(&pc);
	assert_int_equal(etmkit_session_add_etm4(ses, 0x10, &pc),
			 -etmkit_err_invalid);
	assert_int_equal(etmkit_session_add_etm4_flow(ses, 0x10, &fc), 0);
	etmkit_session_free(ses);
	/* Size before on_elems: it is not read, so no element callback. */
	sc.size = offsetof(struct etmkit_session_config, on_elems);
	assert_int_equal(etmkit_session_alloc(&ses, &sc), -etmkit_err_invalid);
	sc.on_elem = flow_one;
	assert_int_equal(etmkit_session_alloc(&ses, &sc), 0);
	memset(&f, 0, sizeof(f));
	assert_int_equal(etmkit_session_add_etm4_flow(ses, 0x10, &fc), 0);
	assert_int_equal(etmkit_session_lose(ses, 0x10,
					     etmkit_loss_aux_missing), 0);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.nb, 0);       /* through on_elem */
	etmkit_session_free(ses);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_ids_offsets),
		cmocka_unit_test(test_raw_stream),
		cmocka_unit_test(test_callback_stops_feed),
		cmocka_unit_test(test_stop_on_error),
		cmocka_unit_test(test_dropped_frame_is_a_gap),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_ete_raw_stream),
		cmocka_unit_test(test_mixed_protocols),
		cmocka_unit_test(test_ete_stop_on_error),
		cmocka_unit_test(test_etm4_bad_arguments),
		cmocka_unit_test(test_config_init),
		cmocka_unit_test(test_break_etm3_raw),
		cmocka_unit_test(test_break_etm3_framed),
		cmocka_unit_test(test_break_ete_raw),
		cmocka_unit_test(test_break_etm4_framed_offset),
		cmocka_unit_test(test_break_etm3_flow),
		cmocka_unit_test(test_break_ete_flow_framed),
		cmocka_unit_test(test_feed_raw_in_framed_session),
		cmocka_unit_test(test_flow_batches),
		cmocka_unit_test(test_elems_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
