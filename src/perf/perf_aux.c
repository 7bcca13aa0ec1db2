/* etmkit: AUX records joined to the AUXTRACE bytes they describe, in file
 * order (include/etmkit/perf.h; digest 3.7-3.10).
 *
 * Matching follows digest 3.10 (Linux perf's rule, which simpleperf's
 * files also satisfy): the AUXTRACE payload of the same CPU (per-CPU
 * mode) or the same thread (AUXTRACE cpu == -1, per-thread mode) whose
 * ring range [offset, offset + size) holds the AUX record's range. The
 * AUXTRACE records found at open are searched, not the AUXTRACE feature
 * index, because simpleperf and Linux write that index differently
 * (digest 1.4 bit 18) and the stream walk already lists them all.
 *
 * Look-up: the AUXTRACE list is sorted once by (queue key, ring offset,
 * file order); a chunk goes to the payload with the greatest offset not
 * above its start that holds it (ties: the first in the file). Ring
 * offsets grow monotonically in a recording, so payloads of one queue do
 * not overlap and the first candidate holds the chunk: O(log n) per AUX
 * record. Snapshot (OVERWRITE) chunks end at aux_offset: the candidates
 * are the payloads with the greatest offset below it. */
#include "perf/perf_internal.h"

#include <stdlib.h>
#include <string.h>

#define PER_THREAD_CPU 0xFFFFFFFFu

/* The queue an AUXTRACE record belongs to: its CPU, or its thread in
 * per-thread mode (digest 3.9). */
static uint64_t at_key(const struct perf_auxtrace_ent *e)
{
	return e->cpu == PER_THREAD_CPU ? 1ull << 32 | e->tid : e->cpu;
}

/* Order of the look-up list: queue, ring offset, file position. */
static int at_before(const struct perf_auxtrace_ent *x,
		     const struct perf_auxtrace_ent *y)
{
	uint64_t kx = at_key(x), ky = at_key(y);

	if (kx != ky)
		return kx < ky;
	if (x->offset != y->offset)
		return x->offset < y->offset;
	return x->rec_offset < y->rec_offset;
}

/* at_before() as qsort() wants it (a total order: the record offset
 * breaks every tie). */
static int at_cmp(const void *pa, const void *pb)
{
	const struct perf_auxtrace_ent *x = pa, *y = pb;

	return at_before(x, y) ? -1 : at_before(y, x) ? 1 : 0;
}

void perf_aux_index_build(struct perf_file *pf)
{
	if (pf->nat >= 2)
		qsort(pf->at, pf->nat, sizeof(*pf->at), at_cmp);
}

int perf_aux_iter_init(struct perf_aux_iter *it, const struct perf_file *pf,
		       int64_t cpu)
{
	if (!it || !pf)
		return -etmkit_err_invalid;
	it->cpu = cpu;
	it->done_offset = it->done_size = 0;
	return perf_record_iter_init(&it->rec, pf);
}

/* [start, start + size) inside AUXTRACE @e's ring range? */
static int holds(const struct perf_auxtrace_ent *e, uint64_t start,
		 uint64_t size)
{
	return start >= e->offset && start - e->offset <= e->size &&
	       size <= e->size - (start - e->offset);
}

static void take(const struct perf_file *pf, const struct perf_auxtrace_ent *e,
		 uint64_t start, uint64_t size, struct perf_aux_chunk *c)
{
	c->data_offset = e->data_offset + (start - e->offset);
	c->data = pf->buf + c->data_offset;
	c->data_size = size;
	c->idx = e->idx;
}

/* The first entry after (queue @key, offset <= @off) in the sorted list:
 * with @strict, the first at or after (@key, offset >= @off). */
static size_t bound(const struct perf_file *pf, uint64_t key, uint64_t off,
		    int strict)
{
	size_t lo = 0, hi = pf->nat;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k = at_key(&pf->at[mid]);
		uint64_t o = pf->at[mid].offset;

		if (k < key || (k == key && (strict ? o < off : o <= off)))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The payloads of queue @key with the greatest ring offset not above
 * @off: [*first, *end), at most PERF_AUX_TIES of them (a bound, so that a
 * file of many payloads at one offset cannot make look-ups quadratic).
 * Returns 0 if there is none. */
#define PERF_AUX_TIES 64
static int candidates(const struct perf_file *pf, uint64_t key, uint64_t off,
		      size_t *first, size_t *end)
{
	size_t up = bound(pf, key, off, 0);

	if (up == 0 || at_key(&pf->at[up - 1]) != key)
		return 0;
	*first = bound(pf, key, pf->at[up - 1].offset, 1);
	*end = up - *first > PERF_AUX_TIES ? *first + PERF_AUX_TIES : up;
	return 1;
}

/* Non-snapshot: [aux_offset, aux_offset + aux_size) inside a payload. */
static int find_in(const struct perf_file *pf, uint64_t key,
		   struct perf_aux_chunk *c)
{
	size_t i, end;

	if (!candidates(pf, key, c->aux_offset, &i, &end))
		return 0;
	for (; i < end; i++)
		if (holds(&pf->at[i], c->aux_offset, c->aux_size)) {
			take(pf, &pf->at[i], c->aux_offset, c->aux_size, c);
			return 1;
		}
	return 0;
}

/* 3.8 snapshot: aux_offset is the end of the data, the size clamped to
 * the payload's: the payload must start below aux_offset. */
static int find_snapshot(const struct perf_file *pf, uint64_t key,
			 struct perf_aux_chunk *c)
{
	size_t i, end;

	if (!c->aux_offset || !candidates(pf, key, c->aux_offset - 1, &i, &end))
		return 0;
	for (; i < end; i++) {
		const struct perf_auxtrace_ent *e = &pf->at[i];
		uint64_t size = c->aux_size < e->size ? c->aux_size : e->size;

		if (size <= c->aux_offset &&
		    holds(e, c->aux_offset - size, size)) {
			take(pf, e, c->aux_offset - size, size, c);
			return 1;
		}
	}
	return 0;
}

static void find_data(const struct perf_file *pf, struct perf_aux_chunk *c)
{
	int (*find)(const struct perf_file *, uint64_t,
		    struct perf_aux_chunk *) =
		(c->flags & PERF_AUX_FLAG_OVERWRITE) ? find_snapshot : find_in;

	/* Per-CPU queue first, then the thread's (per-thread mode, 3.9). */
	if (c->cpu != PER_THREAD_CPU && find(pf, c->cpu, c))
		return;
	find(pf, 1ull << 32 | c->tid, c);
}

int perf_aux_next(struct perf_aux_iter *it, struct perf_aux_chunk *c,
		  struct perf_diag *d)
{
	struct perf_record rec;
	int err;

	if (!it || !c || !it->rec.pf)
		return -etmkit_err_invalid;
	/* The previous chunk was decoded: its pages go back, wherever it is
	 * behind the record cursor (perf_pages.c). */
	perf_pages_done(it->rec.pf, it->done_offset, it->done_size);
	it->done_size = 0;
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
		it->done_offset = c->data_offset;
		it->done_size = c->data ? c->data_size : 0;
		return 0;
	}
}

enum etmkit_loss perf_aux_loss(uint64_t flags)
{
	if (flags & PERF_AUX_FLAG_TRUNCATED)
		return etmkit_loss_aux_truncated;
	if (flags & PERF_AUX_FLAG_COLLISION)
		return etmkit_loss_aux_collision;
	if (flags & PERF_AUX_FLAG_PARTIAL)
		return etmkit_loss_aux_partial;
	if (flags & PERF_AUX_FLAG_OVERWRITE)
		return etmkit_loss_aux_overwrite;
	return etmkit_loss_none;
}
