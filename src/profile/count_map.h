/* Counts keyed by (binary, from, to): an open-addressing hash table that
 * grows with the distinct keys only (internal to src/profile). */
#ifndef ETMKIT_PROFILE_COUNT_MAP_H
#define ETMKIT_PROFILE_COUNT_MAP_H

#include <stddef.h>
#include <stdint.h>

struct count_slot {
	uint64_t bin, from, to;
	uint64_t count;            /* 0: the slot is free */
	uint64_t aux, aux_count;   /* the user's: a second count, for value
				      aux (profile ranges: the branch at
				      their end to aux) */
	uint64_t target;           /* the user's (profile ranges: the target
				      of the direct branch that ends them,
				      at ELF addresses of their binary, if
				      has_target) */
	uint8_t has_target;
};

struct count_map {
	struct count_slot *slots;
	size_t cap;                /* a power of two, or 0 */
	size_t used;
	uint64_t grows;            /* count_map_grow() calls that moved the
				      slots: a slot pointer taken before is
				      stale when this changed */
	int saturated;             /* a count stopped at UINT64_MAX */
};

/* Add @n (1 or more) to the count of the key; 0 or -etmkit_err_nomem
 * (the map is unchanged). */
int count_map_add(struct count_map *m, uint64_t bin, uint64_t from,
		  uint64_t to, uint64_t n);

/* Twice the room; 0 or -etmkit_err_nomem. */
int count_map_grow(struct count_map *m);

/* Room for @n more keys, so that adding them cannot fail: 0 or
 * -etmkit_err_nomem (the map holds the same counts either way). */
int count_map_reserve(struct count_map *m, size_t n);

/* *@c + @n, stopping at UINT64_MAX (then *@saturated = 1). */
static inline uint64_t count_add(uint64_t c, uint64_t n, int *saturated)
{
	if (c > UINT64_MAX - n) {
		*saturated = 1;
		return UINT64_MAX;
	}
	return c + n;
}
void count_map_free(struct count_map *m);

/* The key folded into 64 bits (bin's high half, the profile's call
 * context, above bit 12) and multiplied once; the high half is
 * folded back so that the low bits the table uses depend on every bit
 * below 32 + log2(cap) of the key (addresses that differ only above bit
 * 52 or so may collide: probing still tells them apart). Once per range:
 * kept short. */
static inline size_t count_map_hash(uint64_t bin, uint64_t from, uint64_t to)
{
	uint64_t h = (from ^ (to << 29 | to >> 35) ^ (bin << 56) ^
		      (bin >> 32 << 12)) * 0x9E3779B97F4A7C15ull;

	return (size_t)(h ^ (h >> 32));
}

static inline struct count_slot *count_map_find(struct count_slot *slots, size_t cap,
				    uint64_t bin, uint64_t from, uint64_t to)
{
	size_t i = count_map_hash(bin, from, to) & (cap - 1);

	for (;;) {
		struct count_slot *s = &slots[i];

		if (!s->count || (s->from == from && s->to == to &&
				  s->bin == bin))
			return s;
		i = (i + 1) & (cap - 1);
	}
}

/* count_map_add(), giving the key's slot (valid while m->grows stays the
 * same), or NULL for -etmkit_err_nomem; inline: it runs once per range. */
static inline struct count_slot *count_map_add_slot(struct count_map *m,
						    uint64_t bin,
						    uint64_t from, uint64_t to,
						    uint64_t n)
{
	struct count_slot *s = NULL;

	if (m->cap) {
		s = count_map_find(m->slots, m->cap, bin, from, to);
		if (s->count) {
			s->count = count_add(s->count, n, &m->saturated);
			return s;
		}
	}
	/* A new key. At most half full: probes stay short. */
	if ((m->used + 1) * 2 > m->cap) {
		if (count_map_grow(m) < 0)
			return NULL;
		s = count_map_find(m->slots, m->cap, bin, from, to);
	}
	s->bin = bin;
	s->from = from;
	s->to = to;
	s->count = n;
	m->used++;
	return s;
}

#endif
