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
#include "ts_prog64.h"
#include "ts_rec.h"

#include "fuzz_encode.h"

/* ---- A64 program (test_ete_enc.c's mix and more, smaller; ts_prog64.h) ---- */

static uint32_t rnd_of(void *ctx)
{
	return rnd(ctx);
}

/* Kinds by r % 100: TSTART only for ETE. */
static const struct ts_k64_mix mix64[] = {
	{ 40, TS_K_NOP }, { 47, TS_K_ADD }, { 50, TS_K_LDR }, { 56, TS_K_B },
	{ 61, TS_K_BL }, { 71, TS_K_BCOND }, { 74, TS_K_CBZ },
	{ 76, TS_K_CBNZ }, { 79, TS_K_TBZ }, { 83, TS_K_RET },
	{ 87, TS_K_BR }, { 90, TS_K_BLR }, { 91, TS_K_ERET },
	{ 94, TS_K_ISB }, { 96, TS_K_WFI }, { 97, TS_K_WFE },
	{ 98, TS_K_TSTART },
};

void prog64_make(struct ts_prog64 *p, uint64_t seed, int ete)
{
	struct ts_prog64_opts o = {
		.n = PROG_N,
		.mix = mix64,
		.nmix = sizeof(mix64) / sizeof(mix64[0]) - !ete,
		.bcond_rnd = 1,
		.rnd = rnd_of,
		.rnd_ctx = &seed,
	};

	ts_prog64_make(p, &o);
}

/* ---- A32/T32 program (test_etm3_enc.c's, smaller) --------------------------- */

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
size_t walk64(const struct ts_prog64 *p, const struct setup *su,
		     struct src *in, struct ts_rec *rc)
{
	uint64_t base = ts_prog64_bases[byte(in) % TS_PROG64_NBASES];
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
				base = ts_prog64_bases[byte(in) % TS_PROG64_NBASES];
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
					base = ts_prog64_bases[byte(in) % TS_PROG64_NBASES];
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
		op = ts_prog64_op(p, i);
		next = pc + 4;
		switch (k) {
		case TS_K_B:
		case TS_K_BL:
			fl = TAKEN;
			t = ts_prog64_target(p, i, base);
			break;
		case TS_K_BCOND:
		case TS_K_CBZ:
		case TS_K_CBNZ:
		case TS_K_TBZ:
			fl = b & 1 ? TAKEN : EXEC_F_BRANCH;
			t = ts_prog64_target(p, i, base);
			break;
		case TS_K_RET:
		case TS_K_BR:
		case TS_K_BLR:
		case TS_K_ERET:
			fl = (b & 0xe) ? TAKEN | EXEC_F_INDIRECT :
					 EXEC_F_BRANCH | EXEC_F_INDIRECT;
			if (!(fl & EXEC_F_TAKEN)) {
				t = 0;
			} else if (((b >> 1) & 7) <= 3) {
				t = hot[((b >> 1) & 7) % 3];
				for (unsigned j = 0; j < TS_PROG64_NBASES; j++)
					if (t >= ts_prog64_bases[j] &&
					    t < ts_prog64_bases[j] + 4ull * PROG_N)
						base = ts_prog64_bases[j];
			} else {
				if (((b >> 1) & 7) == 7)
					base = ts_prog64_bases[byte(in) % TS_PROG64_NBASES];
				t = base + 4ull * (u16(in) % PROG_N);
				hot[b % 3] = t;
			}
			break;
		default:
			break;
		}
		p0 = k >= TS_K_B && k <= TS_K_TSTART &&
		     !((k == TS_K_WFI || k == TS_K_WFE) &&
		       !(su->c4.etm.trcidr2 >> 31)) &&
		     !(k == TS_K_TSTART && su->proto != P_ETE);
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
