/* etmkit: AUX records joined to the AUXTRACE bytes they describe, in file
 * order (include/etmkit/perf.h; digest 3.7-3.10).
 *
 * Matching follows digest 3.10 (Linux perf's rule, which simpleperf's
 * files also satisfy): the AUXTRACE payload of the same CPU (per-CPU
 * mode) or the same thread (AUXTRACE cpu == -1, per-thread mode) whose
 * ring range [offset, offset + size) holds the AUX record's range. The
 * AUXTRACE records found at open are searched, not the AUXTRACE feature
 * index, because simpleperf and Linux write that index differently
 * (digest 1.4 bit 18) and the stream walk already lists them all. */
#include "perf/perf_internal.h"

#include <string.h>

#define PER_THREAD_CPU 0xFFFFFFFFu

int perf_aux_iter_init(struct perf_aux_iter *it, const struct perf_file *pf,
		       int64_t cpu)
{
	if (!it || !pf)
		return -etmkit_err_invalid;
	it->cpu = cpu;
	return perf_record_iter_init(&it->rec, pf);
}

/* [start, start + size) inside AUXTRACE @e's ring range? */
static int holds(const struct perf_auxtrace_ent *e, uint64_t start,
		 uint64_t size)
{
	return start >= e->offset && start - e->offset <= e->size &&
	       size <= e->size - (start - e->offset);
}

static void find_data(const struct perf_file *pf, struct perf_aux_chunk *c)
{
	uint64_t start = c->aux_offset, size = c->aux_size;

	for (size_t i = 0; i < pf->nat; i++) {
		const struct perf_auxtrace_ent *e = &pf->at[i];

		if (e->cpu == PER_THREAD_CPU ? e->tid != c->tid : e->cpu != c->cpu)
			continue;
		if (c->flags & PERF_AUX_FLAG_OVERWRITE) {
			/* 3.8 snapshot: aux_offset is the end of the data,
			 * clamped to what was read. */
			size = c->aux_size < e->size ? c->aux_size : e->size;
			if (size > c->aux_offset)
				continue;
			start = c->aux_offset - size;
		}
		if (!holds(e, start, size))
			continue;
		c->data_offset = e->data_offset + (start - e->offset);
		c->data = pf->buf + c->data_offset;
		c->data_size = size;
		c->idx = e->idx;
		return;
	}
}

int perf_aux_next(struct perf_aux_iter *it, struct perf_aux_chunk *c,
		  struct perf_diag *d)
{
	struct perf_record rec;
	int err;

	if (!it || !c)
		return -etmkit_err_invalid;
	for (;;) {
		err = perf_record_next(&it->rec, &rec, d);
		if (err == -etmkit_err_eos)
			return err;
		if (rec.type != perf_rec_aux)
			continue; /* errors in other records do not concern us */
		if (err)
			return err;
		memset(c, 0, sizeof(*c));
		c->record_offset = rec.offset;
		c->cpu = rec.sid.has_cpu ? rec.sid.cpu : PER_THREAD_CPU;
		c->tid = rec.sid.tid;
		c->aux_offset = rec.u.aux.aux_offset;
		c->aux_size = rec.u.aux.aux_size;
		c->flags = rec.u.aux.flags;
		if (it->cpu >= 0 && (int64_t)c->cpu != it->cpu)
			continue;
		if (c->aux_size)
			find_data(it->rec.pf, c);
		return 0;
	}
}
