/* etmkit: mergeable partial profiles: what a profile or a coverage counted
 * from some inputs, before it is written, kept apart from the decoder so
 * that parts made in other processes or machines add up.
 *
 * Layer: profile (src/profile/), above the profile and coverage builders.
 *
 * A part holds raw entries at ELF addresses, exactly as a finished
 * profile (profile_range_at(), profile_branch_at()) or coverage (its
 * ranges and conditional outcomes) holds them, a table of the binaries
 * they belong to, and counters. Parts of one kind merge: binaries are
 * unified by (name, build id), counts are added (saturating at
 * UINT64_MAX). A part saves to a canonical byte form (docs/profile-part.md:
 * magic "ETMKPART", versioned, little-endian, binaries and entries
 * sorted): the same counts give the same bytes whatever order parts were
 * made or merged in. Turned back into a profile or a coverage, a part
 * feeds the existing writers (profile.h, coverage.h) unchanged.
 *
 *   struct profile_part *pp;
 *   profile_part_alloc(&pp, profile_part_kind_tally);
 *   long map[NB];                          the profile's binary i -> part
 *   for each binary i: map[i] = profile_part_add_binary(pp, &b);
 *   profile_part_add_profile(pp, prof, map, NB);     (a finished profile)
 *   profile_part_add_counters(pp, &(struct profile_part_counters){ 1, errors });
 *   profile_part_save_buf(pp, &buf, &n);   ... elsewhere:
 *   profile_part_load(&q, buf, n, &diag);
 *   profile_part_merge(pp, q);
 *   profile_part_profile(pp, &prof2);      binary i of prof2 = part binary i
 *   profile_write_autofdo(prof2, f, bins, profile_part_binary_count(pp));
 *
 * Errors that need a reason (a binary that conflicts, kinds that differ)
 * leave it in profile_part_message(). A part is not thread-safe; separate
 * parts are independent.
 */
#ifndef ETMKIT_PROFILE_PART_H
#define ETMKIT_PROFILE_PART_H

#include <stdio.h>

#include "etmkit/common.h"
#include "etmkit/coverage.h"
#include "etmkit/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a part counts. The values are those of the saved form. */
enum profile_part_kind {
	profile_part_kind_tally = 1,    /* AutoFDO: ranges and branches of a
					   profile without cfg.traces */
	profile_part_kind_traces = 2,   /* BOLT, llvm-profgen: taken-branch
					   traces (cfg.traces, not
					   cfg.contexts) */
	profile_part_kind_coverage = 3  /* lcov: coverage ranges and
					   conditional outcomes */
};

/* A binary of the part. The strings are copied by
 * profile_part_add_binary(); those profile_part_binary_at() gives belong
 * to the part and live as long as it. */
struct profile_part_binary {
	const char *name;          /* the path as the recording names it
				      (not NULL, not empty) */
	const char *file;          /* the local file the counts were
				      resolved with (lcov reads its DWARF),
				      or NULL */
	uint8_t build_id[20];      /* zero-padded */
	uint8_t build_id_size;     /* valid bytes, 0-20 (0: unknown) */
	uint8_t has_elf;           /* 1: an ELF file; 0: a raw dump */
	uint64_t base;             /* as struct profile_binary */
	uint64_t text_base;        /* as struct profile_binary */
};

/* What went into a part, added up by profile_part_add_counters() and
 * profile_part_merge(). */
struct profile_part_counters {
	uint64_t inputs;           /* inputs counted (summed) */
	uint64_t decode_errors;    /* decode errors in them (summed) */
	int saturated;             /* a count stopped at UINT64_MAX (or) */
	int etm3;                  /* coverage: a source traced the condition
				      of every instruction (ETMv3, ETMv2;
				      or) */
};

/* Why loading failed, and where. */
struct profile_part_diag {
	uint64_t offset;           /* of the bad or missing bytes in the
				      input */
	int has_offset;
	char message[256];
};

struct profile_part;

/* ---- A part --------------------------------------------------------------- */

/* An empty part of @kind. Returns 0 and sets *@pp; -etmkit_err_invalid
 * (NULL @pp, an unknown kind), -etmkit_err_nomem. */
int profile_part_alloc(struct profile_part **pp, enum profile_part_kind kind);
void profile_part_free(struct profile_part *pp);

/* A copy of @src into *@out. Returns 0; -etmkit_err_invalid,
 * -etmkit_err_nomem. */
int profile_part_clone(struct profile_part **out,
		       const struct profile_part *src);

enum profile_part_kind profile_part_kind_of(const struct profile_part *pp);

/* The reason of the last failure that has one (a conflict, kinds that
 * differ, bad arguments), "" when none. Valid until the next call on
 * @pp. */
const char *profile_part_message(const struct profile_part *pp);

/* ---- Binaries --------------------------------------------------------------- */

/* Add binary @b, or find it: a binary with the same name, build id and
 * build id size is the same binary. Binaries without counts stay in the
 * table. Returns its index (0, 1, ... in the order added; a part loaded
 * or saved has them in the saved order); -etmkit_err_invalid (NULL
 * argument, a NULL or empty name, build_id_size above 20),
 * -etmkit_err_format (the binary is there with another base, text_base
 * or has_elf: different files were found for it; the message says which),
 * -etmkit_err_nomem. A different @file is no conflict: the part keeps
 * the bytewise smallest of those given, so that the order of adding does
 * not matter. */
long profile_part_add_binary(struct profile_part *pp,
			     const struct profile_part_binary *b);

size_t profile_part_binary_count(const struct profile_part *pp);

/* Binary @i into *@out (its strings belong to the part). Returns 0;
 * -etmkit_err_invalid (@i out of range, NULL argument). */
int profile_part_binary_at(const struct profile_part *pp, size_t i,
			   struct profile_part_binary *out);

/* ---- Counts ------------------------------------------------------------------ */

/* Add the entries of finished profile @p (profile_finish() called), its
 * binary i counted as part binary @bin_map[i] (@nbins entries). Returns
 * 0; -etmkit_err_invalid (NULL argument, the profile's kind is not the
 * part's (cfg.traces for profile_part_kind_traces, not for
 * profile_part_kind_tally; a coverage part), a profile with cfg.contexts,
 * a profile not finished, an entry's binary not below @nbins, a map
 * entry that is no binary of the part: the message says which),
 * -etmkit_err_nomem. On failure the part is unchanged. The profile's
 * saturation is or-ed into the counters. */
int profile_part_add_profile(struct profile_part *pp, const struct profile *p,
			     const long *bin_map, size_t nbins);

/* Add the ranges and conditional outcomes of coverage @c (coverage_finish()
 * called), as profile_part_add_profile(); the part must be a
 * profile_part_kind_coverage one. Same returns. */
int profile_part_add_coverage(struct profile_part *pp,
			      const struct coverage *c, const long *bin_map,
			      size_t nbins);

/* Add @c to the counters (inputs and decode_errors summed, saturating;
 * the flags or-ed). Returns 0; -etmkit_err_invalid. */
int profile_part_add_counters(struct profile_part *pp,
			      const struct profile_part_counters *c);

/* The counters into *@out. Returns 0; -etmkit_err_invalid. */
int profile_part_counters(const struct profile_part *pp,
			  struct profile_part_counters *out);

/* Distinct entries: ranges (profile and coverage ranges), and branches
 * (a profile) or conditional instructions (a coverage). */
size_t profile_part_range_count(const struct profile_part *pp);
size_t profile_part_branch_count(const struct profile_part *pp);

/* Add part @src to @dst (@src unchanged; it may be @dst: counts double):
 * @src's binaries unified with @dst's (added when new), counts summed,
 * counters added. Returns 0; -etmkit_err_invalid (NULL argument, kinds
 * that differ: the message says which), -etmkit_err_format (a binary of
 * both with another base, text_base or has_elf: the message names it),
 * -etmkit_err_nomem. On failure @dst is unchanged (on -etmkit_err_nomem
 * it may have gained binaries of @src, not its counts). */
int profile_part_merge(struct profile_part *dst,
		       const struct profile_part *src);

/* ---- For the writers ---------------------------------------------------------- */

/* A finished profile (cfg.traces for a traces part) holding the part's
 * entries, its binary i the part's binary i, for profile_write_autofdo(),
 * profile_write_bolt(), profile_write_profgen() (build their
 * struct profile_binary[] from profile_part_binary_at()). It counts no
 * elements (its resolver finds nothing). profile_saturated() says the
 * part's saturated counter. Returns 0 and sets *@out (free it with
 * profile_free()); -etmkit_err_invalid (NULL argument, a coverage part),
 * -etmkit_err_nomem. */
int profile_part_profile(const struct profile_part *pp, struct profile **out);

/* The same for a coverage part: a finished coverage for coverage_max()
 * and coverage_outcomes(), binary i the part's binary i. Returns 0 and
 * sets *@out (free with coverage_free()); -etmkit_err_invalid (NULL
 * argument, a profile part), -etmkit_err_nomem. */
int profile_part_coverage(const struct profile_part *pp,
			  struct coverage **out);

/* ---- Saved form (docs/profile-part.md) ------------------------------------------ */

/* The part's canonical bytes (docs/profile-part.md) into a new buffer
 * *@buf (free() it) of *@n bytes. Returns 0; -etmkit_err_invalid,
 * -etmkit_err_nomem. */
int profile_part_save_buf(const struct profile_part *pp, uint8_t **buf,
			  size_t *n);

/* The same bytes written to @f. Returns 0; -etmkit_err_invalid,
 * -etmkit_err_nomem, -etmkit_err_io (writing failed). */
int profile_part_save(const struct profile_part *pp, FILE *f);

/* A part from saved bytes @buf[0..@n-1], checked strictly: magic,
 * version, kind, flags, every count against the bytes there are before
 * anything is allocated, binaries and entries in order without
 * duplicates, binary indices, counts not 0 (docs/profile-part.md,
 * "Reading"). Returns 0 and sets *@pp; -etmkit_err_invalid (NULL @pp,
 * NULL @buf with @n > 0), -etmkit_err_nomem, -etmkit_err_truncated (the
 * bytes end before the size the header says, or inside the header),
 * -etmkit_err_format (bad magic, a malformed field, counts that do not
 * match the bytes, order or duplicate), -etmkit_err_unsupported (a
 * version or kind this reader does not know); @diag (may be NULL) has
 * the byte offset, inside the input (0 for an empty one), and the
 * reason. */
int profile_part_load(struct profile_part **pp, const uint8_t *buf, size_t n,
		      struct profile_part_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_PROFILE_PART_H */
