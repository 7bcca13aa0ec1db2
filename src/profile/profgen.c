/* llvm-profgen's unsymbolized profile (--skip-symbolization output,
 * --unsymbolized-profile input; digest perf-data.md 4d). */
#include <inttypes.h>
#include <stdlib.h>

#include "profile_internal.h"

static void section(FILE *f, const struct profile_line *l, size_t n,
		    const char *sep)
{
	fprintf(f, "%zu\n", n);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%" PRIx64 "%s%" PRIx64 ":%" PRIu64 "\n", l[i].from,
			sep, l[i].to, l[i].count);
}

int profile_write_profgen(const struct profile *p, FILE *f,
			  const struct profile_binary *bins, size_t nbins)
{
	struct profile_line *lines;
	size_t bin = 0, n;
	int err;

	if (!p || !f || (!bins && nbins) || !p->cfg.traces)
		return -etmkit_err_invalid;
	err = profile_one_binary(p, bins, nbins, &bin);
	if (err > 0) {
		fputs("0\n0\n", f);
		return ferror(f) ? -etmkit_err_io : 0;
	}
	if (err < 0)
		return err;
	lines = profile_lines_alloc(p);
	if (!lines)
		return -etmkit_err_nomem;
	n = profile_collect(&p->ranges, bin, bins[bin].text_base, 0, 0,
			    lines);
	section(f, lines, n, "-");
	n = profile_collect(&p->branches, bin, bins[bin].text_base, 1, 0,
			    lines);
	section(f, lines, n, "->");
	free(lines);
	return ferror(f) ? -etmkit_err_io : 0;
}
