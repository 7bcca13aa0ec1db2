/* ETMv2 capture readers (docs/etmv2-capture.md): the reader's state,
 * shared by the text, binary and ETB forms. */
#ifndef ETMKIT_PACKETS_ETM2_CAP_INTERNAL_H
#define ETMKIT_PACKETS_ETM2_CAP_INTERNAL_H

#include <stdarg.h>

#include "etmkit/etm2.h"

/* The binary header (docs/etmv2-capture.md). */
#define ETM2_CAP_MAGIC "ETM2CAP"      /* 8 bytes with its NUL */
#define ETM2_CAP_HDR_SIZE 32u
#define ETM2_CAP_BIN_VERSION 1u
#define ETM2_CAP_F_HALF_RATE 0x1u
#define ETM2_CAP_F_ETMCR 0x2u
#define ETM2_CAP_F_ETMIDR 0x4u
#define ETM2_CAP_F_B_FIRST 0x8u

/* Longest run a text line's xN repeats (docs/etmv2-capture.md). */
#define ETM2_CAP_MAX_REPEAT (1u << 24)

/* What a file states, before the options are merged in: 0 / has_* 0 is
 * "not stated". */
struct etm2_cap_stated {
	struct etm2_cap_info info;
	uint8_t has_mode, has_half_rate, has_order;
};

struct etm2_cap_reader {
	const uint8_t *data;
	size_t n, pos;
	struct etm2_cap_info info;
	/* Cycles decoded from one line, record pair or ETB word, delivered
	 * @pend_rep times over. */
	struct etm2_cycle pend[3];
	unsigned pend_n, pend_i;
	uint32_t pend_rep;
	/* text */
	uint64_t line;
	uint8_t code_of[etm2_st_count]; /* status -> first code, 0xff none */
	/* a sticky error, returned once the cycles before it are out */
	int err;
	struct etm2_cap_diag err_diag;
};

/* Fill @d (may be NULL) with a printf message; @line / @offset as given. */
void etm2_cap_diag_set(struct etm2_cap_diag *d, uint64_t line,
		       uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Merge what the file states with the options into rd->info (all three
 * forms). Returns 0 or -etmkit_err_bad_config with @diag filled. */
int etm2_cap_merge(struct etm2_cap_reader *rd, const struct etm2_cap_stated *st,
		   const struct etm2_cap_info *opt, struct etm2_cap_diag *diag);

/* Text form: parse the header up to `cycles` (and merge); read cycles. */
int etm2_cap_text_open(struct etm2_cap_reader *rd, const struct etm2_cap_info *opt,
		       struct etm2_cap_diag *diag);
long etm2_cap_text_read(struct etm2_cap_reader *rd, struct etm2_cycle *out,
			size_t max, struct etm2_cap_diag *diag);

/* Binary and ETB forms. */
int etm2_cap_bin_open(struct etm2_cap_reader *rd, const struct etm2_cap_info *opt,
		      struct etm2_cap_diag *diag);
long etm2_cap_bin_read(struct etm2_cap_reader *rd, struct etm2_cycle *out,
		       size_t max, struct etm2_cap_diag *diag);
int etm2_cap_etb_open(struct etm2_cap_reader *rd, const struct etm2_cap_info *opt,
		      struct etm2_cap_diag *diag);
long etm2_cap_etb_read(struct etm2_cap_reader *rd, struct etm2_cycle *out,
		       size_t max, struct etm2_cap_diag *diag);

/* Deliver pending cycles into @out[*k..max). */
static inline void etm2_cap_drain(struct etm2_cap_reader *rd,
				  struct etm2_cycle *out, size_t *k, size_t max)
{
	while (*k < max && rd->pend_rep) {
		out[(*k)++] = rd->pend[rd->pend_i++];
		if (rd->pend_i == rd->pend_n) {
			rd->pend_i = 0;
			rd->pend_rep--;
		}
	}
}

/* Largest TRACEPKT and PIPESTAT code the merged info allows. */
static inline unsigned etm2_cap_pkt_max(const struct etm2_cap_info *i)
{
	return i->port_width >= 16 ? 0xffffu : (1u << i->port_width) - 1;
}

static inline unsigned etm2_cap_ps_max(const struct etm2_cap_info *i)
{
	return i->version == 1 ? 7u : 15u;
}

#endif
