/* etmkit: reader of perf.data files holding CoreSight trace (Linux perf's
 * `perf record -e cs_etm//` and Android simpleperf's `-e cs-etm`).
 *
 * Layer: perf (src/perf/): the perf.data input beside snapshots.
 *
 * The format is described in the digest ../shared/spec/perf-data.md
 * (section numbers below are the digest's); docs/perf-data.md says what is
 * supported.
 *
 *   struct perf_file *pf;
 *   struct perf_diag diag;
 *   perf_file_open(&pf, "perf.data", &diag);       (or perf_file_open_buffer)
 *   struct perf_record_iter it;  struct perf_record rec;
 *   perf_record_iter_init(&it, pf);
 *   while (perf_record_next(&it, &rec, &diag) == 0)  switch (rec.type) ...
 *   const struct perf_cs_etm *cs = perf_file_cs_etm(pf);   per-CPU configs
 *   struct perf_aux_iter ai;  struct perf_aux_chunk ch;
 *   perf_aux_iter_init(&ai, pf, -1);
 *   while (perf_aux_next(&ai, &ch, &diag) == 0)  decode ch.data[0..ch.data_size)
 *   perf_file_free(pf);
 *
 * perf_file_open() walks the whole record stream once and refuses a file
 * whose records do not fit its data section, so the iterators afterwards
 * only meet records that are inside the file. Records point into the
 * file's bytes (no copy, no allocation per record): they stay valid until
 * perf_file_free().
 *
 * Byte order: only little-endian files (magic "PERFILE2" read as a
 * little-endian u64 is 0x32454C4946524550, digest 1.2) are read. A
 * byte-swapped file (a big-endian writer) is refused with
 * -etmkit_err_unsupported; so are pipe-mode files (digest 1.7) and the
 * legacy "PERFFILE" format.
 */
#ifndef ETMKIT_PERF_H
#define ETMKIT_PERF_H

#include "etmkit/common.h"
#include "etmkit/etm3.h"
#include "etmkit/etm4.h"
#include "etmkit/elem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Diagnostics --------------------------------------------------------- */

/* What was wrong, and where: @offset is the byte offset in the file
 * (valid when has_offset). */
struct perf_diag {
	uint64_t offset;
	int has_offset;
	char message[256];
};

/* ---- File ---------------------------------------------------------------- */

enum perf_variant {
	perf_variant_linux = 0,
	perf_variant_simpleperf /* feature bits 128..133 present (digest 1.8) */
};

/* Feature bits used here (digest 1.4). */
#define PERF_FEAT_BUILD_ID 2
#define PERF_FEAT_AUXTRACE 18
#define PERF_FEAT_SP_META_INFO 129

/* attr flag bits (digest 1.3) and PERF_SAMPLE_* bits. */
#define PERF_ATTR_FLAG_SAMPLE_ID_ALL (1ull << 18)
#define PERF_SAMPLE_TID (1ull << 1)
#define PERF_SAMPLE_TIME (1ull << 2)
#define PERF_SAMPLE_ID (1ull << 6)
#define PERF_SAMPLE_CPU (1ull << 7)
#define PERF_SAMPLE_STREAM_ID (1ull << 9)
#define PERF_SAMPLE_IDENTIFIER (1ull << 16)

/* The file header and what perf_file_open() found while walking it. */
struct perf_file_info {
	enum perf_variant variant;
	uint64_t header_size;   /* 104, or 72 for the old header (no features) */
	uint64_t attr_size;     /* one attr-section entry */
	uint64_t attrs_offset, attrs_size;
	uint64_t data_offset, data_size;
	uint8_t features[32];   /* bit n = byte n/8, bit n%8 */
	size_t attr_count;
	size_t record_count;    /* records in the data section */
};

/* One attr-section entry (digest 1.3). */
struct perf_attr {
	uint32_t type;          /* PMU type: the cs_etm PMU's dynamic number */
	uint32_t size;          /* perf_event_attr.size (0 = 64, ABI 0) */
	uint64_t config;        /* cs_etm option bits (digest 3.3) */
	uint64_t sample_type;   /* PERF_SAMPLE_* */
	uint64_t flags;         /* the flag word at offset 40 */
	uint64_t config2;
	uint64_t ids_offset, ids_size; /* its u64 event-id array */
};

/* A BUILD_ID feature entry (digest 1.4, bit 2). */
struct perf_build_id {
	uint64_t offset;        /* of the entry in the file */
	uint16_t misc;          /* cpumode, bit 15 BUILD_ID_SIZE */
	int32_t pid;            /* -1: host kernel */
	uint8_t id[20];
	uint8_t size;           /* valid bytes of id: the size byte when misc
				   bit 15 is set, else 20 (zero-padded) */
	const char *path;       /* NUL-terminated inside the file's bytes */
};

struct perf_file;

/* Open and check @path: header, attrs, feature table, build ids, the whole
 * record stream, the cs_etm metadata (when there is an AUXTRACE_INFO
 * record) and the AUXTRACE payloads. A regular file is mapped read-only,
 * and the pages the walk here and the iterators below pass are given back
 * as they go, so its resident part stays under a megabyte plus the AUX
 * record being decoded whatever its length; anything else (a pipe)
 * is read into memory once. Tables are sized by what the file holds: the
 * AUXTRACE records (48 bytes each), build ids, metadata. On failure *@pf is NULL and @diag (may be
 * NULL) names the offset and what was wrong. Errors: -etmkit_err_invalid (NULL @pf or
 * @path), -etmkit_err_io (cannot open or read; no offset),
 * -etmkit_err_nomem, -etmkit_err_truncated (the file ends before its
 * header, attr section, data section, feature table or a record's end or
 * AUXTRACE payload ends past the data section), -etmkit_err_format (bad
 * magic, header size, attr_size, a section outside the file, a record
 * smaller than 8 bytes, overlapping id arrays, a malformed build-id entry,
 * malformed cs_etm metadata: unknown block magic, impossible CPU or
 * parameter count, blocks that do not fill the record; an
 * AUX_OUTPUT_HW_ID without a CPU or contradicting an earlier one),
 * -etmkit_err_unsupported (byte-swapped, pipe-mode or legacy PERFFILE
 * files; cs_etm metadata version above 2; AUX_OUTPUT_HW_ID major version
 * above 0). */
int perf_file_open(struct perf_file **pf, const char *path,
		   struct perf_diag *diag);
/* Give back the memory of file bytes [@offset, @offset + @size) the
 * caller is done with: perf_file_open() maps a regular file read-only
 * rather than copying it, and its pages are dropped here (they are read
 * again from the file if touched later, so every pointer stays valid).
 * The record and AUX iterators already do this for the records they pass
 * and the AUX data they returned (docs/perf-data.md, "Memory"); this is
 * for bytes read otherwise (through perf_file_bytes()). Only whole pages
 * inside the range. Nothing for a file that was read (a pipe) or a
 * buffer. A file truncated by another process while mapped makes later
 * reads of the lost part fault (SIGBUS), as with any mapped file. */
void perf_file_release(const struct perf_file *pf, uint64_t offset,
		       uint64_t size);
/* As perf_file_open() on @n bytes at @buf, which are not copied and must
 * stay unchanged until perf_file_free(). Same errors, less -etmkit_err_io. */
int perf_file_open_buffer(struct perf_file **pf, const uint8_t *buf, size_t n,
			  struct perf_diag *diag);
void perf_file_free(struct perf_file *pf);

/* The header and counts; never NULL for an open file. */
const struct perf_file_info *perf_file_info(const struct perf_file *pf);
/* The file's bytes and size (for offsets given by the records). */
const uint8_t *perf_file_bytes(const struct perf_file *pf, size_t *n);
/* 1 when feature bit @bit is set. */
int perf_file_has_feature(const struct perf_file *pf, unsigned bit);
/* The file offset and size of feature @bit's section. Errors:
 * -etmkit_err_not_found (bit not set), -etmkit_err_invalid. */
int perf_file_feature(const struct perf_file *pf, unsigned bit,
		      uint64_t *offset, uint64_t *size);
/* Attr @i into @out. Errors: -etmkit_err_not_found (i >= attr_count),
 * -etmkit_err_invalid (NULL argument). */
int perf_file_attr(const struct perf_file *pf, size_t i,
		   struct perf_attr *out);
size_t perf_file_build_id_count(const struct perf_file *pf);
/* Build id @i, in file order. Errors: -etmkit_err_not_found,
 * -etmkit_err_invalid. */
int perf_file_build_id(const struct perf_file *pf, size_t i,
		       struct perf_build_id *out);

/* ---- Records (digest 1.5, 1.6, 2) ---------------------------------------- */

enum perf_record_type {
	perf_rec_mmap = 1,
	perf_rec_comm = 3,
	perf_rec_exit = 4,
	perf_rec_fork = 7,
	perf_rec_mmap2 = 10,
	perf_rec_aux = 11,
	perf_rec_itrace_start = 12,
	perf_rec_aux_output_hw_id = 21,
	perf_rec_finished_round = 68,
	perf_rec_auxtrace_info = 70,
	perf_rec_auxtrace = 71,
	/* simpleperf's own (digest 2.3): header {u32 type, u16 hi, u16 lo} */
	perf_rec_sp_kernel_symbol = 32769,
	perf_rec_sp_split = 32772,
	perf_rec_sp_split_end = 32773,
	perf_rec_sp_event_id = 32774
};

/* misc bits (digest 1.5). */
#define PERF_MISC_CPUMODE_MASK 0x7u
#define PERF_MISC_MMAP_DATA (1u << 13)
#define PERF_MISC_COMM_EXEC (1u << 13)
#define PERF_MISC_MMAP_BUILD_ID (1u << 14)

/* AUX record flags (digest 3.7). */
#define PERF_AUX_FLAG_TRUNCATED 0x01u
#define PERF_AUX_FLAG_OVERWRITE 0x02u
#define PERF_AUX_FLAG_PARTIAL 0x04u
#define PERF_AUX_FLAG_COLLISION 0x08u
#define PERF_AUX_FLAG_FORMAT_MASK 0xFF00u
#define PERF_AUX_FLAG_FORMAT_RAW 0x0100u /* unformatted (TRBE) */

/* The sample_id_all trailer (digest 1.6); fields absent from the attr's
 * sample_type are 0 and have their has_* bit clear. */
struct perf_sample_id {
	uint32_t pid, tid;
	uint64_t time, id, stream_id;
	uint32_t cpu;
	uint8_t has_tid, has_time, has_id, has_cpu;
};

struct perf_rec_mmap {          /* MMAP and MMAP2 */
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	/* MMAP2 only: */
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint8_t has_build_id;       /* misc & PERF_MISC_MMAP_BUILD_ID */
	uint8_t build_id_size;
	uint8_t build_id[20];
	uint32_t prot, flags;       /* prot bit 2 = PROT_EXEC */
	const char *filename;       /* NUL-terminated inside the record */
};

struct perf_rec_comm {
	uint32_t pid, tid;
	const char *comm;           /* NUL-terminated inside the record */
};

struct perf_rec_fork {          /* FORK and EXIT */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct perf_rec_aux {
	uint64_t aux_offset, aux_size, flags;
};

struct perf_rec_itrace_start {
	uint32_t pid, tid;
};

struct perf_rec_hw_id {         /* AUX_OUTPUT_HW_ID (digest 3.5) */
	uint64_t hw_id;
	uint8_t trace_id;           /* bits 7:0 */
	uint32_t sink_id;           /* bits 39:8 (minor version >= 1) */
	uint8_t minor, major;       /* bits 59:56, 63:60 */
};

struct perf_rec_auxtrace_info {
	uint32_t type;              /* 3 = CS_ETM */
	const uint8_t *priv;        /* priv[] as bytes, little-endian u64s */
	size_t priv_words;
};

struct perf_rec_auxtrace {
	uint64_t size, offset, reference;
	uint32_t idx, tid, cpu;     /* cpu 0xFFFFFFFF: per-thread */
	uint64_t data_offset;       /* file offset of the payload */
	const uint8_t *data;        /* the payload: size bytes */
};

struct perf_rec_event_id {      /* simpleperf EVENT_ID */
	uint64_t count;
	const uint8_t *pairs;       /* {u64 attr_index, u64 event_id}[count] */
};

/* One record. @bytes covers header.size bytes (an AUXTRACE payload
 * follows them; see u.auxtrace). Only the member of @u matching @type is
 * filled; other types have only the header fields. */
struct perf_record {
	uint64_t offset;            /* in the file */
	uint32_t type;
	uint16_t misc;
	uint32_t size;              /* header.size: 32-bit for simpleperf's
				       records >= 32768 */
	const uint8_t *bytes;
	struct perf_sample_id sid;  /* kernel records with sample_id_all */
	int has_sid;
	uint32_t trailer_size;      /* bytes of the trailer at the end */
	union {
		struct perf_rec_mmap mmap;
		struct perf_rec_comm comm;
		struct perf_rec_fork fork;
		struct perf_rec_aux aux;
		struct perf_rec_itrace_start itrace_start;
		struct perf_rec_hw_id hw_id;
		struct perf_rec_auxtrace_info auxtrace_info;
		struct perf_rec_auxtrace auxtrace;
		struct perf_rec_event_id event_id;
	} u;
};

/* A pass over the records of a mapped file gives back the pages behind
 * it as it goes, 256 KiB at a time, and the rest at its end, so it keeps
 * under a megabyte of a file of any length resident; records it returned
 * earlier stay valid (their pages are read again if touched). */
struct perf_record_iter {
	const struct perf_file *pf;
	uint64_t pos, end;
	uint64_t kept;              /* pages below it were given back */
};

/* Start at the first record. Errors: -etmkit_err_invalid. */
int perf_record_iter_init(struct perf_record_iter *it,
			  const struct perf_file *pf);
/* The next record into @rec. Returns 0, -etmkit_err_eos after the last,
 * -etmkit_err_format for a record whose body is too small for its type or
 * whose string is not terminated (offset in @diag, may be NULL; the
 * iterator moves on, so the caller may continue), -etmkit_err_invalid. */
int perf_record_next(struct perf_record_iter *it, struct perf_record *rec,
		     struct perf_diag *diag);
/* "MMAP2", "AUX", ... or NULL for a type without a name here. */
const char *perf_record_type_name(uint32_t type);

/* ---- CoreSight metadata (digest 3.1-3.5) --------------------------------- */

#define PERF_CS_MAGIC_ETM3 0x3030303030303030ull
#define PERF_CS_MAGIC_ETM4 0x4040404040404040ull
#define PERF_CS_MAGIC_ETE  0x5050505050505050ull
#define PERF_CS_MAX_PARAMS 16 /* params kept per CPU; more are skipped */

struct perf_cs_etm_cpu {
	uint32_t cpu;
	enum etmkit_protocol protocol; /* etmv3 (ETMv3 or PTM), etmv4, ete */
	uint8_t ptm;                   /* ETMv3 block whose ETMIDR[11:8] is
					  3 (ptm_etmidr_is_ptm()) */
	uint8_t trace_id;              /* TRACEIDR & 0x7F, or the
					  AUX_OUTPUT_HW_ID value */
	uint8_t trace_id_from_hw_id;
	uint8_t has_ts_source;
	int64_t ts_source;
	struct etm3_config etm3;       /* when protocol == etmkit_proto_etmv3 */
	struct etm4_config etm4;       /* etmv4 or ete (ETM4_CFG_ETE) */
	uint32_t traceidr;
	uint32_t etmccer_or_authstatus;/* ETMCCER, or TRCAUTHSTATUS */
	uint32_t trcdevarch;           /* ETE */
	uint64_t nr_params;            /* as the block says (version 0: fixed) */
	uint64_t params[PERF_CS_MAX_PARAMS]; /* the first min(nr, 16) */
	uint64_t offset;               /* of the block in the file */
};

struct perf_cs_etm {
	uint64_t version;       /* 0, 1 or 2 */
	uint32_t pmu_type;
	uint32_t nr_cpu;
	uint64_t snapshot;
	uint64_t offset;        /* of the AUXTRACE_INFO record */
	const struct perf_cs_etm_cpu *cpus; /* nr_cpu blocks, file order */
	size_t hw_id_count;     /* AUX_OUTPUT_HW_ID records applied */
};

/* The first AUXTRACE_INFO record of type CS_ETM, decoded at open; NULL
 * when the file has none. */
const struct perf_cs_etm *perf_file_cs_etm(const struct perf_file *pf);
/* The metadata block of CPU @cpu, or NULL. */
const struct perf_cs_etm_cpu *perf_cs_etm_find_cpu(const struct perf_cs_etm *cs,
						   uint32_t cpu);

/* ---- AUX data (digest 3.7-3.10) ------------------------------------------ */

/* One AUX record with the AUXTRACE bytes it covers. */
struct perf_aux_chunk {
	uint64_t record_offset;     /* of the AUX record */
	uint32_t cpu, tid;          /* from its trailer (cpu 0xFFFFFFFF if the
				       trailer has no CPU) */
	uint64_t aux_offset, aux_size, flags; /* as recorded */
	const uint8_t *data;        /* NULL when no AUXTRACE payload holds
				       the range (lost, or size 0) */
	uint64_t data_offset;       /* file offset of data[0] */
	uint64_t data_size;         /* bytes at data (snapshot: min of the AUX
				       and AUXTRACE sizes, digest 3.8) */
	uint32_t idx;               /* the AUXTRACE record's idx */
};

/* Besides the record pass it makes, it gives back the pages of the
 * previous chunk's data when asked for the next (the caller has decoded
 * it; it stays valid, read again if touched), wherever in the file the
 * data is. */
struct perf_aux_iter {
	struct perf_record_iter rec;
	int64_t cpu;                /* -1: every CPU */
	uint64_t done_offset, done_size; /* the previous chunk's data */
};

/* Iterate over the AUX records of CPU @cpu (-1: all) in file order.
 * Errors: -etmkit_err_invalid. */
int perf_aux_iter_init(struct perf_aux_iter *it, const struct perf_file *pf,
		       int64_t cpu);
/* The next AUX record into @c. AUX records of size 0 and those whose
 * range no AUXTRACE payload of the same CPU (or same thread when cpu is
 * -1) holds are returned with data == NULL. Returns 0, -etmkit_err_eos,
 * -etmkit_err_format (an AUX record too small; the iterator moves on),
 * -etmkit_err_invalid. */
int perf_aux_next(struct perf_aux_iter *it, struct perf_aux_chunk *c,
		  struct perf_diag *diag);

/* The loss an AUX record's flags report (digest 3.7): one reason per
 * record, TRUNCATED (trace after the record lost) first, then COLLISION,
 * PARTIAL, OVERWRITE; etmkit_loss_none when there is none. For
 * etmkit_session_break() after the record's bytes. */
enum etmkit_loss perf_aux_loss(uint64_t flags);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_PERF_H */
