/* ETMv3 trace encoder round trips, the walks: random programs of A32 and
 * T32 code (tests/support/ts_prog32.h) in an image, random walks over
 * them put to an encoder, and what the decode must give back for them
 * (test_etm3_enc_rt.c checks it). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "etmkit/etm3.h"
#include "etmkit/exec.h"
#include "etmkit/flow.h"
#include "etmkit/image.h"
#include "etmkit/insn.h"

#include "ts_out.h"
#include "ts_prog32.h"
#include "ts_rec.h"

#include "test_etm3_enc.h"

/* ---- Round trips ----------------------------------------------------------- */

uint64_t rng_state;

static uint32_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

uint32_t below(uint32_t n)
{
	return rnd() % n;
}

#define REGION_BYTES 0x4000u

/* Programs with loads and stores (data trace round trips). */
int gen_data;

static uint32_t rnd_of(void *ctx)
{
	(void)ctx;
	return rnd();
}

/* Regions (tests/support/ts_prog32.h): ARM and Thumb close together (BLX
 * immediate between them), and apart by every distance a branch address
 * length covers. */
void prog_build(struct prog *p, int arm, int thumb)
{
	static const uint32_t arm_base[4] = { 0x00008000u, 0x00108000u,
					      0x02008000u, 0x92340000u };
	static const uint32_t thumb_base[4] = { 0x00400000u, 0x00480000u,
						0x08400000u, 0xc0000000u };
	struct ts_prog32_opts o = {
		.region_bytes = REGION_BYTES,
		.arm_base = arm ? arm_base : NULL,
		.thumb_base = thumb ? thumb_base : NULL,
		.nbase = 4,
		.data = gen_data,
		.rnd = rnd_of,
	};

	ts_prog32_make(&p->code, &o);
	p->r = p->code.r;
	p->n = p->code.n;
	assert_int_equal(image_alloc(&p->img), 0);
	for (unsigned i = 0; i < p->n; i++)
		assert_int_equal(image_add_buffer(p->img, p->r[i].mem,
						  REGION_BYTES, p->r[i].base,
						  0), 0);
}

void prog_free(struct prog *p)
{
	image_free(p->img);
	ts_prog32_free(&p->code);
}

static const struct ts_region *region_of(const struct prog *p, uint32_t a)
{
	const struct ts_region *g = ts_region_of(&p->code, a);

	if (!g)
		fail_msg("address 0x%x outside the image", a);
	return g;
}

static uint32_t pick(const struct ts_region *g)
{
	return g->starts[below(g->nstarts)];
}

void want_insn(struct want *w, const struct exec_rec *r)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 4096;
		w->insn = realloc(w->insn, w->cap * sizeof(*w->insn));
		assert_non_null(w->insn);
	}
	w->insn[w->n++] = *r;
}

void want_data(struct want *w, const struct want_data *d)
{
	if (w->nd == w->capd) {
		w->capd = w->capd ? 2 * w->capd : 4096;
		w->data = realloc(w->data, w->capd * sizeof(*w->data));
		assert_non_null(w->data);
	}
	w->data[w->nd++] = *d;
}

/* Cycles the decoder must report for @r. */
uint32_t want_cycles(const struct walk_opts *o, const struct exec_rec *r)
{
	uint32_t c = (r->flags & EXEC_F_CYCLES) ? r->cycles : 1;

	if (!c && ((o->etmidr >> 4) & 0xf) < 3)
		c = 1;
	return c;
}

static void do_put(struct etm3_enc *e, const struct exec_rec *r)
{
	assert_int_equal(etm3_enc_put(e, r), 0);
}

static uint64_t rnd64(void)
{
	uint64_t v = (uint64_t)rnd() << 32;

	return v | rnd();
}

/* The data transfers of the instruction just walked (w->insn's last), an
 * executed load or store per @flags (INSN_F_*): 1 to 4, of 1, 2, 4 or 8
 * bytes, mostly contiguous, at addresses every data address length
 * reaches; encoded, and noted as the 32-bit transfers the decode gives. */
static void walk_data(const struct walk_opts *o, struct etm3_enc *e,
		      struct want *w, uint32_t flags)
{
	static const uint32_t base[6] = { 0x20000000u, 0x20000400u,
					  0x20100000u, 0x2a000000u,
					  0x80000000u, 0xffffff00u };
	static const uint8_t sizes[6] = { 1, 2, 4, 4, 4, 8 };
	unsigned n = 1 + (below(3) ? 0 : below(4));
	uint64_t end = 0;
	struct exec_rec r;

	for (unsigned i = 0; i < n; i++) {
		uint8_t size = sizes[below(6)];
		uint64_t v = rnd64() >> below(64);
		int store = (flags & INSN_F_STORE) &&
			    (!(flags & INSN_F_LOAD) || below(2));
		struct want_data d;

		memset(&r, 0, sizeof(r));
		r.kind = exec_data;
		r.flags = store ? EXEC_D_STORE : 0;
		r.size = size;
		if (i && below(4) && end + size <= 0x100000000ull)
			r.addr = end;
		else
			r.addr = base[below(6)] + (below(32) << 3);
		if (size < 8)
			v &= (1ull << (8 * size)) - 1;
		r.value = below(6) ? v : 0;
		do_put(e, &r);
		memset(&d, 0, sizeof(d));
		d.insn = w->n - 1;
		d.iaddr = (uint32_t)w->insn[w->n - 1].addr;
		d.access = (uint32_t)r.addr;
		d.ooo = !store && (o->flags & ETM3_ENC_OOO);
		for (unsigned h = 0; h < (size == 8 ? 2u : 1u); h++) {
			d.addr = (uint32_t)r.addr + 4 * h;
			d.value = (uint32_t)(r.value >> (32 * h));
			d.first = i == 0 && h == 0;
			d.contig = !d.first && d.addr == end;
			d.half = d.ooo && size == 8 ? (uint8_t)(h + 1) : 0;
			want_data(w, &d);
			end = d.addr + (size == 8 ? 4u : size);
		}
	}
}

/* Walk @o->steps instructions over @p from a random start, choosing
 * condition outcomes and indirect targets at random; encode every item
 * and note what the decode must give. */
void walk(const struct prog *p, const struct walk_opts *o,
		 struct etm3_enc *e, struct want *w)
{
	const struct ts_region *g = &p->r[below(p->n)];
	uint32_t a = pick(g), it_left = 0;
	uint8_t isa = g->isa;
	uint64_t ts = 1000;
	uint32_t cid = 0;
	uint8_t ns = 0, el = 1;
	int virt = !!(o->etmccer & ETM3_ETMCCER_VIRT_EXT);
	struct exec_rec r;
	int ca = !!(o->etmcr & CR_CA), cid_on = !!(o->etmcr & (3u << 14));
	int ts_on = !!(o->etmcr & ETM3_ETMCR_TIMESTAMP);

	for (unsigned step = 0; step < o->steps; step++) {
		struct insn_info info;
		uint32_t off;

		if (below(1000) < o->gap_per_mille) {
			memset(&r, 0, sizeof(r));
			r.kind = exec_gap;
			do_put(e, &r);
			g = &p->r[below(p->n)];
			a = pick(g);
			isa = g->isa;
			it_left = 0;
		} else if (below(1000) < o->exc_per_mille) {
			memset(&r, 0, sizeof(r));
			r.kind = exec_exception;
			r.number = below(exec_exc_count);
			r.addr = a;
			do_put(e, &r);
			g = &p->r[below(p->n)];
			a = pick(g);
			isa = g->isa;
			it_left = 0;
			if (below(5) == 0) {
				/* The handler is not traced. */
				r.kind = exec_gap;
				do_put(e, &r);
			} else {
				static const uint8_t num[exec_exc_count] = {
					8, 9, 10, 11, 12, 14, 15, 11 };

				if (step && w->nexc < 4096)
					w->exc[w->nexc++] = num[r.number];
				if (below(2)) {
					/* The handler runs in another state:
					 * exception bytes carry NS and Hyp. */
					ns = (uint8_t)below(2);
					el = ns && virt && below(2) ? 2 : 1;
					memset(&r, 0, sizeof(r));
					r.kind = exec_context;
					r.flags = EXEC_CTX_EL;
					r.el = el;
					r.ns = ns;
					do_put(e, &r);
				}
			}
		}
		if (cid_on && below(1000) < o->ctx_per_mille) {
			memset(&r, 0, sizeof(r));
			r.kind = exec_context;
			r.flags = EXEC_CTX_CONTEXTID;
			r.value = rnd() & (o->etmcr & (1u << 15) ?
					   (o->etmcr & (1u << 14) ? 0xffffffffu :
					    0xffffu) : 0xffu);
			do_put(e, &r);
			cid = (uint32_t)r.value;
		}
		if (below(1000) < o->ctx_per_mille) {
			/* A change of state without a branch. */
			ns = (uint8_t)below(2);
			el = ns && virt && below(2) ? 2 : 1;
			memset(&r, 0, sizeof(r));
			r.kind = exec_context;
			r.flags = EXEC_CTX_EL;
			r.el = el;
			r.ns = ns;
			do_put(e, &r);
		}
		if (ts_on && below(1000) < o->ctx_per_mille) {
			memset(&r, 0, sizeof(r));
			r.kind = exec_timestamp;
			ts += 1 + below(1u << below(30));
			r.value = ts;
			do_put(e, &r);
			if (w->nts < 4096)
				w->ts[w->nts++] = ts;
		}
		g = region_of(p, a);
		off = a - g->base;
		assert_int_equal(insn_decode(&info, isa, a, g->mem + off,
					     REGION_BYTES - off), 0);
		memset(&r, 0, sizeof(r));
		r.kind = exec_insn;
		r.isa = isa;
		r.addr = a;
		r.size = info.size;
		r.opcode = info.opcode;
		/* Not the encoder's: what the decode must say. */
		r.value = cid;
		r.ns = ns;
		r.el = el;
		if (it_left) {
			it_left--;
			if (below(10) < 4)
				r.flags |= EXEC_F_COND_FAIL;
		} else if ((info.flags & INSN_F_COND) && below(10) < 4) {
			r.flags |= EXEC_F_COND_FAIL;
		}
		if (info.flags & INSN_F_IT) {
			unsigned m = info.it_mask & 0xf;

			it_left = m & 1 ? 4 : m & 2 ? 3 : m & 4 ? 2 : 1;
		}
		if (ca && below(10) < 7) {
			r.flags |= EXEC_F_CYCLES;
			r.cycles = below(4) ? below(4) : below(40);
		}
		if (info.flags & INSN_F_BRANCH) {
			r.flags |= EXEC_F_BRANCH;
			if (info.flags & INSN_F_INDIRECT)
				r.flags |= EXEC_F_INDIRECT;
		}
		if ((r.flags & EXEC_F_BRANCH) && !(r.flags & EXEC_F_COND_FAIL)) {
			r.flags |= EXEC_F_TAKEN;
			if (info.flags & INSN_F_INDIRECT) {
				const struct ts_region *t = &p->r[below(p->n)];

				r.target = pick(t);
				r.target_isa = t->isa;
			} else {
				r.target = (uint32_t)info.target;
				r.target_isa = info.target_isa;
			}
		}
		do_put(e, &r);
		r.cycles = want_cycles(o, &r);
		want_insn(w, &r);
		if ((o->etmcr & (ETM3_ETMCR_DATA_ADDR | ETM3_ETMCR_DATA_VALUE)) &&
		    !(r.flags & EXEC_F_COND_FAIL) &&
		    (info.flags & (INSN_F_LOAD | INSN_F_STORE)))
			walk_data(o, e, w, info.flags);
		if (r.flags & EXEC_F_TAKEN) {
			a = (uint32_t)r.target;
			isa = r.target_isa;
			it_left = 0;
		} else {
			a += r.size;
		}
	}
}

/* Bytes the value of a normal or out-of-order data packet has: SS
 * (Table 6.3). */
