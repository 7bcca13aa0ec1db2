/* Unit tests of etmkit_session_config.jobs (src/session/session_jobs.c):
 * the callback sequence of a session whose flow sources decode on worker
 * threads is the serial one, call by call: the elements, the IDs, the
 * on_elems batches, the frame events, the gaps of breaks and losses, and
 * what each call returns (with stop_on_error) or the first error (a
 * callback that stops). On the two multi-source snapshots (TC2: ETMv3
 * 0x10-0x12 in one formatted buffer; juno_r1_1: ETMv4 0x10-0x13), intact
 * and damaged, fed in pieces of several sizes, at 2, 3 and 8 threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "etmkit/etmkit.h"
#include "elem_same.h"
#include "ts_elems.h"
#include "ts_session.h"

#define TC2_DIR ETMKIT_SHARED_DIR "/testdata/etmv3/TC2"
#define JUNO_DIR ETMKIT_SHARED_DIR "/testdata/etmv4/juno_r1_1"

/* One callback: a batch (or one on_elem element) of source @id, @n
 * elements from @first of the element list; or a frame event. */
struct call {
	uint8_t what;  /* 1 elements, 2 frame event */
	uint8_t id;
	uint8_t ev_kind;
	int16_t ev_error;
	uint64_t ev_offset;
	size_t first, n;
};

struct log {
	struct ts_elems el;
	struct call *c;
	size_t nc, cap;
	size_t stop_after; /* 0, or stop once this many elements came */
	int stopped;       /* then later callbacks (serial decoding may make
			      some on later calls) are not logged */
	int rc[4096];      /* what each call returned */
	size_t ncalls;
};

static void put_call(struct log *l, const struct call *c)
{
	if (l->nc == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->c = realloc(l->c, l->cap * sizeof(*l->c));
		assert_non_null(l->c);
	}
	l->c[l->nc++] = *c;
}

static int on_elems(void *ctx, uint8_t id, const struct etmkit_elem *e,
		    size_t n)
{
	struct log *l = ctx;
	struct call c = { .what = 1, .id = id, .first = l->el.n, .n = n };

	assert_true(n >= 1);
	if (l->stopped)
		return -etmkit_err_internal;
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ts_elems_put(&l->el, &e[i]), 0);
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

	put_call(l, &c);
	return 0;
}

static void log_free(struct log *l)
{
	ts_elems_free(&l->el);
	free(l->c);
	memset(l, 0, sizeof(*l));
}

/* How a run feeds the buffer. */
struct plan {
	size_t chunk;       /* bytes per feed */
	int batches;        /* on_elems, else on_elem */
	int events;         /* on_frame_event */
	int stop_on_error;
	size_t break_every; /* 0, or a break after every so many bytes (a
			       loss every other one, a lost piece of the
			       first source every third) */
	size_t stop_after;
	int damage;         /* overwrite every 613th byte */
	uint32_t flags;     /* ETM3_FLOW_RANGES / ETM4_FLOW_RANGES */
};

struct setup {
	struct snapshot *ss;
	const struct snapshot_buffer *buf;
	uint8_t *bytes;
	size_t n;
	struct image *img[8];
	size_t nimg;
};

static void setup_open(struct setup *st, const char *dir)
{
	struct snapshot_diag d;
	struct stat sb;

	memset(st, 0, sizeof(*st));
	if (stat(dir, &sb) != 0)
		skip();
	assert_int_equal(snapshot_open(&st->ss, dir, &d), 0);
	st->buf = snapshot_buffer_at(st->ss, 0);
	st->bytes = ts_read_file(st->buf->file, &st->n);
	assert_non_null(st->bytes);
}

static void setup_free(struct setup *st)
{
	for (size_t i = 0; i < st->nimg; i++)
		image_free(st->img[i]);
	free(st->bytes);
	snapshot_free(st->ss);
}

/* Every ETMv3/ETMv4 source of the snapshot's first buffer as a flow
 * decoder with its core's dumps; returns the first source's ID. */
static uint8_t add_sources(struct setup *st, struct etmkit_session *s,
			   uint32_t flags)
{
	uint8_t first = 0;

	for (size_t i = 0; i < snapshot_source_count(st->ss); i++) {
		const struct snapshot_source *src =
			snapshot_source_at(st->ss, i);
		const struct snapshot_device *dev =
			snapshot_find_device(st->ss, src->name);
		const struct snapshot_device *core =
			src->core ? snapshot_find_device(st->ss, src->core) :
				    NULL;
		enum etmkit_protocol p = snapshot_device_protocol(dev);
		struct image *img = NULL;
		struct image_diag id;
		uint8_t tid;

		if (strcmp(src->buffer, st->buf->name) ||
		    (p != etmkit_proto_etmv3 && p != etmkit_proto_etmv4))
			continue;
		assert_true(st->nimg < 8);
		assert_int_equal(image_alloc(&img), 0);
		st->img[st->nimg++] = img;
		if (core)
			assert_int_equal(image_add_snapshot_device(img, core,
								   &id), 0);
		if (p == etmkit_proto_etmv3) {
			struct etm3_flow_config fc;

			etm3_flow_config_init(&fc);
			assert_int_equal(snapshot_etm3_config(dev, &fc.etm,
							      &tid, NULL), 0);
			fc.image = img;
			fc.flags = flags ? ETM3_FLOW_RANGES : 0;
			assert_int_equal(etmkit_session_add_etm3_flow(s, tid,
								      &fc), 0);
		} else {
			struct etm4_flow_config fc;

			etm4_flow_config_init(&fc);
			assert_int_equal(snapshot_etm4_config(dev, &fc.etm,
							      &tid, NULL), 0);
			fc.image = img;
			fc.flags = flags ? ETM4_FLOW_RANGES : 0;
			assert_int_equal(etmkit_session_add_etm4_flow(s, tid,
								      &fc), 0);
		}
		if (!first)
			first = tid;
	}
	return first;
}

static void note_rc(struct log *l, int rc)
{
	assert_true(l->ncalls < 4096);
	l->rc[l->ncalls++] = rc;
}

/* Decode the snapshot at @dir with @p and @jobs into @l. */
static void run(const char *dir, const struct plan *p, unsigned jobs,
		struct log *l)
{
	struct setup st;
	struct etmkit_session_config sc;
	struct etmkit_session *s;
	uint8_t first;
	size_t since = 0, breaks = 0;

	setup_open(&st, dir);
	if (p->damage)
		for (size_t i = 300; i < st.n; i += 613)
			st.bytes[i] ^= 0xA5;
	memset(l, 0, sizeof(*l));
	l->stop_after = p->stop_after;
	etmkit_session_config_init(&sc);
	sc.frames = deformat_coresight;
	sc.ctx = l;
	if (p->batches)
		sc.on_elems = on_elems;
	else
		sc.on_elem = on_elem;
	if (p->events)
		sc.on_frame_event = on_event;
	sc.stop_on_error = (uint8_t)p->stop_on_error;
	sc.jobs = jobs;
	assert_int_equal(etmkit_session_alloc(&s, &sc), 0);
	first = add_sources(&st, s, p->flags);
	assert_true(first != 0);
	for (size_t o = 0; o < st.n; o += p->chunk) {
		size_t k = st.n - o < p->chunk ? st.n - o : p->chunk;

		note_rc(l, etmkit_session_feed(s, st.bytes + o, k));
		since += k;
		if (p->break_every && since >= p->break_every) {
			since = 0;
			breaks++;
			note_rc(l, etmkit_session_break(
				s, breaks % 2 ? etmkit_loss_aux_truncated :
						etmkit_loss_none));
			if (breaks % 3 == 0)
				note_rc(l, etmkit_session_lose(
					s, first, etmkit_loss_aux_missing));
			note_rc(l, etmkit_session_set_offset(
				s, (uint64_t)o + k + 1000 * breaks));
		}
	}
	note_rc(l, etmkit_session_finish(s));
	etmkit_session_free(s);
	setup_free(&st);
}

/* The serial run and the one with @jobs made the same calls. With
 * @same_rc each call returned the same; else the first error is the same
 * and, from the call that returned it on, every call returns it. */
static void same_logs(const struct log *a, const struct log *b, int same_rc)
{
	assert_int_equal(a->nc, b->nc);
	assert_int_equal(a->el.n, b->el.n);
	for (size_t i = 0; i < a->nc; i++) {
		const struct call *x = &a->c[i], *y = &b->c[i];

		assert_int_equal(x->what, y->what);
		assert_int_equal(x->id, y->id);
		assert_int_equal(x->first, y->first);
		assert_int_equal(x->n, y->n);
		assert_int_equal(x->ev_kind, y->ev_kind);
		assert_int_equal(x->ev_error, y->ev_error);
		assert_int_equal(x->ev_offset, y->ev_offset);
	}
	for (size_t i = 0; i < a->el.n; i++)
		assert_true(elem_same(&a->el.e[i], &b->el.e[i], 1));
	assert_int_equal(a->ncalls, b->ncalls);
	if (same_rc) {
		for (size_t i = 0; i < a->ncalls; i++)
			assert_int_equal(a->rc[i], b->rc[i]);
		return;
	}
	for (size_t i = 0, err = 0; i < a->ncalls; i++) {
		if (!err && a->rc[i] < 0)
			err = (size_t)-a->rc[i];
		if (err && b->rc[i] < 0)
			assert_int_equal(b->rc[i], -(int)err);
		if (b->rc[i] < 0 && i + 1 < b->ncalls)
			assert_int_equal(b->rc[i + 1], b->rc[i]);
	}
}

static void compare(const char *dir, const struct plan *p, int same_rc)
{
	static const unsigned jobs[] = { 2, 3, 8 };
	struct log ref, got;

	run(dir, p, 1, &ref);
	assert_true(ref.el.n > 100);
	for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		run(dir, p, jobs[j], &got);
		same_logs(&ref, &got, same_rc);
		log_free(&got);
	}
	log_free(&ref);
}

static void tc2_elem(void **state)
{
	struct plan p = { .chunk = 4096 };

	(void)state;
	compare(TC2_DIR, &p, 1);
}

static void tc2_batches_events(void **state)
{
	struct plan p = { .chunk = 1000, .batches = 1, .events = 1 };

	(void)state;
	compare(TC2_DIR, &p, 1);
	p.flags = 1;
	p.chunk = 37;
	compare(TC2_DIR, &p, 1);
}

static void tc2_breaks(void **state)
{
	struct plan p = { .chunk = 512, .batches = 1, .break_every = 2048 };

	(void)state;
	compare(TC2_DIR, &p, 1);
}

static void tc2_damaged(void **state)
{
	struct plan p = { .chunk = 4096, .batches = 1, .damage = 1,
			  .events = 1 };

	(void)state;
	compare(TC2_DIR, &p, 1);
	p.stop_on_error = 1;
	compare(TC2_DIR, &p, 1);
	p.events = 0;
	p.chunk = 333;
	compare(TC2_DIR, &p, 1);
}

/* A callback stops the decode: the same callbacks up to it, and the
 * same error from then on. */
static void tc2_callback_stops(void **state)
{
	struct plan p = { .chunk = 4096, .stop_after = 5000 };

	(void)state;
	compare(TC2_DIR, &p, 0);
	p.batches = 1;
	p.stop_after = 12345;
	compare(TC2_DIR, &p, 0);
}

static void juno(void **state)
{
	struct plan p = { .chunk = 4096, .batches = 1 };

	(void)state;
	compare(JUNO_DIR, &p, 1);
	p.flags = 1;
	p.break_every = 8192;
	compare(JUNO_DIR, &p, 1);
	p.break_every = 0;
	p.damage = 1;
	p.stop_on_error = 1;
	compare(JUNO_DIR, &p, 1);
}

/* jobs is ignored with a packet decoder, and no decoder is added once
 * the workers run. */
static void api(void **state)
{
	struct etmkit_session_config sc;
	struct etmkit_session *s;
	struct etm3_flow_config fc;
	struct log l;

	(void)state;
	memset(&l, 0, sizeof(l));
	etmkit_session_config_init(&sc);
	sc.frames = deformat_coresight;
	sc.on_elem = on_elem;
	sc.ctx = &l;
	sc.jobs = 4;
	assert_int_equal(etmkit_session_alloc(&s, &sc), 0);
	etm3_flow_config_init(&fc);
	fc.etm.etmidr = 0x410cf250;
	assert_int_equal(etmkit_session_add_etm3_flow(s, 0x10, &fc), 0);
	assert_int_equal(etmkit_session_feed(s, (const uint8_t *)"", 0), 0);
	assert_int_equal(etmkit_session_add_etm3_flow(s, 0x11, &fc),
			 -etmkit_err_invalid);
	assert_int_equal(etmkit_session_finish(s), 0);
	etmkit_session_free(s);
	log_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tc2_elem),
		cmocka_unit_test(tc2_batches_events),
		cmocka_unit_test(tc2_breaks),
		cmocka_unit_test(tc2_damaged),
		cmocka_unit_test(tc2_callback_stops),
		cmocka_unit_test(juno),
		cmocka_unit_test(api),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
