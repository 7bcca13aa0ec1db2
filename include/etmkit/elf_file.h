/* etmkit: what an ELF file says about itself, for attributing trace to
 * binaries: its GNU build id, its loadable segments (file offset <-> ELF
 * virtual address), and its function symbols.
 *
 * Layer: image (src/image/).
 *
 * Program images map an ELF file's bytes (image.h, image_add_elf());
 * this is the other half: given an address the trace ran at and the file
 * it came from, which binary, which ELF virtual address, which function.
 * Profiles (AutoFDO, BOLT) write ELF virtual addresses; perf.data maps
 * give file offsets (digest perf-data.md 3.11).
 *
 *   struct elf_file *ef;
 *   elf_file_open(&ef, "prog", &diag);
 *   uint8_t id[20]; size_t n = elf_file_build_id(ef, id);
 *   uint64_t va; elf_file_offset_to_vaddr(ef, file_offset, &va);
 *   const struct elf_symbol *s = elf_file_symbol(ef, va);
 *   elf_file_free(ef);
 *
 * The file is read once at open (libelf); nothing is allocated by the
 * lookups. A handle is read-only after open: several threads may share
 * it.
 */
#ifndef ETMKIT_ELF_FILE_H
#define ETMKIT_ELF_FILE_H

#include "etmkit/common.h"
#include "etmkit/image.h" /* struct image_diag */

#ifdef __cplusplus
extern "C" {
#endif

/* ELF constants used here (ELF gABI). */
#define ELF_FILE_PF_X 0x1u
#define ELF_FILE_PF_W 0x2u
#define ELF_FILE_PF_R 0x4u

/* A loadable segment: a PT_LOAD program header. For a file without
 * program headers (a relocatable object such as a Linux kernel module),
 * one segment is made from its .text section (offset, address, size,
 * flags R|X), as simpleperf does for .ko files (digest perf-data.md 3.11,
 * 4b). */
struct elf_segment {
	uint64_t vaddr;    /* p_vaddr */
	uint64_t offset;   /* p_offset */
	uint64_t filesz;   /* p_filesz */
	uint64_t memsz;    /* p_memsz */
	uint32_t flags;    /* p_flags: ELF_FILE_PF_* */
};

/* A function symbol (STT_FUNC, or STT_NOTYPE in an executable section),
 * defined (not SHN_UNDEF), with an address. */
struct elf_symbol {
	uint64_t addr;     /* st_value; for an ARM (32-bit) Thumb function
			      with bit 0 clear (bit 0 of st_value is the
			      Thumb bit, ELF for the Arm Architecture 5.5.3) */
	uint64_t size;     /* st_size, 0 if unknown */
	const char *name;  /* valid while the handle lives */
	uint8_t thumb;     /* ARM (32-bit) STT_FUNC with bit 0 of st_value
			      set: a Thumb (T32) function */
};

struct elf_file;

/* Open and read ELF file @path: header, program headers, the GNU build-id
 * note, and the symbol table (.symtab, else .dynsym). 32- and 64-bit
 * little-endian files of any machine (the caller checks the machine).
 * Returns 0 and sets *@ef; -etmkit_err_invalid (NULL argument),
 * -etmkit_err_io (cannot open or read), -etmkit_err_format (not an ELF
 * file, big-endian, headers or tables outside the file), -etmkit_err_nomem;
 * then @diag (may be NULL) names the file and says why. A damaged symbol
 * table or note is not an error: the file opens without symbols or build
 * id. */
int elf_file_open(struct elf_file **ef, const char *path,
		  struct image_diag *diag);
/* The same from @n bytes at @data (read during the call only, not kept),
 * named @name in messages and by elf_file_path(): for files already in
 * memory, and for the fuzz target. Returns as elf_file_open(), without
 * -etmkit_err_io. */
int elf_file_open_memory(struct elf_file **ef, const void *data, size_t n,
			 const char *name, struct image_diag *diag);
void elf_file_free(struct elf_file *ef);

const char *elf_file_path(const struct elf_file *ef);
/* e_machine (40 EM_ARM, 183 EM_AARCH64, ...) and e_type (1 ET_REL,
 * 2 ET_EXEC, 3 ET_DYN). */
unsigned elf_file_machine(const struct elf_file *ef);
unsigned elf_file_type(const struct elf_file *ef);

/* The GNU build id (note NT_GNU_BUILD_ID, type 3, name "GNU"): copies up
 * to 20 bytes to @id (the rest of @id zeroed) and returns the note's
 * length (0: no build id; ids longer than 20 bytes return their length
 * and copy the first 20). */
size_t elf_file_build_id(const struct elf_file *ef, uint8_t id[20]);

/* Loadable segments, in program header order. */
size_t elf_file_segment_count(const struct elf_file *ef);
const struct elf_segment *elf_file_segment(const struct elf_file *ef,
					   size_t i);

/* File offset @off -> ELF virtual address through the segment whose file
 * bytes hold it (p_offset <= off < p_offset + p_filesz):
 * off - p_offset + p_vaddr (digest perf-data.md 3.11). Returns 0, or
 * -etmkit_err_not_found when no segment holds @off. */
int elf_file_offset_to_vaddr(const struct elf_file *ef, uint64_t off,
			     uint64_t *vaddr);
/* The inverse, through the segment whose file bytes hold @vaddr. Returns
 * 0 or -etmkit_err_not_found. */
int elf_file_vaddr_to_offset(const struct elf_file *ef, uint64_t vaddr,
			     uint64_t *off);

/* The executable segment with the lowest p_vaddr: its p_vaddr and
 * p_offset (simpleperf's min_vaddr and file_offset_of_min_vaddr, digest
 * 3.11), and the p_vaddr of the first PT_LOAD of all (what simpleperf's
 * AutoFDO writer subtracts, digest 4a). Returns 0, or
 * -etmkit_err_not_found when there is no executable segment. */
int elf_file_min_exec_vaddr(const struct elf_file *ef, uint64_t *vaddr,
			    uint64_t *offset);
int elf_file_first_load_vaddr(const struct elf_file *ef, uint64_t *vaddr);

/* Section @name's address, file offset and size. Returns 0 or
 * -etmkit_err_not_found. */
int elf_file_section(const struct elf_file *ef, const char *name,
		     uint64_t *addr, uint64_t *offset, uint64_t *size);

/* Symbols, sorted by address, one per address (of aliases the one with a
 * size, then the first by name, is kept; ARM and AArch64 mapping symbols
 * $a, $t, $d, $x are not functions and are left out). In a relocatable
 * object only the symbols of .text are kept, at their offset in .text
 * plus its sh_addr (the made-up segment's addresses).
 * elf_file_symbol(): the function symbol that holds @vaddr: addr <= vaddr
 * < addr + size, or, for a symbol of size 0, the nearest one below @vaddr
 * with no other symbol between (as perf and addr2line do); NULL when
 * none. */
size_t elf_file_symbol_count(const struct elf_file *ef);
const struct elf_symbol *elf_file_symbol_at(const struct elf_file *ef,
					    size_t i);
const struct elf_symbol *elf_file_symbol(const struct elf_file *ef,
					 uint64_t vaddr);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_ELF_FILE_H */
