/* Test support: random A32/T32 programs (ts_prog32.h). */
#include "ts_prog32.h"

#include <stdlib.h>
#include <string.h>

#include "etmkit/insn.h"

struct gen {
	struct ts_prog32 *p;
	const struct ts_prog32_opts *o;
};

static uint32_t below(const struct gen *q, uint32_t n)
{
	return q->o->rnd(q->o->rnd_ctx) % n;
}

static void st16(struct ts_region *g, uint32_t a, uint16_t v)
{
	g->mem[a - g->base] = (uint8_t)v;
	g->mem[a - g->base + 1] = (uint8_t)(v >> 8);
}

static void st32(struct ts_region *g, uint32_t a, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		g->mem[a - g->base + (uint32_t)i] = (uint8_t)(v >> (8 * i));
}

/* A Thumb BL (T1) or BLX (T2, to ARM) at @a to @t (ARMv7-AR A8.8.25). */
static void st_bl(struct ts_region *g, uint32_t a, uint32_t t, int blx)
{
	uint32_t pc = blx ? (a + 4) & ~3u : a + 4;
	uint32_t off = t - pc;
	uint32_t s = (off >> 24) & 1, i1 = (off >> 23) & 1, i2 = (off >> 22) & 1;
	uint32_t j1 = (~(i1 ^ s)) & 1, j2 = (~(i2 ^ s)) & 1;
	uint16_t hw1 = (uint16_t)(0xf000 | s << 10 | ((off >> 12) & 0x3ff));
	uint16_t hw2 = (uint16_t)((blx ? 0xc000 : 0xd000) | j1 << 13 | j2 << 11 |
				  ((off >> 1) & 0x7ff));

	if (blx)
		hw2 &= 0xfffe;
	st16(g, a, hw1);
	st16(g, a + 2, hw2);
}

static const struct ts_region *region_near(const struct ts_prog32 *p,
					   uint8_t isa, uint32_t a,
					   uint32_t range)
{
	for (unsigned i = 0; i < p->n; i++) {
		const struct ts_region *g = &p->r[i];

		if (g->isa == isa && (g->base - a < range || a - g->base < range))
			return g;
	}
	return NULL;
}

static uint32_t pick(const struct gen *q, const struct ts_region *g)
{
	return g->starts[below(q, g->nstarts)];
}

/* A start of @g within [lo, hi], or 0. */
static uint32_t pick_in(const struct gen *q, const struct ts_region *g,
			uint32_t lo, uint32_t hi)
{
	for (int tries = 0; tries < 16; tries++) {
		uint32_t t = pick(q, g);

		if (t >= lo && t <= hi)
			return t;
	}
	return 0;
}

static void gen_arm(const struct gen *q, struct ts_region *g)
{
	uint32_t end = g->base + g->size - 4;

	for (uint32_t a = g->base; a < end; a += 4) {
		uint32_t k = below(q, 100);
		uint32_t cond = below(q, 4) ? 14 : below(q, 14);
		uint32_t v = cond << 28 | 0x02800001; /* ADD<c> r0, r0, #1 */

		if (k < 12) { /* B<c> / BL<c> */
			uint32_t t = pick(q, g);

			v = cond << 28 | 0x0a000000 | (k & 1) << 24 |
			    (((t - (a + 8)) >> 2) & 0xffffff);
		} else if (k < 18) { /* BX / BLX (register) */
			v = (k & 1 ? 0xe12fff30u : 0xe12fff10u) | below(q, 13);
		} else if (k < 21) { /* LDR pc, [sp], #4 */
			v = 0xe49df004u;
		} else if (q->o->data && k >= 25 && k < 37) {
			/* loads and stores (ARMv7-AR A8.8.62 ff.) */
			static const uint32_t ops[8] = {
				0x05910000, /* LDR<c> r0, [r1, #imm] */
				0x05810000, /* STR<c> r0, [r1, #imm] */
				0x05d10000, /* LDRB<c> r0, [r1, #imm] */
				0x01c100b0, /* STRH<c> r0, [r1] */
				0x08910000, /* LDM<c> r1, {r4-r7 subset} */
				0x092d0000, /* PUSH<c> {r4-r7 subset} */
				0x01c120d0, /* LDRD<c> r2, r3, [r1] */
				0x01c120f0, /* STRD<c> r2, r3, [r1] */
			};
			uint32_t op = ops[k & 7];

			v = cond << 28 | op;
			if ((k & 7) < 3)
				v |= below(q, 64) * 4;
			else if ((k & 7) == 4 || (k & 7) == 5)
				v |= (1 + below(q, 15)) << 4;
		} else if (k < 25) { /* BLX (immediate) to Thumb */
			const struct ts_region *tg =
				region_near(q->p, etmkit_isa_thumb, a, 0x1000000);

			if (tg) {
				uint32_t off = pick(q, tg) - (a + 8);

				v = 0xfa000000u | ((off >> 1) & 1) << 24 |
				    ((off >> 2) & 0xffffff);
			}
		} else if (q->o->isb && k < 27) { /* ISB */
			v = 0xf57ff06fu;
		}
		st32(g, a, v);
	}
	/* Back to the start: B */
	st32(g, end, 0xea000000u | (((g->base - (end + 8)) >> 2) & 0xffffff));
}

static void gen_thumb(const struct gen *q, struct ts_region *g)
{
	uint32_t end = g->base + g->size - 4, a;
	uint8_t kind[TS_REGION_MAX / 2];
	uint32_t n = 0;

	/* Lay out the sizes first, so branches can target any start. */
	for (a = g->base; a < end;) {
		uint32_t k = below(q, 100);

		if (k >= 60 && k < 72 && a + 4 <= end) { /* 32-bit */
			kind[n] = (uint8_t)k;
			g->starts[n++] = a;
			a += 4;
		} else if (k >= 90 && a + 10 <= end) { /* IT block */
			uint32_t m = 1 + below(q, 4);

			kind[n] = (uint8_t)(90 + m);
			g->starts[n++] = a;
			a += 2;
			for (uint32_t i = 0; i < m; i++) {
				kind[n] = 0;
				g->starts[n++] = a;
				a += 2;
			}
		} else {
			kind[n] = (uint8_t)(k >= 60 && k < 72 ? 0 : k >= 90 ? 0 : k);
			g->starts[n++] = a;
			a += 2;
		}
	}
	g->nstarts = n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = kind[i];
		uint16_t v = (uint16_t)(0x2000 | below(q, 256)); /* MOVS r0, #imm */

		a = g->starts[i];
		if (k >= 60 && k < 66) { /* BL */
			st_bl(g, a, pick(q, g), 0);
			continue;
		}
		if (k >= 66 && k < 69) { /* BLX (immediate) to ARM */
			const struct ts_region *ag =
				region_near(q->p, etmkit_isa_arm, a, 0x800000);

			if (ag) {
				st_bl(g, a, pick(q, ag), 1);
				continue;
			}
		}
		if (k >= 60 && k < 72) { /* ADD.W r0, r0, #1 */
			st16(g, a, 0xf100);
			st16(g, a + 2, 0x0001);
			continue;
		}
		if (k > 90) { /* IT<x> <cond>: mask with m instructions */
			uint32_t m = k - 90, c = below(q, 14);
			uint32_t mask = (1u << (4 - m)) | (below(q, 16) << (5 - m));

			v = (uint16_t)(0xbf00 | c << 4 | (mask & 0xf));
		} else if (k >= 30 && k < 38) { /* B<c> (T1), +-256 */
			uint32_t t = pick_in(q, g, a + 4 - 256, a + 4 + 254);

			if (t)
				v = (uint16_t)(0xd000 | below(q, 14) << 8 |
					       (((t - (a + 4)) >> 1) & 0xff));
		} else if (k >= 38 && k < 44) { /* B (T2), +-2 KB */
			uint32_t t = pick_in(q, g, a + 4 - 2048, a + 4 + 2046);

			if (t)
				v = (uint16_t)(0xe000 |
					       (((t - (a + 4)) >> 1) & 0x7ff));
		} else if (k >= 44 && k < 50) { /* BX / BLX (register) */
			v = (uint16_t)((k & 1 ? 0x4780 : 0x4700) |
				       below(q, 15) << 3);
		} else if (k >= 50 && k < 53) { /* POP {pc} */
			v = 0xbd00;
		} else if (q->o->cbz && k >= 53 && k < 56) { /* CBZ r0, forward */
			uint32_t t = pick_in(q, g, a + 4, a + 4 + 126);

			if (t)
				v = (uint16_t)(0xb100 |
					       (((t - (a + 4)) >> 6) & 1) << 9 |
					       (((t - (a + 4)) >> 1) & 0x1f) << 3);
		} else if (k >= 53 && k < 60) {
			v = 0x3101; /* ADDS r1, #1 */
		} else if (q->o->data && k >= 72 && k < 84) {
			/* loads and stores (ARMv7-AR A8.8.63 ff.) */
			static const uint16_t ops[6] = {
				0x6808, /* LDR r0, [r1, #imm5 * 4] */
				0x6008, /* STR r0, [r1, #imm5 * 4] */
				0x7808, /* LDRB r0, [r1, #imm5] */
				0x8008, /* STRH r0, [r1, #imm5 * 2] */
				0xc900, /* LDM r1!, {r4-r7 subset} */
				0xb400, /* PUSH {r4-r7 subset} */
			};
			uint32_t j = k % 6;

			v = ops[j];
			v |= (uint16_t)(j < 4 ? below(q, 32) << 6 :
					(1 + below(q, 15)) << 4);
		}
		st16(g, a, v);
	}
	st_bl(g, end, g->base, 0); /* back to the start */
	g->starts[g->nstarts++] = end;
}

static void region_init(struct ts_region *g, uint32_t base, uint8_t isa,
			uint32_t size)
{
	g->base = base;
	g->isa = isa;
	g->size = size;
	g->mem = calloc(size, 1);
	g->starts = calloc(size / 2, sizeof(*g->starts));
	if (!g->mem || !g->starts)
		abort();
}

void ts_prog32_make(struct ts_prog32 *p, const struct ts_prog32_opts *o)
{
	struct gen q = { p, o };
	uint32_t size = o->region_bytes;

	if (size > TS_REGION_MAX || size < 16 || size % 4)
		abort();
	p->r = calloc(2 * (size_t)o->nbase + 1, sizeof(*p->r));
	if (!p->r)
		abort();
	p->n = 0;
	for (unsigned i = 0; i < o->nbase; i++) {
		if (o->arm_base)
			region_init(&p->r[p->n++], o->arm_base[i],
				    etmkit_isa_arm, size);
		if (o->thumb_base)
			region_init(&p->r[p->n++], o->thumb_base[i],
				    etmkit_isa_thumb, size);
	}
	/* Every start first: BLX (immediate) targets the other set. ARM
	 * instructions are words. */
	for (unsigned i = 0; i < p->n; i++)
		if (p->r[i].isa == etmkit_isa_arm)
			for (uint32_t a = 0; a < size; a += 4)
				p->r[i].starts[p->r[i].nstarts++] =
					p->r[i].base + a;
	for (unsigned i = 0; i < p->n; i++)
		if (p->r[i].isa == etmkit_isa_thumb)
			gen_thumb(&q, &p->r[i]);
	for (unsigned i = 0; i < p->n; i++)
		if (p->r[i].isa == etmkit_isa_arm)
			gen_arm(&q, &p->r[i]);
}

void ts_prog32_free(struct ts_prog32 *p)
{
	for (unsigned i = 0; i < p->n; i++) {
		free(p->r[i].mem);
		free(p->r[i].starts);
	}
	free(p->r);
	memset(p, 0, sizeof(*p));
}

const struct ts_region *ts_region_of(const struct ts_prog32 *p, uint32_t a)
{
	for (unsigned i = 0; i < p->n; i++)
		if (a - p->r[i].base < p->r[i].size)
			return &p->r[i];
	return NULL;
}
