/* Decode time on pathological inputs must stay linear (docs/recovery.md).
 * Each input is decoded at two sizes through a session; the bench prints
 * nanoseconds per byte for both and flags growth of more than 1.5x per byte
 * (exit status 1). A timing check, so it lives here, not in the tests. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "etmkit/session.h"

#define MIB (1024.0 * 1024.0)

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint8_t rnd8(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint8_t)rng;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int count(void *ctx, uint8_t id, enum etmkit_protocol proto,
		 const void *packet)
{
	(void)id;
	(void)proto;
	(void)packet;
	++*(uint64_t *)ctx;
	return 0;
}

/* Fill @buf with the pattern @kind. */
static void fill(int kind, uint8_t *buf, size_t n)
{
	/* An LSiP I-sync with cycle count and a 6-byte compressed address,
	 * the longest packet, after an A-sync. */
	static const uint8_t lsip[] = { 0x70, 0x85, 0x80, 0x80, 0x80, 0x01, 0xa0,
					0x00, 0x10, 0x00, 0x80, 0x81, 0x80, 0x80,
					0x80, 0x48, 0x01 };
	static const uint8_t resync[] = { 0, 0, 0, 0, 0, 0x80, 0x10 };

	for (size_t i = 0; i < n; i++) {
		switch (kind) {
		case 0: buf[i] = 0x00; break;
		case 1: buf[i] = 0xff; break;
		case 2: buf[i] = rnd8(); break;
		case 3: buf[i] = i < 6 ? (i == 5 ? 0x80 : 0) : lsip[(i - 6) % sizeof(lsip)]; break;
		case 4: buf[i] = resync[i % sizeof(resync)]; break;
		default: buf[i] = rnd8(); break;
		}
	}
}

struct kind {
	const char *name;
	enum deformat_mode mode;
	size_t chunk; /* bytes per feed */
	double mb;    /* the smaller size */
};

static double run(const struct kind *k, const uint8_t *buf, size_t n, uint64_t *recs)
{
	struct etmkit_session_config sc;
	struct etmkit_session *s;
	struct etm3_config cfg;
	double t0;

	memset(&sc, 0, sizeof(sc));
	sc.size = sizeof(sc);
	sc.frames = k->mode;
	sc.raw_id = 0x10;
	sc.on_packet = count;
	sc.ctx = recs;
	etm3_config_init(&cfg);
	cfg.etmcr = ETM3_ETMCR_CYCLE_ACCURATE | ETM3_ETMCR_DATA_ADDR |
		    ETM3_ETMCR_DATA_VALUE | (3u << ETM3_ETMCR_CID_SHIFT);
	cfg.etmidr = 0x410cf250;
	cfg.etmccer = ETM3_ETMCCER_TIMESTAMP | ETM3_ETMCCER_TS_64BIT;
	if (etmkit_session_alloc(&s, &sc) < 0 || etmkit_session_add_etm3(s, 0x10, &cfg) < 0)
		exit(2);
	t0 = now_s();
	for (size_t at = 0; at < n; at += k->chunk)
		etmkit_session_feed(s, buf + at, n - at < k->chunk ? n - at : k->chunk);
	etmkit_session_finish(s);
	t0 = now_s() - t0;
	etmkit_session_free(s);
	return t0;
}

int main(void)
{
	static const struct kind kinds[] = {
		{ "zeros", deformat_none, 1 << 20, 16 },
		{ "all-0xff", deformat_none, 1 << 20, 16 },
		{ "random", deformat_none, 1 << 20, 16 },
		{ "lsip-1-byte-feeds", deformat_none, 1, 1 },
		{ "error-resync-loop", deformat_none, 1 << 20, 16 },
		{ "random-frames", deformat_coresight, 1 << 20, 16 },
		{ "random-tpiu-hsync", deformat_tpiu_hsync, 1 << 20, 16 },
	};
	int status = 0;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		const struct kind *k = &kinds[i];
		size_t n1 = (size_t)(k->mb * MIB), n4 = 4 * n1;
		uint8_t *buf = malloc(n4);
		uint64_t r1 = 0, r4 = 0;
		double t1, t4, ns1, ns4;

		if (!buf)
			return 2;
		fill((int)i, buf, n4);
		t1 = run(k, buf, n1, &r1);
		t4 = run(k, buf, n4, &r4);
		ns1 = t1 * 1e9 / (double)n1;
		ns4 = t4 * 1e9 / (double)n4;
		printf("hostile  %-20s %5.0f MB %6.2f ns/B   %5.0f MB %6.2f ns/B   x%.2f%s\n",
		       k->name, n1 / MIB, ns1, n4 / MIB, ns4, ns4 / ns1,
		       ns4 > 1.5 * ns1 ? "  SUPERLINEAR?" : "");
		if (ns4 > 1.5 * ns1)
			status = 1;
		free(buf);
	}
	return status;
}
