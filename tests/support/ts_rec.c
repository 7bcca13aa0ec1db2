/* Test support: execution records built in code (ts_rec.h). */
#include "ts_rec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/qemu_log.h"

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

struct code_byte {
	uint64_t addr;
	uint8_t b;
};

static int code_byte_cmp(const void *x, const void *y)
{
	const struct code_byte *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

int ts_rec_code(struct ts_rec_code *c, const struct ts_rec *rc)
{
	struct code_byte *v = malloc(sizeof(*v) * (4 * rc->n + 1));
	size_t n = 0, m = 0, run = 0;

	if (!v || image_alloc(&c->img))
		abort();
	for (size_t i = 0; i < rc->n; i++) {
		uint8_t b[4];
		size_t k = exec_insn_bytes(&rc->r[i], b);

		for (size_t j = 0; j < k; j++) {
			v[n].addr = rc->r[i].addr + j;
			v[n++].b = b[j];
		}
	}
	qsort(v, n, sizeof(*v), code_byte_cmp);
	c->bytes = malloc(n + 1);
	if (!c->bytes)
		abort();
	/* one buffer per run of consecutive addresses */
	for (size_t i = 0; i < n; i++) {
		if (i && v[i].addr == v[i - 1].addr) {
			if (v[i].b != v[i - 1].b) {
				free(v);
				return -1;
			}
			continue;
		}
		if (m > run && v[i].addr != v[i - 1].addr + 1) {
			if (image_add_buffer(c->img, c->bytes + run, m - run,
					     v[i - 1].addr + 1 - (m - run), 0))
				abort();
			run = m;
		}
		c->bytes[m++] = v[i].b;
	}
	if (m > run && image_add_buffer(c->img, c->bytes + run, m - run,
					v[n - 1].addr + 1 - (m - run), 0))
		abort();
	free(v);
	return 0;
}

void ts_rec_code_free(struct ts_rec_code *c)
{
	image_free(c->img);
	free(c->bytes);
	memset(c, 0, sizeof(*c));
}

int ts_rec_read(const char *path, struct ts_rec *rc)
{
	FILE *f = fopen(path, "r");
	struct exec_rec r;
	struct exec_diag dg;
	int k = -1;

	if (!f)
		return -1;
	if (strstr(path, ".log")) {
		struct qemu_log_reader *rd;
		struct qemu_log_config qc = { .size = sizeof(qc) };

		if (!qemu_log_reader_alloc(&rd, f, &qc)) {
			while ((k = qemu_log_next(rd, &r, &dg)) == 1)
				*ts_rec_add(rc, r.kind) = r;
			qemu_log_reader_free(rd);
		}
	} else {
		struct exec_text_reader *rd;

		if (!exec_text_reader_alloc(&rd, f)) {
			while ((k = exec_text_next(rd, &r, &dg)) == 1)
				*ts_rec_add(rc, r.kind) = r;
			exec_text_reader_free(rd);
		}
	}
	fclose(f);
	return k == 0 ? 0 : -1;
}
