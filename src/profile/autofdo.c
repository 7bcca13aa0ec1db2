/* The AutoFDO text profile as simpleperf's inject writes it (digest
 * perf-data.md 4a). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"

static void write_lines(FILE *f, const struct profile_line *l, size_t n,
			const char *sep)
{
	fprintf(f, "%zu\n", n);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%" PRIx64 "%s%" PRIx64 ":%" PRIu64 "\n", l[i].from,
			sep, l[i].to, l[i].count);
}

/* A block to write: binary @i of the caller's table. */
struct block {
	const struct profile_binary *b;
	size_t i;
};

static int cmp_block(const void *a, const void *b)
{
	const struct block *x = a, *y = b;
	int c = strcmp(x->b->name, y->b->name);

	if (!c)
		c = memcmp(x->b->build_id, y->b->build_id, 20);
	return c ? c : (x->i < y->i ? -1 : x->i > y->i);
}

/* Which binaries get a block: not skipped, with a range or a branch.
 * Fills @order (sorted by name) and returns how many; -1 when a counted
 * binary has no description. */
static long blocks(const struct profile *p, const struct profile_binary *bins,
		   size_t nbins, struct block *order)
{
	unsigned char *has = calloc(nbins ? nbins : 1, 1);
	long got;
	size_t n = 0;

	if (!has)
		return -2;
	got = profile_counted_binaries(p, nbins, has);
	for (size_t i = 0; got >= 0 && i < nbins; i++) {
		if (has[i] && !bins[i].name)
			got = -1;
		else if (has[i] && !bins[i].skip) {
			order[n].b = &bins[i];
			order[n++].i = i;
		}
	}
	free(has);
	if (got < 0)
		return -1;
	qsort(order, n, sizeof(*order), cmp_block);
	return (long)n;
}

int profile_write_autofdo(const struct profile *p, FILE *f,
			  const struct profile_binary *bins, size_t nbins)
{
	struct block *order;
	struct profile_line *lines;
	long nb;

	if (!p || !f || (!bins && nbins) || p->cfg.traces)
		return -etmkit_err_invalid;
	order = malloc((nbins ? nbins : 1) * sizeof(*order));
	lines = profile_lines_alloc(p);
	nb = order && lines ? blocks(p, bins, nbins, order) : -2;
	if (nb < 0) {
		free(order);
		free(lines);
		return nb == -1 ? -etmkit_err_invalid : -etmkit_err_nomem;
	}
	if (nb > 1)
		fputs("// Please split this file. AutoFDO only accepts profile "
		      "for one binary.\n", f);
	for (long b = 0; b < nb; b++) {
		const struct profile_binary *pb = order[b].b;
		size_t n;

		n = profile_collect(&p->ranges, order[b].i, pb->base, 0, 1,
				    lines);
		write_lines(f, lines, n, "-");
		fputs("0\n", f);            /* no address lines */
		n = profile_collect(&p->branches, order[b].i, pb->base, 1, 1,
				    lines);
		write_lines(f, lines, n, "->");
		fputs("// build_id: 0x", f);
		for (int i = 0; i < 20; i++)
			fprintf(f, "%02x", pb->build_id[i]);
		fprintf(f, "\n// %s\n\n", pb->name);
	}
	free(order);
	free(lines);
	return ferror(f) ? -etmkit_err_io : 0;
}
