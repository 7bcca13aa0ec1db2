/* bench_perf_decode: etmkit's and OpenCSD's full decode of the AUX data of
 * one perf.data file, in the same run (issue 15; bench/perf_corpus.sh makes
 * the files).
 *
 *   bench_perf_decode FILE.data --elf FILE[@BIAS]... --mem FILE@ADDR...
 *                     [--runs N]
 *                     [--forms insns,ranges,profile,opencsd,traces]
 *                     [--jobs N]
 *
 * The file is read into memory once (untimed). Timed, best of --runs:
 *   - etmkit: a session (include/etmkit/session.h) taking CoreSight frames,
 *     a flow decoder per CPU of the cs_etm metadata with the --elf image,
 *     every AUX record fed in file order and followed by a session break
 *     with its loss reason, as `etmkit decode FILE.data` does; per
 *     instruction and, for ETMv4/ETE, as instruction ranges (the form of
 *     OpenCSD's output);
 *   - etmkit profile: the same decode (ranges for ETMv4/ETE, with the
 *     decoder counting whole ranges itself: ETM4_FLOW_TALLY) with every
 *     element counted into an execution profile (profile.h) as `etmkit
 *     profile` does: its resolver asks a locator over the --elf files
 *     (locate_find_binary()) for the binary and ELF address, and
 *     profile_finish() ends the run;
 *   - traces: the profile as `etmkit profile --format bolt|profgen`
 *     counts it (taken-branch traces, profile_config.traces), over the
 *     ranges decode with the decoder counting whole traces itself
 *     (ETM4_FLOW_TRACES); its time is reported against the ranges
 *     decode's. Its branch_run elements carry no instruction count: its
 *     instructions are counted from their ends in A64 and A32 code, and
 *     not compared when T32 code was among them;
 *   - OpenCSD: per CPU a decode tree taking memory-aligned frames with
 *     its builtin decoder configured from the metadata, an OCSD_OP_RESET
 *     before every AUX record of that CPU, as perf drives it (digest
 *     perf-data.md 3.10; tests/perf/perf_ocsd.c), memory the --mem files.
 * --jobs N: etmkit's session decodes the CPUs on N worker threads
 * (session.h jobs; default 1, the caller's thread alone).
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
static unsigned long jobs = 1; /* --jobs: etmkit_session_config.jobs */
#define MAX_FILES 64

struct run {
	struct perf_file *pf;
	const struct perf_cs_etm *cs;
	struct image *img;
	struct locate *loc;
	struct profile *prof;     /* the profile form: elements counted */
	int prof_err;
	uint64_t aux_bytes;
	uint64_t insns, elems, gaps;
	int insns_unknown;        /* a branch_run of T32 code was counted */
	size_t ranges_counted, branches_counted;
	int ranges;
};

static int on_elem(void *ctx, uint8_t id, const struct etmkit_elem *e)
{
	struct run *r = ctx;

	r->elems++;
	if (r->prof) {
		int err = profile_elem(r->prof, id & 0x7f, e);

		if (err < 0 && !r->prof_err)
			r->prof_err = err;
	}
	if (e->kind == etmkit_elem_insn)
		r->insns++;
	else if (e->kind == etmkit_elem_insn_range)   /* each run */
		r->insns += (uint64_t)e->u.range.count *
			    (e->u.range.repeats + 1u);
	else if (e->kind == etmkit_elem_branch_run) /* fixed-size code */
		if (e->isa == etmkit_isa_a64 || e->isa == etmkit_isa_arm)
			r->insns += (e->u.brun.end - e->addr) / 4 *
				    (e->u.brun.repeats + 1u);
		else
			r->insns_unknown = 1;
	else if (e->kind == etmkit_elem_gap)
		r->gaps++;
	return 0;
}

/* The profile's resolver, as etmkit profile's: binary and ELF address
 * through the locator, with the stretch the answer holds for. */
static int resolve(void *ctx, uint8_t id, uint64_t addr,
		   struct profile_where *w)
{
	const struct run *r = ctx;

	(void)id;
	return profile_where_locate(r->loc, r->img, IMAGE_SPACE_ANY, addr, w);
}

/* @profile: 0 none, 1 AutoFDO's (tallied ranges), 2 taken-branch traces */
static int etmkit_run(struct run *r, int profile)
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
	sc.jobs = (unsigned)jobs;
	if ((err = etmkit_session_alloc(&s, &sc)))
		return err;
	if (profile) {
		struct profile_config pc;

		profile_config_init(&pc);
		pc.resolve = resolve;
		pc.ctx = r;
		pc.traces = profile == 2;
		r->prof_err = 0;
		if ((err = profile_alloc(&r->prof, &pc))) {
			etmkit_session_free(s);
			return err;
		}
	}
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
			if (r->ranges && profile == 1) /* etmkit profile */
				fc.flags |= ETM4_FLOW_TALLY;
			if (r->ranges && profile == 2) /* bolt, profgen */
				fc.flags |= ETM4_FLOW_TRACES;
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
	if (!err && r->prof)
		err = profile_finish(r->prof);
	if (!err && r->prof)
		err = r->prof_err;
	if (r->prof) {
		r->ranges_counted = profile_range_count(r->prof);
		r->branches_counted = profile_branch_count(r->prof);
	}
	profile_free(r->prof);
	r->prof = NULL;
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

/* --forms: a comma-separated list of insns, ranges, profile, opencsd,
 * traces. */
#define FORM_OPENCSD (1u << 3)
#define NFORMS 5
#define FORMS_ALL 0x1fu

static int parse_forms(const char *arg, unsigned *out)
{
	static const char *const names[] = { "insns", "ranges", "profile",
					      "opencsd", "traces" };
	const char *p = arg;

	*out = 0;
	while (*p) {
		size_t n = strcspn(p, ",");
		unsigned k;

		for (k = 0; k < NFORMS; k++)
			if (strlen(names[k]) == n && !strncmp(p, names[k], n))
				break;
		if (k == NFORMS) {
			fprintf(stderr, WHO ": --forms: unknown form in '%s' "
				"(insns, ranges, profile, opencsd, traces)\n",
				arg);
			return -1;
		}
		*out |= 1u << k;
		p += n + (p[n] == ',');
	}
	return *out ? 0 : -1;
}

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
	static const char *const names[NFORMS] = {
		"etmkit", "etmkit (ranges)", "etmkit profile", "OpenCSD 1.3.3",
		"etmkit traces"
	};
	struct run r, best_r[NFORMS];
	struct perf_diag d;
	double best[NFORMS];
	uint64_t want = 0;
	int rc = 0, v3;
	unsigned forms = FORMS_ALL;
#ifdef ETMKIT_HAVE_OPENCSD
	static struct mem_file mem[MAX_FILES];
	int nmem = 0;
#endif

	memset(&r, 0, sizeof(r));
	if (image_alloc(&r.img))
		return 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--forms") && i + 1 < argc) {
			if (parse_forms(argv[++i], &forms))
				return 2;
		} else if (!strcmp(argv[i], "--jobs") && i + 1 < argc) {
			if (bench_parse_ulong(argv[++i], 256, &jobs) || !jobs)
				return 2;
		} else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
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
		} else if (!path && argv[i][0] != '-') {
			path = argv[i];
		} else {
			fprintf(stderr, "usage: bench_perf_decode FILE.data "
				"--elf FILE[@BIAS]... --mem FILE@ADDR... "
				"[--runs N] [--forms LIST] [--jobs N]\n");
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
	if (locate_alloc(&r.loc) || locate_add_image(r.loc, r.img, NULL)) {
		fprintf(stderr, WHO ": cannot read the --elf files' symbols\n");
		return 1;
	}
	/* Forms: 0 per instruction, 1 ranges (ETMv4/ETE), 2 the profile
	 * over the form etmkit profile decodes (ranges, or per instruction
	 * for ETMv3), compared with that form's decode, 3 OpenCSD. They take
	 * turns, run after run, so that a busy spell of the machine does not
	 * fall on one of them only. */
	v3 = r.cs->nr_cpu && r.cs->cpus[0].protocol == etmkit_proto_etmv3;
	if (v3)
		forms &= ~(2u | 16u);
#ifndef ETMKIT_HAVE_OPENCSD
	if (forms & FORM_OPENCSD)
		printf("perf_decode OpenCSD: not built (libopencsd-dev "
		       "missing)\n");
	forms &= ~FORM_OPENCSD;
#endif
	for (int form = 0; form < NFORMS; form++)
		best[form] = 1e30;
	for (unsigned long k = 0; k < runs; k++)
		for (int form = 0; form < NFORMS; form++) {
			double t0;
			int err;

			if (!(forms & 1u << form))
				continue;
			r.aux_bytes = r.insns = r.elems = r.gaps = 0;
			r.insns_unknown = 0;
			r.ranges = form == 1 || form == 4 || (form == 2 && !v3);
			t0 = bench_now();
#ifdef ETMKIT_HAVE_OPENCSD
			err = form == 3 ? ocsd_run(&r, mem, nmem) :
					  etmkit_run(&r, form == 2 ? 1 :
							 form == 4 ? 2 : 0);
#else
			err = etmkit_run(&r, form == 2 ? 1 : form == 4 ? 2 : 0);
#endif
			if (err) {
				fprintf(stderr, WHO ": %s failed\n",
					names[form]);
				return 1;
			}
			if (bench_now() - t0 < best[form]) {
				best[form] = bench_now() - t0;
				best_r[form] = r;
			}
		}
	for (int form = 0; form < NFORMS; form++) {
		if (!(forms & 1u << form))
			continue;
		report(names[form], &best_r[form], best[form]);
		if (form == 4) {
			printf("perf_decode %-18s %zu distinct ranges, %zu "
			       "branches", "", best_r[4].ranges_counted,
			       best_r[4].branches_counted);
			if (forms & 2u)
				printf("; %.2fx the ranges decode's time",
				       best[4] / best[1]);
			printf("\n");
		}
		if (form == 2) {
			int dec = v3 ? 0 : 1;

			printf("perf_decode %-18s %zu distinct ranges, %zu "
			       "branches", "", best_r[2].ranges_counted,
			       best_r[2].branches_counted);
			if (forms & 1u << dec)
				printf("; %.0f%% of the %s decode's rate",
				       100.0 * best[dec] / best[2],
				       dec ? "ranges" : "per-instruction");
			printf("\n");
		}
		for (int f = 0; form == 3 && f < 3; f++)
			if (forms & 1u << f)
				printf("perf_decode %-18s %.1fx  (%s / "
				       "OpenCSD)\n", "ratio", best[3] / best[f],
				       names[f]);
		if (best_r[form].insns_unknown)
			continue;       /* no instruction count */
		if (want && best_r[form].insns != want) {
			fprintf(stderr, WHO ": %s: %" PRIu64 " instructions, "
				"not %" PRIu64 "\n", names[form],
				best_r[form].insns, want);
			rc = 1;
		}
		want = best_r[form].insns;
	}
#ifdef ETMKIT_HAVE_OPENCSD
	for (int i = 0; i < nmem; i++)
		free(mem[i].b.data);
#endif
	perf_file_free(r.pf);
	locate_free(r.loc);
	image_free(r.img);
	return rc;
}
