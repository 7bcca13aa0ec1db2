/* fuzz_encode: the code images (an A64 program, and A32/T32 regions from
 * tests/support/ts_prog32.h), the walks the input steers over them into
 * an execution record, and what the decode must give back for each
 * protocol. See fuzz_encode.c for the input's layout. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/etm3.h"
#include "etmkit/etm4.h"
#include "etmkit/exec.h"
#include "etmkit/flow.h"
#include "etmkit/image.h"
#include "etmkit/insn.h"
#include "etmkit/transport.h"

#include "ts_out.h"
#include "ts_prog32.h"
#include "ts_rec.h"

#include "fuzz_encode.h"

/* ---- A64 program (test_ete_enc.c's, smaller) -------------------------------- */

#define NOP 0xd503201fu
enum { K_NOP, K_ADD, K_LDR, K_B, K_BL, K_BCOND, K_CBZ, K_CBNZ, K_TBZ, K_RET,
       K_BR, K_BLR, K_ERET, K_ISB, K_WFI, K_WFE, K_TSTART };

static void st_le32(uint8_t *p, uint32_t v)
{
	for (int b = 0; b < 4; b++)
		p[b] = (uint8_t)(v >> (8 * b));
}

void prog64_make(struct prog64 *p, uint64_t seed, int ete)
{
	for (unsigned i = 0; i < PROG_N; i++) {
		uint64_t a = PROG_BASE + 4ull * i, t;
		unsigned r = rnd(&seed) % 100, k;
		int64_t off;
		uint32_t op;

		k = r < 40 ? K_NOP : r < 47 ? K_ADD : r < 50 ? K_LDR :
		    r < 56 ? K_B : r < 61 ? K_BL : r < 71 ? K_BCOND :
		    r < 74 ? K_CBZ : r < 76 ? K_CBNZ : r < 79 ? K_TBZ :
		    r < 83 ? K_RET : r < 87 ? K_BR : r < 90 ? K_BLR :
		    r < 91 ? K_ERET : r < 94 ? K_ISB : r < 96 ? K_WFI :
		    r < 97 ? K_WFE : r < 98 && ete ? K_TSTART : K_NOP;
		if (i == PROG_N - 1)
			k = K_B; /* never run off the end */
		if (rnd(&seed) % 8)
			t = a + 4 * ((int64_t)(rnd(&seed) % 64) - 8);
		else
			t = PROG_BASE + 4ull * (rnd(&seed) % PROG_N);
		if ((k == K_B || k == K_BL) && t <= a)
			t = a + 4 * (1 + rnd(&seed) % 64);
		if (t < PROG_BASE || t >= PROG_BASE + 4ull * PROG_N)
			t = PROG_BASE;
		off = (int64_t)(t - a) / 4;
		switch (k) {
		case K_ADD: op = 0x91000400u; break; /* add x0, x0, #1 */
		case K_LDR: op = 0xf9400020u; break; /* ldr x0, [x1] */
		case K_B: op = 0x14000000u | (uint32_t)(off & 0x3ffffff); break;
		case K_BL: op = 0x94000000u | (uint32_t)(off & 0x3ffffff); break;
		case K_BCOND:
			op = 0x54000000u | (uint32_t)(off & 0x7ffff) << 5 |
			     rnd(&seed) % 14;
			break;
		case K_CBZ: op = 0xb4000000u | (uint32_t)(off & 0x7ffff) << 5; break;
		case K_CBNZ: op = 0x35000001u | (uint32_t)(off & 0x7ffff) << 5; break;
		case K_TBZ: /* tbz/tbnz w1, #3 */
			op = 0x36180001u | (rnd(&seed) % 2) << 24 |
			     (uint32_t)(off & 0x3fff) << 5;
			break;
		case K_RET: op = 0xd65f03c0u; break;
		case K_BR: op = 0xd61f0000u; break;  /* br x0 */
		case K_BLR: op = 0xd63f0020u; break; /* blr x1 */
		case K_ERET: op = 0xd69f03e0u; break;
		case K_ISB: op = 0xd5033fdfu; break;
		case K_WFI: op = 0xd503207fu; break;
		case K_WFE: op = 0xd503205fu; break;
		case K_TSTART: op = 0xd5233060u; break; /* tstart x0 */
		default: op = NOP; break;
		}
		p->kind[i] = (uint8_t)k;
		p->target[i] = t;
		st_le32(p->bytes + 4 * i, op);
	}
}

/* The program is mapped at each of these bases, so that indirect branches
 * between them need every address form. */
const uint64_t bases[] = {
	PROG_BASE, 0x50000ull, 0x60000ull, 0x12340000ull, 0x100040000ull,
	0xffff800000040000ull,
};

/* ---- A32/T32 program (test_etm3_enc.c's, smaller) --------------------------- */

static uint32_t rnd_of(void *ctx)
{
	return rnd(ctx);
}

/* Regions (tests/support/ts_prog32.h) with ISB and CBZ, no loads or
 * stores. */
void prog32_make(struct ts_prog32 *p, uint64_t seed, int arm, int thumb)
{
	static const uint32_t arm_base[3] = { 0x00008000u, 0x02008000u,
					      0x92340000u };
	static const uint32_t thumb_base[3] = { 0x00400000u, 0x00480000u,
						0xc0000000u };
	struct ts_prog32_opts o = {
		.region_bytes = REGION_BYTES,
		.arm_base = arm ? arm_base : NULL,
		.thumb_base = thumb ? thumb_base : NULL,
		.nbase = 3,
		.isb = 1,
		.cbz = 1,
		.rnd = rnd_of,
		.rnd_ctx = &seed,
	};

	ts_prog32_free(p);
	ts_prog32_make(p, &o);
}

static const struct ts_region *region_of(const struct ts_prog32 *p,
					 uint32_t a)
{
	const struct ts_region *g = ts_region_of(p, a);

	if (!g)
		fail("walk: address 0x%x outside the image", a);
	return g;
}

/* ---- What the decode must give ---------------------------------------------- */

#define GROW(arr, n, cap) do { \
	if ((n) == (cap)) { \
		(cap) = (cap) ? 2 * (cap) : 64; \
		(arr) = realloc((arr), (cap) * sizeof(*(arr))); \
		if (!(arr)) \
			abort(); \
	} \
} while (0)

static struct ev *want_ev(struct want *w, uint8_t kind)
{
	GROW(w->v, w->n, w->cap);
	memset(&w->v[w->n], 0, sizeof(w->v[0]));
	w->v[w->n].kind = kind;
	return &w->v[w->n++];
}

static void want_ts(struct want *w, uint64_t ts)
{
	GROW(w->ts, w->nts, w->cap_ts);
	w->ts[w->nts++] = ts;
}

void ctx_add(uint64_t **v, size_t *n, size_t *cap, uint64_t c)
{
	if (*n && (*v)[*n - 1] == c)
		return;
	GROW(*v, *n, *cap);
	(*v)[(*n)++] = c;
}

void want_free(struct want *w)
{
	free(w->v);
	free(w->exc);
	free(w->ts);
	free(w->ctx);
	memset(w, 0, sizeof(*w));
}

/* ---- Walks ------------------------------------------------------------------ */

#define TAKEN (EXEC_F_BRANCH | EXEC_F_TAKEN)

/* What a step's event byte asks for (0xE0-0xFF, low 5 bits). */
enum { EV_GAP = 0, EV_EXC = 4, EV_CTX = 14, EV_TS = 20, EV_NONE = 26 };

/* A64 walk for ETMv4/ETE; returns the items up to the last P0 element. */
size_t walk64(const struct prog64 *p, const struct setup *su,
		     struct src *in, struct ts_rec *rc)
{
	uint64_t base = bases[byte(in) % NBASES];
	uint64_t pc = base + 4ull * (u16(in) % PROG_N), ts = 1000;
	uint64_t hot[3] = { pc, pc, pc };
	size_t last = 0;
	uint8_t el = 1;
	int prev_p0 = 0, prev_insn = 0; /* the last item: a P0 insn, insn */

	while (more(in)) {
		unsigned b = byte(in), i, k;
		uint32_t fl = 0, op;
		uint64_t next, t = 0;
		int p0;

		if (b >= 0xe0) {
			unsigned ev = b & 0x1f;

			if (ev < EV_EXC && (prev_p0 || !prev_insn) && rc->n) {
				ts_rec_add(rc, exec_gap);
				base = bases[byte(in) % NBASES];
				pc = base + 4ull * (u16(in) % PROG_N);
				prev_insn = 0;
			} else if (ev >= EV_EXC && ev < EV_CTX && prev_insn) {
				struct exec_rec *r = ts_rec_add(rc, exec_exception);

				r->number = 1 + ev % (exec_exc_count - 1);
				r->addr = pc;
				if (ev & 1) {
					r = ts_rec_add(rc, exec_context);
					if (byte(in) & 1)
						el = (uint8_t)(el == 1 ? 2 : 1);
					r->flags = EXEC_CTX_EL |
						   EXEC_CTX_CONTEXTID |
						   EXEC_CTX_VMID;
					r->el = el;
					r->ns = 1;
					r->value = u16(in) * 0x10001u;
					r->vmid = byte(in) % 3;
				}
				if (ev & 2)
					ts_rec_add(rc, exec_gap);
				last = rc->n;
				if (byte(in) % 4 == 0)
					base = bases[byte(in) % NBASES];
				pc = base + 4ull * (u16(in) % PROG_N);
				prev_insn = 0;
			} else if (ev >= EV_CTX && ev < EV_TS) {
				struct exec_rec *r = ts_rec_add(rc, exec_context);

				r->flags = ev & 1 ? EXEC_CTX_CONTEXTID :
						    EXEC_CTX_VMID;
				r->value = (uint64_t)u16(in) << 8;
				r->vmid = byte(in) % 5;
			} else if (ev >= EV_TS && ev < EV_NONE) {
				unsigned d = byte(in);

				ts += d & 1 ? d : (uint64_t)d << 20;
				ts_rec_add(rc, exec_timestamp)->value = ts;
			}
			if (!more(in))
				break;
			b = byte(in) & 0x7f;
		}
		i = (unsigned)((pc - base) / 4);
		k = p->kind[i];
		op = (uint32_t)p->bytes[4 * i] |
		     (uint32_t)p->bytes[4 * i + 1] << 8 |
		     (uint32_t)p->bytes[4 * i + 2] << 16 |
		     (uint32_t)p->bytes[4 * i + 3] << 24;
		next = pc + 4;
		switch (k) {
		case K_B:
		case K_BL:
			fl = TAKEN;
			t = base + (p->target[i] - PROG_BASE);
			break;
		case K_BCOND:
		case K_CBZ:
		case K_CBNZ:
		case K_TBZ:
			fl = b & 1 ? TAKEN : EXEC_F_BRANCH;
			t = base + (p->target[i] - PROG_BASE);
			break;
		case K_RET:
		case K_BR:
		case K_BLR:
		case K_ERET:
			fl = (b & 0xe) ? TAKEN | EXEC_F_INDIRECT :
					 EXEC_F_BRANCH | EXEC_F_INDIRECT;
			if (!(fl & EXEC_F_TAKEN)) {
				t = 0;
			} else if (((b >> 1) & 7) <= 3) {
				t = hot[((b >> 1) & 7) % 3];
				for (unsigned j = 0; j < NBASES; j++)
					if (t >= bases[j] &&
					    t < bases[j] + 4ull * PROG_N)
						base = bases[j];
			} else {
				if (((b >> 1) & 7) == 7)
					base = bases[byte(in) % NBASES];
				t = base + 4ull * (u16(in) % PROG_N);
				hot[b % 3] = t;
			}
			break;
		default:
			break;
		}
		p0 = k >= K_B && k <= K_TSTART &&
		     !((k == K_WFI || k == K_WFE) &&
		       !(su->c4.etm.trcidr2 >> 31)) &&
		     !(k == K_TSTART && su->proto != P_ETE);
		if (fl & EXEC_F_TAKEN)
			next = t;
		{
			struct exec_rec *r = ts_rec_insn(rc, etmkit_isa_a64, 4,
							 pc, op, fl, t,
							 etmkit_isa_a64);

			if (su->cycles) {
				r->flags |= EXEC_F_CYCLES;
				r->cycles = (b >> 4) & 7;
				if (r->cycles == 7)
					r->cycles = byte(in) * 3001u;
			}
		}
		if (p0)
			last = rc->n;
		prev_p0 = p0;
		prev_insn = 1;
		pc = next;
	}
	return last;
}

/* A32/T32 walk for ETMv3 (@v3) and ETMv4; returns the items to encode
 * (ETMv4: up to the last P0 element). */
size_t walk32(const struct ts_prog32 *p, const struct setup *su,
		     struct src *in, struct ts_rec *rc, int v3)
{
	const struct ts_region *g = &p->r[byte(in) % p->n];
	uint32_t a = g->starts[u16(in) % g->nstarts], it_left = 0;
	uint8_t isa = g->isa, ns = 0, el = 1;
	uint64_t ts = 1000;
	size_t last = 0;
	int virt = !!(su->c3.etmccer & ETM3_ETMCCER_VIRT_EXT);
	int cid_on = v3 && (su->c3.etmcr & (3u << ETM3_ETMCR_CID_SHIFT));
	int prev_p0 = 0, prev_insn = 0;

	while (more(in)) {
		unsigned b = byte(in);
		struct insn_info info;
		struct exec_rec *r;
		uint32_t off;
		int p0;

		if (b >= 0xe0) {
			unsigned ev = b & 0x1f;

			if (ev < EV_EXC && (v3 || prev_p0 || !prev_insn) &&
			    rc->n) {
				ts_rec_add(rc, exec_gap);
				g = &p->r[byte(in) % p->n];
				a = g->starts[u16(in) % g->nstarts];
				isa = g->isa;
				it_left = 0;
				prev_insn = 0;
			} else if (ev >= EV_EXC && ev < EV_CTX && prev_insn) {
				r = ts_rec_add(rc, exec_exception);
				r->number = v3 ? ev % exec_exc_count :
					    1 + ev % (exec_exc_count - 1);
				r->addr = a;
				if (ev & 2) {
					ts_rec_add(rc, exec_gap);
				} else if (ev & 1) {
					/* The handler runs in another state. */
					unsigned c = byte(in);

					ns = (uint8_t)(c & 1);
					el = ns && (virt || !v3) && (c & 2) ?
					     2 : 1;
					r = ts_rec_add(rc, exec_context);
					r->flags = EXEC_CTX_EL;
					r->el = el;
					r->ns = ns;
				}
				last = rc->n;
				g = &p->r[byte(in) % p->n];
				a = g->starts[u16(in) % g->nstarts];
				isa = g->isa;
				it_left = 0;
				prev_insn = 0;
			} else if (ev >= EV_CTX && ev < EV_TS) {
				unsigned c = byte(in);

				r = ts_rec_add(rc, exec_context);
				if (ev & 1 && (cid_on || !v3)) {
					r->flags = EXEC_CTX_CONTEXTID;
					r->value = (uint64_t)u16(in) * 0x10001u;
					if (v3 && !(su->c3.etmcr & (1u << 15)))
						r->value &= 0xff;
					else if (v3 && !(su->c3.etmcr &
							 (1u << 14)))
						r->value &= 0xffff;
				} else {
					ns = (uint8_t)(c & 1);
					el = ns && (virt || !v3) && (c & 2) ?
					     2 : 1;
					r->flags = EXEC_CTX_EL;
					r->el = el;
					r->ns = ns;
				}
			} else if (ev >= EV_TS && ev < EV_NONE) {
				ts += 1 + ((uint64_t)byte(in) << (ev & 15));
				ts_rec_add(rc, exec_timestamp)->value = ts;
			}
			if (!more(in))
				break;
			b = byte(in) & 0x7f;
		}
		g = region_of(p, a);
		off = a - g->base;
		if (insn_decode(&info, (enum etmkit_isa)isa, a, g->mem + off,
				REGION_BYTES - off))
			fail("walk: insn_decode refuses 0x%x", a);
		r = ts_rec_add(rc, exec_insn);
		r->isa = isa;
		r->addr = a;
		r->size = info.size;
		r->opcode = info.opcode;
		if (it_left) {
			it_left--;
			if (b & 1)
				r->flags |= EXEC_F_COND_FAIL;
		} else if ((info.flags & INSN_F_COND) && (b & 1)) {
			r->flags |= EXEC_F_COND_FAIL;
		}
		if (info.flags & INSN_F_IT) {
			unsigned m = info.it_mask & 0xf;

			it_left = m & 1 ? 4 : m & 2 ? 3 : m & 4 ? 2 : 1;
		}
		if (su->cycles) {
			r->flags |= EXEC_F_CYCLES;
			r->cycles = (b >> 4) & 7;
			if (r->cycles == 7)
				r->cycles = byte(in) % 40;
		}
		if (info.flags & INSN_F_BRANCH) {
			r->flags |= EXEC_F_BRANCH;
			if (info.flags & INSN_F_INDIRECT)
				r->flags |= EXEC_F_INDIRECT;
		}
		if ((r->flags & EXEC_F_BRANCH) &&
		    !(r->flags & EXEC_F_COND_FAIL)) {
			r->flags |= EXEC_F_TAKEN;
			if (info.flags & INSN_F_INDIRECT) {
				const struct ts_region *t =
					&p->r[((b >> 1) & 7) % p->n];

				r->target = t->starts[u16(in) % t->nstarts];
				r->target_isa = t->isa;
			} else {
				r->target = (uint32_t)info.target;
				r->target_isa = info.target_isa;
			}
		}
		p0 = (info.flags & (INSN_F_BRANCH | INSN_F_ISB)) != 0;
		if (p0 || v3)
			last = rc->n;
		prev_p0 = p0;
		prev_insn = 1;
		if (r->flags & EXEC_F_TAKEN) {
			a = (uint32_t)r->target;
			isa = r->target_isa;
			it_left = 0;
		} else {
			a += r->size;
		}
	}
	return v3 ? rc->n : last;
}

/* ---- Expectations ----------------------------------------------------------- */

static const uint16_t exc3[exec_exc_count] = { 8, 9, 10, 11, 12, 14, 15, 11 };
static const uint16_t exc4[exec_exc_count] = {
	0x00, 0x03, 0x02, 0x0b, 0x0c, 0x0e, 0x0f, 0x06,
};

void expect3(const struct setup *su, const struct ts_rec *rc,
		    struct want *w)
{
	unsigned minor = (su->c3.etmidr >> 4) & 0xf;
	int ca = !!(su->c3.etmcr & ETM3_ETMCR_CYCLE_ACCURATE);
	int cid_on = !!(su->c3.etmcr & (3u << ETM3_ETMCR_CID_SHIFT));
	int ts_on = !!(su->c3.etmcr & ETM3_ETMCR_TIMESTAMP);
	uint64_t cid = 0;
	uint8_t ns = 0, hyp = 0;
	int seen_insn = 0;
	size_t j, last_insn = 0;

	for (size_t i = 0; i < rc->n; i++)
		if (rc->r[i].kind == exec_insn)
			last_insn = i;
	for (size_t i = 0; i < rc->n; i++) {
		const struct exec_rec *r = &rc->r[i];
		struct ev *e;

		switch (r->kind) {
		case exec_insn:
			e = want_ev(w, etmkit_elem_insn);
			e->isa = r->isa;
			e->size = r->size;
			e->addr = r->addr;
			e->fail = !!(r->flags & EXEC_F_COND_FAIL);
			e->cycles = (r->flags & EXEC_F_CYCLES) ? r->cycles : 1;
			if (!e->cycles && minor < 3)
				e->cycles = 1;
			if (!ca)
				e->cycles = 0;
			e->ctx = ns | (uint64_t)hyp << 1 |
				 (cid_on ? cid << 8 : 0);
			seen_insn = 1;
			break;
		case exec_exception:
			/* Traced with its handler's first instruction: not
			 * when a gap or the end comes first. */
			for (j = i + 1; j < rc->n &&
			     (rc->r[j].kind == exec_context ||
			      rc->r[j].kind == exec_timestamp); j++)
				;
			if (seen_insn && j < rc->n &&
			    rc->r[j].kind == exec_insn) {
				GROW(w->exc, w->nexc, w->cap_exc);
				w->exc[w->nexc++] = exc3[r->number];
			}
			break;
		case exec_context:
			if (r->flags & EXEC_CTX_EL) {
				ns = r->ns;
				hyp = r->el == 2;
			}
			if (r->flags & EXEC_CTX_CONTEXTID)
				cid = r->value;
			break;
		case exec_timestamp:
			/* "The time at the next instruction": none, none. */
			if (ts_on && i < last_insn)
				want_ts(w, r->value);
			break;
		default:
			break;
		}
	}
}

void expect4(const struct ete_enc_config *c, const struct ts_rec *rc,
		    size_t end, struct want *w)
{
	struct ts_ctx x = { c->el, c->ns, c->context_id, c->vmid };
	struct etm4_config_info info;
	int cid_on, vmid_on;

	/* Traced when enabled and the registers give them a size (ETMv4.0
	 * has no 16- or 32-bit VMID). */
	if (etm4_config_decode(&c->etm, &info))
		abort();
	cid_on = ((c->etm.trcconfigr >> 6) & 1) && info.cid_bytes;
	vmid_on = ((c->etm.trcconfigr >> 7) & 1) && info.vmid_bytes;

	for (size_t i = 0; i < end; i++) {
		const struct exec_rec *r = &rc->r[i];
		struct ev *e;

		if (r->kind == exec_timestamp &&
		    (c->etm.trcconfigr & (1u << 11)))
			want_ts(w, r->value);
		ts_ctx_take(&x, r);
		if (r->kind == exec_insn) {
			ctx_add(&w->ctx, &w->nctx, &w->cap_ctx,
				ts_ctx_key(&x, cid_on, vmid_on));
			e = want_ev(w, etmkit_elem_insn);
			e->addr = r->addr;
			e->isa = r->isa;
			e->size = r->size;
			if (r->flags & EXEC_F_CYCLES)
				e->cycles = r->cycles;
		} else if (r->kind == exec_exception) {
			e = want_ev(w, etmkit_elem_exception);
			e->addr = r->addr;
			e->number = exc4[r->number];
		}
	}
}
