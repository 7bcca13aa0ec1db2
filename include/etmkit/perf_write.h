/* etmkit: writer of perf.data files holding CoreSight trace, as Linux
 * `perf record -e cs_etm//u` writes them in file mode (little-endian): the
 * inverse of the reader in perf.h where the two meet.
 *
 * Layer: perf (src/perf/).
 *
 * The format is the digest ../shared/spec/perf-data.md (section numbers
 * below are the digest's).
 *
 *   struct perf_write_config c;
 *   perf_write_config_init(&c);  c.nr_cpu = 2; c.config = ...;
 *   struct perf_writer *w;
 *   perf_writer_open(&w, "perf.data", &c);
 *   perf_write_auxtrace_info(w, cpus, 2);     cs_etm v1 metadata
 *   perf_write_comm(w, ...); perf_write_mmap2(w, ...);
 *   perf_write_itrace_start(w, ...);
 *   perf_write_aux(w, ...);                   then its bytes:
 *   perf_write_auxtrace_begin(w, ...);  perf_write_auxtrace_data(w, ...)...;
 *   perf_write_auxtrace_end(w);
 *   perf_write_finished_round(w);
 *   perf_write_build_id(w, ...);              BUILD_ID feature entries
 *   perf_writer_close(w);                     features, final header
 *
 * File layout (1.1): the 104-byte header, the event ids (one per CPU),
 * one attr entry (attr.size 128, attr_size 144 as in the samples of 1.3),
 * the record stream, then the feature table and sections: BUILD_ID (2),
 * NRCPUS (7), PMU_MAPPINGS (16) and the AUXTRACE index (18, Linux's form:
 * u64 count then {offset, 48} pairs). Records are written as they come;
 * AUXTRACE payloads are streamed (never held); only the build-id entries
 * and the index (16 bytes per AUXTRACE record) are kept until close.
 *
 * Kernel records get the sample_id_all trailer of the attr's sample_type
 * (1.6): by default TID | TIME | ID | CPU | IDENTIFIER, 40 bytes; the id
 * written is the event id of the trailer's CPU (ids are 1 + CPU index).
 */
#ifndef ETMKIT_PERF_WRITE_H
#define ETMKIT_PERF_WRITE_H

#include <stdio.h>

#include "etmkit/perf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The one attr (1.3) and the recording's shape. */
struct perf_write_config {
	size_t size;            /* sizeof(struct perf_write_config) */
	uint32_t pmu_type;      /* attr.type, also in AUXTRACE_INFO (3.1);
				   default 8 (as in perf_etm.data) */
	uint32_t nr_cpu;        /* CPUs 0..nr_cpu-1, one event id each
				   (1..256) */
	uint64_t config;        /* attr.config: ETM_OPT_* bits (3.3) */
	uint64_t config2;       /* sink hash (1.3) */
	uint64_t sample_type;   /* default TID|TIME|ID|CPU|IDENTIFIER */
	uint64_t attr_flags;    /* the flag word; default disabled,
				   inherit, exclude_kernel, exclude_hv,
				   mmap, comm, enable_on_exec,
				   sample_id_all, mmap2, comm_exec */
};

/* Fill @c with the defaults above (nr_cpu 1, config 0). */
void perf_write_config_init(struct perf_write_config *c);

/* ETM_OPT_* bits of attr.config (3.3) from an ETMv4/ETE TRCCONFIGR:
 * BB 3 -> 8, CCI 4 -> 12, CID 6 -> 14, VMID 7 -> 15, TS 11 -> 28, RS 12
 * -> 29. (For ETMv3/PTM attr.config is ETMCR itself.) */
uint64_t perf_cs_etm_config_of_trcconfigr(uint32_t trcconfigr);

/* Fill metadata block @c (perf.h; what the reader gives back): CPU @cpu,
 * the registers of @cfg and the trace ID register @traceidr, version 1
 * parameter counts (3.2: ETMv3 4, ETMv4 7, ETE 8; no TS_SOURCE).
 * @authstatus is TRCAUTHSTATUS (ETMv4/ETE). Returns 0 or
 * -etmkit_err_invalid (NULL). */
int perf_cs_etm_cpu_set_etm3(struct perf_cs_etm_cpu *c, uint32_t cpu,
			     const struct etm3_config *cfg, uint32_t traceidr);
int perf_cs_etm_cpu_set_etm4(struct perf_cs_etm_cpu *c, uint32_t cpu,
			     const struct etm4_config *cfg, uint32_t traceidr,
			     uint32_t authstatus);

struct perf_writer;

/* Create @path and write the header (to be completed at close), the
 * ids and the attr. Errors: -etmkit_err_invalid (NULL argument, bad
 * c->size, nr_cpu 0 or above 256), -etmkit_err_nomem, -etmkit_err_io
 * (cannot create or write: errno is kept). */
int perf_writer_open(struct perf_writer **w, const char *path,
		     const struct perf_write_config *c);
/* As perf_writer_open() on an open stream @f (seekable, at offset 0; not
 * closed by the writer). */
int perf_writer_open_stream(struct perf_writer **w, FILE *f,
			    const struct perf_write_config *c);

/* Every perf_write_* below returns 0, -etmkit_err_invalid (NULL, a
 * string too long for a record, a trailer CPU >= nr_cpu, a call out of
 * order such as a record inside an open AUXTRACE payload, or after close)
 * or -etmkit_err_io; perf_write_auxtrace_begin() and
 * perf_write_build_id() also -etmkit_err_nomem (the index or entry kept
 * for close). The first -etmkit_err_io sticks: later calls return it. */

/* The sample_id_all trailer values of a kernel record (1.6). */
struct perf_write_sid {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;           /* also selects the event id */
};

/* AUXTRACE_INFO of type CS_ETM (2.2, 3.1, 3.2): version 1, the attr's
 * PMU type, not snapshot mode, then a block per entry of @cpus (in the
 * given order: perf writes increasing CPU order) from its protocol
 * (etmv3 / etmv4 / ete magic), cpu, nr_params and params. */
int perf_write_auxtrace_info(struct perf_writer *w,
			     const struct perf_cs_etm_cpu *cpus, size_t n);

/* COMM (2.1): @exec sets misc COMM_EXEC. Cpumode user. */
int perf_write_comm(struct perf_writer *w, uint32_t pid, uint32_t tid,
		    const char *comm, int exec,
		    const struct perf_write_sid *sid);

/* MMAP2 (2.1) with a build id (misc MMAP_BUILD_ID, @bid_size bytes of
 * @build_id, at most 20) when @build_id is not NULL, else maj/min/ino 0.
 * @prot PROT_* (bit 2 exec), @flags MAP_*. Cpumode user. */
int perf_write_mmap2(struct perf_writer *w, uint32_t pid, uint32_t tid,
		     uint64_t start, uint64_t len, uint64_t pgoff,
		     uint32_t prot, uint32_t flags, const uint8_t *build_id,
		     size_t bid_size, const char *filename,
		     const struct perf_write_sid *sid);

/* ITRACE_START (2.1). */
int perf_write_itrace_start(struct perf_writer *w, uint32_t pid,
			    uint32_t tid, const struct perf_write_sid *sid);

/* AUX (2.1, 3.7): [aux_offset, aux_offset + aux_size) of the trailer
 * CPU's AUX ring, PERF_AUX_FLAG_* @flags. */
int perf_write_aux(struct perf_writer *w, uint64_t aux_offset,
		   uint64_t aux_size, uint64_t flags,
		   const struct perf_write_sid *sid);

/* AUXTRACE (2.2) of @size payload bytes at ring offset @offset, per-CPU
 * (@idx, @tid, @cpu as 3.9), its header written now and its index entry
 * kept; then exactly @size bytes through perf_write_auxtrace_data() and
 * perf_write_auxtrace_end(), which pads to a multiple of 8 with zeros
 * (2.2) — the header's size says the padded length, as perf's does.
 * perf_write_auxtrace_end() returns -etmkit_err_invalid when fewer or
 * more than @size bytes came. */
int perf_write_auxtrace_begin(struct perf_writer *w, uint64_t size,
			      uint64_t offset, uint32_t idx, uint32_t tid,
			      uint32_t cpu);
int perf_write_auxtrace_data(struct perf_writer *w, const uint8_t *data,
			     size_t n);
int perf_write_auxtrace_end(struct perf_writer *w);

/* FINISHED_ROUND (2.2). */
int perf_write_finished_round(struct perf_writer *w);

/* A BUILD_ID feature entry (1.4, Linux's form: type 0, misc cpumode user
 * | BUILD_ID_SIZE, @pid, the id's @bid_size bytes (<= 20) and @path),
 * written at close. */
int perf_write_build_id(struct perf_writer *w, int32_t pid,
			const uint8_t *build_id, size_t bid_size,
			const char *path);

/* File offset of the next record (for tests and messages). */
uint64_t perf_writer_offset(const struct perf_writer *w);

/* Write the feature sections, then the header with the data size and
 * feature bits, and flush (a stream given to open_stream stays open; a
 * path is closed). Returns 0, the sticky error, -etmkit_err_invalid (an
 * AUXTRACE payload left open) or -etmkit_err_io. */
int perf_writer_close(struct perf_writer *w);

/* Free @w (closing a file it opened, without completing it when
 * perf_writer_close() was not called: the header then says data size 0,
 * "not properly terminated", 1.2). */
void perf_writer_free(struct perf_writer *w);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_PERF_WRITE_H */
