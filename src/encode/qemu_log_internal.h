/* The QEMU log reader's state (internal), shared by qemu_log.c (line
 * input, execution events, the API) and qemu_log_blocks.c (translated
 * blocks: their listings, classification and hash table). */
#ifndef ETMKIT_ENCODE_QEMU_LOG_INTERNAL_H
#define ETMKIT_ENCODE_QEMU_LOG_INTERNAL_H

#include "etmkit/qemu_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/insn.h"
#include "common/text.h" /* hexval */

#define QL_BUF_SIZE (1u << 20)
#define QL_QUEUE    32         /* pending items: power of two */
#define QL_NO_COND  0xffu

/* What the importer must know about an instruction beyond its class. */
enum ql_kind {
	ql_k_plain = 0,
	ql_k_svc,   /* system call: the kernel runs untraced after it */
	ql_k_bkpt,  /* BKPT, BRK: SIGTRAP when it executes */
	ql_k_undef  /* UDF or undefined: SIGILL when it executes */
};

struct ql_insn {
	uint64_t addr;
	uint64_t target; /* direct branch */
	uint32_t opcode;
	uint16_t flags;  /* EXEC_F_BRANCH, EXEC_F_INDIRECT */
	uint8_t size;
	uint8_t kind;    /* enum ql_kind */
	uint8_t bcond;   /* NZCV condition of a branch's encoding (A32 cond,
			    T32 B<c>, A64 B.cond), QL_NO_COND if none */
	uint8_t acond;   /* A32 cond field of any instruction, else
			    QL_NO_COND */
};

struct ql_tb {
	uint64_t pc;
	uint64_t cs_base;
	uint32_t flags;
	uint32_t first; /* index in the instruction pool */
	uint32_t n;
	uint32_t cap;   /* pool slots owned, reused by a re-translation */
	uint8_t isa;
};

/* An instruction of a listing not yet bound to a block. */
struct ql_raw {
	uint64_t addr;
	uint32_t opcode; /* word, halfword, or first << 16 | second */
	uint8_t size;
	uint8_t halfwords; /* listed as T32 halfwords */
};

/* One execution of a block: a "Trace" line, a CPU dump, or both. */
struct ql_event {
	int active;
	int has_trace;
	int has_state;  /* a dump belongs to it */
	int pc_known;
	int psr_known;
	uint64_t pc;
	uint64_t cs_base;
	uint32_t flags;
	uint32_t psr;   /* CPSR or PSTATE */
	uint8_t trace_isa;
	uint8_t state_isa;
	uint64_t line;
	uint32_t regs_mask; /* A32 dump: R00-R15 read (bit n) */
	uint32_t regs[16];
};

/* The last instruction of the previous block, waiting for its successor. */
struct ql_last {
	int valid;
	int cond_fail;  /* from the CPU state: its condition failed */
	int cond_pass;  /* from the CPU state: its condition passed */
	uint8_t isa;
	struct ql_insn in;
	int regs_ok;    /* state before it: a full A32 dump, one-insn block */
	uint32_t psr;
	uint32_t regs[16];
};

/* A data transfer derived from the CPU dumps (qemu_log_data.c). */
#define QL_XFER_MAX 16
struct ql_xfer {
	uint32_t addr;
	uint32_t value;
	uint8_t size;
	uint8_t store;
};

struct qemu_log_reader {
	FILE *file;
	struct qemu_log_config cfg;
	int err;
	struct exec_diag diag;

	/* line input */
	char *buf;
	size_t pos, end;
	int eof;
	int skip_rest; /* the previous line was cut: drop its rest */
	uint64_t lineno;

	/* translated blocks */
	struct ql_tb *tbs;
	size_t ntbs, cap_tbs;
	uint32_t *hash;    /* tb index + 1, 0 = empty */
	size_t hash_size;  /* power of two */
	struct ql_insn *pool;
	size_t npool, cap_pool;

	/* the listing being read or waiting for its block's execution */
	struct ql_raw *raw;
	size_t nraw, cap_raw;
	int in_listing;
	int listing_ready; /* a complete listing waits for its execution */
	int listing_bad;   /* QEMU could not disassemble all of it */
	uint64_t listing_line;

	struct ql_event ev;
	struct ql_last last;

	/* items out */
	struct exec_rec queue[QL_QUEUE];
	unsigned qhead, qlen;
	uint32_t run_tb;    /* block being returned, when run_left */
	uint32_t run_i;
	uint32_t run_left;  /* instructions before its last one */
	int run_first_fail; /* state mode: first instruction's condition */
	int run_first_pass;
	int run_regs_ok;    /* the running block's dump: R00-R15 and PSR */
	uint32_t run_psr;
	uint32_t run_regs[16];
	int done;

	uint8_t thumb_bit, a64_bit;
	int cpu_seen;       /* the CPU (thread) of the "Trace" lines */
	uint64_t cpu;
	struct qemu_log_stats stats;
};


/* ---- Shared between the files (defined where named) ---- */

/* Record error @err at @line with a message; returns @err. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
int ql_fail(struct qemu_log_reader *rd, int err, uint64_t line,
	    const char *fmt, ...);
int ql_parse_hex(const char **p, const char *end, uint64_t *v);
const char *ql_isa_text(unsigned isa);
struct ql_tb *ql_tb_find(struct qemu_log_reader *rd, uint64_t pc,
			 uint64_t cs_base, uint32_t flags);
int ql_tb_add(struct qemu_log_reader *rd, uint64_t pc, uint64_t cs_base,
	      uint32_t flags, struct ql_tb **out);
int ql_bind_listing(struct qemu_log_reader *rd, struct ql_tb *tb,
		    enum etmkit_isa isa);
int ql_listing_insn(struct qemu_log_reader *rd, const char *s,
		    size_t len);
/* The transfers of the A32/T32 instruction @opcode (@size bytes) from the
 * registers @before (R15 = its address, @psr its CPSR) and @after (R15 =
 * the value a load to PC loaded: next address | Thumb). Returns how many
 * are in @out (0: it makes none), or -1: it makes some that cannot be
 * derived exactly. */
int ql_data_transfers(uint8_t isa, uint32_t opcode, uint8_t size,
		      const uint32_t before[16], uint32_t psr,
		      const uint32_t after[16], struct ql_xfer out[QL_XFER_MAX]);

#endif
