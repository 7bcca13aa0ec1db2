/* PTM (PFTv1.0/1.1) packet decoder, internal: the field readers of its
 * commonest packets, and its input seen directly, for the flow decoder's
 * one pass (issue 19, as ETMv4's etm4_view.h for issue 18). Where the
 * decoder's synced fast path would go on, a consumer may read atom
 * packets (the header table dec->hdr[], the atom table dec->atoms[],
 * ptm_atom_len()) and branch address packets of the short form
 * (ptm_branch_short(), then ptm_branch_short_commit()) itself, and hand
 * the rest back at a packet boundary with ptm_pkt_view_done(). The
 * records ptm_pkt_next() gives afterwards are those it would have given
 * for the bytes from there on. */
#ifndef ETMKIT_PACKETS_PTM_VIEW_H
#define ETMKIT_PACKETS_PTM_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "packets/pkt_fields.h"
#include "packets/ptm/ptm_internal.h"

/* ---- Field readers (ptm_pkt.c's synced path and the one pass) ------------ */

/* The cycle count field (IHI 0035B 4.4; digest 3) starting at p[0]: byte 0
 * has count[3:0] in bits [5:2] and its continuation in bit 6 (bits 7, 1, 0
 * belong to the packet: in an atom packet its header); bytes 1-3 seven
 * bits and a continuation in bit 7; a 5th byte bits [31:25], always last.
 * Returns the bytes used, or 0 if more are needed. */
static inline int ptm_read_cycles(const uint8_t *p, size_t avail,
				  uint32_t *value)
{
	uint32_t v;

	NEED(1);
	v = (p[0] >> 2) & 0xfu;
	if (!(p[0] & 0x40)) {
		*value = v;
		return 1;
	}
	for (unsigned k = 1;; k++) {
		NEED(k + 1);
		v |= (uint32_t)(p[k] & 0x7f) << (4 + 7 * (k - 1));
		if (k == 4 || !(p[k] & 0x80)) {
			*value = v;
			return (int)k + 1;
		}
	}
}

/* The length of the atom packet at p[0..avail) (IHI 0035B 4.5.3), and in
 * *@cycles its cycle count when cycle-accurate (@ca, a constant in each
 * caller's copy): a count whose first byte is the header. Its atoms are
 * dec->atoms[p[0]]. Returns 0 if the packet is cut. */
static inline __attribute__((always_inline)) int
ptm_atom_len(const uint8_t *p, size_t avail, uint32_t *cycles, const int ca)
{
	*cycles = 0;
	if (!ca)
		return 1;
	if (!(p[0] & 0x40)) {
		*cycles = (p[0] >> 2) & 0xfu;
		return 1;
	}
	return ptm_read_cycles(p, avail, cycles);
}

/* A branch address packet of the commonest form, read: 1-4 address bytes
 * and no exception bytes, so the instruction set and security state stay
 * (IHI 0035B 4.5.4). */
struct ptm_branch_short {
	uint32_t addr;     /* merged with the reference */
	uint32_t cycles;   /* cycle-accurate */
	uint8_t len;       /* the packet's bytes */
	uint8_t bytes;     /* its address bytes */
	uint8_t bits;      /* the address bits it carries */
};

/* Read the branch address packet at p[0..avail) if it has the short form
 * (then with a cycle count when cycle-accurate, @ca): returns its length
 * and fills *@s, or 0 (another form, or cut: the general parser's). Reads
 * the first four bytes as one word. Changes nothing: a packet taken is
 * committed with ptm_branch_short_commit(). */
static inline __attribute__((always_inline)) int
ptm_branch_short(const struct ptm_pkt_decoder *dec, const uint8_t *p,
		 size_t avail, struct ptm_branch_short *s, const int ca)
{
	/* Address bits a packet of k + 1 bytes carries before the shift:
	 * 6, then 7 per continuing and 6 in the final byte. */
	static const uint8_t bits_of[4] = { 6, 12, 19, 26 };
	uint32_t w, stop, v, mask;
	unsigned k, bits, shift;
	int len;

	if (avail < 4)
		return 0;
	w = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
	stop = ~w & 0x80808080u;
	if (!stop)
		return 0; /* a 5th byte */
	k = (unsigned)__builtin_ctz(stop) / 8; /* address bytes - 1 */
	if (k && (p[k] & 0x40))
		return 0; /* exception bytes */
	/* Byte 0 bits [6:1], bytes 1-3 seven bits each; those past the
	 * packet, and bit 6 of the final byte, are masked off. */
	v = ((w >> 1) & 0x3fu) | ((w >> 2) & (0x7fu << 6)) |
	    ((w >> 3) & (0x7fu << 13)) | ((w >> 4) & (0x7fu << 20));
	shift = branch_isa_shift(dec->isa);
	bits = bits_of[k] + shift;
	mask = (1u << bits) - 1;
	len = (int)k + 1;
	s->cycles = 0;
	if (ca) {
		int c = ptm_read_cycles(p + len, avail - (size_t)len,
					&s->cycles);

		if (!c)
			return 0;
		len += c;
	}
	s->addr = (dec->addr & ~mask) | ((v << shift) & mask);
	s->bits = (uint8_t)bits;
	s->bytes = (uint8_t)(k + 1);
	s->len = (uint8_t)len;
	return len;
}

/* A short branch address packet read by ptm_branch_short() is decoded:
 * its address is the reference from now on (the rest of the state
 * stays). */
static inline void ptm_branch_short_commit(struct ptm_pkt_decoder *dec,
					   const struct ptm_branch_short *s)
{
	dec->addr = s->addr;
}

/* The I-sync packet at p[0..avail) (p[0] an I-sync header, IHI 0035B
 * 4.5.2): its length, with pkt->u.isync filled (the rest of *@pkt not
 * written) and the decoder's state committed as decoding it commits it;
 * 0 if it is cut (nothing changed). */
int ptm_isync_read(struct ptm_pkt_decoder *dec, const uint8_t *p,
		   size_t avail, struct ptm_packet *pkt);

/* ---- The input seen directly ---------------------------------------------- */

/* Whether @dec stands where its synced fast path (ptm_next_synced())
 * would go on: in sync, at a packet boundary (no packet cut by the end of
 * a chunk, no record pending, no loss to report, nothing replayed), not
 * stopped, with input left. Then *@v is that input (pkt_stream.h). */
static inline int ptm_pkt_view(const struct ptm_pkt_decoder *dec,
			       struct pkt_view *v)
{
	return dec->scan == ptm_scan_synced && !dec->have_pending &&
	       pkt_stream_view(&dec->in, v);
}

/* The consumer of a view read every packet before @pos (a packet boundary
 * of the view, at most its n): the decoder goes on there. */
static inline void ptm_pkt_view_done(struct ptm_pkt_decoder *dec, size_t pos)
{
	dec->in.pos = pos;
}

/* After a consumer of a view stopped at a packet it does not take: the
 * records of the packets from there on, as ptm_pkt_next() would give
 * them, up to @max, ending before the next atom, branch address or I-sync
 * packet (which the consumer reads itself) or anything but a whole packet
 * the synced fast path decodes. Call only while ptm_pkt_view() holds.
 * Returns the count (0: call ptm_pkt_next()). */
size_t ptm_next_others(struct ptm_pkt_decoder *dec, struct ptm_packet *pkts,
		       size_t max);

#endif
