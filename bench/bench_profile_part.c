/* bench_profile_part: speed of the partial profiles' saved form and merge
 * (profile_part.h, docs/profile-part.md): what one step of a fleet's
 * tree reduction costs, load two parts, merge them, save the sum.
 *
 * Input: two tally parts made from profiles (not timed): --entries N
 * (default 1000000) distinct ranges each, at random addresses of four
 * 16 MiB binaries, each range ending in a return (so a branch to 0 as
 * well: 2N entries a part), the second part sharing half of its ranges
 * with the first. Timed, best of --runs (default 3): profile_part_load()
 * of both parts' bytes, profile_part_merge(), profile_part_save_buf() of
 * the sum. Reported: the parts' sizes, MB/s of input bytes for each step
 * and for the whole step; every run's sum must save the same bytes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/insn.h"
#include "etmkit/profile.h"
#include "etmkit/profile_part.h"
#include "bench_common.h"

#define WHO "profile_part"
#define NBINS 4
#define SPAN (16ull << 20)    /* each binary's run-time span */
#define RET 0xd65f03c0u

static const struct profile_part_binary bins[NBINS] = {
	{ "/usr/bin/app", NULL, { 1, 2, 3, 4 }, 20, 1, 0x400000, 0x400000 },
	{ "/usr/lib/libc.so.6", NULL, { 5, 6, 7, 8 }, 20, 1, 0, 0 },
	{ "/usr/lib/libm.so.6", NULL, { 9, 10, 11 }, 20, 1, 0, 0 },
	{ "[kernel.kallsyms]", NULL, { 12, 13 }, 20, 1, 0, 0 },
};

/* Binary i runs at (i + 1) << 28, at the same ELF addresses. */
static int resolve(void *ctx, uint8_t id, uint64_t addr,
		   struct profile_where *w)
{
	uint64_t i = (addr >> 28) - 1;

	(void)ctx;
	(void)id;
	if (i >= NBINS || (addr & ((1ull << 28) - 1)) >= SPAN)
		return -etmkit_err_not_found;
	w->bin = (size_t)i;
	w->vaddr = addr;
	w->lo = (i + 1) << 28;
	w->hi = w->lo + SPAN;
	return 0;
}

/* The bytes of a part of @n ranges: the k-th from random stream @seed,
 * the first @shared of them from stream 1 (shared by both parts). */
static int make_part(unsigned long n, unsigned long shared, uint64_t seed,
		     uint8_t **buf, size_t *size)
{
	struct profile_config cfg;
	struct profile *p;
	struct profile_part *pp;
	struct etmkit_elem e;
	uint64_t s1 = 1, s2 = seed;
	long map[NBINS];
	int err;

	profile_config_init(&cfg);
	cfg.resolve = resolve;
	if (profile_alloc(&p, &cfg) || profile_part_alloc(&pp,
					profile_part_kind_tally))
		return -1;
	memset(&e, 0, sizeof(e));
	e.kind = etmkit_elem_insn_range;
	e.isa = etmkit_isa_a64;
	e.size = 4;
	e.flags = ETMKIT_INSN_EXEC | ETMKIT_INSN_P0;
	e.u.range.opcode = RET;
	e.u.range.class_flags = INSN_F_BRANCH | INSN_F_INDIRECT |
				INSN_F_RETURN;
	for (unsigned long k = 0; k < n; k++) {
		uint64_t r = bench_next_rand(k < shared ? &s1 : &s2);

		e.addr = ((r % NBINS + 1) << 28) + (r >> 8) % (SPAN / 4) * 4;
		e.u.range.count = 1 + (uint32_t)(r >> 40) % 16;
		e.u.range.end = e.addr + 4ull * e.u.range.count;
		e.u.range.repeats = (uint32_t)(r >> 56) % 4;
		if (profile_elems(p, 0x10, &e, 1))
			return -1;
	}
	if (profile_finish(p))
		return -1;
	for (int i = 0; i < NBINS; i++)
		map[i] = profile_part_add_binary(pp, &bins[i]);
	err = profile_part_add_profile(pp, p, map, NBINS);
	if (!err) {
		struct profile_part_counters c = { 1, 0, 0, 0 };

		profile_part_add_counters(pp, &c);
		err = profile_part_save_buf(pp, buf, size);
	}
	profile_part_free(pp);
	profile_free(p);
	return err ? -1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_profile_part [--entries N] [--runs N]\n"
		   "  --entries N  distinct ranges per part (default 1000000)\n"
		   "  --runs N     best of N runs (default 3)\n");
}

int main(int argc, char **argv)
{
	unsigned long n = 1000000, runs = 3;
	uint8_t *a, *b, *sum = NULL, *first = NULL;
	size_t na, nb, ns = 0, nfirst = 0, entries = 0;
	double best[4] = { 1e9, 1e9, 1e9, 1e9 };

	for (int i = 1; i < argc; i++) {
		unsigned long *to = !strcmp(argv[i], "--entries") ? &n :
				    !strcmp(argv[i], "--runs") ? &runs : NULL;

		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if (!to || i + 1 == argc ||
		    bench_parse_ulong(argv[++i], 1ul << 30, to) || !*to) {
			usage(stderr);
			return 2;
		}
	}
	if (make_part(n, n / 2, 7, &a, &na) || make_part(n, n / 2, 11, &b, &nb)) {
		fprintf(stderr, WHO ": cannot make the parts\n");
		return 1;
	}
	for (unsigned long r = 0; r < runs; r++) {
		struct profile_part *pa, *pb;
		double t[4];

		t[0] = bench_now();
		if (profile_part_load(&pa, a, na, NULL) ||
		    profile_part_load(&pb, b, nb, NULL))
			return 1;
		t[1] = bench_now();
		if (profile_part_merge(pa, pb))
			return 1;
		t[2] = bench_now();
		free(sum);
		if (profile_part_save_buf(pa, &sum, &ns))
			return 1;
		t[3] = bench_now();
		entries = profile_part_range_count(pa) +
			  profile_part_branch_count(pa);
		profile_part_free(pa);
		profile_part_free(pb);
		for (int k = 0; k < 3; k++)
			if (t[k + 1] - t[k] < best[k])
				best[k] = t[k + 1] - t[k];
		if (t[3] - t[0] < best[3])
			best[3] = t[3] - t[0];
		if (!first) {
			first = malloc(ns);
			if (!first)
				return 1;
			memcpy(first, sum, ns);
			nfirst = ns;
		} else if (ns != nfirst || memcmp(first, sum, ns)) {
			fprintf(stderr, WHO ": the sum saved other bytes\n");
			return 1;
		}
	}
	printf(WHO "   input    2 parts of %.1f + %.1f MB, %lu ranges each, "
	       "sum %.1f MB, %zu entries\n", na / 1e6, nb / 1e6, n, ns / 1e6,
	       entries);
	printf(WHO "   load     %8.1f MB/s  both parts\n",
	       (na + nb) / best[0] / 1e6);
	printf(WHO "   merge    %8.1f MB/s  of the parts' bytes\n",
	       (na + nb) / best[1] / 1e6);
	printf(WHO "   save     %8.1f MB/s  of the sum's bytes\n",
	       ns / best[2] / 1e6);
	printf(WHO "   step     %8.1f MB/s  load + merge + save, of the "
	       "parts' bytes, best of %lu\n", (na + nb) / best[3] / 1e6, runs);
	free(a);
	free(b);
	free(sum);
	free(first);
	return 0;
}
