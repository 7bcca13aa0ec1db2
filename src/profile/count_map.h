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
};

struct count_map {
	struct count_slot *slots;
	size_t cap;                /* a power of two, or 0 */
	size_t used;
	int saturated;             /* a count stopped at UINT64_MAX */
};

/* Add @n (1 or more) to the count of the key; 0 or -etmkit_err_nomem
 * (the map is unchanged). */
int count_map_add(struct count_map *m, uint64_t bin, uint64_t from,
		  uint64_t to, uint64_t n);

/* Twice the room; 0 or -etmkit_err_nomem. */
int count_map_grow(struct count_map *m);

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

/* The key folded into 64 bits, then mixed so that every bit of it moves
 * the low bits the table uses (the splitmix64 finalizer's constants). */
static inline size_t count_map_hash(uint64_t bin, uint64_t from, uint64_t to)
{
	uint64_t h = from ^ (to << 21 | to >> 43) ^ (bin << 42 | bin >> 22);

	h ^= h >> 30;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 27;
	h *= 0x94D049BB133111EBull;
	h ^= h >> 31;
	return (size_t)h;
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

/* count_map_add(), giving the key's slot (valid until the next add), or
 * NULL for -etmkit_err_nomem; inline: it runs once per range. */
static inline struct count_slot *count_map_add_slot(struct count_map *m,
						    uint64_t bin,
						    uint64_t from, uint64_t to,
						    uint64_t n)
{
	struct count_slot *s;

	/* At most half full: probes stay short. */
	if ((m->used + 1) * 2 > m->cap && count_map_grow(m) < 0)
		return NULL;
	s = count_map_find(m->slots, m->cap, bin, from, to);
	if (!s->count) {
		s->bin = bin;
		s->from = from;
		s->to = to;
		m->used++;
	}
	s->count = count_add(s->count, n, &m->saturated);
	return s;
}

#endif
