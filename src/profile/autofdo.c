/* The AutoFDO text profile as simpleperf's inject writes it (digest
 * perf-data.md 4a). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"

struct line {
	uint64_t from, to, count;
};

static int cmp_line(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return 0;
}

/* The entries of binary @bin in @m, less @base, sorted: ranges need both
 * ends at or above @base; branches need their source there, and a target
 * below it becomes 0 (as simpleperf's writer does). */
static size_t collect(const struct count_map *m, size_t bin, uint64_t base,
		      int branches, struct line *out)
{
	size_t n = 0;

	for (size_t k = 0; k < m->cap; k++) {
		const struct count_slot *s = &m->slots[k];

		if (!s->count || s->bin != bin || s->from < base)
			continue;
		if (!branches && s->to < base)
			continue;
		out[n].from = s->from - base;
		out[n].to = s->to >= base ? s->to - base : 0;
		out[n].count = s->count;
		n++;
	}
	qsort(out, n, sizeof(*out), cmp_line);
	return n;
}

static void write_lines(FILE *f, const struct line *l, size_t n,
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
	const struct count_map *maps[2] = { &p->ranges, &p->branches };
	unsigned char *has = calloc(nbins ? nbins : 1, 1);
	size_t n = 0;

	if (!has)
		return -2;
	for (int m = 0; m < 2; m++)
		for (size_t k = 0; k < maps[m]->cap; k++) {
			const struct count_slot *s = &maps[m]->slots[k];

			if (!s->count)
				continue;
			if (s->bin >= nbins || !bins[s->bin].name) {
				free(has);
				return -1;
			}
			has[s->bin] = 1;
		}
	for (size_t i = 0; i < nbins; i++)
		if (has[i] && !bins[i].skip) {
			order[n].b = &bins[i];
			order[n++].i = i;
		}
	free(has);
	qsort(order, n, sizeof(*order), cmp_block);
	return (long)n;
}

int profile_write_autofdo(const struct profile *p, FILE *f,
			  const struct profile_binary *bins, size_t nbins)
{
	size_t most = 0;
	struct block *order;
	struct line *lines;
	long nb;

	if (!p || !f || (!bins && nbins))
		return -etmkit_err_invalid;
	most = p->ranges.used > p->branches.used ? p->ranges.used :
						   p->branches.used;
	order = malloc((nbins ? nbins : 1) * sizeof(*order));
	lines = malloc((most ? most : 1) * sizeof(*lines));
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

		n = collect(&p->ranges, order[b].i, pb->base, 0, lines);
		write_lines(f, lines, n, "-");
		fputs("0\n", f);            /* no address lines */
		n = collect(&p->branches, order[b].i, pb->base, 1, lines);
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
