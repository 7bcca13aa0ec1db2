/* etmkit: the data section's record stream, one typed record at a time
 * (include/etmkit/perf.h; digest 1.5, 1.6, 2).
 *
 * perf_file_open() has already checked that every record's header and
 * size fit the data section, so here only each type's body is checked
 * against the record's own size. */
#include "perf/perf_internal.h"

#include <string.h>

static const struct {
	uint32_t type;
	const char *name;
} rec_names[] = {
	{ 1, "MMAP" }, { 2, "LOST" }, { 3, "COMM" }, { 4, "EXIT" },
	{ 7, "FORK" }, { 9, "SAMPLE" }, { 10, "MMAP2" }, { 11, "AUX" },
	{ 12, "ITRACE_START" }, { 13, "LOST_SAMPLES" }, { 14, "SWITCH" },
	{ 15, "SWITCH_CPU_WIDE" }, { 21, "AUX_OUTPUT_HW_ID" },
	{ 67, "HEADER_BUILD_ID" }, { 68, "FINISHED_ROUND" },
	{ 69, "ID_INDEX" }, { 70, "AUXTRACE_INFO" }, { 71, "AUXTRACE" },
	{ 72, "AUXTRACE_ERROR" }, { 73, "THREAD_MAP" }, { 74, "CPU_MAP" },
	{ 79, "TIME_CONV" }, { 82, "FINISHED_INIT" },
	{ 32769, "SP_KERNEL_SYMBOL" }, { 32770, "SP_DSO" },
	{ 32771, "SP_SYMBOL" }, { 32772, "SP_SPLIT" },
	{ 32773, "SP_SPLIT_END" }, { 32774, "SP_EVENT_ID" },
	{ 32775, "SP_CALLCHAIN" }, { 32776, "SP_UNWINDING_RESULT" },
	{ 32777, "SP_TRACING_DATA" }, { 32778, "SP_DEBUG" },
};

const char *perf_record_type_name(uint32_t type)
{
	for (size_t i = 0; i < sizeof(rec_names) / sizeof(rec_names[0]); i++)
		if (rec_names[i].type == type)
			return rec_names[i].name;
	return NULL;
}

uint32_t perf_trailer_size(uint64_t st)
{
	const uint64_t bits[] = { PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
				  PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID,
				  PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER };
	uint32_t n = 0;

	for (size_t i = 0; i < 6; i++)
		n += (st & bits[i]) ? 8 : 0;
	return n;
}

/* The attr a trailer belongs to when attrs differ: the id at its fixed
 * distance from the end (IDENTIFIER last; else ID, then STREAM_ID and CPU
 * after it), looked up in the sorted id table; 0 = the first attr
 * (digest 1.6: synthesized records have id 0). */
static const struct perf_attr *trailer_attr(const struct perf_file *pf,
					    const uint8_t *rec, uint32_t size)
{
	uint64_t st = pf->attrs[0].sample_type, id;
	uint32_t back;

	if (pf->trailer_uniform)
		return &pf->attrs[0];
	if (st & PERF_SAMPLE_IDENTIFIER)
		back = 8;
	else if (st & PERF_SAMPLE_ID)
		back = 8 + ((st & PERF_SAMPLE_CPU) ? 8 : 0) +
		       ((st & PERF_SAMPLE_STREAM_ID) ? 8 : 0);
	else
		return &pf->attrs[0];
	if (back > size - 8)
		return &pf->attrs[0];
	id = perf_rd64(rec + size - back);
	if (id) { /* binary search; the first of equal ids */
		size_t lo = 0, hi = pf->nids;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (pf->ids[mid].id < id)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < pf->nids && pf->ids[lo].id == id)
			return &pf->attrs[pf->ids[lo].attr];
	}
	return &pf->attrs[0];
}

int perf_sample_id_parse(const struct perf_file *pf, const uint8_t *rec,
			 uint32_t type, uint32_t size,
			 struct perf_sample_id *sid)
{
	const struct perf_attr *a;
	const uint8_t *p;
	uint64_t st;
	uint32_t n;

	memset(sid, 0, sizeof(*sid));
	/* Kernel records other than SAMPLE (digest 1.6). */
	if (type >= 64 || type == 9 || !pf->info.attr_count)
		return 0;
	a = trailer_attr(pf, rec, size);
	if (!(a->flags & PERF_ATTR_FLAG_SAMPLE_ID_ALL))
		return 0;
	st = a->sample_type;
	n = perf_trailer_size(st);
	if (!n || n > size - 8)
		return 0;
	p = rec + size - n; /* parsed from the end: bodies vary in length */
	if (st & PERF_SAMPLE_TID) {
		sid->pid = perf_rd32(p);
		sid->tid = perf_rd32(p + 4);
		sid->has_tid = 1;
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		sid->time = perf_rd64(p);
		sid->has_time = 1;
		p += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		sid->id = perf_rd64(p);
		sid->has_id = 1;
		p += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		sid->stream_id = perf_rd64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		sid->cpu = perf_rd32(p);
		sid->has_cpu = 1;
		p += 8;
	}
	if (st & PERF_SAMPLE_IDENTIFIER) {
		sid->id = perf_rd64(p);
		sid->has_id = 1;
	}
	return (int)n;
}

int perf_record_iter_init(struct perf_record_iter *it,
			  const struct perf_file *pf)
{
	if (!it || !pf)
		return -etmkit_err_invalid;
	it->pf = pf;
	it->pos = pf->info.data_offset;
	it->end = pf->info.data_offset + pf->info.data_size;
	it->kept = 0;
	return 0;
}

/* A string at @off of @rec that ends (NUL) before @lim; NULL if not. */
static const char *rec_string(const struct perf_record *rec, uint32_t off,
			      uint32_t lim)
{
	if (off >= lim || !memchr(rec->bytes + off, 0, lim - off))
		return NULL;
	return (const char *)rec->bytes + off;
}

static int too_small(const struct perf_record *rec, uint32_t need,
		     struct perf_diag *d)
{
	return perf_fail(d, etmkit_err_format, rec->offset,
			 "%s record of size %u: needs at least %u bytes",
			 perf_record_type_name(rec->type), rec->size, need);
}

/* The body ends where the trailer starts. */
static uint32_t body_end(const struct perf_record *rec)
{
	return rec->size - rec->trailer_size;
}

static int decode_mmap(struct perf_record *rec, struct perf_diag *d)
{
	struct perf_rec_mmap *m = &rec->u.mmap;
	const uint8_t *b = rec->bytes;
	int two = rec->type == perf_rec_mmap2;
	uint32_t name = two ? 72 : 40;

	if (rec->size < name + 1)
		return too_small(rec, name + 1, d);
	m->pid = perf_rd32(b + 8);
	m->tid = perf_rd32(b + 12);
	m->start = perf_rd64(b + 16);
	m->len = perf_rd64(b + 24);
	m->pgoff = perf_rd64(b + 32);
	if (two) {
		if (rec->misc & PERF_MISC_MMAP_BUILD_ID) {
			m->has_build_id = 1;
			m->build_id_size = b[40] <= 20 ? b[40] : 20;
			memcpy(m->build_id, b + 44, 20);
		} else {
			m->maj = perf_rd32(b + 40);
			m->min = perf_rd32(b + 44);
			m->ino = perf_rd64(b + 48);
			m->ino_generation = perf_rd64(b + 56);
		}
		m->prot = perf_rd32(b + 64);
		m->flags = perf_rd32(b + 68);
	}
	m->filename = rec_string(rec, name, body_end(rec));
	if (!m->filename)
		return perf_fail(d, etmkit_err_format, rec->offset + name,
				 "%s file name not terminated inside the record",
				 perf_record_type_name(rec->type));
	return 0;
}

static int decode_body(struct perf_record *rec, struct perf_diag *d)
{
	const uint8_t *b = rec->bytes;

	switch (rec->type) {
	case perf_rec_mmap:
	case perf_rec_mmap2:
		return decode_mmap(rec, d);
	case perf_rec_comm:
		if (rec->size < 17)
			return too_small(rec, 17, d);
		rec->u.comm.pid = perf_rd32(b + 8);
		rec->u.comm.tid = perf_rd32(b + 12);
		rec->u.comm.comm = rec_string(rec, 16, rec->size);
		if (!rec->u.comm.comm)
			return perf_fail(d, etmkit_err_format, rec->offset + 16,
					 "COMM name not terminated inside the "
					 "record");
		return 0;
	case perf_rec_fork:
	case perf_rec_exit:
		if (rec->size < 32)
			return too_small(rec, 32, d);
		rec->u.fork.pid = perf_rd32(b + 8);
		rec->u.fork.ppid = perf_rd32(b + 12);
		rec->u.fork.tid = perf_rd32(b + 16);
		rec->u.fork.ptid = perf_rd32(b + 20);
		rec->u.fork.time = perf_rd64(b + 24);
		return 0;
	case perf_rec_aux:
		if (rec->size < 32)
			return too_small(rec, 32, d);
		rec->u.aux.aux_offset = perf_rd64(b + 8);
		rec->u.aux.aux_size = perf_rd64(b + 16);
		rec->u.aux.flags = perf_rd64(b + 24);
		return 0;
	case perf_rec_itrace_start:
		if (rec->size < 16)
			return too_small(rec, 16, d);
		rec->u.itrace_start.pid = perf_rd32(b + 8);
		rec->u.itrace_start.tid = perf_rd32(b + 12);
		return 0;
	case perf_rec_aux_output_hw_id: {
		/* digest 3.5: trace ID 7:0, sink 39:8, minor 59:56, major
		 * 63:60 */
		struct perf_rec_hw_id *h = &rec->u.hw_id;

		if (rec->size < 16)
			return too_small(rec, 16, d);
		h->hw_id = perf_rd64(b + 8);
		h->trace_id = (uint8_t)h->hw_id;
		h->sink_id = (uint32_t)(h->hw_id >> 8);
		h->minor = (uint8_t)(h->hw_id >> 56 & 0xF);
		h->major = (uint8_t)(h->hw_id >> 60);
		return 0;
	}
	case perf_rec_auxtrace_info:
		if (rec->size < 16)
			return too_small(rec, 16, d);
		rec->u.auxtrace_info.type = perf_rd32(b + 8);
		rec->u.auxtrace_info.priv = b + 16;
		rec->u.auxtrace_info.priv_words = (rec->size - 16) / 8;
		return 0;
	case perf_rec_auxtrace: /* size >= 48 and payload checked at open */
		rec->u.auxtrace.size = perf_rd64(b + 8);
		rec->u.auxtrace.offset = perf_rd64(b + 16);
		rec->u.auxtrace.reference = perf_rd64(b + 24);
		rec->u.auxtrace.idx = perf_rd32(b + 32);
		rec->u.auxtrace.tid = perf_rd32(b + 36);
		rec->u.auxtrace.cpu = perf_rd32(b + 40);
		rec->u.auxtrace.data_offset = rec->offset + rec->size;
		rec->u.auxtrace.data = b + rec->size;
		return 0;
	case perf_rec_sp_event_id:
		if (rec->size < 16)
			return too_small(rec, 16, d);
		rec->u.event_id.count = perf_rd64(b + 8);
		if (rec->u.event_id.count > (rec->size - 16) / 16)
			return perf_fail(d, etmkit_err_format, rec->offset + 8,
					 "EVENT_ID count %llu does not fit the "
					 "record of size %u",
					 (unsigned long long)
						 rec->u.event_id.count,
					 rec->size);
		rec->u.event_id.pairs = b + 16;
		return 0;
	default:
		return 0; /* unknown: header only, skipped by its size */
	}
}

int perf_record_next(struct perf_record_iter *it, struct perf_record *rec,
		     struct perf_diag *d)
{
	const struct perf_file *pf;
	uint64_t next;
	int err;

	if (!it || !rec || !it->pf)
		return -etmkit_err_invalid;
	pf = it->pf;
	if (it->pos >= it->end) {
		perf_pages_passed(pf, &it->kept, it->end, 1);
		return -etmkit_err_eos;
	}
	/* The records before this one are done with (perf_pages.c). */
	perf_pages_passed(pf, &it->kept, it->pos, 0);
	memset(rec, 0, sizeof(*rec));
	err = perf_rec_header(pf, it->pos, it->end, &rec->type, &rec->misc,
			      &rec->size, &next, d);
	if (err) { /* cannot happen after a good open: stop here */
		it->pos = it->end;
		return err;
	}
	rec->offset = it->pos;
	rec->bytes = pf->buf + it->pos;
	it->pos = next;
	rec->trailer_size = (uint32_t)perf_sample_id_parse(
		pf, rec->bytes, rec->type, rec->size, &rec->sid);
	rec->has_sid = rec->trailer_size > 0;
	return decode_body(rec, d);
}
