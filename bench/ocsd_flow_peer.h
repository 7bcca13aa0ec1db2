/* bench: OpenCSD's full ETMv3 decode (packets, then program flow through a
 * memory image) as a peer to measure etmkit's flow decoder against.
 *
 * Built only when libopencsd-dev is installed (ETMKIT_HAVE_OPENCSD). Uses
 * OpenCSD's C API only.
 */
#ifndef ETMKIT_BENCH_OCSD_FLOW_PEER_H
#define ETMKIT_BENCH_OCSD_FLOW_PEER_H

#include <stddef.h>
#include <stdint.h>

struct ocsd_flow_counts {
	uint64_t insns;     /* instructions in INSTR_RANGE elements */
	uint64_t ranges;    /* INSTR_RANGE elements */
	uint64_t elements;  /* generic elements of any kind */
	uint64_t checksum;  /* sum of range start addresses (compared with
			       etmkit's instruction addresses when every
			       range holds one instruction) */
};

/* Decode @buf[0..n) (the bytes of one ETMv3 source, no frames) with
 * OpenCSD's builtin ETMV3 full decoder (ARMv7 Cortex-A), the memory image
 * being @mem[0..mem_len) at @mem_addr, and count the generic elements.
 * Returns 0, or -1 after a message on stderr. */
int ocsd_flow_peer_etm3(const uint8_t *buf, size_t n, uint32_t etmcr,
			uint32_t etmidr, uint32_t etmccer, uint8_t trace_id,
			const uint8_t *mem, size_t mem_len, uint64_t mem_addr,
			struct ocsd_flow_counts *counts);

#endif
