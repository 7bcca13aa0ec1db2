/* Test support: a growing list of decoded elements (ts_elems.h). */
#include "ts_elems.h"

#include <stdlib.h>
#include <string.h>

int ts_elems_put(struct ts_elems *v, const struct etmkit_elem *el)
{
	if (v->max && v->n >= v->max)
		return -1;
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 256;
		v->e = realloc(v->e, v->cap * sizeof(*v->e));
		if (!v->e)
			abort();
	}
	v->e[v->n++] = *el;
	return 0;
}

int ts_elems_on_elem(void *ctx, uint8_t id, const struct etmkit_elem *el)
{
	(void)id;
	return ts_elems_put(ctx, el);
}

void ts_elems_free(struct ts_elems *v)
{
	free(v->e);
	memset(v, 0, sizeof(*v));
}
