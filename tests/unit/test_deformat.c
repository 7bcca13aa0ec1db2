/* Unit tests of the transport layer (CoreSight frames, TPIU syncs).
 *
 * Every expected output below was worked out by hand from the frame rules
 * in shared/spec/coresight-frames.md (digest §1-3; DDI 0314H 8.12.1,
 * 8.12.4, 9.6.1), never copied from the decoder's output. The TC2 test
 * checks a real ETB capture against OpenCSD's packet listing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "unit/test_util.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/transport.h"

#define UNOWNED DEFORMAT_ID_UNOWNED

/* One delivered data byte. */
struct xbyte {
	uint8_t id;
	uint8_t byte;
	uint64_t off;
};

/* One on_data call. */
struct xcall {
	uint8_t id;
	size_t n;
	const uint8_t *data;
	bool offsets_null;
	uint64_t base;
};

#define REC_CALLS 64
#define REC_EVENTS 64

/* What the callbacks saw. */
struct rec {
	struct xbyte *b;
	size_t n, cap;
	struct xcall calls[REC_CALLS];
	size_t ncalls;
	size_t max_call;
	struct deformat_event ev[REC_EVENTS];
	size_t nev;
	/* 'F' frame event, 'D' data call, ... in order, for ordering tests */
	char log[256];
	size_t nlog;
	/* abort: return data_ret from the data call number data_fail (1-based),
	 * ev_ret from event number ev_fail */
	int data_ret;
	size_t data_fail;
	int ev_ret;
	size_t ev_fail;
};

static void rec_init(struct rec *r, size_t cap)
{
	memset(r, 0, sizeof(*r));
	r->cap = cap;
	r->b = calloc(cap, sizeof(*r->b));
	assert_non_null(r->b);
}

static void rec_fini(struct rec *r)
{
	free(r->b);
}

static void rec_log(struct rec *r, char c)
{
	if (r->nlog + 1 < sizeof(r->log))
		r->log[r->nlog++] = c;
}

static int on_data(void *ctx, uint8_t id, const uint8_t *data,
		   const uint64_t *offsets, uint64_t base, size_t n)
{
	struct rec *r = ctx;
	size_t i;

	assert_true(n > 0);
	if (r->ncalls < REC_CALLS) {
		struct xcall *c = &r->calls[r->ncalls];

		c->id = id;
		c->n = n;
		c->data = data;
		c->offsets_null = offsets == NULL;
		c->base = base;
	}
	r->ncalls++;
	if (n > r->max_call)
		r->max_call = n;
	rec_log(r, 'D');
	for (i = 0; i < n; i++) {
		assert_true(r->n < r->cap);
		r->b[r->n].id = id;
		r->b[r->n].byte = data[i];
		r->b[r->n].off = offsets ? offsets[i] : base + i;
		r->n++;
	}
	if (r->data_fail && r->ncalls == r->data_fail)
		return r->data_ret;
	return 0;
}

static int on_event(void *ctx, const struct deformat_event *ev)
{
	struct rec *r = ctx;
	/* frame, fsYnc, Hsync, sKipped, Error */
	static const char kinds[] = "?FYHKE";

	if (r->nev < REC_EVENTS)
		r->ev[r->nev] = *ev;
	r->nev++;
	rec_log(r, ev->kind < sizeof(kinds) - 1 ? kinds[ev->kind] : '?');
	if (r->ev_fail && r->nev == r->ev_fail)
		return r->ev_ret;
	return 0;
}

static struct deformatter *mk(enum deformat_mode mode, struct rec *r,
			      bool events)
{
	struct deformat_config cfg;
	struct deformatter *d = NULL;

	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.mode = mode;
	cfg.raw_id = 0x42;
	cfg.on_data = on_data;
	cfg.on_event = events ? on_event : NULL;
	cfg.ctx = r;
	assert_int_equal(deformat_alloc(&d, &cfg), 0);
	assert_non_null(d);
	return d;
}

/* Expected bytes, built from per-frame tables shifted to their offset. */
struct xlist {
	struct xbyte b[512];
	size_t n;
};

static void x_add(struct xlist *x, const struct xbyte *e, size_t n,
		  uint64_t shift)
{
	size_t i;

	for (i = 0; i < n; i++) {
		assert_true(x->n < sizeof(x->b) / sizeof(x->b[0]));
		x->b[x->n] = e[i];
		x->b[x->n].off += shift;
		x->n++;
	}
}

/* Expected bytes @e of a frame whose byte p sat at input offset @offs[p]
 * (the .off of each entry is its frame position). */
static void x_add_mapped(struct xlist *x, const struct xbyte *e, size_t n,
			 const uint64_t *offs)
{
	size_t i;

	for (i = 0; i < n; i++) {
		assert_true(x->n < sizeof(x->b) / sizeof(x->b[0]));
		x->b[x->n] = e[i];
		x->b[x->n].off = offs[e[i].off];
		x->n++;
	}
}

static void expect_bytes(const struct rec *r, const struct xlist *x)
{
	size_t i;

	assert_int_equal(r->n, x->n);
	for (i = 0; i < x->n; i++) {
		if (r->b[i].id != x->b[i].id || r->b[i].byte != x->b[i].byte ||
		    r->b[i].off != x->b[i].off)
			fail_msg("byte %zu: got id 0x%02x byte 0x%02x off %" PRIu64
				 ", want id 0x%02x byte 0x%02x off %" PRIu64,
				 i, r->b[i].id, r->b[i].byte, r->b[i].off,
				 x->b[i].id, x->b[i].byte, x->b[i].off);
	}
}

static void expect_run(const struct deformat_event *ev, unsigned int i,
		       uint8_t id, uint8_t count)
{
	assert_true(i < ev->nruns);
	assert_int_equal(ev->runs[i].id, id);
	assert_int_equal(ev->runs[i].count, count);
}

static void feed_all(struct deformatter *d, const uint8_t *buf, size_t n)
{
	assert_int_equal(deformat_feed(d, buf, n), 0);
	assert_int_equal(deformat_finish(d), 0);
}

/* ---- Hand-built frames and what they carry (offsets within the frame) */

/* Digest §1.1 worked example. Aux 0x06: pair 1 data gets bit 0 = 1; pair 2
 * ID 0x08 is delayed so byte 5 stays with 0x11. */
static const uint8_t F1[16] = {0x23, 0x41, 0x42, 0x43, 0x11, 0x44, 0x44, 0x45,
			       0x46, 0x47, 0x48, 0x49, 0x4A, 0x4B, 0x4C, 0x06};
static const struct xbyte E1[] = {
	{0x11, 0x41, 1}, {0x11, 0x43, 2}, {0x11, 0x43, 3}, {0x11, 0x44, 5},
	{0x08, 0x44, 6}, {0x08, 0x45, 7}, {0x08, 0x46, 8}, {0x08, 0x47, 9},
	{0x08, 0x48, 10}, {0x08, 0x49, 11}, {0x08, 0x4A, 12},
	{0x08, 0x4B, 13}, {0x08, 0x4C, 14},
};

/* All data, aux 0xA5 (bits 0, 2, 5, 7): flag bytes 0, 4, 10, 14 get bit 0
 * set, flag bytes 2, 6, 8, 12 keep it clear. */
static const uint8_t F2[16] = {0x02, 0x10, 0x04, 0x11, 0x06, 0x12, 0x08, 0x13,
			       0x0A, 0x14, 0x0C, 0x15, 0x0E, 0x16, 0x10, 0xA5};
static const uint8_t D2[15] = {0x03, 0x10, 0x04, 0x11, 0x07, 0x12, 0x08, 0x13,
			       0x0A, 0x14, 0x0D, 0x15, 0x0E, 0x16, 0x11};

/* ID changes mid-frame. Aux 0xF2 = bits 1, 4, 5, 6, 7.
 * 0: ID 0x10 (aux 0) -> byte 1 to 0x10; 2: data A2|1 = A3; 4: data A6|0;
 * 6: ID 0x20, aux 0 -> byte 7 to 0x20 at once; 8: data B2|1 = B3;
 * 10: ID 0x30, aux 1 -> byte 11 still 0x20 (delayed ID);
 * 12: ID 0x30 again, aux 1, unchanged ID -> byte 13 to 0x30;
 * 14: data C2|1 = C3 to 0x30. */
static const uint8_t F3[16] = {0x21, 0xA1, 0xA2, 0xA4, 0xA6, 0xA7, 0x41, 0xB0,
			       0xB2, 0xB4, 0x61, 0xB5, 0x61, 0xC0, 0xC2, 0xF2};
static const struct xbyte E3[] = {
	{0x10, 0xA1, 1}, {0x10, 0xA3, 2}, {0x10, 0xA4, 3}, {0x10, 0xA6, 4},
	{0x10, 0xA7, 5}, {0x20, 0xB0, 7}, {0x20, 0xB3, 8}, {0x20, 0xB4, 9},
	{0x20, 0xB5, 11}, {0x30, 0xC0, 13}, {0x30, 0xC3, 14},
};

/* ID 0x10 at byte 0, data 1..13, ID 0x22 at byte 14 (aux bit 7 set, to be
 * ignored): 0x22 owns the next frame from its first byte. */
static const uint8_t F4[16] = {0x21, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
			       0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x45, 0x80};
static const struct xbyte E4[] = {
	{0x10, 0x01, 1}, {0x10, 0x02, 2}, {0x10, 0x03, 3}, {0x10, 0x04, 4},
	{0x10, 0x05, 5}, {0x10, 0x06, 6}, {0x10, 0x07, 7}, {0x10, 0x08, 8},
	{0x10, 0x09, 9}, {0x10, 0x0A, 10}, {0x10, 0x0B, 11},
	{0x10, 0x0C, 12}, {0x10, 0x0D, 13},
};

/* Null ID 0 at byte 0: bytes 1..7 (7 bytes) dropped; ID 0x10 at byte 8
 * (aux 0) owns bytes 9..14. */
static const uint8_t F5[16] = {0x01, 0xAA, 0x00, 0xBB, 0x00, 0xCC, 0x00, 0xDD,
			       0x21, 0xEE, 0x10, 0x20, 0x30, 0x40, 0x50, 0x00};
static const struct xbyte E5[] = {
	{0x10, 0xEE, 9}, {0x10, 0x10, 10}, {0x10, 0x20, 11},
	{0x10, 0x30, 12}, {0x10, 0x40, 13}, {0x10, 0x50, 14},
};

static const uint8_t FSYNC[4] = {0xFF, 0xFF, 0xFF, 0x7F};
static const uint8_t HSYNC[2] = {0xFF, 0x7F};

static void x_add_data15(struct xlist *x, uint8_t id, const uint8_t *data,
			 uint64_t shift)
{
	struct xbyte e[15];
	unsigned int p;

	for (p = 0; p < 15; p++) {
		e[p].id = id;
		e[p].byte = data[p];
		e[p].off = p;
	}
	x_add(x, e, 15, shift);
}

/* Input builder. */
struct ibuf {
	uint8_t b[512];
	size_t n;
};

static uint64_t in_add(struct ibuf *in, const uint8_t *b, size_t n)
{
	uint64_t at = in->n;

	assert_true(in->n + n <= sizeof(in->b));
	memcpy(in->b + in->n, b, n);
	in->n += n;
	return at;
}

/* ---- Tests */

static void test_worked_example(void **state)
{
	struct rec r;
	struct deformatter *d;
	struct xlist x = {.n = 0};
	uint8_t in[32];
	const struct deformat_stats *st;

	(void)state;
	memcpy(in, F1, 16);
	memcpy(in + 16, F2, 16);
	rec_init(&r, 64);
	d = mk(deformat_coresight, &r, false);
	feed_all(d, in, sizeof(in));
	/* ID 0x11: 41 43 43 44; ID 0x08: 44 45 46 47 48 49 4A 4B 4C, and ID
	 * 0x08 carries into the next frame. */
	x_add(&x, E1, 13, 0);
	x_add_data15(&x, 0x08, D2, 16);
	expect_bytes(&r, &x);
	/* One call per run: 0x11, then 0x08 spanning both frames. */
	assert_int_equal(r.ncalls, 2);
	assert_int_equal(r.calls[0].id, 0x11);
	assert_int_equal(r.calls[0].n, 4);
	assert_int_equal(r.calls[1].id, 0x08);
	assert_int_equal(r.calls[1].n, 24);
	assert_false(r.calls[1].offsets_null);
	st = deformat_get_stats(d);
	assert_int_equal(st->frames, 2);
	assert_int_equal(st->bytes_in, 32);
	assert_int_equal(st->id_bytes[0x11], 4);
	assert_int_equal(st->id_bytes[0x08], 24);
	assert_int_equal(st->null_bytes, 0);
	assert_int_equal(st->unowned_bytes, 0);
	assert_int_equal(st->errors, 0);
	deformat_free(d);
	rec_fini(&r);
}

static void test_frame_events(void **state)
{
	struct rec r;
	struct deformatter *d;
	uint8_t in[48];

	(void)state;
	memcpy(in, F1, 16);
	memcpy(in + 16, F3, 16);
	memcpy(in + 32, F5, 16);
	rec_init(&r, 64);
	d = mk(deformat_coresight, &r, true);
	feed_all(d, in, sizeof(in));
	assert_int_equal(r.nev, 3);
	assert_int_equal(r.ev[0].kind, deformat_ev_frame);
	assert_int_equal(r.ev[0].offset, 0);
	assert_int_equal(r.ev[0].length, 16);
	assert_memory_equal(r.ev[0].frame, F1, 16);
	assert_int_equal(r.ev[0].nruns, 2);
	expect_run(&r.ev[0], 0, 0x11, 4);
	expect_run(&r.ev[0], 1, 0x08, 9);
	assert_int_equal(r.ev[1].offset, 16);
	assert_memory_equal(r.ev[1].frame, F3, 16);
	assert_int_equal(r.ev[1].nruns, 3);
	expect_run(&r.ev[1], 0, 0x10, 5);
	expect_run(&r.ev[1], 1, 0x20, 4);
	expect_run(&r.ev[1], 2, 0x30, 2);
	assert_int_equal(r.ev[2].offset, 32);
	assert_int_equal(r.ev[2].nruns, 2);
	expect_run(&r.ev[2], 0, 0x00, 7);
	expect_run(&r.ev[2], 1, 0x10, 6);
	/* With an observer: each frame's event, then its data by run (the
	 * null run is not delivered). */
	assert_string_equal(r.log, "FDDFDDDFD");
	deformat_free(d);
	rec_fini(&r);
}

static void test_id_change_mid_frame(void **state)
{
	struct rec r;
	struct deformatter *d;
	struct xlist x = {.n = 0};
	const struct deformat_stats *st;

	(void)state;
	rec_init(&r, 64);
	d = mk(deformat_coresight, &r, false);
	feed_all(d, F3, 16);
	x_add(&x, E3, 11, 0);
	expect_bytes(&r, &x);
	st = deformat_get_stats(d);
	assert_int_equal(st->id_bytes[0x10], 5);
	assert_int_equal(st->id_bytes[0x20], 4);
	assert_int_equal(st->id_bytes[0x30], 2);
	deformat_free(d);
	rec_fini(&r);
}

/* Byte 14 as an ID: its aux bit is ignored either way, the ID owns the next
 * frame from its byte 0. */
static void test_id_at_byte14(void **state)
{
	unsigned int aux7;

	(void)state;
	for (aux7 = 0; aux7 < 2; aux7++) {
		struct rec r;
		struct deformatter *d;
		struct xlist x = {.n = 0};
		static const uint8_t next[16] = {
			0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
			0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0x00};
		uint8_t in[32];

		memcpy(in, F4, 16);
		in[15] = (uint8_t)(aux7 << 7);
		memcpy(in + 16, next, 16);
		rec_init(&r, 64);
		d = mk(deformat_coresight, &r, false);
		feed_all(d, in, sizeof(in));
		x_add(&x, E4, 13, 0);
		x_add_data15(&x, 0x22, next, 16);
		expect_bytes(&r, &x);
		deformat_free(d);
		rec_fini(&r);
	}
}

/* Flag bytes that are data get bit 0 from the aux byte: all combinations
 * of a single set aux bit, after an ID frame. */
static void test_aux_restores_bit0(void **state)
{
	unsigned int bit;

	(void)state;
	for (bit = 0; bit < 8; bit++) {
		struct rec r;
		struct deformatter *d;
		struct xlist x = {.n = 0};
		uint8_t in[32], want[15];
		unsigned int p;

		memcpy(in, F4, 16); /* leaves ID 0x22 current */
		for (p = 0; p < 15; p++)
			in[16 + p] = (uint8_t)(0x80 + 2 * p);
		in[31] = (uint8_t)(1u << bit);
		for (p = 0; p < 15; p++)
			want[p] = (uint8_t)(0x80 + 2 * p +
					    (p == 2 * bit ? 1 : 0));
		rec_init(&r, 64);
		d = mk(deformat_coresight, &r, false);
		feed_all(d, in, sizeof(in));
		x_add(&x, E4, 13, 0);
		x_add_data15(&x, 0x22, want, 16);
		expect_bytes(&r, &x);
		deformat_free(d);
		rec_fini(&r);
	}
}

static void test_null_id_dropped(void **state)
{
	struct rec r;
	struct deformatter *d;
	struct xlist x = {.n = 0};
	const struct deformat_stats *st;
	size_t i;

	(void)state;
	rec_init(&r, 64);
	d = mk(deformat_coresight, &r, false);
	feed_all(d, F5, 16);
	x_add(&x, E5, 6, 0);
	expect_bytes(&r, &x);
	for (i = 0; i < r.ncalls; i++)
		assert_int_not_equal(r.calls[i].id, 0);
	st = deformat_get_stats(d);
	assert_int_equal(st->null_bytes, 7);
	assert_int_equal(st->id_bytes[0], 0);
	assert_int_equal(st->id_bytes[0x10], 6);
	deformat_free(d);
	rec_fini(&r);
}

/* Data before the first ID cannot be attributed (digest §1.2 step 3),
 * including a byte whose delayed-ID aux bit gives it to the "previous" ID
 * when there is none. */
static void test_data_before_first_id(void **state)
{
	static const uint8_t fb[16] = {0x02, 0x03, 0x21, 0x04, 0x06, 0x07,
				       0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D,
				       0x0E, 0x0F, 0x10, 0x02};
	struct rec r;
	struct deformatter *d;
	struct xlist x = {.n = 0};
	uint8_t in[32];
	unsigned int p;
	const struct deformat_stats *st;

	(void)state;
	for (p = 0; p < 16; p++)
		in[p] = (uint8_t)(2 * p); /* all data, aux 0x1E: no matter */
	memcpy(in + 16, fb, 16);
	rec_init(&r, 64);
	d = mk(deformat_coresight, &r, true);
	feed_all(d, in, sizeof(in));
	/* 0x10 owns bytes 4..14 of frame 2, byte value = offset in frame + 2 */
	for (p = 4; p < 15; p++) {
		struct xbyte e = {0x10, (uint8_t)(p + 2), p};

		x_add(&x, &e, 1, 16);
	}
	expect_bytes(&r, &x);
	st = deformat_get_stats(d);
	assert_int_equal(st->unowned_bytes, 15 + 3);
	assert_int_equal(st->id_bytes[0x10], 11);
	assert_int_equal(r.nev, 2);
	assert_int_equal(r.ev[0].nruns, 1);
	expect_run(&r.ev[0], 0, UNOWNED, 15);
	assert_int_equal(r.ev[1].nruns, 2);
	expect_run(&r.ev[1], 0, UNOWNED, 3);
	expect_run(&r.ev[1], 1, 0x10, 11);
	deformat_free(d);
	rec_fini(&r);
}

/* Coresight stream F1 F2 F3 F5 F4 F2 and its data, by hand. */
static void cs_stream(struct ibuf *in, struct xlist *x)
{
	in->n = 0;
	x->n = 0;
	in_add(in, F1, 16);
	in_add(in, F2, 16);
	in_add(in, F3, 16);
	in_add(in, F5, 16);
	in_add(in, F4, 16);
	in_add(in, F2, 16);
	x_add(x, E1, 13, 0);
	x_add_data15(x, 0x08, D2, 16);
	x_add(x, E3, 11, 32);
	x_add(x, E5, 6, 48);
	x_add(x, E4, 13, 64);
	x_add_data15(x, 0x22, D2, 80);
}

static void cs_stream_stats(const struct deformat_stats *st)
{
	assert_int_equal(st->frames, 6);
	assert_int_equal(st->bytes_in, 96);
	assert_int_equal(st->id_bytes[0x08], 24);
	assert_int_equal(st->id_bytes[0x10], 5 + 6 + 13);
	assert_int_equal(st->id_bytes[0x11], 4);
	assert_int_equal(st->id_bytes[0x20], 4);
	assert_int_equal(st->id_bytes[0x22], 15);
	assert_int_equal(st->id_bytes[0x30], 2);
	assert_int_equal(st->null_bytes, 7);
	assert_int_equal(st->unowned_bytes, 0);
	assert_int_equal(st->errors, 0);
	assert_int_equal(st->skipped, 0);
}

/* Feed @in in three pieces cut at @a and @b (a <= b). */
static void feed3(struct deformatter *d, const struct ibuf *in, size_t a,
		  size_t b)
{
	assert_int_equal(deformat_feed(d, in->b, a), 0);
	assert_int_equal(deformat_feed(d, in->b + a, b - a), 0);
	assert_int_equal(deformat_feed(d, in->b + b, in->n - b), 0);
	assert_int_equal(deformat_finish(d), 0);
}

static void test_coresight_splits(void **state)
{
	struct ibuf in;
	struct xlist x;
	size_t a, b;

	(void)state;
	cs_stream(&in, &x);
	for (a = 0; a <= in.n; a++) {
		for (b = a; b <= in.n; b += 5) {
			struct rec r;
			struct deformatter *d;

			rec_init(&r, 256);
			d = mk(deformat_coresight, &r, (a + b) & 1);
			feed3(d, &in, a, b);
			expect_bytes(&r, &x);
			cs_stream_stats(deformat_get_stats(d));
			deformat_free(d);
			rec_fini(&r);
		}
	}
}

static void test_coresight_bytewise(void **state)
{
	struct ibuf in;
	struct xlist x;
	struct rec r;
	struct deformatter *d;
	size_t i;

	(void)state;
	cs_stream(&in, &x);
	rec_init(&r, 256);
	d = mk(deformat_coresight, &r, false);
	for (i = 0; i < in.n; i++)
		assert_int_equal(deformat_feed(d, in.b + i, 1), 0);
	assert_int_equal(deformat_feed(d, NULL, 0), 0);
	assert_int_equal(deformat_finish(d), 0);
	expect_bytes(&r, &x);
	cs_stream_stats(deformat_get_stats(d));
	deformat_free(d);
	rec_fini(&r);
}

/* A long run of one ID goes out in several calls, none above the 4096-byte
 * buffer, offsets contiguous. */
static void test_long_run(void **state)
{
	enum { NF = 400 };
	uint8_t *in = calloc(NF, 16);
	struct rec r;
	struct deformatter *d;
	size_t f, i;

	(void)state;
	assert_non_null(in);
	memcpy(in, F4, 16); /* ID 0x22 current afterwards */
	for (f = 1; f < NF; f++)
		for (i = 0; i < 15; i++)
			in[16 * f + i] = (uint8_t)(i & ~1u);
	rec_init(&r, NF * 15);
	d = mk(deformat_coresight, &r, false);
	feed_all(d, in, NF * 16);
	assert_int_equal(r.n, 13 + (NF - 1) * 15);
	assert_true(r.ncalls >= 3);
	assert_true(r.max_call <= 4096);
	for (i = 13; i < r.n; i++) {
		size_t k = i - 13;

		assert_int_equal(r.b[i].id, 0x22);
		assert_int_equal(r.b[i].off, 16 + 16 * (k / 15) + k % 15);
		assert_int_equal(r.b[i].byte, (k % 15) & ~1u);
	}
	deformat_free(d);
	rec_fini(&r);
	free(in);
}

/* TPIU: garbage FF FF 34 FF FF 7F FF (near-FSYNCs: a broken FF run, FF FF
 * 7F), then FF FF FF 7F at offset 7 (the FF at 6 is garbage: the sync is
 * the last three FF and the 7F), F1 at 11, two FSYNCs at 27 and 31, F2 at
 * 35, F3 at 51. */
static void tpiu_stream(struct ibuf *in, struct xlist *x)
{
	static const uint8_t garbage[7] = {0xFF, 0xFF, 0x34, 0xFF,
					   0xFF, 0x7F, 0xFF};

	in->n = 0;
	x->n = 0;
	in_add(in, garbage, 7);
	assert_int_equal(in_add(in, FSYNC, 4), 7);
	assert_int_equal(in_add(in, F1, 16), 11);
	in_add(in, FSYNC, 4);
	in_add(in, FSYNC, 4);
	assert_int_equal(in_add(in, F2, 16), 35);
	assert_int_equal(in_add(in, F3, 16), 51);
	x_add(x, E1, 13, 11);
	x_add_data15(x, 0x08, D2, 35);
	x_add(x, E3, 11, 51);
}

static void tpiu_stream_check(const struct rec *r, const struct xlist *x,
			      const struct deformat_stats *st, bool events)
{
	expect_bytes(r, x);
	assert_int_equal(st->skipped, 7);
	assert_int_equal(st->fsyncs, 3);
	assert_int_equal(st->frames, 3);
	assert_int_equal(st->errors, 0);
	assert_int_equal(st->bytes_in, 67);
	if (!events)
		return;
	assert_int_equal(r->nev, 7);
	assert_int_equal(r->ev[0].kind, deformat_ev_skipped);
	assert_int_equal(r->ev[0].offset, 0);
	assert_int_equal(r->ev[0].length, 7);
	assert_int_equal(r->ev[1].kind, deformat_ev_fsync);
	assert_int_equal(r->ev[1].offset, 7);
	assert_int_equal(r->ev[1].length, 4);
	assert_int_equal(r->ev[2].kind, deformat_ev_frame);
	assert_int_equal(r->ev[2].offset, 11);
	assert_memory_equal(r->ev[2].frame, F1, 16);
	assert_int_equal(r->ev[3].kind, deformat_ev_fsync);
	assert_int_equal(r->ev[3].offset, 27);
	assert_int_equal(r->ev[4].kind, deformat_ev_fsync);
	assert_int_equal(r->ev[4].offset, 31);
	assert_int_equal(r->ev[5].kind, deformat_ev_frame);
	assert_int_equal(r->ev[5].offset, 35);
	assert_int_equal(r->ev[6].kind, deformat_ev_frame);
	assert_int_equal(r->ev[6].offset, 51);
}

static void test_tpiu_fsync(void **state)
{
	struct ibuf in;
	struct xlist x;
	struct rec r;
	struct deformatter *d;

	(void)state;
	tpiu_stream(&in, &x);
	rec_init(&r, 256);
	d = mk(deformat_tpiu, &r, true);
	feed_all(d, in.b, in.n);
	tpiu_stream_check(&r, &x, deformat_get_stats(d), true);
	deformat_free(d);
	rec_fini(&r);
}

/* Every split point, including inside each FSYNC (straddling feeds). */
static void test_tpiu_splits(void **state)
{
	struct ibuf in;
	struct xlist x;
	size_t a, b;

	(void)state;
	tpiu_stream(&in, &x);
	for (a = 0; a <= in.n; a++) {
		for (b = a; b <= in.n; b += 3) {
			struct rec r;
			struct deformatter *d;

			rec_init(&r, 256);
			d = mk(deformat_tpiu, &r, true);
			feed3(d, &in, a, b);
			tpiu_stream_check(&r, &x, deformat_get_stats(d), true);
			deformat_free(d);
			rec_fini(&r);
		}
	}
}

/* tpiu-hsync: FSYNC@0, F1 bytes 0..5 at 4..9, HSYNC@10, F1 bytes 6..15 at
 * 12..21, HSYNC@22 between frames, F2@24, FSYNC@40, HSYNC@44, F3@46. */
static void hsync_stream(struct ibuf *in, struct xlist *x)
{
	uint64_t map[16];
	unsigned int p;

	in->n = 0;
	x->n = 0;
	in_add(in, FSYNC, 4);
	in_add(in, F1, 6);
	assert_int_equal(in_add(in, HSYNC, 2), 10);
	in_add(in, F1 + 6, 10);
	assert_int_equal(in_add(in, HSYNC, 2), 22);
	assert_int_equal(in_add(in, F2, 16), 24);
	assert_int_equal(in_add(in, FSYNC, 4), 40);
	in_add(in, HSYNC, 2);
	assert_int_equal(in_add(in, F3, 16), 46);
	for (p = 0; p < 16; p++)
		map[p] = p < 6 ? 4 + p : 6 + p;
	x_add_mapped(x, E1, 13, map);
	x_add_data15(x, 0x08, D2, 24);
	x_add(x, E3, 11, 46);
}

static void hsync_stream_check(const struct rec *r, const struct xlist *x,
			       const struct deformat_stats *st)
{
	expect_bytes(r, x);
	assert_int_equal(st->hsyncs, 3);
	assert_int_equal(st->fsyncs, 2);
	assert_int_equal(st->frames, 3);
	assert_int_equal(st->skipped, 0);
	assert_int_equal(st->errors, 0);
	/* FSYNC, HSYNC-in-frame, frame F1, HSYNC, F2, FSYNC, HSYNC, F3 */
	assert_int_equal(r->nev, 8);
	assert_int_equal(r->ev[0].kind, deformat_ev_fsync);
	assert_int_equal(r->ev[1].kind, deformat_ev_hsync);
	assert_int_equal(r->ev[1].offset, 10);
	assert_int_equal(r->ev[1].length, 2);
	assert_int_equal(r->ev[2].kind, deformat_ev_frame);
	assert_int_equal(r->ev[2].offset, 4);
	assert_int_equal(r->ev[2].length, 18);
	assert_memory_equal(r->ev[2].frame, F1, 16);
	assert_int_equal(r->ev[3].kind, deformat_ev_hsync);
	assert_int_equal(r->ev[3].offset, 22);
	assert_int_equal(r->ev[4].kind, deformat_ev_frame);
	assert_int_equal(r->ev[4].offset, 24);
	assert_int_equal(r->ev[5].kind, deformat_ev_fsync);
	assert_int_equal(r->ev[5].offset, 40);
	assert_int_equal(r->ev[6].kind, deformat_ev_hsync);
	assert_int_equal(r->ev[6].offset, 44);
	assert_int_equal(r->ev[7].kind, deformat_ev_frame);
	assert_int_equal(r->ev[7].offset, 46);
}

static void test_tpiu_hsync(void **state)
{
	struct ibuf in;
	struct xlist x;
	size_t a, b;

	(void)state;
	hsync_stream(&in, &x);
	for (a = 0; a <= in.n; a++) {
		for (b = a; b <= in.n; b += 7) {
			struct rec r;
			struct deformatter *d;

			rec_init(&r, 256);
			d = mk(deformat_tpiu_hsync, &r, true);
			feed3(d, &in, a, b);
			hsync_stream_check(&r, &x, deformat_get_stats(d));
			deformat_free(d);
			rec_fini(&r);
		}
	}
}

/* In plain tpiu mode FF 7F is not removed: inside a frame it is the ID
 * byte 0xFF, so the frame is bad. */
static void test_tpiu_no_hsync_removal(void **state)
{
	struct ibuf in = {.n = 0};
	struct rec r;
	struct deformatter *d;
	const struct deformat_stats *st;

	(void)state;
	in_add(&in, FSYNC, 4);
	in_add(&in, F1, 6);
	in_add(&in, HSYNC, 2);
	in_add(&in, F1 + 6, 10);
	rec_init(&r, 64);
	d = mk(deformat_tpiu, &r, true);
	assert_int_equal(deformat_feed(d, in.b, in.n), 0);
	assert_int_equal(deformat_finish(d), 0);
	st = deformat_get_stats(d);
	assert_int_equal(st->hsyncs, 0);
	assert_int_equal(st->frames, 0);
	assert_int_equal(st->errors, 2); /* bad frame at 4, 2 bytes left */
	assert_int_equal(st->skipped, 16 + 2);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.nev, 3);
	assert_int_equal(r.ev[1].kind, deformat_ev_error);
	assert_int_equal(r.ev[1].error, -etmkit_err_bad_frame);
	assert_int_equal(r.ev[1].offset, 4);
	assert_int_equal(r.ev[2].error, -etmkit_err_truncated);
	assert_int_equal(r.ev[2].offset, 20);
	assert_int_equal(r.ev[2].length, 2);
	deformat_free(d);
	rec_fini(&r);
}

/* An FSYNC half-word-aligned inside a frame cuts it short; the FSYNC
 * realigns, and with the cut frame's IDs lost the next frame is unowned. */
static void test_tpiu_fsync_inside_frame(void **state)
{
	struct ibuf in = {.n = 0};
	struct rec r;
	struct deformatter *d;
	const struct deformat_stats *st;

	(void)state;
	in_add(&in, FSYNC, 4);
	in_add(&in, F1, 6);
	in_add(&in, FSYNC, 4);
	in_add(&in, F2, 16);
	rec_init(&r, 64);
	d = mk(deformat_tpiu, &r, true);
	feed_all(d, in.b, in.n);
	st = deformat_get_stats(d);
	assert_int_equal(st->fsyncs, 2);
	assert_int_equal(st->frames, 1);
	assert_int_equal(st->errors, 1);
	assert_int_equal(st->skipped, 6);
	assert_int_equal(st->unowned_bytes, 15);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.nev, 4);
	assert_int_equal(r.ev[1].kind, deformat_ev_error);
	assert_int_equal(r.ev[1].error, -etmkit_err_bad_frame);
	assert_int_equal(r.ev[1].offset, 4);
	assert_int_equal(r.ev[1].length, 6);
	assert_memory_equal(r.ev[1].frame, F1, 6);
	assert_int_equal(r.ev[2].kind, deformat_ev_fsync);
	assert_int_equal(r.ev[2].offset, 10);
	assert_int_equal(r.ev[3].kind, deformat_ev_frame);
	assert_int_equal(r.ev[3].offset, 14);
	deformat_free(d);
	rec_fini(&r);
}

/* FF FF inside a frame not followed by FF 7F: a bad frame (ID 0x7F). */
static void test_tpiu_ffff_in_frame(void **state)
{
	struct ibuf in = {.n = 0};
	static const uint8_t ffff[2] = {0xFF, 0xFF};
	struct rec r;
	struct deformatter *d;
	const struct deformat_stats *st;

	(void)state;
	in_add(&in, FSYNC, 4);
	in_add(&in, F1, 4);
	in_add(&in, ffff, 2);
	in_add(&in, F1 + 6, 10);
	in_add(&in, F2, 16); /* unowned: the bad frame's IDs are lost */
	rec_init(&r, 64);
	d = mk(deformat_tpiu, &r, true);
	feed_all(d, in.b, in.n);
	st = deformat_get_stats(d);
	assert_int_equal(st->frames, 1);
	assert_int_equal(st->errors, 1);
	assert_int_equal(st->skipped, 16);
	assert_int_equal(st->unowned_bytes, 15);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.ev[1].kind, deformat_ev_error);
	assert_int_equal(r.ev[1].error, -etmkit_err_bad_frame);
	assert_int_equal(r.ev[1].offset, 4);
	assert_int_equal(r.ev[1].length, 16);
	assert_int_equal(r.ev[1].frame[4], 0xFF);
	assert_int_equal(r.ev[1].frame[5], 0xFF);
	deformat_free(d);
	rec_fini(&r);
}

/* A stray FF FF half-word, then FF FF FF 7F: the FF FF pair is frame
 * content (a bad one), the FSYNC after it cuts that frame. */
static void test_tpiu_ffff_before_fsync(void **state)
{
	static const uint8_t ffff[2] = {0xFF, 0xFF};
	struct ibuf in = {.n = 0};
	struct rec r;
	struct deformatter *d;
	const struct deformat_stats *st;

	(void)state;
	in_add(&in, FSYNC, 4);
	in_add(&in, F1, 16);
	assert_int_equal(in_add(&in, ffff, 2), 20);
	assert_int_equal(in_add(&in, FSYNC, 4), 22);
	assert_int_equal(in_add(&in, F2, 16), 26);
	rec_init(&r, 64);
	d = mk(deformat_tpiu_hsync, &r, true);
	feed_all(d, in.b, in.n);
	st = deformat_get_stats(d);
	assert_int_equal(st->fsyncs, 2);
	assert_int_equal(st->hsyncs, 0);
	assert_int_equal(st->frames, 2);
	assert_int_equal(st->errors, 1);
	assert_int_equal(st->skipped, 2);
	assert_int_equal(st->unowned_bytes, 15);
	assert_int_equal(r.n, 13);
	assert_int_equal(r.nev, 5);
	assert_int_equal(r.ev[2].kind, deformat_ev_error);
	assert_int_equal(r.ev[2].error, -etmkit_err_bad_frame);
	assert_int_equal(r.ev[2].offset, 20);
	assert_int_equal(r.ev[2].length, 2);
	assert_int_equal(r.ev[3].kind, deformat_ev_fsync);
	assert_int_equal(r.ev[3].offset, 22);
	assert_int_equal(r.ev[4].kind, deformat_ev_frame);
	assert_int_equal(r.ev[4].offset, 26);
	deformat_free(d);
	rec_fini(&r);
}

static void test_tpiu_never_aligned(void **state)
{
	static const uint8_t in[10] = {1, 2, 3, 0xFF, 0xFF, 0xFF, 0x7E,
				       0xFF, 0xFF, 0xFF};
	struct rec r;
	struct deformatter *d;
	const struct deformat_stats *st;

	(void)state;
	rec_init(&r, 64);
	d = mk(deformat_tpiu_hsync, &r, true);
	feed_all(d, in, sizeof(in));
	st = deformat_get_stats(d);
	assert_int_equal(st->skipped, 10);
	assert_int_equal(st->errors, 0);
	assert_int_equal(st->fsyncs, 0);
	assert_int_equal(r.nev, 1);
	assert_int_equal(r.ev[0].kind, deformat_ev_skipped);
	assert_int_equal(r.ev[0].offset, 0);
	assert_int_equal(r.ev[0].length, 10);
	deformat_free(d);
	rec_fini(&r);
}

static void test_truncated_coresight(void **state)
{
	struct rec r;
	struct deformatter *d;
	struct xlist x = {.n = 0};
	uint8_t in[21];
	const struct deformat_stats *st;

	(void)state;
	memcpy(in, F1, 16);
	memcpy(in + 16, F2, 5);
	rec_init(&r, 64);
	d = mk(deformat_coresight, &r, true);
	assert_int_equal(deformat_feed(d, in, sizeof(in)), 0);
	x_add(&x, E1, 13, 0);
	expect_bytes(&r, &x); /* delivered by the end of the feed */
	assert_int_equal(deformat_finish(d), 0);
	st = deformat_get_stats(d);
	assert_int_equal(st->frames, 1);
	assert_int_equal(st->skipped, 5);
	assert_int_equal(st->errors, 1);
	assert_int_equal(r.nev, 2);
	assert_int_equal(r.ev[1].kind, deformat_ev_error);
	assert_int_equal(r.ev[1].error, -etmkit_err_truncated);
	assert_int_equal(r.ev[1].offset, 16);
	assert_int_equal(r.ev[1].length, 5);
	assert_memory_equal(r.ev[1].frame, F2, 5);
	assert_non_null(r.ev[1].message);
	/* A second finish has nothing left to report. */
	assert_int_equal(deformat_finish(d), 0);
	assert_int_equal(st->errors, 1);
	deformat_free(d);
	rec_fini(&r);
}

static void test_truncated_tpiu(void **state)
{
	static const uint8_t tails[2][3] = {{0x21, 0x00, 0x04},
					    {0xFF, 0xFF, 0}};
	static const size_t ntail[2] = {3, 2};
	unsigned int t;

	(void)state;
	for (t = 0; t < 2; t++) {
		struct ibuf in = {.n = 0};
		struct rec r;
		struct deformatter *d;
		const struct deformat_stats *st;

		in_add(&in, FSYNC, 4);
		in_add(&in, F1, 16);
		in_add(&in, tails[t], ntail[t]);
		rec_init(&r, 64);
		d = mk(deformat_tpiu, &r, true);
		feed_all(d, in.b, in.n);
		st = deformat_get_stats(d);
		assert_int_equal(st->frames, 1);
		assert_int_equal(st->skipped, ntail[t]);
		assert_int_equal(st->errors, 1);
		assert_int_equal(r.n, 13);
		assert_int_equal(r.nev, 3);
		assert_int_equal(r.ev[2].kind, deformat_ev_error);
		assert_int_equal(r.ev[2].error, -etmkit_err_truncated);
		assert_int_equal(r.ev[2].offset, 20);
		assert_int_equal(r.ev[2].length, ntail[t]);
		deformat_free(d);
		rec_fini(&r);
	}
}

/* An ID byte 0xFF (ID 0x7F) in memory mode: the frame is dropped whole,
 * counted as skipped, and data stays unowned until the next ID. */
static void test_invalid_id_7f(void **state)
{
	static const uint8_t bad[16] = {0x00, 0x01, 0x02, 0x03, 0xFF, 0x05,
					0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B,
					0x0C, 0x0D, 0x0E, 0x00};
	struct rec r;
	struct deformatter *d;
	struct xlist x = {.n = 0};
	uint8_t in[64];
	const struct deformat_stats *st;

	(void)state;
	memcpy(in, F3, 16);
	memcpy(in + 16, bad, 16);
	memcpy(in + 32, F2, 16);
	memcpy(in + 48, F1, 16);
	rec_init(&r, 64);
	d = mk(deformat_coresight, &r, true);
	feed_all(d, in, sizeof(in));
	x_add(&x, E3, 11, 0);
	x_add(&x, E1, 13, 48);
	expect_bytes(&r, &x);
	st = deformat_get_stats(d);
	assert_int_equal(st->frames, 3);
	assert_int_equal(st->errors, 1);
	assert_int_equal(st->skipped, 16);
	assert_int_equal(st->unowned_bytes, 15);
	assert_int_equal(r.nev, 4);
	assert_int_equal(r.ev[1].kind, deformat_ev_error);
	assert_int_equal(r.ev[1].error, -etmkit_err_bad_frame);
	assert_int_equal(r.ev[1].offset, 16);
	assert_int_equal(r.ev[1].length, 16);
	assert_memory_equal(r.ev[1].frame, bad, 16);
	assert_int_equal(r.ev[2].kind, deformat_ev_frame);
	expect_run(&r.ev[2], 0, UNOWNED, 15);
	deformat_free(d);
	rec_fini(&r);
}

/* deformat_none: the caller's bytes, no copy, offsets as base. */
static void test_raw_zero_copy(void **state)
{
	uint8_t a[10], b[5];
	struct rec r;
	struct deformatter *d;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(a); i++)
		a[i] = (uint8_t)i;
	for (i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)(0xF0 + i);
	rec_init(&r, 64);
	d = mk(deformat_none, &r, true);
	assert_int_equal(deformat_feed(d, a, sizeof(a)), 0);
	assert_int_equal(deformat_feed(d, b, sizeof(b)), 0);
	assert_int_equal(deformat_finish(d), 0);
	assert_int_equal(r.ncalls, 2);
	assert_int_equal(r.calls[0].id, 0x42);
	assert_ptr_equal(r.calls[0].data, a);
	assert_true(r.calls[0].offsets_null);
	assert_int_equal(r.calls[0].base, 0);
	assert_int_equal(r.calls[0].n, 10);
	assert_ptr_equal(r.calls[1].data, b);
	assert_true(r.calls[1].offsets_null);
	assert_int_equal(r.calls[1].base, 10);
	assert_int_equal(r.calls[1].n, 5);
	assert_int_equal(r.nev, 0);
	assert_int_equal(deformat_get_stats(d)->id_bytes[0x42], 15);
	assert_int_equal(deformat_get_stats(d)->bytes_in, 15);
	deformat_free(d);
	rec_fini(&r);
}

static void test_callback_abort(void **state)
{
	struct ibuf in;
	struct xlist x;
	struct rec r;
	struct deformatter *d;

	(void)state;
	cs_stream(&in, &x);
	/* on_data: the first call (ID 0x11's run) stops the feed. */
	rec_init(&r, 256);
	r.data_fail = 1;
	r.data_ret = -42;
	d = mk(deformat_coresight, &r, false);
	assert_int_equal(deformat_feed(d, in.b, in.n), -42);
	assert_int_equal(r.ncalls, 1);
	/* Stopped for good: no more callbacks. */
	assert_int_equal(deformat_feed(d, in.b, in.n), -42);
	assert_int_equal(deformat_finish(d), -42);
	assert_int_equal(r.ncalls, 1);
	deformat_free(d);
	rec_fini(&r);

	/* on_event: the second frame event stops it before its data. */
	rec_init(&r, 256);
	r.ev_fail = 2;
	r.ev_ret = -7;
	d = mk(deformat_coresight, &r, true);
	assert_int_equal(deformat_feed(d, in.b, in.n), -7);
	assert_int_equal(r.nev, 2);
	assert_int_equal(r.n, 13); /* F1's data only */
	deformat_free(d);
	rec_fini(&r);

	/* raw mode */
	rec_init(&r, 256);
	r.data_fail = 1;
	r.data_ret = -3;
	d = mk(deformat_none, &r, false);
	assert_int_equal(deformat_feed(d, in.b, 4), -3);
	assert_int_equal(deformat_feed(d, in.b, 4), -3);
	assert_int_equal(r.ncalls, 1);
	deformat_free(d);
	rec_fini(&r);
}

/* deformat_reset(): a new input at a new offset. Frame F1, then half of F1
 * again (a partial frame), a reset to offset 1000, then F2 and F1: the
 * partial frame is dropped unreported, no ID is current after the reset so
 * F2's data (15 bytes of the carried ID 0x08) is not delivered, and F1's
 * bytes come again at 1016 + their place in the frame. */
static void test_reset_new_input(void **state)
{
	struct rec r;
	struct deformatter *d;
	struct xlist x = {.n = 0};
	const struct deformat_stats *st;

	(void)state;
	rec_init(&r, 64);
	d = mk(deformat_coresight, &r, true);
	assert_int_equal(deformat_feed(d, F1, 16), 0);
	assert_int_equal(deformat_feed(d, F1, 8), 0);
	assert_int_equal(deformat_reset(d, 1000), 0);
	assert_int_equal(deformat_feed(d, F2, 16), 0);
	feed_all(d, F1, 16);
	x_add(&x, E1, 13, 0);
	x_add(&x, E1, 13, 1016);
	expect_bytes(&r, &x);
	for (size_t i = 0; i < r.nev; i++)
		assert_int_not_equal(r.ev[i].kind, deformat_ev_error);
	st = deformat_get_stats(d);
	assert_int_equal(st->bytes_in, 56);
	assert_int_equal(deformat_reset(NULL, 0), -etmkit_err_invalid);
	deformat_free(d);
	rec_fini(&r);
}

static void test_alloc_args(void **state)
{
	struct deformat_config cfg;
	struct deformatter *d = NULL;
	struct rec r;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.mode = deformat_coresight;
	cfg.on_data = on_data;
	cfg.ctx = &r;
	assert_int_equal(deformat_alloc(NULL, &cfg), -etmkit_err_invalid);
	assert_int_equal(deformat_alloc(&d, NULL), -etmkit_err_invalid);
	cfg.size = sizeof(cfg) - 1;
	assert_int_equal(deformat_alloc(&d, &cfg), -etmkit_err_invalid);
	cfg.size = sizeof(cfg);
	cfg.on_data = NULL;
	assert_int_equal(deformat_alloc(&d, &cfg), -etmkit_err_invalid);
	cfg.on_data = on_data;
	cfg.mode = (enum deformat_mode)17;
	assert_int_equal(deformat_alloc(&d, &cfg), -etmkit_err_invalid);
	cfg.mode = deformat_none;
	cfg.raw_id = 0x80;
	assert_int_equal(deformat_alloc(&d, &cfg), -etmkit_err_invalid);
	assert_null(d);
	cfg.raw_id = 0x10;
	assert_int_equal(deformat_alloc(&d, &cfg), 0);
	assert_int_equal(deformat_feed(d, NULL, 3), -etmkit_err_invalid);
	assert_int_equal(deformat_feed(NULL, NULL, 0), -etmkit_err_invalid);
	assert_int_equal(deformat_finish(NULL), -etmkit_err_invalid);
	assert_null(deformat_get_stats(NULL));
	deformat_free(d);
	deformat_free(NULL);
}

static void test_mode_names(void **state)
{
	(void)state;
	assert_string_equal(deformat_mode_name(deformat_none), "none");
	assert_string_equal(deformat_mode_name(deformat_coresight),
			    "coresight");
	assert_string_equal(deformat_mode_name(deformat_tpiu), "tpiu");
	assert_string_equal(deformat_mode_name(deformat_tpiu_hsync),
			    "tpiu-hsync");
	assert_int_equal(deformat_mode_parse("none"), deformat_none);
	assert_int_equal(deformat_mode_parse("coresight"), deformat_coresight);
	assert_int_equal(deformat_mode_parse("tpiu"), deformat_tpiu);
	assert_int_equal(deformat_mode_parse("tpiu-hsync"),
			 deformat_tpiu_hsync);
	assert_int_equal(deformat_mode_parse("TPIU"), -1);
	assert_int_equal(deformat_mode_parse(""), -1);
	assert_int_equal(deformat_mode_parse(NULL), -1);
}

/* ---- Real capture: TC2 ETB, 2048 frames, ETMv3 0x10-0x12, PTM 0x13-0x14,
 * ITM 0x20 configured. */

#define TC2_DIR ETMKIT_SHARED_DIR "/testdata/etmv3/TC2"
#define TC2_PPL TC2_DIR "/ocsd-1.8.0-decode.ppl"

/* Read @path whole; NULL if it cannot be read. */
static uint8_t *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return NULL;
	}
	buf = malloc(len ? (size_t)len : 1);
	if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*n = (size_t)len;
	return buf;
}

static uint8_t *need_file(const char *path, size_t *n)
{
	uint8_t *buf = read_file(path, n);

	if (buf)
		return buf;
	if (test_in_ci())
		fail_msg("%s is missing (required when CI=true)", path);
	print_message("skipping: %s not found\n", path);
	skip();
	return NULL;
}

static void tc2_decode(const uint8_t *file, size_t n, size_t chunk,
		       struct rec *r, struct deformat_stats *st)
{
	struct deformatter *d = mk(deformat_coresight, r, false);
	size_t i;

	for (i = 0; i < n; i += chunk)
		assert_int_equal(deformat_feed(d, file + i,
					       n - i < chunk ? n - i : chunk),
				 0);
	assert_int_equal(deformat_finish(d), 0);
	*st = *deformat_get_stats(d);
	deformat_free(d);
}

static void test_tc2_capture(void **state)
{
	static const size_t chunks[] = {32768, 1000, 16, 7, 1};
	struct deformat_stats st, st0;
	struct rec r, r0;
	uint8_t *file;
	size_t n, i, c, flags_id = 0, sum;
	unsigned int id;

	(void)state;
	file = need_file(TC2_DIR "/cstrace.bin", &n);
	assert_int_equal(n, 2048 * 16);
	/* Data bytes of the file: 15 per frame less one per ID byte. */
	for (i = 0; i < n; i += 2)
		if (file[i] & 1) /* bytes 0, 2, .., 14: flag bytes */
			flags_id++;
	rec_init(&r0, n);
	tc2_decode(file, n, chunks[0], &r0, &st0);
	assert_int_equal(st0.frames, 2048);
	assert_int_equal(st0.errors, 0);
	assert_int_equal(st0.skipped, 0);
	sum = st0.null_bytes + st0.unowned_bytes;
	for (id = 0; id < DEFORMAT_ID_COUNT; id++)
		sum += st0.id_bytes[id];
	assert_int_equal(sum, 2048 * 15 - flags_id);
	assert_int_equal(r0.n, sum - st0.null_bytes - st0.unowned_bytes);
	/* Sources that sent data: the four ETMv3/PTM cores 0x10-0x13. PTM
	 * 0x14 and ITM 0x20 are configured but silent (OpenCSD lists no
	 * packet for them either). One null ID byte and 22 bytes before the
	 * first ID; per-ID totals equal OpenCSD's listed packet bytes. */
	for (id = 0; id < DEFORMAT_ID_COUNT; id++) {
		bool want = id >= 0x10 && id <= 0x13;

		if (want != (st0.id_bytes[id] != 0))
			fail_msg("ID 0x%02x: %" PRIu64 " bytes", id,
				 st0.id_bytes[id]);
	}
	assert_int_equal(st0.id_bytes[0x10], 10873);
	assert_int_equal(st0.id_bytes[0x11], 10619);
	assert_int_equal(st0.id_bytes[0x12], 3153);
	assert_int_equal(st0.id_bytes[0x13], 4533);
	assert_int_equal(st0.null_bytes, 36);
	assert_int_equal(st0.unowned_bytes, 22);
	/* Every byte sits at its offset (bit 0 may come from the aux byte),
	 * offsets rise, and no byte comes from an aux byte. */
	for (i = 0; i < r0.n; i++) {
		uint64_t off = r0.b[i].off;

		assert_true(off < n);
		assert_true(off % 16 != 15);
		assert_int_equal(file[off] | 1, r0.b[i].byte | 1);
		if (off % 2)
			assert_int_equal(file[off], r0.b[i].byte);
		if (i)
			assert_true(off > r0.b[i - 1].off);
	}
	/* Any feed size gives the same result. */
	for (c = 1; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		rec_init(&r, n);
		tc2_decode(file, n, chunks[c], &r, &st);
		assert_int_equal(r.n, r0.n);
		for (i = 0; i < r0.n; i++) {
			assert_int_equal(r.b[i].id, r0.b[i].id);
			assert_int_equal(r.b[i].byte, r0.b[i].byte);
			assert_int_equal(r.b[i].off, r0.b[i].off);
		}
		assert_memory_equal(&st, &st0, sizeof(st));
		rec_fini(&r);
	}
	rec_fini(&r0);
	free(file);
}

/* Parse "Idx:N; ID:XX; [0x.. 0x.. ];" packet lines of a trc_pkt_lister
 * listing and append the bytes to the stream of their ID. Returns false
 * when the file cannot be read. */
static bool ppl_streams(const char *path, uint8_t **s, size_t *ns, size_t cap)
{
	FILE *f = fopen(path, "r");
	char line[4096];

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long idx;
		unsigned int id;
		int at = 0;
		char *p, *end;

		if (sscanf(line, "Idx:%llu; ID:%x; [%n", &idx, &id, &at) != 2 ||
		    !at || id >= DEFORMAT_ID_COUNT)
			continue;
		for (p = line + at;; p = end) {
			unsigned long v = strtoul(p, &end, 16);

			if (end == p)
				break;
			assert_true(ns[id] < cap);
			s[id][ns[id]++] = (uint8_t)v;
		}
	}
	fclose(f);
	return true;
}

/* The byte stream of each ID equals the bytes of OpenCSD 1.8.0's packet
 * listing of the same capture, packet after packet. */
static void test_tc2_vs_opencsd(void **state)
{
	uint8_t *s[DEFORMAT_ID_COUNT], *file;
	size_t ns[DEFORMAT_ID_COUNT], n, i, cap = 65536;
	struct deformat_stats st;
	struct rec r;
	unsigned int id;

	(void)state;
	file = need_file(TC2_DIR "/cstrace.bin", &n);
	for (id = 0; id < DEFORMAT_ID_COUNT; id++) {
		s[id] = malloc(cap);
		assert_non_null(s[id]);
		ns[id] = 0;
	}
	if (!ppl_streams(TC2_PPL, s, ns, cap)) {
		for (id = 0; id < DEFORMAT_ID_COUNT; id++)
			free(s[id]);
		free(file);
		if (test_in_ci())
			fail_msg("%s is missing (required when CI=true)",
				 TC2_PPL);
		print_message("skipping: %s not found\n", TC2_PPL);
		skip();
		return;
	}
	rec_init(&r, n);
	tc2_decode(file, n, 4093, &r, &st);
	for (id = 0; id < DEFORMAT_ID_COUNT; id++) {
		size_t k = 0;

		for (i = 0; i < r.n; i++) {
			if (r.b[i].id != id)
				continue;
			assert_true(k < ns[id]);
			if (s[id][k] != r.b[i].byte)
				fail_msg("ID 0x%02x byte %zu (offset %" PRIu64
					 "): 0x%02x, OpenCSD 0x%02x",
					 id, k, r.b[i].off, r.b[i].byte,
					 s[id][k]);
			k++;
		}
		assert_int_equal(k, ns[id]);
	}
	assert_true(ns[0x10] > 10000);
	rec_fini(&r);
	for (id = 0; id < DEFORMAT_ID_COUNT; id++)
		free(s[id]);
	free(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worked_example),
		cmocka_unit_test(test_frame_events),
		cmocka_unit_test(test_id_change_mid_frame),
		cmocka_unit_test(test_id_at_byte14),
		cmocka_unit_test(test_aux_restores_bit0),
		cmocka_unit_test(test_null_id_dropped),
		cmocka_unit_test(test_data_before_first_id),
		cmocka_unit_test(test_coresight_splits),
		cmocka_unit_test(test_coresight_bytewise),
		cmocka_unit_test(test_long_run),
		cmocka_unit_test(test_tpiu_fsync),
		cmocka_unit_test(test_tpiu_splits),
		cmocka_unit_test(test_tpiu_hsync),
		cmocka_unit_test(test_tpiu_no_hsync_removal),
		cmocka_unit_test(test_tpiu_fsync_inside_frame),
		cmocka_unit_test(test_tpiu_ffff_in_frame),
		cmocka_unit_test(test_tpiu_ffff_before_fsync),
		cmocka_unit_test(test_tpiu_never_aligned),
		cmocka_unit_test(test_truncated_coresight),
		cmocka_unit_test(test_truncated_tpiu),
		cmocka_unit_test(test_invalid_id_7f),
		cmocka_unit_test(test_raw_zero_copy),
		cmocka_unit_test(test_callback_abort),
		cmocka_unit_test(test_alloc_args),
		cmocka_unit_test(test_mode_names),
		cmocka_unit_test(test_reset_new_input),
		cmocka_unit_test(test_tc2_capture),
		cmocka_unit_test(test_tc2_vs_opencsd),
	};

	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	FILE *f;

	/* ctest's SKIP_RETURN_CODE: the capture tests were skipped. */
	if (rc == 0 && !test_in_ci()) {
		f = fopen(TC2_DIR "/cstrace.bin", "rb");
		if (!f)
			return 77;
		fclose(f);
	}
	return rc;
}
