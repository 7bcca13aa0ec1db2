/* bench_locate: speed of address -> binary -> function (locate.h,
 * elf_file.h), what `etmkit decode` asks for each listing line.
 *
 * Input: an ELF file with many symbols (default: this benchmark's own
 * executable, unstripped; --file another), mapped whole at 0x400000 as a
 * raw region (image_add_file(), as a perf.data MMAP maps a file), so that
 * every lookup goes region -> file offset -> segment -> symbol.
 *
 * Timed, best of --runs: elf_file_open() of the file; locate_find() on
 * --lookups random addresses inside its executable segment (no two
 * alike in a row: the uncached cost a listing pays when it enters a
 * function); and elf_file_symbol() alone on the same ELF addresses.
 * Reported: symbols, opens per second, million lookups per second.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/elf_file.h"
#include "etmkit/image.h"
#include "etmkit/locate.h"
#include "bench_common.h"

#define WHO "locate"
#define BASE 0x400000ull

int main(int argc, char **argv)
{
	struct bench_lookup_options o;
	struct elf_file *ef = NULL;
	struct image *img = NULL;
	struct locate *loc = NULL;
	struct image_diag d;
	uint64_t va, off, seed = 88172645463325252ull, *addr;
	const struct elf_segment *seg = NULL;
	double best_open = 1e9, best_find = 1e9, best_sym = 1e9;
	size_t hits = 0;

	if (bench_lookup_args("bench_locate", argc, argv, &o))
		return 2;
	if (elf_file_open(&ef, o.file, &d) < 0) {
		fprintf(stderr, WHO ": %s: %s\n", d.path, d.message);
		return 1;
	}
	if (elf_file_min_exec_vaddr(ef, &va, &off) < 0) {
		fprintf(stderr, WHO ": %s: no executable segment\n", o.file);
		return 1;
	}
	for (size_t i = 0; i < elf_file_segment_count(ef); i++)
		if (elf_file_segment(ef, i)->vaddr == va)
			seg = elf_file_segment(ef, i);
	addr = malloc(o.lookups * sizeof(*addr));
	if (!addr || image_alloc(&img) < 0 || locate_alloc(&loc) < 0 ||
	    image_add_file(img, o.file, BASE, 0, 0, 0, &d) < 0 ||
	    locate_add_image(loc, img, &d) < 0) {
		fprintf(stderr, WHO ": %s: %s\n", o.file, d.message);
		return 1;
	}
	for (unsigned long i = 0; i < o.lookups; i++)
		addr[i] = seg->offset + bench_next_rand(&seed) % seg->filesz;
	for (unsigned long r = 0; r < o.runs; r++) {
		struct elf_file *e2;
		struct locate_result lr;
		double t0 = bench_now(), t1, t2, t3;
		size_t h = 0;

		if (elf_file_open(&e2, o.file, &d) < 0)
			return 1;
		elf_file_free(e2);
		t1 = bench_now();
		for (unsigned long i = 0; i < o.lookups; i++)
			if (locate_find(loc, img, IMAGE_SPACE_ANY, BASE + addr[i],
					&lr) == 0 && lr.sym)
				h++;
		t2 = bench_now();
		for (unsigned long i = 0; i < o.lookups; i++)
			if (elf_file_symbol(ef, addr[i] - seg->offset +
						    seg->vaddr))
				h--;
		t3 = bench_now();
		hits = h; /* 0 when both agree on every address */
		if (t1 - t0 < best_open)
			best_open = t1 - t0;
		if (t2 - t1 < best_find)
			best_find = t2 - t1;
		if (t3 - t2 < best_sym)
			best_sym = t3 - t2;
	}
	printf(WHO "   input    %s: %zu symbols, exec segment 0x%" PRIx64
	       " bytes\n", o.file, elf_file_symbol_count(ef), seg->filesz);
	printf(WHO "   open     %8.3f ms  best of %lu\n", best_open * 1e3,
	       o.runs);
	printf(WHO "   find     %8.2f Mlookup/s  locate_find(), random "
	       "addresses\n", o.lookups / best_find / 1e6);
	printf(WHO "   symbol   %8.2f Mlookup/s  elf_file_symbol()%s\n",
	       o.lookups / best_sym / 1e6, hits ? "  (DISAGREE)" : "");
	free(addr);
	locate_free(loc);
	image_free(img);
	elf_file_free(ef);
	return hits ? 1 : 0;
}
