/* Unit tests of the ELF file reader (src/image/elf_file.c) and the address
 * locator (src/image/locate.c).
 *
 * - the real binaries of the perf recordings in ../shared/testdata/perf:
 *   etm_test_loop (stripped AArch64 executable) and rq_stats.ko (kernel
 *   module, no program headers); the expected values were read off
 *   `readelf -n -l -S -s -W` by hand and are written here as constants;
 * - ELF files built here byte by byte: 32-bit ARM with Thumb functions,
 *   mapping symbols, aliases and size-0 symbols, several segments, long
 *   build ids, and damaged ones (cut short, tables and notes out of
 *   bounds), which must give errors, not crashes;
 * - the locator over images of ELF files and raw dumps.
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

#define PERF_DIR ETMKIT_SHARED_DIR "/testdata/perf"
#define LOOP_ELF PERF_DIR "/etm_test_loop"
#define KO_ELF PERF_DIR "/rq_stats.ko"

static int shared_missing(void)
{
	struct stat st;

	return stat(LOOP_ELF, &st) != 0 || stat(KO_ELF, &st) != 0;
}

static void need_shared(void)
{
	test_need(shared_missing(), ETMKIT_SHARED_DIR);
}

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
	assert_int_equal(elf_file_offset_to_vaddr(ef, 0x1010, &va), 0);
	assert_int_equal(va, 0x1010);
	assert_int_equal(elf_file_offset_to_vaddr(ef, 0x10f0, &va),
			 -etmkit_err_not_found);
	assert_int_equal(elf_file_vaddr_to_offset(ef, 0x2227, &off), 0);
	assert_int_equal(off, 0x2227);
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
	uint64_t va, off;
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
	assert_int_equal(elf_file_offset_to_vaddr(ef, 0x1114, &va), 0);
	assert_int_equal(va, 0x114);
	assert_int_equal(elf_file_vaddr_to_offset(ef, 0x2fb, &off), 0);
	assert_int_equal(off, 0x12fb);
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

/* ---- Hand-built files ------------------------------------------------------ */

/* Layout of the files built here (offsets). */
#define B_PH 0x40
#define B_NOTE 0x200
#define B_STR 0x300
#define B_SYM 0x400
#define B_SHSTR 0x600
#define B_SH 0x700
#define B_TEXT 0x1000
#define B_SIZE 0x1200

enum { S_NULL, S_TEXT, S_NOTE, S_SYMTAB, S_STRTAB, S_SHSTR, S_DATA, S_N };

struct b_seg {
	uint32_t type, flags;
	uint64_t offset, vaddr, filesz, memsz;
};

struct b_sym {
	const char *name;
	uint64_t value, size;
	unsigned char info;
	uint16_t shndx;
};

struct bld {
	uint8_t b[B_SIZE];
	int is64;
	uint16_t machine, type;
	struct b_seg seg[4];
	size_t nseg;
	struct b_sym sym[16];
	size_t nsym;
	uint8_t id[32];
	size_t idlen;
	uint64_t text_addr;
};

static void put(uint8_t *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static size_t add_str(uint8_t *tab, size_t *len, const char *s)
{
	size_t at = *len;

	memcpy(tab + at, s, strlen(s) + 1);
	*len += strlen(s) + 1;
	return at;
}

static void b_shdr(struct bld *b, int i, uint32_t name, uint32_t type,
		   uint64_t flags, uint64_t addr, uint64_t off, uint64_t size,
		   uint32_t link, uint64_t entsize, uint64_t align)
{
	uint8_t *p = b->b + B_SH + (size_t)i * (b->is64 ? 64 : 40);

	put(p, name, 4);
	put(p + 4, type, 4);
	if (b->is64) {
		put(p + 8, flags, 8);
		put(p + 16, addr, 8);
		put(p + 24, off, 8);
		put(p + 32, size, 8);
		put(p + 40, link, 4);
		put(p + 44, type == SHT_SYMTAB ? 1 : 0, 4);
		put(p + 48, align, 8);
		put(p + 56, entsize, 8);
	} else {
		put(p + 8, flags, 4);
		put(p + 12, addr, 4);
		put(p + 16, off, 4);
		put(p + 20, size, 4);
		put(p + 24, link, 4);
		put(p + 28, type == SHT_SYMTAB ? 1 : 0, 4);
		put(p + 32, align, 4);
		put(p + 36, entsize, 4);
	}
}

/* Lay out @b's header, segments, sections and symbols in b->b. */
static void b_build(struct bld *b)
{
	uint8_t *e = b->b;
	size_t phsz = b->is64 ? 56 : 32, symsz = b->is64 ? 24 : 16;
	size_t strlen_ = 1, shlen = 1, i;
	uint32_t n_text, n_note, n_sym, n_str, n_sh, n_data;
	uint8_t *note = e + B_NOTE;

	memset(e, 0, sizeof(b->b));
	memcpy(e, ELFMAG, SELFMAG);
	e[EI_CLASS] = b->is64 ? ELFCLASS64 : ELFCLASS32;
	e[EI_DATA] = ELFDATA2LSB;
	e[EI_VERSION] = EV_CURRENT;
	put(e + 16, b->type, 2);
	put(e + 18, b->machine, 2);
	put(e + 20, EV_CURRENT, 4);
	if (b->is64) {
		put(e + 32, b->nseg ? B_PH : 0, 8);  /* e_phoff */
		put(e + 40, B_SH, 8);               /* e_shoff */
		put(e + 52, 64, 2);                 /* e_ehsize */
		put(e + 54, phsz, 2);
		put(e + 56, b->nseg, 2);
		put(e + 58, 64, 2);
		put(e + 60, S_N, 2);
		put(e + 62, S_SHSTR, 2);
	} else {
		put(e + 28, b->nseg ? B_PH : 0, 4);
		put(e + 32, B_SH, 4);
		put(e + 40, 52, 2);
		put(e + 42, phsz, 2);
		put(e + 44, b->nseg, 2);
		put(e + 46, 40, 2);
		put(e + 48, S_N, 2);
		put(e + 50, S_SHSTR, 2);
	}
	for (i = 0; i < b->nseg; i++) {
		uint8_t *p = e + B_PH + i * phsz;
		const struct b_seg *s = &b->seg[i];

		put(p, s->type, 4);
		if (b->is64) {
			put(p + 4, s->flags, 4);
			put(p + 8, s->offset, 8);
			put(p + 16, s->vaddr, 8);
			put(p + 24, s->vaddr, 8);
			put(p + 32, s->filesz, 8);
			put(p + 40, s->memsz, 8);
			put(p + 48, 4, 8);
		} else {
			put(p + 4, s->offset, 4);
			put(p + 8, s->vaddr, 4);
			put(p + 12, s->vaddr, 4);
			put(p + 16, s->filesz, 4);
			put(p + 20, s->memsz, 4);
			put(p + 24, s->flags, 4);
			put(p + 28, 4, 4);
		}
	}
	/* The note: namesz 4 "GNU\0", descsz, type 3. */
	put(note, 4, 4);
	put(note + 4, b->idlen, 4);
	put(note + 8, 3, 4);
	memcpy(note + 12, "GNU", 4);
	memcpy(note + 16, b->id, b->idlen);
	/* Symbols (entry 0 is the null symbol). */
	for (i = 0; i < b->nsym; i++) {
		uint8_t *p = e + B_SYM + (i + 1) * symsz;
		const struct b_sym *s = &b->sym[i];
		size_t nm = add_str(e + B_STR, &strlen_, s->name);

		put(p, nm, 4);
		if (b->is64) {
			p[4] = s->info;
			put(p + 6, s->shndx, 2);
			put(p + 8, s->value, 8);
			put(p + 16, s->size, 8);
		} else {
			put(p + 4, s->value, 4);
			put(p + 8, s->size, 4);
			p[12] = s->info;
			put(p + 14, s->shndx, 2);
		}
	}
	n_text = (uint32_t)add_str(e + B_SHSTR, &shlen, ".text");
	n_note = (uint32_t)add_str(e + B_SHSTR, &shlen, ".note.gnu.build-id");
	n_sym = (uint32_t)add_str(e + B_SHSTR, &shlen, ".symtab");
	n_str = (uint32_t)add_str(e + B_SHSTR, &shlen, ".strtab");
	n_sh = (uint32_t)add_str(e + B_SHSTR, &shlen, ".shstrtab");
	n_data = (uint32_t)add_str(e + B_SHSTR, &shlen, ".data");
	b_shdr(b, S_TEXT, n_text, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
	       b->text_addr, B_TEXT, 0x100, 0, 0, 4);
	b_shdr(b, S_NOTE, n_note, SHT_NOTE, SHF_ALLOC, 0, B_NOTE,
	       16 + ((b->idlen + 3) & ~(size_t)3), 0, 0, 4);
	b_shdr(b, S_SYMTAB, n_sym, SHT_SYMTAB, 0, 0, B_SYM,
	       (b->nsym + 1) * symsz, S_STRTAB, symsz, 8);
	b_shdr(b, S_STRTAB, n_str, SHT_STRTAB, 0, 0, B_STR, strlen_, 0, 0, 1);
	b_shdr(b, S_SHSTR, n_sh, SHT_STRTAB, 0, 0, B_SHSTR, shlen, 0, 0, 1);
	b_shdr(b, S_DATA, n_data, SHT_PROGBITS, SHF_ALLOC | SHF_WRITE,
	       b->text_addr + 0x100, B_TEXT + 0x100, 0x100, 0, 0, 4);
	for (i = 0; i < 0x100; i++)
		e[B_TEXT + i] = (uint8_t)i;
}

static void b_sym(struct bld *b, const char *name, uint64_t value,
		  uint64_t size, unsigned bind, unsigned type, uint16_t shndx)
{
	struct b_sym *s = &b->sym[b->nsym++];

	assert_true(b->nsym <= 15);
	s->name = name;
	s->value = value;
	s->size = size;
	s->info = (unsigned char)((bind << 4) | type);
	s->shndx = shndx;
}

/* A 32-bit ARM executable: a read-only segment at 0x8000 (file 0x0,
 * 0x200 bytes), code at 0x9000 (file 0x1000, 0x100 bytes, R+X), data at
 * 0xa000 (file 0x1100, 0x100 bytes in the file, 0x400 in memory, R+W),
 * and code at 0xb000 (file 0x1000 again... no: the same bytes once more,
 * R+X), with Thumb and ARM functions, mapping symbols, aliases. */
static void b_arm(struct bld *b)
{
	memset(b, 0, sizeof(*b));
	b->is64 = 0;
	b->machine = EM_ARM;
	b->type = ET_EXEC;
	b->text_addr = 0x9000;
	b->seg[0] = (struct b_seg){ PT_LOAD, PF_R, 0, 0x8000, 0x200, 0x200 };
	b->seg[1] = (struct b_seg){ PT_LOAD, PF_R | PF_X, 0x1000, 0x9000,
				    0x100, 0x100 };
	b->seg[2] = (struct b_seg){ PT_LOAD, PF_R | PF_W, 0x1100, 0xa000,
				    0x100, 0x400 };
	b->seg[3] = (struct b_seg){ PT_NOTE, PF_R, B_NOTE, 0x8200, 0x24, 0x24 };
	b->nseg = 4;
	b->idlen = 20;
	for (size_t i = 0; i < 20; i++)
		b->id[i] = (uint8_t)(0xa0 + i);
	/* Thumb function: st_value has bit 0 set. */
	b_sym(b, "thumb_fn", 0x9001, 0x40, STB_GLOBAL, STT_FUNC, S_TEXT);
	b_sym(b, "$t", 0x9000, 0, STB_LOCAL, STT_NOTYPE, S_TEXT);
	b_sym(b, "$a.1", 0x9080, 0, STB_LOCAL, STT_NOTYPE, S_TEXT);
	b_sym(b, "$d", 0x90f0, 0, STB_LOCAL, STT_NOTYPE, S_TEXT);
	/* A label (NOTYPE) in code, size 0. */
	b_sym(b, "label", 0x9080, 0, STB_LOCAL, STT_NOTYPE, S_TEXT);
	/* Aliases at 0x90c0: the sized one is kept. */
	b_sym(b, "a_alias", 0x90c0, 0, STB_GLOBAL, STT_FUNC, S_TEXT);
	b_sym(b, "b_real", 0x90c0, 0x10, STB_GLOBAL, STT_FUNC, S_TEXT);
	/* Not functions: data object, NOTYPE in data, undefined, section. */
	b_sym(b, "an_object", 0xa000, 4, STB_GLOBAL, STT_OBJECT, S_DATA);
	b_sym(b, "data_label", 0xa010, 0, STB_GLOBAL, STT_NOTYPE, S_DATA);
	b_sym(b, "undefined_fn", 0, 0, STB_GLOBAL, STT_FUNC, SHN_UNDEF);
	b_sym(b, "", 0x9000, 0, STB_LOCAL, STT_SECTION, S_TEXT);
	b_build(b);
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

	assert_int_equal(elf_file_offset_to_vaddr(ef, 0x0, &v), 0);
	assert_int_equal(v, 0x8000);
	assert_int_equal(elf_file_offset_to_vaddr(ef, 0x1ff, &v), 0);
	assert_int_equal(v, 0x81ff);
	assert_int_equal(elf_file_offset_to_vaddr(ef, 0x200, &v),
			 -etmkit_err_not_found);
	assert_int_equal(elf_file_offset_to_vaddr(ef, 0x1010, &v), 0);
	assert_int_equal(v, 0x9010);
	assert_int_equal(elf_file_offset_to_vaddr(ef, 0x11ff, &v), 0);
	assert_int_equal(v, 0xa0ff);
	assert_int_equal(elf_file_offset_to_vaddr(ef, 0x1200, &v),
			 -etmkit_err_not_found);
	assert_int_equal(elf_file_vaddr_to_offset(ef, 0x9010, &o), 0);
	assert_int_equal(o, 0x1010);
	assert_int_equal(elf_file_vaddr_to_offset(ef, 0x7010, &o), 0);
	assert_int_equal(o, 0x110);
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
		cmocka_unit_test(test_loop_binary),
		cmocka_unit_test(test_kernel_module),
		cmocka_unit_test(test_arm_symbols),
		cmocka_unit_test(test_size0_last),
		cmocka_unit_test(test_segments),
		cmocka_unit_test(test_rel64),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_null_arguments),
		cmocka_unit_test(test_locate),
		cmocka_unit_test(test_locate_symbols),
		cmocka_unit_test(test_locate_spans),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	return test_exit(failed, shared_missing());
}
