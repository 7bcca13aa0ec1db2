/* libFuzzer target: program images from arbitrary files.
 * Input: offset (2 bytes, little-endian), length (2), address byte A,
 * spaces (1), bias (2, signed, in 4 KiB pages), buffer delta D (2,
 * signed), then the file. The file is written to a private folder and
 * added with image_add_elf(file, bias); then with image_add_file(file,
 * address, offset, length), the address being A * 0x0101010101010101 when
 * A >= 0x80 (near the top of memory), else 16 * A above the first ELF
 * region (so that regions overlap); then the whole input with
 * image_add_buffer() at that address + D.
 * Invariants: each add either succeeds or fails with a format, io or
 * nomem error whose diag names the file and says why, adding nothing; a
 * raw file add succeeds exactly when the header says it must; regions lie
 * inside their file; and image_read() agrees, byte for byte, with a model
 * built from the regions and the file's bytes (the last region added
 * that holds the address and shares a space bit wins; a read stops at
 * the first byte none serves and at 2^64). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etmkit/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { HDR = 10, PROBE = 24, MAX_CHECKED = 8 };

static char dir[512], path[600];

/* The private folder and its file go when the process ends. */
static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

static void write_file(const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		abort();
	if (n && fwrite(p, 1, n, f) != n)
		abort();
	if (fclose(f) != 0)
		abort();
}

struct input {
	const uint8_t *data, *file;
	size_t size, fsize;
};

/* The bytes region @r maps, as the model sees them. */
static const uint8_t *region_bytes(const struct input *in,
				   const struct image_region *r)
{
	if (!r->path)
		return in->data; /* the buffer: the whole input, offset 0 */
	if (strcmp(r->path, path) != 0 || r->offset > in->fsize ||
	    r->length > in->fsize - r->offset)
		abort();
	return in->file + r->offset;
}

/* The model's byte at @addr; image_region_find() must name the region
 * it comes from. */
static int model_byte(const struct image *img, const struct input *in,
		      uint8_t space, uint64_t addr, uint8_t *out)
{
	size_t i = image_region_count(img);

	while (i-- > 0) {
		const struct image_region *r = image_region_at(img, i);

		if ((r->spaces & space) && addr >= r->addr &&
		    addr - r->addr < r->length) {
			if (image_region_find(img, space, addr) != r)
				abort();
			*out = region_bytes(in, r)[addr - r->addr];
			return 1;
		}
	}
	if (image_region_find(img, space, addr))
		abort();
	return 0;
}

static void check_read(const struct image *img, const struct input *in,
		       uint8_t space, uint64_t addr)
{
	uint8_t got[PROBE], want;
	size_t n = image_read(img, space, addr, got, PROBE), m = 0;

	while (m < PROBE && model_byte(img, in, space, addr + m, &want)) {
		if (m < n && got[m] != want)
			abort();
		m++;
		if (addr + m == 0)
			break; /* 2^64 */
	}
	if (n != m)
		abort();
}

/* Probe the first and last regions' edges in a few spaces. */
static void check_image(const struct image *img, const struct input *in)
{
	size_t n = image_region_count(img), i;

	if (image_region_at(img, n))
		abort();
	for (i = 0; i < n; i++) {
		const struct image_region *r = image_region_at(img, i);
		const uint8_t spaces[3] = { IMAGE_SPACE_ANY, r->spaces,
					    (uint8_t)(1u << (i % 8)) };

		if (!r || !r->length || !r->spaces ||
		    r->addr > UINT64_MAX - (r->length - 1))
			abort();
		(void)region_bytes(in, r);
		if (i >= MAX_CHECKED / 2 && i + MAX_CHECKED / 2 < n)
			continue;
		for (int s = 0; s < 3; s++) {
			check_read(img, in, spaces[s], r->addr - 1);
			check_read(img, in, spaces[s], r->addr);
			check_read(img, in, spaces[s],
				   r->addr + (r->length - 1) - PROBE / 2);
		}
	}
}

/* A failed add names the file, says why, and adds nothing. */
static void check_failed(const struct image *img, int rc, size_t before,
			 const struct image_diag *d)
{
	if (rc != -etmkit_err_format && rc != -etmkit_err_io &&
	    rc != -etmkit_err_nomem && rc != -etmkit_err_unsupported)
		abort();
	if (strcmp(d->path, path) != 0 || !d->message[0])
		abort();
	if (image_region_count(img) != before)
		abort();
}

static void add_elf(struct image *img, const struct input *in, uint64_t bias,
		    uint8_t spaces)
{
	struct image_diag d;
	int rc;

	memset(&d, 0x55, sizeof(d));
	rc = image_add_elf(img, path, bias, spaces, &d);
	if (rc) {
		check_failed(img, rc, 0, &d);
		return;
	}
	if (d.message[0] || image_region_count(img) == 0)
		abort();
	for (size_t i = 0; i < image_region_count(img); i++)
		if (image_region_at(img, i)->spaces !=
		    (spaces ? spaces : IMAGE_SPACE_ANY))
			abort();
	check_image(img, in);
}

static void add_file(struct image *img, const struct input *in,
		     uint64_t addr, uint64_t offset, uint64_t length,
		     uint8_t spaces)
{
	size_t before = image_region_count(img);
	uint64_t want = length ? length : in->fsize - offset;
	const struct image_region *r;
	struct image_diag d;
	int ok, rc;

	ok = offset <= in->fsize && want > 0 && want <= in->fsize - offset &&
	     addr <= UINT64_MAX - (want - 1);
	rc = image_add_file(img, path, addr, offset, length, spaces, &d);
	if (!ok) {
		if (rc != -etmkit_err_format)
			abort();
		check_failed(img, rc, before, &d);
		return;
	}
	if (rc != 0 || image_region_count(img) != before + 1)
		abort();
	r = image_region_at(img, before);
	if (r->addr != addr || r->length != want || r->offset != offset)
		abort();
	check_image(img, in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t h[HDR] = { 0 };
	struct input in;
	struct image *img;
	uint64_t addr, bias, buf_addr;
	uint8_t buf_spaces;

	if (!dir[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(dir, sizeof(dir), "%s/etmkit-fuzz-image-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir))
			abort();
		snprintf(path, sizeof(path), "%s/image.bin", dir);
		atexit(cleanup);
	}
	memcpy(h, data, size < HDR ? size : HDR);
	in.data = data;
	in.size = size;
	in.file = data + (size < HDR ? size : HDR);
	in.fsize = size - (size_t)(in.file - data);
	write_file(in.file, in.fsize);
	bias = (uint64_t)(int64_t)(int16_t)(h[6] | h[7] << 8) * 0x1000;
	if (image_alloc(&img) != 0)
		abort();
	add_elf(img, &in, bias, h[5]);
	if (h[4] >= 0x80)
		addr = h[4] * 0x0101010101010101ull;
	else
		addr = (image_region_count(img) ? image_region_at(img, 0)->addr
						: 0x8000) +
		       16u * h[4];
	add_file(img, &in, addr, h[0] | h[1] << 8, h[2] | h[3] << 8, h[5]);
	/* Spaces that overlap the file's in some bits only, or none. */
	buf_spaces = (uint8_t)(h[5] << 4 | h[5] >> 4);
	buf_addr = addr + (uint64_t)(int64_t)(int16_t)(h[8] | h[9] << 8);
	if (size && image_add_buffer(img, data, size, buf_addr, buf_spaces) == 0)
		check_image(img, &in);
	image_free(img);
	return 0;
}
