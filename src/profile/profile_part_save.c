/* A partial profile's saved form (docs/profile-part.md): canonical, the
 * binaries sorted by key and the entries by (binary, from, to), so that
 * the same counts give the same bytes whatever order they were added or
 * merged in. */
#include <stdlib.h>
#include <string.h>

#include "profile_part_internal.h"

/* profile_part_internal.h */
int profile_part_entry_cmp(const struct part_entry *a, const struct part_entry *b)
{
	if (a->bin != b->bin)
		return a->bin < b->bin ? -1 : 1;
	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return (a->to > b->to) - (a->to < b->to);
}

/* Whether @a sorts before @b: profile_part_entry_cmp(), inline for the sort. */
static inline int before(const struct part_entry *a, const struct part_entry *b)
{
	if (a->bin != b->bin)
		return a->bin < b->bin;
	if (a->from != b->from)
		return a->from < b->from;
	return a->to < b->to;
}

/* Sort @e[0..@n-1] (keys distinct) with room @tmp of @n: a merge sort,
 * runs of 16 by insertion first; the comparison inline, not qsort()'s
 * call per comparison (the sort is most of a save). */
static void sort_entries(struct part_entry *e, struct part_entry *tmp,
			 size_t n)
{
	struct part_entry *src = e, *dst = tmp;

	for (size_t lo = 0; lo < n; lo += 16) {
		size_t hi = lo + 16 < n ? lo + 16 : n;

		for (size_t i = lo + 1; i < hi; i++) {
			struct part_entry x = e[i];
			size_t j = i;

			for (; j > lo && before(&x, &e[j - 1]); j--)
				e[j] = e[j - 1];
			e[j] = x;
		}
	}
	for (size_t w = 16; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				dst[k++] = before(&src[j], &src[i]) ? src[j++] :
								      src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		struct part_entry *t = src;

		src = dst;
		dst = t;
	}
	if (src != e)
		memcpy(e, src, n * sizeof(*e));
}

static int cmp_bin_ptr(const void *a, const void *b)
{
	return profile_part_bin_cmp(*(const struct part_bin *const *)a,
			    *(const struct part_bin *const *)b);
}

static uint8_t *put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

static uint8_t *put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

/* The entries of @m, their binaries renumbered by @rank, sorted. */
static struct part_entry *sorted_entries(const struct count_map *m,
					 const size_t *rank)
{
	struct part_entry *e = malloc((m->used ? m->used : 1) * sizeof(*e));
	struct part_entry *tmp = malloc((m->used ? m->used : 1) * sizeof(*e));
	size_t n = 0;

	if (!e || !tmp) {
		free(e);
		free(tmp);
		return NULL;
	}
	for (size_t k = 0; k < m->cap; k++) {
		const struct count_slot *s = &m->slots[k];

		if (s->count)
			e[n++] = (struct part_entry){ rank[s->bin], s->from,
						      s->to, s->count,
						      s->aux_count };
	}
	sort_entries(e, tmp, n);
	free(tmp);
	return e;
}

static uint8_t *put_entries(uint8_t *p, const struct part_entry *e, size_t n,
			    int conds)
{
	for (size_t i = 0; i < n; i++) {
		p = put_u32(p, (uint32_t)e[i].bin);
		p = put_u32(p, 0);
		p = put_u64(p, e[i].from);
		p = put_u64(p, conds ? e[i].count : e[i].to);
		p = put_u64(p, conds ? e[i].passed : e[i].count);
	}
	return p;
}

static uint8_t *put_bin(uint8_t *p, const struct part_bin *b)
{
	size_t nl = strlen(b->name), fl = b->file ? strlen(b->file) : 0;

	p = put_u32(p, (uint32_t)nl);
	p = put_u32(p, (uint32_t)fl);
	*p++ = b->build_id_size;
	*p++ = b->has_elf ? PART_BIN_F_ELF : 0;
	memcpy(p, b->build_id, 20);
	p += 20;
	*p++ = 0;
	*p++ = 0;
	p = put_u64(p, b->base);
	p = put_u64(p, b->text_base);
	memcpy(p, b->name, nl);
	p += nl;
	if (fl)
		memcpy(p, b->file, fl);
	return p + fl;
}

/* The size of the saved form, or 0 when it would not fit a size_t (or
 * a string a u32). */
static size_t saved_size(const struct profile_part *pp)
{
	size_t n = PART_HEADER, e = pp->ranges.used + pp->second.used;

	for (size_t i = 0; i < pp->nbins; i++) {
		size_t nl = strlen(pp->bins[i].name);
		size_t fl = pp->bins[i].file ? strlen(pp->bins[i].file) : 0;

		if (nl > UINT32_MAX || fl > UINT32_MAX ||
		    nl + fl > SIZE_MAX - PART_BIN_FIXED - n)
			return 0;
		n += PART_BIN_FIXED + nl + fl;
	}
	if (e > (SIZE_MAX - n) / PART_ENTRY)
		return 0;
	return n + e * PART_ENTRY;
}

static uint8_t *put_header(uint8_t *p, const struct profile_part *pp,
			   size_t size)
{
	struct profile_part_counters c;

	profile_part_counters(pp, &c);
	memcpy(p, PART_MAGIC, 8);
	p = put_u32(p + 8, PART_VERSION);
	p = put_u32(p, (uint32_t)pp->kind);
	p = put_u32(p, (c.saturated ? PART_F_SATURATED : 0) |
		       (c.etm3 ? PART_F_ETM3 : 0));
	p = put_u32(p, (uint32_t)pp->nbins);
	p = put_u64(p, c.inputs);
	p = put_u64(p, c.decode_errors);
	p = put_u64(p, pp->ranges.used);
	p = put_u64(p, pp->second.used);
	return put_u64(p, size);
}

int profile_part_save_buf(const struct profile_part *pp, uint8_t **buf,
			  size_t *n)
{
	const struct part_bin **order = NULL;
	size_t size, *rank = NULL;
	struct part_entry *r = NULL, *s = NULL;
	uint8_t *out = NULL, *p;
	int err = -etmkit_err_nomem;

	if (buf)
		*buf = NULL;
	if (n)
		*n = 0;
	if (!pp || !buf || !n)
		return -etmkit_err_invalid;
	size = saved_size(pp);
	if (!size)
		return -etmkit_err_nomem;
	order = malloc((pp->nbins ? pp->nbins : 1) * sizeof(*order));
	rank = malloc((pp->nbins ? pp->nbins : 1) * sizeof(*rank));
	if (!order || !rank)
		goto out;
	for (size_t i = 0; i < pp->nbins; i++)
		order[i] = &pp->bins[i];
	qsort(order, pp->nbins, sizeof(*order), cmp_bin_ptr);
	for (size_t i = 0; i < pp->nbins; i++)
		rank[order[i] - pp->bins] = i;
	r = sorted_entries(&pp->ranges, rank);
	s = sorted_entries(&pp->second, rank);
	out = malloc(size);
	if (!r || !s || !out)
		goto out;
	p = put_header(out, pp, size);
	for (size_t i = 0; i < pp->nbins; i++)
		p = put_bin(p, order[i]);
	p = put_entries(p, r, pp->ranges.used, 0);
	p = put_entries(p, s, pp->second.used,
			pp->kind == profile_part_kind_coverage);
	if ((size_t)(p - out) != size) {
		err = -etmkit_err_internal;
		goto out;
	}
	*buf = out;
	*n = size;
	out = NULL;
	err = 0;
out:
	free(out);
	free(order);
	free(rank);
	free(r);
	free(s);
	return err;
}

int profile_part_save(const struct profile_part *pp, FILE *f)
{
	uint8_t *buf;
	size_t n;
	int err;

	if (!pp || !f)
		return -etmkit_err_invalid;
	err = profile_part_save_buf(pp, &buf, &n);
	if (err < 0)
		return err;
	if (fwrite(buf, 1, n, f) != n)
		err = -etmkit_err_io;
	free(buf);
	return err;
}
