/* The call-stack tracker (etmkit/stacks.h): calls and returns, the
 * [unknown] root (trace start, gaps, returns past the known frames),
 * exceptions and their returns, the depth limit, threads, weights, and
 * the frame events of timelines. Frames here are 256-byte "functions":
 * key = address >> 8, named "fKEY". */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/etmkit.h"
#include "etmkit/insn.h"

#define CALL (INSN_F_BRANCH | INSN_F_CALL)
#define RET (INSN_F_BRANCH | INSN_F_INDIRECT | INSN_F_RETURN)
#define ERET (INSN_F_BRANCH | INSN_F_INDIRECT | INSN_F_EXC_RETURN)

struct t {
	struct stacks *s;
	char events[4096];
	size_t nev;
};

static int frame(void *ctx, uint8_t id, uint64_t addr, int exc,
		 uint64_t *key)
{
	(void)ctx;
	(void)id;
	(void)exc;
	*key = addr >> 8;
	return 0;
}

static const char *name(void *ctx, uint64_t key)
{
	static char buf[32];

	(void)ctx;
	snprintf(buf, sizeof(buf), "f%llx", (unsigned long long)key);
	return buf;
}

/* Events as text: "fKEY[begin,end)d" per frame, "lost@t", "exc@t". */
static int event(void *ctx, const struct stacks_event *ev)
{
	struct t *t = ctx;
	size_t n = strlen(t->events);
	char k[32];

	if (ev->key == STACKS_KEY_UNKNOWN)
		snprintf(k, sizeof(k), "?");
	else
		snprintf(k, sizeof(k), "f%llx", (unsigned long long)ev->key);
	if (ev->kind == stacks_ev_frame)
		snprintf(t->events + n, sizeof(t->events) - n, "%s[%llu,%llu)%u ",
			 k, (unsigned long long)ev->begin,
			 (unsigned long long)ev->end, ev->depth);
	else
		snprintf(t->events + n, sizeof(t->events) - n, "%s@%llu ",
			 ev->kind == stacks_ev_lost ? "lost" : "exc",
			 (unsigned long long)ev->begin);
	t->nev++;
	return 0;
}

static void setup_t(struct t *t, int events)
{
	struct stacks_config c;

	memset(t, 0, sizeof(*t));
	stacks_config_init(&c);
	c.frame = frame;
	c.event = events ? event : NULL;
	c.ctx = t;
	assert_int_equal(stacks_alloc(&t->s, &c), 0);
}

static void insn(struct t *t, uint8_t id, uint64_t addr, uint32_t cls,
		 int taken)
{
	struct etmkit_elem e;

	memset(&e, 0, sizeof(e));
	e.kind = etmkit_elem_insn;
	e.addr = addr;
	e.size = 4;
	e.flags = ETMKIT_INSN_EXEC | (taken ? 0 : ETMKIT_INSN_COND_FAIL);
	e.u.insn.class_flags = cls;
	assert_int_equal(stacks_elem(t->s, id, &e), 0);
}

static void simple(struct t *t, uint8_t id, unsigned kind)
{
	struct etmkit_elem e;

	memset(&e, 0, sizeof(e));
	e.kind = (uint8_t)kind;
	assert_int_equal(stacks_elem(t->s, id, &e), 0);
}

/* The folded stacks by @clock, as text. */
static __attribute__((noinline)) char *folded(struct t *t, unsigned clock)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	assert_non_null(f);
	assert_int_equal(stacks_write_folded(t->s, f, clock, name, NULL), 0);
	fclose(f);
	return buf;
}

static void expect(struct t *t, unsigned clock, const char *want)
{
	char *got = folded(t, clock);

	assert_string_equal(got, want);
	free(got);
}

static void test_calls_and_returns(void **state)
{
	struct t t;

	(void)state;
	setup_t(&t, 0);
	insn(&t, 0, 0x1000, 0, 0);            /* [?, f10] */
	insn(&t, 0, 0x1004, CALL, 1);         /* bl 0x2000 */
	insn(&t, 0, 0x2000, 0, 0);            /* [?, f10, f20] */
	insn(&t, 0, 0x2004, CALL, 0);         /* not taken: no call */
	insn(&t, 0, 0x2008, RET, 1);
	insn(&t, 0, 0x1008, 0, 0);            /* back in f10 */
	insn(&t, 0, 0x100c, INSN_F_BRANCH, 1);/* b: a tail call, no frame */
	insn(&t, 0, 0x3000, 0, 0);
	assert_int_equal(stacks_finish(t.s), 0);
	expect(&t, stacks_insns, "[unknown];f10 5\n[unknown];f10;f20 3\n");
	stacks_free(t.s);
}

/* Range element @addr..@end (4-byte instructions), its last one of
 * class @cls, taken. */
static void range(struct t *t, uint64_t addr, uint64_t end, uint32_t cls)
{
	struct etmkit_elem e;

	memset(&e, 0, sizeof(e));
	e.kind = etmkit_elem_insn_range;
	e.addr = addr;
	e.size = 4;
	e.flags = ETMKIT_INSN_EXEC | ETMKIT_INSN_P0;
	e.u.range.class_flags = cls;
	e.u.range.end = end;
	e.u.range.count = (uint32_t)((end - addr) / 4);
	assert_int_equal(stacks_elems(t->s, 0, &e, 1), 0);
}

/* Ranges, the usual elements: a loop in f10 calling f20 and f30 in turn
 * (three rounds: the calls after the first are remembered ones), then a
 * return from f10, past the known frames, to 0x4000. Per round f10 runs
 * 2 + 1 + 2 instructions, f20 3, f30 2; the return's range adds 1 to
 * f10. */
static void test_ranges(void **state)
{
	struct t t;

	(void)state;
	setup_t(&t, 0);
	for (int round = 0; round < 3; round++) {
		range(&t, 0x1000, 0x1008, CALL);          /* bl f20 */
		range(&t, 0x2000, 0x200c, RET);
		range(&t, 0x1008, 0x100c, CALL);          /* bl f30 */
		range(&t, 0x3000, 0x3008, RET);
		range(&t, 0x100c, 0x1014, INSN_F_BRANCH); /* b 0x1000 */
	}
	range(&t, 0x1000, 0x1004, RET);
	range(&t, 0x4000, 0x4004, 0);
	assert_int_equal(stacks_finish(t.s), 0);
	expect(&t, stacks_insns, "[unknown];f10 16\n[unknown];f10;f20 9\n"
				 "[unknown];f10;f30 6\n[unknown];f40 1\n");
	stacks_free(t.s);
}

/* A return past the known frames: [unknown] and where it returned to;
 * a gap and a trace_on forget the stack. */
static void test_unknown(void **state)
{
	struct t t;

	(void)state;
	setup_t(&t, 0);
	insn(&t, 0, 0x1000, RET, 1);          /* [?, f10] returns */
	insn(&t, 0, 0x5000, CALL, 1);         /* [?, f50] calls */
	insn(&t, 0, 0x2000, 0, 0);            /* [?, f50, f20] */
	simple(&t, 0, etmkit_elem_gap);       /* forgotten */
	insn(&t, 0, 0x2004, RET, 1);          /* [?, f20] returns */
	insn(&t, 0, 0x5004, 0, 0);            /* [?, f50] */
	simple(&t, 0, etmkit_elem_trace_on);
	insn(&t, 0, 0x6000, 0, 0);            /* [?, f60] */
	simple(&t, 0, etmkit_elem_overflow);
	insn(&t, 0, 0x6004, 0, 0);
	assert_int_equal(stacks_finish(t.s), 0);
	expect(&t, stacks_insns,
	       "[unknown];f10 1\n[unknown];f20 1\n[unknown];f50 2\n"
	       "[unknown];f50;f20 1\n[unknown];f60 2\n");
	stacks_free(t.s);
}

/* An exception pushes its handler; an exception return pops down to
 * it; one with no exception frame known starts over. */
static void test_exceptions(void **state)
{
	struct t t;

	(void)state;
	setup_t(&t, 0);
	insn(&t, 0, 0x1000, CALL, 1);
	insn(&t, 0, 0x2000, 0, 0);            /* [?, f10, f20] */
	simple(&t, 0, etmkit_elem_exception);
	insn(&t, 0, 0x8000, CALL, 1);         /* [?, f10, f20, f80] calls */
	insn(&t, 0, 0x9000, ERET, 1);         /* [... f80, f90] erets */
	insn(&t, 0, 0x2004, RET, 1);          /* [?, f10, f20] */
	insn(&t, 0, 0x1004, ERET, 1);         /* [?, f10]: no exception */
	insn(&t, 0, 0x7000, 0, 0);            /* [?, f70] */
	assert_int_equal(stacks_finish(t.s), 0);
	expect(&t, stacks_insns,
	       "[unknown];f10 2\n[unknown];f10;f20 2\n"
	       "[unknown];f10;f20;f80 1\n[unknown];f10;f20;f80;f90 1\n"
	       "[unknown];f70 1\n");
	stacks_free(t.s);
}

/* Deeper than STACKS_MAX_DEPTH: [truncated] once; the calls beyond are
 * counted, and the returns that balance them come back to the frames
 * kept. */
static void test_depth(void **state)
{
	struct t t;
	char *got;
	unsigned deep = STACKS_MAX_DEPTH + 10, frames = 0;

	(void)state;
	setup_t(&t, 0);
	for (unsigned i = 0; i < deep; i++)
		insn(&t, 0, 0x10000 + 0x100 * i, CALL, 1);
	insn(&t, 0, 0x900000, 0, 0);
	for (unsigned i = 0; i < deep; i++)
		insn(&t, 0, 0x900004, RET, 1);
	insn(&t, 0, 0x10004, 0, 0);           /* back in the first */
	assert_int_equal(stacks_finish(t.s), 0);
	got = folded(&t, stacks_insns);
	assert_non_null(strstr(got, ";[truncated] 26\n"));
	assert_non_null(strstr(got, "\n[unknown];f100 2\n") ||
			!strncmp(got, "[unknown];f100 2\n", 17));
	{
		size_t at = (size_t)(strstr(got, ";[truncated] 26") - got);

		while (at > 0 && got[at - 1] != '\n')
			frames += got[at--] == ';';
	}
	assert_int_equal(frames, STACKS_MAX_DEPTH - 1);
	free(got);
	stacks_free(t.s);
}

/* Threads (context IDs) keep their own stacks on one trace ID; trace
 * IDs are apart. */
static void test_threads(void **state)
{
	struct t t;
	struct etmkit_elem c;

	(void)state;
	setup_t(&t, 0);
	memset(&c, 0, sizeof(c));
	c.kind = etmkit_elem_context;
	c.flags = ETMKIT_CTX_CONTEXT_ID;
	c.u.context.context_id = 1;
	assert_int_equal(stacks_elem(t.s, 0, &c), 0);
	insn(&t, 0, 0x1000, CALL, 1);
	insn(&t, 1, 0x4000, CALL, 1);         /* another trace ID */
	c.u.context.context_id = 2;
	assert_int_equal(stacks_elem(t.s, 0, &c), 0);
	insn(&t, 0, 0x3000, 0, 0);            /* thread 2: [?, f30] */
	c.u.context.context_id = 1;
	assert_int_equal(stacks_elem(t.s, 0, &c), 0);
	insn(&t, 0, 0x2000, 0, 0);            /* thread 1: its call lands */
	insn(&t, 1, 0x5000, 0, 0);
	assert_int_equal(stacks_finish(t.s), 0);
	expect(&t, stacks_insns,
	       "[unknown];f10 1\n[unknown];f10;f20 1\n[unknown];f30 1\n"
	       "[unknown];f40 1\n[unknown];f40;f50 1\n");
	stacks_free(t.s);
}

/* insn_range counts count * (repeats + 1); cycles and time weights. */
static void test_weights(void **state)
{
	struct t t;
	struct etmkit_elem e;

	(void)state;
	setup_t(&t, 0);
	memset(&e, 0, sizeof(e));
	e.kind = etmkit_elem_timestamp;
	e.u.timestamp.value = 100;
	assert_int_equal(stacks_elem(t.s, 0, &e), 0);
	memset(&e, 0, sizeof(e));
	e.kind = etmkit_elem_insn_range;
	e.addr = 0x1000;
	e.size = 4;
	e.flags = ETMKIT_INSN_EXEC | ETMKIT_INSN_P0 | ETMKIT_INSN_CYCLES;
	e.cycles = 7;
	e.u.range.end = 0x1010;
	e.u.range.count = 4;
	e.u.range.repeats = 2;
	e.u.range.class_flags = CALL;
	assert_int_equal(stacks_elem(t.s, 0, &e), 0);
	insn(&t, 0, 0x2000, 0, 0);
	memset(&e, 0, sizeof(e));
	e.kind = etmkit_elem_timestamp;
	e.u.timestamp.value = 130;
	assert_int_equal(stacks_elem(t.s, 0, &e), 0);
	assert_int_equal(stacks_finish(t.s), 0);
	expect(&t, stacks_insns, "[unknown];f10 12\n[unknown];f10;f20 1\n");
	expect(&t, stacks_cycles, "[unknown];f10 7\n");
	expect(&t, stacks_time, "[unknown];f10;f20 30\n");
	stacks_free(t.s);
}

/* Frame activations end as events, in the instruction clock; losses and
 * exceptions are events at their time. */
static void test_events(void **state)
{
	struct t t;

	(void)state;
	setup_t(&t, 1);
	insn(&t, 0, 0x1000, CALL, 1);         /* t0 */
	insn(&t, 0, 0x2000, RET, 1);          /* t1 */
	insn(&t, 0, 0x1004, 0, 0);            /* t2 */
	simple(&t, 0, etmkit_elem_gap);       /* at 3 */
	insn(&t, 0, 0x3000, 0, 0);
	simple(&t, 0, etmkit_elem_exception); /* at 4 */
	insn(&t, 0, 0x8000, 0, 0);
	assert_int_equal(stacks_finish(t.s), 0);
	assert_string_equal(t.events,
			    "f20[1,2)2 f10[0,3)1 ?[0,3)0 lost@3 exc@4 "
			    "f80[4,5)2 f30[3,5)1 ?[3,5)0 ");
	stacks_free(t.s);
}

static void test_invalid(void **state)
{
	struct stacks_config c;
	struct stacks *s;
	struct etmkit_elem e;

	(void)state;
	stacks_config_init(&c);
	assert_int_equal(stacks_alloc(&s, &c), -etmkit_err_invalid);
	c.frame = frame;
	c.clock = stacks_clock_count;
	assert_int_equal(stacks_alloc(&s, &c), -etmkit_err_invalid);
	c.clock = 0;
	assert_int_equal(stacks_alloc(&s, &c), 0);
	memset(&e, 0, sizeof(e));
	assert_int_equal(stacks_elem(s, 128, &e), -etmkit_err_invalid);
	assert_int_equal(stacks_write_folded(s, stdout, 3, name, NULL),
			 -etmkit_err_invalid);
	stacks_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calls_and_returns),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_exceptions),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
