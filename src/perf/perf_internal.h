/* etmkit: what the perf.data reader's files share (src/perf/). */
#ifndef ETMKIT_PERF_INTERNAL_H
#define ETMKIT_PERF_INTERNAL_H

#include "etmkit/perf.h"
#include "etmkit/ptm.h" /* ptm_etmidr_is_ptm() */
#include "common/text.h" /* ETMKIT_PRINTF */

/* An AUXTRACE record found while walking the stream (digest 2.2). */
struct perf_auxtrace_ent {
	uint64_t rec_offset, data_offset; /* the record, its payload */
	uint64_t size, offset;            /* payload bytes, AUX ring offset */
	uint32_t idx, tid, cpu;
};

/* An event id and the attr it belongs to (digest 1.3, 1.6). */
struct perf_id_ent {
	uint64_t id;
	size_t attr;
};

struct perf_file {
	uint8_t *owned;          /* the file's bytes when we read them */
	void *map;               /* or mapped them (perf_file_open()) */
	size_t map_size;
	const uint8_t *buf;
	size_t n;
	struct perf_file_info info;
	uint64_t feat_off[256], feat_size[256];
	struct perf_attr *attrs; /* info.attr_count */
	int trailer_uniform;     /* every attr lays out the trailer alike */
	struct perf_id_ent *ids; /* when not: every attr's ids, sorted */
	size_t nids;
	struct perf_build_id *bids;
	size_t nbids;
	struct perf_auxtrace_ent *at; /* sorted by (queue, offset, file) */
	size_t nat, cap_at;
	struct perf_cs_etm cs;
	struct perf_cs_etm_cpu *cpus;
	int has_cs;
};

static inline uint16_t perf_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t perf_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t perf_rd64(const uint8_t *p)
{
	return (uint64_t)perf_rd32(p) | (uint64_t)perf_rd32(p + 4) << 32;
}

/* Set @d (may be NULL) to @fmt at file offset @off; returns @err negated. */
ETMKIT_PRINTF(4, 5)
int perf_fail(struct perf_diag *d, int err, uint64_t off, const char *fmt, ...);

/* The header of the record at @pos, which must end by @end: type, misc,
 * size (simpleperf's 32-bit form for types >= 32768, digest 2.3) and where
 * the next record starts (after an AUXTRACE payload). Returns 0 or a
 * negated error with @d set. */
int perf_rec_header(const struct perf_file *pf, uint64_t pos, uint64_t end,
		    uint32_t *type, uint16_t *misc, uint32_t *size,
		    uint64_t *next, struct perf_diag *d);

/* Bytes of the sample_id_all trailer for sample_type @st (digest 1.6: 8
 * per selected field): read by perf_records.c, written by perf_write.c. */
uint32_t perf_trailer_size(uint64_t st);

/* The sample_id_all trailer of kernel record @rec (digest 1.6) into @sid:
 * its size in bytes, 0 none (no trailer for this type or attr, or the
 * record is too small for it). */
int perf_sample_id_parse(const struct perf_file *pf, const uint8_t *rec,
			 uint32_t type, uint32_t size,
			 struct perf_sample_id *sid);

/* Decode the cs_etm AUXTRACE_INFO record at @off (perf_cs_etm.c). */
int perf_cs_etm_parse(struct perf_file *pf, uint64_t off, uint32_t size,
		      struct perf_diag *d);
/* Apply the AUX_OUTPUT_HW_ID records to pf->cpus (perf_cs_etm.c). */
int perf_cs_etm_apply_hw_ids(struct perf_file *pf, struct perf_diag *d);

/* A pass over the records is done with the file's bytes below @pos: give
 * back the whole windows between *@kept and @pos (with @last, every page
 * up to @pos) and move *@kept on (perf_pages.c). Start *@kept at 0. */
void perf_pages_passed(const struct perf_file *pf, uint64_t *kept,
		       uint64_t pos, int last);
/* File bytes [@offset, @offset + @size) were read (AUX data decoded): give
 * back their pages and the fault-around blocks they share (perf_pages.c). */
void perf_pages_done(const struct perf_file *pf, uint64_t offset,
		     uint64_t size);

/* Sort the AUXTRACE list for perf_aux_next()'s look-ups (perf_aux.c). */
void perf_aux_index_build(struct perf_file *pf);

#endif
