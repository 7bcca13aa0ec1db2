/* bench: OpenCSD's ETMv3 packet processor as a peer to measure etmkit
 * against (same input, same packet count, wall-clock per byte).
 *
 * Built only when libopencsd-dev is installed (ETMKIT_HAVE_OPENCSD). Uses
 * OpenCSD's C API only, so this file and its users stay C11.
 */
#ifndef ETMKIT_BENCH_OCSD_PEER_H
#define ETMKIT_BENCH_OCSD_PEER_H

#include <stddef.h>
#include <stdint.h>

/* Bound on OpenCSD's ETMv3 packet type values (ocsd_etmv3_pkt_type). */
#define OCSD_PEER_TYPES 32

/* What the OpenCSD packet processor reported for one buffer. */
struct ocsd_peer_counts {
	/* Packets from the first A-sync on, excluding NOTSYNC runs (OpenCSD's
	 * name for the bytes etmkit reports as `unsynced` records): the number
	 * comparable with etmkit's real packets. */
	uint64_t packets;
	uint64_t before_sync; /* packets of any kind before the first A-sync */
	uint64_t notsync;     /* NOTSYNC runs after the first A-sync */
	uint64_t errors;      /* BAD_SEQUENCE, BAD_TRACEMODE, RESERVED,
				 INCOMPLETE_EOT (also counted in packets) */
	uint64_t a_syncs;     /* A_SYNC packets (included in packets) */
	/* From the first A-sync on, by OpenCSD packet type (ocsd_etmv3_pkt_type,
	 * NOTSYNC included); name them with ocsd_peer_type_name(). */
	uint64_t by_type[OCSD_PEER_TYPES];
};

/* Decode @buf[0..n) — the byte stream of one ETMv3 source, no formatter
 * frames — with OpenCSD's builtin ETMv3 packet processor (packet-only mode,
 * ARMv7 Cortex-A profile) configured from the three registers and @trace_id,
 * and count what it emits. Fills @counts (may be NULL).
 * Returns 0, or -1 if OpenCSD refused the set-up or reported a fatal
 * datapath error (a message is written to stderr: this is a tool, not the
 * library). */
int ocsd_peer_etm3_count(const uint8_t *buf, size_t n, uint32_t etmcr,
			 uint32_t etmidr, uint32_t etmccer, uint8_t trace_id,
			 struct ocsd_peer_counts *counts);

/* As ocsd_peer_etm3_count(); *@packets_out receives counts.packets. */
int ocsd_peer_etm3_packets(const uint8_t *buf, size_t n, uint32_t etmcr,
			   uint32_t etmidr, uint32_t etmccer, uint8_t trace_id,
			   uint64_t *packets_out);

/* etmkit's JSON name for OpenCSD packet type @type ("p_header",
 * "unsynced" for NOTSYNC, ...); OpenCSD-only kinds keep an OpenCSD-style
 * name ("bad_sequence", "incomplete_eot"); NULL for an unused value. */
const char *ocsd_peer_type_name(unsigned type);

/* OpenCSD's version string, e.g. "1.3.3". */
const char *ocsd_peer_version(void);

#endif /* ETMKIT_BENCH_OCSD_PEER_H */
