/* ETMv4 / ETE packet decoder: the stream (digest etmv4-ete.md sections 3
 * and 5.1, cited as "digest"). Input in chunks, the search for A-sync,
 * packets cut by the end of a chunk, the replay of a rejected packet's
 * bytes, data lost in transport (gaps), and the record loop of
 * etm4_pkt_next(). What each packet means is decided in etm4_pkt.c.
 */
#include <stdlib.h>
#include <string.h>

#include "packets/etmv4/etm4_internal.h"

/* ---- Decoder object ------------------------------------------------------- */

int etm4_pkt_alloc(struct etm4_pkt_decoder **out, const struct etm4_config *cfg)
{
	struct etm4_pkt_decoder *dec;
	struct etm4_config_info info;
	int err;

	if (!out)
		return -etmkit_err_invalid;
	*out = NULL;
	err = etm4_config_decode(cfg, &info);
	if (err < 0)
		return err;
	dec = calloc(1, sizeof(*dec));
	if (!dec)
		return -etmkit_err_nomem;
	dec->cfg = *cfg;
	dec->cfg.size = sizeof(dec->cfg);
	dec->info = info;
	etm4_build_tables(dec);
	dec->uns_max = ETM4_UNSYNCED_MAX;
	etm4_pkt_reset(dec);
	*out = dec;
	return 0;
}

void etm4_pkt_free(struct etm4_pkt_decoder *dec)
{
	free(dec);
}

void etm4_pkt_reset(struct etm4_pkt_decoder *dec)
{
	if (!dec)
		return;
	pkt_stream_reset(&dec->in);
	dec->scan = etm4_scan_unsynced;
	dec->zeros = 0;
	dec->uns_len = 0;
	dec->have_pending = 0;
	etm4_reset_state(dec);
}

const struct etm4_config_info *etm4_pkt_config(const struct etm4_pkt_decoder *dec)
{
	return dec ? &dec->info : NULL;
}

int etm4_pkt_feed(struct etm4_pkt_decoder *dec, const uint8_t *buf, size_t n,
		  const uint64_t *offsets, uint64_t base)
{
	if (!dec)
		return -etmkit_err_invalid;
	return pkt_stream_feed(&dec->in, buf, n, offsets, base);
}

int etm4_pkt_gap(struct etm4_pkt_decoder *dec)
{
	if (!dec)
		return -etmkit_err_invalid;
	return pkt_stream_gap(&dec->in);
}

int etm4_pkt_finish(struct etm4_pkt_decoder *dec)
{
	if (!dec)
		return -etmkit_err_invalid;
	dec->in.finished = 1;
	return 0;
}

/* ---- Synchronisation (digest 3) -------------------------------------------- */

/* Back to searching for A-sync, with no state kept. */
static void drop_sync(struct etm4_pkt_decoder *dec)
{
	dec->scan = etm4_scan_unsynced;
	dec->zeros = 0;
	dec->uns_len = 0;
	etm4_reset_state(dec);
}

/* Every decode error ends here: resynchronise, or stop if asked to. */
static void lose_sync(struct etm4_pkt_decoder *dec)
{
	if (dec->cfg.flags & ETM4_CFG_STOP_ON_ERROR)
		dec->in.stopped = 1;
	drop_sync(dec);
}

static void make_unsynced(const struct etm4_pkt_decoder *dec, uint64_t len,
			  struct etm4_packet *pkt)
{
	memset(pkt, 0, offsetof(struct etm4_packet, raw));
	pkt->type = etm4_pkt_unsynced;
	pkt->offset = dec->uns_off;
	pkt->length = (uint32_t)len;
	pkt->size = (uint8_t)(len < ETM4_PKT_MAX_BYTES ? len : ETM4_PKT_MAX_BYTES);
	memcpy(pkt->raw, dec->uns_raw, pkt->size);
	pkt->why = NULL;
}

/* A record of @len bytes at @off, all zeros except a final 0x80 when
 * @async: an A-sync (12 bytes), or zeros that did not make one. */
static void make_zeros(struct etm4_packet *pkt, uint8_t type, uint64_t off,
		       uint64_t len, int async)
{
	memset(pkt, 0, offsetof(struct etm4_packet, raw));
	pkt->type = type;
	pkt->offset = off;
	pkt->length = (uint32_t)len;
	pkt->size = (uint8_t)(len < ETM4_PKT_MAX_BYTES ? len : ETM4_PKT_MAX_BYTES);
	memset(pkt->raw, 0, sizeof(pkt->raw));
	if (async)
		pkt->raw[len - 1] = 0x80;
	pkt->why = NULL;
}

static void make_async(struct etm4_packet *pkt, uint64_t off)
{
	make_zeros(pkt, etm4_pkt_a_sync, off, ETM4_ASYNC_ZEROS + 1, 1);
}

static void make_bad_zeros(struct etm4_packet *pkt, uint64_t off, uint64_t zeros,
			   int err, const char *why)
{
	make_zeros(pkt, etm4_pkt_a_sync, off, zeros, 0);
	pkt->error = (int16_t)err;
	pkt->why = why;
}

/* Offset of the first of the last 11 zeros seen. */
static uint64_t async_start(const struct etm4_pkt_decoder *dec)
{
	return dec->zero_off[(dec->zeros - ETM4_ASYNC_ZEROS) % ETM4_ASYNC_ZEROS];
}

static void note_zero(struct etm4_pkt_decoder *dec, uint64_t off)
{
	dec->zero_off[dec->zeros % ETM4_ASYNC_ZEROS] = off;
	dec->zeros++;
}

/* Close an unsynced run that reached dec->uns_max bytes, keeping its
 * last zeros (up to 11, the start of a possible A-sync) as the start of
 * the next run. Returns 1 (one record written). */
static int split_unsynced(struct etm4_pkt_decoder *dec, struct etm4_packet *out)
{
	uint64_t keep = dec->zeros < ETM4_ASYNC_ZEROS ? dec->zeros : ETM4_ASYNC_ZEROS;

	make_unsynced(dec, dec->uns_len - keep, out);
	dec->uns_len = keep;
	if (keep)
		dec->uns_off = dec->zero_off[(dec->zeros - keep) % ETM4_ASYNC_ZEROS];
	memset(dec->uns_raw, 0, sizeof(dec->uns_raw));
	return 1;
}

/* Deliver @pkt's A-sync at out[n] or, when out[] is full, keep it for the
 * next call. Returns the records written. */
static int put_async(struct etm4_pkt_decoder *dec, struct etm4_packet *out,
		     int n, size_t room, uint64_t off)
{
	if ((size_t)n < room) {
		make_async(&out[n], off);
		return n + 1;
	}
	make_async(&dec->pending, off);
	dec->have_pending = 1;
	return n;
}

/* Scan unsynced bytes for 11 or more 0x00 followed by 0x80 (digest 3.1).
 * The A-sync packet is the last 11 zeros and the 0x80; earlier zeros
 * belong to the unsynced run (OpenCSD drops them the same way). Returns
 * the number of records written to out[] (0, 1 or 2; a second one may go
 * to dec->pending). */
static int scan_unsynced(struct etm4_pkt_decoder *dec, struct etm4_packet *out,
			 size_t room)
{
	while (dec->in.pos < dec->in.n) {
		uint8_t b = dec->in.buf[dec->in.pos];
		uint64_t off = off_at(dec, dec->in.pos);

		if (dec->uns_len == 0)
			dec->uns_off = off;
		if (dec->uns_len < ETM4_PKT_MAX_BYTES)
			dec->uns_raw[dec->uns_len] = b;
		dec->uns_len++;
		dec->in.pos++;
		if (b == 0x00) {
			note_zero(dec, off);
			if (dec->uns_len >= dec->uns_max)
				return split_unsynced(dec, out);
			continue;
		}
		if (b == 0x80 && dec->zeros >= ETM4_ASYNC_ZEROS) {
			uint64_t run = dec->uns_len - (ETM4_ASYNC_ZEROS + 1);
			int n = 0;

			if (run)
				make_unsynced(dec, run, &out[n++]);
			n = put_async(dec, out, n, room, async_start(dec));
			dec->scan = etm4_scan_synced;
			dec->zeros = 0;
			dec->uns_len = 0;
			return n;
		}
		dec->zeros = 0;
		if (dec->uns_len >= dec->uns_max)
			return split_unsynced(dec, out);
	}
	return 0;
}

/* Synced zeros reaching dec->uns_max: report all but the last 11 as a
 * malformed A-sync and search on from those 11. */
static int zeros_too_long(struct etm4_pkt_decoder *dec, struct etm4_packet *out)
{
	uint64_t ring[ETM4_ASYNC_ZEROS];

	for (unsigned i = 0; i < ETM4_ASYNC_ZEROS; i++)
		ring[i] = dec->zero_off[(dec->zeros - ETM4_ASYNC_ZEROS + i) %
					ETM4_ASYNC_ZEROS];
	make_bad_zeros(out, dec->zeros_off, dec->zeros - ETM4_ASYNC_ZEROS,
		       -etmkit_err_bad_packet, "A-sync: more than 11 zeros");
	lose_sync(dec);
	memcpy(dec->zero_off, ring, sizeof(ring));
	dec->zeros = ETM4_ASYNC_ZEROS;
	dec->uns_off = ring[0];
	dec->uns_len = ETM4_ASYNC_ZEROS;
	memset(dec->uns_raw, 0, sizeof(dec->uns_raw));
	return 1;
}

/* After a 0x00 header, synced (digest 3, 5.1, 5.12, 5.13): `00 03` is a
 * Discard, `00 05` an Overflow, exactly 11 zeros and 0x80 an A-sync;
 * anything else is malformed. More than 11 zeros before the 0x80: the
 * extra ones are reported malformed and the A-sync is kept. Returns the
 * records written (0, 1 or 2; a second one may go to dec->pending). */
static int scan_zeros(struct etm4_pkt_decoder *dec, struct etm4_packet *out,
		      size_t room)
{
	while (dec->in.pos < dec->in.n) {
		uint8_t b = dec->in.buf[dec->in.pos];

		if (b == 0x00) {
			note_zero(dec, off_at(dec, dec->in.pos));
			dec->in.pos++;
			if (dec->zeros >= dec->uns_max)
				return zeros_too_long(dec, out);
			continue;
		}
		if (dec->zeros == 1) {
			dec->in.pos++;
			make_zeros(out, b == 0x03 ? etm4_pkt_discard :
					b == 0x05 ? etm4_pkt_overflow :
						    etm4_pkt_reserved,
				   dec->zeros_off, 2, 0);
			out->raw[1] = b;
			dec->zeros = 0;
			if (b == 0x03 || b == 0x05) {
				dec->scan = etm4_scan_synced;
				return 1;
			}
			out->error = -etmkit_err_bad_packet;
			out->why = "reserved extension packet (0x00, then not "
				   "0x00, 0x03 or 0x05)";
			lose_sync(dec);
			return 1;
		}
		if (b == 0x80 && dec->zeros == ETM4_ASYNC_ZEROS) {
			dec->in.pos++;
			make_async(out, dec->zeros_off);
			dec->scan = etm4_scan_synced;
			dec->zeros = 0;
			return 1;
		}
		if (b == 0x80 && dec->zeros > ETM4_ASYNC_ZEROS) {
			uint64_t aoff = async_start(dec);

			dec->in.pos++;
			make_bad_zeros(out, dec->zeros_off,
				       dec->zeros - ETM4_ASYNC_ZEROS,
				       -etmkit_err_bad_packet,
				       "A-sync: more than 11 zeros");
			lose_sync(dec);
			if (dec->in.stopped)
				return 1;
			dec->scan = etm4_scan_synced;
			return put_async(dec, out, 1, room, aoff);
		}
		/* Too few zeros, or zeros not closed by 0x80: the byte is
		 * left for the search. */
		make_bad_zeros(out, dec->zeros_off, dec->zeros, -etmkit_err_bad_packet,
			       "A-sync: zeros not followed by 0x80 after exactly 11");
		lose_sync(dec);
		return 1;
	}
	return 0;
}

/* ---- The record loop ------------------------------------------------------ */

/* Keep the bytes from @pos to the end of the input: a packet cut by the
 * end of the chunk. */
static void keep_partial(struct etm4_pkt_decoder *dec, size_t pos)
{
	dec->in.part_len = (uint8_t)(dec->in.n - pos);
	memcpy(dec->in.part, dec->in.buf + pos, dec->in.part_len);
	for (size_t i = 0; i < dec->in.part_len; i++)
		dec->in.part_offs[i] = off_at(dec, pos + i);
	dec->in.part_off = dec->in.part_offs[0];
	dec->in.pos = dec->in.n;
}

/* Complete a packet begun in an earlier chunk. Returns records written. */
static int resume_partial(struct etm4_pkt_decoder *dec, struct etm4_packet *pkt)
{
	uint8_t tmp[ETM4_PKT_MAX_BYTES];
	size_t have = dec->in.part_len;
	size_t take = dec->in.n - dec->in.pos;
	int len;

	if (take > sizeof(tmp) - have)
		take = sizeof(tmp) - have;
	memcpy(tmp, dec->in.part, have);
	memcpy(tmp + have, dec->in.buf + dec->in.pos, take);
	len = etm4_decode_one(dec, tmp, have + take, pkt);
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
		size_t k = etm4_restart_point(tmp, len, pkt);

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

static void after_packet(struct etm4_pkt_decoder *dec, const struct etm4_packet *pkt)
{
	if (pkt->error)
		lose_sync(dec);
}

/* Records at the end of input: a cut packet, an open unsynced run,
 * unfinished zeros. */
static int flush_final(struct etm4_pkt_decoder *dec, struct etm4_packet *pkt)
{
	if (dec->in.part_len) {
		int len = etm4_decode_one(dec, dec->in.part, dec->in.part_len, pkt);

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
	if (dec->scan == etm4_scan_unsynced && dec->uns_len) {
		make_unsynced(dec, dec->uns_len, pkt);
		dec->uns_len = 0;
		dec->zeros = 0;
		return 1;
	}
	if (dec->scan == etm4_scan_zeros) {
		make_bad_zeros(pkt, dec->zeros_off, dec->zeros, -etmkit_err_truncated,
			       "input ends inside an A-sync or extension packet");
		drop_sync(dec);
		return 1;
	}
	return 0;
}

/* One record from the slow path (anything but a whole packet at a packet
 * boundary in sync). Returns records written. */
static int next_slow(struct etm4_pkt_decoder *dec, struct etm4_packet *out,
		     size_t room)
{
	size_t pos = dec->in.pos;
	int len;

	if (dec->in.part_len) {
		if (!resume_partial(dec, out))
			return 0;
		after_packet(dec, out);
		return 1;
	}
	if (dec->scan == etm4_scan_unsynced)
		return scan_unsynced(dec, out, room);
	if (dec->scan == etm4_scan_zeros)
		return scan_zeros(dec, out, room);
	if (dec->in.buf[pos] == 0x00) {
		dec->scan = etm4_scan_zeros;
		dec->zeros_off = off_at(dec, pos);
		dec->zeros = 0;
		note_zero(dec, dec->zeros_off);
		dec->in.pos++;
		return 0;
	}
	len = etm4_decode_one(dec, dec->in.buf + pos, dec->in.n - pos, out);
	if (len == 0) {
		keep_partial(dec, pos);
		return 0;
	}
	if (len < 0)
		len = -(int)etm4_restart_point(dec->in.buf + pos, len, out);
	out->offset = off_at(dec, pos);
	dec->in.pos = pos + (size_t)(len < 0 ? -len : len);
	after_packet(dec, out);
	return 1;
}

/* Data was lost before the next byte (etm4_pkt_gap()): report what it
 * cut, and let nothing decoded before it be relied on. Returns the records
 * written (0 or 1). */
static int handle_gap(struct etm4_pkt_decoder *dec, struct etm4_packet *pkt)
{
	int n = 0;

	dec->in.gap = 0;
	if (dec->in.part_len) {
		etm4_decode_one(dec, dec->in.part, dec->in.part_len, pkt);
		pkt->offset = dec->in.part_off;
		pkt->length = dec->in.part_len;
		pkt->size = dec->in.part_len;
		memcpy(pkt->raw, dec->in.part, dec->in.part_len);
		pkt->error = -etmkit_err_bad_frame;
		pkt->why = "packet cut by data lost in transport";
		dec->in.part_len = 0;
		n = 1;
	} else if (dec->scan == etm4_scan_zeros) {
		make_bad_zeros(pkt, dec->zeros_off, dec->zeros, -etmkit_err_bad_frame,
			       "A-sync cut by data lost in transport");
		n = 1;
	}
	/* An unsynced run goes on (it is not decoded anyway), but zeros on
	 * both sides of the loss must not make an A-sync. */
	if (dec->scan == etm4_scan_unsynced) {
		dec->zeros = 0;
		return n;
	}
	drop_sync(dec);
	return n;
}

int etm4_pkt_next(struct etm4_pkt_decoder *dec, struct etm4_packet *pkts,
		  size_t max)
{
	size_t out = 0;

	if (!dec || !pkts || !max)
		return -etmkit_err_invalid;
	dec->nraddr = 0; /* the last call's runs are gone */
	if (dec->have_pending) {
		pkts[out++] = dec->pending;
		dec->have_pending = 0;
	}
	if (dec->in.gap && out < max && !dec->in.stopped)
		out += (size_t)handle_gap(dec, &pkts[out]);
	while (out < max && !dec->in.stopped) {
		if (dec->scan == etm4_scan_synced && !dec->in.part_len) {
			out = etm4_next_synced(dec, pkts, out, max);
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

const struct etm4_atoms *etm4_pkt_atom_table(const struct etm4_pkt_decoder *dec)
{
	return dec ? dec->atoms : NULL;
}
