/* ETMv4 / ETE packet decoder: the stream (digest etmv4-ete.md sections 3
 * and 5.1, cited as "digest"). Input in chunks, the search for A-sync,
 * packets cut by the end of a chunk, the replay of a rejected packet's
 * bytes, data lost in transport (gaps), and the record loop of
 * etm4_pkt_next(): the parts the protocols share are written once in
 * ../pkt_stream_loop.h, included here with ETMv4's hooks. What each packet
 * means is decided in etm4_pkt.c.
 */
#include <stdlib.h>
#include <string.h>

#include "packets/etmv4/etm4_internal.h"

const struct etm4_config_info *etm4_pkt_config(const struct etm4_pkt_decoder *dec)
{
	return dec ? &dec->info : NULL;
}

/* ---- Synchronisation (digest 3) -------------------------------------------- */

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

/* ---- The record loop (pkt_stream_loop.h; A-sync: digest 3) --------------- */

static int scan_zeros(struct etm4_pkt_decoder *dec, struct etm4_packet *out,
		      size_t room);

static void after_packet(struct etm4_pkt_decoder *dec, const struct etm4_packet *pkt);

#define PKT_DEC struct etm4_pkt_decoder
#define PKT_REC struct etm4_packet
#define PKT_CFG struct etm4_config
#define PKT_CFG_INFO struct etm4_config_info
#define PKT_MAX ETM4_PKT_MAX_BYTES
#define PKT_UNSYNCED_MAX ETM4_UNSYNCED_MAX
#define PKT_ASYNC_ZEROS ETM4_ASYNC_ZEROS
#define PKT_SCAN_UNSYNCED etm4_scan_unsynced
#define PKT_SCAN_SYNCED etm4_scan_synced
#define PKT_SCAN_ZEROS etm4_scan_zeros
#define PKT_TYPE_UNSYNCED etm4_pkt_unsynced
#define PKT_TYPE_ASYNC etm4_pkt_a_sync
#define PKT_MSG_TOO_MANY_ZEROS "A-sync: more than 11 zeros"
#define PKT_MSG_END_IN_ZEROS "input ends inside an A-sync or extension packet"
#define PKT_STOP_ON_ERROR ETM4_CFG_STOP_ON_ERROR
#define PKT_FN(name) etm4_pkt_##name
#define PKT_DECODE_ONE(dec, p, avail, pkt) etm4_decode_one(dec, p, avail, pkt)
#define PKT_CONFIG_DECODE(cfg, info) etm4_config_decode(cfg, info)
#define PKT_BUILD_TABLES(dec) etm4_build_tables(dec)
#define PKT_RESET_STATE(dec) etm4_reset_state(dec)
#define PKT_AFTER_PACKET(dec, pkt, start, end) after_packet(dec, pkt)
#define PKT_NEXT_SYNCED(dec, pkts, out, max) \
	etm4_next_synced(dec, pkts, out, max)
#define PKT_SCAN_ZEROS_FN(dec, out, room) scan_zeros(dec, out, room)
#define PKT_MAKE_ASYNC(pkt, off) make_async(pkt, off)
#define PKT_ON_ASYNC(dec) ((void)0)
#define PKT_NEXT_BEGIN(dec) ((dec)->nraddr = 0) /* the last call's runs are gone */

#include "packets/pkt_stream_loop.h"

static void after_packet(struct etm4_pkt_decoder *dec, const struct etm4_packet *pkt)
{
	if (pkt->error)
		lose_sync(dec);
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

const struct etm4_atoms *etm4_pkt_atom_table(const struct etm4_pkt_decoder *dec)
{
	return dec ? dec->atoms : NULL;
}
