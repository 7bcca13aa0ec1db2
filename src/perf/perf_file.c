/* etmkit: perf.data file header, attr section, feature sections and the
 * walk that checks the record stream at open (include/etmkit/perf.h).
 *
 * Every offset and size read from the file is checked against the file's
 * length before use, with overflow-safe comparisons (a + b <= n is tested
 * as a <= n && b <= n - a). Tables are sized by what the file proves it
 * holds (a record is at least 8 bytes, a build id entry 36), never by a
 * count field alone.
 */
#define _DEFAULT_SOURCE /* madvise() */

#include "perf/perf_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PERF_MAGIC_LE 0x32454C4946524550ull /* "PERFILE2", digest 1.2 */
#define PERF_MAGIC_SWAPPED 0x50455246494C4532ull
#define PERF_HEADER_SIZE 104
#define PERF_HEADER_SIZE_OLD 72 /* no feature bitmap */
#define PERF_ATTR_MIN 64        /* perf_event_attr ABI 0 (digest 1.3) */
#define PERF_BUILD_ID_MIN 36    /* header 8, pid 4, id 24 (digest 1.4) */
#define PERF_AUXTRACE_HDR 48    /* digest 2.2 */

int perf_fail(struct perf_diag *d, int err, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	if (d) {
		d->offset = off;
		d->has_offset = 1;
		va_start(ap, fmt);
		vsnprintf(d->message, sizeof(d->message), fmt, ap);
		va_end(ap);
	}
	return -err;
}

/* [off, off + len) inside [0, n)? */
static int in_file(uint64_t n, uint64_t off, uint64_t len)
{
	return off <= n && len <= n - off;
}

static int read_header(struct perf_file *pf, struct perf_diag *d)
{
	struct perf_file_info *fi = &pf->info;
	const uint8_t *b = pf->buf;
	uint64_t magic;

	if (pf->n < 8)
		return perf_fail(d, etmkit_err_truncated, 0,
				 "file of %zu bytes ends inside the magic", pf->n);
	magic = perf_rd64(b);
	if (magic == PERF_MAGIC_SWAPPED)
		return perf_fail(d, etmkit_err_unsupported, 0,
				 "byte-swapped perf.data (written by a big-endian "
				 "host): not supported");
	if (memcmp(b, "PERFFILE", 8) == 0)
		return perf_fail(d, etmkit_err_unsupported, 0,
				 "legacy PERFFILE (v1) format: not supported");
	if (magic != PERF_MAGIC_LE)
		return perf_fail(d, etmkit_err_format, 0,
				 "bad magic: not a perf.data file (PERFILE2)");
	if (pf->n < 16)
		return perf_fail(d, etmkit_err_truncated, 8,
				 "file ends inside the header size");
	fi->header_size = perf_rd64(b + 8);
	if (fi->header_size == 16)
		return perf_fail(d, etmkit_err_unsupported, 8,
				 "pipe-mode perf.data (header size 16): not "
				 "supported");
	if (fi->header_size != PERF_HEADER_SIZE &&
	    fi->header_size != PERF_HEADER_SIZE_OLD)
		return perf_fail(d, etmkit_err_format, 8,
				 "header size %llu: expected 104 or 72",
				 (unsigned long long)fi->header_size);
	if (pf->n < fi->header_size)
		return perf_fail(d, etmkit_err_truncated, pf->n,
				 "file of %zu bytes ends inside the %llu-byte "
				 "header", pf->n,
				 (unsigned long long)fi->header_size);
	fi->attr_size = perf_rd64(b + 16);
	fi->attrs_offset = perf_rd64(b + 24);
	fi->attrs_size = perf_rd64(b + 32);
	fi->data_offset = perf_rd64(b + 40);
	fi->data_size = perf_rd64(b + 48);
	if (fi->header_size == PERF_HEADER_SIZE)
		memcpy(fi->features, b + 72, 32);
	/* simpleperf's own feature bits 128..133 (digest 1.4, 1.8). */
	fi->variant = (fi->features[16] & 0x3F) ? perf_variant_simpleperf
						: perf_variant_linux;
	return 0;
}

static int read_attrs(struct perf_file *pf, struct perf_diag *d)
{
	struct perf_file_info *fi = &pf->info;
	uint64_t count;

	if (fi->attr_size < PERF_ATTR_MIN + 16 || fi->attr_size > 65536)
		return perf_fail(d, etmkit_err_format, 16,
				 "attr_size %llu: expected 80 to 65536",
				 (unsigned long long)fi->attr_size);
	if (!in_file(pf->n, fi->attrs_offset, fi->attrs_size))
		return perf_fail(d, etmkit_err_truncated, 24,
				 "attr section [%llu, +%llu) runs past the end "
				 "of the file (%zu bytes)",
				 (unsigned long long)fi->attrs_offset,
				 (unsigned long long)fi->attrs_size, pf->n);
	if (fi->attrs_size % fi->attr_size)
		return perf_fail(d, etmkit_err_format, 32,
				 "attr section size %llu is not a multiple of "
				 "attr_size %llu",
				 (unsigned long long)fi->attrs_size,
				 (unsigned long long)fi->attr_size);
	count = fi->attrs_size / fi->attr_size;
	fi->attr_count = (size_t)count;
	if (!count)
		return 0;
	pf->attrs = calloc((size_t)count, sizeof(*pf->attrs));
	if (!pf->attrs)
		return perf_fail(d, etmkit_err_nomem, 24, "out of memory");
	pf->trailer_uniform = 1;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t off = fi->attrs_offset + i * fi->attr_size;
		const uint8_t *a = pf->buf + off;
		struct perf_attr *at = &pf->attrs[i];
		uint64_t idoff = off + fi->attr_size - 16;
		const uint64_t mask = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				      PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
				      PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;

		at->type = perf_rd32(a);
		at->size = perf_rd32(a + 4);
		at->config = perf_rd64(a + 8);
		at->sample_type = perf_rd64(a + 24);
		at->flags = perf_rd64(a + 40);
		at->config2 = fi->attr_size - 16 >= 72 ? perf_rd64(a + 64) : 0;
		/* simpleperf reads attr_size - 16 bytes, Linux attr.size: both
		 * put the ids descriptor last in the entry (digest 1.3). */
		at->ids_offset = perf_rd64(pf->buf + idoff);
		at->ids_size = perf_rd64(pf->buf + idoff + 8);
		if (!in_file(pf->n, at->ids_offset, at->ids_size) ||
		    at->ids_size % 8)
			return perf_fail(d, etmkit_err_format, idoff,
					 "attr %llu: id array [%llu, +%llu) is "
					 "outside the file or not whole u64s",
					 (unsigned long long)i,
					 (unsigned long long)at->ids_offset,
					 (unsigned long long)at->ids_size);
		if (i && ((at->sample_type & mask) !=
				  (pf->attrs[0].sample_type & mask) ||
			  (at->flags & PERF_ATTR_FLAG_SAMPLE_ID_ALL) !=
				  (pf->attrs[0].flags &
				   PERF_ATTR_FLAG_SAMPLE_ID_ALL)))
			pf->trailer_uniform = 0;
	}
	return 0;
}

/* The id table's order: by id, then attr, so on equal ids the first attr
 * wins, as perf's evlist keeps the first (a total order: qsort() needs
 * no stability). */
static int id_cmp(const void *pa, const void *pb)
{
	const struct perf_id_ent *x = pa, *y = pb;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->attr > y->attr) - (x->attr < y->attr);
}

/* With attrs that lay the trailer out differently, records name their
 * attr by id (digest 1.6): index every attr's ids once. Their count is
 * bounded by the file (8 bytes each, checked in read_attrs). */
static int index_ids(struct perf_file *pf, struct perf_diag *d)
{
	size_t n = 0, k = 0;

	if (pf->trailer_uniform)
		return 0;
	for (size_t i = 0; i < pf->info.attr_count; i++)
		n += (size_t)(pf->attrs[i].ids_size / 8);
	if (!n)
		return 0;
	/* Arrays may not overlap: more ids than u64s in the file means they
	 * do, and the table must stay bounded by the file size. */
	if (n > pf->n / 8)
		return perf_fail(d, etmkit_err_format, pf->info.attrs_offset,
				 "the attrs' id arrays hold %zu ids in a file of "
				 "%zu bytes: they overlap", n, pf->n);
	pf->ids = malloc(n * sizeof(*pf->ids));
	if (!pf->ids)
		return perf_fail(d, etmkit_err_nomem, 24, "out of memory");
	for (size_t i = 0; i < pf->info.attr_count; i++)
		for (uint64_t j = 0; j < pf->attrs[i].ids_size / 8; j++) {
			pf->ids[k].id = perf_rd64(pf->buf +
						  pf->attrs[i].ids_offset + 8 * j);
			pf->ids[k++].attr = i;
		}
	qsort(pf->ids, n, sizeof(*pf->ids), id_cmp);
	pf->nids = n;
	return 0;
}

static int read_features(struct perf_file *pf, struct perf_diag *d)
{
	struct perf_file_info *fi = &pf->info;
	uint64_t tab = fi->data_offset + fi->data_size; /* checked by caller */
	unsigned k = 0;

	for (unsigned bit = 0; bit < 256; bit++) {
		uint64_t e, off, size;

		if (!(fi->features[bit / 8] >> (bit % 8) & 1))
			continue;
		e = tab + 16ull * k++;
		if (!in_file(pf->n, e, 16))
			return perf_fail(d, etmkit_err_truncated, e,
					 "feature table entry of bit %u runs past "
					 "the end of the file", bit);
		off = perf_rd64(pf->buf + e);
		size = perf_rd64(pf->buf + e + 8);
		if (!in_file(pf->n, off, size))
			return perf_fail(d, etmkit_err_format, e,
					 "feature %u section [%llu, +%llu) is "
					 "outside the file", bit,
					 (unsigned long long)off,
					 (unsigned long long)size);
		pf->feat_off[bit] = off;
		pf->feat_size[bit] = size;
	}
	return 0;
}

/* BUILD_ID feature (digest 1.4 bit 2): records of type 0 (Linux) or 67
 * (simpleperf); simpleperf sets no size byte and zero-pads the id. */
static int read_build_ids(struct perf_file *pf, struct perf_diag *d)
{
	uint64_t off, end;

	if (!perf_file_has_feature(pf, PERF_FEAT_BUILD_ID))
		return 0;
	off = pf->feat_off[PERF_FEAT_BUILD_ID];
	end = off + pf->feat_size[PERF_FEAT_BUILD_ID];
	pf->bids = calloc((size_t)((end - off) / PERF_BUILD_ID_MIN) + 1,
			  sizeof(*pf->bids));
	if (!pf->bids)
		return perf_fail(d, etmkit_err_nomem, off, "out of memory");
	while (off < end) {
		const uint8_t *r = pf->buf + off;
		struct perf_build_id *b = &pf->bids[pf->nbids];
		uint16_t size;

		if (end - off < 8)
			return perf_fail(d, etmkit_err_format, off,
					 "build id entry header runs past its "
					 "section");
		size = perf_rd16(r + 6);
		if (size < PERF_BUILD_ID_MIN || size > end - off)
			return perf_fail(d, etmkit_err_format, off,
					 "build id entry of size %u: expected 36 "
					 "to %llu", size,
					 (unsigned long long)(end - off));
		if (!memchr(r + PERF_BUILD_ID_MIN, 0, size - PERF_BUILD_ID_MIN))
			return perf_fail(d, etmkit_err_format, off,
					 "build id entry: file name not "
					 "terminated within its %u bytes", size);
		b->offset = off;
		b->misc = perf_rd16(r + 4);
		b->pid = (int32_t)perf_rd32(r + 8);
		memcpy(b->id, r + 12, 20);
		b->size = (b->misc & 0x8000) && r[32] <= 20 ? r[32] : 20;
		b->path = (const char *)r + PERF_BUILD_ID_MIN;
		pf->nbids++;
		off += size;
	}
	return 0;
}

static int add_auxtrace(struct perf_file *pf, uint64_t pos,
			struct perf_diag *d)
{
	const uint8_t *r = pf->buf + pos;
	struct perf_auxtrace_ent *e;

	if (pf->nat == pf->cap_at) {
		size_t cap = pf->cap_at ? 2 * pf->cap_at : 16;
		void *p = realloc(pf->at, cap * sizeof(*pf->at));

		if (!p)
			return perf_fail(d, etmkit_err_nomem, pos,
					 "out of memory");
		pf->at = p;
		pf->cap_at = cap;
	}
	e = &pf->at[pf->nat++];
	e->rec_offset = pos;
	e->data_offset = pos + PERF_AUXTRACE_HDR;
	e->size = perf_rd64(r + 8);
	e->offset = perf_rd64(r + 16);
	e->idx = perf_rd32(r + 32);
	e->tid = perf_rd32(r + 36);
	e->cpu = perf_rd32(r + 40);
	return 0;
}

int perf_rec_header(const struct perf_file *pf, uint64_t pos, uint64_t end,
		    uint32_t *type, uint16_t *misc, uint32_t *size,
		    uint64_t *next, struct perf_diag *d)
{
	const uint8_t *r = pf->buf + pos;

	if (end - pos < 8)
		return perf_fail(d, etmkit_err_truncated, pos,
				 "record header runs past the end of the data "
				 "section (%llu bytes left)",
				 (unsigned long long)(end - pos));
	*type = perf_rd32(r);
	*misc = perf_rd16(r + 4);
	if (*type >= 32768) /* simpleperf {u32 type, u16 hi, u16 lo} (2.3) */
		*size = (uint32_t)perf_rd16(r + 4) << 16 | perf_rd16(r + 6);
	else
		*size = perf_rd16(r + 6);
	if (*size < 8)
		return perf_fail(d, etmkit_err_format, pos,
				 "record of type %u has size %u: below 8",
				 *type, *size);
	if (*size > end - pos)
		return perf_fail(d, etmkit_err_truncated, pos,
				 "record of type %u and size %u runs past the "
				 "end of the data section (%llu bytes left)",
				 *type, *size, (unsigned long long)(end - pos));
	*next = pos + *size;
	if (*type == perf_rec_auxtrace) {
		uint64_t psize;

		if (*size < PERF_AUXTRACE_HDR)
			return perf_fail(d, etmkit_err_format, pos,
					 "AUXTRACE record of size %u: below 48",
					 *size);
		/* header.size covers the header only; the payload follows
		 * (digest 1.5). */
		psize = perf_rd64(r + 8);
		if (psize > end - *next)
			return perf_fail(d, etmkit_err_truncated, pos,
					 "AUXTRACE payload of %llu bytes runs "
					 "past the end of the data section "
					 "(%llu bytes left)",
					 (unsigned long long)psize,
					 (unsigned long long)(end - *next));
		*next += psize;
	}
	return 0;
}

/* Walk every record once: sizes inside the data section, AUXTRACE
 * payloads listed, the first cs_etm AUXTRACE_INFO decoded. */
static int walk_records(struct perf_file *pf, struct perf_diag *d)
{
	uint64_t pos = pf->info.data_offset;
	uint64_t end = pos + pf->info.data_size;
	uint64_t kept = 0;
	size_t hw_ids = 0;
	int err;

	while (pos < end) {
		uint32_t type, size;
		uint16_t misc;
		uint64_t next;

		perf_pages_passed(pf, &kept, pos, 0);
		err = perf_rec_header(pf, pos, end, &type, &misc, &size, &next,
				      d);
		if (err)
			return err;
		pf->info.record_count++;
		hw_ids += type == perf_rec_aux_output_hw_id;
		if (type == perf_rec_auxtrace) {
			err = add_auxtrace(pf, pos, d);
			if (err)
				return err;
		} else if (type == perf_rec_auxtrace_info && !pf->has_cs &&
			   size >= 16 && perf_rd32(pf->buf + pos + 8) == 3) {
			err = perf_cs_etm_parse(pf, pos, size, d);
			if (err)
				return err;
		}
		pos = next;
	}
	perf_pages_passed(pf, &kept, end, 1);
	perf_aux_index_build(pf);
	/* A second pass only when there are HW_ID records to apply. */
	if (pf->has_cs && hw_ids)
		return perf_cs_etm_apply_hw_ids(pf, d);
	return 0;
}

static int open_common(struct perf_file *pf, struct perf_diag *d)
{
	struct perf_file_info *fi = &pf->info;
	int err;

	err = read_header(pf, d);
	if (!err)
		err = read_attrs(pf, d);
	if (!err)
		err = index_ids(pf, d);
	if (err)
		return err;
	if (!in_file(pf->n, fi->data_offset, fi->data_size))
		return perf_fail(d, etmkit_err_truncated, 40,
				 "data section [%llu, +%llu) runs past the end "
				 "of the file (%zu bytes)",
				 (unsigned long long)fi->data_offset,
				 (unsigned long long)fi->data_size, pf->n);
	/* Records first: a wrong data size is reported as such, not as the
	 * feature table it displaces. */
	err = walk_records(pf, d);
	if (!err)
		err = read_features(pf, d);
	if (!err)
		err = read_build_ids(pf, d);
	/* What was read here is in the tables, or pointed to in the file
	 * (pages that fault back in): the pages go back (perf_pages.c). */
	perf_pages_done(pf, 0, pf->n);
	return err;
}

/* Open the @n bytes at @buf, which are @map (the file mapped, to unmap)
 * or @owned (read, to free) or neither (the caller's); on failure @map and
 * @owned are given back too. */
static int open_bytes(struct perf_file **out, const uint8_t *buf, size_t n,
		      void *map, uint8_t *owned, struct perf_diag *d)
{
	struct perf_file *pf = calloc(1, sizeof(*pf));
	int err;

	if (!pf) {
		if (map)
			munmap(map, n);
		free(owned);
		return -etmkit_err_nomem;
	}
	pf->buf = buf ? buf : (const uint8_t *)"";
	pf->n = n;
	pf->map = map;
	pf->map_size = map ? n : 0;
	pf->owned = owned;
	err = open_common(pf, d);
	if (err) {
		perf_file_free(pf);
		return err;
	}
	*out = pf;
	return 0;
}

int perf_file_open_buffer(struct perf_file **out, const uint8_t *buf, size_t n,
			  struct perf_diag *d)
{
	if (d)
		memset(d, 0, sizeof(*d));
	if (!out)
		return -etmkit_err_invalid;
	*out = NULL;
	if (!buf && n)
		return -etmkit_err_invalid;
	return open_bytes(out, buf, n, NULL, NULL, d);
}

/* Read all of @f into a buffer grown as needed (a pipe, or a file that
 * cannot be mapped). Returns 0 with *@data (to free) and *@n. */
static int read_all(FILE *f, uint8_t **data, size_t *n)
{
	size_t cap = 0;

	*data = NULL;
	*n = 0;
	for (;;) {
		size_t got;

		if (*n == cap) {
			size_t ncap = cap ? 2 * cap : 65536;
			uint8_t *p = ncap > cap ? realloc(*data, ncap) : NULL;

			if (!p) {
				free(*data);
				*data = NULL;
				return -etmkit_err_nomem;
			}
			*data = p;
			cap = ncap;
		}
		got = fread(*data + *n, 1, cap - *n, f);
		*n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(*data);
		*data = NULL;
		return -etmkit_err_io;
	}
	return 0;
}

/* Map regular file @fd of @size bytes read-only: the pages come from the
 * page cache as they are read, and the passes over the records give back
 * those they are done with (perf_pages.c), so memory does not grow with
 * the trace. NULL when it cannot be mapped (the caller reads it instead). */
static void *map_file(int fd, size_t size)
{
	void *p;

	if (!size)
		return NULL;
	p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, size, MADV_SEQUENTIAL);
	return p;
}

int perf_file_open(struct perf_file **out, const char *path,
		   struct perf_diag *d)
{
	uint8_t *data = NULL;
	void *map = NULL;
	size_t n = 0;
	struct stat st;
	FILE *f;
	int err;

	if (d)
		memset(d, 0, sizeof(*d));
	if (!out || !path)
		return -etmkit_err_invalid;
	*out = NULL;
	f = fopen(path, "rb");
	if (!f) {
		if (d)
			snprintf(d->message, sizeof(d->message),
				 "cannot open %s: %s", path, strerror(errno));
		return -etmkit_err_io;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size <= SIZE_MAX) {
		n = (size_t)st.st_size;
		map = map_file(fileno(f), n);
	}
	err = map ? 0 : read_all(f, &data, &n);
	fclose(f);
	if (err) {
		if (d && err == -etmkit_err_io)
			snprintf(d->message, sizeof(d->message),
				 "cannot read %s", path);
		return err;
	}
	return open_bytes(out, map ? map : data, n, map, data, d);
}

void perf_file_free(struct perf_file *pf)
{
	if (!pf)
		return;
	free(pf->owned);
	if (pf->map)
		munmap(pf->map, pf->map_size);
	free(pf->attrs);
	free(pf->ids);
	free(pf->bids);
	free(pf->at);
	free(pf->cpus);
	free(pf);
}

const struct perf_file_info *perf_file_info(const struct perf_file *pf)
{
	return pf ? &pf->info : NULL;
}

const uint8_t *perf_file_bytes(const struct perf_file *pf, size_t *n)
{
	if (n)
		*n = pf ? pf->n : 0;
	return pf ? pf->buf : NULL;
}

int perf_file_has_feature(const struct perf_file *pf, unsigned bit)
{
	return pf && bit < 256 && (pf->info.features[bit / 8] >> (bit % 8) & 1);
}

int perf_file_feature(const struct perf_file *pf, unsigned bit,
		      uint64_t *offset, uint64_t *size)
{
	if (!pf || !offset || !size)
		return -etmkit_err_invalid;
	if (!perf_file_has_feature(pf, bit))
		return -etmkit_err_not_found;
	*offset = pf->feat_off[bit];
	*size = pf->feat_size[bit];
	return 0;
}

int perf_file_attr(const struct perf_file *pf, size_t i, struct perf_attr *out)
{
	if (!pf || !out)
		return -etmkit_err_invalid;
	if (i >= pf->info.attr_count)
		return -etmkit_err_not_found;
	*out = pf->attrs[i];
	return 0;
}

size_t perf_file_build_id_count(const struct perf_file *pf)
{
	return pf ? pf->nbids : 0;
}

int perf_file_build_id(const struct perf_file *pf, size_t i,
		       struct perf_build_id *out)
{
	if (!pf || !out)
		return -etmkit_err_invalid;
	if (i >= pf->nbids)
		return -etmkit_err_not_found;
	*out = pf->bids[i];
	return 0;
}
