/* etmkit Python extension (_etmkit): what its C files share.
 *
 * The extension turns the library's element and packet batches into NumPy
 * structured arrays in C, a row per element written straight into the
 * array's memory (no Python object per element), and hands whole arrays
 * to Python. The row layouts below are the dtypes' (BLOCK_DTYPE, ...):
 * rows.c builds each dtype from these structs' offsets, so the two
 * cannot disagree. Each struct has no padding, so every byte of a row
 * is written and arrays of the same rows compare equal byte for byte.
 */
#ifndef ETMKIT_PY_EXT_H
#define ETMKIT_PY_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "etmkit/etmkit.h"
#include "etmkit/etm4.h"

/* One block (an insn_range element): BLOCK_DTYPE. */
struct ek_block_row {
	uint64_t offset;      /* input offset of its packet */
	uint64_t addr;        /* first instruction */
	uint64_t end;         /* the address after the last */
	uint32_t count;       /* instructions */
	uint32_t repeats;     /* extra runs (ETM4_FLOW_TALLY; else 0) */
	uint32_t opcode;      /* the last instruction's */
	uint32_t class_flags; /* the last instruction's INSN_F_* */
	uint32_t cycles;      /* ETMKIT_INSN_CYCLES: the block's */
	uint8_t id;           /* trace ID */
	uint8_t isa;          /* enum etmkit_isa */
	uint8_t size;         /* the last instruction's bytes */
	uint8_t flags;        /* the last instruction's ETMKIT_INSN_* */
};

/* One instruction (an insn element): INSN_DTYPE. */
struct ek_insn_row {
	uint64_t offset;
	uint64_t addr;
	uint32_t opcode;
	uint32_t class_flags;
	uint32_t cycles;
	uint8_t id;
	uint8_t isa;
	uint8_t size;
	uint8_t flags;
};

/* Any element, its union spread over named fields: ELEM_DTYPE
 * (docs/python.md says which kind sets which field; the rest are 0). */
struct ek_elem_row {
	uint64_t offset;
	uint64_t addr;
	uint64_t end;         /* insn_range, branch_run */
	uint64_t target;      /* branch_run, q */
	uint64_t value;       /* timestamp, data, instrumentation */
	uint64_t data_addr;   /* data */
	uint64_t ret_addr;    /* exception */
	uint32_t cycles;
	uint32_t count;       /* insn_range, q */
	uint32_t repeats;     /* insn_range, branch_run */
	uint32_t opcode;      /* insn, insn_range */
	uint32_t class_flags; /* insn, insn_range, branch_run */
	uint32_t context_id;  /* context */
	uint32_t vmid;        /* context */
	uint16_t number;      /* exception */
	uint8_t id;
	uint8_t kind;         /* enum etmkit_elem_kind */
	uint8_t isa;
	uint8_t size;
	uint8_t flags;
	uint8_t reason;       /* trace_on: reason; gap, no_image: enum
				 etmkit_loss; transaction: enum etmkit_txn */
	uint8_t space;        /* no_image */
	uint8_t ns;           /* context */
	uint8_t hyp;
	uint8_t el;           /* context; instrumentation */
	uint8_t aarch64;
	uint8_t sec;
	uint8_t tag;          /* data */
	uint8_t half;
	uint8_t bits;         /* event */
	uint8_t resume;       /* exception */
	uint8_t reserved[2];   /* 0: the row has no padding (a dtype with
				 padding loses it in np.concatenate) */
};

/* Raw bytes kept per packet (the most any protocol stores). */
#define EK_PKT_BYTES 32

/* One packet record, any protocol: PACKET_DTYPE. */
struct ek_packet_row {
	uint64_t offset;
	uint32_t length;      /* bytes in the packet (or unsynced run) */
	int16_t error;        /* 0, or a negated etmkit_error */
	uint8_t id;
	uint8_t proto;        /* enum etmkit_protocol */
	uint8_t type;         /* the protocol's packet type */
	uint8_t size;         /* bytes stored in raw */
	uint8_t raw[EK_PKT_BYTES];
	uint8_t reserved[6];   /* 0 */
};

/* Rows per array by default: 8192 blocks are 384 KiB, written while
 * they stay in a core's L2 cache (bench/bench_python.py: 8192 rows were
 * about 10% faster than 65536 on the Juno blocks, whose arrays of 3 MiB
 * spill to L3 as they are written). */
#define EK_BATCH_DEFAULT 8192

enum ek_rows {
	ek_rows_block = 0,
	ek_rows_insn,
	ek_rows_elem,
	ek_rows_packet,
	ek_rows_count
};

/* rows.c: the dtypes (borrowed references, built at module init). */
int ek_rows_init(PyObject *module);
PyObject *ek_rows_descr(enum ek_rows rows);
size_t ek_rows_size(enum ek_rows rows);
/* "blocks", "instructions", "elements", "packets": the enum value, or -1
 * with etmkit.Error (usage) raised. */
int ek_rows_parse(const char *what);

/* ---- The batch filler (fill.c) ------------------------------------------
 * Rows go into arrays of @batch rows each (grown as rows come); a full
 * array is appended to a list of ready arrays, the last one is cut to its
 * rows at the end. No
 * Python call is made per element: one array allocation per batch. */
struct ek_fill {
	enum ek_rows rows;
	size_t batch;         /* rows per array */
	PyObject *cur;        /* the array being filled, or NULL */
	char *data;           /* its rows */
	size_t n;             /* rows written in it */
	size_t cap;           /* rows it has room for (up to batch) */
	PyObject *ready;      /* list of full arrays */
	Py_ssize_t head;      /* the first not yet taken */
	int failed;           /* a Python error is set (allocation) */
};

int ek_fill_init(struct ek_fill *f, enum ek_rows rows, size_t batch);
void ek_fill_free(struct ek_fill *f);
/* The library's etmkit_elems_fn: elements of trace source @id. Rows for
 * the filler's kind; others skipped. Returns 0 or -1 (Python error set,
 * f->failed). */
int ek_fill_elems(void *ctx, uint8_t id, const struct etmkit_elem *e,
		  size_t n);
/* The library's etmkit_packet_fn. */
int ek_fill_packet(void *ctx, uint8_t id, enum etmkit_protocol proto,
		   const void *packet);
/* The array being filled, cut to its rows, moves to the ready list. */
int ek_fill_flush(struct ek_fill *f);
/* The first ready array (a new reference), or NULL with no error set
 * when there is none. */
PyObject *ek_fill_pop(struct ek_fill *f);

/* ---- Errors (module.c) -------------------------------------------------- */
extern PyObject *ek_error;
/* Raise etmkit.Error(@msg) with .exit_class @exit_class; returns NULL. */
PyObject *ek_raise(int exit_class, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The library's error @err (negated etmkit_error) with @what. */
PyObject *ek_raise_lib(int err, const char *what);

/* ---- Streams (stream.c) ---------------------------------------------------
 * An iterator over arrays: a source decodes a step at a time into the
 * filler; the iterator gives the ready arrays, stepping while there are
 * none. */
struct ek_source {
	/* Decode a step: 0 more to come, 1 at the end (all delivered), or
	 * -1 with a Python error set. */
	int (*step)(struct ek_source *src, struct ek_fill *f);
	void (*free)(struct ek_source *src);
};

extern PyTypeObject ek_stream_type;
/* A new stream over @src (taken: freed with the stream). */
PyObject *ek_stream_new(struct ek_source *src, enum ek_rows rows,
			size_t batch);

/* ---- Partial profiles (part.c) ------------------------------------------ */
extern PyTypeObject ek_profile_type;
struct profile_part;
/* A Profile owning @pp (freed on failure). */
PyObject *ek_profile_new(struct profile_part *pp);
/* The part of Profile @o (borrowed). */
const struct profile_part *ek_profile_part(PyObject *o);

/* ---- The CLI core (cli.c) ------------------------------------------------ */
PyObject *ek_cli_part_make(PyObject *self, PyObject *args);
PyObject *ek_cli_part_write(PyObject *self, PyObject *args);
PyObject *ek_cli_inputs_expand(PyObject *self, PyObject *arg);
/* _cli_stream(cmd, argv, rows, batch): a Stream over cli_trace_*. */
PyObject *ek_cli_stream(PyObject *self, PyObject *args);
PyObject *ek_cli_option_takes_value(PyObject *self, PyObject *args);

/* ---- The library's own session over a raw buffer (rawsrc.c) ---------- */
PyObject *ek_raw_stream(PyObject *self, PyObject *args, PyObject *kw);

#endif /* ETMKIT_PY_EXT_H */
