/* Fixtures shared by the image tests (test_image.c, test_image_elf.c):
 * the pattern bytes every written file holds, a temporary folder to write
 * files in, and a check that an image reads those bytes back. Include after
 * <cmocka.h>; functions are static inline so that each test uses what it
 * needs. */
#ifndef ETMKIT_TESTS_IMAGE_FIXTURE_H
#define ETMKIT_TESTS_IMAGE_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etmkit/image.h"

/* The byte at file offset @i of every file the tests write. */
static inline uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 13 + 7 + (i >> 8));
}

static inline struct image *new_image(void)
{
	struct image *img = NULL;

	assert_int_equal(image_alloc(&img), 0);
	assert_non_null(img);
	return img;
}

/* ---- Temporary files ----------------------------------------------------- */

struct tmp {
	char dir[64];
	char path[192]; /* the last file written */
	char names[16][64];
	int n;
};

static inline void tmp_init(struct tmp *t)
{
	const char *tmp = getenv("TMPDIR");

	memset(t, 0, sizeof(*t));
	snprintf(t->dir, sizeof(t->dir), "%s/etmkit-imgXXXXXX",
		 (tmp && strlen(tmp) < 32) ? tmp : "/tmp");
	assert_non_null(mkdtemp(t->dir));
}

/* Write @n bytes to file @name; returns its path (valid until the next
 * write). */
static inline const char *tmp_write(struct tmp *t, const char *name,
				    const void *bytes, size_t n)
{
	FILE *f;

	assert_true(t->n < 16);
	snprintf(t->path, sizeof(t->path), "%s/%s", t->dir, name);
	f = fopen(t->path, "wb");
	assert_non_null(f);
	if (n)
		assert_int_equal(fwrite(bytes, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	snprintf(t->names[t->n++], sizeof(t->names[0]), "%s", name);
	return t->path;
}

static inline const char *tmp_text(struct tmp *t, const char *name,
				   const char *s)
{
	return tmp_write(t, name, s, strlen(s));
}

/* A file of @n pattern() bytes. */
static inline const char *tmp_pattern(struct tmp *t, const char *name,
				      size_t n)
{
	uint8_t *b = malloc(n ? n : 1);
	const char *path;
	size_t i;

	assert_non_null(b);
	for (i = 0; i < n; i++)
		b[i] = pattern(i);
	path = tmp_write(t, name, b, n);
	free(b);
	return path;
}

/* Also removes a folder or FIFO made under the name. */
static inline void tmp_remove(struct tmp *t)
{
	char path[192];
	int i;

	for (i = 0; i < t->n; i++) {
		snprintf(path, sizeof(path), "%s/%s", t->dir, t->names[i]);
		if (unlink(path) != 0)
			rmdir(path);
	}
	rmdir(t->dir);
}

/* Check that reading @n bytes at @addr in @space gives pattern() bytes
 * from file offset @offset on. */
static inline void check_pattern(const struct image *img, uint8_t space,
				 uint64_t addr, size_t n, uint64_t offset)
{
	uint8_t buf[512];
	size_t i;

	assert_true(n <= sizeof(buf));
	assert_int_equal(image_read(img, space, addr, buf, n), n);
	for (i = 0; i < n; i++)
		if (buf[i] != pattern(offset + i))
			fail_msg("byte %zu at 0x%llx: 0x%02x, expected 0x%02x",
				 i, (unsigned long long)addr, buf[i],
				 pattern(offset + i));
}

#endif
