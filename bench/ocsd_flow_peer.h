/* bench: OpenCSD's full ETMv3, PTM, ETMv4 and ETE decode (packets, then
 * program flow through a memory image) as a peer to measure etmkit's flow
 * decoders against.
 *
 * Built only when libopencsd-dev is installed (ETMKIT_HAVE_OPENCSD). Uses
 * OpenCSD's C API only.
 */
#ifndef ETMKIT_BENCH_OCSD_FLOW_PEER_H
#define ETMKIT_BENCH_OCSD_FLOW_PEER_H

#include <stddef.h>
#include <stdint.h>

#include "etmkit/etm4.h"

struct ocsd_flow_counts {
	uint64_t insns;     /* instructions in INSTR_RANGE elements */
	uint64_t ranges;    /* INSTR_RANGE elements */
	uint64_t elements;  /* generic elements of any kind */
	uint64_t checksum;  /* sum of range start addresses (compared with
			       etmkit's instruction addresses when every
			       range holds one instruction) */
	/* ocsd_flow_peer_etm4() only: */
	uint64_t addr_sum;  /* sum of the addresses of every instruction in
			       A64 ranges (4 bytes each) */
	uint64_t other_ranges; /* ranges in another instruction set: when
				  non-zero, addr_sum covers only part */
};

/* A region of the program image for OpenCSD: @n bytes at @data, mapped at
 * @addr for the memory spaces @spaces (IMAGE_SPACE_* of etmkit/image.h;
 * OpenCSD knows only the first five bits, an empty result is any). */
struct ocsd_mem_region {
	const uint8_t *data;
	size_t n;
	uint64_t addr;
	uint8_t spaces;
};

/* Decode @buf[0..n) (the bytes of one ETMv3 source, no frames) with
 * OpenCSD's builtin ETMV3 full decoder (ARMv7 Cortex-A), the memory image
 * being the @nmem regions of @mem, and count the generic elements.
 * Returns 0, or -1 after a message on stderr. */
int ocsd_flow_peer_etm3(const uint8_t *buf, size_t n, uint32_t etmcr,
			uint32_t etmidr, uint32_t etmccer, uint8_t trace_id,
			const struct ocsd_mem_region *mem, size_t nmem,
			struct ocsd_flow_counts *counts);

/* The same with OpenCSD's builtin PTM full decoder (ocsd_ptm_tree()). */
int ocsd_flow_peer_ptm(const uint8_t *buf, size_t n, uint32_t etmcr,
		       uint32_t etmidr, uint32_t etmccer, uint8_t trace_id,
		       const struct ocsd_mem_region *mem, size_t nmem,
		       struct ocsd_flow_counts *counts);

/* Decode @buf[0..n) (the bytes of one ETMv4 or ETE source, no frames)
 * with OpenCSD's builtin ETMV4I or ETE full decoder (ocsd_etm4_tree()),
 * the memory image being the @nmem regions of @mem, and count the
 * generic elements. Returns 0, or -1 after a message on stderr. */
int ocsd_flow_peer_etm4(const uint8_t *buf, size_t n,
			const struct etm4_config *cfg, uint8_t trace_id,
			const struct ocsd_mem_region *mem, size_t nmem,
			struct ocsd_flow_counts *counts);

#endif
