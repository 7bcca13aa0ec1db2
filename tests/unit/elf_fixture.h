/* Fixtures shared by the ELF reader and locator tests (test_elf_file.c,
 * test_locate.c): the real binaries of the perf recordings in
 * ../shared/testdata/perf, and ELF files built byte by byte in memory
 * (struct bld, b_arm()). Include after <cmocka.h> and "unit/test_util.h";
 * functions are static inline so that each test uses what it needs. */
#ifndef ETMKIT_TESTS_ELF_FIXTURE_H
#define ETMKIT_TESTS_ELF_FIXTURE_H

#include <elf.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#define PERF_DIR ETMKIT_SHARED_DIR "/testdata/perf"
#define LOOP_ELF PERF_DIR "/etm_test_loop"
#define KO_ELF PERF_DIR "/rq_stats.ko"

static inline int shared_missing(void)
{
	struct stat st;

	return stat(LOOP_ELF, &st) != 0 || stat(KO_ELF, &st) != 0;
}

static inline void need_shared(void)
{
	test_need(shared_missing(), ETMKIT_SHARED_DIR);
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

static inline void put(uint8_t *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline size_t add_str(uint8_t *tab, size_t *len, const char *s)
{
	size_t at = *len;

	memcpy(tab + at, s, strlen(s) + 1);
	*len += strlen(s) + 1;
	return at;
}

static inline void b_shdr(struct bld *b, int i, uint32_t name,
			  uint32_t type, uint64_t flags, uint64_t addr,
			  uint64_t off, uint64_t size, uint32_t link,
			  uint64_t entsize, uint64_t align)
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
static inline void b_build(struct bld *b)
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

static inline void b_sym(struct bld *b, const char *name, uint64_t value,
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
static inline void b_arm(struct bld *b)
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

#endif
