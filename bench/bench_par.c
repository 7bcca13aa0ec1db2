/* The parallel decode's bench line (bench_par.h). */
#include "bench_par.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/parallel.h"
#include "etmkit/session.h"
#include "bench_common.h"

int bench_par_option(void *ctx, const char *a, const char *val)
{
	struct bench_par *bp = ctx;
	unsigned long v;

	if (!strcmp(a, "--jobs")) {
		if (bench_parse_ulong(val, 256, &v) || !v)
			return -1;
		bp->jobs = (unsigned)v;
		return 1;
	}
	if (!strcmp(a, "--session")) {
		if (!strcmp(val, "split"))
			bp->session = 2;
		else if (!strcmp(val, "worker"))
			bp->session = 1;
		else
			return -1;
		return 1;
	}
	if (!strcmp(a, "--piece-kb")) {
		if (bench_parse_ulong(val, 1ul << 20, &v) || !v)
			return -1;
		bp->piece_kb = v;
		return 1;
	}
	return 0;
}

/* Instructions and their address sum, as bench_etm4_flow counts them: a
 * range of k instructions of its last one's size. */
static void count(struct bench_par_counts *c, const struct etmkit_elem *el,
		  size_t n)
{
	uint64_t insns = 0, sum = 0;

	for (size_t i = 0; i < n; i++) {
		const struct etmkit_elem *e = &el[i];

		if (e->kind == etmkit_elem_insn_range) {
			uint64_t k = e->u.range.count;

			insns += k;
			sum += k * e->addr + e->size * (k * (k - 1) / 2);
		} else if (e->kind == etmkit_elem_insn) {
			insns++;
			sum += e->addr;
		}
	}
	c->insns += insns;
	c->sum += sum;
	c->elems += n;
}

static int sink(void *ctx, const struct etmkit_elem *el, size_t n)
{
	count(ctx, el, n);
	return 0;
}

/* The serial decode of protocol @P (etm3, etm4, ptm) with config @CFG
 * and its ranges flag @RANGES: fed all of @buf, drained, finished,
 * drained; sets err. */
#define BENCH_PAR_SERIAL(P, CFG, RANGES)                                     \
	do {                                                                 \
		struct P##_flow_config cfg = *(CFG);                         \
		struct P##_flow_decoder *d;                                  \
		const struct etmkit_elem *el;                                \
		int m = 0;                                                   \
									     \
		cfg.flags |= (RANGES);                                       \
		err = P##_flow_alloc(&d, &cfg);                              \
		if (err)                                                     \
			break;                                               \
		err = P##_flow_feed(d, buf, n, NULL, 0);                     \
		for (int round = 0; !err && round < 2; round++) {            \
			while ((m = P##_flow_batch(d, &el)) > 0)             \
				count(c, el, (size_t)m);                     \
			err = m == -etmkit_err_eos ? 0 : m;                  \
			if (!err && !round)                                  \
				err = P##_flow_finish(d);                    \
		}                                                            \
		P##_flow_free(d);                                            \
	} while (0)

int bench_par_serial(const struct etm3_flow_config *c3,
		     const struct etm4_flow_config *c4,
		     const struct ptm_flow_config *cp, const uint8_t *buf,
		     size_t n, struct bench_par_counts *c)
{
	double t0 = bench_now();
	int err;

	memset(c, 0, sizeof(*c));
	if (c3)
		BENCH_PAR_SERIAL(etm3, c3, ETM3_FLOW_RANGES);
	else if (c4)
		BENCH_PAR_SERIAL(etm4, c4, ETM4_FLOW_RANGES);
	else
		BENCH_PAR_SERIAL(ptm, cp, PTM_FLOW_RANGES);
	c->secs = bench_now() - t0;
	return err;
}

static int session_sink(void *ctx, uint8_t id, const struct etmkit_elem *el,
			size_t n)
{
	(void)id;
	count(ctx, el, n);
	return 0;
}

/* The session line: @buf fed unformatted, 1 MiB a feed, as a file is
 * read. */
static int session_run(const struct bench_par *bp,
		       const struct etmkit_par_config *pc, const uint8_t *buf,
		       size_t n, struct bench_par_counts *c)
{
	struct etmkit_session_config sc;
	struct etmkit_session *s;
	int err;

	etmkit_session_config_init(&sc);
	sc.frames = deformat_none;
	sc.raw_id = 0x10;
	sc.on_elems = session_sink;
	sc.ctx = c;
	sc.jobs = bp->jobs;
	sc.split_source = bp->session == 2;
	err = etmkit_session_alloc(&s, &sc);
	if (err < 0)
		return err;
	err = pc->etm3 ? etmkit_session_add_etm3_flow(s, 0x10, pc->etm3) :
	      pc->etm4 ? etmkit_session_add_etm4_flow(s, 0x10, pc->etm4) :
			 etmkit_session_add_ptm_flow(s, 0x10, pc->ptm);
	for (size_t at = 0; err >= 0 && at < n; at += 1u << 20)
		err = etmkit_session_feed(s, buf + at,
					  n - at < (1u << 20) ? n - at :
								1u << 20);
	if (err >= 0)
		err = etmkit_session_finish(s);
	etmkit_session_free(s);
	return err < 0 ? err : 0;
}

int bench_par_run(const struct bench_par *bp,
		  const struct etm3_flow_config *c3,
		  const struct etm4_flow_config *c4,
		  const struct ptm_flow_config *cp, const uint8_t *buf,
		  size_t n, struct bench_par_counts *c, double *secs)
{
	struct etm3_flow_config f3;
	struct etm4_flow_config f4;
	struct ptm_flow_config fp;
	struct etmkit_par_config pc;
	struct etmkit_par_stats st;
	double t0;
	int err;

	memset(c, 0, sizeof(*c));
	etmkit_par_config_init(&pc);
	if (c3) {
		f3 = *c3;
		f3.flags |= ETM3_FLOW_RANGES;
		pc.proto = etmkit_par_etm3;
		pc.etm3 = &f3;
	} else if (c4) {
		f4 = *c4;
		f4.flags |= ETM4_FLOW_RANGES;
		pc.proto = etmkit_par_etm4;
		pc.etm4 = &f4;
	} else {
		fp = *cp;
		fp.flags |= PTM_FLOW_RANGES;
		pc.proto = etmkit_par_ptm;
		pc.ptm = &fp;
	}
	pc.jobs = bp->jobs;
	pc.piece_bytes = bp->piece_kb * 1024;
	t0 = bench_now();
	if (bp->session) {
		err = session_run(bp, &pc, buf, n, c);
		*secs = bench_now() - t0;
		return err;
	}
	err = etmkit_par_run(&pc, buf, n, NULL, 0, sink, c, &st);
	*secs = bench_now() - t0;
	c->fallbacks = st.fallbacks;
	c->pieces = st.pieces;
	return err;
}

int bench_par_report(const char *who, const struct bench_par *bp,
		     double bytes, double secs, const struct bench_par_counts *c,
		     const struct bench_par_counts *ref, int runs)
{
	char name[32];

	snprintf(name, sizeof(name), "etmkit-%s-j%u",
		 bp->session == 2 ? "split" : bp->session ? "worker" : "ranges",
		 bp->jobs);
	printf("%s  %-14s %7.1f MB  %8.1f MB/s  %8.2f Minsn/s  %8.1f ms  best "
	       "of %d; %" PRIu64 " pieces (%.1f KiB on average), %" PRIu64
	       " joined serially; the serial ranges decode: %.1f MB/s (one "
	       "run)\n", who, name, bytes / MIB, bytes / MIB / secs,
	       (double)c->insns / secs / 1e6, secs * 1e3, runs, c->pieces,
	       bytes / 1024.0 / (double)(c->pieces ? c->pieces : 1),
	       c->fallbacks,
	       bytes / MIB / ref->secs);
	if (c->insns != ref->insns || c->sum != ref->sum ||
	    c->elems != ref->elems) {
		printf("%s  MISMATCH: %s: %" PRIu64 " instructions (sum 0x%" PRIx64
		       ", %" PRIu64 " elements), serial ranges %" PRIu64
		       " (sum 0x%" PRIx64 ", %" PRIu64 " elements)\n", who, name,
		       c->insns, c->sum, c->elems, ref->insns, ref->sum,
		       ref->elems);
		return 1;
	}
	printf("%s  %-14s match: %" PRIu64 " instructions, address sum and "
	       "elements as the serial ranges decode\n", who, name, c->insns);
	return 0;
}
