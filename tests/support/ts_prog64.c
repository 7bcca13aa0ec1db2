/* Test support: a random A64 program (ts_prog64.h). */
#include "ts_prog64.h"

#include <stdlib.h>
#include <string.h>

const uint64_t ts_prog64_bases[6] = {
	TS_PROG64_BASE, 0x50000ull, 0x60000ull, 0x12340000ull,
	0x100040000ull, 0xffff800000040000ull,
};

static void *alloc(size_t n)
{
	void *p = calloc(n, 1);

	if (!p)
		abort();
	return p;
}

void ts_prog64_free(struct ts_prog64 *p)
{
	free(p->bytes);
	free(p->kind);
	free(p->target);
	memset(p, 0, sizeof(*p));
}

void ts_prog64_make(struct ts_prog64 *p, const struct ts_prog64_opts *o)
{
	const uint64_t end = TS_PROG64_BASE + 4ull * o->n;

	ts_prog64_free(p);
	p->n = o->n;
	p->bytes = alloc(4 * (size_t)o->n);
	p->kind = alloc(o->n);
	p->target = alloc(o->n * sizeof(*p->target));
	for (unsigned i = 0; i < o->n; i++) {
		uint64_t a = TS_PROG64_BASE + 4ull * i, t;
		unsigned r = o->rnd(o->rnd_ctx) % 100, k = TS_K_NOP;
		int64_t off;
		uint32_t op;

		for (unsigned m = 0; m < o->nmix; m++)
			if (r < o->mix[m].upto) {
				k = o->mix[m].kind;
				break;
			}
		if (i == o->n - 1)
			k = TS_K_B; /* never run off the end */
		/* Direct targets: near (short addresses), mostly forward
		 * so that walks do not stay in loops, or anywhere. */
		if (o->rnd(o->rnd_ctx) % 8)
			t = a + 4 * ((int64_t)(o->rnd(o->rnd_ctx) % 64) - 8);
		else
			t = TS_PROG64_BASE + 4ull * (o->rnd(o->rnd_ctx) % o->n);
		if ((k == TS_K_B || k == TS_K_BL) && t <= a)
			t = a + 4 * (1 + o->rnd(o->rnd_ctx) % 64); /* no loops of B */
		if (t < TS_PROG64_BASE || t >= end)
			t = TS_PROG64_BASE;
		off = (int64_t)(t - a) / 4;
		switch (k) {
		case TS_K_ADD: op = 0x91000400u; break; /* add x0, x0, #1 */
		case TS_K_LDR: op = 0xf9400020u; break; /* ldr x0, [x1] */
		case TS_K_B: op = 0x14000000u | (uint32_t)(off & 0x3ffffff); break;
		case TS_K_BL: op = 0x94000000u | (uint32_t)(off & 0x3ffffff); break;
		case TS_K_BCOND:
			op = 0x54000000u | (uint32_t)(off & 0x7ffff) << 5;
			if (o->bcond_rnd)
				op |= o->rnd(o->rnd_ctx) % 14;
			break;
		case TS_K_CBZ: op = 0xb4000000u | (uint32_t)(off & 0x7ffff) << 5; break;
		case TS_K_CBNZ: op = 0x35000001u | (uint32_t)(off & 0x7ffff) << 5; break;
		case TS_K_TBZ: /* tbz/tbnz w1, #3 */
			op = 0x36180001u | (o->rnd(o->rnd_ctx) % 2) << 24 |
			     (uint32_t)(off & 0x3fff) << 5;
			break;
		case TS_K_RET: op = 0xd65f03c0u; break;
		case TS_K_BR: op = 0xd61f0000u; break;  /* br x0 */
		case TS_K_BLR: op = 0xd63f0020u; break; /* blr x1 */
		case TS_K_ERET: op = 0xd69f03e0u; break;
		case TS_K_ISB: op = 0xd5033fdfu; break;
		case TS_K_WFI: op = 0xd503207fu; break;
		case TS_K_WFE: op = 0xd503205fu; break;
		case TS_K_TSTART: op = 0xd5233060u; break; /* tstart x0 */
		default: op = 0xd503201fu; break; /* nop */
		}
		p->kind[i] = (uint8_t)k;
		p->target[i] = t;
		ts_a64_put(p->bytes + 4 * (size_t)i, op);
	}
}
