/* Reading a partial profile's saved form (docs/profile-part.md),
 * strictly: every size checked against the bytes there are before
 * anything is allocated for it, the canonical order and the value rules
 * checked, the byte offset of what is wrong given. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_part_internal.h"

struct reader {
	const uint8_t *buf;
	size_t n;
	struct profile_part_diag *diag;
};

static int bad(const struct reader *r, int err, uint64_t at,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int bad(const struct reader *r, int err, uint64_t at,
	       const char *fmt, ...)
{
	va_list ap;

	if (!r->diag)
		return err;
	r->diag->offset = at;
	r->diag->has_offset = 1;
	va_start(ap, fmt);
	vsnprintf(r->diag->message, sizeof(r->diag->message), fmt, ap);
	va_end(ap);
	return err;
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* The header's fields. */
struct header {
	uint32_t version, kind, flags, nbins;
	uint64_t inputs, errors, nranges, nsecond, size;
};

static int read_header(const struct reader *r, struct header *h)
{
	const uint8_t *p = r->buf;
	uint64_t room;

	if (memcmp(p, PART_MAGIC, r->n < 8 ? r->n : 8))
		return bad(r, -etmkit_err_format, 0,
			   "not a saved part: no ETMKPART magic");
	/* The version is named before anything else is checked. */
	if (r->n < 12)
		return bad(r, -etmkit_err_truncated, 0,
			   "the part ends inside its magic and version");
	h->version = get_u32(p + 8);
	if (h->version != PART_VERSION)
		return bad(r, -etmkit_err_unsupported, 8,
			   "part version %u (this reader knows %u)",
			   h->version, PART_VERSION);
	if (r->n < PART_HEADER)
		return bad(r, -etmkit_err_truncated, 0,
			   "the part ends inside its %d-byte header",
			   PART_HEADER);
	h->kind = get_u32(p + 12);
	h->flags = get_u32(p + 16);
	h->nbins = get_u32(p + 20);
	h->inputs = get_u64(p + 24);
	h->errors = get_u64(p + 32);
	h->nranges = get_u64(p + 40);
	h->nsecond = get_u64(p + 48);
	h->size = get_u64(p + 56);
	if (h->kind < profile_part_kind_tally ||
	    h->kind > profile_part_kind_coverage)
		return bad(r, -etmkit_err_unsupported, 12,
			   "part kind %u (this reader knows 1 to 3)", h->kind);
	if (h->flags & ~(PART_F_SATURATED | PART_F_ETM3))
		return bad(r, -etmkit_err_format, 16,
			   "unknown flags 0x%x", h->flags);
	if (h->size != r->n)
		return h->size > r->n ?
		       bad(r, -etmkit_err_truncated, 56,
			   "the part says it has %llu bytes, %zu are there",
			   (unsigned long long)h->size, r->n) :
		       bad(r, -etmkit_err_format, 56,
			   "the part says it has %llu bytes, %zu are there",
			   (unsigned long long)h->size, r->n);
	/* What the counts need at least, against what is there: nothing is
	 * allocated for more than the input holds. */
	room = r->n - PART_HEADER;
	if (h->nranges > room / PART_ENTRY || h->nsecond > room / PART_ENTRY ||
	    h->nbins * (uint64_t)PART_BIN_FIXED +
	    (h->nranges + h->nsecond) * PART_ENTRY > room)
		return bad(r, -etmkit_err_format, 20,
			   "%u binaries, %llu and %llu entries do not fit in "
			   "%llu bytes", h->nbins,
			   (unsigned long long)h->nranges,
			   (unsigned long long)h->nsecond,
			   (unsigned long long)room);
	return 0;
}

/* A name or file of @len bytes at @at: no NUL in it. */
static int check_string(const struct reader *r, size_t at, size_t len,
			const char *what)
{
	const uint8_t *z = memchr(r->buf + at, 0, len);

	if (z)
		return bad(r, -etmkit_err_format, (uint64_t)(z - r->buf),
			   "a NUL byte in a binary's %s", what);
	return 0;
}

/* A copy of @len bytes at @at as a string. */
static char *string_at(const struct reader *r, size_t at, size_t len)
{
	char *s = malloc(len + 1);

	if (s) {
		memcpy(s, r->buf + at, len);
		s[len] = 0;
	}
	return s;
}

/* The binary at *@at into @b (its strings allocated); *@at moves past
 * it. */
static int read_bin(const struct reader *r, size_t *at, struct part_bin *b)
{
	const uint8_t *p = r->buf + *at;
	size_t start = *at, nl, fl;
	int err;

	if (r->n - start < PART_BIN_FIXED)
		return bad(r, -etmkit_err_truncated, start,
			   "the part ends inside a binary");
	nl = get_u32(p);
	fl = get_u32(p + 4);
	if (!nl)
		return bad(r, -etmkit_err_format, start, "a binary has no name");
	if (nl > r->n - start - PART_BIN_FIXED ||
	    fl > r->n - start - PART_BIN_FIXED - nl)
		return bad(r, -etmkit_err_truncated, start,
			   "the part ends inside a binary's name or file");
	memset(b, 0, sizeof(*b));
	b->build_id_size = p[8];
	if (b->build_id_size > 20)
		return bad(r, -etmkit_err_format, start + 8,
			   "a build id of %u bytes", b->build_id_size);
	if (p[9] & ~PART_BIN_F_ELF)
		return bad(r, -etmkit_err_format, start + 9,
			   "unknown binary flags 0x%x", p[9]);
	b->has_elf = p[9] & PART_BIN_F_ELF;
	memcpy(b->build_id, p + 10, 20);
	if (p[30] || p[31])
		return bad(r, -etmkit_err_format, start + 30,
			   "reserved bytes not 0");
	b->base = get_u64(p + 32);
	b->text_base = get_u64(p + 40);
	if ((err = check_string(r, start + PART_BIN_FIXED, nl, "name")) < 0 ||
	    (err = check_string(r, start + PART_BIN_FIXED + nl, fl, "file")) < 0)
		return err;
	b->name = string_at(r, start + PART_BIN_FIXED, nl);
	b->file = fl ? string_at(r, start + PART_BIN_FIXED + nl, fl) : NULL;
	if (!b->name || (fl && !b->file)) {
		free(b->name);
		free(b->file);
		return bad(r, -etmkit_err_nomem, start, "out of memory");
	}
	*at = start + PART_BIN_FIXED + nl + fl;
	return 0;
}

static int read_bins(const struct reader *r, struct profile_part *pp,
		     uint32_t nbins, size_t *at)
{
	for (uint32_t i = 0; i < nbins; i++) {
		size_t start = *at;
		struct part_bin b;
		int err = read_bin(r, at, &b);

		if (err < 0)
			return err;
		if (i && profile_part_bin_cmp(&pp->bins[i - 1], &b) >= 0)
			err = bad(r, -etmkit_err_format, start,
				  "binary %u (%s) is not after the one before",
				  i, b.name);
		if (!err) {
			pp->bins[pp->nbins] = b;
			*profile_part_index_slot(pp, &b) = ++pp->nbins;
			continue;
		}
		free(b.name);
		free(b.file);
		return err;
	}
	return 0;
}

/* @count entries at *@at into @m: @conds, conditional instructions
 * (addr, outcomes, passed); @ranges, coverage ranges (from < to). */
static int read_entries(const struct reader *r, struct profile_part *pp,
			struct count_map *m, uint64_t count, int conds,
			int ranges, size_t *at)
{
	struct part_entry prev = { 0 }, e;

	for (uint64_t i = 0; i < count; i++, *at += PART_ENTRY) {
		const uint8_t *p = r->buf + *at;
		struct count_slot *s;

		if (r->n - *at < PART_ENTRY)
			return bad(r, -etmkit_err_truncated, *at,
				   "the part ends inside an entry");
		e.bin = get_u32(p);
		e.from = get_u64(p + 8);
		e.to = conds ? 0 : get_u64(p + 16);
		e.count = get_u64(p + (conds ? 16 : 24));
		e.passed = conds ? get_u64(p + 24) : 0;
		if (get_u32(p + 4))
			return bad(r, -etmkit_err_format, *at + 4,
				   "reserved bytes not 0");
		if (e.bin >= pp->nbins)
			return bad(r, -etmkit_err_format, *at,
				   "binary %llu of %zu", 
				   (unsigned long long)e.bin, pp->nbins);
		if (!e.count)
			return bad(r, -etmkit_err_format, *at + (conds ? 16 : 24),
				   "a count of 0");
		if (e.passed > e.count)
			return bad(r, -etmkit_err_format, *at + 24,
				   "more passed outcomes than outcomes");
		if (ranges && e.from >= e.to)
			return bad(r, -etmkit_err_format, *at + 8,
				   "a range that ends before it starts");
		if (i && profile_part_entry_cmp(&prev, &e) >= 0)
			return bad(r, -etmkit_err_format, *at,
				   "an entry not after the one before");
		prev = e;
		/* room reserved: no failure */
		s = count_map_add_slot(m, e.bin, e.from, e.to, e.count);
		s->aux_count = e.passed;
	}
	return 0;
}

int profile_part_load(struct profile_part **out, const uint8_t *buf, size_t n,
		      struct profile_part_diag *diag)
{
	struct reader r = { buf, n, diag };
	struct profile_part *pp;
	struct header h = { 0 };
	size_t at = PART_HEADER;
	int err;

	if (diag)
		memset(diag, 0, sizeof(*diag));
	if (out)
		*out = NULL;
	if (!out || (!buf && n))
		return -etmkit_err_invalid;
	if (!buf)
		buf = r.buf = (const uint8_t *)"";
	err = read_header(&r, &h);
	if (err < 0)
		return err;
	err = profile_part_alloc(&pp, (enum profile_part_kind)h.kind);
	if (err < 0)
		return bad(&r, err, 0, "out of memory");
	if (profile_part_reserve_bins(pp, h.nbins) < 0 ||
	    count_map_reserve(&pp->ranges, (size_t)h.nranges) < 0 ||
	    count_map_reserve(&pp->second, (size_t)h.nsecond) < 0) {
		err = bad(&r, -etmkit_err_nomem, 0, "out of memory");
		goto fail;
	}
	pp->ctr.inputs = h.inputs;
	pp->ctr.decode_errors = h.errors;
	pp->ctr.saturated = (h.flags & PART_F_SATURATED) != 0;
	pp->ctr.etm3 = (h.flags & PART_F_ETM3) != 0;
	err = read_bins(&r, pp, h.nbins, &at);
	/* The entries fill the rest exactly (the counts' lower bound above
	 * did not know the strings' lengths). */
	if (!err && n - at != (h.nranges + h.nsecond) * PART_ENTRY)
		err = bad(&r, -etmkit_err_format, 40,
			  "%llu + %llu entries take %llu bytes, %zu follow "
			  "the binaries", (unsigned long long)h.nranges,
			  (unsigned long long)h.nsecond,
			  (unsigned long long)((h.nranges + h.nsecond) *
					       PART_ENTRY), n - at);
	if (!err)
		err = read_entries(&r, pp, &pp->ranges, h.nranges, 0,
				   h.kind == profile_part_kind_coverage, &at);
	if (!err)
		err = read_entries(&r, pp, &pp->second, h.nsecond,
				   h.kind == profile_part_kind_coverage, 0, &at);
	if (err < 0)
		goto fail;
	*out = pp;
	return 0;
fail:
	profile_part_free(pp);
	return err;
}
