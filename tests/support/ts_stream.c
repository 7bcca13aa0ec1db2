/* Test support: one trace ID's bytes out of CoreSight frames
 * (ts_stream.h). */
#include "ts_stream.h"

#include <stdlib.h>
#include <string.h>

#include "etmkit/transport.h"

/* Room for @more bytes (and offsets) after s->n. */
static void reserve(struct ts_stream *s, size_t more)
{
	if (s->n + more <= s->cap)
		return;
	s->cap = (s->n + more) * 2;
	s->b = realloc(s->b, s->cap);
	if (!s->b)
		abort();
	if (s->with_offsets) {
		s->offs = realloc(s->offs, s->cap * sizeof(*s->offs));
		if (!s->offs)
			abort();
	}
}

int ts_stream_on_data(void *ctx, uint8_t id, const uint8_t *data,
		      const uint64_t *offsets, uint64_t base, size_t n)
{
	struct ts_stream *s = ctx;

	if (id != s->id)
		return 0;
	reserve(s, n);
	memcpy(s->b + s->n, data, n);
	if (s->with_offsets)
		for (size_t i = 0; i < n; i++)
			s->offs[s->n + i] = offsets ? offsets[i] : base + i;
	s->n += n;
	return 0;
}

int ts_stream_deformat(const uint8_t *frames, size_t n, uint8_t id,
		       int with_offsets, struct ts_stream *out)
{
	struct deformat_config dc;
	struct deformatter *d = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	out->id = id;
	out->with_offsets = with_offsets;
	memset(&dc, 0, sizeof(dc));
	dc.size = sizeof(dc);
	dc.mode = deformat_coresight;
	dc.on_data = ts_stream_on_data;
	dc.ctx = out;
	err = deformat_alloc(&d, &dc);
	if (!err)
		err = deformat_feed(d, frames, n);
	if (!err)
		err = deformat_finish(d);
	deformat_free(d);
	return err;
}

void ts_stream_free(struct ts_stream *s)
{
	free(s->b);
	free(s->offs);
	memset(s, 0, sizeof(*s));
}
