/* BOLT's pre-aggregated profile (perf2bolt -pa), in the lines LLVM 16's
 * reader accepts: B and F (digest perf-data.md 4c). */
#include <inttypes.h>
#include <stdlib.h>

#include "profile_internal.h"

int profile_write_bolt(const struct profile *p, FILE *f,
		       const struct profile_binary *bins, size_t nbins)
{
	struct profile_line *lines;
	size_t bin = 0, n;
	int err;

	if (!p || !f || (!bins && nbins) || !p->cfg.traces ||
	    p->cfg.contexts)
		return -etmkit_err_invalid;
	err = profile_one_binary(p, bins, nbins, &bin);
	if (err)
		return err < 0 ? err : 0;
	lines = profile_lines_alloc(p);
	if (!lines)
		return -etmkit_err_nomem;
	/* ELF addresses as they are: the offset from the load base. */
	n = profile_collect(&p->branches, bin, 0, 1, 0, lines);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "B %" PRIx64 " %" PRIx64 " %" PRIu64 " 0\n",
			lines[i].from, lines[i].to, lines[i].count);
	n = profile_collect(&p->ranges, bin, 0, 0, 0, lines);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "F %" PRIx64 " %" PRIx64 " %" PRIu64 "\n",
			lines[i].from, lines[i].to, lines[i].count);
	free(lines);
	return ferror(f) ? -etmkit_err_io : 0;
}
