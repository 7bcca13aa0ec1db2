/* Test support: a snapshot buffer decoded through a session
 * (ts_session.h). */
#include "ts_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint8_t *ts_read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return NULL;
	}
	b = malloc((size_t)len + 1);
	if (!b || fread(b, 1, (size_t)len, f) != (size_t)len) {
		free(b);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*n = (size_t)len;
	return b;
}

int ts_session_decode(const struct snapshot_buffer *buf,
		      ts_session_add_fn add, void *add_arg,
		      etmkit_elem_fn on_elem, void *ctx)
{
	struct etmkit_session_config sc;
	struct etmkit_session *s = NULL;
	size_t n = 0;
	uint8_t *bytes = ts_read_file(buf->file, &n);
	int r;

	if (!bytes)
		return -1;
	etmkit_session_config_init(&sc);
	sc.frames = strcmp(buf->format, "source_data") ? deformat_coresight :
							deformat_none;
	sc.on_elem = on_elem;
	sc.ctx = ctx;
	r = etmkit_session_alloc(&s, &sc);
	if (!r)
		r = add(s, add_arg);
	/* in pieces, as a reader would feed it */
	for (size_t o = 0; !r && o < n; o += 4096) {
		r = etmkit_session_feed(s, bytes + o, n - o < 4096 ?
					n - o : 4096);
		r = r < 0 ? r : 0;
	}
	if (!r) {
		r = etmkit_session_finish(s);
		r = r < 0 ? r : 0;
	}
	etmkit_session_free(s);
	free(bytes);
	return r;
}
