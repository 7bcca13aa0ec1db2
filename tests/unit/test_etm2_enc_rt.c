/* ETMv2 trace encoder, round trips through the packet decoder (etm2_pkt_*,
 * written from docs/etmv2.md by another hand): random records (A32 and
 * T32, direct, linked and indirect branches, instruction set changes,
 * condition failures, loads and stores of 1 to 8 bytes, exceptions, gaps,
 * context changes, wait cycles) under random set-ups (4, 8 and 16-bit
 * ports, FIFO latency 0 and 1, data addresses and values on and off,
 * context ID sizes, branch output, phantoms, load misses, short sync
 * periods) are encoded to cycles, decoded into records, and the records
 * read back against the record item by item: every instruction's status
 * (executed or failed; a phantom pair's branch taken or not), every TFO's
 * address and context ID (a periodic one standing for its instruction),
 * every branch address (an indirect or state-changing branch's target; a
 * DW's the exception handler), every data packet's value and address
 * against the transfers, load miss data matched by tag, and context IDs.
 * Decoding must never report an error. A small FIFO that overflows is
 * checked on straight-line code: the instructions the decode does not
 * show are exactly the ones the encoder counts lost. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "etmkit/etm2.h"
#include "etmkit/exec.h"
#include "etmkit/qemu_log.h"

#include "ts_out.h"

#include "ts_etm2_check.h"
#include "ts_rec.h"

#include "test_etm2_enc.h"

static uint64_t rs_state;

static uint32_t rnd(void)
{
	rs_state ^= rs_state << 13;
	rs_state ^= rs_state >> 7;
	rs_state ^= rs_state << 17;
	return (uint32_t)(rs_state >> 11);
}

static uint32_t pick(uint32_t n)
{
	return rnd() % n;
}

/* ---- Random records ------------------------------------------------------- */

static uint32_t rnd_addr(uint8_t isa)
{
	uint32_t a = rnd() << 1 ^ rnd();

	if (pick(2))
		a &= 0x000fffff; /* near the others: compressed */
	return isa == etmkit_isa_thumb ? a & ~1u : a & ~3u;
}

static uint8_t rnd_isa(void)
{
	return pick(4) ? etmkit_isa_arm : etmkit_isa_thumb;
}

static void rnd_data(struct ts_rec *rc)
{
	static const uint8_t sizes[4] = { 1, 2, 4, 8 };
	unsigned n = pick(5) ? 1 : 1 + pick(6);

	for (unsigned i = 0; i < n; i++) {
		struct exec_rec *r = ts_rec_add(rc, exec_data);
		uint64_t v = (uint64_t)rnd() << 32 | rnd();

		r->size = sizes[pick(4)];
		r->flags = pick(2) ? EXEC_D_STORE : 0;
		r->addr = pick(2) ? 0x20000000u + 4 * pick(64) : rnd();
		switch (pick(4)) {
		case 0: v = 0; break;
		case 1: v &= 0xff; break;
		case 2: v &= 0xffff; break;
		default: break;
		}
		r->value = r->size == 8 ? v : v & ((1ull << (8 * r->size)) - 1);
	}
}

/* A run of @n items whose instructions follow one another as a decoder's
 * walk does (each at the last one's next address or branch target). */
static void rnd_record(struct ts_rec *rc, unsigned n)
{
	uint8_t isa = rnd_isa();
	uint32_t pc = rnd_addr(isa);

	for (unsigned k = 0; k < n; k++) {
		unsigned what = pick(100);
		uint8_t size = isa == etmkit_isa_arm ? 4 : (pick(3) ? 2 : 4);
		struct exec_rec *r;

		if (what < 3) {
			ts_rec_add(rc, exec_exception)->number = pick(exec_exc_count);
			isa = rnd_isa();
			pc = pick(2) ? 0x18 : rnd_addr(isa);
			continue;
		}
		if (what < 5) {
			r = ts_rec_add(rc, exec_gap);
			if (pick(2)) {
				r->flags = EXEC_F_CYCLES;
				r->cycles = pick(20);
			}
			isa = rnd_isa();
			pc = rnd_addr(isa);
			continue;
		}
		if (what == 5) {
			/* The record jumps with no item to say so. */
			isa = rnd_isa();
			pc = rnd_addr(isa);
			continue;
		}
		if (what < 8) {
			r = ts_rec_add(rc, exec_context);
			r->flags = EXEC_CTX_CONTEXTID;
			r->value = pick(3) ? pick(4) : rnd();
			continue;
		}
		r = ts_rec_insn(rc, isa, size, pc, 0, 0, 0, 0);
		if (pick(6) == 0) {
			r->flags |= EXEC_F_CYCLES;
			r->cycles = pick(8);
		}
		if (what < 60) {
			if (pick(8) == 0)
				r->flags |= EXEC_F_COND_FAIL;
			pc += size;
			if (!(r->flags & EXEC_F_COND_FAIL) && pick(2))
				rnd_data(rc);
			continue;
		}
		/* A branch: direct (B, or BL: a call, never folded), or
		 * indirect; taken or not; to either instruction set. */
		r->flags |= EXEC_F_BRANCH;
		if (what < 75)
			r->opcode = isa == etmkit_isa_arm ? 0xeb000000u : 0;
		if (what >= 85)
			r->flags |= EXEC_F_INDIRECT;
		if (pick(4) == 0) {
			pc += size;
			continue;
		}
		r->flags |= EXEC_F_TAKEN;
		if (pick(5) == 0)
			isa = rnd_isa();
		r->target_isa = isa;
		r->target = pc = pick(2) ? (pc & ~0xfffu) + 2 * pick(0x800)
					 : rnd_addr(isa);
		pc &= isa == etmkit_isa_arm ? ~3u : ~1u;
		r->target = pc;
	}
}

/* ---- Reading the decode back ----------------------------------------------- */

/* @cy decoded whole and 7 cycles a feed, read back against @rc
 * (ts_etm2_check.h); the result of the whole decode into *@res. */
static void check(const struct etm2_config *cfg, const struct ts_cycles *cy,
		  int overflow, const struct ts_rec *rc,
		  struct ts_etm2_result *res)
{
	struct ts_etm2_result r2;
	char why[300];

	if (ts_etm2_check(cfg, cy->c, cy->n, 0, overflow, rc, res, why,
			  sizeof(why)) ||
	    ts_etm2_check(cfg, cy->c, cy->n, 7, overflow, rc, &r2, why,
			  sizeof(why)))
		fail_msg("%s", why);
	assert_int_equal(r2.insns, res->insns);
}

/* @rc encoded under @c into @cy; the encoder, finished. */
static struct etm2_enc *encode(const struct etm2_enc_config *c,
			       const struct ts_rec *rc, struct ts_cycles *cy)
{
	struct etm2_enc *e = NULL;

	assert_int_equal(etm2_enc_alloc(&e, c, ts_cycles_sink, cy), 0);
	for (size_t i = 0; i < rc->n; i++)
		assert_int_equal(etm2_enc_put(e, &rc->r[i]), 0);
	assert_int_equal(etm2_enc_finish(e), 0);
	return e;
}

static void rnd_config(struct etm2_enc_config *c)
{
	static const uint8_t widths[3] = { 4, 8, 16 };

	etm2_enc_config_init(c);
	c->etm.port_width = widths[pick(3)];
	c->etm.fifo_latency = (uint8_t)pick(2);
	c->etm.etmcr = pick(4) << ETM2_ETMCR_CID_SHIFT;
	if (pick(2))
		c->etm.etmcr |= ETM2_ETMCR_DATA_VALUE;
	if (pick(2))
		c->etm.etmcr |= ETM2_ETMCR_DATA_ADDR;
	if (pick(3) == 0)
		c->etm.etmcr |= ETM2_ETMCR_BRANCH_OUTPUT;
	if (pick(2))
		c->etm.etmcr |= ETM2_ETMCR_CYCLE_ACCURATE;
	if (pick(2))
		c->flags |= ETM2_ENC_PHANTOMS;
	c->miss_every = pick(4);
	c->sync_period = pick(2) ? 16 + pick(200) : 0;
	c->fifo_depth = 4096; /* no overflow: checked on its own */
}

static void v1_config(struct etm2_enc_config *c);
static void v1_data(struct ts_rec *rc);
static void v1_more(const struct etm2_config *cfg, const struct ts_cycles *cy,
		    int cut, unsigned *cuts);

/* 300 random records under random set-ups (ETMv1's with @v1), encoded
 * and read back (check()); ETMv1 also v1_more(), every tenth with cuts.
 * Returns the runs that overflowed (ETMv1 only: an APO past 14), which
 * are not read back; the cuts that synced add to *@cuts. */
static unsigned random_runs(uint64_t seed, int v1, unsigned *cuts)
{
	unsigned skipped = 0;

	rs_state = seed;
	for (unsigned t = 0; t < 300; t++) {
		struct etm2_enc_config c;
		struct ts_rec rc = { 0 };
		struct ts_cycles cy = { 0 };
		struct etm2_enc *e;
		struct ts_etm2_result res;

		if (v1)
			v1_config(&c);
		else
			rnd_config(&c);
		rnd_record(&rc, 50 + pick(400));
		if (v1)
			v1_data(&rc);
		e = encode(&c, &rc, &cy);
		if (etm2_enc_get_stats(e)->overflows) {
			assert_true(v1);
			skipped++;
		} else {
			check(&c.etm, &cy, 0, &rc, &res);
			assert_int_equal(res.insns,
					 etm2_enc_get_stats(e)->insns);
			if (v1)
				v1_more(&c.etm, &cy, t % 10 == 0, cuts);
		}
		etm2_enc_free(e);
		ts_rec_free(&rc);
		free(cy.c);
	}
	return skipped;
}

void test_packets_random(void **state)
{
	(void)state;
	assert_int_equal(random_runs(0x9e3779b97f4a7c15ull, 0, NULL), 0);
}



/* A FIFO of 16 to 40 bytes on straight-line code with stores of four
 * byte values: it overflows (docs/etmv2.md 4; the encoder stops tracing,
 * the FIFO drains, a TFO of reason overflow restarts at an instruction);
 * the decode shows every instruction but the lost ones, which are
 * exactly as many as the encoder counts, and no decoding error. ETMv1
 * (@v1): every third instruction or so an indirect branch to the next
 * (branch addresses: an APO may pass 14 too), restarts of reason 2. */
static void overflow_runs(uint64_t seed, int v1)
{
	rs_state = seed;
	for (unsigned t = 0; t < 100; t++) {
		struct etm2_enc_config c;
		struct ts_rec rc = { 0 };
		struct ts_cycles cy = { 0 };
		struct etm2_enc *e;
		const struct etm2_enc_stats *st;
		struct ts_etm2_result res;
		uint32_t pc = 0x10000;

		if (v1)
			v1_config(&c);
		else
			rnd_config(&c);
		c.fifo_depth = 16 + pick(25);
		c.etm.etmcr |= ETM2_ETMCR_DATA_VALUE;
		for (unsigned i = 0; i < 400; i++) {
			int br = v1 && pick(3) == 0;
			struct exec_rec *r = ts_rec_insn(
				&rc, etmkit_isa_arm, 4, pc, 0,
				br ? EXEC_F_BRANCH | EXEC_F_INDIRECT |
					     EXEC_F_TAKEN : 0,
				pc + 4, etmkit_isa_arm);

			r->flags |= pick(4) ? 0 : EXEC_F_CYCLES;
			r->cycles = pick(4);
			pc += 4;
			if (pick(3)) {
				r = ts_rec_add(&rc, exec_data);
				r->flags = EXEC_D_STORE;
				r->addr = 0x20000000u + 4 * pick(1024);
				r->size = 4;
				r->value = 0x01000000u | rnd();
			}
		}
		e = encode(&c, &rc, &cy);
		st = etm2_enc_get_stats(e);
		check(&c.etm, &cy, 1, &rc, &res);
		if (c.etm.port_width == 4 || c.fifo_depth < 30)
			assert_true(st->overflows > 0);
		assert_int_equal(res.insns, st->insns);
		assert_int_equal(res.lost, st->insns_lost);
		assert_int_equal(res.insns + res.lost, 400);
		etm2_enc_free(e);
		ts_rec_free(&rc);
		free(cy.c);
	}
}

void test_overflow_random(void **state)
{
	(void)state;
	overflow_runs(0x2545f4914f6cdd1dull, 0);
}

/* The deepest backlog the encoder can build: a 4-bit port (two cycles a
 * byte) behind a 4096-byte FIFO (the largest etm2_enc_config takes)
 * filled by stores with full data addresses and values, then drained by
 * plain instructions. The oldest group waits about 8000 cycles, a record
 * each, for its bytes: the decoder must hold them all (ETM2_OWED_MAX in
 * src/packets/etmv2/etm2_internal.h) and give back exactly the record,
 * with no overflow. */
void test_deep_fifo(void **state)
{
	struct etm2_enc_config c;
	struct ts_rec rc = { 0 };
	struct ts_cycles cy = { 0 };
	struct etm2_enc *e = NULL;
	const struct etm2_enc_stats *st;
	struct ts_etm2_result res;
	uint32_t pc = 0x10000;
	unsigned n = 0;

	(void)state;
	rs_state = 0x6a09e667f3bcc909ull;
	etm2_enc_config_init(&c);
	c.etm.port_width = 4;
	c.etm.etmcr |= ETM2_ETMCR_DATA_VALUE | ETM2_ETMCR_DATA_ADDR;
	c.fifo_depth = 4096;
	/* about 9 bytes a store (5 of address, 4 of value): 430 stores
	 * leave about 3700 bytes in the FIFO */
	for (unsigned i = 0; i < 430; i++, n++) {
		struct exec_rec *r;

		ts_rec_insn(&rc, etmkit_isa_arm, 4, pc, 0, 0, 0, 0);
		pc += 4;
		r = ts_rec_add(&rc, exec_data);
		r->flags = EXEC_D_STORE;
		r->addr = 0x80000000u | rnd() << 2;
		r->size = 4;
		r->value = 0x01000000u | rnd();
	}
	for (unsigned i = 0; i < 9000; i++, n++, pc += 4)
		ts_rec_insn(&rc, etmkit_isa_arm, 4, pc, 0, 0, 0, 0);
	e = encode(&c, &rc, &cy);
	st = etm2_enc_get_stats(e);
	assert_int_equal(st->overflows, 0);
	/* the FIFO really was deep: two cycles a byte on a 4-bit port, the
	 * last store's group left about 2 * bytes - 430 cycles after it
	 * was placed, more than the 3584 records the decoder held before */
	assert_true(2 * st->bytes > 430 + 3584);
	check(&c.etm, &cy, 0, &rc, &res);
	assert_int_equal(res.insns, n);
	assert_int_equal(res.lost, 0);
	etm2_enc_free(e);
	ts_rec_free(&rc);
	free(cy.c);
}

/* ---- Real code, through the capture formats ------------------------------ */

/* The items of record or QEMU log @name under tests/data. */
static void read_items(const char *name, struct ts_rec *rc)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", ETMKIT_TEST_DATA, name);
	if (ts_rec_read(path, rc))
		fail_msg("cannot read %s", path);
}

/* The encoder's cycles into a capture writer of @format. */
static int to_writer(void *ctx, const struct etm2_cycle *c, size_t n)
{
	return etm2_cap_write(ctx, c, n);
}

/* @rc encoded under @c, written as a capture of @format, read back with
 * the capture reader into @cy. */
static void encode_capture(const struct etm2_enc_config *c,
			   const struct ts_rec *rc, enum etm2_cap_format format,
			   struct ts_cycles *cy)
{
	struct etm2_cap_info ci;
	struct etm2_cap_writer *wr = NULL;
	struct etm2_cap_reader *rd = NULL;
	struct etm2_cap_diag dg;
	struct etm2_enc *e = NULL;
	struct etm2_cycle buf[256];
	struct ts_out o = { 0 };
	long n;

	memset(&ci, 0, sizeof(ci));
	ci.etmcr = c->etm.etmcr;
	ci.has_etmcr = 1;
	ci.version = c->etm.version ? c->etm.version : 2;
	ci.port_width = c->etm.port_width;
	assert_int_equal(etm2_cap_writer_alloc(&wr, format, &ci, &c->etm,
					       ts_out_sink, &o), 0);
	assert_int_equal(etm2_enc_alloc(&e, c, to_writer, wr), 0);
	for (size_t j = 0; j < rc->n; j++)
		assert_int_equal(etm2_enc_put(e, &rc->r[j]), 0);
	assert_int_equal(etm2_enc_finish(e), 0);
	assert_int_equal(etm2_cap_writer_finish(wr), 0);
	etm2_cap_writer_free(wr);
	assert_int_equal(etm2_cap_open(&rd, o.b, o.n, etm2_cap_auto, NULL,
				       &dg), 0);
	while ((n = etm2_cap_read(rd, buf, 256, &dg)) > 0)
		ts_cycles_sink(cy, buf, (size_t)n);
	assert_int_equal(n, 0);
	assert_int_equal(cy->n, etm2_enc_get_stats(e)->cycles);
	etm2_cap_close(rd);
	etm2_enc_free(e);
	ts_out_free(&o);
}

/* @rc under @c (a FIFO of 4096 bytes) through a text (@text) or binary
 * capture, read back against the record: nothing lost. */
static void capture_run(struct etm2_enc_config *c, const struct ts_rec *rc,
			int text)
{
	struct ts_cycles cy = { 0 };
	struct ts_etm2_result res;

	c->fifo_depth = 4096;
	encode_capture(c, rc, text ? etm2_cap_text : etm2_cap_binary, &cy);
	check(&c->etm, &cy, 0, rc, &res);
	assert_int_equal(res.lost, 0);
	free(cy.c);
}

/* The real code of both: tests/workloads/tiny.c's QEMU armhf runs and
 * the A32/T32 record with exceptions. */
static const char *const real_inputs[] = {
	"qemu/tiny-a32-block.log", "qemu/tiny-a32-cpu.log",
	"qemu/tiny-a32-state.log", "records/a32_t32_flow.txt",
};
#define N_REAL (sizeof(real_inputs) / sizeof(real_inputs[0]))

/* QEMU armhf runs of tests/workloads/tiny.c (A32 with T32 interworking,
 * its three log forms) and the A32/T32 record with exceptions, under
 * 4, 8 and 16-bit ports, data trace on and off, cycle-accurate on and
 * off, context IDs, phantoms on and off and load misses: encoded, written
 * as a binary or text capture, read back, decoded into packets and read
 * back against the record. */
void test_captures_real_code(void **state)
{
	static const uint32_t crs[] = {
		0,
		ETM2_ETMCR_CYCLE_ACCURATE | (3u << ETM2_ETMCR_CID_SHIFT),
		ETM2_ETMCR_DATA_VALUE | ETM2_ETMCR_DATA_ADDR,
		ETM2_ETMCR_DATA_VALUE | ETM2_ETMCR_CYCLE_ACCURATE |
		ETM2_ETMCR_BRANCH_OUTPUT | (1u << ETM2_ETMCR_CID_SHIFT),
	};
	static const uint8_t widths[3] = { 4, 8, 16 };
	unsigned run = 0;

	(void)state;
	for (size_t i = 0; i < N_REAL; i++) {
		struct ts_rec rc = { 0 };

		read_items(real_inputs[i], &rc);
		for (size_t k = 0; k < sizeof(crs) / sizeof(crs[0]); k++)
			for (unsigned w = 0; w < 3; w++, run++) {
				struct etm2_enc_config c;

				etm2_enc_config_init(&c);
				c.etm.etmcr = crs[k];
				c.etm.port_width = widths[w];
				c.etm.fifo_latency = (uint8_t)(run & 1);
				c.flags = run & 2 ? ETM2_ENC_PHANTOMS : 0;
				c.miss_every = run % 3;
				c.sync_period = run & 4 ? 32 : 0;
				capture_run(&c, &rc, run & 1);
			}
		ts_rec_free(&rc);
	}
}

/* ---- ETMv1 (docs/etmv2.md 7b) ------------------------------------------- */

/* @rc as ETMv1 data trace can carry it: each instruction's first transfer
 * only, as 4 bytes (the encoder refuses the rest with data on). */
static void v1_data(struct ts_rec *rc)
{
	struct ts_rec out = { 0 };
	int first = 0;

	for (size_t i = 0; i < rc->n; i++) {
		const struct exec_rec *r = &rc->r[i];
		struct exec_rec *w;

		if (r->kind == exec_data && !first)
			continue;
		w = ts_rec_add(&out, r->kind);
		*w = *r;
		if (r->kind == exec_data) {
			w->size = 4;
			w->value &= 0xffffffffu;
		}
		first = r->kind == exec_insn;
	}
	ts_rec_free(rc);
	*rc = out;
}

static void v1_config(struct etm2_enc_config *c)
{
	rnd_config(c);
	c->etm.version = 1;
	c->etm.fifo_latency = 1;
	if (c->etm.port_width == 16)
		c->etm.port_width = pick(2) ? 4 : 8;
	c->flags = 0;
	c->miss_every = 0;
}

/* The records of @cy[from..) decoded (etm2_pkt_*, first index @from):
 * into @out (up to @max; how many in *@n), -1 on a decoding error. */
static int v1_decode(const struct etm2_config *cfg, const struct ts_cycles *cy,
		     size_t from, struct etm2_packet *out, size_t max,
		     size_t *n)
{
	struct etm2_pkt_decoder *dec = NULL;
	struct etm2_packet pk[64];
	int k, err = 0;

	*n = 0;
	assert_int_equal(etm2_pkt_alloc(&dec, cfg), 0);
	assert_int_equal(etm2_pkt_feed(dec, cy->c + from, cy->n - from, from),
			 0);
	for (int fin = 0; fin < 2; fin++) {
		if (fin)
			assert_int_equal(etm2_pkt_finish(dec), 0);
		while ((k = etm2_pkt_next(dec, pk, 64)) > 0)
			for (int j = 0; j < k; j++) {
				err |= pk[j].error != 0;
				if (*n < max)
					out[(*n)++] = pk[j];
			}
	}
	etm2_pkt_free(dec);
	return err ? -1 : 0;
}

/* Every branch address's APO (Q§5.6.1; docs/etmv2.md 7b): the two cycles
 * after its BE/BD say how many cycles with TRACESYNC come after the
 * branch cycle before the one that carries its first byte, which has
 * TRACESYNC. */
static void v1_check_apo(const struct ts_cycles *cy,
			 const struct etm2_packet *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t t = p[i].cycle, o = p[i].out_cycle;
		unsigned apo, seen = 0;

		if (p[i].type != etm2_pkt_branch_address)
			continue;
		assert_true(t + 2 < cy->n && o > t && o < cy->n);
		apo = (cy->c[t + 1].ps & 3u) | (cy->c[t + 2].ps & 3u) << 2;
		for (uint64_t c = t + 1; c < o; c++)
			seen += cy->c[c].flags & ETM2_CYC_TRACESYNC;
		if (seen != apo || !(cy->c[o].flags & ETM2_CYC_TRACESYNC))
			fail_msg("branch at cycle %llu: APO %u, %u TRACESYNC "
				 "cycles before its first byte's (%llu)",
				 (unsigned long long)t, apo, seen,
				 (unsigned long long)o);
	}
}

static int same_record(const struct etm2_packet *a,
		       const struct etm2_packet *b)
{
	if (a->type != b->type || a->cycle != b->cycle ||
	    a->status != b->status || a->out_cycle != b->out_cycle)
		return 0;
	switch (a->type) {
	case etm2_pkt_branch_address:
		return a->u.branch.addr == b->u.branch.addr &&
		       a->u.branch.isa == b->u.branch.isa;
	case etm2_pkt_normal_data:
		return a->u.data.value == b->u.data.value &&
		       (b->u.data.addr_partial ||
			a->u.data.addr == b->u.data.addr);
	case etm2_pkt_context_id:
		return a->u.context_id == b->u.context_id;
	default:
		return 1;
	}
}

/* Decoding from a cut (docs/etmv2.md 7b, synchronisation): every 53rd
 * cycle, the suffix decoded: no error, and from the branch address it
 * synced at on (a restart's or a periodic one's, whose APO tells where
 * its bytes start) the records are the whole decode's. Returns how many
 * cuts synced. */
static unsigned v1_cuts(const struct etm2_config *cfg,
			const struct ts_cycles *cy,
			const struct etm2_packet *full, size_t nfull,
			struct etm2_packet *buf, size_t max)
{
	unsigned synced = 0;

	for (size_t from = 1; from < cy->n; from += 53) {
		size_t n, i = 0, j = 0;

		if (v1_decode(cfg, cy, from, buf, max, &n))
			fail_msg("decoding from cycle %zu: an error", from);
		while (j < n && !(buf[j].type == etm2_pkt_branch_address &&
				  buf[j].u.branch.first))
			j++;
		if (j == n)
			continue;
		synced++;
		while (i < nfull && !(full[i].type == etm2_pkt_branch_address &&
				      full[i].cycle == buf[j].cycle))
			i++;
		for (;; i++, j++) {
			/* wait runs may split differently */
			while (j < n && buf[j].type == etm2_pkt_wait)
				j++;
			while (i < nfull && full[i].type == etm2_pkt_wait)
				i++;
			if (j == n && i == nfull)
				break;
			if (j == n || i == nfull || !same_record(&full[i], &buf[j]))
				fail_msg("decoding from cycle %zu: record %zu "
					 "of %zu differs from the whole decode's "
					 "%zu of %zu", from, j, n, i, nfull);
		}
	}
	return synced;
}

/* Random records under random ETMv1 set-ups (4 and 8-bit ports, data
 * addresses and values, context ID sizes, branch output, cycle-accurate,
 * short sync periods: reason 4 addresses), decoded whole and 7 cycles a
 * feed: every BE/BD of reason 1 to 3 a restart at the record's next
 * instruction, every other an instruction going where the record says,
 * no decoding error; every APO right; decoded from cuts (every tenth
 * record), the same records from the sync point on. */
#define V1_MAX 20000

/* ETMv1 beyond check(): every APO, and with @cut the decodes from cuts
 * (how many synced adds to *@cuts). */
static void v1_more(const struct etm2_config *cfg, const struct ts_cycles *cy,
		    int cut, unsigned *cuts)
{
	struct etm2_packet *full = malloc(V1_MAX * sizeof(*full));
	size_t nfull;

	assert_non_null(full);
	if (v1_decode(cfg, cy, 0, full, V1_MAX, &nfull))
		fail_msg("whole decode: an error");
	assert_true(nfull < V1_MAX);
	v1_check_apo(cy, full, nfull);
	if (cut) {
		struct etm2_packet *buf = malloc(V1_MAX * sizeof(*buf));

		assert_non_null(buf);
		*cuts += v1_cuts(cfg, cy, full, nfull, buf, V1_MAX);
		free(buf);
	}
	free(full);
}

void test_v1_random(void **state)
{
	unsigned cuts = 0, skipped;

	(void)state;
	skipped = random_runs(0x5851f42d4c957f2dull, 1, &cuts);
	printf("ETMv1 random: %u of 300 with an overflow, not checked; %u "
	       "cuts synced\n", skipped, cuts);
	assert_true(skipped < 30);
	assert_true(cuts > 50);
}

/* The same as ETMv1 (restarts of reason 2). */
void test_v1_overflow_random(void **state)
{
	(void)state;
	overflow_runs(0x14057b7ef767814full, 1);
}

/* The QEMU armhf runs and the A32/T32 record as ETMv1 (data off: their
 * loads and stores are of every size), 4 and 8-bit ports, cycle-accurate
 * and context IDs on and off, through both capture formats. */
void test_v1_captures_real_code(void **state)
{
	static const uint32_t crs[] = {
		0,
		ETM2_ETMCR_CYCLE_ACCURATE | (3u << ETM2_ETMCR_CID_SHIFT),
		ETM2_ETMCR_BRANCH_OUTPUT | (1u << ETM2_ETMCR_CID_SHIFT),
	};
	unsigned run = 0;

	(void)state;
	for (size_t i = 0; i < N_REAL; i++) {
		struct ts_rec rc = { 0 };

		read_items(real_inputs[i], &rc);
		for (size_t k = 0; k < sizeof(crs) / sizeof(crs[0]); k++)
			for (unsigned w = 4; w <= 8; w += 4, run++) {
				struct etm2_enc_config c;

				etm2_enc_config_init(&c);
				c.etm.version = 1;
				c.etm.etmcr = crs[k];
				c.etm.port_width = (uint8_t)w;
				c.sync_period = run & 1 ? 16 : 0;
				capture_run(&c, &rc, run & 2);
			}
		ts_rec_free(&rc);
	}
}
