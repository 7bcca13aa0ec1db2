/* Mergeable partial profiles (profile_part.h): the binary table, the
 * entries copied from profiles and coverages, merging, and the profile or
 * coverage made back from them for the writers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coverage_internal.h"
#include "profile_internal.h"
#include "profile_part_internal.h"

/* profile_part_internal.h */
int profile_part_fail(struct profile_part *pp, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pp->msg, sizeof(pp->msg), fmt, ap);
	va_end(ap);
	return err;
}

int profile_part_alloc(struct profile_part **pp, enum profile_part_kind kind)
{
	struct profile_part *np;

	if (pp)
		*pp = NULL;
	if (!pp || kind < profile_part_kind_tally ||
	    kind > profile_part_kind_coverage)
		return -etmkit_err_invalid;
	np = calloc(1, sizeof(*np));
	if (!np)
		return -etmkit_err_nomem;
	np->kind = kind;
	*pp = np;
	return 0;
}

void profile_part_free(struct profile_part *pp)
{
	if (!pp)
		return;
	for (size_t i = 0; i < pp->nbins; i++) {
		free(pp->bins[i].name);
		free(pp->bins[i].file);
	}
	free(pp->bins);
	free(pp->index);
	count_map_free(&pp->ranges);
	count_map_free(&pp->second);
	free(pp);
}

enum profile_part_kind profile_part_kind_of(const struct profile_part *pp)
{
	return pp ? pp->kind : (enum profile_part_kind)0;
}

const char *profile_part_message(const struct profile_part *pp)
{
	return pp ? pp->msg : "";
}

/* ---- Binaries --------------------------------------------------------------- */

/* profile_part_internal.h */
int profile_part_bin_cmp(const struct part_bin *a, const struct part_bin *b)
{
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	c = memcmp(a->build_id, b->build_id, 20);
	if (c)
		return c;
	return (a->build_id_size > b->build_id_size) -
	       (a->build_id_size < b->build_id_size);
}

/* profile_part_internal.h */
const char *profile_part_bin_check(const struct profile_part_binary *b)
{
	if (!b->name || !b->name[0])
		return "a binary has no name";
	if (b->build_id_size > 20)
		return "a build id is longer than 20 bytes";
	if (b->has_elf > 1)
		return "has_elf is neither 0 nor 1";
	return NULL;
}

static size_t bin_hash(const char *name, const uint8_t *id, uint8_t size)
{
	uint64_t h = 0xcbf29ce484222325ull;   /* FNV-1a */

	for (; *name; name++)
		h = (h ^ (uint8_t)*name) * 0x100000001b3ull;
	for (int i = 0; i < 20; i++)
		h = (h ^ id[i]) * 0x100000001b3ull;
	h = (h ^ size) * 0x100000001b3ull;
	return (size_t)(h ^ (h >> 32));
}

/* profile_part_internal.h */
size_t *profile_part_index_slot(const struct profile_part *pp, const struct part_bin *b)
{
	size_t i = bin_hash(b->name, b->build_id, b->build_id_size) &
		   (pp->index_cap - 1);

	for (;;) {
		size_t *s = &pp->index[i];

		if (!*s || !profile_part_bin_cmp(&pp->bins[*s - 1], b))
			return s;
		i = (i + 1) & (pp->index_cap - 1);
	}
}

/* The index of the binary keyed like @b, or -1. */
static long find_bin(const struct profile_part *pp, const struct part_bin *b)
{
	size_t *s = pp->index_cap ? profile_part_index_slot(pp, b) : NULL;

	return s && *s ? (long)(*s - 1) : -1;
}

/* profile_part_internal.h */
int profile_part_reserve_bins(struct profile_part *pp, size_t n)
{
	size_t want = pp->nbins + n, cap;

	if (n > UINT32_MAX - 1 - pp->nbins)
		return -etmkit_err_nomem;    /* the saved form's u32 index */
	if (want > pp->bins_cap) {
		struct part_bin *nb;

		cap = pp->bins_cap ? pp->bins_cap : 8;
		while (cap < want)
			cap *= 2;
		nb = realloc(pp->bins, cap * sizeof(*nb));
		if (!nb)
			return -etmkit_err_nomem;
		pp->bins = nb;
		pp->bins_cap = cap;
	}
	if (want * 2 > pp->index_cap) {
		size_t *old = pp->index, old_cap = pp->index_cap;

		cap = pp->index_cap ? pp->index_cap : 16;
		while (cap < want * 2)
			cap *= 2;
		pp->index = calloc(cap, sizeof(*pp->index));
		if (!pp->index) {
			pp->index = old;
			return -etmkit_err_nomem;
		}
		pp->index_cap = cap;
		for (size_t i = 0; i < old_cap; i++)
			if (old[i])
				*profile_part_index_slot(pp, &pp->bins[old[i] - 1]) = old[i];
		free(old);
	}
	return 0;
}

static void bin_of(struct part_bin *out, const struct profile_part_binary *b)
{
	memset(out, 0, sizeof(*out));
	out->name = (char *)b->name;
	out->file = b->file && b->file[0] ? (char *)b->file : NULL;
	memcpy(out->build_id, b->build_id, 20);
	out->build_id_size = b->build_id_size;
	out->has_elf = b->has_elf;
	out->base = b->base;
	out->text_base = b->text_base;
}

/* Whether @have and @b (the same key) are the same file; else the
 * reason in pp->msg. */
static int conflict(struct profile_part *pp, const struct part_bin *have,
		    const struct part_bin *b)
{
	const char *what = have->has_elf != b->has_elf ? "an ELF file and a raw dump" :
			   have->base != b->base ? "another base" :
			   have->text_base != b->text_base ? "another text base" :
			   NULL;

	if (!what)
		return 0;
	profile_part_fail(pp, -etmkit_err_format,
		  "%s: different files were found for it (%s: 0x%llx, 0x%llx "
		  "and 0x%llx, 0x%llx)", b->name, what,
		  (unsigned long long)have->base,
		  (unsigned long long)have->text_base,
		  (unsigned long long)b->base,
		  (unsigned long long)b->text_base);
	return 1;
}

/* The file kept for a binary given @have and @b: the bytewise smallest
 * (NULL only when both are), so that the order does not matter. Whether
 * @b's replaces @have's. */
static int takes_file(const char *have, const char *b)
{
	return b && (!have || strcmp(b, have) < 0);
}

static char *str_copy(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	return d ? memcpy(d, s, n) : NULL;
}

/* Add @b, the room reserved: no failure but of str_copy(). Returns its
 * index or -etmkit_err_nomem (nothing changed). */
static long put_bin(struct profile_part *pp, const struct part_bin *b)
{
	size_t *s = profile_part_index_slot(pp, b);
	struct part_bin *have;
	char *name, *file;

	if (*s) {
		have = &pp->bins[*s - 1];
		if (takes_file(have->file, b->file)) {
			file = str_copy(b->file);
			if (!file)
				return -etmkit_err_nomem;
			free(have->file);
			have->file = file;
		}
		return (long)(*s - 1);
	}
	name = str_copy(b->name);
	file = b->file ? str_copy(b->file) : NULL;
	if (!name || (b->file && !file)) {
		free(name);
		free(file);
		return -etmkit_err_nomem;
	}
	have = &pp->bins[pp->nbins];
	*have = *b;
	have->name = name;
	have->file = file;
	*s = ++pp->nbins;
	return (long)(pp->nbins - 1);
}

long profile_part_add_binary(struct profile_part *pp,
			     const struct profile_part_binary *b)
{
	struct part_bin k;
	const char *why;
	long i;
	int err;

	if (!pp)
		return -etmkit_err_invalid;
	if (!b)
		return profile_part_fail(pp, -etmkit_err_invalid, "no binary");
	why = profile_part_bin_check(b);
	if (why)
		return profile_part_fail(pp, -etmkit_err_invalid, "%s", why);
	bin_of(&k, b);
	i = find_bin(pp, &k);
	if (i >= 0 && conflict(pp, &pp->bins[i], &k))
		return -etmkit_err_format;
	if (i < 0 && (err = profile_part_reserve_bins(pp, 1)) < 0)
		return profile_part_fail(pp, err, "out of memory");
	i = put_bin(pp, &k);
	return i < 0 ? profile_part_fail(pp, (int)i, "out of memory") : i;
}

size_t profile_part_binary_count(const struct profile_part *pp)
{
	return pp ? pp->nbins : 0;
}

int profile_part_binary_at(const struct profile_part *pp, size_t i,
			   struct profile_part_binary *out)
{
	const struct part_bin *b;

	if (!pp || !out || i >= pp->nbins)
		return -etmkit_err_invalid;
	b = &pp->bins[i];
	memset(out, 0, sizeof(*out));
	out->name = b->name;
	out->file = b->file;
	memcpy(out->build_id, b->build_id, 20);
	out->build_id_size = b->build_id_size;
	out->has_elf = b->has_elf;
	out->base = b->base;
	out->text_base = b->text_base;
	return 0;
}

/* ---- Counts ------------------------------------------------------------------ */

size_t profile_part_range_count(const struct profile_part *pp)
{
	return pp ? pp->ranges.used : 0;
}

size_t profile_part_branch_count(const struct profile_part *pp)
{
	return pp ? pp->second.used : 0;
}

int profile_part_add_counters(struct profile_part *pp,
			      const struct profile_part_counters *c)
{
	int sat = 0;

	if (!pp || !c)
		return -etmkit_err_invalid;
	pp->ctr.inputs = count_add(pp->ctr.inputs, c->inputs, &sat);
	pp->ctr.decode_errors = count_add(pp->ctr.decode_errors,
					  c->decode_errors, &sat);
	pp->ctr.saturated |= c->saturated != 0;
	pp->ctr.etm3 |= c->etm3 != 0;
	return 0;
}

int profile_part_counters(const struct profile_part *pp,
			  struct profile_part_counters *out)
{
	if (!pp || !out)
		return -etmkit_err_invalid;
	*out = pp->ctr;
	out->saturated = pp->ctr.saturated || pp->ranges.saturated ||
			 pp->second.saturated;
	return 0;
}

/* Add the entries of @m (bins through @map, checked), outcomes too
 * (@passed: aux_count is a count of its own), to @to: the room
 * reserved, nothing fails. */
static void add_map(struct count_map *to, const struct count_map *m,
		    const long *map, int passed)
{
	for (size_t k = 0; k < m->cap; k++) {
		const struct count_slot *s = &m->slots[k];
		struct count_slot *d;

		if (!s->count)
			continue;
		d = count_map_add_slot(to, (uint64_t)map[PROFILE_KEY_BIN(s->bin)],
				       s->from, s->to, s->count);
		if (passed)
			d->aux_count = count_add(d->aux_count, s->aux_count,
						 &to->saturated);
	}
}

/* Whether every entry of @m has its binary below @nbins, and @map maps
 * it to a binary of @pp; else the reason. */
static int check_map(struct profile_part *pp, const struct count_map *m,
		     const long *map, size_t nbins)
{
	for (size_t k = 0; k < m->cap; k++) {
		const struct count_slot *s = &m->slots[k];
		size_t b = PROFILE_KEY_BIN(s->bin);

		if (!s->count)
			continue;
		if (b >= nbins)
			return profile_part_fail(pp, -etmkit_err_invalid,
					 "an entry of binary %zu, not below the "
					 "%zu mapped", b, nbins);
		if (map[b] < 0 || (size_t)map[b] >= pp->nbins)
			return profile_part_fail(pp, -etmkit_err_invalid,
					 "binary %zu maps to %ld, no binary of "
					 "the part", b, map[b]);
	}
	return 0;
}

/* Add maps @r and @s of a profile or coverage through @map: checked,
 * the room reserved, then added. */
static int add_maps(struct profile_part *pp, const struct count_map *r,
		    const struct count_map *s, const long *map, size_t nbins,
		    int saturated)
{
	int err;

	if (!map && nbins)
		return profile_part_fail(pp, -etmkit_err_invalid, "no binary map");
	if ((err = check_map(pp, r, map, nbins)) < 0 ||
	    (err = check_map(pp, s, map, nbins)) < 0)
		return err;
	if (count_map_reserve(&pp->ranges, r->used) < 0 ||
	    count_map_reserve(&pp->second, s->used) < 0)
		return profile_part_fail(pp, -etmkit_err_nomem, "out of memory");
	add_map(&pp->ranges, r, map, 0);
	add_map(&pp->second, s, map,
		pp->kind == profile_part_kind_coverage);
	pp->ctr.saturated |= saturated;
	return 0;
}

static const char *const kind_names[] = { "?", "tally", "traces",
					  "coverage" };

int profile_part_add_profile(struct profile_part *pp, const struct profile *p,
			     const long *bin_map, size_t nbins)
{
	int traces;

	if (!pp)
		return -etmkit_err_invalid;
	if (!p)
		return profile_part_fail(pp, -etmkit_err_invalid, "no profile");
	traces = p->cfg.traces != 0;
	if (pp->kind == profile_part_kind_coverage ||
	    traces != (pp->kind == profile_part_kind_traces))
		return profile_part_fail(pp, -etmkit_err_invalid,
				 "a %s profile does not go into a %s part",
				 traces ? "traces" : "tally",
				 kind_names[pp->kind]);
	if (p->cfg.contexts)
		return profile_part_fail(pp, -etmkit_err_invalid,
				 "a profile with call contexts does not go "
				 "into a part");
	if (!profile_finished(p))
		return profile_part_fail(pp, -etmkit_err_invalid,
				 "the profile is not finished "
				 "(profile_finish())");
	return add_maps(pp, &p->ranges, &p->branches, bin_map, nbins,
			profile_saturated(p));
}

int profile_part_add_coverage(struct profile_part *pp,
			      const struct coverage *c, const long *bin_map,
			      size_t nbins)
{
	const struct count_map *r, *s;

	if (!pp)
		return -etmkit_err_invalid;
	if (!c)
		return profile_part_fail(pp, -etmkit_err_invalid, "no coverage");
	if (pp->kind != profile_part_kind_coverage)
		return profile_part_fail(pp, -etmkit_err_invalid,
				 "a coverage does not go into a %s part",
				 kind_names[pp->kind]);
	if (coverage_runs_open(c))
		return profile_part_fail(pp, -etmkit_err_invalid,
				 "the coverage is not finished "
				 "(coverage_finish())");
	coverage_counts(c, &r, &s);
	return add_maps(pp, r, s, bin_map, nbins, coverage_saturated(c));
}

/* ---- Merging ------------------------------------------------------------------ */

int profile_part_clone(struct profile_part **out,
		       const struct profile_part *src)
{
	struct profile_part *np;
	int err;

	if (out)
		*out = NULL;
	if (!out || !src)
		return -etmkit_err_invalid;
	err = profile_part_alloc(&np, src->kind);
	if (err < 0)
		return err;
	err = profile_part_merge(np, src);
	if (err < 0) {
		profile_part_free(np);
		return err;
	}
	*out = np;
	return 0;
}

/* @src's binaries into @dst: first every conflict looked for (nothing
 * changed), then the room, then each added; *@map gets @src index ->
 * @dst index. On -etmkit_err_nomem from str_copy() the binaries added so
 * far stay (no counts refer to them yet). */
static int merge_bins(struct profile_part *dst, const struct profile_part *src,
		      long *map)
{
	size_t fresh = 0;
	int err;

	for (size_t i = 0; i < src->nbins; i++) {
		long j = find_bin(dst, &src->bins[i]);

		if (j < 0)
			fresh++;
		else if (conflict(dst, &dst->bins[j], &src->bins[i]))
			return -etmkit_err_format;
	}
	if ((err = profile_part_reserve_bins(dst, fresh)) < 0)
		return profile_part_fail(dst, err, "out of memory");
	for (size_t i = 0; i < src->nbins; i++) {
		map[i] = put_bin(dst, &src->bins[i]);
		if (map[i] < 0)
			return profile_part_fail(dst, (int)map[i], "out of memory");
	}
	return 0;
}

int profile_part_merge(struct profile_part *dst,
		       const struct profile_part *src)
{
	struct profile_part *copy = NULL;
	long *map;
	int err;

	if (!dst)
		return -etmkit_err_invalid;
	if (!src)
		return profile_part_fail(dst, -etmkit_err_invalid, "no part to merge");
	if (src->kind != dst->kind)
		return profile_part_fail(dst, -etmkit_err_invalid,
				 "a %s part does not merge with a %s part",
				 kind_names[src->kind], kind_names[dst->kind]);
	if (src == dst) {     /* counts double: from a copy */
		err = profile_part_clone(&copy, src);
		if (err < 0)
			return profile_part_fail(dst, err, "out of memory");
		src = copy;
	}
	map = malloc((src->nbins ? src->nbins : 1) * sizeof(*map));
	if (!map) {
		profile_part_free(copy);
		return profile_part_fail(dst, -etmkit_err_nomem, "out of memory");
	}
	/* The room first (the counts stay the same), then the binaries:
	 * only their names' copies can fail after that. */
	if (count_map_reserve(&dst->ranges, src->ranges.used) < 0 ||
	    count_map_reserve(&dst->second, src->second.used) < 0)
		err = profile_part_fail(dst, -etmkit_err_nomem, "out of memory");
	else
		err = merge_bins(dst, src, map);
	if (!err) {
		struct profile_part_counters c;

		add_map(&dst->ranges, &src->ranges, map, 0);
		add_map(&dst->second, &src->second, map,
			dst->kind == profile_part_kind_coverage);
		profile_part_counters(src, &c);
		profile_part_add_counters(dst, &c);
	}
	free(map);
	profile_part_free(copy);
	return err;
}

/* ---- For the writers ---------------------------------------------------------- */

/* A resolver that finds nothing: the profile or coverage made from a
 * part counts no elements. */
static int resolve_none(void *ctx, uint8_t id, uint64_t addr,
			struct profile_where *w)
{
	(void)ctx;
	(void)id;
	(void)addr;
	(void)w;
	return -etmkit_err_not_found;
}

/* The identity map of the part's binaries, for add_map(). */
static long *identity(const struct profile_part *pp)
{
	long *map = malloc((pp->nbins ? pp->nbins : 1) * sizeof(*map));

	for (size_t i = 0; map && i < pp->nbins; i++)
		map[i] = (long)i;
	return map;
}

int profile_part_profile(const struct profile_part *pp, struct profile **out)
{
	struct profile_config cfg;
	struct profile *p;
	long *map;
	int err;

	if (out)
		*out = NULL;
	if (!pp || !out || pp->kind == profile_part_kind_coverage)
		return -etmkit_err_invalid;
	profile_config_init(&cfg);
	cfg.resolve = resolve_none;
	cfg.traces = pp->kind == profile_part_kind_traces;
	err = profile_alloc(&p, &cfg);
	if (err < 0)
		return err;
	map = identity(pp);
	if (!map || count_map_reserve(&p->ranges, pp->ranges.used) < 0 ||
	    count_map_reserve(&p->branches, pp->second.used) < 0) {
		free(map);
		profile_free(p);
		return -etmkit_err_nomem;
	}
	add_map(&p->ranges, &pp->ranges, map, 0);
	add_map(&p->branches, &pp->second, map, 0);
	free(map);
	p->ranges.saturated = pp->ctr.saturated || pp->ranges.saturated ||
			      pp->second.saturated;
	*out = p;
	return 0;
}

int profile_part_coverage(const struct profile_part *pp,
			  struct coverage **out)
{
	struct coverage_config cfg;
	struct count_map *r, *s;
	struct coverage *c;
	long *map;
	int err;

	if (out)
		*out = NULL;
	if (!pp || !out || pp->kind != profile_part_kind_coverage)
		return -etmkit_err_invalid;
	coverage_config_init(&cfg);
	cfg.resolve = resolve_none;
	err = coverage_alloc(&c, &cfg);
	if (err < 0)
		return err;
	coverage_counts_mut(c, &r, &s);
	map = identity(pp);
	if (!map || count_map_reserve(r, pp->ranges.used) < 0 ||
	    count_map_reserve(s, pp->second.used) < 0) {
		free(map);
		coverage_free(c);
		return -etmkit_err_nomem;
	}
	add_map(r, &pp->ranges, map, 0);
	add_map(s, &pp->second, map, 1);
	free(map);
	r->saturated = pp->ctr.saturated || pp->ranges.saturated ||
		       pp->second.saturated;
	err = coverage_finish(c);
	if (err < 0) {
		coverage_free(c);
		return err;
	}
	*out = c;
	return 0;
}
