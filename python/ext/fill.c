/* The batch filler: library elements and packets into NumPy arrays of
 * rows (ext.h), written in C straight into each array's memory. One
 * allocation per batch of rows; nothing per element but the row. */
#include <string.h>

#include "ext.h"

#define NO_IMPORT_ARRAY
#define PY_ARRAY_UNIQUE_SYMBOL etmkit_py_ARRAY_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

int ek_fill_init(struct ek_fill *f, enum ek_rows rows, size_t batch)
{
	memset(f, 0, sizeof(*f));
	f->rows = rows;
	f->batch = batch;
	f->ready = PyList_New(0);
	return f->ready ? 0 : -1;
}

void ek_fill_free(struct ek_fill *f)
{
	Py_CLEAR(f->cur);
	Py_CLEAR(f->ready);
}

/* Rows an array starts with; it grows to f->batch as rows come, so a
 * large batch costs the memory of the rows there are, not of the batch. */
#define FILL_FIRST_ROWS 65536

/* A new array to fill. */
static int fill_start(struct ek_fill *f)
{
	PyArray_Descr *d = (PyArray_Descr *)ek_rows_descr(f->rows);
	npy_intp dim;

	f->cap = f->batch < FILL_FIRST_ROWS ? f->batch : FILL_FIRST_ROWS;
	dim = (npy_intp)f->cap;
	Py_INCREF(d);   /* NewFromDescr steals it */
	f->cur = PyArray_NewFromDescr(&PyArray_Type, d, 1, &dim, NULL, NULL,
				      0, NULL);
	if (!f->cur) {
		f->failed = 1;
		return -1;
	}
	f->data = PyArray_BYTES((PyArrayObject *)f->cur);
	f->n = 0;
	return 0;
}

/* The array being filled to @rows rows (in place: Python code has not
 * seen it). */
static int fill_resize(struct ek_fill *f, size_t rows)
{
	npy_intp n = (npy_intp)rows;
	PyArray_Dims dims = { &n, 1 };
	PyObject *res = PyArray_Resize((PyArrayObject *)f->cur, &dims, 0,
				       NPY_CORDER);

	if (!res) {
		f->failed = 1;
		return -1;
	}
	Py_DECREF(res);
	f->cap = rows;
	f->data = PyArray_BYTES((PyArrayObject *)f->cur);
	return 0;
}

/* The full array goes to the ready list. */
static int fill_done(struct ek_fill *f)
{
	int rc = PyList_Append(f->ready, f->cur);

	Py_CLEAR(f->cur);
	f->data = NULL;
	f->n = 0;
	if (rc < 0)
		f->failed = 1;
	return rc;
}

/* The next row's memory, or NULL (Python error set). */
static inline void *fill_row(struct ek_fill *f, size_t size)
{
	if (!f->cur && fill_start(f) < 0)
		return NULL;
	return f->data + f->n * size;
}

/* After writing a row: a full batch is done; a full array below the
 * batch doubles. */
static inline int fill_next(struct ek_fill *f)
{
	if (++f->n < f->cap)
		return 0;
	if (f->n == f->batch)
		return fill_done(f);
	return fill_resize(f, f->cap <= f->batch / 2 ? 2 * f->cap : f->batch);
}

static void block_row(struct ek_block_row *r, uint8_t id,
		      const struct etmkit_elem *e)
{
	r->offset = e->offset;
	r->addr = e->addr;
	r->end = e->u.range.end;
	r->count = e->u.range.count;
	r->repeats = e->u.range.repeats;
	r->opcode = e->u.range.opcode;
	r->class_flags = e->u.range.class_flags;
	r->cycles = e->cycles;
	r->id = id;
	r->isa = e->isa;
	r->size = e->size;
	r->flags = e->flags;
}

static void insn_row(struct ek_insn_row *r, uint8_t id,
		     const struct etmkit_elem *e)
{
	r->offset = e->offset;
	r->addr = e->addr;
	r->opcode = e->u.insn.opcode;
	r->class_flags = e->u.insn.class_flags;
	r->cycles = e->cycles;
	r->id = id;
	r->isa = e->isa;
	r->size = e->size;
	r->flags = e->flags;
}

/* The union member of @e's kind into its named fields (elem.h). */
static void elem_union(struct ek_elem_row *r, const struct etmkit_elem *e)
{
	switch (e->kind) {
	case etmkit_elem_insn:
		r->opcode = e->u.insn.opcode;
		r->class_flags = e->u.insn.class_flags;
		break;
	case etmkit_elem_trace_on:
		r->reason = e->u.trace_on.reason;
		break;
	case etmkit_elem_context:
		r->context_id = e->u.context.context_id;
		r->vmid = e->u.context.vmid;
		r->ns = e->u.context.ns;
		r->hyp = e->u.context.hyp;
		r->el = e->u.context.el;
		r->aarch64 = e->u.context.aarch64;
		r->sec = e->u.context.sec;
		break;
	case etmkit_elem_exception:
	case etmkit_elem_exception_return:
	case etmkit_elem_exception_entry:
		r->ret_addr = e->u.exception.ret_addr;
		r->number = e->u.exception.number;
		r->resume = e->u.exception.resume;
		break;
	case etmkit_elem_timestamp:
		r->value = e->u.timestamp.value;
		break;
	case etmkit_elem_data:
		r->data_addr = e->u.data.data_addr;
		r->value = e->u.data.value;
		r->tag = e->u.data.tag;
		r->half = e->u.data.half;
		break;
	case etmkit_elem_gap:
	case etmkit_elem_no_image:
		r->reason = e->u.loss.reason;
		r->space = e->u.loss.space;
		break;
	case etmkit_elem_event:
		r->bits = e->u.event.bits;
		break;
	case etmkit_elem_instrumentation:
		r->value = e->u.ite.value;
		r->el = e->u.ite.el;
		break;
	case etmkit_elem_transaction:
		r->reason = e->u.txn.what;
		break;
	case etmkit_elem_q:
		r->target = e->u.q.target;
		r->count = e->u.q.count;
		break;
	case etmkit_elem_insn_range:
		r->end = e->u.range.end;
		r->count = e->u.range.count;
		r->repeats = e->u.range.repeats;
		r->opcode = e->u.range.opcode;
		r->class_flags = e->u.range.class_flags;
		break;
	case etmkit_elem_branch_run:
		r->end = e->u.brun.end;
		r->target = e->u.brun.target;
		r->repeats = e->u.brun.repeats;
		r->class_flags = e->u.brun.class_flags;
		break;
	default:
		break;
	}
}

static void elem_row(struct ek_elem_row *r, uint8_t id,
		     const struct etmkit_elem *e)
{
	memset(r, 0, sizeof(*r));
	r->offset = e->offset;
	r->addr = e->addr;
	r->cycles = e->cycles;
	r->id = id;
	r->kind = e->kind;
	r->isa = e->isa;
	r->size = e->size;
	r->flags = e->flags;
	elem_union(r, e);
}

/* Rows of one kind, written in a tight loop per kind: @e[0..@n-1] whose
 * kind is @want (etmkit_elem_none: every element) each become a row by
 * @put. Returns 0 or -1 (Python error set). */
#define FILL_LOOP(f, e, n, id, want, row_t, put)                          \
	do {                                                              \
		for (size_t i_ = 0; i_ < (n); i_++) {                     \
			row_t *r_;                                        \
			if ((want) != etmkit_elem_none &&                  \
			    (e)[i_].kind != (want))                         \
				continue;                                 \
			if (!(r_ = fill_row((f), sizeof(row_t))))          \
				return -1;                                \
			put(r_, (id), &(e)[i_]);                          \
			if (fill_next(f) < 0)                             \
				return -1;                                \
		}                                                         \
	} while (0)

int ek_fill_elems(void *ctx, uint8_t id, const struct etmkit_elem *e,
		  size_t n)
{
	struct ek_fill *f = ctx;

	switch (f->rows) {
	case ek_rows_block:
		FILL_LOOP(f, e, n, id, etmkit_elem_insn_range,
			  struct ek_block_row, block_row);
		break;
	case ek_rows_insn:
		FILL_LOOP(f, e, n, id, etmkit_elem_insn, struct ek_insn_row,
			  insn_row);
		break;
	case ek_rows_elem:
		FILL_LOOP(f, e, n, id, etmkit_elem_none, struct ek_elem_row,
			  elem_row);
		break;
	default:
		break;
	}
	return 0;
}

/* The header every protocol's packet record starts with (etm3.h, etm4.h,
 * ptm.h: offset, type, size, error, length, then the union and raw). */
static void packet_head(struct ek_packet_row *r, uint64_t offset,
			uint8_t type, uint8_t size, int16_t error,
			uint32_t length, const uint8_t *raw)
{
	r->offset = offset;
	r->type = type;
	r->size = size;
	r->error = error;
	r->length = length;
	memcpy(r->raw, raw, size < EK_PKT_BYTES ? size : EK_PKT_BYTES);
}

int ek_fill_packet(void *ctx, uint8_t id, enum etmkit_protocol proto,
		   const void *packet)
{
	struct ek_fill *f = ctx;
	struct ek_packet_row *r;

	if (f->rows != ek_rows_packet)
		return 0;
	if (!(r = fill_row(f, sizeof(*r))))
		return -1;
	memset(r, 0, sizeof(*r));
	r->id = id;
	r->proto = (uint8_t)proto;
	switch (proto) {
	case etmkit_proto_etmv3: {
		const struct etm3_packet *p = packet;

		packet_head(r, p->offset, p->type, p->size, p->error,
			    p->length, p->raw);
		break;
	}
	case etmkit_proto_etmv4:
	case etmkit_proto_ete: {
		const struct etm4_packet *p = packet;

		packet_head(r, p->offset, p->type, p->size, p->error,
			    p->length, p->raw);
		break;
	}
	case etmkit_proto_ptm: {
		const struct ptm_packet *p = packet;

		packet_head(r, p->offset, p->type, p->size, p->error,
			    p->length, p->raw);
		break;
	}
	case etmkit_proto_etmv2: {
		/* The offset of an ETMv2 record is its cycle index
		 * (docs/etmv2.md 1), as `etmkit packets` gives it. */
		const struct etm2_packet *p = packet;

		packet_head(r, p->cycle, p->type, p->size, p->error,
			    p->length, p->raw);
		break;
	}
	default:
		break;
	}
	return fill_next(f);
}

int ek_fill_flush(struct ek_fill *f)
{
	if (!f->cur)    /* made only for a row: n >= 1 */
		return 0;
	if (f->n < f->cap && fill_resize(f, f->n) < 0)
		return -1;
	return fill_done(f);
}

PyObject *ek_fill_pop(struct ek_fill *f)
{
	PyObject *a;

	if (f->head >= PyList_GET_SIZE(f->ready))
		return NULL;
	/* Taken from the list by index (no shift per array: a batch of 1
	 * row may make a step's list long); the list is emptied once all
	 * are taken. */
	a = PyList_GET_ITEM(f->ready, f->head);
	Py_INCREF(Py_None);
	PyList_SET_ITEM(f->ready, f->head, Py_None);
	if (++f->head == PyList_GET_SIZE(f->ready)) {
		f->head = 0;
		if (PyList_SetSlice(f->ready, 0, PyList_GET_SIZE(f->ready), NULL) < 0) {
			Py_DECREF(a);
			return NULL;
		}
	}
	return a;
}
