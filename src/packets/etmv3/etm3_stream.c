/* ETMv3 packet decoder: the stream (ARM IHI 0014Q chapter 7). Input in
 * chunks, the search for A-sync (7.10.1), packets cut by the end of a chunk,
 * the replay of a rejected packet's bytes, data lost in transport (gaps),
 * and the record loop of etm3_pkt_next(). What each packet means is decided
 * in etm3_pkt.c.
 */
#include <stdlib.h>
#include <string.h>

#include "packets/etmv3/etm3_internal.h"

/* ---- Decoder object ------------------------------------------------------- */

int etm3_pkt_alloc(struct etm3_pkt_decoder **out, const struct etm3_config *cfg)
{
	struct etm3_pkt_decoder *dec;
	struct etm3_config_info info;
	int err;

	if (!out)
		return -etmkit_err_invalid;
	*out = NULL;
	err = etm3_config_decode(cfg, &info);
	if (err < 0)
		return err;
	dec = calloc(1, sizeof(*dec));
	if (!dec)
		return -etmkit_err_nomem;
	dec->cfg = *cfg;
	dec->cfg.size = sizeof(dec->cfg);
	dec->info = info;
	etm3_build_tables(dec);
	dec->uns_max = ETM3_UNSYNCED_MAX;
	etm3_pkt_reset(dec);
	*out = dec;
	return 0;
}

void etm3_pkt_free(struct etm3_pkt_decoder *dec)
{
	free(dec);
}

void etm3_pkt_reset(struct etm3_pkt_decoder *dec)
{
	if (!dec)
		return;
	pkt_stream_reset(&dec->in);
	dec->scan = etm3_scan_unsynced;
	dec->zeros = 0;
	dec->uns_len = 0;
	dec->have_pending = 0;
	etm3_reset_state(dec);
}

int etm3_pkt_synced(const struct etm3_pkt_decoder *dec)
{
	return dec && dec->scan != etm3_scan_unsynced;
}

int etm3_pkt_feed(struct etm3_pkt_decoder *dec, const uint8_t *buf, size_t n,
		  const uint64_t *offsets, uint64_t base)
{
	if (!dec)
		return -etmkit_err_invalid;
	return pkt_stream_feed(&dec->in, buf, n, offsets, base);
}

int etm3_pkt_gap(struct etm3_pkt_decoder *dec)
{
	if (!dec)
		return -etmkit_err_invalid;
	return pkt_stream_gap(&dec->in);
}

int etm3_pkt_finish(struct etm3_pkt_decoder *dec)
{
	if (!dec)
		return -etmkit_err_invalid;
	dec->in.finished = 1;
	return 0;
}

/* ---- Synchronisation (IHI 0014Q 7.10.1) ----------------------------------- */

/* Back to searching for A-sync, with no state kept. */
static void drop_sync(struct etm3_pkt_decoder *dec)
{
	dec->scan = etm3_scan_unsynced;
	dec->zeros = 0;
	dec->uns_len = 0;
	etm3_reset_state(dec);
}

/* Every decode error ends here: resynchronise, or stop if asked to. */
void etm3_lose_sync(struct etm3_pkt_decoder *dec)
{
	if (dec->cfg.flags & ETM3_CFG_STOP_ON_ERROR)
		dec->in.stopped = 1;
	drop_sync(dec);
}

static void make_unsynced(const struct etm3_pkt_decoder *dec, uint64_t len,
			  struct etm3_packet *pkt)
{
	memset(pkt, 0, offsetof(struct etm3_packet, raw));
	pkt->type = etm3_pkt_unsynced;
	pkt->offset = dec->uns_off;
	pkt->length = (uint32_t)len;
	pkt->size = (uint8_t)(len < ETM3_PKT_MAX_BYTES ? len : ETM3_PKT_MAX_BYTES);
	memcpy(pkt->raw, dec->uns_raw, pkt->size);
	pkt->why = NULL;
}

static void make_async(struct etm3_packet *pkt, uint64_t off, uint64_t zeros)
{
	uint64_t len = zeros + 1;

	memset(pkt, 0, offsetof(struct etm3_packet, raw));
	pkt->type = etm3_pkt_a_sync;
	pkt->offset = off;
	pkt->length = (uint32_t)(len > ETM3_UNSYNCED_MAX ? ETM3_UNSYNCED_MAX : len);
	pkt->size = (uint8_t)(len < ETM3_PKT_MAX_BYTES ? len : ETM3_PKT_MAX_BYTES);
	memset(pkt->raw, 0, sizeof(pkt->raw));
	if (len <= ETM3_PKT_MAX_BYTES)
		pkt->raw[len - 1] = 0x80;
	pkt->why = NULL;
}

/* An error record for @zeros zero bytes that did not make an A-sync. */
static void make_bad_zeros(struct etm3_packet *pkt, uint64_t off, uint64_t zeros,
			   int err, const char *why)
{
	make_async(pkt, off, zeros);
	pkt->length = (uint32_t)(zeros > ETM3_UNSYNCED_MAX ? ETM3_UNSYNCED_MAX : zeros);
	pkt->size = (uint8_t)(zeros < ETM3_PKT_MAX_BYTES ? zeros : ETM3_PKT_MAX_BYTES);
	memset(pkt->raw, 0, sizeof(pkt->raw));
	pkt->error = (int16_t)err;
	pkt->why = why;
}

/* Close an unsynced run that reached dec->uns_max bytes, keeping its
 * last zeros (up to five, the start of a possible A-sync) as the start of
 * the next run. Returns 1 (one record written). */
static int split_unsynced(struct etm3_pkt_decoder *dec, struct etm3_packet *out)
{
	uint64_t keep = dec->zeros < 5 ? dec->zeros : 5;

	make_unsynced(dec, dec->uns_len - keep, out);
	dec->uns_len = keep;
	if (keep)
		dec->uns_off = dec->zero_off[(dec->zeros - keep) % 5];
	memset(dec->uns_raw, 0, sizeof(dec->uns_raw));
	return 1;
}

/* Scan unsynced bytes for five or more 0x00 followed by 0x80. The A-sync
 * packet is the last five zeros and the 0x80; earlier zeros belong to the
 * unsynced run (they may end a packet we could not parse). Returns the
 * number of records written to out[] (0, 1 or 2; a second one may go to
 * dec->pending). */
static int scan_unsynced(struct etm3_pkt_decoder *dec, struct etm3_packet *out,
			 size_t room)
{
	while (dec->in.pos < dec->in.n) {
		uint8_t b = dec->in.buf[dec->in.pos];
		uint64_t off = off_at(dec, dec->in.pos);

		if (dec->uns_len == 0)
			dec->uns_off = off;
		if (dec->uns_len < ETM3_PKT_MAX_BYTES)
			dec->uns_raw[dec->uns_len] = b;
		dec->uns_len++;
		dec->in.pos++;
		if (b == 0x00) {
			dec->zero_off[dec->zeros % 5] = off;
			dec->zeros++;
			if (dec->uns_len >= dec->uns_max)
				return split_unsynced(dec, out);
			continue;
		}
		if (b == 0x80 && dec->zeros >= 5) {
			uint64_t run = dec->uns_len - 6;
			uint64_t aoff = dec->zero_off[(dec->zeros - 5) % 5];
			int n = 0;

			if (run) {
				make_unsynced(dec, run, &out[n++]);
			}
			make_async(n < (int)room ? &out[n] : &dec->pending,
				   aoff, 5);
			if (n < (int)room)
				n++;
			else
				dec->have_pending = 1;
			dec->scan = etm3_scan_synced;
			dec->zeros = 0;
			dec->uns_len = 0;
			dec->prev_type = etm3_pkt_a_sync;
			return n;
		}
		dec->zeros = 0;
		if (dec->uns_len >= dec->uns_max)
			return split_unsynced(dec, out);
	}
	return 0;
}

/* A synced A-sync whose zeros reach dec->uns_max: report all but the
 * last five as a malformed A-sync and search on from those five. */
static int async_too_long(struct etm3_pkt_decoder *dec, struct etm3_packet *out)
{
	uint64_t ring[5];

	for (unsigned i = 0; i < 5; i++)
		ring[i] = dec->zero_off[(dec->zeros - 5 + i) % 5];
	make_bad_zeros(out, dec->async_off, dec->zeros - 5, -etmkit_err_bad_packet,
		       "A-sync: too many zeros");
	etm3_lose_sync(dec);
	memcpy(dec->zero_off, ring, sizeof(ring));
	dec->zeros = 5;
	dec->uns_off = ring[0];
	dec->uns_len = 5;
	memset(dec->uns_raw, 0, sizeof(dec->uns_raw));
	return 1;
}

/* Inside the zeros of an A-sync met while synced. Returns records written
 * (0 or 1). */
static int scan_async(struct etm3_pkt_decoder *dec, struct etm3_packet *out)
{
	while (dec->in.pos < dec->in.n) {
		uint8_t b = dec->in.buf[dec->in.pos];

		if (b == 0x00) {
			dec->zero_off[dec->zeros % 5] = off_at(dec, dec->in.pos);
			dec->zeros++;
			dec->in.pos++;
			if (dec->zeros >= dec->uns_max)
				return async_too_long(dec, out);
			continue;
		}
		if (b == 0x80 && dec->zeros >= 5) {
			dec->in.pos++;
			make_async(out, dec->async_off, dec->zeros);
			dec->scan = etm3_scan_synced;
			dec->zeros = 0;
			dec->prev_type = etm3_pkt_a_sync;
			return 1;
		}
		/* Too few zeros, or zeros not closed by 0x80. */
		make_bad_zeros(out, dec->async_off, dec->zeros, -etmkit_err_bad_packet,
			       "A-sync: zeros not followed by 0x80 after five or more");
		etm3_lose_sync(dec);
		return 1;
	}
	return 0;
}

/* ---- The record loop ------------------------------------------------------ */

/* Complete a packet begun in an earlier chunk. Returns records written. */
static int resume_partial(struct etm3_pkt_decoder *dec, struct etm3_packet *pkt)
{
	uint8_t tmp[ETM3_PKT_MAX_BYTES];
	size_t have = dec->in.part_len;
	size_t take = dec->in.n - dec->in.pos;
	int len;

	if (take > sizeof(tmp) - have)
		take = sizeof(tmp) - have;
	memcpy(tmp, dec->in.part, have);
	memcpy(tmp + have, dec->in.buf + dec->in.pos, take);
	len = etm3_decode_one(dec, tmp, have + take, pkt);
	if (len == 0) {
		/* Still short: everything given so far is kept. */
		memcpy(dec->in.part, tmp, have + take);
		for (size_t i = 0; i < take; i++)
			dec->in.part_offs[have + i] = off_at(dec, dec->in.pos + i);
		dec->in.part_len = (uint8_t)(have + take);
		dec->in.pos += take;
		return 0;
	}
	pkt->offset = dec->in.part_off;
	dec->in.part_len = 0;
	if (len < 0) {
		size_t k = etm3_restart_point(tmp, len, 1, pkt);

		if (k < have) {
			/* The search restarts inside the bytes kept from
			 * earlier chunks: scan them again first. */
			pkt_stream_replay(&dec->in, dec->in.part + k, dec->in.part_offs + k, have - k);
			return 1;
		}
		len = -(int)k;
	}
	dec->in.pos += (size_t)(len < 0 ? -len : len) - have;
	return 1;
}

/* Records at the end of input: a cut packet, an open unsynced run, an
 * unfinished A-sync. */
static int flush_final(struct etm3_pkt_decoder *dec, struct etm3_packet *pkt)
{
	if (dec->in.part_len) {
		int len = etm3_decode_one(dec, dec->in.part, dec->in.part_len, pkt);

		if (len == 0) {
			pkt->length = dec->in.part_len;
			pkt->size = dec->in.part_len;
			memcpy(pkt->raw, dec->in.part, dec->in.part_len);
			pkt->error = -etmkit_err_truncated;
			pkt->why = "input ends inside the packet";
		}
		pkt->offset = dec->in.part_off;
		dec->in.part_len = 0;
		drop_sync(dec);
		return 1;
	}
	if (dec->scan == etm3_scan_unsynced && dec->uns_len) {
		make_unsynced(dec, dec->uns_len, pkt);
		dec->uns_len = 0;
		dec->zeros = 0;
		return 1;
	}
	if (dec->scan == etm3_scan_async) {
		make_bad_zeros(pkt, dec->async_off, dec->zeros, -etmkit_err_truncated,
			       "input ends inside an A-sync");
		drop_sync(dec);
		return 1;
	}
	return 0;
}

/* One record from the slow path (anything but a P-header at a packet
 * boundary with the packet wholly in the buffer). */
static int next_slow(struct etm3_pkt_decoder *dec, struct etm3_packet *out,
		     size_t room)
{
	size_t pos = dec->in.pos;
	int len;

	if (dec->in.part_len) {
		uint64_t start = stream_at(dec, pos) - dec->in.part_len;

		if (!resume_partial(dec, out))
			return 0;
		etm3_after_packet(dec, out, start, stream_at(dec, dec->in.pos));
		return 1;
	}
	if (dec->scan == etm3_scan_unsynced)
		return scan_unsynced(dec, out, room);
	if (dec->scan == etm3_scan_async)
		return scan_async(dec, out);
	if (dec->in.buf[pos] == 0x00) {
		dec->scan = etm3_scan_async;
		dec->async_off = off_at(dec, pos);
		dec->zero_off[0] = dec->async_off;
		dec->zeros = 1;
		dec->in.pos++;
		return 0;
	}
	len = etm3_decode_one(dec, dec->in.buf + pos, dec->in.n - pos, out);
	if (len == 0) {
		/* Cut by the end of the chunk: keep the bytes. */
		dec->in.part_len = (uint8_t)(dec->in.n - pos);
		memcpy(dec->in.part, dec->in.buf + pos, dec->in.part_len);
		for (size_t i = 0; i < dec->in.part_len; i++)
			dec->in.part_offs[i] = off_at(dec, pos + i);
		dec->in.part_off = dec->in.part_offs[0];
		dec->in.pos = dec->in.n;
		return 0;
	}
	if (len < 0)
		len = -(int)etm3_restart_point(dec->in.buf + pos, len, 1, out);
	out->offset = off_at(dec, pos);
	dec->in.pos = pos + (size_t)(len < 0 ? -len : len);
	etm3_after_packet(dec, out, stream_at(dec, pos), stream_at(dec, dec->in.pos));
	return 1;
}

/* Data was lost before the next byte (etm3_pkt_gap()): report what it
 * cut, and let nothing decoded before it be relied on. Returns the records
 * written (0 or 1). */
static int handle_gap(struct etm3_pkt_decoder *dec, struct etm3_packet *pkt)
{
	int n = 0;

	dec->in.gap = 0;
	if (dec->in.part_len) {
		etm3_decode_one(dec, dec->in.part, dec->in.part_len, pkt);
		pkt->offset = dec->in.part_off;
		pkt->length = dec->in.part_len;
		pkt->size = dec->in.part_len;
		memcpy(pkt->raw, dec->in.part, dec->in.part_len);
		pkt->error = -etmkit_err_bad_frame;
		pkt->why = "packet cut by data lost in transport";
		dec->in.part_len = 0;
		n = 1;
	} else if (dec->scan == etm3_scan_async) {
		make_bad_zeros(pkt, dec->async_off, dec->zeros, -etmkit_err_bad_frame,
			       "A-sync cut by data lost in transport");
		n = 1;
	}
	/* An unsynced run goes on (it is not decoded anyway), but zeros on
	 * both sides of the loss must not make an A-sync. */
	if (dec->scan == etm3_scan_unsynced) {
		dec->zeros = 0;
		return n;
	}
	drop_sync(dec);
	return n;
}

int etm3_pkt_next(struct etm3_pkt_decoder *dec, struct etm3_packet *pkts,
		  size_t max)
{
	size_t out = 0;

	if (!dec || !pkts || !max)
		return -etmkit_err_invalid;
	if (dec->have_pending) {
		pkts[out++] = dec->pending;
		dec->have_pending = 0;
	}
	if (dec->in.gap && out < max && !dec->in.stopped)
		out += (size_t)handle_gap(dec, &pkts[out]);
	while (out < max && !dec->in.stopped) {
		if (dec->scan == etm3_scan_synced && !dec->in.part_len) {
			out = etm3_next_synced(dec, pkts, out, max);
			if (out >= max)
				break;
		}
		if (dec->in.pos >= dec->in.n) {
			if (dec->in.replaying) {
				pkt_stream_end_replay(&dec->in);
				continue;
			}
			if (dec->in.finished)
				out += (size_t)flush_final(dec, &pkts[out]);
			break;
		}
		out += (size_t)next_slow(dec, &pkts[out], max - out);
	}
	if (out == 0)
		return dec->in.stopped ? -etmkit_err_bad_packet : -etmkit_err_eos;
	return (int)out;
}
