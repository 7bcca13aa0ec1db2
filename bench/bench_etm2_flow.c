/* bench_etm2_flow: throughput of etmkit's ETMv2 flow decoder in both
 * forms. No other decoder has ETMv2 (OpenCSD has none): the rates are
 * etmkit's own.
 *
 * Default input: a capture made by etmkit's ETMv2 encoder (etm2_enc_*)
 * from a QEMU armhf log (--qemu FILE, default tests/data/qemu/
 * tiny-a32-state.log: A32 with T32 interworking), encoded again and again
 * until the capture holds --mb MiB of cycles (4 bytes a cycle, as the
 * binary capture format: docs/etmv2-capture.md), 8-bit port, data
 * addresses and values traced, FIFO 4096 bytes (no overflow), periodic
 * TFOs every 1024 cycles. Timed: decoder allocation, feeding the cycles
 * 64 Ki at a time through the packet decoder into the flow decoder,
 * draining every element, end of trace, release: cycles/s and
 * instructions/s. The instructions delivered must be the ones encoded.
 *
 * --records: the flow layer alone, over the records a packet decoder
 * would deliver, built deterministically: a 16-instruction A32 loop (a
 * load and a store with data, IE runs, a conditional branch failing and
 * one taken, a phantom, an indirect branch with its address, 18 cycles a
 * pass with its wait cycles), fed again and again
 * (etm2_flow_feed_records(); the cycle indexes repeat, which the flow
 * decoder does not mind). --records 2: the same loop as ETMv1 records
 * (docs/etmv2.md 7b): trace starts at a BE with a full address of
 * reason 1, the load and the store are ID with data, the folded branch
 * an IE and the add after it another, the BX a BE held until its
 * address.
 *
 * --etm-version 1: the capture is ETMv1 (the ETMv1 encoder, docs/etmv2.md
 * 7b: 3-bit statuses, APO cycles, periodic full addresses), data trace
 * off (ETMv1 data carries one 4-byte transfer an instruction; the log has
 * others), through the ETMv1 packet decoder into the flow decoder.
 *
 * Best of --runs runs. The consumer counts instructions and sums their
 * addresses, so every element is read.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/flow.h"
#include "flow/etm2_flow_int.h"
#include "bench_common.h"
#include "etmkit/etm2.h"
#include "ts_rec.h"

#define PASS_RECS 17
#define PASS_CYCLES 18
#define PASS_INSNS 14
#define PASSES 256 /* passes in the record array fed each time */

static const uint32_t loop_code[] = {
	0xe5901000, /* 0x8000 ldr r1, [r0]: DE, data */
	0xe2800001, 0xe2800001, 0xe2800001, /* add: IE */
	0xe2800001, 0xe2800001, 0xe2800001,
	0xe3500002, /* 0x801c cmp: IE */
	0x1a000000, /* 0x8020 bne 0x8028: IE, taken */
	0xe1a00000, /* 0x8024 (skipped) */
	0xe1a00000, /* 0x8028 nop: IE */
	0xe5801000, /* 0x802c str r1, [r0]: DE, data */
	0xea000000, /* 0x8030 b 0x8038: folded, PTIE */
	0xe1a00000, /* 0x8034 (skipped) */
	0xe2800001, /* 0x8038 add: the phantom's IE */
	0xe12fff13, /* 0x803c bx r3: DE, branch address 0x8000 */
};

static struct etm2_packet *status(struct etm2_packet *p, uint64_t cyc,
				  unsigned st)
{
	memset(p, 0, sizeof(*p));
	p->type = etm2_pkt_status;
	p->status = (uint8_t)st;
	p->cycle = cyc;
	return p + 1;
}

static struct etm2_packet *data(struct etm2_packet *p, uint64_t cyc,
				uint32_t value)
{
	memset(p, 0, sizeof(*p));
	p->type = etm2_pkt_normal_data;
	p->cycle = cyc;
	p->u.data.a_bit = 1;
	p->u.data.has_addr = p->u.data.has_value = 1;
	p->u.data.addr = 0x20000;
	p->u.data.value = value;
	p->u.data.value_bytes = 4;
	return p + 1;
}

static struct etm2_packet *branch(struct etm2_packet *p, uint64_t cyc)
{
	memset(p, 0, sizeof(*p));
	p->type = etm2_pkt_branch_address;
	p->cycle = cyc;
	p->u.branch.addr = 0x8000;
	p->u.branch.isa = etmkit_isa_arm;
	return p + 1;
}

/* The records of @passes passes of the loop, after a TFO at 0x8000
 * (@v1: ETMv1's, after a BE and its full address of reason 1: the
 * first @head records). */
static struct etm2_packet *build(size_t passes, int v1, size_t *n,
				 size_t *head)
{
	struct etm2_packet *r = calloc(passes * (PASS_RECS + 1) + 2,
				       sizeof(*r));
	struct etm2_packet *p = r;
	uint64_t c = 0;

	if (!r)
		return NULL;
	if (v1) {
		p = status(p, 0, etm2_st_be);
		p = branch(p, 0);
		p[-1].u.branch.has_reason = 1;
		p[-1].u.branch.reason = 1;
		p[-1].u.branch.first = 1;
	} else {
		p->type = etm2_pkt_tfo;
		p->status = etm2_st_td;
		p->u.tfo.addr = 0x8000;
		p->u.tfo.isa = etmkit_isa_arm;
		p->u.tfo.reason = etm2_reason_trace_on;
		p->u.tfo.first = 1;
		p++;
	}
	*head = (size_t)(p - r);
	for (size_t i = 0; i < passes; i++) {
		p = status(p, ++c, v1 ? etm2_st_id : etm2_st_de);
		p = data(p, c, (uint32_t)i);
		for (int k = 0; k < 9; k++)
			p = status(p, ++c, etm2_st_ie); /* 6 add, cmp, bne, nop */
		p = status(p, ++c, v1 ? etm2_st_id : etm2_st_de);
		p = data(p, c, (uint32_t)~i);
		if (v1) { /* no phantoms: the branch, then the add */
			p = status(p, ++c, etm2_st_ie);
			p = status(p, ++c, etm2_st_ie);
		} else {
			p = status(p, ++c, etm2_st_ptie);
		}
		p = status(p, ++c, v1 ? etm2_st_be : etm2_st_de);
		p = branch(p, c);
		memset(p, 0, sizeof(*p));
		p->type = etm2_pkt_wait; /* the FIFO draining: WT cycles */
		p->cycle = c + 1;
		p->length = PASS_CYCLES - (uint32_t)c % PASS_CYCLES;
		p->u.wait.wt = p->length;
		p++;
		c += p[-1].length;
	}
	*n = (size_t)(p - r);
	return r;
}

struct counts {
	uint64_t insns, elems, sum, stats_insns;
};

/* Every element @d has now, counted into @c. Returns 0 or the error
 * batch() returned. */
static int drain(struct etm2_flow_decoder *d, struct counts *c)
{
	const struct etmkit_elem *el;
	int k;

	while ((k = etm2_flow_batch(d, &el)) > 0)
		for (int i = 0; i < k; i++) {
			c->elems++;
			if (el[i].kind == etmkit_elem_insn) {
				c->insns++;
				c->sum += el[i].addr;
			} else if (el[i].kind == etmkit_elem_insn_range) {
				c->insns += el[i].u.range.count;
				c->sum += el[i].addr;
			}
		}
	return k == -etmkit_err_eos ? 0 : k;
}

static int run(const struct etm2_flow_config *cfg,
	       const struct etm2_packet *recs, size_t nrecs, size_t head,
	       size_t feeds, struct counts *c)
{
	struct etm2_flow_decoder *d;
	int err;

	memset(c, 0, sizeof(*c));
	err = etm2_flow_alloc(&d, cfg);
	if (err)
		return err;
	/* The first feed has the TFO (the start); the others the passes
	 * only. */
	for (size_t f = 0; f <= feeds; f++) {
		if (f == feeds)
			etm2_flow_finish(d);
		else if ((err = etm2_flow_feed_records(d, recs + (f ? head : 0),
							nrecs - (f ? head : 0))))
			break;
		if ((err = drain(d, c)))
			break;
	}
	c->stats_insns = etm2_flow_get_stats(d)->insns;
	etm2_flow_free(d);
	return err;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_etm2_flow [--mb N] [--runs N] [--form F] "
		   "[--qemu FILE] [--records 1|2] [--etm-version 1]\n"
		   "  --mb N    MiB of 8-bit port capture (default 128)\n"
		   "  --qemu F  the QEMU armhf log encoded (default "
		   "tests/data/qemu/tiny-a32-state.log)\n"
		   "  --records 1  the flow over generated records, no "
		   "capture; 2: ETMv1 records\n"
		   "  --etm-version 1  the capture is ETMv1 (no data trace)\n"
		   "  --runs N  timed runs per form, best kept (default 3)\n"
		   "  --form F  insns or ranges only (default both; for "
		   "callgrind)\n");
}

struct e2_options {
	int only;          /* --form: 1 insns, 2 ranges, 0 both */
	int records;       /* --records 1, 2 (ETMv1) */
	int v1;            /* --etm-version 1: an ETMv1 capture */
	const char *qemu;  /* --qemu FILE */
};

static int form_option(void *ctx, const char *a, const char *val)
{
	struct e2_options *eo = ctx;

	if (!strcmp(a, "--qemu")) {
		eo->qemu = val;
		return 1;
	}
	if (!strcmp(a, "--etm-version")) {
		eo->v1 = !strcmp(val, "1");
		return eo->v1 || !strcmp(val, "2") ? 1 : -1;
	}
	if (!strcmp(a, "--records")) {
		eo->records = !strcmp(val, "1") ? 1 : !strcmp(val, "2") ? 2 : 0;
		return eo->records || !strcmp(val, "0") ? 1 : -1;
	}
	if (strcmp(a, "--form"))
		return 0;
	if (!strcmp(val, "insns"))
		eo->only = 1;
	else if (!strcmp(val, "ranges"))
		eo->only = 2;
	else
		return -1;
	return 1;
}

/* ---- A capture from the encoder ---------------------------------------- */

struct capture {
	struct etm2_cycle *c;
	size_t n, cap;
};

static int cap_sink(void *ctx, const struct etm2_cycle *c, size_t n)
{
	struct capture *k = ctx;

	if (k->n + n > k->cap) {
		size_t cap = k->cap ? k->cap : 1u << 16;
		struct etm2_cycle *nc;

		while (cap < k->n + n)
			cap *= 2;
		nc = realloc(k->c, cap * sizeof(*nc));
		if (!nc)
			return -etmkit_err_nomem;
		k->c = nc;
		k->cap = cap;
	}
	memcpy(k->c + k->n, c, n * sizeof(*c));
	k->n += n;
	return 0;
}

/* Encode @rc again and again into @k until it holds @cycles cycles.
 * Returns the instructions encoded (less any lost), or 0 on error. */
static uint64_t encode(const struct etm2_enc_config *ec,
		       const struct ts_rec *rc, size_t cycles,
		       struct capture *k)
{
	struct etm2_enc *e;
	const struct etm2_enc_stats *st;
	uint64_t insns;

	if (etm2_enc_alloc(&e, ec, cap_sink, k))
		return 0;
	while (k->n < cycles)
		for (size_t i = 0; i < rc->n; i++)
			if (etm2_enc_put(e, &rc->r[i])) {
				etm2_enc_free(e);
				return 0;
			}
	if (etm2_enc_finish(e)) {
		etm2_enc_free(e);
		return 0;
	}
	st = etm2_enc_get_stats(e);
	insns = st->insns - st->insns_lost;
	etm2_enc_free(e);
	return insns;
}

static int run_cycles(const struct etm2_flow_config *cfg,
		      const struct capture *k, struct counts *c)
{
	struct etm2_flow_decoder *d;
	size_t at = 0;
	int err, fin = 0;

	memset(c, 0, sizeof(*c));
	err = etm2_flow_alloc(&d, cfg);
	if (err)
		return err;
	for (;;) {
		if (at < k->n) {
			size_t m = k->n - at < 65536 ? k->n - at : 65536;

			if ((err = etm2_flow_feed(d, k->c + at, m, at)))
				break;
			at += m;
		} else if (!fin) {
			etm2_flow_finish(d);
			fin = 1;
		} else {
			break;
		}
		if ((err = drain(d, c)))
			break;
	}
	c->stats_insns = etm2_flow_get_stats(d)->insns;
	etm2_flow_free(d);
	return err;
}

static int bench_capture(const struct bench_options *o,
			 const struct e2_options *eo)
{
	const char *path = eo->qemu ? eo->qemu :
			   ETMKIT_TEST_DATA "/qemu/tiny-a32-state.log";
	struct ts_rec rc = { 0 };
	struct ts_rec_code code = { 0 };
	struct etm2_enc_config ec;
	struct etm2_flow_config cfg;
	struct capture k = { 0 };
	struct counts c;
	size_t want = (size_t)(o->mb * 1048576.0 / 4);
	uint64_t insns;
	size_t heap;

	if (ts_rec_read(path, &rc) || ts_rec_code(&code, &rc)) {
		fprintf(stderr, "bench_etm2_flow: %s: cannot read it or its "
			"code\n", path);
		return 1;
	}
	etm2_enc_config_init(&ec);
	ec.etm.port_width = 8;
	ec.etm.etmcr = ETM2_ETMCR_DATA_ADDR | ETM2_ETMCR_DATA_VALUE |
		       (1u << ETM2_ETMCR_PORT_SIZE_SHIFT);
	if (eo->v1) {
		/* ETMv1 data trace carries one 4-byte transfer an
		 * instruction (docs/etmv2.md 7b): the log's byte, halfword
		 * and multiple transfers would be refused, so data is off */
		ec.etm.version = 1;
		ec.etm.etmcr = 1u << ETM2_ETMCR_PORT_SIZE_SHIFT;
	}
	ec.fifo_depth = 4096;
	insns = encode(&ec, &rc, want, &k);
	if (!insns) {
		fprintf(stderr, "bench_etm2_flow: encoding %s failed\n", path);
		return 1;
	}
	printf("bench_etm2_flow: %s encoded to %zu cycles (%.1f MiB as a "
	       "binary capture%s), %" PRIu64 " instructions\n", path, k.n,
	       k.n * 4.0 / 1048576.0, eo->v1 ? ", ETMv1, no data" : "",
	       insns);
	etm2_flow_config_init(&cfg);
	cfg.etm = ec.etm;
	cfg.image = code.img;
	for (int form = 0; form < 2; form++) {
		double best = 0;

		if (eo->only && eo->only != form + 1)
			continue;
		cfg.flags = form ? ETM2_FLOW_RANGES : 0;
		for (int r = 0; r < o->runs; r++) {
			double t0;
			int err;

			heap = bench_heap_in_use();
			t0 = bench_now();
			err = run_cycles(&cfg, &k, &c);
			if (bench_keep_best("bench_etm2_flow", err,
					    bench_now() - t0, r, &best))
				return 1;
			if (bench_heap_in_use() != heap) {
				fprintf(stderr, "bench_etm2_flow: the heap "
					"grew\n");
				return 1;
			}
		}
		if (c.insns != insns || c.stats_insns != insns) {
			fprintf(stderr, "bench_etm2_flow: %" PRIu64
				" instructions decoded, %" PRIu64
				" encoded\n", c.insns, insns);
			return 1;
		}
		printf("etmkit %-9s %8.1f Mcycles/s %8.1f Minsns/s "
		       "%9.1f ms  (%" PRIu64 " elements, best of %d)\n",
		       form ? "ranges" : "insns", k.n / best / 1e6,
		       c.insns / best / 1e6, best * 1e3, c.elems, o->runs);
	}
	free(k.c);
	ts_rec_code_free(&code);
	ts_rec_free(&rc);
	return 0;
}

int main(int argc, char **argv)
{
	struct bench_options o;
	struct etm2_flow_config cfg;
	struct etm2_packet *recs;
	struct image *img = NULL;
	struct counts c[2];
	size_t nrecs, feeds, head;
	uint64_t cycles;
	double mb;
	struct e2_options eo = { 0, 0, 0, NULL };

	if (bench_parse_args("bench_etm2_flow", argc, argv, &o, 0, form_option,
			     &eo, usage))
		return 2;
	if (!eo.records)
		return bench_capture(&o, &eo);
	mb = o.mb;
	/* 4 bytes a cycle in the binary capture (docs/etmv2-capture.md) */
	feeds = (size_t)(mb * 1048576.0 / 4 / PASS_CYCLES / PASSES);
	if (!feeds)
		feeds = 1;
	cycles = (uint64_t)feeds * PASSES * PASS_CYCLES;
	recs = build(PASSES, eo.records == 2, &nrecs, &head);
	if (!recs || image_alloc(&img) ||
	    image_add_buffer(img, loop_code, sizeof(loop_code), 0x8000, 0)) {
		fprintf(stderr, "bench_etm2_flow: out of memory\n");
		return 1;
	}
	etm2_flow_config_init(&cfg);
	cfg.etm.port_width = 8;
	cfg.etm.version = (uint8_t)(eo.records == 2 ? 1 : 0);
	cfg.etm.etmcr = ETM2_ETMCR_DATA_ADDR | ETM2_ETMCR_DATA_VALUE |
			(1u << ETM2_ETMCR_PORT_SIZE_SHIFT);
	cfg.image = img;
	printf("bench_etm2_flow: %.0f MiB of capture stood for: %" PRIu64
	       " cycles, %zu records a feed, %zu feeds (records: the flow "
	       "layer alone%s)\n",
	       mb, cycles, nrecs - head, feeds,
	       eo.records == 2 ? ", ETMv1" : "");
	for (int form = 0; form < 2; form++) {
		double best = 0;

		if (eo.only && eo.only != form + 1)
			continue;
		cfg.flags = form ? ETM2_FLOW_RANGES : 0;
		for (int r = 0; r < o.runs; r++) {
			double t0 = bench_now();
			int err = run(&cfg, recs, nrecs, head, feeds,
				      &c[form]);

			if (bench_keep_best("bench_etm2_flow", err,
					    bench_now() - t0, r, &best))
				return 1;
		}
		if (c[form].insns != (uint64_t)feeds * PASSES * PASS_INSNS ||
		    c[form].stats_insns != c[form].insns) {
			fprintf(stderr, "bench_etm2_flow: %" PRIu64
				" instructions, expected %" PRIu64 "\n",
				c[form].insns,
				(uint64_t)feeds * PASSES * PASS_INSNS);
			return 1;
		}
		printf("etmkit %-9s %8.1f Mcycles/s %8.1f Minsns/s "
		       "%9.1f ms  (%" PRIu64 " elements, best of %d)\n",
		       form ? "ranges" : "insns", cycles / best / 1e6,
		       c[form].insns / best / 1e6, best * 1e3, c[form].elems,
		       o.runs);
	}
	image_free(img);
	free(recs);
	return 0;
}
