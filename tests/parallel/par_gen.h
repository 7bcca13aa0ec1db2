/* Test support for the parallel decode (include/etmkit/parallel.h), shared
 * by tests/unit/test_parallel*.c and fuzz/fuzz_parallel.c:
 * - encoder round-trip streams with many sync points (the ETMv3 and ETE
 *   encoders of src/encode over fuzz_encode's random programs and walks,
 *   fuzz/fuzz_encode_walk.c), with their image and flow configuration;
 * - the check: a serial flow decode of a buffer against the parallel one
 *   (the runner, and the bring-your-own-threads API with pieces decoded
 *   in reverse order), element by element, every field, and the stats.
 * Never prints except through par_check's @why. */
#ifndef ETMKIT_PAR_GEN_H
#define ETMKIT_PAR_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "etmkit/flow.h"
#include "etmkit/image.h"
#include "etmkit/parallel.h"

struct par_stream {
	int proto;                 /* enum etmkit_par_protocol */
	uint8_t *bytes;            /* malloc'd */
	size_t n;
	struct image *img;
	struct etm3_flow_config c3;
	struct etm4_flow_config c4;
	struct ptm_flow_config cp;
};

/* Encode a walk steered by @walk[0..@nwalk) (at most 8192 bytes used)
 * over a random program: @proto 0 ETMv3, 1 ETMv4 A64, 2 ETE, 3 ETMv4
 * A32/T32, 4 PTM; @opt bits vary the configuration (cycle accuracy,
 * context IDs, timestamps, speculation depth...; PTM: bit 0 cycle
 * accuracy, bits 1-2 the code (A32 and T32, A32, T32), 8-9 the context
 * ID size, 0x400 branch broadcast, 0x800 64-bit timestamps, 0x1000
 * Virtualization Extensions, 0x2000 timestamps, 0x4000 VMID, 0x8000
 * return stack, 0x10000 PFTv1.1, 0x20000 DMB/DSB waypoints, 0x40000
 * binary timestamps); a sync point about every @sync_period bytes.
 * Returns 0, or -1 (the configuration refused). */
int par_gen(struct par_stream *s, unsigned proto, uint32_t opt,
	    uint32_t sync_period, const uint8_t *walk, size_t nwalk);
void par_gen_free(struct par_stream *s);

/* The serial flow decode of @buf[0..@n) with @cfg (proto and flow
 * configs) against the parallel ones at each piece size @pieces[i]: the
 * bring-your-own-threads API (pieces decoded last to first, then joined)
 * and the runner at each of @jobs[0..@njobs) threads. 0 when every one
 * equals the serial decode (elements as elem_same() with offsets, and the
 * stats), else -1 with the first difference in @why (@nwhy bytes). Adds
 * to *@fallbacks (the first thread count's) and *@joins (if not NULL). */
int par_check(const struct etmkit_par_config *cfg, const uint8_t *buf,
	      size_t n, const size_t *pieces, size_t npieces,
	      const unsigned *jobs, size_t njobs, char *why, size_t nwhy,
	      uint64_t *fallbacks, uint64_t *joins);

#endif
