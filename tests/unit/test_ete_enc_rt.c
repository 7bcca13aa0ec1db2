/* ETMv4/ETE encoder round trips: records of walks over an A64 program in
 * memory (and A32/T32 for ETMv4), encoded, then decoded by etm4_flow with
 * the encoder's decoder configuration; the decoded instructions and
 * exceptions must be the record's, one for one. Run from test_ete_enc.c's
 * main(). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit/test_util.h"

#include "etmkit/etm4.h"
#include "etmkit/insn.h"
#include "etmkit/exec.h"
#include "etmkit/flow.h"
#include "etmkit/image.h"

#include "ts_out.h"
#include "ts_rec.h"

#include "test_ete_enc.h"

struct rt_case {
	uint32_t maxspec, depth, mis, can, cfgr, flags, sync;
	int etmv4;
	uint32_t cyct;
	uint32_t q;     /* q_every; TRCCONFIGR.QE 0b01 (odd) or 0b11 */
};

static void rt_config(struct ete_enc_config *c, const struct rt_case *k)
{
	ete_enc_config_init(c);
	if (k->etmv4) {
		c->etm.flags = 0;
		c->etm.trcdevarch = 0;
		c->etm.trcidr0 = 0x28000ea1u;
		c->etm.trcidr1 = 0x4100f443u; /* ETMv4.4 */
		c->etm.trcidr2 = 0x00001088u;
	}
	c->etm.trcidr8 = k->maxspec;
	c->etm.trcconfigr = k->cfgr;
	c->spec_depth = k->depth;
	c->mispredict_every = k->mis;
	c->cancel_every = k->can;
	c->flags = k->flags;
	c->sync_period = k->sync;
	c->cc_threshold = k->cyct;
	if (k->q) {
		c->q_every = k->q;
		c->etm.trcidr0 |= 3u << 15; /* QSUPP: ETMv4's has none */
		c->etm.trcconfigr |= (k->q & 1 ? 1u : 3u) << 13;
	}
}

static struct ts_prog64 P;

static void round_trip(const struct rt_case *k, const struct walk_opts *wo,
		       uint64_t seed, struct ete_enc_stats *st_out)
{
	struct ete_enc_config c;
	struct ete_enc *e;
	struct ts_rec rc = { 0 };
	static struct evs want;
	struct ts_out o = { 0 };
	struct image *img;
	size_t end;
	uint64_t ncc;

	end = walk(&P, &rc, seed, wo);
	rt_config(&c, k);
	assert_int_equal(ete_enc_alloc(&e, &c, ts_out_sink, &o), 0);
	for (size_t i = 0; i < end; i++)
		assert_int_equal(ete_enc_put(e, &rc.r[i]), 0);
	assert_int_equal(ete_enc_finish(e), 0);
	if (st_out)
		*st_out = *ete_enc_get_stats(e);
	ncc = ete_enc_get_stats(e)->cycle_counts;
	if (k->cfgr & (1u << 4))
		assert_true(ncc > 0 || !wo->cyc || k->cyct > 0);
	assert_int_equal(ete_enc_get_stats(e)->untraceable, 0);
	assert_int_equal(ete_enc_get_stats(e)->bytes, o.n);
	ete_enc_free(e);
	expected_of(&rc, end, &c, &want);
	want.ncc = st_out ? st_out->cycle_counts : ncc;
	assert_int_equal(image_alloc(&img), 0);
	for (unsigned b = 0; b < TS_PROG64_NBASES; b++)
		assert_int_equal(image_add_buffer(img, P.bytes, 4ull * P.n,
						  ts_prog64_bases[b], 0), 0);
	decode_check(&c, &o, img, &want, 0, 0);
	decode_check(&c, &o, img, &want, 37, (uint32_t)seed);
	image_free(img);
	free(o.b);
	free(rc.r);
	free(want.v);
	memset(&want, 0, sizeof(want));
}

int setup_prog(void **state)
{
	(void)state;
	prog_make(&P, 0x1234567);
	return 0;
}

static const struct walk_opts plain = { 20000, 0, 0, 0, 0, 0, 4, 0, 0 };
static const struct walk_opts busy = { 20000, 20, 20, 30, 30, 50, 3, 1, 0 };
/* busy, and contexts changing between instructions */
static const struct walk_opts busy_ctx = { 20000, 20, 20, 30, 30, 50, 3, 1,
					   20 };

/* MAXSPEC 0, straight walks: atoms, addresses. */
void test_rt_plain(void **state)
{
	static const struct rt_case k = { 0 };
	struct ete_enc_stats st;

	(void)state;
	round_trip(&k, &plain, 1, &st);
	assert_true(st.p0 > 2000);
	for (int f = 1; f <= 6; f++)
		if (st.atom_packets[f] == 0)
			fail_msg("atom format %d not used", f);
	for (int f = 0; f < 4; f++)
		if (st.addr_forms[f] == 0)
			fail_msg("address form %d not used", f);
}

/* Exceptions (traced and untraced handlers), gaps, context changes,
 * timestamps, context ID and VMID. */
void test_rt_events(void **state)
{
	static const struct rt_case k = { 0, 0, 0, 0,
					  (1u << 6) | (1u << 7) | (1u << 11) |
					  (1u << 4), 0, 0, 0, 1, 0 };
	struct ete_enc_stats st;

	(void)state;
	round_trip(&k, &busy, 2, &st);
	assert_true(st.syncs > 1); /* periodic resync happened */
}

/* Speculation: spec_depth below MAXSPEC, commit at once, and synthesized
 * mispredicts and cancels of every form. */
void test_rt_speculation(void **state)
{
	static const struct rt_case ks[] = {
		{ 16, 4, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ 8, 0, 0, 0, 1u << 4, 0, 0, 0, 0, 0 },
		{ 32, 32, 7, 5, 1u << 4, 0, 0, 0, 3, 0 },
		{ 0, 0, 0, 0, 1u << 4, 0, 300, 0, 1, 0 },
		{ 4, 3, 3, 2, 0, 0, 0, 0, 0, 0 },
		{ 2, 2, 0, 1, 0, 0, 0, 0, 0, 0 },
		{ 1, 1, 1, 0, 0, 0, 0, 0, 0, 0 },
		{ 255, 24, 11, 3, (1u << 11), 0, 512, 0, 0, 0 },
	};
	struct ete_enc_stats st;

	(void)state;
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		round_trip(&ks[i], &busy, 10 + i, &st);
		if (ks[i].mis)
			assert_true(st.mispredicts > 0);
		if (ks[i].can)
			assert_true(st.cancels > 0);
	}
}

/* ETMv4 registers (TRCIDR1 4.4, no ETE flag); no compression. */
void test_rt_etmv4(void **state)
{
	static const struct rt_case k1 = { 16, 8, 5, 4, 1u << 11, 0, 0, 1, 0, 0 };
	static const struct rt_case k2 = { 0, 0, 0, 0, 1u << 4,
					   ETE_ENC_NO_COMPRESS, 0, 0, 5, 0 };

	(void)state;
	round_trip(&k1, &busy, 20, NULL);
	round_trip(&k2, &busy, 21, NULL);
}

/* D4.3.5.4 (R LZLDH and the rule after I BTNZC): a context change that
 * is not at a P0 instruction ends the Q after the last instruction in
 * the old context, and the Context follows the Q. nop, isb, nop, EL2,
 * b.eq taken to 0x1014: Q of 3 to 0x100c (a5 03 03),
 * Context EL2 (81 32), Q of 1 to 0x1014 (a5 05 01). Decoded over the
 * program, the instructions and both contexts come back. */
void test_q_context(void **state)
{
	static const uint8_t w[] = { 0xa5, 0x03, 0x03, 0x81, 0x32,
				     0xa5, 0x05, 0x01 };
	const uint32_t ops[] = { NOP, ISB, NOP, op_bcond(8) };
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct exec_rec *r;
	struct ts_out o;
	struct image *img;
	static struct evs want;
	uint8_t code[32];

	(void)state;
	memset(code, 0, sizeof(code));
	for (int i = 0; i < 4; i++)
		for (int b = 0; b < 4; b++)
			code[4 * i + b] = (uint8_t)(ops[i] >> (8 * b));
	a64(&rc, 0x1000, ops[0], 0, 0);
	a64(&rc, 0x1004, ops[1], 0, 0);
	a64(&rc, 0x1008, ops[2], 0, 0);
	r = ts_rec_add(&rc, exec_context);
	r->flags = EXEC_CTX_EL;
	r->el = 2;
	r->ns = 1;
	a64(&rc, 0x100c, ops[3], TAKEN, 0x1014);
	q_config(&c, 1);
	encode(&c, &rc, &o);
	expect_after_head(&o, w, sizeof(w));
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, code, sizeof(code), 0x1000, 0),
			 0);
	expected_of(&rc, rc.n, &c, &want);
	assert_int_equal(want.nctx, 2);
	decode_check(&c, &o, img, &want, 0, 0);
	image_free(img);
	free(o.b);
	free(rc.r);
	free(want.v);
	memset(&want, 0, sizeof(want));
}

/* Q elements (digest 5.17, D4.3.5.4) in place of atoms: alone, every
 * address form; with speculation, mispredicts and cancels (a Q is a P0
 * element, digest 7.1, 7.2), cycle counts, branch broadcast, events,
 * ETMv4, no compression. */
void test_rt_q(void **state)
{
	static const struct rt_case ks[] = {
		{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 },
		{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 3 },
		{ 16, 4, 0, 0, 0, 0, 0, 0, 0, 2 },
		{ 8, 0, 0, 0, 1u << 4, 0, 0, 0, 0, 1 },
		{ 32, 32, 7, 5, 1u << 4, 0, 0, 0, 3, 3 },
		{ 4, 3, 3, 2, 0, 0, 0, 0, 0, 2 },
		{ 2, 2, 0, 1, 0, 0, 0, 0, 0, 3 },
		{ 1, 1, 1, 0, 0, 0, 0, 0, 0, 2 },
		{ 255, 24, 11, 3, (1u << 11) | (1u << 3), 0, 512, 0, 0, 4 },
		{ 0, 0, 0, 0, (1u << 6) | (1u << 7) | (1u << 11) | (1u << 4),
		  0, 0, 0, 1, 1 },
		{ 16, 8, 5, 4, 1u << 11, 0, 0, 1, 0, 2 },
		{ 0, 0, 0, 0, 1u << 4, ETE_ENC_NO_COMPRESS, 0, 0, 5, 1 },
		{ 8, 0, 0, 0, 0, ETE_ENC_NO_COMPRESS, 0, 1, 0, 3 },
	};
	struct ete_enc_stats st;
	uint64_t nq = 0;

	(void)state;
	round_trip(&ks[0], &plain, 30, &st);
	/* Every Q type with an address and a count; atoms only for the
	 * branches not taken (about a quarter of the P0 instructions). */
	for (unsigned t = 0; t < 16; t++) {
		if ((t <= 2 || t == 5 || t == 0xa || t == 0xc) &&
		    st.q_packets[t] == 0)
			fail_msg("Q type %x not used", t);
		nq += st.q_packets[t];
	}
	assert_true(nq > st.p0 / 2);
	for (size_t i = 1; i < sizeof(ks) / sizeof(ks[0]); i++) {
		nq = 0;
		round_trip(&ks[i], i < 9 ? &plain : i % 2 ? &busy_ctx : &busy,
			   30 + i, &st);
		for (unsigned t = 0; t < 16; t++)
			nq += st.q_packets[t];
		assert_true(nq > 0);
		if (ks[i].q > 1)
			assert_true(st.atom_packets[1] + st.atom_packets[2] +
				    st.atom_packets[3] + st.atom_packets[6] > 0);
		if (ks[i].mis)
			assert_true(st.mispredicts > 0);
		if (ks[i].can)
			assert_true(st.cancels > 0);
	}
}

/* Many seeds, each a random configuration (ETE_ENC_SEEDS=n in the
 * environment for a longer soak). */
void test_rt_random(void **state)
{
	const char *env = getenv("ETE_ENC_SEEDS");
	uint64_t nseeds = env ? strtoull(env, NULL, 0) : 60;

	(void)state;
	for (uint64_t seed = 100; seed < 100 + nseeds; seed++) {
		uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
		struct rt_case k;
		struct walk_opts w;

		memset(&k, 0, sizeof(k));
		k.maxspec = rnd(&s) % 3 ? rnd(&s) % 40 : 0;
		k.depth = k.maxspec ? rnd(&s) % (k.maxspec + 1) : 0;
		k.mis = k.maxspec && rnd(&s) % 2 ? 1 + rnd(&s) % 9 : 0;
		k.can = k.maxspec >= 2 && rnd(&s) % 2 ? 1 + rnd(&s) % 9 : 0;
		k.cfgr = (rnd(&s) % 2 ? 1u << 11 : 0) |
			 (rnd(&s) % 2 ? (1u << 6) | (1u << 7) : 0) |
			 (rnd(&s) % 4 == 0 ? 1u << 3 : 0) |
			 (rnd(&s) % 2 ? 1u << 4 : 0);
		k.cyct = rnd(&s) % 3 ? rnd(&s) % 4 : rnd(&s) % 4096;
		k.sync = rnd(&s) % 2 ? 64 + rnd(&s) % 1024 : 0;
		k.etmv4 = rnd(&s) % 4 == 0;
		w.steps = 500 + rnd(&s) % 3000;
		w.exc_pct10 = rnd(&s) % 40;
		w.gap_pct10 = rnd(&s) % 40;
		w.untraced_handlers = rnd(&s) % 50;
		w.ts_pct10 = rnd(&s) % 50;
		w.ctx_pct = rnd(&s) % 100;
		w.far = rnd(&s) % 6;
		w.cyc = rnd(&s) % 4 != 0;
		k.q = rnd(&s) % 3 == 0 ? 1 + rnd(&s) % 6 : 0;
		w.ctx_pct10 = rnd(&s) % 2 ? rnd(&s) % 30 : 0;
		round_trip(&k, &w, seed, NULL);
	}
}

/* A long run: several sink calls (64 KiB buffer), bounded memory. */
void test_rt_long(void **state)
{
	static const struct rt_case k = { 16, 8, 13, 17, 1u << 4, 0, 0, 0, 2, 0 };
	static const struct walk_opts w = { 400000, 5, 5, 20, 5, 20, 5, 1, 0 };
	struct ete_enc_stats st;

	(void)state;
	round_trip(&k, &w, 77, &st);
	assert_true(st.bytes > 3 * 65536);
}

/* Digest 5.5 (U4, U5): an ETE PE reset is 3 bytes (06 81 00: C set,
 * TYPE 0, E1:E0 = 01) with no address; in ETMv4 it is 06 01 and its
 * return address. */
void test_reset(void **state)
{
	static const uint8_t w_ete[] = { 0xf7, 0x06, 0x81, 0x00, 0x95, 0x80,
					 0x10, 0xf7 };
	static const uint8_t w_v4[] = { 0xf7, 0x06, 0x01, 0x95, 0x02, 0x95,
					0x80, 0x10, 0xf7 };
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;

	(void)state;
	a64(&rc, 0x1000, op_bcond(4), TAKEN, 0x1004);
	a64(&rc, 0x1004, NOP, 0, 0);
	exc(&rc, exec_exc_reset, 0x1008);
	a64(&rc, 0x2000, op_bcond(4), TAKEN, 0x2004);
	ete_enc_config_init(&c);
	encode(&c, &rc, &o);
	expect_after_head(&o, w_ete, sizeof(w_ete));
	free(o.b);
	c.etm.flags = 0;
	c.etm.trcdevarch = 0;
	c.etm.trcidr1 = 0x4100f443u;
	encode(&c, &rc, &o);
	expect_after_head(&o, w_v4, sizeof(w_v4));
	free(o.b);
	free(rc.r);
}

/* ETMv4 AArch32 (digest 2.3, 5.18): A32 at 0x8000 and T32 at 0x9000,
 * interworking by BX; IS1 addresses for T32, context SF 0.
 *   8000 mov r0, r0     9000 nop
 *   8004 b 0x800c       9002 b 0x9006
 *   8008 mov r0, r0     9004 nop
 *   800c bx r1          9006 bx lr
 * The walk: 8000 8004 800c -> 9000 9002 9006 -> 8000 ..., an IRQ in
 * T32 after 9000 (return address 0x9002, IS1), its handler at 0x8008. */
void t32(struct ts_rec *rc, uint64_t addr, uint32_t op, uint32_t flags,
		uint64_t target, uint8_t tisa)
{
	ts_rec_insn(rc, etmkit_isa_thumb, 2, addr, op, flags, target, tisa);
}

static void a32(struct ts_rec *rc, uint64_t addr, uint32_t op, uint32_t flags,
		uint64_t target, uint8_t tisa)
{
	ts_rec_insn(rc, etmkit_isa_arm, 4, addr, op, flags, target, tisa);
}

void test_rt_aarch32(void **state)
{
	static const uint32_t arm[] = { 0xe1a00000, 0xea000000, 0xe1a00000,
					0xe12fff11 };
	static const uint16_t thumb[] = { 0xbf00, 0xe000, 0xbf00, 0x4770 };
	static const struct rt_case ks[] = {
		{ 0, 0, 0, 0, 0, 0, 0, 1, 0, 0 },
		{ 8, 2, 3, 2, 0, 0, 0, 1, 0, 0 },
		{ 8, 0, 0, 0, 0, ETE_ENC_NO_COMPRESS, 0, 1, 0, 0 },
		{ 0, 0, 0, 0, 0, 0, 0, 1, 0, 1 },
		{ 8, 2, 3, 2, 0, 0, 0, 1, 0, 2 },
		{ 8, 0, 0, 0, 0, ETE_ENC_NO_COMPRESS, 0, 1, 0, 1 },
	};
	uint8_t code[0x1008];
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;
	struct image *img;
	static struct evs want;

	(void)state;
	memset(code, 0, sizeof(code));
	for (int i = 0; i < 4; i++)
		for (int b = 0; b < 4; b++)
			code[4 * i + b] = (uint8_t)(arm[i] >> (8 * b));
	for (int i = 0; i < 4; i++) {
		code[0x1000 + 2 * i] = (uint8_t)thumb[i];
		code[0x1000 + 2 * i + 1] = (uint8_t)(thumb[i] >> 8);
	}
	for (int it = 0; it < 3; it++) {
		a32(&rc, 0x8000, arm[0], 0, 0, 0);
		a32(&rc, 0x8004, arm[1], TAKEN, 0x800c, etmkit_isa_arm);
		a32(&rc, 0x800c, arm[3], IND, 0x9000, etmkit_isa_thumb);
		t32(&rc, 0x9000, thumb[0], 0, 0, 0);
		if (it == 1) {
			exc(&rc, exec_exc_irq, 0x9002);
			a32(&rc, 0x8008, arm[2], 0, 0, 0);
			a32(&rc, 0x800c, arm[3], IND, 0x9002, etmkit_isa_thumb);
		}
		t32(&rc, 0x9002, thumb[1], TAKEN, 0x9006, etmkit_isa_thumb);
		t32(&rc, 0x9006, thumb[3], IND, 0x8000, etmkit_isa_arm);
	}
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, code, sizeof(code), 0x8000, 0),
			 0);
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		rt_config(&c, &ks[i]);
		c.etm.trcidr2 = 0x00001084u; /* 32-bit addresses */
		encode(&c, &rc, &o);
		expected_of(&rc, rc.n, &c, &want);
		want.ncc = last_stats.cycle_counts;
		decode_check(&c, &o, img, &want, 0, 0);
		decode_check(&c, &o, img, &want, 3, 9);
		free(o.b);
	}
	image_free(img);
	free(rc.r);
	free(want.v);
}

/* ETE with AArch32 at EL0 and an AArch64 EL1 handler (digest 5.18: the
 * context's SF selects A32 or A64 for IS0): A32 at 0x8000 (the program
 * of test_rt_aarch32), a call after 0x8000 with return address 0x8004;
 * the handler at 0xa000 is A64 (nop, eret) and returns to 0x8004 at
 * EL0, AArch32. */
void test_rt_interstate(void **state)
{
	static const uint32_t arm[] = { 0xe1a00000, 0xea000000, 0xe1a00000,
					0xe12fff11 };
	static const uint32_t a64c[] = { NOP, 0xd69f03e0 /* eret */ };
	static const struct rt_case ks[] = {
		{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ 8, 4, 2, 3, 1u << 4, 0, 0, 0, 0, 0 },
		{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 },
		{ 8, 4, 2, 3, 1u << 4, 0, 0, 0, 0, 2 },
	};
	uint8_t code[0x2008];
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;
	struct image *img;
	struct exec_rec *r;
	static struct evs want;

	(void)state;
	memset(code, 0, sizeof(code));
	for (int i = 0; i < 4; i++)
		for (int b = 0; b < 4; b++)
			code[4 * i + b] = (uint8_t)(arm[i] >> (8 * b));
	for (int i = 0; i < 2; i++)
		for (int b = 0; b < 4; b++)
			code[0x2000 + 4 * i + b] = (uint8_t)(a64c[i] >> (8 * b));
	for (int it = 0; it < 4; it++) {
		r = ts_rec_add(&rc, exec_context);
		r->flags = EXEC_CTX_EL;
		r->el = 0;
		r->ns = 1;
		a32(&rc, 0x8000, arm[0], 0, 0, 0);
		exc(&rc, exec_exc_call, 0x8004);
		r = ts_rec_add(&rc, exec_context);
		r->flags = EXEC_CTX_EL;
		r->el = 1;
		r->ns = 1;
		a64(&rc, 0xa000, a64c[0], 0, 0);
		a64(&rc, 0xa004, a64c[1], IND, 0x8004);
		rc.r[rc.n - 1].target_isa = etmkit_isa_arm;
		r = ts_rec_add(&rc, exec_context);
		r->flags = EXEC_CTX_EL;
		r->el = 0;
		r->ns = 1;
		a32(&rc, 0x8004, arm[1], TAKEN, 0x800c, etmkit_isa_arm);
		a32(&rc, 0x800c, arm[3], IND, 0x8000, etmkit_isa_arm);
		rc.r[rc.n - 1].flags |= EXEC_F_CYCLES;
		rc.r[rc.n - 1].cycles = 9;
	}
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, code, sizeof(code), 0x8000, 0),
			 0);
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		rt_config(&c, &ks[i]);
		encode(&c, &rc, &o);
		expected_of(&rc, rc.n, &c, &want);
		want.ncc = last_stats.cycle_counts;
		assert_true(last_stats.mispredicts >= (ks[i].mis ? 1u : 0u));
		decode_check(&c, &o, img, &want, 0, 0);
		free(o.b);
	}
	image_free(img);
	free(rc.r);
	free(want.v);
}

/* ETMv4, AArch32: a BLX (immediate) from T32 to A32, then a Context
 * packet (the security state changes) before the next atom. A Context
 * packet has no instruction-set bit, so the A32 the BLX switched to
 * stands; the decoder once re-read the T32 bit of the last address
 * packet there (fuzz_encode finding). */
void test_ctx_after_blx(void **state)
{
	static const uint8_t t32code[] = { 0x15, 0x20, 0x07, 0xf4, 0xfc, 0xee };
	static const uint32_t arm[] = { 0xe2800001, 0xeb0000bc };
	uint8_t armcode[8];
	struct insn_info in;
	struct ete_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_out o;
	struct image *img;
	struct exec_rec *r;
	static struct evs want;

	(void)state;
	for (int i = 0; i < 2; i++)
		for (int b = 0; b < 4; b++)
			armcode[4 * i + b] = (uint8_t)(arm[i] >> (8 * b));
	/* f407 eefc: BLX to 0x890c (the classifier says so too) */
	assert_int_equal(insn_decode(&in, etmkit_isa_thumb, 0x400b10,
				     t32code + 2, 4), 0);
	assert_int_equal(in.target, 0x890c);
	assert_int_equal(in.target_isa, etmkit_isa_arm);
	t32(&rc, 0x400b0e, 0x2015, 0, 0, 0);
	t32(&rc, 0x400b10, 0xf407eefc, BRANCH | TAKEN, 0x890c,
	    etmkit_isa_arm);
	rc.r[rc.n - 1].size = 4;
	r = ts_rec_add(&rc, exec_context);
	r->flags = EXEC_CTX_EL;
	r->el = 1;
	r->ns = 0;
	a32(&rc, 0x890c, arm[0], 0, 0, 0);
	a32(&rc, 0x8910, arm[1], BRANCH | TAKEN, 0x8c08, etmkit_isa_arm);
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, t32code, sizeof(t32code),
					  0x400b0e, 0), 0);
	assert_int_equal(image_add_buffer(img, armcode, sizeof(armcode),
					  0x890c, 0), 0);
	ete_enc_config_init(&c);
	c.etm.flags &= ~ETM4_CFG_ETE;
	c.etm.trcidr0 = 0x28000EA1;
	c.etm.trcidr1 = 0x4100F403;
	c.etm.trcidr2 = 0x00000488;
	c.etm.trcdevarch = 0;
	c.etm.trcconfigr = 0x8C0; /* TS, CID, VMID */
	encode(&c, &rc, &o);
	expected_of(&rc, rc.n, &c, &want);
	decode_check(&c, &o, img, &want, 0, 0);
	free(o.b);
	image_free(img);
	free(rc.r);
	free(want.v);
}
