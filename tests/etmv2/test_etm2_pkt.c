/* The ETMv2 packet decoder against hand-worked cases (tests/etmv2/pkt/
 * *.e2t: cycles and the records worked out by hand from docs/etmv2.md and
 * the digest before the decoder was run). Each case is decoded three
 * ways that must agree exactly: all cycles in one feed; one cycle a feed
 * draining one record at a time; and, for every case, every suffix (the
 * decode starts at each cycle): from the first TFO it syncs at, its
 * records equal the full decode's (docs/etmv2.md 6: "decoding starts at
 * any cycle"). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2t.h"

#ifndef ETM2_PKT_DIR
#error "ETM2_PKT_DIR"
#endif

struct lines {
	char (*v)[200];
	size_t n, cap;
};

static void lines_push(struct lines *l, const char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v)
			abort();
	}
	snprintf(l->v[l->n++], sizeof(l->v[0]), "%s", s);
}

static int drain(struct etm2_pkt_decoder *dec, struct lines *out, size_t max)
{
	struct etm2_packet pk[64];
	char buf[200];
	int n;

	while ((n = etm2_pkt_next(dec, pk, max)) > 0)
		for (int i = 0; i < n; i++) {
			e2t_format_pkt(&pk[i], buf, sizeof(buf));
			lines_push(out, buf);
		}
	return n == -etmkit_err_eos ? 0 : n;
}

/* Decode cycles[from..n) fed @step at a time, drained @max at a time. */
static int decode(const struct e2t *t, size_t from, size_t step, size_t max,
		  struct lines *out)
{
	struct etm2_pkt_decoder *dec;
	int rc = etm2_pkt_alloc(&dec, &t->cfg);

	out->n = 0;
	if (rc)
		return rc;
	for (size_t i = from; i < t->n_cycles && !rc; i += step) {
		size_t k = t->n_cycles - i < step ? t->n_cycles - i : step;
		rc = etm2_pkt_feed(dec, t->cycles + i, k, i);
		if (!rc)
			rc = drain(dec, out, max);
	}
	if (!rc)
		rc = etm2_pkt_finish(dec);
	if (!rc)
		rc = drain(dec, out, max);
	etm2_pkt_free(dec);
	return rc;
}

static int same(const char *what, const char *name, const struct lines *want,
		const struct lines *got)
{
	size_t n = want->n > got->n ? want->n : got->n;
	int ok = want->n == got->n;

	for (size_t i = 0; i < n && ok; i++)
		ok = !strcmp(want->v[i], got->v[i]);
	if (ok)
		return 1;
	fprintf(stderr, "%s: %s differs:\n", name, what);
	for (size_t i = 0; i < n; i++) {
		const char *w = i < want->n ? want->v[i] : "(none)";
		const char *g = i < got->n ? got->v[i] : "(none)";
		fprintf(stderr, "  %s %-60s | %s\n", strcmp(w, g) ? "!" : " ", w, g);
	}
	return 0;
}

static void strip_first(char *s)
{
	char *p = strstr(s, " first");
	if (p && !p[6])
		*p = 0;
}

/* The record's cycle (after '@'). */
static unsigned long long cycle_of(const char *s)
{
	const char *p = strchr(s, '@');

	return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* An ETMv1 branch address the decoder synced at (docs/etmv2.md 7b). */
static int v1_sync(const char *s)
{
	size_t n = strlen(s);

	return !strncmp(s, "branch @", 8) && n > 6 && !strcmp(s + n - 6, " first");
}

/* Every suffix syncs at its first TFO (ETMv1: full branch address) and
 * then equals the full decode. */
static int cuts(const char *name, const struct e2t *t, const struct lines *full)
{
	struct lines got = { 0 }, a = { 0 }, b = { 0 };
	int ok = 1;

	for (size_t k = 1; k < t->n_cycles && ok; k++) {
		size_t i = 0, j = 0;
		unsigned long long cyc;
		int v1;

		/* one cycle a feed, one record a call: records held
		 * back while a TFO is checked must stay held */
		if (decode(t, k, 1, 1, &got)) {
			fprintf(stderr, "%s: cut %zu: decode failed\n", name, k);
			ok = 0;
			break;
		}
		while (i < got.n && strncmp(got.v[i], "tfo @", 5) &&
		       !v1_sync(got.v[i]))
			i++;
		if (i == got.n) {
			/* never synced: unsynced runs only */
			for (size_t x = 0; x < got.n; x++)
				if (strncmp(got.v[x], "unsynced @", 10)) {
					fprintf(stderr, "%s: cut %zu: %s without sync\n",
						name, k, got.v[x]);
					ok = 0;
				}
			continue;
		}
		cyc = cycle_of(got.v[i]);
		v1 = v1_sync(got.v[i]);
		if (v1) {
			/* ETMv1: from the records of the branch's cycle */
			while (i > 0 && strncmp(got.v[i - 1], "unsynced @", 10) &&
			       cycle_of(got.v[i - 1]) == cyc)
				i--;
			while (j < full->n && (!strncmp(full->v[j], "unsynced @", 10) ||
					       cycle_of(full->v[j]) != cyc))
				j++;
		}
		while (!v1 && j < full->n) {
			if (!strncmp(full->v[j], "tfo @", 5) &&
			    strtoull(full->v[j] + 5, NULL, 10) == cyc)
				break;
			j++;
		}
		a.n = b.n = 0;
		for (; j < full->n; j++) {
			lines_push(&a, full->v[j]);
			strip_first(a.v[a.n - 1]);
		}
		for (; i < got.n; i++) {
			lines_push(&b, got.v[i]);
			strip_first(b.v[b.n - 1]);
		}
		char what[64];
		snprintf(what, sizeof(what), "cut at cycle %zu", k);
		ok = same(what, name, &a, &b);
	}
	free(got.v);
	free(a.v);
	free(b.v);
	return ok;
}

static int one(const char *dir, const char *file)
{
	char path[512];
	struct e2t t;
	struct lines want = { 0 }, full = { 0 }, split = { 0 };
	int ok = 0;

	snprintf(path, sizeof(path), "%.250s/%.200s", dir, file);
	if (e2t_load(&t, path)) {
		fprintf(stderr, "%s\n", t.err);
		return 0;
	}
	for (size_t i = 0; i < t.n_expect; i++)
		lines_push(&want, t.expect[i]);
	if (decode(&t, 0, t.n_cycles ? t.n_cycles : 1, 64, &full))
		fprintf(stderr, "%s: decode failed\n", file);
	else if (same("the hand-worked records", file, &want, &full) &&
		 !decode(&t, 0, 1, 1, &split) &&
		 same("one cycle a feed", file, &full, &split))
		ok = cuts(file, &t, &full);
	free(want.v);
	free(full.v);
	free(split.v);
	e2t_free(&t);
	return ok;
}

/* A group owed for too long (docs/etmv2.md 6): after sync, a DE whose
 * group never leaves because every later cycle is a trigger (no FIFO
 * output in TR cycles, Q§6.1.7). The decoder's queue fills: an error at
 * the DE's cycle, then one unsynced run to the end; memory stays fixed. */
static int owed_too_long(void)
{
	static const uint8_t tfo[6] = { 0x01, 0x20, 0x00, 0x80, 0x00, 0x00 };
	struct e2t t;
	struct lines got = { 0 };
	size_t n = 6 + 1 + 6000, err_at = 0, errs = 0;
	int ok;

	memset(&t, 0, sizeof(t));
	etm2_config_init(&t.cfg);
	t.cfg.version = 2;
	t.cfg.port_width = 8;
	t.cycles = calloc(n, sizeof(*t.cycles));
	if (!t.cycles)
		return 0;
	t.n_cycles = n;
	for (size_t i = 0; i < 6; i++) {
		t.cycles[i].ps = i ? 4 : 7; /* TD (TFO), then WT */
		t.cycles[i].pkt = tfo[i];
	}
	t.cycles[6].ps = 1; /* DE */
	for (size_t i = 7; i < n; i++)
		t.cycles[i].ps = 6; /* TR over IE (code 0) */
	ok = decode(&t, 0, 100, 64, &got) == 0;
	for (size_t i = 0; i < got.n; i++)
		if (!strncmp(got.v[i], "error ", 6)) {
			errs++;
			err_at = i;
		}
	ok = ok && errs == 1 && !strcmp(got.v[err_at], "error unsynced @6 bad_packet") &&
	     err_at + 2 == got.n && !strncmp(got.v[got.n - 1], "unsynced @", 10) &&
	     err_at < 4200;
	if (!ok)
		for (size_t i = 0; i < got.n; i++)
			fprintf(stderr, "  %s\n", got.v[i]);
	if (!ok)
		fprintf(stderr, "owed_too_long: %zu records, %zu errors, last %s\n",
			got.n, errs, got.n ? got.v[got.n - 1] : "-");
	free(got.v);
	free(t.cycles);
	return ok;
}

/* The cut test on a longer sample: blocks of a periodic TFO (N = 0),
 * units of IE, DE with a normal data packet, IE/IN carrying FIFO bytes,
 * DE with a branch address, a phantom and TD, then a TFO with N = 1
 * while a branch byte is owed; repeated, with the data and branch
 * references carried across blocks. Every suffix syncs at its first TFO
 * and then equals the full decode (docs/etmv2.md 6). */
static int cut_sample(void)
{
	static const uint8_t head[][2] = {
		{ 7, 0x01 }, { 4, 0x00 }, { 4, 0x00 }, { 4, 0x80 }, { 4, 0x00 },
		{ 4, 0x00 },
	};
	static const uint8_t unit[][2] = {
		{ 0, 0x00 }, { 1, 0x00 }, { 4, 0x26 }, { 0, 0x04 }, { 2, 0x7f },
		{ 1, 0x00 }, { 4, 0x05 }, { 8, 0x00 }, { 7, 0x00 },
	};
	static const uint8_t tail[][2] = {
		{ 1, 0x00 }, { 7, 0x03 }, { 4, 0x09 }, { 4, 0x00 }, { 4, 0x10 },
		{ 4, 0x80 }, { 4, 0x00 }, { 4, 0x00 }, { 0, 0x00 }, { 7, 0x00 },
	};
	struct e2t t;
	struct lines full = { 0 };
	size_t n = 0;
	int ok;

	memset(&t, 0, sizeof(t));
	etm2_config_init(&t.cfg);
	t.cfg.version = 2;
	t.cfg.port_width = 8;
	t.cfg.etmcr = ETM2_ETMCR_DATA_ADDR | ETM2_ETMCR_DATA_VALUE;
	t.cycles = calloc(3 * (6 + 4 * 9 + 10), sizeof(*t.cycles));
	if (!t.cycles)
		return 0;
#define PUT(tab) \
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++, n++) { \
		t.cycles[n].ps = tab[i][0]; \
		t.cycles[n].pkt = tab[i][1]; \
	}
	for (int b = 0; b < 3; b++) {
		PUT(head);
		for (int u = 0; u < 4; u++)
			PUT(unit);
		PUT(tail);
	}
#undef PUT
	t.n_cycles = n;
	ok = decode(&t, 0, n, 64, &full) == 0 && full.n > 3 * 40;
	for (size_t i = 0; ok && i < full.n; i++)
		ok = !strstr(full.v[i], "error") && strncmp(full.v[i], "unsynced", 8);
	if (!ok)
		fprintf(stderr, "cut_sample: the full decode has errors\n");
	ok = ok && cuts("cut_sample", &t, &full);
	free(full.v);
	free(t.cycles);
	return ok;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ETM2_PKT_DIR;
	DIR *d = opendir(dir);
	struct dirent *e;
	int cases = 0, failed = 0;

	if (!d) {
		fprintf(stderr, "%s: cannot open\n", dir);
		return 1;
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 5 || strcmp(e->d_name + l - 4, ".e2t"))
			continue;
		cases++;
		if (!one(dir, e->d_name))
			failed++;
		else
			printf("ok %s\n", e->d_name);
	}
	closedir(d);
	cases++;
	if (!cut_sample())
		failed++;
	else
		printf("ok cut_sample\n");
	cases++;
	if (!owed_too_long())
		failed++;
	else
		printf("ok owed_too_long\n");
	printf("%d cases, %d failed\n", cases, failed);
	return failed || !cases;
}
