/* etmkit._etmkit: the CPython extension of the etmkit package.
 *
 * The module: its error type, the library's version and names, the
 * dtypes (ext/rows.c), the streams of arrays (ext/stream.c, filled by
 * ext/fill.c) and the sources that feed them (ext/rawsrc.c: the
 * library's session over a raw buffer). The package (etmkit/__init__.py)
 * is the documented interface; this module is its engine.
 */
#include <stdarg.h>
#include <stdio.h>

#include "ext/ext.h"

#define PY_ARRAY_UNIQUE_SYMBOL etmkit_py_ARRAY_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

PyObject *ek_error;

PyObject *ek_raise(int exit_class, const char *fmt, ...)
{
	char msg[1024];
	PyObject *exc, *code;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	exc = PyObject_CallFunction(ek_error, "s", msg);
	if (!exc)
		return NULL;
	code = PyLong_FromLong(exit_class);
	if (!code || PyObject_SetAttrString(exc, "exit_class", code) < 0) {
		Py_XDECREF(code);
		Py_DECREF(exc);
		return NULL;
	}
	Py_DECREF(code);
	PyErr_SetObject(ek_error, exc);
	Py_DECREF(exc);
	return NULL;
}

PyObject *ek_raise_lib(int err, const char *what)
{
	if (err == -etmkit_err_nomem)
		return PyErr_NoMemory();
	return ek_raise(3, "%s: %s", what, etmkit_errstr(err));
}

static PyObject *m_elem_kind_name(PyObject *self, PyObject *arg)
{
	unsigned long v = PyLong_AsUnsignedLong(arg);

	(void)self;
	if (PyErr_Occurred())
		return NULL;
	return PyUnicode_FromString(etmkit_elem_kind_name((unsigned)v));
}

static PyObject *m_isa_name(PyObject *self, PyObject *arg)
{
	unsigned long v = PyLong_AsUnsignedLong(arg);

	(void)self;
	if (PyErr_Occurred())
		return NULL;
	return PyUnicode_FromString(etmkit_isa_name((enum etmkit_isa)v));
}

static PyObject *m_loss_name(PyObject *self, PyObject *arg)
{
	unsigned long v = PyLong_AsUnsignedLong(arg);

	(void)self;
	if (PyErr_Occurred())
		return NULL;
	return PyUnicode_FromString(etmkit_loss_name((unsigned)v));
}

static PyObject *m_trace_on_reason_name(PyObject *self, PyObject *arg)
{
	unsigned long v = PyLong_AsUnsignedLong(arg);

	(void)self;
	if (PyErr_Occurred())
		return NULL;
	return PyUnicode_FromString(etmkit_trace_on_reason_name((unsigned)v));
}

static PyObject *m_sec_name(PyObject *self, PyObject *arg)
{
	unsigned long v = PyLong_AsUnsignedLong(arg);

	(void)self;
	if (PyErr_Occurred())
		return NULL;
	return PyUnicode_FromString(etmkit_sec_name((unsigned)v));
}

static PyObject *m_packet_type_name(PyObject *self, PyObject *args)
{
	unsigned proto, type;
	const char *name = "invalid";

	(void)self;
	if (!PyArg_ParseTuple(args, "II", &proto, &type))
		return NULL;
	switch (proto) {
	case etmkit_proto_etmv3:
		name = etm3_pkt_type_name((enum etm3_pkt_type)type);
		break;
	case etmkit_proto_etmv4:
	case etmkit_proto_ete:
		name = etm4_pkt_type_name((enum etm4_pkt_type)type);
		break;
	case etmkit_proto_ptm:
		name = ptm_pkt_type_name((enum ptm_pkt_type)type);
		break;
	case etmkit_proto_etmv2:
		name = etm2_pkt_type_name(type);
		break;
	default:
		break;
	}
	return PyUnicode_FromString(name ? name : "invalid");
}

static PyMethodDef methods[] = {
	{ "elem_kind_name", m_elem_kind_name, METH_O,
	  "elem_kind_name(kind)\n--\n\nThe name of element kind KIND "
	  "(ELEM_DTYPE 'kind'), as `etmkit decode --json` writes it." },
	{ "isa_name", m_isa_name, METH_O,
	  "isa_name(isa)\n--\n\nThe name of instruction set ISA ('a64', ...)." },
	{ "loss_name", m_loss_name, METH_O,
	  "loss_name(reason)\n--\n\nThe name of a gap or no_image reason." },
	{ "trace_on_reason_name", m_trace_on_reason_name, METH_O,
	  "trace_on_reason_name(reason)\n--\n\nThe name of a trace_on "
	  "element's reason ('periodic', 'trace_enable', ...)." },
	{ "sec_name", m_sec_name, METH_O,
	  "sec_name(sec)\n--\n\nThe name of a context's security state "
	  "('secure', 'nonsecure', 'root', 'realm')." },
	{ "packet_type_name", m_packet_type_name, METH_VARARGS,
	  "packet_type_name(proto, type)\n--\n\nThe name of packet TYPE of "
	  "protocol PROTO (PACKET_DTYPE 'proto' and 'type'), as `etmkit "
	  "packets --json` writes it." },
	{ "_cli_part_make", ek_cli_part_make, METH_VARARGS,
	  "_cli_part_make(cmd, argv)\n--\n\nThe Profile `etmkit CMD` "
	  "('profile' or 'coverage') counts from ARGV (argv[0] the command, "
	  "its options and one input), through the CLI's own code "
	  "(cli_part_make). etmkit.Error with the CLI's message and exit "
	  "class." },
	{ "_cli_part_write", ek_cli_part_write, METH_VARARGS,
	  "_cli_part_write(cmd, argv, profile)\n--\n\nWrite PROFILE as "
	  "`etmkit CMD` with ARGV's options does (cli_part_write); returns 0, "
	  "or 1 when it counted decode errors." },
	{ "_cli_inputs_expand", ek_cli_inputs_expand, METH_O,
	  "_cli_inputs_expand(inputs)\n--\n\nThe CLI's expansion of INPUT "
	  "arguments (files, snapshot and recording directories, @LIST)." },
	{ "_cli_stream", ek_cli_stream, METH_VARARGS,
	  "_cli_stream(cmd, argv, rows, batch=8192)\n--\n\nA Stream of "
	  "ROWS arrays ('blocks', 'instructions', 'elements', 'packets') of "
	  "the input `etmkit CMD ARGV` ('decode' or 'packets') reads, decoded "
	  "by the CLI's own code a piece at a time (cli_trace_step)." },
	{ "_option_takes_value", ek_cli_option_takes_value, METH_VARARGS,
	  "_option_takes_value(cmd, name)\n--\n\nWhether option NAME (the "
	  "long name without dashes, or a one-letter short name) of `etmkit "
	  "CMD` ('profile', 'coverage', 'decode', ...) takes a value, from "
	  "the CLI's option table (cli/options.c): True or False, None when "
	  "CMD has no such option (or there is no command CMD)." },
	{ "_raw_stream", (PyCFunction)(void (*)(void))ek_raw_stream,
	  METH_VARARGS | METH_KEYWORDS,
	  "_raw_stream(data, rows, protocol, regs, id=0x10, "
	  "frames='coresight', images=None, elfs=None, ranges=False, "
	  "batch=8192, jobs=0)\n--\n\n"
	  "Arrays of ROWS ('blocks', 'instructions', 'elements', 'packets') "
	  "decoded from the raw trace buffer DATA by the library's session "
	  "alone: one trace source ID of PROTOCOL with the registers REGS "
	  "(a dict: trcidr0 ... or etmcr, etmidr, etmccer; missing ones 0), "
	  "IMAGES (file, address) and ELFS (file, bias). For tests and "
	  "benchmarks: etmkit.open() is the interface." },
	{ NULL, NULL, 0, NULL }
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "etmkit._etmkit",
	.m_doc = "The C engine of the etmkit package (see help(etmkit)).",
	.m_size = -1,
	.m_methods = methods,
};

static int add_ints(PyObject *m)
{
	static const struct { const char *name; long v; } ints[] = {
		{ "PROTO_ETMV3", etmkit_proto_etmv3 },
		{ "PROTO_ETMV4", etmkit_proto_etmv4 },
		{ "PROTO_ETE", etmkit_proto_ete },
		{ "PROTO_PTM", etmkit_proto_ptm },
		{ "PROTO_ETMV2", etmkit_proto_etmv2 },
		{ "ELEM_KIND_COUNT", etmkit_elem_kind_count },
		{ "PACKET_BYTES", EK_PKT_BYTES },
		/* flags of insn rows, blocks and insn_range (elem.h) */
		{ "INSN_EXEC", ETMKIT_INSN_EXEC },
		{ "INSN_COND_FAIL", ETMKIT_INSN_COND_FAIL },
		{ "INSN_CANCEL", ETMKIT_INSN_CANCEL },
		{ "INSN_IMPLIED", ETMKIT_INSN_IMPLIED },
		{ "INSN_CYCLES", ETMKIT_INSN_CYCLES },
		{ "INSN_P0", ETMKIT_INSN_P0 },
	};

	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (PyModule_AddIntConstant(m, ints[i].name, ints[i].v) < 0)
			return -1;
	return 0;
}

/* Error.exit_class on the class: 3 unless an instance says otherwise. */
static int set_default_exit_class(void)
{
	PyObject *v = PyLong_FromLong(3);
	int rc = v ? PyObject_SetAttrString(ek_error, "exit_class", v) : -1;

	Py_XDECREF(v);
	return rc;
}

PyMODINIT_FUNC PyInit__etmkit(void);

PyMODINIT_FUNC PyInit__etmkit(void)
{
	PyObject *m;

	import_array();
	if (PyType_Ready(&ek_stream_type) < 0 ||
	    PyType_Ready(&ek_profile_type) < 0)
		return NULL;
	m = PyModule_Create(&module);
	if (!m)
		return NULL;
	ek_error = PyErr_NewExceptionWithDoc(
		"etmkit.Error",
		"An etmkit failure, with the CLI's message text. exit_class "
		"is the `etmkit` exit status the same failure gives: 2 usage "
		"(a bad option or value), 3 input (missing, unreadable, "
		"malformed or unsupported).", NULL, NULL);
	if (!ek_error || PyModule_AddObjectRef(m, "Error", ek_error) < 0 ||
	    set_default_exit_class() < 0 ||
	    PyModule_AddStringConstant(m, "__version__", etmkit_version()) < 0 ||
	    PyModule_AddObjectRef(m, "Stream", (PyObject *)&ek_stream_type) < 0 ||
	    PyModule_AddObjectRef(m, "Profile",
				  (PyObject *)&ek_profile_type) < 0 ||
	    add_ints(m) < 0 || ek_rows_init(m) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
