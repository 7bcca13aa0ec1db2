/* etmkit.Profile: a mergeable partial profile (include/etmkit/profile_part.h)
 * as a Python object: its saved form in and out (canonical bytes), merge,
 * the counters and the binary table. */
#include <string.h>

#include "ext.h"
#include "etmkit/profile_part.h"

struct ek_profile {
	PyObject_HEAD
	struct profile_part *pp;
};

static const char *const kind_names[] = {
	[profile_part_kind_tally] = "tally",
	[profile_part_kind_traces] = "traces",
	[profile_part_kind_coverage] = "coverage",
};

/* A new Profile owning @pp (freed on failure). */
PyObject *ek_profile_new(struct profile_part *pp)
{
	struct ek_profile *p = PyObject_New(struct ek_profile,
					    &ek_profile_type);

	if (!p) {
		profile_part_free(pp);
		return NULL;
	}
	p->pp = pp;
	return (PyObject *)p;
}

/* The library's failure @err of an operation on @pp, with its reason:
 * kinds that differ or a bad argument are usage (2), a binary found as
 * different files is input (3). */
static PyObject *part_raise(const struct profile_part *pp, int err,
			    const char *what)
{
	const char *msg = pp ? profile_part_message(pp) : "";

	if (err == -etmkit_err_nomem)
		return PyErr_NoMemory();
	return ek_raise(err == -etmkit_err_invalid ? 2 : 3, "%s: %s", what,
			msg[0] ? msg : etmkit_errstr(err));
}

const struct profile_part *ek_profile_part(PyObject *o)
{
	return ((struct ek_profile *)o)->pp;
}

static void profile_dealloc(PyObject *self)
{
	profile_part_free(((struct ek_profile *)self)->pp);
	PyObject_Free(self);
}

static int is_profile(PyObject *o)
{
	return PyObject_TypeCheck(o, &ek_profile_type);
}

static PyObject *profile_from_bytes(PyObject *cls, PyObject *arg)
{
	struct profile_part_diag diag;
	struct profile_part *pp = NULL;
	Py_buffer b;
	int err;

	(void)cls;
	if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) < 0)
		return NULL;
	memset(&diag, 0, sizeof(diag));
	err = profile_part_load(&pp, b.buf, (size_t)b.len, &diag);
	PyBuffer_Release(&b);
	if (err == -etmkit_err_nomem)
		return PyErr_NoMemory();
	if (err < 0) {
		if (diag.has_offset)
			return ek_raise(3, "partial profile: at byte %llu: %s",
					(unsigned long long)diag.offset,
					diag.message[0] ? diag.message :
					etmkit_errstr(err));
		return ek_raise(3, "partial profile: %s", diag.message[0] ?
				diag.message : etmkit_errstr(err));
	}
	return ek_profile_new(pp);
}

static PyObject *profile_to_bytes(PyObject *self, PyObject *unused)
{
	struct profile_part *pp = ((struct ek_profile *)self)->pp;
	uint8_t *buf = NULL;
	size_t n = 0;
	PyObject *res;
	int err;

	(void)unused;
	err = profile_part_save_buf(pp, &buf, &n);
	if (err < 0)
		return part_raise(pp, err, "saving a partial profile");
	res = PyBytes_FromStringAndSize((const char *)buf, (Py_ssize_t)n);
	free(buf);
	return res;
}

static PyObject *profile_merge(PyObject *self, PyObject *other)
{
	struct profile_part *dst = NULL;
	const struct profile_part *src;
	int err;

	if (!is_profile(other))
		return PyErr_Format(PyExc_TypeError,
				    "merge() takes a Profile, not %.100s",
				    Py_TYPE(other)->tp_name);
	src = ((struct ek_profile *)other)->pp;
	err = profile_part_clone(&dst, ((struct ek_profile *)self)->pp);
	if (err < 0)
		return part_raise(NULL, err, "merge");
	err = profile_part_merge(dst, src);
	if (err < 0) {
		PyObject *r = part_raise(dst, err, "merge");

		profile_part_free(dst);
		return r;
	}
	return ek_profile_new(dst);
}

static PyObject *profile_inplace_add(PyObject *self, PyObject *other)
{
	struct profile_part *dst = ((struct ek_profile *)self)->pp;
	int err;

	if (!is_profile(other))
		Py_RETURN_NOTIMPLEMENTED;
	err = profile_part_merge(dst, ((struct ek_profile *)other)->pp);
	if (err < 0)
		return part_raise(dst, err, "merge");
	Py_INCREF(self);
	return self;
}

static PyObject *profile_add(PyObject *a, PyObject *b)
{
	if (!is_profile(a) || !is_profile(b))
		Py_RETURN_NOTIMPLEMENTED;
	return profile_merge(a, b);
}

/* Same counts, binaries and counters: the same canonical bytes. */
static PyObject *profile_richcompare(PyObject *a, PyObject *b, int op)
{
	PyObject *ba, *bb, *res;

	if (!is_profile(b) || (op != Py_EQ && op != Py_NE))
		Py_RETURN_NOTIMPLEMENTED;
	ba = profile_to_bytes(a, NULL);
	bb = ba ? profile_to_bytes(b, NULL) : NULL;
	res = bb ? PyObject_RichCompare(ba, bb, op) : NULL;
	Py_XDECREF(ba);
	Py_XDECREF(bb);
	return res;
}

static PyObject *counters(PyObject *self, struct profile_part_counters *c)
{
	if (profile_part_counters(((struct ek_profile *)self)->pp, c) < 0)
		return ek_raise(3, "partial profile: no counters");
	return self;
}

static PyObject *get_inputs(PyObject *self, void *unused)
{
	struct profile_part_counters c;

	(void)unused;
	return counters(self, &c) ? PyLong_FromUnsignedLongLong(c.inputs) :
				    NULL;
}

static PyObject *get_decode_errors(PyObject *self, void *unused)
{
	struct profile_part_counters c;

	(void)unused;
	return counters(self, &c) ?
		PyLong_FromUnsignedLongLong(c.decode_errors) : NULL;
}

static PyObject *get_saturated(PyObject *self, void *unused)
{
	struct profile_part_counters c;

	(void)unused;
	return counters(self, &c) ? PyBool_FromLong(c.saturated) : NULL;
}

static PyObject *get_etm3(PyObject *self, void *unused)
{
	struct profile_part_counters c;

	(void)unused;
	return counters(self, &c) ? PyBool_FromLong(c.etm3) : NULL;
}

static PyObject *get_kind(PyObject *self, void *unused)
{
	enum profile_part_kind k =
		profile_part_kind_of(((struct ek_profile *)self)->pp);

	(void)unused;
	if (k < profile_part_kind_tally || k > profile_part_kind_coverage)
		return PyUnicode_FromString("invalid");
	return PyUnicode_FromString(kind_names[k]);
}

/* One binary of the table as a dict. */
static PyObject *binary_dict(const struct profile_part_binary *b)
{
	char hex[41];

	for (unsigned i = 0; i < b->build_id_size && i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", b->build_id[i]);
	hex[2 * (b->build_id_size < 20 ? b->build_id_size : 20)] = 0;
	return Py_BuildValue("{sssssssOsKsK}", "name", b->name,
			     "file", b->file, "build_id", hex, "has_elf",
			     b->has_elf ? Py_True : Py_False, "base",
			     (unsigned long long)b->base, "text_base",
			     (unsigned long long)b->text_base);
}

static PyObject *get_binaries(PyObject *self, void *unused)
{
	const struct profile_part *pp = ((struct ek_profile *)self)->pp;
	size_t n = profile_part_binary_count(pp);
	PyObject *list = PyList_New((Py_ssize_t)n);

	(void)unused;
	for (size_t i = 0; list && i < n; i++) {
		struct profile_part_binary b;
		PyObject *d;

		if (profile_part_binary_at(pp, i, &b) < 0 ||
		    !(d = binary_dict(&b))) {
			if (!PyErr_Occurred())
				ek_raise(3, "partial profile: binary %zu", i);
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, d);
	}
	return list;
}

static PyObject *get_entries(PyObject *self, void *unused)
{
	const struct profile_part *pp = ((struct ek_profile *)self)->pp;

	(void)unused;
	return Py_BuildValue("(nn)", (Py_ssize_t)profile_part_range_count(pp),
			     (Py_ssize_t)profile_part_branch_count(pp));
}

/* write(): etmkit._profile_write(self, ...), which turns the options into
 * the CLI's argv (etmkit.cli_args) and calls _cli_part_write. */
static PyObject *profile_write(PyObject *self, PyObject *args, PyObject *kw)
{
	PyObject *mod = PyImport_ImportModule("etmkit"), *fn, *all, *res;

	if (!mod)
		return NULL;
	fn = PyObject_GetAttrString(mod, "_profile_write");
	Py_DECREF(mod);
	if (!fn)
		return NULL;
	all = PyTuple_New(PyTuple_GET_SIZE(args) + 1);
	if (!all) {
		Py_DECREF(fn);
		return NULL;
	}
	Py_INCREF(self);
	PyTuple_SET_ITEM(all, 0, self);
	for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); i++) {
		PyObject *a = PyTuple_GET_ITEM(args, i);

		Py_INCREF(a);
		PyTuple_SET_ITEM(all, i + 1, a);
	}
	res = PyObject_Call(fn, all, kw);
	Py_DECREF(all);
	Py_DECREF(fn);
	return res;
}

/* pickle: Profile.from_bytes(saved form), so that Profiles travel
 * between processes (a Dask task's result) as their canonical bytes. */
static PyObject *profile_reduce(PyObject *self, PyObject *unused)
{
	PyObject *b = profile_to_bytes(self, NULL), *fn, *res;

	(void)unused;
	if (!b)
		return NULL;
	fn = PyObject_GetAttrString((PyObject *)Py_TYPE(self), "from_bytes");
	res = fn ? Py_BuildValue("(O(O))", fn, b) : NULL;
	Py_XDECREF(fn);
	Py_DECREF(b);
	return res;
}

static PyMethodDef profile_methods[] = {
	{ "__reduce__", profile_reduce, METH_NOARGS,
	  "pickle support: the saved form." },
	{ "write", (PyCFunction)(void (*)(void))profile_write,
	  METH_VARARGS | METH_KEYWORDS,
	  "write(path, *cli_args, format=None, **options)\n--\n\n"
	  "Write the profile as `etmkit profile` (or `etmkit coverage`, for "
	  "a coverage) writes it, with its output options (--binary, ...): "
	  "to PATH, returning the CLI's status (0, or 1 after decode errors), "
	  "or, when PATH is None, returning the text. FORMAT defaults "
	  "to the kind's: autofdo (tally), bolt (traces), lcov (coverage). "
	  "etmkit.Error with the CLI's message and exit class (2: options, a "
	  "format of another kind, bolt with several binaries and no "
	  "--binary; 3: not written)." },
	{ "from_bytes", profile_from_bytes, METH_O | METH_CLASS,
	  "from_bytes(data)\n--\n\nA Profile from its saved form (ETMKPART, "
	  "docs/profile-part.md), checked strictly; etmkit.Error (exit_class "
	  "3) names the byte where it is bad." },
	{ "to_bytes", profile_to_bytes, METH_NOARGS,
	  "to_bytes()\n--\n\nThe saved form: canonical, so equal counts give "
	  "equal bytes whatever the order of merging." },
	{ "__bytes__", profile_to_bytes, METH_NOARGS,
	  "bytes(p): p.to_bytes()." },
	{ "merge", profile_merge, METH_O,
	  "merge(other)\n--\n\nA new Profile: this one's counts and OTHER's "
	  "added (binaries unified by name and build id). etmkit.Error when "
	  "the kinds differ (exit_class 2) or a binary of both was resolved "
	  "with different files (3)." },
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef profile_getset[] = {
	{ "kind", get_kind, NULL,
	  "'tally' (AutoFDO), 'traces' (BOLT, llvm-profgen) or 'coverage' "
	  "(lcov).", NULL },
	{ "inputs", get_inputs, NULL, "Inputs counted.", NULL },
	{ "decode_errors", get_decode_errors, NULL,
	  "Decode errors (gaps) in them.", NULL },
	{ "saturated", get_saturated, NULL,
	  "Whether a count stopped at 2**64 - 1.", NULL },
	{ "etm3", get_etm3, NULL,
	  "coverage: whether a source traced every instruction's condition "
	  "(ETMv3, ETMv2).", NULL },
	{ "binaries", get_binaries, NULL,
	  "The binary table: a list of dicts (name, file, build_id as hex, "
	  "has_elf, base, text_base), in the part's order.", NULL },
	{ "entries", get_entries, NULL,
	  "(ranges, branches): distinct entries (a coverage: ranges and "
	  "conditional instructions).", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

static PyNumberMethods profile_number = {
	.nb_add = profile_add,
	.nb_inplace_add = profile_inplace_add,
};

PyTypeObject ek_profile_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "etmkit.Profile",
	.tp_basicsize = sizeof(struct ek_profile),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "What `etmkit profile` or `etmkit coverage` counted from "
		  "some inputs, before writing: a partial profile that merges "
		  "(p.merge(q), p + q, p += q) and serialises (bytes(p), "
		  "Profile.from_bytes(b)).",
	.tp_dealloc = profile_dealloc,
	.tp_methods = profile_methods,
	.tp_getset = profile_getset,
	.tp_as_number = &profile_number,
	.tp_richcompare = profile_richcompare,
	.tp_hash = PyObject_HashNotImplemented,
};
