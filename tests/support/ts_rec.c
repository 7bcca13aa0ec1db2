/* Test support: execution records built in code (ts_rec.h). */
#include "ts_rec.h"

#include <stdlib.h>
#include <string.h>

struct exec_rec *ts_rec_add(struct ts_rec *rc, uint8_t kind)
{
	if (rc->n == rc->cap) {
		rc->cap = rc->cap ? rc->cap * 2 : 256;
		rc->r = realloc(rc->r, rc->cap * sizeof(*rc->r));
		if (!rc->r)
			abort();
	}
	memset(&rc->r[rc->n], 0, sizeof(rc->r[0]));
	rc->r[rc->n].kind = kind;
	return &rc->r[rc->n++];
}

struct exec_rec *ts_rec_insn(struct ts_rec *rc, uint8_t isa, uint8_t size,
			     uint64_t addr, uint32_t op, uint32_t flags,
			     uint64_t target, uint8_t tisa)
{
	struct exec_rec *r = ts_rec_add(rc, exec_insn);

	r->isa = isa;
	r->size = size;
	r->addr = addr;
	r->opcode = op;
	r->flags = flags;
	if (flags & EXEC_F_TAKEN) {
		r->target = target;
		r->target_isa = tisa;
	}
	return r;
}

void ts_rec_free(struct ts_rec *rc)
{
	free(rc->r);
	memset(rc, 0, sizeof(*rc));
}

struct exec_rec ts_insn(uint8_t isa, uint64_t addr, uint8_t size,
			uint32_t flags)
{
	struct exec_rec r;

	memset(&r, 0, sizeof(r));
	r.kind = exec_insn;
	r.isa = isa;
	r.addr = addr;
	r.size = size;
	r.flags = flags;
	return r;
}

void ts_ctx_take(struct ts_ctx *x, const struct exec_rec *r)
{
	if (r->kind != exec_context)
		return;
	if (r->flags & EXEC_CTX_EL) {
		x->el = r->el;
		x->ns = r->ns;
	}
	if (r->flags & EXEC_CTX_CONTEXTID)
		x->cid = (uint32_t)r->value;
	if (r->flags & EXEC_CTX_VMID)
		x->vmid = r->vmid;
}

uint64_t ts_ctx_key(const struct ts_ctx *x, int cid_on, int vmid_on)
{
	return x->el | x->ns << 2 | (cid_on ? x->cid << 8 : 0) |
	       (vmid_on ? x->vmid << 40 : 0);
}
