/* etmkit: execution records, the input of the trace encoders.
 *
 * Layer: encode (src/encode/): the encoders' input.
 *
 * An execution record is what a core did, instruction by instruction: the
 * ground truth that etmkit's encoders (etm3_enc_*, ete_enc_*) turn into the
 * trace a trace unit would have emitted for it, so that a decode of that
 * trace can be checked against the record exactly. Records come from a
 * text file (docs/exec-record.md; exec_text_*) or from a QEMU log
 * (qemu_log_*), and are passed one struct exec_rec at a time, so a run of
 * any length is encoded in bounded memory.
 *
 * A record is a sequence of items in execution order: instructions, and
 * between them events (an exception taken, a gap in the trace, a change of
 * context, a timestamp).
 */
#ifndef ETMKIT_EXEC_H
#define ETMKIT_EXEC_H

#include "etmkit/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Items ---------------------------------------------------------------- */

enum exec_kind {
	exec_insn = 1,  /* an instruction (executed or condition-failed) */
	exec_exception, /* an exception was taken after the previous
			   instruction; the next item is its handler's first
			   instruction, or a gap when the handler is not
			   traced */
	exec_gap,       /* execution went on untraced (filtered out, trace
			   disabled); the next instruction restarts the trace */
	exec_context,   /* the context changed before the next instruction */
	exec_timestamp, /* the time at the next instruction */
	exec_data       /* a data transfer the previous instruction made:
			   a load, or a store (EXEC_D_STORE); one item per
			   transfer, in the order the instruction made them
			   (an LDM has one per register) */
};

/* exec_rec.flags of an instruction. */
#define EXEC_F_COND_FAIL (1u << 0) /* its condition failed: it did nothing
				      (ETMv3 traces an N atom) */
#define EXEC_F_BRANCH    (1u << 1) /* it may write the PC (insn.h's
				      INSN_F_BRANCH): a P0 instruction of
				      ETMv4/ETE, traced with an atom */
#define EXEC_F_INDIRECT  (1u << 2) /* with BRANCH: its target is not in the
				      opcode */
#define EXEC_F_TAKEN     (1u << 3) /* with BRANCH: it wrote the PC; the next
				      instruction is at target, in
				      target_isa */
#define EXEC_F_CYCLES    (1u << 4) /* cycles holds its cycle count */
#define EXEC_F_ISA_SWITCH (1u << 5) /* not a branch, yet the next
				      instruction is in another instruction
				      set (ThumbEE ENTERX/LEAVEX) */

/* exec_rec.flags of a data transfer. */
#define EXEC_D_STORE (1u << 0) /* a store (without it, a load) */

/* exec_rec.flags of a context change: which fields are given. */
#define EXEC_CTX_CONTEXTID (1u << 0)
#define EXEC_CTX_VMID      (1u << 1)
#define EXEC_CTX_EL        (1u << 2) /* el and the NS bit in ns */

/* Exception kinds (exec_rec.number of an exception), mapped by each
 * encoder to its protocol's exception numbers. */
enum exec_exc {
	exec_exc_reset = 0,
	exec_exc_undef,     /* undefined instruction */
	exec_exc_call,      /* SVC, HVC, SMC */
	exec_exc_pabort,    /* prefetch abort, instruction fault */
	exec_exc_dabort,    /* data abort, data fault */
	exec_exc_irq,
	exec_exc_fiq,
	exec_exc_debug,     /* breakpoint, BKPT/BRK */
	exec_exc_count
};

/* One item. Fields not listed for a kind are zero. */
struct exec_rec {
	uint8_t kind;       /* enum exec_kind */
	uint8_t isa;        /* insn: enum etmkit_isa */
	uint8_t size;       /* insn: bytes (2 or 4; Jazelle 1..); data: the
			       transfer's bytes, 1, 2, 4 or 8 */
	uint8_t target_isa; /* insn, TAKEN: the instruction set at target */
	uint32_t flags;     /* insn: EXEC_F_*; context: EXEC_CTX_*; data:
			       EXEC_D_* */
	uint64_t addr;      /* insn: its address; exception: the preferred
			       return address (where execution resumes when
			       the handler returns); data: the data address */
	uint64_t target;    /* insn, TAKEN: where the next instruction is */
	uint32_t opcode;    /* insn: as insn_info.opcode (A32/A64 the word,
			       T32 the halfword or first << 16 | second) */
	uint32_t cycles;    /* insn, EXEC_F_CYCLES: cycles it took */
	uint32_t number;    /* exception: enum exec_exc */
	uint32_t vmid;      /* context, EXEC_CTX_VMID */
	uint64_t value;     /* context: the context ID (EXEC_CTX_CONTEXTID);
			       timestamp: the time; data: the value loaded
			       or stored, as memory holds it read as a
			       little-endian number of size bytes (no sign
			       extension; the bits above size are 0) */
	uint8_t el;         /* context, EXEC_CTX_EL: exception level 0-3 */
	uint8_t ns;         /* context, EXEC_CTX_EL: 1 = Non-secure */
};

/* "reset", "undef", "call", ... ; NULL for an unknown kind. */
const char *exec_exc_name(enum exec_exc kind);

/* Write the instruction's bytes in memory order (little-endian; T32's
 * first halfword first) into @out (4 bytes room) and return the count
 * (its size), or 0 when @r is not an instruction of 2 or 4 bytes. */
size_t exec_insn_bytes(const struct exec_rec *r, uint8_t out[4]);

/* ---- Encoder output ------------------------------------------------------- */

/* Where an encoder writes its trace bytes: called with each full buffer
 * and the last part at finish. Returns 0, or a negated etmkit_error that
 * the encoder stops with and returns. */
typedef int (*exec_sink_fn)(void *ctx, const uint8_t *data, size_t len);

/* ---- The text form (docs/exec-record.md) -------------------------------- */

/* Where and why reading a record failed. */
struct exec_diag {
	uint64_t line;      /* 1-based line of the error, 0 if none */
	char message[160];
};

struct exec_text_reader;

/* Read records from a text @file (opened by the caller, read sequentially;
 * any length). Returns 0 or -etmkit_err_nomem / -etmkit_err_invalid. */
int exec_text_reader_alloc(struct exec_text_reader **out, void *file);
void exec_text_reader_free(struct exec_text_reader *rd);

/* The next item into *@r: returns 1, 0 at the end of the file, or
 * -etmkit_err_format (with *@diag filled) for a malformed line, or
 * -etmkit_err_io for a read error. */
int exec_text_next(struct exec_text_reader *rd, struct exec_rec *r,
		   struct exec_diag *diag);

/* The line of the item exec_text_next() returned last (1-based). */
uint64_t exec_text_line(const struct exec_text_reader *rd);

/* Format @r as one line of the text form (with its newline) into @buf of
 * @cap bytes; returns the length, or -etmkit_err_invalid when @r is not a
 * valid item or @cap is too small (128 bytes are always enough). */
int exec_text_format(char *buf, size_t cap, const struct exec_rec *r);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_EXEC_H */
