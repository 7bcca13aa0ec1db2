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

void test_packets_random(void **state)
{
	(void)state;
	rs_state = 0x9e3779b97f4a7c15ull;
	for (unsigned t = 0; t < 300; t++) {
		struct etm2_enc_config c;
		struct ts_rec rc = { 0 };
		struct ts_cycles cy = { 0 };
		struct etm2_enc *e = NULL;
		struct ts_etm2_result res;

		rnd_config(&c);
		rnd_record(&rc, 50 + pick(400));
		assert_int_equal(etm2_enc_alloc(&e, &c, ts_cycles_sink, &cy), 0);
		for (size_t i = 0; i < rc.n; i++)
			assert_int_equal(etm2_enc_put(e, &rc.r[i]), 0);
		assert_int_equal(etm2_enc_finish(e), 0);
		assert_int_equal(etm2_enc_get_stats(e)->overflows, 0);
		check(&c.etm, &cy, 0, &rc, &res);
		assert_int_equal(res.insns, etm2_enc_get_stats(e)->insns);
		etm2_enc_free(e);
		ts_rec_free(&rc);
		free(cy.c);
	}
}

/* A FIFO of 16 to 40 bytes on straight-line code with stores of four
 * byte values: it overflows (docs/etmv2.md 4; the encoder stops tracing,
 * the FIFO drains, a TFO of reason overflow restarts at an instruction);
 * the decode shows every instruction but the lost ones, which are
 * exactly as many as the encoder counts, and no decoding error. */
void test_overflow_random(void **state)
{
	(void)state;
	rs_state = 0x2545f4914f6cdd1dull;
	for (unsigned t = 0; t < 100; t++) {
		struct etm2_enc_config c;
		struct ts_rec rc = { 0 };
		struct ts_cycles cy = { 0 };
		struct etm2_enc *e = NULL;
		const struct etm2_enc_stats *st;
		struct ts_etm2_result res;
		uint32_t pc = 0x10000;

		rnd_config(&c);
		c.fifo_depth = 16 + pick(25);
		c.etm.etmcr |= ETM2_ETMCR_DATA_VALUE;
		for (unsigned i = 0; i < 400; i++) {
			struct exec_rec *r = ts_rec_insn(&rc, etmkit_isa_arm, 4,
							 pc, 0, 0, 0, 0);
			r->flags = pick(4) ? 0 : EXEC_F_CYCLES;
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
		assert_int_equal(etm2_enc_alloc(&e, &c, ts_cycles_sink, &cy), 0);
		for (size_t i = 0; i < rc.n; i++)
			assert_int_equal(etm2_enc_put(e, &rc.r[i]), 0);
		assert_int_equal(etm2_enc_finish(e), 0);
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
		struct exec_rec *r = ts_rec_insn(&rc, etmkit_isa_arm, 4, pc, 0,
						 0, 0, 0);

		(void)r;
		pc += 4;
		r = ts_rec_add(&rc, exec_data);
		r->flags = EXEC_D_STORE;
		r->addr = 0x80000000u | rnd() << 2;
		r->size = 4;
		r->value = 0x01000000u | rnd();
	}
	for (unsigned i = 0; i < 9000; i++, n++, pc += 4)
		ts_rec_insn(&rc, etmkit_isa_arm, 4, pc, 0, 0, 0, 0);
	assert_int_equal(etm2_enc_alloc(&e, &c, ts_cycles_sink, &cy), 0);
	for (size_t i = 0; i < rc.n; i++)
		assert_int_equal(etm2_enc_put(e, &rc.r[i]), 0);
	assert_int_equal(etm2_enc_finish(e), 0);
	st = etm2_enc_get_stats(e);
	assert_int_equal(st->overflows, 0);
	/* the FIFO really was deep: the last store's bytes left well after
	 * 3584 cycles (the decoder's bound before this test) */
	assert_true(st->cycles > 430 + 7000);
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
	ci.version = 2;
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

/* QEMU armhf runs of tests/workloads/tiny.c (A32 with T32 interworking,
 * its three log forms) and the A32/T32 record with exceptions, under
 * 4, 8 and 16-bit ports, data trace on and off, cycle-accurate on and
 * off, context IDs, phantoms on and off and load misses: encoded, written
 * as a binary or text capture, read back, decoded into packets and read
 * back against the record. */
void test_captures_real_code(void **state)
{
	static const char *const inputs[] = {
		"qemu/tiny-a32-block.log", "qemu/tiny-a32-cpu.log",
		"qemu/tiny-a32-state.log", "records/a32_t32_flow.txt",
	};
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
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		struct ts_rec rc = { 0 };

		read_items(inputs[i], &rc);
		for (size_t k = 0; k < sizeof(crs) / sizeof(crs[0]); k++)
			for (unsigned w = 0; w < 3; w++, run++) {
				struct etm2_enc_config c;
				struct ts_cycles cy = { 0 };
				struct ts_etm2_result res;

				etm2_enc_config_init(&c);
				c.etm.etmcr = crs[k];
				c.etm.port_width = widths[w];
				c.etm.fifo_latency = (uint8_t)(run & 1);
				c.flags = run & 2 ? ETM2_ENC_PHANTOMS : 0;
				c.miss_every = run % 3;
				c.sync_period = run & 4 ? 32 : 0;
				c.fifo_depth = 4096;
				encode_capture(&c, &rc, run & 1 ? etm2_cap_text
							      : etm2_cap_binary,
					       &cy);
				check(&c.etm, &cy, 0, &rc, &res);
				assert_int_equal(res.lost, 0);
				free(cy.c);
			}
		ts_rec_free(&rc);
	}
}
