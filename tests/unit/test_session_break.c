/* Session tests: breaks between pieces of a ring buffer (perf AUX
 * records) in raw and formatted sessions of ETMv3, ETMv4 and ETE, at the
 * packet and flow levels, and raw pieces in a formatted session. Split
 * from test_session.c (issue 17); the fixtures are in session_fixture.h. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "etmkit/session.h"
#include "etmkit/image.h"

#include "unit/session_fixture.h"

/* ---- Breaks between pieces of a ring buffer (perf AUX records) ------------
 *
 * The rule (digest perf-data.md 3.10, 3.7): each piece is its own stream.
 * A packet cut by a break is reported as truncated (a record with error
 * -etmkit_err_truncated, or a gap of reason etmkit_loss_truncated); the
 * bytes after it start unsynced, never joined to the bytes before; a break
 * that says trace was lost gives every source that had data since the
 * previous break a gap of that reason. */

static struct etmkit_session *mk_break(enum deformat_mode mode, uint8_t raw_id,
				       struct seen *s)
{
	struct etmkit_session_config sc;
	struct etmkit_session *ses = NULL;

	etmkit_session_config_init(&sc);
	sc.frames = mode;
	sc.raw_id = raw_id;
	sc.on_packet = on_packet;
	sc.on_gap = on_gap_rec;
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

/* A packet expected in the order seen: type, input offset, length, error
 * (a negated etmkit_err_*, 0 for none). */
struct want_pkt {
	uint8_t type;
	uint64_t off;
	uint32_t len;
	int16_t err;
};

/* The packets @s saw are the @n of @want, in order. */
static void expect_packets(const struct seen *s, const struct want_pkt *want,
			   int n)
{
	assert_int_equal(s->n, n);
	for (int i = 0; i < n; i++) {
		assert_int_equal(s->type[i], want[i].type);
		assert_int_equal(s->offset[i], want[i].off);
		assert_int_equal(s->length[i], want[i].len);
		assert_int_equal(s->error[i], want[i].err);
	}
}

/* Feed two pieces with a break saying @why between them, and finish. */
static void feed_broken(struct etmkit_session *ses, const uint8_t *p1,
			size_t n1, enum etmkit_loss why, const uint8_t *p2,
			size_t n2)
{
	assert_int_equal(etmkit_session_feed(ses, p1, n1), 0);
	assert_int_equal(etmkit_session_break(ses, why), 0);
	assert_int_equal(etmkit_session_feed(ses, p2, n2), 0);
	assert_int_equal(etmkit_session_finish(ses), 0);
}

/* ETMv3, unframed. Piece 1 (offsets 0-7): A-sync at 0-5, P-header 0x84 at
 * 6, the first byte of an I-sync (0x08) at 7, cut by the break. Piece 2
 * (8-15): 0x84 0x84 (would finish nothing: not synced), then A-sync at
 * 10-15. Joined, 0x08 would take 0x84 0x84 as its address. */
static void test_break_etm3_raw(void **state)
{
	static const uint8_t p1[] = { 0, 0, 0, 0, 0, 0x80, 0x84, 0x08 };
	static const uint8_t p2[] = { 0x84, 0x84, 0, 0, 0, 0, 0, 0x80 };
	static const struct want_pkt want[] = {
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
	feed_broken(ses, p1, sizeof(p1), etmkit_loss_aux_truncated, p2,
		    sizeof(p2));
	expect_packets(&s, want, 5);
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
	feed_broken(ses, frames, 16, etmkit_loss_aux_collision, frames + 16,
		    16);
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
	static const struct want_pkt want[] = {
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
	feed_broken(ses, p1, sizeof(p1), etmkit_loss_none, p2, sizeof(p2));
	expect_packets(&s, want, 5);
	for (int i = 0; i < s.n; i++)
		assert_int_equal(s.proto[i], etmkit_proto_ete);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_break_etm3_raw),
		cmocka_unit_test(test_break_etm3_framed),
		cmocka_unit_test(test_break_ete_raw),
		cmocka_unit_test(test_break_etm4_framed_offset),
		cmocka_unit_test(test_break_etm3_flow),
		cmocka_unit_test(test_break_ete_flow_framed),
		cmocka_unit_test(test_feed_raw_in_framed_session),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
