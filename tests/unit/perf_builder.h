/* The perf.data builder shared by the reader tests (test_perf.c,
 * test_perf_maps.c): records and whole files written byte by byte from the
 * digest (../shared/spec/perf-data.md, sections cited beside each
 * builder), in both variants (Linux perf, simpleperf), and the opening of
 * a built file. Include after <cmocka.h>; functions are static inline so
 * that each test uses what it needs. */
#ifndef ETMKIT_TESTS_PERF_BUILDER_H
#define ETMKIT_TESTS_PERF_BUILDER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/perf.h"

struct buf {
	uint8_t d[8192];
	size_t n;
};

static inline void put(struct buf *b, const void *p, size_t n)
{
	assert_true(b->n + n <= sizeof(b->d));
	memcpy(b->d + b->n, p, n);
	b->n += n;
}

static inline void u8(struct buf *b, uint8_t v) { put(b, &v, 1); }
static inline void u16(struct buf *b, uint16_t v) { u8(b, (uint8_t)v); u8(b, (uint8_t)(v >> 8)); }
static inline void u32(struct buf *b, uint32_t v) { u16(b, (uint16_t)v); u16(b, (uint16_t)(v >> 16)); }
static inline void u64(struct buf *b, uint64_t v) { u32(b, (uint32_t)v); u32(b, (uint32_t)(v >> 32)); }
static inline void zeros(struct buf *b, size_t n) { while (n--) u8(b, 0); }

static inline void set16(struct buf *b, size_t at, uint16_t v)
{
	b->d[at] = (uint8_t)v;
	b->d[at + 1] = (uint8_t)(v >> 8);
}

static inline void set64(struct buf *b, size_t at, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b->d[at + i] = (uint8_t)(v >> 8 * i);
}

/* sample_type of the attr: IP, TID, TIME, ID, CPU, PERIOD as both
 * recorders write it (digest 1.3); trailer = pid/tid, time, id, cpu. */
#define ST 0x1C7ull
#define ATTR_FLAGS 0x2861363ull /* simpleperf's, sample_id_all set */
#define EVENT_ID 78

/* Start a record: returns where its header is, to be closed by end_rec. */
static inline size_t begin(struct buf *b, uint32_t type, uint16_t misc)
{
	size_t at = b->n;

	u32(b, type);
	u16(b, misc);
	u16(b, 0);
	return at;
}

static inline void trailer(struct buf *b, uint32_t pid, uint32_t tid,
			   uint64_t time, uint32_t cpu)
{
	u32(b, pid); /* digest 1.6 order: TID, TIME, ID, CPU */
	u32(b, tid);
	u64(b, time);
	u64(b, EVENT_ID);
	u32(b, cpu);
	u32(b, 0);
}

static inline void end_rec(struct buf *b, size_t at)
{
	set16(b, at + 6, (uint16_t)(b->n - at));
}

static inline void pad_string(struct buf *b, const char *s)
{
	size_t n = strlen(s) + 1;

	put(b, s, n);
	zeros(b, (8 - n % 8) % 8);
}

static inline void rec_mmap2(struct buf *b, uint16_t misc, uint64_t start,
			     uint64_t len, uint64_t pgoff, uint32_t prot,
			     const char *name)
{
	size_t at = begin(b, 10, misc);

	u32(b, 100); u32(b, 101);          /* pid, tid */
	u64(b, start); u64(b, len); u64(b, pgoff);
	if (misc & PERF_MISC_MMAP_BUILD_ID) {
		u8(b, 16); zeros(b, 3);
		for (int i = 0; i < 20; i++)
			u8(b, i < 16 ? (uint8_t)(0xA0 + i) : 0);
	} else {
		u32(b, 8); u32(b, 1); u64(b, 12345); u64(b, 7);
	}
	u32(b, prot); u32(b, 2);
	pad_string(b, name);
	trailer(b, 100, 101, 5, 0);
	end_rec(b, at);
}

static inline void rec_comm(struct buf *b, const char *comm)
{
	size_t at = begin(b, 3, PERF_MISC_COMM_EXEC);

	u32(b, 100); u32(b, 101);
	pad_string(b, comm);
	trailer(b, 100, 101, 6, 0);
	end_rec(b, at);
}

static inline void rec_itrace_start(struct buf *b, uint32_t cpu)
{
	size_t at = begin(b, 12, 0);

	u32(b, 100); u32(b, 101);
	trailer(b, 100, 101, 7, cpu);
	end_rec(b, at);
}

static inline void rec_aux(struct buf *b, uint64_t off, uint64_t size,
			   uint64_t flags, uint32_t cpu)
{
	size_t at = begin(b, 11, 0);

	u64(b, off); u64(b, size); u64(b, flags);
	trailer(b, 100, 101, 8, cpu);
	end_rec(b, at);
}

static inline void rec_hw_id(struct buf *b, uint64_t hw_id, uint32_t cpu)
{
	size_t at = begin(b, 21, 0);

	u64(b, hw_id);
	trailer(b, 0, 0, 9, cpu);
	end_rec(b, at);
}

/* AUXTRACE (digest 2.2): 48-byte header, then the payload. */
static inline void rec_auxtrace(struct buf *b, uint64_t offset, uint32_t cpu,
				uint32_t tid, const uint8_t *data, size_t n)
{
	size_t at = begin(b, 71, 0);

	u64(b, n); u64(b, offset); u64(b, 0x1234);
	u32(b, cpu == 0xFFFFFFFFu ? 0 : cpu); u32(b, tid); u32(b, cpu); u32(b, 0);
	end_rec(b, at);
	put(b, data, n);
}

/* A cs_etm metadata block (digest 3.2); version 0 has no nr word. */
static inline void cs_block(struct buf *b, uint64_t version, uint64_t magic,
			    uint64_t cpu, const uint64_t *params, size_t nr)
{
	u64(b, magic);
	u64(b, cpu);
	if (version)
		u64(b, nr);
	for (size_t i = 0; i < nr; i++)
		u64(b, params[i]);
}

static const uint64_t etm4_params[8] = { 0x40, 0x10, 0x28000ea1, 0x4100f422,
					 0x20001088, 0, 0x8c, 1 /* TS_SOURCE */ };
static const uint64_t ete_params[10] = { 0x8080, 0x80000022, 0x28000ea1,
					 0x4100f423, 0x20001088, 0, 0xcc,
					 0x47724a13, 0xFFFFFFFFFFFFFFFFull,
					 0x99 /* an unknown newer param */ };
static const uint64_t etm3_params[4] = { 0x10001860, 0x10, 0x344008F2,
					 0x410CF250 };
static const uint64_t ptm_params[4] = { 0x1000, 0x12, 0x344008F2,
					0x411CF312 };

static inline size_t begin_info(struct buf *b, uint64_t version, uint32_t nr_cpu)
{
	size_t at = begin(b, 70, 0);

	u32(b, 3); u32(b, 0);          /* type CS_ETM */
	u64(b, version);
	u64(b, (uint64_t)8 << 32 | nr_cpu);
	u64(b, 0);                     /* not snapshot mode */
	return at;
}

struct file_opts {
	int simpleperf;   /* feature 129, build id records of type 67 */
	int no_build_id;
	int two_attrs;    /* a second attr (sample_type 0x1C3, id 79) */
	const struct buf *file2; /* simpleperf FILE2 section (bit 132) */
};

/* A file around @records (digest 1.1, 1.2, 1.3, 1.4): header, one id,
 * one attr (attr_size 144, attr.size 128), data, feature table, build id
 * (and META_INFO for simpleperf) sections. */
static inline void build_file(struct buf *f, const struct buf *records,
			      const struct file_opts *o)
{
	size_t nattr = o->two_attrs ? 2 : 1;
	size_t data_off = 104 + 8 * nattr + 144 * nattr, tab, bid_off, meta_off = 0;
	size_t nfeat = (o->no_build_id ? 0 : 1) + (o->simpleperf ? 1 : 0) +
		       (o->file2 ? 1 : 0);

	f->n = 0;
	put(f, "PERFILE2", 8);
	u64(f, 104); u64(f, 144);
	u64(f, 104 + 8 * nattr); u64(f, 144 * nattr); /* attrs */
	u64(f, data_off); u64(f, records->n);     /* data */
	zeros(f, 16);                             /* event_types */
	u8(f, o->no_build_id ? 0 : 0x04);         /* bit 2 BUILD_ID */
	zeros(f, 15);
	/* bit 129 META_INFO, bit 132 FILE2 */
	u8(f, (uint8_t)((o->simpleperf ? 0x02 : 0) | (o->file2 ? 0x10 : 0)));
	zeros(f, 15);
	u64(f, EVENT_ID);                         /* ids of attr 0 */
	if (o->two_attrs)
		u64(f, EVENT_ID + 1);             /* ids of attr 1 */
	/* attr: type 8, size 128, config 0x4000, period, sample_type ... */
	u32(f, 8); u32(f, 128); u64(f, 0x4000); u64(f, 1); u64(f, ST);
	u64(f, 0); u64(f, ATTR_FLAGS);
	zeros(f, 128 - 48);
	u64(f, 104); u64(f, 8);                   /* its ids */
	if (o->two_attrs) {
		/* Linux's dummy:u tracking event (digest 1.3): software,
		 * config 9, no TIME: the id sits 16 bytes from the end as in
		 * attr 0, as perf requires. */
		u32(f, 1); u32(f, 128); u64(f, 9); u64(f, 1); u64(f, 0x1C3);
		u64(f, 0); u64(f, ATTR_FLAGS);
		zeros(f, 128 - 48);
		u64(f, 112); u64(f, 8);
	}
	assert_int_equal(f->n, data_off);
	put(f, records->d, records->n);
	tab = f->n;
	zeros(f, 16 * nfeat);
	bid_off = f->n;
	if (!o->no_build_id) {
		size_t at = begin(f, o->simpleperf ? 67 : 0,
				  o->simpleperf ? 2 : 2 | 0x8000);

		u32(f, (uint32_t)-1);
		for (int i = 0; i < 20; i++)
			u8(f, i < 16 ? (uint8_t)(0xB0 + i) : 0);
		u8(f, o->simpleperf ? 0 : 16);
		zeros(f, 3);
		put(f, "/data/local/tmp/prog", 21);
		zeros(f, 64 - 21);
		end_rec(f, at);
		set64(f, tab, bid_off);
		set64(f, tab + 8, f->n - bid_off);
	}
	if (o->simpleperf) {
		size_t e = tab + (o->no_build_id ? 0 : 16);

		meta_off = f->n;
		put(f, "simpleperf_version\0" "1.build\0", 27);
		set64(f, e, meta_off);
		set64(f, e + 8, f->n - meta_off);
	}
	if (o->file2) {
		size_t e = tab + 16 * (nfeat - 1), off = f->n;

		put(f, o->file2->d, o->file2->n);
		set64(f, e, off);
		set64(f, e + 8, f->n - off);
	}
}

static const uint8_t payload0[32] = { 0x3d, 0, 0, 0, 0, 0, 0, 0,
				      0, 0, 0, 0, 0, 0x80, 1, 0x80,
				      0xFF, 0xFE, 0xFD, 0xFC, 0xFB, 0xFA, 0xF9, 0xF8,
				      0xF7, 0xF6, 0xF5, 0xF4, 0xF3, 0xF2, 0xF1, 0xF0 };
static const uint8_t payload1[16] = { 0, 0, 0, 0, 0, 0, 0, 0,
				      0, 0, 0, 0x80, 0x70, 0x70, 0x70, 0x70 };

/* The Linux-perf-like file every test below starts from. */
static inline void linux_records(struct buf *r)
{
	size_t at;

	r->n = 0;
	at = begin_info(r, 1, 2);
	cs_block(r, 1, PERF_CS_MAGIC_ETM4, 0, etm4_params, 7);
	cs_block(r, 1, PERF_CS_MAGIC_ETE, 1, ete_params, 10);
	end_rec(r, at);
	rec_mmap2(r, 2 | PERF_MISC_MMAP_BUILD_ID, 0x400000, 0x1000, 0x1000, 4,
		  "/data/local/tmp/prog");
	rec_mmap2(r, 2, 0x7f0000, 0x2000, 0, 5, "/lib/libc.so");
	rec_comm(r, "prog");
	rec_itrace_start(r, 0);
	at = begin(r, 99, 0);                  /* unknown: skipped by size */
	u64(r, 0xDEAD);
	end_rec(r, at);
	rec_hw_id(r, 0x22, 1);                 /* trace ID 0x22 for CPU 1 */
	rec_aux(r, 0, 16, PERF_AUX_FLAG_TRUNCATED, 0);
	rec_aux(r, 16, 16, 0, 0);
	rec_aux(r, 0, 16, PERF_AUX_FLAG_FORMAT_RAW, 1);
	rec_aux(r, 64, 16, 0, 1);              /* beyond its payload: lost */
	rec_aux(r, 0, 0, PERF_AUX_FLAG_COLLISION, 1);
	at = begin(r, 68, 0);                  /* FINISHED_ROUND */
	end_rec(r, at);
	rec_auxtrace(r, 0, 0, 101, payload0, sizeof(payload0));
	rec_auxtrace(r, 0, 1, 101, payload1, sizeof(payload1));
}

static inline struct perf_file *open_ok(const struct buf *f)
{
	struct perf_file *pf = NULL;
	struct perf_diag d;
	int err = perf_file_open_buffer(&pf, f->d, f->n, &d);

	if (err)
		fail_msg("open: %s at %llu: %s", etmkit_errstr(err),
			 (unsigned long long)d.offset, d.message);
	return pf;
}

static inline int open_err(const struct buf *f, struct perf_diag *d)
{
	struct perf_file *pf = (struct perf_file *)1;
	int err = perf_file_open_buffer(&pf, f->d, f->n, d);

	assert_null(pf);
	if (err)
		assert_true(d->message[0] != '\0');
	return err;
}

#endif
