/* Parallel decode of one source as its bytes come (src/parallel/
 * par_source.c, par_source_*; the session's one-source path rests on it,
 * session_one.c): fed in feeds of random sizes, with and without offsets
 * arrays (contiguous or not) and with bases that jump, with flushes and
 * commands (gap, reset, finish then reset as a session's break does) at
 * random points, it delivers the serial flow decoder's elements (every
 * field) and, after each flush and command, all of them so far and its
 * statistics, whatever the chunk size (1 byte to the 8 MiB default),
 * piece size and thread count (tests/parallel/par_source_check.c). On
 * encoder round trips of ETMv3, ETMv4 A64 and A32/T32, ETE and PTM, the
 * same with garbage inserted, random bytes, and the captures TC2 (ETMv3
 * source 0x10, PTM 0x13), juno_r1_1 (ETMv4) source 0x10, Snowball (PTM
 * 0x10) and tc2-ptm-rstk-t32 (PTM). A sink's error ends it; configs the
 * parallel decode does not cover are refused.
 *
 * Statistics: a serial decoder's start afresh at a reset (flow.h
 * etmX_flow_get_stats()); par_source_stats() sums them over resets (the
 * totals of a session), which is what is checked. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "unit/test_util.h"

#include "etmkit/parallel.h"
#include "etmkit/snapshot.h"
#include "par_gen.h"
#include "par_source_check.h"
#include "parallel/par_internal.h"
#include "ts_session.h"
#include "ts_snapshots.h"
#include "ts_stream.h"

static const size_t chunk_list[] = { 1, 97, 4096, 65536, 0 };
static const size_t piece_list[] = { 97, 700, 5000, 0 };
static const unsigned jobs_list[] = { 1, 2, 3, 8 };
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static struct par_script_counts all;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

/* A script for chunk size @chunk: feeds from a few bytes to a few
 * chunks; commands from none (the end's finish) to one every few feeds;
 * offsets of each kind. */
static struct par_script script(size_t chunk)
{
	static const size_t feed[] = { 7, 300, 5000 };
	struct par_script sc;

	memset(&sc, 0, sizeof(sc));
	sc.seed = rnd();
	sc.chunk_bytes = chunk;
	sc.max_feed = feed[rnd() % COUNT(feed)];
	sc.cmd_every = rnd() % 5 ? 2 + rnd() % 40 : 0;
	sc.offsets = (int)(rnd() % 3);
	return sc;
}

static struct etmkit_par_config cfg_of(const struct etmkit_par_config *c,
				       size_t piece, unsigned jobs)
{
	struct etmkit_par_config pc = *c;

	pc.piece_bytes = piece;
	pc.jobs = jobs;
	return pc;
}

/* Every chunk size, piece size and thread count on @buf: a script each.
 * Chunks of 1 byte on the first 3000 bytes only (a run of the runner a
 * byte). */
static void check_all(const struct etmkit_par_config *c, const uint8_t *buf,
		      size_t n, const char *what)
{
	char why[400];

	for (size_t ci = 0; ci < COUNT(chunk_list); ci++)
		for (size_t pi = 0; pi < COUNT(piece_list); pi++)
			for (size_t ji = 0; ji < COUNT(jobs_list); ji++) {
				struct etmkit_par_config pc =
					cfg_of(c, piece_list[pi], jobs_list[ji]);
				struct par_script sc = script(chunk_list[ci]);
				size_t m = chunk_list[ci] == 1 && n > 3000 ?
						   3000 : n;

				if (par_source_check(&pc, buf, m, &sc, &all,
						     why, sizeof(why)))
					fail_msg("%s: chunk %zu piece %zu jobs "
						 "%u seed %llu feed %zu cmd %u "
						 "offsets %d: %s",
						 what, sc.chunk_bytes,
						 pc.piece_bytes, pc.jobs,
						 (unsigned long long)sc.seed,
						 sc.max_feed, sc.cmd_every,
						 sc.offsets, why);
			}
}

static void par_cfg(struct etmkit_par_config *c, struct par_stream *s,
		    uint32_t flags)
{
	etmkit_par_config_init(c);
	c->proto = s->proto;
	s->c3.flags = flags;
	s->c4.flags = flags;
	s->cp.flags = flags;
	c->etm3 = &s->c3;
	c->etm4 = &s->c4;
	c->ptm = &s->cp;
}

/* Encoder round trips of each protocol and form: ETMv3, ETMv4 A64, ETE
 * and PTM per instruction and as ranges, ETMv4 A32/T32 as ranges
 * (par_gen.h protocols 0 to 4); two streams each, with sync points every
 * 64 and 160 bytes; PTM four more, its options drawn so that each of the
 * return stack, timestamps, VMID, context IDs and cycle accuracy is on in
 * some (flags 0 and ranges: ETM3_FLOW_RANGES, ETM4_FLOW_RANGES and
 * PTM_FLOW_RANGES are all 1). */
static void test_round_trips(void **state)
{
	static const uint32_t form[][2] = {
		{ 0, 0 }, { 0, ETM3_FLOW_RANGES }, { 1, 0 },
		{ 1, ETM4_FLOW_RANGES }, { 2, 0 }, { 2, ETM4_FLOW_RANGES },
		{ 3, ETM4_FLOW_RANGES }, { 4, 0 }, { 4, PTM_FLOW_RANGES },
	};
	uint8_t walk[4000];
	char what[64];

	(void)state;
	for (size_t f = 0; f < COUNT(form); f++)
		for (unsigned t = 0; t < (form[f][0] == 4 ? 6u : 2u); t++) {
			struct par_stream s;
			struct etmkit_par_config c;
			uint32_t opt = rnd();

			/* PTM: the options that survive an I-sync on in
			 * turn (par_state_ptm.c). */
			if (form[f][0] == 4)
				opt |= (uint32_t[]){ 0x8000, 0x2000, 0x4000,
						     0x300, 0x1, 0xf301 }[t];

			for (size_t i = 0; i < sizeof(walk); i++)
				walk[i] = (uint8_t)rnd();
			if (par_gen(&s, form[f][0], opt, 64 + 96 * t, walk,
				    sizeof(walk))) {
				par_gen_free(&s);
				fail_msg("proto %u opt 0x%x: no stream",
					 form[f][0], opt);
			}
			assert_true(s.n > 1500);
			par_cfg(&c, &s, form[f][1]);
			snprintf(what, sizeof(what), "proto %u flags %u opt 0x%x",
				 form[f][0], form[f][1], opt);
			check_all(&c, s.bytes, s.n, what);
			par_gen_free(&s);
		}
}

/* Garbage inserted in a stream (runs of zeros among it: A-sync starts),
 * the stream cut inside a packet; and random bytes only. */
static void test_garbage(void **state)
{
	uint8_t walk[3000];
	char what[64];

	(void)state;
	for (unsigned t = 0; t < 10; t++) {
		struct par_stream s;
		struct etmkit_par_config c;
		uint8_t *b;
		size_t n = 0;

		for (size_t i = 0; i < sizeof(walk); i++)
			walk[i] = (uint8_t)rnd();
		assert_int_equal(par_gen(&s, t % 5, rnd(), 96, walk,
					 sizeof(walk)), 0);
		b = malloc(s.n * 2 + 64);
		assert_non_null(b);
		if (t < 8) {
			for (size_t i = 0; i < s.n; i++) {
				b[n++] = s.bytes[i];
				if (rnd() % 97 == 0) {
					unsigned len = 1 + rnd() % 24,
						 zero = rnd() % 3 == 0;

					for (unsigned j = 0; j < len; j++)
						b[n++] = zero ? 0 :
								(uint8_t)rnd();
				}
			}
			n -= 1 + rnd() % 5;
		} else {
			for (n = 0; n < 6000; n++)
				b[n] = (uint8_t)rnd();
		}
		par_cfg(&c, &s, t & 1 ? ETM3_FLOW_RANGES : 0);
		snprintf(what, sizeof(what), "garbage %u", t);
		check_all(&c, b, n, what);
		free(b);
		par_gen_free(&s);
	}
}

/* Source 0x10 of the TC2 (ETMv3) and juno_r1_1 (ETMv4) captures, the
 * PTM sources TC2 0x13, Snowball 0x10 and tc2-ptm-rstk-t32 0x02, taken
 * out of their frames (the last has none). */
struct capture {
	const char *snap;
	uint8_t id;
	int done;
};

static void each_source(void *ctx, const char *name,
			const struct snapshot *ss,
			const struct snapshot_source *src)
{
	struct capture *cap = ctx;
	struct etm3_flow_config c3;
	struct etm4_flow_config c4;
	struct ptm_flow_config cp;
	struct etmkit_par_config pc;
	struct ts_source s;
	struct ts_stream st;
	uint8_t *file;
	size_t n = 0;
	char what[64];

	if (strcmp(name, cap->snap) || ts_source_open_ptm(ss, src, &s))
		return;
	if (s.id != cap->id) {
		ts_source_free(&s);
		return;
	}
	file = ts_read_file(s.buf->file, &n);
	assert_non_null(file);
	if (strcmp(s.buf->format, "coresight")) {
		memset(&st, 0, sizeof(st));
		st.b = file;
		st.n = n;
	} else {
		assert_int_equal(ts_stream_deformat(file, n, s.id, 0, &st), 0);
		free(file);
	}
	assert_true(st.n > 1000);
	etmkit_par_config_init(&pc);
	etm3_flow_config_init(&c3);
	etm4_flow_config_init(&c4);
	ptm_flow_config_init(&cp);
	c3.etm = s.etm3;
	c4.etm = s.etm4;
	cp.ptm.etmcr = s.etm3.etmcr;
	cp.ptm.etmidr = s.etm3.etmidr;
	cp.ptm.etmccer = s.etm3.etmccer;
	c3.image = s.img;
	c4.image = s.img;
	cp.image = s.img;
	pc.proto = s.proto == etmkit_proto_etmv3 ? etmkit_par_etm3 :
		   s.proto == etmkit_proto_ptm	 ? etmkit_par_ptm :
						   etmkit_par_etm4;
	pc.etm3 = &c3;
	pc.etm4 = &c4;
	pc.ptm = &cp;
	for (int form = 0; form < 2; form++) {
		c3.flags = form ? ETM3_FLOW_RANGES : 0;
		c4.flags = form ? ETM4_FLOW_RANGES : 0;
		cp.flags = form ? PTM_FLOW_RANGES : 0;
		snprintf(what, sizeof(what), "%s 0x%02x (%zu bytes)%s", name,
			 cap->id, st.n, form ? " ranges" : "");
		check_all(&pc, st.b, st.n, what);
	}
	cap->done++;
	ts_stream_free(&st);
	ts_source_free(&s);
}

static int shared_missing(void)
{
	struct stat st;

	return stat(ETMKIT_SHARED_DIR "/testdata/etmv4/juno_r1_1", &st) != 0;
}

static void test_captures(void **state)
{
	static const char *const k3[] = { "etmv3" }, *const k4[] = { "etmv4" },
			  *const kp[] = { "ptm" };
	struct capture tc2 = { "TC2", 0x10, 0 }, juno = { "juno_r1_1", 0x10, 0 };
	struct capture tc2p = { "TC2", 0x13, 0 }, snow = { "Snowball", 0x10, 0 };
	struct capture rstk = { "tc2-ptm-rstk-t32", 0x02, 0 };

	(void)state;
	test_need(shared_missing(), ETMKIT_SHARED_DIR);
	assert_true(ts_each_source(ETMKIT_SHARED_DIR "/testdata", k3, 1,
				   each_source, &tc2) > 0);
	assert_true(ts_each_source(ETMKIT_SHARED_DIR "/testdata", k4, 1,
				   each_source, &juno) > 0);
	assert_true(ts_each_source(ETMKIT_SHARED_DIR "/testdata", k3, 1,
				   each_source, &tc2p) > 0);
	assert_true(ts_each_source(ETMKIT_SHARED_DIR "/testdata", kp, 1,
				   each_source, &snow) > 0);
	assert_true(ts_each_source(ETMKIT_SHARED_DIR "/testdata", kp, 1,
				   each_source, &rstk) > 0);
	assert_int_equal(tc2.done, 1);
	assert_int_equal(juno.done, 1);
	assert_int_equal(tc2p.done, 1);
	assert_int_equal(snow.done, 1);
	assert_int_equal(rstk.done, 1);
}

/* The sink's error: returned by the call that met it and by every later
 * one, the sink not called again (par_source_check: fail_at). */
static void test_sink_error(void **state)
{
	uint8_t walk[3000];
	struct par_stream s;
	struct etmkit_par_config c;
	struct par_script_counts n = { 0 };
	char why[400];

	(void)state;
	for (size_t i = 0; i < sizeof(walk); i++)
		walk[i] = (uint8_t)rnd();
	assert_int_equal(par_gen(&s, 2, rnd(), 64, walk, sizeof(walk)), 0);
	par_cfg(&c, &s, ETM4_FLOW_RANGES);
	for (size_t ci = 0; ci < COUNT(chunk_list); ci++)
		for (size_t ji = 0; ji < COUNT(jobs_list); ji++)
			for (size_t at = 1; at < 60; at += 19) {
				struct etmkit_par_config pc =
					cfg_of(&c, 97, jobs_list[ji]);
				struct par_script sc = script(chunk_list[ci]);

				sc.fail_at = at;
				if (par_source_check(&pc, s.bytes, s.n, &sc, &n,
						     why, sizeof(why)))
					fail_msg("chunk %zu jobs %u fail at %zu: "
						 "%s", chunk_list[ci],
						 jobs_list[ji], at, why);
			}
	/* Most runs call the sink often enough to fail. */
	assert_true(n.sink_failures > COUNT(chunk_list) * COUNT(jobs_list) * 2);
	par_gen_free(&s);
}

static int sink_none(void *ctx, const struct etmkit_elem *e, size_t n)
{
	(void)ctx;
	(void)e;
	(void)n;
	return 0;
}

static const struct image *no_image(void *ctx, const struct etmkit_elem *e)
{
	(void)ctx;
	(void)e;
	return NULL;
}

/* What the parallel decode does not cover is refused, as by
 * etmkit_par_alloc() (parallel.h); bad arguments too. */
static void test_api(void **state)
{
	uint8_t walk[512];
	struct par_stream s;
	struct etmkit_par_config c;
	struct etm4_flow_config c4;
	struct etm3_flow_config c3;
	struct par_source *ps = (struct par_source *)walk;

	(void)state;
	for (size_t i = 0; i < sizeof(walk); i++)
		walk[i] = (uint8_t)rnd();
	assert_int_equal(par_gen(&s, 2, 0, 64, walk, sizeof(walk)), 0);
	par_cfg(&c, &s, ETM4_FLOW_RANGES);
	c4 = s.c4;
	c.etm4 = &c4;
	c4.flags |= ETM4_FLOW_TALLY;
	assert_int_equal(par_source_alloc(&ps, &c, 0, sink_none, NULL),
			 -etmkit_err_invalid);
	assert_null(ps);
	c4.flags = ETM4_FLOW_RANGES | ETM4_FLOW_TRACES;
	assert_int_equal(par_source_alloc(&ps, &c, 0, sink_none, NULL),
			 -etmkit_err_invalid);
	c4.flags = ETM4_FLOW_RANGES;
	c4.image_for_context = no_image;
	assert_int_equal(par_source_alloc(&ps, &c, 0, sink_none, NULL),
			 -etmkit_err_invalid);
	c4.image_for_context = NULL;
	c4.etm.flags |= ETM4_CFG_STOP_ON_ERROR;
	assert_int_equal(par_source_alloc(&ps, &c, 0, sink_none, NULL),
			 -etmkit_err_invalid);
	par_gen_free(&s);

	assert_int_equal(par_gen(&s, 0, 0, 64, walk, sizeof(walk)), 0);
	par_cfg(&c, &s, 0);
	c3 = s.c3;
	c.etm3 = &c3;
	c3.image_for_context = no_image;
	assert_int_equal(par_source_alloc(&ps, &c, 0, sink_none, NULL),
			 -etmkit_err_invalid);
	c3.image_for_context = NULL;
	assert_int_equal(par_source_alloc(NULL, &c, 0, sink_none, NULL),
			 -etmkit_err_invalid);
	assert_int_equal(par_source_alloc(&ps, NULL, 0, sink_none, NULL),
			 -etmkit_err_invalid);
	/* The copy of the configs: the caller's may go. */
	assert_int_equal(par_source_alloc(&ps, &c, 0, sink_none, NULL), 0);
	memset(&c3, 0xff, sizeof(c3));
	assert_int_equal(par_source_feed(ps, s.bytes, s.n, NULL, 0), 0);
	assert_int_equal(par_source_feed(ps, NULL, 1, NULL, 0),
			 -etmkit_err_invalid);
	assert_int_equal(par_source_command(ps, par_cmd_finish), 0);
	assert_true(par_source_stats(ps)->packets > 0);
	par_source_free(ps);
	assert_int_equal(par_source_flush(NULL), -etmkit_err_invalid);
	assert_int_equal(par_source_command(NULL, par_cmd_gap),
			 -etmkit_err_invalid);
	assert_null(par_source_stats(NULL));
	par_source_free(NULL);
	par_gen_free(&s);
}

/* Run last: every kind of operation was exercised. */
static void test_counts(void **state)
{
	(void)state;
	print_message("%llu feeds (%llu with offsets, %llu bases jumped), "
		      "%llu flushes, %llu gaps, %llu resets, %llu finishes; "
		      "%llu elements, %llu pieces, %llu fell back\n",
		      (unsigned long long)all.feeds,
		      (unsigned long long)all.offset_feeds,
		      (unsigned long long)all.jumps,
		      (unsigned long long)all.flushes,
		      (unsigned long long)all.gaps,
		      (unsigned long long)all.resets,
		      (unsigned long long)all.finishes,
		      (unsigned long long)all.elems,
		      (unsigned long long)all.pieces,
		      (unsigned long long)all.fallbacks);
	assert_true(all.offset_feeds > 100);
	assert_true(all.jumps > 100);
	assert_true(all.flushes > 100 && all.gaps > 100 && all.resets > 100);
	assert_true(all.fallbacks > 0);
	assert_true(all.pieces > 10 * all.fallbacks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_api),
		cmocka_unit_test(test_round_trips),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_captures),
		cmocka_unit_test(test_sink_error),
		cmocka_unit_test(test_counts),
	};

	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	return test_exit(failed, shared_missing());
}
