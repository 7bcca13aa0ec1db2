/* The instructions of a block (include/etmkit/blocks.h, etmkit_insn_iter):
 * - on every ETMv3, ETMv4 and ETE source of the shared snapshots and the
 *   trace of the shared perf.data recordings, the ranges decode expanded by
 *   the iterator is the per-instruction decode, element for element
 *   (tests/range_same.h: all fields but the cycles and IT conditions
 *   blocks.h says a block cannot give back), in T32 and A64 (the
 *   captures hold no A32 code: the small images below have it);
 * - on small images built here: T32 of both sizes, IT state carried into
 *   the block that goes on where one ended and not into others, the memory
 *   space of a context, the cycles rule, batches of any size, and every
 *   error blocks.h documents. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/etmkit.h"
#include "../range_same.h"
#include "test_util.h"

#include "ts_elems.h"
#include "ts_session.h"
#include "ts_snapshots.h"

/* ---- Snapshots -------------------------------------------------------- */

static int shared_missing(void)
{
	struct stat st;

	return stat(ETMKIT_SHARED_DIR "/testdata", &st) != 0;
}

struct add {
	uint8_t id;
	int v3;
	struct etm3_flow_config f3;
	struct etm4_flow_config f4;
};

static int add_flow(struct etmkit_session *s, void *arg)
{
	struct add *a = arg;

	return a->v3 ? etmkit_session_add_etm3_flow(s, a->id, &a->f3) :
		       etmkit_session_add_etm4_flow(s, a->id, &a->f4);
}

/* Instructions checked, by protocol (0 ETMv3, 1 ETMv4, 2 ETE) and isa. */
struct tally {
	uint64_t insns[3][etmkit_isa_reserved];
	uint64_t multi[3];     /* ranges of more than one instruction */
	uint64_t it_carried;   /* range_diff.it_carried */
	int sources[3];
};

static void count(struct tally *t, int proto, const struct ts_elems *rng)
{
	for (size_t i = 0; i < rng->n; i++) {
		const struct etmkit_elem *e = &rng->e[i];

		if (e->kind != etmkit_elem_insn_range)
			continue;
		t->insns[proto][e->isa] += e->u.range.count;
		t->multi[proto] += e->u.range.count > 1;
	}
}

static void check_same(const char *name, const struct ts_elems *ref,
		       const struct ts_elems *rng,
		       const struct range_images *im, struct tally *t)
{
	struct range_diff rd;

	if (ranges_same_in(ref->e, ref->n, rng->e, rng->n, im, 1, &rd))
		fail_msg("%s: %s (reference element %zu, range element %zu, "
			 "offset %llu)", name, rd.why, rd.ref_at, rd.rng_at,
			 rd.rng_at < rng->n ?
			 (unsigned long long)rng->e[rd.rng_at].offset : 0ull);
	t->it_carried += rd.it_carried;
}

static void check_source(const struct snapshot *ss, const struct snapshot_source *src,
			 const char *name, struct tally *t)
{
	struct ts_elems ref = { 0 }, rng = { 0 };
	struct range_images im = { 0 };
	struct ts_source s;
	struct add a;
	int proto;
	char what[512];

	if (ts_source_open(ss, src, &s))
		return;
	memset(&a, 0, sizeof(a));
	etm3_flow_config_init(&a.f3);
	etm4_flow_config_init(&a.f4);
	a.f3.etm = s.etm3;
	a.f4.etm = s.etm4;
	a.id = s.id;
	a.v3 = s.proto == etmkit_proto_etmv3;
	proto = a.v3 ? 0 : s.proto == etmkit_proto_ete ? 2 : 1;
	a.f3.image = a.f4.image = s.img;
	im.img = s.img;
	assert_int_equal(ts_session_decode(s.buf, add_flow, &a,
					   ts_elems_on_elem, &ref), 0);
	a.f3.flags = ETM3_FLOW_RANGES;
	a.f4.flags = ETM4_FLOW_RANGES;
	assert_int_equal(ts_session_decode(s.buf, add_flow, &a,
					   ts_elems_on_elem, &rng), 0);
	snprintf(what, sizeof(what), "%s %s", name, src->name);
	check_same(what, &ref, &rng, &im, t);
	count(t, proto, &rng);
	t->sources[proto]++;
	ts_elems_free(&ref);
	ts_elems_free(&rng);
	ts_source_free(&s);
}

static void each_source(void *ctx, const char *name,
			const struct snapshot *ss,
			const struct snapshot_source *src)
{
	check_source(ss, src, name, ctx);
}

static void test_snapshots(void **state)
{
	static const char *const kinds[] = { "etmv3", "etmv4", "ete" };
	char top[1024];
	struct tally t;

	(void)state;
	memset(&t, 0, sizeof(t));
	snprintf(top, sizeof(top), "%s/testdata", ETMKIT_SHARED_DIR);
	test_need(shared_missing(), top);
	assert_true(ts_each_source(top, kinds, 3, each_source, &t) > 0);
	print_message("sources: %d ETMv3, %d ETMv4, %d ETE; instructions "
		      "A32/T32/A64: ETMv3 %llu/%llu, ETMv4 %llu/%llu/%llu, "
		      "ETE %llu; IT conditions carried %llu\n",
		      t.sources[0], t.sources[1], t.sources[2],
		      (unsigned long long)t.insns[0][etmkit_isa_arm],
		      (unsigned long long)t.insns[0][etmkit_isa_thumb],
		      (unsigned long long)t.insns[1][etmkit_isa_arm],
		      (unsigned long long)t.insns[1][etmkit_isa_thumb],
		      (unsigned long long)t.insns[1][etmkit_isa_a64],
		      (unsigned long long)t.insns[2][etmkit_isa_a64],
		      (unsigned long long)t.it_carried);
	/* Every protocol and instruction set was iterated, in ranges of
	 * several instructions. */
	assert_true(t.sources[0] >= 3 && t.sources[1] >= 5 &&
		    t.sources[2] >= 10);
	assert_true(t.insns[0][etmkit_isa_thumb] > 10000);
	assert_true(t.insns[1][etmkit_isa_a64] > 10000);
	assert_true(t.insns[1][etmkit_isa_thumb] > 100);
	assert_true(t.insns[2][etmkit_isa_a64] > 1000);
	for (int p = 0; p < 3; p++)
		assert_true(t.multi[p] > 100);
}

/* ---- perf.data ---------------------------------------------------------- */

struct perf_run {
	struct perf_file *pf;
	struct perf_maps *maps;
	int vmid_pid;
};

/* The decoders' image_for_context: the image of the thread the context
 * names, as `etmkit decode` looks it up (cli/perf_sideband.c: the pid in
 * the VMID field when TRCCONFIGR.VMID or VMIDOPT is set, digest
 * perf-data.md 3.3, else the context ID) as it stands at the element's
 * offset (fed at file offsets), else the kernel's. */
static const struct image *image_for(void *ctx, const struct etmkit_elem *e)
{
	const struct perf_run *r = ctx;

	if (r->vmid_pid && (e->flags & ETMKIT_CTX_VMID))
		return perf_maps_image_for_tid(r->maps, e->u.context.vmid,
					       e->offset);
	if (!r->vmid_pid && (e->flags & ETMKIT_CTX_CONTEXT_ID))
		return perf_maps_image_for_tid(r->maps,
					       e->u.context.context_id,
					       e->offset);
	return perf_maps_kernel_image(r->maps);
}

static void perf_decode(struct perf_run *r, int ranges, struct ts_elems *out)
{
	const struct perf_cs_etm *cs = perf_file_cs_etm(r->pf);
	struct etmkit_session_config sc;
	struct etmkit_session *s = NULL;
	struct perf_aux_iter ai;
	struct perf_aux_chunk ch;

	assert_non_null(cs);
	etmkit_session_config_init(&sc);
	sc.frames = deformat_coresight;
	sc.on_elem = ts_elems_on_elem;
	sc.ctx = out;
	assert_int_equal(etmkit_session_alloc(&s, &sc), 0);
	for (uint32_t i = 0; i < cs->nr_cpu; i++) {
		const struct perf_cs_etm_cpu *c = &cs->cpus[i];
		struct etm4_flow_config fc;

		assert_int_not_equal(c->protocol, etmkit_proto_etmv3);
		etm4_flow_config_init(&fc);
		fc.etm = c->etm4;
		fc.image = perf_maps_kernel_image(r->maps);
		fc.image_for_context = image_for;
		fc.image_ctx = r;
		r->vmid_pid = !!(c->etm4.trcconfigr & (1u << 7 | 1u << 15));
		fc.flags = ranges ? ETM4_FLOW_RANGES : 0;
		assert_int_equal(etmkit_session_add_etm4_flow(s, c->trace_id,
							      &fc), 0);
	}
	perf_aux_iter_init(&ai, r->pf, -1);
	while (perf_aux_next(&ai, &ch, NULL) == 0) {
		if (!ch.data || !ch.data_size)
			continue;
		assert_int_equal(etmkit_session_set_offset(s, ch.data_offset),
				 0);
		assert_int_equal(etmkit_session_feed(s, ch.data,
						     (size_t)ch.data_size), 0);
		assert_int_equal(etmkit_session_break(s,
					perf_aux_loss(ch.flags)), 0);
	}
	assert_int_equal(etmkit_session_finish(s), 0);
	etmkit_session_free(s);
}

static void test_perf(void **state)
{
	static const char *const files[] = { "perf_etm.data",
					     "perf_kernel.data" };
	char dir[1024], bin[2][1100];
	struct perf_maps_override ov[2];
	struct perf_maps_options o;
	struct tally t;

	(void)state;
	memset(&t, 0, sizeof(t));
	snprintf(dir, sizeof(dir), "%s/testdata/perf", ETMKIT_SHARED_DIR);
	test_need(shared_missing(), dir);
	snprintf(bin[0], sizeof(bin[0]), "%s/etm_test_loop", dir);
	snprintf(bin[1], sizeof(bin[1]), "%s/rq_stats.ko", dir);
	memset(ov, 0, sizeof(ov));
	ov[0].path = bin[0];
	ov[1].path = bin[1];
	for (int f = 0; f < 2; f++) {
		struct perf_run r = { 0 };
		struct ts_elems ref = { 0 }, rng = { 0 };
		struct range_images im = { 0 };
		struct perf_diag pd;
		char path[1200];

		snprintf(path, sizeof(path), "%s/%s", dir, files[f]);
		assert_int_equal(perf_file_open(&r.pf, path, &pd), 0);
		assert_int_equal(perf_maps_open(&r.maps, r.pf, &pd), 0);
		perf_maps_options_init(&o);
		o.overrides = ov;
		o.noverrides = 2;
		assert_int_equal(perf_maps_resolve(r.maps, &o), 0);
		assert_int_equal(perf_maps_build_images(r.maps), 0);
		perf_decode(&r, 0, &ref);
		perf_decode(&r, 1, &rng);
		im.img = perf_maps_kernel_image(r.maps);
		im.image_for_context = image_for;
		im.image_ctx = &r;
		check_same(files[f], &ref, &rng, &im, &t);
		count(&t, 1, &rng);
		print_message("%s: %zu elements, %zu as ranges\n", files[f],
			      ref.n, rng.n);
		ts_elems_free(&ref);
		ts_elems_free(&rng);
		perf_maps_free(r.maps);
		perf_file_free(r.pf);
	}
	print_message("perf.data: %llu A64 instructions iterated\n",
		      (unsigned long long)t.insns[1][etmkit_isa_a64]);
	/* perf_etm.data's 944 instructions, and the few of perf_kernel.data
	 * in rq_stats.ko (no file for the kernel). */
	assert_true(t.insns[1][etmkit_isa_a64] > 944);
	assert_true(t.multi[1] > 50);
}

/* ---- Small images -------------------------------------------------------- */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static struct etmkit_elem range(uint64_t addr, uint64_t end, uint32_t count,
				uint8_t isa, uint8_t size, uint32_t opcode,
				uint8_t flags)
{
	struct etmkit_elem r;

	memset(&r, 0, sizeof(r));
	r.kind = etmkit_elem_insn_range;
	r.offset = 77;
	r.addr = addr;
	r.isa = isa;
	r.size = size;
	r.flags = flags;
	r.u.range.end = end;
	r.u.range.count = count;
	r.u.range.opcode = opcode;
	return r;
}

/* All of @r's instructions, @batch at a time, into @out (room for 16).
 * Returns how many, or the first error. */
static int expand(struct etmkit_insn_iter *it, const struct etmkit_elem *r,
		  size_t batch, struct etmkit_elem *out)
{
	int n, got = 0;

	if ((n = etmkit_insn_iter_start(it, r)))
		return n;
	while ((n = etmkit_insn_iter_next(it, out + got, batch)) > 0)
		got += n;
	return n == -etmkit_err_eos ? got : n;
}

/* T32 at 0x8000: ADDS r0,#1; ITT EQ | MOVS r0,#1; MOV.W r0,#1; ADDS;
 * B . (16-bit). */
#define T_ADDS 0x3001u
#define T_ITT  0xbf04u
#define T_MOVS 0x2001u
#define T_MOVW 0xf04f0001u
#define T_B    0xe7feu

static void t32_code(uint8_t *c)
{
	put16(c + 0, T_ADDS);
	put16(c + 2, T_ITT);
	put16(c + 4, T_MOVS);
	put16(c + 6, 0xf04f);
	put16(c + 8, 0x0001);
	put16(c + 10, T_ADDS);
	put16(c + 12, T_B);
}

static void test_t32_it(void **state)
{
	static uint8_t code[14];
	struct image *img = NULL;
	struct etmkit_insn_iter it;
	struct etmkit_elem out[16], a, b, all;
	const uint16_t sizes[] = { 2, 2, 2, 4, 2, 2 };

	(void)state;
	t32_code(code);
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, code, sizeof(code), 0x8000, 0),
			 0);
	etmkit_insn_iter_init(&it, img, IMAGE_SPACE_ANY);
	/* One block of all six, in batches of 1, 2 and 16: the same. */
	all = range(0x8000, 0x800e, 6, etmkit_isa_thumb, 2, T_B,
		    ETMKIT_INSN_EXEC);
	for (size_t batch = 1; batch <= 16; batch *= 4) {
		uint64_t addr = 0x8000;

		assert_int_equal(expand(&it, &all, batch, out), 6);
		for (int i = 0; i < 6; i++) {
			assert_int_equal(out[i].kind, etmkit_elem_insn);
			assert_int_equal(out[i].addr, addr);
			assert_int_equal(out[i].size, sizes[i]);
			assert_int_equal(out[i].offset, 77);
			assert_int_equal(out[i].isa, etmkit_isa_thumb);
			assert_int_equal(out[i].flags, ETMKIT_INSN_EXEC);
			/* ITT: the two after it are conditional. */
			assert_int_equal(!!(out[i].u.insn.class_flags &
					    INSN_F_COND), i == 2 || i == 3);
			addr += sizes[i];
		}
		assert_int_equal(out[3].u.insn.opcode, T_MOVW);
		assert_true(out[1].u.insn.class_flags & INSN_F_IT);
		assert_true(out[5].u.insn.class_flags & INSN_F_BRANCH);
	}
	/* Cut after the ITT: the next block, where it ended, goes on in the
	 * IT block. */
	a = range(0x8000, 0x8004, 2, etmkit_isa_thumb, 2, T_ITT,
		  ETMKIT_INSN_EXEC);
	b = range(0x8004, 0x800c, 3, etmkit_isa_thumb, 2, T_ADDS,
		  ETMKIT_INSN_COND_FAIL);
	assert_int_equal(expand(&it, &a, 16, out), 2);
	assert_int_equal(expand(&it, &b, 16, out), 3);
	assert_true(out[0].u.insn.class_flags & INSN_F_COND);
	assert_true(out[1].u.insn.class_flags & INSN_F_COND);
	assert_false(out[2].u.insn.class_flags & INSN_F_COND);
	assert_int_equal(out[2].flags, ETMKIT_INSN_COND_FAIL);
	/* The same block again, not where one ended: no IT state. */
	assert_int_equal(expand(&it, &b, 16, out), 3);
	assert_false(out[0].u.insn.class_flags & INSN_F_COND);
	assert_false(out[1].u.insn.class_flags & INSN_F_COND);
	/* Nor after a block dropped half way. */
	assert_int_equal(etmkit_insn_iter_start(&it, &a), 0);
	assert_int_equal(etmkit_insn_iter_next(&it, out, 1), 1);
	assert_int_equal(expand(&it, &b, 16, out), 3);
	assert_false(out[0].u.insn.class_flags & INSN_F_COND);
	image_free(img);
}

/* ETMv3 cycle-accurate blocks: the sum on the last instruction
 * (blocks.h). */
static void test_cycles(void **state)
{
	static uint8_t code[12];
	struct image *img = NULL;
	struct etmkit_insn_iter it;
	struct etmkit_elem out[16], r;

	(void)state;
	for (int i = 0; i < 3; i++)
		put32(code + 4 * i, 0xe3a00001u); /* MOV r0,#1 */
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, code, sizeof(code), 0x100, 0),
			 0);
	etmkit_insn_iter_init(&it, img, IMAGE_SPACE_ANY);
	r = range(0x100, 0x10c, 3, etmkit_isa_arm, 4, 0xe3a00001u,
		  ETMKIT_INSN_EXEC | ETMKIT_INSN_CYCLES | ETMKIT_INSN_CANCEL);
	r.cycles = 9;
	assert_int_equal(expand(&it, &r, 2, out), 3);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(out[i].flags, ETMKIT_INSN_EXEC);
		assert_int_equal(out[i].cycles, 0);
	}
	assert_int_equal(out[2].flags, r.flags);
	assert_int_equal(out[2].cycles, 9);
	assert_int_equal(out[2].u.insn.opcode, 0xe3a00001u);
	image_free(img);
}

/* The memory space of the last context: two codes at one address. */
static void test_space(void **state)
{
	static uint8_t sec[4], ns[4];
	struct image *img = NULL;
	struct etmkit_insn_iter it;
	struct etmkit_elem out[2], r, ctx;

	(void)state;
	put32(sec, 0xd503201fu); /* NOP */
	put32(ns, 0x91000400u);  /* ADD x0, x0, #1 */
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, sec, 4, 0x4000,
					  IMAGE_SPACE_EL1S), 0);
	assert_int_equal(image_add_buffer(img, ns, 4, 0x4000,
					  IMAGE_SPACE_EL1N), 0);
	memset(&ctx, 0, sizeof(ctx));
	ctx.kind = etmkit_elem_context;
	ctx.flags = ETMKIT_CTX_EL;
	ctx.u.context.el = 1;
	ctx.u.context.sec = etmkit_sec_secure;
	etmkit_insn_iter_init(&it, img, IMAGE_SPACE_ANY);
	assert_int_equal(etmkit_insn_iter_context(&it, &ctx), 0);
	r = range(0x4000, 0x4004, 1, etmkit_isa_a64, 4, 0xd503201fu,
		  ETMKIT_INSN_EXEC);
	assert_int_equal(expand(&it, &r, 2, out), 1);
	ctx.u.context.sec = etmkit_sec_nonsecure;
	ctx.u.context.ns = 1;
	assert_int_equal(etmkit_insn_iter_context(&it, &ctx), 0);
	/* The Secure code is not what the Non-secure block ran. */
	assert_int_equal(expand(&it, &r, 2, out), -etmkit_err_format);
	r.u.range.opcode = 0x91000400u;
	assert_int_equal(expand(&it, &r, 2, out), 1);
	assert_int_equal(out[0].u.insn.opcode, 0x91000400u);
	/* ETMv3 contexts: NS and Hyp. */
	memset(&ctx, 0, sizeof(ctx));
	ctx.kind = etmkit_elem_context;
	assert_int_equal(etmkit_context_space(&ctx), IMAGE_SPACE_S);
	ctx.u.context.ns = 1;
	assert_int_equal(etmkit_context_space(&ctx), IMAGE_SPACE_EL1N);
	ctx.u.context.hyp = 1;
	assert_int_equal(etmkit_context_space(&ctx), IMAGE_SPACE_EL2);
	ctx.flags = ETMKIT_CTX_EL;
	ctx.u.context.el = 3;
	ctx.u.context.sec = etmkit_sec_root;
	assert_int_equal(etmkit_context_space(&ctx), IMAGE_SPACE_ROOT);
	ctx.u.context.el = 2;
	ctx.u.context.sec = etmkit_sec_realm;
	assert_int_equal(etmkit_context_space(&ctx), IMAGE_SPACE_EL2R);
	ctx.kind = etmkit_elem_timestamp;
	assert_int_equal(etmkit_context_space(&ctx), IMAGE_SPACE_ANY);
	assert_int_equal(etmkit_insn_iter_context(&it, &ctx),
			 -etmkit_err_invalid);
	image_free(img);
}

/* The errors blocks.h lists. */
static void test_errors(void **state)
{
	static uint8_t code[14];
	struct image *img = NULL;
	struct etmkit_insn_iter it;
	struct etmkit_elem out[16], r;

	(void)state;
	t32_code(code);
	assert_int_equal(image_alloc(&img), 0);
	assert_int_equal(image_add_buffer(img, code, sizeof(code), 0x8000, 0),
			 0);
	etmkit_insn_iter_init(&it, img, IMAGE_SPACE_ANY);
	/* Nothing started. */
	assert_int_equal(etmkit_insn_iter_next(&it, out, 16),
			 -etmkit_err_eos);
	r = range(0x8000, 0x800e, 6, etmkit_isa_thumb, 2, T_B,
		  ETMKIT_INSN_EXEC);
	assert_int_equal(etmkit_insn_iter_start(NULL, &r), -etmkit_err_invalid);
	assert_int_equal(etmkit_insn_iter_start(&it, NULL), -etmkit_err_invalid);
	assert_int_equal(etmkit_insn_iter_start(&it, &r), 0);
	assert_int_equal(etmkit_insn_iter_next(&it, NULL, 16),
			 -etmkit_err_invalid);
	assert_int_equal(etmkit_insn_iter_next(&it, out, 0),
			 -etmkit_err_invalid);
	r.kind = etmkit_elem_branch_run;
	assert_int_equal(etmkit_insn_iter_start(&it, &r), -etmkit_err_invalid);
	/* A refused block drops the one before. */
	assert_int_equal(etmkit_insn_iter_next(&it, out, 16),
			 -etmkit_err_eos);
	r.kind = etmkit_elem_insn_range;
	r.u.range.count = 0;
	assert_int_equal(etmkit_insn_iter_start(&it, &r), -etmkit_err_invalid);
	r.u.range.count = 6;
	r.isa = etmkit_isa_reserved;
	assert_int_equal(etmkit_insn_iter_start(&it, &r), -etmkit_err_invalid);
	r.isa = etmkit_isa_thumb;
	r.u.range.end = r.addr;
	assert_int_equal(etmkit_insn_iter_start(&it, &r), -etmkit_err_invalid);
	r.addr = 0xfffffffcull;
	r.u.range.end = 0x100000002ull;
	assert_int_equal(etmkit_insn_iter_start(&it, &r), -etmkit_err_invalid);

	/* Instructions that do not make the block: the ones read before
	 * come first, then the error, then nothing. */
	r = range(0x8000, 0x800e, 5, etmkit_isa_thumb, 2, T_B,
		  ETMKIT_INSN_EXEC); /* six instructions end at 0x800e */
	assert_int_equal(etmkit_insn_iter_start(&it, &r), 0);
	assert_int_equal(etmkit_insn_iter_next(&it, out, 16), 4);
	assert_int_equal(etmkit_insn_iter_next(&it, out, 16),
			 -etmkit_err_format);
	assert_int_equal(etmkit_insn_iter_next(&it, out, 16),
			 -etmkit_err_eos);
	r.u.range.count = 7; /* the sixth ends the block */
	assert_int_equal(expand(&it, &r, 16, out), -etmkit_err_format);
	r.u.range.count = 6;
	r.u.range.opcode = T_ADDS; /* the last is B */
	assert_int_equal(expand(&it, &r, 16, out), -etmkit_err_format);
	r.u.range.opcode = T_B;
	r.size = 4;
	assert_int_equal(expand(&it, &r, 16, out), -etmkit_err_format);
	r.size = 2;
	assert_int_equal(expand(&it, &r, 16, out), 6);
	/* A block past the image's bytes: the five there, then not found. */
	r = range(0x8000, 0x8010, 7, etmkit_isa_thumb, 2, T_B,
		  ETMKIT_INSN_EXEC);
	assert_int_equal(etmkit_insn_iter_start(&it, &r), 0);
	assert_int_equal(etmkit_insn_iter_next(&it, out, 16), 6);
	assert_int_equal(etmkit_insn_iter_next(&it, out, 16),
			 -etmkit_err_not_found);
	/* A 32-bit T32 instruction cut by the image's end. */
	r = range(0x8006, 0x800a, 1, etmkit_isa_thumb, 4, T_MOVW,
		  ETMKIT_INSN_EXEC);
	etmkit_insn_iter_init(&it, img, IMAGE_SPACE_ANY);
	assert_int_equal(expand(&it, &r, 16, out), 1);
	{
		struct image *cut = NULL;

		assert_int_equal(image_alloc(&cut), 0);
		assert_int_equal(image_add_buffer(cut, code, 8, 0x8000, 0), 0);
		etmkit_insn_iter_set_image(&it, cut);
		assert_int_equal(expand(&it, &r, 16, out),
				 -etmkit_err_not_found);
		etmkit_insn_iter_set_image(&it, NULL);
		assert_int_equal(expand(&it, &r, 16, out),
				 -etmkit_err_not_found);
		image_free(cut);
	}
	/* A block that ends near 2^64, from a misaligned address inside the
	 * bytes read for the block before (no decoder makes one;
	 * fuzz_insn_iter did): the 255 instructions the image holds from
	 * there, read on as needed, then not found. */
	{
		static uint8_t nops[1024];
		struct image *top = NULL;
		int n, got = 0;

		for (int i = 0; i < 256; i++)
			put32(nops + 4 * i, 0xd503201fu);
		assert_int_equal(image_alloc(&top), 0);
		assert_int_equal(image_add_buffer(top, nops, sizeof(nops),
						  0xfffffffffffff000ull, 0), 0);
		etmkit_insn_iter_set_image(&it, top);
		/* The bytes read for a block before, around the start. */
		r = range(0xfffffffffffff000ull, 0xfffffffffffff004ull, 1,
			  etmkit_isa_a64, 4, 0xd503201fu, ETMKIT_INSN_EXEC);
		assert_int_equal(expand(&it, &r, 16, out), 1);
		r = range(0xfffffffffffff002ull, 0xffffffffffffffffull, 300,
			  etmkit_isa_a64, 4, 0xd503201fu, ETMKIT_INSN_EXEC);
		assert_int_equal(etmkit_insn_iter_start(&it, &r), 0);
		while ((n = etmkit_insn_iter_next(&it, out, 1)) > 0)
			got += n;
		assert_int_equal(got, 255);
		assert_int_equal(n, -etmkit_err_not_found);
		image_free(top);
	}
	/* No code at all where the block is. */
	etmkit_insn_iter_set_image(&it, img);
	r = range(0x9000, 0x9004, 1, etmkit_isa_a64, 4, 0, ETMKIT_INSN_EXEC);
	assert_int_equal(expand(&it, &r, 16, out), -etmkit_err_not_found);
	image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t32_it),
		cmocka_unit_test(test_cycles),
		cmocka_unit_test(test_space),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_snapshots),
		cmocka_unit_test(test_perf),
	};

	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	return test_exit(failed, shared_missing());
}
