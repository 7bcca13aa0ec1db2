/* Field readers the protocols' packet parsers share (ETMv3, ETMv4/ETE,
 * PTM), static inline so their synced loops inline them. Packets layer,
 * internal. The parsers follow one convention: a parser returns the
 * packet's length, 0 when more bytes are needed (NEED), or -(length) for
 * a rejected packet with pkt->why set (BAD).
 */
#ifndef ETMKIT_PKT_FIELDS_H
#define ETMKIT_PKT_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "etmkit/common.h"

/* In a parser with `avail` bytes: return 0 unless @k are there. */
#define NEED(k)                                                                \
	do {                                                                   \
		if ((size_t)(k) > avail)                                       \
			return 0;                                              \
	} while (0)

/* A rejected packet: the parser returns -(bytes it spans). */
#define BAD(len, text)                                                         \
	do {                                                                   \
		pkt->why = (text);                                             \
		return -(int)(len);                                            \
	} while (0)

/* @n (at most 8) bytes, least significant first. */
static inline uint64_t le_n(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* @ref with its low @bits replaced by @v's: an address compressed to the
 * bits that changed (IHI 0014Q 7.3.5, IHI 0035B 4.5.4). */
static inline uint32_t merge32(uint32_t ref, uint32_t v, unsigned bits)
{
	uint32_t mask = bits >= 32 ? 0xffffffffu : (1u << bits) - 1;

	return (ref & ~mask) | (v & mask);
}

/* A Gray-coded timestamp in binary (IHI 0014Q 7.7.3, IHI 0035B 4.5.9):
 * binary bit n is the XOR of Gray bits n and above. */
static inline uint64_t gray_to_binary(uint64_t g)
{
	for (unsigned s = 1; s < 64; s <<= 1)
		g ^= g >> s;
	return g;
}

/* ---- ETMv3 and PTM branch addresses (IHI 0014Q 7.3.5, IHI 0035B 4.5.4) -- */

/* Where an instruction set puts branch address bits: ARM A[7:2] in the
 * first byte, Thumb (and ThumbEE) A[6:1], Jazelle A[5:0]. With the state
 * unknown (no I-sync since sync) the ARM placement is used; such a packet
 * is flagged partial. */
static inline unsigned branch_isa_shift(unsigned isa)
{
	switch (isa) {
	case etmkit_isa_thumb:
	case etmkit_isa_thumbee: return 1;
	case etmkit_isa_jazelle: return 0;
	default: return 2;
	}
}

/* The 5th address byte gives the instruction set: b0X001aaa ARM,
 * b0X01aaaa Thumb, b0X1aaaaa Jazelle. Returns the ISA, or
 * etmkit_isa_unknown for the malformed b0X000xxx. */
static inline uint8_t branch_isa_of_5th(uint8_t b)
{
	if ((b & 0xb8) == 0x08)
		return etmkit_isa_arm;
	if ((b & 0xb0) == 0x10)
		return etmkit_isa_thumb;
	if ((b & 0xa0) == 0x20)
		return etmkit_isa_jazelle;
	return etmkit_isa_unknown;
}

#endif
