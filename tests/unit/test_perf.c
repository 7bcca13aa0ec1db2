/* Unit tests of the perf.data reader (include/etmkit/perf.h).
 *
 * Files are built byte by byte (perf_builder.h) from the digest
 * (../shared/spec/perf-data.md, sections cited beside each builder), in
 * both variants (Linux perf, simpleperf); then damaged (every truncation,
 * bad sizes and counts); then the three shared simpleperf recordings are
 * checked for what they hold. Their expected values come from the
 * recordings' README and the digest's "Verified (SMP)" notes, and the
 * whole-file summaries are also diffed against an independent Python
 * parser (tests/perf/perf_facts.py, ctest perf_facts_*).
 *
 * The side-band (include/etmkit/perf_maps.h) is tested in
 * test_perf_maps.c.
 *
 * Tests that need ../shared skip (exit 77) when it is absent, unless
 * CI=true. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "etmkit/perf.h"
#include "etmkit/perf_maps.h"
#include "test_util.h"
#include "perf_builder.h"

#define PERF_DIR ETMKIT_SHARED_DIR "/testdata/perf"

/* ---- well-formed files ---------------------------------------------------- */

static void check_records(struct perf_file *pf)
{
	struct perf_record_iter it;
	struct perf_record rec;
	unsigned n = 0, mmap2 = 0;
	int err;

	perf_record_iter_init(&it, pf);
	while ((err = perf_record_next(&it, &rec, NULL)) != -etmkit_err_eos) {
		assert_int_equal(err, 0);
		n++;
		switch (rec.type) {
		case perf_rec_mmap2:
			assert_true(rec.has_sid);
			assert_int_equal(rec.trailer_size, 32);
			if (mmap2++ == 0) {
				assert_true(rec.u.mmap.has_build_id);
				assert_int_equal(rec.u.mmap.build_id_size, 16);
				assert_int_equal(rec.u.mmap.build_id[15], 0xAF);
				assert_int_equal(rec.u.mmap.prot, 4);
				assert_int_equal(rec.u.mmap.start, 0x400000);
				assert_int_equal(rec.u.mmap.pgoff, 0x1000);
				assert_string_equal(rec.u.mmap.filename,
						    "/data/local/tmp/prog");
			} else {
				assert_false(rec.u.mmap.has_build_id);
				assert_int_equal(rec.u.mmap.maj, 8);
				assert_int_equal(rec.u.mmap.ino, 12345);
				assert_string_equal(rec.u.mmap.filename,
						    "/lib/libc.so");
			}
			break;
		case perf_rec_comm:
			assert_string_equal(rec.u.comm.comm, "prog");
			assert_int_equal(rec.sid.tid, 101);
			assert_int_equal(rec.sid.time, 6);
			break;
		case perf_rec_itrace_start:
			assert_int_equal(rec.u.itrace_start.tid, 101);
			assert_int_equal(rec.sid.cpu, 0);
			break;
		case perf_rec_aux_output_hw_id:
			assert_int_equal(rec.u.hw_id.trace_id, 0x22);
			assert_int_equal(rec.u.hw_id.major, 0);
			assert_int_equal(rec.sid.cpu, 1);
			break;
		case perf_rec_auxtrace:
			assert_false(rec.has_sid); /* user type: no trailer */
			assert_int_equal(rec.size, 48);
			assert_int_equal(rec.u.auxtrace.data_offset,
					 rec.offset + 48);
			assert_int_equal(rec.u.auxtrace.tid, 101);
			break;
		case 99:
			assert_int_equal(rec.size, 16);
			break;
		default:
			break;
		}
	}
	assert_int_equal(n, 15);
	assert_int_equal(perf_file_info(pf)->record_count, 15);
	assert_int_equal(mmap2, 2);
}

static void check_cs_etm(struct perf_file *pf)
{
	const struct perf_cs_etm *cs = perf_file_cs_etm(pf);
	const struct perf_cs_etm_cpu *c;

	assert_non_null(cs);
	assert_int_equal(cs->version, 1);
	assert_int_equal(cs->pmu_type, 8);
	assert_int_equal(cs->nr_cpu, 2);
	assert_int_equal(cs->hw_id_count, 1);
	c = perf_cs_etm_find_cpu(cs, 0);
	assert_non_null(c);
	assert_int_equal(c->protocol, etmkit_proto_etmv4);
	assert_int_equal(c->trace_id, 0x10);
	assert_false(c->trace_id_from_hw_id);
	assert_int_equal(c->etm4.trcconfigr, 0x40);
	assert_int_equal(c->etm4.trcidr0, 0x28000ea1);
	assert_int_equal(c->etm4.trcidr1, 0x4100f422);
	assert_int_equal(c->etm4.trcidr2, 0x20001088);
	assert_int_equal(c->etm4.flags & ETM4_CFG_ETE, 0);
	assert_false(c->has_ts_source); /* 7 params: v6.1 style */
	c = perf_cs_etm_find_cpu(cs, 1);
	assert_non_null(c);
	assert_int_equal(c->protocol, etmkit_proto_ete);
	assert_true(c->etm4.flags & ETM4_CFG_ETE);
	assert_int_equal(c->trcdevarch, 0x47724a13);
	assert_int_equal(c->nr_params, 10);
	assert_true(c->has_ts_source);
	assert_int_equal(c->ts_source, -1);
	assert_int_equal(c->traceidr, 0x80000022); /* bit 31 placeholder */
	assert_int_equal(c->trace_id, 0x22);       /* from HW_ID */
	assert_true(c->trace_id_from_hw_id);
	assert_null(perf_cs_etm_find_cpu(cs, 2));
}

static void check_aux(struct perf_file *pf)
{
	struct perf_aux_iter ai;
	struct perf_aux_chunk c;
	size_t n;
	const uint8_t *file = perf_file_bytes(pf, &n);

	perf_aux_iter_init(&ai, pf, -1);
	assert_int_equal(perf_aux_next(&ai, &c, NULL), 0);
	assert_int_equal(c.cpu, 0);
	assert_int_equal(c.flags, PERF_AUX_FLAG_TRUNCATED);
	assert_non_null(c.data);
	assert_int_equal(c.data_size, 16);
	assert_memory_equal(c.data, payload0, 16);
	assert_ptr_equal(c.data, file + c.data_offset);
	assert_int_equal(perf_aux_next(&ai, &c, NULL), 0);
	assert_memory_equal(c.data, payload0 + 16, 16);
	assert_int_equal(perf_aux_next(&ai, &c, NULL), 0);
	assert_int_equal(c.cpu, 1);
	assert_int_equal(c.flags & PERF_AUX_FLAG_FORMAT_MASK,
			 PERF_AUX_FLAG_FORMAT_RAW);
	assert_memory_equal(c.data, payload1, 16);
	assert_int_equal(perf_aux_next(&ai, &c, NULL), 0);
	assert_null(c.data);                    /* no payload holds it */
	assert_int_equal(c.aux_size, 16);
	assert_int_equal(perf_aux_next(&ai, &c, NULL), 0);
	assert_null(c.data);                    /* size 0 */
	assert_int_equal(c.flags, PERF_AUX_FLAG_COLLISION);
	assert_int_equal(perf_aux_next(&ai, &c, NULL), -etmkit_err_eos);

	/* One CPU only. */
	perf_aux_iter_init(&ai, pf, 1);
	n = 0;
	while (perf_aux_next(&ai, &c, NULL) == 0) {
		assert_int_equal(c.cpu, 1);
		n++;
	}
	assert_int_equal(n, 3);
}

static void test_linux_file(void **state)
{
	struct buf r, f;
	struct file_opts o = { 0 };
	struct perf_file *pf;
	struct perf_build_id bid;
	struct perf_attr a;

	(void)state;
	linux_records(&r);
	build_file(&f, &r, &o);
	pf = open_ok(&f);
	assert_int_equal(perf_file_info(pf)->variant, perf_variant_linux);
	assert_int_equal(perf_file_info(pf)->attr_count, 1);
	assert_int_equal(perf_file_attr(pf, 0, &a), 0);
	assert_int_equal(a.type, 8);
	assert_int_equal(a.sample_type, ST);
	assert_int_equal(a.config, 0x4000);
	assert_int_equal(perf_file_attr(pf, 1, &a), -etmkit_err_not_found);
	assert_int_equal(perf_file_build_id_count(pf), 1);
	assert_int_equal(perf_file_build_id(pf, 0, &bid), 0);
	assert_int_equal(bid.size, 16);          /* misc bit 15: size byte */
	assert_int_equal(bid.pid, -1);
	assert_int_equal(bid.id[0], 0xB0);
	assert_string_equal(bid.path, "/data/local/tmp/prog");
	check_records(pf);
	check_cs_etm(pf);
	check_aux(pf);
	perf_file_free(pf);
}

static void test_simpleperf_file(void **state)
{
	struct buf r, f;
	struct file_opts o = { .simpleperf = 1 };
	struct perf_file *pf;
	struct perf_build_id bid;
	struct perf_record_iter it;
	struct perf_record rec;
	uint64_t off, size;
	size_t at;
	int seen = 0;

	(void)state;
	linux_records(&r);
	/* simpleperf EVENT_ID (digest 2.3): {u32 type, u16 hi, u16 lo}. */
	at = r.n;
	u32(&r, 32774); u16(&r, 0); u16(&r, 32);
	u64(&r, 1); u64(&r, 0); u64(&r, EVENT_ID);
	assert_int_equal(r.n - at, 32);
	/* A large simpleperf record: 65544 bytes does not fit a u16. */
	(void)at;
	build_file(&f, &r, &o);
	pf = open_ok(&f);
	assert_int_equal(perf_file_info(pf)->variant, perf_variant_simpleperf);
	assert_true(perf_file_has_feature(pf, PERF_FEAT_SP_META_INFO));
	assert_int_equal(perf_file_feature(pf, PERF_FEAT_SP_META_INFO, &off,
					   &size), 0);
	assert_int_equal(size, 27);
	assert_int_equal(perf_file_feature(pf, PERF_FEAT_AUXTRACE, &off, &size),
			 -etmkit_err_not_found);
	assert_int_equal(perf_file_build_id(pf, 0, &bid), 0);
	assert_int_equal(bid.size, 20);          /* no size byte: padded */
	perf_record_iter_init(&it, pf);
	while (perf_record_next(&it, &rec, NULL) == 0)
		if (rec.type == perf_rec_sp_event_id) {
			seen = 1;
			assert_int_equal(rec.size, 32);
			assert_int_equal(rec.u.event_id.count, 1);
			assert_false(rec.has_sid);
		}
	assert_true(seen);
	check_cs_etm(pf);
	perf_file_free(pf);
}

/* Metadata versions 0 and 2, ETMv3 and PTM blocks (digest 3.2). */
static void test_cs_etm_versions(void **state)
{
	struct buf r, f;
	struct file_opts o = { 0 };
	struct perf_file *pf;
	const struct perf_cs_etm *cs;
	size_t at;

	(void)state;
	r.n = 0;
	at = begin_info(&r, 0, 3);
	cs_block(&r, 0, PERF_CS_MAGIC_ETM3, 0, etm3_params, 4);
	cs_block(&r, 0, PERF_CS_MAGIC_ETM3, 1, ptm_params, 4);
	cs_block(&r, 0, PERF_CS_MAGIC_ETM4, 2, etm4_params, 7);
	end_rec(&r, at);
	build_file(&f, &r, &o);
	pf = open_ok(&f);
	cs = perf_file_cs_etm(pf);
	assert_non_null(cs);
	assert_int_equal(cs->version, 0);
	assert_int_equal(cs->cpus[0].protocol, etmkit_proto_etmv3);
	assert_false(cs->cpus[0].ptm);
	assert_int_equal(cs->cpus[0].etm3.etmcr, 0x10001860);
	assert_int_equal(cs->cpus[0].etm3.etmidr, 0x410CF250);
	assert_int_equal(cs->cpus[0].etm3.etmccer, 0x344008F2);
	assert_int_equal(cs->cpus[0].trace_id, 0x10);
	assert_true(cs->cpus[1].ptm);
	assert_int_equal(cs->cpus[1].trace_id, 0x12);
	assert_int_equal(cs->cpus[2].protocol, etmkit_proto_etmv4);
	assert_int_equal(cs->cpus[2].nr_params, 7);
	perf_file_free(pf);

	r.n = 0;
	at = begin_info(&r, 2, 2);
	cs_block(&r, 2, PERF_CS_MAGIC_ETM4, 0, etm4_params, 8);
	cs_block(&r, 2, PERF_CS_MAGIC_ETM3, 3, etm3_params, 4);
	end_rec(&r, at);
	build_file(&f, &r, &o);
	pf = open_ok(&f);
	cs = perf_file_cs_etm(pf);
	assert_int_equal(cs->version, 2);
	assert_true(cs->cpus[0].has_ts_source);
	assert_int_equal(cs->cpus[0].ts_source, 1);
	assert_int_equal(cs->cpus[1].cpu, 3);
	perf_file_free(pf);
}

/* An ETMv3/PTM block is PTM when ETMIDR[11:8] = 3 (IHI 0035B 3.16.28,
 * ptm_etmidr_is_ptm()), not whenever bits 9:8 are set as perf's mask
 * reads it: 7 and 0xB in that field are no PFT. */
static void test_cs_etm_ptm_rule(void **state)
{
	static const uint32_t idr[] = { 0x411CF312, 0x411CF712, 0x411CFB12,
					0x411CFF12, 0x410CF250, 0x411CF012 };
	static const int is_ptm[] = { 1, 0, 0, 0, 0, 0 };
	const size_t n = sizeof(idr) / sizeof(idr[0]);
	uint64_t params[sizeof(idr) / sizeof(idr[0])][4];
	struct buf r, f;
	struct file_opts o = { 0 };
	struct perf_file *pf;
	const struct perf_cs_etm *cs;
	size_t at;

	(void)state;
	r.n = 0;
	at = begin_info(&r, 0, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		memcpy(params[i], ptm_params, sizeof(ptm_params));
		params[i][3] = idr[i];
		cs_block(&r, 0, PERF_CS_MAGIC_ETM3, (uint32_t)i, params[i], 4);
	}
	end_rec(&r, at);
	build_file(&f, &r, &o);
	pf = open_ok(&f);
	cs = perf_file_cs_etm(pf);
	assert_non_null(cs);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(cs->cpus[i].etm3.etmidr, idr[i]);
		assert_int_equal(cs->cpus[i].ptm, is_ptm[i]);
	}
	perf_file_free(pf);
}

/* Per-thread payloads (AUXTRACE cpu -1, digest 3.9) are found by the AUX
 * record's thread; snapshot chunks (OVERWRITE, digest 3.8) end at
 * aux_offset and are clamped to the payload. */
static void test_aux_matching(void **state)
{
	struct buf r, f;
	struct file_opts o = { 0 };
	struct perf_file *pf;
	struct perf_aux_iter ai;
	struct perf_aux_chunk c;

	(void)state;
	r.n = 0;
	rec_aux(&r, 32, 16, 0, 3);                    /* thread 101 */
	rec_aux(&r, 48, 32, PERF_AUX_FLAG_OVERWRITE, 5); /* ends at 48 */
	rec_aux(&r, 0, 16, 0, 6);                     /* no payload */
	rec_auxtrace(&r, 32, 0xFFFFFFFFu, 101, payload0, 32);
	rec_auxtrace(&r, 32, 5, 0, payload1, 16);
	build_file(&f, &r, &o);
	pf = open_ok(&f);
	perf_aux_iter_init(&ai, pf, -1);
	assert_int_equal(perf_aux_next(&ai, &c, NULL), 0);
	assert_non_null(c.data);
	assert_memory_equal(c.data, payload0, 16);
	assert_int_equal(perf_aux_next(&ai, &c, NULL), 0);
	assert_non_null(c.data);
	assert_int_equal(c.data_size, 16);           /* min(32, 16) */
	assert_memory_equal(c.data, payload1, 16);
	assert_int_equal(perf_aux_next(&ai, &c, NULL), 0);
	assert_null(c.data);
	assert_int_equal(perf_aux_next(&ai, &c, NULL), -etmkit_err_eos);
	perf_file_free(pf);
}

/* Two attrs with different trailers (digest 1.6): each record's trailer
 * is read with the layout of the attr its id names. */
static void test_two_attrs(void **state)
{
	struct buf r, f;
	struct file_opts o = { .two_attrs = 1 };
	struct perf_file *pf;
	struct perf_record_iter it;
	struct perf_record rec;
	size_t at;

	(void)state;
	r.n = 0;
	rec_comm(&r, "traced");                /* attr 0: 32-byte trailer */
	at = begin(&r, 3, 0);                  /* attr 1: pid/tid, id, cpu */
	u32(&r, 7); u32(&r, 8);
	pad_string(&r, "dummy");
	u32(&r, 7); u32(&r, 8); u64(&r, EVENT_ID + 1); u32(&r, 3); u32(&r, 0);
	end_rec(&r, at);
	build_file(&f, &r, &o);
	pf = open_ok(&f);
	assert_int_equal(perf_file_info(pf)->attr_count, 2);
	perf_record_iter_init(&it, pf);
	assert_int_equal(perf_record_next(&it, &rec, NULL), 0);
	assert_int_equal(rec.trailer_size, 32);
	assert_true(rec.sid.has_time);
	assert_int_equal(rec.sid.id, EVENT_ID);
	assert_int_equal(perf_record_next(&it, &rec, NULL), 0);
	assert_int_equal(rec.trailer_size, 24);
	assert_false(rec.sid.has_time);
	assert_int_equal(rec.sid.id, EVENT_ID + 1);
	assert_int_equal(rec.sid.cpu, 3);
	assert_int_equal(rec.sid.tid, 8);
	assert_string_equal(rec.u.comm.comm, "dummy");
	perf_file_free(pf);
}

/* ---- damaged files -------------------------------------------------------- */

static void test_every_truncation(void **state)
{
	struct buf r, f, cut;
	struct file_opts o = { .simpleperf = 1 };
	struct perf_diag d;

	(void)state;
	linux_records(&r);
	build_file(&f, &r, &o);
	for (size_t n = 0; n < f.n; n++) {
		int err;

		memcpy(cut.d, f.d, n);
		cut.n = n;
		err = open_err(&cut, &d);
		/* The feature sections close the file: every cut loses some
		 * part the header declares. */
		if (err != -etmkit_err_truncated && err != -etmkit_err_format)
			fail_msg("cut at %zu: %s", n, etmkit_errstr(err));
		assert_true(d.has_offset);
		assert_true(d.offset <= f.n);
	}
}

static void test_bad_magic_and_order(void **state)
{
	struct buf r, f;
	struct file_opts o = { 0 };
	struct perf_diag d;

	(void)state;
	linux_records(&r);
	build_file(&f, &r, &o);
	memcpy(f.d, "2ELIFREP", 8);       /* big-endian writer */
	assert_int_equal(open_err(&f, &d), -etmkit_err_unsupported);
	assert_non_null(strstr(d.message, "byte-swapped"));
	memcpy(f.d, "PERFFILE", 8);
	assert_int_equal(open_err(&f, &d), -etmkit_err_unsupported);
	memcpy(f.d, "PERFILE3", 8);
	assert_int_equal(open_err(&f, &d), -etmkit_err_format);
	assert_int_equal(d.offset, 0);
	memcpy(f.d, "PERFILE2", 8);
	set64(&f, 8, 16);                 /* pipe mode */
	assert_int_equal(open_err(&f, &d), -etmkit_err_unsupported);
	set64(&f, 8, 100);
	assert_int_equal(open_err(&f, &d), -etmkit_err_format);
	assert_int_equal(d.offset, 8);
}

/* Change one u64 of the good file, expect @err at @where. */
static void bad_u64(size_t at, uint64_t v, int err, uint64_t where)
{
	struct buf r, f;
	struct file_opts o = { 0 };
	struct perf_diag d;

	linux_records(&r);
	build_file(&f, &r, &o);
	set64(&f, at, v);
	if (open_err(&f, &d) != err)
		fail_msg("u64 at %zu = %llx: %s (%s)", at, (unsigned long long)v,
			 etmkit_errstr(open_err(&f, &d)), d.message);
	assert_int_equal(d.offset, where);
}

#define DATA 256 /* data offset of build_file() */

static void test_bad_sizes(void **state)
{
	(void)state;
	bad_u64(16, 0, -etmkit_err_format, 16);                 /* attr_size */
	bad_u64(16, 100, -etmkit_err_format, 32);
	bad_u64(32, UINT64_MAX, -etmkit_err_truncated, 24);     /* attrs */
	bad_u64(40, UINT64_MAX - 4, -etmkit_err_truncated, 40); /* data */
	bad_u64(48, 4, -etmkit_err_truncated, DATA);            /* in a rec */
	bad_u64(248, UINT64_MAX, -etmkit_err_format, 240);      /* ids size */
	/* cs_etm: version 3, CPU count 1000, nr_params of the ETMv4 block */
	bad_u64(DATA + 16, 3, -etmkit_err_unsupported, DATA + 16);
	bad_u64(DATA + 24, (8ull << 32) | 1000, -etmkit_err_format, DATA + 24);
	bad_u64(DATA + 56, 1ull << 60, -etmkit_err_format, DATA + 56);
	bad_u64(DATA + 56, 3, -etmkit_err_format, DATA + 56);
	bad_u64(DATA + 40, 0x1234, -etmkit_err_format, DATA + 40); /* magic */
}

static void test_bad_records(void **state)
{
	struct buf r, f;
	struct file_opts o = { 0 };
	struct perf_diag d;
	size_t at;

	(void)state;
	/* A record of size 4, then one of size 0: must not hang. */
	for (uint16_t size = 0; size < 8; size += 4) {
		r.n = 0;
		at = begin(&r, 1, 0);
		u64(&r, 0);
		set16(&r, at + 6, size);
		build_file(&f, &r, &o);
		assert_int_equal(open_err(&f, &d), -etmkit_err_format);
		assert_int_equal(d.offset, DATA);
	}
	/* AUXTRACE payload past the data section. */
	r.n = 0;
	rec_auxtrace(&r, 0, 0, 0, payload0, 16);
	set64(&r, 8, 17);
	build_file(&f, &r, &o);
	assert_int_equal(open_err(&f, &d), -etmkit_err_truncated);
	assert_int_equal(d.offset, DATA);
	/* A MMAP2 without room for its name, an unterminated COMM: the file
	 * opens, the record is reported and iteration goes on. */
	r.n = 0;
	at = begin(&r, 10, 0);
	zeros(&r, 40);
	end_rec(&r, at);
	at = begin(&r, 3, 0);
	u32(&r, 1); u32(&r, 1); put(&r, "abcdefgh", 8);
	end_rec(&r, at);
	rec_comm(&r, "ok");
	build_file(&f, &r, &o);
	{
		struct perf_file *pf = open_ok(&f);
		struct perf_record_iter it;
		struct perf_record rec;

		perf_record_iter_init(&it, pf);
		assert_int_equal(perf_record_next(&it, &rec, &d),
				 -etmkit_err_format);
		assert_int_equal(d.offset, DATA);
		assert_int_equal(perf_record_next(&it, &rec, &d),
				 -etmkit_err_format);
		assert_int_equal(perf_record_next(&it, &rec, &d), 0);
		assert_string_equal(rec.u.comm.comm, "ok");
		assert_int_equal(perf_record_next(&it, &rec, &d),
				 -etmkit_err_eos);
		perf_file_free(pf);
	}
}

static void test_invalid_args(void **state)
{
	struct perf_file *pf;
	struct perf_diag d;

	(void)state;
	assert_int_equal(perf_file_open(NULL, "x", &d), -etmkit_err_invalid);
	assert_int_equal(perf_file_open(&pf, NULL, &d), -etmkit_err_invalid);
	assert_int_equal(perf_file_open(&pf, "/nonexistent/perf.data", &d),
			 -etmkit_err_io);
	assert_null(pf);
	assert_int_equal(perf_file_open_buffer(&pf, NULL, 0, &d),
			 -etmkit_err_truncated);
	assert_int_equal(perf_record_iter_init(NULL, NULL), -etmkit_err_invalid);
	assert_null(perf_file_cs_etm(NULL));
	perf_file_free(NULL);
}

/* ---- the shared recordings ------------------------------------------------ */

static int shared_missing(void)
{
	return access(PERF_DIR "/perf_etm.data", R_OK) != 0;
}

static struct perf_file *open_shared(const char *name)
{
	struct perf_file *pf = NULL;
	struct perf_diag d;
	char path[600];
	int err;

	snprintf(path, sizeof(path), "%s/%s", PERF_DIR, name);
	err = perf_file_open(&pf, path, &d);
	if (err)
		fail_msg("%s: %s at %llu: %s", name, etmkit_errstr(err),
			 (unsigned long long)d.offset, d.message);
	return pf;
}

/* Eight metadata blocks, CPUs 0-7, trace IDs 0x10 + 2 x cpu (digest 3.5,
 * Verified), TRCCONFIGR 0x40 (contextid, digest 3.3). */
static void check_eight_cpus(const struct perf_file *pf, enum etmkit_protocol p,
			     uint32_t pmu)
{
	const struct perf_cs_etm *cs = perf_file_cs_etm(pf);

	assert_non_null(cs);
	assert_int_equal(cs->version, 1);
	assert_int_equal(cs->pmu_type, pmu);
	assert_int_equal(cs->nr_cpu, 8);
	for (uint32_t i = 0; i < 8; i++) {
		const struct perf_cs_etm_cpu *c = &cs->cpus[i];

		assert_int_equal(c->cpu, i);
		assert_int_equal(c->protocol, p);
		assert_int_equal(c->trace_id, 0x10 + 2 * i);
		assert_int_equal(c->etm4.trcconfigr, 0x40);
		assert_int_equal(c->nr_params, p == etmkit_proto_ete ? 8 : 7);
		assert_int_equal(c->etm4.trcidr0, 0x28000ea1);
		assert_int_equal(c->etm4.trcidr2, 0x20001088);
		assert_false(c->has_ts_source);
	}
	assert_int_equal(cs->hw_id_count, 0); /* simpleperf writes none */
}

static void test_shared_perf_etm(void **state)
{
	struct perf_file *pf;
	struct perf_record_iter it;
	struct perf_record rec;
	struct perf_aux_iter ai;
	struct perf_aux_chunk c;
	const uint64_t sizes[4] = { 80, 80, 80, 144 };
	int n = 0, text = 0;

	(void)state;
	test_need(shared_missing(), PERF_DIR);
	pf = open_shared("perf_etm.data");
	assert_int_equal(perf_file_info(pf)->variant, perf_variant_simpleperf);
	check_eight_cpus(pf, etmkit_proto_etmv4, 8);
	/* The program's text: execute-only (digest 2.1, Verified). */
	perf_record_iter_init(&it, pf);
	while (perf_record_next(&it, &rec, NULL) == 0)
		if (rec.type == perf_rec_mmap2 &&
		    strcmp(rec.u.mmap.filename,
			   "/data/local/tmp/etm_test_loop") == 0 &&
		    rec.u.mmap.prot == 4) {
			text++;
			assert_int_equal(rec.u.mmap.pgoff, 0x1000);
			assert_int_equal(rec.u.mmap.len, 0x1000);
		}
	assert_int_equal(text, 1);
	/* Four AUX chunks of CPU 7 in one 384-byte AUXTRACE; each starts
	 * with an ID frame byte 0x3D (ID 0x1E) (digest 3.6, Verified). */
	perf_aux_iter_init(&ai, pf, -1);
	while (perf_aux_next(&ai, &c, NULL) == 0) {
		assert_true(n < 4);
		assert_int_equal(c.cpu, 7);
		assert_int_equal(c.tid, 17235);
		assert_int_equal(c.aux_size, sizes[n]);
		assert_int_equal(c.data_size, sizes[n]);
		assert_non_null(c.data);
		assert_int_equal(c.data[0], 0x3D);
		assert_int_equal(c.flags, 0);
		n++;
	}
	assert_int_equal(n, 4);
	perf_file_free(pf);
}

/* perf_aux_loss(): one reason per AUX record, in digest 3.7's order of
 * what the flags say about lost trace; the format bits say nothing. */
static void test_aux_loss(void **state)
{
	(void)state;
	assert_int_equal(perf_aux_loss(0), etmkit_loss_none);
	assert_int_equal(perf_aux_loss(PERF_AUX_FLAG_FORMAT_RAW),
			 etmkit_loss_none);
	assert_int_equal(perf_aux_loss(PERF_AUX_FLAG_OVERWRITE),
			 etmkit_loss_aux_overwrite);
	assert_int_equal(perf_aux_loss(PERF_AUX_FLAG_PARTIAL |
				       PERF_AUX_FLAG_OVERWRITE),
			 etmkit_loss_aux_partial);
	assert_int_equal(perf_aux_loss(PERF_AUX_FLAG_COLLISION |
				       PERF_AUX_FLAG_PARTIAL),
			 etmkit_loss_aux_collision);
	assert_int_equal(perf_aux_loss(0xFu), etmkit_loss_aux_truncated);
}

/* perf_file_release() on AUX data already used (perf_file_open() maps
 * the file): the bytes read the same afterwards (the pages come back from
 * the file), whatever the range, including ones past the end or empty;
 * nothing happens for a buffer-backed file. */
static void test_release(void **state)
{
	struct perf_file *pf;
	struct perf_aux_iter ai;
	struct perf_aux_chunk c;
	uint8_t *copy;
	size_t n;
	int chunks = 0;

	(void)state;
	test_need(shared_missing(), PERF_DIR);
	pf = open_shared("perf_kernel.data");
	perf_aux_iter_init(&ai, pf, -1);
	while (perf_aux_next(&ai, &c, NULL) == 0) {
		if (!c.data)
			continue;
		copy = malloc(c.data_size);
		assert_non_null(copy);
		memcpy(copy, c.data, c.data_size);
		perf_file_release(pf, c.data_offset, c.data_size);
		assert_memory_equal(copy, c.data, c.data_size);
		free(copy);
		chunks++;
	}
	assert_int_equal(chunks, 3);
	perf_file_bytes(pf, &n);
	perf_file_release(pf, 0, UINT64_MAX);
	perf_file_release(pf, n, 100);
	perf_file_release(pf, UINT64_MAX, UINT64_MAX);
	perf_file_release(pf, 5, 0);
	perf_file_release(NULL, 0, 10);
	/* The header still reads (magic at 0). */
	assert_memory_equal(perf_file_bytes(pf, &n), "PERFILE2", 8);
	assert_non_null(perf_file_cs_etm(pf));
	perf_file_free(pf);
}

static void test_shared_perf_kernel(void **state)
{
	struct perf_file *pf;
	struct perf_aux_iter ai;
	struct perf_aux_chunk c;
	int n = 0;
	uint64_t off, size;

	(void)state;
	test_need(shared_missing(), PERF_DIR);
	pf = open_shared("perf_kernel.data");
	check_eight_cpus(pf, etmkit_proto_etmv4, 8);
	/* simpleperf's AUXTRACE index: pairs without a count (digest 1.4). */
	assert_int_equal(perf_file_feature(pf, PERF_FEAT_AUXTRACE, &off, &size),
			 0);
	assert_int_equal(size, 3 * 16);
	perf_aux_iter_init(&ai, pf, -1);
	/* CPU 6 fills its 16 KiB buffer (TRUNCATED), then 6464 more bytes;
	 * CPU 0 fills its buffer once (TRUNCATED). The payloads: CPU 6 at
	 * ring offsets 0 and 16368, CPU 0 at 0 (digest 3.6, 3.7 Verified). */
	while (perf_aux_next(&ai, &c, NULL) == 0) {
		const uint32_t cpus[3] = { 6, 6, 0 };
		const uint64_t sizes[3] = { 16368, 6464, 16368 };
		const uint64_t flags[3] = { 1, 0, 1 };

		assert_true(n < 3);
		assert_non_null(c.data);
		assert_int_equal(c.cpu, cpus[n]);
		assert_int_equal(c.data_size, sizes[n]);
		assert_int_equal(c.flags, flags[n]);
		n++;
	}
	assert_int_equal(n, 3);
	assert_true(perf_file_build_id_count(pf) > 300);
	perf_file_free(pf);
}

static void test_shared_missing_aux(void **state)
{
	struct perf_file *pf;
	struct perf_aux_iter ai;
	struct perf_aux_chunk c;
	int n = 0;

	(void)state;
	test_need(shared_missing(), PERF_DIR);
	pf = open_shared("perf_with_missing_aux_data.data");
	check_eight_cpus(pf, etmkit_proto_ete, 95);
	assert_int_equal(perf_file_cs_etm(pf)->cpus[3].trcdevarch, 0x47724a13);
	perf_aux_iter_init(&ai, pf, -1);
	while (perf_aux_next(&ai, &c, NULL) == 0) {
		assert_null(c.data);     /* no AUXTRACE record at all */
		assert_true(c.aux_size > 0);
		n++;
	}
	assert_int_equal(n, 6);
	perf_file_free(pf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linux_file),
		cmocka_unit_test(test_simpleperf_file),
		cmocka_unit_test(test_cs_etm_versions),
		cmocka_unit_test(test_cs_etm_ptm_rule),
		cmocka_unit_test(test_aux_matching),
		cmocka_unit_test(test_two_attrs),
		cmocka_unit_test(test_every_truncation),
		cmocka_unit_test(test_bad_magic_and_order),
		cmocka_unit_test(test_bad_sizes),
		cmocka_unit_test(test_bad_records),
		cmocka_unit_test(test_invalid_args),
		cmocka_unit_test(test_shared_perf_etm),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_aux_loss),
		cmocka_unit_test(test_shared_perf_kernel),
		cmocka_unit_test(test_shared_missing_aux),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	return test_exit(failed, shared_missing());
}
