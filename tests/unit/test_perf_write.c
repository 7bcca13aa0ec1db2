/* Unit tests of the perf.data writer (include/etmkit/perf_write.h): what
 * it writes, read back by the reader (include/etmkit/perf.h), is what was
 * given — records field by field, the cs_etm metadata of ETMv3, ETMv4 and
 * ETE CPUs, AUX chunks byte for byte (payloads streamed in pieces and
 * padded) — and calls out of order are refused. The byte layout against
 * Linux perf's is checked by tests/perf/perf_write_rt.py. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "etmkit/perf_write.h"
#include "etmkit/ptm.h"

/* The file written to @f, read back. */
static struct perf_file *reopen(FILE *f, uint8_t **bytes)
{
	struct perf_file *pf = NULL;
	struct perf_diag d = { 0 };
	long n;

	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	*bytes = malloc((size_t)n);
	assert_non_null(*bytes);
	rewind(f);
	assert_int_equal(fread(*bytes, 1, (size_t)n, f), (size_t)n);
	if (perf_file_open_buffer(&pf, *bytes, (size_t)n, &d))
		fail_msg("reader refused the file: %s at %llu", d.message,
			 (unsigned long long)d.offset);
	return pf;
}

static void three_cpus(struct perf_cs_etm_cpu cpus[3])
{
	struct etm3_config c3;
	struct etm4_config c4, ce;

	etm3_config_init(&c3);
	c3.etmcr = 0xC000;
	c3.etmidr = 0x410CF250;
	c3.etmccer = 0x344008F2;
	etm4_config_init(&c4);
	c4.trcconfigr = 0x40;
	c4.trcidr0 = 0x28000EA1;
	c4.trcidr1 = 0x4100F403;
	c4.trcidr2 = 0x00000488;
	ce = c4;
	ce.flags |= ETM4_CFG_ETE;
	ce.trcdevarch = 0x47705A13;
	assert_int_equal(perf_cs_etm_cpu_set_etm3(&cpus[0], 0, &c3, 0x10), 0);
	assert_int_equal(perf_cs_etm_cpu_set_etm4(&cpus[1], 1, &c4, 0x12, 0xCC), 0);
	assert_int_equal(perf_cs_etm_cpu_set_etm4(&cpus[2], 2, &ce, 0x14, 0xCC), 0);
}

static void test_round_trip(void **state)
{
	struct perf_write_config c;
	struct perf_writer *w;
	struct perf_cs_etm_cpu cpus[3];
	const uint8_t bid[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
				  15, 16, 17, 18, 19, 20 };
	uint8_t payload[1000], *bytes;
	struct perf_write_sid s1 = { 1000, 1001, 5, 1 };
	struct perf_file *pf;
	const struct perf_cs_etm *cs;
	struct perf_record_iter it;
	struct perf_record rec;
	struct perf_aux_iter ai;
	struct perf_aux_chunk ch;
	struct perf_attr a;
	struct perf_build_id b;
	FILE *f = tmpfile();
	int n = 0;

	(void)state;
	assert_non_null(f);
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7 + 3);
	perf_write_config_init(&c);
	c.nr_cpu = 3;
	c.pmu_type = 95;
	c.config = 0x4000;
	assert_int_equal(perf_writer_open_stream(&w, f, &c), 0);
	three_cpus(cpus);
	assert_int_equal(perf_write_auxtrace_info(w, cpus, 3), 0);
	assert_int_equal(perf_write_comm(w, 1000, 1001, "prog", 1, &s1), 0);
	assert_int_equal(perf_write_mmap2(w, 1000, 1001, 0x400000, 0x2000,
					  0x1000, 5, 2, bid, 20,
					  "/bin/prog", &s1), 0);
	assert_int_equal(perf_write_itrace_start(w, 1000, 1001, &s1), 0);
	/* two AUX records in one AUXTRACE, the second TRUNCATED; the
	 * payload streamed in three pieces, 1000 bytes padded to 1000 */
	assert_int_equal(perf_write_aux(w, 0, 600, 0, &s1), 0);
	assert_int_equal(perf_write_aux(w, 600, 397, PERF_AUX_FLAG_TRUNCATED,
					&s1), 0);
	assert_int_equal(perf_write_auxtrace_begin(w, 997, 0, 1, 1001, 1), 0);
	/* no record inside a payload */
	assert_int_equal(perf_write_finished_round(w), -etmkit_err_invalid);
	assert_int_equal(perf_write_auxtrace_data(w, payload, 100), 0);
	assert_int_equal(perf_write_auxtrace_data(w, payload + 100, 800), 0);
	assert_int_equal(perf_write_auxtrace_end(w), -etmkit_err_invalid);
	assert_int_equal(perf_write_auxtrace_data(w, payload + 900, 98),
			 -etmkit_err_invalid); /* more than announced */
	assert_int_equal(perf_write_auxtrace_data(w, payload + 900, 97), 0);
	assert_int_equal(perf_write_auxtrace_end(w), 0);
	assert_int_equal(perf_write_finished_round(w), 0);
	assert_int_equal(perf_write_build_id(w, -1, bid, 20, "/bin/prog"), 0);
	/* a trailer CPU without an event id */
	s1.cpu = 3;
	assert_int_equal(perf_write_itrace_start(w, 1, 1, &s1),
			 -etmkit_err_invalid);
	assert_int_equal(perf_writer_close(w), 0);
	perf_writer_free(w);

	pf = reopen(f, &bytes);
	assert_int_equal(perf_file_info(pf)->variant, perf_variant_linux);
	assert_int_equal(perf_file_info(pf)->attr_count, 1);
	assert_int_equal(perf_file_attr(pf, 0, &a), 0);
	assert_int_equal(a.type, 95);
	assert_int_equal(a.size, 128);
	assert_int_equal(a.config, 0x4000);
	assert_true(a.flags & PERF_ATTR_FLAG_SAMPLE_ID_ALL);
	assert_true(perf_file_has_feature(pf, PERF_FEAT_BUILD_ID));
	assert_true(perf_file_has_feature(pf, PERF_FEAT_AUXTRACE));
	assert_int_equal(perf_file_build_id_count(pf), 1);
	assert_int_equal(perf_file_build_id(pf, 0, &b), 0);
	assert_int_equal(b.size, 20);
	assert_memory_equal(b.id, bid, 20);
	assert_string_equal(b.path, "/bin/prog");
	assert_int_equal(b.pid, -1);

	cs = perf_file_cs_etm(pf);
	assert_non_null(cs);
	assert_int_equal(cs->version, 1);
	assert_int_equal(cs->pmu_type, 95);
	assert_int_equal(cs->nr_cpu, 3);
	for (int i = 0; i < 3; i++) {
		const struct perf_cs_etm_cpu *r = &cs->cpus[i];

		assert_int_equal(r->cpu, cpus[i].cpu);
		assert_int_equal(r->protocol, cpus[i].protocol);
		assert_int_equal(r->trace_id, 0x10 + 2 * i);
		assert_int_equal(r->nr_params, cpus[i].nr_params);
		assert_memory_equal(r->params, cpus[i].params,
				    sizeof(r->params));
	}
	assert_int_equal(cs->cpus[0].etm3.etmcr, 0xC000);
	assert_int_equal(cs->cpus[0].etm3.etmidr, 0x410CF250);
	assert_int_equal(cs->cpus[1].etm4.trcidr1, 0x4100F403);
	assert_int_equal(cs->cpus[2].trcdevarch, 0x47705A13);

	perf_record_iter_init(&it, pf);
	while (perf_record_next(&it, &rec, NULL) == 0) {
		n++;
		if (rec.type >= 64)
			continue;
		assert_true(rec.has_sid || rec.trailer_size);
		assert_int_equal(rec.sid.pid, 1000);
		assert_int_equal(rec.sid.tid, 1001);
		assert_int_equal(rec.sid.cpu, 1);
		assert_int_equal(rec.sid.time, 5);
		assert_int_equal(rec.sid.id, 2); /* CPU 1's event id */
		if (rec.type == perf_rec_comm) {
			assert_string_equal(rec.u.comm.comm, "prog");
			assert_true(rec.misc & PERF_MISC_COMM_EXEC);
		} else if (rec.type == perf_rec_mmap2) {
			const struct perf_rec_mmap *m = &rec.u.mmap;

			assert_int_equal(m->start, 0x400000);
			assert_int_equal(m->len, 0x2000);
			assert_int_equal(m->pgoff, 0x1000);
			assert_int_equal(m->prot, 5);
			assert_int_equal(m->flags, 2);
			assert_true(m->has_build_id);
			assert_int_equal(m->build_id_size, 20);
			assert_memory_equal(m->build_id, bid, 20);
			assert_string_equal(m->filename, "/bin/prog");
		} else if (rec.type == perf_rec_itrace_start) {
			assert_int_equal(rec.u.itrace_start.tid, 1001);
		}
	}
	/* INFO, COMM, MMAP2, ITRACE_START, 2 AUX, AUXTRACE, ROUND */
	assert_int_equal(n, 8);

	perf_aux_iter_init(&ai, pf, -1);
	assert_int_equal(perf_aux_next(&ai, &ch, NULL), 0);
	assert_int_equal(ch.cpu, 1);
	assert_int_equal(ch.flags, 0);
	assert_int_equal(ch.data_size, 600);
	assert_memory_equal(ch.data, payload, 600);
	assert_int_equal(perf_aux_next(&ai, &ch, NULL), 0);
	assert_int_equal(ch.flags, PERF_AUX_FLAG_TRUNCATED);
	assert_int_equal(ch.data_size, 397);
	assert_memory_equal(ch.data, payload + 600, 397);
	assert_int_equal(perf_aux_next(&ai, &ch, NULL), -etmkit_err_eos);
	perf_file_free(pf);
	free(bytes);
	fclose(f);
}

/* perf_cs_etm_cpu_set_etm3() names the block PTM by the reader's rule,
 * ETMIDR[11:8] = 3 (ptm_etmidr_is_ptm()), not ETMIDR & 0x300. */
static void test_set_etm3_ptm_rule(void **state)
{
	static const uint32_t idr[] = { 0x411CF312, 0x411CF712, 0x411CFB12,
					0x410CF250 };
	struct perf_cs_etm_cpu c;
	struct etm3_config c3;

	(void)state;
	etm3_config_init(&c3);
	for (size_t i = 0; i < sizeof(idr) / sizeof(idr[0]); i++) {
		c3.etmidr = idr[i];
		assert_int_equal(perf_cs_etm_cpu_set_etm3(&c, 0, &c3, 0x10), 0);
		assert_int_equal(c.ptm, i == 0);
		assert_int_equal(c.ptm, ptm_etmidr_is_ptm(idr[i]));
	}
}

static void test_refusals(void **state)
{
	struct perf_write_config c;
	struct perf_writer *w;
	struct perf_cs_etm_cpu cpu;
	char longname[70000];
	struct perf_write_sid s = { 1, 1, 0, 0 };
	FILE *f = tmpfile();

	(void)state;
	perf_write_config_init(&c);
	c.nr_cpu = 0;
	assert_int_equal(perf_writer_open_stream(&w, f, &c), -etmkit_err_invalid);
	c.nr_cpu = 257;
	assert_int_equal(perf_writer_open_stream(&w, f, &c), -etmkit_err_invalid);
	c.nr_cpu = 1;
	c.size = 3;
	assert_int_equal(perf_writer_open_stream(&w, f, &c), -etmkit_err_invalid);
	c.size = sizeof(c);
	assert_int_equal(perf_writer_open_stream(&w, f, &c), 0);
	memset(&cpu, 0, sizeof(cpu));
	cpu.protocol = etmkit_proto_none;
	assert_int_equal(perf_write_auxtrace_info(w, &cpu, 1), -etmkit_err_invalid);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	/* a record longer than its u16 size */
	assert_int_equal(perf_write_comm(w, 1, 1, longname, 0, &s),
			 -etmkit_err_invalid);
	assert_int_equal(perf_write_mmap2(w, 1, 1, 0, 1, 0, 5, 2, NULL, 21,
					  "x", &s), -etmkit_err_invalid);
	/* an open payload at close */
	assert_int_equal(perf_write_auxtrace_begin(w, 8, 0, 0, 1, 0), 0);
	assert_int_equal(perf_writer_close(w), -etmkit_err_invalid);
	perf_writer_free(w);
	fclose(f);
}

static void test_config_bits(void **state)
{
	(void)state;
	/* digest 3.3: CID 6 -> 14 (simpleperf: config 0x4000 <-> 0x40),
	 * VMID 7 -> 15, BB 3 -> 8, CCI 4 -> 12, TS 11 -> 28, RS 12 -> 29 */
	assert_int_equal(perf_cs_etm_config_of_trcconfigr(0x40), 0x4000);
	assert_int_equal(perf_cs_etm_config_of_trcconfigr(0x80), 0x8000);
	assert_int_equal(perf_cs_etm_config_of_trcconfigr(0x1818),
			 (1u << 8) | (1u << 12) | (1u << 28) | (1u << 29));
	assert_int_equal(perf_cs_etm_config_of_trcconfigr(0x6000), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_set_etm3_ptm_rule),
		cmocka_unit_test(test_config_bits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
