/* Session tests: formatter frames through the transport and the ETMv3,
 * PTM, ETMv4 and ETE packet layers, with the input offset of every packet
 * checked by hand; batches of flow elements. Breaks between pieces of a
 * ring buffer are tested in test_session_break.c; the fixtures both use
 * are in session_fixture.h. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "etmkit/session.h"
#include "etmkit/image.h"

#include "unit/session_fixture.h"

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

/* ---- PTM ------------------------------------------------------------------ */

/* ETMv3 on ID 0x10 and PTM on 0x20 in the frames of test_two_ids_offsets
 * (session_fixture.h): PTM's records are reported with etmkit_proto_ptm
 * and their input offsets; 0x84 is one atom, 0x88 two (IHI 0035B 4.5.3).
 * With jobs (packet sources stay serial) the records are the same. */
static void test_ptm_mixed(void **state)
{
	static const struct { uint8_t proto, type, atoms; uint64_t off; } want[] = {
		{ etmkit_proto_ptm, ptm_pkt_a_sync, 0, 9 },
		{ etmkit_proto_ptm, ptm_pkt_atom, 1, 16 },
		{ etmkit_proto_ptm, ptm_pkt_atom, 1, 17 },
		{ etmkit_proto_ptm, ptm_pkt_atom, 2, 19 },
	};
	struct etm3_config c3;
	struct ptm_config cp;
	struct etmkit_session_config sc;
	struct etmkit_session *ses;
	struct seen s;

	(void)state;
	for (unsigned jobs = 0; jobs <= 4; jobs += 4) {
		size_t k = 0;

		memset(&s, 0, sizeof(s));
		etmkit_session_config_init(&sc);
		sc.frames = deformat_coresight;
		sc.on_packet = on_packet;
		sc.ctx = &s;
		sc.jobs = jobs;
		ses = NULL;
		assert_int_equal(etmkit_session_alloc(&ses, &sc), 0);
		etm3_config_init(&c3);
		c3.etmcr = ETM3_ETMCR_CYCLE_ACCURATE;
		c3.etmidr = 0x410cf250;
		ptm_config_tc2(&cp);
		assert_int_equal(etmkit_session_add_etm3(ses, 0x10, &c3), 0);
		assert_int_equal(etmkit_session_add_ptm(ses, 0x20, &cp), 0);
		assert_int_equal(etmkit_session_feed(ses, frames, 32), 0);
		assert_int_equal(etmkit_session_finish(ses), 0);
		assert_int_equal(s.n, 13 + 4);
		for (int i = 0; i < s.n; i++) {
			if (s.id[i] != 0x20) {
				assert_int_equal(s.proto[i], etmkit_proto_etmv3);
				continue;
			}
			assert_true(k < sizeof(want) / sizeof(want[0]));
			assert_int_equal(s.proto[i], want[k].proto);
			assert_int_equal(s.type[i], want[k].type);
			assert_int_equal(s.offset[i], want[k].off);
			assert_int_equal(s.error[i], 0);
			if (want[k].atoms)
				assert_int_equal(s.addr[i], want[k].atoms);
			k++;
		}
		assert_int_equal(k, sizeof(want) / sizeof(want[0]));
		etmkit_session_free(ses);
	}
}

/* A raw PTM stream: the reserved header 0x04 (ETMv3's cycle count, not a
 * PTM packet: digest ptm.md 2) is an error record, and with stop_on_error
 * the feed stops there; without, the decoder resumes at the next A-sync.
 * A break with a loss reason is a gap of the source (on_gap). */
static void test_ptm_errors_and_gaps(void **state)
{
	static const uint8_t raw[] = { 0, 0, 0, 0, 0, 0x80, 0x84, 0x04,
				       0x84, 0, 0, 0, 0, 0, 0x80, 0x88 };
	struct etmkit_session_config sc;
	struct ptm_config cp;
	struct etmkit_session *ses;
	struct seen s;

	(void)state;
	ptm_config_tc2(&cp);
	memset(&s, 0, sizeof(s));
	ses = mk4(deformat_none, 2, &s, 1);
	assert_int_equal(etmkit_session_add_ptm(ses, 2, &cp), 0);
	assert_int_equal(etmkit_session_feed(ses, raw, sizeof(raw)),
			 -etmkit_err_bad_packet);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.proto[2], etmkit_proto_ptm);
	assert_int_equal(s.offset[2], 7);
	assert_true(s.error[2] < 0);
	etmkit_session_free(ses);

	memset(&s, 0, sizeof(s));
	etmkit_session_config_init(&sc);
	sc.frames = deformat_none;
	sc.raw_id = 2;
	sc.on_packet = on_packet;
	sc.on_gap = on_gap_rec;
	sc.ctx = &s;
	ses = NULL;
	assert_int_equal(etmkit_session_alloc(&ses, &sc), 0);
	assert_int_equal(etmkit_session_add_ptm(ses, 2, &cp), 0);
	assert_int_equal(etmkit_session_feed(ses, raw, sizeof(raw)), 0);
	assert_int_equal(etmkit_session_break(ses, etmkit_loss_aux_truncated),
			 0);
	assert_int_equal(s.g.n, 1);
	assert_int_equal(s.g.id[0], 2);
	assert_int_equal(s.g.reason[0], etmkit_loss_aux_truncated);
	assert_int_equal(s.g.offset[0], sizeof(raw));
	/* a_sync, atom, the error, unsynced 0x84, a_sync, atom */
	assert_int_equal(s.n, 6);
	assert_int_equal(s.type[3], ptm_pkt_unsynced);
	assert_int_equal(s.offset[3], 8);
	assert_int_equal(s.type[4], ptm_pkt_a_sync);
	assert_int_equal(s.offset[5], 15);
	assert_int_equal(s.error[5], 0);
	etmkit_session_free(ses);
}

/* etmkit_session_add_ptm()'s refusals. */
static void test_ptm_bad_arguments(void **state)
{
	struct etmkit_session_config sc;
	struct etmkit_session *ses;
	struct ptm_config cfg;
	struct etm3_config c3;
	struct seen s;

	(void)state;
	memset(&s, 0, sizeof(s));
	ses = mk4(deformat_coresight, 0, &s, 0);
	ptm_config_tc2(&cfg);
	assert_int_equal(etmkit_session_add_ptm(NULL, 0x10, &cfg),
			 -etmkit_err_invalid);
	assert_int_equal(etmkit_session_add_ptm(ses, 0x10, NULL),
			 -etmkit_err_invalid);
	assert_int_equal(etmkit_session_add_ptm(ses, 0x00, &cfg),
			 -etmkit_err_invalid);
	assert_int_equal(etmkit_session_add_ptm(ses, 0x70, &cfg),
			 -etmkit_err_invalid);
	cfg.size = sizeof(cfg) - 1;
	assert_int_equal(etmkit_session_add_ptm(ses, 0x10, &cfg),
			 -etmkit_err_invalid);
	ptm_config_tc2(&cfg);
	etm3_config_init(&c3);
	c3.etmidr = 0x410cf250;
	assert_int_equal(etmkit_session_add_etm3(ses, 0x10, &c3), 0);
	assert_int_equal(etmkit_session_add_ptm(ses, 0x10, &cfg),
			 -etmkit_err_invalid);
	/* ETMIDR[11:8] = 2: an ETMv3, not a PTM */
	cfg.etmidr = 0x410cf250;
	assert_int_equal(etmkit_session_add_ptm(ses, 0x11, &cfg),
			 -etmkit_err_bad_config);
	etmkit_session_free(ses);

	memset(&sc, 0, sizeof(sc));
	sc.size = sizeof(sc);
	sc.on_elem = no_elem;
	ses = NULL;
	assert_int_equal(etmkit_session_alloc(&ses, &sc), 0);
	ptm_config_tc2(&cfg);
	assert_int_equal(etmkit_session_add_ptm(ses, 0x10, &cfg),
			 -etmkit_err_invalid);
	etmkit_session_free(ses);
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
		cmocka_unit_test(test_ptm_mixed),
		cmocka_unit_test(test_ptm_errors_and_gaps),
		cmocka_unit_test(test_ptm_bad_arguments),
		cmocka_unit_test(test_config_init),
		cmocka_unit_test(test_flow_batches),
		cmocka_unit_test(test_elems_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
