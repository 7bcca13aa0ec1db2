/* libFuzzer target: execution profiles (include/etmkit/profile.h) from
 * arbitrary element sequences, both ways of counting.
 * Invariants:
 * - profile_elem() returns 0, or -etmkit_err_unsupported for a tallied
 *   range of a traces profile, nothing else (the resolver never fails
 *   otherwise), and profile_finish() returns 0;
 * - taken-branch traces: every branch follows a range that ended in it,
 *   so the branches of a binary count at most what its ranges count, and
 *   every range and branch lies in the binary the resolver gave;
 * - the writers of each kind succeed on one binary at a time (with call
 *   contexts, the profgen writer; the BOLT writer refuses them). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/insn.h"
#include "etmkit/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Binary 0: 0x1000-0x1fff (vaddr + 0x10000), binary 1: 0x2000-0x2fff. */
static int resolve(void *ctx, uint8_t id, uint64_t addr,
		   struct profile_where *w)
{
	(void)ctx;
	(void)id;
	if (addr < 0x1000 || addr >= 0x3000)
		return -etmkit_err_not_found;
	w->bin = addr >= 0x2000;
	w->vaddr = addr + (w->bin ? 0 : 0x10000);
	if (addr & 1) {
		w->lo = addr & ~0xfffull;
		w->hi = w->lo + 0x1000;
	}
	return 0;
}

static const uint8_t kinds[] = {
	etmkit_elem_insn_range, etmkit_elem_insn, etmkit_elem_trace_on,
	etmkit_elem_gap, etmkit_elem_exception, etmkit_elem_context,
	etmkit_elem_no_image, etmkit_elem_q
};

static void check(int traces, int contexts, const uint8_t *data,
		  size_t size)
{
	struct profile_config cfg;
	struct profile *p;
	struct profile_binary bins[2];
	uint64_t rsum[2] = { 0, 0 }, bsum[2] = { 0, 0 };
	FILE *f;

	profile_config_init(&cfg);
	cfg.resolve = resolve;
	cfg.traces = traces;
	cfg.contexts = contexts;
	if (profile_alloc(&p, &cfg))
		abort();
	for (size_t i = 0; i + 8 <= size; i += 8) {
		const uint8_t *d = data + i;
		struct etmkit_elem e;
		int err;

		memset(&e, 0, sizeof(e));
		e.kind = kinds[d[0] & 7];
		e.addr = 0xff0 + ((uint64_t)(d[1] & 0x3f) << 7) +
			 (uint64_t)(d[2] & 0x7c);
		e.isa = etmkit_isa_a64;
		e.size = 4;
		e.flags = (uint8_t)(d[3] & (ETMKIT_INSN_EXEC |
					    ETMKIT_INSN_COND_FAIL |
					    ETMKIT_INSN_P0));
		if (e.kind == etmkit_elem_insn_range) {
			e.u.range.end = e.addr + 4 + 4 * (uint64_t)(d[4] & 15);
			e.u.range.count = 1 + (d[4] & 15);
			e.u.range.repeats = d[5] & 0x80 ? d[5] & 3 : 0;
		}
		e.u.insn.class_flags = d[6] & 1 ? INSN_F_BRANCH |
			(d[6] & 2 ? INSN_F_INDIRECT : 0) |
			(d[6] & 8 ? INSN_F_CALL : 0) |
			(d[6] & 16 ? INSN_F_RETURN : 0) : 0;
		if (e.kind == etmkit_elem_context && d[7] & 1) {
			e.flags = ETMKIT_CTX_CONTEXT_ID;
			e.u.context.context_id = d[7] >> 1 & 3;
		}
		e.u.insn.opcode = d[6] & 4 ? 0x14000000u | d[7] : 0xd65f03c0u;
		err = profile_elem(p, (uint8_t)(d[1] >> 6), &e);
		if (err && !(traces && err == -etmkit_err_unsupported &&
			     e.u.range.repeats))
			abort();
	}
	if (profile_finish(p))
		abort();
	for (size_t i = 0; i < profile_range_count(p); i++) {
		struct profile_entry en;

		if (profile_range_at(p, i, &en) || en.bin > 1 || en.from > en.to)
			abort();
		rsum[en.bin] += en.count;
	}
	for (size_t i = 0; i < profile_branch_count(p); i++) {
		struct profile_entry en;

		if (profile_branch_at(p, i, &en) || en.bin > 1)
			abort();
		bsum[en.bin] += en.count;
	}
	if (traces && (bsum[0] > rsum[0] || bsum[1] > rsum[1]))
		abort();
	memset(bins, 0, sizeof(bins));
	bins[0].name = "/zero";
	bins[1].name = "/one";
	bins[0].text_base = 0x10000;
	f = fopen("/dev/null", "w");
	if (!f)
		abort();
	for (int b = 0; b < 2; b++) {
		bins[b].skip = 0;
		bins[!b].skip = 1;
		if (contexts ? profile_write_profgen(p, f, bins, 2) ||
			       profile_write_bolt(p, f, bins, 2) !=
			       -etmkit_err_invalid :
		    traces ? profile_write_bolt(p, f, bins, 2) ||
			     profile_write_profgen(p, f, bins, 2) :
			     profile_write_autofdo(p, f, bins, 2))
			abort();
	}
	fclose(f);
	profile_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check(0, 0, data, size);
	check(1, 0, data, size);
	check(1, 1, data, size);
	return 0;
}
