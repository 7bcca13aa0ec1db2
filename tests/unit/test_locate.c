/* Unit tests of the address locator (src/image/locate.c) over images of
 * ELF files (the real etm_test_loop and rq_stats.ko of the perf recordings
 * in ../shared/testdata/perf, and files built byte by byte) and raw
 * dumps. Split from test_elf_file.c (issue 17); the fixtures both use are
 * in elf_fixture.h.
 *
 * Without ../shared the tests that need it are skipped (exit 77), unless
 * CI=true, when they fail.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "unit/test_util.h"
#include "unit/elf_fixture.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etmkit/elf_file.h"
#include "etmkit/image.h"
#include "etmkit/locate.h"
#include "etmkit/profile.h"

/* ---- Locator ----------------------------------------------------------------- */

static const char *write_tmp(char *path, size_t n, const char *name,
			     const void *bytes, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	FILE *f;

	snprintf(path, n, "%s/etmkit-elf-%ld-%s",
		 (tmp && strlen(tmp) < 64) ? tmp : "/tmp", (long)getpid(),
		 name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(bytes, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

static void test_locate(void **state)
{
	static const uint64_t bias = 0x582b2b0000ull;
	struct image *img = NULL;
	struct locate *l = NULL;
	struct locate_result r;
	struct image_diag d;
	char raw[256], ko[256];
	uint8_t bytes[0x100], id[4] = { 1, 2, 3, 4 };
	const struct image_region *reg;

	(void)state;
	need_shared();
	memset(bytes, 0x5a, sizeof(bytes));
	write_tmp(raw, sizeof(raw), "raw.bin", bytes, sizeof(bytes));
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_elf(img, LOOP_ELF, bias, 0, &d), 0);
	assert_int_equal(image_add_file(img, raw, 0x40000000, 0x10, 0, 0, &d),
			 0);
	/* The module's .text as perf maps it: pgoff 0x1000. */
	assert_int_equal(image_add_file(img, KO_ELF, 0xffffffc001000000ull,
					0x1000, 0x2fc, 0, &d), 0);
	assert_int_equal(locate_alloc(&l), 0);
	assert_int_equal(locate_add_image(l, img, &d), 0);
	assert_int_equal(locate_add_image(l, img, &d), 0); /* no duplicates */
	assert_int_equal(locate_binary_count(l), 3);

	assert_int_equal(locate_find(l, img, IMAGE_SPACE_EL1N,
				     bias + 0x1010, &r), 0);
	assert_string_equal(r.bin->file, LOOP_ELF);
	assert_string_equal(r.bin->name, LOOP_ELF);
	assert_non_null(r.bin->elf);
	assert_int_equal(r.bin->build_id_size, 16);
	assert_int_equal(r.bin->build_id[0], 0x0c);
	assert_ptr_equal(locate_binary_at(l, r.bin_index), r.bin);
	assert_true(r.vaddr_known);
	assert_int_equal(r.vaddr, 0x1010);
	assert_int_equal(r.file_offset, 0x1010);
	assert_null(r.sym);

	assert_int_equal(locate_find(l, img, IMAGE_SPACE_EL1N, 0x40000020, &r),
			 0);
	assert_string_equal(r.bin->file, raw);
	assert_null(r.bin->elf);
	assert_int_equal(r.bin->build_id_size, 0);
	assert_int_equal(r.vaddr, 0x40000020);
	assert_int_equal(r.file_offset, 0x30);
	assert_null(r.sym);

	assert_int_equal(locate_find(l, img, IMAGE_SPACE_EL1N,
				     0xffffffc001000114ull, &r), 0);
	assert_string_equal(r.bin->file, KO_ELF);
	assert_int_equal(r.file_offset, 0x1114);
	assert_int_equal(r.vaddr, 0x114);
	assert_non_null(r.sym);
	assert_string_equal(r.sym->name, "def_work_fn");
	assert_int_equal(r.vaddr - r.sym->addr, 4);

	assert_int_equal(locate_find(l, img, IMAGE_SPACE_EL1N, 0x10, &r),
			 -etmkit_err_not_found);
	assert_int_equal(locate_find(NULL, img, 0, 0, &r), -etmkit_err_invalid);

	/* Names as a recording gives them. */
	assert_int_equal(locate_set_name(l, LOOP_ELF,
					 "/data/local/tmp/etm_test_loop", id,
					 4), 0);
	assert_int_equal(locate_find(l, img, IMAGE_SPACE_EL1N, bias + 0x1000,
				     &r), 0);
	assert_string_equal(r.bin->name, "/data/local/tmp/etm_test_loop");
	assert_string_equal(r.bin->file, LOOP_ELF);
	assert_int_equal(r.bin->build_id_size, 4);
	assert_memory_equal(r.bin->build_id, id, 4);
	assert_int_equal(r.bin->build_id[4], 0);
	assert_int_equal(locate_set_name(l, raw, "dump", NULL, 0), 0);
	assert_string_equal(locate_binary_at(l, 1)->name, "dump");
	assert_int_equal(locate_set_name(l, "/no/such", "x", NULL, 0),
			 -etmkit_err_not_found);
	assert_int_equal(locate_set_name(l, raw, "x", id, 21),
			 -etmkit_err_invalid);

	/* A region of an image not added: not found. */
	{
		struct image *other = NULL;

		assert_int_equal(image_alloc(&other), 0);
		assert_int_equal(image_add_file(other, raw, 0x1000, 0, 0, 0,
						&d), 0);
		assert_int_equal(locate_find(l, other, 0, 0x1000, &r),
				 -etmkit_err_not_found);
		image_free(other);
	}
	reg = image_region_find(img, IMAGE_SPACE_EL1N, bias + 0x1000);
	assert_non_null(reg);
	locate_free(l);
	image_free(img);
	unlink(raw);
	(void)ko;
}

/* A locator over an ELF file with symbols (built here), and a damaged
 * ELF file is an error naming it. */
static void test_locate_symbols(void **state)
{
	struct bld b;
	struct image *img = NULL;
	struct locate *l = NULL;
	struct locate_result r;
	struct image_diag d;
	char path[256];

	(void)state;
	b_arm(&b);
	write_tmp(path, sizeof(path), "arm.elf", b.b, sizeof(b.b));
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_elf(img, path, 0x100000, 0, &d), 0);
	assert_int_equal(locate_alloc(&l), 0);
	assert_int_equal(locate_add_image(l, img, &d), 0);
	assert_int_equal(locate_binary_count(l), 1);
	assert_int_equal(locate_find(l, img, IMAGE_SPACE_EL1N, 0x109012, &r), 0);
	assert_int_equal(r.vaddr, 0x9012);
	assert_int_equal(r.file_offset, 0x1012);
	assert_string_equal(r.sym->name, "thumb_fn");
	assert_int_equal(r.bin->build_id_size, 20);
	assert_int_equal(locate_find(l, img, IMAGE_SPACE_EL1N, 0x1090c4, &r), 0);
	assert_string_equal(r.sym->name, "b_real");
	assert_int_equal(locate_find(l, img, IMAGE_SPACE_EL1N, 0x109040, &r), 0);
	assert_null(r.sym);
	/* Without the function: the same binary and address, over the whole
	 * stretch the segment maps (wider than the function's span). */
	{
		struct locate_result s;

		assert_int_equal(locate_find(l, img, IMAGE_SPACE_EL1N,
					     0x109012, &r), 0);
		assert_int_equal(locate_find_binary(l, img, IMAGE_SPACE_EL1N,
						    0x109012, &s), 0);
		assert_null(s.sym);
		assert_ptr_equal(s.bin, r.bin);
		assert_int_equal(s.vaddr, 0x9012);
		assert_int_equal(s.file_offset, 0x1012);
		assert_true(s.vaddr_known);
		assert_true(s.first <= r.first && s.last >= r.last);
		assert_true(s.first < r.first || s.last > r.last);
		assert_int_equal(locate_find_binary(l, img, IMAGE_SPACE_EL1N,
						    0x10, &s),
				 -etmkit_err_not_found);
	}
	/* The profile's answer from it (profile.h). */
	{
		struct profile_where w;
		struct locate_result s;

		memset(&w, 0, sizeof(w));
		assert_int_equal(profile_where_locate(l, img, IMAGE_SPACE_EL1N,
						      0x109012, &w), 0);
		assert_int_equal(locate_find_binary(l, img, IMAGE_SPACE_EL1N,
						    0x109012, &s), 0);
		assert_int_equal(w.bin, s.bin_index);
		assert_int_equal(w.vaddr, 0x9012);
		assert_int_equal(w.lo, s.first);
		assert_int_equal(w.hi, s.last + 1);
		memset(&w, 0, sizeof(w));
		assert_int_equal(profile_where_locate(l, img, IMAGE_SPACE_EL1N,
						      0x10, &w),
				 -etmkit_err_not_found);
		assert_int_equal(profile_where_locate(l, img, 0, 0x109012,
						      NULL),
				 -etmkit_err_invalid);
	}
	locate_free(l);
	image_free(img);

	/* Cut the file's symbol and section tables off after mapping it as
	 * a raw file: the ELF magic says ELF, and it cannot be read. */
	write_tmp(path, sizeof(path), "arm.elf", b.b, B_SH + 8);
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_file(img, path, 0x1000, 0, 0, 0, &d), 0);
	assert_int_equal(locate_alloc(&l), 0);
	assert_int_equal(locate_add_image(l, img, &d), -etmkit_err_format);
	assert_string_equal(d.path, path);
	locate_free(l);
	image_free(img);
	unlink(path);
}

/* locate_result.first/last: every address in the span gets the same
 * answer, moved by the distance; checked address by address over an image
 * of the built ARM file (segments at 0x8000, 0x9000, 0xa000, plus a
 * bias) with a raw file laid over part of its code and an image_add_file
 * of the ELF file's bytes at another address. */
static void test_locate_spans(void **state)
{
	struct bld b;
	struct image *img = NULL;
	struct locate *l = NULL;
	struct image_diag d;
	char path[256], raw[256];
	uint8_t junk[0x30];
	uint64_t a, spans = 0;

	(void)state;
	b_arm(&b);
	write_tmp(path, sizeof(path), "span.elf", b.b, sizeof(b.b));
	memset(junk, 0, sizeof(junk));
	write_tmp(raw, sizeof(raw), "span.raw", junk, sizeof(junk));
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_elf(img, path, 0x100000, 0, &d), 0);
	/* Over thumb_fn's middle, EL1N only. */
	assert_int_equal(image_add_file(img, raw, 0x109020, 0, 0,
					IMAGE_SPACE_EL1N, &d), 0);
	/* The file's first 0x1200 bytes as a dump at 0x200000. */
	assert_int_equal(image_add_file(img, path, 0x200000, 0, 0, 0, &d), 0);
	assert_int_equal(locate_alloc(&l), 0);
	assert_int_equal(locate_add_image(l, img, &d), 0);
	for (int sp = 0; sp < 2; sp++) {
		uint8_t space = sp ? IMAGE_SPACE_EL1N : IMAGE_SPACE_EL1S;
		const uint64_t from[] = { 0x107ff0, 0x1fff00 };
		const uint64_t to[] = { 0x10a200, 0x201300 };

		for (int k = 0; k < 2; k++) {
			struct locate_result prev = { 0 };
			uint64_t pa = 0;
			int have = 0;

			for (a = from[k]; a < to[k]; a++) {
				struct locate_result r;
				int rc = locate_find(l, img, space, a, &r);

				if (rc == 0) {
					assert_true(r.first <= a &&
						    a <= r.last);
				}
				if (have && a <= prev.last) {
					assert_int_equal(rc, 0);
					assert_ptr_equal(r.bin, prev.bin);
					assert_ptr_equal(r.sym, prev.sym);
					assert_int_equal(r.vaddr_known,
							 prev.vaddr_known);
					if (r.vaddr_known)
						assert_int_equal(r.vaddr,
							prev.vaddr + (a - pa));
					assert_int_equal(r.file_offset,
							 prev.file_offset +
								 (a - pa));
				} else if (rc == 0) {
					prev = r;
					pa = a;
					have = 1;
					spans++;
				} else {
					have = 0;
				}
			}
		}
	}
	/* Few spans: they follow regions, segments and symbols, not
	 * single addresses. */
	if (spans > 64)
		fail_msg("%llu spans", (unsigned long long)spans);
	locate_free(l);
	image_free(img);
	unlink(path);
	unlink(raw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_locate),
		cmocka_unit_test(test_locate_symbols),
		cmocka_unit_test(test_locate_spans),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	return test_exit(failed, shared_missing());
}
