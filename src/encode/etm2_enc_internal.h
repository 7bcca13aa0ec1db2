/* The ETMv2 trace encoder's state (internal), shared by etm2_enc.c (set-up,
 * record items, the instructions' statuses and groups) and etm2_enc_port.c
 * (the FIFO, the trace port's cycles, TFO cycles). docs/etmv2.md is the
 * protocol; the decoder (src/packets/etmv2, src/flow/etm2_flow*.c) follows
 * the same text. */
#ifndef ETMKIT_ENCODE_ETM2_ENC_INTERNAL_H
#define ETMKIT_ENCODE_ETM2_ENC_INTERNAL_H

#include <stdlib.h>
#include <string.h>

#include "etmkit/etm2.h"
#include "etmkit/exec.h"
#include "etmkit/insn.h"

#include "enc_v3.h"

#define E2_FIFO_DEFAULT 64u
#define E2_FIFO_MAX 4096u
#define E2_SYNC_DEFAULT 1024u  /* ETMSYNCFR reset value (Q§3.5.39) */
#define E2_OUT_CYCLES 4096u    /* cycles buffered before the sink */
#define E2_MAX_XFERS 64u       /* data transfers kept per instruction */
#define E2_TFO_MAX 13u         /* a TFO packet: 1 + 4 + 4 (no LSiP) */
/* A group: context ID (5), load miss data (4 x 5), the transfers'
 * packets (two per doubleword, 1 + 4 bytes each, one data address of 5),
 * a branch address (5). */
#define E2_GROUP_MAX (5u + 20u + 2u * E2_MAX_XFERS * 5u + 5u + 5u)

/* One data transfer of the instruction waiting for its data items. */
struct e2_xfer {
	uint32_t addr;
	uint64_t value;
	uint8_t size;
	uint8_t store;
};

/* An instruction waiting for the items after it (its data transfers; for
 * a phantom candidate, the instruction it folds with). */
struct e2_insn {
	uint32_t addr, target;
	uint32_t extra;      /* no-instruction cycles before its status */
	uint8_t isa, tisa, next_isa, size;
	uint8_t exec;        /* executed (else condition failed) */
	uint8_t taken;       /* a branch that wrote the PC */
	uint8_t indirect;
	uint8_t foldable;    /* a direct branch without link, no packet */
	unsigned nx;
	struct e2_xfer x[E2_MAX_XFERS];
};

/* A load miss whose data is still to come (docs/etmv2.md 4). */
struct e2_miss {
	uint64_t value;
	uint8_t size;
	uint8_t tag;
};

struct etm2_enc {
	struct etm2_config_info info;
	uint8_t code[etm2_st_count]; /* status -> raw PIPESTAT */
	struct etm2_tfo_table tfo;
	uint8_t latency;
	uint8_t phantoms;
	uint32_t depth, sync_period, miss_every;
	uint8_t finished;
	int err;                  /* sticky: the sink's error */

	/* The FIFO (a ring of depth bytes): count bytes held, the last
	 * fresh of them placed this cycle (not ready with latency 1); half:
	 * the head byte's low nibble has left (4-bit port). */
	uint8_t *fifo;
	uint32_t head, count, fresh;
	uint8_t half;
	/* ETMv1 (NULL for ETMv2): mark[i] = FIFO byte i starts a branch
	 * address, nmarks of them held; tsync: TRACESYNC for the cycle being
	 * written; trace_off: in a gap (a cycle-accurate TD's TRACEPKT[0]). */
	uint8_t *mark;
	unsigned nmarks;
	uint8_t tsync;
	uint8_t trace_off;
	const char *refused;      /* ETMv1 data: why an item was refused */
	uint32_t refused_addr;    /* and the instruction's address */

	/* Trace state. */
	uint8_t need_tfo;         /* a TFO before the next instruction */
	uint8_t tfo_reason;       /* its reason */
	uint8_t ovf;              /* overflowed: tracing stopped */
	uint64_t since_tfo;       /* cycles since the last TFO */
	uint64_t last_status;     /* index of the last instruction status or
				     TFO cycle: a decoder counts the next
				     instruction's cycles from it */
	uint32_t ref_addr;        /* branch address reference (last branch
				     address or TFO address) */
	uint8_t ref_isa;
	uint32_t daddr_ref;       /* last data address sent */
	uint8_t daddr_full;       /* the next data address goes full */
	uint8_t exp_valid;        /* where the decoder's walk expects the */
	uint32_t exp_addr;        /* next instruction */
	uint8_t exp_isa;

	/* Between items. */
	uint8_t has_pend, has_ph;
	struct e2_insn pend;      /* waiting for its data items */
	struct e2_insn ph;        /* a foldable branch waiting for the next
				     instruction */
	uint8_t exc_pending;
	uint8_t next_waits;       /* the instruction after the one being
				     emitted is known and waits a cycle at
				     least (its record count n > 1) */
	uint32_t cid;
	uint8_t cid_dirty;
	uint32_t loads;           /* loads seen, for miss_every */
	uint8_t next_tag;
	unsigned nmiss;
	struct e2_miss miss[4];   /* data to place in the next group */

	struct etm2_enc_stats st;
	etm2_cycle_sink_fn sink;
	void *ctx;
	size_t nout;
	struct etm2_cycle out[E2_OUT_CYCLES];
};

/* A group being built. */
struct e2_group {
	size_t n;
	uint8_t b[E2_GROUP_MAX];
};

/* What a group changes once placed (etm2_enc.c). */
struct e2_refs {
	uint32_t daddr;
	uint8_t daddr_full;
	uint8_t nnew;            /* load misses it starts */
	struct e2_miss miss[4];
	int hdr;                 /* index of the last packet's header, -1 */
};

/* ---- etm2_enc.c, shared with etm1_enc.c ------------------------------------ */

/* The references a group starts from. */
static inline void e2_refs_init(const struct etm2_enc *e, struct e2_refs *rf)
{
	rf->daddr = e->daddr_ref;
	rf->daddr_full = e->daddr_full;
	rf->nnew = 0;
	rf->hdr = -1;
}

/* The group is in the FIFO: its references hold, the misses it carried
 * are done, those it started wait for the next group. */
static inline void e2_refs_commit(struct etm2_enc *e,
				  const struct e2_refs *rf)
{
	e->daddr_ref = rf->daddr;
	e->daddr_full = rf->daddr_full;
	memcpy(e->miss, rf->miss, sizeof(rf->miss[0]) * rf->nnew);
	e->nmiss = rf->nnew;
}

/* @n bytes of @v, least significant first. */
static inline void e2_g_le(struct e2_group *g, uint64_t v, unsigned n)
{
	for (unsigned k = 0; k < n; k++)
		g->b[g->n++] = (uint8_t)(v >> (8 * k));
}

/* A data address (docs/etmv2.md 4): A[6:0], A[13:7], A[20:14], A[27:21],
 * A[31:28], bit 7 = another byte; the changed low bits only, all five
 * after a TFO. */
static inline void e2_g_daddr(struct e2_group *g, struct e2_refs *rf,
			       uint32_t a)
{
	unsigned n = 5;

	if (!rf->daddr_full)
		for (unsigned k = 1; k <= 4; k++)
			if ((a >> (7 * k)) == (rf->daddr >> (7 * k))) {
				n = k;
				break;
			}
	for (unsigned k = 0; k < n; k++) {
		uint8_t b = (uint8_t)((a >> (7 * k)) & (k == 4 ? 0xf : 0x7f));

		g->b[g->n++] = (uint8_t)(b | (k + 1 < n ? 0x80 : 0));
	}
	rf->daddr = a;
	rf->daddr_full = 0;
}

/* Where the decoder's walk goes after @x. */
static inline void e2_walk_past(struct etm2_enc *e, const struct e2_insn *x)
{
	e->exp_valid = 1;
	e->exp_addr = x->taken ? x->target : x->addr + x->size;
	e->exp_isa = x->taken ? x->tisa : x->next_isa;
}

/* A group did not fit: trace stops, @insns are lost. */
void e2_overflow(struct etm2_enc *e, unsigned insns);
void e2_idle_n(struct etm2_enc *e, uint32_t n);

/* ---- etm1_enc.c (ETMv1, docs/etmv2.md 7b) ----------------------------------- */

/* Instruction @x: its wait cycles, a restart before it if one is due,
 * its status, group and APO cycles. */
void e1_emit(struct etm2_enc *e, const struct e2_insn *x);
/* A data item of the pending instruction: 0, or -etmkit_err_unsupported
 * (not one 4-byte transfer, with data tracing on). */
int e1_check_data(struct etm2_enc *e, const struct exec_rec *r);

/* ---- etm2_enc_port.c ---------------------------------------------------- */

/* A cycle of @status (an instruction or DW status) placing @g (NULL or
 * empty: none). */
void e2_cycle(struct etm2_enc *e, unsigned status, const struct e2_group *g);
/* A cycle without instruction or packets: WT when the FIFO outputs, else
 * TD. */
void e2_idle(struct etm2_enc *e);
/* Idle cycles until the FIFO is empty. */
void e2_drain(struct etm2_enc *e);
/* Whether @n bytes fit in the FIFO now. */
int e2_fits(const struct etm2_enc *e, size_t n);
/* A TFO (docs/etmv2.md 6) of @reason for the instruction at @addr in
 * @isa: its cycle(s) and its packet. */
void e2_tfo(struct etm2_enc *e, unsigned reason, uint32_t addr, uint8_t isa);
/* Hand the buffered cycles to the sink. */
void e2_flush(struct etm2_enc *e);
/* e2_cycle(), byte @sync_at of @g (-1: none) starting a branch address
 * (ETMv1: TRACESYNC when it leaves). */
void e2_cycle_at(struct etm2_enc *e, unsigned status,
		 const struct e2_group *g, int sync_at);
/* An ETMv1 APO cycle: PIPESTAT @bits (0 to 3), FIFO output as WT. */
void e1_apo_cycle(struct etm2_enc *e, unsigned bits);
/* Branch addresses held whose first byte will not have left by the end
 * of a cycle that starts now (the APO of a branch placed in it). */
unsigned e1_marks_after(const struct etm2_enc *e);

#endif
