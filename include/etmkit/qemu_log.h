/* etmkit: execution records from QEMU user-mode logs.
 *
 * Layer: encode (src/encode/): an exec.h record source.
 *
 * Turns the log of a program run under qemu-aarch64 or qemu-arm into an
 * execution record (exec.h), one struct exec_rec at a time, in memory that
 * depends on the amount of distinct code translated, not on the log's
 * length (logs of many GB can be read from a pipe). docs/qemu-log.md
 * describes the log lines read and how each item is derived.
 *
 * Two kinds of log are read; the kind is found from the content:
 * - block mode: `-d in_asm,exec,nochain`. "IN:" listings give each
 *   translated block's instructions once; "Trace" lines give every
 *   execution of a block. Each execution is expanded into the block's
 *   instructions. A block's last instruction, when it is a branch, is
 *   taken when the next block executed does not start at its fall-through
 *   address. The condition of a conditional non-branch instruction is not
 *   in this log: such instructions are recorded as passed.
 * - state mode: `-singlestep -d in_asm,exec,cpu,nochain` (or without
 *   exec): the CPU state (NZCV, and the IT state of AArch32) is dumped
 *   before every block of one instruction, and each instruction's
 *   condition is evaluated from it (EXEC_F_COND_FAIL).
 *
 * The instruction set of a block comes from the logged state: the TB flags
 * of "Trace" lines (AArch64: bit 0 of the flags; Thumb: bit 23 of cs_base
 * in QEMU 7.2), or the PSR of a CPU dump (T, bit 5), checked against the
 * opcode layout of the listing (halfwords are Thumb).
 *
 * The record starts with an exec_context item (el 0, Non-secure). A
 * system call (SVC) is followed by an exec_exception item (exec_exc_call,
 * addr = the return address) and an exec_gap item: the kernel is not
 * traced. Any other discontinuity that no branch explains (a signal
 * delivered, a block that stopped early) is an exec_gap item before the
 * next instruction; after BKPT/BRK or an undefined instruction it is
 * preceded by an exec_exception item (exec_exc_debug, exec_exc_undef).
 */
#ifndef ETMKIT_QEMU_LOG_H
#define ETMKIT_QEMU_LOG_H

#include "etmkit/common.h"
#include "etmkit/exec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* qemu_log_config.flags */
#define QEMU_LOG_F_NO_CONTEXT (1u << 0) /* no exec_context item at the start */
#define QEMU_LOG_F_TB_BITS    (1u << 1) /* use thumb_bit and a64_bit below
					   instead of QEMU 7.2's */
#define QEMU_LOG_F_DATA       (1u << 2) /* state mode, A32/T32: exec_data
					   items of loads and stores, from
					   the CPU dumps (docs/qemu-log.md) */

struct qemu_log_config {
	size_t size;       /* sizeof(struct qemu_log_config) */
	uint32_t flags;    /* QEMU_LOG_F_* */
	uint8_t thumb_bit; /* QEMU_LOG_F_TB_BITS: bit of a "Trace" line's
			      cs_base that is the Thumb state (7.2: 23) */
	uint8_t a64_bit;   /* QEMU_LOG_F_TB_BITS: bit of a "Trace" line's
			      flags that is the AArch64 state (7.2: 0) */
};

/* The kind of log found (qemu_log_stats.mode). */
enum qemu_log_mode {
	qemu_log_mode_unknown = 0, /* nothing executed yet */
	qemu_log_mode_block,       /* "Trace" lines, no CPU state */
	qemu_log_mode_state        /* CPU state dumped before each block */
};

/* Counters of what has been read so far. */
struct qemu_log_stats {
	uint64_t lines;    /* log lines read */
	uint64_t blocks;   /* block executions expanded */
	uint64_t insns;    /* instruction items returned */
	uint64_t gaps;     /* gap items returned */
	uint64_t tbs;      /* distinct translated blocks held */
	uint32_t mode;     /* enum qemu_log_mode */
	uint64_t data;     /* QEMU_LOG_F_DATA: exec_data items returned */
	uint64_t data_unknown; /* QEMU_LOG_F_DATA: loads/stores executed
				  left without exec_data items: their
				  transfers cannot be derived exactly */
};

struct qemu_log_reader;

/* A reader of the log in @file (a FILE *, opened by the caller and read
 * sequentially to its end; it may be a pipe). @cfg may be NULL for the
 * defaults. Returns 0 and *@out, or -etmkit_err_invalid (NULL @out or
 * @file, @cfg->size too small, a bit number above 63),
 * -etmkit_err_nomem. */
int qemu_log_reader_alloc(struct qemu_log_reader **out, void *file,
			  const struct qemu_log_config *cfg);

/* The next item of the record into *@r. Returns 1, 0 at the end of the
 * log, or a negated error with *@diag (may be NULL) holding the log line
 * and a message:
 * -etmkit_err_format: a malformed line (an instruction listing or
 *   "Trace" line that cannot be read, a block executed whose listing is
 *   not in the log, the logged state contradicting the listing's
 *   instruction set, an opcode whose size disagrees with insn_decode);
 * -etmkit_err_unsupported: a log recorded without `nochain` ("Linking
 *   TBs" lines), "Trace" lines of a second CPU (a multi-threaded
 *   program), a block QEMU could not disassemble ("OBJD-T" hex dumps);
 * -etmkit_err_io: reading @file failed;
 * -etmkit_err_nomem; -etmkit_err_invalid: NULL @rd or @r.
 * After an error the reader only returns that error again. */
int qemu_log_next(struct qemu_log_reader *rd, struct exec_rec *r,
		  struct exec_diag *diag);

/* Counters so far into *@st. Returns 0 or -etmkit_err_invalid. */
int qemu_log_reader_stats(const struct qemu_log_reader *rd,
			  struct qemu_log_stats *st);

void qemu_log_reader_free(struct qemu_log_reader *rd);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_QEMU_LOG_H */
