/* A mergeable partial profile's state (profile_part.h), shared by the
 * table and merge (profile_part.c), the saved form's writer
 * (profile_part_save.c) and reader (profile_part_load.c). Internal to
 * src/profile. */
#ifndef ETMKIT_PROFILE_PART_INTERNAL_H
#define ETMKIT_PROFILE_PART_INTERNAL_H

#include "etmkit/profile_part.h"
#include "count_map.h"

/* A binary: its strings owned by the part. */
struct part_bin {
	char *name, *file;         /* file NULL: none */
	uint8_t build_id[20];
	uint8_t build_id_size, has_elf;
	uint64_t base, text_base;
};

struct profile_part {
	enum profile_part_kind kind;
	struct part_bin *bins;
	size_t nbins, bins_cap;
	size_t *index;             /* open addressing by binary key: bin
				      index + 1, 0 free */
	size_t index_cap;          /* a power of two, or 0 */
	/* Entries keyed (bin, from, to), bin a part binary index:
	 * ranges: profile ranges (from, last instruction) or coverage ranges
	 * [from, to); second: profile branches (from, to) or coverage
	 * conditional instructions (addr, 0) with count = outcomes and
	 * aux_count = passed. */
	struct count_map ranges, second;
	struct profile_part_counters ctr;  /* saturated: also the maps' */
	char msg[256];
};

/* How binaries sort in the saved form: name bytewise, then build id
 * bytes, then build id size. */
int part_bin_cmp(const struct part_bin *a, const struct part_bin *b);

/* A binary's key or base fields are valid (0) or why not (a static
 * text). */
const char *part_bin_check(const struct profile_part_binary *b);

/* Record the reason of a failure in pp->msg; returns @err. */
int part_fail(struct profile_part *pp, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
