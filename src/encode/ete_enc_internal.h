/* The ETMv4/ETE trace encoder's state and output buffer (internal),
 * shared by its files: ete_enc.c (record items, API), ete_enc_atoms.c
 * (atoms, commit, cycle counts: what a decoder has not yet been told of
 * the instructions) and ete_enc_packets.c (addresses, context, Q elements,
 * synchronization). Facts from the protocol digest
 * (../shared/spec/etmv4-ete.md, cited as "digest n.m") and seed 002 (Arm
 * ARM D4.3). */
#ifndef ETMKIT_ENCODE_ETE_ENC_INTERNAL_H
#define ETMKIT_ENCODE_ETE_ENC_INTERNAL_H

#include <stdlib.h>
#include <string.h>

#include "etmkit/etm4.h"
#include "etmkit/exec.h"
#include "etmkit/insn.h"

#define OUT_CAP (64u * 1024u)
#define ATOM_CAP 128u
#define MAX_PKT 40u /* longest packet written at once: address + context
		       64-bit with VMID and CID is 18 bytes */

/* TRCCONFIGR bits (digest 6.2). */
#define CFGR_INSTP0 (3u << 1)
#define CFGR_BB     (1u << 3)
#define CFGR_CCI    (1u << 4)
#define CFGR_CID    (1u << 6)
#define CFGR_VMID   (1u << 7)
#define CFGR_COND   (7u << 8)
#define CFGR_TS     (1u << 11)
#define CFGR_RS     (1u << 12)
#define CFGR_DA     (1u << 16)
#define CFGR_DV     (1u << 17)
#define CFGR_QE(r)  (((r) >> 13) & 3u)
#define IDR0_QSUPP(r) (((r) >> 15) & 3u)

struct enc_ctx {
	uint8_t el, ns, sf;
	uint32_t vmid;
	uint32_t cid;
};

struct ete_enc {
	struct ete_enc_config cfg;
	struct etm4_config_info info;
	exec_sink_fn sink;
	void *sink_ctx;
	int err;               /* sticky: the sink's error */
	uint8_t finished;

	uint8_t *out;          /* OUT_CAP bytes */
	size_t pos;
	uint64_t sync_mark;    /* stats.bytes at the last resync */
	uint32_t sync_period;

	/* The decoder's packet-layer state (digest 2.3, 2.4, 5.3). */
	uint64_t hist[3];
	uint8_t hist_is[3];
	uint8_t hist_ok[3];    /* entry set by an address since Trace Info */
	uint8_t sf_known, sf;  /* last context packet's SF */
	uint64_t ts_ref;

	/* The walk: where the decoder expects the next instruction. */
	uint8_t started;       /* A-sync + Trace Info sent */
	uint8_t tracing;       /* Trace On sent since the last gap */
	uint8_t pc_known;      /* 0: after an indirect branch, an exception */
	uint8_t range_start;   /* the item before ended an atom's range */
	uint64_t open_insns;   /* instructions since then: no atom covers
				  them yet */
	uint64_t pc;
	uint8_t isa;           /* enum etmkit_isa at pc */

	struct enc_ctx want;   /* the record's context */
	struct enc_ctx sent;   /* the context the decoder was told */
	uint8_t sent_ok;
	uint8_t cid_on, vmid_on, ts_on;

	uint8_t ts_pending;
	uint64_t ts_value;

	/* Speculation (digest 7.2): uncommitted P0 elements traced. */
	uint32_t maxspec;
	uint32_t cap;          /* most uncommitted at once */
	uint64_t uncommitted;
	uint8_t atoms[ATOM_CAP]; /* pending atoms, oldest first, 1 = E */
	unsigned natoms;
	uint64_t atom_seq;     /* atoms of P0 instructions so far */

	/* Cycle counts (TRCCONFIGR.CCI, commit mode 1): the cycles of the
	 * record up to each P0 element not yet committed, oldest first. */
	uint8_t cc_on;
	uint64_t *cyc_at;      /* ring of cyc_cap */
	size_t cyc_cap, cyc_head, cyc_n;
	uint64_t cyc_total;    /* cycles of every instruction put */
	uint64_t cyc_counted;  /* cyc_total at the last Cycle Count */
	uint64_t synth_seq;    /* synthesized corrections so far */

	/* The open Q element (D4.3.5.4): q_count instructions since the
	 * P0 element before it, to its last P0 instruction, after which
	 * execution goes on at q_target in q_isa; q_cyc: cyc_total
	 * there. */
	uint8_t q_open;
	uint8_t q_isa;
	uint8_t range_moved;   /* an address was sent inside the current
				  range (untraceable): no Q counts it */
	uint32_t q_count;
	uint64_t q_target;
	uint64_t q_cyc;
	uint64_t q_seq;        /* P0 instructions that could open a Q */

	struct ete_enc_stats st;
};

/* ---- Output ----------------------------------------------------------------- */

static inline int flush_out(struct ete_enc *e)
{
	int err;

	if (e->err)
		return e->err;
	if (e->pos == 0)
		return 0;
	err = e->sink(e->sink_ctx, e->out, e->pos);
	e->pos = 0;
	if (err) {
		e->err = err < 0 ? err : -etmkit_err_io;
		return e->err;
	}
	return 0;
}

/* Room for @n bytes at e->out + e->pos; NULL after a sink error. */
static inline uint8_t *room(struct ete_enc *e, size_t n)
{
	if (OUT_CAP - e->pos < n && flush_out(e))
		return NULL;
	if (e->err)
		return NULL;
	return e->out + e->pos;
}

static inline void put_bytes(struct ete_enc *e, const uint8_t *b, size_t n)
{
	uint8_t *p = room(e, n);

	if (!p)
		return;
	memcpy(p, b, n);
	e->pos += n;
	e->st.bytes += n;
}

/* A continuation field (digest 2.1) at @p; returns its length. */
static inline size_t put_c7(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	do {
		p[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			p[n] |= 0x80;
		n++;
	} while (v);
	return n;
}


/* ---- Shared between the files (defined where named) ---- */

void ete_cyc_push_at(struct ete_enc *e, uint64_t at);
void ete_cyc_push(struct ete_enc *e);
void ete_cyc_committed(struct ete_enc *e, uint64_t n);
void ete_commit(struct ete_enc *e, uint64_t n);
int ete_make_room(struct ete_enc *e, uint64_t k, uint64_t keep);
void ete_settle(struct ete_enc *e);
void ete_flush_atoms(struct ete_enc *e);
void ete_trace_atom(struct ete_enc *e, uint8_t a);
uint8_t ete_is_of(uint8_t isa);
void ete_emit_address(struct ete_enc *e, uint64_t a, uint8_t is);
int ete_context_differs(const struct ete_enc *e);
void ete_emit_context(struct ete_enc *e);
void ete_emit_context_address(struct ete_enc *e, uint64_t a, uint8_t is);
void ete_q_close(struct ete_enc *e);
int ete_trace_q(struct ete_enc *e, const struct exec_rec *r, uint64_t n,
		int branch, int taken);
void ete_q_to_context(struct ete_enc *e, const struct exec_rec *r);
void ete_emit_timestamp(struct ete_enc *e, uint64_t v);
void ete_emit_sync(struct ete_enc *e);
int ete_put_item(struct ete_enc *e, const struct exec_rec *r);

#endif
