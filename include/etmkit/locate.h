/* etmkit: from an address the trace ran at to the binary it belongs to,
 * its ELF virtual address there, and the function.
 *
 * Layer: image (src/image/), used by the profile layer.
 *
 * An image (image.h) maps file bytes at run-time addresses; each region
 * remembers its file and the offset of its first byte. A locator opens
 * the ELF files behind an image's regions once (elf_file.h) and turns
 * addr -> region -> file offset (addr - region.addr + region.offset) ->
 * ELF virtual address (through the file's loadable segments) -> symbol.
 * The same path serves a snapshot or raw file with --elf, and a perf.data
 * recording whose images are built from its MMAP records (digest
 * perf-data.md 3.11: file offset = addr - start + pgoff).
 *
 *   struct locate *l;
 *   locate_alloc(&l);
 *   locate_add_image(l, img, &diag);            once per image
 *   locate_set_name(l, "/tmp/symfs/bin/prog", "/bin/prog", id, 20);
 *   struct locate_result r;
 *   if (locate_find(l, img, space, addr, &r) == 0) use r.bin, r.vaddr, r.sym
 *   locate_free(l);
 *
 * locate_find() allocates nothing; a built locator is read-only, so
 * threads may share it.
 */
#ifndef ETMKIT_LOCATE_H
#define ETMKIT_LOCATE_H

#include "etmkit/common.h"
#include "etmkit/elf_file.h"
#include "etmkit/image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A binary the locator knows: one file behind one or more regions. */
struct locate_binary {
	const char *file;          /* the local file read (a region's path) */
	const char *name;          /* as the recording names it (perf.data:
				      the recorded path), else == file */
	uint8_t build_id[20];      /* zero-padded */
	size_t build_id_size;      /* 0: unknown */
	const struct elf_file *elf; /* NULL: not an ELF file (a raw dump):
				       vaddr is then the run-time address */
};

struct locate_result {
	const struct locate_binary *bin;
	size_t bin_index;          /* locate_binary_at(l, bin_index) == bin */
	uint64_t vaddr;            /* ELF virtual address (raw dump: addr);
				      valid when vaddr_known */
	int vaddr_known;           /* 0: the file offset is in no loadable
				      segment of the ELF file (e.g. a
				      relocatable object's section other
				      than .text): no vaddr, no sym */
	uint64_t file_offset;      /* in bin->file */
	const struct elf_symbol *sym; /* the function, or NULL */
	/* Run-time addresses around addr, first <= addr <= last, over
	 * which locate_find() (same image and space) gives the same bin,
	 * sym and vaddr_known, with vaddr and file_offset moving with the
	 * address: a caller may keep the result for that range instead of
	 * asking again per instruction. */
	uint64_t first, last;
};

struct locate;

/* Returns 0 and sets *@l; -etmkit_err_invalid, -etmkit_err_nomem. */
int locate_alloc(struct locate **l);
void locate_free(struct locate *l);

/* Know the files behind every region of @img that has a path: each
 * distinct file is opened once (elf_file_open()) over all images added;
 * a file that does not start with the ELF magic is a raw dump (elf
 * NULL). Regions are remembered by the image's copy of their path:
 * @img must outlive the lookups, and regions added to it later need
 * another call (those already known are skipped). Returns 0;
 * -etmkit_err_nomem, -etmkit_err_invalid; an ELF file that cannot be read
 * is -etmkit_err_io or -etmkit_err_format with @diag (may be NULL) naming
 * it. */
int locate_add_image(struct locate *l, const struct image *img,
		     struct image_diag *diag);

/* Name binary @file (a path locate_add_image() met) as the recording
 * does: @name and its build id (@n bytes, at most 20; @id NULL or @n 0:
 * the file's own). Returns 0, -etmkit_err_not_found (no such file),
 * -etmkit_err_nomem, -etmkit_err_invalid. */
int locate_set_name(struct locate *l, const char *file, const char *name,
		    const uint8_t *id, size_t n);

/* Where @addr, read from image @img in memory space @space (as
 * image_region_find()), belongs. Returns 0 and fills @r;
 * -etmkit_err_not_found when no region of @img holds @addr, or its file
 * was not added; -etmkit_err_invalid. */
int locate_find(const struct locate *l, const struct image *img,
		uint8_t space, uint64_t addr, struct locate_result *r);

/* locate_find() without the function: @r->sym is NULL, and first..last
 * is the whole stretch over which binary and vaddr - addr stay the same
 * (the region, cut by the ELF segment), not cut at symbols. For callers
 * that need only the binary and the ELF address, once per stretch
 * (profiles). Same returns. */
int locate_find_binary(const struct locate *l, const struct image *img,
		       uint8_t space, uint64_t addr,
		       struct locate_result *r);

/* The binaries known, in the order they were met; the pointers (and
 * locate_result.bin) stay valid while the locator lives. */
size_t locate_binary_count(const struct locate *l);
const struct locate_binary *locate_binary_at(const struct locate *l,
					     size_t i);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_LOCATE_H */
