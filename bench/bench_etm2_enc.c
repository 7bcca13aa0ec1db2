/* bench_etm2_enc: throughput of etmkit's ETMv2 trace encoder (etm2_enc_*)
 * in record items and cycles per second, then of the same encoder as
 * ETMv1 (version 1) on the same record.
 *
 * No peer exists (no other ETMv2 encoder). The input is a generated
 * record held in memory: a loop of 16 A32 instructions (plain ones, a
 * load and a store of 3 cycles each with their data items, a BL, an indirect return, a
 * not-taken branch, a condition failure) repeated to --mb MiB of items,
 * encoded with data addresses and values traced on an 8-bit port (FIFO 64
 * bytes, periodic TFOs every 1024 cycles). The cycles go to a sink that
 * checksums them; every run must give the same cycles, and the heap must
 * not grow while encoding (nothing is allocated per item or cycle). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "etmkit/etm2.h"

struct sum {
	uint64_t cycles, checksum;
};

static int sink(void *ctx, const struct etm2_cycle *c, size_t n)
{
	struct sum *s = ctx;

	for (size_t i = 0; i < n; i++)
		s->checksum = s->checksum * 31u + c[i].ps * 65537u + c[i].pkt;
	s->cycles += n;
	return 0;
}

static struct exec_rec insn(uint32_t addr, uint32_t flags, uint32_t target)
{
	struct exec_rec r;

	memset(&r, 0, sizeof(r));
	r.kind = exec_insn;
	r.isa = etmkit_isa_arm;
	r.size = 4;
	r.addr = addr;
	r.flags = flags;
	if (flags & EXEC_F_TAKEN) {
		r.target = target;
		r.target_isa = etmkit_isa_arm;
	}
	return r;
}

static struct exec_rec data(uint32_t addr, uint64_t value, int store)
{
	struct exec_rec r;

	memset(&r, 0, sizeof(r));
	r.kind = exec_data;
	r.addr = addr;
	r.value = value;
	r.size = 4;
	r.flags = store ? EXEC_D_STORE : 0;
	return r;
}

/* One pass of the loop at 0x8000 (a call to 0x9000 and back) into @r;
 * returns the item count. */
static size_t loop(struct exec_rec *r, uint32_t i)
{
	const uint32_t br = EXEC_F_BRANCH | EXEC_F_TAKEN;
	size_t n = 0;

	r[n++] = insn(0x8000, 0, 0);
	r[n++] = insn(0x8004, 0, 0);
	r[n++] = insn(0x8008, 0, 0);
	r[n - 1].opcode = 0xe5910000; /* LDR r0, [r1]: 3 cycles */
	r[n - 1].flags = EXEC_F_CYCLES;
	r[n - 1].cycles = 3;
	r[n++] = data(0x20001000 + 4 * (i & 63), i * 7u, 0);
	r[n++] = insn(0x800c, EXEC_F_CYCLES, 0);  /* STR: 3 cycles */
	r[n - 1].cycles = 3;
	r[n++] = data(0x20002000 + 4 * (i & 15), 0x12345678u ^ i, 1);
	r[n++] = insn(0x8010, EXEC_F_COND_FAIL, 0);
	r[n++] = insn(0x8014, EXEC_F_BRANCH, 0);   /* not taken */
	r[n] = insn(0x8018, br, 0x9000);           /* BL */
	r[n++].opcode = 0xeb0003f8;
	r[n++] = insn(0x9000, 0, 0);
	r[n++] = insn(0x9004, 0, 0);
	r[n++] = insn(0x9008, 0, 0);
	r[n++] = insn(0x900c, br | EXEC_F_INDIRECT, 0x801c); /* BX lr */
	r[n++] = insn(0x801c, 0, 0);
	r[n++] = insn(0x8020, 0, 0);
	r[n++] = insn(0x8024, 0, 0);
	r[n++] = insn(0x8028, br, 0x8000);         /* B back */
	return n;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_etm2_enc [--mb N] [--runs N]\n"
		   "  ETMv2 encoder on N MiB (default 100) of generated record "
		   "items.\n");
}

/* @runs encodes of @items[0..n) under @cfg; prints the best rate as
 * @name. Returns 0, or 1 on a mismatch (printed). */
static int bench_one(const char *name, const struct etm2_enc_config *cfg,
		     const struct exec_rec *items, size_t n, uint64_t insns,
		     int runs)
{
	struct sum s1 = { 0 }, s;
	uint64_t overflows = 0;
	double best = 0.0;

	for (int r = 0; r < runs; r++) {
		struct etm2_enc *e;
		size_t heap0;
		double t0, t;
		int rc;

		memset(&s, 0, sizeof(s));
		if (etm2_enc_alloc(&e, cfg, sink, &s)) {
			fprintf(stderr, "bench_etm2_enc: etm2_enc_alloc failed\n");
			return 1;
		}
		heap0 = bench_heap_in_use();
		t0 = bench_now();
		rc = 0;
		for (size_t i = 0; i < n && !rc; i++)
			rc = etm2_enc_put(e, &items[i]);
		if (!rc)
			rc = etm2_enc_finish(e);
		t = bench_now() - t0;
		if (rc || bench_heap_in_use() > heap0 + 65536 ||
		    etm2_enc_get_stats(e)->insns + etm2_enc_get_stats(e)->insns_lost
			    != insns) {
			printf("%s  MISMATCH: rc %d, or the heap grew, or "
			       "instructions went missing\n", name, rc);
			etm2_enc_free(e);
			return 1;
		}
		overflows = etm2_enc_get_stats(e)->overflows;
		etm2_enc_free(e);
		if (r == 0)
			s1 = s;
		else if (s.cycles != s1.cycles || s.checksum != s1.checksum) {
			printf("%s  MISMATCH: run %d wrote other cycles\n", name,
			       r);
			return 1;
		}
		if (r == 0 || t < best)
			best = t;
	}
	printf("%s  etmkit   %8.2f Mitems/s  %8.2f Minsns/s  %8.2f "
	       "Mcycles/s  best of %d; %" PRIu64 " cycles, %" PRIu64
	       " overflows\n", name,
	       (double)n / best / 1e6, (double)insns / best / 1e6,
	       (double)s1.cycles / best / 1e6, runs, s1.cycles, overflows);
	return 0;
}

int main(int argc, char **argv)
{
	struct bench_options o;
	struct etm2_enc_config cfg;
	struct exec_rec *items;
	size_t n = 0, cap;
	uint64_t insns = 0;
	int bad;

	if (bench_parse_args("bench_etm2_enc", argc, argv, &o, -1.0, NULL, NULL,
			     usage))
		return 2;
	if (o.mb == 128)
		o.mb = 100;
	cap = (size_t)(o.mb * MIB / sizeof(struct exec_rec));
	items = malloc((cap + 32) * sizeof(*items));
	if (!items) {
		fprintf(stderr, "bench_etm2_enc: out of memory\n");
		return 1;
	}
	for (uint32_t i = 0; n < cap; i++)
		n += loop(items + n, i);
	for (size_t i = 0; i < n; i++)
		insns += items[i].kind == exec_insn;
	etm2_enc_config_init(&cfg);
	cfg.etm.port_width = 8;
	cfg.etm.etmcr = ETM2_ETMCR_DATA_ADDR | ETM2_ETMCR_DATA_VALUE;
	printf("etm2_enc  input    %.1f MiB: %zu items, %" PRIu64
	       " instructions (generated)\n",
	       (double)(n * sizeof(*items)) / MIB, n, insns);
	printf("etm2_enc  peer     none: no other ETMv2 encoder\n");
	bad = bench_one("etm2_enc", &cfg, items, n, insns, o.runs);
	/* ETMv1 (docs/etmv2.md 7b) on the same record: its loads and
	 * stores are single words, as ETMv1 data trace needs */
	cfg.etm.version = 1;
	if (!bad)
		bad = bench_one("etm1_enc", &cfg, items, n, insns, o.runs);
	free(items);
	return bad;
}
