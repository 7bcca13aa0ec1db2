/* etmkit: which pages of a mapped perf.data file stay resident
 * (include/etmkit/perf.h, docs/perf-data.md "Memory").
 *
 * perf_file_open() maps a regular file read-only and private, so a page
 * given back (madvise MADV_DONTNEED) is read again from the page cache or
 * the file if it is touched later: every pointer into the file stays
 * valid, dropping only costs a fault. What would otherwise stay resident
 * is every page a pass over the records touched, and the kernel maps the
 * neighbours of each fault too (fault-around, 64 KiB by default), which
 * with a record header every AUX record is the whole file. So the passes
 * give back what they leave behind:
 * - a pass over the records (the walk at open, perf_record_next()) the
 *   whole windows of PERF_PASS_WINDOW bytes before the record it reads
 *   (one madvise() a window), and the rest of the stream at its end;
 * - perf_aux_next() the previous chunk's AUX data, which the caller has
 *   decoded and which may lie behind the record cursor, widened to the
 *   fault-around blocks its reading mapped in.
 * Resident file pages stay at about a window, the chunk being decoded and
 * the blocks around the records being read (under 1 MB on the corpus of
 * bench/perf_corpus.sh), whatever the file's length. */
#define _DEFAULT_SOURCE /* madvise() */

#include "perf/perf_internal.h"

#include <sys/mman.h>
#include <unistd.h>

/* Bytes given back at once as a pass moves on: large enough that the
 * madvise() calls cost nothing beside the pass (400 for a 100 MB file),
 * small beside the decoders' memory, a multiple of the fault-around block
 * so that the block of the record being read is never in a window that is
 * dropped. */
#define PERF_PASS_WINDOW (256u << 10)
/* The kernel's default fault-around: the aligned block of 16 pages around
 * a faulting address that is mapped with it (when in the page cache). */
#define PERF_FAULT_AROUND (64u << 10)

/* madvise(MADV_DONTNEED) the pages that hold any of [@lo, @hi), within
 * the mapping; nothing for a file that was read or a buffer. */
static void drop(const struct perf_file *pf, uint64_t lo, uint64_t hi)
{
	long page = sysconf(_SC_PAGESIZE);

	if (!pf->map || page <= 0 || lo >= pf->map_size)
		return;
	if (hi > pf->map_size)
		hi = pf->map_size;
	lo -= lo % (uint64_t)page;
	hi += ((uint64_t)page - hi % (uint64_t)page) % (uint64_t)page;
	if (hi > lo)
		madvise((uint8_t *)pf->map + lo, (size_t)(hi - lo),
			MADV_DONTNEED);
}

void perf_pages_passed(const struct perf_file *pf, uint64_t *kept,
		       uint64_t pos, int last)
{
	uint64_t to = last ? pos : pos - pos % PERF_PASS_WINDOW;

	if (to <= *kept)
		return;
	drop(pf, *kept, to);
	*kept = to;
}

void perf_pages_done(const struct perf_file *pf, uint64_t offset,
		     uint64_t size)
{
	uint64_t hi;

	if (!size || offset >= pf->n || size > pf->n - offset)
		return;
	hi = offset + size;
	hi += (PERF_FAULT_AROUND - hi % PERF_FAULT_AROUND) % PERF_FAULT_AROUND;
	drop(pf, offset - offset % PERF_FAULT_AROUND, hi);
}

void perf_file_release(const struct perf_file *pf, uint64_t offset,
		       uint64_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t lo, hi;

	if (!pf || !pf->map || page <= 0 || offset >= pf->map_size)
		return;
	if (size > pf->map_size - offset)
		size = pf->map_size - offset;
	/* Whole pages inside the range: a page shared with bytes still
	 * wanted (a record header) stays. */
	lo = (offset + (uint64_t)page - 1) / (uint64_t)page * (uint64_t)page;
	hi = (offset + size) / (uint64_t)page * (uint64_t)page;
	if (hi > lo)
		drop(pf, lo, hi);
}
