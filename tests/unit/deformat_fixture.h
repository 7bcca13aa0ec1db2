/* Fixtures shared by the transport tests (test_deformat.c,
 * test_deformat_tpiu.c, test_deformat_tc2.c): a recorder of the bytes and
 * events a deformatter delivers, the hand-built frames F1-F5 with the
 * data they carry (worked out by hand from shared/spec/coresight-frames.md,
 * digest §1-3), lists of expected bytes and an input builder. Include
 * after <cmocka.h>; functions are static inline so that each test uses
 * what it needs. */
#ifndef ETMKIT_TESTS_DEFORMAT_FIXTURE_H
#define ETMKIT_TESTS_DEFORMAT_FIXTURE_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
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

static inline void rec_init(struct rec *r, size_t cap)
{
	memset(r, 0, sizeof(*r));
	r->cap = cap;
	r->b = calloc(cap, sizeof(*r->b));
	assert_non_null(r->b);
}

static inline void rec_fini(struct rec *r)
{
	free(r->b);
}

static inline void rec_log(struct rec *r, char c)
{
	if (r->nlog + 1 < sizeof(r->log))
		r->log[r->nlog++] = c;
}

static inline int on_data(void *ctx, uint8_t id, const uint8_t *data,
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

static inline int on_event(void *ctx, const struct deformat_event *ev)
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

static inline struct deformatter *mk(enum deformat_mode mode, struct rec *r,
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

static inline void x_add(struct xlist *x, const struct xbyte *e, size_t n,
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
static inline void x_add_mapped(struct xlist *x, const struct xbyte *e,
				size_t n, const uint64_t *offs)
{
	size_t i;

	for (i = 0; i < n; i++) {
		assert_true(x->n < sizeof(x->b) / sizeof(x->b[0]));
		x->b[x->n] = e[i];
		x->b[x->n].off = offs[e[i].off];
		x->n++;
	}
}

static inline void expect_bytes(const struct rec *r, const struct xlist *x)
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

static inline void expect_run(const struct deformat_event *ev, unsigned int i,
			      uint8_t id, uint8_t count)
{
	assert_true(i < ev->nruns);
	assert_int_equal(ev->runs[i].id, id);
	assert_int_equal(ev->runs[i].count, count);
}

/* Event @ev is an error @err (a negated etmkit_err_*) over @length input
 * bytes from @offset. */
static inline void expect_error(const struct deformat_event *ev, int err,
				uint64_t offset, uint64_t length)
{
	assert_int_equal(ev->kind, deformat_ev_error);
	assert_int_equal(ev->error, err);
	assert_int_equal(ev->offset, offset);
	assert_int_equal(ev->length, length);
}

static inline void feed_all(struct deformatter *d, const uint8_t *buf, size_t n)
{
	assert_int_equal(deformat_feed(d, buf, n), 0);
	assert_int_equal(deformat_finish(d), 0);
}

/* The usual set-up: @r initialised for 64 bytes, a deformatter in @mode
 * delivering to it (events recorded if @events), fed @n bytes of @buf at
 * once and finished. */
static inline struct deformatter *mk_fed(enum deformat_mode mode,
					 struct rec *r, bool events,
					 const uint8_t *buf, size_t n)
{
	struct deformatter *d;

	rec_init(r, 64);
	d = mk(mode, r, events);
	feed_all(d, buf, n);
	return d;
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

static inline void x_add_data15(struct xlist *x, uint8_t id,
				const uint8_t *data, uint64_t shift)
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

static inline uint64_t in_add(struct ibuf *in, const uint8_t *b, size_t n)
{
	uint64_t at = in->n;

	assert_true(in->n + n <= sizeof(in->b));
	memcpy(in->b + in->n, b, n);
	in->n += n;
	return at;
}

/* Feed @in in three pieces cut at @a and @b (a <= b). */
static inline void feed3(struct deformatter *d, const struct ibuf *in, size_t a,
			 size_t b)
{
	assert_int_equal(deformat_feed(d, in->b, a), 0);
	assert_int_equal(deformat_feed(d, in->b + a, b - a), 0);
	assert_int_equal(deformat_feed(d, in->b + b, in->n - b), 0);
	assert_int_equal(deformat_finish(d), 0);
}

#endif
