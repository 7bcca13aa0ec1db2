/* Counts keyed by (binary, from, to), for profiles. */
#include <stdlib.h>

#include "etmkit/common.h"
#include "count_map.h"

/* Room for @ncap slots (a power of two, above twice the keys held): 0
 * or -etmkit_err_nomem (the map unchanged). */
static int resize(struct count_map *m, size_t ncap)
{
	struct count_slot *ns;

	if (ncap < m->cap || ncap > SIZE_MAX / sizeof(*ns))
		return -etmkit_err_nomem;
	ns = calloc(ncap, sizeof(*ns));
	if (!ns)
		return -etmkit_err_nomem;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].count)
			*count_map_find(ns, ncap, m->slots[i].bin, m->slots[i].from,
						m->slots[i].to) = m->slots[i];
	free(m->slots);
	m->slots = ns;
	m->cap = ncap;
	m->grows++;
	return 0;
}

/* Twice the room; 0 or -etmkit_err_nomem. */
int count_map_grow(struct count_map *m)
{
	return resize(m, m->cap ? m->cap * 2 : 256);
}

int count_map_reserve(struct count_map *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 256;

	if (!n)         /* nothing to add: an empty map stays unallocated */
		return 0;
	/* At most half full, as count_map_add_slot() keeps it: one resize
	 * to the room needed. */
	if (n > SIZE_MAX / 4 - m->used)
		return -etmkit_err_nomem;
	while ((m->used + n) * 2 > cap)
		cap *= 2;
	return cap == m->cap ? 0 : resize(m, cap);
}

int count_map_add(struct count_map *m, uint64_t bin, uint64_t from,
		  uint64_t to, uint64_t n)
{
	return count_map_add_slot(m, bin, from, to, n) ? 0 : -etmkit_err_nomem;
}

void count_map_free(struct count_map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->used = 0;
}
