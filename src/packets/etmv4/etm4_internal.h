/* ETMv4 / ETE packet decoder: state shared by its source files. */
#ifndef ETMKIT_ETM4_INTERNAL_H
#define ETMKIT_ETM4_INTERNAL_H

#include "etmkit/etm4.h"
#include "packets/pkt_stream.h"

/* Zeros in an A-sync (digest etmv4-ete.md 5.1): 11 x 0x00, then 0x80. */
#define ETM4_ASYNC_ZEROS 11

/* What a header byte starts, for the configured version and features
 * (digest 4, the header map). One parser per kind; K_TMPL packets are one
 * byte whose record is a fixed template. */
enum etm4_kind {
	ETM4_K_RESERVED = 0, /* reserved (or disabled here): error record */
	ETM4_K_TMPL,         /* one byte, record from dec->tmpl[] */
	ETM4_K_EXT,          /* 0x00: A-sync, discard, overflow */
	ETM4_K_TINFO,
	ETM4_K_TS,
	ETM4_K_EXC,
	ETM4_K_CC1,
	ETM4_K_CC2,
	ETM4_K_CC3,
	ETM4_K_COMMIT,
	ETM4_K_CANCEL1,
	ETM4_K_SPEC,         /* mispredict, cancel formats 2 and 3 */
	ETM4_K_CTXT,
	ETM4_K_ADDR_CTXT,
	ETM4_K_EXACT,        /* exact-match address, source or target */
	ETM4_K_SHORT,
	ETM4_K_LONG32,
	ETM4_K_LONG64,
	ETM4_K_Q,
	ETM4_K_ITE,
	ETM4_K_COND1,        /* one-byte conditional and data-sync packets */
	ETM4_K_COND_I1,      /* conditional instruction format 1 */
	ETM4_K_COND_I3,
	ETM4_K_COND_R1,
	ETM4_K_COND_R3
};

/* One-byte packet template: the bytes of struct etm4_packet from `type`
 * to the first 8 bytes of u (enough for u.atoms and u.event). */
struct etm4_tmpl {
	uint8_t type;
	uint8_t size;
	int16_t error;
	uint32_t length;
	union {
		struct etm4_atoms atoms;
		uint8_t event;
		uint8_t bytes[8];
	} u;
};

enum etm4_scan {
	etm4_scan_unsynced = 0, /* searching for A-sync */
	etm4_scan_synced,       /* at a packet boundary */
	etm4_scan_zeros         /* after a 0x00 header, synced */
};

/* Most address packets the runs of one etm4_pkt_next() call hold; more
 * come as records of their own. */
#define ETM4_RUN_ADDRS 1024

struct etm4_pkt_decoder {
	struct etm4_config cfg;
	struct etm4_config_info info;
	uint8_t kind[256];             /* header byte -> enum etm4_kind */
	const char *why[256];          /* K_RESERVED: why the header is refused */
	struct etm4_tmpl tmpl[256];    /* K_TMPL records */
	struct etm4_atoms atoms[256];  /* atom headers' atoms, else count 0 */

	/* Input, cut packets, replay (pkt_stream.h). */
	struct pkt_stream in;

	/* Synchronisation (digest 3). */
	uint8_t scan;           /* enum etm4_scan */
	uint64_t zeros;         /* consecutive 0x00 bytes seen */
	uint64_t zero_off[ETM4_ASYNC_ZEROS]; /* offsets of the last 11 (ring) */
	uint64_t zeros_off;     /* synced zeros: offset of the first one */
	uint64_t uns_off;       /* open unsynced run: first byte's offset */
	uint64_t uns_len;       /* its length so far (zeros included) */
	uint8_t uns_raw[ETM4_PKT_MAX_BYTES];
	uint64_t uns_max;       /* longest record of zeros or unsynced bytes
				   (2^30; tests lower it) */

	/* Decoding state (digest 2.2-2.4, 5.2). */
	/* Address history, entry 0 the newest (digest 2.4). Kept as scalars:
	 * a push moves each with one load and one store of its own size
	 * (struct copies stall on store forwarding). */
	uint64_t hist_addr[3];
	uint8_t hist_is[3];
	uint64_t ts;            /* running timestamp */
	uint32_t cyct;          /* cycle count threshold of the last Trace Info */
	uint8_t sf;             /* the last context said AArch64 ... */
	uint8_t sf_known;       /* ... and there was one since sync */

	/* Addresses of this etm4_pkt_next() call's runs (ETM4_CFG_ADDR_RUNS):
	 * raddr[0..nraddr). */
	struct etm4_run_addr raddr[ETM4_RUN_ADDRS];
	uint32_t nraddr;

	/* A record that did not fit the caller's array. */
	struct etm4_packet pending;
	uint8_t have_pending;
};

/* Unsynced runs (and runs of zeros) are split before their length
 * overflows uint32_t. */
#define ETM4_UNSYNCED_MAX (1u << 30)

static inline uint64_t off_at(const struct etm4_pkt_decoder *dec, size_t i)
{
	return pkt_stream_off_at(&dec->in, i);
}

/* etm4_pkt.c: the packets (digest 4, 5). */

/* Decode the packet at p[0..avail) (p[0] is not 0x00); returns its length,
 * 0 when more bytes are needed, or -(length) for a rejected packet. */
int etm4_decode_one(struct etm4_pkt_decoder *dec, const uint8_t *p,
		    size_t avail, struct etm4_packet *pkt);
/* Forget every reference (after reset and after losing sync). */
void etm4_reset_state(struct etm4_pkt_decoder *dec);
/* The synced fast path of etm4_pkt_next(): whole packets into
 * pkts[out..max). Returns the new count of records. */
size_t etm4_next_synced(struct etm4_pkt_decoder *dec,
			struct etm4_packet *pkts, size_t out, size_t max);

/* Build the header tables for the decoder's configuration. */
void etm4_build_tables(struct etm4_pkt_decoder *dec);

_Static_assert(ETM4_PKT_MAX_BYTES <= PKT_STREAM_MAX_BYTES,
	       "a cut packet fits pkt_stream");

#endif
