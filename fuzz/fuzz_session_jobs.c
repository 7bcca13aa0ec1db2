/* libFuzzer target: a session with flow sources decoded serially and on
 * three worker threads (etmkit_session_config.jobs = 3) must make the same
 * callbacks: the same elements of the same IDs in the same batches, the
 * same frame events, and the same return from every call (or, when a
 * callback stops the decode, the same first error, returned by every call
 * from then on). The first bytes choose the framing, the sources (ETMv3,
 * ETMv4, ETE on IDs 0x10-0x12), the feed size, breaks and losses between
 * feeds, stop_on_error, on_elems or on_elem, frame events and a callback
 * that stops; the rest is the buffer, whose first 4 KiB are also the
 * program image at 0 (so the decoders walk code). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/etmkit.h"
#include "../tests/elem_same.h"
#include "ts_elems.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct call {
	uint8_t what, id, ev_kind;
	int16_t ev_error;
	uint64_t ev_offset;
	size_t first, n;
};

struct log {
	struct ts_elems el;
	struct call *c;
	size_t nc, cap;
	size_t stop_after;
	int stopped;  /* a callback stopped: later ones (serial decoding
			 may make some) are not compared */
	int rc[1024];
	size_t ncalls;
};

static void put_call(struct log *l, const struct call *c)
{
	if (l->nc == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->c = realloc(l->c, l->cap * sizeof(*l->c));
		if (!l->c)
			abort();
	}
	l->c[l->nc++] = *c;
}

static int on_elems(void *ctx, uint8_t id, const struct etmkit_elem *e,
		    size_t n)
{
	struct log *l = ctx;
	struct call c = { .what = 1, .id = id, .first = l->el.n, .n = n };

	if (!n)
		abort();
	if (l->stopped)
		return -etmkit_err_internal;
	for (size_t i = 0; i < n; i++)
		if (ts_elems_put(&l->el, &e[i]) < 0)
			l->stopped = 1; /* full: stop */
	put_call(l, &c);
	if (l->stop_after && l->el.n >= l->stop_after)
		l->stopped = 1;
	return l->stopped ? -etmkit_err_internal : 0;
}

static int on_elem(void *ctx, uint8_t id, const struct etmkit_elem *e)
{
	return on_elems(ctx, id, e, 1);
}

static int on_event(void *ctx, const struct deformat_event *ev)
{
	struct log *l = ctx;
	struct call c = { .what = 2, .ev_kind = ev->kind,
			  .ev_error = ev->error, .ev_offset = ev->offset };

	if (!l->stopped)
		put_call(l, &c);
	return 0;
}

struct knobs {
	uint8_t b[12];
	const uint8_t *buf;
	size_t n;
	const struct image *img;
};

static void note(struct log *l, int rc)
{
	if (l->ncalls < 1024)
		l->rc[l->ncalls++] = rc;
}

static void add(struct etmkit_session *s, const struct knobs *k, unsigned i)
{
	uint8_t sel = k->b[2 + i];
	uint8_t id = (uint8_t)(0x10 + i);

	if (sel % 3 == 0) {
		struct etm3_flow_config fc;

		etm3_flow_config_init(&fc);
		fc.etm.etmcr = (uint32_t)k->b[6 + i] << 8 |
			       (uint32_t)(k->b[9] & 0x3c) << 18;
		fc.etm.etmidr = 0x410cf250u;
		fc.image = k->img;
		fc.cache_bytes = 64 << 10;
		fc.flags = (sel >> 2) & 1 ? ETM3_FLOW_RANGES : 0;
		etmkit_session_add_etm3_flow(s, id, &fc);
	} else {
		struct etm4_flow_config fc;

		etm4_flow_config_init(&fc);
		fc.etm.trcidr0 = 0x28000EA1;
		fc.etm.trcidr1 = 0x4100F403;
		fc.etm.trcidr2 = 0x00000488;
		fc.etm.trcconfigr = 0xC1 | (k->b[6 + i] & 0x1000u);
		if (sel % 3 == 2) {
			fc.etm.trcidr0 = 0x2801cea1;
			fc.etm.trcidr1 = 0x4100fff0;
			fc.etm.trcidr2 = 0xd0001088;
			fc.etm.trcidr8 = 0xff;
			fc.etm.trcdevarch = 0x47705a13;
			fc.etm.flags = ETM4_CFG_ETE;
		}
		fc.image = k->img;
		fc.cache_bytes = 64 << 10;
		fc.flags = (sel >> 2) & 1 ? ETM4_FLOW_RANGES : 0;
		etmkit_session_add_etm4_flow(s, id, &fc);
	}
}

static void run(const struct knobs *k, unsigned jobs, struct log *l)
{
	struct etmkit_session_config sc;
	struct etmkit_session *s;
	size_t chunk = 1 + (size_t)k->b[1] * 29u;
	unsigned brk = k->b[0] >> 4, nsrc = 1 + k->b[10] % 3;

	memset(l, 0, sizeof(*l));
	l->el.max = 200000;
	l->stop_after = k->b[11] & 0x80 ? (size_t)(k->b[11] & 0x7f) * 37u : 0;
	etmkit_session_config_init(&sc);
	sc.frames = (enum deformat_mode)(k->b[0] % 4);
	sc.raw_id = 0x10;
	sc.stop_on_error = (k->b[0] >> 2) & 1;
	sc.on_frame_event = (k->b[0] & 8) ? on_event : NULL;
	if (k->b[9] & 1)
		sc.on_elems = on_elems;
	else
		sc.on_elem = on_elem;
	sc.ctx = l;
	sc.jobs = jobs;
	if (etmkit_session_alloc(&s, &sc) < 0)
		abort();
	for (unsigned i = 0; i < (sc.frames == deformat_none ? 1 : nsrc); i++)
		add(s, k, i);
	for (size_t at = 0, piece = 0; at < k->n; at += chunk) {
		size_t n = k->n - at < chunk ? k->n - at : chunk;

		note(l, etmkit_session_feed(s, k->buf + at, n));
		if (brk && at + n < k->n && ++piece % brk == 0) {
			note(l, etmkit_session_break(
				s, (enum etmkit_loss)(piece % etmkit_loss_count)));
			if (k->b[9] & 2)
				note(l, etmkit_session_lose(
					s, (uint8_t)(0x10 + piece % 3),
					etmkit_loss_aux_missing));
			note(l, etmkit_session_set_offset(s, at + n + piece));
		}
		if (k->b[9] & 4 && at + n < k->n && piece % 5 == 1)
			note(l, etmkit_session_feed_raw(
				s, 0x11, k->buf + at, n < 300 ? n : 300));
	}
	note(l, etmkit_session_finish(s));
	etmkit_session_free(s);
}

static void same(const struct log *a, const struct log *b)
{
	int stopped = 0;

	if (a->nc != b->nc || a->el.n != b->el.n || a->ncalls != b->ncalls)
		abort();
	for (size_t i = 0; i < a->nc; i++) {
		const struct call *x = &a->c[i], *y = &b->c[i];

		if (x->what != y->what || x->id != y->id ||
		    x->first != y->first || x->n != y->n ||
		    x->ev_kind != y->ev_kind || x->ev_error != y->ev_error ||
		    x->ev_offset != y->ev_offset)
			abort();
	}
	for (size_t i = 0; i < a->el.n; i++)
		if (!elem_same(&a->el.e[i], &b->el.e[i], 1))
			abort();
	stopped = a->stopped;
	for (size_t i = 0, err = 0; i < a->ncalls; i++) {
		if (!stopped) {
			if (a->rc[i] != b->rc[i])
				abort();
			continue;
		}
		/* a callback stopped: the same error, from then on */
		if (!err && a->rc[i] < 0)
			err = (size_t)-a->rc[i];
		if (b->rc[i] < 0 && err && b->rc[i] != -(int)err)
			abort();
		if (b->rc[i] < 0 && i + 1 < b->ncalls &&
		    b->rc[i + 1] != b->rc[i])
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct knobs k;
	struct image *img = NULL;
	struct log a, b;

	if (size < sizeof(k.b) + 16)
		return 0;
	memcpy(k.b, data, sizeof(k.b));
	k.buf = data + sizeof(k.b);
	k.n = size - sizeof(k.b);
	if (image_alloc(&img) < 0)
		abort();
	image_add_buffer(img, k.buf, k.n < 4096 ? k.n : 4096, 0,
			 IMAGE_SPACE_ANY);
	k.img = img;
	run(&k, 1, &a);
	run(&k, 3, &b);
	same(&a, &b);
	ts_elems_free(&a.el);
	ts_elems_free(&b.el);
	free(a.c);
	free(b.c);
	image_free(img);
	return 0;
}
