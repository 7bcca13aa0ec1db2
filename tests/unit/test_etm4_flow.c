/* ETMv4/ETE flow decoder: the speculation and transaction rules of seed
 * 002 (Arm ARM D4.3) on hand-encoded streams over a small A64 program.
 *
 * Each expected result is worked out by hand from the rule cited beside
 * the test, not by running the decoder. Packets are encoded as the spec
 * digest (../shared/spec/etmv4-ete.md) lays them out.
 *
 * The program (A64, at 0x1000):
 *   1000 nop            1014 nop
 *   1004 nop            1018 ret
 *   1008 b.eq 0x1010    101c nop
 *   100c nop            1020 nop
 *   1010 bl 0x1020      1024 ret
 *   1028 isb            102c tstart x0      1030 nop     1034 b 0x1000
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit/test_util.h"
#include "range_same.h"

#include "etmkit/flow.h"
#include "etmkit/insn.h"
#include "flow/etm4_flow_int.h"
#include "ts_prog64.h"

static const uint32_t prog[] = {
	0xd503201f, 0xd503201f, 0x54000040, 0xd503201f, /* 1000 */
	0x94000004, 0xd503201f, 0xd65f03c0, 0xd503201f, /* 1010 */
	0xd503201f, 0xd65f03c0, 0xd5033fdf, 0xd5233060, /* 1020 */
	0xd503201f, 0x17fffff3,                         /* 1030 */
};

#define RUN_CAP 12288 /* elements a run holds */

struct run {
	struct etmkit_elem e[RUN_CAP];
	size_t n;
	uint64_t streak; /* the decoder's streak_addrs (etm4_flow_int.h) */
};

/* ETE 1.0 as in ete_spec_1 (TRCIDR0 COMMOPT = 1, TRCIDR2 64-bit
 * addresses, 32-bit context ID and VMID), MAXSPEC @maxspec, TRCCONFIGR
 * @configr, ETM4_FLOW_* @flags. */
static void config(struct etm4_flow_config *c, uint32_t maxspec,
		   uint32_t configr, uint32_t idr0, uint32_t flags)
{
	etm4_flow_config_init(c);
	c->etm.flags = ETM4_CFG_ETE;
	c->etm.trcdevarch = 0x47705a13;
	c->etm.trcidr0 = idr0 ? idr0 : 0x2801cea1;
	c->etm.trcidr1 = 0x4100fff0;
	c->etm.trcidr2 = 0xd0001088;
	c->etm.trcidr8 = maxspec;
	c->etm.trcconfigr = configr;
	c->flags = flags;
}

/* The program's bytes, little-endian, into @code (sizeof(prog)). */
static void prog_bytes(uint8_t *code)
{
	for (size_t i = 0; i < sizeof(prog) / 4; i++)
		ts_a64_put(code + 4 * i, prog[i]);
}

/* Every element @d has for now, appended to @r. */
static void drain_into(struct etm4_flow_decoder *d, struct run *r)
{
	const struct etmkit_elem *el;
	int k;

	while ((k = etm4_flow_batch(d, &el)) > 0) {
		assert_true(r->n + (size_t)k <= RUN_CAP);
		memcpy(r->e + r->n, el, (size_t)k * sizeof(*el));
		r->n += (size_t)k;
	}
	assert_int_equal(k, -etmkit_err_eos);
}

/* Decode @trace with config()'s registers and @flags. Returns the
 * decoder's count of atoms lost (no position to walk them from). */
/* With prog[] at 0x1000 and, unless @also is 0, again at @also (the
 * image's span then has a hole between them). */
static uint64_t decode_image(struct run *r, const uint8_t *trace, size_t n,
			     uint32_t maxspec, uint32_t configr,
			     uint32_t idr0, uint32_t flags, uint64_t also)
{
	struct etm4_flow_config c;
	struct etm4_flow_decoder *d;
	struct image *img;
	uint8_t code[sizeof(prog)];
	uint64_t lost;

	prog_bytes(code);
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, code, sizeof(code), 0x1000, 0),
			 0);
	if (also)
		assert_int_equal(image_add_buffer(img, code, sizeof(code),
						  also, 0), 0);
	config(&c, maxspec, configr, idr0, flags);
	c.image = img;
	assert_int_equal(etm4_flow_alloc(&d, &c), 0);
	assert_int_equal(etm4_flow_feed(d, trace, n, NULL, 0), 0);
	assert_int_equal(etm4_flow_finish(d), 0);
	r->n = 0;
	drain_into(d, r);
	lost = etm4_flow_get_stats(d)->atoms_lost;
	r->streak = d->streak_addrs;
	etm4_flow_free(d);
	image_free(img);
	return lost;
}

static uint64_t decode_flags(struct run *r, const uint8_t *trace, size_t n,
			     uint32_t maxspec, uint32_t configr,
			     uint32_t idr0, uint32_t flags)
{
	return decode_image(r, trace, n, maxspec, configr, idr0, flags, 0);
}

static void decode(struct run *r, const uint8_t *trace, size_t n,
		   uint32_t maxspec, uint32_t configr, uint32_t idr0)
{
	decode_flags(r, trace, n, maxspec, configr, idr0, 0);
}

/* A-sync, Trace Info (no sections), Trace On, Address + Context 32-bit IS0
 * 0x1000 EL1 Secure AArch64. */
#define HEAD 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x01, 0x00, 0x04, \
	     0x82, 0x00, 0x08, 0x00, 0x00, 0x11

/* The instruction addresses delivered, as a string "1000 1004 ..." with
 * "N" after a not-taken P0 instruction and "|" for any other element. */
static const char *trail(const struct run *r, char *buf, size_t cap)
{
	size_t k = 0;

	buf[0] = 0;
	for (size_t i = 0; i < r->n && k + 16 < cap; i++) {
		const struct etmkit_elem *e = &r->e[i];

		if (e->kind == etmkit_elem_insn)
			k += (size_t)snprintf(buf + k, cap - k, "%llx%s ",
				(unsigned long long)e->addr,
				(e->flags & ETMKIT_INSN_COND_FAIL) ? "N" : "");
		else if (e->kind == etmkit_elem_transaction)
			k += (size_t)snprintf(buf + k, cap - k, "T%u ",
					      e->u.txn.what);
		else if (e->kind == etmkit_elem_exception)
			k += (size_t)snprintf(buf + k, cap - k, "X%u ",
					      e->u.exception.number);
		else if (e->kind == etmkit_elem_q)
			k += (size_t)snprintf(buf + k, cap - k, "Q%u ",
					      e->u.q.count);
		else
			k += (size_t)snprintf(buf + k, cap - k, "| ");
	}
	if (k)
		buf[k - 1] = 0;
	return buf;
}

#define EXPECT(r, s)                                                           \
	do {                                                                   \
		char b_[2048];                                                 \
		assert_string_equal(trail(r, b_, sizeof(b_)), s);              \
	} while (0)

static struct run R;

/* D4.3.3, D4.3.8.1: nothing is delivered until a Commit resolves it; the
 * Commit resolves the oldest P0 elements. Trace On and Context come
 * before, as elements ("|"). */
static void test_commit(void **state)
{
	static const uint8_t t1[] = { HEAD, 0xf7 };
	static const uint8_t t2[] = { HEAD, 0xf7, 0xf6, 0x2d, 0x01 };
	static const uint8_t t3[] = { HEAD, 0xf7, 0xf6, 0x2d, 0x02 };

	(void)state;
	decode(&R, t1, sizeof(t1), 255, 0, 0);
	EXPECT(&R, ""); /* uncommitted at the end: unknown, dropped (7.6) */
	decode(&R, t2, sizeof(t2), 255, 0, 0);
	/* E on b.eq: taken to 0x1010. The N stays speculative. */
	EXPECT(&R, "| | 1000 1004 1008");
	decode(&R, t3, sizeof(t3), 255, 0, 0);
	/* N on bl: not taken, on to 0x1014. */
	EXPECT(&R, "| | 1000 1004 1008 1010N");
}

/* TRCIDR8.MAXSPEC = 0: every P0 element is resolved at once (D4.3.3.1.1,
 * digest 7.2). */
static void test_maxspec_zero(void **state)
{
	static const uint8_t t[] = { HEAD, 0xf7, 0xf7, 0xf6 };

	(void)state;
	decode(&R, t, sizeof(t), 0, 0, 0);
	/* E b.eq -> 1010; E bl -> 1020; N on ret (1024): on to 1028, where
	 * nothing more is traced. */
	EXPECT(&R, "| | 1000 1004 1008 1010 1020 1024N");
}

/* D4.3.8.2: Cancel removes the youngest P0 elements. */
static void test_cancel(void **state)
{
	static const uint8_t t[] = { HEAD, 0xf7, 0xdb, 0x2e, 0x02, 0x2d, 0x01 };

	(void)state;
	decode(&R, t, sizeof(t), 255, 0, 0);
	EXPECT(&R, "| | 1000 1004 1008");
}

/* D4.3.8.4: Mispredict flips the most recent atom not cancelled. */
static void test_mispredict(void **state)
{
	static const uint8_t t[] = { HEAD, 0xf6, 0x30, 0x2d, 0x01 };
	/* Cancel format 2 (0x35): one E atom appended, cancel 1, mispredict:
	 * the E atom before (N after a mispredict of E). */
	static const uint8_t t2[] = { HEAD, 0xf7, 0x35, 0x2d, 0x01 };

	(void)state;
	decode(&R, t, sizeof(t), 255, 0, 0);
	EXPECT(&R, "| | 1000 1004 1008");
	decode(&R, t2, sizeof(t2), 255, 0, 0);
	EXPECT(&R, "| | 1000 1004 1008N");
}

/* D4.3.2.3 (IYZPCB): a Cancel that reaches P0 elements from before a
 * Trace Info discards the Trace Info and everything after it up to the
 * Cancel: here Trace On, Context and the address 0x1000. The trace unit
 * then sends a new Context and Target Address (RKGPTB): 0x1010. */
static void test_cancel_before_trace_info(void **state)
{
	static const uint8_t t[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
		0x01, 0x05, 0x00, 0x02,       /* Trace Info, SPEC = 2 */
		0x04, 0x82, 0x00, 0x08, 0x00, 0x00, 0x11, /* on, 0x1000 */
		0xf7,                         /* E (would run 1000-1008) */
		0x2e, 0x02,                   /* cancel it and one before */
		0x82, 0x04, 0x08, 0x00, 0x00, 0x11, /* 0x1010 */
		0xf7,                         /* E: bl */
		0x2d, 0x02,                   /* commit: the unseen one, bl */
	};

	(void)state;
	decode(&R, t, sizeof(t), 255, 0, 0);
	EXPECT(&R, "| 1010");
	assert_int_equal(R.e[0].kind, etmkit_elem_context);
}

/* D4.3.8.3: Discard drops every uncommitted P0 element. */
static void test_discard(void **state)
{
	static const uint8_t t[] = { HEAD, 0xf7, 0x00, 0x03 };

	(void)state;
	decode(&R, t, sizeof(t), 255, 0, 0);
	EXPECT(&R, "");
}

/* D4.3.8.3: a Discard means trace generation became inoperative; it
 * resumes with a Trace Info and a new Target Address (D4.3.2.1), and the
 * position is unknown until then (digest 8). With MAXSPEC 0: E runs
 * 1000-1008 (b.eq taken); the address 0x1020 (95 08) is dropped with the
 * Discard, as is where b.eq went; after the Trace Info an atom with no
 * address yet is lost; the next address 0x1020 (long, 9a 08 08 00 00:
 * the Trace Info cleared the address history) starts the walk again: E
 * runs 1020 and the ret at 1024. */
static void test_discard_position(void **state)
{
	static const uint8_t t[] = { HEAD, 0xf7, 0x95, 0x08, 0x00, 0x03,
				     0x01, 0x00, 0xf7,
				     0x9a, 0x08, 0x08, 0x00, 0x00, 0xf7 };

	(void)state;
	decode(&R, t, sizeof(t), 0, 0, 0);
	EXPECT(&R, "| | 1000 1004 1008 1020 1024");
}

/* D4.3.5.2, digest 5.5: an exception's range runs up to its preferred
 * return address (here 0x1008: 1000 and 1004 ran), then the exception;
 * the handler comes in the next address. Call (type 2), E1:E0 = 01:
 * 06 05, then short address IS0 0x1008 (95 02), then 0x1020 (95 08), E. */
static void test_exception(void **state)
{
	static const uint8_t t[] = { HEAD, 0x06, 0x05, 0x95, 0x02,
				     0x95, 0x08, 0xf7, 0x2d, 0x02 };

	(void)state;
	decode(&R, t, sizeof(t), 255, 0, 0);
	EXPECT(&R, "| | 1000 1004 X2 1020 1024");
}

/* D4.3.5.3: a Source Address says everything up to and including the
 * instruction at it ran, earlier P0 instructions not taken, it taken.
 * b4 06: short source address IS0 0x1018 (A[8:2] = 6); the ret's target
 * follows: 95 00 (0x1000). Then E on b.eq. */
static void test_source_address(void **state)
{
	static const uint8_t t[] = { HEAD, 0xb4, 0x06, 0x95, 0x00, 0xf7,
				     0x2d, 0x02 };

	(void)state;
	decode(&R, t, sizeof(t), 255, 0, 0);
	EXPECT(&R, "| | 1000 1004 1008N 100c 1010N 1014 1018 1000 1004 1008");
}

/* D4.3.11, digest 7.9: Transaction Start, then a failure (exception type
 * 0x18, 06 31 70) and the address where execution resumes (0x1030). The
 * failure is reported; the consumer drops what came since the start. */
static void test_transaction_failure(void **state)
{
	static const uint8_t t[] = {
		HEAD,
		0xf7, 0xf7, 0xf6, 0xf6, 0xf7, /* up to the tstart at 102c */
		0x0a,                   /* Transaction Start */
		0x06, 0x31, 0x70, 0x95, 0x0c, /* failure, resume at 0x1030 */
		0xf7,                   /* b 0x1000 at 0x1034 */
		0x2d, 0x06,
	};

	(void)state;
	/* COMMTRANS (TRCIDR0 bit 30) = 1: Transaction Start is not P0. */
	decode(&R, t, sizeof(t), 255, 0, 0x2801cea1 | (1u << 30));
	/* E b.eq -> 1010; E bl -> 1020; N ret at 1024 -> 1028; N isb (P0)
	 * -> 102c; E tstart (P0); start; failure; 1030, b taken. */
	EXPECT(&R, "| | 1000 1004 1008 1010 1020 1024N 1028N 102c T0 T2 "
		   "1030 1034");
}

/* digest 7.7: with TRCCONFIGR.RS a return whose target equals the return
 * stack's top is not traced: the next P0 element pops it. */
static void test_return_stack(void **state)
{
	/* E b.eq, E bl (push 0x1014), E ret at 1024 (pop pending), then E:
	 * walk from 0x1014 to the ret at 1018. */
	static const uint8_t t[] = { HEAD, 0xf7, 0xf7, 0xf7, 0xf7 };

	(void)state;
	decode(&R, t, sizeof(t), 0, 1u << 12, 0);
	EXPECT(&R, "| | 1000 1004 1008 1010 1020 1024 1014 1018");
}

/* D4.3.5.4: a Q element: count instructions from the current address,
 * path not traced, then the target. a5 04 03: Q short address IS0 0x1010,
 * count 3 (1000, 1004, 1008); then E on bl. */
static void test_q(void **state)
{
	static const uint8_t t[] = { HEAD, 0xa5, 0x04, 0x03, 0xf7 };

	(void)state;
	/* TRCIDR0.QSUPP = 3, TRCCONFIGR.QE = 3 */
	decode(&R, t, sizeof(t), 0, 3u << 13, 0x2801cea1 | (3u << 15));
	EXPECT(&R, "| | Q3 1000 1004 1008 1010");
}

/* A Q whose straight path would run through an unconditional branch
 * (the bl at 0x1010) has no straight path: only the Q element, though
 * going on straight from 0x1000 for 6 instructions falls through to its
 * target 0x1018 (a5 06 06: target A[8:2] = 6, count 6). OpenCSD lists
 * the six. */
static void test_q_through_unconditional(void **state)
{
	static const uint8_t t[] = { HEAD, 0xa5, 0x06, 0x06 };

	(void)state;
	decode(&R, t, sizeof(t), 0, 3u << 13, 0x2801cea1 | (3u << 15));
	EXPECT(&R, "| | Q6");
}

/* A Q's count is checked against the image only up to the walk budget
 * (F4_WALK_BUDGET, 2^16 instructions): @count - 1 nops at 0x1000, then
 * b 0x1000, and a Q of @count instructions whose target is address
 * history slot 0 (a0: 0x1000, HEAD's address). Returns the instructions
 * listed, in the ranges form. */
static uint64_t q_count_listed(uint32_t count)
{
	uint8_t t[] = { HEAD, 0xa0, (uint8_t)(0x80 | (count & 0x7f)),
			(uint8_t)(0x80 | ((count >> 7) & 0x7f)),
			(uint8_t)(count >> 14) };
	size_t bytes = (size_t)count * 4;
	uint8_t *code = malloc(bytes);
	struct etm4_flow_config c;
	struct etm4_flow_decoder *d;
	struct image *img;
	uint64_t insns = 0, qs = 0;

	assert_non_null(code);
	for (uint32_t i = 0; i + 1 < count; i++)
		ts_a64_put(code + 4 * i, 0xd503201f);
	ts_a64_put(code + bytes - 4,
		   0x14000000u | ((0u - (count - 1)) & 0x3ffffffu));
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, code, bytes, 0x1000, 0), 0);
	config(&c, 0, 3u << 13, 0x2801cea1 | (3u << 15), ETM4_FLOW_RANGES);
	c.image = img;
	assert_int_equal(etm4_flow_alloc(&d, &c), 0);
	assert_int_equal(etm4_flow_feed(d, t, sizeof(t), NULL, 0), 0);
	assert_int_equal(etm4_flow_finish(d), 0);
	R.n = 0;
	drain_into(d, &R);
	for (size_t i = 0; i < R.n; i++) {
		if (R.e[i].kind == etmkit_elem_insn_range)
			insns += R.e[i].u.range.count;
		if (R.e[i].kind == etmkit_elem_q) {
			assert_int_equal(R.e[i].u.q.count, count);
			qs++;
		}
	}
	assert_int_equal(qs, 1);
	etm4_flow_free(d);
	image_free(img);
	free(code);
	return insns;
}

static void test_q_count_budget(void **state)
{
	(void)state;
	assert_int_equal(q_count_listed(1u << 16), 1u << 16);
	assert_int_equal(q_count_listed((1u << 16) + 1), 0);
}

/* A Q waiting for its address (type C: count only, address follows),
 * then a Context packet, then the address (D4.3.5.4: the context may come
 * between): count 3 from 0x1000 to the B.EQ at 0x1008, whose target
 * 0x1010 is the Q's address. The Q's instructions ran in the context
 * before it: 0x1000 and 0x1004 are A64, although the Context (81 20:
 * EL0, AArch32) precedes the address that completes the Q. The same with the context
 * inside an Address + Context packet. Found by the encoder's round trips:
 * the decoder applied the context before the Q. */
static void test_q_context_before_address(void **state)
{
	static const uint8_t t1[] = { HEAD, 0xac, 0x03, 0x81, 0x20,
				      0x9a, 0x04, 0x08, 0x00, 0x00, 0xf7 };
	static const uint8_t t2[] = { HEAD, 0xac, 0x03,
				      0x82, 0x04, 0x08, 0x00, 0x00, 0x20,
				      0xf7 };
	const uint8_t *ts[] = { t1, t2 };
	const size_t ns[] = { sizeof(t1), sizeof(t2) };

	(void)state;
	for (int k = 0; k < 2; k++) {
		size_t seen = 0;

		decode(&R, ts[k], ns[k], 0, 3u << 13, 0x2801cea1 | (3u << 15));
		for (size_t i = 0; i < R.n && seen < 3; i++) {
			if (R.e[i].kind != etmkit_elem_insn)
				continue;
			assert_int_equal(R.e[i].addr, 0x1000 + 4 * seen);
			assert_int_equal(R.e[i].isa, etmkit_isa_a64);
			seen++;
		}
		assert_int_equal(seen, 3);
	}
}

/* A Q's count ends at the image's last instruction: the count's last
 * instruction ends the range (P0, flow.h) and nothing after it is walked,
 * so the unmapped address after it is not reported. Address 1028, then Q
 * with target 0x1000 and count 4 (a5 00 04). */
static void test_q_count_at_image_end(void **state)
{
	static const uint8_t t[] = { HEAD, 0x95, 0x8a, 0x08, 0xa5, 0x00, 0x04 };
	static const uint64_t want[] = { 0x1028, 0x102c, 0x1030, 0x1034 };
	size_t k = 0, q = 0;

	(void)state;
	decode(&R, t, sizeof(t), 0, 3u << 13, 0x2801cea1 | (3u << 15));
	for (size_t i = 0; i < R.n; i++) {
		const struct etmkit_elem *e = &R.e[i];

		assert_int_not_equal(e->kind, etmkit_elem_no_image);
		q += e->kind == etmkit_elem_q;
		if (e->kind != etmkit_elem_insn)
			continue;
		assert_true(k < 4);
		assert_int_equal(e->addr, want[k]);
		assert_int_equal(e->offset, 24); /* the Q packet */
		assert_int_equal(e->flags, k == 3 ? ETMKIT_INSN_P0 |
						   ETMKIT_INSN_EXEC :
						   ETMKIT_INSN_EXEC);
		k++;
	}
	assert_int_equal(k, 4);
	assert_int_equal(q, 1);
}

/* The Discard takes effect where it stands: a Q that waited for its
 * address is committed by the Discard's arrival (MAXSPEC 0) and starts
 * from the address before it; only then is the position unknown. E runs
 * 1000-1008 (b.eq taken); address 0x1020 (95 08); Q of count 2 whose
 * address would follow (ac 02); Discard. The atoms after it (they make
 * the address part of an atom run) come before any Trace Info: not
 * traced. */
static void test_discard_after_q(void **state)
{
	static const uint8_t t[] = {
		HEAD, 0xf7, 0x95, 0x08, 0xac, 0x02, 0x00, 0x03,
		0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7,
		0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7,
	};

	(void)state;
	decode(&R, t, sizeof(t), 0, 3u << 13, 0x2801cea1 | (3u << 15));
	/* Its path is unknown without the address (digest 8: no range), but
	 * it starts at 0x1020, in A64. */
	EXPECT(&R, "| | 1000 1004 1008 Q2");
	assert_int_equal(R.e[5].kind, etmkit_elem_q);
	assert_int_equal(R.e[5].addr, 0x1020);
	assert_int_equal(R.e[5].isa, etmkit_isa_a64);
}

/* Digest 3, item 5: an error drops sync until the next Trace Info, and
 * nothing after it is walked, however the bytes are fed. After the Trace
 * Info nothing is committed, so 4095 exact-match addresses (90) fill the
 * speculation queue: the gap. The address 0x1000 and the atoms after it
 * (one run with the addresses) are not traced. */
static void test_overrun_in_run(void **state)
{
	static uint8_t t[12 + 2 + 4095 + 3 + 16];
	size_t n = 0;

	(void)state;
	memset(t, 0, 11);
	t[11] = 0x80;
	t[12] = 0x01; /* Trace Info */
	t[13] = 0x00;
	n = 14;
	memset(t + n, 0x90, 4095);
	n += 4095;
	t[n++] = 0x95; /* 0x1000 */
	t[n++] = 0x80;
	t[n++] = 0x08;
	memset(t + n, 0xf7, 16);
	n += 16;
	decode(&R, t, n, 0, 0, 0);
	EXPECT(&R, "|");
	assert_int_equal(R.e[0].kind, etmkit_elem_gap);
	assert_int_equal(R.e[0].u.loss.reason, etmkit_loss_packet);
}

/* An image may gain regions between decoder calls (image.h): code added
 * after the decoder was allocated is found from the next call on. The
 * image first holds only the program's last 8 bytes (at 0x1030, so that
 * 0x1000 lies outside every region): 0x1000 and its E atom give
 * no_image. Then the whole program is added and a new address 0x1000
 * (9a 00 08 00 00) with E runs 1000-1008. */
static void test_image_grows(void **state)
{
	static const uint8_t t1[] = { HEAD, 0xf7 };
	static const uint8_t t2[] = { 0x9a, 0x00, 0x08, 0x00, 0x00, 0xf7 };
	struct etm4_flow_config c;
	struct etm4_flow_decoder *d;
	struct image *img;
	uint8_t code[sizeof(prog)];

	(void)state;
	prog_bytes(code);
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, code + 0x30, 8, 0x1030, 0), 0);
	config(&c, 0, 0, 0, 0);
	c.image = img;
	assert_int_equal(etm4_flow_alloc(&d, &c), 0);
	R.n = 0;
	assert_int_equal(etm4_flow_feed(d, t1, sizeof(t1), NULL, 0), 0);
	drain_into(d, &R);
	assert_int_equal(image_add_buffer(img, code, sizeof(code), 0x1000, 0),
			 0);
	assert_int_equal(etm4_flow_feed(d, t2, sizeof(t2), NULL, sizeof(t1)),
			 0);
	assert_int_equal(etm4_flow_finish(d), 0);
	drain_into(d, &R);
	EXPECT(&R, "| | | 1000 1004 1008");
	assert_int_equal(R.e[2].kind, etmkit_elem_no_image);
	assert_int_equal(R.e[2].u.loss.reason, etmkit_loss_unmapped);
	etm4_flow_free(d);
	image_free(img);
}

/* D4.3.5.1, D4.3.5: after an E atom on an indirect branch the next
 * instruction is the branch's target; untraced here (no address, no return
 * stack), it is unknown. An exception that follows has no range before it:
 * walking on from the instruction after the branch (as OpenCSD 1.8.0 does
 * in ete_ip) would list instructions that never ran. E b.eq, E bl, E ret
 * at 1024; then a Call with return address 0x1030 (06 05, 95 0c). */
static void test_exception_after_indirect(void **state)
{
	static const uint8_t t[] = { HEAD, 0xf7, 0xf7, 0xf7, 0x06, 0x05,
				     0x95, 0x0c };

	(void)state;
	decode(&R, t, sizeof(t), 0, 0, 0);
	EXPECT(&R, "| | 1000 1004 1008 1010 1020 1024 X2");
}

/* ---- Atoms lost after an indirect branch (no_address) -------------------
 *
 * An executed indirect branch's target comes in a Target Address, or,
 * with the return stack on (TRCCONFIGR.RS), from the stack at the next P0
 * element (digest 7.7). When neither gives it, the atoms after it cannot
 * be walked: as ETMv3 and PTM do (docs/recovery.md), the first atom lost
 * is one gap element (no_address) at its packet, and the atoms after it
 * are lost without another until an address comes. Atoms lost for other
 * reasons (no address yet after the Trace Info, no image) have none.
 * Every case is decoded in the per-instruction form, the ranges form
 * (which must say the same, range_same.h), fed at once and a few bytes at
 * a time, drained by batch and a few elements per etm4_flow_next() call
 * (the same elements, field by field), and in the counted forms (the
 * same elements of other kinds). */

static struct run R2, R3, R4;

/* Decode @t with prog[] (in @img), MAXSPEC @maxspec, TRCCONFIGR @configr
 * and ETM4_FLOW_* @flags, fed @step bytes at a time (0: at once), each
 * feed drained @max elements per etm4_flow_next() call (0: by batch).
 * Returns the atoms lost. */
static uint64_t decode_fed(struct run *r, const struct image *img,
			   const uint8_t *t, size_t n, uint32_t maxspec,
			   uint32_t configr, uint32_t flags, size_t step,
			   size_t max)
{
	struct etm4_flow_config c;
	struct etm4_flow_decoder *d;
	uint64_t lost;
	int fin = 0;

	config(&c, maxspec, configr, 0, flags);
	c.image = img;
	assert_int_equal(etm4_flow_alloc(&d, &c), 0);
	r->n = 0;
	for (size_t at = 0; !fin;) {
		size_t m = step && n - at > step ? step : n - at;
		int k;

		if (at < n) {
			assert_int_equal(etm4_flow_feed(d, t + at, m, NULL, at),
					 0);
			at += m;
		} else {
			assert_int_equal(etm4_flow_finish(d), 0);
			fin = 1;
		}
		if (!max) {
			drain_into(d, r);
			continue;
		}
		while ((k = etm4_flow_next(d, r->e + r->n, max)) > 0) {
			assert_true(k <= (int)max);
			r->n += (size_t)k;
			assert_true(r->n + max <= RUN_CAP);
		}
		assert_int_equal(k, -etmkit_err_eos);
	}
	lost = etm4_flow_get_stats(d)->atoms_lost;
	etm4_flow_free(d);
	return lost;
}

/* @a and @b hold the same elements (a gap's why too). */
static void same_elems(const struct run *a, const struct run *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		assert_true(elem_same(&a->e[i], &b->e[i], 1));
		if (a->e[i].kind == etmkit_elem_gap)
			assert_string_equal(a->e[i].u.loss.why,
					    b->e[i].u.loss.why);
	}
}

/* The elements of @r that are neither insn nor insn_range nor
 * branch_run, into @o (which may be @r). */
static void others_of(const struct run *r, struct run *o)
{
	size_t n = r->n, k = 0;

	for (size_t i = 0; i < n; i++)
		if (r->e[i].kind != etmkit_elem_insn &&
		    r->e[i].kind != etmkit_elem_insn_range &&
		    r->e[i].kind != etmkit_elem_branch_run)
			o->e[k++] = r->e[i];
	o->n = k;
}

/* Decode @t (see decode_fed()) in every form and feeding: the
 * per-instruction form, fed at once and drained by batch, is left in R;
 * every other feeding gives it again; the ranges form says the same
 * (range_same.h), however fed; the counted forms (ETM4_FLOW_TALLY,
 * ETM4_FLOW_TRACES) have its other elements. Every form loses as many
 * atoms. Returns that count. */
static uint64_t decode_all_forms(const uint8_t *t, size_t n,
				 uint32_t maxspec, uint32_t configr)
{
	static const size_t feeds[][2] = {
		{ 1, 1 }, { 1, 0 }, { 3, 5 }, { 7, 64 }, { 0, 1 }, { 0, 3 },
	};
	static const uint32_t counted[] = {
		ETM4_FLOW_RANGES | ETM4_FLOW_TALLY,
		ETM4_FLOW_RANGES | ETM4_FLOW_TRACES,
	};
	uint8_t code[sizeof(prog)];
	struct image *img;
	struct range_diff rd;
	uint64_t lost;
	size_t i;

	prog_bytes(code);
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, code, sizeof(code), 0x1000, 0),
			 0);
	lost = decode_fed(&R, img, t, n, maxspec, configr, 0, 0, 0);
	for (i = 0; i < sizeof(feeds) / sizeof(feeds[0]); i++) {
		assert_int_equal(decode_fed(&R3, img, t, n, maxspec, configr,
					    0, feeds[i][0], feeds[i][1]),
				 lost);
		same_elems(&R, &R3);
	}
	assert_int_equal(decode_fed(&R2, img, t, n, maxspec, configr,
				    ETM4_FLOW_RANGES, 0, 0), lost);
	if (ranges_same(R.e, R.n, R2.e, R2.n, img, 1, &rd))
		fail_msg("ranges decode differs: %s (reference element %zu, "
			 "ranges element %zu)", rd.why, rd.ref_at, rd.rng_at);
	for (i = 0; i < sizeof(feeds) / sizeof(feeds[0]); i++) {
		assert_int_equal(decode_fed(&R3, img, t, n, maxspec, configr,
					    ETM4_FLOW_RANGES, feeds[i][0],
					    feeds[i][1]), lost);
		same_elems(&R2, &R3);
	}
	/* The counted forms, fed at once and in pieces: the reference's
	 * other elements (R4), in order (whether a range is counted or
	 * written may depend on the feeding: flow.h, fuzz_etm4_flow.c). */
	others_of(&R, &R4);
	for (i = 0; i < sizeof(counted) / sizeof(counted[0]); i++) {
		for (size_t f = 0; f < sizeof(feeds) / sizeof(feeds[0]); f++) {
			assert_int_equal(decode_fed(&R3, img, t, n, maxspec,
						    configr, counted[i],
						    feeds[f][0], feeds[f][1]),
					 lost);
			others_of(&R3, &R3);
			same_elems(&R4, &R3);
		}
	}
	image_free(img);
	return lost;
}

/* The gap elements of @r: their offsets into @at (up to @cap), each
 * checked to be no_address with its why. Returns how many. */
static size_t no_address_gaps(const struct run *r, uint64_t *at, size_t cap)
{
	size_t k = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct etmkit_elem *e = &r->e[i];

		if (e->kind != etmkit_elem_gap)
			continue;
		assert_int_equal(e->u.loss.reason, etmkit_loss_no_address);
		assert_non_null(e->u.loss.why);
		assert_string_equal(e->u.loss.why, "atom after an indirect "
				    "branch whose address was not traced");
		if (k < cap)
			at[k] = e->offset;
		k++;
	}
	return k;
}

/* Return stack off (digest 7.7: every indirect branch's target comes in
 * a Target Address), MAXSPEC 0. E b.eq (21, to 1010), E bl (22, to 1020;
 * no push), E on the ret at 1024 (23): its address does not come. E (24)
 * and E (25) are lost: the gap at 24, none at 25. 95 00 (26: Short
 * Address IS0, 0x1000); E (28) 1000-1008; E (29) 1010; E (30) 1020 and
 * the ret again; EEE (31, ff: three atoms in one packet) all lost, the gap
 * at 31; E (32) lost; 95 00 (33); E (35) 1000-1008. Then the ret's E and
 * the atoms it loses in one packet: E (36) 1010, EEE (37: 1020 and the
 * ret, then two lost, the gap at 37), 95 00 (38), E (40) 1000-1008. */
static void test_no_address_gap(void **state)
{
	static const uint8_t t[] = {
		HEAD, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0x95, 0x00, 0xf7,
		0xf7, 0xf7, 0xff, 0xf7, 0x95, 0x00, 0xf7,
		0xf7, 0xff, 0x95, 0x00, 0xf7,
	};
	uint64_t at[4];

	(void)state;
	assert_int_equal(decode_all_forms(t, sizeof(t), 0, 0), 2 + 4 + 2);
	EXPECT(&R, "| | 1000 1004 1008 1010 1020 1024 | "
		   "1000 1004 1008 1010 1020 1024 | 1000 1004 1008 "
		   "1010 1020 1024 | 1000 1004 1008");
	assert_int_equal(no_address_gaps(&R, at, 4), 3);
	assert_int_equal(at[0], 24);
	assert_int_equal(at[1], 31);
	assert_int_equal(at[2], 37);
}

/* Return stack on (TRCCONFIGR.RS, 1 << 12), MAXSPEC 0: the stack empty
 * at the pop. E b.eq (21), E bl (22: pushes 0x1014), E on the ret at
 * 1024 (23: pop pending), E (24: pops 0x1014; 1014 and the ret at 1018,
 * pop pending), E (25: the stack is empty, lost: the gap), EE (26, db)
 * lost, 95 00 (27), E (29) 1000-1008. */
static void test_no_address_gap_stack_empty(void **state)
{
	static const uint8_t t[] = {
		HEAD, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xdb, 0x95, 0x00, 0xf7,
	};
	uint64_t at[2];

	(void)state;
	assert_int_equal(decode_all_forms(t, sizeof(t), 0, 1u << 12), 3);
	EXPECT(&R, "| | 1000 1004 1008 1010 1020 1024 1014 1018 | "
		   "1000 1004 1008");
	assert_int_equal(no_address_gaps(&R, at, 2), 1);
	assert_int_equal(at[0], 25);
}

/* test_no_address_gap's first half with MAXSPEC 255: the atoms wait for
 * a Commit (2d 06, 29) and are walked from the walk queue. Atom packets
 * speculative together are one queue entry, of the first one's offset,
 * which their elements carry (21 for 21-25, 28 for 28): the gap, at the
 * first atom lost (24), has offset 21, before the address (26) and the
 * atom after it (28, 1000-1008). Then a Timestamp (02 05, 31) the walk
 * delivers where it comes, E (33) 1010, E (34) 1020 and the ret, a commit
 * of them (2d 02, 35), an atom lost (37: the gap, after the timestamp)
 * and its commit (2d 01, 38). */
static void test_no_address_gap_speculative(void **state)
{
	static const uint8_t t[] = {
		HEAD, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0x95, 0x00, 0xf7,
		0x2d, 0x06, 0x02, 0x05, 0xf7, 0xf7, 0x2d, 0x02, 0xf7,
		0x2d, 0x01,
	};
	uint64_t at[2];
	size_t ts = 0;

	(void)state;
	assert_int_equal(decode_all_forms(t, sizeof(t), 255, 0), 3);
	EXPECT(&R, "| | 1000 1004 1008 1010 1020 1024 | 1000 1004 1008 | "
		   "1010 1020 1024 |");
	while (ts < R.n && R.e[ts].kind != etmkit_elem_timestamp)
		ts++;
	assert_true(ts < R.n);
	assert_int_equal(R.e[ts].offset, 31);
	assert_int_equal(R.e[ts + 1].addr, 0x1010);
	assert_int_equal(no_address_gaps(&R, at, 2), 2);
	assert_int_equal(at[0], 21);
	assert_int_equal(R.e[5].offset, 21); /* 1010, the second atom's */
	assert_int_equal(at[1], 37);
}

/* Atoms lost for other reasons have no gap: after the Trace Info before
 * any address (15, 16; the Address with Context at 17 gives 0x1000, E at
 * 23 runs 1000-1008), where the image has no code (9a 0x8000 at 24, E at
 * 29: no_image, E at 30 lost); after an Overflow (0x1000 at 31, E E E at
 * 37-39 to the ret, whose address never comes; 00 05 at 40; the Trace
 * Info at 42 syncs again, E at 44 is before any address); after a
 * Discard (0x1000 at 45, the ret's E E E at 51-53, 00 03 at 54, 01 00 at
 * 56, E at 58); after a Trace Info while synced (0x1000 at 59, E E E at
 * 65-67, 01 00 at 68, E at 70: as after any Trace Info, an atom before
 * the first address); 0x1000 at 71, E at 77 (1000-1008); after an
 * exception with no address (E E at 78-79 to the ret, a Call at 80, 06
 * 05, whose address packet does not come before the E at 82: lost with
 * the exception's, "X2"); after a Trace On (0x1000 at 83, E E E at 89-91,
 * 04 at 92, E at 93; 0x1000 at 94, E at 100); where the image has no
 * code at the address that came after the ret (E E at 101-102, 9a 0x8000
 * at 103, E at 108: no_image, E at 109 lost). */
static void test_no_address_gap_other_losses(void **state)
{
	static const uint8_t t[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x01, 0x00, 0x04,
		0xf7, 0xf7, 0x82, 0x00, 0x08, 0x00, 0x00, 0x11, 0xf7,
		0x9a, 0x00, 0x40, 0x00, 0x00, 0xf7, 0xf7,
		0x82, 0x00, 0x08, 0x00, 0x00, 0x11, 0xf7, 0xf7, 0xf7, /* 31 */
		0x00, 0x05, 0x01, 0x00, 0xf7,                         /* 40 */
		0x82, 0x00, 0x08, 0x00, 0x00, 0x11, 0xf7, 0xf7, 0xf7, /* 45 */
		0x00, 0x03, 0x01, 0x00, 0xf7,                         /* 54 */
		0x82, 0x00, 0x08, 0x00, 0x00, 0x11, 0xf7, 0xf7, 0xf7, /* 59 */
		0x01, 0x00, 0xf7,                                     /* 68 */
		0x82, 0x00, 0x08, 0x00, 0x00, 0x11, 0xf7,             /* 71 */
		0xf7, 0xf7, 0x06, 0x05, 0xf7,                         /* 78 */
		0x82, 0x00, 0x08, 0x00, 0x00, 0x11, 0xf7, 0xf7, 0xf7, /* 83 */
		0x04, 0xf7,                                           /* 92 */
		0x82, 0x00, 0x08, 0x00, 0x00, 0x11, 0xf7,             /* 94 */
		0xf7, 0xf7, 0x9a, 0x00, 0x40, 0x00, 0x00, 0xf7, 0xf7, /* 101 */
	};

	(void)state;
	assert_int_equal(decode_all_forms(t, sizeof(t), 0, 0),
			 2 + 2 + 1 + 1 + 1 + 1 + 1 + 2);
	EXPECT(&R, "| | 1000 1004 1008 | 1000 1004 1008 1010 1020 1024 | "
		   "1000 1004 1008 1010 1020 1024 1000 1004 1008 1010 1020 "
		   "1024 1000 1004 1008 1010 1020 1024 X2 1000 1004 1008 "
		   "1010 1020 1024 | | 1000 1004 1008 1010 1020 1024 |");
	assert_int_equal(R.e[R.n - 1].kind, etmkit_elem_no_image);
	assert_int_equal(R.e[R.n - 1].offset, 108);
	assert_int_equal(no_address_gaps(&R, NULL, 0), 0);
}

/* One loss after another, the gaps among enough elements that the
 * decoder's output queue (F4_OUT) fills before, at and after one of them
 * in every form and feeding: ITER times E b.eq, E bl, E ret, E (lost:
 * the gap), 95 00 (0x1000); with the return stack on, E (popped: 1014 to
 * the ret at 1018) before the lost one; with MAXSPEC 255, each round's
 * atoms committed after its address (2d 04 or 2d 05): one queue entry,
 * the gap of the first atom's offset (test_no_address_gap_speculative). */
#define ITER 90
static void test_no_address_gap_rounds(void **state)
{
	static const uint8_t head[] = { HEAD };
	static uint8_t t[21 + 9 * ITER];
	static const struct {
		uint32_t maxspec, configr;
	} cfg[] = { { 0, 0 }, { 0, 1u << 12 }, { 255, 0 }, { 255, 1u << 12 } };
	uint64_t at[ITER];

	(void)state;
	assert_int_equal(sizeof(head), 21);
	for (size_t c = 0; c < sizeof(cfg) / sizeof(cfg[0]); c++) {
		unsigned natoms = cfg[c].configr ? 5 : 4;
		size_t k = sizeof(head), base;

		memcpy(t, head, sizeof(head));
		for (size_t i = 0; i < ITER; i++) {
			memset(t + k, 0xf7, natoms);
			k += natoms;
			t[k++] = 0x95;
			t[k++] = 0x00;
			if (cfg[c].maxspec) {
				t[k++] = 0x2d;
				t[k++] = (uint8_t)natoms;
			}
		}
		assert_int_equal(decode_all_forms(t, k, cfg[c].maxspec,
						  cfg[c].configr), ITER);
		assert_int_equal(no_address_gaps(&R, at, ITER), ITER);
		base = sizeof(head) + (cfg[c].maxspec ? 0 : natoms - 1);
		for (size_t i = 0; i < ITER; i++)
			assert_int_equal(at[i], base + i * (natoms + 2 +
				(cfg[c].maxspec ? 2 : 0)));
	}
}
#undef ITER

/* One expected element of a ranges decode: an insn_range (count > 0) or,
 * with count 0, an element of another kind. */
struct want {
	uint8_t kind;
	uint64_t addr, end;   /* insn_range */
	uint32_t count;
	uint8_t flags;        /* insn_range */
	uint64_t offset;
};

#define RANGE(a, e, n, f, o)                                                   \
	{ etmkit_elem_insn_range, (a), (e), (n), (f), (o) }
#define OTHER(k, o) { (k), 0, 0, 0, 0, (o) }

/* @r holds the @n elements @w; every range is of A64 instructions, its
 * last one's opcode taken from prog[]. */
static void expect_ranges(const struct run *r, const struct want *w, size_t n)
{
	assert_int_equal(r->n, n);
	for (size_t i = 0; i < n; i++) {
		const struct etmkit_elem *e = &r->e[i];

		assert_int_equal(e->kind, w[i].kind);
		assert_int_equal(e->offset, w[i].offset);
		if (e->kind != etmkit_elem_insn_range)
			continue;
		assert_int_equal(e->addr, w[i].addr);
		assert_int_equal(e->u.range.end, w[i].end);
		assert_int_equal(e->u.range.count, w[i].count);
		assert_int_equal(e->flags, w[i].flags);
		assert_int_equal(e->isa, etmkit_isa_a64);
		assert_int_equal(e->size, 4);
		assert_int_equal(e->cycles, 0);
		assert_int_equal(e->u.range.opcode,
				 prog[(w[i].end - 4 - 0x1000) / 4]);
	}
}

/* ETM4_FLOW_RANGES (flow.h): test_source_address's and test_exception's
 * instructions, one range per run of them that ends at a P0 or COND_FAIL
 * instruction. The packets' offsets: HEAD is 21 bytes (A-sync 0-11, Trace
 * Info 12, Trace On 14, Address + Context 15). */
static void test_ranges(void **state)
{
	/* source address 21, address 23, E 25, commit 26 */
	static const uint8_t src[] = { HEAD, 0xb4, 0x06, 0x95, 0x00, 0xf7,
				       0x2d, 0x02 };
	/* exception 21, address 23 and 25, E 27, commit 28 */
	static const uint8_t exc[] = { HEAD, 0x06, 0x05, 0x95, 0x02,
				       0x95, 0x08, 0xf7, 0x2d, 0x02 };
	/* test_source_address: "1000 1004 1008N 100c 1010N 1014 1018" from
	 * the source address (the N ones end ranges, COND_FAIL without P0,
	 * the one at the address P0), then "1000 1004 1008" from the E. */
	static const struct want wsrc[] = {
		OTHER(etmkit_elem_trace_on, 14),
		OTHER(etmkit_elem_context, 15),
		RANGE(0x1000, 0x100c, 3, ETMKIT_INSN_COND_FAIL, 21),
		RANGE(0x100c, 0x1014, 2, ETMKIT_INSN_COND_FAIL, 21),
		RANGE(0x1014, 0x101c, 2, ETMKIT_INSN_P0 | ETMKIT_INSN_EXEC,
		      21),
		RANGE(0x1000, 0x100c, 3, ETMKIT_INSN_P0 | ETMKIT_INSN_EXEC,
		      25),
	};
	/* test_exception: "1000 1004 X2 1020 1024". The exception's range
	 * ends before its return address with no P0 instruction: EXEC. */
	static const struct want wexc[] = {
		OTHER(etmkit_elem_trace_on, 14),
		OTHER(etmkit_elem_context, 15),
		RANGE(0x1000, 0x1008, 2, ETMKIT_INSN_EXEC, 21),
		OTHER(etmkit_elem_exception, 21),
		RANGE(0x1020, 0x1028, 2, ETMKIT_INSN_P0 | ETMKIT_INSN_EXEC,
		      27),
	};
	struct etm4_flow_config c;
	struct etm4_flow_decoder *d = NULL;

	(void)state;
	decode_flags(&R, src, sizeof(src), 255, 0, 0, ETM4_FLOW_RANGES);
	expect_ranges(&R, wsrc, sizeof(wsrc) / sizeof(wsrc[0]));
	decode_flags(&R, exc, sizeof(exc), 255, 0, 0, ETM4_FLOW_RANGES);
	expect_ranges(&R, wexc, sizeof(wexc) / sizeof(wexc[0]));

	/* test_q: "Q3 1000 1004 1008 1010": the Q's three instructions are
	 * one range its last one ends (P0, flow.h), then the E atom's. */
	static const uint8_t q[] = { HEAD, 0xa5, 0x04, 0x03, 0xf7 };
	static const struct want wq[] = {
		OTHER(etmkit_elem_trace_on, 14),
		OTHER(etmkit_elem_context, 15),
		OTHER(etmkit_elem_q, 21),
		RANGE(0x1000, 0x100c, 3, ETMKIT_INSN_P0 | ETMKIT_INSN_EXEC, 21),
		RANGE(0x1010, 0x1014, 1, ETMKIT_INSN_P0 | ETMKIT_INSN_EXEC, 24),
	};

	decode_flags(&R, q, sizeof(q), 0, 3u << 13, 0x2801cea1 | (3u << 15),
		     ETM4_FLOW_RANGES);
	expect_ranges(&R, wq, sizeof(wq) / sizeof(wq[0]));

	/* flow.h: a flag it does not define is refused. */
	config(&c, 255, 0, 0, ETM4_FLOW_RANGES | 0x80);
	assert_int_equal(etm4_flow_alloc(&d, &c), -etmkit_err_invalid);
	assert_null(d);
	config(&c, 255, 0, 0, ETM4_FLOW_RANGES);
	assert_int_equal(etm4_flow_alloc(&d, &c), 0);
	etm4_flow_free(d);
	/* A caller built before flags existed: its size ends before them,
	 * and what lies there is not read. */
	config(&c, 255, 0, 0, 0x80);
	c.size = offsetof(struct etm4_flow_config, flags);
	assert_int_equal(etm4_flow_alloc(&d, &c), 0);
	etm4_flow_free(d);
	c.size = offsetof(struct etm4_flow_config, flags) - 1;
	d = NULL;
	assert_int_equal(etm4_flow_alloc(&d, &c), -etmkit_err_invalid);
	assert_null(d);
}

/* Target addresses outside the image, each followed by atoms (D4.3.6.2:
 * execution goes on there; the image has no code: no_image, and the
 * atoms after it have nowhere to be walked from, lost). With MAXSPEC 0
 * each comes as soon as its atom packet: no_image at the atom's offset,
 * with the address and the instruction set of its IS bit (digest 5.18;
 * IS 1 is T32 here). One after another, with short and exact-match forms
 * reading the address history (digest 2.4), then in the image again.
 * After HEAD, F exact matches of history entry 0 (0x1000: no element;
 * more addresses than one run record of the packet decoder holds, so
 * that the ranges form reads what follows from its input, the one pass),
 * then at offset B = 21 + F:
 *   B E (1000-100c); B+1 9a 0x8000, B+6 E, B+7 EE; B+8 95 0x8100, B+10 N;
 *   B+11 91 (history 1: 0x8000), B+12 E; B+13 9a 0x1010, B+18 E
 *   (1010-1014); B+19 9b 0xa002 IS 1, B+24 E; B+25 9a 0x8000, B+30 E;
 *   B+31 9b 0xa002 IS 1, B+36 E; then three times 9a 0x1000 and E
 *   (1000-100c at B+42, B+48, B+54).
 * Eight atoms lost. The ranges form, its counted form (from the packet
 * decoder's run records) and the per-instruction form agree on all of
 * it. The ranges form's streak (no_image_streak(), etm4_walk.c) begins
 * at 0x8000 (B+1) and takes 0x8100 and 0x8000 (B+8, B+11), stopping at
 * 0x1010 (in the image); again at 0xa002 (B+19), taking 0x8000 and
 * 0xa002 (B+25, B+31), stopping at 0x1000: four addresses taken, which
 * the general path would report the same. */
#define F 1100
#define B (21 + F)
static void test_no_image_streak(void **state)
{
	static const uint8_t head[] = { HEAD };
	static const uint8_t body[] = {
		0xf7,
		0x9a, 0x00, 0x40, 0x00, 0x00, 0xf7, 0xdb,
		0x95, 0x40, 0xf6,
		0x91, 0xf7,
		0x9a, 0x04, 0x08, 0x00, 0x00, 0xf7,
		0x9b, 0x01, 0xa0, 0x00, 0x00, 0xf7,
		0x9a, 0x00, 0x40, 0x00, 0x00, 0xf7,
		0x9b, 0x01, 0xa0, 0x00, 0x00, 0xf7,
		0x9a, 0x00, 0x08, 0x00, 0x00, 0xf7,
		0x9a, 0x00, 0x08, 0x00, 0x00, 0xf7,
		0x9a, 0x00, 0x08, 0x00, 0x00, 0xf7,
	};
	static uint8_t t[sizeof(head) + F + sizeof(body)];
	static const struct want w[] = {
		OTHER(etmkit_elem_trace_on, 14),
		OTHER(etmkit_elem_context, 15),
		RANGE(0x1000, 0x100c, 3, ETMKIT_INSN_P0 | ETMKIT_INSN_EXEC, B),
		OTHER(etmkit_elem_no_image, B + 6),
		OTHER(etmkit_elem_no_image, B + 10),
		OTHER(etmkit_elem_no_image, B + 12),
		RANGE(0x1010, 0x1014, 1, ETMKIT_INSN_P0 | ETMKIT_INSN_EXEC,
		      B + 18),
		OTHER(etmkit_elem_no_image, B + 24),
		OTHER(etmkit_elem_no_image, B + 30),
		OTHER(etmkit_elem_no_image, B + 36),
		RANGE(0x1000, 0x100c, 3, ETMKIT_INSN_P0 | ETMKIT_INSN_EXEC,
		      B + 42),
		RANGE(0x1000, 0x100c, 3, ETMKIT_INSN_P0 | ETMKIT_INSN_EXEC,
		      B + 48),
		RANGE(0x1000, 0x100c, 3, ETMKIT_INSN_P0 | ETMKIT_INSN_EXEC,
		      B + 54),
	};
	static const struct {
		uint64_t offset, addr;
		uint8_t isa;
	} miss[] = {
		{ B + 6, 0x8000, etmkit_isa_a64 },
		{ B + 10, 0x8100, etmkit_isa_a64 },
		{ B + 12, 0x8000, etmkit_isa_a64 },
		{ B + 24, 0xa002, etmkit_isa_thumb },
		{ B + 30, 0x8000, etmkit_isa_a64 },
		{ B + 36, 0xa002, etmkit_isa_thumb },
	};
	static const uint32_t forms[] = {
		ETM4_FLOW_RANGES, ETM4_FLOW_RANGES | ETM4_FLOW_TALLY, 0
	};

	(void)state;
	memcpy(t, head, sizeof(head));
	memset(t + sizeof(head), 0x90, F);
	memcpy(t + sizeof(head) + F, body, sizeof(body));
	assert_int_equal(decode_flags(&R, t, sizeof(t), 0, 0, 0,
				      ETM4_FLOW_RANGES), 8);
	expect_ranges(&R, w, sizeof(w) / sizeof(w[0]));
	assert_int_equal(R.streak, 4);
	for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
		size_t k = 0;

		assert_int_equal(decode_flags(&R, t, sizeof(t), 0, 0, 0,
					      forms[f]), 8);
		for (size_t i = 0; i < R.n; i++) {
			const struct etmkit_elem *e = &R.e[i];

			if (e->kind != etmkit_elem_no_image)
				continue;
			assert_true(k < 6);
			assert_int_equal(e->offset, miss[k].offset);
			assert_int_equal(e->addr, miss[k].addr);
			assert_int_equal(e->isa, miss[k].isa);
			assert_int_equal(e->u.loss.reason,
					 etmkit_loss_unmapped);
			k++;
		}
		assert_int_equal(k, 6);
	}
}
#undef B
#undef F

/* Where no_image_streak() stops short of the next address in the image.
 * As above, HEAD and F exact matches of 0x1000 first (the streak runs
 * where the ranges form reads its input, the one pass), then at P:
 * E (1000-100c), 9a 0x8000 (P+1 to P+5) and E (P+6), outside the image
 * and aligned: no_image at P+6, where the streak begins.
 * Full output: then M = 252 times 90 (exact match of history entry 0,
 * 0x8000, digest 2.4) and E: no_image at P+8, P+10, ..., then 9a 0x1000
 * and E (1000-100c) and 16 exact matches of 0x1000 (no element; enough
 * bytes after the last 0x8000 for it to be read ahead, ETM4_FAST_MIN).
 * The decoder's queue holds F4_OUT elements and the streak writes up to
 * the one before the last (etm4_walk.c: room for what the general path
 * writes next): Trace On, Context and the range at 0-2, the streak's
 * first at 3; it takes F4_OUT - 5 = 251 addresses (4-254) and leaves
 * the last 0x8000 to the general path.
 * A hole: prog[] at 0x1000 and again at 0x2000, the span 1000-2037;
 * after the E at P+6, 95 40 (P+7, 0x8100) and E (P+9), then 9a 0x1800
 * (P+10) and E (P+15), in the span but in no region: the streak stops
 * there (it tells outside from the span only), and the general path's
 * lookup finds no code: no_image all the same. Then 9a 0x8000 (P+16)
 * and E (P+21), 9a 0x1000 (P+22) and E (P+27, 1000-100c). One address
 * taken (0x8100); a streak begun at 0x8000 (P+21) ends at once at
 * 0x1000. (A misaligned address cannot come from an address packet:
 * the bits below the instruction size are not sent and read as zero,
 * digest 2.3.) */
#define F 1100
#define P (21 + F)
static void test_no_image_streak_stops(void **state)
{
	enum { M = F4_OUT - 4 };
	static const uint8_t head[] = { HEAD };
	static const uint8_t full[] = { 0xf7, 0x9a, 0x00, 0x40, 0x00, 0x00,
					0xf7 };
	static const uint8_t hole[] = {
		0xf7, 0x9a, 0x00, 0x40, 0x00, 0x00, 0xf7, 0x95, 0x40, 0xf7,
		0x9a, 0x00, 0x0c, 0x00, 0x00, 0xf7, 0x9a, 0x00, 0x40, 0x00,
		0x00, 0xf7, 0x9a, 0x00, 0x08, 0x00, 0x00, 0xf7
	};
	static const struct {
		uint64_t offset, addr;
	} miss[] = { { P + 6, 0x8000 }, { P + 9, 0x8100 },
		     { P + 15, 0x1800 }, { P + 21, 0x8000 } };
	static const uint8_t tail[] = { 0x9a, 0x00, 0x08, 0x00, 0x00, 0xf7,
					0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
					0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
					0x90, 0x90, 0x90, 0x90 };
	static uint8_t t[sizeof(head) + F + sizeof(full) + 2 * M +
			 sizeof(tail)];
	uint8_t *at = t + sizeof(head) + F;

	(void)state;
	memcpy(t, head, sizeof(head));
	memset(t + sizeof(head), 0x90, F);
	memcpy(at, full, sizeof(full));
	for (size_t i = 0; i < M; i++) {
		at[sizeof(full) + 2 * i] = 0x90;
		at[sizeof(full) + 2 * i + 1] = 0xf7;
	}
	memcpy(at + sizeof(full) + 2 * M, tail, sizeof(tail));
	assert_int_equal(decode_flags(&R, t, sizeof(t), 0, 0, 0,
				      ETM4_FLOW_RANGES), M + 1);
	assert_int_equal(R.n, 3 + M + 2);
	assert_int_equal(R.e[2].kind, etmkit_elem_insn_range);
	assert_int_equal(R.e[2].offset, P);
	for (size_t i = 0; i <= M; i++) {
		const struct etmkit_elem *e = &R.e[3 + i];

		assert_int_equal(e->kind, etmkit_elem_no_image);
		assert_int_equal(e->offset, P + 6 + 2 * i);
		assert_int_equal(e->addr, 0x8000);
	}
	assert_int_equal(R.e[M + 4].kind, etmkit_elem_insn_range);
	assert_int_equal(R.e[M + 4].addr, 0x1000);
	assert_int_equal(R.e[M + 4].offset, P + 12 + 2 * M);
	assert_int_equal(R.streak, F4_OUT - 5);

	memcpy(at, hole, sizeof(hole));
	assert_int_equal(decode_image(&R, t, sizeof(head) + F + sizeof(hole),
				      0, 0, 0, ETM4_FLOW_RANGES, 0x2000), 4);
	assert_int_equal(R.n, 3 + 4 + 1);
	for (size_t i = 0; i < 4; i++) {
		const struct etmkit_elem *e = &R.e[3 + i];

		assert_int_equal(e->kind, etmkit_elem_no_image);
		assert_int_equal(e->offset, miss[i].offset);
		assert_int_equal(e->addr, miss[i].addr);
		assert_int_equal(e->u.loss.reason, etmkit_loss_unmapped);
	}
	assert_int_equal(R.e[7].kind, etmkit_elem_insn_range);
	assert_int_equal(R.e[7].addr, 0x1000);
	assert_int_equal(R.e[7].offset, P + 27);
	assert_int_equal(R.streak, 1);
}
#undef P
#undef F

/* Indirect branches whose targets change from one time to the next: the
 * ret at 0x1024 (no return stack: each target comes in a Long Address,
 * 9a, digest 2.3, before the atoms walked there, D4.3.6.2) goes back and
 * forth between two targets, then round three, then between two others.
 * At each target, an E atom for each P0 instruction to the ret again:
 *   0x1000 (f7 db): 1000-100c, 1010-1014 (b.eq taken), 1020-1028 (bl);
 *   0x1030 (db db): 1030-1038 (b 0x1000), 1000-100c, 1010-1014, 1020-1028;
 *   0x100c (db): 100c-1014, 1020-1028.
 * The block at 0x1020 keeps guesses of its ret's target (block.h): each
 * must be checked against the traced address, whichever of them is
 * taken. More addresses than a run record of the packet decoder holds
 * (1024), so the walk reads the later ones from its input (the one
 * pass). The ranges form gives the ranges worked out here, and the
 * per-instruction form the same instructions, range by range. */
#define IT_A 300 /* 0x1000, 0x1030 in turn */
#define IT_B 150 /* 0x1000, 0x1030, 0x100c */
#define IT_C 100 /* 0x100c, 0x1030 */

/* Append the Long Address of @addr (32-bit, IS 0) and the atoms at it to
 * @t (at *@k), and what the ranges form gives for them to @w (at *@nw). */
static void indirect_target(uint8_t *t, size_t *k, struct want *w,
			    size_t *nw, uint64_t addr)
{
	const uint8_t p0 = ETMKIT_INSN_P0 | ETMKIT_INSN_EXEC;
	size_t o = *k + 5; /* the first atom packet's offset */

	t[(*k)++] = 0x9a;
	t[(*k)++] = (uint8_t)(addr >> 2 & 0x7f);
	t[(*k)++] = (uint8_t)(addr >> 9 & 0x7f);
	t[(*k)++] = 0;
	t[(*k)++] = 0;
	if (addr == 0x1000) {
		t[(*k)++] = 0xf7;
		t[(*k)++] = 0xdb;
		w[(*nw)++] = (struct want)RANGE(0x1000, 0x100c, 3, p0, o);
		w[(*nw)++] = (struct want)RANGE(0x1010, 0x1014, 1, p0, o + 1);
		w[(*nw)++] = (struct want)RANGE(0x1020, 0x1028, 2, p0, o + 1);
	} else if (addr == 0x1030) {
		t[(*k)++] = 0xdb;
		t[(*k)++] = 0xdb;
		w[(*nw)++] = (struct want)RANGE(0x1030, 0x1038, 2, p0, o);
		w[(*nw)++] = (struct want)RANGE(0x1000, 0x100c, 3, p0, o);
		w[(*nw)++] = (struct want)RANGE(0x1010, 0x1014, 1, p0, o + 1);
		w[(*nw)++] = (struct want)RANGE(0x1020, 0x1028, 2, p0, o + 1);
	} else {
		t[(*k)++] = 0xdb;
		w[(*nw)++] = (struct want)RANGE(0x100c, 0x1014, 2, p0, o);
		w[(*nw)++] = (struct want)RANGE(0x1020, 0x1028, 2, p0, o);
	}
}

static void test_ranges_indirect_targets(void **state)
{
	enum { NADDR = 2 * IT_A + 3 * IT_B + 2 * IT_C };
	static const uint8_t head[] = { HEAD, 0xf7, 0xdb };
	static uint8_t t[sizeof(head) + 7 * NADDR];
	static struct want w[2 + 3 + 4 * NADDR];
	size_t k = sizeof(head), nw = 0, i, j;

	(void)state;
	memcpy(t, head, sizeof(head));
	w[nw++] = (struct want)OTHER(etmkit_elem_trace_on, 14);
	w[nw++] = (struct want)OTHER(etmkit_elem_context, 15);
	w[nw++] = (struct want)RANGE(0x1000, 0x100c, 3,
				     ETMKIT_INSN_P0 | ETMKIT_INSN_EXEC, 21);
	w[nw++] = (struct want)RANGE(0x1010, 0x1014, 1,
				     ETMKIT_INSN_P0 | ETMKIT_INSN_EXEC, 22);
	w[nw++] = (struct want)RANGE(0x1020, 0x1028, 2,
				     ETMKIT_INSN_P0 | ETMKIT_INSN_EXEC, 22);
	for (i = 0; i < IT_A; i++) {
		indirect_target(t, &k, w, &nw, 0x1000);
		indirect_target(t, &k, w, &nw, 0x1030);
	}
	for (i = 0; i < IT_B; i++) {
		indirect_target(t, &k, w, &nw, 0x1000);
		indirect_target(t, &k, w, &nw, 0x1030);
		indirect_target(t, &k, w, &nw, 0x100c);
	}
	for (i = 0; i < IT_C; i++) {
		indirect_target(t, &k, w, &nw, 0x100c);
		indirect_target(t, &k, w, &nw, 0x1030);
	}
	assert_int_equal(decode_flags(&R, t, k, 0, 0, 0, ETM4_FLOW_RANGES),
			 0);
	expect_ranges(&R, w, nw);
	assert_int_equal(decode_flags(&R2, t, k, 0, 0, 0, 0), 0);
	for (i = 0, j = 0; i < R.n; i++) {
		const struct etmkit_elem *r = &R.e[i];

		if (r->kind != etmkit_elem_insn_range) {
			assert_true(j < R2.n);
			assert_int_equal(R2.e[j].kind, r->kind);
			assert_int_equal(R2.e[j++].offset, r->offset);
			continue;
		}
		for (uint32_t c = 0; c < r->u.range.count; c++, j++) {
			const struct etmkit_elem *x = &R2.e[j];

			assert_true(j < R2.n);
			assert_int_equal(x->kind, etmkit_elem_insn);
			assert_int_equal(x->addr, r->addr + 4 * c);
			assert_int_equal(x->offset, r->offset);
			assert_int_equal(x->flags, c + 1 < r->u.range.count ?
				ETMKIT_INSN_EXEC : r->flags);
		}
	}
	assert_int_equal(j, R2.n);
}
#undef IT_A
#undef IT_B
#undef IT_C

/* ETM4_FLOW_TRACES (flow.h), with the return stack (TRCCONFIGR.RS) and
 * MAXSPEC 0: three times N on b.eq at 1008, E on bl at 1010 (to 1020,
 * push 1014), E on ret at 1024 (popped: 1014), E on ret at 1018 (the
 * stack empty: the Address 95 00 gives 0x1000; the last time none).
 * Offsets: HEAD 0-20, then one byte per atom packet, 2 per address.
 * By the rules: the first range follows the Context, not a range that
 * ended: written (1000-100c, N). Then, counted, traces from a taken
 * branch's target to the next taken branch, by start, end and where the
 * next block starts: 100c-1014 to 1020 (the first, going on from that
 * range), 1020-1028 to 1014 three times, 1014-101c to 1000 twice, and
 * 1000-1014 to 1020 twice (the second and third times round), in the
 * order each first ran; the last trace, 1014-101c, has no next block:
 * a range (taken) after them. */
static void test_traces(void **state)
{
	static const uint8_t t[] = { HEAD, 0xf6, 0xf7, 0xf7, 0xf7, 0x95, 0x00,
				     0xf6, 0xf7, 0xf7, 0xf7, 0x95, 0x00,
				     0xf6, 0xf7, 0xf7, 0xf7 };
	static const struct {
		uint64_t addr, end, target, offset;
		uint32_t repeats;
		uint32_t opcode;
	} runs[] = {
		{ 0x100c, 0x1014, 0x1020, 22, 0, 0x94000004 },
		{ 0x1020, 0x1028, 0x1014, 23, 2, 0xd65f03c0 },
		{ 0x1014, 0x101c, 0x1000, 24, 1, 0xd65f03c0 },
		{ 0x1000, 0x1014, 0x1020, 27, 1, 0x94000004 },
	};
	static const struct want first[] = {
		OTHER(etmkit_elem_trace_on, 14),
		OTHER(etmkit_elem_context, 15),
		RANGE(0x1000, 0x100c, 3, ETMKIT_INSN_P0 | ETMKIT_INSN_COND_FAIL,
		      21),
	};
	const struct etmkit_elem *e;

	(void)state;
	decode_flags(&R, t, sizeof(t), 0, 1u << 12, 0,
		     ETM4_FLOW_RANGES | ETM4_FLOW_TRACES);
	assert_int_equal(R.n, 3 + 4 + 1);
	R.n = 3;
	expect_ranges(&R, first, 3);
	for (size_t i = 0; i < 4; i++) {
		e = &R.e[3 + i];
		assert_int_equal(e->kind, etmkit_elem_branch_run);
		assert_int_equal(e->addr, runs[i].addr);
		assert_int_equal(e->u.brun.end, runs[i].end);
		assert_int_equal(e->u.brun.target, runs[i].target);
		assert_int_equal(e->u.brun.repeats, runs[i].repeats);
		assert_int_equal(e->offset, runs[i].offset);
		assert_int_equal(e->flags, ETMKIT_INSN_P0 | ETMKIT_INSN_EXEC);
		assert_int_equal(e->isa, etmkit_isa_a64);
		assert_int_equal(e->size, 4);
		assert_int_equal(e->u.brun.class_flags & (INSN_F_BRANCH |
							  INSN_F_CALL |
							  INSN_F_RETURN),
				 INSN_F_BRANCH | (runs[i].opcode == 0x94000004 ?
						  INSN_F_CALL : INSN_F_RETURN));
	}
	e = &R.e[7];
	assert_int_equal(e->kind, etmkit_elem_insn_range);
	assert_int_equal(e->addr, 0x1014);
	assert_int_equal(e->u.range.end, 0x101c);
	assert_int_equal(e->u.range.count, 2);
	assert_int_equal(e->flags, ETMKIT_INSN_P0 | ETMKIT_INSN_EXEC);
	assert_int_equal(e->offset, 36);
	assert_int_equal(e->u.range.opcode, 0xd65f03c0);
}

/* flow.h: ETM4_FLOW_TALLY and ETM4_FLOW_TRACES need ETM4_FLOW_RANGES and
 * exclude each other. */
static void test_tally_flags(void **state)
{
	static const uint32_t bad[] = {
		ETM4_FLOW_TALLY, ETM4_FLOW_TRACES,
		ETM4_FLOW_RANGES | ETM4_FLOW_TALLY | ETM4_FLOW_TRACES,
	};
	struct etm4_flow_config c;
	struct etm4_flow_decoder *d = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		config(&c, 255, 0, 0, bad[i]);
		assert_int_equal(etm4_flow_alloc(&d, &c), -etmkit_err_invalid);
		assert_null(d);
	}
	config(&c, 255, 0, 0, ETM4_FLOW_RANGES | ETM4_FLOW_TRACES);
	assert_int_equal(etm4_flow_alloc(&d, &c), 0);
	etm4_flow_free(d);
}

/* The output queue handed over (etm4_flow_queue_at(); the parallel
 * decode's, src/parallel/par_piece.c) while a range is open: the decoder
 * stopped for room inside an atom's range (a block of the cache ends
 * after FLOW_BLOCK_MAX instructions, block.h, and the range goes on in
 * the next block), so the batch keeps that range back and the rest of
 * the atom's instructions must extend it where the queue is now. The
 * program: NOPS nops at 0x1000, then b 0x1000. HEAD (Trace On 14,
 * Context 15), then ATOMS E atoms (MAXSPEC 0: each resolved at once,
 * D4.3.3), each one range 0x1000 to after the b, P0 and taken, at its
 * atom's offset. The queue moves to one of two arrays of the test's,
 * poisoned first, before every batch. */
static void test_queue_handover_open_range(void **state)
{
	enum { NOPS = 40, ATOMS = 600, POISON = 0xa5 };
	static const uint8_t head[] = { HEAD };
	static uint8_t t[sizeof(head) + ATOMS];
	static uint8_t code[4 * (NOPS + 1)];
	static struct etmkit_elem q[2][F4_OUT_ROOM], got[2 + ATOMS];
	const uint64_t end = 0x1000 + sizeof(code);
	struct etm4_flow_config c;
	struct etm4_flow_decoder *d;
	struct image *img;
	size_t n = 0, open = 0;
	unsigned w = 0;
	int k;

	(void)state;
	for (unsigned i = 0; i < NOPS; i++)
		ts_a64_put(code + 4 * i, 0xd503201f);
	ts_a64_put(code + 4 * NOPS, 0x14000000u | ((-NOPS) & 0x3ffffffu));
	memcpy(t, head, sizeof(head));
	memset(t + sizeof(head), 0xf7, ATOMS);
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, code, sizeof(code), 0x1000, 0),
			 0);
	config(&c, 0, 0, 0, ETM4_FLOW_RANGES);
	c.image = img;
	assert_int_equal(etm4_flow_alloc(&d, &c), 0);
	assert_int_equal(etm4_flow_feed(d, t, sizeof(t), NULL, 0), 0);
	assert_int_equal(etm4_flow_finish(d), 0);
	for (;;) {
		const struct etmkit_elem *el;
		size_t held = d->n - d->delivered;

		memset(q[w], POISON, sizeof(q[w]));
		etm4_flow_queue_at(d, q[w]);
		if (held) {
			/* What was kept back: the open range, moved. */
			assert_int_equal(held, 1);
			assert_int_equal(q[w][0].kind, etmkit_elem_insn_range);
			assert_int_equal(q[w][0].flags, ETMKIT_INSN_EXEC);
			assert_int_equal(q[w][0].addr, 0x1000);
			assert_true(q[w][0].u.range.end < end);
			open++;
		}
		assert_int_equal(q[w][held].kind, POISON);
		k = etm4_flow_batch(d, &el);
		if (k <= 0)
			break;
		assert_ptr_equal(el, q[w]);
		assert_true(n + (size_t)k <= 2 + ATOMS);
		memcpy(got + n, el, (size_t)k * sizeof(*el));
		n += (size_t)k;
		w ^= 1;
	}
	assert_int_equal(k, -etmkit_err_eos);
	assert_true(open > 0);
	assert_int_equal(n, 2 + ATOMS);
	assert_int_equal(got[0].kind, etmkit_elem_trace_on);
	assert_int_equal(got[1].kind, etmkit_elem_context);
	for (size_t i = 0; i < ATOMS; i++) {
		const struct etmkit_elem *e = &got[2 + i];

		assert_int_equal(e->kind, etmkit_elem_insn_range);
		assert_int_equal(e->offset, sizeof(head) + i);
		assert_int_equal(e->addr, 0x1000);
		assert_int_equal(e->u.range.end, end);
		assert_int_equal(e->u.range.count, NOPS + 1);
		assert_int_equal(e->flags, ETMKIT_INSN_P0 | ETMKIT_INSN_EXEC);
	}
	etm4_flow_free(d);
	image_free(img);
}

/* A buffer that ends inside a packet (here the first byte of a short
 * address packet) is how a ring buffer normally ends: the gap says
 * truncated, not packet_error, so that tools do not count it as a decode
 * error (as the ETMv3 flow decoder does). */
static void test_cut_last_packet(void **state)
{
	static const uint8_t t[] = { HEAD, 0xf7, 0xf6, 0x2d, 0x01, 0x95 };
	const struct etmkit_elem *g;

	(void)state;
	decode(&R, t, sizeof(t), 255, 0, 0);
	EXPECT(&R, "| | 1000 1004 1008 |");
	g = &R.e[R.n - 1];
	assert_int_equal(g->kind, etmkit_elem_gap);
	assert_int_equal(g->offset, sizeof(t) - 1);
	assert_int_equal(g->u.loss.reason, etmkit_loss_truncated);
}

/* Per-process images (flow.h image_for_context): the hook picks image A
 * for context ID 1 and B for 2, where B holds other code at the same
 * addresses (at 0x1010: nop, nop, b 0x1000 instead of A's bl 0x1020).
 * TRCCONFIGR.CID (0x40) traces the 32-bit context ID; context info byte
 * 0x91 = C (ID follows) | SF | EL1. Trace: HEAD with ID 1, E (1000 1004
 * 1008 taken to 0x1010); Context ID 2 (81 91 02..); E: walked in B, 1010
 * 1014 1018 (the b); Context ID 1; Address 0x1010 (9a 04 08 00 00); E:
 * A's bl at 0x1010 alone (B's block at 0x1010, cached before, must not
 * serve A). Without the hook the second E would walk A's bl. */
static const struct image *hook_img[3];
static uint32_t hook_ids[8];
static size_t hook_n;

static const struct image *pick_image(void *ctx, const struct etmkit_elem *c)
{
	assert_ptr_equal(ctx, hook_img);
	assert_int_equal(c->kind, etmkit_elem_context);
	assert_true(c->flags & ETMKIT_CTX_CONTEXT_ID);
	if (hook_n < 8)
		hook_ids[hook_n++] = c->u.context.context_id;
	return c->u.context.context_id < 3 ? hook_img[c->u.context.context_id] :
					     NULL;
}

static void test_image_for_context(void **state)
{
	static const uint8_t t[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x01, 0x00, 0x04,
		0x82, 0x00, 0x08, 0x00, 0x00, 0x91, 0x01, 0x00, 0x00, 0x00,
		0xf7,
		0x81, 0x91, 0x02, 0x00, 0x00, 0x00,
		0xf7,
		0x81, 0x91, 0x01, 0x00, 0x00, 0x00,
		0x9a, 0x04, 0x08, 0x00, 0x00,
		0xf7 };
	static const uint32_t prog_b[] = {
		0xd503201f, 0xd503201f, 0xd503201f, 0xd503201f, /* 1000 */
		0xd503201f, 0xd503201f, 0x17fffffa,             /* 1010 */
	};
	uint8_t code[sizeof(prog)], code_b[sizeof(prog_b)];
	struct etm4_flow_config c;
	struct etm4_flow_decoder *d;
	struct image *a, *b;

	(void)state;
	prog_bytes(code);
	for (size_t i = 0; i < sizeof(prog_b) / 4; i++)
		for (int k = 0; k < 4; k++)
			code_b[4 * i + k] = (uint8_t)(prog_b[i] >> (8 * k));
	assert_int_equal(image_alloc(&a), 0);
	assert_int_equal(image_alloc(&b), 0);
	assert_int_equal(image_add_buffer(a, code, sizeof(code), 0x1000, 0), 0);
	assert_int_equal(image_add_buffer(b, code_b, sizeof(code_b), 0x1000, 0),
			 0);
	hook_img[1] = a;
	hook_img[2] = b;
	for (int with_hook = 0; with_hook < 2; with_hook++) {
		config(&c, 0, 0x40, 0, 0);
		c.image = a;
		if (with_hook) {
			c.image_for_context = pick_image;
			c.image_ctx = hook_img;
		}
		hook_n = 0;
		assert_int_equal(etm4_flow_alloc(&d, &c), 0);
		assert_int_equal(etm4_flow_feed(d, t, sizeof(t), NULL, 0), 0);
		assert_int_equal(etm4_flow_finish(d), 0);
		R.n = 0;
		drain_into(d, &R);
		etm4_flow_free(d);
		if (!with_hook) {
			EXPECT(&R, "| | 1000 1004 1008 | 1010 | 1010");
			assert_int_equal(hook_n, 0);
			continue;
		}
		EXPECT(&R, "| | 1000 1004 1008 | 1010 1014 1018 | 1010");
		assert_int_equal(hook_n, 3);
		assert_int_equal(hook_ids[0], 1);
		assert_int_equal(hook_ids[1], 2);
		assert_int_equal(hook_ids[2], 1);
	}
	image_free(a);
	image_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commit),
		cmocka_unit_test(test_maxspec_zero),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_mispredict),
		cmocka_unit_test(test_cancel_before_trace_info),
		cmocka_unit_test(test_discard),
		cmocka_unit_test(test_discard_position),
		cmocka_unit_test(test_image_grows),
		cmocka_unit_test(test_discard_after_q),
		cmocka_unit_test(test_overrun_in_run),
		cmocka_unit_test(test_exception),
		cmocka_unit_test(test_exception_after_indirect),
		cmocka_unit_test(test_no_address_gap),
		cmocka_unit_test(test_no_address_gap_stack_empty),
		cmocka_unit_test(test_no_address_gap_speculative),
		cmocka_unit_test(test_no_address_gap_other_losses),
		cmocka_unit_test(test_no_address_gap_rounds),
		cmocka_unit_test(test_source_address),
		cmocka_unit_test(test_transaction_failure),
		cmocka_unit_test(test_return_stack),
		cmocka_unit_test(test_q),
		cmocka_unit_test(test_q_through_unconditional),
		cmocka_unit_test(test_q_count_budget),
		cmocka_unit_test(test_q_count_at_image_end),
		cmocka_unit_test(test_q_context_before_address),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_no_image_streak),
		cmocka_unit_test(test_no_image_streak_stops),
		cmocka_unit_test(test_ranges_indirect_targets),
		cmocka_unit_test(test_traces),
		cmocka_unit_test(test_tally_flags),
		cmocka_unit_test(test_cut_last_packet),
		cmocka_unit_test(test_queue_handover_open_range),
		cmocka_unit_test(test_image_for_context),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
