/* What the profile writers share: the counted binaries, one binary's
 * entries as sorted lines. */
#include <stdlib.h>

#include "profile_internal.h"

static int cmp_line(const void *a, const void *b)
{
	const struct profile_line *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return 0;
}

size_t profile_collect(const struct count_map *m, size_t bin, uint64_t base,
		       int branches, int low_to_zero,
		       struct profile_line *out)
{
	size_t n = 0;

	for (size_t k = 0; k < m->cap; k++) {
		const struct count_slot *s = &m->slots[k];

		if (!s->count || PROFILE_KEY_BIN(s->bin) != bin ||
		    s->from < base)
			continue;
		if (s->to < base && (!branches || !low_to_zero))
			continue;
		out[n].from = s->from - base;
		out[n].to = s->to >= base ? s->to - base : 0;
		out[n].count = s->count;
		n++;
	}
	qsort(out, n, sizeof(*out), cmp_line);
	return n;
}

long profile_counted_binaries(const struct profile *p, size_t nbins,
			      unsigned char *has)
{
	const struct count_map *maps[2];
	long n = 0;

	if (!p || (!has && nbins))
		return -etmkit_err_invalid;
	maps[0] = &p->ranges;
	maps[1] = &p->branches;
	for (size_t i = 0; i < nbins; i++)
		has[i] = 0;
	for (int m = 0; m < 2; m++)
		for (size_t k = 0; k < maps[m]->cap; k++) {
			const struct count_slot *s = &maps[m]->slots[k];
			size_t b = PROFILE_KEY_BIN(s->bin);

			if (!s->count)
				continue;
			if (b >= nbins)
				return -etmkit_err_invalid;
			if (!has[b]) {
				has[b] = 1;
				n++;
			}
		}
	return n;
}

int profile_one_binary(const struct profile *p,
		       const struct profile_binary *bins, size_t nbins,
		       size_t *bin)
{
	unsigned char *has = malloc(nbins ? nbins : 1);
	long n;
	int found = 0;

	if (!has)
		return -etmkit_err_nomem;
	n = profile_counted_binaries(p, nbins, has);
	for (size_t i = 0; n >= 0 && i < nbins; i++) {
		if (!has[i] || bins[i].skip)
			continue;
		if (!bins[i].name || found) {
			n = -etmkit_err_invalid;
			break;
		}
		found = 1;
		*bin = i;
	}
	free(has);
	if (n < 0)
		return (int)n;
	return found ? 0 : 1;
}

struct profile_line *profile_lines_alloc(const struct profile *p)
{
	size_t most = p->ranges.used > p->branches.used ? p->ranges.used :
							  p->branches.used;

	return malloc((most ? most : 1) * sizeof(struct profile_line));
}
