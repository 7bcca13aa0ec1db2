/* Program images (internal): what image.c offers image_elf.c.
 *
 * Adding to an image is all or nothing: a caller takes a mark before it
 * maps anything and rolls back to it on error, so a failed image_add_*()
 * leaves the image as it was.
 */
#ifndef ETMKIT_IMAGE_INTERNAL_H
#define ETMKIT_IMAGE_INTERNAL_H

#include <stdarg.h>

#include "etmkit/image.h"
#include "common/text.h"

#if defined(__GNUC__) || defined(__clang__)
#define ETMKIT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define ETMKIT_PRINTF(f, a)
#endif

/* A file opened for mapping: a regular file, open read-only. */
struct img_file {
	int fd;
	uint64_t size;
	const char *path;
};

/* How far an image was built, to roll back to. */
struct img_mark {
	size_t nregions, nmaps;
};

/* Fill @d (may be NULL) and return @err (a negated etmkit_error). */
int img_fail(struct image_diag *d, int err, const char *path,
	     const char *fmt, ...) ETMKIT_PRINTF(4, 5);
void img_diag_clear(struct image_diag *d);

/* Open @path read-only and check it is a regular file. Returns 0 or
 * -etmkit_err_io (@d says why); img_file_close() undoes it. */
int img_file_open(struct img_file *f, const char *path, struct image_diag *d);
void img_file_close(struct img_file *f);

void img_mark(const struct image *img, struct img_mark *m);
void img_rollback(struct image *img, const struct img_mark *m);

/* Map bytes [@offset, @offset + @length) of @f (checked by the caller)
 * until the image is freed. Sets *@bytes to the first one and *@path to
 * the image's copy of the file name, for regions. */
int img_map(struct image *img, const struct img_file *f, uint64_t offset,
	    uint64_t length, const uint8_t **bytes, const char **path,
	    struct image_diag *d);

/* Add a region of @length bytes at @addr served from @bytes. @path names
 * the file (NULL for a buffer) for listings and messages. Returns 0,
 * -etmkit_err_format (empty, or runs past 2^64), -etmkit_err_nomem. */
int img_add_region(struct image *img, uint64_t addr, uint64_t length,
		   uint8_t spaces, const uint8_t *bytes, const char *path,
		   uint64_t offset, struct image_diag *d);

/* image_region_find(), and the addresses [*@first, *@last] around @addr
 * over which that region is the one found (for @space). */
const struct image_region *img_region_span(const struct image *img,
					   uint8_t space, uint64_t addr,
					   uint64_t *first, uint64_t *last);

struct elf_file;
struct elf_symbol;

/* elf_file_offset_to_vaddr(), and the file offsets [*@first, *@last]
 * around @off that the same segment translates, or, when none holds @off
 * (-etmkit_err_not_found), that no segment holds (elf_file.c). */
int elf_file_offset_span(const struct elf_file *ef, uint64_t off,
			 uint64_t *vaddr, uint64_t *first, uint64_t *last);
/* elf_file_symbol(), and the addresses [*@first, *@last] around @vaddr
 * with the same answer (a symbol, or NULL over a gap between symbols). */
const struct elf_symbol *elf_file_symbol_span(const struct elf_file *ef,
					      uint64_t vaddr, uint64_t *first,
					      uint64_t *last);

#endif /* ETMKIT_IMAGE_INTERNAL_H */
