/* Parallel decode (include/etmkit/parallel.h): the joined output is the
 * serial decode's, element by element (every field, offsets included),
 * and the statistics sum to the serial ones, at 1, 2, 3 and 8 threads and
 * piece sizes from 1 byte (a cut at every sync point) up; on encoder
 * round-trip streams with a sync point every few hundred bytes (ETMv3,
 * ETMv4 A64 and A32/T32, ETE; per instruction and ranges), and on the
 * same streams with garbage inserted and cut short (the decoders lose
 * sync and find it again); the runner taking over a late worker's
 * piece (test_steal); the pause between a piece's batches where the
 * runner's calling thread joins (test_pause); errors ending a run
 * (test_run_errors). Snapshot captures: test_parallel_snap.c. */
/* clock_gettime(), pthread_cond_timedwait() (test_steal). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "etmkit/parallel.h"
#include "elem_same.h"
#include "par_gen.h"
#include "par_handover.h"
#include "parallel/par_internal.h"

static const unsigned jobs_list[] = { 1, 2, 3, 8 };
static const size_t piece_list[] = { 1, 97, 700, 5000 };

static uint64_t rng = 88172645463325252ull;
/* Over every test: joins where a piece took over, and joins the join
 * decoded on serially (both paths must be exercised). */
static uint64_t all_joins, all_fallbacks;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

static struct etmkit_par_config cfg_of(const struct par_stream *s,
				       uint32_t flow_flags)
{
	static struct etm3_flow_config c3;
	static struct etm4_flow_config c4;
	static struct ptm_flow_config cp;
	struct etmkit_par_config c;

	etmkit_par_config_init(&c);
	c.proto = s->proto;
	c3 = s->c3;
	c4 = s->c4;
	cp = s->cp;
	c3.flags = flow_flags;
	c4.flags = flow_flags;
	cp.flags = flow_flags;
	c.etm3 = &c3;
	c.etm4 = &c4;
	c.ptm = &cp;
	return c;
}

/* Every thread count and piece size on @buf. */
static void check_all(const struct par_stream *s, const uint8_t *buf,
		      size_t n, uint32_t flow_flags, uint64_t *fallbacks,
		      uint64_t *joins)
{
	struct etmkit_par_config c = cfg_of(s, flow_flags);
	char why[300];

	if (par_check(&c, buf, n, piece_list,
		      sizeof(piece_list) / sizeof(piece_list[0]), jobs_list,
		      sizeof(jobs_list) / sizeof(jobs_list[0]), why, sizeof(why),
		      fallbacks, joins))
		fail_msg("proto %d, %zu bytes, flags %u: %s", s->proto, n,
			 flow_flags, why);
}

/* @opt_or[t] or'ed into stream t's options (par_gen.h), or NULL. */
static void round_trips_with(unsigned proto, uint32_t flow_flags,
			     const uint32_t *opt_or, unsigned streams)
{
	uint8_t walk[4000];
	uint64_t fallbacks = 0, joins = 0;

	for (unsigned t = 0; t < streams; t++) {
		struct par_stream s;
		uint32_t opt = rnd() | (opt_or ? opt_or[t] : 0);

		for (size_t i = 0; i < sizeof(walk); i++)
			walk[i] = (uint8_t)rnd();
		if (par_gen(&s, proto, opt, 64 + 32 * (t % 4), walk, sizeof(walk))) {
			par_gen_free(&s);
			fail_msg("proto %u opt 0x%x: no stream", proto, opt);
		}
		assert_true(s.n > 1500);
		check_all(&s, s.bytes, s.n, flow_flags, &fallbacks, &joins);
		par_gen_free(&s);
	}
	/* Not all serial: most pieces decode on their own. */
	print_message("proto %u flags %u: %llu of %llu joins fell back\n", proto,
		      flow_flags, (unsigned long long)fallbacks,
		      (unsigned long long)joins);
	assert_true(joins > 100);
	assert_true(fallbacks < joins);
	all_joins += joins;
	all_fallbacks += fallbacks;
}

static void round_trips(unsigned proto, uint32_t flow_flags)
{
	round_trips_with(proto, flow_flags, NULL, 4);
}

static void test_etm3(void **state)
{
	(void)state;
	round_trips(0, 0);
	round_trips(0, ETM3_FLOW_RANGES);
}

static void test_etm4_a64(void **state)
{
	(void)state;
	round_trips(1, 0);
	round_trips(1, ETM4_FLOW_RANGES);
}

static void test_ete(void **state)
{
	(void)state;
	round_trips(2, 0);
	round_trips(2, ETM4_FLOW_RANGES);
}

static void test_etm4_a32(void **state)
{
	(void)state;
	round_trips(3, ETM4_FLOW_RANGES);
}

/* PTM (par_state_ptm.c): what survives an I-sync on in some streams: the
 * return stack (opt 0x8000, emptied at each I-sync but filled between),
 * timestamps (0x2000: compressed), VMID (0x4000), context IDs (0x300),
 * cycle accuracy (1), and all of them. */
static void test_ptm(void **state)
{
	static const uint32_t opt_or[] = { 0x8000, 0x2000, 0x4000, 0x300,
					   0x1, 0xf301 };
	unsigned n = sizeof(opt_or) / sizeof(opt_or[0]);

	(void)state;
	round_trips_with(4, 0, opt_or, n);
	round_trips_with(4, PTM_FLOW_RANGES, opt_or, n);
}

/* PTM state an I-sync leaves as it is, so that a fresh decoder differs
 * from the one that ran on from the piece before until it is traced
 * again (par_state_ptm.c): a VMID that is not traced again after each
 * A-sync and I-sync (a fresh decoder reports the first VMID packet as a
 * change, the serial one not: a context element more), and a timestamp
 * sent with its low bits only (IHI 0035B 4.5.9: the fresh decoder has no
 * high bits). Made by hand: each A-sync (a cut, pieces of 1 byte) and
 * I-sync followed by 100 ignore packets, then the VMID or the short
 * timestamp, then 100 more. The join must find the checkpoint at 64
 * bytes unequal (the state compared) and still give the serial decode. */
static void test_ptm_survivors(void **state)
{
	static const uint8_t async_isync[] = { 0, 0, 0, 0, 0, 0x80, 0x08,
					       0x00, 0x10, 0x00, 0x00, 0x01 };
	static const uint8_t vmid[] = { 0x3c, 0x05 },
			     ts_long[] = { 0x42, 0xff, 0xff, 0x01 },
			     ts_short[] = { 0x42, 0x05 };
	static const size_t one = 1;
	static const unsigned jobs[] = { 1, 2 };
	static uint8_t b[8192];
	struct ptm_flow_config cp;
	struct etmkit_par_config c;
	char why[300];

	(void)state;
	for (int k = 0; k < 2; k++) {
		const uint8_t *first = k ? ts_long : vmid,
			      *again = k ? ts_short : vmid;
		size_t lfirst = k ? sizeof(ts_long) : sizeof(vmid);
		size_t n = 0;
		uint64_t fallbacks = 0, joins = 0;

		for (int seg = 0; seg < 20; seg++) {
			memcpy(b + n, async_isync, sizeof(async_isync));
			n += sizeof(async_isync);
			memset(b + n, 0x66, 100);
			n += 100;
			memcpy(b + n, seg ? again : first, seg ? 2 : lfirst);
			n += seg ? 2 : lfirst;
			memset(b + n, 0x66, 100);
			n += 100;
		}
		ptm_flow_config_init(&cp);
		cp.ptm.etmidr = 0x411cf312u; /* PFTv1.1 */
		cp.ptm.etmcr = k ? PTM_ETMCR_TIMESTAMP : PTM_ETMCR_VMID;
		cp.ptm.etmccer = PTM_ETMCCER_TS_64BIT | PTM_ETMCCER_TS_BINARY;
		etmkit_par_config_init(&c);
		c.proto = etmkit_par_ptm;
		c.ptm = &cp;
		if (par_check(&c, b, n, &one, 1, jobs, 2, why, sizeof(why),
			      &fallbacks, &joins))
			fail_msg("%s: %s", k ? "timestamp" : "VMID", why);
		/* Each piece's first checkpoint disagrees: the VMID one
		 * agrees further on, the timestamp one never (the serial
		 * decoder's high bits stay). */
		print_message("PTM %s: %llu of %llu joins fell back\n",
			      k ? "timestamps" : "VMID",
			      (unsigned long long)fallbacks,
			      (unsigned long long)joins);
		assert_int_equal(joins, 19);
		assert_int_equal(fallbacks, k ? 19 : 0);
	}
}

/* The decoders' queue handover (par_handover.h), on which the pieces'
 * decode rests (par_piece.c: the decoder writes into the piece's
 * elements): each protocol and form, the queue moved before every batch,
 * the elements and states the serial ones. Elements held back by the
 * decoder moved with it (ETMv3's ranges: the open range; an instruction
 * a Cancel may drop) must have been seen. */
static void test_queue_handover(void **state)
{
	static const uint32_t form[][2] = {
		{ 0, 0 }, { 0, ETM3_FLOW_RANGES }, { 1, 0 },
		{ 1, ETM4_FLOW_RANGES }, { 2, ETM4_FLOW_RANGES },
		{ 3, ETM4_FLOW_RANGES }, { 4, 0 }, { 4, PTM_FLOW_RANGES },
	};
	uint8_t walk[4000];
	char why[300];

	(void)state;
	for (size_t f = 0; f < sizeof(form) / sizeof(form[0]); f++) {
		struct par_handover_counts c = { 0 };

		for (unsigned t = 0; t < 3; t++) {
			struct par_stream s;
			struct etmkit_par_config pc;
			uint32_t opt = rnd();

			for (size_t i = 0; i < sizeof(walk); i++)
				walk[i] = (uint8_t)rnd();
			if (par_gen(&s, form[f][0], opt, 200, walk,
				    sizeof(walk))) {
				par_gen_free(&s);
				fail_msg("proto %u opt 0x%x: no stream",
					 form[f][0], opt);
			}
			pc = cfg_of(&s, form[f][1]);
			if (par_check_handover(&pc, s.bytes, s.n, rnd(), &c,
					       why, sizeof(why)))
				fail_msg("proto %u flags %u opt 0x%x: %s",
					 form[f][0], form[f][1], opt, why);
			par_gen_free(&s);
		}
		print_message("proto %u flags %u: %llu batches, %llu moves, "
			      "%llu with elements held back\n",
			      form[f][0], form[f][1],
			      (unsigned long long)c.batches,
			      (unsigned long long)c.moved,
			      (unsigned long long)c.held);
		assert_true(c.moved > 50);
		if (form[f][0] == 0 && form[f][1])
			assert_true(c.held > 0);
	}
}

/* Garbage: random bytes inserted (runs of zeros among them, which look
 * like the start of an A-sync), and the stream cut inside a packet. */
static void test_garbage(void **state)
{
	uint8_t walk[4000];

	(void)state;
	for (unsigned t = 0; t < 10; t++) {
		struct par_stream s;
		uint8_t *b;
		size_t n = 0, cut;

		for (size_t i = 0; i < sizeof(walk); i++)
			walk[i] = (uint8_t)rnd();
		assert_int_equal(par_gen(&s, t % 5, rnd(), 96, walk,
					 sizeof(walk)), 0);
		b = malloc(s.n * 2 + 64);
		assert_non_null(b);
		for (size_t i = 0; i < s.n; i++) {
			b[n++] = s.bytes[i];
			if (rnd() % 97 == 0) {
				unsigned len = 1 + rnd() % 24, zero = rnd() % 3 == 0;

				for (unsigned j = 0; j < len; j++)
					b[n++] = zero ? 0 : (uint8_t)rnd();
			}
		}
		cut = n - 1 - rnd() % 5;
		check_all(&s, b, cut, t & 1 ? ETM3_FLOW_RANGES : 0,
			  &all_fallbacks, &all_joins);
		free(b);
		par_gen_free(&s);
	}
	/* Run after the round trips: both ways of joining were taken. */
	print_message("all: %llu of %llu joins fell back\n",
		      (unsigned long long)all_fallbacks,
		      (unsigned long long)all_joins);
	assert_true(all_fallbacks > 0);
	assert_true(all_fallbacks < all_joins / 4);
}

/* What the join does not cover is refused; the pieces cover the buffer. */
static void test_api(void **state)
{
	struct par_stream s;
	struct etmkit_par_config c;
	struct etmkit_par *p;
	struct etm4_flow_config c4;
	uint8_t walk[512];

	(void)state;
	for (size_t i = 0; i < sizeof(walk); i++)
		walk[i] = (uint8_t)rnd();
	assert_int_equal(par_gen(&s, 2, 0, 64, walk, sizeof(walk)), 0);
	/* Bad arguments leave *out alone (it may hold anything). */
	p = (struct etmkit_par *)walk;
	assert_int_equal(etmkit_par_alloc(&p, NULL, s.bytes, s.n, NULL, 0),
			 -etmkit_err_invalid);
	assert_ptr_equal(p, (struct etmkit_par *)walk);
	c = cfg_of(&s, ETM4_FLOW_RANGES);
	c4 = *c.etm4;
	c4.flags |= ETM4_FLOW_TALLY;
	c.etm4 = &c4;
	assert_int_equal(etmkit_par_alloc(&p, &c, s.bytes, s.n, NULL, 0),
			 -etmkit_err_invalid);
	c4.flags = ETM4_FLOW_RANGES | ETM4_FLOW_TRACES;
	assert_int_equal(etmkit_par_alloc(&p, &c, s.bytes, s.n, NULL, 0),
			 -etmkit_err_invalid);
	c4.flags = ETM4_FLOW_RANGES;
	c4.etm.flags |= ETM4_CFG_STOP_ON_ERROR;
	assert_int_equal(etmkit_par_alloc(&p, &c, s.bytes, s.n, NULL, 0),
			 -etmkit_err_invalid);
	c4.etm.flags &= ~ETM4_CFG_STOP_ON_ERROR;
	c.proto = 7;
	assert_int_equal(etmkit_par_alloc(&p, &c, s.bytes, s.n, NULL, 0),
			 -etmkit_err_invalid);
	c.proto = etmkit_par_etm3; /* no ETMv3 config */
	c.etm3 = NULL;
	assert_int_equal(etmkit_par_alloc(&p, &c, s.bytes, s.n, NULL, 0),
			 -etmkit_err_invalid);
	c = cfg_of(&s, 0);
	c.piece_bytes = 1;
	assert_int_equal(etmkit_par_alloc(&p, &c, s.bytes, s.n, NULL, 0), 0);
	assert_true(etmkit_par_pieces(p) > 3);
	assert_int_equal(etmkit_par_piece_start(p, 0), 0);
	for (size_t k = 1; k < etmkit_par_pieces(p); k++) {
		size_t at = etmkit_par_piece_start(p, k);

		/* An A-sync (11 zeros, 0x80), then Trace Info (0x01). */
		assert_true(at > etmkit_par_piece_start(p, k - 1));
		assert_int_equal(s.bytes[at + 11], 0x80);
		assert_int_equal(s.bytes[at + 12], 0x01);
	}
	assert_int_equal(etmkit_par_piece_start(p, etmkit_par_pieces(p)), s.n);
	{
		struct etmkit_par_piece *r, *freed;

		assert_int_equal(etmkit_par_piece_alloc(&r, p), 0);
		assert_int_equal(etmkit_par_decode(p, etmkit_par_pieces(p), r),
				 -etmkit_err_invalid);
		assert_int_equal(etmkit_par_decode(p, 1, r), 0);
		/* out of order: piece 0 first */
		assert_int_equal(etmkit_par_join(p, r, NULL, NULL, &freed),
				 -etmkit_err_invalid);
		assert_int_equal(etmkit_par_join_end(p, NULL, NULL, &freed),
				 -etmkit_err_invalid);
		etmkit_par_piece_free(r);
	}
	etmkit_par_free(p);
	par_gen_free(&s);
}

/* @b[0..@n), cut into pieces of 1 byte with protocol @proto's config
 * (par_gen.h): cuts at @at[0] and @at[1] only. */
static void assert_two_cuts(unsigned proto, const uint8_t *b, size_t n,
			    const size_t at[2])
{
	uint8_t walk[64] = { 0 };
	struct par_stream s;
	struct etmkit_par_config c;
	struct etmkit_par *p;

	assert_int_equal(par_gen(&s, proto, 0, 64, walk, sizeof(walk)), 0);
	c = cfg_of(&s, 0);
	c.piece_bytes = 1;
	assert_int_equal(etmkit_par_alloc(&p, &c, b, n, NULL, 0), 0);
	assert_int_equal(etmkit_par_pieces(p), 3);
	assert_int_equal(etmkit_par_piece_start(p, 1), at[0]);
	assert_int_equal(etmkit_par_piece_start(p, 2), at[1]);
	etmkit_par_free(p);
	par_gen_free(&s);
}

/* At @b[n]: an ETMv3/PTM A-sync (five zeros, 0x80), @before bytes 0x84
 * (atoms), header @h, @tail bytes 0x11. Returns the new length. */
static size_t put_sync_case(uint8_t *b, size_t n, size_t before, uint8_t h,
			    size_t tail)
{
	memset(b + n, 0, 5);
	n += 5;
	b[n++] = 0x80;
	memset(b + n, 0x84, before);
	n += before;
	b[n++] = h;
	memset(b + n, 0x11, tail);
	return n + tail;
}

/* ETMv4/ETE cuts: only at an A-sync followed by a Trace Info whose SPEC
 * is 0 or absent (etmv4-ete.md 5.2, 7.4); ETMv3: at an A-sync with an
 * I-sync (0x08, or 0x70 with cycle count; etmv3.md 4, 4.1) among the 16
 * bytes after it; PTM: the same with 0x08 (ptm.md 4.1, 4.2;
 * par_cuts.c). */
static void test_cuts(void **state)
{
	static const uint8_t tinfo_spec2[] = { 0x01, 0x04, 0x02 };
	static const uint8_t tinfo_info_spec0[] = { 0x01, 0x05, 0x01, 0x00 };
	static const uint8_t tinfo_cut[] = { 0x01, 0x04 }; /* buffer ends */
	static const uint8_t isync[] = { 0x08 }, isync_cc[] = { 0x70 },
			     branch[] = { 0x01 };
	struct par_stream s;
	struct etmkit_par_config c;
	struct etmkit_par *p;
	uint8_t b[256], walk[64] = { 0 };
	size_t n = 0, at[4], nat = 0;

	(void)state;
	assert_int_equal(par_gen(&s, 2, 0, 64, walk, sizeof(walk)), 0);
	c = cfg_of(&s, 0);
	c.piece_bytes = 1;
	/* A-sync + TINFO SPEC 2: no cut; SPEC 0 after INFO: a cut; a TINFO
	 * cut short by the end: no cut. */
	memset(b, 0x9d, 8);
	n = 8;
	memset(b + n, 0, 11);
	n += 11;
	b[n++] = 0x80;
	memcpy(b + n, tinfo_spec2, sizeof(tinfo_spec2));
	n += sizeof(tinfo_spec2);
	at[nat++] = n;
	memset(b + n, 0, 12); /* 12 zeros: an A-sync of 11 after one */
	n += 12;
	b[n++] = 0x80;
	memcpy(b + n, tinfo_info_spec0, sizeof(tinfo_info_spec0));
	n += sizeof(tinfo_info_spec0);
	memset(b + n, 0, 11);
	n += 11;
	b[n++] = 0x80;
	memcpy(b + n, tinfo_cut, sizeof(tinfo_cut));
	n += sizeof(tinfo_cut);
	assert_int_equal(etmkit_par_alloc(&p, &c, b, n, NULL, 0), 0);
	assert_int_equal(etmkit_par_pieces(p), 2);
	assert_int_equal(etmkit_par_piece_start(p, 1), at[0] + 1);
	etmkit_par_free(p);
	par_gen_free(&s);

	/* ETMv3: A-sync + P-headers the trace unit had pending + I-sync
	 * with cycle count within 16 bytes, A-sync + I-sync: cuts; A-sync
	 * + 16 bytes and more before an I-sync, A-sync + branch address:
	 * none. */
	n = 0;
	nat = 0;
	b[n++] = 0x84;
	for (int k = 0; k < 4; k++) {
		size_t before = k == 0 ? 15 : k == 2 ? 16 : 0;
		uint8_t h = k == 0 ? isync_cc[0] : k == 1 ? isync[0] :
			    k == 2 ? isync[0] : branch[0];

		if (k < 2)
			at[nat++] = n;
		n = put_sync_case(b, n, before, h, 16);
	}
	assert_two_cuts(0, b, n, at);

	/* PTM: A-sync + I-sync, A-sync + the packets the trace unit had
	 * pending + I-sync within 16 bytes: cuts; A-sync + 16 bytes and more
	 * before one, A-sync + I-sync with 0x70 (no PTM header): none. */
	n = 0;
	nat = 0;
	b[n++] = 0x84;
	for (int k = 0; k < 4; k++) {
		size_t before = k == 1 ? 15 : k == 2 ? 16 : 0;

		if (k < 2)
			at[nat++] = n;
		n = put_sync_case(b, n, before, k == 3 ? 0x70 : 0x08, 6);
	}
	assert_two_cuts(4, b, n, at);
}

/* Every element @dec delivers, appended to @out (at most @cap). */
static size_t take_all(const struct par_proto *pr, void *dec,
		       struct etmkit_elem *out, size_t n, size_t cap)
{
	const struct etmkit_elem *e;
	int m;

	while ((m = pr->batch(dec, &e)) > 0) {
		assert_true(n + (size_t)m <= cap);
		memcpy(out + n, e, (size_t)m * sizeof(*e));
		n += (size_t)m;
	}
	assert_int_equal(m, -etmkit_err_eos);
	return n;
}

/* Piece objects are reused piece after piece with reset() (par_piece.c):
 * a decoder reset after decoding a stream is in the state of one just
 * allocated (the normalised states compare equal), and decodes the stream
 * from a cut exactly as that one does. ETMv4's context (context ID, VMID,
 * exception level) once outlived reset: a Context packet without a
 * context ID then reported the one the decoder saw before the reset, so
 * a piece's output depended on the pieces its decoder had decoded. */
static void reset_is_fresh(unsigned proto, uint32_t opt)
{
	static struct etmkit_elem ea[1u << 16], eb[1u << 16];
	uint8_t walk[3000];
	struct par_stream s;
	const struct par_proto *pr = proto == 4 ? &par_proto_ptm :
				     proto ? &par_proto_etm4 : &par_proto_etm3;
	const void *cfg;
	void *a, *b, *scratch;
	uint8_t *sa, *sb;
	long la, lb;
	size_t na, nb;

	for (size_t i = 0; i < sizeof(walk); i++)
		walk[i] = (uint8_t)rnd();
	assert_int_equal(par_gen(&s, proto, opt, 64, walk, sizeof(walk)), 0);
	cfg = proto == 4 ? (const void *)&s.cp :
	      proto ? (const void *)&s.c4 : (const void *)&s.c3;
	assert_int_equal(pr->alloc(&a, cfg), 0);
	assert_int_equal(pr->alloc(&b, cfg), 0);
	scratch = calloc(1, pr->scratch_bytes() + 1);
	sa = malloc(pr->snap_bytes());
	sb = malloc(pr->snap_bytes());
	assert_non_null(scratch);
	assert_non_null(sa);
	assert_non_null(sb);

	/* @a decodes the whole stream (its context IDs), then is reset. */
	assert_int_equal(pr->feed(a, s.bytes, s.n, NULL, 0), 0);
	assert_int_equal(pr->finish(a), 0);
	take_all(pr, a, ea, 0, sizeof(ea) / sizeof(ea[0]));
	pr->reset(a);
	/* One byte fed to each (the offset after the last byte fed outlives
	 * a reset on purpose: flow_drive_reset()); not a zero (an A-sync's
	 * ring of zero offsets is not normalised). */
	assert_int_equal(pr->feed(a, (const uint8_t *)"U", 1, NULL, 0), 0);
	assert_int_equal(pr->feed(b, (const uint8_t *)"U", 1, NULL, 0), 0);
	assert_int_equal(take_all(pr, a, ea, 0, 1), 0);
	assert_int_equal(take_all(pr, b, eb, 0, 1), 0);
	la = pr->snap(a, scratch, sa);
	lb = pr->snap(b, scratch, sb);
	assert_true(la >= 0);
	assert_int_equal(la, lb);
	for (long i = 0; i < la; i++)
		if (sa[i] != sb[i])
			fail_msg("proto %u: reset state differs at %ld", proto, i);

	/* The stream from cuts, as a piece decoder would: @a reset after
	 * use, @b just allocated. */
	for (size_t from = 0; from < s.n; from += s.n / 5 + 1) {
		pr->reset(a);
		pr->free(b);
		assert_int_equal(pr->alloc(&b, cfg), 0);
		assert_int_equal(pr->feed(a, s.bytes + from, s.n - from, NULL,
					  from),
				 0);
		assert_int_equal(pr->feed(b, s.bytes + from, s.n - from, NULL,
					  from),
				 0);
		na = take_all(pr, a, ea, 0, sizeof(ea) / sizeof(ea[0]));
		nb = take_all(pr, b, eb, 0, sizeof(eb) / sizeof(eb[0]));
		la = pr->snap(a, scratch, sa);
		lb = pr->snap(b, scratch, sb);
		assert_int_equal(la, lb);
		if (la > 0)
			assert_memory_equal(sa, sb, (size_t)la);
		assert_int_equal(pr->finish(a), 0);
		assert_int_equal(pr->finish(b), 0);
		na = take_all(pr, a, ea, na, sizeof(ea) / sizeof(ea[0]));
		nb = take_all(pr, b, eb, nb, sizeof(eb) / sizeof(eb[0]));
		assert_int_equal(na, nb);
		assert_true(na > 0);
		for (size_t i = 0; i < na; i++)
			if (!elem_same(&ea[i], &eb[i], 1))
				fail_msg("proto %u from %zu: element %zu: kind "
					 "%u flags 0x%x, fresh: kind %u flags "
					 "0x%x",
					 proto, from, i, ea[i].kind, ea[i].flags,
					 eb[i].kind, eb[i].flags);
	}
	pr->free(a);
	pr->free(b);
	free(scratch);
	free(sa);
	free(sb);
	par_gen_free(&s);
}

static void test_reset(void **state)
{
	(void)state;
	/* ETMv3 with context IDs (ETMCR bits 14-15, opt bits 8-9) and
	 * timestamps; ETMv4 A64, ETE and A32/T32 with context IDs and VMIDs
	 * (TRCCONFIGR bits 6, 7: opt bits 18, 19). */
	reset_is_fresh(0, 0x300u | 0x400u);
	reset_is_fresh(1, 0xc0000u);
	reset_is_fresh(2, 0xc0000u);
	reset_is_fresh(3, 0xc0000u);
	/* PTM with context IDs, timestamps, VMID and the return stack. */
	reset_is_fresh(4, 0x300u | 0x2000u | 0x4000u | 0x8000u);
}

/* par_decode()'s pause (par_internal.h; the runner's calling thread joins
 * there, par_run.c): called between the decoder's batches, the piece's
 * elements the same as without it, and its nonzero value stops the
 * decode and is returned. */
struct pause_count {
	unsigned calls, fail_at;
};

static int pause_count(void *ctx)
{
	struct pause_count *c = ctx;

	return ++c->calls == c->fail_at ? -99 : 0;
}

static void test_pause(void **state)
{
	uint8_t walk[4000];
	struct par_stream s;
	struct etmkit_par_config c;
	struct etmkit_par *p;
	struct etmkit_par_piece *a, *b;
	struct pause_count pc = { 0, 0 };
	struct par_pause pause = { pause_count, &pc };

	(void)state;
	for (size_t i = 0; i < sizeof(walk); i++)
		walk[i] = (uint8_t)rnd();
	assert_int_equal(par_gen(&s, 2, 0, 64, walk, sizeof(walk)), 0);
	c = cfg_of(&s, 0); /* an element per instruction: many batches */
	c.piece_bytes = s.n / 3;
	assert_int_equal(etmkit_par_alloc(&p, &c, s.bytes, s.n, NULL, 0), 0);
	assert_true(etmkit_par_pieces(p) >= 2);
	assert_int_equal(etmkit_par_piece_alloc(&a, p), 0);
	assert_int_equal(etmkit_par_piece_alloc(&b, p), 0);
	for (size_t k = 0; k < etmkit_par_pieces(p); k++) {
		unsigned before = pc.calls;

		assert_int_equal(etmkit_par_decode(p, k, a), 0);
		assert_int_equal(par_decode(p, k, b, &pause), 0);
		/* More than a batch's room of elements in the piece, and so
		 * two batches or more. */
		assert_true(a->n > a->proto->queue_room());
		assert_true(pc.calls - before >= 2);
		assert_int_equal(a->n, b->n);
		for (size_t i = 0; i < a->n; i++)
			if (!elem_same(&a->el[i], &b->el[i], 1))
				fail_msg("piece %zu element %zu differs", k, i);
		assert_int_equal(a->nend, b->nend);
		for (size_t j = 0; j < a->nend; j++)
			assert_int_equal(a->end[j].nelem, b->end[j].nelem);
	}
	pc.calls = 0;
	pc.fail_at = 2;
	assert_int_equal(par_decode(p, 0, b, &pause), -99);
	assert_int_equal(pc.calls, 2);
	etmkit_par_piece_free(a);
	etmkit_par_piece_free(b);
	etmkit_par_free(p);
	par_gen_free(&s);
}

/* Errors end a run at any thread count: a flow config the decoder
 * refuses (the runner makes no decoder to check it before it starts its
 * threads: the first piece object made, on whichever thread, fails as
 * etmkit_par_alloc() does), and a sink's error (whether the join that
 * called it ran between the batches of a piece the calling thread
 * decodes or not), after which the sink is not called again. */
struct sink_fail {
	size_t calls, fail_at;
};

static int sink_fail(void *ctx, const struct etmkit_elem *e, size_t n)
{
	struct sink_fail *f = ctx;

	(void)e;
	(void)n;
	return ++f->calls >= f->fail_at ? -77 : 0;
}

static void test_run_errors(void **state)
{
	uint8_t walk[4000];
	struct par_stream s;
	struct etmkit_par_config c;
	struct etm3_flow_config c3;
	struct etmkit_par *p;

	(void)state;
	for (size_t i = 0; i < sizeof(walk); i++)
		walk[i] = (uint8_t)rnd();
	assert_int_equal(par_gen(&s, 0, 0, 64, walk, sizeof(walk)), 0);
	c = cfg_of(&s, 0);
	c.piece_bytes = 1;
	c3 = *c.etm3;
	/* ETMIDR[11:8] holds the major version less one: 1 is ETMv2, not
	 * ETMv3 (spec etmv3.md, the ETMIDR table). */
	c3.etm.etmidr = 0x410CF150;
	c.etm3 = &c3;
	assert_int_equal(etmkit_par_alloc(&p, &c, s.bytes, s.n, NULL, 0),
			 -etmkit_err_bad_config);
	/* Many pieces, and one (no other piece to take over). */
	for (size_t j = 0; j < 2 * sizeof(jobs_list) / sizeof(jobs_list[0]);
	     j++) {
		struct sink_fail f = { 0, 1 };

		c.jobs = jobs_list[j / 2];
		c.piece_bytes = j % 2 ? s.n : 1;
		assert_int_equal(etmkit_par_run(&c, s.bytes, s.n, NULL, 0,
						sink_fail, &f, NULL),
				 -etmkit_err_bad_config);
		assert_int_equal(f.calls, 0);
	}
	c = cfg_of(&s, 0);
	c.piece_bytes = 1;
	for (size_t j = 0; j < sizeof(jobs_list) / sizeof(jobs_list[0]); j++) {
		for (size_t at = 1; at < 40; at += 13) {
			struct sink_fail f = { 0, at };

			c.jobs = jobs_list[j];
			assert_int_equal(etmkit_par_run(&c, s.bytes, s.n, NULL,
							0, sink_fail, &f,
							NULL),
					 -77);
			assert_int_equal(f.calls, at);
		}
	}
	par_gen_free(&s);
}

/* The runner's steal path (par_run.c): a worker holds back the first
 * piece it takes until the sink has seen an element past that piece,
 * which it can only see if the calling thread decoded the piece itself
 * (the window full, the worker late). If the calling thread waited for
 * the worker instead, both wait until the worker gives up (timed_out).
 * The output is still the serial one (the worker's late result is
 * dropped). */
struct steal {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	const size_t *start;     /* the pieces' first bytes */
	int entered, released, timed_out;
	uint64_t until;          /* the first byte after the held piece */
	struct etmkit_elem *e;   /* what the sink was given */
	size_t n, cap;
};

/* A condition variable timed on the monotonic clock: a change of the
 * wall clock cannot end steal_wait() early or late. */
static void steal_cond_init(pthread_cond_t *cv)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(cv, &a);
	pthread_condattr_destroy(&a);
}

/* Wait on @st->cv until *@flag, at most 20 s (then timed_out). */
static void steal_wait(struct steal *st, const int *flag)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t); /* steal_cond_init() */
	t.tv_sec += 20;
	while (!*flag && !st->timed_out)
		if (pthread_cond_timedwait(&st->cv, &st->mu, &t) == ETIMEDOUT)
			st->timed_out = 1;
}

static void steal_hold(void *ctx, size_t k)
{
	struct steal *st = ctx;

	pthread_mutex_lock(&st->mu);
	if (!st->entered) {
		st->entered = 1;
		st->until = st->start[k + 1];
		pthread_cond_broadcast(&st->cv);
		steal_wait(st, &st->released);
	}
	pthread_mutex_unlock(&st->mu);
}

static int steal_sink(void *ctx, const struct etmkit_elem *e, size_t n)
{
	struct steal *st = ctx;

	if (st->n + n > st->cap) {
		st->cap = 2 * (st->n + n);
		st->e = realloc(st->e, st->cap * sizeof(*e));
		assert_non_null(st->e);
	}
	memcpy(st->e + st->n, e, n * sizeof(*e));
	st->n += n;
	pthread_mutex_lock(&st->mu);
	/* A worker holds a piece before the join goes on. */
	steal_wait(st, &st->entered);
	for (size_t i = 0; i < n && !st->released; i++)
		if (e[i].offset >= st->until) {
			st->released = 1;
			pthread_cond_broadcast(&st->cv);
		}
	pthread_mutex_unlock(&st->mu);
	return 0;
}

static void test_steal(void **state)
{
	uint8_t walk[4000];
	struct par_stream s;
	struct etmkit_par_config c;
	struct etmkit_par *p;
	struct steal st, ref;
	struct par_run_hook hook = { steal_hold, &st };
	size_t np, *start;

	(void)state;
	for (size_t i = 0; i < sizeof(walk); i++)
		walk[i] = (uint8_t)rnd();
	assert_int_equal(par_gen(&s, 2, 0, 64, walk, sizeof(walk)), 0);
	c = cfg_of(&s, 0);
	c.piece_bytes = 1; /* a cut at every sync point */
	c.jobs = 2;
	c.window = 8;
	assert_int_equal(etmkit_par_alloc(&p, &c, s.bytes, s.n, NULL, 0), 0);
	np = etmkit_par_pieces(p);
	/* The worker's first piece is among the first few: pieces after it
	 * fill the window, and elements follow it. */
	assert_true(np > 30);
	start = calloc(np + 1, sizeof(*start));
	assert_non_null(start);
	for (size_t k = 0; k <= np; k++)
		start[k] = etmkit_par_piece_start(p, k);
	etmkit_par_free(p);

	memset(&st, 0, sizeof(st));
	memset(&ref, 0, sizeof(ref));
	pthread_mutex_init(&st.mu, NULL);
	steal_cond_init(&st.cv);
	st.start = start;
	assert_int_equal(par_run_hooked(&c, s.bytes, s.n, NULL, 0, steal_sink,
					&st, NULL, &hook), 0);
	assert_true(st.entered);
	assert_false(st.timed_out);
	assert_true(st.released);

	/* The same as one thread (par_check: the serial decode). */
	c.jobs = 1;
	ref.entered = ref.released = 1;
	pthread_mutex_init(&ref.mu, NULL);
	steal_cond_init(&ref.cv);
	assert_int_equal(etmkit_par_run(&c, s.bytes, s.n, NULL, 0, steal_sink,
					&ref, NULL), 0);
	assert_true(ref.n > 0);
	assert_int_equal(st.n, ref.n);
	for (size_t i = 0; i < ref.n; i++)
		if (!elem_same(&st.e[i], &ref.e[i], 1))
			fail_msg("element %zu differs", i);
	pthread_cond_destroy(&st.cv);
	pthread_mutex_destroy(&st.mu);
	pthread_cond_destroy(&ref.cv);
	pthread_mutex_destroy(&ref.mu);
	free(st.e);
	free(ref.e);
	free(start);
	par_gen_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_api),
		cmocka_unit_test(test_cuts),
		cmocka_unit_test(test_etm3),
		cmocka_unit_test(test_etm4_a64),
		cmocka_unit_test(test_ete),
		cmocka_unit_test(test_etm4_a32),
		cmocka_unit_test(test_ptm),
		cmocka_unit_test(test_ptm_survivors),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_queue_handover),
		cmocka_unit_test(test_steal),
		cmocka_unit_test(test_pause),
		cmocka_unit_test(test_run_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
