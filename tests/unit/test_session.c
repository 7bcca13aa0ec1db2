/* Session tests: formatter frames through the transport and ETMv3 packet
 * layers, with the input offset of every packet checked by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "etmkit/session.h"

struct seen {
	int n;
	uint8_t id[64];
	uint8_t type[64];
	uint64_t offset[64];
	uint32_t length[64];
	int stop_after;
};

static int on_packet(void *ctx, uint8_t id, enum etmkit_protocol proto,
		     const void *packet)
{
	struct seen *s = ctx;
	const struct etm3_packet *p = packet;

	assert_int_equal(proto, etmkit_proto_etmv3);
	assert_true(s->n < 64);
	s->id[s->n] = id;
	s->type[s->n] = p->type;
	s->offset[s->n] = p->offset;
	s->length[s->n] = p->length;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_ids_offsets),
		cmocka_unit_test(test_raw_stream),
		cmocka_unit_test(test_callback_stops_feed),
		cmocka_unit_test(test_stop_on_error),
		cmocka_unit_test(test_dropped_frame_is_a_gap),
		cmocka_unit_test(test_bad_arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
