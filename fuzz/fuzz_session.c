/* libFuzzer target: the whole path this version has, bytes -> transport ->
 * ETMv3 and PTM packet decoders, through a session. The first bytes choose
 * the framing, two decoders' registers (the second one's protocol, ETMv3
 * or PTM, too) and the chunk size.
 * Invariants: per trace ID, records come in increasing offset order and
 * their lengths add up to exactly the bytes the transport delivered to that
 * ID; every offset lies inside the input. With breaks between the chunks
 * (etmkit_session_break(), bits 4-7 of the first byte): the first record
 * of an ID after a break is an unsynced run or an A-sync (nothing joined
 * across), and a gap comes only with a loss reason, at the break's offset,
 * for an ID that had bytes since the previous break. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct check {
	size_t size;
	uint64_t bytes[2];
	uint64_t last[2];
	int any[2];
	int fresh[2];       /* a break came since this ID's last record */
	int since[2];       /* records since the last break */
	uint64_t brk_off;   /* offset of the break being made */
	int brk_loss;       /* its reason is a loss */
	int ptm;            /* ID 0x11 is a PTM */
};

/* One record of ID index @k: at @offset, @length bytes, @size kept of at
 * most @max; @sync: an unsynced run or an A-sync. */
static void record(struct check *c, int k, uint64_t offset, uint32_t length,
		   unsigned size, unsigned max, int sync)
{
	if (offset >= c->size || (c->any[k] && offset <= c->last[k]))
		abort();
	if (!length || size > max)
		abort();
	if (c->fresh[k] && !sync)
		abort();
	c->fresh[k] = 0;
	c->since[k]++;
	c->last[k] = offset;
	c->any[k] = 1;
	c->bytes[k] += length;
}

static int on_packet(void *ctx, uint8_t id, enum etmkit_protocol proto,
		     const void *packet)
{
	struct check *c = ctx;
	int k = id == 0x11;

	if ((id != 0x10 && id != 0x11) ||
	    proto != (k && c->ptm ? etmkit_proto_ptm : etmkit_proto_etmv3))
		abort();
	if (proto == etmkit_proto_ptm) {
		const struct ptm_packet *p = packet;

		record(c, k, p->offset, p->length, p->size, PTM_PKT_MAX_BYTES,
		       p->type == ptm_pkt_unsynced || p->type == ptm_pkt_a_sync);
	} else {
		const struct etm3_packet *p = packet;

		record(c, k, p->offset, p->length, p->size, ETM3_PKT_MAX_BYTES,
		       p->type == etm3_pkt_unsynced ||
		       p->type == etm3_pkt_a_sync);
	}
	return 0;
}

static int on_gap(void *ctx, uint8_t id, enum etmkit_loss reason,
		  uint64_t offset)
{
	struct check *c = ctx;

	if ((id != 0x10 && id != 0x11) || !c->brk_loss ||
	    reason == etmkit_loss_none || offset != c->brk_off ||
	    !c->since[id == 0x11])
		abort();
	return 0;
}

static void config(struct etm3_config *cfg, const uint8_t *p)
{
	etm3_config_init(cfg);
	cfg->etmcr = (uint32_t)p[0] << 8 | (uint32_t)p[1] << 14 | (uint32_t)(p[1] & 0x3c) << 18;
	cfg->etmcr |= (uint32_t)(p[0] & 0x0c); /* data trace bits */
	cfg->etmidr = 0x410cf200u | (p[2] & 0xf0u) | ((p[2] & 1u) << 20);
	/* ETMCCER[22] timestamps, [26] Hyp, [28] binary, [29] 64-bit */
	cfg->etmccer = (uint32_t)((p[3] >> 2) & 1) << 22 |
		       (uint32_t)((p[3] >> 3) & 1) << 26 |
		       (uint32_t)((p[3] >> 4) & 1) << 28 |
		       (uint32_t)((p[3] >> 5) & 1) << 29;
	cfg->flags = p[3] & 3u;
}

/* A PTM from the same bytes (IHI 0035B 3.16: ETMCR branch broadcast,
 * cycle-accurate, context ID size, timestamps, return stack, VMID; ETMIDR
 * PFTv1.0 or 1.1; ETMCCER timestamps, binary, 64-bit, Hyp). */
static void ptm_config_of(struct ptm_config *cfg, const uint8_t *p)
{
	ptm_config_init(cfg);
	cfg->etmcr = (uint32_t)(p[0] & 1) << 8 | (uint32_t)(p[0] & 2) << 11 |
		     (uint32_t)(p[1] & 3) << 14 | (uint32_t)(p[1] & 0x1c) << 26;
	cfg->etmidr = 0x411cf300u | (p[2] & 0x10u);
	cfg->etmccer = (uint32_t)((p[3] >> 2) & 1) << 22 |
		       (uint32_t)((p[3] >> 3) & 1) << 26 |
		       (uint32_t)((p[3] >> 4) & 1) << 28 |
		       (uint32_t)((p[3] >> 5) & 1) << 29;
}

static int on_event(void *ctx, const struct deformat_event *ev)
{
	struct check *c = ctx;

	if (ev->offset > c->size || ev->length > c->size)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct etmkit_session_config sc;
	struct etmkit_session *s = NULL;
	struct etm3_config c0, c1;
	struct ptm_config cp;
	struct check c;
	const struct deformat_stats *st;
	size_t chunk;
	unsigned brk;

	if (size < 10)
		return 0;
	memset(&sc, 0, sizeof(sc));
	sc.size = sizeof(sc);
	sc.frames = (enum deformat_mode)(data[0] % 4);
	/* Bits 2 and 3: the stop and event paths. */
	sc.stop_on_error = (data[0] >> 2) & 1;
	sc.on_frame_event = (data[0] & 8) ? on_event : NULL;
	sc.raw_id = 0x10;
	sc.on_packet = on_packet;
	sc.on_gap = on_gap;
	brk = data[0] >> 4;
	memset(&c, 0, sizeof(c));
	sc.ctx = &c;
	config(&c0, data + 1);
	config(&c1, data + 5);
	ptm_config_of(&cp, data + 5);
	c.ptm = (data[8] >> 6) & 1;
	chunk = 1 + data[9] * 7u;
	data += 10;
	size -= 10;
	c.size = size;
	if (etmkit_session_alloc(&s, &sc) < 0)
		abort();
	if (etmkit_session_add_etm3(s, 0x10, &c0) < 0)
		abort();
	if (sc.frames != deformat_none &&
	    (c.ptm ? etmkit_session_add_ptm(s, 0x11, &cp) :
		     etmkit_session_add_etm3(s, 0x11, &c1)) < 0)
		abort();
	for (size_t at = 0; at < size; at += chunk) {
		size_t n = size - at < chunk ? size - at : chunk;
		int err = etmkit_session_feed(s, data + at, n);

		if (err == -etmkit_err_bad_packet || err == -etmkit_err_bad_frame) {
			if (!sc.stop_on_error)
				abort();
			etmkit_session_free(s);
			return 0; /* stopped, as asked */
		}
		if (err < 0)
			abort();
		if (brk && at + n < size) {
			/* 1: no loss, else a reason (some out of range). */
			unsigned why = (brk - 1) * 3 % (etmkit_loss_count + 2);

			c.brk_off = at + n;
			c.brk_loss = why != etmkit_loss_none;
			err = etmkit_session_break(s, (enum etmkit_loss)why);
			if (why >= etmkit_loss_count) {
				if (err != -etmkit_err_invalid)
					abort();
				continue;
			}
			if (err < 0)
				abort();
			c.fresh[0] = c.fresh[1] = 1;
			c.since[0] = c.since[1] = 0;
		}
	}
	if (etmkit_session_finish(s) < 0)
		abort();
	st = etmkit_session_frame_stats(s);
	if (c.bytes[0] != st->id_bytes[0x10] || c.bytes[1] != st->id_bytes[0x11])
		abort();
	etmkit_session_free(s);
	return 0;
}
