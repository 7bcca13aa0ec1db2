/* libFuzzer target: the DWARF line reader (lines.h) on arbitrary bytes,
 * through lines_open_memory().
 * Invariants: the open either succeeds or fails with a not_found, format
 * or nomem error whose diag names the input and says why, leaving no
 * handle; rows are sorted, non-empty and do not overlap, each named;
 * lines_find() at a row's first and last byte gives that row, and just
 * past it another row or none; every inlined call's parent is an earlier
 * call (no cycles) or none, and its function exists; every function is
 * named, with lo < hi; lines_func_find() gives a function whose extent
 * holds the address. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/lines.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_find(const struct lines *ln, uint64_t a)
{
	struct lines_loc loc;
	int rc = lines_find(ln, a, &loc);

	if (rc == 0 && (!loc.row || loc.row->lo > a || a >= loc.row->hi ||
			loc.file != loc.row->file))
		abort();
	if (rc != 0 && rc != -etmkit_err_not_found)
		abort();
	if (loc.inl != LINES_NONE && loc.inl >= lines_inline_count(ln))
		abort();
	if (loc.func != LINES_NONE) {
		const struct lines_func *f = lines_func_at(ln, loc.func);

		if (!f || a < f->lo || a >= f->hi)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lines *ln = (struct lines *)1;
	struct image_diag d;
	int err = lines_open_memory(&ln, data, size, "fuzz", &d);

	if (err) {
		if (ln || (err != -etmkit_err_not_found &&
			   err != -etmkit_err_format &&
			   err != -etmkit_err_nomem) ||
		    strcmp(d.path, "fuzz") || !d.message[0])
			abort();
		return 0;
	}
	for (size_t i = 0; i < lines_row_count(ln); i++) {
		const struct lines_row *r = lines_row_at(ln, i);

		if (r->lo >= r->hi || !r->file)
			abort();
		if (i && lines_row_at(ln, i - 1)->hi > r->lo)
			abort();
		check_find(ln, r->lo);
		check_find(ln, r->hi - 1);
		check_find(ln, r->hi);
	}
	for (uint32_t i = 0; i < lines_inline_count(ln); i++) {
		const struct lines_inline *in = lines_inline_at(ln, i);

		if (!in->name || (in->parent != LINES_NONE && in->parent >= i) ||
		    in->func >= lines_func_count(ln))
			abort();
	}
	for (uint32_t i = 0; i < lines_func_count(ln); i++) {
		const struct lines_func *f = lines_func_at(ln, i);
		uint32_t k;

		if (!f->name || f->lo >= f->hi)
			abort();
		k = lines_func_find(ln, f->entry);
		if (k != LINES_NONE && (lines_func_at(ln, k)->lo > f->entry ||
					lines_func_at(ln, k)->hi <= f->entry))
			abort();
	}
	lines_free(ln);
	return 0;
}
