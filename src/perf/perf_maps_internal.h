/* etmkit: what the side-band files share (src/perf/perf_maps.c,
 * perf_binaries.c, perf_file2.c). */
#ifndef ETMKIT_PERF_MAPS_INTERNAL_H
#define ETMKIT_PERF_MAPS_INTERNAL_H

#include "etmkit/perf_maps.h"
#include "perf/perf_internal.h"

struct elf_file;

/* One FILE2 entry (perf_file2.c). @path is not NUL-terminated. */
struct perf_file2_entry {
	const char *path;
	size_t path_len;
	uint32_t type;
	uint64_t min_vaddr;
	uint64_t file_offset_of_min_vaddr;
	uint64_t memory_offset_of_min_vaddr;
	uint8_t has_elf, has_module;
};

/* The entry at @sec[*pos..n) of a FILE2 section, *@pos moved past it.
 * Returns 0, -etmkit_err_eos at the end, -etmkit_err_truncated (a length
 * past the section: *@pos is set to @n, the rest is lost) or
 * -etmkit_err_format (a malformed protobuf: that entry is skipped). */
int perf_file2_next(const uint8_t *sec, size_t n, size_t *pos,
		    struct perf_file2_entry *e);

struct pm_binary {
	struct perf_binary pub;
	char *name, *file, *message; /* owned strings behind pub's */
	char ksym[16];               /* the kernel: "_stext" or "_text" */
	uint64_t kstart, kpgoff;     /* the kernel: its first map */
	uint8_t has_kmap;
	uint64_t file_size;          /* found: bytes of the file */
	struct elf_file *elf;        /* found, when an ELF file */
};

struct pm_process {
	struct perf_process pub;
	struct perf_map *maps;
	size_t cap;
	struct image *img;
};

struct pm_thread {
	uint32_t tid, pid;
};

/* Open-addressing index: key -> value + 1 (0: empty). */
struct pm_index {
	uint64_t *keys;
	size_t *vals;
	size_t cap, n;
};

struct perf_maps {
	const struct perf_file *pf;
	struct pm_binary *bins;
	size_t nbins, cap_bins;
	struct pm_index bin_index;   /* name hash -> bins (chains by probing) */
	struct pm_process *procs;
	size_t nprocs, cap_procs;
	struct pm_index pid_index;   /* pid -> its current process image */
	struct pm_index tid_index;   /* tid -> pid */
	struct perf_map *kmaps;
	size_t nkmaps, cap_kmaps;
	size_t bad;
	int resolved;
	struct image *kimage;
	/* perf_maps_resolve(): overrides that matched no binary, mapped into
	 * every image by perf_maps_build_images() */
	struct perf_maps_override *extra;
	char **extra_paths;
	size_t nextra;
};

/* The index of binary @name (created with @kind when new), or -1 when
 * memory runs out (perf_maps.c). */
long pm_binary_get(struct perf_maps *m, const char *name, size_t len,
		   enum perf_binary_kind kind);

#endif
