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

/* ---- The record loop (pkt_stream_loop.h; A-sync: IHI 0014Q 7.10.1) -------- */

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
#define PKT_CONFIG_DECODE(cfg, info) etm3_config_decode(cfg, info)
#define PKT_BUILD_TABLES(dec) etm3_build_tables(dec)
#define PKT_RESET_STATE(dec) etm3_reset_state(dec)
#define PKT_AFTER_PACKET(dec, pkt, start, end) \
	etm3_after_packet(dec, pkt, start, end)
#define PKT_NEXT_SYNCED(dec, pkts, out, max) \
	etm3_next_synced(dec, pkts, out, max)
#define PKT_ASYNC_OR_MORE 1
#define PKT_SCAN_ZEROS_FN(dec, out, room) scan_async_zeros(dec, out)
#define PKT_MAKE_ASYNC(pkt, off) async_record(pkt, off, 5)
#define PKT_ON_ASYNC(dec) ((dec)->prev_type = etm3_pkt_a_sync)
#define PKT_NEXT_BEGIN(dec) ((void)0)

#include "packets/pkt_stream_loop.h"

void etm3_lose_sync(struct etm3_pkt_decoder *dec)
{
	lose_sync(dec);
}
