/* Counts keyed by (binary, from, to), for profiles. */
#include <stdlib.h>

#include "etmkit/common.h"
#include "count_map.h"

static size_t hash_key(uint64_t bin, uint64_t from, uint64_t to)
{
	uint64_t h = from * 0x9E3779B97F4A7C15ull;

	h ^= (to + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
	h ^= bin * 0x165667B19E3779F9ull;
	h ^= h >> 29;
	return (size_t)(h * 0xBF58476D1CE4E5B9ull >> 17);
}

static struct count_slot *find_slot(struct count_slot *slots, size_t cap,
				    uint64_t bin, uint64_t from, uint64_t to)
{
	size_t i = hash_key(bin, from, to) & (cap - 1);

	for (;;) {
		struct count_slot *s = &slots[i];

		if (!s->count || (s->from == from && s->to == to &&
				  s->bin == bin))
			return s;
		i = (i + 1) & (cap - 1);
	}
}

/* Twice the room; 0 or -etmkit_err_nomem. */
static int grow(struct count_map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 256;
	struct count_slot *ns;

	if (ncap < m->cap || ncap > SIZE_MAX / sizeof(*ns))
		return -etmkit_err_nomem;
	ns = calloc(ncap, sizeof(*ns));
	if (!ns)
		return -etmkit_err_nomem;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].count)
			*find_slot(ns, ncap, m->slots[i].bin, m->slots[i].from,
				   m->slots[i].to) = m->slots[i];
	free(m->slots);
	m->slots = ns;
	m->cap = ncap;
	return 0;
}

int count_map_add(struct count_map *m, uint64_t bin, uint64_t from,
		  uint64_t to, uint64_t n)
{
	struct count_slot *s;

	/* At most half full: probes stay short. */
	if ((m->used + 1) * 2 > m->cap && grow(m) < 0)
		return -etmkit_err_nomem;
	s = find_slot(m->slots, m->cap, bin, from, to);
	if (!s->count) {
		s->bin = bin;
		s->from = from;
		s->to = to;
		m->used++;
	}
	if (s->count > UINT64_MAX - n) {
		s->count = UINT64_MAX;
		m->saturated = 1;
	} else {
		s->count += n;
	}
	return 0;
}

void count_map_free(struct count_map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->used = 0;
}
