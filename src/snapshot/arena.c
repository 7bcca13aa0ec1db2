/* etmkit: the snapshot reader's arena (src/snapshot/snapshot_internal.h).
 *
 * Everything a snapshot hands out (strings, register and dump arrays) lives
 * in one arena of 16 KiB chunks, freed by snapshot_free(); a block larger
 * than a chunk gets a chunk of its own.
 */
#define _POSIX_C_SOURCE 200809L

#include "snapshot_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- Arena --------------------------------------------------------------- */

static void *arena_new_chunk(struct arena *a, size_t need)
{
	int oversized = need >= SS_ARENA_CHUNK;
	size_t cap = oversized ? need : SS_ARENA_CHUNK;
	struct arena_chunk *c = malloc(sizeof(*c) + cap);

	if (!c)
		return NULL;
	c->cap = cap;
	c->used = need;
	if (a->head && oversized) {
		/* An oversized block: keep the current chunk in front for the
		 * small allocations still to come. */
		c->next = a->head->next;
		a->head->next = c;
	} else {
		c->next = a->head;
		a->head = c;
	}
	return c->data;
}

void *ss_arena_alloc(struct arena *a, size_t n)
{
	struct arena_chunk *c = a->head;
	size_t unit = sizeof(max_align_t);
	size_t need;
	void *p;

	if (n > SIZE_MAX / 2)
		return NULL;
	need = (n + unit - 1) / unit * unit;
	if (need == 0)
		need = unit;
	if (!c || c->cap - c->used < need)
		return arena_new_chunk(a, need);
	p = (char *)c->data + c->used;
	c->used += need;
	return p;
}

static char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = ss_arena_alloc(a, n + 1);

	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *ss_arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

void ss_arena_free(struct arena *a)
{
	struct arena_chunk *c = a->head;

	while (c) {
		struct arena_chunk *next = c->next;

		free(c);
		c = next;
	}
	a->head = NULL;
}
