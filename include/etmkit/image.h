/* etmkit: program images.
 *
 * Layer: image (src/image/), the code the flow layer walks.
 *
 * Flow reconstruction needs the code the core executed. An image is a set
 * of memory regions, each taken from a file: a raw dump mapped at an
 * address (snapshot [dump] sections, FILE@ADDR on the command line) or the
 * loadable segments of an ELF file (read with libelf). Regions may overlap:
 * where they do, the region added last wins, as with mmap.
 *
 * Each region serves a set of memory spaces (security state and exception
 * level, IMAGE_SPACE_*). A read names the space the core was in; a region
 * serves it when the masks share a bit. Regions without a space serve all.
 *
 * Building an image (image_add_*) is not thread-safe; once built, reads
 * change nothing, so decoders on several threads may share one image.
 * Files are mapped read-only while the image lives.
 */
#ifndef ETMKIT_IMAGE_H
#define ETMKIT_IMAGE_H

#include "etmkit/common.h"
#include "etmkit/snapshot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Memory spaces ------------------------------------------------------ */

#define IMAGE_SPACE_EL1S 0x01u /* Secure EL0/EL1 (AArch32: Secure PL0/PL1) */
#define IMAGE_SPACE_EL1N 0x02u /* Non-secure EL0/EL1 */
#define IMAGE_SPACE_EL2  0x04u /* Non-secure EL2 (AArch32: Hyp mode) */
#define IMAGE_SPACE_EL3  0x08u /* EL3 (AArch32: Secure Monitor) */
#define IMAGE_SPACE_EL2S 0x10u /* Secure EL2 */
#define IMAGE_SPACE_EL1R 0x20u /* Realm EL0/EL1 */
#define IMAGE_SPACE_EL2R 0x40u /* Realm EL2 */
#define IMAGE_SPACE_ROOT 0x80u /* Root (EL3 with RME) */
#define IMAGE_SPACE_S   (IMAGE_SPACE_EL1S | IMAGE_SPACE_EL2S | IMAGE_SPACE_EL3)
#define IMAGE_SPACE_N   (IMAGE_SPACE_EL1N | IMAGE_SPACE_EL2)
#define IMAGE_SPACE_R   (IMAGE_SPACE_EL1R | IMAGE_SPACE_EL2R)
#define IMAGE_SPACE_ANY 0xffu

/* Parse a space name as snapshot files write it (OpenCSD's names),
 * case-insensitively: "EL1S", "EL1N", "EL1R", "EL2S", "EL2" (also "EL2N"),
 * "EL2R", "EL3", "ROOT", "S", "N", "R", "ANY", and the older "H" (EL2),
 * "P" and "NP" (EL1N), "SP" (EL1S). Returns 0 and sets *@mask, or
 * -etmkit_err_format for an unknown name (OpenCSD would read it as ANY),
 * -etmkit_err_invalid for NULL. */
int image_space_parse(const char *name, uint8_t *mask);

/* ---- Building ----------------------------------------------------------- */

/* Why adding to an image failed: the file concerned and the reason. */
struct image_diag {
	char path[512];
	char message[256];
};

struct image;

/* Returns 0 and sets *@img, or -etmkit_err_invalid, -etmkit_err_nomem. */
int image_alloc(struct image **img);
void image_free(struct image *img);

/* Map @length bytes of file @path, from byte @offset on, at address @addr
 * for the spaces in @spaces (0 means IMAGE_SPACE_ANY). @length 0 maps the
 * rest of the file. Returns 0; -etmkit_err_io (cannot open or read
 * @path), -etmkit_err_format (@offset or @length beyond the end of the
 * file, an empty region, or addr + length beyond 2^64),
 * -etmkit_err_nomem, -etmkit_err_invalid; then @diag (may be NULL) says
 * why. */
int image_add_file(struct image *img, const char *path, uint64_t addr,
		   uint64_t offset, uint64_t length, uint8_t spaces,
		   struct image_diag *diag);

/* Map every loadable segment (PT_LOAD with file bytes) of ELF file @path
 * at its virtual address plus @bias (modulo 2^64); bytes a segment has
 * only in memory (p_memsz beyond p_filesz, e.g. .bss) are not mapped.
 * A file without program headers (relocatable object) maps its allocated
 * sections that have file bytes (SHF_ALLOC, not SHT_NOBITS) at their
 * addresses plus @bias instead; sections that overlap are refused (an
 * unlinked object has every section at 0). 32- and 64-bit little-endian ELF
 * for Arm: e_machine EM_ARM or EM_AARCH64 (the library does not check that
 * the family fits the trace: ETMv3 traces ARMv7 and earlier, so an AArch64
 * file cannot hold code it traced; etmkit decode refuses that pair).
 * Returns 0; -etmkit_err_io, -etmkit_err_format (not an ELF file,
 * big-endian, corrupt headers, segments beyond the end of the file,
 * nothing to map), -etmkit_err_unsupported (an ELF file for another
 * machine, e.g. x86-64), -etmkit_err_nomem, -etmkit_err_invalid; then
 * @diag says why. */
int image_add_elf(struct image *img, const char *path, uint64_t bias,
		  uint8_t spaces, struct image_diag *diag);

/* Map @n bytes at @data (not copied: they must outlive the image) at
 * @addr. Returns 0, -etmkit_err_invalid (NULL, n 0, wraps past 2^64),
 * -etmkit_err_nomem. */
int image_add_buffer(struct image *img, const void *data, size_t n,
		     uint64_t addr, uint8_t spaces);

/* Map every [dump] of snapshot core device @dev: its file, offset, length
 * and space (a dump without space serves all spaces). Returns 0 or
 * image_add_file()'s errors (@diag names the dump's file), or
 * -etmkit_err_format for an unknown space name. */
int image_add_snapshot_device(struct image *img,
			      const struct snapshot_device *dev,
			      struct image_diag *diag);

/* Map dump @i (0-based) of snapshot core device @dev alone, as
 * image_add_snapshot_device() maps each: for callers that go on without a
 * dump whose file is missing. Returns as image_add_snapshot_device(), or
 * -etmkit_err_invalid for an @i out of range. */
int image_add_snapshot_dump(struct image *img,
			    const struct snapshot_device *dev, size_t i,
			    struct image_diag *diag);

/* ---- Reading ------------------------------------------------------------ */

/* Copy to @buf up to @n bytes of the image from @addr on, as seen from
 * memory space @space (one IMAGE_SPACE_* bit or a mask; a region serves
 * it when their masks share a bit). Stops at the first byte no region
 * serves (and at 2^64). Returns the number of bytes copied: 0 when no
 * region serves @addr. */
size_t image_read(const struct image *img, uint8_t space, uint64_t addr,
		  void *buf, size_t n);

/* Regions, in the order they were added, for listings. */
struct image_region {
	uint64_t addr;     /* first address */
	uint64_t length;   /* bytes */
	uint8_t spaces;    /* IMAGE_SPACE_* mask */
	const char *path;  /* the file, or NULL for image_add_buffer() */
	uint64_t offset;   /* the first byte's offset in the file */
};

size_t image_region_count(const struct image *img);
/* Region @i (0-based), or NULL when out of range. */
const struct image_region *image_region_at(const struct image *img, size_t i);

/* The region image_read() takes the byte at @addr from, as seen from
 * memory space @space (the last added that holds @addr and serves
 * @space); NULL when none does or @img is NULL. The pointer is the one
 * image_region_at() returns for it: stable while the image lives and
 * nothing is added. */
const struct image_region *image_region_find(const struct image *img,
					     uint8_t space, uint64_t addr);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_IMAGE_H */
