/* PTM trace encoder, round trips through the packet decoder (ptm_pkt_*):
 * random records (addresses anywhere in 32 bits, A32 and T32, direct and
 * indirect branches, instruction set changes, exceptions, gaps, context
 * and security changes, timestamps, cycle counts) under random register
 * set-ups are encoded, decoded into packets, and the packets read back
 * against the record item by item: each waypoint's atom (E or N) or the
 * branch address packet that stands for it with the target's full
 * address and instruction set, each exception's packet with its number
 * and handler, I-syncs where the record jumps, waypoint updates to the
 * last instruction executed, context ID, VMID, NS and timestamps as the
 * record has them, and in cycle-accurate mode every cycle count the sum
 * of the record's cycles since the one before. The packet decoder knows
 * nothing of the record: it checks the compression and every field. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "etmkit/exec.h"
#include "etmkit/ptm.h"
#include "etmkit/qemu_log.h"

#include "ts_out.h"
#include "ts_ptm_check.h"
#include "ts_rec.h"

#include "test_ptm_enc.h"

static uint64_t rs_state;

static uint32_t rnd(void)
{
	rs_state ^= rs_state << 13;
	rs_state ^= rs_state >> 7;
	rs_state ^= rs_state << 17;
	return (uint32_t)(rs_state >> 11);
}

static uint32_t below(uint32_t n)
{
	return rnd() % n;
}

/* ---- Records ----------------------------------------------------------------- */

static uint32_t rnd_addr(uint8_t isa)
{
	return rnd() & (isa == etmkit_isa_arm ? ~3u : ~1u);
}

static uint8_t rnd_isa(void)
{
	return below(2) ? etmkit_isa_arm : etmkit_isa_thumb;
}

/* A record of about @steps items. */
static void make_record(struct ts_rec *rc, unsigned steps, int cycles)
{
	uint8_t isa = rnd_isa();
	uint32_t pc = rnd_addr(isa);
	uint64_t t = rnd();

	for (unsigned i = 0; i < steps; i++) {
		unsigned k = below(100);
		struct exec_rec *r;

		if (k < 3) {
			r = ts_rec_add(rc, exec_exception);
			r->number = below(exec_exc_count);
			r->addr = pc;
			isa = rnd_isa();
			pc = rnd_addr(isa);
			continue;
		}
		if (k < 4) {
			r = ts_rec_add(rc, exec_gap);
			if (cycles && below(2)) {
				r->flags = EXEC_F_CYCLES;
				r->cycles = below(5000);
			}
			isa = rnd_isa();
			pc = rnd_addr(isa);
			continue;
		}
		if (k < 7) {
			r = ts_rec_add(rc, exec_context);
			r->flags = below(8);
			r->value = rnd();
			r->vmid = below(256);
			r->el = (uint8_t)below(4);
			r->ns = (uint8_t)below(2);
			continue;
		}
		if (k < 10) {
			t += below(4) ? below(300) : (uint64_t)rnd() << below(30);
			r = ts_rec_add(rc, exec_timestamp);
			r->value = t;
			continue;
		}
		if (k < 11) { /* the record goes on elsewhere */
			isa = rnd_isa();
			pc = rnd_addr(isa);
		}
		r = ts_rec_add(rc, exec_insn);
		r->isa = isa;
		r->addr = pc;
		r->size = isa == etmkit_isa_arm || below(2) ? 4 : 2;
		if (cycles && below(4)) {
			r->flags |= EXEC_F_CYCLES;
			r->cycles = below(8) ? below(40) : rnd();
		}
		pc += r->size;
		k = below(100);
		if (k < 40)
			continue;
		r->flags |= EXEC_F_BRANCH;
		if (k < 55)
			continue; /* not taken */
		r->flags |= EXEC_F_TAKEN;
		if (k < 75)
			r->flags |= EXEC_F_INDIRECT;
		r->target_isa = k >= 95 ? rnd_isa() : isa;
		/* near (compressed) or anywhere */
		r->target = below(2) ? ((pc + (rnd() & 0x3fff)) &
					(r->target_isa == etmkit_isa_arm ? ~3u : ~1u))
				     : rnd_addr(r->target_isa);
		isa = r->target_isa;
		pc = (uint32_t)r->target;
	}
}

void test_packets_random(void **state)
{
	(void)state;
	for (unsigned run = 0; run < 300; run++) {
		struct ptm_enc_config c;
		struct ptm_enc *e = NULL;
		struct ts_out o;
		struct ts_rec rc = { 0 };
		char why[256];
		static const uint32_t cid[4] = { 0, 1, 2, 3 };

		rs_state = 0x9e3779b97f4a7c15ull ^ (uint64_t)(run + 1) * 0x2545f491ull;
		ptm_enc_config_init(&c);
		c.etmidr = below(2) ? 0x411CF312u : 0x411CF301u;
		c.etmccer = below(2) ? 0x34C01AC2u : 0x000008EAu;
		c.etmcr = cid[below(4)] << PTM_ETMCR_CID_SHIFT;
		if (below(2))
			c.etmcr |= PTM_ETMCR_CYCLE_ACCURATE;
		if (below(4) == 0)
			c.etmcr |= PTM_ETMCR_BRANCH_BROADCAST;
		if (below(2))
			c.etmcr |= PTM_ETMCR_TIMESTAMP;
		if (below(2))
			c.etmcr |= PTM_ETMCR_VMID;
		c.sync_period = below(2) ? 0 : 16 + below(200);
		make_record(&rc, 200 + below(2000),
			    !!(c.etmcr & PTM_ETMCR_CYCLE_ACCURATE));
		memset(&o, 0, sizeof(o));
		assert_int_equal(ptm_enc_alloc(&e, &c, ts_out_sink, &o), 0);
		for (size_t i = 0; i < rc.n; i++)
			assert_int_equal(ptm_enc_put(e, &rc.r[i]), 0);
		assert_int_equal(ptm_enc_finish(e), 0);
		ptm_enc_free(e);
		if (ts_ptm_check(&c, o.b, o.n, 1 + below(300), &rc, why,
				 sizeof(why)))
			fail_msg("run %u: %s", run, why);
		ts_out_free(&o);
		ts_rec_free(&rc);
	}
}

/* ---- Round trips through the flow decoder ------------------------------------ */

/* The items of record or QEMU log @name under tests/data. */
static void read_items(const char *name, struct ts_rec *rc)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", ETMKIT_TEST_DATA, name);
	if (ts_rec_read(path, rc))
		fail_msg("cannot read %s", path);
}

/* Real code (a QEMU user-mode run of tests/workloads/tiny.c in A32 with
 * T32 interworking, its three log forms; the A32/T32 record with
 * exceptions and ISB) under every option: encoded, decoded into packets
 * and by the flow decoder, whole and in chunks, both read back against
 * the record. */
void test_flow_round_trips(void **state)
{
	static const char *const inputs[] = {
		"qemu/tiny-a32-block.log", "qemu/tiny-a32-cpu.log",
		"qemu/tiny-a32-state.log", "records/a32_t32_flow.txt",
	};
	static const uint32_t crs[] = {
		0, PTM_ETMCR_CYCLE_ACCURATE, PTM_ETMCR_RETURN_STACK,
		PTM_ETMCR_RETURN_STACK | PTM_ETMCR_CYCLE_ACCURATE |
		PTM_ETMCR_TIMESTAMP | (3u << PTM_ETMCR_CID_SHIFT),
		PTM_ETMCR_BRANCH_BROADCAST | PTM_ETMCR_VMID |
		(1u << PTM_ETMCR_CID_SHIFT),
	};

	(void)state;
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		struct ts_rec rc = { 0 };
		struct ts_rec_code code;

		read_items(inputs[i], &rc);
		assert_int_equal(ts_rec_code(&code, &rc), 0);
		for (size_t k = 0; k < sizeof(crs) / sizeof(crs[0]); k++) {
			for (unsigned v = 0; v < 2; v++) {
				struct ptm_enc_config c;
				struct ptm_enc *e = NULL;
				struct ts_out o;
				char why[256];

				ptm_enc_config_init(&c);
				c.etmcr = crs[k];
				c.etmidr = v ? 0x411CF312u : 0x411CF301u;
				c.etmccer = v ? 0x34C01AC2u : 0x000008EAu;
				c.sync_period = v ? 0 : 64;
				memset(&o, 0, sizeof(o));
				assert_int_equal(ptm_enc_alloc(&e, &c,
							       ts_out_sink, &o), 0);
				for (size_t j = 0; j < rc.n; j++)
					assert_int_equal(ptm_enc_put(e, &rc.r[j]), 0);
				assert_int_equal(ptm_enc_finish(e), 0);
				ptm_enc_free(e);
				if (ts_ptm_check(&c, o.b, o.n, 3, &rc, why,
						 sizeof(why)) ||
				    ts_ptm_flow_check(&c, code.img, o.b, o.n, 0,
						      &rc, why, sizeof(why)) ||
				    ts_ptm_flow_check(&c, code.img, o.b, o.n,
						      1 + k, &rc, why,
						      sizeof(why)))
					fail_msg("%s, ETMCR 0x%x, PFTv1.%u: %s",
						 inputs[i], c.etmcr, v, why);
				ts_out_free(&o);
			}
		}
		ts_rec_code_free(&code);
		ts_rec_free(&rc);
	}
}
