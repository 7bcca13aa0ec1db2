/* Unit tests of etmkit_session_config.jobs (src/session/session_jobs.c):
 * the callback sequence of a session whose flow sources decode on worker
 * threads is the serial one, call by call: the elements, the IDs, the
 * on_elems batches, the frame events, the gaps of breaks and losses, and
 * what each call returns (with stop_on_error) or the first error (a
 * callback that stops). On the multi-source snapshots (TC2: ETMv3
 * 0x10-0x12 and PTM 0x13 in one formatted buffer; juno_r1_1: ETMv4
 * 0x10-0x13; Snowball: PTM 0x10, 0x11), intact and damaged, fed in pieces
 * of several sizes, at 2, 3 and 8 threads; PTM unformatted
 * (tc2-ptm-rstk-t32);
 * and sessions of one source, which decode it on several threads in
 * chunks (session_one.c; one_source). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "etmkit/etmkit.h"
#include "session/session_internal.h"
#include "session_log.h"
#include "ts_session.h"

#define TC2_DIR ETMKIT_SHARED_DIR "/testdata/etmv3/TC2"
#define JUNO_DIR ETMKIT_SHARED_DIR "/testdata/etmv4/juno_r1_1"
#define VMID_DIR ETMKIT_SHARED_DIR "/testdata/ete/trace_file_vmid"
#define SNOWBALL_DIR ETMKIT_SHARED_DIR "/testdata/ptm/Snowball"
#define RSTK_DIR ETMKIT_SHARED_DIR "/testdata/ptm/tc2-ptm-rstk-t32"

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
	size_t lose_every;  /* 0, or a loss of the first source (no break)
			       after every so many feeds */
	int damage;         /* 1: overwrite every 613th byte; 2: the first
			       byte of every 37th frame made an ID 0x7F
			       (a transport gap: the frame dropped) */
	uint32_t flags;     /* ETM3_FLOW_RANGES / ETM4_FLOW_RANGES */
	int raw;            /* 1: unformatted (deformat_none, raw_id the
			       first source); 2: etmkit_session_feed_raw()
			       to the first source of a framed session */
	unsigned repeat;    /* 0, or the buffer fed as so many copies */
	int unfinished;     /* free the session without a finish */
	uint8_t only;       /* 0, or the one trace ID whose source is added */
	size_t so_chunk;    /* so_chunk_bytes (one source on several threads,
			       session_one.c): 0 the default */
	uint8_t split;      /* split_source */
};

struct setup {
	struct snapshot *ss;
	const struct snapshot_buffer *buf;
	uint8_t *bytes;
	size_t n;
	struct image *img[8];
	size_t nimg;
	size_t nsrc;        /* sources added */
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

/* Every ETMv3/PTM/ETMv4 source of the snapshot's first buffer (or only that
 * of trace ID @only, if not 0) as a flow decoder with its core's dumps;
 * returns the first source's ID. */
static uint8_t add_sources(struct setup *st, struct etmkit_session *s,
			   uint32_t flags, uint8_t only)
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
		    (p != etmkit_proto_etmv3 && p != etmkit_proto_etmv4 &&
		     p != etmkit_proto_ete && p != etmkit_proto_ptm))
			continue;
		assert_true(st->nimg < 8);
		assert_int_equal(image_alloc(&img), 0);
		st->img[st->nimg++] = img;
		if (core)
			assert_int_equal(image_add_snapshot_device(img, core,
								   &id), 0);
		if (p == etmkit_proto_ptm) {
			struct ptm_flow_config fc;

			ptm_flow_config_init(&fc);
			assert_int_equal(snapshot_ptm_config(dev, &fc.ptm,
							     &tid, NULL), 0);
			if (only && tid != only)
				continue;
			fc.image = img;
			fc.flags = flags ? PTM_FLOW_RANGES : 0;
			assert_int_equal(etmkit_session_add_ptm_flow(s, tid,
								     &fc), 0);
		} else if (p == etmkit_proto_etmv3) {
			struct etm3_flow_config fc;

			etm3_flow_config_init(&fc);
			assert_int_equal(snapshot_etm3_config(dev, &fc.etm,
							      &tid, NULL), 0);
			if (only && tid != only)
				continue;
			fc.image = img;
			fc.flags = flags ? ETM3_FLOW_RANGES : 0;
			assert_int_equal(etmkit_session_add_etm3_flow(s, tid,
								      &fc), 0);
		} else {
			struct etm4_flow_config fc;

			etm4_flow_config_init(&fc);
			assert_int_equal(snapshot_etm4_config(dev, &fc.etm,
							      &tid, NULL), 0);
			if (only && tid != only)
				continue;
			fc.image = img;
			fc.flags = flags ? ETM4_FLOW_RANGES : 0;
			assert_int_equal(etmkit_session_add_etm4_flow(s, tid,
								      &fc), 0);
		}
		if (!first)
			first = tid;
		st->nsrc++;
	}
	return first;
}

/* The trace ID of the first ETMv4/ETE or PTM source of the first buffer
 * (the unformatted captures'). */
static uint8_t first_raw_id(const struct setup *st)
{
	for (size_t i = 0; i < snapshot_source_count(st->ss); i++) {
		const struct snapshot_source *src =
			snapshot_source_at(st->ss, i);
		const struct snapshot_device *dev =
			snapshot_find_device(st->ss, src->name);
		struct etm4_config c;
		struct ptm_config cp;
		uint8_t tid;

		if (strcmp(src->buffer, st->buf->name))
			continue;
		etm4_config_init(&c);
		if (snapshot_device_protocol(dev) == etmkit_proto_ptm &&
		    snapshot_ptm_config(dev, &cp, &tid, NULL) == 0)
			return tid;
		if (snapshot_etm4_config(dev, &c, &tid, NULL) == 0)
			return tid;
	}
	fail_msg("no ETMv4/ETE or PTM source");
	return 0;
}

/* Decode the snapshot at @dir with @p and @jobs into @l. Returns 1 when
 * the session decoded its one source on several threads (session_one.c),
 * which it must exactly when it has one source, jobs, and neither frame
 * events nor stop_on_error. */
static int run(const char *dir, const struct plan *p, unsigned jobs,
	       struct slog *l)
{
	struct setup st;
	struct etmkit_session_config sc;
	struct etmkit_session *s;
	uint8_t first;
	size_t since = 0, breaks = 0;
	int one = -1;

	setup_open(&st, dir);
	if (p->repeat > 1) {
		uint8_t *r = malloc(st.n * p->repeat);

		assert_non_null(r);
		for (unsigned i = 0; i < p->repeat; i++)
			memcpy(r + i * st.n, st.bytes, st.n);
		free(st.bytes);
		st.bytes = r;
		st.n *= p->repeat;
	}
	if (p->damage == 1)
		for (size_t i = 300; i < st.n; i += 613)
			st.bytes[i] ^= 0xA5;
	if (p->damage == 2)
		for (size_t i = 16 * 5; i < st.n; i += 16 * 37)
			st.bytes[i] = 0xff;
	memset(l, 0, sizeof(*l));
	l->stop_after = p->stop_after;
	etmkit_session_config_init(&sc);
	sc.frames = p->raw == 1 ? deformat_none : deformat_coresight;
	if (p->raw == 1)
		sc.raw_id = first_raw_id(&st);
	sc.ctx = l;
	if (p->batches)
		sc.on_elems = slog_on_elems;
	else
		sc.on_elem = slog_on_elem;
	if (p->events)
		sc.on_frame_event = slog_on_event;
	sc.stop_on_error = (uint8_t)p->stop_on_error;
	sc.jobs = jobs;
	sc.split_source = p->split;
	so_chunk_bytes = p->so_chunk;
	assert_int_equal(etmkit_session_alloc(&s, &sc), 0);
	first = add_sources(&st, s, p->flags, p->only);
	assert_true(first != 0);
	for (size_t o = 0; o < st.n; o += p->chunk) {
		size_t k = st.n - o < p->chunk ? st.n - o : p->chunk;

		if (p->raw == 2)
			slog_note(l, etmkit_session_feed_raw(s, first,
							     st.bytes + o, k));
		else
			slog_note(l, etmkit_session_feed(s, st.bytes + o, k));
		if (one < 0) { /* the workers start at the first call */
			one = sj_one_source(s);
			assert_int_equal(one, jobs > 1 && st.nsrc == 1 &&
						      p->split &&
						      !p->events &&
						      !p->stop_on_error);
		}
		since += k;
		if (p->lose_every && (o / p->chunk) % p->lose_every == 1)
			slog_note(l, etmkit_session_lose(
				s, first, etmkit_loss_aux_partial));
		if (p->break_every && since >= p->break_every) {
			since = 0;
			breaks++;
			slog_note(l, etmkit_session_break(
				s, breaks % 2 ? etmkit_loss_aux_truncated :
						etmkit_loss_none));
			if (breaks % 3 == 0)
				slog_note(l, etmkit_session_lose(
					s, first, etmkit_loss_aux_missing));
			slog_note(l, etmkit_session_set_offset(
				s, (uint64_t)o + k + 1000 * breaks));
		}
	}
	if (p->unfinished) {
		size_t nc = l->nc;

		etmkit_session_free(s); /* makes no callback (session.h) */
		assert_int_equal(l->nc, nc);
	} else {
		slog_note(l, etmkit_session_finish(s));
		etmkit_session_free(s);
	}
	so_chunk_bytes = 0;
	setup_free(&st);
	return one;
}

/* The serial run and those at 2, 3 and 8 threads logged the same
 * (session_log.h). */
static void compare(const char *dir, const struct plan *p)
{
	static const unsigned jobs[] = { 2, 3, 8 };
	static struct slog ref, got, flat_ref, flat_got;

	run(dir, p, 1, &ref);
	assert_true(ref.el.n > 100);
	for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		const char *d;

		if (run(dir, p, jobs[j], &got) && p->batches) {
			/* Other batches, the same elements (session.h
			 * jobs). */
			slog_flatten(&ref, &flat_ref);
			slog_flatten(&got, &flat_got);
			d = slog_diff(&flat_ref, &flat_got, p->stop_on_error);
			slog_free(&flat_ref);
			slog_free(&flat_got);
		} else {
			d = slog_diff(&ref, &got, p->stop_on_error);
		}
		if (d)
			fail_msg("jobs %u: %s differs", jobs[j], d);
		slog_free(&got);
	}
	slog_free(&ref);
}

static void tc2_elem(void **state)
{
	struct plan p = { .chunk = 4096 };

	(void)state;
	compare(TC2_DIR, &p);
}

static void tc2_batches_events(void **state)
{
	struct plan p = { .chunk = 1000, .batches = 1, .events = 1 };

	(void)state;
	compare(TC2_DIR, &p);
	p.flags = 1;
	p.chunk = 37;
	compare(TC2_DIR, &p);
}

static void tc2_breaks(void **state)
{
	struct plan p = { .chunk = 512, .batches = 1, .break_every = 2048 };

	(void)state;
	compare(TC2_DIR, &p);
}

static void tc2_damaged(void **state)
{
	struct plan p = { .chunk = 4096, .batches = 1, .damage = 1,
			  .events = 1 };

	(void)state;
	compare(TC2_DIR, &p);
	p.stop_on_error = 1;
	compare(TC2_DIR, &p);
	p.events = 0;
	p.chunk = 333;
	compare(TC2_DIR, &p);
}

/* A callback stops the decode: the same callbacks up to it, and the
 * same error from then on. */
static void tc2_callback_stops(void **state)
{
	struct plan p = { .chunk = 4096, .stop_after = 5000 };

	(void)state;
	compare(TC2_DIR, &p);
	p.batches = 1;
	p.stop_after = 12345;
	compare(TC2_DIR, &p);
}

static void juno(void **state)
{
	struct plan p = { .chunk = 4096, .batches = 1 };

	(void)state;
	compare(JUNO_DIR, &p);
	p.flags = 1;
	p.break_every = 8192;
	compare(JUNO_DIR, &p);
	p.break_every = 0;
	p.damage = 1;
	p.stop_on_error = 1;
	compare(JUNO_DIR, &p);
}

/* PTM flow sources (flow.h): Snowball's two (PFTv1.0, cycle-accurate,
 * formatted), intact, with breaks and losses, damaged, stopped on error,
 * in both forms; tc2-ptm-rstk-t32's one, unformatted, fed whole and as
 * etmkit_session_feed_raw() pieces; with split_source, alone, it is
 * decoded on several threads (run() checks; one_source has more). */
static void ptm_sources(void **state)
{
	struct plan p = { .chunk = 1000, .batches = 1, .events = 1 };
	struct plan r = { .chunk = 7000, .raw = 1, .repeat = 4, .split = 1 };

	(void)state;
	compare(SNOWBALL_DIR, &p);
	p.flags = 1;
	p.break_every = 2048;
	p.lose_every = 3;
	compare(SNOWBALL_DIR, &p);
	p.break_every = 0;
	p.lose_every = 0;
	p.damage = 1;
	p.stop_on_error = 1;
	compare(SNOWBALL_DIR, &p);
	compare(RSTK_DIR, &r);
	r.flags = 1;
	r.raw = 2;
	r.batches = 1;
	compare(RSTK_DIR, &r);
}

/* Unformatted trace longer than the 64 KiB pieces a worker takes it in
 * (session.h jobs): ETE of one source (4843 bytes, fed as 40 copies:
 * 194 KB), fed whole and in chunks that are not multiples of 64 KiB,
 * through deformat_none and through etmkit_session_feed_raw(). */
static void raw_pieces(void **state)
{
	/* on_elem: a batch may be cut at a piece's end (session.h jobs),
	 * so on_elems would see other batch sizes, the same elements. */
	struct plan p = { .chunk = 300000, .raw = 1, .repeat = 40 };

	(void)state;
	compare(VMID_DIR, &p);
	p.chunk = 70001;
	p.flags = 1;
	compare(VMID_DIR, &p);
	p.raw = 2;
	compare(VMID_DIR, &p);
	p.chunk = 150000;
	p.damage = 1;
	p.stop_on_error = 1;
	compare(VMID_DIR, &p);
}

/* One flow source, jobs and split_source: the session decodes it on
 * several threads (session_one.c, over parallel/par_source.c) in chunks
 * of 4096 and 777 bytes (so_chunk_bytes) and the default 8 MiB: each
 * chunk's first piece
 * decoded on from the chunk before, commands, losses and breaks after a
 * flush. TC2 (ETMv3) and juno_r1_1 (ETMv4) with only source 0x10 added,
 * unformatted ETE, and PTM (TC2 0x13, Snowball 0x10, tc2-ptm-rstk-t32): intact, damaged, with breaks and losses, bytes
 * given to the source with etmkit_session_feed_raw(), a callback that
 * stops; the callbacks are the serial session's (on_elems batches
 * compared as their elements). With frame events or stop_on_error, or
 * without split_source, the workers decode it (run() checks which). */
static void one_source(void **state)
{
	static const size_t so_chunk[] = { 4096, 777, 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(so_chunk) / sizeof(so_chunk[0]); i++) {
		struct plan p = { .chunk = 4096, .only = 0x10,
				  .so_chunk = so_chunk[i], .split = 1 };

		compare(TC2_DIR, &p);
		p.batches = 1;
		p.chunk = 512;
		p.break_every = 2048;
		compare(TC2_DIR, &p);
		p.break_every = 0;
		p.lose_every = 3;
		compare(TC2_DIR, &p);
		p.lose_every = 0;
		p.damage = 2;
		compare(TC2_DIR, &p);
		p.damage = 0;
		p.flags = 1;
		p.chunk = 1000;
		compare(TC2_DIR, &p);
		p.damage = 1;
		p.break_every = 0;
		compare(TC2_DIR, &p);
		p.stop_after = 3000;
		compare(TC2_DIR, &p);
		p.batches = 0;
		compare(TC2_DIR, &p);
		p.stop_after = 0;
		p.events = 1; /* the workers */
		compare(TC2_DIR, &p);
		p.events = 0;
		p.split = 0; /* not asked for: the workers */
		compare(TC2_DIR, &p);

		p = (struct plan){ .chunk = 4096, .batches = 1, .only = 0x10,
				   .so_chunk = so_chunk[i], .split = 1 };
		compare(JUNO_DIR, &p);
		p.flags = 1;
		p.break_every = 8192;
		compare(JUNO_DIR, &p);
		p.break_every = 0;
		p.lose_every = 2;
		p.damage = 2;
		compare(JUNO_DIR, &p);
		p.lose_every = 0;
		p.break_every = 0;
		p.damage = 1;
		p.chunk = 333;
		compare(JUNO_DIR, &p);
		p.stop_on_error = 1; /* the workers */
		compare(JUNO_DIR, &p);

		p = (struct plan){ .chunk = 70001, .raw = 1, .repeat = 8,
				   .batches = 1, .so_chunk = so_chunk[i],
				   .split = 1 };
		compare(VMID_DIR, &p);
		p.raw = 2;
		p.flags = 1;
		p.break_every = 50000;
		compare(VMID_DIR, &p);

		/* PTM: TC2's 0x13 (PFTv1.1, cycle-accurate) and Snowball's
		 * 0x10 (PFTv1.0) in their frames, tc2-ptm-rstk-t32 (return
		 * stack) unformatted. */
		p = (struct plan){ .chunk = 4096, .batches = 1, .only = 0x13,
				   .so_chunk = so_chunk[i], .split = 1 };
		compare(TC2_DIR, &p);
		p.flags = 1;
		p.break_every = 2048;
		p.lose_every = 3;
		compare(TC2_DIR, &p);
		p = (struct plan){ .chunk = 1000, .batches = 1, .only = 0x10,
				   .so_chunk = so_chunk[i], .split = 1 };
		compare(SNOWBALL_DIR, &p);
		p.flags = 1;
		p.damage = 1;
		compare(SNOWBALL_DIR, &p);
		p.damage = 2;
		p.stop_after = 2000;
		compare(SNOWBALL_DIR, &p);
		p = (struct plan){ .chunk = 7000, .raw = 1, .repeat = 4,
				   .so_chunk = so_chunk[i], .split = 1 };
		compare(RSTK_DIR, &p);
		p.flags = 1;
		p.raw = 2;
		p.batches = 1;
		p.break_every = 20000;
		compare(RSTK_DIR, &p);
	}
}

/* A session freed before its finish, with input queued to the workers:
 * no callback during the free and nothing leaked (ASan builds), as
 * session.h says. (That a worker then drops what is queued rather than
 * decoding it saves time only: no output shows it, so no test here.) */
static void free_unfinished(void **state)
{
	static const unsigned jobs[] = { 2, 8 };
	struct plan p = { .chunk = 65536, .raw = 2, .repeat = 40 };
	static struct slog l;

	(void)state;
	for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		run(VMID_DIR, &p, jobs[j], &l);
		slog_free(&l);
	}
}

/* jobs is ignored with a packet decoder, and no decoder is added once
 * the workers run. */
static void api(void **state)
{
	struct etmkit_session_config sc;
	struct etmkit_session *s;
	struct etm3_flow_config fc;
	static struct slog l;

	(void)state;
	memset(&l, 0, sizeof(l));
	etmkit_session_config_init(&sc);
	sc.frames = deformat_coresight;
	sc.on_elem = slog_on_elem;
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
	slog_free(&l);
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
		cmocka_unit_test(ptm_sources),
		cmocka_unit_test(raw_pieces),
		cmocka_unit_test(one_source),
		cmocka_unit_test(free_unfinished),
		cmocka_unit_test(api),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
