/* PTM flow decoder: the API's contracts, hand-encoded streams over small
 * A32 and T32 programs (every expected element worked out from IHI 0035B
 * and the digest spec/ptm.md, not by running the decoder), and every PTM
 * source of the shared captures: exactly OpenCSD 1.8.0's instruction
 * ranges (its trc_pkt_lister -decode logs), tc2-ptm-rstk-t32 equal to
 * DS-5's instruction listing, the ranges form equal to the
 * per-instruction form (range_same.h) however the input is fed, and its
 * one pass (packets read from the packet decoder's input) equal to its
 * path through packet records, fed in any way, cut by gaps, corrupted. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit/test_util.h"

#include "etmkit/flow.h"
#include "elem_same.h"
#include "range_same.h"
#include "etmkit/image.h"
#include "etmkit/insn.h"
#include "etmkit/snapshot.h"

#include "flow/ptm_flow_int.h" /* one_pass */
#include "ts_elems.h"
#include "ts_session.h"
#include "ts_stream.h"

#define TESTDATA ETMKIT_SHARED_DIR "/testdata"

#define put(l, e) assert_int_equal(ts_elems_put((l), (e)), 0)

/* PFTv1.1 (ETMIDR[11:8] = 3, [7:4] = 1), as TC2's PTMs. */
#define PFT11_IDR 0x411CF312u
/* TC2's ETMCCER: 64-bit binary timestamps, Hyp bits, return stack. */
#define TC2_CCER 0x34C01AC2u

static void cfg_init(struct ptm_flow_config *c, uint32_t etmcr,
		     const struct image *img, uint32_t flags)
{
	ptm_flow_config_init(c);
	c->ptm.etmcr = etmcr;
	c->ptm.etmidr = PFT11_IDR;
	c->ptm.etmccer = TC2_CCER;
	c->image = img;
	c->flags = flags;
}

/* Every element @d has now, drained with ptm_flow_batch() into @out. */
static void drain_batches(struct ptm_flow_decoder *d, struct ts_elems *out)
{
	const struct etmkit_elem *el;
	int k;

	while ((k = ptm_flow_batch(d, &el)) > 0)
		for (int i = 0; i < k; i++)
			put(out, &el[i]);
	assert_int_equal(k, -etmkit_err_eos);
}

/* @t (@n bytes at offsets @offs, or at their own if NULL) fed in pieces
 * of @step bytes (0: one feed), drained with ptm_flow_batch() into @out
 * after each. */
static void decode_fed(struct ptm_flow_decoder *d, const uint8_t *t,
		       size_t n, const uint64_t *offs, size_t step,
		       struct ts_elems *out)
{
	size_t at = 0;

	if (!step)
		step = n ? n : 1;
	/* A source with no bytes (TC2 0x14) is only finished: its buffer
	 * may be NULL, and NULL + 0 is undefined. */
	while (at < n) {
		size_t m = n - at < step ? n - at : step;

		assert_int_equal(ptm_flow_feed(d, t + at, m,
					       offs ? offs + at : NULL, at), 0);
		drain_batches(d, out);
		at += m;
	}
	assert_int_equal(ptm_flow_finish(d), 0);
	drain_batches(d, out);
}

static void decode_with(const struct ptm_flow_config *c, const uint8_t *t,
			size_t n, const uint64_t *offs, size_t step,
			struct ts_elems *out)
{
	struct ptm_flow_decoder *d;

	assert_int_equal(ptm_flow_alloc(&d, c), 0);
	decode_fed(d, t, n, offs, step, out);
	ptm_flow_free(d);
}

/* The ranges decode of @c's input says what its per-instruction decode
 * @ref says (range_same.h). */
static void assert_ranges_same(const struct ts_elems *ref,
			       const struct ts_elems *rng,
			       const struct image *img)
{
	struct range_diff rd;

	if (ranges_same(ref->e, ref->n, rng->e, rng->n, img, 1, &rd))
		fail_msg("ranges decode differs: %s (reference element %zu, "
			 "ranges element %zu)", rd.why, rd.ref_at, rd.rng_at);
}

/* ---- Contracts ---------------------------------------------------------- */

static void test_arguments(void **state)
{
	struct ptm_flow_config c;
	struct ptm_flow_decoder *d = NULL;
	struct etmkit_elem e;
	const struct etmkit_elem *el;
	const uint8_t a_sync[6] = { 0, 0, 0, 0, 0, 0x80 };

	(void)state;
	cfg_init(&c, 0, NULL, 0);
	assert_int_equal(ptm_flow_alloc(NULL, &c), -etmkit_err_invalid);
	assert_int_equal(ptm_flow_alloc(&d, NULL), -etmkit_err_invalid);
	c.size = 8;
	assert_int_equal(ptm_flow_alloc(&d, &c), -etmkit_err_invalid);
	cfg_init(&c, 0, NULL, 0x80);
	assert_int_equal(ptm_flow_alloc(&d, &c), -etmkit_err_invalid);
	cfg_init(&c, 0, NULL, 0);
	c.ptm.etmidr = 0x410CF250; /* ETMv3.5, not PFT */
	assert_int_equal(ptm_flow_alloc(&d, &c), -etmkit_err_bad_config);
	cfg_init(&c, 0, NULL, 0);
	assert_int_equal(ptm_flow_alloc(&d, &c), 0);
	assert_int_equal(ptm_flow_next(d, &e, 0), -etmkit_err_invalid);
	assert_int_equal(ptm_flow_batch(d, NULL), -etmkit_err_invalid);
	assert_int_equal(ptm_flow_batch(d, &el), -etmkit_err_eos);
	assert_int_equal(ptm_flow_feed(d, a_sync, sizeof(a_sync), NULL, 0), 0);
	/* Fed, not drained: neither more input nor a gap. */
	assert_int_equal(ptm_flow_feed(d, a_sync, sizeof(a_sync), NULL, 6),
			 -etmkit_err_invalid);
	assert_int_equal(ptm_flow_gap(d), -etmkit_err_invalid);
	assert_int_equal(ptm_flow_batch(d, &el), -etmkit_err_eos);
	assert_int_equal(ptm_flow_gap(d), 0);
	assert_int_equal(ptm_flow_batch(d, &el), 1);
	assert_int_equal(el[0].kind, etmkit_elem_gap);
	assert_int_equal(el[0].u.loss.reason, etmkit_loss_transport);
	assert_non_null(ptm_flow_get_stats(d));
	assert_null(ptm_flow_get_stats(NULL));
	ptm_flow_reset(d);
	ptm_flow_reset(NULL);
	ptm_flow_free(d);
	ptm_flow_free(NULL);
}

/* ---- A32 ---------------------------------------------------------------- */

/* A32 at 0x8000, 0x8100 and an IRQ handler at 0x9000. */
static const uint32_t a32_main[] = {
	0xe3a00001, /* 0x8000 mov r0, #1 */
	0xe3500002, /* 0x8004 cmp r0, #2 */
	0x0a000003, /* 0x8008 beq 0x801c: fails (N) */
	0xeb000004, /* 0x800c bl 0x8024: E, pushes 0x8010 */
	0xe2800001, /* 0x8010 add r0, r0, #1 */
	0xe12fff13, /* 0x8014 bx r3: its branch packet goes to 0x8100 */
	0xe1a00000, /* 0x8018 nop */
	0xe1a00000, /* 0x801c nop */
	0xe1a00000, /* 0x8020 nop */
	0xe2822001, /* 0x8024 add r2, r2, #1 */
	0xe12fff1e, /* 0x8028 bx lr: an E atom alone pops 0x8010 */
};
static const uint32_t a32_8100[] = {
	0xe1a00000, /* 0x8100 nop */
	0xe320f000, /* 0x8104 nop (hint): the waypoint update's address */
	0xe1a00000, /* 0x8108 nop: the IRQ's preferred return address */
	0xea000000, /* 0x810c b 0x8114 */
	0xe1a00000, /* 0x8110 nop */
	0xe12fff1e, /* 0x8114 bx lr */
};
static const uint32_t a32_irq[] = {
	0xe1a00000, /* 0x9000 nop */
	0xe25ef004, /* 0x9004 subs pc, lr, #4 */
};

/* ETMCR[29] return stack on, no cycle counts (digest ptm.md 1). */
static const uint8_t a32_trace[] = {
	0, 0, 0, 0, 0, 0x80,           /* 0: A-sync (4.1) */
	0x08, 0x00, 0x80, 0x00, 0x00,  /* 6: I-sync at 0x8000, T = 0 (4.2) */
	0x21,                          /*    reason 01 trace on, S */
	0x98,                          /* 12: atoms N, E, E (4.3: 1001 1000,
					      oldest in bit 3) */
	0x81, 0x01,                    /* 13: branch to 0x8100: A[7:2] 0,
					      A[13:8] 1 (4.4) */
	0x72, 0x03,                    /* 15: waypoint update, A[7:2] = 1:
					      0x8104 (4.5) */
	0x81, 0x50, 0x1c,              /* 17: branch to 0x9000, exception
					      byte: IRQ (14), S (4.4) */
	0x85, 0x01,                    /* 20: branch to 0x8108 */
	0x76,                          /* 22: exception return (4.6) */
	0x84,                          /* 23: atom E (b 0x8114) */
};

static struct image *a32_image(void)
{
	struct image *img;

	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, a32_main, sizeof(a32_main),
					  0x8000, 0), 0);
	assert_int_equal(image_add_buffer(img, a32_8100, sizeof(a32_8100),
					  0x8100, 0), 0);
	assert_int_equal(image_add_buffer(img, a32_irq, sizeof(a32_irq),
					  0x9000, 0), 0);
	return img;
}

struct want_insn {
	uint32_t addr;
	uint8_t isa, size, flags;
	uint32_t cycles;
	uint64_t offset;
};

static void assert_insn(const struct etmkit_elem *e,
			const struct want_insn *w)
{
	if (e->kind != etmkit_elem_insn || e->addr != w->addr ||
	    e->isa != w->isa || e->size != w->size || e->flags != w->flags ||
	    e->cycles != w->cycles || e->offset != w->offset)
		fail_msg("insn: kind %u addr 0x%llx isa %u size %u flags 0x%x "
			 "cycles %u offset %llu; want addr 0x%x isa %u size %u "
			 "flags 0x%x cycles %u offset %llu", e->kind,
			 (unsigned long long)e->addr, e->isa, e->size, e->flags,
			 e->cycles, (unsigned long long)e->offset, w->addr,
			 w->isa, w->size, w->flags, w->cycles,
			 (unsigned long long)w->offset);
}

/* The insns want[0..n) at l->e[*at...]. */
static void assert_insns(const struct ts_elems *l, size_t *at,
			 const struct want_insn *want, size_t n)
{
	for (size_t i = 0; i < n; i++, (*at)++) {
		assert_true(*at < l->n);
		assert_insn(&l->e[*at], &want[i]);
	}
}

#define X ETMKIT_INSN_EXEC
#define N ETMKIT_INSN_COND_FAIL
#define ARM etmkit_isa_arm
#define T32 etmkit_isa_thumb
#define TEE etmkit_isa_thumbee

static void test_a32_stream(void **state)
{
	static const struct want_insn first[] = {
		{ 0x8000, ARM, 4, X, 0, 12 },
		{ 0x8004, ARM, 4, X, 0, 12 },
		{ 0x8008, ARM, 4, N, 0, 12 }, /* beq, N atom */
		{ 0x800c, ARM, 4, X, 0, 12 }, /* bl: E, to 0x8024 */
		{ 0x8024, ARM, 4, X, 0, 12 },
		{ 0x8028, ARM, 4, X, 0, 12 }, /* bx lr: E, popped */
		{ 0x8010, ARM, 4, X, 0, 13 },
		{ 0x8014, ARM, 4, X, 0, 13 }, /* bx r3: the packet's E */
		{ 0x8100, ARM, 4, X, 0, 15 },
		{ 0x8104, ARM, 4, X, 0, 15 }, /* the update's address */
	};
	static const struct want_insn handler[] = {
		{ 0x9000, ARM, 4, X, 0, 20 },
		{ 0x9004, ARM, 4, X, 0, 20 }, /* subs pc, lr: the packet's E */
	};
	static const struct want_insn after[] = {
		{ 0x8108, ARM, 4, X, 0, 23 },
		{ 0x810c, ARM, 4, X, 0, 23 },
	};
	struct ptm_flow_config c;
	struct image *img = a32_image();
	struct ts_elems l = { 0 }, r = { 0 };
	const struct etmkit_elem *e;
	size_t at = 0;

	(void)state;
	cfg_init(&c, PTM_ETMCR_RETURN_STACK, img, 0);
	decode_with(&c, a32_trace, sizeof(a32_trace), NULL, 0, &l);
	assert_true(l.n > 2);
	e = &l.e[at++];
	assert_int_equal(e->kind, etmkit_elem_trace_on);
	assert_int_equal(e->u.trace_on.reason, etmkit_on_trace_enable);
	assert_int_equal(e->addr, 0x8000);
	assert_int_equal(e->isa, ARM);
	assert_false(e->flags & ETMKIT_TRACE_ON_CYCLES);
	e = &l.e[at++];
	assert_int_equal(e->kind, etmkit_elem_context);
	assert_int_equal(e->u.context.ns, 0);
	assert_insns(&l, &at, first, sizeof(first) / sizeof(first[0]));
	/* The IRQ: from past the update's address (digest ptm.md 4.4). */
	assert_true(at < l.n);
	e = &l.e[at++];
	assert_int_equal(e->kind, etmkit_elem_exception);
	assert_int_equal(e->offset, 17);
	assert_int_equal(e->addr, 0x9000);
	assert_int_equal(e->isa, ARM);
	assert_int_equal(e->u.exception.number, 14);
	assert_int_equal(e->flags, ETMKIT_EXC_RET_ADDR);
	assert_int_equal(e->u.exception.ret_addr, 0x8108);
	assert_insns(&l, &at, handler, 2);
	assert_true(at < l.n);
	e = &l.e[at++];
	assert_int_equal(e->kind, etmkit_elem_exception_return);
	assert_int_equal(e->offset, 22);
	assert_insns(&l, &at, after, 2);
	assert_int_equal(at, l.n);

	/* The ranges form says the same; fed byte by byte too. */
	cfg_init(&c, PTM_ETMCR_RETURN_STACK, img, PTM_FLOW_RANGES);
	decode_with(&c, a32_trace, sizeof(a32_trace), NULL, 0, &r);
	assert_ranges_same(&l, &r, img);
	/* A range a packet: 0x8000-0x800c in one (the N ends it). */
	assert_int_equal(r.e[2].kind, etmkit_elem_insn_range);
	assert_int_equal(r.e[2].addr, 0x8000);
	assert_int_equal(r.e[2].u.range.count, 3);
	assert_int_equal(r.e[2].flags, N);
	r.n = 0;
	decode_with(&c, a32_trace, sizeof(a32_trace), NULL, 1, &r);
	assert_ranges_same(&l, &r, img);

	/* Without the return stack the E atom on bx lr has no address:
	 * the walk waits (a gap of reason no_address for the atoms
	 * after it), and the branch packet moves it on. */
	l.n = 0;
	cfg_init(&c, 0, img, 0);
	decode_with(&c, a32_trace, sizeof(a32_trace), NULL, 0, &l);
	at = 2;
	assert_insns(&l, &at, first, 6);
	e = &l.e[at++];
	assert_int_equal(e->kind, etmkit_elem_gap);
	assert_int_equal(e->u.loss.reason, etmkit_loss_no_address);
	assert_int_equal(e->offset, 13);
	assert_int_equal(l.e[at].kind, etmkit_elem_insn);
	assert_int_equal(l.e[at].addr, 0x8100);

	/* An I-sync empties the return stack (as OpenCSD), and a periodic
	 * one in running trace does not restart it: after it the E atom
	 * alone on bx lr pops nothing, and the next atom has no address. */
	static const uint8_t resync[] = {
		0, 0, 0, 0, 0, 0x80,
		0x08, 0x0c, 0x80, 0x00, 0x00, 0x21, /* 6: I-sync 0x800c */
		0x84,                               /* 12: E: bl, pushes */
		0x08, 0x24, 0x80, 0x00, 0x00, 0x01, /* 13: periodic, 0x8024 */
		0x88,                               /* 19: E, E (4.3) */
	};
	static const struct want_insn rs_want[] = {
		{ 0x800c, ARM, 4, X, 0, 12 },
		{ 0x8024, ARM, 4, X, 0, 19 },
		{ 0x8028, ARM, 4, X, 0, 19 },
	};
	l.n = 0;
	cfg_init(&c, PTM_ETMCR_RETURN_STACK, img, 0);
	decode_with(&c, resync, sizeof(resync), NULL, 0, &l);
	assert_int_equal(l.n, 6);
	assert_int_equal(l.e[0].kind, etmkit_elem_trace_on);
	assert_int_equal(l.e[1].kind, etmkit_elem_context);
	at = 2;
	assert_insns(&l, &at, rs_want, 3);
	assert_int_equal(l.e[5].kind, etmkit_elem_gap);
	assert_int_equal(l.e[5].u.loss.reason, etmkit_loss_no_address);
	assert_int_equal(l.e[5].offset, 19);

	/* A return traced by its address pops nothing (as OpenCSD: only an
	 * atom alone pops; digest ptm.md 4.4, the rules are UNCONFIRMED):
	 * the bl's return address waits for the next return traced by an
	 * atom alone. */
	static const uint8_t kept[] = {
		0, 0, 0, 0, 0, 0x80,
		0x08, 0x0c, 0x80, 0x00, 0x00, 0x21, /* 6: I-sync 0x800c */
		0x84,                               /* 12: E: bl, pushes */
		0x81, 0x01,                         /* 13: bx lr to 0x8100 */
		0x88,                               /* 15: E (b), E (bx lr) */
		0x84,                               /* 16: E: bx r3 */
	};
	static const struct want_insn kept_want[] = {
		{ 0x800c, ARM, 4, X, 0, 12 },
		{ 0x8024, ARM, 4, X, 0, 13 },
		{ 0x8028, ARM, 4, X, 0, 13 },
		{ 0x8100, ARM, 4, X, 0, 15 },
		{ 0x8104, ARM, 4, X, 0, 15 },
		{ 0x8108, ARM, 4, X, 0, 15 },
		{ 0x810c, ARM, 4, X, 0, 15 },
		{ 0x8114, ARM, 4, X, 0, 15 }, /* pops 0x8010 */
		{ 0x8010, ARM, 4, X, 0, 16 },
		{ 0x8014, ARM, 4, X, 0, 16 },
	};
	l.n = 0;
	decode_with(&c, kept, sizeof(kept), NULL, 0, &l);
	assert_int_equal(l.n, 12);
	at = 2;
	assert_insns(&l, &at, kept_want, 10);

	/* A waypoint update says execution reached its address without
	 * a new waypoint (IHI 0035B 4.5): one the walk reaches only through
	 * a waypoint (the beq at 0x8008), or one behind the walk (0x8000
	 * after 0x8004), contradicts the image. Reported where the walk
	 * stood (no_image, mismatch), nothing delivered from there; the
	 * next address resumes (the branch's implied atom lost). OpenCSD
	 * walks on through such waypoints as not taken. */
	static const uint8_t passed[] = {
		0, 0, 0, 0, 0, 0x80,
		0x08, 0x00, 0x80, 0x00, 0x00, 0x21, /* 6: I-sync 0x8000 */
		0x72, 0x09,                         /* 12: update, 0x8010 */
	};
	static const uint8_t behind[] = {
		0, 0, 0, 0, 0, 0x80,
		0x08, 0x00, 0x80, 0x00, 0x00, 0x21, /* 6: I-sync 0x8000 */
		0x72, 0x03,                         /* 12: update, 0x8004 */
		0x72, 0x01,                         /* 14: update, 0x8000 */
		0x84,                               /* 16: atom E: lost */
		0x81, 0x01,                         /* 17: branch to 0x8100 */
		0x72, 0x03,                         /* 19: update, 0x8104 */
	};
	static const struct want_insn behind_want[] = {
		{ 0x8000, ARM, 4, X, 0, 12 },
		{ 0x8004, ARM, 4, X, 0, 12 },
		{ 0x8100, ARM, 4, X, 0, 19 },
		{ 0x8104, ARM, 4, X, 0, 19 },
	};
	for (int form = 0; form < 2; form++) {
		cfg_init(&c, PTM_ETMCR_RETURN_STACK, img,
			 form ? PTM_FLOW_RANGES : 0);
		l.n = 0;
		decode_with(&c, passed, sizeof(passed), NULL, 0, &l);
		assert_int_equal(l.n, 3);
		assert_int_equal(l.e[2].kind, etmkit_elem_no_image);
		assert_int_equal(l.e[2].addr, 0x8000);
		assert_int_equal(l.e[2].isa, ARM);
		assert_int_equal(l.e[2].offset, 12);
		assert_int_equal(l.e[2].u.loss.reason, etmkit_loss_mismatch);
	}
	cfg_init(&c, PTM_ETMCR_RETURN_STACK, img, 0);
	l.n = 0;
	decode_with(&c, behind, sizeof(behind), NULL, 1, &l);
	assert_int_equal(l.n, 7);
	at = 2;
	assert_insns(&l, &at, behind_want, 2);
	assert_int_equal(l.e[4].kind, etmkit_elem_no_image);
	assert_int_equal(l.e[4].addr, 0x8008);
	assert_int_equal(l.e[4].offset, 14);
	assert_int_equal(l.e[4].u.loss.reason, etmkit_loss_mismatch);
	at = 5;
	assert_insns(&l, &at, behind_want + 2, 2);
	cfg_init(&c, PTM_ETMCR_RETURN_STACK, img, PTM_FLOW_RANGES);
	r.n = 0;
	decode_with(&c, behind, sizeof(behind), NULL, 0, &r);
	assert_ranges_same(&l, &r, img);

	/* No image: the addresses are reported, no instruction is. */
	l.n = 0;
	cfg_init(&c, PTM_ETMCR_RETURN_STACK, NULL, 0);
	decode_with(&c, a32_trace, sizeof(a32_trace), NULL, 0, &l);
	for (size_t i = 0; i < l.n; i++)
		assert_int_not_equal(l.e[i].kind, etmkit_elem_insn);
	assert_int_equal(l.e[2].kind, etmkit_elem_no_image);
	assert_int_equal(l.e[2].addr, 0x8000);
	assert_int_equal(l.e[2].u.loss.reason, etmkit_loss_unmapped);
	image_free(img);
	ts_elems_free(&l);
	ts_elems_free(&r);
}

/* A 32-bit cycle count (IHI 0035B 4.4: 5 bytes) saturates at 0xFFFF0000
 * (elem.h): a range's cycles are then still its instructions' sum. */
static void test_cycles_saturate(void **state)
{
	static const uint8_t trace[] = {
		0, 0, 0, 0, 0, 0x80,
		0x08, 0x0c, 0x80, 0x00, 0x00, 0x21, /* 6: I-sync 0x800c */
		0x04,                               /*    1 cycle */
		0xfc, 0xff, 0xff, 0xff, 0x7f,       /* 13: E, 0xFFFFFFFF */
	};
	struct ptm_flow_config c;
	struct image *img = a32_image();
	struct ts_elems l = { 0 }, r = { 0 };

	(void)state;
	cfg_init(&c, PTM_ETMCR_CYCLE_ACCURATE, img, 0);
	decode_with(&c, trace, sizeof(trace), NULL, 0, &l);
	assert_int_equal(l.n, 3);
	assert_int_equal(l.e[2].addr, 0x800c);
	assert_int_equal(l.e[2].flags, X | ETMKIT_INSN_CYCLES);
	assert_int_equal(l.e[2].cycles, 0xFFFF0000u);
	cfg_init(&c, PTM_ETMCR_CYCLE_ACCURATE, img, PTM_FLOW_RANGES);
	decode_with(&c, trace, sizeof(trace), NULL, 0, &r);
	assert_ranges_same(&l, &r, img);
	image_free(img);
	ts_elems_free(&l);
	ts_elems_free(&r);
}

/* DMB and DSB are waypoints when ETMCCER[24] says so (digest ptm.md 1):
 * an atom each; else the walk goes through them to the branch. */
static void test_dmb_waypoints(void **state)
{
	static const uint32_t code[] = {
		0xe3a00001, /* 0xa000 mov r0, #1 */
		0xf57ff05f, /* 0xa004 dmb sy */
		0xe2800001, /* 0xa008 add r0, r0, #1 */
		0xeafffffb, /* 0xa00c b 0xa000 */
	};
	static const uint8_t trace[] = {
		0, 0, 0, 0, 0, 0x80,
		0x08, 0x00, 0xa0, 0x00, 0x00, 0x21, /* 6: I-sync 0xa000 */
		0x90,                               /* 12: E E E (4.3) */
	};
	static const uint32_t with[] = { 0xa000, 0xa004, 0xa008, 0xa00c,
					 0xa000, 0xa004 };
	struct ptm_flow_config c;
	struct image *img;
	struct ts_elems l = { 0 };

	(void)state;
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, code, sizeof(code), 0xa000, 0),
			 0);
	cfg_init(&c, 0, img, 0);
	c.ptm.etmccer |= PTM_ETMCCER_DMB_WAYPOINT;
	decode_with(&c, trace, sizeof(trace), NULL, 0, &l);
	assert_int_equal(l.n, 2 + 6);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(l.e[2 + i].kind, etmkit_elem_insn);
		assert_int_equal(l.e[2 + i].addr, with[i]);
		assert_int_equal(l.e[2 + i].flags, X);
	}
	assert_true(l.e[3].u.insn.class_flags & INSN_F_BARRIER);
	l.n = 0;
	c.ptm.etmccer &= ~PTM_ETMCCER_DMB_WAYPOINT;
	decode_with(&c, trace, sizeof(trace), NULL, 0, &l);
	assert_int_equal(l.n, 2 + 12);
	assert_int_equal(l.e[l.n - 1].addr, 0xa00c);
	image_free(img);
	ts_elems_free(&l);
}

/* A loop of 40 NOPs and a branch back: each E atom walks two blocks
 * (FLOW_BLOCK_MAX 32, block.h) into one range; 300 atoms in one feed
 * fill the queue (256 elements) inside walks, whose ranges go on in the
 * next batch. */
static void test_queue_full(void **state)
{
	uint32_t code[41];
	uint8_t trace[12 + 60];
	struct ptm_flow_config c;
	struct image *img;
	struct ts_elems l = { 0 }, r = { 0 };

	(void)state;
	for (int i = 0; i < 40; i++)
		code[i] = 0xe1a00000;         /* nop */
	code[40] = 0xeaffffd6;                /* 0x80a0: b 0x8000 */
	memcpy(trace, a32_trace, 12);         /* A-sync, I-sync 0x8000 */
	memset(trace + 12, 0xc0, 60);         /* E E E E E (4.3) */
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, code, sizeof(code), 0x8000, 0),
			 0);
	cfg_init(&c, 0, img, 0);
	decode_with(&c, trace, sizeof(trace), NULL, 0, &l);
	assert_int_equal(l.n, 2 + 300 * 41);
	assert_int_equal(l.e[l.n - 1].addr, 0x80a0);
	cfg_init(&c, 0, img, PTM_FLOW_RANGES);
	decode_with(&c, trace, sizeof(trace), NULL, 0, &r);
	assert_ranges_same(&l, &r, img);
	assert_int_equal(r.n, 2 + 300);
	image_free(img);
	ts_elems_free(&l);
	ts_elems_free(&r);
}

/* The ranges form's loop goes on through an I-sync: the walk stands at a
 * block the last atom's branch linked (0x8024), and the I-sync moves it
 * to 0x8100, where the next atom's range starts (not at the linked
 * block). */
static void test_isync_moves_ranges(void **state)
{
	static const uint8_t trace[] = {
		0, 0, 0, 0, 0, 0x80,
		0x08, 0x0c, 0x80, 0x00, 0x00, 0x21, /* 6: I-sync 0x800c */
		0x88,                   /* 12: E (bl, links 0x8024), E (bx lr) */
		0x08, 0x0c, 0x80, 0x00, 0x00, 0x21, /* 13: I-sync 0x800c */
		0x84,                               /* 19: E: bl to 0x8024 */
		0x08, 0x00, 0x81, 0x00, 0x00, 0x21, /* 20: I-sync 0x8100 */
		0x84,                               /* 26: E: b 0x8114 */
	};
	struct ptm_flow_config c;
	struct image *img = a32_image();
	struct ts_elems l = { 0 }, r = { 0 };

	(void)state;
	cfg_init(&c, 0, img, 0);
	decode_with(&c, trace, sizeof(trace), NULL, 0, &l);
	cfg_init(&c, 0, img, PTM_FLOW_RANGES);
	decode_with(&c, trace, sizeof(trace), NULL, 0, &r);
	assert_ranges_same(&l, &r, img);
	assert_int_equal(r.n, 10);
	assert_int_equal(r.e[7].kind, etmkit_elem_trace_on);
	assert_int_equal(r.e[9].kind, etmkit_elem_insn_range);
	assert_int_equal(r.e[9].addr, 0x8100);
	assert_int_equal(r.e[9].u.range.count, 4);
	assert_int_equal(r.e[9].offset, 26);
	image_free(img);
	ts_elems_free(&l);
	ts_elems_free(&r);
}

/* The return stack across a change of memory space: a call in Secure
 * code whose return comes, as an E atom alone, after an exception into
 * Non-secure code (IHI 0035B 4.4; digest ptm.md 4.4: the model pops for
 * it). The return address is looked up in the space the core is in
 * then, as any other address: the image has no Non-secure code there, so
 * no_image, whether or not the decoder's cache still holds the Secure
 * block it noted at the call (it does here: the call ran once before
 * and its return's block was linked). The output may not depend on the
 * cache: the parallel decode takes it as a function of the state it
 * compares (par_state_ptm.c), which leaves the cache out. */
static const uint32_t rs_secure[] = {
	0xeb000002, /* 0x8000 bl 0x8010: pushes 0x8004 */
	0xeafffffd, /* 0x8004 b 0x8000 */
	0xe1a00000, /* 0x8008 nop */
	0xe1a00000, /* 0x800c nop */
	0xe12fff1e, /* 0x8010 bx lr */
};
static const uint32_t rs_nonsecure[] = {
	0xe12fff1e, /* 0xa000 bx lr: an E atom alone pops 0x8004 */
};
static const uint8_t rs_space_trace[] = {
	0, 0, 0, 0, 0, 0x80,           /* 0: A-sync */
	0x08, 0x00, 0x80, 0x00, 0x00,  /* 6: I-sync at 0x8000, Secure */
	0x21,
	0xa0,                          /* 12: atoms E E E E: bl, bx lr
					      (pops 0x8004), b, bl */
	0x81, 0x60, 0x1d,              /* 13: exception at 0x8010: IRQ to
					      0xa000 (A[13:8] 0x20), NS */
	0x84,                          /* 16: E: bx lr, popped */
	0x84,                          /* 17: E: lost (no image) */
};

static void test_rs_space(void **state)
{
	struct ptm_flow_config c;
	struct image *img;
	struct ts_elems l = { 0 };
	size_t k;

	(void)state;
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, rs_secure, sizeof(rs_secure),
					  0x8000, IMAGE_SPACE_S), 0);
	assert_int_equal(image_add_buffer(img, rs_nonsecure,
					  sizeof(rs_nonsecure), 0xa000,
					  IMAGE_SPACE_EL1N), 0);
	cfg_init(&c, PTM_ETMCR_RETURN_STACK, img, 0);
	decode_with(&c, rs_space_trace, sizeof(rs_space_trace), NULL, 0, &l);
	for (k = 0; k < l.n && l.e[k].kind != etmkit_elem_exception; k++)
		;
	assert_true(k + 3 < l.n);
	assert_int_equal(l.e[k].u.exception.ret_addr, 0x8010);
	assert_int_equal(l.e[k + 1].kind, etmkit_elem_context);
	assert_int_equal(l.e[k + 1].u.context.ns, 1);
	assert_int_equal(l.e[k + 2].kind, etmkit_elem_insn);
	assert_int_equal(l.e[k + 2].addr, 0xa000);
	assert_int_equal(l.e[k + 3].kind, etmkit_elem_no_image);
	assert_int_equal(l.e[k + 3].addr, 0x8004);
	assert_int_equal(l.e[k + 3].u.loss.space, IMAGE_SPACE_EL1N);
	assert_int_equal(k + 4, l.n);
	ts_elems_free(&l);
	image_free(img);
}

/* ---- T32, ThumbEE, cycle-accurate ---------------------------------------- */

/* Thumb at 0x4000 (GNU as, armv7-a), an A32 function at 0x4028:
 * 0x4000 movs r0, #1
 * 0x4002 bl 0x401c          E, pushes 0x4006 (Thumb)
 * 0x4006 cmp r0, #1
 * 0x4008 bne 0x4020         N
 * 0x400a blx 0x4028         E, to A32, pushes 0x400e (Thumb)
 * 0x400e enterx             to ThumbEE: no waypoint
 * 0x4012 adds r1, #1        (ThumbEE)
 * 0x4014 leavex             back to Thumb
 * 0x4018 adds r1, #2
 * 0x401a b 0x401a           E
 * 0x401c adds r2, #1
 * 0x401e bx lr              E alone: pops 0x4006
 * 0x4020 nop; 0x4022 .short 0; 0x4024 nop (A32)
 * 0x4028 add r3, r3, #1     (A32)
 * 0x402c bx lr              E alone: pops 0x400e (Thumb) */
static const uint8_t t32_code[] = {
	0x01, 0x20, 0x00, 0xf0, 0x0b, 0xf8, 0x01, 0x28, 0x0a, 0xd1, 0x00, 0xf0,
	0x0e, 0xe8, 0xbf, 0xf3, 0x1f, 0x8f, 0x01, 0x31, 0xbf, 0xf3, 0x0f, 0x8f,
	0x02, 0x31, 0xfe, 0xe7, 0x01, 0x32, 0x70, 0x47, 0x00, 0xbf, 0x00, 0x00,
	0x00, 0xf0, 0x20, 0xe3, 0x01, 0x30, 0x83, 0xe2, 0x1e, 0xff, 0x2f, 0xe1
};

/* ETMCR[12] cycle-accurate, [28] timestamps, [29] return stack. */
static const uint8_t t32_trace[] = {
	0, 0, 0, 0, 0, 0x80,           /* 0: A-sync */
	0x08, 0x01, 0x40, 0x00, 0x00,  /* 6: I-sync at 0x4000, T = 1 */
	0x21, 0x14,                    /*    trace on, cycle count 5 (3) */
	0x8c,                          /* 13: E, 3 cycles (4.3: 1 0 0011 0 0) */
	0x90,                          /* 14: E, 4 */
	0x8a,                          /* 15: N, 2 */
	0x84,                          /* 16: E, 1 */
	0x98,                          /* 17: E, 6 */
	0x9c,                          /* 18: E, 7 */
	0x42, 0x05, 0x08,              /* 19: timestamp 5, 2 cycles (4.9) */
};

static void test_t32_stream(void **state)
{
	static const struct want_insn want[] = {
		{ 0x4000, T32, 2, X | ETMKIT_INSN_CYCLES, 0, 13 },
		{ 0x4002, T32, 4, X | ETMKIT_INSN_CYCLES, 3, 13 },
		{ 0x401c, T32, 2, X | ETMKIT_INSN_CYCLES, 0, 14 },
		{ 0x401e, T32, 2, X | ETMKIT_INSN_CYCLES, 4, 14 },
		{ 0x4006, T32, 2, X | ETMKIT_INSN_CYCLES, 0, 15 },
		{ 0x4008, T32, 2, N | ETMKIT_INSN_CYCLES, 2, 15 },
		{ 0x400a, T32, 4, X | ETMKIT_INSN_CYCLES, 1, 16 },
		{ 0x4028, ARM, 4, X | ETMKIT_INSN_CYCLES, 0, 17 },
		{ 0x402c, ARM, 4, X | ETMKIT_INSN_CYCLES, 6, 17 },
		{ 0x400e, T32, 4, X | ETMKIT_INSN_CYCLES, 0, 18 },
		{ 0x4012, TEE, 2, X | ETMKIT_INSN_CYCLES, 0, 18 },
		{ 0x4014, TEE, 4, X | ETMKIT_INSN_CYCLES, 0, 18 },
		{ 0x4018, T32, 2, X | ETMKIT_INSN_CYCLES, 0, 18 },
		{ 0x401a, T32, 2, X | ETMKIT_INSN_CYCLES, 7, 18 },
	};
	struct ptm_flow_config c;
	struct image *img;
	struct ts_elems l = { 0 }, r = { 0 };
	const struct etmkit_elem *e;
	size_t at = 0;
	const uint32_t etmcr = PTM_ETMCR_CYCLE_ACCURATE | PTM_ETMCR_TIMESTAMP |
			       PTM_ETMCR_RETURN_STACK;

	(void)state;
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, t32_code, sizeof(t32_code),
					  0x4000, 0), 0);
	cfg_init(&c, etmcr, img, 0);
	decode_with(&c, t32_trace, sizeof(t32_trace), NULL, 0, &l);
	assert_true(l.n > 2);
	e = &l.e[at++];
	assert_int_equal(e->kind, etmkit_elem_trace_on);
	assert_int_equal(e->addr, 0x4000);
	assert_int_equal(e->isa, T32);
	assert_int_equal(e->flags, ETMKIT_TRACE_ON_CYCLES);
	assert_int_equal(e->cycles, 5);
	assert_int_equal(l.e[at++].kind, etmkit_elem_context);
	assert_insns(&l, &at, want, sizeof(want) / sizeof(want[0]));
	/* The timestamp's count traces no waypoint: a cycle_count. */
	assert_true(at + 2 == l.n);
	assert_int_equal(l.e[at].kind, etmkit_elem_cycle_count);
	assert_int_equal(l.e[at].cycles, 2);
	assert_int_equal(l.e[at].offset, 19);
	assert_int_equal(l.e[at + 1].kind, etmkit_elem_timestamp);
	assert_int_equal(l.e[at + 1].u.timestamp.value, 5);

	cfg_init(&c, etmcr, img, PTM_FLOW_RANGES);
	decode_with(&c, t32_trace, sizeof(t32_trace), NULL, 0, &r);
	assert_ranges_same(&l, &r, img);
	/* ENTERX and LEAVEX end ranges: the instruction set changes. */
	assert_int_equal(r.n, 2 + 8 + 2);
	image_free(img);
	ts_elems_free(&l);
	ts_elems_free(&r);
}

/* ---- Captures ----------------------------------------------------------- */

/* One PTM trace source of a shared capture. */
struct capture {
	const char *snap;   /* under testdata */
	const char *source; /* its trace source device */
	uint8_t id;
	const char *ds5;    /* DS-5's listing, or NULL */
};

static const struct capture captures[] = {
	{ "etmv3/TC2", "PTM_0", 0x13, NULL },
	{ "etmv3/TC2", "PTM_1", 0x14, NULL },
	{ "ptm/Snowball", "PTM_0", 0x10, NULL },
	{ "ptm/Snowball", "PTM_1", 0x11, NULL },
	{ "ptm/tc2-ptm-rstk-t32", "PTM_0_2", 0x02,
	  "ds-5_trace_dump/a15_rs.txt" },
};

struct loaded {
	struct ptm_flow_config cfg;
	struct image *img;
	uint8_t *bytes;
	uint64_t *offs;
	size_t n;
};

/* Load capture @k: registers, image, its trace ID's bytes and their
 * offsets. Returns 0, or -1 when the testdata is missing. */
static int load(const struct capture *k, struct loaded *out)
{
	char dir[1024];
	struct snapshot *ss;
	struct snapshot_diag diag;
	const struct snapshot_source *src = NULL;
	const struct snapshot_device *dev, *core;
	const struct snapshot_buffer *buf;
	struct etm3_config regs;
	struct image_diag idiag;
	uint8_t id;

	memset(out, 0, sizeof(*out));
	snprintf(dir, sizeof(dir), "%s/%s", TESTDATA, k->snap);
	if (snapshot_open(&ss, dir, &diag))
		return -1;
	for (size_t i = 0; i < snapshot_source_count(ss); i++)
		if (!strcmp(snapshot_source_at(ss, i)->name, k->source))
			src = snapshot_source_at(ss, i);
	assert_non_null(src);
	dev = snapshot_find_device(ss, src->name);
	core = snapshot_find_device(ss, src->core);
	buf = snapshot_find_buffer(ss, src->buffer);
	assert_non_null(dev);
	assert_non_null(core);
	assert_non_null(buf);
	/* PTM's registers have ETMv3's names. */
	etm3_config_init(&regs);
	assert_int_equal(snapshot_etm3_config(dev, &regs, &id, NULL), 0);
	assert_int_equal(id, k->id);
	ptm_flow_config_init(&out->cfg);
	out->cfg.ptm.etmcr = regs.etmcr;
	out->cfg.ptm.etmidr = regs.etmidr;
	out->cfg.ptm.etmccer = regs.etmccer;
	assert_int_equal(image_alloc(&out->img), 0);
	assert_int_equal(image_add_snapshot_device(out->img, core, &idiag), 0);
	out->cfg.image = out->img;
	if (!strcmp(buf->format, "coresight")) {
		struct ts_stream st;
		size_t nf;
		uint8_t *frames = ts_read_file(buf->file, &nf);

		assert_non_null(frames);
		assert_int_equal(ts_stream_deformat(frames, nf, k->id, 1, &st),
				 0);
		free(frames);
		out->bytes = st.b;
		out->offs = st.offs;
		out->n = st.n;
	} else {
		out->bytes = ts_read_file(buf->file, &out->n);
		assert_non_null(out->bytes);
	}
	snapshot_free(ss);
	return 0;
}

static void unload(struct loaded *x)
{
	image_free(x->img);
	free(x->bytes);
	free(x->offs);
}

/* OpenCSD's instruction ranges of trace ID @id in its log @path: start,
 * end, count, isa, E. */
struct ocsd_range {
	uint64_t start, end;
	uint32_t count, cycles; /* cycles: [CC=n], or 0 */
	uint8_t isa, exec;
};

static size_t read_ocsd(const char *path, uint8_t id, struct ocsd_range **out)
{
	FILE *f = fopen(path, "r");
	char line[1024], tag[32];
	size_t n = 0, cap = 0;
	struct ocsd_range *v = NULL;

	assert_non_null(f);
	snprintf(tag, sizeof(tag), "ID:%x;", id);
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "INSTR_RANGE(exec range=");
		unsigned long long s, e;
		unsigned cnt, sz, cc;
		char isa[16], en;

		if (!p || !strstr(line, tag))
			continue;
		if (sscanf(p, "INSTR_RANGE(exec range=0x%llx:[0x%llx] "
			   "num_i(%u) last_sz(%u) (ISA=%15[^)])", &s, &e, &cnt,
			   &sz, isa) != 5)
			fail_msg("cannot read: %s", line);
		/* "(ISA=A32) E", "(ISA=ARM(32)) E" */
		p = strchr(strstr(p, "(ISA="), ')') + 1;
		if (*p == ')')
			p++;
		en = p[1];
		p = strstr(p, "[CC=");
		if (!p || sscanf(p, "[CC=%u]", &cc) != 1)
			cc = 0;
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			v = realloc(v, cap * sizeof(*v));
			assert_non_null(v);
		}
		v[n].start = s;
		v[n].end = e;
		v[n].count = cnt;
		v[n].isa = !strcmp(isa, "A32") ? ARM :
			   !strcmp(isa, "T32") ? T32 : 0xff;
		v[n].exec = en == 'E';
		v[n].cycles = cc;
		assert_true(en == 'E' || en == 'N');
		n++;
	}
	fclose(f);
	*out = v;
	return n;
}

/* Every OpenCSD range covered exactly by the next instructions of @l:
 * as many, contiguous, from its start to its end, in its instruction
 * set, the last executed as it says, its cycle count the range's
 * (OpenCSD puts an atom's or branch packet's count on the range that
 * ends at its waypoint too); and no instruction besides. */
static void assert_ocsd_ranges(const struct ts_elems *l,
			       const struct ocsd_range *v, size_t nv,
			       const char *what)
{
	size_t i = 0;

	for (size_t r = 0; r < nv; r++) {
		for (uint32_t k = 0; k < v[r].count; k++, i++) {
			const struct etmkit_elem *e;

			while (i < l->n && l->e[i].kind != etmkit_elem_insn)
				i++;
			if (i == l->n)
				fail_msg("%s: OpenCSD range %zu (0x%llx): no "
					 "more instructions", what, r,
					 (unsigned long long)v[r].start);
			e = &l->e[i];
			if (e->addr != (k ? l->e[i - 1].addr + l->e[i - 1].size
					  : v[r].start) ||
			    e->isa != v[r].isa ||
			    (k + 1 == v[r].count &&
			     (e->addr + e->size != v[r].end ||
			      !!(e->flags & ETMKIT_INSN_EXEC) != v[r].exec ||
			      e->cycles != v[r].cycles)) ||
			    (k + 1 < v[r].count && e->cycles))
				fail_msg("%s: OpenCSD range %zu 0x%llx-0x%llx "
					 "num_i %u %c CC %u: instruction %u is "
					 "0x%llx isa %u flags 0x%x cycles %u",
					 what, r, (unsigned long long)v[r].start,
					 (unsigned long long)v[r].end,
					 v[r].count, v[r].exec ? 'E' : 'N',
					 v[r].cycles, k,
					 (unsigned long long)e->addr, e->isa,
					 e->flags, e->cycles);
		}
	}
	for (; i < l->n; i++)
		if (l->e[i].kind == etmkit_elem_insn)
			fail_msg("%s: an instruction after OpenCSD's last "
				 "range, at 0x%llx", what,
				 (unsigned long long)l->e[i].addr);
}

/* OpenCSD's exceptions of trace ID @id in its log @path (number and
 * preferred return address, in order) are ours. */
static void assert_ocsd_exceptions(const struct ts_elems *l, const char *path,
				   uint8_t id)
{
	FILE *f = fopen(path, "r");
	char line[1024], tag[32];
	size_t i = 0, count = 0;

	assert_non_null(f);
	snprintf(tag, sizeof(tag), "ID:%x;", id);
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "ELEM_EXCEPTION(pref ret addr:");
		unsigned long long ret;
		unsigned num, cc = 0;
		const char *c;

		if (!p || !strstr(line, tag))
			continue;
		assert_int_equal(sscanf(p, "ELEM_EXCEPTION(pref ret addr:0x%llx; "
					"excep num (0x%x)", &ret, &num), 2);
		c = strstr(p, "[CC=");
		if (c)
			assert_int_equal(sscanf(c, "[CC=%u]", &cc), 1);
		while (i < l->n && l->e[i].kind != etmkit_elem_exception)
			i++;
		if (i == l->n)
			fail_msg("%s: OpenCSD's exception %zu: none here", path,
				 count);
		if (l->e[i].u.exception.number != num ||
		    !(l->e[i].flags & ETMKIT_EXC_RET_ADDR) ||
		    l->e[i].u.exception.ret_addr != ret)
			fail_msg("%s: exception %zu: OpenCSD %u at 0x%llx, "
				 "etmkit %u at 0x%llx (flags 0x%x)", path, count,
				 num, ret, l->e[i].u.exception.number,
				 (unsigned long long)l->e[i].u.exception.ret_addr,
				 l->e[i].flags);
		/* Its count traces no waypoint: a cycle_count before it. */
		if (c && (!i || l->e[i - 1].kind != etmkit_elem_cycle_count ||
			  l->e[i - 1].cycles != cc))
			fail_msg("%s: exception %zu: no cycle_count of %u before "
				 "it", path, count, cc);
		i++;
		count++;
	}
	fclose(f);
	for (; i < l->n; i++)
		if (l->e[i].kind == etmkit_elem_exception)
			fail_msg("%s: an exception OpenCSD does not have", path);
}

/* As many trace_on and exception_return elements in @l as OpenCSD's log
 * @path has TRACE_ON and EXCEPTION_RET elements for trace ID @id (trace
 * starts at the first I-sync and at every one that is not periodic;
 * IHI 0035B 4.5.2). */
static void assert_ocsd_counts(const struct ts_elems *l, const char *path,
			       uint8_t id)
{
	FILE *f = fopen(path, "r");
	char line[1024], tag[32];
	size_t on = 0, ret = 0, our_on = 0, our_ret = 0;

	assert_non_null(f);
	snprintf(tag, sizeof(tag), "ID:%x;", id);
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, tag))
			continue;
		on += strstr(line, "OCSD_GEN_TRC_ELEM_TRACE_ON(") != NULL;
		ret += strstr(line, "OCSD_GEN_TRC_ELEM_EXCEPTION_RET(") != NULL;
	}
	fclose(f);
	for (size_t i = 0; i < l->n; i++) {
		our_on += l->e[i].kind == etmkit_elem_trace_on;
		our_ret += l->e[i].kind == etmkit_elem_exception_return;
	}
	if (on != our_on || ret != our_ret)
		fail_msg("%s: OpenCSD %zu trace on, %zu exception returns; "
			 "etmkit %zu, %zu", path, on, ret, our_on, our_ret);
}

/* DS-5's listing (tc2-ptm-rstk-t32): "S:0xADDR\tOPCODE\tdisassembly"
 * per instruction, in order, and event lines; "<Unknown>" lines (where
 * trace starts after debug state) are no instructions. Every one is ours
 * at the same place: address, opcode. */
static void assert_ds5(const struct ts_elems *l, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t i = 0, count = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		unsigned opcode;

		if ((line[0] != 'S' && line[0] != 'N') || line[1] != ':' ||
		    sscanf(line + 2, "0x%llx\t%x", &addr, &opcode) != 2)
			continue;
		while (i < l->n && l->e[i].kind != etmkit_elem_insn)
			i++;
		if (i == l->n)
			fail_msg("DS-5 instruction %zu 0x%llx: none here", count,
				 addr);
		if (l->e[i].addr != addr || l->e[i].u.insn.opcode != opcode)
			fail_msg("DS-5 instruction %zu: 0x%llx %08x; etmkit "
				 "0x%llx %08x", count, addr, opcode,
				 (unsigned long long)l->e[i].addr,
				 l->e[i].u.insn.opcode);
		i++;
		count++;
	}
	fclose(f);
	assert_true(count > 9000);
}

/* ---- The one pass (issue 19) -------------------------------------------- */

/* A chunk size from 1 to @max out of *@seed (a linear congruential
 * generator: the same sizes for both decodes of a comparison). */
static size_t next_chunk(uint32_t *seed, size_t max)
{
	*seed = *seed * 1103515245u + 12345u;
	return 1 + (*seed >> 8) % max;
}

/* @t (@n bytes at offsets @offs, or at their own if NULL) decoded in the
 * ranges form with the one pass on or off (@one_pass: ptm_flow.c
 * view_run()), fed in chunks of 1 to @max_chunk bytes (0: one feed)
 * drawn from @seed, a transport gap declared after every @gap_every-th
 * chunk (0: none), drained with ptm_flow_batch() after each into @out;
 * the statistics at the end into *@st. */
static void decode_pass(const struct ptm_flow_config *c, int one_pass,
			const uint8_t *t, size_t n, const uint64_t *offs,
			size_t max_chunk, uint32_t seed, unsigned gap_every,
			struct ts_elems *out, struct ptm_flow_stats *st)
{
	struct ptm_flow_decoder *d;
	size_t at = 0;
	unsigned chunks = 0;

	assert_int_equal(ptm_flow_alloc(&d, c), 0);
	/* the ranges form's default */
	assert_int_equal(d->one_pass, !!(c->flags & PTM_FLOW_RANGES));
	d->one_pass = (uint8_t)one_pass;
	while (at < n) {
		size_t m = max_chunk ? next_chunk(&seed, max_chunk) : n;

		if (m > n - at)
			m = n - at;
		assert_int_equal(ptm_flow_feed(d, t + at, m,
					       offs ? offs + at : NULL, at), 0);
		drain_batches(d, out);
		at += m;
		if (gap_every && ++chunks % gap_every == 0 && at < n)
			assert_int_equal(ptm_flow_gap(d), 0);
	}
	assert_int_equal(ptm_flow_finish(d), 0);
	drain_batches(d, out);
	*st = *ptm_flow_get_stats(d);
	ptm_flow_free(d);
}

/* Statistics @a (the one pass's) are @b (@whose): packets, instructions
 * and atoms lost, and if @all the block cache's counts. */
static void assert_stats_same(const struct ptm_flow_stats *a,
			      const struct ptm_flow_stats *b, int all,
			      const char *what, const char *whose,
			      size_t max_chunk, uint32_t seed,
			      unsigned gap_every)
{
	if (a->packets != b->packets || a->insns != b->insns ||
	    a->atoms_lost != b->atoms_lost ||
	    (all && (a->blocks != b->blocks ||
		     a->cache_flushes != b->cache_flushes)))
		fail_msg("%s (chunks of up to %zu, seed %u, gap every %u): "
			 "statistics differ from %s: packets %llu / %llu, "
			 "insns %llu / %llu, atoms lost %llu / %llu, blocks "
			 "%llu / %llu", what, max_chunk, seed, gap_every, whose,
			 (unsigned long long)a->packets,
			 (unsigned long long)b->packets,
			 (unsigned long long)a->insns,
			 (unsigned long long)b->insns,
			 (unsigned long long)a->atoms_lost,
			 (unsigned long long)b->atoms_lost,
			 (unsigned long long)a->blocks,
			 (unsigned long long)b->blocks);
}

/* The one pass changes nothing: the ranges decode of @t with it and
 * without it (every packet through its record, fast_run()) gives the same
 * elements, offsets and all, and the same statistics (packets counted,
 * instructions, atoms lost), fed as decode_pass() says. Returns the
 * elements' count. */
static size_t assert_one_pass_same(const struct ptm_flow_config *c,
				   const uint8_t *t, size_t n,
				   const uint64_t *offs, size_t max_chunk,
				   uint32_t seed, unsigned gap_every,
				   const char *what)
{
	struct ts_elems on = { 0 }, off = { 0 };
	struct ptm_flow_stats son, soff;
	size_t count;

	assert_true(c->flags & PTM_FLOW_RANGES);
	decode_pass(c, 1, t, n, offs, max_chunk, seed, gap_every, &on, &son);
	decode_pass(c, 0, t, n, offs, max_chunk, seed, gap_every, &off,
		    &soff);
	if (on.n != off.n)
		fail_msg("%s (chunks of up to %zu, seed %u, gap every %u): "
			 "%zu elements with the one pass, %zu without", what,
			 max_chunk, seed, gap_every, on.n, off.n);
	for (size_t i = 0; i < on.n; i++)
		if (!elem_same(&on.e[i], &off.e[i], 1))
			fail_msg("%s (chunks of up to %zu, seed %u, gap every "
				 "%u): element %zu (kind %u, offset %llu) "
				 "differs with the one pass", what, max_chunk,
				 seed, gap_every, i, off.e[i].kind,
				 (unsigned long long)off.e[i].offset);
	assert_stats_same(&son, &soff, 1, what, "the records' path's",
			  max_chunk, seed, gap_every);
	/* The per-instruction form (no fast_run(), no one pass) reads the
	 * same packets and loses the same atoms. */
	if (c->flags == PTM_FLOW_RANGES) {
		struct ptm_flow_config ci = *c;
		struct ts_elems insn = { 0 };
		struct ptm_flow_stats si;

		ci.flags = 0;
		decode_pass(&ci, 0, t, n, offs, max_chunk, seed, gap_every,
			    &insn, &si);
		assert_stats_same(&son, &si, 0, what,
				  "the per-instruction form's", max_chunk,
				  seed, gap_every);
		ts_elems_free(&insn);
	}
	count = on.n;
	ts_elems_free(&on);
	ts_elems_free(&off);
	return count;
}

/* The hand-encoded streams, with and without the one pass, in one feed
 * and in every chunking from one byte up: each packet of them cut at
 * each of its bytes by the end of a chunk. */
static void test_one_pass_streams(void **state)
{
	struct ptm_flow_config c;
	struct image *img = a32_image();

	(void)state;
	cfg_init(&c, PTM_ETMCR_RETURN_STACK, img, PTM_FLOW_RANGES);
	for (uint32_t seed = 0; seed < 64; seed++)
		assert_one_pass_same(&c, a32_trace, sizeof(a32_trace), NULL,
				     seed % 8, seed, 0, "a32_trace");
	/* a transport gap cuts it */
	for (uint32_t seed = 0; seed < 64; seed++)
		assert_one_pass_same(&c, a32_trace, sizeof(a32_trace), NULL,
				     1 + seed % 8, seed, 2 + seed % 5,
				     "a32_trace");
	image_free(img);
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, t32_code, sizeof(t32_code),
					  0x4000, 0), 0);
	cfg_init(&c, PTM_ETMCR_CYCLE_ACCURATE | PTM_ETMCR_TIMESTAMP |
			     PTM_ETMCR_RETURN_STACK, img, PTM_FLOW_RANGES);
	for (uint32_t seed = 0; seed < 64; seed++)
		assert_one_pass_same(&c, t32_trace, sizeof(t32_trace), NULL,
				     seed % 8, seed, 0, "t32_trace");
	image_free(img);
}

/* Capture @x (@cap's source), with and without the one pass: in one
 * feed, in 1-byte feeds (every packet cut at each of its bytes), in
 * random feeds, with their deformatter offsets and without, with
 * transport gaps, and with bytes corrupted (bad packets, lost sync,
 * atoms lost, no_image): the same elements and statistics. */
static void assert_one_pass_capture(const struct capture *cap,
				    struct loaded *x)
{
	struct ptm_flow_config c = x->cfg;
	char what[128];
	uint8_t *bad;
	size_t elems;

	snprintf(what, sizeof(what), "%s 0x%02x", cap->snap, cap->id);
	c.flags = PTM_FLOW_RANGES;
	c.cache_bytes = 0;
	elems = assert_one_pass_same(&c, x->bytes, x->n, x->offs, 0, 0, 0,
				     what);
	assert_true(x->n == 0 || elems > 0);
	assert_one_pass_same(&c, x->bytes, x->n, NULL, 0, 0, 0, what);
	assert_one_pass_same(&c, x->bytes, x->n, x->offs, 1, 0, 0, what);
	for (uint32_t seed = 1; seed <= 4; seed++) {
		assert_one_pass_same(&c, x->bytes, x->n, x->offs, 7, seed, 0,
				     what);
		assert_one_pass_same(&c, x->bytes, x->n, NULL, 300, seed, 0,
				     what);
		assert_one_pass_same(&c, x->bytes, x->n, x->offs, 64, seed, 9,
				     what);
	}
	/* A small cache: flushes in the middle of the walk. */
	c.cache_bytes = 64 << 10;
	assert_one_pass_same(&c, x->bytes, x->n, x->offs, 33, 5, 0, what);
	c.cache_bytes = 0;
	/* Corrupted: one byte in 97 replaced. */
	bad = malloc(x->n ? x->n : 1);
	assert_non_null(bad);
	for (uint32_t seed = 1; seed <= 3; seed++) {
		uint32_t r = seed;

		if (x->n)
			memcpy(bad, x->bytes, x->n);
		for (size_t i = 0; i < x->n; i++) {
			r = r * 1103515245u + 12345u;
			if ((r >> 8) % 97 == 0)
				bad[i] = (uint8_t)(r >> 20);
		}
		assert_one_pass_same(&c, bad, x->n, x->offs, 0, 0, 0, what);
		assert_one_pass_same(&c, bad, x->n, NULL, 5, seed, 0, what);
	}
	free(bad);
}

static void test_captures(void **state)
{
	int missing = 0;

	(void)state;
	for (size_t k = 0; k < sizeof(captures) / sizeof(captures[0]); k++) {
		const struct capture *c = &captures[k];
		struct loaded x;
		struct ts_elems l = { 0 }, r = { 0 }, b = { 0 };
		struct ocsd_range *v;
		size_t nv;
		char path[1024];

		if (load(c, &x)) {
			missing = 1;
			continue;
		}
		decode_with(&x.cfg, x.bytes, x.n, x.offs, 0, &l);
		snprintf(path, sizeof(path), "%s/%s/ocsd-1.8.0-decode.ppl",
			 TESTDATA, c->snap);
		nv = read_ocsd(path, c->id, &v);
		snprintf(path, sizeof(path), "%s 0x%02x", c->snap, c->id);
		assert_ocsd_ranges(&l, v, nv, path);
		free(v);
		snprintf(path, sizeof(path), "%s/%s/ocsd-1.8.0-decode.ppl",
			 TESTDATA, c->snap);
		assert_ocsd_exceptions(&l, path, c->id);
		assert_ocsd_counts(&l, path, c->id);
		if (c->ds5) {
			snprintf(path, sizeof(path), "%s/%s/%s", TESTDATA,
				 c->snap, c->ds5);
			assert_ds5(&l, path);
		}
		/* The ranges form, in one feed and in 61-byte feeds; the
		 * per-instruction form fed so is the same as in one. */
		x.cfg.flags = PTM_FLOW_RANGES;
		decode_with(&x.cfg, x.bytes, x.n, x.offs, 0, &r);
		assert_ranges_same(&l, &r, x.img);
		r.n = 0;
		decode_with(&x.cfg, x.bytes, x.n, x.offs, 61, &r);
		assert_ranges_same(&l, &r, x.img);
		x.cfg.flags = 0;
		x.cfg.cache_bytes = 64 << 10;
		decode_with(&x.cfg, x.bytes, x.n, x.offs, 61, &b);
		assert_int_equal(b.n, l.n);
		for (size_t i = 0; i < l.n; i++)
			if (!elem_same(&l.e[i], &b.e[i], 1))
				fail_msg("%s: element %zu differs fed in pieces",
					 path, i);
		assert_one_pass_capture(c, &x);
		unload(&x);
		ts_elems_free(&l);
		ts_elems_free(&r);
		ts_elems_free(&b);
	}
	test_need(missing, "the PTM captures under " TESTDATA);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arguments),
		cmocka_unit_test(test_a32_stream),
		cmocka_unit_test(test_cycles_saturate),
		cmocka_unit_test(test_dmb_waypoints),
		cmocka_unit_test(test_queue_full),
		cmocka_unit_test(test_isync_moves_ranges),
		cmocka_unit_test(test_t32_stream),
		cmocka_unit_test(test_rs_space),
		cmocka_unit_test(test_captures),
		cmocka_unit_test(test_one_pass_streams),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
