/* Unit tests of the ELF file reader (src/image/elf_file.c).
 *
 * - the real binaries of the perf recordings in ../shared/testdata/perf:
 *   etm_test_loop (stripped AArch64 executable) and rq_stats.ko (kernel
 *   module, no program headers); the expected values were read off
 *   `readelf -n -l -S -s -W` by hand and are written here as constants;
 * - ELF files built here byte by byte: 32-bit ARM with Thumb functions,
 *   mapping symbols, aliases and size-0 symbols, several segments, long
 *   build ids, and damaged ones (cut short, tables and notes out of
 *   bounds), which must give errors, not crashes.
 *
 * The locator over images of these files is tested in test_locate.c; the
 * fixtures both use are in elf_fixture.h.
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

static struct elf_file *open_ok(const char *path)
{
	struct elf_file *ef = NULL;
	struct image_diag d;
	int rc = elf_file_open(&ef, path, &d);

	if (rc)
		fail_msg("%s: %s (%d)", d.path, d.message, rc);
	assert_non_null(ef);
	return ef;
}

/* @off in the file is at virtual address @va (a hand-worked pair). */
static void expect_vaddr(const struct elf_file *ef, uint64_t off, uint64_t va)
{
	uint64_t got;

	assert_int_equal(elf_file_offset_to_vaddr(ef, off, &got), 0);
	assert_int_equal(got, va);
}

/* Virtual address @va is at @off in the file (a hand-worked pair). */
static void expect_offset(const struct elf_file *ef, uint64_t va, uint64_t off)
{
	uint64_t got;

	assert_int_equal(elf_file_vaddr_to_offset(ef, va, &got), 0);
	assert_int_equal(got, off);
}

/* ---- Real binaries --------------------------------------------------------- */

/* readelf -n: "Build ID: 0c9a20bf9c009d0e4e8bbf9fad0300ae"; readelf -l:
 * LOAD 0x0/0x0 filesz 0x47c R, LOAD 0x1000/0x1000 filesz 0xf0 E, LOAD
 * 0x2000/0x2000 filesz 0x228 memsz 0x228 RW; readelf -S: .text at 0x1000
 * offset 0x1000 size 0xb4; .dynsym holds only the undefined __libc_init. */
static void test_loop_binary(void **state)
{
	static const uint8_t want_id[16] = {
		0x0c, 0x9a, 0x20, 0xbf, 0x9c, 0x00, 0x9d, 0x0e,
		0x4e, 0x8b, 0xbf, 0x9f, 0xad, 0x03, 0x00, 0xae };
	struct elf_file *ef;
	const struct elf_segment *s;
	uint8_t id[20];
	uint64_t va, off, sz;

	(void)state;
	need_shared();
	ef = open_ok(LOOP_ELF);
	assert_string_equal(elf_file_path(ef), LOOP_ELF);
	assert_int_equal(elf_file_machine(ef), 183);
	assert_int_equal(elf_file_type(ef), 3);
	memset(id, 0xee, sizeof(id));
	assert_int_equal(elf_file_build_id(ef, id), 16);
	assert_memory_equal(id, want_id, 16);
	assert_int_equal(id[16] | id[17] | id[18] | id[19], 0);

	assert_int_equal(elf_file_segment_count(ef), 3);
	s = elf_file_segment(ef, 0);
	assert_int_equal(s->offset, 0);
	assert_int_equal(s->filesz, 0x47c);
	assert_int_equal(s->flags, ELF_FILE_PF_R);
	s = elf_file_segment(ef, 1);
	assert_int_equal(s->vaddr, 0x1000);
	assert_int_equal(s->offset, 0x1000);
	assert_int_equal(s->filesz, 0xf0);
	assert_int_equal(s->memsz, 0xf0);
	assert_int_equal(s->flags, ELF_FILE_PF_X);
	s = elf_file_segment(ef, 2);
	assert_int_equal(s->vaddr, 0x2000);
	assert_int_equal(s->flags, ELF_FILE_PF_R | ELF_FILE_PF_W);
	assert_null(elf_file_segment(ef, 3));

	assert_int_equal(elf_file_min_exec_vaddr(ef, &va, &off), 0);
	assert_int_equal(va, 0x1000);
	assert_int_equal(off, 0x1000);
	assert_int_equal(elf_file_first_load_vaddr(ef, &va), 0);
	assert_int_equal(va, 0);
	expect_vaddr(ef, 0x1010, 0x1010);
	assert_int_equal(elf_file_offset_to_vaddr(ef, 0x10f0, &va),
			 -etmkit_err_not_found);
	expect_offset(ef, 0x2227, 0x2227);
	assert_int_equal(elf_file_vaddr_to_offset(ef, 0x2228, &off),
			 -etmkit_err_not_found);
	assert_int_equal(elf_file_section(ef, ".text", &va, &off, &sz), 0);
	assert_int_equal(va, 0x1000);
	assert_int_equal(off, 0x1000);
	assert_int_equal(sz, 0xb4);
	assert_int_equal(elf_file_section(ef, ".nope", &va, &off, &sz),
			 -etmkit_err_not_found);
	/* Stripped: .dynsym has no defined function. */
	assert_int_equal(elf_file_symbol_count(ef), 0);
	assert_null(elf_file_symbol(ef, 0x1010));
	elf_file_free(ef);
}

/* readelf -S: .text [7] at offset 0x1000 size 0x2fc, AX; readelf -n:
 * build id a535d7222f9f01d1 (.note.gnu.build-id section); readelf -s -W:
 * the FUNC symbols of section 7 (init_module is in .init.text, section
 * 8; $x.N are mapping symbols). */
static void test_kernel_module(void **state)
{
	static const uint8_t want_id[8] = { 0xa5, 0x35, 0xd7, 0x22,
					    0x2f, 0x9f, 0x01, 0xd1 };
	static const struct {
		uint64_t addr, size;
		const char *name;
	} want[] = {
		{ 0x000, 248, "__cfi_check" },
		{ 0x0f8, 24, "__cfi_check_fail" },
		{ 0x110, 48, "def_work_fn" },
		{ 0x140, 88, "wakeup_user" },
		{ 0x198, 88, "rq_stats_wakeup_callback" },
		{ 0x1f0, 100, "show_def_timer_ms" },
		{ 0x254, 144, "store_def_timer_ms" },
	};
	struct elf_file *ef;
	const struct elf_segment *s;
	const struct elf_symbol *sym;
	uint8_t id[20];
	uint64_t va;
	size_t i;

	(void)state;
	need_shared();
	ef = open_ok(KO_ELF);
	assert_int_equal(elf_file_type(ef), 1);
	assert_int_equal(elf_file_machine(ef), 183);
	assert_int_equal(elf_file_build_id(ef, id), 8);
	assert_memory_equal(id, want_id, 8);
	assert_int_equal(elf_file_segment_count(ef), 1);
	s = elf_file_segment(ef, 0);
	assert_int_equal(s->vaddr, 0);
	assert_int_equal(s->offset, 0x1000);
	assert_int_equal(s->filesz, 0x2fc);
	assert_int_equal(s->memsz, 0x2fc);
	assert_int_equal(s->flags, ELF_FILE_PF_R | ELF_FILE_PF_X);
	expect_vaddr(ef, 0x1114, 0x114);
	expect_offset(ef, 0x2fb, 0x12fb);
	assert_int_equal(elf_file_offset_to_vaddr(ef, 0x12fc, &va),
			 -etmkit_err_not_found);

	assert_int_equal(elf_file_symbol_count(ef), 7);
	for (i = 0; i < 7; i++) {
		sym = elf_file_symbol_at(ef, i);
		assert_int_equal(sym->addr, want[i].addr);
		assert_int_equal(sym->size, want[i].size);
		assert_string_equal(sym->name, want[i].name);
		/* first, last and middle byte */
		assert_ptr_equal(elf_file_symbol(ef, want[i].addr), sym);
		assert_ptr_equal(elf_file_symbol(ef, want[i].addr +
						     want[i].size - 1), sym);
		assert_ptr_equal(elf_file_symbol(ef, want[i].addr +
						     want[i].size / 2), sym);
	}
	assert_null(elf_file_symbol_at(ef, 7));
	/* After store_def_timer_ms (ends 0x2e4), to the end of .text. */
	assert_null(elf_file_symbol(ef, 0x2e4));
	assert_null(elf_file_symbol(ef, 0x2fb));
	elf_file_free(ef);
}

static struct elf_file *open_mem(const struct bld *b, size_t n)
{
	struct elf_file *ef = NULL;
	struct image_diag d;
	int rc = elf_file_open_memory(&ef, b->b, n, "built.elf", &d);

	if (rc)
		fail_msg("%s: %s (%d)", d.path, d.message, rc);
	return ef;
}

static void test_arm_symbols(void **state)
{
	struct bld b;
	struct elf_file *ef;
	const struct elf_symbol *s;

	(void)state;
	b_arm(&b);
	ef = open_mem(&b, sizeof(b.b));
	assert_int_equal(elf_file_machine(ef), EM_ARM);
	assert_int_equal(elf_file_symbol_count(ef), 3);
	s = elf_file_symbol_at(ef, 0);
	assert_string_equal(s->name, "thumb_fn");
	assert_int_equal(s->addr, 0x9000); /* Thumb bit cleared */
	assert_int_equal(s->size, 0x40);
	assert_string_equal(elf_file_symbol_at(ef, 1)->name, "label");
	assert_int_equal(elf_file_symbol_at(ef, 1)->addr, 0x9080);
	assert_string_equal(elf_file_symbol_at(ef, 2)->name, "b_real");
	assert_int_equal(elf_file_symbol_at(ef, 2)->size, 0x10);

	assert_null(elf_file_symbol(ef, 0x8fff));
	assert_string_equal(elf_file_symbol(ef, 0x9000)->name, "thumb_fn");
	assert_string_equal(elf_file_symbol(ef, 0x903f)->name, "thumb_fn");
	assert_null(elf_file_symbol(ef, 0x9040)); /* past thumb_fn */
	/* label: size 0, up to the next symbol. */
	assert_string_equal(elf_file_symbol(ef, 0x9080)->name, "label");
	assert_string_equal(elf_file_symbol(ef, 0x90bf)->name, "label");
	assert_string_equal(elf_file_symbol(ef, 0x90c0)->name, "b_real");
	assert_string_equal(elf_file_symbol(ef, 0x90cf)->name, "b_real");
	assert_null(elf_file_symbol(ef, 0x90d0));
	elf_file_free(ef);
}

/* A size-0 symbol last: it reaches to the top. */
static void test_size0_last(void **state)
{
	struct bld b;
	struct elf_file *ef;

	(void)state;
	b_arm(&b);
	b.nsym = 0;
	b_sym(&b, "sized", 0x9000, 8, STB_GLOBAL, STT_FUNC, S_TEXT);
	b_sym(&b, "open_end", 0x9010, 0, STB_GLOBAL, STT_FUNC, S_TEXT);
	b_build(&b);
	ef = open_mem(&b, sizeof(b.b));
	assert_int_equal(elf_file_symbol_count(ef), 2);
	assert_null(elf_file_symbol(ef, 0x9008));
	assert_string_equal(elf_file_symbol(ef, 0x9010)->name, "open_end");
	assert_string_equal(elf_file_symbol(ef, 0xffffffff)->name,
			    "open_end");
	elf_file_free(ef);
}

static void test_segments(void **state)
{
	struct bld b;
	struct elf_file *ef;
	const struct elf_segment *s;
	uint8_t id[20];
	uint64_t v, o;

	(void)state;
	b_arm(&b);
	/* A second code segment below the first, not first in order. */
	b.seg[3] = (struct b_seg){ PT_LOAD, PF_R | PF_X, 0x100, 0x7000,
				   0x80, 0x80 };
	b_build(&b);
	ef = open_mem(&b, sizeof(b.b));
	assert_int_equal(elf_file_segment_count(ef), 4);
	s = elf_file_segment(ef, 2);
	assert_int_equal(s->filesz, 0x100);
	assert_int_equal(s->memsz, 0x400);
	assert_int_equal(s->flags, ELF_FILE_PF_R | ELF_FILE_PF_W);
	/* No PT_NOTE now: the build id comes from the SHT_NOTE section. */
	assert_int_equal(elf_file_build_id(ef, id), 20);
	assert_int_equal(id[0], 0xa0);
	assert_int_equal(id[19], 0xb3);

	expect_vaddr(ef, 0x0, 0x8000);
	expect_vaddr(ef, 0x1ff, 0x81ff);
	assert_int_equal(elf_file_offset_to_vaddr(ef, 0x200, &v),
			 -etmkit_err_not_found);
	expect_vaddr(ef, 0x1010, 0x9010);
	expect_vaddr(ef, 0x11ff, 0xa0ff);
	assert_int_equal(elf_file_offset_to_vaddr(ef, 0x1200, &v),
			 -etmkit_err_not_found);
	expect_offset(ef, 0x9010, 0x1010);
	expect_offset(ef, 0x7010, 0x110);
	/* .bss part of the data segment: no file bytes. */
	assert_int_equal(elf_file_vaddr_to_offset(ef, 0xa100, &o),
			 -etmkit_err_not_found);
	assert_int_equal(elf_file_min_exec_vaddr(ef, &v, &o), 0);
	assert_int_equal(v, 0x7000);
	assert_int_equal(o, 0x100);
	assert_int_equal(elf_file_first_load_vaddr(ef, &v), 0);
	assert_int_equal(v, 0x8000);
	elf_file_free(ef);

	/* No executable segment. */
	b.seg[1].flags = PF_R;
	b.seg[3].flags = PF_R;
	b_build(&b);
	ef = open_mem(&b, sizeof(b.b));
	assert_int_equal(elf_file_min_exec_vaddr(ef, &v, &o),
			 -etmkit_err_not_found);
	elf_file_free(ef);
}

/* A 64-bit relocatable object: no program headers, one segment from
 * .text; its symbols are offsets in .text; a 24-byte build id. */
static void test_rel64(void **state)
{
	struct bld b;
	struct elf_file *ef;
	const struct elf_segment *s;
	uint8_t id[20];

	(void)state;
	memset(&b, 0, sizeof(b));
	b.is64 = 1;
	b.machine = EM_AARCH64;
	b.type = ET_REL;
	b.idlen = 24;
	for (size_t i = 0; i < 24; i++)
		b.id[i] = (uint8_t)(i + 1);
	b_sym(&b, "f", 0x20, 0x10, STB_GLOBAL, STT_FUNC, S_TEXT);
	b_sym(&b, "$x", 0x20, 0, STB_LOCAL, STT_NOTYPE, S_TEXT);
	b_sym(&b, "in_data", 0x0, 0x10, STB_GLOBAL, STT_FUNC, S_DATA);
	b_build(&b);
	ef = open_mem(&b, sizeof(b.b));
	assert_int_equal(elf_file_type(ef), ET_REL);
	assert_int_equal(elf_file_build_id(ef, id), 24);
	assert_int_equal(id[0], 1);
	assert_int_equal(id[19], 20);
	assert_int_equal(elf_file_segment_count(ef), 1);
	s = elf_file_segment(ef, 0);
	assert_int_equal(s->offset, B_TEXT);
	assert_int_equal(s->vaddr, 0);
	assert_int_equal(s->filesz, 0x100);
	assert_int_equal(elf_file_symbol_count(ef), 1);
	assert_string_equal(elf_file_symbol(ef, 0x25)->name, "f");
	assert_null(elf_file_symbol(ef, 0x5));
	elf_file_free(ef);
}

/* Damaged files: errors (or no build id / no symbols), never a crash. */
static void test_damaged(void **state)
{
	struct bld b;
	struct elf_file *ef;
	struct image_diag d;
	uint8_t id[20];
	size_t n;

	(void)state;
	b_arm(&b);
	/* Every prefix: the headers, tables and segments are checked. */
	for (n = 0; n < sizeof(b.b); n++) {
		int rc = elf_file_open_memory(&ef, b.b, n, "cut.elf", &d);

		if (n < B_SH + S_N * 40) {
			if (rc != -etmkit_err_format)
				fail_msg("cut at %zu: %d", n, rc);
			assert_null(ef);
			assert_string_equal(d.path, "cut.elf");
			assert_true(d.message[0] != '\0');
		} else if (n < B_TEXT + 0x200) {
			/* the data segment's bytes end at 0x1200 */
			assert_int_equal(rc, -etmkit_err_format);
		}
		elf_file_free(ef);
	}
	assert_int_equal(elf_file_open_memory(&ef, b.b, 3, "x", &d),
			 -etmkit_err_format);
	assert_string_equal(d.message, "not an ELF file");

	/* The note's descsz runs past the note segment and section: no
	 * build id, but the file opens. */
	b_arm(&b);
	put(b.b + B_NOTE + 4, 0xfffffff0u, 4);
	ef = open_mem(&b, sizeof(b.b));
	assert_int_equal(elf_file_build_id(ef, id), 0);
	assert_int_equal(elf_file_symbol_count(ef), 3);
	elf_file_free(ef);

	/* The note segment beyond the end of the file. */
	b_arm(&b);
	b.seg[3].offset = 0xfffffffe;
	b.nsym = 0;
	b_build(&b);
	put(b.b + B_NOTE + 8, 7, 4); /* the section's note is not a build id */
	ef = open_mem(&b, sizeof(b.b));
	assert_int_equal(elf_file_build_id(ef, id), 0);
	elf_file_free(ef);

	/* Symbol table beyond the end of the file: no symbols. */
	b_arm(&b);
	put(b.b + B_SH + S_SYMTAB * 40 + 16, 0x7ffffff0, 4);
	ef = open_mem(&b, sizeof(b.b));
	assert_int_equal(elf_file_symbol_count(ef), 0);
	elf_file_free(ef);
	/* Its string table link out of range. */
	b_arm(&b);
	put(b.b + B_SH + S_SYMTAB * 40 + 24, 99, 4);
	ef = open_mem(&b, sizeof(b.b));
	assert_int_equal(elf_file_symbol_count(ef), 0);
	elf_file_free(ef);
	/* A symbol name offset past the string table: that symbol only. */
	b_arm(&b);
	put(b.b + B_SYM + 16, 0x7fff, 4); /* thumb_fn's st_name */
	ef = open_mem(&b, sizeof(b.b));
	assert_int_equal(elf_file_symbol_count(ef), 2);
	elf_file_free(ef);

	/* Section header table past the end: an error. */
	b_arm(&b);
	put(b.b + 32, B_SIZE - 40, 4);
	assert_int_equal(elf_file_open_memory(&ef, b.b, sizeof(b.b), "x", &d),
			 -etmkit_err_format);
	assert_contains(d.message, "section header table");
	/* Program header table past the end. */
	b_arm(&b);
	put(b.b + 28, B_SIZE - 8, 4);
	assert_int_equal(elf_file_open_memory(&ef, b.b, sizeof(b.b), "x", &d),
			 -etmkit_err_format);
	assert_contains(d.message, "program header table");
	/* A segment past the end. */
	b_arm(&b);
	put(b.b + B_PH + 32 + 16, 0x10000, 4); /* segment 1 p_filesz */
	assert_int_equal(elf_file_open_memory(&ef, b.b, sizeof(b.b), "x", &d),
			 -etmkit_err_format);
	assert_contains(d.message, "segment 1");
	/* Big-endian. */
	b_arm(&b);
	b.b[EI_DATA] = ELFDATA2MSB;
	assert_int_equal(elf_file_open_memory(&ef, b.b, sizeof(b.b), "x", &d),
			 -etmkit_err_format);
	assert_contains(d.message, "big-endian");
}

/* Random byte damage anywhere: whatever happens, no crash and a
 * consistent handle. */
static void test_mutations(void **state)
{
	struct bld b, m;
	unsigned seed = 12345;

	(void)state;
	b_arm(&b);
	for (int round = 0; round < 3000; round++) {
		struct elf_file *ef = NULL;
		struct image_diag d;
		int k;

		m = b;
		for (k = 0; k < 1 + round % 4; k++) {
			seed = seed * 1103515245u + 12345u;
			m.b[(seed >> 8) % B_SIZE] = (uint8_t)(seed >> 20);
		}
		if (elf_file_open_memory(&ef, m.b, sizeof(m.b), "m", &d) == 0) {
			uint64_t v;

			for (size_t i = 0; i < elf_file_symbol_count(ef); i++)
				assert_non_null(elf_file_symbol_at(ef, i)->name);
			elf_file_symbol(ef, 0x9010);
			elf_file_offset_to_vaddr(ef, 0x1010, &v);
			elf_file_free(ef);
		}
	}
}

static void test_null_arguments(void **state)
{
	struct elf_file *ef = (struct elf_file *)&ef;
	struct image_diag d;
	uint8_t id[20];

	(void)state;
	assert_int_equal(elf_file_open(NULL, "x", &d), -etmkit_err_invalid);
	assert_int_equal(elf_file_open(&ef, NULL, &d), -etmkit_err_invalid);
	assert_null(ef);
	assert_int_equal(elf_file_open(&ef, "/nonexistent/etmkit", &d),
			 -etmkit_err_io);
	assert_int_equal(elf_file_open(&ef, "/", &d), -etmkit_err_io);
	assert_int_equal(elf_file_build_id(NULL, id), 0);
	assert_int_equal(elf_file_symbol_count(NULL), 0);
	assert_null(elf_file_symbol(NULL, 0));
	elf_file_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loop_binary),
		cmocka_unit_test(test_kernel_module),
		cmocka_unit_test(test_arm_symbols),
		cmocka_unit_test(test_size0_last),
		cmocka_unit_test(test_segments),
		cmocka_unit_test(test_rel64),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_null_arguments),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	return test_exit(failed, shared_missing());
}
