/* libFuzzer target: the perf.data reader (include/etmkit/perf.h) on
 * arbitrary bytes, opened in place (perf_file_open_buffer()).
 * Invariants: open returns 0 or a format/truncated/unsupported/nomem
 * error, and an error names what was wrong and where (offset inside the
 * file or just past it); an open file has every record inside its data
 * section, every AUXTRACE payload and every AUX chunk's bytes inside the
 * file, typed strings terminated inside their record, cs_etm metadata
 * whose trace IDs fit 7 bits and whose blocks lie inside the file, and
 * build ids whose paths lie inside the file. Then the side-band
 * (include/etmkit/perf_maps.h) over the same bytes: replay, resolve
 * (no options: nothing is looked up on disk), images: it never fails
 * but for memory, every map it keeps has a range that does not wrap and
 * names a binary it has, and every process image has an image. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/perf.h"
#include "etmkit/perf_maps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

static int inside(const uint8_t *base, size_t n, const void *p, uint64_t len)
{
	const uint8_t *q = p;

	return q >= base && (size_t)(q - base) <= n &&
	       len <= n - (size_t)(q - base);
}

static void check_records(const struct perf_file *pf, const uint8_t *data,
			  size_t size)
{
	const struct perf_file_info *fi = perf_file_info(pf);
	struct perf_record_iter it;
	struct perf_record rec;
	struct perf_diag d;
	size_t count = 0;
	int err;

	perf_record_iter_init(&it, pf);
	while ((err = perf_record_next(&it, &rec, &d)) != -etmkit_err_eos) {
		check(count++ < fi->record_count);
		check(rec.offset >= fi->data_offset);
		check(rec.offset + rec.size <= fi->data_offset + fi->data_size);
		check(rec.bytes == data + rec.offset && rec.size >= 8);
		if (err) {
			check(err == -etmkit_err_format && d.message[0] &&
			      d.offset >= rec.offset &&
			      d.offset < rec.offset + rec.size);
			continue;
		}
		check(rec.trailer_size <= rec.size - 8);
		switch (rec.type) {
		case perf_rec_mmap:
		case perf_rec_mmap2:
			check(inside(rec.bytes, rec.size, rec.u.mmap.filename,
				     strlen(rec.u.mmap.filename) + 1));
			break;
		case perf_rec_comm:
			check(inside(rec.bytes, rec.size, rec.u.comm.comm,
				     strlen(rec.u.comm.comm) + 1));
			break;
		case perf_rec_auxtrace:
			check(rec.u.auxtrace.data_offset + rec.u.auxtrace.size <=
			      fi->data_offset + fi->data_size);
			check(inside(data, size, rec.u.auxtrace.data,
				     rec.u.auxtrace.size));
			break;
		case perf_rec_auxtrace_info:
			check(inside(rec.bytes, rec.size, rec.u.auxtrace_info.priv,
				     8 * rec.u.auxtrace_info.priv_words));
			break;
		default:
			break;
		}
	}
	check(count == fi->record_count);
}

static void check_aux(const struct perf_file *pf, const uint8_t *data,
		      size_t size)
{
	struct perf_aux_iter ai;
	struct perf_aux_chunk c;
	struct perf_diag d;
	int err;

	perf_aux_iter_init(&ai, pf, -1);
	while ((err = perf_aux_next(&ai, &c, &d)) != -etmkit_err_eos) {
		if (err) {
			check(err == -etmkit_err_format);
			continue;
		}
		check(c.record_offset < size);
		if (c.data) {
			check(c.data == data + c.data_offset);
			check(inside(data, size, c.data, c.data_size));
			check(c.data_size <= c.aux_size);
		} else {
			check(c.data_size == 0);
		}
	}
}

static void check_meta(const struct perf_file *pf, const uint8_t *data,
		       size_t size)
{
	const struct perf_cs_etm *cs = perf_file_cs_etm(pf);

	for (size_t i = 0; i < perf_file_build_id_count(pf); i++) {
		struct perf_build_id b;

		check(perf_file_build_id(pf, i, &b) == 0);
		check(b.size <= 20);
		check(inside(data, size, b.path, strlen(b.path) + 1));
	}
	if (!cs)
		return;
	check(cs->version <= 2);
	for (uint32_t i = 0; i < cs->nr_cpu; i++) {
		const struct perf_cs_etm_cpu *c = &cs->cpus[i];

		check(c->trace_id <= 0x7F || c->trace_id_from_hw_id);
		check(c->offset + 24 <= size);
		check(c->protocol == etmkit_proto_etmv3 ||
		      c->protocol == etmkit_proto_etmv4 ||
		      c->protocol == etmkit_proto_ete);
		check(perf_cs_etm_find_cpu(cs, c->cpu) != NULL);
	}
}

static void check_map(const struct perf_maps *m, const struct perf_map *mp)
{
	check(mp->len && mp->start <= UINT64_MAX - (mp->len - 1));
	check(mp->binary < perf_maps_binary_count(m));
}

static void check_side_band(const struct perf_file *pf)
{
	struct perf_maps *m;
	int err = perf_maps_open(&m, pf, NULL);

	if (err) {
		check(err == -etmkit_err_nomem);
		return;
	}
	for (size_t i = 0; i < perf_maps_kernel_map_count(m); i++)
		check_map(m, perf_maps_kernel_map(m, i));
	for (size_t i = 0; i < perf_maps_process_count(m); i++) {
		const struct perf_process *p = perf_maps_process(m, i);

		for (size_t k = 0; k < p->nmaps; k++)
			check_map(m, &p->maps[k]);
		check(perf_maps_process_at(m, p->pid, UINT64_MAX) != NULL);
	}
	for (size_t i = 0; i < perf_maps_binary_count(m); i++) {
		const struct perf_binary *b = perf_maps_binary(m, i);

		check(b->name && b->build_id_size <= 20);
		check(perf_maps_find_binary(m, b->name) == (long)i);
	}
	err = perf_maps_resolve(m, NULL);
	check(err == 0 || err == -etmkit_err_nomem);
	if (!err) {
		err = perf_maps_build_images(m);
		check(err == 0 || err == -etmkit_err_nomem);
	}
	for (size_t i = 0; !err && i < perf_maps_process_count(m); i++)
		check(perf_maps_process(m, i)->image != NULL);
	perf_maps_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_file *pf;
	struct perf_diag d;
	int err = perf_file_open_buffer(&pf, data, size, &d);

	if (err) {
		check(pf == NULL);
		check(err == -etmkit_err_format || err == -etmkit_err_truncated ||
		      err == -etmkit_err_unsupported || err == -etmkit_err_nomem);
		check(d.message[0] != '\0');
		check(err == -etmkit_err_nomem ||
		      (d.has_offset && d.offset <= size));
		return 0;
	}
	check(perf_file_info(pf)->data_offset + perf_file_info(pf)->data_size <=
	      size);
	check_records(pf, data, size);
	check_aux(pf, data, size);
	check_meta(pf, data, size);
	check_side_band(pf);
	perf_file_free(pf);
	return 0;
}
