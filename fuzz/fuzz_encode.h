/* Shared by the two files of the fuzz_encode target: fuzz_encode.c (the
 * configuration, decoding and comparing, the framing round trip, the
 * target) and fuzz_encode_walk.c (the programs, the walks the input
 * steers over them, and what the decode must give back). */
#ifndef ETMKIT_FUZZ_ENCODE_H
#define ETMKIT_FUZZ_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "etmkit/etm2.h"
#include "etmkit/etm3.h"
#include "etmkit/etm4.h"
#include "etmkit/exec.h"
#include "etmkit/ptm.h"
#include "ts_prog32.h"
#include "ts_prog64.h"
#include "ts_rec.h"

#define HDR 12
/* Walk bytes read at most (later ones are ignored): a few thousand steps
 * reach every packet form; longer walks only cost time. */
#define MAX_WALK 8192u

enum proto { P_ETM3 = 0, P_ETM4_A64, P_ETE, P_ETM4_A32, P_PTM, P_ETM2 };

/* Report a broken invariant on stderr and abort() (fuzz_encode.c). */
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline uint32_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 11);
}

/* The walk's bytes. */
struct src {
	const uint8_t *p;
	size_t n, at;
};

static inline int more(const struct src *s)
{
	return s->at < s->n;
}

static inline unsigned byte(struct src *s)
{
	return s->at < s->n ? s->p[s->at++] : 0;
}

static inline unsigned u16(struct src *s)
{
	unsigned v = byte(s);

	return v | byte(s) << 8;
}

#define PROG_N 1024u /* slots of the A64 program (ts_prog64.h) */

#define REGION_BYTES 0x1000u

struct setup {
	enum proto proto;
	int arm, thumb;            /* ETMv3 and ETMv4 A32/T32 code */
	int cycles;                /* the record carries cycle counts */
	struct etm3_enc_config c3; /* PTM: its registers too, for walk32 */
	struct ete_enc_config c4;
	struct ptm_enc_config cp;
	struct etm2_enc_config c2;
	size_t chunk_max;
	uint32_t chunk_seed;
	uint8_t id, junk;
};

struct ev {
	uint8_t kind;     /* etmkit_elem_insn or etmkit_elem_exception */
	uint8_t isa, size;
	uint8_t fail;     /* ETMv3: N atom */
	uint16_t number;
	uint32_t cycles;  /* ETMv3 CA: what the decoder reports; ETE CCI:
			     the record's */
	uint64_t addr;    /* insn address; exception: return address */
	uint64_t ctx;     /* ETMv3: ns | hyp << 1 | cid << 8 at the insn */
};

struct want {
	struct ev *v;     /* ETMv3: instructions; ETMv4: both kinds */
	size_t n, cap;
	uint16_t *exc;    /* ETMv3: exception numbers */
	size_t nexc, cap_exc;
	uint64_t *ts;
	size_t nts, cap_ts;
	uint64_t *ctx;    /* ETMv4: contexts, without consecutive repeats */
	size_t nctx, cap_ctx;
	uint64_t ncc;     /* ETE: cycle counts the encoder wrote */
};

/* fuzz_encode_walk.c */
void prog64_make(struct ts_prog64 *p, uint64_t seed, int ete);
void prog32_make(struct ts_prog32 *p, uint64_t seed, int arm, int thumb);
void ctx_add(uint64_t **v, size_t *n, size_t *cap, uint64_t c);
void want_free(struct want *w);
size_t walk64(const struct ts_prog64 *p, const struct setup *su,
	      struct src *in, struct ts_rec *rc);
size_t walk32(const struct ts_prog32 *p, const struct setup *su,
	      struct src *in, struct ts_rec *rc, int v3);
void expect3(const struct setup *su, const struct ts_rec *rc,
	     struct want *w);
void expect4(const struct ete_enc_config *c, const struct ts_rec *rc,
	     size_t end, struct want *w);

#endif
