/* A source over the library's own session API (session.h): one raw trace
 * buffer in memory, one trace source, an image of files at addresses and
 * ELF files. No option parsing: the caller gives every register. It is
 * the extension's check of its filler against the library alone (the
 * tests compare it with `etmkit decode` of the same buffer) and the
 * bench's "library decode" path in Python; etmkit.open() goes through
 * the CLI's own input code instead. */
#include <string.h>

#include "ext.h"

/* Bytes fed per step: the CLI core's raw chunk (1 MiB). */
#define RAW_STEP (1u << 20)

struct raw_source {
	struct ek_source base;
	struct ek_fill *fill;        /* the stream's, during a step */
	struct etmkit_session *s;
	struct image *img;
	Py_buffer buf;               /* the trace bytes */
	size_t at;                   /* bytes fed */
	int stop;                    /* the callback failed */
};

static int raw_elems(void *ctx, uint8_t id, const struct etmkit_elem *e,
		     size_t n)
{
	struct raw_source *r = ctx;

	if (ek_fill_elems(r->fill, id, e, n) < 0) {
		r->stop = 1;
		return -etmkit_err_nomem;
	}
	return 0;
}

static int raw_packet(void *ctx, uint8_t id, enum etmkit_protocol proto,
		      const void *p)
{
	struct raw_source *r = ctx;

	if (ek_fill_packet(r->fill, id, proto, p) < 0) {
		r->stop = 1;
		return -etmkit_err_nomem;
	}
	return 0;
}

static int raw_step(struct ek_source *src, struct ek_fill *f)
{
	struct raw_source *r = (struct raw_source *)src;
	size_t n = (size_t)r->buf.len - r->at;
	int rc;

	r->fill = f;
	if (n > RAW_STEP)
		n = RAW_STEP;
	if (n)
		rc = etmkit_session_feed(r->s, (const uint8_t *)r->buf.buf +
					 r->at, n);
	else
		rc = etmkit_session_finish(r->s);
	r->fill = NULL;
	if (r->stop)
		return -1;
	if (rc < 0) {
		ek_raise_lib(rc, "decode");
		return -1;
	}
	r->at += n;
	return n ? 0 : 1;
}

static void raw_free(struct ek_source *src)
{
	struct raw_source *r = (struct raw_source *)src;

	etmkit_session_free(r->s);
	image_free(r->img);
	if (r->buf.obj)
		PyBuffer_Release(&r->buf);
	PyMem_Free(r);
}

/* @regs: a dict of register name -> value; missing names are 0. */
static int reg(PyObject *regs, const char *name, uint32_t *v)
{
	PyObject *o = PyDict_GetItemString(regs, name);

	*v = 0;
	if (!o)
		return 0;
	*v = (uint32_t)PyLong_AsUnsignedLong(o);
	return PyErr_Occurred() ? -1 : 0;
}

static int add_images(struct image *img, PyObject *images, PyObject *elfs)
{
	struct image_diag diag = { .path = "", .message = "" };
	Py_ssize_t i;
	int rc;

	for (i = 0; images && i < PyList_Size(images); i++) {
		const char *path;
		unsigned long long addr;

		if (!PyArg_ParseTuple(PyList_GetItem(images, i), "sK", &path,
				      &addr))
			return -1;
		rc = image_add_file(img, path, addr, 0, 0, 0, &diag);
		if (rc < 0)
			goto bad;
	}
	for (i = 0; elfs && i < PyList_Size(elfs); i++) {
		const char *path;
		unsigned long long bias;

		if (!PyArg_ParseTuple(PyList_GetItem(elfs, i), "sK", &path,
				      &bias))
			return -1;
		rc = image_add_elf(img, path, bias, 0, &diag);
		if (rc < 0)
			goto bad;
	}
	return 0;
bad:
	ek_raise(3, "%s: %s", diag.path, diag.message[0] ? diag.message :
		 etmkit_errstr(rc));
	return -1;
}

static int parse_rows(const char *what, enum ek_rows *rows)
{
	static const char *const names[ek_rows_count] = {
		[ek_rows_block] = "blocks", [ek_rows_insn] = "instructions",
		[ek_rows_elem] = "elements", [ek_rows_packet] = "packets",
	};

	for (int i = 0; i < ek_rows_count; i++)
		if (!strcmp(what, names[i])) {
			*rows = (enum ek_rows)i;
			return 0;
		}
	ek_raise(2, "unknown rows '%s'", what);
	return -1;
}

/* The decoder of @proto for @id, packets or flow (@ranges: blocks).
 * Returns the library's result, or -1 with a Python error set. */
static int add_decoder(struct raw_source *r, const char *proto, uint8_t id,
		       PyObject *regs, enum ek_rows rows, int ranges)
{
	int flow = rows != ek_rows_packet;

	if (!strcmp(proto, "etmv4") || !strcmp(proto, "ete")) {
		struct etm4_flow_config fc;
		struct etm4_config *c = &fc.etm;

		etm4_flow_config_init(&fc);
		etm4_config_init(c);
		if (reg(regs, "trcidr0", &c->trcidr0) < 0 ||
		    reg(regs, "trcidr1", &c->trcidr1) < 0 ||
		    reg(regs, "trcidr2", &c->trcidr2) < 0 ||
		    reg(regs, "trcidr8", &c->trcidr8) < 0 ||
		    reg(regs, "trcconfigr", &c->trcconfigr) < 0 ||
		    reg(regs, "trcdevarch", &c->trcdevarch) < 0)
			return -1;
		if (!strcmp(proto, "ete"))
			c->flags |= ETM4_CFG_ETE;
		fc.image = r->img;
		fc.flags = ranges ? ETM4_FLOW_RANGES : 0;
		return flow ? etmkit_session_add_etm4_flow(r->s, id, &fc) :
			      etmkit_session_add_etm4(r->s, id, c);
	}
	if (!strcmp(proto, "etmv3")) {
		struct etm3_flow_config fc;
		struct etm3_config *c = &fc.etm;

		etm3_flow_config_init(&fc);
		etm3_config_init(c);
		if (reg(regs, "etmcr", &c->etmcr) < 0 ||
		    reg(regs, "etmidr", &c->etmidr) < 0 ||
		    reg(regs, "etmccer", &c->etmccer) < 0)
			return -1;
		fc.image = r->img;
		fc.flags = ranges ? ETM3_FLOW_RANGES : 0;
		return flow ? etmkit_session_add_etm3_flow(r->s, id, &fc) :
			      etmkit_session_add_etm3(r->s, id, c);
	}
	if (!strcmp(proto, "ptm")) {
		struct ptm_flow_config fc;
		struct ptm_config *c = &fc.ptm;

		ptm_flow_config_init(&fc);
		ptm_config_init(c);
		if (reg(regs, "etmcr", &c->etmcr) < 0 ||
		    reg(regs, "etmidr", &c->etmidr) < 0 ||
		    reg(regs, "etmccer", &c->etmccer) < 0)
			return -1;
		fc.image = r->img;
		fc.flags = ranges ? PTM_FLOW_RANGES : 0;
		return flow ? etmkit_session_add_ptm_flow(r->s, id, &fc) :
			      etmkit_session_add_ptm(r->s, id, c);
	}
	ek_raise(2, "unknown protocol '%s'", proto);
	return -1;
}

static int raw_setup(struct raw_source *r, const char *proto, int frames,
		     unsigned id, PyObject *regs, PyObject *images,
		     PyObject *elfs, enum ek_rows rows, int ranges,
		     unsigned jobs)
{
	struct etmkit_session_config sc;
	int rc;

	if (image_alloc(&r->img) < 0) {
		PyErr_NoMemory();
		return -1;
	}
	if (add_images(r->img, images, elfs) < 0)
		return -1;
	etmkit_session_config_init(&sc);
	sc.frames = (enum deformat_mode)frames;
	sc.raw_id = (uint8_t)id;
	sc.ctx = r;
	sc.jobs = jobs;
	if (rows == ek_rows_packet)
		sc.on_packet = raw_packet;
	else
		sc.on_elems = raw_elems;
	rc = etmkit_session_alloc(&r->s, &sc);
	if (rc < 0) {
		ek_raise_lib(rc, "session");
		return -1;
	}
	rc = add_decoder(r, proto, (uint8_t)id, regs, rows, ranges);
	if (PyErr_Occurred())
		return -1;
	if (rc < 0) {
		ek_raise_lib(rc, proto);
		return -1;
	}
	return 0;
}

PyObject *ek_raw_stream(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "data", "rows", "protocol", "regs", "id",
				  "frames", "images", "elfs", "ranges",
				  "batch", "jobs", NULL };
	const char *what, *proto, *frames = "coresight";
	PyObject *data, *regs, *images = NULL, *elfs = NULL;
	unsigned id = 0x10, jobs = 0;
	int ranges = 0, mode;
	Py_ssize_t batch = EK_BATCH_DEFAULT;
	enum ek_rows rows;
	struct raw_source *r;

	(void)self;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OssO!|IsO!O!pnI", kwlist,
					 &data, &what, &proto, &PyDict_Type,
					 &regs, &id, &frames, &PyList_Type,
					 &images, &PyList_Type, &elfs,
					 &ranges, &batch, &jobs))
		return NULL;
	if (parse_rows(what, &rows) < 0)
		return NULL;
	if (rows == ek_rows_block)
		ranges = 1;
	if (batch < 1)
		return ek_raise(2, "batch must be 1 or more, not %zd", batch);
	mode = deformat_mode_parse(frames);
	if (mode < 0)
		return ek_raise(2, "unknown frames '%s'", frames);
	r = PyMem_Calloc(1, sizeof(*r));
	if (!r)
		return PyErr_NoMemory();
	r->base.step = raw_step;
	r->base.free = raw_free;
	if (PyObject_GetBuffer(data, &r->buf, PyBUF_SIMPLE) < 0) {
		PyMem_Free(r);
		return NULL;
	}
	if (raw_setup(r, proto, mode, id, regs, images, elfs, rows, ranges,
		      jobs) < 0) {
		raw_free(&r->base);
		return NULL;
	}
	return ek_stream_new(&r->base, rows, (size_t)batch);
}
