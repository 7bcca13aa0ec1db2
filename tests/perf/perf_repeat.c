/* perf_repeat: a perf.data of about MB MiB made from a small one, for the
 * memory test (tests/perf/perf_rss.py): IN's cs_etm metadata, its COMM,
 * MMAP2 and ITRACE_START records and build ids, then AUX records of about
 * 64 KiB, each the largest AUX chunk of IN repeated whole (its frames),
 * with their AUXTRACE payloads, until the file holds MB MiB. Written by
 * the project's writer (include/etmkit/perf_write.h), read by its reader.
 * Each copy of the chunk decodes as IN's did when the chunk starts with a
 * sync and ends at a packet boundary (perf_etm.data's last one does).
 *
 * usage: perf_repeat IN OUT MB   (prints "N AUX records of K copies") */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/perf_write.h"

#define AUX_TARGET 65536

static struct perf_write_sid sid_of(const struct perf_record *r)
{
	struct perf_write_sid s = { r->sid.pid, r->sid.tid, r->sid.time,
				    r->sid.cpu };

	return s;
}

/* The side-band records perf_maps reads, copied. */
static int copy_sideband(const struct perf_file *pf, struct perf_writer *w,
			 uint32_t nr_cpu)
{
	struct perf_record_iter it;
	struct perf_record r;
	int err = 0;

	perf_record_iter_init(&it, pf);
	while (!err && perf_record_next(&it, &r, NULL) == 0) {
		struct perf_write_sid s = sid_of(&r);
		const struct perf_rec_mmap *m = &r.u.mmap;

		if (s.cpu >= nr_cpu)
			s.cpu = 0;
		switch (r.type) {
		case perf_rec_comm:
			err = perf_write_comm(w, r.u.comm.pid, r.u.comm.tid,
					      r.u.comm.comm,
					      !!(r.misc & PERF_MISC_COMM_EXEC),
					      &s);
			break;
		case perf_rec_mmap2:
			err = perf_write_mmap2(w, m->pid, m->tid, m->start,
					       m->len, m->pgoff, m->prot,
					       m->flags,
					       m->has_build_id ? m->build_id
							       : NULL,
					       m->build_id_size, m->filename,
					       &s);
			break;
		case perf_rec_itrace_start:
			err = perf_write_itrace_start(w, r.u.itrace_start.pid,
						      r.u.itrace_start.tid, &s);
			break;
		default:
			break;
		}
	}
	return err;
}

int main(int argc, char **argv)
{
	struct perf_file *pf;
	struct perf_diag d;
	const struct perf_cs_etm *cs;
	struct perf_write_config c;
	struct perf_writer *w = NULL;
	struct perf_aux_iter ai;
	struct perf_aux_chunk ch, unit = { 0 };
	struct perf_write_sid s = { 0 };
	uint8_t *rec;
	uint64_t want, ring = 0, records = 0;
	size_t copies;
	int err;

	if (argc != 4 || atoi(argv[3]) <= 0) {
		fprintf(stderr, "usage: perf_repeat IN OUT MB\n");
		return 2;
	}
	want = (uint64_t)atoi(argv[3]) << 20;
	if (perf_file_open(&pf, argv[1], &d)) {
		fprintf(stderr, "perf_repeat: %s: %s\n", argv[1], d.message);
		return 1;
	}
	cs = perf_file_cs_etm(pf);
	perf_aux_iter_init(&ai, pf, -1);
	while (perf_aux_next(&ai, &ch, NULL) == 0)
		if (ch.data && ch.data_size > unit.data_size)
			unit = ch;
	if (!cs || !unit.data_size || unit.data_size > AUX_TARGET) {
		fprintf(stderr, "perf_repeat: %s: no cs_etm metadata or no AUX "
			"chunk of 1 to %d bytes\n", argv[1], AUX_TARGET);
		return 1;
	}
	copies = AUX_TARGET / (size_t)unit.data_size;
	rec = malloc(copies * (size_t)unit.data_size);
	if (!rec)
		return 1;
	for (size_t i = 0; i < copies; i++)
		memcpy(rec + i * unit.data_size, unit.data,
		       (size_t)unit.data_size);
	perf_write_config_init(&c);
	c.pmu_type = cs->pmu_type;
	for (uint32_t i = 0; i < cs->nr_cpu; i++)
		if (cs->cpus[i].cpu >= c.nr_cpu)
			c.nr_cpu = cs->cpus[i].cpu + 1;
	err = perf_writer_open(&w, argv[2], &c);
	if (!err)
		err = perf_write_auxtrace_info(w, cs->cpus, cs->nr_cpu);
	if (!err)
		err = copy_sideband(pf, w, c.nr_cpu);
	for (size_t i = 0; !err && i < perf_file_build_id_count(pf); i++) {
		struct perf_build_id b;

		perf_file_build_id(pf, i, &b);
		err = perf_write_build_id(w, b.pid, b.id, b.size, b.path);
	}
	s.pid = s.tid = unit.tid;
	s.cpu = unit.cpu;
	while (!err && perf_writer_offset(w) < want) {
		uint64_t n = copies * unit.data_size;

		s.time++;
		err = perf_write_aux(w, ring, n, 0, &s);
		if (!err)
			err = perf_write_auxtrace_begin(w, n, ring, unit.idx,
							unit.tid, unit.cpu);
		if (!err)
			err = perf_write_auxtrace_data(w, rec, (size_t)n);
		if (!err)
			err = perf_write_auxtrace_end(w);
		if (!err)
			err = perf_write_finished_round(w);
		ring += n;
		records++;
	}
	if (w) {
		int cerr = perf_writer_close(w);

		err = err ? err : cerr;
		perf_writer_free(w);
	}
	free(rec);
	perf_file_free(pf);
	if (err) {
		fprintf(stderr, "perf_repeat: %s: %s\n", argv[2],
			etmkit_errstr(err));
		return 1;
	}
	printf("%" PRIu64 " AUX records of %zu copies\n", records, copies);
	return 0;
}
