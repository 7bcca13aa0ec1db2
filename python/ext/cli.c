/* The CLI's own input and output code (cli/core.h, the static library
 * etmkit_cli_core) as the package's calls: a part counted from one input
 * with `etmkit profile` or `etmkit coverage` options, a part written as
 * those commands write it, and their expansion of INPUT lists. The
 * options, messages and exit classes are the CLI's. */
#include <stdlib.h>
#include <string.h>

#include "ext.h"
#include "core.h"
#include "etmkit/profile_part.h"

/* A malloc()ed copy of @s (C11 has no strdup). */
static char *dupstr(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	return d ? memcpy(d, s, n) : NULL;
}

/* The strings of list @args as a NULL-ended argv of copies (getopt may
 * permute it), or NULL with a Python error set. */
static char **argv_of(PyObject *args, int *argc)
{
	Py_ssize_t n;
	char **v;

	if (!PyList_Check(args)) {
		PyErr_SetString(PyExc_TypeError, "argv must be a list of str");
		return NULL;
	}
	n = PyList_GET_SIZE(args);
	if (n > 4096) {
		ek_raise(2, "too many arguments (%zd)", n);
		return NULL;
	}
	v = PyMem_Calloc((size_t)n + 1, sizeof(*v));
	if (!v) {
		PyErr_NoMemory();
		return NULL;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		const char *s = PyUnicode_AsUTF8(PyList_GET_ITEM(args, i));

		if (!s || !(v[i] = dupstr(s))) {
			for (Py_ssize_t j = 0; j < i; j++)
				free(v[j]);
			PyMem_Free(v);
			if (s)
				PyErr_NoMemory();
			return NULL;
		}
	}
	*argc = (int)n;
	return v;
}

static void argv_free(char **v, int argc)
{
	for (int i = 0; i < argc; i++)
		free(v[i]);
	PyMem_Free(v);
}

PyObject *ek_cli_part_make(PyObject *self, PyObject *args)
{
	struct profile_part *pp = NULL;
	const char *cmd;
	PyObject *list;
	char err[1024] = "";
	char **argv;
	int argc = 0, rc;

	(void)self;
	if (!PyArg_ParseTuple(args, "sO!", &cmd, &PyList_Type, &list) ||
	    !(argv = argv_of(list, &argc)))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	rc = cli_part_make(cmd, argc, argv, &pp, err, sizeof(err));
	Py_END_ALLOW_THREADS
	argv_free(argv, argc);
	if (rc != 0 || !pp) {
		profile_part_free(pp);
		return ek_raise(rc == 2 ? 2 : 3, "%s", err[0] ? err :
				"no partial profile made");
	}
	return ek_profile_new(pp);
}

PyObject *ek_cli_part_write(PyObject *self, PyObject *args)
{
	const struct profile_part *pp;
	const char *cmd;
	PyObject *list, *prof;
	char err[1024] = "";
	char **argv;
	int argc = 0, rc;

	(void)self;
	if (!PyArg_ParseTuple(args, "sO!O!", &cmd, &PyList_Type, &list,
			      &ek_profile_type, &prof) ||
	    !(argv = argv_of(list, &argc)))
		return NULL;
	pp = ek_profile_part(prof);
	Py_BEGIN_ALLOW_THREADS
	rc = cli_part_write(cmd, argc, argv, pp, err, sizeof(err));
	Py_END_ALLOW_THREADS
	argv_free(argv, argc);
	if (rc != 0 && rc != 1)
		return ek_raise(rc == 2 ? 2 : 3, "%s", err[0] ? err :
				"not written");
	return PyLong_FromLong(rc);
}

PyObject *ek_cli_inputs_expand(PyObject *self, PyObject *arg)
{
	char err[1024] = "";
	char **in, **out = NULL;
	size_t nout = 0;
	PyObject *res;
	int n = 0, rc;

	(void)self;
	if (!(in = argv_of(arg, &n)))
		return NULL;
	rc = cli_inputs_expand(n, in, &out, &nout, err, sizeof(err));
	argv_free(in, n);
	if (rc != 0)
		return ek_raise(rc == 2 ? 2 : 3, "%s", err[0] ? err :
				"inputs not expanded");
	res = PyList_New((Py_ssize_t)nout);
	for (size_t i = 0; res && i < nout; i++) {
		PyObject *s = PyUnicode_DecodeFSDefault(out[i]);

		if (!s) {
			Py_CLEAR(res);
			break;
		}
		PyList_SET_ITEM(res, (Py_ssize_t)i, s);
	}
	cli_inputs_free(out, nout);
	return res;
}

PyObject *ek_cli_option_takes_value(PyObject *self, PyObject *args)
{
	const char *cmd, *name;
	int rc;

	(void)self;
	if (!PyArg_ParseTuple(args, "ss", &cmd, &name))
		return NULL;
	rc = cli_option_takes_value(cmd, name);
	if (rc < 0)
		Py_RETURN_NONE;
	return PyBool_FromLong(rc);
}

/* ---- Element and packet streams (cli_trace_*) ----------------------------- */

struct cli_source {
	struct ek_source base;
	struct cli_trace *t;
	int packets;                /* a "packets" stream */
};

static int cli_packet(void *ctx, uint8_t id, int proto, const void *packet)
{
	return ek_fill_packet(ctx, id, (enum etmkit_protocol)proto, packet);
}

static int cli_step(struct ek_source *src, struct ek_fill *f)
{
	struct cli_source *s = (struct cli_source *)src;
	int rc;

	rc = s->packets ? cli_trace_packets_step(s->t, cli_packet, f) :
			  cli_trace_step(s->t, ek_fill_elems, f);
	if (rc >= 0)
		return rc;
	if (f->failed || PyErr_Occurred())
		return -1;
	/* -cli_exit after a message: the CLI's text */
	if (cli_trace_error(s->t)[0])
		ek_raise(rc == -2 ? 2 : 3, "%s", cli_trace_error(s->t));
	else
		ek_raise(rc == -2 ? 2 : 3, "decoding stopped (exit status %d)",
			 -rc);
	return -1;
}

static void cli_free(struct ek_source *src)
{
	struct cli_source *s = (struct cli_source *)src;

	cli_trace_close(s->t);
	PyMem_Free(s);
}

PyObject *ek_cli_stream(PyObject *self, PyObject *args)
{
	const char *cmd, *what;
	PyObject *list;
	Py_ssize_t batch = EK_BATCH_DEFAULT;
	char err[1024] = "";
	struct cli_source *s;
	char **argv;
	int argc = 0, rc, rows = -1;

	(void)self;
	if (!PyArg_ParseTuple(args, "sO!s|n", &cmd, &PyList_Type, &list,
			      &what, &batch))
		return NULL;
	if ((rows = ek_rows_parse(what)) < 0)
		return NULL;
	if (batch < 1)
		return ek_raise(2, "batch must be 1 or more, not %zd", batch);
	if (!(argv = argv_of(list, &argc)))
		return NULL;
	s = PyMem_Calloc(1, sizeof(*s));
	if (!s) {
		argv_free(argv, argc);
		return PyErr_NoMemory();
	}
	s->base.step = cli_step;
	s->base.free = cli_free;
	s->packets = rows == ek_rows_packet;
	rc = cli_trace_open(&s->t, cmd, argc, argv, err, sizeof(err));
	argv_free(argv, argc);
	if (rc != 0) {
		if (s->t)
			cli_trace_close(s->t);
		PyMem_Free(s);
		return ek_raise(rc == 2 ? 2 : 3, "%s", err[0] ? err :
				"cannot open the input");
	}
	return ek_stream_new(&s->base, (enum ek_rows)rows, (size_t)batch);
}
