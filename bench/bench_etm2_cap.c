/* bench_etm2_cap: throughput of etmkit's ETMv2 capture readers
 * (etm2_cap_*, docs/etmv2-capture.md) on the binary and the text form.
 * No other decoder reads ETMv2 captures: the bench reports our own rates.
 *
 * Input: --mb MiB of binary capture (4 bytes a cycle), cycles made up by
 * a fixed pseudo-random sequence shaped like a trace port's: runs of WT
 * and TD, instructions, TRACEPKT bytes; the same cycles written by the
 * text writer (runs become xN lines). Timed: opening the reader and
 * reading every cycle in batches of 4096. Best of --runs runs. Both
 * readers must give back the cycles written (checksum). An untimed pass
 * checks that reading allocates nothing after etm2_cap_open().
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/etm2.h"
#include "bench_common.h"

#define BATCH 4096

static int to_bytes(void *ctx, const uint8_t *data, size_t len)
{
	return bench_bytes_append(ctx, data, len) ? -etmkit_err_nomem : 0;
}

/* @n cycles of an 8-bit ETMv2 port in both forms. */
static int make(uint64_t n, struct bytes *bin, struct bytes *text, uint64_t *sum)
{
	struct etm2_cap_info info = { .version = 2, .port_width = 8 };
	struct etm2_cap_writer *wb, *wt;
	struct etm2_cycle c[BATCH];
	uint64_t s = 0x2545F4914F6CDD1Dull;
	int rc;

	*sum = 0;
	if (etm2_cap_writer_alloc(&wb, etm2_cap_binary, &info, NULL, to_bytes, bin) ||
	    etm2_cap_writer_alloc(&wt, etm2_cap_text, &info, NULL, to_bytes, text))
		return -1;
	for (uint64_t done = 0; done < n;) {
		size_t k = n - done < BATCH ? (size_t)(n - done) : BATCH;

		for (size_t i = 0; i < k; i++) {
			uint64_t r = bench_next_rand(&s);
			unsigned kind = r & 7;

			/* A run continues half the time. */
			if (i && (r >> 8 & 1)) {
				c[i] = c[i - 1];
			} else {
				c[i].ps = (uint8_t)(kind < 3 ? 0 : kind < 5 ? 4 :
						    kind < 6 ? 7 : kind + 4);
				c[i].pkt = (uint16_t)(kind < 3 ? 0 : (r >> 16) & 0xff);
				c[i].flags = 0;
			}
			*sum += c[i].ps * 257u + c[i].pkt;
		}
		rc = etm2_cap_write(wb, c, k);
		if (!rc)
			rc = etm2_cap_write(wt, c, k);
		if (rc)
			return -1;
		done += k;
	}
	rc = etm2_cap_writer_finish(wb) | etm2_cap_writer_finish(wt);
	etm2_cap_writer_free(wb);
	etm2_cap_writer_free(wt);
	return rc ? -1 : 0;
}

/* Read all of @b; the cycles' count and checksum. @heap: also the heap
 * grown after opening. */
static int read_all(const struct bytes *b, uint64_t *n, uint64_t *sum,
		    int64_t *heap)
{
	static struct etm2_cycle c[BATCH];
	struct etm2_cap_reader *rd;
	struct etm2_cap_diag dg;
	size_t before;
	long got;

	*n = *sum = 0;
	if (etm2_cap_open(&rd, b->data, b->n, etm2_cap_auto, NULL, &dg)) {
		fprintf(stderr, "bench_etm2_cap: %s\n", dg.message);
		return -1;
	}
	before = bench_heap_in_use();
	while ((got = etm2_cap_read(rd, c, BATCH, &dg)) > 0) {
		for (long i = 0; i < got; i++)
			*sum += c[i].ps * 257u + c[i].pkt;
		*n += (uint64_t)got;
	}
	if (heap)
		*heap = (int64_t)bench_heap_in_use() - (int64_t)before;
	etm2_cap_close(rd);
	if (got < 0) {
		fprintf(stderr, "bench_etm2_cap: %s\n", dg.message);
		return -1;
	}
	return 0;
}

static int bench_form(const char *label, const struct bytes *b, uint64_t want_n,
		      uint64_t want_sum, int runs)
{
	double best = 0;
	uint64_t n, sum;
	int64_t heap;

	if (read_all(b, &n, &sum, &heap))
		return -1;
	if (n != want_n || sum != want_sum || heap != 0) {
		fprintf(stderr, "bench_etm2_cap: %s: %" PRIu64 " cycles (want %"
			PRIu64 "), checksum %s, heap grown %" PRId64 "\n", label,
			n, want_n, sum == want_sum ? "ok" : "wrong", heap);
		return -1;
	}
	for (int r = 0; r < runs; r++) {
		double t = bench_now();

		if (read_all(b, &n, &sum, NULL))
			return -1;
		t = bench_now() - t;
		if (!r || t < best)
			best = t;
	}
	printf("bench_etm2_cap %-6s %8.1f MiB  %8.1f MiB/s  %8.1f Mcycles/s  "
	       "(%.1f ms, best of %d)\n", label, b->n / 1048576.0,
	       b->n / 1048576.0 / best, n / best / 1e6, best * 1e3, runs);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_etm2_cap [--mb N] [--runs N]\n"
		"  --mb N    MiB of binary capture (default 100; the text "
		"form holds the same cycles)\n"
		"  --runs N  timed runs per form, best kept (default 3)\n");
}

int main(int argc, char **argv)
{
	struct bench_options o;
	struct bytes bin = { 0 }, text = { 0 };
	uint64_t n, sum;
	int rc;

	if (bench_parse_args("bench_etm2_cap", argc, argv, &o, 0, NULL, NULL,
			     usage))
		return 2;
	if (o.mb == 128)
		o.mb = 100; /* the 100 MB */
	n = (uint64_t)(o.mb * 1048576.0 / 4);
	if (make(n, &bin, &text, &sum)) {
		fprintf(stderr, "bench_etm2_cap: cannot build the captures\n");
		return 1;
	}
	rc = bench_form("binary", &bin, n, sum, o.runs) ||
	     bench_form("text", &text, n, sum, o.runs);
	free(bin.data);
	free(text.data);
	return rc ? 1 : 0;
}
