/* libFuzzer target: the transport layer on arbitrary bytes, every framing
 * mode. Invariants: delivered offsets lie inside the input and increase;
 * each delivered byte equals the input byte at its offset (bit 0 may come
 * from the auxiliary byte for flag-byte positions); per-ID statistics add
 * up to the bytes delivered. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/transport.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct check {
	const uint8_t *in;
	size_t size;
	uint64_t delivered;
	uint64_t last;
	int any;
};

static int on_data(void *ctx, uint8_t id, const uint8_t *d,
		   const uint64_t *offs, uint64_t base, size_t n)
{
	struct check *c = ctx;

	(void)id;
	for (size_t i = 0; i < n; i++) {
		uint64_t o = offs ? offs[i] : base + i;

		if (o >= c->size || (c->any && o <= c->last))
			abort();
		if ((c->in[o] | 1) != (d[i] | 1))
			abort();
		c->last = o;
		c->any = 1;
	}
	c->delivered += n;
	return 0;
}

static int on_event(void *ctx, const struct deformat_event *ev)
{
	struct check *c = ctx;

	if (ev->offset > c->size || ev->length > c->size ||
	    ev->nruns > 16)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct deformat_config dc;
	struct deformatter *d = NULL;
	struct check c;
	const struct deformat_stats *st;
	uint64_t sum = 0;
	size_t chunk;

	if (size < 2)
		return 0;
	memset(&dc, 0, sizeof(dc));
	dc.size = sizeof(dc);
	dc.mode = (enum deformat_mode)(data[0] % 4);
	dc.raw_id = 0x10;
	dc.on_data = on_data;
	dc.on_event = (data[0] & 4) ? on_event : NULL;
	chunk = 1 + data[1];
	data += 2;
	size -= 2;
	memset(&c, 0, sizeof(c));
	c.in = data;
	c.size = size;
	dc.ctx = &c;
	if (deformat_alloc(&d, &dc) < 0)
		abort();
	for (size_t at = 0; at < size; at += chunk) {
		size_t n = size - at < chunk ? size - at : chunk;

		if (deformat_feed(d, data + at, n) < 0)
			abort();
	}
	if (deformat_finish(d) < 0)
		abort();
	st = deformat_get_stats(d);
	for (unsigned i = 0; i < DEFORMAT_ID_COUNT; i++)
		if (i != DEFORMAT_ID_NULL)
			sum += st->id_bytes[i];
	if (sum != c.delivered || st->bytes_in != size)
		abort();
	/* Framed modes: every input byte is in a good frame, a sync, or
	 * counted as skipped (bad frames, bytes before alignment, the tail). */
	if (dc.mode != deformat_none &&
	    16 * st->frames + 4 * st->fsyncs + 2 * st->hsyncs + st->skipped != size)
		abort();
	deformat_free(d);
	return 0;
}
