/* bench_perf: throughput of etmkit's perf.data reader.
 *
 * Input: a perf.data synthesized from one recording (default the shared
 * perf_etm.data): its data section repeated until the file holds --mb
 * MiB, each copy's AUX and AUXTRACE ring offsets moved past the previous
 * copy's so that every AUX record has its own bytes, the feature
 * sections moved behind the longer data section. The result is a valid
 * file with many records (MMAP2, COMM, AUX, AUXTRACE ...).
 *
 * Timed, best of --runs: perf_file_open_buffer() (header, features, the
 * checking walk over every record, cs_etm metadata, the AUXTRACE index),
 * one perf_record_next() pass over every record, one perf_aux_next() pass
 * over every AUX record (touching the first byte of each chunk), and
 * perf_file_free(). MB means MiB. Reported: MB/s of file and records/s.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/perf.h"
#include "bench_common.h"

#define WHO "perf"

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void wr64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

/* The ring span of one copy: the highest AUXTRACE offset + size. */
static uint64_t ring_span(const uint8_t *d, uint64_t pos, uint64_t end)
{
	uint64_t span = 0;

	while (pos + 8 <= end) {
		uint32_t type = (uint32_t)rd64(d + pos);
		uint32_t size = d[pos + 6] | d[pos + 7] << 8;

		if (type >= 32768)
			size = (uint32_t)(d[pos + 4] | d[pos + 5] << 8) << 16 | size;
		if (size < 8)
			break;
		if (type == 71) {
			uint64_t s = rd64(d + pos + 8), o = rd64(d + pos + 16);

			if (o + s > span)
				span = o + s;
			pos += s;
		}
		pos += size;
	}
	return (span + 4095) & ~4095ull;
}

/* Copy @k of the data section at @dst: AUX (11) and AUXTRACE (71) ring
 * offsets moved by @shift. */
static void shift_copy(uint8_t *dst, uint64_t n, uint64_t shift)
{
	uint64_t pos = 0;

	while (pos + 8 <= n) {
		uint32_t type = (uint32_t)rd64(dst + pos);
		uint32_t size = dst[pos + 6] | dst[pos + 7] << 8;

		if (type >= 32768)
			size = (uint32_t)(dst[pos + 4] | dst[pos + 5] << 8) << 16 | size;
		if (size < 8)
			return;
		if (type == 11)
			wr64(dst + pos + 8, rd64(dst + pos + 8) + shift);
		if (type == 71) {
			wr64(dst + pos + 16, rd64(dst + pos + 16) + shift);
			pos += rd64(dst + pos + 8);
		}
		pos += size;
	}
}

static int synthesize(const struct bytes *in, double mb, struct bytes *out,
		      uint64_t *copies)
{
	const uint8_t *d = in->data;
	uint64_t doff, dsize, tab, tail, span, k, ncopy, nfeat = 0;
	size_t total;

	if (in->n < 104 || memcmp(d, "PERFILE2", 8) != 0) {
		fprintf(stderr, "bench_perf: input is not a PERFILE2 file\n");
		return -1;
	}
	doff = rd64(d + 40);
	dsize = rd64(d + 48);
	tab = doff + dsize;
	if (tab > in->n || !dsize) {
		fprintf(stderr, "bench_perf: bad data section\n");
		return -1;
	}
	for (int b = 0; b < 256; b++)
		nfeat += d[72 + b / 8] >> (b % 8) & 1;
	tail = in->n - tab;
	ncopy = (uint64_t)(mb * MIB / (double)dsize) + 1;
	span = ring_span(d, doff, tab);
	total = (size_t)(doff + ncopy * dsize + tail);
	out->data = malloc(total);
	if (!out->data) {
		fprintf(stderr, "bench_perf: out of memory\n");
		return -1;
	}
	out->n = out->cap = total;
	memcpy(out->data, d, doff);
	for (k = 0; k < ncopy; k++) {
		memcpy(out->data + doff + k * dsize, d + doff, dsize);
		shift_copy(out->data + doff + k * dsize, dsize, k * span);
	}
	memcpy(out->data + doff + ncopy * dsize, d + tab, tail);
	wr64(out->data + 48, ncopy * dsize);
	/* feature sections sit after the table: move them by the growth */
	for (uint64_t i = 0; i < nfeat; i++) {
		uint8_t *e = out->data + doff + ncopy * dsize + 16 * i;

		if (16 * i + 16 > tail)
			break;
		wr64(e, rd64(e) + (ncopy - 1) * dsize);
	}
	*copies = ncopy;
	return 0;
}

struct counts {
	uint64_t records, aux, aux_bytes, checksum;
};

static int run(const struct bytes *file, struct counts *c)
{
	struct perf_file *pf;
	struct perf_diag d;
	struct perf_record_iter it;
	struct perf_record rec;
	struct perf_aux_iter ai;
	struct perf_aux_chunk ch;
	int err = perf_file_open_buffer(&pf, file->data, file->n, &d);

	memset(c, 0, sizeof(*c));
	if (err) {
		fprintf(stderr, "bench_perf: %s at %" PRIu64 ": %s\n",
			etmkit_errstr(err), d.offset, d.message);
		return -1;
	}
	perf_record_iter_init(&it, pf);
	while ((err = perf_record_next(&it, &rec, NULL)) != -etmkit_err_eos) {
		c->records++;
		c->checksum += rec.type + rec.sid.time;
	}
	perf_aux_iter_init(&ai, pf, -1);
	while (perf_aux_next(&ai, &ch, NULL) == 0) {
		c->aux++;
		if (ch.data) {
			c->aux_bytes += ch.data_size;
			c->checksum += ch.data_size ? ch.data[0] : 0;
		}
	}
	perf_file_free(pf);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_perf [--shared DIR] [--file PERF.DATA] "
		   "[--mb N] [--runs N]\n"
		   "  --file  default SHARED/testdata/perf/perf_etm.data\n"
		   "  --mb    MiB of the synthesized file (default 128)\n");
}

static int file_option(void *ctx, const char *a, const char *val)
{
	if (strcmp(a, "--file") != 0)
		return 0;
	*(const char **)ctx = val;
	return 1;
}

int main(int argc, char **argv)
{
	struct bench_options o;
	struct bytes in = { 0 }, file = { 0 };
	const char *path = NULL;
	char def[4096];
	uint64_t copies;
	struct counts c, first;
	double best = 0;

	if (bench_parse_args("bench_perf", argc, argv, &o, 0, file_option,
			     &path, usage))
		return 2;
	if (!path) {
		snprintf(def, sizeof(def), "%s/testdata/perf/perf_etm.data",
			 o.shared);
		path = def;
	}
	if (bench_read_file("bench_perf", path, &in) ||
	    synthesize(&in, o.mb, &file, &copies))
		return 1;
	printf("%-8s input    %s: %zu bytes, data section x %" PRIu64
	       " = %.1f MB\n", WHO, path, in.n, copies, file.n / MIB);
	for (int r = 0; r < o.runs; r++) {
		double t0 = bench_now(), t;

		if (run(&file, &c))
			return 1;
		t = bench_now() - t0;
		if (r == 0)
			first = c;
		else if (memcmp(&c, &first, sizeof(c)) != 0) {
			fprintf(stderr, "MISMATCH: runs differ\n");
			return 1;
		}
		if (r == 0 || t < best)
			best = t;
	}
	printf("%-8s etmkit %8.1f MB %9.1f MB/s %9.2f Mrec/s %8.1f ms  best "
	       "of %d; %" PRIu64 " records, %" PRIu64 " AUX (%.1f MB of "
	       "trace)\n", WHO, file.n / MIB, file.n / MIB / best,
	       c.records / best / 1e6, best * 1e3, o.runs, c.records, c.aux,
	       c.aux_bytes / MIB);
	free(in.data);
	free(file.data);
	return 0;
}
