/* bench_etm4_pkt: throughput of etmkit's ETMv4/ETE packet layer, and of
 * OpenCSD's ETMv4I or ETE packet processor on the same bytes when built
 * with ETMKIT_HAVE_OPENCSD.
 *
 * Input: as bench_etm4_flow (bench_etm4_open(), bench_etm4_input()): one
 * ETMv4/ETE source of a snapshot, its bytes from the first A-sync up to the
 * last, repeated to --mb MiB. Both decoders must report the same packets
 * in one copy and in every further copy.
 *
 * Timed: decoder allocation, decoding every record, end of trace, release
 * (the same for both decoders). Best of --runs runs, the decoders taking
 * turns. MB means MiB (2^20 bytes) everywhere.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/etm4.h"
#include "bench_common.h"

#ifdef ETMKIT_HAVE_OPENCSD
#include "ocsd_peer.h"
#endif

#define WHO "etm4_pkt"
#define BATCH 256

/* Counts of one decode. */
struct pkt_counts {
	uint64_t packets;   /* packets other than unsynced runs; an atom
			       run counts as its atom packets */
	uint64_t unsynced;  /* unsynced records */
	uint64_t errors;    /* records with error != 0 */
	uint64_t records;   /* records of any kind (timed passes) */
	uint64_t runs;      /* atom_run records (ETM4_CFG_ADDR_RUNS) */
	uint64_t checksum;  /* types + atom counts: keeps the loop honest */
	uint64_t by_type[etm4_pkt_type_count]; /* untimed pass only */
	int first_type;     /* type of the first record, -1 if none */
};

enum drain_mode { drain_packets, drain_runs, drain_count };

struct ocsd_side; /* OpenCSD's counts and times (ETMKIT_HAVE_OPENCSD) */

/* One copy, and what every further copy adds (the first copy's last
 * packet may run into the second's A-sync; each later one is alike). */
struct per_copy {
	struct pkt_counts one, two;
	uint64_t further;
};

static void usage(FILE *f)
{
	bench_etm4_usage(f, "bench_etm4_pkt", "32");
}

/* ---- etmkit -------------------------------------------------------------- */

/* Timed consumer of plain records: read every record, tallies in locals
 * so the loop measures the decoder, not stores to a counter table.
 * Returns 0 or a negated error. */
static int drain_timed(struct etm4_pkt_decoder *dec, struct etm4_packet *pkts,
		       struct pkt_counts *c)
{
	uint64_t packets = 0, unsynced = 0, errors = 0, sum = 0;
	int n;

	while ((n = etm4_pkt_next(dec, pkts, BATCH)) > 0) {
		for (int i = 0; i < n; i++) {
			const struct etm4_packet *p = &pkts[i];
			unsigned is_atom = p->type == etm4_pkt_atom;

			unsynced += p->type == etm4_pkt_unsynced;
			errors += p->error != 0;
			sum += p->type + (is_atom ? p->u.atoms.count : 0u);
		}
		packets += (uint64_t)n;
	}
	c->records += packets;
	c->packets += packets - unsynced;
	c->unsynced += unsynced;
	c->errors += errors;
	c->checksum += sum;
	return n == -etmkit_err_eos ? 0 : n;
}

/* Timed consumer of runs (ETM4_CFG_ADDR_RUNS, the form the flow decoder
 * asks for): every atom header of a run counts as one atom packet with its
 * atoms from the table, every address as one address packet, so packets
 * and checksum must equal drain_timed()'s. */
static int drain_timed_runs(struct etm4_pkt_decoder *dec,
			    struct etm4_packet *pkts, struct pkt_counts *c)
{
	const struct etm4_atoms *atoms = etm4_pkt_atom_table(dec);
	uint64_t packets = 0, unsynced = 0, errors = 0, sum = 0, runs = 0;
	int n;

	while ((n = etm4_pkt_next(dec, pkts, BATCH)) > 0) {
		c->records += (uint64_t)n;
		for (int i = 0; i < n; i++) {
			const struct etm4_packet *p = &pkts[i];

			if (p->type == etm4_pkt_atom_run) {
				const struct etm4_run_addr *a = p->u.run.addrs;
				const uint8_t *h = p->u.run.headers;
				uint32_t cnt = p->u.run.count;

				for (uint32_t k = 0; k < cnt; packets++) {
					unsigned na = atoms[h[k]].count;

					if (na) {
						sum += etm4_pkt_atom + na;
						k++;
					} else {
						sum += etm4_pkt_address;
						k += (a++)->length;
					}
				}
				runs++;
				continue;
			}
			unsynced += p->type == etm4_pkt_unsynced;
			errors += p->error != 0;
			sum += p->type + (p->type == etm4_pkt_atom
						  ? p->u.atoms.count : 0u);
			packets++;
		}
	}
	c->packets += packets - unsynced;
	c->unsynced += unsynced;
	c->errors += errors;
	c->runs += runs;
	c->checksum += sum;
	return n == -etmkit_err_eos ? 0 : n;
}

/* Untimed consumer of plain records: also counts per type and notes the
 * first record. */
static int drain_counting(struct etm4_pkt_decoder *dec,
			  struct etm4_packet *pkts, struct pkt_counts *c)
{
	int n;

	while ((n = etm4_pkt_next(dec, pkts, BATCH)) > 0) {
		for (int i = 0; i < n; i++) {
			const struct etm4_packet *p = &pkts[i];
			unsigned type = p->type < etm4_pkt_type_count
						? p->type : etm4_pkt_reserved;

			if (c->first_type < 0)
				c->first_type = (int)type;
			c->by_type[type]++;
			c->unsynced += type == etm4_pkt_unsynced;
			c->packets += type != etm4_pkt_unsynced;
			c->errors += p->error != 0;
			c->checksum += type + (type == etm4_pkt_atom
						       ? p->u.atoms.count : 0u);
		}
	}
	return n == -etmkit_err_eos ? 0 : n;
}

/* Decode @buf[0..n) from a fresh decoder: alloc, feed, drain, finish,
 * drain, free. Returns 0 or a negated error. */
static int etmkit_decode(const struct etm4_config *cfg, const uint8_t *buf,
			 size_t n, struct etm4_packet *pkts,
			 struct pkt_counts *c, enum drain_mode mode)
{
	int (*drain)(struct etm4_pkt_decoder *, struct etm4_packet *,
		     struct pkt_counts *) = mode == drain_count ? drain_counting :
					    mode == drain_runs ? drain_timed_runs :
					    drain_timed;
	struct etm4_config rc = *cfg;
	struct etm4_pkt_decoder *dec = NULL;
	int err;

	memset(c, 0, sizeof(*c));
	c->first_type = -1;
	rc.flags &= ~(ETM4_CFG_ATOM_RUNS | ETM4_CFG_ADDR_RUNS);
	if (mode == drain_runs)
		rc.flags |= ETM4_CFG_ADDR_RUNS;
	err = etm4_pkt_alloc(&dec, &rc);
	if (err)
		return err;
	err = etm4_pkt_feed(dec, buf, n, NULL, 0);
	if (!err)
		err = drain(dec, pkts, c);
	if (!err)
		err = etm4_pkt_finish(dec);
	if (!err)
		err = drain(dec, pkts, c);
	etm4_pkt_free(dec);
	return err;
}

/* Run @r of the timed decode of @in: *@best keeps the fastest. Returns 0,
 * or -1 after reporting an error. */
static int timed_decode(const struct etm4_config *cfg,
			const struct bench_input *in, struct etm4_packet *pkts,
			enum drain_mode mode, int r, double *best,
			struct pkt_counts *c)
{
	double t0 = bench_now();
	int err = etmkit_decode(cfg, in->buf, in->n, pkts, c, mode);

	return bench_keep_best(WHO, err, bench_now() - t0, r, best);
}

/* Untimed: the counts of one and of two copies. */
static int etmkit_per_copy(const struct etm4_config *cfg,
			   const struct bench_input *in,
			   struct etm4_packet *pkts, struct per_copy *pc)
{
	int err = etmkit_decode(cfg, in->buf, in->copy_len, pkts, &pc->one,
				drain_count);

	if (!err)
		err = etmkit_decode(cfg, in->buf, 2 * in->copy_len, pkts,
				    &pc->two, drain_count);
	if (err) {
		fprintf(stderr, WHO ": etmkit: %s\n", etmkit_errstr(err));
		return -1;
	}
	pc->further = pc->two.packets - pc->one.packets;
	if (pc->one.first_type != etm4_pkt_a_sync)
		printf(WHO "  WARNING: etmkit's first record is %s, not "
		       "a_sync\n", pc->one.first_type < 0 ? "missing" :
		       etm4_pkt_type_name((enum etm4_pkt_type)pc->one.first_type));
	return 0;
}

/* ---- Reporting ------------------------------------------------------------ */

static void print_rate(const char *who, double bytes, double secs,
		       uint64_t packets, const char *note)
{
	printf(WHO "  %-8s %7.1f MB  %8.1f MB/s  %8.2f Mpkt/s  %8.1f ms%s\n",
	       who, bytes / MIB, bytes / MIB / secs,
	       (double)packets / secs / 1e6, secs * 1e3, note);
}

static void print_etmkit(int runs, const struct per_copy *pc, double bytes,
			 double best, const struct pkt_counts *total,
			 double best_r, const struct pkt_counts *rtotal)
{
	char note[256];

	snprintf(note, sizeof(note), "  best of %d; %" PRIu64 " pkts/copy, %"
		 PRIu64 " unsynced, %" PRIu64 " errors; checksum %" PRIu64
		 "; one record per packet", runs, pc->further, total->unsynced,
		 total->errors, total->checksum);
	print_rate("etmkit", bytes, best, total->packets, note);
	snprintf(note, sizeof(note), "  best of %d; ETM4_CFG_ADDR_RUNS: %"
		 PRIu64 " records (%" PRIu64 " runs of atoms and addresses) for "
		 "the same packets, consumer reads each header", runs,
		 rtotal->records, rtotal->runs);
	print_rate("etmkit-runs", bytes, best_r, rtotal->packets, note);
}

/* Both etmkit forms report copies' worth of the per-copy counts, with the
 * same checksum. Returns 0, or 1 after a MISMATCH line. */
static int check_etmkit(const struct per_copy *pc, size_t copies,
			const struct pkt_counts *total,
			const struct pkt_counts *rtotal)
{
	uint64_t want = pc->one.packets + pc->further * (copies - 1);
	int status = 0;

	if (total->packets != want || rtotal->packets != want) {
		printf(WHO "  MISMATCH: etmkit counted %" PRIu64 " packets, "
		       "etmkit-runs %" PRIu64 ", expected %" PRIu64 " (%" PRIu64
		       " + %zu x %" PRIu64 ")\n", total->packets, rtotal->packets,
		       want, pc->one.packets, copies - 1, pc->further);
		status = 1;
	}
	if (rtotal->checksum != total->checksum) {
		printf(WHO "  MISMATCH: checksum etmkit %" PRIu64 ", etmkit-runs %"
		       PRIu64 "\n", total->checksum, rtotal->checksum);
		status = 1;
	}
	return status;
}

/* ---- OpenCSD ------------------------------------------------------------- */

#ifdef ETMKIT_HAVE_OPENCSD
/* OpenCSD's side: per-copy counts, the timed total, its input. */
struct ocsd_side {
	struct ocsd_peer_counts one, two, total;
	uint64_t further;
	size_t copies, n;
	double best;
};

/* The first copies of @in up to @mb MiB (at least two), and the untimed
 * counts of one and two copies. Returns 0 or -1. */
static int ocsd_prepare(const struct bench_etm4_source *src,
			const struct bench_input *in, double mb,
			struct ocsd_side *os)
{
	const uint8_t *buf = in->buf;

	os->copies = (size_t)(mb * MIB / (double)in->copy_len);
	if ((double)os->copies * (double)in->copy_len < mb * MIB)
		os->copies++;
	if (os->copies < 2)
		os->copies = 2;
	if (os->copies > in->copies)
		os->copies = in->copies;
	os->n = os->copies * in->copy_len;
	if (ocsd_peer_etm4_count(buf, in->copy_len, &src->cfg, src->id,
				 &os->one) ||
	    ocsd_peer_etm4_count(buf, 2 * in->copy_len, &src->cfg, src->id,
				 &os->two))
		return -1;
	os->further = os->two.packets - os->one.packets;
	return 0;
}

/* Run @r of the timed OpenCSD decode. Returns 0 or -1. */
static int ocsd_timed(const struct bench_etm4_source *src,
		      const struct bench_input *in, int r,
		      struct ocsd_side *os)
{
	double t0 = bench_now(), t;

	if (ocsd_peer_etm4_count(in->buf, os->n, &src->cfg, src->id,
				 &os->total))
		return -1;
	t = bench_now() - t0;
	if (r == 0 || t < os->best)
		os->best = t;
	return 0;
}

static void print_ocsd(int runs, int ete, const struct ocsd_side *os,
		       double n, double best, double best_r)
{
	char note[200];
	double orate = (double)os->n / os->best;

	snprintf(note, sizeof(note), "  best of %d; OpenCSD %s ETMV4I packet "
		 "processor%s; the first copies only (--ocsd-mb)", runs,
		 ocsd_peer_version(), ete ? " configured as its ETE decoder's"
					  : "");
	print_rate("opencsd", (double)os->n, os->best, os->total.packets,
		   note);
	printf(WHO "  ratio    %.1fx  (etmkit, one record per packet / "
	       "opencsd)\n", n / best / orate);
	printf(WHO "  ratio    %.1fx  (etmkit-runs / opencsd)\n",
	       n / best_r / orate);
}

/* Per-type counts of both decoders where they differ (printed if
 * @print); OpenCSD's types are matched to etmkit's by name. Bytes outside
 * sync are not compared (the two split them differently). Returns the
 * number of types that differ. */
static int type_diff(const struct pkt_counts *k,
		     const struct ocsd_peer_counts *o, int print)
{
	uint64_t by_name[etm4_pkt_type_count] = { 0 };
	int diffs = 0;

	for (unsigned t = 0; t < OCSD_PEER4_TYPES; t++) {
		const char *name = ocsd_peer_etm4_type_name(t);
		int found = 0;

		if (!o->by_type[t] || (name && !strcmp(name, "unsynced")))
			continue;
		for (int e = 0; name && e < etm4_pkt_type_count; e++) {
			if (!strcmp(name, etm4_pkt_type_name(
						  (enum etm4_pkt_type)e))) {
				by_name[e] += o->by_type[t];
				found = 1;
			}
		}
		if (found)
			continue;
		diffs++;
		if (print)
			printf(WHO "    opencsd-only kind %-16s %10" PRIu64 "\n",
			       name ? name : "?", o->by_type[t]);
	}
	for (unsigned t = 0; t < etm4_pkt_type_count; t++) {
		if (t == etm4_pkt_unsynced || k->by_type[t] == by_name[t])
			continue;
		diffs++;
		if (print)
			printf(WHO "    %-18s etmkit %10" PRIu64 "  opencsd %10"
			       PRIu64 "\n",
			       etm4_pkt_type_name((enum etm4_pkt_type)t),
			       k->by_type[t], by_name[t]);
	}
	return diffs;
}

/* The packets of one copy and of two copies are the same for both
 * decoders, in number and per type (unsynced/NOTSYNC aside), and
 * OpenCSD's timed total is what they make. Returns 0, or 1 after a
 * MISMATCH line. */
static int check_ocsd(const struct per_copy *pc, const struct ocsd_side *os)
{
	uint64_t want = os->one.packets + os->further * (os->copies - 1);

	for (int c = 1; c <= 2; c++) {
		const struct pkt_counts *k = c == 1 ? &pc->one : &pc->two;
		const struct ocsd_peer_counts *o = c == 1 ? &os->one : &os->two;

		if (k->packets == o->packets && !type_diff(k, o, 0))
			continue;
		printf(WHO "  MISMATCH: packets in %d cop%s: etmkit %" PRIu64
		       ", opencsd %" PRIu64 " (unsynced/NOTSYNC excluded); by "
		       "type:\n", c, c == 1 ? "y" : "ies", k->packets,
		       o->packets);
		type_diff(k, o, 1);
		return 1;
	}
	if (os->total.packets != want) {
		printf(WHO "  MISMATCH: opencsd counted %" PRIu64 " packets in "
		       "%zu copies, expected %" PRIu64 "\n", os->total.packets,
		       os->copies, want);
		return 1;
	}
	printf(WHO "  packets  match: %" PRIu64 " in the first copy, %" PRIu64
	       " per further copy (etmkit: %" PRIu64 " unsynced records, %"
	       PRIu64 " errors; opencsd: %" PRIu64 " NOTSYNC, not counted, %"
	       PRIu64 " errors)\n", pc->one.packets, pc->further,
	       pc->two.unsynced, pc->two.errors, os->two.notsync,
	       os->two.errors);
	return 0;
}
#endif

/* ---- Main ---------------------------------------------------------------- */

/* etmkit's timed totals and best times, both forms. */
struct timed {
	struct pkt_counts total, rtotal;
	double best, best_r;
};

/* The timed runs, the decoders taking turns so that they see the machine
 * in the same state (the ratio of the bests is then steadier than the
 * rates). Returns 0 or -1. */
static int run_all(const struct bench_options *o,
		   const struct bench_etm4_source *src,
		   const struct bench_input *in, struct etm4_packet *pkts,
		   struct timed *t, struct ocsd_side *os)
{
#ifndef ETMKIT_HAVE_OPENCSD
	(void)os;
#endif
	for (int r = 0; r < o->runs; r++) {
		if (timed_decode(&src->cfg, in, pkts, drain_packets, r,
				 &t->best, &t->total) ||
		    timed_decode(&src->cfg, in, pkts, drain_runs, r,
				 &t->best_r, &t->rtotal))
			return -1;
#ifdef ETMKIT_HAVE_OPENCSD
		if (ocsd_timed(src, in, r, os))
			return -1;
#endif
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bench_options o;
	struct bench_etm4_source src;
	struct bench_input in;
	struct per_copy pc;
	struct timed t;
	struct etm4_packet *pkts = NULL;
	const char *snap = "juno_r1_1";
	struct ocsd_side *ocsd = NULL;
	int status = 1;

	memset(&in, 0, sizeof(in));
	memset(&src, 0, sizeof(src));
	memset(&t, 0, sizeof(t));
	if (bench_parse_args("bench_etm4_pkt", argc, argv, &o, 32.0,
			     bench_snapshot_option, &snap, usage))
		return 2;
	if (bench_etm4_open(WHO, &src, o.shared, snap, o.id) ||
	    bench_etm4_input(WHO, &src, o.mb, &in))
		goto out;
	printf(WHO "  input    %s, %s, %s %u.%u: %zu-byte copy x %zu = %.1f "
	       "MB\n", src.buf->file, src.what, src.info.ete ? "ETE" : "ETMv4",
	       src.info.major, src.info.minor, in.copy_len, in.copies,
	       (double)in.n / MIB);
	pkts = malloc(sizeof(*pkts) * BATCH);
	if (!pkts) {
		fprintf(stderr, WHO ": out of memory\n");
		goto out;
	}
	if (etmkit_per_copy(&src.cfg, &in, pkts, &pc))
		goto out;
#ifdef ETMKIT_HAVE_OPENCSD
	ocsd = calloc(1, sizeof(struct ocsd_side));
	if (!ocsd || ocsd_prepare(&src, &in, o.ocsd_mb, ocsd))
		goto out;
#endif
	if (run_all(&o, &src, &in, pkts, &t, ocsd))
		goto out;
	print_etmkit(o.runs, &pc, (double)in.n, t.best, &t.total, t.best_r,
		     &t.rtotal);
	status = check_etmkit(&pc, in.copies, &t.total, &t.rtotal);
#ifdef ETMKIT_HAVE_OPENCSD
	print_ocsd(o.runs, src.info.ete, ocsd, (double)in.n, t.best, t.best_r);
	status |= check_ocsd(&pc, ocsd);
#else
	printf(WHO "  opencsd  not built (install libopencsd-dev and "
	       "reconfigure)\n");
#endif
out:
	free(ocsd);
	free(pkts);
	bench_input_free(&in);
	bench_etm4_close(&src);
	return status;
}
