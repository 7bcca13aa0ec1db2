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
	/* two records a cycle (trigger, status): 12000 cycles pass the
	 * bound, ETM2_OWED_MAX = 15872 records */
	size_t n = 6 + 1 + 12000, err_at = 0, errs = 0;
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
	     err_at == 3;
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

/* Every header byte classified as the digest's full map (D§4.1, derived
 * from Table 6.2 = seed 001) says, written out here by hand from that
 * map, not from the decoder's masks: after a TFO (8-bit port, N = 0,
 * ETMCR 0: no data address, value or context ID bytes), a DE places the
 * group h, 00, 00, ... and the first record after its status must be the
 * packet the map names, with its C, A, tag and SS fields. */
static unsigned map_class(unsigned h)
{
	static const uint8_t res[] = {
		0x10, 0x12, 0x14, 0x16, 0x18, 0x1a, 0x1c, 0x1e, 0x30, 0x32,
		0x34, 0x36, 0x38, 0x3a, 0x3c, 0x3e, 0x42, 0x46, 0x4a, 0x4e,
		0x52, 0x56, 0x5a, 0x5e, 0x62, 0x66, 0x72, 0x76, 0x7a, 0x7e,
	};
	static const uint8_t nd[] = { 0x02, 0x06, 0x0a, 0x0e,
				      0x22, 0x26, 0x2a, 0x2e };
	static const uint8_t lmo[] = { 0x50, 0x54, 0x58, 0x5c,
				       0x70, 0x74, 0x78, 0x7c };
	unsigned b = h & 0x7f;

	if (h & 1)
		return etm2_pkt_branch_address;
	for (size_t i = 0; i < sizeof(res); i++)
		if (b == res[i])
			return etm2_pkt_reserved;
	for (size_t i = 0; i < sizeof(nd); i++)
		if (b == nd[i])
			return etm2_pkt_normal_data;
	for (size_t i = 0; i < sizeof(lmo); i++)
		if (b == lmo[i])
			return etm2_pkt_load_miss;
	if (b == 0x6a)
		return etm2_pkt_value_not_traced;
	if (b == 0x6e)
		return etm2_pkt_context_id;
	return etm2_pkt_load_miss_data; /* the rest of the map: LMD rows */
}

static int header_map(void)
{
	static const uint8_t head[][2] = {
		{ 7, 0x01 }, { 4, 0x00 }, { 4, 0x00 }, { 4, 0x80 }, { 4, 0x00 },
		{ 4, 0x00 }, { 1, 0x00 },
	};
	static const unsigned ss_bytes[4] = { 0, 1, 2, 4 }; /* Table 6.3 */
	struct etm2_cycle cyc[7 + 1 + 8];
	struct etm2_config cfg;
	unsigned counts[etm2_pkt_type_count] = { 0 };
	int bad = 0;

	etm2_config_init(&cfg);
	cfg.version = 2;
	cfg.port_width = 8;
	for (unsigned h = 0; h < 256; h++) {
		struct etm2_pkt_decoder *dec;
		struct etm2_packet pk[64], got;
		int n, seen_status = 0, have = 0;
		unsigned want = map_class(h);

		memset(cyc, 0, sizeof(cyc));
		for (size_t i = 0; i < 7; i++) {
			cyc[i].ps = head[i][0];
			cyc[i].pkt = head[i][1];
		}
		for (size_t i = 7; i < sizeof(cyc) / sizeof(cyc[0]); i++)
			cyc[i].ps = 4; /* WT */
		cyc[7].pkt = (uint16_t)h;
		memset(&got, 0, sizeof(got));
		if (etm2_pkt_alloc(&dec, &cfg) ||
		    etm2_pkt_feed(dec, cyc, sizeof(cyc) / sizeof(cyc[0]), 0))
			return 0;
		for (int fin = 0; fin < 2; fin++) {
			while ((n = etm2_pkt_next(dec, pk, 64)) > 0)
				for (int i = 0; i < n; i++) {
					if (seen_status && !have) {
						got = pk[i];
						have = 1;
					}
					if (pk[i].type == etm2_pkt_status &&
					    pk[i].cycle == 6)
						seen_status = 1;
				}
			if (!fin && etm2_pkt_finish(dec))
				return 0;
		}
		etm2_pkt_free(dec);
		if (!have || got.type != want ||
		    (want == etm2_pkt_reserved) != !!got.error) {
			fprintf(stderr, "header_map: 0x%02x: want %s, got %s%s\n", h,
				etm2_pkt_type_name(want),
				have ? etm2_pkt_type_name(got.type) : "nothing",
				got.error ? " (error)" : "");
			bad++;
			continue;
		}
		counts[want]++;
		if (want != etm2_pkt_branch_address && want != etm2_pkt_reserved &&
		    got.c_bit != h >> 7) {
			fprintf(stderr, "header_map: 0x%02x: C = %u\n", h, got.c_bit);
			bad++;
		}
		if ((want == etm2_pkt_normal_data || want == etm2_pkt_load_miss) &&
		    got.u.data.a_bit != ((h >> 5) & 1)) {
			fprintf(stderr, "header_map: 0x%02x: A = %u\n", h, got.u.data.a_bit);
			bad++;
		}
		if ((want == etm2_pkt_load_miss && got.u.data.tag != ((h >> 2) & 3)) ||
		    (want == etm2_pkt_load_miss_data &&
		     (got.u.data.tag != ((h >> 5) & 3) ||
		      got.u.data.value_bytes != ss_bytes[(h >> 2) & 3]))) {
			fprintf(stderr, "header_map: 0x%02x: tag %u, %u value bytes\n", h,
				got.u.data.tag, got.u.data.value_bytes);
			bad++;
		}
	}
	/* D§4.1: 128 branch starts, 2 x 30 reserved, 2 x 8 normal data,
	 * 2 x 8 load miss occurred, 2 x 16 load miss data, 2 VNT, 2 CID */
	if (!bad && (counts[etm2_pkt_branch_address] != 128 ||
		     counts[etm2_pkt_reserved] != 60 ||
		     counts[etm2_pkt_normal_data] != 16 ||
		     counts[etm2_pkt_load_miss] != 16 ||
		     counts[etm2_pkt_load_miss_data] != 32 ||
		     counts[etm2_pkt_value_not_traced] != 2 ||
		     counts[etm2_pkt_context_id] != 2)) {
		fprintf(stderr, "header_map: class counts differ from the map\n");
		bad++;
	}
	return !bad;
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
	cases++;
	if (!header_map())
		failed++;
	else
		printf("ok header_map\n");
	printf("%d cases, %d failed\n", cases, failed);
	return failed || !cases;
}
