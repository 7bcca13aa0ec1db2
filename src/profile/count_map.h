/* Counts keyed by (binary, from, to): an open-addressing hash table that
 * grows with the distinct keys only (internal to src/profile). */
#ifndef ETMKIT_PROFILE_COUNT_MAP_H
#define ETMKIT_PROFILE_COUNT_MAP_H

#include <stddef.h>
#include <stdint.h>

struct count_slot {
	uint64_t bin, from, to;
	uint64_t count;            /* 0: the slot is free */
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
void count_map_free(struct count_map *m);

#endif
