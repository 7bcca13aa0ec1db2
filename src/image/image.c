/* etmkit: program images (include/etmkit/image.h): regions, raw files,
 * buffers, snapshot dumps, reads. ELF files are in image_elf.c.
 *
 * An image is two arrays: the regions, in the order they were added, and
 * the file mappings they read from (one per image_add_file() or
 * image_add_elf() call; buffers have none). Nothing is copied: a region
 * points into a read-only mapping or the caller's buffer.
 *
 * Lookup: a read walks the regions from the last added to the first. The
 * first region that serves the address wins (later regions win, as with
 * mmap); the later regions seen on the way that start above the address
 * cut its run short, since they win from their start on. That is O(n) per
 * contiguous run in the number of regions, with a small constant (a few
 * compares per region, no allocation), and correct for any overlap. The
 * flow decoder reads once per block and caches the block, so a sorted
 * index is not worth its complexity yet.
 */
#define _POSIX_C_SOURCE 200809L

#include "image/image_internal.h"
#include "common/text.h"
#include "common/errno_text.h"
#include "common/vec.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Metadata is bounded: an ELF file can list a region per 32 bytes of
 * program headers, and reads walk the regions. */
enum { IMG_MAX_REGIONS = 1 << 20 };

struct img_region {
	struct image_region pub;
	uint64_t last;         /* last address served: regions may end at 2^64 */
	const uint8_t *bytes;  /* pub.length bytes */
};

/* One mmap(), released by image_free(). */
struct img_mapping {
	void *base;
	size_t length;
	char *path;            /* regions point to it */
};

struct image {
	struct img_region *regions;
	size_t nregions, cap_regions;
	struct img_mapping *maps;
	size_t nmaps, cap_maps;
};

/* ---- Diagnostics --------------------------------------------------------- */

void img_diag_clear(struct image_diag *d)
{
	if (!d)
		return;
	d->path[0] = '\0';
	d->message[0] = '\0';
}

int img_fail(struct image_diag *d, int err, const char *path,
	     const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return err;
	copy_str(d->path, sizeof(d->path), path ? path : "");
	va_start(ap, fmt);
	vsnprintf(d->message, sizeof(d->message), fmt, ap);
	va_end(ap);
	return err;
}

/* ---- Files and mappings -------------------------------------------------- */

int img_file_open(struct img_file *f, const char *path, struct image_diag *d)
{
	struct stat st;
	int e;

	f->fd = -1;
	f->size = 0;
	f->path = path;
	/* Non-blocking, then checked on the open file: a FIFO would block
	 * open() otherwise, and a stat() before open() could be raced. */
	f->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (f->fd < 0)
		return img_fail(d, -etmkit_err_io, path, "cannot open: %s",
				etmkit_errno_text(errno));
	if (fstat(f->fd, &st) != 0) {
		e = errno;
		img_file_close(f);
		return img_fail(d, -etmkit_err_io, path, "cannot read: %s",
				etmkit_errno_text(e));
	}
	if (!S_ISREG(st.st_mode)) {
		img_file_close(f);
		return img_fail(d, -etmkit_err_io, path, "cannot read: %s",
				S_ISDIR(st.st_mode)
					? "is a directory, not a file"
					: "not a regular file");
	}
	f->size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
	return 0;
}

void img_file_close(struct img_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

int img_map(struct image *img, const struct img_file *f, uint64_t offset,
	    uint64_t length, const uint8_t **bytes, const char **path,
	    struct image_diag *d)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t start, span;
	struct img_mapping *m;
	void *base;

	/* mmap() wants a page-aligned file offset: map from the page that
	 * holds @offset. */
	start = page > 0 ? offset - offset % (uint64_t)page : offset;
	span = offset - start + length;
	if (span < length || span > SIZE_MAX)
		return img_fail(d, -etmkit_err_nomem, f->path,
				"0x%" PRIx64 " bytes are too many to map",
				length);
	m = vec_room(img->maps, img->nmaps, &img->cap_maps, sizeof(*m));
	if (!m)
		return img_fail(d, -etmkit_err_nomem, f->path, "out of memory");
	img->maps = m;
	m += img->nmaps;
	m->path = malloc(strlen(f->path) + 1);
	if (!m->path)
		return img_fail(d, -etmkit_err_nomem, f->path, "out of memory");
	strcpy(m->path, f->path);
	base = mmap(NULL, (size_t)span, PROT_READ, MAP_PRIVATE, f->fd,
		    (off_t)start);
	if (base == MAP_FAILED) {
		int e = errno;

		free(m->path);
		return img_fail(d, e == ENOMEM ? -etmkit_err_nomem
					       : -etmkit_err_io,
				f->path, "cannot map: %s", etmkit_errno_text(e));
	}
	m->base = base;
	m->length = (size_t)span;
	img->nmaps++;
	*bytes = (const uint8_t *)base + (offset - start);
	*path = m->path;
	return 0;
}

void img_mark(const struct image *img, struct img_mark *m)
{
	m->nregions = img->nregions;
	m->nmaps = img->nmaps;
}

void img_rollback(struct image *img, const struct img_mark *m)
{
	while (img->nmaps > m->nmaps) {
		struct img_mapping *map = &img->maps[--img->nmaps];

		munmap(map->base, map->length);
		free(map->path);
	}
	img->nregions = m->nregions;
}

int img_add_region(struct image *img, uint64_t addr, uint64_t length,
		   uint8_t spaces, const uint8_t *bytes, const char *path,
		   uint64_t offset, struct image_diag *d)
{
	struct img_region *r;

	if (length == 0)
		return img_fail(d, -etmkit_err_format, path,
				"empty region at 0x%" PRIx64, addr);
	if (addr > UINT64_MAX - (length - 1))
		return img_fail(d, -etmkit_err_format, path,
				"0x%" PRIx64 " bytes at 0x%" PRIx64
				" run past the top of the 64-bit address space",
				length, addr);
	if (img->nregions >= IMG_MAX_REGIONS)
		return img_fail(d, -etmkit_err_nomem, path,
				"more than %d regions in one image",
				IMG_MAX_REGIONS);
	r = vec_room(img->regions, img->nregions, &img->cap_regions,
		     sizeof(*r));
	if (!r)
		return img_fail(d, -etmkit_err_nomem, path, "out of memory");
	img->regions = r;
	r += img->nregions++;
	r->pub.addr = addr;
	r->pub.length = length;
	r->pub.spaces = spaces ? spaces : IMAGE_SPACE_ANY;
	r->pub.path = path;
	r->pub.offset = offset;
	r->last = addr + (length - 1);
	r->bytes = bytes;
	return 0;
}

/* ---- Memory spaces ------------------------------------------------------- */

int image_space_parse(const char *name, uint8_t *mask)
{
	/* The names OpenCSD's snapshot reader gives [dump] space= (its
	 * decoder/tests/snapshot_parser_lib/source/ss_to_dcdtree.cpp,
	 * space_map), the older H, P, NP and SP included. OpenCSD compares
	 * case-sensitively and reads an unknown name as ANY; here case does
	 * not matter and an unknown name is an error, so that a typo does not
	 * silently widen a dump to every space. */
	static const struct {
		const char *name;
		uint8_t mask;
	} spaces[] = {
		{ "EL1S", IMAGE_SPACE_EL1S }, { "EL1N", IMAGE_SPACE_EL1N },
		{ "EL1R", IMAGE_SPACE_EL1R }, { "EL2S", IMAGE_SPACE_EL2S },
		{ "EL2", IMAGE_SPACE_EL2 },   { "EL2N", IMAGE_SPACE_EL2 },
		{ "EL2R", IMAGE_SPACE_EL2R }, { "EL3", IMAGE_SPACE_EL3 },
		{ "ROOT", IMAGE_SPACE_ROOT }, { "S", IMAGE_SPACE_S },
		{ "N", IMAGE_SPACE_N },       { "R", IMAGE_SPACE_R },
		{ "ANY", IMAGE_SPACE_ANY },   { "H", IMAGE_SPACE_EL2 },
		{ "P", IMAGE_SPACE_EL1N },    { "NP", IMAGE_SPACE_EL1N },
		{ "SP", IMAGE_SPACE_EL1S },
	};
	size_t i;

	if (!name || !mask)
		return -etmkit_err_invalid;
	for (i = 0; i < sizeof(spaces) / sizeof(spaces[0]); i++) {
		if (ascii_casecmp(name, spaces[i].name) == 0) {
			*mask = spaces[i].mask;
			return 0;
		}
	}
	return -etmkit_err_format;
}

/* ---- Building ------------------------------------------------------------ */

int image_alloc(struct image **img)
{
	if (!img)
		return -etmkit_err_invalid;
	*img = calloc(1, sizeof(**img));
	return *img ? 0 : -etmkit_err_nomem;
}

void image_free(struct image *img)
{
	struct img_mark none = { 0, 0 };

	if (!img)
		return;
	img_rollback(img, &none);
	free(img->maps);
	free(img->regions);
	free(img);
}

/* Check @offset and *@length (0: the rest) against the file's size. */
static int file_range(const struct img_file *f, uint64_t offset,
		      uint64_t *length, struct image_diag *d)
{
	if (offset > f->size)
		return img_fail(d, -etmkit_err_format, f->path,
				"offset 0x%" PRIx64 " is beyond the end of the "
				"file (%" PRIu64 " bytes)",
				offset, f->size);
	if (*length == 0)
		*length = f->size - offset;
	else if (*length > f->size - offset)
		return img_fail(d, -etmkit_err_format, f->path,
				"0x%" PRIx64 " bytes from offset 0x%" PRIx64
				" run past the end of the file (%" PRIu64
				" bytes)",
				*length, offset, f->size);
	if (*length == 0)
		return img_fail(d, -etmkit_err_format, f->path,
				"empty region: no bytes from offset 0x%" PRIx64
				" on (the file has %" PRIu64 ")",
				offset, f->size);
	return 0;
}

int image_add_file(struct image *img, const char *path, uint64_t addr,
		   uint64_t offset, uint64_t length, uint8_t spaces,
		   struct image_diag *diag)
{
	struct img_file f;
	struct img_mark m;
	const uint8_t *bytes;
	const char *copy;
	int rc;

	img_diag_clear(diag);
	if (!img || !path)
		return img_fail(diag, -etmkit_err_invalid, path,
				"NULL argument");
	rc = img_file_open(&f, path, diag);
	if (rc)
		return rc;
	img_mark(img, &m);
	rc = file_range(&f, offset, &length, diag);
	if (rc == 0)
		rc = img_map(img, &f, offset, length, &bytes, &copy, diag);
	if (rc == 0)
		rc = img_add_region(img, addr, length, spaces, bytes, copy,
				    offset, diag);
	img_file_close(&f);
	if (rc)
		img_rollback(img, &m);
	return rc;
}

int image_add_buffer(struct image *img, const void *data, size_t n,
		     uint64_t addr, uint8_t spaces)
{
	if (!img || !data || n == 0 || addr > UINT64_MAX - ((uint64_t)n - 1))
		return -etmkit_err_invalid;
	return img_add_region(img, addr, n, spaces, data, NULL, 0, NULL);
}

/* Dump @i of @dev. On error the message says which dump of which device;
 * @d is not NULL. */
static int add_dump(struct image *img, const struct snapshot_device *dev,
		    size_t i, struct image_diag *d)
{
	const struct snapshot_dump *dump = &dev->dumps[i];
	const char *name = dev->name ? dev->name : "?";
	uint8_t spaces = IMAGE_SPACE_ANY;
	size_t n;
	int rc;

	if (dump->space && image_space_parse(dump->space, &spaces) != 0)
		return img_fail(d, -etmkit_err_format, dev->path,
				"unknown memory space \"%.48s\" in dump %zu of "
				"device %s",
				dump->space, i + 1, name);
	if (!dump->file)
		return img_fail(d, -etmkit_err_invalid, dev->path,
				"dump %zu of device %s names no file", i + 1,
				name);
	/* An explicit length 0 maps the rest of the file from the offset, as
	 * no length does. OpenCSD's file accessor (TrcMemAccessorFile::
	 * initAccessor, decoder/source/mem_acc/trc_mem_acc_file.cpp) maps
	 * the whole file for length 0 at offset 0, and refuses length 0 at
	 * another offset; here that maps the rest too. */
	rc = image_add_file(img, dump->file, dump->address, dump->offset,
			    dump->has_length ? dump->length : 0, spaces, d);
	if (rc == 0)
		return 0;
	n = strlen(d->message);
	snprintf(d->message + n, sizeof(d->message) - n,
		 " (dump %zu of device %s)", i + 1, name);
	return rc;
}

int image_add_snapshot_dump(struct image *img,
			    const struct snapshot_device *dev, size_t i,
			    struct image_diag *diag)
{
	struct image_diag local;

	if (!diag)
		diag = &local;
	img_diag_clear(diag);
	if (!img || !dev || i >= dev->ndumps || !dev->dumps)
		return img_fail(diag, -etmkit_err_invalid, dev ? dev->path : "",
				"NULL argument or no such dump");
	return add_dump(img, dev, i, diag);
}

int image_add_snapshot_device(struct image *img,
			      const struct snapshot_device *dev,
			      struct image_diag *diag)
{
	struct image_diag local;
	struct img_mark m;
	size_t i;
	int rc = 0;

	if (!diag)
		diag = &local;
	img_diag_clear(diag);
	if (!img || !dev || (dev->ndumps && !dev->dumps))
		return img_fail(diag, -etmkit_err_invalid, dev ? dev->path : "",
				"NULL argument");
	img_mark(img, &m);
	for (i = 0; rc == 0 && i < dev->ndumps; i++)
		rc = add_dump(img, dev, i, diag);
	if (rc)
		img_rollback(img, &m);
	return rc;
}

/* ---- Reading ------------------------------------------------------------- */

/* The region that serves @addr in @space: the last added that holds it
 * among those whose spaces share a bit with @space. Sets *@last to the
 * last address it serves before a later region takes over. */
static const struct img_region *find(const struct image *img, uint8_t space,
				     uint64_t addr, uint64_t *last)
{
	uint64_t cut = UINT64_MAX;
	size_t i = img->nregions;

	while (i-- > 0) {
		const struct img_region *r = &img->regions[i];

		if (!(r->pub.spaces & space))
			continue;
		if (r->pub.addr <= addr && addr <= r->last) {
			*last = r->last < cut ? r->last : cut;
			return r;
		}
		if (r->pub.addr > addr && r->pub.addr - 1 < cut)
			cut = r->pub.addr - 1;
	}
	return NULL;
}

size_t image_read(const struct image *img, uint8_t space, uint64_t addr,
		  void *buf, size_t n)
{
	uint8_t *out = buf;
	size_t done = 0;

	if (!img || !buf)
		return 0;
	while (done < n) {
		const struct img_region *r;
		uint64_t last;
		size_t k;

		r = find(img, space, addr, &last);
		if (!r)
			break;
		k = n - done;
		if (last - addr < (uint64_t)(k - 1))
			k = (size_t)(last - addr) + 1;
		memcpy(out + done, r->bytes + (addr - r->pub.addr), k);
		done += k;
		if (addr + (k - 1) == UINT64_MAX)
			break; /* the top of memory: nothing follows */
		addr += k;
	}
	return done;
}

size_t image_region_count(const struct image *img)
{
	return img ? img->nregions : 0;
}

const struct image_region *image_region_at(const struct image *img, size_t i)
{
	return (img && i < img->nregions) ? &img->regions[i].pub : NULL;
}

const struct image_region *img_region_span(const struct image *img,
					   uint8_t space, uint64_t addr,
					   uint64_t *first, uint64_t *last)
{
	const struct img_region *r;
	uint64_t lo;
	size_t i;

	if (!img)
		return NULL;
	r = find(img, space, addr, last);
	if (!r)
		return NULL;
	/* Regions added after r that end below @addr inside it hide its
	 * bytes there (those that start above are in *last already). */
	lo = r->pub.addr;
	for (i = (size_t)(r - img->regions) + 1; i < img->nregions; i++) {
		const struct img_region *o = &img->regions[i];

		if ((o->pub.spaces & space) && o->last < addr &&
		    o->last >= lo)
			lo = o->last + 1;
	}
	*first = lo;
	return &r->pub;
}

const struct image_region *image_region_find(const struct image *img,
					     uint8_t space, uint64_t addr)
{
	const struct img_region *r;
	uint64_t last;

	if (!img)
		return NULL;
	r = find(img, space, addr, &last);
	return r ? &r->pub : NULL;
}
