/* Test support: an encoder sink (exec_sink_fn, etmkit/exec.h) that keeps
 * every byte it is handed in memory, counts its calls, and fails on
 * request. Used by the encoder's cmocka tests (tests/unit/test_*_enc.c)
 * and fuzz targets (fuzz/fuzz_encode.c); it never prints and aborts when
 * memory runs out (neither kind of test has anything better to do). */
#ifndef ETMKIT_TS_OUT_H
#define ETMKIT_TS_OUT_H

#include <stddef.h>
#include <stdint.h>

struct ts_out {
	uint8_t *b;       /* the bytes so far (malloc'd), @n of them */
	size_t n, cap;
	unsigned calls;   /* sink calls so far */
	unsigned empty;   /* of them, calls with no bytes */
	int fail;         /* when not 0: the error (a negated etmkit_err_*) */
	unsigned fail_at; /* that this call (1-based) returns; 0: every call */
};

/* Append @len bytes at @d to @o. */
void ts_out_put(struct ts_out *o, const uint8_t *d, size_t len);

/* The sink: @ctx is a struct ts_out. Counts the call; returns o->fail
 * when it is set and this is call o->fail_at (any call when 0), else keeps
 * the bytes and returns 0. A single failing call shows that an encoder
 * remembers the error rather than asking the sink again. */
int ts_out_sink(void *ctx, const uint8_t *data, size_t len);

/* Whether @o holds exactly the @n bytes @want: 0, or -1 with what it
 * holds (its count and bytes in hex) in @why (@cap bytes). */
int ts_out_same(const struct ts_out *o, const uint8_t *want, size_t n,
		char *why, size_t cap);

/* Free @o's bytes and zero it. */
void ts_out_free(struct ts_out *o);

#endif
