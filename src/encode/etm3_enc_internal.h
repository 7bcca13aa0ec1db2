/* The ETMv3 trace encoder's state and output buffer (internal), shared
 * by etm3_enc.c (set-up, P-headers, synchronisation, branch packets,
 * items) and etm3_enc_data.c (data packets, ARM IHI 0014Q 7.4). */
#ifndef ETMKIT_ENCODE_ETM3_ENC_INTERNAL_H
#define ETMKIT_ENCODE_ETM3_ENC_INTERNAL_H

#include <stdlib.h>
#include <string.h>

#include "etmkit/etm3.h"
#include "etmkit/exec.h"
#include "etmkit/insn.h"

#include "enc_v3.h"

/* Atoms kept before P-headers are chosen: enough to see the longest
 * header (16 atoms) ahead of every choice. */
#define ENC_PH_CAP  64u
#define ENC_PH_KEEP 32u
#define ENC_SYNC_DEFAULT 1024u /* ETMSYNCFR reset value (IHI 0014Q 3.5.23) */
#define ENC_OOO_TAGS 3u        /* out-of-order tags 1-3 (7.4.3) */

/* A load whose value a placeholder stands for, until it is returned. */
struct enc_ooo {
	uint8_t tag;             /* 1-3 */
	uint8_t halves;          /* 2: a 64-bit value, two packets */
	uint32_t value[2];
	uint64_t due;            /* returned once insns reaches it */
};

enum enc_atom { ENC_E = 0, ENC_N = 1, ENC_W = 2 };

struct etm3_enc {
	struct etm3_config_info info;
	uint32_t sync_period;
	uint8_t vmid_on;
	uint8_t branch_output;   /* ETMCR[8]: every taken branch's address */
	uint8_t finished;

	uint64_t sync_at;        /* out.total at the last A-sync */

	/* Atoms not yet in a P-header, oldest first (enum enc_atom). */
	uint8_t ph[ENC_PH_CAP];
	unsigned nph;

	/* What the decoder knows: compression and state references, set by
	 * I-sync and branch packets (7.3.5, 7.10.5). */
	uint8_t started;         /* an A-sync was emitted */
	uint8_t need_isync;      /* start, or after a gap */
	uint32_t ref_addr;
	uint8_t ref_isa, ref_altisa, ref_ns, ref_hyp;
	uint8_t exp_valid;       /* the decoder's walk goes to exp_addr */
	uint32_t exp_addr;
	uint8_t exp_isa;
	uint8_t ts_valid;        /* ts_ref holds the last timestamp sent */
	uint64_t ts_ref;         /* as coded (binary or Gray) */

	/* The processor (from the record). */
	uint8_t last_isa;        /* instruction set of the last instruction */
	struct enc_proc pc;
	uint8_t ts_pending;
	uint64_t ts;
	uint32_t gap_cycles;     /* cycle count for the next I-sync */

	/* Pending between instructions. */
	uint8_t br_pending;      /* a taken branch wants its address packet */
	uint32_t br_addr;
	uint8_t br_isa;
	uint8_t exc_pending;     /* an exception: enum exec_exc in exc_kind */
	uint8_t exc_kind;

	/* Data trace (7.4). */
	uint8_t data_addr_on;    /* ETMCR[3]: data addresses */
	uint8_t data_value_on;   /* ETMCR[2]: data values */
	uint8_t ooo_on;          /* ETM3_ENC_OOO: loads out of order */
	uint32_t ooo_delay;
	uint64_t insns;          /* instructions traced */
	uint8_t d_ok;            /* the last item is an executed data
				    instruction or one of its transfers */
	uint8_t d_first;         /* its next transfer is its first */
	uint32_t d_next;         /* the address right after its last one */
	uint8_t dref_valid;      /* a data address was sent since sync */
	uint32_t dref;           /* the data address reference */
	struct enc_ooo ooo[ENC_OOO_TAGS]; /* pending, oldest first */
	unsigned nooo;

	struct enc_out out;
};


/* ---- Output ------------------------------------------------------------- */

static inline void drain(struct etm3_enc *e)
{
	enc_out_drain(&e->out);
}

/* Room for one packet (ETM3_PKT_MAX_BYTES at most). */
static inline void room(struct etm3_enc *e)
{
	enc_out_room(&e->out, ETM3_PKT_MAX_BYTES);
}

static inline void put8(struct etm3_enc *e, uint8_t b)
{
	enc_out_put8(&e->out, b);
}


/* ---- Shared between the files (defined where named) ---- */

int etm3_flush_atoms(struct etm3_enc *e);
void etm3_put_le(struct etm3_enc *e, uint32_t v, unsigned n);
int etm3_return_due(struct etm3_enc *e, int all);
int etm3_put_data(struct etm3_enc *e, const struct exec_rec *r);
int etm3_is_data_insn(const struct exec_rec *r, int fail);

#endif
