/* libFuzzer target: the partial profiles' reader (profile_part.h,
 * docs/profile-part.md) on arbitrary bytes.
 * Invariants:
 * - a refusal is -etmkit_err_format, _truncated or _unsupported (or
 *   _nomem) with a reason and a byte offset inside the input (0 for an
 *   empty one);
 * - a part that loads is canonical: saved, it gives the input's bytes
 *   again;
 * - merged with itself it keeps its binaries and entries, its inputs and
 *   decode errors double (stopping at 2^64 - 1), and it saves to bytes
 *   that load again;
 * - the profile or coverage made from it holds its entries and the
 *   writers accept it (AutoFDO for a tally part, llvm-profgen's on each
 *   binary for a traces part, coverage_max() for a coverage part). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/profile_part.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The writers' table from the part's, all skipped but @only (-1: none). */
static struct profile_binary *writer_bins(const struct profile_part *pp,
					  long only)
{
	size_t n = profile_part_binary_count(pp);
	struct profile_binary *wb = calloc(n ? n : 1, sizeof(*wb));

	if (!wb)
		abort();
	for (size_t i = 0; i < n; i++) {
		struct profile_part_binary b;

		if (profile_part_binary_at(pp, i, &b))
			abort();
		wb[i].name = b.name;
		memcpy(wb[i].build_id, b.build_id, 20);
		wb[i].base = b.base;
		wb[i].text_base = b.text_base;
		wb[i].skip = only >= 0 && (size_t)only != i;
	}
	return wb;
}

static void write_profile(const struct profile_part *pp)
{
	size_t n = profile_part_binary_count(pp);
	struct profile *p;
	FILE *f = fopen("/dev/null", "w");

	if (!f || profile_part_profile(pp, &p))
		abort();
	if (profile_range_count(p) != profile_part_range_count(pp) ||
	    profile_branch_count(p) != profile_part_branch_count(pp))
		abort();
	if (profile_part_kind_of(pp) == profile_part_kind_tally) {
		struct profile_binary *wb = writer_bins(pp, -1);

		if (profile_write_autofdo(p, f, wb, n))
			abort();
		free(wb);
	} else {
		for (size_t i = 0; i < n && i < 8; i++) {
			struct profile_binary *wb = writer_bins(pp, (long)i);

			if (profile_write_profgen(p, f, wb, n))
				abort();
			free(wb);
		}
	}
	fclose(f);
	profile_free(p);
}

static void check_coverage(const struct profile_part *pp)
{
	struct coverage *c;

	if (profile_part_coverage(pp, &c))
		abort();
	if (coverage_range_count(c) != profile_part_range_count(pp) ||
	    coverage_cond_count(c) != profile_part_branch_count(pp))
		abort();
	for (size_t i = 0; i < profile_part_binary_count(pp); i++)
		(void)coverage_max(c, i, 0, UINT64_MAX);
	coverage_free(c);
}

static uint64_t twice(uint64_t v)
{
	return v > UINT64_MAX / 2 ? UINT64_MAX : v * 2;
}

static void merge_self(const struct profile_part *pp)
{
	struct profile_part *q, *r;
	struct profile_part_counters a, b;
	uint8_t *buf;
	size_t n;

	if (profile_part_clone(&q, pp) || profile_part_merge(q, q))
		abort();
	profile_part_counters(pp, &a);
	profile_part_counters(q, &b);
	if (profile_part_binary_count(q) != profile_part_binary_count(pp) ||
	    profile_part_range_count(q) != profile_part_range_count(pp) ||
	    profile_part_branch_count(q) != profile_part_branch_count(pp) ||
	    b.inputs != twice(a.inputs) ||
	    b.decode_errors != twice(a.decode_errors) || b.etm3 != a.etm3 ||
	    (a.saturated && !b.saturated))
		abort();
	if (profile_part_save_buf(q, &buf, &n) ||
	    profile_part_load(&r, buf, n, NULL))
		abort();
	free(buf);
	profile_part_free(r);
	profile_part_free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile_part_diag d;
	struct profile_part *pp;
	uint8_t *buf;
	size_t n;
	int err = profile_part_load(&pp, data, size, &d);

	if (err) {
		if ((err != -etmkit_err_format && err != -etmkit_err_truncated &&
		     err != -etmkit_err_unsupported && err != -etmkit_err_nomem) ||
		    pp || !d.has_offset || !d.message[0] ||
		    (d.offset >= size && !(size == 0 && d.offset == 0)))
			abort();
		return 0;
	}
	if (profile_part_save_buf(pp, &buf, &n) || n != size ||
	    memcmp(buf, data, size))
		abort();
	free(buf);
	merge_self(pp);
	if (profile_part_kind_of(pp) == profile_part_kind_coverage)
		check_coverage(pp);
	else
		write_profile(pp);
	profile_part_free(pp);
	return 0;
}
