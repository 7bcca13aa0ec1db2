/* Test support: an in-memory encoder sink (ts_out.h). */
#include "ts_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ts_out_put(struct ts_out *o, const uint8_t *d, size_t len)
{
	if (o->n + len > o->cap) {
		o->cap = (o->n + len) * 2 + 256;
		o->b = realloc(o->b, o->cap);
		if (!o->b)
			abort();
	}
	if (len)
		memcpy(o->b + o->n, d, len);
	o->n += len;
}

int ts_out_sink(void *ctx, const uint8_t *data, size_t len)
{
	struct ts_out *o = ctx;

	o->calls++;
	if (o->fail && (!o->fail_at || o->calls == o->fail_at))
		return o->fail;
	if (!len)
		o->empty++;
	ts_out_put(o, data, len);
	return 0;
}

void ts_out_free(struct ts_out *o)
{
	free(o->b);
	memset(o, 0, sizeof(*o));
}

int ts_out_same(const struct ts_out *o, const uint8_t *want, size_t n,
		char *why, size_t cap)
{
	size_t at;

	if (o->n == n && (!n || !memcmp(o->b, want, n)))
		return 0;
	at = (size_t)snprintf(why, cap, "encoded %zu bytes, want %zu:", o->n, n);
	for (size_t i = 0; i < o->n && at + 4 < cap; i++)
		at += (size_t)snprintf(why + at, cap - at, " %02x", o->b[i]);
	return -1;
}
