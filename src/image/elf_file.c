/* etmkit: what an ELF file says about itself (elf_file.h): build id,
 * loadable segments, sections, function symbols.
 *
 * The file is mapped once; libelf (elfutils) reads the headers and the
 * symbol table, and everything kept is copied into the handle, so the
 * mapping and libelf's descriptor are gone when elf_file_open() returns.
 * libelf hides some damage rather than reporting it (a header table cut
 * by the end of the file reads as a shorter or empty one), so the tables'
 * and every section's and segment's file bytes are checked here against
 * the file size before they are read, as image_elf.c does.
 *
 * Notes (ELF gABI, "Note Section"): namesz, descsz, type (4-byte words),
 * then the name and the descriptor, each padded to the note's alignment
 * (4, or 8 for a segment or section aligned to 8). The GNU build id is
 * type NT_GNU_BUILD_ID (3) with name "GNU".
 */
#define _POSIX_C_SOURCE 200809L

#include "etmkit/elf_file.h"
#include "image/image_internal.h"

#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define BUILD_ID_MAX 20
#define NT_GNU_BUILD_ID_TYPE 3u

/* A section, for elf_file_section(). */
struct elf_section {
	const char *name; /* in sect_names */
	uint64_t addr, offset, size;
};

struct elf_file {
	char *path;
	unsigned machine, type;
	uint8_t build_id[BUILD_ID_MAX];
	size_t build_id_size;
	struct elf_segment *seg;
	size_t nseg;
	struct elf_section *sect;
	size_t nsect;
	char *sect_names;   /* copy of .shstrtab, NUL added */
	struct elf_symbol *sym;
	size_t nsym;
	char *sym_names;    /* copy of the symbol string table, NUL added */
};

/* State of one open. */
struct elf_read {
	struct elf_file *ef;
	Elf *elf;
	GElf_Ehdr eh;
	const uint8_t *bytes;
	uint64_t size;
	const char *path;
	size_t shnum;
	struct image_diag *d;
};

static const char *libelf_error(void)
{
	const char *msg = elf_errmsg(-1);

	return msg ? msg : "unknown libelf error";
}

static int rd_fail_libelf(struct elf_read *r, const char *what)
{
	return img_fail(r->d, -etmkit_err_format, r->path, "%s: %s", what,
			libelf_error());
}

static int rd_nomem(struct elf_read *r)
{
	return img_fail(r->d, -etmkit_err_nomem, r->path, "out of memory");
}

/* @n bytes at @off lie inside the file. */
static int in_file(const struct elf_read *r, uint64_t off, uint64_t n)
{
	return off <= r->size && n <= r->size - off;
}

/* e_ident: ELF, 32- or 64-bit, little-endian; checked on the bytes
 * (libelf takes unknown identifications for plain data). */
static int rd_ident(struct elf_read *r)
{
	const uint8_t *id = r->bytes;
	size_t ehsize;

	if (r->size < SELFMAG || memcmp(id, ELFMAG, SELFMAG) != 0)
		return img_fail(r->d, -etmkit_err_format, r->path,
				"not an ELF file");
	if (r->size < EI_NIDENT)
		return img_fail(r->d, -etmkit_err_format, r->path,
				"ELF header cut short (%" PRIu64 " bytes)",
				r->size);
	if (id[EI_CLASS] != ELFCLASS32 && id[EI_CLASS] != ELFCLASS64)
		return img_fail(r->d, -etmkit_err_format, r->path,
				"unknown ELF class %d", id[EI_CLASS]);
	if (id[EI_DATA] == ELFDATA2MSB)
		return img_fail(r->d, -etmkit_err_format, r->path,
				"big-endian ELF files are not supported");
	if (id[EI_DATA] != ELFDATA2LSB)
		return img_fail(r->d, -etmkit_err_format, r->path,
				"unknown ELF data encoding %d", id[EI_DATA]);
	ehsize = id[EI_CLASS] == ELFCLASS32 ? sizeof(Elf32_Ehdr)
					    : sizeof(Elf64_Ehdr);
	if (r->size < ehsize)
		return img_fail(r->d, -etmkit_err_format, r->path,
				"ELF header cut short (%" PRIu64 " of %zu "
				"bytes)", r->size, ehsize);
	return 0;
}

/* A header table of @count entries of @entsize bytes (libelf expects
 * @want) at @off must lie inside the file. */
static int rd_check_table(struct elf_read *r, const char *what, uint64_t off,
			  uint64_t count, uint64_t entsize, size_t want)
{
	if (want == 0 || entsize != want)
		return img_fail(r->d, -etmkit_err_format, r->path,
				"%s entries of %" PRIu64 " bytes (expected %zu)",
				what, entsize, want);
	if (off > r->size || count > (r->size - off) / entsize)
		return img_fail(r->d, -etmkit_err_format, r->path,
				"%s table (%" PRIu64 " entries at offset 0x%"
				PRIx64 ") runs past the end of the file (%"
				PRIu64 " bytes)", what, count, off, r->size);
	return 0;
}

/* ---- Notes --------------------------------------------------------------- */

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Look for the GNU build id among the notes in file bytes [@off, @off +
 * @n), aligned to @align. Damaged notes end the search (not an error). */
static void rd_notes(struct elf_read *r, uint64_t off, uint64_t n,
		     uint64_t align)
{
	const uint8_t *p, *end;
	uint64_t a = align == 8 ? 8 : 4;

	if (r->ef->build_id_size || !in_file(r, off, n))
		return;
	p = r->bytes + off;
	end = p + n;
	while ((uint64_t)(end - p) >= 12) {
		uint64_t namesz = le32(p), descsz = le32(p + 4);
		uint32_t type = le32(p + 8);
		uint64_t left = (uint64_t)(end - p) - 12;
		uint64_t namepad = (namesz + a - 1) & ~(a - 1);
		uint64_t descpad = (descsz + a - 1) & ~(a - 1);
		const uint8_t *name = p + 12, *desc;

		if (namepad > left || descsz > left - namepad)
			return;
		desc = name + namepad;
		if (type == NT_GNU_BUILD_ID_TYPE && namesz == 4 &&
		    memcmp(name, "GNU", 4) == 0 && descsz > 0) {
			size_t k = descsz < BUILD_ID_MAX ? (size_t)descsz
							 : BUILD_ID_MAX;

			memcpy(r->ef->build_id, desc, k);
			r->ef->build_id_size = (size_t)descsz;
			return;
		}
		if (descpad > left - namepad)
			return;
		p = desc + descpad;
	}
}

/* ---- Program headers ------------------------------------------------------ */

/* e_phnum, or section 0's sh_info when e_phnum is PN_XNUM (gABI,
 * "Extended program header numbering"). */
static int rd_phnum(struct elf_read *r, size_t *phnum)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	*phnum = r->eh.e_phnum;
	if (*phnum != PN_XNUM)
		return 0;
	scn = elf_getscn(r->elf, 0);
	if (!scn || !gelf_getshdr(scn, &sh))
		return rd_fail_libelf(r, "e_phnum is PN_XNUM but section 0 "
					 "cannot be read");
	*phnum = sh.sh_info;
	return 0;
}

/* PT_LOAD segments (kept) and PT_NOTE segments (searched for the build
 * id). */
static int rd_segments(struct elf_read *r, size_t phnum)
{
	struct elf_file *ef = r->ef;
	size_t i;
	int rc;

	if (phnum > INT_MAX) /* gelf_getphdr() takes an int */
		return img_fail(r->d, -etmkit_err_format, r->path,
				"%zu program headers are too many", phnum);
	rc = rd_check_table(r, "program header", r->eh.e_phoff, phnum,
			    r->eh.e_phentsize,
			    gelf_fsize(r->elf, ELF_T_PHDR, 1, EV_CURRENT));
	if (rc)
		return rc;
	ef->seg = calloc(phnum, sizeof(*ef->seg));
	if (!ef->seg)
		return rd_nomem(r);
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		struct elf_segment *s;

		if (!gelf_getphdr(r->elf, (int)i, &ph))
			return rd_fail_libelf(r, "corrupt program header");
		if (ph.p_type == PT_NOTE)
			rd_notes(r, ph.p_offset, ph.p_filesz, ph.p_align);
		if (ph.p_type != PT_LOAD)
			continue;
		if (!in_file(r, ph.p_offset, ph.p_filesz))
			return img_fail(r->d, -etmkit_err_format, r->path,
					"segment %zu (0x%" PRIx64 " bytes at "
					"offset 0x%" PRIx64 ") runs past the "
					"end of the file (%" PRIu64 " bytes)",
					i, (uint64_t)ph.p_filesz,
					(uint64_t)ph.p_offset, r->size);
		s = &ef->seg[ef->nseg++];
		s->vaddr = ph.p_vaddr;
		s->offset = ph.p_offset;
		s->filesz = ph.p_filesz;
		s->memsz = ph.p_memsz;
		s->flags = ph.p_flags;
	}
	return 0;
}

/* ---- Sections -------------------------------------------------------------- */

/* A copy of string table section @idx, NUL-terminated, or NULL when it
 * is not a string table inside the file (then the names are ""). */
static char *rd_strtab(struct elf_read *r, size_t idx, size_t *size)
{
	Elf_Scn *scn = idx && idx < r->shnum ? elf_getscn(r->elf, idx) : NULL;
	GElf_Shdr sh;
	char *s;

	*size = 0;
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_STRTAB ||
	    !in_file(r, sh.sh_offset, sh.sh_size) || sh.sh_size >= SIZE_MAX)
		return NULL;
	s = malloc((size_t)sh.sh_size + 1);
	if (!s)
		return NULL;
	memcpy(s, r->bytes + sh.sh_offset, (size_t)sh.sh_size);
	s[sh.sh_size] = '\0';
	*size = (size_t)sh.sh_size;
	return s;
}

static int rd_section_count(struct elf_read *r)
{
	size_t n = 0;

	r->shnum = 0;
	if (r->eh.e_shoff == 0)
		return 0;
	if (elf_getshdrnum(r->elf, &n) != 0)
		return rd_fail_libelf(r, "corrupt section header count");
	r->shnum = r->eh.e_shnum ? r->eh.e_shnum : n;
	if (r->shnum == 0)
		return 0;
	return rd_check_table(r, "section header", r->eh.e_shoff, r->shnum,
			      r->eh.e_shentsize,
			      gelf_fsize(r->elf, ELF_T_SHDR, 1, EV_CURRENT));
}

/* The section table (names from e_shstrndx) and SHT_NOTE sections
 * searched for the build id. */
static int rd_sections(struct elf_read *r)
{
	struct elf_file *ef = r->ef;
	size_t shstrndx = 0, namesz = 0, i;
	int rc = rd_section_count(r);

	if (rc || r->shnum == 0)
		return rc;
	if (elf_getshdrstrndx(r->elf, &shstrndx) == 0)
		ef->sect_names = rd_strtab(r, shstrndx, &namesz);
	ef->sect = calloc(r->shnum, sizeof(*ef->sect));
	if (!ef->sect)
		return rd_nomem(r);
	for (i = 0; i < r->shnum; i++) {
		Elf_Scn *scn = elf_getscn(r->elf, i);
		struct elf_section *s = &ef->sect[ef->nsect++];
		GElf_Shdr sh;

		s->name = "";
		if (!scn || !gelf_getshdr(scn, &sh))
			return rd_fail_libelf(r, "corrupt section header");
		if (ef->sect_names && sh.sh_name < namesz)
			s->name = ef->sect_names + sh.sh_name;
		s->addr = sh.sh_addr;
		s->offset = sh.sh_offset;
		s->size = sh.sh_type == SHT_NOBITS ? 0 : sh.sh_size;
		if (sh.sh_type == SHT_NOTE)
			rd_notes(r, sh.sh_offset, sh.sh_size, sh.sh_addralign);
	}
	return 0;
}

static const struct elf_section *find_section(const struct elf_file *ef,
					      const char *name)
{
	for (size_t i = 0; i < ef->nsect; i++)
		if (strcmp(ef->sect[i].name, name) == 0)
			return &ef->sect[i];
	return NULL;
}

/* A file without program headers (a relocatable object, e.g. a kernel
 * module): one segment made from .text, as simpleperf does for .ko files
 * (digest perf-data.md 3.11, 4b). */
static int rd_text_segment(struct elf_read *r)
{
	const struct elf_section *t = find_section(r->ef, ".text");
	struct elf_segment *s;

	if (!t || t->size == 0)
		return 0;
	if (!in_file(r, t->offset, t->size))
		return img_fail(r->d, -etmkit_err_format, r->path,
				"section .text (0x%" PRIx64 " bytes at offset "
				"0x%" PRIx64 ") runs past the end of the file "
				"(%" PRIu64 " bytes)", t->size, t->offset,
				r->size);
	r->ef->seg = calloc(1, sizeof(*s));
	if (!r->ef->seg)
		return rd_nomem(r);
	s = &r->ef->seg[r->ef->nseg++];
	s->vaddr = t->addr;
	s->offset = t->offset;
	s->filesz = t->size;
	s->memsz = t->size;
	s->flags = ELF_FILE_PF_R | ELF_FILE_PF_X;
	return 0;
}

/* ---- Symbols ------------------------------------------------------------- */

/* Mapping symbols mark code and data inside sections, not functions:
 * "$a", "$t", "$d", "$x", optionally followed by "." and anything (ELF
 * for the Arm Architecture 5.5.4; ELF for the Arm 64-bit Architecture
 * 5.7.6). */
static int is_mapping_symbol(const char *name)
{
	return name[0] == '$' && (name[1] == 'a' || name[1] == 't' ||
				  name[1] == 'd' || name[1] == 'x') &&
	       (name[2] == '\0' || name[2] == '.');
}

static int sym_cmp(const void *a, const void *b)
{
	const struct elf_symbol *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* At one address: the sized symbol first, then by name, so that
	 * the one kept of several aliases does not depend on qsort. */
	if ((x->size != 0) != (y->size != 0))
		return x->size != 0 ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Symbol table section @scn (header @sh): keep its function symbols. A
 * damaged table is left out (the file opens without symbols). */
static int rd_symtab(struct elf_read *r, Elf_Scn *scn, const GElf_Shdr *sh)
{
	struct elf_file *ef = r->ef;
	const struct elf_section *text = NULL;
	size_t entsize = gelf_fsize(r->elf, ELF_T_SYM, 1, EV_CURRENT);
	size_t namesz = 0, n, i, k;
	Elf_Data *data;

	if (entsize == 0 || sh->sh_entsize != entsize ||
	    !in_file(r, sh->sh_offset, sh->sh_size))
		return 0;
	data = elf_getdata(scn, NULL);
	if (!data || data->d_size < sh->sh_size)
		return 0;
	n = (size_t)(sh->sh_size / entsize);
	if (n == 0)
		return 0;
	ef->sym_names = rd_strtab(r, sh->sh_link, &namesz);
	if (!ef->sym_names)
		return 0;
	ef->sym = calloc(n, sizeof(*ef->sym));
	if (!ef->sym)
		return rd_nomem(r);
	if (r->eh.e_type == ET_REL)
		text = find_section(ef, ".text");
	for (i = 0; i < n; i++) {
		struct elf_symbol *s;
		const struct elf_section *in = NULL;
		GElf_Sym st;
		unsigned type;

		if (!gelf_getsym(data, (int)i, &st))
			break;
		type = GELF_ST_TYPE(st.st_info);
		if (st.st_shndx == SHN_UNDEF || st.st_name >= namesz ||
		    (type != STT_FUNC && type != STT_NOTYPE))
			continue;
		if (st.st_shndx < ef->nsect)
			in = &ef->sect[st.st_shndx];
		if (type == STT_NOTYPE) {
			GElf_Shdr ssh;
			Elf_Scn *ss = in ? elf_getscn(r->elf, st.st_shndx)
					 : NULL;

			if (!ss || !gelf_getshdr(ss, &ssh) ||
			    !(ssh.sh_flags & SHF_EXECINSTR))
				continue;
		}
		if (is_mapping_symbol(ef->sym_names + st.st_name) ||
		    ef->sym_names[st.st_name] == '\0')
			continue;
		/* A relocatable object's symbols are offsets in their
		 * section; only .text is placed (the made-up segment). */
		if (text && in != text)
			continue;
		s = &ef->sym[ef->nsym++];
		s->addr = st.st_value + (text ? text->addr : 0);
		s->thumb = 0;
		if (r->eh.e_machine == EM_ARM && type == STT_FUNC) {
			s->thumb = (uint8_t)(s->addr & 1);
			s->addr &= ~(uint64_t)1; /* the Thumb bit */
		}
		s->size = st.st_size;
		s->name = ef->sym_names + st.st_name;
	}
	if (ef->nsym == 0)
		return 0;
	qsort(ef->sym, ef->nsym, sizeof(*ef->sym), sym_cmp);
	/* Aliases: one symbol per address (the first after sorting). */
	for (i = 1, k = 1; i < ef->nsym; i++)
		if (ef->sym[i].addr != ef->sym[k - 1].addr)
			ef->sym[k++] = ef->sym[i];
	ef->nsym = k;
	return 0;
}

/* .symtab, else .dynsym (by section type). */
static int rd_symbols(struct elf_read *r)
{
	Elf_Scn *dyn = NULL;
	GElf_Shdr dynsh;

	for (size_t i = 1; i < r->shnum; i++) {
		Elf_Scn *scn = elf_getscn(r->elf, i);
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			return rd_symtab(r, scn, &sh);
		if (sh.sh_type == SHT_DYNSYM && !dyn) {
			dyn = scn;
			dynsh = sh;
		}
	}
	return dyn ? rd_symtab(r, dyn, &dynsh) : 0;
}

/* ---- Open ---------------------------------------------------------------- */

static int rd_file(struct elf_read *r)
{
	size_t phnum = 0;
	int rc = rd_ident(r);

	if (rc)
		return rc;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return img_fail(r->d, -etmkit_err_internal, r->path,
				"libelf: %s", libelf_error());
	/* elf_memory() wants a writable pointer; libelf only reads an
	 * image opened this way (ELF_C_READ_MMAP). */
	r->elf = elf_memory((char *)(uintptr_t)r->bytes, (size_t)r->size);
	if (!r->elf || elf_kind(r->elf) != ELF_K_ELF)
		return rd_fail_libelf(r, "corrupt ELF header");
	if (!gelf_getehdr(r->elf, &r->eh))
		return rd_fail_libelf(r, "corrupt ELF header");
	r->ef->machine = r->eh.e_machine;
	r->ef->type = r->eh.e_type;
	rc = rd_sections(r);
	if (rc == 0)
		rc = rd_phnum(r, &phnum);
	if (rc == 0 && phnum)
		rc = rd_segments(r, phnum);
	else if (rc == 0)
		rc = rd_text_segment(r);
	if (rc == 0)
		rc = rd_symbols(r);
	return rc;
}

int elf_file_open_memory(struct elf_file **ef, const void *data, size_t n,
			 const char *name, struct image_diag *diag)
{
	struct elf_read r = { 0 };
	int rc;

	img_diag_clear(diag);
	if (ef)
		*ef = NULL;
	if (!ef || !name || (!data && n))
		return img_fail(diag, -etmkit_err_invalid, name,
				"NULL argument");
	r.bytes = data;
	r.size = n;
	r.path = name;
	r.d = diag;
	r.ef = calloc(1, sizeof(*r.ef));
	if (!r.ef)
		return rd_nomem(&r);
	r.ef->path = strdup(name);
	rc = r.ef->path ? rd_file(&r) : rd_nomem(&r);
	if (r.elf)
		elf_end(r.elf);
	if (rc) {
		elf_file_free(r.ef);
		return rc;
	}
	*ef = r.ef;
	return 0;
}

int elf_file_open(struct elf_file **ef, const char *path,
		  struct image_diag *diag)
{
	struct img_file f;
	void *map;
	int rc;

	img_diag_clear(diag);
	if (ef)
		*ef = NULL;
	if (!ef || !path)
		return img_fail(diag, -etmkit_err_invalid, path,
				"NULL argument");
	rc = img_file_open(&f, path, diag);
	if (rc)
		return rc;
	if (f.size == 0) {
		img_file_close(&f);
		return img_fail(diag, -etmkit_err_format, path,
				"empty file, not an ELF file");
	}
	if (f.size > SIZE_MAX) {
		img_file_close(&f);
		return img_fail(diag, -etmkit_err_format, path,
				"file too large to map");
	}
	map = mmap(NULL, (size_t)f.size, PROT_READ, MAP_PRIVATE, f.fd, 0);
	if (map == MAP_FAILED) {
		img_file_close(&f);
		return img_fail(diag, -etmkit_err_io, path, "cannot map");
	}
	rc = elf_file_open_memory(ef, map, (size_t)f.size, path, diag);
	munmap(map, (size_t)f.size);
	img_file_close(&f);
	return rc;
}

void elf_file_free(struct elf_file *ef)
{
	if (!ef)
		return;
	free(ef->path);
	free(ef->seg);
	free(ef->sect);
	free(ef->sect_names);
	free(ef->sym);
	free(ef->sym_names);
	free(ef);
}

/* ---- Queries --------------------------------------------------------------- */

const char *elf_file_path(const struct elf_file *ef)
{
	return ef ? ef->path : NULL;
}

unsigned elf_file_machine(const struct elf_file *ef)
{
	return ef ? ef->machine : 0;
}

unsigned elf_file_type(const struct elf_file *ef)
{
	return ef ? ef->type : 0;
}

size_t elf_file_build_id(const struct elf_file *ef, uint8_t id[20])
{
	if (id)
		memset(id, 0, BUILD_ID_MAX);
	if (!ef)
		return 0;
	if (id)
		memcpy(id, ef->build_id, BUILD_ID_MAX);
	return ef->build_id_size;
}

size_t elf_file_segment_count(const struct elf_file *ef)
{
	return ef ? ef->nseg : 0;
}

const struct elf_segment *elf_file_segment(const struct elf_file *ef,
					   size_t i)
{
	return ef && i < ef->nseg ? &ef->seg[i] : NULL;
}

int elf_file_offset_span(const struct elf_file *ef, uint64_t off,
			 uint64_t *vaddr, uint64_t *first, uint64_t *last)
{
	size_t i, k;

	if (!ef)
		return -etmkit_err_not_found;
	*vaddr = 0;
	for (k = 0; k < ef->nseg; k++)
		if (off >= ef->seg[k].offset &&
		    off - ef->seg[k].offset < ef->seg[k].filesz)
			break;
	if (k < ef->nseg) {
		*vaddr = off - ef->seg[k].offset + ef->seg[k].vaddr;
		*first = ef->seg[k].offset;
		*last = ef->seg[k].offset + (ef->seg[k].filesz - 1);
	} else {
		*first = 0; /* the gap between segments around @off */
		*last = UINT64_MAX;
	}
	/* Segments before k hold none of @off but may hold bytes near it:
	 * there they come first. */
	for (i = 0; i < k; i++) {
		const struct elf_segment *s = &ef->seg[i];
		uint64_t end;

		if (s->filesz == 0)
			continue;
		end = s->offset + (s->filesz - 1);
		if (end < off && end >= *first)
			*first = end + 1;
		if (s->offset > off && s->offset <= *last)
			*last = s->offset - 1;
	}
	return k < ef->nseg ? 0 : -etmkit_err_not_found;
}

int elf_file_offset_to_vaddr(const struct elf_file *ef, uint64_t off,
			     uint64_t *vaddr)
{
	uint64_t va, first, last;
	int rc = elf_file_offset_span(ef, off, &va, &first, &last);

	if (rc == 0 && vaddr)
		*vaddr = va;
	return rc;
}

int elf_file_vaddr_to_offset(const struct elf_file *ef, uint64_t vaddr,
			     uint64_t *off)
{
	if (!ef)
		return -etmkit_err_not_found;
	for (size_t i = 0; i < ef->nseg; i++) {
		const struct elf_segment *s = &ef->seg[i];

		/* Modulo 2^64, as image_add_elf() maps segments. */
		if (vaddr - s->vaddr < s->filesz) {
			if (off)
				*off = vaddr - s->vaddr + s->offset;
			return 0;
		}
	}
	return -etmkit_err_not_found;
}

int elf_file_min_exec_vaddr(const struct elf_file *ef, uint64_t *vaddr,
			    uint64_t *offset)
{
	const struct elf_segment *best = NULL;

	for (size_t i = 0; ef && i < ef->nseg; i++)
		if ((ef->seg[i].flags & ELF_FILE_PF_X) &&
		    (!best || ef->seg[i].vaddr < best->vaddr))
			best = &ef->seg[i];
	if (!best)
		return -etmkit_err_not_found;
	if (vaddr)
		*vaddr = best->vaddr;
	if (offset)
		*offset = best->offset;
	return 0;
}

int elf_file_first_load_vaddr(const struct elf_file *ef, uint64_t *vaddr)
{
	if (!ef || ef->nseg == 0)
		return -etmkit_err_not_found;
	if (vaddr)
		*vaddr = ef->seg[0].vaddr;
	return 0;
}

int elf_file_section(const struct elf_file *ef, const char *name,
		     uint64_t *addr, uint64_t *offset, uint64_t *size)
{
	const struct elf_section *s = ef && name ? find_section(ef, name)
						 : NULL;

	if (!s || !*name)
		return -etmkit_err_not_found;
	if (addr)
		*addr = s->addr;
	if (offset)
		*offset = s->offset;
	if (size)
		*size = s->size;
	return 0;
}

size_t elf_file_symbol_count(const struct elf_file *ef)
{
	return ef ? ef->nsym : 0;
}

const struct elf_symbol *elf_file_symbol_at(const struct elf_file *ef,
					    size_t i)
{
	return ef && i < ef->nsym ? &ef->sym[i] : NULL;
}

/* The index of the last symbol at or below @vaddr (there is one). */
static size_t sym_below(const struct elf_file *ef, uint64_t vaddr)
{
	size_t lo = 0, hi = ef->nsym;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (ef->sym[mid].addr <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

const struct elf_symbol *elf_file_symbol_span(const struct elf_file *ef,
					      uint64_t vaddr, uint64_t *first,
					      uint64_t *last)
{
	const struct elf_symbol *s;
	uint64_t next_last = UINT64_MAX;
	size_t i;

	*first = 0;
	*last = UINT64_MAX;
	if (!ef || ef->nsym == 0)
		return NULL;
	if (vaddr < ef->sym[0].addr) {
		*last = ef->sym[0].addr - 1;
		return NULL;
	}
	i = sym_below(ef, vaddr);
	s = &ef->sym[i];
	if (i + 1 < ef->nsym)
		next_last = ef->sym[i + 1].addr - 1;
	*last = next_last;
	if (s->size == 0) {
		*first = s->addr;
		return s;
	}
	if (vaddr - s->addr < s->size) {
		*first = s->addr;
		if (s->size - 1 < next_last - s->addr)
			*last = s->addr + (s->size - 1);
		return s;
	}
	/* Past its end: a gap up to the next symbol. */
	*first = s->addr + s->size;
	return NULL;
}

const struct elf_symbol *elf_file_symbol(const struct elf_file *ef,
					 uint64_t vaddr)
{
	uint64_t first, last;

	return elf_file_symbol_span(ef, vaddr, &first, &last);
}
