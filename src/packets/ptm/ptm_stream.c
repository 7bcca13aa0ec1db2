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

/* ---- Synchronisation (IHI 0035B 4.5.1) ------------------------------------ */

/* An A-sync record: @zeros zeros (five or more) and the 0x80. */
static void make_async(struct ptm_packet *pkt, uint64_t off, uint64_t zeros)
{
	uint64_t len = zeros + 1;

	memset(pkt, 0, offsetof(struct ptm_packet, raw));
	pkt->type = ptm_pkt_a_sync;
	pkt->offset = off;
	pkt->length = (uint32_t)(len > PTM_UNSYNCED_MAX ? PTM_UNSYNCED_MAX : len);
	pkt->size = (uint8_t)(len < PTM_PKT_MAX_BYTES ? len : PTM_PKT_MAX_BYTES);
	memset(pkt->raw, 0, sizeof(pkt->raw));
	if (len <= PTM_PKT_MAX_BYTES)
		pkt->raw[len - 1] = 0x80;
	pkt->why = NULL;
}

/* ---- The record loop (pkt_stream_loop.h) ----------------------------------- */

static int scan_zeros(struct ptm_pkt_decoder *dec, struct ptm_packet *out);
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
#define PKT_RESTART_POINT(p, len, pkt) ptm_restart_point(p, len, pkt)
#define PKT_CONFIG_DECODE(cfg, info) ptm_config_decode(cfg, info)
#define PKT_BUILD_TABLES(dec) ptm_build_tables(dec)
#define PKT_RESET_STATE(dec) ptm_reset_state(dec)
#define PKT_AFTER_PACKET(dec, pkt, start, end) after_packet(dec, pkt)
#define PKT_NEXT_SYNCED(dec, pkts, out, max) ptm_next_synced(dec, pkts, out, max)
#define PKT_SCAN_ZEROS_FN(dec, out, room) scan_zeros(dec, out)
#define PKT_MAKE_ASYNC(pkt, off) make_async(pkt, off, PTM_ASYNC_ZEROS)
#define PKT_ON_ASYNC(dec) ((void)0)
#define PKT_NEXT_BEGIN(dec) ((void)0)

#include "packets/pkt_stream_loop.h"

static void after_packet(struct ptm_pkt_decoder *dec, const struct ptm_packet *pkt)
{
	if (pkt->error)
		lose_sync(dec);
}

/* Inside zeros met while synced: five or more and 0x80 are an A-sync
 * (IHI 0035B 4.5.1), all of them in its record; anything else is
 * malformed. Returns records written (0 or 1). */
static int scan_zeros(struct ptm_pkt_decoder *dec, struct ptm_packet *out)
{
	while (dec->in.pos < dec->in.n) {
		uint8_t b = dec->in.buf[dec->in.pos];

		if (b == 0x00) {
			note_zero(dec, ptm_off_at(dec, dec->in.pos));
			dec->in.pos++;
			if (dec->zeros >= dec->uns_max)
				return zeros_too_long(dec, out);
			continue;
		}
		if (b == 0x80 && dec->zeros >= PTM_ASYNC_ZEROS) {
			dec->in.pos++;
			make_async(out, dec->zeros_off, dec->zeros);
			dec->scan = ptm_scan_synced;
			dec->zeros = 0;
			return 1;
		}
		/* Too few zeros, or zeros not closed by 0x80: the byte is
		 * left for the search. */
		make_bad_zeros(out, dec->zeros_off, dec->zeros, -etmkit_err_bad_packet,
			       "A-sync: zeros not followed by 0x80 after five or more");
		lose_sync(dec);
		return 1;
	}
	return 0;
}
