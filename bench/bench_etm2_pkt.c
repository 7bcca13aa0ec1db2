/* bench_etm2_pkt: throughput of etmkit's ETMv2 packet layer (etm2_pkt_*)
 * in cycles and records per second.
 *
 * There are no real ETMv2 captures, and OpenCSD has no ETMv2 decoder, so
 * there is no peer column: the input is a hand-built block of cycles
 * (8-bit port, data addresses and values traced), valid under
 * docs/etmv2.md, repeated to --mb MiB of 4-byte cycle records (the
 * binary capture's record size): a periodic TFO, then units of IE, DE
 * with a normal data packet (address and value), IE/IN cycles carrying
 * FIFO bytes, DE with a branch address, WT, a phantom and TD. Every copy
 * decodes to the same records, which the bench checks, and the heap must
 * not grow while decoding (nothing is allocated per cycle or record). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "etmkit/etm2.h"

#define UNITS 100 /* units per block */

struct counts {
	uint64_t records, errors, unsynced, checksum;
};

static size_t put(struct etm2_cycle *c, size_t n, unsigned ps, unsigned pkt)
{
	c[n].ps = (uint8_t)ps;
	c[n].pkt = (uint16_t)pkt;
	c[n].flags = 0;
	return n + 1;
}

/* One block into @c (room for 6 + 10 * UNITS). Codes: the natural table
 * (docs/etmv2.md 2): IE 0, DE 1, IN 2, WT 4, TD 7, PTIE 8. */
static size_t block(struct etm2_cycle *c)
{
	size_t n = 0;

	n = put(c, n, 7, 0x01);              /* TFO, N = 0 */
	n = put(c, n, 4, 0x00);              /* periodic TFO header */
	n = put(c, n, 4, 0x00);              /* address 0x8000 */
	n = put(c, n, 4, 0x80);
	n = put(c, n, 4, 0x00);
	n = put(c, n, 4, 0x00);
	for (int u = 0; u < UNITS; u++) {
		n = put(c, n, 0, 0x00);      /* IE, FIFO empty */
		n = put(c, n, 0, 0x00);
		n = put(c, n, 1, 0x00);      /* DE: 26 04 7f */
		n = put(c, n, 4, 0x26);      /* WT */
		n = put(c, n, 0, 0x04);      /* IE carrying a byte */
		n = put(c, n, 2, 0x7f);      /* IN carrying a byte */
		n = put(c, n, 1, 0x00);      /* DE: branch 0x05 */
		n = put(c, n, 4, 0x05);
		n = put(c, n, 8, 0x00);      /* PTIE */
		n = put(c, n, 7, 0x00);      /* TD, FIFO empty */
	}
	return n;
}

static int decode(const struct etm2_config *cfg, const struct etm2_cycle *c,
		  size_t n, struct counts *k)
{
	struct etm2_pkt_decoder *dec;
	struct etm2_packet p[256];
	size_t chunk = 65536;
	int rc;

	memset(k, 0, sizeof(*k));
	rc = etm2_pkt_alloc(&dec, cfg);
	if (rc)
		return rc;
	for (size_t at = 0; at < n + chunk; at += chunk) {
		size_t len = n - at < chunk ? n - at : chunk;

		if (at >= n)
			rc = etm2_pkt_finish(dec); /* one pass after the last feed */
		else
			rc = etm2_pkt_feed(dec, c + at, len, at);
		if (rc)
			break;
		while ((rc = etm2_pkt_next(dec, p, 256)) > 0)
			for (int i = 0; i < rc; i++) {
				k->records++;
				k->errors += p[i].error != 0;
				k->unsynced += p[i].type == etm2_pkt_unsynced;
				k->checksum += p[i].type * 31u + p[i].u.data.addr +
					       p[i].length;
			}
		if (rc != -etmkit_err_eos)
			break;
		rc = 0;
	}
	etm2_pkt_free(dec);
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_etm2_pkt [--mb N] [--runs N]\n"
		   "  ETMv2 packet layer on N MiB (default 100) of generated "
		   "4-byte cycle records.\n");
}

int main(int argc, char **argv)
{
	struct bench_options o;
	struct etm2_config cfg;
	struct etm2_cycle *cyc, one[6 + 10 * UNITS];
	struct counts k1, k;
	size_t blen = block(one), copies, n;
	double best = 0.0;
	size_t heap0;
	int rc;

	if (bench_parse_args("bench_etm2_pkt", argc, argv, &o, -1.0, NULL, NULL,
			     usage))
		return 2;
	if (o.mb == 128)
		o.mb = 100; /* the size, when not given */
	copies = (size_t)(o.mb * MIB / (double)(blen * sizeof(struct etm2_cycle)));
	if (!copies)
		copies = 1;
	n = copies * blen;
	cyc = malloc(n * sizeof(*cyc));
	if (!cyc) {
		fprintf(stderr, "bench_etm2_pkt: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < copies; i++)
		memcpy(cyc + i * blen, one, sizeof(one[0]) * blen);
	etm2_config_init(&cfg);
	cfg.version = 2;
	cfg.port_width = 8;
	cfg.etmcr = ETM2_ETMCR_DATA_ADDR | ETM2_ETMCR_DATA_VALUE;
	printf("etm2_pkt  input    %.1f MiB: %zu cycles, a %zu-cycle block "
	       "x %zu (generated; no real ETMv2 capture exists)\n",
	       (double)(n * sizeof(*cyc)) / MIB, n, blen, copies);
	printf("etm2_pkt  peer     none: OpenCSD has no ETMv2 decoder\n");

	rc = decode(&cfg, one, blen, &k1);
	if (rc || k1.errors || k1.unsynced) {
		printf("etm2_pkt  MISMATCH: one block: rc %d, %" PRIu64
		       " errors, %" PRIu64 " unsynced\n", rc, k1.errors,
		       k1.unsynced);
		free(cyc);
		return 1;
	}
	for (int r = 0; r < o.runs; r++) {
		double t0, t;

		heap0 = bench_heap_in_use();
		t0 = bench_now();
		rc = decode(&cfg, cyc, n, &k);
		t = bench_now() - t0;
		if (rc) {
			fprintf(stderr, "bench_etm2_pkt: etmkit: %s\n",
				etmkit_errstr(rc));
			free(cyc);
			return 1;
		}
		if (bench_heap_in_use() > heap0 + 65536) {
			printf("etm2_pkt  MISMATCH: the heap grew while decoding\n");
			free(cyc);
			return 1;
		}
		if (r == 0 || t < best)
			best = t;
	}
	printf("etm2_pkt  etmkit   %8.1f MiB/s  %8.2f Mcycles/s  %8.2f "
	       "Mrecords/s  best of %d; %" PRIu64 " records/block, %" PRIu64
	       " errors\n",
	       (double)(n * sizeof(*cyc)) / MIB / best, (double)n / best / 1e6,
	       (double)k.records / best / 1e6, o.runs, k1.records, k.errors);
	if (k.records != k1.records * copies || k.checksum != k1.checksum * copies ||
	    k.errors) {
		printf("etm2_pkt  MISMATCH: %" PRIu64 " records (checksum %"
		       PRIu64 "), expected %zu x %" PRIu64 "\n", k.records,
		       k.checksum, copies, k1.records);
		free(cyc);
		return 1;
	}
	free(cyc);
	return 0;
}
