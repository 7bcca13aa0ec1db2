/* Test support for the parallel decode: the serial flow decoder the
 * parallel one is checked against, of any of its protocols (ETMv3,
 * ETMv4/ETE, PTM), through the public etmX_flow_* / ptm_flow_* API (not
 * par_internal.h's par_proto table the parallel decode itself goes
 * through). Shared by par_gen.c and par_source_check.c. */
#ifndef ETMKIT_PAR_SERIAL_H
#define ETMKIT_PAR_SERIAL_H

#include <stddef.h>
#include <stdint.h>

#include "etmkit/flow.h"
#include "etmkit/parallel.h"

struct par_serial {
	int proto;                     /* enum etmkit_par_protocol */
	struct etm3_flow_decoder *d3;
	struct etm4_flow_decoder *d4;
	struct ptm_flow_decoder *dp;
};

/* The decoder of @cfg's protocol and flow config: 0, or the flow
 * decoder's error (-etmkit_err_invalid for an unknown protocol). */
int par_serial_alloc(struct par_serial *s, const struct etmkit_par_config *cfg);
void par_serial_free(struct par_serial *s);
/* As the flow API's functions of the same names. */
int par_serial_feed(struct par_serial *s, const uint8_t *b, size_t n,
		    const uint64_t *offs, uint64_t base);
int par_serial_finish(struct par_serial *s);
int par_serial_gap(struct par_serial *s);
void par_serial_reset(struct par_serial *s);
int par_serial_batch(struct par_serial *s, const struct etmkit_elem **e);
/* Add the decoder's statistics to @o (packets, insns, atoms_lost,
 * protocol_errors). */
void par_serial_stats(const struct par_serial *s, struct etmkit_par_stats *o);

#endif
