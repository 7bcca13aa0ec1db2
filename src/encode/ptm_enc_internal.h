/* The PTM trace encoder's state and output buffer (internal), shared by
 * ptm_enc.c (set-up, the walk a decoder makes, record items) and
 * ptm_enc_packets.c (the packets, IHI 0035B 4.5; digest ptm.md 4). */
#ifndef ETMKIT_ENCODE_PTM_ENC_INTERNAL_H
#define ETMKIT_ENCODE_PTM_ENC_INTERNAL_H

#include <stdlib.h>
#include <string.h>

#include "etmkit/exec.h"
#include "etmkit/insn.h"
#include "etmkit/ptm.h"

#include "enc_v3.h"

#define PENC_SYNC_DEFAULT 1024u /* as ETMv3's ETMSYNCFR reset value */
/* Return addresses the model stack keeps: a decoder keeping as many or
 * more agrees with it on every pop it is asked for (ptm.h). */
#define PENC_RSTACK 4u

struct penc_ret {
	uint32_t addr;
	uint8_t isa;
};

struct ptm_enc {
	struct ptm_config_info info;
	uint32_t sync_period;
	uint8_t finished;

	uint64_t sync_at;        /* out.total at the last A-sync */

	/* Atoms not yet in a packet (without cycle-accurate tracing), oldest
	 * first, 1 = N. */
	uint8_t atoms[5];
	unsigned natoms;

	/* What the decoder knows: the address reference of the packet layer
	 * (set by I-sync, branch address and waypoint update packets, 4.5.4)
	 * and the state it was told. */
	uint8_t started;         /* an A-sync was emitted */
	uint8_t need_isync;      /* start, or after a gap */
	uint32_t ref_addr;
	uint8_t ref_isa, ref_altis, ref_ns, ref_hyp;
	uint8_t old_valid;       /* a waypoint update moved ref_addr from
				    old_addr: compress against both */
	uint32_t old_addr;
	uint8_t ts_valid;        /* ts_ref holds the last timestamp sent */
	uint64_t ts_ref;         /* as coded (binary or Gray) */

	/* The decoder's walk: where the next instruction is expected, and the
	 * instructions walked past the last waypoint that no packet has
	 * covered yet (a waypoint update can). */
	uint8_t exp_valid;
	uint32_t exp_addr;
	uint8_t exp_isa;
	uint32_t uncovered;
	uint32_t last_addr;      /* the last of them */
	uint8_t last_isa;

	/* The return stack model (ETMCR[29]), top last. */
	struct penc_ret rs[PENC_RSTACK];
	unsigned nrs;

	/* Cycle-accurate tracing: cycles since the last count emitted. */
	uint32_t cyc;
	uint32_t gap_cycles;     /* for the next trace-on I-sync */

	/* The processor (from the record). */
	struct enc_proc pc;
	uint8_t ts_pending;
	uint64_t ts;

	/* Pending between instructions. */
	uint8_t br_pending;      /* a taken branch wants its address packet */
	uint32_t br_addr;
	uint8_t br_isa;
	uint32_t br_cyc;         /* its cycle count */
	uint8_t excret_pending;  /* an exception return packet after it */
	uint8_t exc_pending;     /* an exception: enum exec_exc in exc_kind */
	uint8_t exc_kind;

	struct enc_out out;
};

/* ---- Output ------------------------------------------------------------- */

/* Room for one packet (PTM_PKT_MAX_BYTES at most). */
static inline void penc_room(struct ptm_enc *e)
{
	enc_out_room(&e->out, PTM_PKT_MAX_BYTES);
}

static inline void penc_put8(struct ptm_enc *e, uint8_t b)
{
	enc_out_put8(&e->out, b);
}

/* ---- ptm_enc_packets.c -------------------------------------------------- */

void penc_async(struct ptm_enc *e);
void penc_isync(struct ptm_enc *e, unsigned reason, uint32_t addr,
		uint8_t isa);
void penc_branch(struct ptm_enc *e, uint32_t addr, uint8_t isa, int with_exc,
		 uint8_t exc, uint32_t cycles);
void penc_wp_update(struct ptm_enc *e, uint32_t addr, uint8_t isa);
void penc_atom(struct ptm_enc *e, int n_atom, uint32_t cycles);
void penc_flush_atoms(struct ptm_enc *e);
void penc_timestamp(struct ptm_enc *e, uint64_t value, uint32_t cycles);
void penc_context_id(struct ptm_enc *e);
void penc_vmid(struct ptm_enc *e);
void penc_exc_return(struct ptm_enc *e);

#endif
