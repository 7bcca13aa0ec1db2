/* libFuzzer target: a session with flow sources decoded serially and on
 * three worker threads (etmkit_session_config.jobs = 3) must make the same
 * callbacks: the same elements of the same IDs in the same batches, the
 * same frame events, and the same return from every call (or, when a
 * callback stops the decode, the same first error, returned by every call
 * from then on). The first bytes choose the framing, the sources (ETMv3,
 * ETMv4, ETE or PTM on IDs 0x10-0x12: [2 + i] % 3, or PTM with bit 3;
 * bit 2 the ranges form; [6 + i] the registers), the feed size, breaks and losses between
 * feeds, stop_on_error, on_elems or on_elem, frame events and a callback
 * that stops; the rest is the buffer, whose first 4 KiB are also the
 * program image at 0 (so the decoders walk code). A session of one source
 * with split_source ([9] bit 7) decodes it on several threads in chunks
 * (session_one.c) of 1 + ([1] ^ [11]) % 64 * 61 bytes (so_chunk_bytes),
 * where its on_elems batches may end
 * elsewhere: its callbacks are compared with each batch split into its
 * elements (slog_flatten()). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/etmkit.h"
#include "session/session_internal.h"
#include "../tests/session_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct knobs {
	uint8_t b[12];
	const uint8_t *buf;
	size_t n;
	const struct image *img;
};

static void add(struct etmkit_session *s, const struct knobs *k, unsigned i)
{
	uint8_t sel = k->b[2 + i], r = k->b[6 + i];
	uint8_t id = (uint8_t)(0x10 + i);

	if (sel & 8) {
		struct ptm_flow_config fc;

		/* [6 + i]: bit 0 cycle-accurate, 1-2 the context ID size, 3
		 * branch broadcast, 4 timestamps, 5 return stack, 6 VMID,
		 * 7 PFTv1.1 (64-bit binary timestamps, Hyp bits). */
		ptm_flow_config_init(&fc);
		fc.ptm.etmcr = (r & 1 ? PTM_ETMCR_CYCLE_ACCURATE : 0) |
			       (uint32_t)((r >> 1) & 3) << PTM_ETMCR_CID_SHIFT |
			       (r & 8 ? PTM_ETMCR_BRANCH_BROADCAST : 0) |
			       (r & 16 ? PTM_ETMCR_TIMESTAMP : 0) |
			       (r & 32 ? PTM_ETMCR_RETURN_STACK : 0) |
			       (r & 64 ? PTM_ETMCR_VMID : 0);
		fc.ptm.etmidr = r & 128 ? 0x411cf312u : 0x411cf301u;
		fc.ptm.etmccer = r & 128 ? PTM_ETMCCER_TS_64BIT |
					   PTM_ETMCCER_TS_BINARY |
					   PTM_ETMCCER_VIRT_EXT : 0;
		fc.image = k->img;
		fc.cache_bytes = 64 << 10;
		fc.flags = (sel >> 2) & 1 ? PTM_FLOW_RANGES : 0;
		etmkit_session_add_ptm_flow(s, id, &fc);
	} else if (sel % 3 == 0) {
		struct etm3_flow_config fc;

		etm3_flow_config_init(&fc);
		fc.etm.etmcr = (uint32_t)k->b[6 + i] << 8 |
			       (uint32_t)(k->b[9] & 0x3c) << 18;
		fc.etm.etmidr = 0x410cf250u;
		fc.image = k->img;
		fc.cache_bytes = 64 << 10;
		fc.flags = (sel >> 2) & 1 ? ETM3_FLOW_RANGES : 0;
		etmkit_session_add_etm3_flow(s, id, &fc);
	} else {
		struct etm4_flow_config fc;

		etm4_flow_config_init(&fc);
		fc.etm.trcidr0 = 0x28000EA1;
		fc.etm.trcidr1 = 0x4100F403;
		fc.etm.trcidr2 = 0x00000488;
		fc.etm.trcconfigr = 0xC1 | (k->b[6 + i] & 0x1000u);
		if (sel % 3 == 2) {
			fc.etm.trcidr0 = 0x2801cea1;
			fc.etm.trcidr1 = 0x4100fff0;
			fc.etm.trcidr2 = 0xd0001088;
			fc.etm.trcidr8 = 0xff;
			fc.etm.trcdevarch = 0x47705a13;
			fc.etm.flags = ETM4_CFG_ETE;
		}
		fc.image = k->img;
		fc.cache_bytes = 64 << 10;
		fc.flags = (sel >> 2) & 1 ? ETM4_FLOW_RANGES : 0;
		etmkit_session_add_etm4_flow(s, id, &fc);
	}
}

/* Returns 1 when the session decoded one source on several threads. */
static int run(const struct knobs *k, unsigned jobs, struct slog *l)
{
	struct etmkit_session_config sc;
	struct etmkit_session *s;
	size_t chunk = 1 + (size_t)k->b[1] * 29u;
	int one;

	if (chunk < k->n / 900 + 1)
		chunk = k->n / 900 + 1; /* at most 900 feeds: SLOG_CALLS */
	unsigned brk = k->b[0] >> 4, nsrc = 1 + k->b[10] % 3;

	memset(l, 0, sizeof(*l));
	l->el.max = 200000;
	l->stop_after = k->b[11] & 0x80 ? (size_t)(k->b[11] & 0x7f) * 37u : 0;
	etmkit_session_config_init(&sc);
	sc.frames = (enum deformat_mode)(k->b[0] % 4);
	sc.raw_id = 0x10;
	sc.stop_on_error = (k->b[0] >> 2) & 1;
	sc.on_frame_event = (k->b[0] & 8) ? slog_on_event : NULL;
	if (k->b[9] & 1)
		sc.on_elems = slog_on_elems;
	else
		sc.on_elem = slog_on_elem;
	sc.ctx = l;
	sc.jobs = jobs;
	sc.split_source = (k->b[9] & 0x80) != 0;
	so_chunk_bytes = 1 + (size_t)((k->b[1] ^ k->b[11]) % 64) * 61u;
	if (etmkit_session_alloc(&s, &sc) < 0)
		abort();
	for (unsigned i = 0; i < (sc.frames == deformat_none ? 1 : nsrc); i++)
		add(s, k, i);
	for (size_t at = 0, piece = 0; at < k->n; at += chunk) {
		size_t n = k->n - at < chunk ? k->n - at : chunk;

		slog_note(l, etmkit_session_feed(s, k->buf + at, n));
		if (brk && at + n < k->n && ++piece % brk == 0) {
			slog_note(l, etmkit_session_break(
				s, (enum etmkit_loss)(piece % etmkit_loss_count)));
			if (k->b[9] & 2)
				slog_note(l, etmkit_session_lose(
					s, (uint8_t)(0x10 + piece % 3),
					etmkit_loss_aux_missing));
			slog_note(l, etmkit_session_set_offset(s, at + n + piece));
		}
		if (k->b[9] & 4 && at + n < k->n && piece % 5 == 1)
			slog_note(l, etmkit_session_feed_raw(
				s, 0x11, k->buf + at, n < 300 ? n : 300));
	}
	slog_note(l, etmkit_session_finish(s));
	one = sj_one_source(s);
	etmkit_session_free(s);
	return one;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct knobs k;
	struct image *img = NULL;
	static struct slog a, b;

	if (size < sizeof(k.b) + 16)
		return 0;
	memcpy(k.b, data, sizeof(k.b));
	k.buf = data + sizeof(k.b);
	k.n = size - sizeof(k.b);
	if (image_alloc(&img) < 0)
		abort();
	image_add_buffer(img, k.buf, k.n < 4096 ? k.n : 4096, 0,
			 IMAGE_SPACE_ANY);
	k.img = img;
	run(&k, 1, &a);
	if (run(&k, 3, &b) && (k.b[9] & 1)) {
		static struct slog fa, fb;

		slog_flatten(&a, &fa);
		slog_flatten(&b, &fb);
		slog_free(&a);
		slog_free(&b);
		a = fa;
		b = fb;
		memset(&fa, 0, sizeof(fa));
		memset(&fb, 0, sizeof(fb));
	}
	if (slog_diff(&a, &b, (k.b[0] >> 2) & 1))
		abort();
	slog_free(&a);
	slog_free(&b);
	image_free(img);
	return 0;
}
