/* ETMv2 packet decoder internals (docs/etmv2.md is the protocol).
 *
 * Two cursors (digest 11): the status cursor walks the cycles, queues one
 * record per cycle in status order (wait cycles as runs) and, for each
 * cycle that places packets, a marker plus an owed "slot" in FIFO order;
 * the byte cursor takes FIFO bytes from the cycles that carry them
 * (etm2_fifo.c) and parses the oldest owed slot (etm2_header.c). Records
 * leave in status order (etm2_queue.c): a marker is passed once its
 * slot's packets are parsed. Synchronisation and errors: etm2_sync.c.
 *
 * Memory is fixed at alloc: the record ring (ETM2_RING records) bounds
 * how long a slot may be owed: ETM2_OWED_MAX records behind it is an
 * error ("owed too long"), sync is dropped and found again at the next
 * TFO. */
#ifndef ETMKIT_ETM2_INTERNAL_H
#define ETMKIT_ETM2_INTERNAL_H

#include <string.h>

#include "etmkit/etm2.h"

/* Records queued in status order (power of 2). A group waits in the FIFO
 * at most depth * 8 / port width cycles, a record each at most (wait
 * cycles collapse): 16384 leaves ETM2_OWED_MAX = 15872, room for the
 * 8192 cycles of the largest FIFO the encoder models (4096 bytes, etm2.h)
 * on a 4-bit port, far beyond any real ETMv2's (tests/unit
 * test_etm2_enc_rt.c test_deep_fifo). About 1.7 MiB with the slots. */
#define ETM2_RING 16384u
#define ETM2_PQ 512u    /* parsed packets waiting for their marker */
#define ETM2_BATCH 64u  /* cycles decoded between two deliveries: each
			   pushes at most 4 records and 3 packets */
/* Records that may wait behind the oldest owed slot: beyond, the slot is
 * owed too long. Counted from the slot's marker, so the bound does not
 * depend on when the caller drains; it leaves room for one batch of
 * records not yet delivered. */
#define ETM2_OWED_MAX (ETM2_RING - 8 * ETM2_BATCH)

enum etm2_sync_state { e2_unsynced, e2_syncing, e2_synced };

/* Ring entry kinds: a finished record, or a marker whose record(s) come
 * from the packet queue: a group's packets, or a TFO packet. */
enum { e2_ent_rec = 0, e2_ent_group, e2_ent_tfo };

/* A packet group or TFO packet owed by the FIFO, oldest first. */
struct etm2_slot {
	uint64_t cycle;  /* the cycle that placed it */
	uint64_t seq;    /* its marker's ring sequence number */
	uint64_t pos;    /* TFO: FIFO byte count where its packet starts */
	uint8_t tfo;
	uint8_t dn;      /* placed by a DN: a branch address is an error */
	uint8_t n_tfo;   /* TFO: the value N */
	uint8_t v1;      /* ETMv1: the status that placed it (ID, BE, BD);
			    0 for ETMv2 */
};

/* Parse phases of the byte cursor (etm2_header.c). */
enum {
	e2_ph_hdr = 0, e2_ph_daddr, e2_ph_fixed, e2_ph_branch,
	e2_ph_tfo_hdr, e2_ph_tfo_cid, e2_ph_tfo_addr, e2_ph_tfo_branch,
	/* ETMv1 (etm1_parse.c) */
	e1_ph_data, e1_ph_daddr, e1_ph_value, e1_ph_branch, e1_ph_cid
};

struct etm2_pkt_decoder {
	struct etm2_config cfg;
	struct etm2_config_info info;
	uint8_t ps_map[16];        /* raw PIPESTAT -> enum etm2_status */
	uint8_t ps_mask;           /* 0xf (ETMv2) or 0x7 (ETMv1) */

	/* input */
	const struct etm2_cycle *in;
	size_t n_in, pos_in;
	uint64_t first;            /* index of in[0] */
	uint64_t next_index;       /* the index the next feed should start at */
	uint8_t fed, finished, stopped, any_input;

	/* status cursor */
	uint8_t state;             /* enum etm2_sync_state */
	uint64_t sync_seq;         /* ring seq where the syncing TFO's records start */
	uint64_t sync_cycle;
	uint64_t sync_tfo_seq;     /* ring seq of its TFO marker */
	uint64_t last_cycle;       /* last cycle processed */
	uint8_t run_open;          /* unsynced run */
	uint64_t run_start;
	uint8_t wait_open;
	uint64_t wait_start;
	uint32_t wait_wt, wait_td;
	uint8_t tfo_val_left;      /* TFO value cycles still to come */
	uint8_t tfo_val_shift;
	uint8_t tfo_val;

	/* byte cursor */
	uint64_t bytes;            /* FIFO bytes taken since sync */
	uint32_t skip;             /* bytes before the first TFO packet */
	uint8_t nib_pending, nib;  /* 4-bit: the low nibble taken */
	uint64_t nib_cycle;
	uint8_t started;           /* the head slot has taken a byte */
	uint8_t phase, need;       /* parse phase; bytes left of a field */
	uint8_t field_i;           /* byte index within a field */
	uint8_t ssize;
	struct etm2_packet cur;    /* the packet being parsed */

	/* ETMv1 (etm1_sync.c, etm1_parse.c; docs/etmv2.md 7b) */
	uint8_t v1_apo_left;       /* APO cycles still to come */
	uint8_t v1_apo;            /* the APO being read */
	uint8_t v1_br_st, v1_br_trig; /* the candidate branch (unsynced) */
	uint64_t v1_br_cycle;
	struct etm2_cycle v1_buf[2]; /* its APO cycles, replayed at sync */
	uint8_t v1_seek;           /* TRACESYNC cycles still to skip + 1 */
	uint8_t v1_new;            /* the next byte starts a packet */
	uint8_t cyc_sync, nib_sync; /* TRACESYNC of this cycle's byte, of
				       the low nibble's cycle */

	/* compression references (docs/etmv2.md 4) */
	uint32_t br_addr;
	uint8_t br_isa;
	uint32_t data_addr;
	uint8_t data_known;

	/* owed slots, oldest first */
	struct etm2_slot *slots;
	uint64_t slot_head, slot_tail;

	/* records in status order */
	struct etm2_packet *ring;
	uint8_t *kind;
	uint64_t ring_head, ring_tail;

	/* parsed packets; end: the last of its slot */
	struct etm2_packet pq[ETM2_PQ];
	uint8_t pq_end[ETM2_PQ];
	uint32_t pq_head, pq_tail;
};

/* etm2_queue.c */

/* A new ring entry, zeroed (the ring has room: ETM2_OWED_MAX). */
static inline struct etm2_packet *etm2_q_push(struct etm2_pkt_decoder *d,
					      uint8_t kind)
{
	uint64_t i = d->ring_tail++ & (ETM2_RING - 1);
	struct etm2_packet *p = &d->ring[i];

	memset(p, 0, sizeof(*p));
	d->kind[i] = kind;
	return p;
}
void etm2_q_record(struct etm2_pkt_decoder *d, uint8_t type, uint8_t status,
		   uint64_t cycle);
void etm2_q_wait(struct etm2_pkt_decoder *d, uint64_t cycle, int td);
void etm2_q_close_wait(struct etm2_pkt_decoder *d);
void etm2_q_close_run(struct etm2_pkt_decoder *d, uint64_t end);
int etm2_q_packet(struct etm2_pkt_decoder *d, const struct etm2_packet *p,
		  int end);
size_t etm2_q_deliver(struct etm2_pkt_decoder *d, struct etm2_packet *out,
		      size_t max);
static inline uint64_t etm2_q_count(const struct etm2_pkt_decoder *d)
{
	return d->ring_tail - d->ring_head;
}

/* etm2_fifo.c */

/* Does the FIFO hold bytes that may leave in cycle @t? Bytes before the
 * first TFO packet are still to be skipped, a byte is half out (4-bit),
 * the oldest owed slot has started, or it was placed at least
 * fifo_latency cycles ago (docs/etmv2.md 3). */
static inline int etm2_fifo_has(const struct etm2_pkt_decoder *d, uint64_t t)
{
	if (d->skip || d->nib_pending)
		return 1;
	if (d->slot_head == d->slot_tail)
		return 0;
	if (d->started)
		return 1;
	return d->slots[d->slot_head & (ETM2_RING - 1)].cycle +
		       d->cfg.fifo_latency <= t;
}
void etm2_fifo_cycle(struct etm2_pkt_decoder *d, uint64_t t, uint16_t pkt);
void etm2_fifo_reset(struct etm2_pkt_decoder *d);

/* A slot has been owed for too long (docs/etmv2.md 6). */
static inline int etm2_owed_too_long(const struct etm2_pkt_decoder *d)
{
	return d->slot_head != d->slot_tail &&
	       d->ring_tail - d->slots[d->slot_head & (ETM2_RING - 1)].seq >
		       ETM2_OWED_MAX;
}

/* etm2_header.c */
void etm2_parse_byte(struct etm2_pkt_decoder *d, uint8_t b, uint64_t out);
int etm2_data_addr_byte(struct etm2_pkt_decoder *d, uint8_t b);
void etm2_parse_start(struct etm2_pkt_decoder *d, const struct etm2_slot *s,
		      uint64_t out);

/* etm2_sync.c */
/* Start syncing at cycle @t: the unsynced run ends, the FIFO and the data
 * address reference are reset (a TFO; ETMv1: a branch). */
void etm2_sync_begin(struct etm2_pkt_decoder *d, uint64_t t);
void etm2_sync_tfo_start(struct etm2_pkt_decoder *d, uint64_t t,
			 uint16_t pkt, int trig);
void etm2_sync_tfo_value(struct etm2_pkt_decoder *d, uint64_t t,
			 uint16_t pkt);
void etm2_sync_confirm(struct etm2_pkt_decoder *d);
void etm2_sync_error(struct etm2_pkt_decoder *d, const struct etm2_packet *err,
		     uint64_t next_cycle);
void etm2_sync_fail(struct etm2_pkt_decoder *d, const char *why,
		    int err, uint64_t cycle, uint64_t next_cycle);
void etm2_sync_end(struct etm2_pkt_decoder *d);

/* etm1_sync.c (ETMv1 status cursor), etm1_parse.c (its bytes) */
void etm1_cycle(struct etm2_pkt_decoder *d, uint64_t t,
		const struct etm2_cycle *c);
void etm1_parse_start(struct etm2_pkt_decoder *d, const struct etm2_slot *s,
		      uint64_t out);
void etm1_parse_byte(struct etm2_pkt_decoder *d, uint8_t b, uint64_t out,
		     int sync);

#endif /* ETMKIT_ETM2_INTERNAL_H */
