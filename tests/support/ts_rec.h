/* Test support: execution records (struct exec_rec, etmkit/exec.h) built
 * in code, one item at a time, for the encoders' tests and fuzz targets.
 * Aborts when memory runs out; never prints. */
#ifndef ETMKIT_TS_REC_H
#define ETMKIT_TS_REC_H

#include <stddef.h>
#include <stdint.h>

#include "etmkit/exec.h"
#include "etmkit/image.h"

/* A growing record: @n items at @r (malloc'd). Zero it to start. */
struct ts_rec {
	struct exec_rec *r;
	size_t n, cap;
};

/* A new item of @kind (enum exec_kind) at the end of @rc, every other
 * field 0. The pointer holds until the next ts_rec_add(). */
struct exec_rec *ts_rec_add(struct ts_rec *rc, uint8_t kind);

/* An instruction of @isa and @size bytes at @addr, opcode @op, flags
 * EXEC_F_*; @target in @tisa is set only when @flags has EXEC_F_TAKEN. */
struct exec_rec *ts_rec_insn(struct ts_rec *rc, uint8_t isa, uint8_t size,
			     uint64_t addr, uint32_t op, uint32_t flags,
			     uint64_t target, uint8_t tisa);

/* The code a record ran: an image mapping each instruction's bytes
 * (exec_insn_bytes()) at its address, for a decoder to walk. */
struct ts_rec_code {
	struct image *img;
	uint8_t *bytes;   /* what img maps (it does not copy) */
};

/* Build @c from @rc's instructions of 2 or 4 bytes. Returns 0, or -1 when
 * two instructions at one address differ. Free with ts_rec_code_free(). */
int ts_rec_code(struct ts_rec_code *c, const struct ts_rec *rc);
void ts_rec_code_free(struct ts_rec_code *c);

/* Append the items of the execution record (docs/exec-record.md) or QEMU
 * log (a name ending ".log") at @path to @rc. Returns 0, or -1 when the
 * file cannot be opened or read to its end. */
int ts_rec_read(const char *path, struct ts_rec *rc);

/* Free @rc's items and zero it. */
void ts_rec_free(struct ts_rec *rc);

/* One instruction item by value: @isa, @addr, @size, @flags, the rest 0
 * (for tests that hand items to an encoder one by one). */
struct exec_rec ts_insn(uint8_t isa, uint64_t addr, uint8_t size,
			uint32_t flags);

/* The context a record's exec_context items set, followed item by item:
 * EL, NS, context ID, VMID. */
struct ts_ctx {
	uint64_t el, ns, cid, vmid;
};

/* When @r is an exec_context item, take into @x the fields its flags
 * (EXEC_CTX_*) name; any other item leaves @x as it is. */
void ts_ctx_take(struct ts_ctx *x, const struct exec_rec *r);

/* @x as one number, el | ns << 2 | cid << 8 | vmid << 40, the context ID
 * 0 unless @cid_on, the VMID 0 unless @vmid_on (what a trace that carries
 * them or not tells a decoder). */
uint64_t ts_ctx_key(const struct ts_ctx *x, int cid_on, int vmid_on);

#endif
