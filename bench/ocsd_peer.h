/* bench: OpenCSD's ETMv3, PTM and ETMv4/ETE packet processors as peers to
 * measure etmkit against (same input, same packet count, wall-clock per
 * byte).
 *
 * Built only when libopencsd-dev is installed (ETMKIT_HAVE_OPENCSD). Uses
 * OpenCSD's C API only, so this file and its users stay C11.
 */
#ifndef ETMKIT_BENCH_OCSD_PEER_H
#define ETMKIT_BENCH_OCSD_PEER_H

#include <stddef.h>
#include <stdint.h>

#include "etmkit/etm4.h"

/* Bound on OpenCSD's ETMv3 packet type values (ocsd_etmv3_pkt_type). */
#define OCSD_PEER_TYPES 32

/* Bound on OpenCSD's ETMv4/ETE packet type values (ocsd_etmv4_i_pkt_type:
 * headers 0x00-0xFF, extension packets 0x1xx, markers 0x2xx, errors 0x3xx,
 * ETE exception kinds 0x4xx). */
#define OCSD_PEER4_TYPES 0x500

/* What an OpenCSD packet processor (ETMv3, or ETMv4/ETE) reported for one
 * buffer. */
struct ocsd_peer_counts {
	/* Packets from the first A-sync on, excluding NOTSYNC runs (OpenCSD's
	 * name for the bytes etmkit reports as `unsynced` records): the number
	 * comparable with etmkit's real packets. */
	uint64_t packets;
	uint64_t before_sync; /* packets of any kind before the first A-sync */
	uint64_t notsync;     /* NOTSYNC runs after the first A-sync */
	uint64_t errors;      /* BAD_SEQUENCE, BAD_TRACEMODE, RESERVED,
				 (ETMv4: RESERVED_CFG,) INCOMPLETE_EOT (also
				 counted in packets) */
	uint64_t a_syncs;     /* A-sync packets (included in packets) */
	/* From the first A-sync on, by OpenCSD packet type (NOTSYNC
	 * included): ocsd_etmv3_pkt_type below OCSD_PEER_TYPES, named by
	 * ocsd_peer_type_name(); ocsd_etmv4_i_pkt_type, named by
	 * ocsd_peer_etm4_type_name(). */
	uint64_t by_type[OCSD_PEER4_TYPES];
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

/* Decode @buf[0..n) — the byte stream of one PTM source, no formatter
 * frames — with OpenCSD's builtin PTM packet processor (packet-only mode,
 * ARMv7 Cortex-A) configured from the three registers and @trace_id, and
 * count what it emits (by_type indexed by ocsd_ptm_pkt_type, named by
 * ocsd_peer_ptm_type_name()). Returns 0, or -1 after a message on
 * stderr. */
int ocsd_peer_ptm_count(const uint8_t *buf, size_t n, uint32_t etmcr,
			uint32_t etmidr, uint32_t etmccer, uint8_t trace_id,
			struct ocsd_peer_counts *counts);

/* etmkit's name (ptm_pkt_type_name()) for OpenCSD PTM packet type @type;
 * OpenCSD-only kinds keep an OpenCSD-style name ("bad_sequence",
 * "incomplete_eot"); NULL for an unused value. */
const char *ocsd_peer_ptm_type_name(unsigned type);

/* Decode @buf[0..n) (the bytes of one ETMv4 or ETE source, no frames)
 * with OpenCSD's builtin ETMv4 packet processor (packet-only mode,
 * ocsd_etm4_pkt_tree(): ETE sources too, configured as OpenCSD's ETE
 * decoder would be) from @cfg and @trace_id, and count what it emits. Fills @counts (may be NULL). Returns 0, or -1 after a message on
 * stderr. */
int ocsd_peer_etm4_count(const uint8_t *buf, size_t n,
			 const struct etm4_config *cfg, uint8_t trace_id,
			 struct ocsd_peer_counts *counts);

/* etmkit's name (etm4_pkt_type_name()) for OpenCSD ETMv4/ETE packet type
 * @type: "atom" for every atom format, "cycle_count" for every cycle count
 * format, "exception" also for ETE's PE_RESET and TRANS_FAIL, "unsynced"
 * for NOTSYNC. OpenCSD-only kinds keep an OpenCSD-style name
 * ("bad_sequence", "incomplete_eot", ...); NULL for an unused value. */
const char *ocsd_peer_etm4_type_name(unsigned type);

/* OpenCSD's version string, e.g. "1.3.3". */
const char *ocsd_peer_version(void);

#endif /* ETMKIT_BENCH_OCSD_PEER_H */
