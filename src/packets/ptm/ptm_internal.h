/* PTM (PFTv1.0/1.1) packet decoder: state shared by its source files. */
#ifndef ETMKIT_PTM_INTERNAL_H
#define ETMKIT_PTM_INTERNAL_H

#include "etmkit/ptm.h"
#include "packets/pkt_stream.h"

/* What a header byte starts (IHI 0035B Table 4.1): enum ptm_pkt_type,
 * plus this flag on a packet type whose header is defined but that the
 * configuration rules out (a context ID packet with ContextIDsize 0): an
 * error if it appears. */
#define PTM_HDR_DISABLED 0x80u

enum ptm_scan {
	ptm_scan_unsynced = 0, /* searching for A-sync */
	ptm_scan_synced,       /* at a packet boundary */
	ptm_scan_zeros         /* inside the zeros of an A-sync, synced */
};

/* Zeros before the 0x80 of an A-sync (IHI 0035B 4.5.1: five or more). */
#define PTM_ASYNC_ZEROS 5
/* Unsynced runs are split before their length overflows uint32_t. */
#define PTM_UNSYNCED_MAX (1u << 30)

struct ptm_pkt_decoder {
	struct ptm_config cfg;
	struct ptm_config_info info;
	uint8_t hdr[256];                /* header byte -> type */
	struct ptm_atoms atoms[256];     /* atom headers' atoms */

	/* Input, cut packets, replay (pkt_stream.h). */
	struct pkt_stream in;

	/* Synchronisation (IHI 0035B 4.5.1; pkt_stream_loop.h). */
	uint8_t scan;           /* enum ptm_scan */
	uint64_t zeros;         /* consecutive 0x00 bytes seen */
	uint64_t zero_off[PTM_ASYNC_ZEROS]; /* offsets of the last zeros */
	uint64_t zeros_off;     /* synced A-sync: offset of its first zero */
	uint64_t uns_off;       /* open unsynced run: first byte's offset */
	uint64_t uns_len;       /* its length so far (zeros included) */
	uint8_t uns_raw[PTM_PKT_MAX_BYTES];
	uint64_t uns_max;       /* longest record of zeros or unsynced bytes
				   (2^30; tests lower it) */

	/* Compression state (IHI 0035B 4.5.2, 4.5.4, 4.5.9; digest 5.4). */
	uint32_t addr;          /* branch address reference */
	uint8_t isa;            /* enum etmkit_isa */
	uint8_t altis, ns, hyp;
	uint8_t isync_seen;     /* the address reference is known */
	uint64_t ts_raw;        /* timestamp as traced (maybe Gray) */

	/* A record that did not fit the caller's array. */
	struct ptm_packet pending;
	uint8_t have_pending;
};

static inline uint64_t ptm_off_at(const struct ptm_pkt_decoder *dec, size_t i)
{
	return pkt_stream_off_at(&dec->in, i);
}

/* ptm_config.c */

/* Build the header and atom tables for the decoder's configuration. */
void ptm_build_tables(struct ptm_pkt_decoder *dec);

/* ptm_pkt.c: the packets (IHI 0035B chapter 4). */

/* Decode the packet at p[0..avail) (p[0] is not 0x00). Returns its length
 * (> 0), 0 when more bytes are needed, or -(length) for a rejected packet
 * (pkt->why set). Fills pkt's type, size, length, error, raw and payload;
 * not offset. Decoder state changes only for a packet decoded whole. */
int ptm_decode_one(struct ptm_pkt_decoder *dec, const uint8_t *p,
		   size_t avail, struct ptm_packet *pkt);
/* Forget every compression reference (digest 5). */
void ptm_reset_state(struct ptm_pkt_decoder *dec);
/* The synced path of ptm_pkt_next(): whole packets into pkts[out..max).
 * Returns the new count of records. */
size_t ptm_next_synced(struct ptm_pkt_decoder *dec, struct ptm_packet *pkts,
		       size_t out, size_t max);

_Static_assert(PTM_PKT_MAX_BYTES <= PKT_STREAM_MAX_BYTES,
	       "a cut packet fits pkt_stream");

#endif
