/* The parallel decode's bench line (include/etmkit/parallel.h), shared by
 * bench_etm3_flow, bench_etm4_flow, bench_ptm_flow and bench_corpus:
 * --jobs N and
 * --piece-kb K, the runner timed in the ranges form (ETMx_FLOW_RANGES),
 * printed as "etmkit-ranges-jN" (or a session: --session, printed as
 * "etmkit-split-jN" or "etmkit-worker-jN"), its instruction count and
 * address sum checked against a serial ranges decode of the same bytes.
 * The functions take one of three flow configs (ETMv3 @c3, ETMv4/ETE
 * @c4, PTM @cp; the others NULL). */
#ifndef ETMKIT_BENCH_PAR_H
#define ETMKIT_BENCH_PAR_H

#include <stddef.h>
#include <stdint.h>

#include "etmkit/flow.h"

struct bench_par {
	unsigned jobs;       /* --jobs N; 0: no parallel line */
	size_t piece_kb;     /* --piece-kb K; 0: the library's default (parallel.h) */
	/* --session split|worker: the parallel line through a session
	 * (session.h: unformatted, fed 1 MiB at a time, on_elems counting)
	 * with split_source (jobs workers, the trace cut at sync points) or
	 * without (one worker beside the caller's thread), not the runner.
	 * 0: the runner (etmkit_par_run()). */
	int session;
};

/* bench_option_fn for --jobs and --piece-kb (@ctx a struct bench_par). */
int bench_par_option(void *ctx, const char *a, const char *val);

/* What one decode counted: instructions, and the sum of their addresses
 * (exact for ranges of one instruction size: A64, A32). */
struct bench_par_counts {
	uint64_t insns, sum, elems;
	uint64_t fallbacks, pieces;
	double secs;         /* bench_par_serial(): its time (one run) */
};

/* The serial ranges decode (untimed) of @buf[0..@n) for the check: one
 * of @c3, @c4, @cp is set (its flags get the RANGES flag). Returns 0 or
 * a negative error. */
int bench_par_serial(const struct etm3_flow_config *c3,
		     const struct etm4_flow_config *c4,
		     const struct ptm_flow_config *cp, const uint8_t *buf,
		     size_t n, struct bench_par_counts *c);

/* One timed run of the runner on @buf; returns 0 or a negative error,
 * the seconds in *@secs. */
int bench_par_run(const struct bench_par *bp,
		  const struct etm3_flow_config *c3,
		  const struct etm4_flow_config *c4,
		  const struct ptm_flow_config *cp, const uint8_t *buf,
		  size_t n, struct bench_par_counts *c, double *secs);

/* Print the line (@who the bench's prefix), and MISMATCH when @c differs
 * from the serial @ref. Returns 0, or 1 on a mismatch. */
int bench_par_report(const char *who, const struct bench_par *bp,
		     double bytes, double secs, const struct bench_par_counts *c,
		     const struct bench_par_counts *ref, int runs);

#endif
