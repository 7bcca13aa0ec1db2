/* bench_lines: speed of the DWARF line reader (lines.h), what `etmkit
 * decode --lines` asks per listed instruction and `etmkit coverage` per
 * line-table row.
 *
 * Input: an ELF file with DWARF (default: this benchmark's own
 * executable, built with debugging information; --file another).
 * Timed, best of --runs: lines_open() of the file (reading every line
 * table, function and inlined call into sorted tables), and lines_find()
 * on --lookups random addresses inside the rows' span (the uncached
 * cost: a binary search in the rows, the inlined calls and the
 * functions). Reported: rows, functions, inlined calls, open time,
 * million look-ups per second.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/lines.h"
#include "bench_common.h"

#define WHO "lines"

int main(int argc, char **argv)
{
	struct bench_lookup_options o;
	struct lines *ln = NULL;
	struct image_diag d;
	uint64_t seed = 88172645463325252ull, *addr, lo, hi;
	double best_open = 1e9, best_find = 1e9;
	size_t found = 0;
	int err;

	if (bench_lookup_args("bench_lines", argc, argv, &o))
		return 2;
	err = lines_open(&ln, o.file, &d);
	if (err < 0) {
		fprintf(stderr, WHO ": %s: %s\n", d.path, d.message);
		return 1;
	}
	lo = lines_row_at(ln, 0)->lo;
	hi = lines_row_at(ln, lines_row_count(ln) - 1)->hi;
	addr = malloc(o.lookups * sizeof(*addr));
	if (!addr)
		return 1;
	for (unsigned long i = 0; i < o.lookups; i++)
		addr[i] = lo + bench_next_rand(&seed) % (hi - lo);
	for (unsigned long r = 0; r < o.runs; r++) {
		struct lines *l2;
		struct lines_loc loc;
		double t0 = bench_now(), t1, t2;
		size_t h = 0;

		if (lines_open(&l2, o.file, &d) < 0)
			return 1;
		lines_free(l2);
		t1 = bench_now();
		for (unsigned long i = 0; i < o.lookups; i++)
			if (lines_find(ln, addr[i], &loc) == 0 &&
			    loc.line + (loc.inl != LINES_NONE))
				h++;
		t2 = bench_now();
		found = h;
		if (t1 - t0 < best_open)
			best_open = t1 - t0;
		if (t2 - t1 < best_find)
			best_find = t2 - t1;
	}
	printf(WHO "    input    %s: %zu rows, %zu functions, %zu inlined "
	       "calls, 0x%" PRIx64 " bytes of code\n", o.file,
	       lines_row_count(ln), lines_func_count(ln),
	       lines_inline_count(ln), hi - lo);
	printf(WHO "    open     %8.3f ms  best of %lu\n", best_open * 1e3,
	       o.runs);
	printf(WHO "    find     %8.2f Mlookup/s  lines_find(), random "
	       "addresses (%.0f%% with a line)\n", o.lookups / best_find / 1e6,
	       100.0 * (double)found / (double)o.lookups);
	free(addr);
	lines_free(ln);
	return 0;
}
