/* bench_etm2_flow: throughput of etmkit's ETMv2 flow decoder (packet
 * records plus program image to instructions), in both forms. No other
 * decoder has ETMv2 (OpenCSD has none): the rates are etmkit's own.
 *
 * Input: until the packet decoder (etm2_pkt_*) and the encoder
 * (etm2_enc_*) are merged, the records a packet decoder would deliver for
 * a capture, built deterministically: a 16-instruction A32 loop (a load
 * and a store with data, IE runs, a conditional branch failing and one
 * taken, a phantom, an indirect branch with its address, 18 cycles a
 * pass with its wait cycles), repeated to stand for --mb MiB of an
 * 8-bit port's binary capture (4 bytes a cycle). The same record array
 * is fed again and again (etm2_flow_feed_records()); its cycle indexes
 * repeat, which the flow decoder does not mind.
 *
 * Timed: decoder allocation, decoding every element, end of trace,
 * release. Best of --runs runs. The consumer counts instructions and sums
 * their addresses, so every element is read.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/flow.h"
#include "flow/etm2_flow_int.h"
#include "bench_common.h"

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

/* The records of @passes passes of the loop, after a TFO at 0x8000. */
static struct etm2_packet *build(size_t passes, size_t *n)
{
	struct etm2_packet *r = calloc(passes * PASS_RECS + 1, sizeof(*r));
	struct etm2_packet *p = r;
	uint64_t c = 0;

	if (!r)
		return NULL;
	p->type = etm2_pkt_tfo;
	p->status = etm2_st_td;
	p->u.tfo.addr = 0x8000;
	p->u.tfo.isa = etmkit_isa_arm;
	p->u.tfo.reason = etm2_reason_trace_on;
	p->u.tfo.first = 1;
	p++;
	for (size_t i = 0; i < passes; i++) {
		p = status(p, ++c, etm2_st_de);
		p = data(p, c, (uint32_t)i);
		for (int k = 0; k < 9; k++)
			p = status(p, ++c, etm2_st_ie); /* 6 add, cmp, bne, nop */
		p = status(p, ++c, etm2_st_de);
		p = data(p, c, (uint32_t)~i);
		p = status(p, ++c, etm2_st_ptie);
		p = status(p, ++c, etm2_st_de);
		memset(p, 0, sizeof(*p));
		p->type = etm2_pkt_branch_address;
		p->cycle = c;
		p->u.branch.addr = 0x8000;
		p->u.branch.isa = etmkit_isa_arm;
		p++;
		memset(p, 0, sizeof(*p));
		p->type = etm2_pkt_wait; /* the FIFO draining: WT cycles */
		p->cycle = c + 1;
		p->length = PASS_CYCLES - 13;
		p->u.wait.wt = p->length;
		p++;
		c += PASS_CYCLES - 13;
	}
	*n = (size_t)(p - r);
	return r;
}

struct counts {
	uint64_t insns, elems, sum, stats_insns;
};

static int run(const struct etm2_flow_config *cfg,
	       const struct etm2_packet *recs, size_t nrecs, size_t feeds,
	       struct counts *c)
{
	struct etm2_flow_decoder *d;
	const struct etmkit_elem *el;
	int k, err;

	memset(c, 0, sizeof(*c));
	err = etm2_flow_alloc(&d, cfg);
	if (err)
		return err;
	/* The first feed has the TFO; the others the passes only. */
	for (size_t f = 0; f <= feeds; f++) {
		if (f == feeds)
			etm2_flow_finish(d);
		else if ((err = etm2_flow_feed_records(d, recs + !!f,
							nrecs - !!f)))
			break;
		while ((k = etm2_flow_batch(d, &el)) > 0)
			for (int i = 0; i < k; i++) {
				c->elems++;
				if (el[i].kind == etmkit_elem_insn) {
					c->insns++;
					c->sum += el[i].addr;
				} else if (el[i].kind ==
					   etmkit_elem_insn_range) {
					c->insns += el[i].u.range.count;
					c->sum += el[i].addr;
				}
			}
		if (k != -etmkit_err_eos) {
			err = k;
			break;
		}
	}
	c->stats_insns = etm2_flow_get_stats(d)->insns;
	etm2_flow_free(d);
	return err;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_etm2_flow [--mb N] [--runs N]\n"
		   "  --mb N    MiB of 8-bit port capture the records stand "
		   "for (default 128)\n"
		   "  --runs N  timed runs per form, best kept (default 3)\n"
		   "  --form F  insns or ranges only (default both; for "
		   "callgrind)\n");
}

/* --form insns|ranges: *@ctx 1 or 2 (0: both). */
static int form_option(void *ctx, const char *a, const char *val)
{
	int *only = ctx;

	if (strcmp(a, "--form"))
		return 0;
	if (!strcmp(val, "insns"))
		*only = 1;
	else if (!strcmp(val, "ranges"))
		*only = 2;
	else
		return -1;
	return 1;
}

int main(int argc, char **argv)
{
	struct bench_options o;
	struct etm2_flow_config cfg;
	struct etm2_packet *recs;
	struct image *img = NULL;
	struct counts c[2];
	size_t nrecs, feeds;
	uint64_t cycles;
	double mb;
	int only = 0;

	if (bench_parse_args("bench_etm2_flow", argc, argv, &o, 0, form_option,
			     &only, usage))
		return 2;
	mb = o.mb;
	/* 4 bytes a cycle in the binary capture (docs/etmv2-capture.md) */
	feeds = (size_t)(mb * 1048576.0 / 4 / PASS_CYCLES / PASSES);
	if (!feeds)
		feeds = 1;
	cycles = (uint64_t)feeds * PASSES * PASS_CYCLES;
	recs = build(PASSES, &nrecs);
	if (!recs || image_alloc(&img) ||
	    image_add_buffer(img, loop_code, sizeof(loop_code), 0x8000, 0)) {
		fprintf(stderr, "bench_etm2_flow: out of memory\n");
		return 1;
	}
	etm2_flow_config_init(&cfg);
	cfg.etm.port_width = 8;
	cfg.etm.etmcr = ETM2_ETMCR_DATA_ADDR | ETM2_ETMCR_DATA_VALUE |
			(1u << ETM2_ETMCR_PORT_SIZE_SHIFT);
	cfg.image = img;
	printf("bench_etm2_flow: %.0f MiB of capture stood for: %" PRIu64
	       " cycles, %zu records a feed, %zu feeds (records, not "
	       "cycles: the packet decoder is not merged)\n",
	       mb, cycles, nrecs - 1, feeds);
	for (int form = 0; form < 2; form++) {
		double best = 0;

		if (only && only != form + 1)
			continue;
		cfg.flags = form ? ETM2_FLOW_RANGES : 0;
		for (int r = 0; r < o.runs; r++) {
			double t0 = bench_now();
			int err = run(&cfg, recs, nrecs, feeds, &c[form]);

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
