/* Unit tests of program images (src/image/).
 *
 * - raw files and buffers: ranges, errors, the top of memory;
 * - overlap precedence, memory spaces, reads across regions and holes,
 *   checked by hand and against a byte-by-byte model on random images;
 * - snapshot dumps: the real TC2 and PTM captures from ../shared, and small
 *   snapshots written to a temporary folder.
 *
 * ELF files built byte by byte are tested in test_image_elf.c; the
 * fixtures both use are in image_fixture.h.
 *
 * Without ../shared the tests that need it are skipped (and the program
 * exits 77, which ctest reports as skipped), unless CI=true, when they
 * fail.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "unit/test_util.h"
#include "unit/image_fixture.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etmkit/image.h"
#include "etmkit/snapshot.h"

#define TC2_DIR ETMKIT_SHARED_DIR "/testdata/etmv3/TC2"
#define PTM_DIR ETMKIT_SHARED_DIR "/testdata/ptm/tc2-ptm-rstk-t32"

/* ---- Helpers ------------------------------------------------------------- */

static int shared_missing(void)
{
	struct stat st;

	return stat(TC2_DIR "/snapshot.ini", &st) != 0 ||
	       stat(PTM_DIR "/snapshot.ini", &st) != 0;
}

/* Skip a test that needs ../shared when it is absent; fail under CI. */
static void need_shared(void)
{
	test_need(shared_missing(), ETMKIT_SHARED_DIR);
}

/* ---- Memory space names -------------------------------------------------- */

static void test_space_parse(void **state)
{
	/* OpenCSD's snapshot names and the values of its
	 * ocsd_mem_space_acc_t (ocsd_if_types.h: EL1S 0x1, EL1N 0x2, EL2 0x4,
	 * EL3 0x8, EL2S 0x10, EL1R 0x20, EL2R 0x40, ROOT 0x80; S = EL1S|EL2S|
	 * EL3, N = EL1N|EL2, R = EL1R|EL2R), written out, not taken from the
	 * library's own table; lower case as well. */
	static const struct {
		const char *name;
		uint8_t mask;
	} ok[] = {
		{ "EL1S", 0x01 }, { "EL1N", 0x02 }, { "EL1R", 0x20 },
		{ "EL2S", 0x10 }, { "EL2", 0x04 },  { "EL2N", 0x04 },
		{ "EL2R", 0x40 }, { "EL3", 0x08 },  { "ROOT", 0x80 },
		{ "S", 0x19 },    { "N", 0x06 },    { "R", 0x60 },
		{ "ANY", 0xff },  { "H", 0x04 },    { "P", 0x02 },
		{ "NP", 0x02 },   { "SP", 0x01 },   { "el1s", 0x01 },
		{ "s", 0x19 },    { "any", 0xff },  { "el2n", 0x04 },
		{ "Root", 0x80 }, { "np", 0x02 },
	};
	static const char *const bad[] = { "", "EL4", "S ", " S", "EL1",
					   "secure", "ANYX", "EL1SN", "REALM",
					   "NS" };
	uint8_t mask;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		mask = 0;
		assert_int_equal(image_space_parse(ok[i].name, &mask), 0);
		if (mask != ok[i].mask)
			fail_msg("%s: 0x%02x, expected 0x%02x", ok[i].name,
				 mask, ok[i].mask);
	}
	assert_int_equal(IMAGE_SPACE_S, 0x19);
	assert_int_equal(IMAGE_SPACE_N, 0x06);
	assert_int_equal(IMAGE_SPACE_R, 0x60);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mask = 0x5a;
		assert_int_equal(image_space_parse(bad[i], &mask),
				 -etmkit_err_format);
		assert_int_equal(mask, 0x5a);
	}
	assert_int_equal(image_space_parse(NULL, &mask), -etmkit_err_invalid);
	assert_int_equal(image_space_parse("S", NULL), -etmkit_err_invalid);
}

/* ---- Arguments ----------------------------------------------------------- */

static void test_null_arguments(void **state)
{
	static const uint8_t b[4] = { 1, 2, 3, 4 };
	struct image_diag d;
	struct image *img;
	uint8_t out[4];

	(void)state;
	assert_int_equal(image_alloc(NULL), -etmkit_err_invalid);
	image_free(NULL);
	img = new_image();
	assert_int_equal(image_add_file(NULL, "x", 0, 0, 0, 0, &d),
			 -etmkit_err_invalid);
	assert_true(d.message[0] != '\0');
	assert_int_equal(image_add_file(img, NULL, 0, 0, 0, 0, NULL),
			 -etmkit_err_invalid);
	assert_int_equal(image_add_elf(img, NULL, 0, 0, &d),
			 -etmkit_err_invalid);
	assert_int_equal(image_add_elf(NULL, "x", 0, 0, NULL),
			 -etmkit_err_invalid);
	assert_int_equal(image_add_snapshot_device(img, NULL, &d),
			 -etmkit_err_invalid);
	assert_int_equal(image_add_buffer(NULL, b, 4, 0, 0),
			 -etmkit_err_invalid);
	assert_int_equal(image_add_buffer(img, NULL, 4, 0, 0),
			 -etmkit_err_invalid);
	assert_int_equal(image_add_buffer(img, b, 0, 0, 0),
			 -etmkit_err_invalid);
	assert_int_equal(image_region_count(img), 0);
	assert_int_equal(image_region_count(NULL), 0);
	assert_null(image_region_at(NULL, 0));
	assert_null(image_region_at(img, 0));
	assert_int_equal(image_read(NULL, IMAGE_SPACE_ANY, 0, out, 4), 0);
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0, out, 4), 0);
	assert_int_equal(image_add_buffer(img, b, 4, 0, 0), 0);
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0, NULL, 4), 0);
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0, out, 0), 0);
	/* A read in no space at all is served by nothing. */
	assert_int_equal(image_read(img, 0, 0, out, 4), 0);
	image_free(img);
}

/* ---- Raw files ----------------------------------------------------------- */

static void test_raw_file(void **state)
{
	const struct image_region *r;
	struct image_diag d;
	struct image *img = new_image();
	struct tmp t;
	char path[192];
	uint8_t buf[64];

	(void)state;
	tmp_init(&t);
	snprintf(path, sizeof(path), "%s", tmp_pattern(&t, "raw.bin", 4096));

	/* Offset and length. */
	assert_int_equal(image_add_file(img, path, 0x1000, 0x10, 0x20, 0, &d),
			 0);
	assert_string_equal(d.message, "");
	assert_int_equal(image_region_count(img), 1);
	r = image_region_at(img, 0);
	assert_non_null(r);
	assert_int_equal(r->addr, 0x1000);
	assert_int_equal(r->length, 0x20);
	assert_int_equal(r->offset, 0x10);
	assert_int_equal(r->spaces, IMAGE_SPACE_ANY);
	assert_string_equal(r->path, path);
	check_pattern(img, IMAGE_SPACE_EL1N, 0x1000, 0x20, 0x10);
	check_pattern(img, IMAGE_SPACE_EL3, 0x1008, 0x18, 0x18);
	/* The read stops at the region's end. */
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0x1010, buf, 64),
			 0x10);
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0x1020, buf, 64), 0);
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0xfff, buf, 64), 0);

	/* Length 0: the rest of the file, from an offset that is not
	 * page-aligned. */
	assert_int_equal(image_add_file(img, path, 0x8000, 0x123, 0,
					IMAGE_SPACE_S, &d),
			 0);
	r = image_region_at(img, 1);
	assert_int_equal(r->length, 4096 - 0x123);
	assert_int_equal(r->spaces, IMAGE_SPACE_S);
	check_pattern(img, IMAGE_SPACE_EL1S, 0x8000, 256, 0x123);
	check_pattern(img, IMAGE_SPACE_EL1S, 0x8000 + 4096 - 0x123 - 16, 16,
		      4096 - 16);
	assert_int_equal(image_read(img, IMAGE_SPACE_S, 0x8000 + 4096 - 0x124,
				    buf, 64),
			 1);
	/* The whole file. */
	assert_int_equal(image_add_file(img, path, 0x20000, 0, 4096, 0, &d), 0);
	check_pattern(img, IMAGE_SPACE_ANY, 0x20000 + 4000, 96, 4000);
	/* Up to the last byte exactly. */
	assert_int_equal(image_add_file(img, path, 0x30000, 4095, 1, 0, &d), 0);
	check_pattern(img, IMAGE_SPACE_ANY, 0x30000, 1, 4095);
	assert_int_equal(image_region_count(img), 4);

	/* Too long, beyond the end, nothing left: rejected, nothing added. */
	assert_int_equal(image_add_file(img, path, 0, 4000, 97, 0, &d),
			 -etmkit_err_format);
	assert_string_equal(d.path, path);
	assert_contains(d.message, "past the end of the file");
	assert_int_equal(image_add_file(img, path, 0, 0, 4097, 0, &d),
			 -etmkit_err_format);
	assert_int_equal(image_add_file(img, path, 0, 4097, 0, 0, &d),
			 -etmkit_err_format);
	assert_contains(d.message, "beyond the end");
	assert_int_equal(image_add_file(img, path, 0, 4097, 1, 0, &d),
			 -etmkit_err_format);
	assert_int_equal(image_add_file(img, path, 0, 4096, 0, 0, &d),
			 -etmkit_err_format);
	assert_contains(d.message, "empty");
	assert_int_equal(image_add_file(img, path, 0, UINT64_MAX, 1, 0, &d),
			 -etmkit_err_format);
	assert_int_equal(image_add_file(img, path, 0, 1, UINT64_MAX, 0, &d),
			 -etmkit_err_format);
	assert_string_equal(d.path, path);
	assert_int_equal(image_region_count(img), 4);
	image_free(img);
	tmp_remove(&t);
}

static void test_file_errors(void **state)
{
	struct image_diag d;
	struct image *img = new_image();
	struct tmp t;
	char path[192];

	(void)state;
	tmp_init(&t);

	snprintf(path, sizeof(path), "%s/missing.bin", t.dir);
	assert_int_equal(image_add_file(img, path, 0, 0, 0, 0, &d),
			 -etmkit_err_io);
	assert_string_equal(d.path, path);
	assert_contains(d.message, "no such file");

	snprintf(path, sizeof(path), "%s/folder", t.dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(t.names[t.n++], sizeof(t.names[0]), "folder");
	assert_int_equal(image_add_file(img, path, 0, 0, 0, 0, &d),
			 -etmkit_err_io);
	assert_string_equal(d.path, path);
	assert_contains(d.message, "directory");
	assert_int_equal(image_add_elf(img, path, 0, 0, &d), -etmkit_err_io);
	assert_contains(d.message, "directory");

	/* A FIFO must not block the open. */
	snprintf(path, sizeof(path), "%s/fifo", t.dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(t.names[t.n++], sizeof(t.names[0]), "fifo");
	assert_int_equal(image_add_file(img, path, 0, 0, 0, 0, &d),
			 -etmkit_err_io);
	assert_contains(d.message, "not a regular file");
	assert_int_equal(image_add_elf(img, path, 0, 0, &d), -etmkit_err_io);
	assert_contains(d.message, "not a regular file");

	/* An empty file has nothing to map. */
	snprintf(path, sizeof(path), "%s", tmp_write(&t, "empty.bin", "", 0));
	assert_int_equal(image_add_file(img, path, 0, 0, 0, 0, &d),
			 -etmkit_err_format);
	assert_string_equal(d.path, path);
	assert_contains(d.message, "empty");
	assert_int_equal(image_add_elf(img, path, 0, 0, &d),
			 -etmkit_err_format);
	assert_contains(d.message, "empty");

	/* The diag is optional. */
	assert_int_equal(image_add_file(img, path, 0, 0, 0, 0, NULL),
			 -etmkit_err_format);
	assert_int_equal(image_region_count(img), 0);
	image_free(img);
	tmp_remove(&t);
}

/* Regions may end at 2^64 but not run past it; reads stop there. */
static void test_top_of_memory(void **state)
{
	static uint8_t low[16], high[17];
	const uint64_t top = UINT64_MAX - 15; /* 16 bytes below 2^64 */
	struct image_diag d;
	struct image *img = new_image();
	struct tmp t;
	uint8_t buf[64];
	char path[192];
	size_t i;

	(void)state;
	tmp_init(&t);
	snprintf(path, sizeof(path), "%s", tmp_pattern(&t, "top.bin", 64));
	for (i = 0; i < sizeof(high); i++)
		high[i] = (uint8_t)(0xa0 + i);
	memset(low, 0x11, sizeof(low));
	assert_int_equal(image_add_buffer(img, low, 16, 0, 0), 0);
	assert_int_equal(image_add_buffer(img, high, 17, top, 0),
			 -etmkit_err_invalid);
	assert_int_equal(image_add_buffer(img, high, 1, UINT64_MAX, 0), 0);
	assert_int_equal(image_add_buffer(img, high, 16, top, 0), 0);
	assert_int_equal(image_add_file(img, path, top, 0, 17, 0, &d),
			 -etmkit_err_format);
	assert_contains(d.message, "top of the 64-bit address space");
	assert_int_equal(image_add_file(img, path, UINT64_MAX, 0, 0, 0, &d),
			 -etmkit_err_format);
	assert_int_equal(image_region_count(img), 3);
	/* 8 bytes to the top, then no wrap to address 0 (which is mapped). */
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, top + 8, buf, 64), 8);
	assert_memory_equal(buf, high + 8, 8);
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, UINT64_MAX, buf, 64),
			 1);
	assert_int_equal(buf[0], high[15]);
	/* A file region that ends at 2^64 exactly. */
	assert_int_equal(image_add_file(img, path, top, 48, 0, 0, &d), 0);
	check_pattern(img, IMAGE_SPACE_ANY, top, 16, 48);
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, top, buf, 64), 16);
	/* Address 0 is served by its own region only. */
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0, buf, 64), 16);
	assert_memory_equal(buf, low, 16);
	image_free(img);
	tmp_remove(&t);
}

/* ---- Overlaps, spaces, holes --------------------------------------------- */

static void test_overlap_precedence(void **state)
{
	uint8_t a[0x100], b[0x10], c[0x20], buf[0x140];
	struct image *img = new_image();
	size_t i;

	(void)state;
	memset(a, 'A', sizeof(a));
	memset(b, 'B', sizeof(b));
	memset(c, 'C', sizeof(c));
	assert_int_equal(image_add_buffer(img, a, sizeof(a), 0x1000, 0), 0);
	assert_int_equal(image_add_buffer(img, b, sizeof(b), 0x1080, 0), 0);
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0x1000, buf, 0x100),
			 0x100);
	for (i = 0; i < 0x100; i++)
		assert_int_equal(buf[i],
				 (i >= 0x80 && i < 0x90) ? 'B' : 'A');
	/* Later wins over earlier, whichever is larger. */
	assert_int_equal(image_add_buffer(img, c, sizeof(c), 0xff0, 0), 0);
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0xfe0, buf, 0x40), 0);
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0xff0, buf, 0x140),
			 0x110);
	for (i = 0; i < 0x110; i++) {
		int want = i < 0x20 ? 'C' : (i >= 0x90 && i < 0xa0) ? 'B' : 'A';

		if (buf[i] != want)
			fail_msg("byte 0x%zx: %c, expected %c", i, buf[i], want);
	}
	/* An earlier, larger region added again covers everything. */
	assert_int_equal(image_add_buffer(img, a, sizeof(a), 0x1000, 0), 0);
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0x1080, buf, 0x10),
			 0x10);
	assert_memory_equal(buf, a, 0x10);
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0xff0, buf, 0x20),
			 0x20);
	assert_memory_equal(buf, c, 0x10);
	assert_memory_equal(buf + 0x10, a, 0x10);
	/* Listed in the order added. */
	assert_int_equal(image_region_count(img), 4);
	assert_int_equal(image_region_at(img, 2)->addr, 0xff0);
	assert_null(image_region_at(img, 2)->path);
	assert_null(image_region_at(img, 4));
	/* image_region_find(): the region each byte above came from. */
	assert_ptr_equal(image_region_find(img, IMAGE_SPACE_ANY, 0xff0),
			 image_region_at(img, 2));
	assert_ptr_equal(image_region_find(img, IMAGE_SPACE_ANY, 0xfff),
			 image_region_at(img, 2));
	assert_ptr_equal(image_region_find(img, IMAGE_SPACE_ANY, 0x1000),
			 image_region_at(img, 3));
	assert_ptr_equal(image_region_find(img, IMAGE_SPACE_ANY, 0x1085),
			 image_region_at(img, 3));
	assert_ptr_equal(image_region_find(img, IMAGE_SPACE_ANY, 0x10ff),
			 image_region_at(img, 3));
	assert_null(image_region_find(img, IMAGE_SPACE_ANY, 0x1100));
	assert_null(image_region_find(img, IMAGE_SPACE_ANY, 0xfef));
	assert_null(image_region_find(NULL, IMAGE_SPACE_ANY, 0x1000));
	image_free(img);
}

/* S and N dumps at one address; ANY; disjoint masks do not hide. */
static void test_spaces(void **state)
{
	struct image_diag d;
	struct image *img = new_image();
	uint8_t s[64], n[64], buf[128];
	struct tmp t;
	char ps[192], pn[192];
	size_t i;

	(void)state;
	tmp_init(&t);
	memset(s, 'S', sizeof(s));
	memset(n, 'N', sizeof(n));
	snprintf(ps, sizeof(ps), "%s", tmp_write(&t, "s.bin", s, sizeof(s)));
	snprintf(pn, sizeof(pn), "%s", tmp_write(&t, "n.bin", n, sizeof(n)));
	assert_int_equal(image_add_file(img, ps, 0x4000, 0, 0, IMAGE_SPACE_S,
					&d),
			 0);
	assert_int_equal(image_add_file(img, pn, 0x4000, 0, 0, IMAGE_SPACE_N,
					&d),
			 0);
	assert_int_equal(image_read(img, IMAGE_SPACE_EL1S, 0x4000, buf, 128),
			 64);
	assert_memory_equal(buf, s, 64);
	assert_int_equal(image_read(img, IMAGE_SPACE_EL3, 0x4000, buf, 1), 1);
	assert_int_equal(buf[0], 'S');
	assert_int_equal(image_read(img, IMAGE_SPACE_EL2S, 0x4000, buf, 1), 1);
	assert_int_equal(buf[0], 'S');
	assert_int_equal(image_read(img, IMAGE_SPACE_EL1N, 0x4000, buf, 128),
			 64);
	assert_memory_equal(buf, n, 64);
	assert_int_equal(image_read(img, IMAGE_SPACE_EL2, 0x4000, buf, 1), 1);
	assert_int_equal(buf[0], 'N');
	/* A mask is served by the last region sharing a bit with it. */
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0x4000, buf, 1), 1);
	assert_int_equal(buf[0], 'N');
	assert_int_equal(image_read(img, IMAGE_SPACE_EL1S | IMAGE_SPACE_EL1N,
				    0x4000, buf, 1),
			 1);
	assert_int_equal(buf[0], 'N');
	assert_int_equal(image_read(img, IMAGE_SPACE_R, 0x4000, buf, 128), 0);
	assert_int_equal(image_read(img, IMAGE_SPACE_ROOT, 0x4000, buf, 1), 0);

	/* A later S region inside the N one does not hide it from N. */
	assert_int_equal(image_add_buffer(img, s, 16, 0x4010, IMAGE_SPACE_S),
			 0);
	assert_int_equal(image_read(img, IMAGE_SPACE_EL1N, 0x4000, buf, 128),
			 64);
	assert_memory_equal(buf, n, 64);
	/* Spaces 0 serve every space, and win over both. */
	assert_int_equal(image_add_buffer(img, "xyzw", 4, 0x4020, 0), 0);
	assert_int_equal(image_region_at(img, 3)->spaces, IMAGE_SPACE_ANY);
	for (i = 0; i < 8; i++) {
		uint8_t sp = (uint8_t)(1u << i);

		assert_int_equal(image_read(img, sp, 0x4020, buf, 4), 4);
		assert_memory_equal(buf, "xyzw", 4);
	}
	assert_int_equal(image_read(img, IMAGE_SPACE_EL1R, 0x401f, buf, 8), 0);
	assert_int_equal(image_read(img, IMAGE_SPACE_EL1R, 0x4020, buf, 8), 4);
	assert_int_equal(image_read(img, IMAGE_SPACE_EL1N, 0x401e, buf, 8), 8);
	assert_memory_equal(buf, "NNxyzwNN", 8);
	/* image_region_find() follows the space as image_read() does. */
	assert_ptr_equal(image_region_find(img, IMAGE_SPACE_EL1S, 0x4010),
			 image_region_at(img, 2));
	assert_ptr_equal(image_region_find(img, IMAGE_SPACE_EL1N, 0x4010),
			 image_region_at(img, 1));
	assert_ptr_equal(image_region_find(img, IMAGE_SPACE_EL3, 0x4000),
			 image_region_at(img, 0));
	assert_ptr_equal(image_region_find(img, IMAGE_SPACE_EL1R, 0x4021),
			 image_region_at(img, 3));
	assert_null(image_region_find(img, IMAGE_SPACE_EL1R, 0x4000));
	image_free(img);
	tmp_remove(&t);
}

/* Reads go on across adjacent and overlapping regions and stop at the
 * first byte no region serves. */
static void test_spans_and_holes(void **state)
{
	static const uint8_t a[16] = "aaaaaaaaaaaaaaaa";
	static const uint8_t b[16] = "bbbbbbbbbbbbbbbb";
	static const uint8_t c[16] = "cccccccccccccccc";
	struct image *img = new_image();
	uint8_t buf[64];

	(void)state;
	assert_int_equal(image_add_buffer(img, a, 16, 0x100, 0), 0);
	assert_int_equal(image_add_buffer(img, b, 16, 0x110, 0), 0); /* adjacent */
	assert_int_equal(image_add_buffer(img, c, 16, 0x128, 0), 0); /* hole */
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0x100, buf, 64), 32);
	assert_memory_equal(buf, a, 16);
	assert_memory_equal(buf + 16, b, 16);
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0x10c, buf, 8), 8);
	assert_memory_equal(buf, "aaaabbbb", 8);
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0x120, buf, 64), 0);
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0x127, buf, 64), 0);
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0x128, buf, 64), 16);
	/* An earlier region under a later one shows again past its end. */
	assert_int_equal(image_add_buffer(img, a, 16, 0x11c, 0), 0);
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0x118, buf, 64), 32);
	assert_memory_equal(buf, "bbbbaaaaaaaaaaaaaaaacccccccccccc", 32);
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0x128, buf, 64), 16);
	assert_memory_equal(buf, "aaaacccccccccccc", 16);
	image_free(img);
}

/* Thousands of regions: one read across 4096 adjacent regions. */
static void test_many_regions(void **state)
{
	enum { N = 4096, W = 4 };
	struct image *img = new_image();
	uint8_t *src = malloc(N * W), *out = malloc(N * W + 8);
	size_t i;

	(void)state;
	assert_non_null(src);
	assert_non_null(out);
	for (i = 0; i < N * W; i++)
		src[i] = pattern(i);
	/* Added out of address order. */
	for (i = 0; i < N; i++) {
		size_t k = (i * 1237) % N;

		assert_int_equal(image_add_buffer(img, src + k * W, W,
						  0x80000000u + k * W, 0),
				 0);
	}
	assert_int_equal(image_region_count(img), N);
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0x80000000u, out,
				    N * W + 8),
			 N * W);
	assert_memory_equal(out, src, N * W);
	assert_int_equal(image_read(img, IMAGE_SPACE_ANY, 0x80000000u + 4001,
				    out, 1000),
			 1000);
	assert_memory_equal(out, src + 4001, 1000);
	free(src);
	free(out);
	image_free(img);
}

/* ---- Random images against a byte-by-byte model -------------------------- */

struct model_region {
	uint64_t addr;
	size_t len;
	uint8_t spaces;
	const uint8_t *bytes;
};

static uint32_t rng_next(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* The byte at @addr as the header defines it: from the last region added
 * that holds it and shares a bit with @space. */
static int model_byte(const struct model_region *r, size_t n, uint8_t space,
		      uint64_t addr, uint8_t *out)
{
	while (n-- > 0) {
		if ((r[n].spaces & space) && addr >= r[n].addr &&
		    addr - r[n].addr < r[n].len) {
			*out = r[n].bytes[addr - r[n].addr];
			return 1;
		}
	}
	return 0;
}

static void test_random_model(void **state)
{
	enum { NREG = 300, NREAD = 3000, WINDOW = 0x1000 };
	static struct model_region regs[NREG];
	static uint8_t src[0x2000];
	uint8_t got[400], want[400];
	uint32_t seed = 0x1234567u;
	struct image *img = new_image();
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)rng_next(&seed);
	for (i = 0; i < NREG; i++) {
		uint32_t k = rng_next(&seed);

		regs[i].addr = 0x10000 + rng_next(&seed) % WINDOW;
		regs[i].len = 1 + rng_next(&seed) % ((k & 1) ? 16 : 300);
		regs[i].spaces = (k & 6) == 0 ? IMAGE_SPACE_ANY
					       : (uint8_t)(1u << (k >> 8) % 8);
		regs[i].bytes = src + rng_next(&seed) % 0x1000;
		assert_int_equal(image_add_buffer(img, regs[i].bytes,
						  regs[i].len, regs[i].addr,
						  regs[i].spaces),
				 0);
	}
	for (i = 0; i < NREAD; i++) {
		uint64_t addr = 0x10000 - 64 + rng_next(&seed) % (WINDOW + 400);
		size_t n = rng_next(&seed) % sizeof(got), m = 0;
		uint32_t k = rng_next(&seed);
		uint8_t space = (k & 3) == 0 ? (uint8_t)(k >> 8)
					      : (uint8_t)(1u << (k >> 8) % 8);
		size_t r = image_read(img, space, addr, got, n);

		while (m < n && model_byte(regs, NREG, space, addr + m,
					   &want[m]))
			m++;
		if (r != m)
			fail_msg("read %zu at 0x%llx space 0x%02x: %zu bytes, "
				 "model %zu",
				 n, (unsigned long long)addr, space, r, m);
		for (j = 0; j < m; j++)
			if (got[j] != want[j])
				fail_msg("read at 0x%llx space 0x%02x: byte %zu "
					 "differs",
					 (unsigned long long)addr, space, j);
	}
	image_free(img);
}

/* ---- Snapshot dumps ------------------------------------------------------ */

static void read_file(const char *path, uint8_t *buf, size_t n)
{
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	assert_int_equal(fread(buf, 1, n, f), n);
	fclose(f);
}

static struct snapshot *open_snapshot(const char *dir)
{
	struct snapshot *ss = NULL;
	struct snapshot_diag sd;

	if (snapshot_open(&ss, dir, &sd) != 0)
		fail_msg("%s: %s:%d: %s", dir, sd.path, sd.line, sd.message);
	return ss;
}

static void test_snapshot_tc2(void **state)
{
	const struct snapshot_device *cpu;
	struct image_diag d;
	struct snapshot *ss;
	struct image *img;
	uint8_t want[256], got[256];

	(void)state;
	need_shared();
	ss = open_snapshot(TC2_DIR);
	cpu = snapshot_find_device(ss, "cpu_0");
	assert_non_null(cpu);
	img = new_image();
	assert_int_equal(image_add_snapshot_device(img, cpu, &d), 0);
	assert_string_equal(d.message, "");
	assert_int_equal(image_region_count(img), 1);
	assert_ends_with(image_region_at(img, 0)->path, "/kernel_dump.bin");
	assert_int_equal(image_region_at(img, 0)->length, 0x50000);
	assert_int_equal(image_region_at(img, 0)->spaces, IMAGE_SPACE_ANY);
	read_file(TC2_DIR "/kernel_dump.bin", want, sizeof(want));
	assert_int_equal(image_read(img, IMAGE_SPACE_EL1N, 0xC0008000, got,
				    sizeof(got)),
			 sizeof(got));
	assert_memory_equal(got, want, sizeof(want));
	assert_int_equal(image_read(img, IMAGE_SPACE_EL1N, 0xC0008000 + 0x50000,
				    got, 4),
			 0);
	assert_int_equal(image_read(img, IMAGE_SPACE_EL1N,
				    0xC0008000 + 0x50000 - 8, got, 16),
			 8);
	assert_int_equal(image_read(img, IMAGE_SPACE_EL1N, 0xC0007FFF, got, 4),
			 0);
	image_free(img);
	snapshot_free(ss);
}

/* A real capture whose dumps say space=S, two of them adjacent. */
static void test_snapshot_space_s(void **state)
{
	const struct snapshot_device *cpu;
	struct image_diag d;
	struct snapshot *ss;
	struct image *img;
	uint8_t vec[632], code[8], got[16];
	size_t i;

	(void)state;
	need_shared();
	ss = open_snapshot(PTM_DIR);
	cpu = snapshot_find_device(ss, "Cortex-A15_0");
	assert_non_null(cpu);
	img = new_image();
	assert_int_equal(image_add_snapshot_device(img, cpu, &d), 0);
	assert_int_equal(image_region_count(img), cpu->ndumps);
	assert_int_equal(image_region_count(img), 9);
	for (i = 0; i < 9; i++)
		assert_int_equal(image_region_at(img, i)->spaces,
				 IMAGE_SPACE_S);
	read_file(PTM_DIR "/mem_Cortex-A15_0_0_VECTORS.bin", vec, sizeof(vec));
	read_file(PTM_DIR "/mem_Cortex-A15_0_1_RO_CODE.bin", code,
		  sizeof(code));
	assert_int_equal(image_read(img, IMAGE_SPACE_EL1N, 0x80000000, got, 16),
			 0);
	assert_int_equal(image_read(img, IMAGE_SPACE_EL1S, 0x80000000, got, 16),
			 16);
	assert_memory_equal(got, vec, 16);
	/* VECTORS ends at 0x80000277 and RO_CODE starts at 0x80000278. */
	assert_int_equal(image_read(img, IMAGE_SPACE_EL3, 0x80000270, got, 16),
			 16);
	assert_memory_equal(got, vec + 0x270, 8);
	assert_memory_equal(got + 8, code, 8);
	image_free(img);
	snapshot_free(ss);
}

/* Snapshots written here: S and N dumps at one address, a dump with
 * offset and length, a bad space name, a missing dump file. */
static void test_snapshot_tmp(void **state)
{
	static const char top[] = "[device_list]\nd0=cpu.ini\n";
	const struct snapshot_device *cpu;
	struct image_diag d;
	struct snapshot *ss;
	struct image *img;
	uint8_t got[16];
	struct tmp t;

	(void)state;
	tmp_init(&t);
	tmp_text(&t, "snapshot.ini", top);
	tmp_write(&t, "s.bin", "SSSSSSSS", 8);
	tmp_write(&t, "n.bin", "NNNNNNNN", 8);
	tmp_pattern(&t, "p.bin", 256);
	tmp_text(&t, "cpu.ini",
		 "[device]\nname=cpu_0\nclass=core\ntype=Cortex-A7\n"
		 "[dump]\nfile=s.bin\naddress=0x1000\nspace=S\n"
		 "[dump]\nfile=n.bin\naddress=0x1000\nspace=el1n\n"
		 "[dump]\nfile=p.bin\naddress=0x2000\noffset=0x10\n"
		 "length=0x20\n");
	ss = open_snapshot(t.dir);
	cpu = snapshot_find_device(ss, "cpu_0");
	img = new_image();
	assert_int_equal(image_add_snapshot_device(img, cpu, &d), 0);
	assert_int_equal(image_region_count(img), 3);
	assert_int_equal(image_region_at(img, 1)->spaces, IMAGE_SPACE_EL1N);
	assert_int_equal(image_read(img, IMAGE_SPACE_EL1S, 0x1000, got, 16), 8);
	assert_memory_equal(got, "SSSSSSSS", 8);
	assert_int_equal(image_read(img, IMAGE_SPACE_EL1N, 0x1000, got, 16), 8);
	assert_memory_equal(got, "NNNNNNNN", 8);
	assert_int_equal(image_read(img, IMAGE_SPACE_EL2, 0x1000, got, 16), 0);
	check_pattern(img, IMAGE_SPACE_EL2, 0x2000, 0x20, 0x10);
	image_free(img);
	snapshot_free(ss);

	/* An unknown space: the snapshot reader refuses it, naming the file
	 * and line. */
	tmp_text(&t, "cpu.ini",
		 "[device]\nname=cpu_0\n"
		 "[dump]\nfile=s.bin\naddress=0x1000\n"
		 "[dump]\nfile=n.bin\naddress=0x1000\nspace=EL9\n");
	{
		struct snapshot_diag sd;

		assert_int_equal(snapshot_open(&ss, t.dir, &sd),
				 -etmkit_err_format);
		assert_ends_with(sd.path, "/cpu.ini");
		assert_int_equal(sd.line, 9);
		assert_contains(sd.message, "unknown memory space \"EL9\"");
	}
	/* An API caller's own dump with an unknown space: the device file is
	 * named. */
	{
		struct snapshot_dump dump = { .file = "s.bin", .space = "EL9" };
		struct snapshot_device dev = { .name = "cpu_0",
					       .path = "/x/cpu.ini",
					       .ndumps = 1, .dumps = &dump };

		img = new_image();
		assert_int_equal(image_add_snapshot_device(img, &dev, &d),
				 -etmkit_err_format);
		assert_string_equal(d.path, "/x/cpu.ini");
		assert_contains(d.message, "EL9");
		assert_contains(d.message, "dump 1");
		assert_int_equal(image_region_count(img), 0);
		image_free(img);
	}

	/* A missing dump file, after a good dump: the file is named, nothing
	 * is added. */
	tmp_text(&t, "cpu.ini",
		 "[device]\nname=cpu_0\n"
		 "[dump]\nfile=s.bin\naddress=0x1000\n"
		 "[dump]\nfile=gone.bin\naddress=0x2000\n");
	ss = open_snapshot(t.dir);
	img = new_image();
	assert_int_equal(image_add_snapshot_device(img,
						   snapshot_device_at(ss, 0),
						   &d),
			 -etmkit_err_io);
	assert_ends_with(d.path, "/gone.bin");
	assert_contains(d.message, "dump 2 of device cpu_0");
	assert_int_equal(image_region_count(img), 0);
	/* A dump longer than its file. */
	snapshot_free(ss);
	tmp_text(&t, "cpu.ini",
		 "[device]\nname=cpu_0\n"
		 "[dump]\nfile=s.bin\naddress=0x1000\nlength=9\n");
	ss = open_snapshot(t.dir);
	assert_int_equal(image_add_snapshot_device(img,
						   snapshot_device_at(ss, 0),
						   NULL),
			 -etmkit_err_format);
	assert_int_equal(image_region_count(img), 0);
	image_free(img);
	snapshot_free(ss);
	tmp_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_space_parse),
		cmocka_unit_test(test_null_arguments),
		cmocka_unit_test(test_raw_file),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_top_of_memory),
		cmocka_unit_test(test_overlap_precedence),
		cmocka_unit_test(test_spaces),
		cmocka_unit_test(test_spans_and_holes),
		cmocka_unit_test(test_many_regions),
		cmocka_unit_test(test_random_model),
		cmocka_unit_test(test_snapshot_tc2),
		cmocka_unit_test(test_snapshot_space_s),
		cmocka_unit_test(test_snapshot_tmp),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	return test_exit(failed, shared_missing());
}
