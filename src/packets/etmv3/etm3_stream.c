/* ETMv3 packet decoder: the stream (ARM IHI 0014Q chapter 7). Input in
 * chunks, the search for A-sync (7.10.1), packets cut by the end of a chunk,
 * the replay of a rejected packet's bytes, data lost in transport (gaps),
 * and the record loop of etm3_pkt_next(): the parts the protocols share
 * are written once in ../pkt_stream_loop.h, included here with ETMv3's
 * hooks. What each packet means is decided in etm3_pkt.c.
 */
#include <stdlib.h>
#include <string.h>

#include "packets/etmv3/etm3_internal.h"

int etm3_pkt_synced(const struct etm3_pkt_decoder *dec)
{
	return dec && dec->scan != etm3_scan_unsynced;
}

/* ---- Synchronisation (IHI 0014Q 7.10.1) ----------------------------------- */

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

/* ---- The record loop (pkt_stream_loop.h; A-sync: IHI 0014Q 7.10.1) -------- */

static int scan_async(struct etm3_pkt_decoder *dec, struct etm3_packet *out);

#define PKT_DEC struct etm3_pkt_decoder
#define PKT_REC struct etm3_packet
#define PKT_CFG struct etm3_config
#define PKT_CFG_INFO struct etm3_config_info
#define PKT_MAX ETM3_PKT_MAX_BYTES
#define PKT_UNSYNCED_MAX ETM3_UNSYNCED_MAX
#define PKT_ASYNC_ZEROS 5
#define PKT_SCAN_UNSYNCED etm3_scan_unsynced
#define PKT_SCAN_SYNCED etm3_scan_synced
#define PKT_SCAN_ZEROS etm3_scan_async
#define PKT_TYPE_UNSYNCED etm3_pkt_unsynced
#define PKT_TYPE_ASYNC etm3_pkt_a_sync
#define PKT_MSG_TOO_MANY_ZEROS "A-sync: too many zeros"
#define PKT_MSG_END_IN_ZEROS "input ends inside an A-sync"
#define PKT_STOP_ON_ERROR ETM3_CFG_STOP_ON_ERROR
#define PKT_FN(name) etm3_pkt_##name
#define PKT_DECODE_ONE(dec, p, avail, pkt) etm3_decode_one(dec, p, avail, pkt)
#define PKT_RESTART_POINT(p, len, pkt) etm3_restart_point(p, len, 1, pkt)
#define PKT_CONFIG_DECODE(cfg, info) etm3_config_decode(cfg, info)
#define PKT_BUILD_TABLES(dec) etm3_build_tables(dec)
#define PKT_RESET_STATE(dec) etm3_reset_state(dec)
#define PKT_AFTER_PACKET(dec, pkt, start, end) \
	etm3_after_packet(dec, pkt, start, end)
#define PKT_NEXT_SYNCED(dec, pkts, out, max) \
	etm3_next_synced(dec, pkts, out, max)
#define PKT_SCAN_ZEROS_FN(dec, out, room) scan_async(dec, out)
#define PKT_MAKE_ASYNC(pkt, off) make_async(pkt, off, 5)
#define PKT_ON_ASYNC(dec) ((dec)->prev_type = etm3_pkt_a_sync)
#define PKT_NEXT_BEGIN(dec) ((void)0)

#include "packets/pkt_stream_loop.h"

void etm3_lose_sync(struct etm3_pkt_decoder *dec)
{
	lose_sync(dec);
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
				return zeros_too_long(dec, out);
			continue;
		}
		if (b == 0x80 && dec->zeros >= 5) {
			dec->in.pos++;
			make_async(out, dec->zeros_off, dec->zeros);
			dec->scan = etm3_scan_synced;
			dec->zeros = 0;
			dec->prev_type = etm3_pkt_a_sync;
			return 1;
		}
		/* Too few zeros, or zeros not closed by 0x80. */
		make_bad_zeros(out, dec->zeros_off, dec->zeros, -etmkit_err_bad_packet,
			       "A-sync: zeros not followed by 0x80 after five or more");
		lose_sync(dec);
		return 1;
	}
	return 0;
}
