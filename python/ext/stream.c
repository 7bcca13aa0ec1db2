/* Streams: Python iterators over arrays of rows. A source decodes one
 * step at a time (a chunk of input) into the filler; __next__ gives the
 * ready arrays in order and steps the source only when none is left, so
 * memory holds at most one step's rows beyond the array handed out. */
#include "ext.h"

struct ek_stream {
	PyObject_HEAD
	struct ek_source *src;   /* NULL once closed */
	struct ek_fill fill;
	int done;                /* the source is at its end */
};

PyObject *ek_stream_new(struct ek_source *src, enum ek_rows rows,
			size_t batch)
{
	struct ek_stream *s = PyObject_New(struct ek_stream, &ek_stream_type);

	if (!s) {
		src->free(src);
		return NULL;
	}
	s->src = src;
	s->done = 0;
	if (ek_fill_init(&s->fill, rows, batch) < 0) {
		s->fill.ready = NULL;
		s->fill.cur = NULL;
		Py_DECREF(s);
		return NULL;
	}
	return (PyObject *)s;
}

static void stream_close_src(struct ek_stream *s)
{
	if (s->src) {
		s->src->free(s->src);
		s->src = NULL;
	}
}

static void stream_dealloc(PyObject *self)
{
	struct ek_stream *s = (struct ek_stream *)self;

	stream_close_src(s);
	ek_fill_free(&s->fill);
	PyObject_Free(self);
}

static PyObject *stream_next(PyObject *self)
{
	struct ek_stream *s = (struct ek_stream *)self;

	for (;;) {
		PyObject *a = ek_fill_pop(&s->fill);
		int rc;

		if (a || PyErr_Occurred())
			return a;
		if (s->done || !s->src)
			return NULL;   /* StopIteration */
		rc = s->src->step(s->src, &s->fill);
		if (rc < 0) {
			stream_close_src(s);
			return NULL;
		}
		if (rc == 1) {
			s->done = 1;
			stream_close_src(s);
			if (ek_fill_flush(&s->fill) < 0)
				return NULL;
		}
	}
}

static PyObject *stream_close(PyObject *self, PyObject *unused)
{
	struct ek_stream *s = (struct ek_stream *)self;

	(void)unused;
	stream_close_src(s);
	s->done = 1;
	Py_CLEAR(s->fill.cur);
	if (s->fill.ready &&
	    PyList_SetSlice(s->fill.ready, 0,
			    PyList_GET_SIZE(s->fill.ready), NULL) < 0)
		return NULL;
	s->fill.head = 0;
	Py_RETURN_NONE;
}

static PyObject *stream_finished(PyObject *self, void *unused)
{
	struct ek_stream *s = (struct ek_stream *)self;

	(void)unused;
	return PyBool_FromLong(!s->src && !s->fill.cur &&
			       (!s->fill.ready ||
				s->fill.head >= PyList_GET_SIZE(s->fill.ready)));
}

static PyGetSetDef stream_getset[] = {
	{ "finished", stream_finished, NULL,
	  "True once the stream has nothing more to give: decoding is over "
	  "(the end, an error or close()) and every array was taken.", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

static PyMethodDef stream_methods[] = {
	{ "close", stream_close, METH_NOARGS,
	  "close()\n--\n\nStop decoding and drop the arrays not yet taken." },
	{ NULL, NULL, 0, NULL }
};

PyTypeObject ek_stream_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "etmkit._etmkit.Stream",
	.tp_basicsize = sizeof(struct ek_stream),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "An iterator over NumPy structured arrays of decoded rows "
		  "(one dtype per stream); made by etmkit.Trace's iterators.",
	.tp_dealloc = stream_dealloc,
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = stream_next,
	.tp_methods = stream_methods,
	.tp_getset = stream_getset,
};
