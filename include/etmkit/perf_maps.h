/* etmkit: the side-band of a perf.data recording: which processes ran,
 * which binaries they had mapped where, and program images built from
 * those binaries, one per process image (digest perf-data.md 2.1, 3.9,
 * 3.11).
 *
 * Layer: perf (src/perf/).
 *
 *   struct perf_maps *m;
 *   perf_maps_open(&m, pf, &diag);           replay MMAP/MMAP2/COMM/FORK
 *   struct perf_maps_options o;  perf_maps_options_init(&o);
 *   o.symfs = "/tmp/symfs";
 *   perf_maps_resolve(m, &o);                find the binaries' files
 *   perf_maps_build_images(m, &idiag);       one image per process image
 *   const struct image *img = perf_maps_image_for_tid(m, tid, offset);
 *   perf_maps_free(m);
 *
 * Processes. A thread belongs to the process its FORK or COMM record
 * names; a thread never named is its own process (tid == pid, the
 * thread-group leader). A process image begins when a pid is first seen,
 * at a FORK that creates a new process (it starts with a copy of the
 * parent's executable maps) and at a COMM with COMM_EXEC (an empty
 * address space). Each process image holds every executable map recorded
 * for its pid until the next one begins: munmap is not recorded, and a
 * later map over the same addresses wins (as mmap). An executable map is an
 * MMAP2 with PROT_EXEC in prot, or an MMAP without MMAP_DATA in misc
 * (digest 2.1). Kernel maps (pid 0xFFFFFFFF or a kernel cpumode) belong to
 * every process image.
 *
 * Binaries. Each distinct recorded path is one binary with the build id
 * the recording gives (an MMAP2 with MMAP_BUILD_ID, else the BUILD_ID
 * feature by path) and, for simpleperf recordings, its FILE2 entry
 * (min_vaddr, file_offset_of_min_vaddr, memory_offset_of_min_vaddr,
 * digest 1.4 bit 132). perf_maps_resolve() looks for a local file for
 * each (perf_maps_options), and refuses a file whose build id differs from
 * the recorded one.
 *
 * Images. The executable map [start, start + len) of a user binary maps
 * the file's bytes from offset pgoff on (digest 3.11, clamped to the file's
 * size). The kernel ([kernel.kallsyms]...) maps the vmlinux file's
 * loadable segments at bias (runtime address of the map's symbol, _stext
 * or _text: pgoff, or the map's start when pgoff is 0 as simpleperf
 * writes it) minus that symbol's value in vmlinux (0 when vmlinux lacks
 * it). A kernel module (a relocatable .ko, no program headers) maps its
 * .text section's bytes at start + memory_offset_of_min_vaddr (FILE2; 0
 * without). Addresses of binaries without a file are left out of the
 * images: the flow decoders report them as no_image.
 *
 * Bad side-band (a record too small for its type, a map whose range wraps
 * past 2^64, a FILE2 section that is truncated or whose protobuf lengths
 * run past it) is skipped and counted, never fatal. Memory grows with the
 * records the file holds, never with a size read from it.
 */
#ifndef ETMKIT_PERF_MAPS_H
#define ETMKIT_PERF_MAPS_H

#include "etmkit/common.h"
#include "etmkit/image.h"
#include "etmkit/perf.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PERF_FEAT_SP_FILE2 132
#define PERF_PID_KERNEL 0xFFFFFFFFu

enum perf_binary_kind {
	perf_bin_user = 0,     /* a user-space file */
	perf_bin_kernel,       /* [kernel.kallsyms] (vmlinux) */
	perf_bin_module,       /* a kernel map other than the kernel's */
	perf_bin_special       /* [vdso], [anon:...], //anon: no file */
};

enum perf_binary_status {
	perf_bin_not_looked = 0, /* perf_maps_resolve() not called */
	perf_bin_found,        /* file: the file used */
	perf_bin_missing,      /* no file found (or a special mapping) */
	perf_bin_mismatch,     /* file: a candidate whose build id differs
				  from the recorded one: not used */
	perf_bin_unreadable    /* file: found but not readable as needed
				  (not an ELF file, no .text for a module,
				  I/O error); message says why */
};

/* One binary the recording names. */
struct perf_binary {
	const char *name;          /* the recorded path: "[kernel.kallsyms]"
				      for the kernel (without its _stext or
				      _text suffix) */
	enum perf_binary_kind kind;
	uint8_t build_id[20];      /* recorded, zero-padded */
	uint8_t build_id_size;     /* 0: none recorded; the size byte when
				      the record has one, else 20 */
	uint8_t has_file2;         /* simpleperf FILE2 entry: */
	uint32_t file2_type;       /* DsoType (0 kernel, 1 module, 2 ELF) */
	uint64_t min_vaddr;
	uint64_t file_offset_of_min_vaddr;   /* ELF entries */
	uint64_t memory_offset_of_min_vaddr; /* kernel module entries */
	size_t exec_maps;          /* executable maps naming it */
	/* Set by perf_maps_resolve(): */
	enum perf_binary_status status;
	const char *file;          /* found, mismatch, unreadable: the path */
	uint8_t file_build_id[20]; /* mismatch: the file's (zero-padded) */
	uint8_t file_build_id_size;
	const char *message;       /* unreadable: why; else NULL */
	uint64_t bias;             /* the kernel: the vmlinux bias used;
				      an --elf FILE@BIAS override: BIAS */
	uint8_t has_bias;
};

/* One executable map of a process image (or a kernel map). */
struct perf_map {
	uint64_t start, len, pgoff;
	uint32_t binary;           /* perf_maps_binary() index */
	uint32_t prot;             /* MMAP2; 0 for MMAP */
	uint64_t record_offset;    /* its record in the file */
};

/* One process image: a pid from its start (first sight, FORK or exec)
 * to the next. */
struct perf_process {
	uint32_t pid;
	uint64_t begin_offset;     /* file offset of the record that began it
				      (0 for a pid first seen in a map) */
	char comm[64];             /* the last COMM name recorded, or "" */
	const struct perf_map *maps; /* executable user maps, in record
					order */
	size_t nmaps;
	const struct image *image; /* after perf_maps_build_images(), else
				      NULL */
};

struct perf_maps;

/* Replay the side-band of @pf (which must outlive the result). Returns 0
 * and sets *@m; -etmkit_err_invalid (NULL argument), -etmkit_err_nomem.
 * Malformed side-band is skipped (perf_maps_bad_records()). @diag (may be
 * NULL) is set to the first malformed record or FILE2 entry met. */
int perf_maps_open(struct perf_maps **m, const struct perf_file *pf,
		   struct perf_diag *diag);
void perf_maps_free(struct perf_maps *m);

/* Side-band records and FILE2 entries skipped as malformed. */
size_t perf_maps_bad_records(const struct perf_maps *m);

/* A file given for a binary (etmkit's --elf FILE[@BIAS]), or with @raw
 * a file mapped whole at address @bias in every image (--image
 * FILE@ADDR: a [vdso] dump, code the recording does not map). */
struct perf_maps_override {
	const char *path;
	uint64_t bias;
	uint8_t has_bias;
	uint8_t raw;
};

struct perf_maps_options {
	size_t size;               /* sizeof(struct perf_maps_options) */
	const char *symfs;         /* DIR: DIR/recorded-path, then
				      DIR/base-name */
	const char *buildid_dir;   /* DIR: perf's DIR/.build-id/xx/rest (a
				      file, or a folder holding "elf") */
	const char *vmlinux;       /* the kernel's ELF file */
	const struct perf_maps_override *overrides;
	size_t noverrides;
};

void perf_maps_options_init(struct perf_maps_options *o);

/* Find a file for every binary, in this order: an override whose build
 * id equals the recorded one, else whose base name equals the recorded
 * path's; for the kernel --vmlinux; then under symfs; then in the
 * build-id folder. A candidate whose build id differs from the recorded
 * one (when both are known) is not used: the search goes on, and the
 * binary is perf_bin_mismatch if nothing else is found. Reads the files'
 * ELF headers (elf_file.h). Returns 0; -etmkit_err_nomem,
 * -etmkit_err_invalid. Missing files are not errors (status). */
int perf_maps_resolve(struct perf_maps *m, const struct perf_maps_options *o);

/* Build one image per process image from the files found: the overrides
 * no binary took (raw ones whole at their address, ELF files by their
 * segments moved by their bias; one that cannot be mapped is left out),
 * then its user maps, then the kernel maps (the same in every image), as
 * the header comment says; where they overlap the one added last wins
 * (image.h), so a recorded map always wins over an override no binary
 * took. A found file that cannot be mapped becomes perf_bin_unreadable
 * (left out). Also builds the kernel-only image
 * (perf_maps_kernel_image()). Returns 0; -etmkit_err_nomem,
 * -etmkit_err_invalid (before perf_maps_resolve()). */
int perf_maps_build_images(struct perf_maps *m);

size_t perf_maps_binary_count(const struct perf_maps *m);
const struct perf_binary *perf_maps_binary(const struct perf_maps *m,
					   size_t i);
/* The binary recorded as @name, or -1. */
long perf_maps_find_binary(const struct perf_maps *m, const char *name);

size_t perf_maps_process_count(const struct perf_maps *m);
const struct perf_process *perf_maps_process(const struct perf_maps *m,
					     size_t i);
/* Kernel maps, in record order. */
size_t perf_maps_kernel_map_count(const struct perf_maps *m);
const struct perf_map *perf_maps_kernel_map(const struct perf_maps *m,
					    size_t i);

/* The process thread @tid belongs to (@tid itself when no record says). */
uint32_t perf_maps_pid_of(const struct perf_maps *m, uint32_t tid);

/* The process image of thread @tid current at file offset @offset (the
 * last that began before it; the first when none did), or NULL when the
 * pid has none. */
const struct perf_process *perf_maps_process_at(const struct perf_maps *m,
						uint32_t tid, uint64_t offset);

/* The image to decode thread @tid's trace with at @offset: its process
 * image's, or the kernel-only image when its pid has none. NULL before
 * perf_maps_build_images(). */
const struct image *perf_maps_image_for_tid(const struct perf_maps *m,
					    uint32_t tid, uint64_t offset);
/* The image holding the kernel maps only. */
const struct image *perf_maps_kernel_image(const struct perf_maps *m);

/* The map of process image @p (or, for kernel addresses, the kernel's)
 * that holds @addr: the last recorded that does, as the images read.
 * NULL when none. @p may be NULL (kernel maps only). */
const struct perf_map *perf_maps_find_map(const struct perf_maps *m,
					  const struct perf_process *p,
					  uint64_t addr);

struct locate;

/* Name every found binary in locator @l as the recording does
 * (locate_set_name(): the recorded path and build id), after
 * locate_add_image() met the images. Files @l does not know are skipped.
 * Returns 0, -etmkit_err_nomem, -etmkit_err_invalid. */
int perf_maps_set_names(const struct perf_maps *m, struct locate *l);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_PERF_MAPS_H */
