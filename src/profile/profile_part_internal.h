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

/* The saved form (docs/profile-part.md): sizes of its fixed parts. */
#define PART_MAGIC "ETMKPART"
#define PART_VERSION 1
#define PART_HEADER 64             /* the header */
#define PART_BIN_FIXED 48          /* a binary before its strings */
#define PART_ENTRY 32              /* an entry */
#define PART_F_SATURATED 1u        /* header flags */
#define PART_F_ETM3 2u
#define PART_BIN_F_ELF 1u          /* binary flags */

/* An entry as saved: the binary's saved index, the key, the count and
 * (conditional instructions) the passed outcomes. */
struct part_entry {
	uint64_t bin, from, to, count, passed;
};

/* How entries sort: by binary, then from, then to. */
int profile_part_entry_cmp(const struct part_entry *a, const struct part_entry *b);

/* How binaries sort in the saved form: name bytewise, then build id
 * bytes, then build id size. */
int profile_part_bin_cmp(const struct part_bin *a, const struct part_bin *b);

/* A binary's key or base fields are valid (0) or why not (a static
 * text). */
const char *profile_part_bin_check(const struct profile_part_binary *b);

/* The index slot of the binary keyed like @b: holding it, or free
 * (the index has room: profile_part_reserve_bins()). */
size_t *profile_part_index_slot(const struct profile_part *pp,
			const struct part_bin *b);

/* Room for @n more binaries: the table and its index (at most half
 * full). 0 or -etmkit_err_nomem; the binaries stay the same. */
int profile_part_reserve_bins(struct profile_part *pp, size_t n);

/* Record the reason of a failure in pp->msg; returns @err. */
int profile_part_fail(struct profile_part *pp, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
