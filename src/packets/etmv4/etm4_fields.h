/* ETMv4 / ETE packet decoder: the field readers and the address history
 * of its packet parsers (digest etmv4-ete.md 2.1-2.4, cited as "digest"),
 * for etm4_pkt.c. Static inline: its synced loop inlines them.
 */
#ifndef ETMKIT_ETM4_FIELDS_H
#define ETMKIT_ETM4_FIELDS_H

#include <string.h>

#include "packets/pkt_fields.h"
#include "packets/etmv4/etm4_internal.h"

/* ---- Field readers (digest 2.1-2.3) -------------------------------------- */

/* A continuation ("C7") field of at most @max bytes: 7 value bits per
 * byte, least significant first, bit 7 set when another byte follows.
 * Returns bytes used, 0 if more are needed, or -max when byte @max still
 * continues (overrun: the packet is malformed). */
static inline int read_c7(const uint8_t *p, size_t avail, unsigned max, uint32_t *value)
{
	uint32_t v = 0;

	for (unsigned k = 0; k < max; k++) {
		if (k >= avail)
			return 0;
		v |= (uint32_t)(p[k] & 0x7f) << (7 * k);
		if (!(p[k] & 0x80)) {
			*value = v;
			return (int)k + 1;
		}
	}
	return -(int)max;
}

/* Timestamp field (digest 2.2): up to 8 C7 bytes; a 9th byte, after eight
 * that all continue, gives bits 63:56 whole. */
static inline int read_ts(const uint8_t *p, size_t avail, uint64_t *value,
		   unsigned *bits)
{
	uint64_t v = 0;

	for (unsigned k = 0; k < 8; k++) {
		NEED(k + 1);
		v |= (uint64_t)(p[k] & 0x7f) << (7 * k);
		if (!(p[k] & 0x80)) {
			*value = v;
			*bits = 7 * (k + 1);
			return (int)k + 1;
		}
	}
	NEED(9);
	*value = v | (uint64_t)p[8] << 56;
	*bits = 64;
	return 9;
}

static inline uint64_t mask64(unsigned bits)
{
	return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

/* ---- Addresses (digest 2.3, 2.4) ----------------------------------------- */

static inline void push_addr(struct etm4_pkt_decoder *dec, const struct etm4_address *a)
{
	dec->hist_addr[2] = dec->hist_addr[1];
	dec->hist_addr[1] = dec->hist_addr[0];
	dec->hist_addr[0] = a->addr;
	dec->hist_is[2] = dec->hist_is[1];
	dec->hist_is[1] = dec->hist_is[0];
	dec->hist_is[0] = a->is;
}

static inline void addr_exact(const struct etm4_pkt_decoder *dec, unsigned k,
		       struct etm4_address *a)
{
	a->addr = dec->hist_addr[k];
	a->is = dec->hist_is[k];
	a->form = etm4_addr_exact;
	a->bits = 0;
	a->hist = (uint8_t)k;
}

/* Short address: 1 byte replaces A[8:0] (IS0) or A[7:0] (IS1) of history
 * entry 0, 2 bytes A[16:0] or A[15:0]; the implied low bits become 0. The
 * second byte has no continuation bit. Returns bytes used or 0. */
static inline int read_short(const struct etm4_pkt_decoder *dec, const uint8_t *p,
		      size_t avail, unsigned is, struct etm4_address *a)
{
	unsigned shift = is ? 1 : 2, bits = 7 + shift, n = 1;
	uint64_t v;

	NEED(1);
	v = (uint64_t)(p[0] & 0x7f) << shift;
	if (p[0] & 0x80) {
		NEED(2);
		v |= (uint64_t)p[1] << (7 + shift);
		bits += 8;
		n = 2;
	}
	a->addr = (dec->hist_addr[0] & ~mask64(bits)) | v;
	a->is = (uint8_t)is;
	a->form = etm4_addr_short;
	a->bits = (uint8_t)bits;
	a->hist = 0;
	return (int)n;
}

/* Long address, 4 or 8 bytes: byte 0 holds A[8:2] (IS0) or A[7:1] (IS1),
 * byte 1 A[15:9] or A[15:8], then whole bytes. A 32-bit address replaces
 * A[31:0]; A[63:32] are those of history entry 0 when @keep_upper, else
 * zero (the policy is the caller's, see sf_upper()). */
static inline void read_long(const struct etm4_pkt_decoder *dec, const uint8_t *p,
		      unsigned is, unsigned nbytes, int keep_upper,
		      struct etm4_address *a)
{
	uint64_t v;

	if (is)
		v = (uint64_t)(p[0] & 0x7f) << 1 | (uint64_t)p[1] << 8;
	else
		v = (uint64_t)(p[0] & 0x7f) << 2 | (uint64_t)(p[1] & 0x7f) << 9;
	v |= le_n(p + 2, nbytes - 2) << 16;
	if (nbytes == 4 && keep_upper)
		v |= dec->hist_addr[0] & 0xffffffff00000000ull;
	a->addr = v;
	a->is = (uint8_t)is;
	a->form = nbytes == 4 ? etm4_addr_long32 : etm4_addr_long64;
	a->bits = (uint8_t)(8 * nbytes);
	a->hist = 0;
}

/* Whether a 32-bit address keeps the upper half of history entry 0
 * (digest 2.3, U17): only when the last context packet since sync said
 * AArch64, as OpenCSD does; an AArch32 or unknown context zero-extends. */
static inline int sf_upper(const struct etm4_pkt_decoder *dec)
{
	/* dec->sf_known && dec->sf, in one load: sf is set only with
	 * sf_known (commit_context()), and both are cleared together
	 * (etm4_reset_state()). */
	return dec->sf;
}


/* ---- Target addresses in bulk (the runs, the flow's one pass) ---------- */

/* Packets decoded on a fast path have this many input bytes at hand (no
 * packet is longer: a context with VMID and Context ID is 10). */
#define ETM4_FAST_MIN 16

/* short_addr() with instruction-set bit @is, a constant in each copy:
 * shifts by constants (the bit seldom changes within a trace, so the
 * branch between the copies predicts well). */
static inline __attribute__((always_inline)) unsigned
short_addr_is(const struct etm4_pkt_decoder *dec, const uint8_t *p,
	      struct etm4_address *a, const unsigned is)
{
	const unsigned shift = 2 - is;
	unsigned two = p[1] >> 7, bits = 7 + shift + 8 * two;
	uint64_t v = (uint64_t)(p[1] & 0x7f) << shift |
		     ((uint64_t)p[2] << (7 + shift) & -(uint64_t)two);
	/* the bits replaced: 7 + shift, and 8 more with a second byte */
	uint64_t low = (((uint64_t)1 << (7 + shift)) - 1) |
		       ((uint64_t)0xff << (7 + shift) & -(uint64_t)two);

	a->addr = (dec->hist_addr[0] & ~low) | v;
	a->is = (uint8_t)is;
	a->form = etm4_addr_short;
	a->bits = (uint8_t)bits;
	a->hist = 0;
	return 2 + two;
}

/* read_short() for the packet at @p (3 bytes at hand) without its branch
 * on the length, which follows the address bits and so mispredicts.
 * Returns the packet's length. */
static inline unsigned short_addr(const struct etm4_pkt_decoder *dec,
				  const uint8_t *p, struct etm4_address *a)
{
	unsigned b = p[0], src = b >= 0xb0;
	unsigned is = src ? b & 1 : b == 0x96;

	return is ? short_addr_is(dec, p, a, 1) : short_addr_is(dec, p, a, 0);
}

/* The target address packet at @p (ETM4_FAST_MIN bytes at hand) into @a,
 * as parse_address() decodes it, and with @push (a constant) into the
 * address history. Returns its length, or 0 for any other packet (source
 * addresses included: they are P0 elements of their own, digest 5.22). */
static inline __attribute__((always_inline)) unsigned
target_address_in(struct etm4_pkt_decoder *dec, const uint8_t *p,
		  struct etm4_address *a, const int push)
{
	unsigned b = p[0], len, k;

	if (b >= 0xb0)
		return 0;
	/* The commonest first (a switch tests it third), pushed on its own
	 * path (where the paths join a push waits on the length). */
	k = dec->kind[b];
	if (k == ETM4_K_SHORT) {
		len = short_addr(dec, p, a);
		if (push)
			push_addr(dec, a);
		return len;
	}
	switch (k) {
	case ETM4_K_EXACT:
		addr_exact(dec, b & 3, a);
		len = 1;
		break;
	case ETM4_K_LONG32:
		read_long(dec, p + 1, b & 1, 4, sf_upper(dec), a);
		len = 5;
		break;
	case ETM4_K_LONG64:
		read_long(dec, p + 1, b == 0x9e, 8, 0, a);
		len = 9;
		break;
	default:
		return 0;
	}
	if (push)
		push_addr(dec, a);
	return len;
}

/* target_address_in(), the address then pushed into the history (every
 * form pushes its address, exact matches included). */
static inline unsigned etm4_target_address(struct etm4_pkt_decoder *dec,
					   const uint8_t *p,
					   struct etm4_address *a)
{
	return target_address_in(dec, p, a, 1);
}

/* target_address_in(), the history left as it is: a caller that takes
 * the packet pushes @a itself (push_addr()). */
static inline unsigned etm4_peek_target_address(struct etm4_pkt_decoder *dec,
						const uint8_t *p,
						struct etm4_address *a)
{
	return target_address_in(dec, p, a, 0);
}

#endif
