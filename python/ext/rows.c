/* The NumPy dtypes of the rows (ext.h), made from the structs' own
 * offsets and sizes: the dtype and the C writer share one layout. */
#include "ext.h"

#define NO_IMPORT_ARRAY
#define PY_ARRAY_UNIQUE_SYMBOL etmkit_py_ARRAY_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

_Static_assert(sizeof(struct ek_block_row) == 48, "block row padded");
_Static_assert(sizeof(struct ek_insn_row) == 32, "insn row padded");
_Static_assert(sizeof(struct ek_elem_row) == 104, "elem row padded");
_Static_assert(sizeof(struct ek_packet_row) == 56, "packet row padded");

struct ek_field {
	const char *name;
	const char *format;   /* NumPy type string, little-endian */
	size_t offset;
};

#define F(T, name, fmt) { #name, fmt, offsetof(T, name) }

static const struct ek_field block_fields[] = {
	F(struct ek_block_row, offset, "<u8"),
	F(struct ek_block_row, addr, "<u8"),
	F(struct ek_block_row, end, "<u8"),
	F(struct ek_block_row, count, "<u4"),
	F(struct ek_block_row, repeats, "<u4"),
	F(struct ek_block_row, opcode, "<u4"),
	F(struct ek_block_row, class_flags, "<u4"),
	F(struct ek_block_row, cycles, "<u4"),
	F(struct ek_block_row, id, "u1"),
	F(struct ek_block_row, isa, "u1"),
	F(struct ek_block_row, size, "u1"),
	F(struct ek_block_row, flags, "u1"),
	{ NULL, NULL, 0 }
};

static const struct ek_field insn_fields[] = {
	F(struct ek_insn_row, offset, "<u8"),
	F(struct ek_insn_row, addr, "<u8"),
	F(struct ek_insn_row, opcode, "<u4"),
	F(struct ek_insn_row, class_flags, "<u4"),
	F(struct ek_insn_row, cycles, "<u4"),
	F(struct ek_insn_row, id, "u1"),
	F(struct ek_insn_row, isa, "u1"),
	F(struct ek_insn_row, size, "u1"),
	F(struct ek_insn_row, flags, "u1"),
	{ NULL, NULL, 0 }
};

static const struct ek_field elem_fields[] = {
	F(struct ek_elem_row, offset, "<u8"),
	F(struct ek_elem_row, addr, "<u8"),
	F(struct ek_elem_row, end, "<u8"),
	F(struct ek_elem_row, target, "<u8"),
	F(struct ek_elem_row, value, "<u8"),
	F(struct ek_elem_row, data_addr, "<u8"),
	F(struct ek_elem_row, ret_addr, "<u8"),
	F(struct ek_elem_row, cycles, "<u4"),
	F(struct ek_elem_row, count, "<u4"),
	F(struct ek_elem_row, repeats, "<u4"),
	F(struct ek_elem_row, opcode, "<u4"),
	F(struct ek_elem_row, class_flags, "<u4"),
	F(struct ek_elem_row, context_id, "<u4"),
	F(struct ek_elem_row, vmid, "<u4"),
	F(struct ek_elem_row, number, "<u2"),
	F(struct ek_elem_row, id, "u1"),
	F(struct ek_elem_row, kind, "u1"),
	F(struct ek_elem_row, isa, "u1"),
	F(struct ek_elem_row, size, "u1"),
	F(struct ek_elem_row, flags, "u1"),
	F(struct ek_elem_row, reason, "u1"),
	F(struct ek_elem_row, space, "u1"),
	F(struct ek_elem_row, ns, "u1"),
	F(struct ek_elem_row, hyp, "u1"),
	F(struct ek_elem_row, el, "u1"),
	F(struct ek_elem_row, aarch64, "u1"),
	F(struct ek_elem_row, sec, "u1"),
	F(struct ek_elem_row, tag, "u1"),
	F(struct ek_elem_row, half, "u1"),
	F(struct ek_elem_row, bits, "u1"),
	F(struct ek_elem_row, resume, "u1"),
	F(struct ek_elem_row, reserved, "(2,)u1"),
	{ NULL, NULL, 0 }
};

static const struct ek_field packet_fields[] = {
	F(struct ek_packet_row, offset, "<u8"),
	F(struct ek_packet_row, length, "<u4"),
	F(struct ek_packet_row, error, "<i2"),
	F(struct ek_packet_row, id, "u1"),
	F(struct ek_packet_row, proto, "u1"),
	F(struct ek_packet_row, type, "u1"),
	F(struct ek_packet_row, size, "u1"),
	F(struct ek_packet_row, raw, "(32,)u1"),
	F(struct ek_packet_row, reserved, "(6,)u1"),
	{ NULL, NULL, 0 }
};

static const struct {
	const char *name;          /* the module attribute */
	const struct ek_field *fields;
	size_t size;
} tables[ek_rows_count] = {
	[ek_rows_block] = { "BLOCK_DTYPE", block_fields,
			    sizeof(struct ek_block_row) },
	[ek_rows_insn] = { "INSN_DTYPE", insn_fields,
			   sizeof(struct ek_insn_row) },
	[ek_rows_elem] = { "ELEM_DTYPE", elem_fields,
			   sizeof(struct ek_elem_row) },
	[ek_rows_packet] = { "PACKET_DTYPE", packet_fields,
			     sizeof(struct ek_packet_row) },
};

static PyObject *descrs[ek_rows_count];

/* np.dtype({"names": ..., "formats": ..., "offsets": ..., "itemsize": ...}) */
static PyObject *make_descr(const struct ek_field *fields, size_t size)
{
	PyObject *names = PyList_New(0), *formats = PyList_New(0);
	PyObject *offsets = PyList_New(0), *spec = NULL;
	PyArray_Descr *d = NULL;

	if (!names || !formats || !offsets)
		goto out;
	for (const struct ek_field *f = fields; f->name; f++) {
		PyObject *n = PyUnicode_FromString(f->name);
		PyObject *t = PyUnicode_FromString(f->format);
		PyObject *o = PyLong_FromSize_t(f->offset);
		int bad = !n || !t || !o || PyList_Append(names, n) < 0 ||
			  PyList_Append(formats, t) < 0 ||
			  PyList_Append(offsets, o) < 0;

		Py_XDECREF(n);
		Py_XDECREF(t);
		Py_XDECREF(o);
		if (bad)
			goto out;
	}
	spec = Py_BuildValue("{sOsOsOsn}", "names", names, "formats", formats,
			     "offsets", offsets, "itemsize", (Py_ssize_t)size);
	if (spec && !PyArray_DescrConverter(spec, &d))
		d = NULL;
out:
	Py_XDECREF(names);
	Py_XDECREF(formats);
	Py_XDECREF(offsets);
	Py_XDECREF(spec);
	return (PyObject *)d;
}

int ek_rows_init(PyObject *module)
{
	for (int r = 0; r < ek_rows_count; r++) {
		descrs[r] = make_descr(tables[r].fields, tables[r].size);
		if (!descrs[r])
			return -1;
		Py_INCREF(descrs[r]);   /* one for the module, one kept */
		if (PyModule_AddObject(module, tables[r].name, descrs[r]) < 0) {
			Py_DECREF(descrs[r]);
			return -1;
		}
	}
	return 0;
}

PyObject *ek_rows_descr(enum ek_rows rows)
{
	return descrs[rows];
}

size_t ek_rows_size(enum ek_rows rows)
{
	return tables[rows].size;
}
