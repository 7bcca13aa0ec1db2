/* Unit tests of ELF files in program images (src/image/): files built
 * here at run time, byte by byte (32-bit ARM executable, 64-bit
 * executable, relocatable object, and damaged ones), read back through
 * image_add_elf(). Split from test_image.c (issue 17); the fixtures both
 * use are in image_fixture.h.
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

/* ---- ELF files, built byte by byte --------------------------------------- */

struct elf_seg {
	uint32_t type;
	uint64_t offset, vaddr, filesz, memsz;
};

struct elf_sec {
	uint32_t type;
	uint64_t flags, addr, offset, size;
};

/* An ELF file of @size pattern() bytes with headers on top: the file
 * header at 0, program headers after it, section headers (a null one
 * first) at 0x600. */
struct elf_spec {
	int is64, big;
	uint32_t xnum;  /* not 0: e_phnum is PN_XNUM, section 0 says xnum */
	uint16_t type, machine;
	size_t nsegs, nsecs;
	struct elf_seg segs[4];
	struct elf_sec secs[6];
	size_t size;
};

enum { ELF_SHOFF = 0x600, ELF_SIZE = 0x800 };

static void put(uint8_t *b, size_t off, uint64_t v, int n, int big)
{
	int i;

	for (i = 0; i < n; i++)
		b[off + (big ? n - 1 - i : i)] = (uint8_t)(v >> (8 * i));
}

static void elf_put_ehdr(const struct elf_spec *s, uint8_t *b)
{
	int w = s->is64 ? 8 : 4, big = s->big;
	size_t o = s->is64 ? 24 + 3 * 8 : 24 + 3 * 4; /* e_flags */

	memset(b, 0, s->is64 ? 64 : 52);
	memcpy(b, ELFMAG, SELFMAG);
	b[EI_CLASS] = s->is64 ? ELFCLASS64 : ELFCLASS32;
	b[EI_DATA] = big ? ELFDATA2MSB : ELFDATA2LSB;
	b[EI_VERSION] = EV_CURRENT;
	put(b, 16, s->type, 2, big);
	put(b, 18, s->machine, 2, big);
	put(b, 20, EV_CURRENT, 4, big);
	put(b, 24, 0x8000, w, big);                           /* e_entry */
	put(b, 24 + w, s->nsegs ? (s->is64 ? 64 : 52) : 0, w, big);
	put(b, 24 + 2 * w, s->nsecs || s->xnum ? ELF_SHOFF : 0, w, big);
	put(b, o + 4, s->is64 ? 64 : 52, 2, big);             /* e_ehsize */
	put(b, o + 6, s->is64 ? 56 : 32, 2, big);             /* e_phentsize */
	put(b, o + 8, s->xnum ? PN_XNUM : s->nsegs, 2, big);
	put(b, o + 10, s->is64 ? 64 : 40, 2, big);            /* e_shentsize */
	put(b, o + 12, s->nsecs || s->xnum ? s->nsecs + 1 : 0, 2, big);
}

static void elf_put_phdr(const struct elf_spec *s, uint8_t *b,
			 const struct elf_seg *g)
{
	int big = s->big;

	if (s->is64) {
		memset(b, 0, 56);
		put(b, 0, g->type, 4, big);
		put(b, 4, PF_R | PF_X, 4, big);
		put(b, 8, g->offset, 8, big);
		put(b, 16, g->vaddr, 8, big);
		put(b, 24, g->vaddr, 8, big);
		put(b, 32, g->filesz, 8, big);
		put(b, 40, g->memsz, 8, big);
		put(b, 48, 4, 8, big);
	} else {
		memset(b, 0, 32);
		put(b, 0, g->type, 4, big);
		put(b, 4, g->offset, 4, big);
		put(b, 8, g->vaddr, 4, big);
		put(b, 12, g->vaddr, 4, big);
		put(b, 16, g->filesz, 4, big);
		put(b, 20, g->memsz, 4, big);
		put(b, 24, PF_R | PF_X, 4, big);
		put(b, 28, 4, 4, big);
	}
}

static void elf_put_shdr(const struct elf_spec *s, uint8_t *b,
			 const struct elf_sec *c, uint32_t info)
{
	int big = s->big, w = s->is64 ? 8 : 4;

	memset(b, 0, s->is64 ? 64 : 40);
	put(b, 8 + 4 * w + 4, info, 4, big); /* sh_info */
	put(b, 4, c->type, 4, big);
	put(b, 8, c->flags, w, big);
	put(b, 8 + w, c->addr, w, big);
	put(b, 8 + 2 * w, c->offset, w, big);
	put(b, 8 + 3 * w, c->size, w, big);
	put(b, 8 + 4 * w + 8, 4, w, big); /* sh_addralign */
}

/* Build @s into @b (at least s->size bytes). */
static void elf_build(const struct elf_spec *s, uint8_t *b)
{
	static const struct elf_sec null_sec;
	size_t i, ph = s->is64 ? 56 : 32, sh = s->is64 ? 64 : 40;
	size_t phoff = s->is64 ? 64 : 52;

	for (i = 0; i < s->size; i++)
		b[i] = pattern(i);
	elf_put_ehdr(s, b);
	for (i = 0; i < s->nsegs; i++)
		elf_put_phdr(s, b + phoff + i * ph, &s->segs[i]);
	if (s->nsecs || s->xnum)
		elf_put_shdr(s, b + ELF_SHOFF, &null_sec, s->xnum);
	for (i = 0; i < s->nsecs; i++)
		elf_put_shdr(s, b + ELF_SHOFF + (i + 1) * sh, &s->secs[i], 0);
}

static const char *tmp_elf(struct tmp *t, const char *name,
			   const struct elf_spec *s)
{
	static uint8_t b[ELF_SIZE];

	assert_true(s->size <= sizeof(b));
	elf_build(s, b);
	return tmp_write(t, name, b, s->size);
}

/* A 32-bit ARM executable: code at 0x8000 (file 0x100..0x1ff), data at
 * 0x20000 with .bss after it (memsz > filesz), a note and an empty
 * PT_LOAD that map nothing. */
static struct elf_spec elf32_exec(void)
{
	struct elf_spec s = {
		.is64 = 0, .type = ET_EXEC, .machine = EM_ARM, .nsegs = 4,
		.segs = {
			{ PT_LOAD, 0x100, 0x8000, 0x100, 0x100 },
			{ PT_NOTE, 0x200, 0x9000, 0x20, 0x20 },
			{ PT_LOAD, 0x300, 0x20000, 0x80, 0x400 },
			{ PT_LOAD, 0x400, 0x30000, 0, 0x100 },
		},
		.size = ELF_SIZE,
	};

	return s;
}

/* An ELF file for another architecture (an x86-64 program such as
 * /bin/ls given by mistake) holds no code an Arm trace unit can have
 * traced: refused as unsupported, naming the machine, and nothing is
 * mapped. EM_ARM and EM_AARCH64 are accepted (test_elf32, test_elf64). */
static void test_elf_machine(void **state)
{
	struct elf_spec s = elf32_exec();
	struct image_diag d;
	struct image *img = new_image();
	struct tmp t;
	char path[192];

	(void)state;
	tmp_init(&t);
	s.is64 = 1;
	s.machine = EM_X86_64;
	snprintf(path, sizeof(path), "%s", tmp_elf(&t, "x86.elf", &s));
	assert_int_equal(image_add_elf(img, path, 0, 0, &d),
			 -etmkit_err_unsupported);
	assert_string_equal(d.path, path);
	assert_contains(d.message, "x86-64");
	assert_contains(d.message, "not Arm");
	assert_int_equal(image_region_count(img), 0);
	s.is64 = 0;
	s.machine = EM_386;
	snprintf(path, sizeof(path), "%s", tmp_elf(&t, "i386.elf", &s));
	assert_int_equal(image_add_elf(img, path, 0, 0, &d),
			 -etmkit_err_unsupported);
	assert_contains(d.message, "machine 3");
	assert_int_equal(image_region_count(img), 0);
	image_free(img);
	tmp_remove(&t);
}

static void test_elf32(void **state)
{
	struct elf_spec s = elf32_exec();
	const struct image_region *r;
	struct image_diag d;
	struct image *img = new_image();
	uint8_t buf[16];
	struct tmp t;
	char path[192];

	(void)state;
	tmp_init(&t);
	snprintf(path, sizeof(path), "%s", tmp_elf(&t, "arm.elf", &s));
	assert_int_equal(image_add_elf(img, path, 0, IMAGE_SPACE_N, &d), 0);
	assert_string_equal(d.message, "");
	assert_int_equal(image_region_count(img), 2);
	r = image_region_at(img, 0);
	assert_int_equal(r->addr, 0x8000);
	assert_int_equal(r->length, 0x100);
	assert_int_equal(r->offset, 0x100);
	assert_int_equal(r->spaces, IMAGE_SPACE_N);
	assert_string_equal(r->path, path);
	r = image_region_at(img, 1);
	assert_int_equal(r->addr, 0x20000);
	assert_int_equal(r->length, 0x80);
	assert_int_equal(r->offset, 0x300);
	check_pattern(img, IMAGE_SPACE_EL1N, 0x8000, 0x100, 0x100);
	check_pattern(img, IMAGE_SPACE_EL1N, 0x20000, 0x80, 0x300);
	/* .bss has no file bytes: unmapped. */
	assert_int_equal(image_read(img, IMAGE_SPACE_EL1N, 0x2007c, buf, 16),
			 4);
	assert_int_equal(image_read(img, IMAGE_SPACE_EL1N, 0x20080, buf, 16),
			 0);
	assert_int_equal(image_read(img, IMAGE_SPACE_EL1N, 0x9000, buf, 16), 0);
	assert_int_equal(image_read(img, IMAGE_SPACE_EL1N, 0x30000, buf, 16),
			 0);
	assert_int_equal(image_read(img, IMAGE_SPACE_EL1S, 0x8000, buf, 16), 0);

	/* The count in section 0 (PN_XNUM), as files with 65535 or more
	 * program headers give it. */
	s.xnum = 4;
	snprintf(path, sizeof(path), "%s", tmp_elf(&t, "xnum.elf", &s));
	assert_int_equal(image_add_elf(img, path, 0x100000, 0, &d), 0);
	assert_int_equal(image_region_count(img), 4);
	check_pattern(img, IMAGE_SPACE_ANY, 0x120000, 0x80, 0x300);

	/* With a bias, modulo 2^64: 0x8000 - 0x1000. */
	assert_int_equal(image_add_elf(img, path, (uint64_t)-0x1000, 0, &d), 0);
	assert_int_equal(image_region_count(img), 6);
	assert_int_equal(image_region_at(img, 4)->addr, 0x7000);
	assert_int_equal(image_region_at(img, 4)->spaces, IMAGE_SPACE_ANY);
	check_pattern(img, IMAGE_SPACE_EL1S, 0x7000, 0x100, 0x100);
	image_free(img);
	tmp_remove(&t);
}

static void test_elf64(void **state)
{
	const uint64_t va = 0xffffffc000080000ull;
	struct elf_spec s = {
		.is64 = 1, .type = ET_EXEC, .machine = EM_AARCH64, .nsegs = 2,
		.segs = {
			{ PT_LOAD, 0x100, va, 0x180, 0x200 },
			{ PT_LOAD, 0x400, va + 0x1000, 0x200, 0x200 },
		},
		.size = ELF_SIZE,
	};
	struct image_diag d;
	struct image *img = new_image();
	struct tmp t;
	char path[192];

	(void)state;
	tmp_init(&t);
	snprintf(path, sizeof(path), "%s", tmp_elf(&t, "a64.elf", &s));
	assert_int_equal(image_add_elf(img, path, 0, 0, &d), 0);
	assert_int_equal(image_region_count(img), 2);
	assert_int_equal(image_region_at(img, 0)->addr, va);
	assert_int_equal(image_region_at(img, 1)->addr, va + 0x1000);
	assert_int_equal(image_region_at(img, 1)->length, 0x200);
	check_pattern(img, IMAGE_SPACE_ANY, va, 0x180, 0x100);
	check_pattern(img, IMAGE_SPACE_ANY, va + 0x1000, 0x200, 0x400);
	/* A bias that takes a segment past 2^64 is refused, and the first
	 * segment, already checked, is not left behind. */
	assert_int_equal(image_add_elf(img, path, (uint64_t)0 - va - 0x1100, 0,
				       &d),
			 -etmkit_err_format);
	assert_string_equal(d.path, path);
	assert_contains(d.message, "segment 1");
	assert_contains(d.message, "top of the 64-bit address space");
	assert_int_equal(image_region_count(img), 2);
	image_free(img);
	tmp_remove(&t);
}

/* A relocatable object: no program headers, so allocated sections with
 * file bytes are mapped at sh_addr + bias. */
static void test_elf_rel(void **state)
{
	struct elf_spec s = {
		.is64 = 0, .type = ET_REL, .machine = EM_ARM, .nsecs = 5,
		.secs = {
			{ SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0, 0x100,
			  0x40 },                                  /* .text */
			{ SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 0x1000, 0x140,
			  0x20 },                                  /* .data */
			{ SHT_NOBITS, SHF_ALLOC | SHF_WRITE, 0x2000, 0x160,
			  0x100 },                                 /* .bss */
			{ SHT_PROGBITS, 0, 0x3000, 0x160, 0x10 }, /* .comment */
			{ SHT_PROGBITS, SHF_ALLOC, 0x4000, 0x200, 0 },
		},
		.size = ELF_SIZE,
	};
	struct image_diag d;
	struct image *img = new_image();
	uint8_t buf[4];
	struct tmp t;
	char path[192];

	(void)state;
	tmp_init(&t);
	snprintf(path, sizeof(path), "%s", tmp_elf(&t, "obj.o", &s));
	assert_int_equal(image_add_elf(img, path, 0x10000, IMAGE_SPACE_S, &d),
			 0);
	assert_int_equal(image_region_count(img), 2);
	assert_int_equal(image_region_at(img, 0)->addr, 0x10000);
	assert_int_equal(image_region_at(img, 0)->offset, 0x100);
	assert_int_equal(image_region_at(img, 1)->addr, 0x11000);
	check_pattern(img, IMAGE_SPACE_EL3, 0x10000, 0x40, 0x100);
	check_pattern(img, IMAGE_SPACE_EL3, 0x11000, 0x20, 0x140);
	assert_int_equal(image_read(img, IMAGE_SPACE_EL3, 0x12000, buf, 4), 0);
	assert_int_equal(image_read(img, IMAGE_SPACE_EL3, 0x13000, buf, 4), 0);

	/* The 64-bit form of the same object. */
	s.is64 = 1;
	s.machine = EM_AARCH64;
	snprintf(path, sizeof(path), "%s", tmp_elf(&t, "obj64.o", &s));
	assert_int_equal(image_add_elf(img, path, 0, 0, &d), 0);
	assert_int_equal(image_region_count(img), 4);
	check_pattern(img, IMAGE_SPACE_ANY, 0x1000, 0x20, 0x140);

	/* A section beyond the end of the file. */
	s.secs[1].size = ELF_SIZE;
	snprintf(path, sizeof(path), "%s", tmp_elf(&t, "bad.o", &s));
	assert_int_equal(image_add_elf(img, path, 0, 0, &d),
			 -etmkit_err_format);
	assert_string_equal(d.path, path);
	assert_contains(d.message, "section 2");
	assert_contains(d.message, "past the end of the file");
	/* No allocated section with file bytes. */
	s.secs[1].size = 0x20;
	s.secs[0].flags = 0;
	s.secs[1].flags = 0;
	snprintf(path, sizeof(path), "%s", tmp_elf(&t, "none.o", &s));
	assert_int_equal(image_add_elf(img, path, 0, 0, &d),
			 -etmkit_err_format);
	assert_contains(d.message, "nothing to map");
	assert_int_equal(image_region_count(img), 4);
	/* An unlinked object as a compiler writes it: .text and .data both
	 * at address 0 would hide each other. Refused, nothing added. */
	s.secs[0].flags = SHF_ALLOC | SHF_EXECINSTR;
	s.secs[1].flags = SHF_ALLOC | SHF_WRITE;
	s.secs[1].addr = 0x30; /* inside .text's 0x40 bytes */
	snprintf(path, sizeof(path), "%s", tmp_elf(&t, "unlinked.o", &s));
	assert_int_equal(image_add_elf(img, path, 0, 0, &d),
			 -etmkit_err_format);
	assert_contains(d.message, "sections 1 and 2 overlap at 0x30");
	assert_int_equal(image_region_count(img), 4);
	s.secs[1].addr = 0x40; /* right after it: fine */
	snprintf(path, sizeof(path), "%s", tmp_elf(&t, "adjacent.o", &s));
	assert_int_equal(image_add_elf(img, path, 0x20000, 0, &d), 0);
	assert_int_equal(image_region_count(img), 6);
	check_pattern(img, IMAGE_SPACE_ANY, 0x20040, 0x20, 0x140);
	image_free(img);
	tmp_remove(&t);
}

/* Write @s (then @n bytes of it, and byte @at set to @val if @at is not
 * 0), add it, and check it fails with -etmkit_err_format, a message
 * holding @part and naming the file, and no region added. */
static void elf_bad(const struct elf_spec *s, size_t n, size_t at,
		    uint8_t val, const char *part)
{
	static uint8_t b[ELF_SIZE];
	struct image_diag d;
	struct image *img = new_image();
	struct tmp t;
	char path[192];
	int rc;

	tmp_init(&t);
	elf_build(s, b);
	if (at)
		b[at] = val;
	snprintf(path, sizeof(path), "%s", tmp_write(&t, "bad.elf", b, n));
	assert_int_equal(image_add_buffer(img, b, 4, 0, 0), 0);
	memset(&d, 0, sizeof(d));
	rc = image_add_elf(img, path, 0, 0, &d);
	tmp_remove(&t); /* before a check can fail */
	if (rc != -etmkit_err_format)
		fail_msg("%s: %d (%s)", part, rc, d.message);
	assert_string_equal(d.path, path);
	assert_contains(d.message, part);
	assert_int_equal(image_region_count(img), 1);
	image_free(img);
}

static void test_elf_damaged(void **state)
{
	struct elf_spec s = elf32_exec();
	struct elf_spec be = elf32_exec();
	struct elf_spec s64 = elf32_exec();

	(void)state;
	be.big = 1;
	elf_bad(&be, ELF_SIZE, 0, 0, "big-endian");
	be.is64 = 1;
	elf_bad(&be, ELF_SIZE, 0, 0, "big-endian");
	/* Cut inside the file header, inside the program headers. */
	elf_bad(&s, 30, 0, 0, "cut short");
	elf_bad(&s, 12, 0, 0, "cut short");
	elf_bad(&s, 3, 0, 0, "not an ELF file");
	elf_bad(&s, 52 + 40, 0, 0, "program header table");
	s64.is64 = 1;
	elf_bad(&s64, 64 + 56 + 8, 0, 0, "program header table");
	/* Not ELF at all; unknown class; unknown data encoding. */
	elf_bad(&s, ELF_SIZE, 1, 'X', "not an ELF file");
	elf_bad(&s, ELF_SIZE, EI_CLASS, 9, "class");
	elf_bad(&s, ELF_SIZE, EI_DATA, 7, "encoding");
	/* e_phoff far past the end; e_phentsize wrong. */
	elf_bad(&s, ELF_SIZE, 31, 0x40, "program header table");
	elf_bad(&s, ELF_SIZE, 42, 33, "program header entries");
	/* A segment past the end of the file: the second PT_LOAD, so the
	 * first must be rolled back. */
	s.segs[2].filesz = ELF_SIZE;
	s.segs[2].memsz = ELF_SIZE;
	elf_bad(&s, ELF_SIZE, 0, 0, "segment 2");
	s.segs[2].filesz = 0x80;
	s.segs[2].offset = 0xffffff00u;
	elf_bad(&s, ELF_SIZE, 0, 0, "past the end of the file");
	/* More file bytes than memory bytes (gABI forbids it). */
	s = elf32_exec();
	s.segs[2].memsz = s.segs[2].filesz - 1;
	elf_bad(&s, ELF_SIZE, 0, 0, "larger than p_memsz");
	/* PN_XNUM: a count in section 0 beyond the file (libelf alone would
	 * cut it to the entries the file holds). */
	s = elf32_exec();
	s.xnum = 100;
	elf_bad(&s, ELF_SIZE, 0, 0, "program header table");
	/* Nothing loadable. */
	s = elf32_exec();
	s.segs[0].type = PT_NOTE;
	s.segs[2].filesz = 0;
	elf_bad(&s, ELF_SIZE, 0, 0, "nothing to map");
	/* Section headers cut off in an object. */
	s = elf32_exec();
	s.nsegs = 0;
	s.nsecs = 1;
	s.secs[0] = (struct elf_sec){ SHT_PROGBITS, SHF_ALLOC, 0, 0x100, 0x10 };
	elf_bad(&s, ELF_SHOFF + 50, 0, 0, "section header table");
}

/* Every ELF file the tests can produce, cut at every length and with
 * every header byte flipped: never a crash, and errors name the file. */
static void test_elf_mutations(void **state)
{
	struct elf_spec specs[2] = { elf32_exec(), elf32_exec() };
	static uint8_t b[ELF_SIZE];
	struct image_diag d;
	struct tmp t;
	char path[192];
	size_t k, i;
	int rc;

	(void)state;
	specs[1].is64 = 1;
	tmp_init(&t);
	snprintf(path, sizeof(path), "%s", tmp_write(&t, "m.elf", "", 0));
	for (k = 0; k < 2; k++) {
		for (i = 0; i < 64 + 4 * 56; i++) {
			struct image *img = new_image();

			elf_build(&specs[k], b);
			b[i] ^= (uint8_t)(0x80 >> (i % 8));
			tmp_write(&t, "m.elf", b, i % 3 ? ELF_SIZE : i);
			t.n--;
			rc = image_add_elf(img, path, 0, 0, &d);
			if (rc) {
				/* A flipped e_machine: not Arm. */
				if (rc != -etmkit_err_unsupported)
					assert_int_equal(rc, -etmkit_err_format);
				assert_string_equal(d.path, path);
				assert_true(d.message[0] != '\0');
				assert_int_equal(image_region_count(img), 0);
			}
			/* Accepted: every region lies inside the file as
			 * written, and reads give its bytes (checked for
			 * each: no later region overlaps in these files). */
			for (size_t r = 0; !rc && r < image_region_count(img);
			     r++) {
				const struct image_region *g =
					image_region_at(img, r);
				size_t flen = i % 3 ? ELF_SIZE : i;
				uint8_t got[16];
				size_t n;

				assert_true(g->length > 0 &&
					    g->offset <= flen &&
					    g->length <= flen - g->offset);
				n = image_read(img, IMAGE_SPACE_ANY, g->addr,
					       got, sizeof(got));
				assert_true(n > 0);
				if (n > g->length)
					n = (size_t)g->length;
				assert_memory_equal(got, b + g->offset, n);
			}
			image_free(img);
		}
	}
	tmp_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_elf32),
		cmocka_unit_test(test_elf_machine),
		cmocka_unit_test(test_elf64),
		cmocka_unit_test(test_elf_rel),
		cmocka_unit_test(test_elf_damaged),
		cmocka_unit_test(test_elf_mutations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL) ? 1 : 0;
}
