/* PTM (PFTv1.0/1.1) packet decoder: the stream (ARM IHI 0035B 4.5.1,
 * 4.11). Input in chunks, the search for A-sync, packets cut by the end of
 * a chunk, the replay of a rejected packet's bytes, data lost in transport
 * (gaps), and the record loop of ptm_pkt_next(): written once for every
 * protocol in ../pkt_stream_loop.h, included here with PTM's hooks. What
 * each packet means is decided in ptm_pkt.c.
 */
#include <stdlib.h>
#include <string.h>

#include "packets/ptm/ptm_internal.h"

int ptm_pkt_synced(const struct ptm_pkt_decoder *dec)
{
	return dec && dec->scan != ptm_scan_unsynced;
}

/* ---- The record loop (pkt_stream_loop.h) ----------------------------------- */

static void after_packet(struct ptm_pkt_decoder *dec, const struct ptm_packet *pkt);

#define PKT_DEC struct ptm_pkt_decoder
#define PKT_REC struct ptm_packet
#define PKT_CFG struct ptm_config
#define PKT_CFG_INFO struct ptm_config_info
#define PKT_MAX PTM_PKT_MAX_BYTES
#define PKT_UNSYNCED_MAX PTM_UNSYNCED_MAX
#define PKT_ASYNC_ZEROS PTM_ASYNC_ZEROS
#define PKT_SCAN_UNSYNCED ptm_scan_unsynced
#define PKT_SCAN_SYNCED ptm_scan_synced
#define PKT_SCAN_ZEROS ptm_scan_zeros
#define PKT_TYPE_UNSYNCED ptm_pkt_unsynced
#define PKT_TYPE_ASYNC ptm_pkt_a_sync
#define PKT_MSG_TOO_MANY_ZEROS "A-sync: too many zeros"
#define PKT_MSG_END_IN_ZEROS "input ends inside an A-sync"
#define PKT_STOP_ON_ERROR PTM_CFG_STOP_ON_ERROR
#define PKT_FN(name) ptm_pkt_##name
#define PKT_DECODE_ONE(dec, p, avail, pkt) ptm_decode_one(dec, p, avail, pkt)
#define PKT_CONFIG_DECODE(cfg, info) ptm_config_decode(cfg, info)
#define PKT_BUILD_TABLES(dec) ptm_build_tables(dec)
#define PKT_RESET_STATE(dec) ptm_reset_state(dec)
#define PKT_AFTER_PACKET(dec, pkt, start, end) after_packet(dec, pkt)
#define PKT_NEXT_SYNCED(dec, pkts, out, max) ptm_next_synced(dec, pkts, out, max)
#define PKT_ASYNC_OR_MORE 1
#define PKT_SCAN_ZEROS_FN(dec, out, room) scan_async_zeros(dec, out)
#define PKT_MAKE_ASYNC(pkt, off) async_record(pkt, off, PTM_ASYNC_ZEROS)
#define PKT_ON_ASYNC(dec) ((void)0)
#define PKT_NEXT_BEGIN(dec) ((void)0)

#include "packets/pkt_stream_loop.h"

static void after_packet(struct ptm_pkt_decoder *dec, const struct ptm_packet *pkt)
{
	if (pkt->error)
		lose_sync(dec);
}
