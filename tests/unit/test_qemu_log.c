/* QEMU user-mode log importer (qemu_log.h): real logs of
 * tests/workloads/tiny.c (tests/data/qemu/, captured with Debian 12's
 * QEMU 7.2) against items worked out by reading the logs by hand, and
 * malformed logs against their diagnostics. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etmkit/qemu_log.h"
#include "qemu/qemu_fmt.h"

#define MAX_ITEMS 256

struct run {
	char items[MAX_ITEMS][96];
	int n;
	int ret;           /* last qemu_log_next() result */
	struct exec_diag diag;
	struct qemu_log_stats st;
};

static void read_all(FILE *f, const struct qemu_log_config *cfg,
		     struct run *out)
{
	struct qemu_log_reader *rd;
	struct exec_rec r;

	memset(out, 0, sizeof *out);
	assert_int_equal(qemu_log_reader_alloc(&rd, f, cfg), 0);
	while ((out->ret = qemu_log_next(rd, &r, &out->diag)) == 1) {
		assert_true(out->n < MAX_ITEMS);
		qfmt_item(out->items[out->n], sizeof out->items[0], &r);
		out->n++;
	}
	assert_int_equal(qemu_log_reader_stats(rd, &out->st), 0);
	qemu_log_reader_free(rd);
}

static void read_file(const char *name, const struct qemu_log_config *cfg,
		      struct run *out)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/qemu/%s", ETMKIT_TEST_DATA, name);
	f = fopen(path, "r");
	assert_non_null(f);
	read_all(f, cfg, out);
	fclose(f);
}

static void read_text(const char *text, const struct qemu_log_config *cfg,
		      struct run *out)
{
	FILE *f = fmemopen((void *)(uintptr_t)text, strlen(text), "r");

	assert_non_null(f);
	read_all(f, cfg, out);
	fclose(f);
}

static void expect_items(const struct run *got, const char *const *want,
			 int n)
{
	int i;

	for (i = 0; i < n && i < got->n; i++)
		if (strcmp(got->items[i], want[i]) != 0)
			fail_msg("item %d: got \"%s\", want \"%s\"", i,
				 got->items[i], want[i]);
	assert_int_equal(got->n, n);
}

/* ---- A64, block mode (-d in_asm,exec,nochain) ----------------------------
 * _start: a loop of 3 calls through a function pointer (BLR x1 to twice,
 * inc, twice), each RET back; B.NE taken twice, not the third time; BL to
 * tsel twice; SVC write, SVC exit (the log's end). */
static const char *const a64_block[] = {
	"ctx el=0 ns=1",
	"I a64 4001a0 a9bd7bfd", "I a64 4001a4 910003fd",
	"I a64 4001a8 a90153f3", "I a64 4001ac f90013f5",
	"I a64 4001b0 52800013", "I a64 4001b4 52800014",
	"I a64 4001b8 f00000f5", "I a64 4001bc 913fa2b5",
	"I a64 4001c0 92400260", "I a64 4001c4 f8607aa1",
	"I a64 4001c8 2a1303e0",
	"I a64 4001cc d63f0020 B IND T>40017c a64",       /* blr: twice */
	"I a64 40017c 531f7800",
	"I a64 400180 d65f03c0 B IND T>4001d0 a64",       /* ret */
	"I a64 4001d0 0b000294", "I a64 4001d4 11000673",
	"I a64 4001d8 71000e7f",
	"I a64 4001dc 54ffff21 B T>4001c0 a64",           /* b.ne taken */
	"I a64 4001c0 92400260", "I a64 4001c4 f8607aa1",
	"I a64 4001c8 2a1303e0",
	"I a64 4001cc d63f0020 B IND T>400184 a64",       /* blr: inc */
	"I a64 400184 11000400",
	"I a64 400188 d65f03c0 B IND T>4001d0 a64",
	"I a64 4001d0 0b000294", "I a64 4001d4 11000673",
	"I a64 4001d8 71000e7f",
	"I a64 4001dc 54ffff21 B T>4001c0 a64",
	"I a64 4001c0 92400260", "I a64 4001c4 f8607aa1",
	"I a64 4001c8 2a1303e0",
	"I a64 4001cc d63f0020 B IND T>40017c a64",
	"I a64 40017c 531f7800",
	"I a64 400180 d65f03c0 B IND T>4001d0 a64",
	"I a64 4001d0 0b000294", "I a64 4001d4 11000673",
	"I a64 4001d8 71000e7f",
	"I a64 4001dc 54ffff21 B",                        /* falls through */
	"I a64 4001e0 2a1403e0",
	"I a64 4001e4 97ffffea B T>40018c a64",           /* bl tsel */
	"I a64 40018c 51000801", "I a64 400190 11001402",
	"I a64 400194 71000c1f", "I a64 400198 1a81b040",
	"I a64 40019c d65f03c0 B IND T>4001e8 a64",
	"I a64 4001e8 2a0003f3", "I a64 4001ec 52800020",
	"I a64 4001f0 97ffffe7 B T>40018c a64",
	"I a64 40018c 51000801", "I a64 400190 11001402",
	"I a64 400194 71000c1f", "I a64 400198 1a81b040",
	"I a64 40019c d65f03c0 B IND T>4001f4 a64",
	"I a64 4001f4 0b000263", "I a64 4001f8 0b140063",
	"I a64 4001fc d2800808", "I a64 400200 d2800020",
	"I a64 400204 90000001", "I a64 400208 9108c021",
	"I a64 40020c d2800062",
	"I a64 400210 d4000001",                          /* svc: write */
	"exc call 400214", "gap",
	"I a64 400214 7100407f", "I a64 400218 d2800ba8",
	"I a64 40021c 9a9f07e0", "I a64 400220 d2800001",
	"I a64 400224 d2800002",
	"I a64 400228 d4000001",                          /* svc: exit */
	"exc call 40022c", "gap",
};

/* ---- A32 + T32, block mode ----------------------------------------------
 * The same program built -marm, tsel in Thumb: BLX r3 calls, BNE, BLX
 * (immediate) into Thumb, an ITE GT block, BX LR back to ARM. MOVNE at
 * 10164 is conditional: its outcome is not in this log, recorded passed. */
static const char *const a32_block[] = {
	"ctx el=0 ns=1",
	"I arm 100f4 e92d41f0", "I arm 100f8 e3a04000",
	"I arm 100fc e1a05004", "I arm 10100 e59f6070",
	"I arm 10104 e08f6006", "I arm 10108 e2043001",
	"I arm 1010c e7963103", "I arm 10110 e1a00004",
	"I arm 10114 e12fff33 B IND T>100d8 arm",         /* blx r3: twice */
	"I arm 100d8 e1a00080",
	"I arm 100dc e12fff1e B IND T>10118 arm",         /* bx lr */
	"I arm 10118 e0855000", "I arm 1011c e2844001",
	"I arm 10120 e3540003",
	"I arm 10124 1afffff7 B T>10108 arm",             /* bne taken */
	"I arm 10108 e2043001", "I arm 1010c e7963103",
	"I arm 10110 e1a00004",
	"I arm 10114 e12fff33 B IND T>100e0 arm",         /* inc */
	"I arm 100e0 e2800001",
	"I arm 100e4 e12fff1e B IND T>10118 arm",
	"I arm 10118 e0855000", "I arm 1011c e2844001",
	"I arm 10120 e3540003",
	"I arm 10124 1afffff7 B T>10108 arm",
	"I arm 10108 e2043001", "I arm 1010c e7963103",
	"I arm 10110 e1a00004",
	"I arm 10114 e12fff33 B IND T>100d8 arm",
	"I arm 100d8 e1a00080",
	"I arm 100dc e12fff1e B IND T>10118 arm",
	"I arm 10118 e0855000", "I arm 1011c e2844001",
	"I arm 10120 e3540003",
	"I arm 10124 1afffff7 B",                         /* not taken */
	"I arm 10128 e1a00005",
	"I arm 1012c faffffed B T>100e8 thumb",           /* blx to Thumb */
	"I thumb 100e8 2802", "I thumb 100ea bfcc",       /* cmp; ite gt */
	"I thumb 100ec 3802", "I thumb 100ee 3005",
	"I thumb 100f0 4770 B IND T>10130 arm",           /* bx lr to ARM */
	"I arm 10130 e1a04000", "I arm 10134 e3a00001",
	"I arm 10138 faffffea B T>100e8 thumb",
	"I thumb 100e8 2802", "I thumb 100ea bfcc",
	"I thumb 100ec 3802", "I thumb 100ee 3005",
	"I thumb 100f0 4770 B IND T>1013c arm",
	"I arm 1013c e0843000", "I arm 10140 e0833005",
	"I arm 10144 e3a07004", "I arm 10148 e3a00001",
	"I arm 1014c e59f1028", "I arm 10150 e08f1001",
	"I arm 10154 e3a02003",
	"I arm 10158 ef000000", "exc call 1015c", "gap",  /* svc: write */
	"I arm 1015c e3a07001", "I arm 10160 e2530010",
	"I arm 10164 13a00001",                           /* movne */
	"I arm 10168 e3a01000", "I arm 1016c e1a02001",
	"I arm 10170 ef000000", "exc call 10174", "gap",  /* svc: exit */
};

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void test_a64_block(void **state)
{
	struct run *r = malloc(sizeof *r);

	(void)state;
	read_file("tiny-a64-block.log", NULL, r);
	assert_int_equal(r->ret, 0);
	expect_items(r, a64_block, N(a64_block));
	assert_int_equal(r->st.mode, qemu_log_mode_block);
	assert_int_equal(r->st.blocks, 15);
	assert_int_equal(r->st.tbs, 10);
	free(r);
}

static void test_a32_block(void **state)
{
	struct run *r = malloc(sizeof *r);

	(void)state;
	read_file("tiny-a32-block.log", NULL, r);
	assert_int_equal(r->ret, 0);
	expect_items(r, a32_block, N(a32_block));
	free(r);
}

/* The block-mode items with " FAIL" added to the items at @fail (indexes),
 * which must be every difference of the state mode. */
static void expect_with_fails(const struct run *got, const char *const *want,
			      int n, const int *fail, int nfail)
{
	int i, j;

	assert_int_equal(got->n, n);
	for (i = 0; i < n; i++) {
		char w[96];

		snprintf(w, sizeof w, "%s", want[i]);
		for (j = 0; j < nfail; j++)
			if (fail[j] == i) {
				/* "I ... B" -> "I ... B FAIL" (never TAKEN) */
				assert_null(strstr(w, "T>"));
				strncat(w, " FAIL", sizeof w - strlen(w) - 1);
			}
		if (strcmp(got->items[i], w) != 0)
			fail_msg("item %d: got \"%s\", want \"%s\"", i,
				 got->items[i], w);
	}
}

static int index_of(const char *const *items, int n, const char *item, int k)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(items[i], item) == 0 && k-- == 0)
			return i;
	fail_msg("no occurrence %d of %s", k, item);
	return -1;
}

/* State mode (-singlestep -d in_asm,exec,cpu,nochain): the same items, and
 * the conditions evaluated from the logged PSR. tsel(6): ITE GT passes
 * SUBGT and fails ADDLE (PSR 2000cc30: C set, IT = 0xcc); tsel(1): the
 * reverse. The third BNE fails; MOVNE fails (r3 - 16 == 0). */
static void test_a32_state(void **state)
{
	struct run *r = malloc(sizeof *r);
	int fail[4];

	(void)state;
	fail[0] = index_of(a32_block, N(a32_block), "I arm 10124 1afffff7 B", 0);
	fail[1] = index_of(a32_block, N(a32_block), "I thumb 100ee 3005", 0);
	fail[2] = index_of(a32_block, N(a32_block), "I thumb 100ec 3802", 1);
	fail[3] = index_of(a32_block, N(a32_block), "I arm 10164 13a00001", 0);
	read_file("tiny-a32-state.log", NULL, r);
	assert_int_equal(r->ret, 0);
	assert_int_equal(r->st.mode, qemu_log_mode_state);
	expect_with_fails(r, a32_block, N(a32_block), fail, 4);
	/* the same without "Trace" lines: state from the CPU dumps alone */
	read_file("tiny-a32-cpu.log", NULL, r);
	assert_int_equal(r->ret, 0);
	expect_with_fails(r, a32_block, N(a32_block), fail, 4);
	free(r);
}

/* A64 state mode: B.NE's third execution fails (NZCV after cmp w19, #3
 * with w19 = 3: Z set); CSEL is not a conditional instruction. */
static void test_a64_state(void **state)
{
	struct run *r = malloc(sizeof *r);
	int fail[1];

	(void)state;
	fail[0] = index_of(a64_block, N(a64_block), "I a64 4001dc 54ffff21 B", 0);
	read_file("tiny-a64-state.log", NULL, r);
	assert_int_equal(r->ret, 0);
	expect_with_fails(r, a64_block, N(a64_block), fail, 1);
	free(r);
}

/* ---- Edited logs --------------------------------------------------------- */

static char *load(const char *name)
{
	char path[512];
	FILE *f;
	long n;
	char *s;

	snprintf(path, sizeof path, "%s/qemu/%s", ETMKIT_TEST_DATA, name);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = malloc((size_t)n + 1);
	assert_non_null(s);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	s[n] = 0;
	fclose(f);
	return s;
}

/* @text with the first occurrence of @from replaced by @to (new string). */
static char *edit(const char *text, const char *from, const char *to)
{
	const char *p = strstr(text, from);
	size_t a, b = strlen(from), c = strlen(to), n = strlen(text);
	char *s;

	assert_non_null(p);
	a = (size_t)(p - text);
	s = malloc(n - b + c + 1);
	assert_non_null(s);
	memcpy(s, text, a);
	memcpy(s + a, to, c);
	memcpy(s + a + c, p + b, n - a - b + 1);
	return s;
}

/* The line number of the first line of @text holding @needle. */
static uint64_t line_of(const char *text, const char *needle)
{
	const char *p = strstr(text, needle), *q;
	uint64_t line = 1;

	assert_non_null(p);
	for (q = text; q < p; q++)
		line += *q == '\n';
	return line;
}

#define TRACE_TSEL "Trace 0: 0x7fef7e4008c0 [00800480/000100e8/00000000/00000200] tsel\n"
#define TRACE_INC "Trace 0: 0x7fef7e4006c0 [00000480/000100e0/00000000/00000200] inc\n"

/* Harmless lines are skipped; CRLF line ends and a missing final newline
 * are accepted; "Stopped execution ... before" cancels the block logged
 * last, which QEMU then logs again: the record does not change. */
static void test_harmless(void **state)
{
	char *log = load("tiny-a32-block.log"), *a, *b, *c;
	struct run *r = malloc(sizeof *r);
	size_t i, j;

	(void)state;
	a = edit(log, "----------------\nIN: twice",
		 "OUT: [size=64]\n  0x7f00001000:  movl %eax, %ebx\n"
		 "some other -d output\n\n----------------\nIN: twice");
	b = edit(a, TRACE_INC, TRACE_INC
		 "Stopped execution of TB chain before 0x7fef7e4006c0 [000100e0] inc\n"
		 TRACE_INC);
	read_text(b, NULL, r);
	assert_int_equal(r->ret, 0);
	expect_items(r, a32_block, N(a32_block));
	free(b);
	/* tsel's first execution stopped before it ran, another block
	 * translated (never run), then tsel run from QEMU's cache */
	b = edit(a, TRACE_TSEL, TRACE_TSEL
		 "Stopped execution of TB chain before 0x7fef7e4008c0 [000100e8] tsel\n"
		 "----------------\nIN: elsewhere\n"
		 "0x00020000:  e1a00000  mov      r0, r0\n\n" TRACE_TSEL);
	read_text(b, NULL, r);
	assert_int_equal(r->ret, 0);
	expect_items(r, a32_block, N(a32_block));
	/* CRLF, and no newline at the end */
	c = malloc(2 * strlen(log) + 1);
	for (i = j = 0; log[i]; i++) {
		if (log[i] == '\n')
			c[j++] = '\r';
		c[j++] = log[i];
	}
	c[j - 2] = 0;
	read_text(c, NULL, r);
	assert_int_equal(r->ret, 0);
	expect_items(r, a32_block, N(a32_block));
	free(a);
	free(b);
	free(c);
	free(log);
	free(r);
}

#define TRACE_EXIT "Trace 0: 0x7fef7e400c80 [00000480/0001015c/00000000/00000200] _start\n"
#define TRACE_10118 "Trace 0: 0x7fef7e400440 [00000480/00010118/00000000/00000200] _start\n"

/* A block that does not start where the previous one went, with no
 * branch to explain it (as when QEMU delivers a signal), is preceded by a
 * gap; after an SVC the exception and gap are there anyway. Made by
 * running 10118's block again after the exit block. */
static void test_gap(void **state)
{
	char *log = load("tiny-a32-block.log"), *a, *b;
	struct run *r = malloc(sizeof *r);

	(void)state;
	a = edit(log, TRACE_EXIT, TRACE_EXIT TRACE_10118);
	read_text(a, NULL, r);
	assert_int_equal(r->ret, 0);
	assert_string_equal(r->items[r->n - 7], "I arm 10170 ef000000");
	assert_string_equal(r->items[r->n - 6], "exc call 10174");
	assert_string_equal(r->items[r->n - 5], "gap");
	assert_string_equal(r->items[r->n - 4], "I arm 10118 e0855000");
	/* the log ends after a conditional branch: not taken */
	assert_string_equal(r->items[r->n - 1], "I arm 10124 1afffff7 B");
	assert_int_equal(r->st.gaps, 2);
	free(a);
	/* the exit block ending in a non-branch, non-SVC instruction */
	a = edit(log, "0x00010170:  ef000000  svc      #0\n",
		 "0x00010170:  e1a00000  mov      r0, r0\n");
	b = edit(a, TRACE_EXIT, TRACE_EXIT TRACE_10118);
	read_text(b, NULL, r);
	assert_int_equal(r->ret, 0);
	assert_string_equal(r->items[r->n - 6], "I arm 10170 e1a00000");
	assert_string_equal(r->items[r->n - 5], "gap");
	assert_string_equal(r->items[r->n - 4], "I arm 10118 e0855000");
	free(b);
	free(a);
	/* an undefined instruction (UDF) there: SIGILL's handler */
	a = edit(log, "0x00010170:  ef000000  svc      #0\n",
		 "0x00010170:  e7f000f0  udf      #0\n");
	b = edit(a, TRACE_EXIT, TRACE_EXIT TRACE_10118);
	read_text(b, NULL, r);
	assert_int_equal(r->ret, 0);
	assert_string_equal(r->items[r->n - 7], "I arm 10170 e7f000f0");
	assert_string_equal(r->items[r->n - 6], "exc undef 10170");
	assert_string_equal(r->items[r->n - 5], "gap");
	free(b);
	free(a);
	free(log);
	free(r);
}

/* A re-translation of the same (pc, flags) replaces the old listing. */
static void test_retranslate(void **state)
{
	char *log = load("tiny-a32-block.log"), *a;
	struct run *r = malloc(sizeof *r);

	(void)state;
	a = edit(log, "Trace 0: 0x7fef7e400580 [00000480/00010108/00000000/00000200] _start\n"
		 "Trace 0: 0x7fef7e400340",
		 "----------------\nIN: _start\n"
		 "0x00010108:  e2043001  and      r3, r4, #1\n"
		 "0x0001010c:  e7963103  ldr      r3, [r6, r3, lsl #2]\n"
		 "0x00010110:  e1a00004  mov      r0, r4\n"
		 "0x00010114:  e1a00000  mov      r0, r0\n"
		 "0x00010118:  e12fff33  blx      r3\n\n"
		 "Trace 0: 0x7fef7e400580 [00000480/00010108/00000000/00000200] _start\n"
		 "Trace 0: 0x7fef7e400340");
	read_text(a, NULL, r);
	assert_int_equal(r->ret, 0);
	assert_string_equal(r->items[29], "I arm 10114 e1a00000");
	assert_string_equal(r->items[30], "I arm 10118 e12fff33 B IND T>100d8 arm");
	free(a);
	free(log);
	free(r);
}

/* Each malformed log gives its error, on the right line, once items
 * before it were returned. */
static void expect_error(const char *log, const char *from, const char *to,
			 const struct qemu_log_config *cfg, int err,
			 const char *line_needle, const char *msg)
{
	char *a = edit(log, from, to);
	struct run *r = malloc(sizeof *r);

	read_text(a, cfg, r);
	assert_int_equal(r->ret, err);
	assert_int_equal(r->diag.line, line_of(a, line_needle));
	if (!strstr(r->diag.message, msg))
		fail_msg("message \"%s\" lacks \"%s\"", r->diag.message, msg);
	free(a);
	free(r);
}

static void test_malformed(void **state)
{
	char *log = load("tiny-a32-block.log");
	struct qemu_log_config cfg;

	(void)state;
	/* unreadable Trace fields */
	expect_error(log, "[00000480/000100d8/", "[00000480/0001zzd8/", NULL,
		     -etmkit_err_format, "0001zzd8", "Trace line");
	/* a block executed whose listing is not in the log */
	expect_error(log, "[00000480/000100e0/", "[00000480/000100e2/", NULL,
		     -etmkit_err_format, "000100e2", "0x100e2 executed");
	/* a listing line without its colon, or with a 6-digit opcode */
	expect_error(log, "0x000100f8:  e3a04000", "0x000100f8   e3a04000",
		     NULL, -etmkit_err_format, "0x000100f8", "listing line");
	expect_error(log, "0x000100f8:  e3a04000", "0x000100f8:  e3a040",
		     NULL, -etmkit_err_format, "0x000100f8", "listing line");
	/* a listing whose addresses jump */
	expect_error(log, "0x000100fc:  e1a05004", "0x00010100:  e1a05004",
		     NULL, -etmkit_err_format, "0x00010100:  e1a05004",
		     "does not follow");
	/* a 32-bit T32 opcode listed as one halfword */
	expect_error(log, "0x000100ea:  bfcc      ", "0x000100ea:  f04f      ",
		     NULL, -etmkit_err_format, "0x000100ea:", "size");
	/* a second thread's blocks */
	expect_error(log, "Trace 0: 0x7fef7e400340 [00000480/000100d8/",
		     "Trace 1: 0x7fef7e400340 [00000480/000100d8/", NULL,
		     -etmkit_err_unsupported, "Trace 1:", "multi-threaded");
	/* chained blocks */
	expect_error(log, "----------------\nIN: inc",
		     "Linking TBs 0x7f00 index 0 -> 0x7f80\n----------------\nIN: inc",
		     NULL, -etmkit_err_unsupported, "Linking", "nochain");
	/* the wrong Thumb bit: tsel's halfwords in a block the flags call
	 * ARM */
	memset(&cfg, 0, sizeof cfg);
	cfg.size = sizeof cfg;
	cfg.flags = QEMU_LOG_F_TB_BITS;
	cfg.thumb_bit = 22;
	expect_error(log, "", "", &cfg, -etmkit_err_format,
		     "0x000100e8:  2802", "thumb_bit");
	free(log);

	/* state mode: the Trace flags and the PSR disagree */
	log = load("tiny-a32-state.log");
	expect_error(log, "R15=000100e8\nPSR=60000030 -ZC- T",
		     "R15=000100e8\nPSR=60000010 -ZC- A", NULL,
		     -etmkit_err_format, "Trace 0: 0x7fb41c0013c0", "CPU state");
	free(log);
}

/* Listings at addresses no A32 instruction can have (fuzz_qemu_log
 * finding): a format error on the listing line, not an item the encoders
 * would refuse later. */
static void test_impossible_addresses(void **state)
{
	static const char *const logs[] = {
		"----------------\nIN: _start\n"
		"0x00010442:  e3a04000  mov      r4, #0\n"
		"0x00010446:  e12fff1e  bx lr\n\n"
		"Trace 0: 0x7fef7e4000c0 [00000480/00010442/00000000/00000200]"
		" _start\n",
		"----------------\nIN: _start\n"
		"0x100010440:  e3a04000  mov      r4, #0\n"
		"0x100010444:  e12fff1e  bx lr\n\n"
		"Trace 0: 0x7fef7e4000c0 [00000480/100010440/00000000/00000200]"
		" _start\n",
	};
	struct run *run = malloc(sizeof *run);

	(void)state;
	assert_non_null(run);
	for (int i = 0; i < 2; i++) {
		read_text(logs[i], NULL, run);
		assert_int_equal(run->ret, -etmkit_err_format);
		assert_int_equal(run->diag.line, 3);
		assert_non_null(strstr(run->diag.message, "not a valid arm"));
	}
	free(run);
}

static void test_empty_and_args(void **state)
{
	struct qemu_log_reader *rd;
	struct qemu_log_config cfg;
	struct exec_rec r;
	struct run *run = malloc(sizeof *run);

	(void)state;
	read_text("", NULL, run);
	assert_int_equal(run->ret, 0);
	assert_int_equal(run->n, 1);
	assert_string_equal(run->items[0], "ctx el=0 ns=1");
	memset(&cfg, 0, sizeof cfg);
	cfg.size = sizeof cfg;
	cfg.flags = QEMU_LOG_F_NO_CONTEXT;
	read_text("unrelated\nlines\n", &cfg, run);
	assert_int_equal(run->ret, 0);
	assert_int_equal(run->n, 0);
	free(run);

	assert_int_equal(qemu_log_reader_alloc(NULL, stdin, NULL),
			 -etmkit_err_invalid);
	assert_int_equal(qemu_log_reader_alloc(&rd, NULL, NULL),
			 -etmkit_err_invalid);
	cfg.size = 1;
	assert_int_equal(qemu_log_reader_alloc(&rd, stdin, &cfg),
			 -etmkit_err_invalid);
	cfg.size = sizeof cfg;
	cfg.flags = QEMU_LOG_F_TB_BITS;
	cfg.thumb_bit = 64;
	assert_int_equal(qemu_log_reader_alloc(&rd, stdin, &cfg),
			 -etmkit_err_invalid);
	assert_int_equal(qemu_log_next(NULL, &r, NULL), -etmkit_err_invalid);
	qemu_log_reader_free(NULL);
}

/* ---- Data transfers from the CPU dumps (QEMU_LOG_F_DATA) -----------------
 * Hand-written state-mode logs (CPU dumps only, no "Trace" lines): each
 * step is one instruction's listing and the registers before it. The
 * expected items are worked out from the ARM ARM's addressing rules. */
struct dstep {
	uint32_t addr;
	const char *op;    /* as listed: "e5912004" or "f8d1 0004" */
	uint32_t psr;
	uint32_t r[15];    /* R00-R14; R15 = addr */
};

static char *data_log(const struct dstep *s, int n)
{
	size_t cap = 4096 * (size_t)n, len = 0;
	char *buf = malloc(cap);
	int i, k;

	assert_non_null(buf);
	for (i = 0; i < n; i++) {
		len += (size_t)snprintf(buf + len, cap - len,
					"----------------\nIN: f\n"
					"0x%08x:  %s  x\n\n", s[i].addr,
					s[i].op);
		for (k = 0; k < 16; k++)
			len += (size_t)snprintf(buf + len, cap - len,
						"R%02d=%08x%s", k,
						k == 15 ? s[i].addr : s[i].r[k],
						k % 4 == 3 ? "\n" : " ");
		len += (size_t)snprintf(buf + len, cap - len,
					"PSR=%08x ---- %c usr32\n", s[i].psr,
					s[i].psr & 0x20 ? 'T' : 'A');
	}
	return buf;
}

static void test_data_a32(void **state)
{
	/* r1 = 0x20000 data, r5 = 0x30000, sp = 0x8000 */
	static const struct dstep steps[] = {
		/* ldr r0, [r1, r2, lsl #2] */
		{ 0x0ff8, "e7910102", 0x10,
		  { 0, 0x20000, 3, 0x1ab, 0x44, 0x30000, 0, 0, 0, 0, 0, 0, 0,
		    0x8000, 0x1234 } },
		/* ldr r0, [pc, #4]: PC reads as the address + 8 */
		{ 0x0ffc, "e59f0004", 0x10,
		  { 0x99, 0x20000, 3, 0x1ab, 0x44, 0x30000, 0, 0, 0, 0, 0, 0,
		    0, 0x8000, 0x1234 } },
		/* ldr r2, [r1, #4] */
		{ 0x1000, "e5912004", 0x10,
		  { 0x5a, 0x20000, 0, 0x1ab, 0x44, 0x30000, 0, 0, 0, 0, 0, 0, 0,
		    0x8000, 0x1234 } },
		/* strb r3, [r5], #1 (post-indexed) */
		{ 0x1004, "e4c53001", 0x10,
		  { 0, 0x20000, 0x11223344, 0x1ab, 0x44, 0x30000, 0, 0, 0, 0,
		    0, 0, 0, 0x8000, 0x1234 } },
		/* push {r4, lr} */
		{ 0x1008, "e92d4010", 0x10,
		  { 0, 0x20000, 0x11223344, 0x1ab, 0x44, 0x30001, 0, 0, 0, 0,
		    0, 0, 0, 0x8000, 0x1234 } },
		/* ldrd r2, r3, [r1, #8] */
		{ 0x100c, "e1c120d8", 0x10,
		  { 0, 0x20000, 0x11223344, 0x1ab, 0x44, 0x30001, 0, 0, 0, 0,
		    0, 0, 0, 0x7ff8, 0x1234 } },
		/* ldrsh r3, [r1, #2] */
		{ 0x1010, "e1d130f2", 0x10,
		  { 0, 0x20000, 0xaaaa0001, 0xbbbb0002, 0x44, 0x30001, 0, 0,
		    0, 0, 0, 0, 0, 0x7ff8, 0x1234 } },
		/* ldrne r0, [r1] with Z set: condition fails, no transfer */
		{ 0x1014, "15910000", 0x40000010,
		  { 0, 0x20000, 0xaaaa0001, 0xffff8001, 0x44, 0x30001, 0, 0,
		    0, 0, 0, 0, 0, 0x7ff8, 0x1234 } },
		/* pop {r4, pc}: PC's value from the next dump */
		{ 0x1018, "e8bd8010", 0x40000010,
		  { 0, 0x20000, 0xaaaa0001, 0xffff8001, 0x44, 0x30001, 0, 0,
		    0, 0, 0, 0, 0, 0x7ff8, 0x1234 } },
		/* ldr r1, [r1], #4: the loaded value is overwritten by the
		 * writeback: no data, counted */
		{ 0x1234, "e4911004", 0x10,
		  { 0, 0x20000, 0xaaaa0001, 0xffff8001, 0x44, 0x30001, 0, 0,
		    0, 0, 0, 0, 0, 0x8000, 0x1234 } },
		/* ldrh r0, [r1, #-0x12] */
		{ 0x1238, "e15101b2", 0x10,
		  { 0, 0x20004, 0xaaaa0001, 0xffff8001, 0x44, 0x30001, 0, 0,
		    0, 0, 0, 0, 0, 0x8000, 0x1234 } },
		/* orr r2, r1, r0 */
		{ 0x123c, "e1812000", 0x10,
		  { 0xbeef, 0x20004, 0xaaaa0001, 0xffff8001, 0x44, 0x30001, 0, 0,
		    0, 0, 0, 0, 0, 0x8000, 0x1234 } },
	};
	static const char *const want[] = {
		"ctx el=0 ns=1",
		"I arm ff8 e7910102", "ld 2000c 4 99",
		"I arm ffc e59f0004", "ld 1008 4 5a",
		"I arm 1000 e5912004", "ld 20004 4 11223344",
		"I arm 1004 e4c53001", "st 30000 1 ab",
		"I arm 1008 e92d4010", "st 7ff8 4 44", "st 7ffc 4 1234",
		"I arm 100c e1c120d8", "ld 20008 4 aaaa0001",
		"ld 2000c 4 bbbb0002",
		"I arm 1010 e1d130f2", "ld 20002 2 8001",
		"I arm 1014 15910000 FAIL",
		"I arm 1018 e8bd8010 B IND T>1234 arm", "ld 7ff8 4 44",
		"ld 7ffc 4 1234",
		"I arm 1234 e4911004",
		"I arm 1238 e15101b2", "ld 1fff2 2 beef",
		"I arm 123c e1812000",
	};
	struct qemu_log_config cfg = { .size = sizeof cfg,
				       .flags = QEMU_LOG_F_DATA };
	struct run *r = malloc(sizeof *r);
	char *log = data_log(steps, N(steps));

	(void)state;
	read_text(log, &cfg, r);
	assert_int_equal(r->ret, 0);
	expect_items(r, want, N(want));
	assert_int_equal(r->st.data, 12);
	assert_int_equal(r->st.data_unknown, 1);
	/* without the flag: no data items */
	read_text(log, NULL, r);
	assert_int_equal(r->ret, 0);
	assert_int_equal(r->n, N(want) - 12);
	assert_int_equal(r->st.data, 0);
	free(log);
	free(r);
}

static void test_data_t32(void **state)
{
	static const struct dstep steps[] = {
		/* ldr r2, [pc, #4]: Align(0x2002 + 4, 4) + 4 */
		{ 0x2002, "4a01", 0x30,
		  { 0, 0x20000, 0, 0x33, 0x44, 0, 0, 0, 0, 0, 0, 0, 0,
		    0x8000, 0x5555 } },
		/* push {r4, lr} */
		{ 0x2004, "b510", 0x30,
		  { 0, 0x20000, 0xcafe, 0x33, 0x44, 0, 0, 0, 0, 0, 0, 0, 0,
		    0x8000, 0x5555 } },
		/* ldr.w r0, [r1, #4] */
		{ 0x2006, "f8d1 0004", 0x30,
		  { 0, 0x20000, 0xcafe, 0x33, 0x44, 0, 0, 0, 0, 0, 0, 0, 0,
		    0x7ff8, 0x5555 } },
		/* str.w r3, [r1], #4 */
		{ 0x200a, "f841 3b04", 0x30,
		  { 0x77, 0x20000, 0xcafe, 0x33, 0x44, 0, 0, 0, 0, 0, 0, 0, 0,
		    0x7ff8, 0x5555 } },
		/* ldrex r2, [r1] */
		{ 0x200e, "e851 2f00", 0x30,
		  { 0x77, 0x20004, 0xcafe, 0x33, 0x44, 0, 0, 0, 0, 0, 0, 0, 0,
		    0x7ff8, 0x5555 } },
		/* strex r2, r3, [r1]: succeeds (r2 = 0 after) */
		{ 0x2012, "e841 3200", 0x30,
		  { 0x77, 0x20004, 0x66, 0x33, 0x44, 0, 0, 0, 0, 0, 0, 0, 0,
		    0x7ff8, 0x5555 } },
		/* strex r2, r3, [r1]: fails (r2 = 1 after): no transfer */
		{ 0x2016, "e841 3200", 0x30,
		  { 0x77, 0x20004, 0, 0x33, 0x44, 0, 0, 0, 0, 0, 0, 0, 0,
		    0x7ff8, 0x5555 } },
		/* pop {r4, pc} to 0x3000, Thumb: loads 0x3001 */
		{ 0x201a, "bd10", 0x30,
		  { 0x77, 0x20004, 1, 0x33, 0x44, 0, 0, 0, 0, 0, 0, 0, 0,
		    0x7ff8, 0x5555 } },
		/* ldrb r3, [r1, r2] */
		{ 0x3000, "5c8b", 0x30,
		  { 0x77, 0x20000, 0x10, 0x33, 0x45, 0, 0, 0, 0, 0, 0, 0, 0,
		    0x8000, 0x5555 } },
		/* stmia r1!, {r1, r2}: the base is the lowest register,
		 * its value before the writeback is stored */
		{ 0x3002, "c106", 0x30,
		  { 0x77, 0x20000, 0x10, 0x17f, 0x45, 0, 0, 0, 0, 0, 0, 0, 0,
		    0x8000, 0x5555 } },
		/* stmia r2!, {r1, r2}: the base stored is not the lowest
		 * register: its value is unknown, counted */
		{ 0x3004, "c206", 0x30,
		  { 0x77, 0x20008, 0x10, 0x17f, 0x45, 0, 0, 0, 0, 0, 0, 0, 0,
		    0x8000, 0x5555 } },
		/* ldr r0, [r1, #4]: the log ends, no dump after: counted */
		{ 0x3006, "6848", 0x30,
		  { 0x77, 0x20008, 0x18, 0x17f, 0x45, 0, 0, 0, 0, 0, 0, 0, 0,
		    0x8000, 0x5555 } },
	};
	static const char *const want[] = {
		"ctx el=0 ns=1",
		"I thumb 2002 4a01", "ld 2008 4 cafe",
		"I thumb 2004 b510", "st 7ff8 4 44", "st 7ffc 4 5555",
		"I thumb 2006 f8d10004", "ld 20004 4 77",
		"I thumb 200a f8413b04", "st 20000 4 33",
		"I thumb 200e e8512f00", "ld 20004 4 66",
		"I thumb 2012 e8413200", "st 20004 4 33",
		"I thumb 2016 e8413200",
		"I thumb 201a bd10 B IND T>3000 thumb", "ld 7ff8 4 45",
		"ld 7ffc 4 3001",
		"I thumb 3000 5c8b", "ld 20010 1 7f",
		"I thumb 3002 c106", "st 20000 4 20000", "st 20004 4 10",
		"I thumb 3004 c206",
		"I thumb 3006 6848",
	};
	struct qemu_log_config cfg = { .size = sizeof cfg,
				       .flags = QEMU_LOG_F_DATA };
	struct run *r = malloc(sizeof *r);
	char *log = data_log(steps, N(steps));

	(void)state;
	read_text(log, &cfg, r);
	assert_int_equal(r->ret, 0);
	expect_items(r, want, N(want));
	assert_int_equal(r->st.data, 12);
	assert_int_equal(r->st.data_unknown, 2);
	free(log);
	free(r);
}

/* Data needs one instruction per block with a CPU dump: a block-mode log
 * is refused, not silently left without data. */
static void test_data_block_mode(void **state)
{
	struct qemu_log_config cfg = { .size = sizeof cfg,
				       .flags = QEMU_LOG_F_DATA };
	struct run *r = malloc(sizeof *r);

	(void)state;
	/* a state-mode block of two instructions: the dump after the
	 * first is missing */
	static const struct dstep two[] = {
		{ 0x1000, "e5912004  x\n0x00001004:  e5912004", 0x10,
		  { 0 } },
		{ 0x1008, "e1812000", 0x10, { 0 } },
	};
	char *log = data_log(two, N(two));

	read_file("tiny-a32-block.log", &cfg, r);
	assert_int_equal(r->ret, -etmkit_err_unsupported);
	assert_non_null(strstr(r->diag.message, "state-mode"));
	read_text(log, &cfg, r);
	assert_int_equal(r->ret, -etmkit_err_unsupported);
	assert_int_equal(r->diag.line, 6); /* its CPU dump */
	read_text(log, NULL, r); /* fine without the flag */
	assert_int_equal(r->ret, 0);
	free(log);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a64_block),
		cmocka_unit_test(test_a32_block),
		cmocka_unit_test(test_a32_state),
		cmocka_unit_test(test_a64_state),
		cmocka_unit_test(test_harmless),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_retranslate),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_impossible_addresses),
		cmocka_unit_test(test_empty_and_args),
		cmocka_unit_test(test_data_a32),
		cmocka_unit_test(test_data_t32),
		cmocka_unit_test(test_data_block_mode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
