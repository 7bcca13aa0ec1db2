/* ETMv3 packet decoder: state shared by its source files. */
#ifndef ETMKIT_ETM3_INTERNAL_H
#define ETMKIT_ETM3_INTERNAL_H

#include "etmkit/etm3.h"
#include "packets/pkt_stream.h"

/* What a header byte starts, for the configured version and mode
 * (IHI 0014Q Table 7.1). Values are enum etm3_pkt_type, plus: */
/* Set on a packet type whose header is defined but that the configuration
 * rules out (data trace off, no context ID): an error if it appears. */
#define ETM3_HDR_DISABLED 0x80u

/* P-header fast-path template: the bytes of struct etm3_packet from
 * `type` to the end of u.atoms. */
struct etm3_ph_tmpl {
	uint8_t type;
	uint8_t size;
	int16_t error;
	uint32_t length;
	struct etm3_atoms atoms;
};

/* A short branch address's bits and mask, by its address bytes less one
 * (etm3_pkt.c). */
struct etm3_short_len {
	uint8_t bits[4];
	uint32_t mask[4];
};

/* Out-of-order placeholder waiting for its data (IHI 0014Q 7.4.3). */
struct etm3_ooo_slot {
	uint8_t remaining; /* data packets still expected: 0, 1 or 2 */
	uint8_t halves;    /* 2 for a 64-bit value */
	uint8_t has_addr;
	uint32_t addr;
	uint64_t offset;   /* the placeholder's first byte */
};

enum etm3_scan {
	etm3_scan_unsynced = 0, /* searching for A-sync */
	etm3_scan_synced,       /* at a packet boundary */
	etm3_scan_async         /* inside the zeros of an A-sync, synced */
};

struct etm3_pkt_decoder {
	struct etm3_config cfg;
	struct etm3_config_info info;
	uint8_t hdr[256];                 /* header byte -> type */
	struct etm3_ph_tmpl ph[256];      /* P-header expansions */
	struct etm3_atoms atoms[256];     /* the same, for etm3_pkt_atom_table() */
	/* The vector rule of p_header_run_end(): */
	uint8_t simd_excluded;            /* 0x80 if reserved, else 0x01 */
	uint8_t simd_last2;               /* the last b1xxxxx10 P-header:
					     0x96 if format 4 exists, else
					     0x8e */
	uint8_t simd_ok;                  /* the rule equals the table */
	uint8_t simd_excl16[16];          /* simd_excluded, 16 times */
	uint8_t simd_last2_16[16];        /* simd_last2, 16 times */

	/* Input, cut packets, replay (pkt_stream.h). */
	struct pkt_stream in;

	/* Synchronisation (IHI 0014Q 7.10.1). */
	uint8_t scan;           /* enum etm3_scan */
	uint64_t zeros;         /* consecutive 0x00 bytes seen */
	uint64_t zero_off[5];   /* offsets of the last five of them (ring) */
	uint64_t zeros_off;     /* synced A-sync: offset of its first zero */
	uint64_t uns_off;       /* open unsynced run: first byte's offset */
	uint64_t uns_len;       /* its length so far (zeros included) */
	uint8_t uns_raw[ETM3_PKT_MAX_BYTES];
	uint64_t uns_max;       /* longest record of zeros or unsynced bytes
				   (2^30; tests lower it) */

	/* Compression state (IHI 0014Q 7.3.5, 7.4.2, 7.7.4). */
	uint32_t addr;          /* instruction address reference */
	uint8_t isa;            /* enum etmkit_isa */
	uint8_t altisa, ns, hyp;
	uint8_t isync_seen;     /* the address reference is known */
	uint32_t context_id;
	uint8_t vmid;
	uint32_t data_addr;
	uint8_t be;
	uint64_t ts_raw;        /* timestamp as traced (maybe Gray) */
	/* A short branch address packet's record as far as the state above
	 * gives it; where its instruction set puts address bits; by its
	 * address bytes less one, the address bits it carries and their
	 * mask; the continuation bits of four address bytes, or 0 where no
	 * packet is short (decode_branch_short(), set_short_branch() in
	 * etm3_pkt.c). */
	struct etm3_branch short_br;
	uint32_t short_ends;
	uint8_t short_shift;
	const struct etm3_short_len *short_by_len;

	/* Out-of-order data (IHI 0014Q 7.4.3). */
	struct etm3_ooo_slot ooo[4];
	uint8_t prev_type;      /* type of the previous packet */
	uint8_t prev_tag;       /* its tag, for placeholders */
	uint64_t prev_end;      /* stream position after it */

	/* A record that did not fit the caller's array. */
	struct etm3_packet pending;
	uint8_t have_pending;
};

/* Unsynced runs are split before their length overflows uint32_t. */
#define ETM3_UNSYNCED_MAX (1u << 30)

static inline uint64_t off_at(const struct etm3_pkt_decoder *dec, size_t i)
{
	return pkt_stream_off_at(&dec->in, i);
}

/* Stream position (bytes consumed since reset) of input index i. */
static inline uint64_t stream_at(const struct etm3_pkt_decoder *dec, size_t i)
{
	return pkt_stream_at(&dec->in, i);
}

/* etm3_pkt.c: the packets (IHI 0014Q chapter 7). */

/* Decode the packet at p[0..avail) (p[0] is not 0x00). Returns its length
 * (> 0), 0 when more bytes are needed, or -(length) for a rejected packet
 * (pkt->why set). Fills pkt's type, size, raw and payload; not offset. */
int etm3_decode_one(struct etm3_pkt_decoder *dec, const uint8_t *p,
		    size_t avail, struct etm3_packet *pkt);
/* Forget every compression reference (digest 5.4). */
void etm3_reset_state(struct etm3_pkt_decoder *dec);
/* The bookkeeping after a packet (out-of-order data, 7.4.3; an error
 * loses sync); @start and @end are its stream positions. */
void etm3_after_packet(struct etm3_pkt_decoder *dec, struct etm3_packet *pkt,
		       uint64_t start, uint64_t end);
/* The synced fast path of etm3_pkt_next(): P-headers and whole packets
 * into pkts[out..max). Returns the new count of records. */
size_t etm3_next_synced(struct etm3_pkt_decoder *dec,
			struct etm3_packet *pkts, size_t out, size_t max);

/* etm3_stream.c: the stream. */

/* Every decode error ends here: resynchronise, or stop if asked to. */
void etm3_lose_sync(struct etm3_pkt_decoder *dec);

/* Build the header and P-header tables for the decoder's configuration. */
void etm3_build_tables(struct etm3_pkt_decoder *dec);

_Static_assert(ETM3_PKT_MAX_BYTES <= PKT_STREAM_MAX_BYTES,
	       "a cut packet fits pkt_stream");

#endif
