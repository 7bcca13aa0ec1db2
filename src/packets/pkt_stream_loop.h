/* The record loop of a packet decoder, written once for every protocol
 * (ETMv3, ETMv4/ETE, and PTM and ETMv2 to come): the search for A-sync in
 * unsynced bytes, packets cut by the end of a chunk, the replay of a
 * rejected packet's bytes, data lost in transport (gaps), the records at
 * the end of input, and the public feed/gap/finish/next functions.
 * Packets layer, internal.
 *
 * A template: a protocol's stream file (etmv3/etm3_stream.c,
 * etmv4/etm4_stream.c) defines the macros below and then includes this
 * file once, so the compiler sees the protocol's decode of one packet and
 * its synced fast path inline, as if the loop were written in that file
 * (no call through a pointer on the hot path). Every function it defines
 * is static, except the public ones named by PKT_FN(): alloc, free,
 * reset, feed, gap, finish and next.
 *
 * The decoder struct (PKT_DEC) must have these members: `cfg` (a PKT_CFG,
 * with `size` and `flags`), `info`, `in` (struct pkt_stream), `scan` (the protocol's enum: PKT_SCAN_*), `zeros`,
 * `zero_off[PKT_ASYNC_ZEROS]` (ring of the offsets of the last zeros),
 * `zeros_off` (synced zeros: offset of the first), `uns_off`, `uns_len`,
 * `uns_raw[PKT_MAX]`, `uns_max`, `pending` (a PKT_REC) and `have_pending`.
 * The record (PKT_REC) has type, offset, length, size, error, raw[PKT_MAX]
 * and why, raw and why last.
 *
 * Types and constants:
 *   PKT_DEC, PKT_REC      the decoder and record struct types
 *   PKT_CFG, PKT_CFG_INFO the configuration and its decoded form
 *   PKT_MAX               longest packet (<= PKT_STREAM_MAX_BYTES)
 *   PKT_UNSYNCED_MAX      the longest record of unsynced bytes or zeros
 *   PKT_ASYNC_ZEROS       zeros before the 0x80 of an A-sync
 *   PKT_SCAN_UNSYNCED, PKT_SCAN_SYNCED, PKT_SCAN_ZEROS
 *                         searching for A-sync; at a packet boundary;
 *                         inside zeros met while synced
 *   PKT_TYPE_UNSYNCED, PKT_TYPE_ASYNC   record types
 *   PKT_MSG_TOO_MANY_ZEROS  why of zeros reaching uns_max while synced
 *   PKT_MSG_END_IN_ZEROS    why of input ending inside synced zeros
 *   PKT_STOP_ON_ERROR     the flag of dec->cfg.flags that asks to stop at
 *                         the first error
 *   PKT_FN(name)          public name, e.g. etm3_pkt_##name
 * Hooks (function-like macros or functions the file defines first):
 *   PKT_DECODE_ONE(dec, p, avail, pkt)   decode one packet (not at 0x00):
 *                         its length, 0 if cut, -(length) if rejected
 *   PKT_CONFIG_DECODE(cfg, info)  check and decode the configuration
 *   PKT_BUILD_TABLES(dec) the decoder's tables for its configuration
 *   PKT_RESET_STATE(dec)  forget every compression reference
 *   PKT_AFTER_PACKET(dec, pkt, start, end)  bookkeeping after a decoded
 *                         packet (start, end: stream positions, evaluated
 *                         only if the hook uses them)
 *   PKT_NEXT_SYNCED(dec, pkts, out, max) synced fast path; new count
 *   PKT_SCAN_ZEROS_FN(dec, out, room)    the protocol's scan of zeros
 *                         met while synced; records written
 *   PKT_MAKE_ASYNC(pkt, off)             an A-sync record at off
 *   PKT_ASYNC_OR_MORE     defined: the A-sync is PKT_ASYNC_ZEROS or more
 *                         zeros and 0x80; async_record() and
 *                         scan_async_zeros() serve the two hooks above
 *   PKT_ON_ASYNC(dec)     after A-sync is found in unsynced bytes
 *   PKT_NEXT_BEGIN(dec)   at the start of every PKT_FN(next) call
 */
#ifndef ETMKIT_PKT_STREAM_LOOP_H
#define ETMKIT_PKT_STREAM_LOOP_H

#include <stdlib.h>
#include <string.h>

#include "etmkit/common.h"
#include "packets/pkt_stream.h"

_Static_assert(PKT_MAX <= PKT_STREAM_MAX_BYTES, "a cut packet fits pkt_stream");

/* ---- Decoder object ------------------------------------------------------- */

int PKT_FN(alloc)(PKT_DEC **out, const PKT_CFG *cfg)
{
	PKT_DEC *dec;
	PKT_CFG_INFO info;
	int err;

	if (!out)
		return -etmkit_err_invalid;
	*out = NULL;
	err = PKT_CONFIG_DECODE(cfg, &info);
	if (err < 0)
		return err;
	dec = calloc(1, sizeof(*dec));
	if (!dec)
		return -etmkit_err_nomem;
	dec->cfg = *cfg;
	dec->cfg.size = sizeof(dec->cfg);
	dec->info = info;
	PKT_BUILD_TABLES(dec);
	dec->uns_max = PKT_UNSYNCED_MAX;
	PKT_FN(reset)(dec);
	*out = dec;
	return 0;
}

void PKT_FN(free)(PKT_DEC *dec)
{
	free(dec);
}

void PKT_FN(reset)(PKT_DEC *dec)
{
	if (!dec)
		return;
	pkt_stream_reset(&dec->in);
	dec->scan = PKT_SCAN_UNSYNCED;
	dec->zeros = 0;
	dec->uns_len = 0;
	dec->have_pending = 0;
	PKT_RESET_STATE(dec);
}

/* ---- Input ---------------------------------------------------------------- */

int PKT_FN(feed)(PKT_DEC *dec, const uint8_t *buf, size_t n,
		 const uint64_t *offsets, uint64_t base)
{
	if (!dec)
		return -etmkit_err_invalid;
	return pkt_stream_feed(&dec->in, buf, n, offsets, base);
}

int PKT_FN(gap)(PKT_DEC *dec)
{
	if (!dec)
		return -etmkit_err_invalid;
	return pkt_stream_gap(&dec->in);
}

int PKT_FN(finish)(PKT_DEC *dec)
{
	if (!dec)
		return -etmkit_err_invalid;
	dec->in.finished = 1;
	return 0;
}

/* ---- Synchronisation ------------------------------------------------------ */

#ifdef PKT_ASYNC_OR_MORE
/* Protocols whose A-sync is PKT_ASYNC_ZEROS *or more* zeros and 0x80
 * (ETMv3, IHI 0014Q 7.10.1; PTM, IHI 0035B 4.5.1): they define
 * PKT_ASYNC_OR_MORE, and PKT_MAKE_ASYNC and PKT_SCAN_ZEROS_FN as
 * async_record() and scan_async_zeros() below. */

/* An A-sync record at @off: @zeros zeros and the 0x80; bytes past
 * PKT_MAX are not kept (an A-sync longer than raw[] keeps zeros only). */
static void async_record(PKT_REC *pkt, uint64_t off, uint64_t zeros)
{
	uint64_t len = zeros + 1;

	memset(pkt, 0, offsetof(PKT_REC, raw));
	pkt->type = PKT_TYPE_ASYNC;
	pkt->offset = off;
	pkt->length = (uint32_t)(len > PKT_UNSYNCED_MAX ? PKT_UNSYNCED_MAX : len);
	pkt->size = (uint8_t)(len < PKT_MAX ? len : PKT_MAX);
	memset(pkt->raw, 0, sizeof(pkt->raw));
	if (len <= PKT_MAX)
		pkt->raw[len - 1] = 0x80;
	pkt->why = NULL;
}
#endif

/* Back to searching for A-sync, with no state kept. */
static void drop_sync(PKT_DEC *dec)
{
	dec->scan = PKT_SCAN_UNSYNCED;
	dec->zeros = 0;
	dec->uns_len = 0;
	PKT_RESET_STATE(dec);
}

/* Every decode error ends here: resynchronise, or stop if asked to. */
static void lose_sync(PKT_DEC *dec)
{
	if (dec->cfg.flags & PKT_STOP_ON_ERROR)
		dec->in.stopped = 1;
	drop_sync(dec);
}

static void make_unsynced(const PKT_DEC *dec, uint64_t len, PKT_REC *pkt)
{
	memset(pkt, 0, offsetof(PKT_REC, raw));
	pkt->type = PKT_TYPE_UNSYNCED;
	pkt->offset = dec->uns_off;
	pkt->length = (uint32_t)len;
	pkt->size = (uint8_t)(len < PKT_MAX ? len : PKT_MAX);
	memcpy(pkt->raw, dec->uns_raw, pkt->size);
	pkt->why = NULL;
}

/* An error record (an A-sync in type) for @zeros zero bytes at @off that
 * did not make an A-sync. */
static void make_bad_zeros(PKT_REC *pkt, uint64_t off, uint64_t zeros, int err,
			   const char *why)
{
	memset(pkt, 0, offsetof(PKT_REC, raw));
	pkt->type = PKT_TYPE_ASYNC;
	pkt->offset = off;
	pkt->length = (uint32_t)zeros;
	pkt->size = (uint8_t)(zeros < PKT_MAX ? zeros : PKT_MAX);
	memset(pkt->raw, 0, sizeof(pkt->raw));
	pkt->error = (int16_t)err;
	pkt->why = why;
}

/* Offset of the first of the last PKT_ASYNC_ZEROS zeros seen. */
static uint64_t async_start(const PKT_DEC *dec)
{
	return dec->zero_off[(dec->zeros - PKT_ASYNC_ZEROS) % PKT_ASYNC_ZEROS];
}

static void note_zero(PKT_DEC *dec, uint64_t off)
{
	dec->zero_off[dec->zeros % PKT_ASYNC_ZEROS] = off;
	dec->zeros++;
}

/* Close an unsynced run that reached dec->uns_max bytes, keeping its
 * last zeros (up to PKT_ASYNC_ZEROS, the start of a possible A-sync) as
 * the start of the next run. Returns 1 (one record written). */
static int split_unsynced(PKT_DEC *dec, PKT_REC *out)
{
	uint64_t keep = dec->zeros < PKT_ASYNC_ZEROS ? dec->zeros : PKT_ASYNC_ZEROS;

	make_unsynced(dec, dec->uns_len - keep, out);
	dec->uns_len = keep;
	if (keep)
		dec->uns_off = dec->zero_off[(dec->zeros - keep) % PKT_ASYNC_ZEROS];
	memset(dec->uns_raw, 0, sizeof(dec->uns_raw));
	return 1;
}

/* Deliver an A-sync at @off to out[n] or, when out[] is full, keep it for
 * the next call. Returns the records written. */
static int put_async(PKT_DEC *dec, PKT_REC *out, int n, size_t room, uint64_t off)
{
	if ((size_t)n < room) {
		PKT_MAKE_ASYNC(&out[n], off);
		return n + 1;
	}
	PKT_MAKE_ASYNC(&dec->pending, off);
	dec->have_pending = 1;
	return n;
}

/* Scan unsynced bytes for PKT_ASYNC_ZEROS or more 0x00 followed by 0x80.
 * The A-sync packet is the last PKT_ASYNC_ZEROS zeros and the 0x80;
 * earlier zeros belong to the unsynced run (they may end a packet we
 * could not parse). Returns the number of records written to out[] (0, 1
 * or 2; a second one may go to dec->pending). */
static int scan_unsynced(PKT_DEC *dec, PKT_REC *out, size_t room)
{
	while (dec->in.pos < dec->in.n) {
		uint8_t b = dec->in.buf[dec->in.pos];
		uint64_t off = pkt_stream_off_at(&dec->in, dec->in.pos);

		if (dec->uns_len == 0)
			dec->uns_off = off;
		if (dec->uns_len < PKT_MAX)
			dec->uns_raw[dec->uns_len] = b;
		dec->uns_len++;
		dec->in.pos++;
		if (b == 0x00) {
			note_zero(dec, off);
			if (dec->uns_len >= dec->uns_max)
				return split_unsynced(dec, out);
			continue;
		}
		if (b == 0x80 && dec->zeros >= PKT_ASYNC_ZEROS) {
			uint64_t run = dec->uns_len - (PKT_ASYNC_ZEROS + 1);
			int n = 0;

			if (run)
				make_unsynced(dec, run, &out[n++]);
			n = put_async(dec, out, n, room, async_start(dec));
			dec->scan = PKT_SCAN_SYNCED;
			dec->zeros = 0;
			dec->uns_len = 0;
			PKT_ON_ASYNC(dec);
			return n;
		}
		dec->zeros = 0;
		if (dec->uns_len >= dec->uns_max)
			return split_unsynced(dec, out);
	}
	return 0;
}

/* Zeros met while synced reaching dec->uns_max: report all but the last
 * PKT_ASYNC_ZEROS as a malformed A-sync and search on from those. */
static int zeros_too_long(PKT_DEC *dec, PKT_REC *out)
{
	uint64_t ring[PKT_ASYNC_ZEROS];

	for (unsigned i = 0; i < PKT_ASYNC_ZEROS; i++)
		ring[i] = dec->zero_off[(dec->zeros - PKT_ASYNC_ZEROS + i) %
					PKT_ASYNC_ZEROS];
	make_bad_zeros(out, dec->zeros_off, dec->zeros - PKT_ASYNC_ZEROS,
		       -etmkit_err_bad_packet, PKT_MSG_TOO_MANY_ZEROS);
	lose_sync(dec);
	memcpy(dec->zero_off, ring, sizeof(ring));
	dec->zeros = PKT_ASYNC_ZEROS;
	dec->uns_off = ring[0];
	dec->uns_len = PKT_ASYNC_ZEROS;
	memset(dec->uns_raw, 0, sizeof(dec->uns_raw));
	return 1;
}

#ifdef PKT_ASYNC_OR_MORE
/* Inside zeros met while synced: PKT_ASYNC_ZEROS or more and 0x80 are an
 * A-sync, all of them in its record; anything else is malformed (the byte
 * is left for the search). Returns records written (0 or 1). */
static int scan_async_zeros(PKT_DEC *dec, PKT_REC *out)
{
	while (dec->in.pos < dec->in.n) {
		uint8_t b = dec->in.buf[dec->in.pos];

		if (b == 0x00) {
			note_zero(dec, pkt_stream_off_at(&dec->in, dec->in.pos));
			dec->in.pos++;
			if (dec->zeros >= dec->uns_max)
				return zeros_too_long(dec, out);
			continue;
		}
		if (b == 0x80 && dec->zeros >= PKT_ASYNC_ZEROS) {
			dec->in.pos++;
			async_record(out, dec->zeros_off, dec->zeros);
			dec->scan = PKT_SCAN_SYNCED;
			dec->zeros = 0;
			PKT_ON_ASYNC(dec);
			return 1;
		}
		make_bad_zeros(out, dec->zeros_off, dec->zeros, -etmkit_err_bad_packet,
			       "A-sync: zeros not followed by 0x80 after five or more");
		lose_sync(dec);
		return 1;
	}
	return 0;
}
#endif

/* ---- The record loop ------------------------------------------------------ */

/* A rejected packet of -@len bytes at @p: the search for A-sync restarts
 * at its first zero after the header, so an A-sync the bad packet ran into
 * is not missed; the record is cut there. Returns the record's new
 * length. */
static unsigned restart_point(const uint8_t *p, int len, PKT_REC *pkt)
{
	unsigned n = (unsigned)-len;

	for (unsigned k = 1; k < n; k++) {
		if (p[k] == 0x00) {
			pkt->length = k;
			pkt->size = (uint8_t)k;
			return k;
		}
	}
	return n;
}

/* Keep the bytes from @pos to the end of the input: a packet cut by the
 * end of the chunk. */
static void keep_partial(PKT_DEC *dec, size_t pos)
{
	dec->in.part_len = (uint8_t)(dec->in.n - pos);
	memcpy(dec->in.part, dec->in.buf + pos, dec->in.part_len);
	for (size_t i = 0; i < dec->in.part_len; i++)
		dec->in.part_offs[i] = pkt_stream_off_at(&dec->in, pos + i);
	dec->in.part_off = dec->in.part_offs[0];
	dec->in.pos = dec->in.n;
}

/* Complete a packet begun in an earlier chunk. Returns records written. */
static int resume_partial(PKT_DEC *dec, PKT_REC *pkt)
{
	uint8_t tmp[PKT_MAX];
	size_t have = dec->in.part_len;
	size_t take = dec->in.n - dec->in.pos;
	int len;

	if (take > sizeof(tmp) - have)
		take = sizeof(tmp) - have;
	memcpy(tmp, dec->in.part, have);
	memcpy(tmp + have, dec->in.buf + dec->in.pos, take);
	len = PKT_DECODE_ONE(dec, tmp, have + take, pkt);
	if (len == 0) {
		/* Still short: everything given so far is kept. */
		memcpy(dec->in.part, tmp, have + take);
		for (size_t i = 0; i < take; i++)
			dec->in.part_offs[have + i] =
				pkt_stream_off_at(&dec->in, dec->in.pos + i);
		dec->in.part_len = (uint8_t)(have + take);
		dec->in.pos += take;
		return 0;
	}
	pkt->offset = dec->in.part_off;
	dec->in.part_len = 0;
	if (len < 0) {
		size_t k = restart_point(tmp, len, pkt);

		if (k < have) {
			/* The search restarts inside the bytes kept from
			 * earlier chunks: scan them again first. */
			pkt_stream_replay(&dec->in, dec->in.part + k,
					  dec->in.part_offs + k, have - k);
			return 1;
		}
		len = -(int)k;
	}
	dec->in.pos += (size_t)(len < 0 ? -len : len) - have;
	return 1;
}

/* Records at the end of input: a cut packet, an open unsynced run,
 * unfinished zeros. */
static int flush_final(PKT_DEC *dec, PKT_REC *pkt)
{
	if (dec->in.part_len) {
		int len = PKT_DECODE_ONE(dec, dec->in.part, dec->in.part_len, pkt);

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
	if (dec->scan == PKT_SCAN_UNSYNCED && dec->uns_len) {
		make_unsynced(dec, dec->uns_len, pkt);
		dec->uns_len = 0;
		dec->zeros = 0;
		return 1;
	}
	if (dec->scan == PKT_SCAN_ZEROS) {
		make_bad_zeros(pkt, dec->zeros_off, dec->zeros, -etmkit_err_truncated,
			       PKT_MSG_END_IN_ZEROS);
		drop_sync(dec);
		return 1;
	}
	return 0;
}

/* One record from the slow path (anything but a whole packet at a packet
 * boundary in sync). Returns records written. */
static int next_slow(PKT_DEC *dec, PKT_REC *out, size_t room)
{
	size_t pos = dec->in.pos;
	int len;

	if (dec->in.part_len) {
		uint64_t start = pkt_stream_at(&dec->in, pos) - dec->in.part_len;

		(void)start;
		if (!resume_partial(dec, out))
			return 0;
		PKT_AFTER_PACKET(dec, out, start, pkt_stream_at(&dec->in, dec->in.pos));
		return 1;
	}
	if (dec->scan == PKT_SCAN_UNSYNCED)
		return scan_unsynced(dec, out, room);
	if (dec->scan == PKT_SCAN_ZEROS)
		return PKT_SCAN_ZEROS_FN(dec, out, room);
	if (dec->in.buf[pos] == 0x00) {
		dec->scan = PKT_SCAN_ZEROS;
		dec->zeros_off = pkt_stream_off_at(&dec->in, pos);
		dec->zeros = 0;
		note_zero(dec, dec->zeros_off);
		dec->in.pos++;
		return 0;
	}
	len = PKT_DECODE_ONE(dec, dec->in.buf + pos, dec->in.n - pos, out);
	if (len == 0) {
		keep_partial(dec, pos);
		return 0;
	}
	if (len < 0)
		len = -(int)restart_point(dec->in.buf + pos, len, out);
	out->offset = pkt_stream_off_at(&dec->in, pos);
	dec->in.pos = pos + (size_t)(len < 0 ? -len : len);
	PKT_AFTER_PACKET(dec, out, pkt_stream_at(&dec->in, pos),
			 pkt_stream_at(&dec->in, dec->in.pos));
	return 1;
}

/* Data was lost before the next byte (PKT_FN(gap)): report what it cut,
 * and let nothing decoded before it be relied on. Returns the records
 * written (0 or 1). */
static int handle_gap(PKT_DEC *dec, PKT_REC *pkt)
{
	int n = 0;

	dec->in.gap = 0;
	if (dec->in.part_len) {
		PKT_DECODE_ONE(dec, dec->in.part, dec->in.part_len, pkt);
		pkt->offset = dec->in.part_off;
		pkt->length = dec->in.part_len;
		pkt->size = dec->in.part_len;
		memcpy(pkt->raw, dec->in.part, dec->in.part_len);
		pkt->error = -etmkit_err_bad_frame;
		pkt->why = "packet cut by data lost in transport";
		dec->in.part_len = 0;
		n = 1;
	} else if (dec->scan == PKT_SCAN_ZEROS) {
		make_bad_zeros(pkt, dec->zeros_off, dec->zeros, -etmkit_err_bad_frame,
			       "A-sync cut by data lost in transport");
		n = 1;
	}
	/* An unsynced run goes on (it is not decoded anyway), but zeros on
	 * both sides of the loss must not make an A-sync. */
	if (dec->scan == PKT_SCAN_UNSYNCED) {
		dec->zeros = 0;
		return n;
	}
	drop_sync(dec);
	return n;
}

int PKT_FN(next)(PKT_DEC *dec, PKT_REC *pkts, size_t max)
{
	size_t out = 0;

	if (!dec || !pkts || !max)
		return -etmkit_err_invalid;
	PKT_NEXT_BEGIN(dec);
	if (dec->have_pending) {
		pkts[out++] = dec->pending;
		dec->have_pending = 0;
	}
	if (dec->in.gap && out < max && !dec->in.stopped)
		out += (size_t)handle_gap(dec, &pkts[out]);
	while (out < max && !dec->in.stopped) {
		if (dec->scan == PKT_SCAN_SYNCED && !dec->in.part_len) {
			out = PKT_NEXT_SYNCED(dec, pkts, out, max);
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

#endif
