/* Test support: a growing list of decoded elements (struct etmkit_elem),
 * for tests and fuzz targets that collect a flow decoder's output before
 * comparing it (the flow tests' put() into a list, fuzz_etm3_flow.c and
 * fuzz_etm4_flow.c's element vectors have this shape). Aborts when memory
 * runs out; never prints. */
#ifndef ETMKIT_TS_ELEMS_H
#define ETMKIT_TS_ELEMS_H

#include <stddef.h>

#include "etmkit/elem.h"

struct ts_elems {
	struct etmkit_elem *e; /* @n elements (malloc'd) */
	size_t n, cap;
	size_t max;            /* 0, or the most the list may hold */
};

/* Append a copy of @el to @v. Returns 0, or -1 (nothing appended) when
 * v->max is set and the list holds that many already: an input that
 * makes more elements than it could is the caller's finding. */
int ts_elems_put(struct ts_elems *v, const struct etmkit_elem *el);

/* A session's on_elem (etmkit_elem_fn) appending to the struct ts_elems
 * @ctx, every trace source's: 0, or -1 (stops the feed) when the list is
 * full. */
int ts_elems_on_elem(void *ctx, uint8_t id, const struct etmkit_elem *el);

/* Free @v's elements and zero it (v->max too). */
void ts_elems_free(struct ts_elems *v);

#endif
