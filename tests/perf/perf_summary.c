/* perf_summary: what etmkit's perf.data reader finds in a file, in the line
 * format of tests/perf/perf_facts.py (an independent Python reading of the
 * same file); the perf_facts_* ctests diff the two. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "etmkit/perf.h"

#define MAX_CPU 64

struct aux_sum {
	unsigned records;
	uint64_t bytes, flags, with_data;
	unsigned missing;
};

static void print_header(const struct perf_file *pf)
{
	const struct perf_file_info *fi = perf_file_info(pf);
	struct perf_attr a;

	printf("variant %s attrs %zu data %" PRIu64 "+%" PRIu64 "\n",
	       fi->variant == perf_variant_simpleperf ? "simpleperf" : "linux",
	       fi->attr_count, fi->data_offset, fi->data_size);
	if (perf_file_attr(pf, 0, &a) == 0)
		printf("attr0 type %u sample_type 0x%" PRIx64
		       " sample_id_all %d\n", a.type, a.sample_type,
		       (a.flags & PERF_ATTR_FLAG_SAMPLE_ID_ALL) ? 1 : 0);
	for (size_t i = 0; i < perf_file_build_id_count(pf); i++) {
		struct perf_build_id b;

		perf_file_build_id(pf, i, &b);
		printf("build_id ");
		for (int k = 0; k < 20; k++)
			printf("%02x", b.id[k]);
		printf(" %s\n", b.path);
	}
}

static const char *kind(const struct perf_cs_etm_cpu *c)
{
	if (c->protocol == etmkit_proto_etmv3)
		return c->ptm ? "ptm" : "etm3";
	return c->protocol == etmkit_proto_ete ? "ete" : "etm4";
}

int main(int argc, char **argv)
{
	static struct aux_sum aux[MAX_CPU];
	unsigned counts[33000] = { 0 };
	struct perf_file *pf;
	struct perf_diag diag;
	struct perf_record_iter it;
	struct perf_record rec;
	struct perf_aux_iter ai;
	struct perf_aux_chunk ch;
	const struct perf_cs_etm *cs;
	int err, first = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: perf_summary FILE\n");
		return 2;
	}
	err = perf_file_open(&pf, argv[1], &diag);
	if (err) {
		fprintf(stderr, "perf_summary: %s: %s at %" PRIu64 ": %s\n",
			argv[1], etmkit_errstr(err), diag.offset, diag.message);
		return 1;
	}
	print_header(pf);
	perf_record_iter_init(&it, pf);
	while ((err = perf_record_next(&it, &rec, &diag)) != -etmkit_err_eos) {
		if (rec.type < 33000)
			counts[rec.type]++;
		if (rec.type == perf_rec_auxtrace)
			printf("auxtrace at %" PRIu64 " size %" PRIu64
			       " offset %" PRIu64 " idx %u tid %u cpu %u\n",
			       rec.offset, rec.u.auxtrace.size,
			       rec.u.auxtrace.offset, rec.u.auxtrace.idx,
			       rec.u.auxtrace.tid, rec.u.auxtrace.cpu);
	}
	printf("records");
	for (unsigned t = 0; t < 33000; t++) {
		const char *n = perf_record_type_name(t);

		if (counts[t] && n)
			printf(" %s=%u", n, counts[t]);
		else if (counts[t])
			printf(" %u=%u", t, counts[t]);
	}
	printf("\n");
	cs = perf_file_cs_etm(pf);
	if (cs) {
		printf("cs_etm version %" PRIu64 " pmu %u cpus %u snapshot %"
		       PRIu64 "\n", cs->version, cs->pmu_type, cs->nr_cpu,
		       cs->snapshot);
		for (uint32_t i = 0; i < cs->nr_cpu; i++) {
			const struct perf_cs_etm_cpu *c = &cs->cpus[i];

			printf("cpu %u %s params %" PRIu64
			       " trace_id 0x%x config 0x%" PRIx64 "\n",
			       c->cpu, kind(c), c->nr_params, c->trace_id,
			       c->params[0]);
		}
	}
	perf_record_iter_init(&it, pf);
	while (perf_record_next(&it, &rec, NULL) != -etmkit_err_eos) {
		const struct perf_rec_mmap *m = &rec.u.mmap;

		if (rec.type != perf_rec_mmap2 || !m->filename ||
		    !strstr(m->filename, "etm_test_loop"))
			continue;
		printf("mmap2 %s start 0x%" PRIx64 " len 0x%" PRIx64
		       " pgoff 0x%" PRIx64 " prot 0x%x\n", m->filename,
		       m->start, m->len, m->pgoff, m->prot);
	}
	perf_aux_iter_init(&ai, pf, -1);
	while (perf_aux_next(&ai, &ch, NULL) == 0) {
		struct aux_sum *s;

		if (ch.cpu >= MAX_CPU)
			continue;
		s = &aux[ch.cpu];
		s->records++;
		s->bytes += ch.aux_size;
		s->flags |= ch.flags;
		if (ch.aux_size && ch.data)
			s->with_data += ch.data_size;
		if (ch.aux_size && !ch.data)
			s->missing++;
	}
	for (unsigned c = 0; c < MAX_CPU; c++)
		if (aux[c].records)
			printf("aux cpu %u records %u bytes %" PRIu64
			       " flags 0x%" PRIx64 " with_data %" PRIu64
			       " missing %u\n", c, aux[c].records,
			       aux[c].bytes, aux[c].flags, aux[c].with_data,
			       aux[c].missing);
	(void)first;
	perf_file_free(pf);
	return 0;
}
