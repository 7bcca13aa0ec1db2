/* bench_etm3_pkt: throughput of etmkit's ETMv3 packet layer, and of
 * OpenCSD's ETMv3 packet processor on the same bytes when built with
 * ETMKIT_HAVE_OPENCSD.
 *
 * Input: one trace ID of the TC2 capture (testdata/etmv3/TC2/cstrace.bin in
 * the shared folder), deformatted with etmkit's transport layer, cut from
 * its first A-sync to its last A-sync and repeated to fill --mb MiB. Every
 * copy starts with an A-sync and the previous copy ends on a packet
 * boundary, so the repeated buffer is a valid ETMv3 stream and both
 * decoders must report exactly copies x (packets of one copy).
 *
 * Timed: decoder allocation, decoding every record, end of trace, release
 * (the same for both decoders). Best of --runs runs. MB means MiB (2^20
 * bytes) everywhere.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/etm3.h"
#include "bench_common.h"

#ifdef ETMKIT_HAVE_OPENCSD
#include "ocsd_peer.h"
#endif

#define BATCH 256

/* Counts of one decode of the whole buffer. */
struct pkt_counts {
	uint64_t packets;   /* records other than unsynced */
	uint64_t unsynced;  /* unsynced records */
	uint64_t errors;    /* records with error != 0 */
	uint64_t checksum;  /* types + atom counts: keeps the loop honest */
	/* Untimed pass only: */
	uint64_t by_type[etm3_pkt_type_count];
	int first_type;     /* type of the first record, -1 if none */
};

/* ---- Helpers ----------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench_etm3_pkt [--shared DIR] [--id ID] [--mb N] "
		"[--ocsd-mb N] [--runs N]\n"
		"                      [--etmcr X] [--etmidr X] [--etmccer X]\n"
		"  --shared DIR  folder holding testdata/ (default: $ETMKIT_SHARED,"
		" else %s)\n"
		"  --id ID       trace ID to decode (default 0x10)\n"
		"  --mb N        MiB of repeated trace for etmkit (default 128)\n"
		"  --ocsd-mb N   MiB for OpenCSD (default: same as --mb)\n"
		"  --runs N      timed runs per decoder, best kept (default 3)\n"
		"  --etmcr/--etmidr/--etmccer  registers (default: TC2 ETM_0)\n",
		ETMKIT_BENCH_SHARED_DIR);
}





/* ---- etmkit -------------------------------------------------------------- */

/* Timed consumer: read every record, keeping the tallies in locals so the
 * loop measures the decoder, not stores to a counter table. Returns 0 or a
 * negated error. */
static int drain_timed(struct etm3_pkt_decoder *dec, struct etm3_packet *pkts,
		       struct pkt_counts *c)
{
	uint64_t packets = 0, unsynced = 0, errors = 0, sum = 0;
	int n;

	while ((n = etm3_pkt_next(dec, pkts, BATCH)) > 0) {
		for (int i = 0; i < n; i++) {
			const struct etm3_packet *p = &pkts[i];
			unsigned is_ph = p->type == etm3_pkt_p_header;

			unsynced += p->type == etm3_pkt_unsynced;
			errors += p->error != 0;
			sum += p->type + (is_ph ? p->u.atoms.count : 0u);
		}
		packets += (uint64_t)n;
	}
	c->packets += packets - unsynced;
	c->unsynced += unsynced;
	c->errors += errors;
	c->checksum += sum;
	return n == -etmkit_err_eos ? 0 : n;
}

/* Timed consumer of P-header runs (ETM3_CFG_P_HEADER_RUNS): every header
 * of a run counts as one p_header packet with its atoms, so packets and
 * checksum must equal the per-packet consumer's. */
static int drain_timed_runs(struct etm3_pkt_decoder *dec,
			    struct etm3_packet *pkts, struct pkt_counts *c)
{
	const struct etm3_atoms *atoms = etm3_pkt_atom_table(dec);
	uint64_t packets = 0, unsynced = 0, errors = 0, sum = 0;
	int n;

	while ((n = etm3_pkt_next(dec, pkts, BATCH)) > 0) {
		for (int i = 0; i < n; i++) {
			const struct etm3_packet *p = &pkts[i];

			if (p->type == etm3_pkt_p_header_run) {
				const uint8_t *h = p->u.run.headers;
				uint32_t k, cnt = p->u.run.count;

				for (k = 0; k < cnt; k++)
					sum += etm3_pkt_p_header +
					       atoms[h[k]].count;
				packets += cnt;
				continue;
			}
			unsynced += p->type == etm3_pkt_unsynced;
			errors += p->error != 0;
			sum += p->type;
			packets++;
		}
	}
	c->packets += packets - unsynced;
	c->unsynced += unsynced;
	c->errors += errors;
	c->checksum += sum;
	return n == -etmkit_err_eos ? 0 : n;
}

/* Timed consumer doing what the OpenCSD peer's callback does: count
 * packets by type, nothing more (a run of P-headers counts as its headers;
 * their atoms stay in the table until someone asks). The checksum is not
 * comparable and is not checked. */
static int drain_timed_runs_count(struct etm3_pkt_decoder *dec,
				  struct etm3_packet *pkts, struct pkt_counts *c)
{
	uint64_t by_type[etm3_pkt_type_count] = { 0 };
	int n;

	while ((n = etm3_pkt_next(dec, pkts, BATCH)) > 0) {
		for (int i = 0; i < n; i++) {
			const struct etm3_packet *p = &pkts[i];

			if (p->type == etm3_pkt_p_header_run)
				by_type[etm3_pkt_p_header] += p->u.run.count;
			else
				by_type[p->type < etm3_pkt_type_count ? p->type : 0]++;
			c->errors += p->error != 0;
		}
	}
	for (unsigned t = 0; t < etm3_pkt_type_count; t++)
		if (t != etm3_pkt_unsynced)
			c->packets += by_type[t];
	c->unsynced += by_type[etm3_pkt_unsynced];
	return n == -etmkit_err_eos ? 0 : n;
}

/* Untimed consumer: also counts per type and notes the first record. */
static int drain_counting(struct etm3_pkt_decoder *dec,
			  struct etm3_packet *pkts, struct pkt_counts *c)
{
	int n;

	while ((n = etm3_pkt_next(dec, pkts, BATCH)) > 0) {
		for (int i = 0; i < n; i++) {
			const struct etm3_packet *p = &pkts[i];
			unsigned type = p->type < etm3_pkt_type_count
						? p->type
						: etm3_pkt_reserved;

			if (c->first_type < 0)
				c->first_type = (int)type;
			c->by_type[type]++;
			if (type == etm3_pkt_unsynced)
				c->unsynced++;
			else
				c->packets++;
			c->errors += p->error != 0;
			c->checksum += p->type +
				       (type == etm3_pkt_p_header
						? p->u.atoms.count
						: 0u);
		}
	}
	return n == -etmkit_err_eos ? 0 : n;
}

/* Decode @buf[0..n) from a fresh decoder: alloc, feed, drain, finish,
 * drain, free. Returns 0 or a negated error. */
enum drain_mode { drain_packets, drain_count, drain_runs, drain_runs_count };

static int etmkit_decode(const struct etm3_config *cfg, const uint8_t *buf,
			 size_t n, struct etm3_packet *pkts,
			 struct pkt_counts *c, enum drain_mode mode)
{
	int (*drain)(struct etm3_pkt_decoder *, struct etm3_packet *,
		     struct pkt_counts *) = mode == drain_count ? drain_counting :
					    mode == drain_runs ? drain_timed_runs :
					    mode == drain_runs_count ? drain_timed_runs_count :
					    drain_timed;
	struct etm3_config rc = *cfg;
	struct etm3_pkt_decoder *dec = NULL;
	int err;

	memset(c, 0, sizeof(*c));
	c->first_type = -1;
	if (mode == drain_runs || mode == drain_runs_count)
		rc.flags |= ETM3_CFG_P_HEADER_RUNS;
	err = etm3_pkt_alloc(&dec, &rc);
	if (err)
		return err;
	err = etm3_pkt_feed(dec, buf, n, NULL, 0);
	if (!err)
		err = drain(dec, pkts, c);
	if (!err)
		err = etm3_pkt_finish(dec);
	if (!err)
		err = drain(dec, pkts, c);
	etm3_pkt_free(dec);
	return err;
}

/* ---- Reporting ------------------------------------------------------------ */

static void print_rate(const char *who, double mb, double secs,
		       uint64_t packets, const char *note)
{
	printf("etm3_pkt  %-8s %7.1f MB  %8.1f MB/s  %8.2f Mpkt/s  %7.1f ms%s\n",
	       who, mb, mb / secs, (double)packets / secs / 1e6, secs * 1e3,
	       note);
}

#ifdef ETMKIT_HAVE_OPENCSD
/* Per-type counts of both decoders for one copy, where they differ. */
static void print_type_diff(const struct pkt_counts *k,
			    const struct ocsd_peer_counts *o)
{
	uint64_t ocsd_by_name[etm3_pkt_type_count];
	unsigned t;

	memset(ocsd_by_name, 0, sizeof(ocsd_by_name));
	for (t = 0; t < OCSD_PEER_TYPES; t++) {
		const char *name = ocsd_peer_type_name(t);
		int e, found = 0;

		if (!o->by_type[t])
			continue;
		for (e = 0; name && e < etm3_pkt_type_count; e++) {
			if (!strcmp(name, etm3_pkt_type_name(
						  (enum etm3_pkt_type)e))) {
				ocsd_by_name[e] += o->by_type[t];
				found = 1;
			}
		}
		if (!found)
			printf("etm3_pkt    opencsd-only kind %-16s %10" PRIu64
			       "\n", name ? name : "?", o->by_type[t]);
	}
	for (t = 0; t < etm3_pkt_type_count; t++) {
		if (k->by_type[t] == ocsd_by_name[t])
			continue;
		printf("etm3_pkt    %-18s etmkit %10" PRIu64 "  opencsd %10"
		       PRIu64 "\n", etm3_pkt_type_name((enum etm3_pkt_type)t),
		       k->by_type[t], ocsd_by_name[t]);
	}
}
#endif

/* ---- Main ---------------------------------------------------------------- */

int main(int argc, char **argv)
{
	struct bench_options o;
	struct bench_regs rg = { TC2_ETMCR, TC2_ETMIDR, TC2_ETMCCER };
	struct bench_input in;
	struct etm3_config cfg;
	struct etm3_packet *pkts = NULL;
	struct pkt_counts one, total;
	char path[4096];
	uint8_t *buf = NULL;
	size_t copy_len, copies, n;
	double best_k = 0.0, best_packets = 0.0, best_runs = 0.0;
	double best_runs_count = 0.0;
	int status = 1, err, r;

	memset(&in, 0, sizeof(in));
	if (bench_parse_args("bench_etm3_pkt", argc, argv, &o, -1.0,
			     bench_regs_option, &rg, usage))
		return 2;
	snprintf(path, sizeof(path), "%s/testdata/etmv3/TC2/cstrace.bin",
		 o.shared);
	if (bench_input_build("etm3_pkt", path, (uint8_t)o.id, o.mb, &in))
		goto out;
	buf = in.buf;
	copy_len = in.copy_len;
	copies = in.copies;
	n = in.n;
	pkts = malloc(sizeof(*pkts) * BATCH);
	if (!pkts) {
		fprintf(stderr, "bench_etm3_pkt: out of memory\n");
		goto out;
	}
	printf("etm3_pkt  input    %s, ID 0x%02x: %zu bytes, A-sync at %zu to "
	       "%zu: %zu-byte copy x %zu = %.1f MB\n", path, o.id, in.stream_len,
	       in.first, in.last, copy_len, copies, (double)n / MIB);

	etm3_config_init(&cfg);
	cfg.etmcr = rg.etmcr;
	cfg.etmidr = rg.etmidr;
	cfg.etmccer = rg.etmccer;

	/* Untimed: one copy, for per-copy counts. */
	err = etmkit_decode(&cfg, buf, copy_len, pkts, &one, drain_count);
	if (err) {
		fprintf(stderr, "bench_etm3_pkt: etmkit: %s\n",
			etmkit_errstr(err));
		goto out;
	}
	if (one.first_type != etm3_pkt_a_sync)
		printf("etm3_pkt  WARNING: etmkit's first record is %s, not "
		       "a_sync\n", one.first_type < 0 ? "missing" :
		       etm3_pkt_type_name((enum etm3_pkt_type)one.first_type));

	static const int modes[] = { drain_packets, drain_runs, drain_runs_count };

	for (unsigned mi = 0; mi < 3; mi++) {
		int mode = modes[mi];
		const char *who = mode == drain_runs ? "etmkit-runs" :
				  mode == drain_runs_count ? "etmkit-runs-count" :
				  "etmkit";

		for (r = 0; r < o.runs; r++) {
			double t0 = bench_now(), t;

			err = etmkit_decode(&cfg, buf, n, pkts, &total,
					    (enum drain_mode)mode);
			t = bench_now() - t0;
			if (err) {
				fprintf(stderr, "bench_etm3_pkt: %s: %s\n", who,
					etmkit_errstr(err));
				goto out;
			}
			if (r == 0 || t < best_k)
				best_k = t;
		}
		{
			char note[200];

			snprintf(note, sizeof(note), "  best of %d; %" PRIu64
				 " pkts/copy, %" PRIu64 " unsynced, %" PRIu64
				 " errors; checksum %" PRIu64 "%s", o.runs,
				 one.packets, total.unsynced, total.errors,
				 total.checksum, mode == drain_runs ?
				 "; P-header runs, consumer reads each header's atoms" :
				 mode == drain_runs_count ?
				 "; P-header runs, consumer counts by type as the OpenCSD peer does" :
				 "; one record per packet");
			print_rate(who, (double)n / MIB, best_k, total.packets,
				   note);
		}
		/* Every copy decodes the same: the totals are copies x one
		 * copy, in both modes. */
		if (total.packets != one.packets * copies ||
		    (mode != drain_runs_count &&
		     total.checksum != one.checksum * copies)) {
			printf("etm3_pkt  MISMATCH: %s counted %" PRIu64
			       " packets (checksum %" PRIu64 ") in %zu copies, "
			       "expected %zu x %" PRIu64 " = %" PRIu64
			       " (checksum %" PRIu64 ")\n", who, total.packets,
			       total.checksum, copies, copies, one.packets,
			       one.packets * copies, one.checksum * copies);
			status = 1;
			goto out;
		}
		if (mode == drain_packets)
			best_packets = best_k;
		else if (mode == drain_runs)
			best_runs = best_k;
		else
			best_runs_count = best_k;
	}
	status = 0;

#ifdef ETMKIT_HAVE_OPENCSD
	{
		struct ocsd_peer_counts oone, ototal;
		double ocsd_mb = o.ocsd_mb > 0 ? o.ocsd_mb : o.mb;
		size_t ocopies = (size_t)(ocsd_mb * MIB / (double)copy_len);
		size_t on;
		double best_o = 0.0;
		char note[160];

		if ((double)ocopies * (double)copy_len < ocsd_mb * MIB)
			ocopies++;
		if (ocopies > copies)
			ocopies = copies;
		on = ocopies * copy_len;
		if (ocsd_peer_etm3_count(buf, copy_len, rg.etmcr, rg.etmidr,
					 rg.etmccer, (uint8_t)o.id, &oone))
			goto out;
		for (r = 0; r < o.runs; r++) {
			double t0 = bench_now(), t;

			if (ocsd_peer_etm3_count(buf, on, rg.etmcr, rg.etmidr,
						 rg.etmccer, (uint8_t)o.id,
						 &ototal))
				goto out;
			t = bench_now() - t0;
			if (r == 0 || t < best_o)
				best_o = t;
		}
		snprintf(note, sizeof(note), "  best of %d; OpenCSD %s%s",
			 o.runs, ocsd_peer_version(),
			 ocopies < copies ? "; first copies only (--ocsd-mb)"
					  : "");
		print_rate("opencsd", (double)on / MIB, best_o, ototal.packets,
			   note);
		printf("etm3_pkt  ratio    %.1fx  (etmkit, one record per "
		       "packet / opencsd)\n",
		       ((double)n / best_packets) / ((double)on / best_o));
		printf("etm3_pkt  ratio    %.1fx  (etmkit-runs / opencsd)\n",
		       ((double)n / best_runs) / ((double)on / best_o));
		printf("etm3_pkt  ratio    %.1fx  (etmkit-runs-count / opencsd: "
		       "the same consumer work)\n",
		       ((double)n / best_runs_count) / ((double)on / best_o));

		if (oone.packets != one.packets) {
			printf("etm3_pkt  MISMATCH: packets per copy: etmkit %"
			       PRIu64 ", opencsd %" PRIu64 " (unsynced/NOTSYNC "
			       "excluded); by type:\n", one.packets,
			       oone.packets);
			print_type_diff(&one, &oone);
			status = 1;
		} else if (ototal.packets != oone.packets * ocopies) {
			printf("etm3_pkt  MISMATCH: opencsd counted %" PRIu64
			       " packets in %zu copies, expected %" PRIu64 "\n",
			       ototal.packets, ocopies,
			       oone.packets * ocopies);
			status = 1;
		} else {
			printf("etm3_pkt  packets  match: %" PRIu64 " per copy "
			       "(etmkit: %" PRIu64 " unsynced records; opencsd: "
			       "%" PRIu64 " NOTSYNC runs, not counted)\n",
			       one.packets, one.unsynced,
			       oone.notsync);
		}
	}
#else
	/* Only the ratios to OpenCSD use them. */
	(void)best_packets;
	(void)best_runs;
	(void)best_runs_count;
	printf("etm3_pkt  opencsd  not built (install libopencsd-dev and "
	       "reconfigure)\n");
#endif

out:
	free(pkts);
	bench_input_free(&in);
	return status;
}
