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

/* ---- Cycles ------------------------------------------------------------- */

struct cycles {
	struct etm2_cycle *c;
	size_t n, cap;
};

static int sink(void *ctx, const struct etm2_cycle *c, size_t n)
{
	struct cycles *o = ctx;

	if (o->n + n > o->cap) {
		o->cap = (o->n + n) * 2;
		o->c = realloc(o->c, o->cap * sizeof(*o->c));
		assert_non_null(o->c);
	}
	memcpy(o->c + o->n, c, n * sizeof(*c));
	o->n += n;
	return 0;
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

struct xp {          /* an expected data packet */
	uint32_t addr, value;
	uint8_t a;
};

struct check {
	const struct ts_rec *rc;
	struct etm2_config_info info;
	size_t i;                 /* next record item */
	uint32_t cid;             /* after the items read */
	int exc;                  /* an exception item read since the last
				     instruction */
	const struct exec_rec *cur; /* the last instruction read */
	struct xp xp[128];        /* its data packets */
	unsigned nxp, pos;
	uint32_t miss[4];
	uint8_t miss_valid[4];
	int last_dw;
	uint64_t insns;
	uint64_t lost;            /* instructions an overflow skipped */
	int exp_valid;            /* the decoder's walk: where the next */
	uint32_t exp;             /* instruction is */
};

/* Read the record up to its next instruction (context, exceptions);
 * returns it (not consumed), or NULL at the end. */
static const struct exec_rec *peek_insn(struct check *k)
{
	while (k->i < k->rc->n) {
		const struct exec_rec *r = &k->rc->r[k->i];

		if (r->kind == exec_insn)
			return r;
		if (r->kind == exec_context && (r->flags & EXEC_CTX_CONTEXTID))
			k->cid = (uint32_t)r->value;
		if (r->kind == exec_exception)
			k->exc = 1;
		if (r->kind == exec_gap)
			k->exc = 0;
		k->i++;
	}
	return NULL;
}

static uint32_t cid_mask(const struct check *k, uint32_t v)
{
	unsigned b = k->info.context_id_bytes;

	return b == 4 ? v : v & ((1u << (8 * b)) - 1);
}

/* Take the next instruction: its data packets become the expected ones. */
static const struct exec_rec *take_insn(struct check *k, uint64_t cycle)
{
	const struct exec_rec *r;

	if (k->cur && k->pos != k->nxp && !k->miss_valid[0] &&
	    !k->miss_valid[1] && !k->miss_valid[2] && !k->miss_valid[3])
		fail_msg("cycle %llu: %u of %u data packets of 0x%llx",
			 (unsigned long long)cycle, k->pos, k->nxp,
			 (unsigned long long)k->cur->addr);
	r = peek_insn(k);
	if (!r)
		fail_msg("cycle %llu: an instruction past the record's end",
			 (unsigned long long)cycle);
	if (k->exp_valid && !k->exc && (uint32_t)r->addr != k->exp) {
		if (getenv("E2DEBUG"))
			for (size_t j = 0; j <= k->i; j++)
				fprintf(stderr, "%zu kind %u addr %llx flags %x target %llx isa %u\n", j, k->rc->r[j].kind, (unsigned long long)k->rc->r[j].addr, k->rc->r[j].flags, (unsigned long long)k->rc->r[j].target, k->rc->r[j].isa);
		fail_msg("cycle %llu: the walk at 0x%x, the record at 0x%llx",
			 (unsigned long long)cycle, k->exp,
			 (unsigned long long)r->addr);
	}
	k->exp_valid = 1;
	k->exp = (uint32_t)(r->flags & EXEC_F_TAKEN &&
			    !(r->flags & EXEC_F_COND_FAIL) ? r->target
							   : r->addr + r->size);
	k->i++;
	k->exc = 0;
	k->cur = r;
	k->nxp = k->pos = 0;
	k->insns++;
	if (!k->info.data_addr && !k->info.data_value)
		return r;
	for (size_t j = k->i; j < k->rc->n && k->rc->r[j].kind == exec_data;
	     j++) {
		const struct exec_rec *d = &k->rc->r[j];

		if (k->nxp + 2 > 128)
			break;
		k->xp[k->nxp].addr = (uint32_t)d->addr;
		k->xp[k->nxp].value = (uint32_t)d->value;
		k->xp[k->nxp++].a = j == k->i;
		if (d->size == 8) {
			k->xp[k->nxp].value = (uint32_t)(d->value >> 32);
			k->xp[k->nxp++].a = 0;
		}
	}
	return r;
}

static void check_data(struct check *k, const struct etm2_packet *p)
{
	const struct etm2_data *d = &p->u.data;
	const struct xp *x;

	if (!k->cur || k->pos >= k->nxp)
		fail_msg("cycle %llu: a data packet no transfer made",
			 (unsigned long long)p->cycle);
	x = &k->xp[k->pos++];
	assert_int_equal(d->a_bit, x->a);
	if (d->has_addr) {
		/* The first after a TFO is full (docs/etmv2.md 4). */
		assert_false(d->addr_partial);
		assert_int_equal(d->addr, x->addr);
	}
	else
		assert_false(x->a && k->info.data_addr);
	if (p->type == etm2_pkt_load_miss) {
		k->miss[d->tag] = x->value;
		k->miss_valid[d->tag] = 1;
		return;
	}
	if (k->info.data_value)
		assert_int_equal(d->value, x->value);
}

static int is_insn_status(unsigned s)
{
	return s <= etm2_st_dn || (s >= etm2_st_ptie && s <= etm2_st_pndn);
}

static void check_status(struct check *k, const struct etm2_packet *p)
{
	unsigned s = p->status, base = s;
	const struct exec_rec *r;
	int fail;

	k->last_dw = s == etm2_st_dw;
	if (!is_insn_status(s))
		return;
	if (s >= etm2_st_ptie) {
		/* The phantom: a direct branch, taken (PT) or not. */
		r = take_insn(k, p->cycle);
		assert_true(r->flags & EXEC_F_BRANCH);
		assert_false(r->flags & EXEC_F_INDIRECT);
		assert_int_equal(!!(r->flags & EXEC_F_TAKEN) &&
				 !(r->flags & EXEC_F_COND_FAIL),
				 s < etm2_st_pnie);
		base = (s - etm2_st_ptie) & 3;
	}
	r = take_insn(k, p->cycle);
	fail = (r->flags & EXEC_F_COND_FAIL) ||
	       ((r->flags & EXEC_F_BRANCH) && !(r->flags & EXEC_F_TAKEN));
	if (fail != (base == etm2_st_in || base == etm2_st_dn))
		fail_msg("cycle %llu: %s for 0x%llx (%s)",
			 (unsigned long long)p->cycle, etm2_status_name(s),
			 (unsigned long long)r->addr,
			 fail ? "failed" : "executed");
}

static void check_tfo(struct check *k, const struct etm2_packet *p)
{
	const struct etm2_tfo *t = &p->u.tfo;
	const struct exec_rec *r = peek_insn(k);

	assert_non_null(r);
	if (t->reason == etm2_reason_overflow) {
		/* Trace restarts at the TFO's address (unique addresses:
		 * straight-line code); what lies before it was lost. */
		k->cur = NULL;
		while (r && (uint32_t)r->addr != t->addr) {
			k->i++;
			k->lost++;
			r = peek_insn(k);
		}
		assert_non_null(r);
	}
	if (t->addr != (uint32_t)r->addr || t->isa != r->isa)
		fail_msg("cycle %llu: TFO at 0x%x, the record at 0x%llx",
			 (unsigned long long)p->cycle, t->addr,
			 (unsigned long long)r->addr);
	assert_int_equal(t->context_id, cid_mask(k, k->cid));
	k->exp_valid = 0;
	if (t->reason == etm2_reason_periodic)
		take_insn(k, p->cycle);
	memset(k->miss_valid, 0, sizeof(k->miss_valid));
}

static void check_branch(struct check *k, const struct etm2_packet *p)
{
	const struct etm2_branch *b = &p->u.branch;

	if (k->last_dw) {
		/* An exception entry: the handler's address. */
		const struct exec_rec *r = peek_insn(k);

		assert_non_null(r);
		assert_true(k->exc);
		assert_int_equal(b->addr, (uint32_t)r->addr);
		assert_int_equal(b->isa, r->isa);
		return;
	}
	assert_non_null(k->cur);
	assert_true(k->cur->flags & EXEC_F_TAKEN);
	if (b->addr != (uint32_t)k->cur->target || b->isa != k->cur->target_isa)
		fail_msg("cycle %llu: branch to 0x%x isa %u, record 0x%llx %u",
			 (unsigned long long)p->cycle, b->addr, b->isa,
			 (unsigned long long)k->cur->target,
			 k->cur->target_isa);
}

static void check_packet(struct check *k, const struct etm2_packet *p)
{
	if (p->error)
		fail_msg("cycle %llu: decode error %d (%s)",
			 (unsigned long long)p->cycle, p->error,
			 p->why ? p->why : "");
	switch (p->type) {
	case etm2_pkt_unsynced:
	case etm2_pkt_wait:
		break;
	case etm2_pkt_tfo:
		check_tfo(k, p);
		break;
	case etm2_pkt_status:
		check_status(k, p);
		break;
	case etm2_pkt_branch_address:
		check_branch(k, p);
		break;
	case etm2_pkt_normal_data:
	case etm2_pkt_load_miss:
		check_data(k, p);
		break;
	case etm2_pkt_load_miss_data:
		assert_true(k->miss_valid[p->u.data.tag]);
		assert_int_equal(p->u.data.value, k->miss[p->u.data.tag]);
		k->miss_valid[p->u.data.tag] = 0;
		break;
	case etm2_pkt_context_id:
		peek_insn(k);
		assert_int_equal(p->u.context_id, cid_mask(k, k->cid));
		break;
	default:
		fail_msg("cycle %llu: a %s record", (unsigned long long)p->cycle,
			 etm2_pkt_type_name(p->type));
	}
}

static void decode(const struct etm2_config *cfg, const struct cycles *cy,
		   struct check *k)
{
	struct etm2_pkt_decoder *dec = NULL;
	struct etm2_packet pk[64];
	int n;

	assert_int_equal(etm2_pkt_alloc(&dec, cfg), 0);
	assert_int_equal(etm2_pkt_feed(dec, cy->c, cy->n, 0), 0);
	while ((n = etm2_pkt_next(dec, pk, 64)) > 0)
		for (int j = 0; j < n; j++)
			check_packet(k, &pk[j]);
	assert_int_equal(etm2_pkt_finish(dec), 0);
	while ((n = etm2_pkt_next(dec, pk, 64)) > 0)
		for (int j = 0; j < n; j++)
			check_packet(k, &pk[j]);
	etm2_pkt_free(dec);
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
		struct cycles cy = { 0 };
		struct etm2_enc *e = NULL;
		struct check k;

		rnd_config(&c);
		rnd_record(&rc, 50 + pick(400));
		assert_int_equal(etm2_enc_alloc(&e, &c, sink, &cy), 0);
		for (size_t i = 0; i < rc.n; i++)
			assert_int_equal(etm2_enc_put(e, &rc.r[i]), 0);
		assert_int_equal(etm2_enc_finish(e), 0);
		assert_int_equal(etm2_enc_get_stats(e)->overflows, 0);
		memset(&k, 0, sizeof(k));
		k.rc = &rc;
		assert_int_equal(etm2_config_decode(&c.etm, &k.info), 0);
		decode(&c.etm, &cy, &k);
		assert_null(peek_insn(&k));
		assert_int_equal(k.insns, etm2_enc_get_stats(e)->insns);
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
		struct cycles cy = { 0 };
		struct etm2_enc *e = NULL;
		const struct etm2_enc_stats *st;
		struct check k;
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
		assert_int_equal(etm2_enc_alloc(&e, &c, sink, &cy), 0);
		for (size_t i = 0; i < rc.n; i++)
			assert_int_equal(etm2_enc_put(e, &rc.r[i]), 0);
		assert_int_equal(etm2_enc_finish(e), 0);
		st = etm2_enc_get_stats(e);
		memset(&k, 0, sizeof(k));
		k.rc = &rc;
		assert_int_equal(etm2_config_decode(&c.etm, &k.info), 0);
		decode(&c.etm, &cy, &k);
		while (peek_insn(&k)) { /* lost after the last restart */
			k.i++;
			k.lost++;
		}
		if (c.etm.port_width == 4 || c.fifo_depth < 30)
			assert_true(st->overflows > 0);
		assert_int_equal(k.insns, st->insns);
		assert_int_equal(k.lost, st->insns_lost);
		assert_int_equal(k.insns + k.lost, 400);
		etm2_enc_free(e);
		ts_rec_free(&rc);
		free(cy.c);
	}
}

/* ---- Real code, through the capture formats ------------------------------ */

/* The items of record or QEMU log @name under tests/data. */
static void read_items(const char *name, struct ts_rec *rc)
{
	char path[512];
	FILE *f;
	struct exec_rec r;
	struct exec_diag dg;
	int k;

	snprintf(path, sizeof(path), "%s/%s", ETMKIT_TEST_DATA, name);
	f = fopen(path, "r");
	assert_non_null(f);
	if (strstr(name, ".log")) {
		struct qemu_log_reader *rd;
		struct qemu_log_config qc = { .size = sizeof(qc) };

		assert_int_equal(qemu_log_reader_alloc(&rd, f, &qc), 0);
		while ((k = qemu_log_next(rd, &r, &dg)) == 1)
			*ts_rec_add(rc, r.kind) = r;
		qemu_log_reader_free(rd);
	} else {
		struct exec_text_reader *rd;

		assert_int_equal(exec_text_reader_alloc(&rd, f), 0);
		while ((k = exec_text_next(rd, &r, &dg)) == 1)
			*ts_rec_add(rc, r.kind) = r;
		exec_text_reader_free(rd);
	}
	assert_int_equal(k, 0);
	fclose(f);
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
			   struct cycles *cy)
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
		sink(cy, buf, (size_t)n);
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
				struct cycles cy = { 0 };
				struct check ck;

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
				memset(&ck, 0, sizeof(ck));
				ck.rc = &rc;
				assert_int_equal(etm2_config_decode(&c.etm,
								    &ck.info), 0);
				decode(&c.etm, &cy, &ck);
				assert_null(peek_insn(&ck));
				free(cy.c);
			}
		ts_rec_free(&rc);
	}
}
