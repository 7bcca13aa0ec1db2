/* Test support: the bytes of one trace ID taken out of CoreSight frames,
 * with each byte's offset in the framed input when asked
 * (test_parallel_snap, test_etm3_flow). Aborts when memory runs out;
 * never prints. */
#ifndef ETMKIT_TS_STREAM_H
#define ETMKIT_TS_STREAM_H

#include <stddef.h>
#include <stdint.h>

struct ts_stream {
	uint8_t id;       /* the trace ID kept; others are passed over */
	int with_offsets; /* keep offs too */
	uint8_t *b;       /* @n bytes (malloc'd) */
	uint64_t *offs;   /* with_offsets: each byte's input offset */
	size_t n, cap;
};

/* A deformatter's on_data (deformat_data_fn) appending trace ID
 * ((struct ts_stream *)@ctx)->id's bytes to that stream. Returns 0. */
int ts_stream_on_data(void *ctx, uint8_t id, const uint8_t *data,
		      const uint64_t *offsets, uint64_t base, size_t n);

/* Deformat the @n bytes of CoreSight frames @frames into @out: ID @id's
 * bytes, and their offsets in @frames when @with_offsets. @out is set up
 * here (any earlier content is not freed). Returns 0 or the
 * deformatter's negative error (@out then holds what came before it). */
int ts_stream_deformat(const uint8_t *frames, size_t n, uint8_t id,
		       int with_offsets, struct ts_stream *out);

/* Free @s's bytes and offsets and zero it. */
void ts_stream_free(struct ts_stream *s);

#endif
