/* bench_ptm_pkt: throughput of etmkit's PTM (PFTv1.x) packet layer, and of
 * OpenCSD's PTM packet processor on the same bytes when built with
 * ETMKIT_HAVE_OPENCSD.
 *
 * Input: one PTM trace ID of the TC2 capture (default 0x13, PFTv1.1,
 * cycle-accurate, Cortex-A15: testdata/etmv3/TC2/cstrace.bin in the shared
 * folder), deformatted with etmkit's transport layer, cut from its first
 * A-sync to its last and repeated to fill --mb MiB. Every copy starts with
 * an A-sync (PTM's is ETMv3's five 0x00 and 0x80, IHI 0035B 4.5.1) and
 * the previous copy ends on a packet boundary, so both decoders must
 * report exactly copies x (packets of one copy).
 *
 * Timed: decoder allocation, decoding every record, end of trace, release
 * (the same for both decoders). Best of --runs runs. MB means MiB (2^20
 * bytes) everywhere. An untimed pass checks that decoding allocates
 * nothing: the heap in use after the last record equals the heap in use
 * after the decoder's allocation.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/ptm.h"
#include "bench_common.h"

#ifdef ETMKIT_HAVE_OPENCSD
#include "ocsd_peer.h"
#endif

#define BATCH 256

/* TC2's PTM_0 (device_8.ini, trace ID 0x13). */
#define TC2_PTM_ETMCR 0x10001000u
#define TC2_PTM_ETMIDR 0x411CF312u
#define TC2_PTM_ETMCCER 0x34C01AC2u

/* Counts of one decode of the whole buffer. */
struct pkt_counts {
	uint64_t packets;   /* records other than unsynced */
	uint64_t unsynced;  /* unsynced records */
	uint64_t errors;    /* records with error != 0 */
	uint64_t checksum;  /* types, atoms and addresses: keeps the loop
			       honest */
	uint64_t by_type[ptm_pkt_type_count]; /* untimed pass only */
	int first_type;     /* untimed pass: the first record's type */
	int64_t heap_growth; /* untimed pass: heap grown while decoding */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bench_ptm_pkt [--shared DIR] [--id ID] [--mb N] "
		"[--ocsd-mb N] [--runs N]\n"
		"                     [--etmcr X] [--etmidr X] [--etmccer X]\n"
		"  --shared DIR  folder holding testdata/ (default: $ETMKIT_SHARED,"
		" else %s)\n"
		"  --id ID       PTM trace ID of the TC2 capture (default 0x13)\n"
		"  --mb N        MiB of repeated trace for etmkit (default 128)\n"
		"  --ocsd-mb N   MiB for OpenCSD (default: same as --mb)\n"
		"  --runs N      timed runs per decoder, best kept (default 3)\n"
		"  --etmcr/--etmidr/--etmccer  registers (default: TC2 PTM_0)\n",
		ETMKIT_BENCH_SHARED_DIR);
}

/* ---- etmkit -------------------------------------------------------------- */

/* What a consumer reads of a record: its type, an atom packet's atoms, a
 * branch's address (the decoded values a flow decoder needs). */
static inline uint64_t digest(const struct ptm_packet *p)
{
	switch (p->type) {
	case ptm_pkt_atom: return p->u.atoms.bits + p->u.atoms.count;
	case ptm_pkt_branch_address: return p->u.branch.addr;
	default: return p->type;
	}
}

/* Timed consumer: tallies in locals, so the loop measures the decoder. */
static int drain_timed(struct ptm_pkt_decoder *dec, struct ptm_packet *pkts,
		       struct pkt_counts *c)
{
	uint64_t packets = 0, unsynced = 0, errors = 0, sum = 0;
	int n;

	while ((n = ptm_pkt_next(dec, pkts, BATCH)) > 0) {
		for (int i = 0; i < n; i++) {
			unsynced += pkts[i].type == ptm_pkt_unsynced;
			errors += pkts[i].error != 0;
			sum += digest(&pkts[i]);
		}
		packets += (uint64_t)n;
	}
	c->packets += packets - unsynced;
	c->unsynced += unsynced;
	c->errors += errors;
	c->checksum += sum;
	return n == -etmkit_err_eos ? 0 : n;
}

/* Untimed consumer: also counts per type and notes the first record. */
static int drain_counting(struct ptm_pkt_decoder *dec, struct ptm_packet *pkts,
			  struct pkt_counts *c)
{
	int n;

	while ((n = ptm_pkt_next(dec, pkts, BATCH)) > 0) {
		for (int i = 0; i < n; i++) {
			const struct ptm_packet *p = &pkts[i];
			unsigned type = p->type < ptm_pkt_type_count ? p->type :
				ptm_pkt_reserved;

			if (c->first_type < 0)
				c->first_type = (int)type;
			c->by_type[type]++;
			if (type == ptm_pkt_unsynced)
				c->unsynced++;
			else
				c->packets++;
			c->errors += p->error != 0;
			c->checksum += digest(p);
		}
	}
	return n == -etmkit_err_eos ? 0 : n;
}

/* Decode @buf[0..n) from a fresh decoder: alloc, feed, drain, finish,
 * drain, free. @counting: the untimed consumer, and the heap checked.
 * Returns 0 or a negated error. */
static int etmkit_decode(const struct ptm_config *cfg, const uint8_t *buf,
			 size_t n, struct ptm_packet *pkts,
			 struct pkt_counts *c, int counting)
{
	int (*drain)(struct ptm_pkt_decoder *, struct ptm_packet *,
		     struct pkt_counts *) = counting ? drain_counting : drain_timed;
	struct ptm_pkt_decoder *dec = NULL;
	size_t heap0 = 0;
	int err;

	memset(c, 0, sizeof(*c));
	c->first_type = -1;
	err = ptm_pkt_alloc(&dec, cfg);
	if (err)
		return err;
	if (counting)
		heap0 = bench_heap_in_use();
	err = ptm_pkt_feed(dec, buf, n, NULL, 0);
	if (!err)
		err = drain(dec, pkts, c);
	if (!err)
		err = ptm_pkt_finish(dec);
	if (!err)
		err = drain(dec, pkts, c);
	if (counting)
		c->heap_growth = (int64_t)bench_heap_in_use() - (int64_t)heap0;
	ptm_pkt_free(dec);
	return err;
}

static void print_rate(const char *who, double mb, double secs,
		       uint64_t packets, const char *note)
{
	printf("ptm_pkt   %-8s %7.1f MB  %8.1f MB/s  %8.2f Mpkt/s  %7.1f ms%s\n",
	       who, mb, mb / secs, (double)packets / secs / 1e6, secs * 1e3,
	       note);
}

#ifdef ETMKIT_HAVE_OPENCSD
/* Per-type counts of both decoders for one copy, where they differ. */
static void print_type_diff(const struct pkt_counts *k,
			    const struct ocsd_peer_counts *o)
{
	uint64_t ocsd_by_name[ptm_pkt_type_count] = { 0 };

	for (unsigned t = 0; t < OCSD_PEER_TYPES; t++) {
		const char *name = ocsd_peer_ptm_type_name(t);
		int found = 0;

		if (!o->by_type[t])
			continue;
		for (unsigned e = 0; name && e < ptm_pkt_type_count; e++) {
			if (!strcmp(name, ptm_pkt_type_name((enum ptm_pkt_type)e))) {
				ocsd_by_name[e] += o->by_type[t];
				found = 1;
			}
		}
		if (!found)
			printf("ptm_pkt     opencsd-only kind %-16s %10" PRIu64
			       "\n", name ? name : "?", o->by_type[t]);
	}
	for (unsigned t = 0; t < ptm_pkt_type_count; t++)
		if (k->by_type[t] != ocsd_by_name[t])
			printf("ptm_pkt     %-18s etmkit %10" PRIu64 "  opencsd %10"
			       PRIu64 "\n", ptm_pkt_type_name((enum ptm_pkt_type)t),
			       k->by_type[t], ocsd_by_name[t]);
}
#endif

int main(int argc, char **argv)
{
	struct bench_options o;
	struct bench_regs rg = { TC2_PTM_ETMCR, TC2_PTM_ETMIDR, TC2_PTM_ETMCCER };
	struct bench_input in;
	struct ptm_config cfg;
	struct ptm_packet *pkts = NULL;
	struct pkt_counts one, total;
	char path[4096];
	double best_k = 0.0;
	int status = 1, err, r;

	memset(&in, 0, sizeof(in));
	if (bench_parse_args("bench_ptm_pkt", argc, argv, &o, -1.0,
			     bench_regs_option, &rg, usage))
		return 2;
	/* bench_parse_args()'s default ID, 0x10, is an ETMv3 of TC2. */
	o.id = 0x13;
	for (int i = 1; i + 1 < argc; i += 2)
		if (!strcmp(argv[i], "--id"))
			o.id = (unsigned)strtoul(argv[i + 1], NULL, 0);
	snprintf(path, sizeof(path), "%s/testdata/etmv3/TC2/cstrace.bin",
		 o.shared);
	if (bench_input_build("ptm_pkt", path, (uint8_t)o.id, o.mb, &in))
		goto out;
	pkts = malloc(sizeof(*pkts) * BATCH);
	if (!pkts) {
		fprintf(stderr, "bench_ptm_pkt: out of memory\n");
		goto out;
	}
	printf("ptm_pkt   input    %s, ID 0x%02x: %zu bytes, A-sync at %zu to "
	       "%zu: %zu-byte copy x %zu = %.1f MB\n", path, o.id, in.stream_len,
	       in.first, in.last, in.copy_len, in.copies, (double)in.n / MIB);

	ptm_config_init(&cfg);
	cfg.etmcr = rg.etmcr;
	cfg.etmidr = rg.etmidr;
	cfg.etmccer = rg.etmccer;

	/* Untimed: one copy for per-copy counts; the whole buffer for the
	 * heap check. */
	err = etmkit_decode(&cfg, in.buf, in.copy_len, pkts, &one, 1);
	if (!err)
		err = etmkit_decode(&cfg, in.buf, in.n, pkts, &total, 1);
	if (err) {
		fprintf(stderr, "bench_ptm_pkt: etmkit: %s\n", etmkit_errstr(err));
		goto out;
	}
	if (one.first_type != ptm_pkt_a_sync)
		printf("ptm_pkt   WARNING: etmkit's first record is %s, not "
		       "a_sync\n", one.first_type < 0 ? "missing" :
		       ptm_pkt_type_name((enum ptm_pkt_type)one.first_type));
	printf("ptm_pkt   heap     %+" PRId64 " bytes grown while decoding %"
	       PRIu64 " packets (nothing is allocated per packet)\n",
	       total.heap_growth, total.packets);
	if (total.heap_growth > 0) {
		printf("ptm_pkt   MISMATCH: the decoder allocated while decoding\n");
		goto out;
	}

	for (r = 0; r < o.runs; r++) {
		double t0 = bench_now(), t;

		err = etmkit_decode(&cfg, in.buf, in.n, pkts, &total, 0);
		t = bench_now() - t0;
		if (err) {
			fprintf(stderr, "bench_ptm_pkt: etmkit: %s\n",
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
			 " errors; checksum %" PRIu64, o.runs, one.packets,
			 total.unsynced, total.errors, total.checksum);
		print_rate("etmkit", (double)in.n / MIB, best_k, total.packets,
			   note);
	}
	if (total.packets != one.packets * in.copies ||
	    total.checksum != one.checksum * in.copies) {
		printf("ptm_pkt   MISMATCH: etmkit counted %" PRIu64 " packets "
		       "(checksum %" PRIu64 ") in %zu copies, expected %zu x %"
		       PRIu64 "\n", total.packets, total.checksum, in.copies,
		       in.copies, one.packets);
		goto out;
	}
	status = 0;

#ifdef ETMKIT_HAVE_OPENCSD
	{
		struct ocsd_peer_counts oone, ototal;
		double ocsd_mb = o.ocsd_mb > 0 ? o.ocsd_mb : o.mb;
		size_t ocopies = (size_t)(ocsd_mb * MIB / (double)in.copy_len);
		size_t on;
		double best_o = 0.0;
		char note[160];

		if ((double)ocopies * (double)in.copy_len < ocsd_mb * MIB)
			ocopies++;
		if (ocopies > in.copies)
			ocopies = in.copies;
		on = ocopies * in.copy_len;
		if (ocsd_peer_ptm_count(in.buf, in.copy_len, rg.etmcr, rg.etmidr,
					rg.etmccer, (uint8_t)o.id, &oone)) {
			status = 1;
			goto out;
		}
		for (r = 0; r < o.runs; r++) {
			double t0 = bench_now(), t;

			if (ocsd_peer_ptm_count(in.buf, on, rg.etmcr, rg.etmidr,
						rg.etmccer, (uint8_t)o.id,
						&ototal)) {
				status = 1;
				goto out;
			}
			t = bench_now() - t0;
			if (r == 0 || t < best_o)
				best_o = t;
		}
		snprintf(note, sizeof(note), "  best of %d; OpenCSD %s%s",
			 o.runs, ocsd_peer_version(),
			 ocopies < in.copies ? "; first copies only (--ocsd-mb)" :
					       "");
		print_rate("opencsd", (double)on / MIB, best_o, ototal.packets,
			   note);
		printf("ptm_pkt   ratio    %.1fx  (etmkit / opencsd, MB/s)\n",
		       ((double)in.n / best_k) / ((double)on / best_o));
		if (oone.packets != one.packets) {
			printf("ptm_pkt   MISMATCH: packets per copy: etmkit %"
			       PRIu64 ", opencsd %" PRIu64 "; by type:\n",
			       one.packets, oone.packets);
			print_type_diff(&one, &oone);
			status = 1;
		} else if (ototal.packets != oone.packets * ocopies) {
			printf("ptm_pkt   MISMATCH: opencsd counted %" PRIu64
			       " packets in %zu copies, expected %" PRIu64 "\n",
			       ototal.packets, ocopies, oone.packets * ocopies);
			status = 1;
		} else {
			printf("ptm_pkt   packets  match: %" PRIu64 " per copy\n",
			       one.packets);
		}
	}
#else
	printf("ptm_pkt   opencsd  not built (install libopencsd-dev and "
	       "reconfigure)\n");
#endif

out:
	free(pkts);
	bench_input_free(&in);
	return status;
}
