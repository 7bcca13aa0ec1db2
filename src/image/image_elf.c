/* etmkit: ELF files in program images (image_add_elf(), image.h).
 *
 * libelf (elfutils) reads the headers; we map the whole file once and
 * point regions into that mapping. libelf hides some damage rather than
 * reporting it (a program or section header table cut by the end of the
 * file reads as a shorter or empty one), so the table bounds and every
 * segment's and section's file bytes are checked here against the file
 * size before anything is mapped as a region.
 *
 * What is mapped (ELF gABI, "Program Loading"): each PT_LOAD segment's
 * p_filesz file bytes at p_vaddr; the rest of p_memsz (.bss) has no bytes
 * in the file and is left unmapped. A file without program headers (a
 * relocatable object) has its SHF_ALLOC sections with file bytes mapped
 * at sh_addr instead.
 */
#define _POSIX_C_SOURCE 200809L

#include "image/image_internal.h"

#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* State of one image_add_elf() call. */
struct elf_load {
	struct image *img;
	struct img_file f;
	Elf *elf;
	GElf_Ehdr eh;
	const uint8_t *bytes; /* the whole file, mapped */
	const char *path;     /* the image's copy of the file name */
	uint64_t bias;
	uint8_t spaces;
	size_t added;         /* regions added */
	struct image_diag *d;
};

static const char *libelf_error(void)
{
	const char *msg = elf_errmsg(-1);

	return msg ? msg : "unknown libelf error";
}

static int elf_fail_libelf(struct elf_load *ld, const char *what)
{
	return img_fail(ld->d, -etmkit_err_format, ld->f.path, "%s: %s", what,
			libelf_error());
}

/* The bytes of e_ident the file has. */
static size_t ident_size(const struct elf_load *ld)
{
	return ld->f.size < EI_NIDENT ? (size_t)ld->f.size : EI_NIDENT;
}

/* Why e_ident (@n bytes at @ident) is not one we read. */
static int elf_ident_fail(struct elf_load *ld, const uint8_t *ident,
			  size_t n)
{
	const char *path = ld->f.path;
	size_t ehsize;

	if (n < SELFMAG || memcmp(ident, ELFMAG, SELFMAG) != 0)
		return img_fail(ld->d, -etmkit_err_format, path,
				"not an ELF file");
	if (n < EI_NIDENT)
		return img_fail(ld->d, -etmkit_err_format, path,
				"ELF header cut short (%zu bytes)", n);
	if (ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64)
		return img_fail(ld->d, -etmkit_err_format, path,
				"unknown ELF class %d", ident[EI_CLASS]);
	if (ident[EI_DATA] == ELFDATA2MSB)
		return img_fail(ld->d, -etmkit_err_format, path,
				"big-endian ELF files are not supported");
	if (ident[EI_DATA] != ELFDATA2LSB)
		return img_fail(ld->d, -etmkit_err_format, path,
				"unknown ELF data encoding %d",
				ident[EI_DATA]);
	ehsize = ident[EI_CLASS] == ELFCLASS32 ? sizeof(Elf32_Ehdr)
					       : sizeof(Elf64_Ehdr);
	if (ld->f.size < ehsize)
		return img_fail(ld->d, -etmkit_err_format, path,
				"ELF header cut short (%" PRIu64 " of %zu "
				"bytes)",
				ld->f.size, ehsize);
	return elf_fail_libelf(ld, "corrupt ELF header");
}

/* A few machines (ELF gABI e_machine) a file given by mistake is likely
 * to be for, by name. */
static const char *machine_name(unsigned m)
{
	switch (m) {
	case EM_386: return "i386";
	case EM_X86_64: return "x86-64";
	case EM_MIPS: return "MIPS";
	case EM_PPC: return "PowerPC";
	case EM_PPC64: return "PowerPC 64";
	case EM_S390: return "S/390";
#ifdef EM_RISCV
	case EM_RISCV: return "RISC-V";
#endif
	default: return "";
	}
}

/* Only Arm code can have been traced by an ETM or ETE: EM_ARM (A32, T32)
 * or EM_AARCH64. Whether the family fits the trace protocol (no A64 under
 * ETMv3) is for the caller, which knows the protocol. */
static int elf_check_machine(struct elf_load *ld)
{
	unsigned m = ld->eh.e_machine;
	const char *name = machine_name(m);

	if (m == EM_ARM || m == EM_AARCH64)
		return 0;
	return img_fail(ld->d, -etmkit_err_unsupported, ld->f.path,
			"ELF file for machine %u%s%s%s, not Arm (EM_ARM %u or "
			"EM_AARCH64 %u): it holds no code an Arm trace unit "
			"traced", m, *name ? " (" : "", name, *name ? ")" : "",
			(unsigned)EM_ARM, (unsigned)EM_AARCH64);
}

/* ELF, 32- or 64-bit, little-endian; then its file header. libelf takes
 * a file whose identification it does not know for plain data, and fails
 * on one whose header is cut short: the mapped bytes say which. */
static int elf_check_header(struct elf_load *ld)
{
	const char *ident;
	size_t n = 0;

	if (elf_kind(ld->elf) != ELF_K_ELF)
		return elf_ident_fail(ld, ld->bytes, ident_size(ld));
	ident = elf_getident(ld->elf, &n);
	if (!ident || n < EI_NIDENT)
		return elf_fail_libelf(ld, "corrupt ELF identification");
	if (ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64)
		return elf_ident_fail(ld, (const uint8_t *)ident, n);
	if (ident[EI_DATA] != ELFDATA2LSB)
		return elf_ident_fail(ld, (const uint8_t *)ident, n);
	if (!gelf_getehdr(ld->elf, &ld->eh))
		return elf_fail_libelf(ld, "corrupt ELF header");
	return elf_check_machine(ld);
}

/* A header table of @count entries of @entsize bytes (libelf expects
 * @want) at @off must lie inside the file. */
static int elf_check_table(struct elf_load *ld, const char *what,
			   uint64_t off, uint64_t count, uint64_t entsize,
			   size_t want)
{
	if (want == 0 || entsize != want)
		return img_fail(ld->d, -etmkit_err_format, ld->f.path,
				"%s entries of %" PRIu64 " bytes (expected %zu)",
				what, entsize, want);
	if (off > ld->f.size || count > (ld->f.size - off) / entsize)
		return img_fail(ld->d, -etmkit_err_format, ld->f.path,
				"%s table (%" PRIu64 " entries at offset 0x%"
				PRIx64 ") runs past the end of the file (%"
				PRIu64 " bytes)",
				what, count, off, ld->f.size);
	return 0;
}

/* Map @size file bytes from @offset at @addr + bias: segment or section
 * @idx (@what). */
static int elf_add(struct elf_load *ld, const char *what, size_t idx,
		   uint64_t addr, uint64_t offset, uint64_t size)
{
	uint64_t at = addr + ld->bias; /* modulo 2^64, as documented */

	if (offset > ld->f.size || size > ld->f.size - offset)
		return img_fail(ld->d, -etmkit_err_format, ld->f.path,
				"%s %zu (0x%" PRIx64 " bytes at offset 0x%"
				PRIx64 ") runs past the end of the file (%"
				PRIu64 " bytes)",
				what, idx, size, offset, ld->f.size);
	if (at > UINT64_MAX - (size - 1))
		return img_fail(ld->d, -etmkit_err_format, ld->f.path,
				"%s %zu (0x%" PRIx64 " bytes at 0x%" PRIx64
				") runs past the top of the 64-bit address "
				"space",
				what, idx, size, at);
	ld->added++;
	return img_add_region(ld->img, at, size, ld->spaces,
			      ld->bytes + offset, ld->path, offset, ld->d);
}

static int elf_load_segments(struct elf_load *ld, size_t phnum)
{
	size_t i;
	int rc;

	rc = elf_check_table(ld, "program header", ld->eh.e_phoff, phnum,
			     ld->eh.e_phentsize,
			     gelf_fsize(ld->elf, ELF_T_PHDR, 1, EV_CURRENT));
	for (i = 0; rc == 0 && i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(ld->elf, (int)i, &ph))
			return elf_fail_libelf(ld, "corrupt program header");
		if (ph.p_type != PT_LOAD || ph.p_filesz == 0)
			continue;
		/* gABI, "Program Header": "The file size may not be larger
		 * than the memory size." */
		if (ph.p_filesz > ph.p_memsz)
			return img_fail(ld->d, -etmkit_err_format, ld->f.path,
					"segment %zu: p_filesz 0x%" PRIx64
					" is larger than p_memsz 0x%" PRIx64,
					i, (uint64_t)ph.p_filesz,
					(uint64_t)ph.p_memsz);
		rc = elf_add(ld, "segment", i, ph.p_vaddr, ph.p_offset,
			     ph.p_filesz);
	}
	if (rc == 0 && ld->added == 0)
		rc = img_fail(ld->d, -etmkit_err_format, ld->f.path,
			      "nothing to map: no PT_LOAD segment has file "
			      "bytes");
	return rc;
}

/* The section header count; libelf reads it from section 0 when e_shnum
 * is 0 (more than SHN_LORESERVE sections), and reads a table cut by the
 * end of the file as empty, which the bounds check catches. */
static int elf_section_count(struct elf_load *ld, size_t *count)
{
	size_t n = 0;

	*count = 0;
	if (ld->eh.e_shoff == 0)
		return 0;
	if (elf_getshdrnum(ld->elf, &n) != 0)
		return elf_fail_libelf(ld, "corrupt section header count");
	*count = ld->eh.e_shnum ? ld->eh.e_shnum : n;
	if (*count == 0)
		return 0;
	return elf_check_table(ld, "section header", ld->eh.e_shoff, *count,
			       ld->eh.e_shentsize,
			       gelf_fsize(ld->elf, ELF_T_SHDR, 1, EV_CURRENT));
}

/* An allocated section with file bytes, for the overlap check. */
struct elf_sect {
	uint64_t addr, last;
	size_t idx;
};

static int sect_cmp(const void *a, const void *b)
{
	const struct elf_sect *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Sections are placed only by a link: in a relocatable object every
 * sh_addr is 0 (gABI, "Sections": sh_addr is the address at which the
 * section's first byte should reside if it appears in the memory image),
 * so .text, .data and the rest would all land on one address, and the
 * last added would hide the others. Sections that overlap are refused. */
static int elf_sections_overlap(struct elf_load *ld, struct elf_sect *s,
				size_t n)
{
	qsort(s, n, sizeof(*s), sect_cmp);
	for (size_t i = 1; i < n; i++)
		if (s[i].addr <= s[i - 1].last)
			return img_fail(ld->d, -etmkit_err_format, ld->f.path,
					"sections %zu and %zu overlap at 0x%"
					PRIx64 " (an unlinked object: link "
					"it, or give its sections addresses)",
					s[i - 1].idx, s[i].idx, s[i].addr);
	return 0;
}

static int elf_load_sections(struct elf_load *ld)
{
	Elf_Scn *scn = NULL;
	struct elf_sect *sect = NULL;
	size_t count, n = 0;
	int rc = elf_section_count(ld, &count);

	if (rc == 0 && count) {
		sect = malloc(count * sizeof(*sect));
		if (!sect)
			return img_fail(ld->d, -etmkit_err_nomem, ld->f.path,
					"out of memory");
	}
	while (rc == 0 && count && (scn = elf_nextscn(ld->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh)) {
			rc = elf_fail_libelf(ld, "corrupt section header");
			break;
		}
		if (!(sh.sh_flags & SHF_ALLOC) || sh.sh_type == SHT_NOBITS ||
		    sh.sh_size == 0)
			continue;
		rc = elf_add(ld, "section", elf_ndxscn(scn), sh.sh_addr,
			     sh.sh_offset, sh.sh_size);
		if (rc == 0 && n < count) {
			sect[n].addr = sh.sh_addr + ld->bias;
			sect[n].last = sect[n].addr + (sh.sh_size - 1);
			sect[n++].idx = elf_ndxscn(scn);
		}
	}
	if (rc == 0 && n > 1)
		rc = elf_sections_overlap(ld, sect, n);
	free(sect);
	if (rc == 0 && ld->added == 0)
		rc = img_fail(ld->d, -etmkit_err_format, ld->f.path,
			      "nothing to map: no program headers and no "
			      "allocated section with file bytes");
	return rc;
}

/* e_phnum, or section 0's sh_info when e_phnum is PN_XNUM (gABI,
 * "Extended program header numbering"). Not elf_getphdrnum(): it cuts
 * the count to what the file holds, which would hide a cut table. */
static int elf_phnum(struct elf_load *ld, size_t *phnum)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	*phnum = ld->eh.e_phnum;
	if (*phnum != PN_XNUM)
		return 0;
	scn = elf_getscn(ld->elf, 0);
	if (!scn || !gelf_getshdr(scn, &sh))
		return elf_fail_libelf(ld, "e_phnum is PN_XNUM but section 0 "
					   "cannot be read");
	*phnum = sh.sh_info;
	return 0;
}

/* Segments if the file has program headers, else sections. */
static int elf_load_file(struct elf_load *ld)
{
	size_t phnum = 0;
	int rc;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return img_fail(ld->d, -etmkit_err_internal, ld->f.path,
				"libelf: %s", libelf_error());
	ld->elf = elf_begin(ld->f.fd, ELF_C_READ_MMAP, NULL);
	if (!ld->elf)
		return elf_ident_fail(ld, ld->bytes, ident_size(ld));
	rc = elf_check_header(ld);
	if (rc)
		return rc;
	rc = elf_phnum(ld, &phnum);
	if (rc)
		return rc;
	if (phnum > INT_MAX) /* gelf_getphdr() takes an int */
		return img_fail(ld->d, -etmkit_err_format, ld->f.path,
				"%zu program headers are too many", phnum);
	if (phnum)
		return elf_load_segments(ld, phnum);
	return elf_load_sections(ld);
}

int image_add_elf(struct image *img, const char *path, uint64_t bias,
		  uint8_t spaces, struct image_diag *diag)
{
	struct elf_load ld = { 0 };
	struct img_mark m;
	int rc;

	img_diag_clear(diag);
	if (!img || !path)
		return img_fail(diag, -etmkit_err_invalid, path,
				"NULL argument");
	rc = img_file_open(&ld.f, path, diag);
	if (rc)
		return rc;
	ld.img = img;
	ld.bias = bias;
	ld.spaces = spaces;
	ld.d = diag;
	img_mark(img, &m);
	if (ld.f.size == 0)
		rc = img_fail(diag, -etmkit_err_format, path,
			      "empty file, not an ELF file");
	else
		rc = img_map(img, &ld.f, 0, ld.f.size, &ld.bytes, &ld.path,
			     diag);
	if (rc == 0)
		rc = elf_load_file(&ld);
	if (ld.elf)
		elf_end(ld.elf);
	img_file_close(&ld.f);
	if (rc)
		img_rollback(img, &m);
	return rc;
}
