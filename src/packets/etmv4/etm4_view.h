/* ETMv4 / ETE packet decoder, internal: its input seen directly, for the
 * flow decoder's one pass (issue 18). Where the decoder's synced fast path
 * would go on, a consumer may read the bytes itself: atom packets through
 * the atom table (etm4_pkt_atom_table()), target addresses through
 * etm4_target_address() (etm4_fields.h, which keeps the address history
 * as the decoder would), and hand the rest back at a packet boundary with
 * etm4_pkt_view_done(). The records etm4_pkt_next() gives afterwards are
 * those it would have given for the bytes from there on. */
#ifndef ETMKIT_PACKETS_ETM4_VIEW_H
#define ETMKIT_PACKETS_ETM4_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "packets/etmv4/etm4_fields.h"

/* Whether @dec stands where its synced fast path (etm4_next_synced())
 * would go on: in sync, at a packet boundary (no packet cut by the end
 * of a chunk, no record pending, no loss to report, nothing replayed),
 * not stopped, with input left. Then *@v is that input (pkt_stream.h). */
static inline int etm4_pkt_view(const struct etm4_pkt_decoder *dec,
				struct pkt_view *v)
{
	return dec->scan == etm4_scan_synced && !dec->have_pending &&
	       pkt_stream_view(&dec->in, v);
}

/* The consumer of a view read every packet before @pos (a packet boundary
 * of the view, at most its n): the decoder goes on there. */
static inline void etm4_pkt_view_done(struct etm4_pkt_decoder *dec,
				      size_t pos)
{
	dec->in.pos = pos;
}

/* After a consumer of a view stopped at a packet it does not take: the
 * records of the packets from there on, as etm4_pkt_next() would give
 * them, up to @max, ending before the next atom or target address packet
 * (which the consumer reads itself) or anything but a whole packet the
 * synced fast path decodes. Call only while etm4_pkt_view() holds. Returns
 * the count (0: call etm4_pkt_next()). */
size_t etm4_next_others(struct etm4_pkt_decoder *dec,
			struct etm4_packet *pkts, size_t max);

#endif
