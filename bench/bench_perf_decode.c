/* bench_perf_decode: etmkit's and OpenCSD's full decode of the AUX data of
 * one perf.data file, in the same run (issue 15; bench/perf_corpus.sh makes
 * the files).
 *
 *   bench_perf_decode FILE.data --elf FILE[@BIAS]... --mem FILE@ADDR...
 *                     [--runs N] [--forms LIST]
 *
 * --forms: which decodes run, a comma-separated subset of insns, ranges,
 * opencsd (default all three; instruction counts are compared among those
 * that ran).
 *
 * The file is read into memory once (untimed). Timed, best of --runs:
 *   - etmkit: a session (include/etmkit/session.h) taking CoreSight frames,
 *     a flow decoder per CPU of the cs_etm metadata with the --elf image,
 *     every AUX record fed in file order and followed by a session break
 *     with its loss reason, as `etmkit decode FILE.data` does; per
 *     instruction and, for ETMv4/ETE, as instruction ranges (the form of
 *     OpenCSD's output);
 *   - OpenCSD: per CPU a decode tree taking memory-aligned frames with
 *     its builtin decoder configured from the metadata, an OCSD_OP_RESET
 *     before every AUX record of that CPU, as perf drives it (digest
 *     perf-data.md 3.10; tests/perf/perf_ocsd.c), memory the --mem files.
 * Reported: MB of AUX data, MB/s, millions of instructions per second, and
 * the instruction counts, which must agree (exit 1 if they do not).
 * Peak memory is measured from outside (bench/perf_corpus.sh). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/etmkit.h"
#include "bench_common.h"

#ifdef ETMKIT_HAVE_OPENCSD
#include "ocsd_flow_peer.h"
#include "ocsd_push.h"
#endif

#define WHO "perf_decode"
#define MAX_FILES 64

struct run {
	struct perf_file *pf;
	const struct perf_cs_etm *cs;
	struct image *img;
	uint64_t aux_bytes;
	uint64_t insns, elems, gaps;
	int ranges;
};

static int on_elem(void *ctx, uint8_t id, const struct etmkit_elem *e)
{
	struct run *r = ctx;

	(void)id;
	r->elems++;
	if (e->kind == etmkit_elem_insn)
		r->insns++;
	else if (e->kind == etmkit_elem_insn_range)
		r->insns += e->u.range.count;
	else if (e->kind == etmkit_elem_gap)
		r->gaps++;
	return 0;
}

static int etmkit_run(struct run *r)
{
	struct etmkit_session_config sc;
	struct etmkit_session *s = NULL;
	struct perf_aux_iter ai;
	struct perf_aux_chunk ch;
	int err;

	etmkit_session_config_init(&sc);
	sc.frames = deformat_coresight;
	sc.on_elem = on_elem;
	sc.ctx = r;
	if ((err = etmkit_session_alloc(&s, &sc)))
		return err;
	for (uint32_t i = 0; !err && i < r->cs->nr_cpu; i++) {
		const struct perf_cs_etm_cpu *c = &r->cs->cpus[i];

		if (c->protocol == etmkit_proto_etmv3) {
			struct etm3_flow_config fc;

			etm3_flow_config_init(&fc);
			fc.etm = c->etm3;
			fc.image = r->img;
			err = etmkit_session_add_etm3_flow(s, c->trace_id, &fc);
		} else {
			struct etm4_flow_config fc;

			etm4_flow_config_init(&fc);
			fc.etm = c->etm4;
			fc.image = r->img;
			fc.flags = r->ranges ? ETM4_FLOW_RANGES : 0;
			err = etmkit_session_add_etm4_flow(s, c->trace_id, &fc);
		}
	}
	perf_aux_iter_init(&ai, r->pf, -1);
	while (!err && perf_aux_next(&ai, &ch, NULL) == 0) {
		if (!ch.data || !ch.data_size)
			continue;
		r->aux_bytes += ch.data_size;
		err = etmkit_session_feed(s, ch.data, (size_t)ch.data_size);
		if (!err)
			err = etmkit_session_break(s, perf_aux_loss(ch.flags));
	}
	if (!err)
		err = etmkit_session_finish(s);
	etmkit_session_free(s);
	return err;
}

#ifdef ETMKIT_HAVE_OPENCSD
struct mem_file {
	struct bytes b;
	uint64_t addr;
};

static ocsd_datapath_resp_t count_elem(const void *ctx,
				       const ocsd_trc_index_t index_sop,
				       const uint8_t chan,
				       const ocsd_generic_trace_elem *e)
{
	struct run *r = (struct run *)ctx;

	(void)index_sop;
	(void)chan;
	r->elems++;
	if (e->elem_type == OCSD_GEN_TRC_ELEM_INSTR_RANGE)
		r->insns += e->num_instr_range;
	return OCSD_RESP_CONT;
}

static int ocsd_cpu(struct run *r, const struct perf_cs_etm_cpu *c,
		    const struct mem_file *mem, int nmem)
{
	dcd_tree_handle_t tree;
	struct perf_aux_iter ai;
	struct perf_aux_chunk ch;
	unsigned char csid = 0;
	int rc = 0;

	if (c->protocol == etmkit_proto_etmv3)
		tree = ocsd_etm3_framed_tree(c->etm3.etmcr, c->etm3.etmidr,
					     c->etm3.etmccer, c->trace_id, 1, 1,
					     &csid, WHO);
	else
		tree = ocsd_etm4_framed_tree(&c->etm4, c->trace_id, 1, 1,
					     &csid, WHO);
	if (tree == C_API_INVALID_TREE_HANDLE)
		return -1;
	for (int i = 0; i < nmem; i++)
		if (ocsd_dt_add_buffer_mem_acc(tree, mem[i].addr,
					       OCSD_MEM_SPACE_ANY,
					       mem[i].b.data,
					       (uint32_t)mem[i].b.n) != OCSD_OK)
			rc = -1;
	if (ocsd_dt_set_gen_elem_outfn(tree, count_elem, r) != OCSD_OK)
		rc = -1;
	perf_aux_iter_init(&ai, r->pf, c->cpu);
	while (!rc && perf_aux_next(&ai, &ch, NULL) == 0) {
		if (!ch.data || !ch.data_size)
			continue;
		r->aux_bytes += ch.data_size;
		ocsd_dt_process_data(tree, OCSD_OP_RESET, 0, 0, NULL, NULL);
		rc = ocsd_push_at(tree, ch.data, (size_t)ch.data_size,
				  ch.data_offset, WHO);
	}
	if (!rc && OCSD_DATA_RESP_IS_FATAL(ocsd_dt_process_data(
			   tree, OCSD_OP_EOT, 0, 0, NULL, NULL)))
		rc = -1;
	ocsd_destroy_dcd_tree(tree);
	return rc;
}

static int ocsd_run(struct run *r, const struct mem_file *mem, int nmem)
{
	for (uint32_t i = 0; i < r->cs->nr_cpu; i++)
		if (ocsd_cpu(r, &r->cs->cpus[i], mem, nmem))
			return -1;
	return 0;
}
#endif

static void report(const char *who, const struct run *r, double best)
{
	printf("perf_decode %-18s %8.1f MB %9.1f MB/s %8.2f Minsn/s  "
	       "%" PRIu64 " instructions, %" PRIu64 " elements, %" PRIu64
	       " gaps\n", who, r->aux_bytes / 1e6, r->aux_bytes / 1e6 / best,
	       r->insns / 1e6 / best, r->insns, r->elems, r->gaps);
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	unsigned long runs = 3;
	struct run r, best_r;
	struct perf_diag d;
	double best;
	uint64_t want = 0;
	int rc = 0, forms, which = 7; /* bit 0 insns, 1 ranges, 2 opencsd */
	int have_want = 0;
#ifdef ETMKIT_HAVE_OPENCSD
	static struct mem_file mem[MAX_FILES];
	int nmem = 0;
#endif

	memset(&r, 0, sizeof(r));
	if (image_alloc(&r.img))
		return 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
			if (bench_parse_ulong(argv[++i], 1000, &runs) || !runs)
				return 2;
		} else if (!strcmp(argv[i], "--elf") && i + 1 < argc) {
			char *a = argv[++i], *at = strrchr(a, '@');
			uint64_t bias = 0;

			if (at) {
				*at = 0;
				bias = strtoull(at + 1, NULL, 0);
			}
			if (image_add_elf(r.img, a, bias, 0, NULL)) {
				fprintf(stderr, WHO ": cannot map %s\n", a);
				return 1;
			}
		} else if (!strcmp(argv[i], "--mem") && i + 1 < argc) {
#ifdef ETMKIT_HAVE_OPENCSD
			char *a = argv[++i], *at = strrchr(a, '@');

			if (!at || nmem == MAX_FILES)
				return 2;
			*at = 0;
			mem[nmem].addr = strtoull(at + 1, NULL, 0);
			if (bench_read_file(WHO, a, &mem[nmem++].b))
				return 1;
#else
			i++;
#endif
		} else if (!strcmp(argv[i], "--forms") && i + 1 < argc) {
			char *tok = strtok(argv[++i], ",");

			for (which = 0; tok; tok = strtok(NULL, ","))
				if (!strcmp(tok, "insns"))
					which |= 1;
				else if (!strcmp(tok, "ranges"))
					which |= 2;
				else if (!strcmp(tok, "opencsd"))
					which |= 4;
				else
					return 2;
		} else if (!path && argv[i][0] != '-') {
			path = argv[i];
		} else {
			fprintf(stderr, "usage: bench_perf_decode FILE.data "
				"--elf FILE[@BIAS]... --mem FILE@ADDR... "
				"[--runs N] [--forms insns,ranges,opencsd]\n");
			return 2;
		}
	}
	if (!path)
		return 2;
	if (perf_file_open(&r.pf, path, &d)) {
		fprintf(stderr, WHO ": %s: %s at %" PRIu64 "\n", path,
			d.message, d.offset);
		return 1;
	}
	r.cs = perf_file_cs_etm(r.pf);
	if (!r.cs) {
		fprintf(stderr, WHO ": %s: no cs_etm metadata\n", path);
		return 1;
	}
	forms = r.cs->nr_cpu && r.cs->cpus[0].protocol != etmkit_proto_etmv3
		? 2 : 1;
	for (int form = 0; form < forms; form++) {
		if (!(which & 1 << form))
			continue;
		best = 1e30;
		for (unsigned long k = 0; k < runs; k++) {
			double t0;

			r.aux_bytes = r.insns = r.elems = r.gaps = 0;
			r.ranges = form;
			t0 = bench_now();
			if (etmkit_run(&r)) {
				fprintf(stderr, WHO ": etmkit decode failed\n");
				return 1;
			}
			if (bench_now() - t0 < best) {
				best = bench_now() - t0;
				best_r = r;
			}
		}
		report(form ? "etmkit (ranges)" : "etmkit", &best_r, best);
		want = best_r.insns;
		have_want = 1;
	}
#ifdef ETMKIT_HAVE_OPENCSD
	best = 1e30;
	for (unsigned long k = 0; k < runs && (which & 4); k++) {
		double t0;

		r.aux_bytes = r.insns = r.elems = r.gaps = 0;
		t0 = bench_now();
		if (ocsd_run(&r, mem, nmem)) {
			fprintf(stderr, WHO ": OpenCSD decode failed\n");
			return 1;
		}
		if (bench_now() - t0 < best) {
			best = bench_now() - t0;
			best_r = r;
		}
	}
	if (which & 4)
		report("OpenCSD 1.3.3", &best_r, best);
	if ((which & 4) && have_want && best_r.insns != want) {
		fprintf(stderr, WHO ": instruction counts differ: etmkit %"
			PRIu64 ", OpenCSD %" PRIu64 "\n", want, best_r.insns);
		rc = 1;
	}
	for (int i = 0; i < nmem; i++)
		free(mem[i].b.data);
#else
	printf("perf_decode OpenCSD: not built (libopencsd-dev missing)\n");
#endif
	perf_file_free(r.pf);
	image_free(r.img);
	return rc;
}
