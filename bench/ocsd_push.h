/* bench: setting up an OpenCSD decode tree and pushing a buffer through
 * it (C API), shared by the peers. */
#ifndef ETMKIT_BENCH_OCSD_PUSH_H
#define ETMKIT_BENCH_OCSD_PUSH_H

#include <stddef.h>
#include <stdint.h>

#include <opencsd/c_api/opencsd_c_api.h>

#include "etmkit/etm4.h"

/* Push @buf[0..n) through @tree, then end of trace. A WAIT response means a
 * sink asked to pause: the API wants OCSD_OP_FLUSH until it answers CONT,
 * then the data resumes where it stopped. Returns 0, or -1 after a message
 * on stderr prefixed with @who. */
int ocsd_push(dcd_tree_handle_t tree, const uint8_t *buf, size_t n,
	      const char *who);

/* As ocsd_push() without the end of trace: the bytes are numbered from
 * @index on (OpenCSD's trace index), and the tree takes more after them
 * (perf feeds each AUX record so, after an OCSD_OP_RESET). */
int ocsd_push_at(dcd_tree_handle_t tree, const uint8_t *buf, size_t n,
		 uint64_t index, const char *who);

/* Print "@who: @what: OpenCSD's text for @err" on stderr; returns -1. */
int ocsd_report(const char *who, const char *what, ocsd_err_t err);

/* A single-source decode tree holding OpenCSD's builtin ETMv3 decoder for
 * an ARMv7 Cortex-A core with these registers, as a packet processor only
 * or (@full) a full decoder; *@csid is its source. Returns the tree, or
 * C_API_INVALID_TREE_HANDLE after a message prefixed with @who. */
dcd_tree_handle_t ocsd_etm3_tree(uint32_t etmcr, uint32_t etmidr,
				 uint32_t etmccer, uint8_t trace_id, int full,
				 unsigned char *csid, const char *who);

/* As ocsd_etm3_tree(), and with @framed the tree takes CoreSight
 * formatter frames aligned in memory (OCSD_DFRMTR_FRAME_MEM_ALIGN), as
 * perf and simpleperf feed AUX data, instead of a single source. */
dcd_tree_handle_t ocsd_etm3_framed_tree(uint32_t etmcr, uint32_t etmidr,
					uint32_t etmccer, uint8_t trace_id,
					int full, int framed,
					unsigned char *csid, const char *who);

/* A single-source decode tree holding OpenCSD's builtin PTM decoder for
 * an ARMv7 Cortex-A core with these registers (PFT's have ETMv3's
 * names), as a packet processor only or (@full) a full decoder; *@csid is
 * its source. Returns the tree, or C_API_INVALID_TREE_HANDLE after a
 * message prefixed with @who. */
dcd_tree_handle_t ocsd_ptm_tree(uint32_t etmcr, uint32_t etmidr,
				uint32_t etmccer, uint8_t trace_id, int full,
				unsigned char *csid, const char *who);

/* A single-source decode tree holding OpenCSD's builtin ETMv4
 * instruction decoder (ETMV4I), or its ETE decoder when @cfg has
 * ETM4_CFG_ETE, for an A-profile core with @cfg's registers and trace ID
 * @trace_id: ETMv4 as ARMv8 (ARCH_V8), ETE as ARMv8.3 or later with the
 * AArch64 extensions (ARCH_AA64), as OpenCSD's snapshot reader does for
 * the cores of juno_r1_1 (Cortex-A53) and of the ETE snapshots
 * (ARM-AA64). Full decoder or (!@full) packet processor; *@csid is its
 * source. Returns the tree, or C_API_INVALID_TREE_HANDLE after a message prefixed
 * with @who. */
dcd_tree_handle_t ocsd_etm4_tree(const struct etm4_config *cfg,
				 uint8_t trace_id, int full,
				 unsigned char *csid, const char *who);

/* As ocsd_etm4_tree(), framed as ocsd_etm3_framed_tree(). */
dcd_tree_handle_t ocsd_etm4_framed_tree(const struct etm4_config *cfg,
					uint8_t trace_id, int full, int framed,
					unsigned char *csid, const char *who);

/* A single-source decode tree holding OpenCSD's ETMv4 packet processor
 * (ETMV4I, packet processor only) for @cfg's registers, ETMv4 or ETE.
 * OpenCSD's ETE decoder is the same ETMv4 packet processor with a
 * configuration that takes its version from TRCDEVARCH (ETEConfig), and
 * ETE-only packets are decoded when that version is 5 or more; but its C
 * API (1.3.3) attaches packet sinks to ETMV4I, ETMV3, PTM and STM decoders
 * only (OCSD_ERR_NO_PROTOCOL for ETE). So an ETE source gets ETMV4I with
 * the registers ETEConfig would give it: the same packet processor, the
 * same packets. Returns the tree, or C_API_INVALID_TREE_HANDLE after a
 * message prefixed with @who. */
dcd_tree_handle_t ocsd_etm4_pkt_tree(const struct etm4_config *cfg,
				     uint8_t trace_id, unsigned char *csid,
				     const char *who);

/* As ocsd_ptm_tree(), framed as ocsd_etm3_framed_tree() (perf_ocsd's
 * PTM sources). */
dcd_tree_handle_t ocsd_ptm_framed_tree(uint32_t etmcr, uint32_t etmidr,
				       uint32_t etmccer, uint8_t trace_id,
				       int full, int framed,
				       unsigned char *csid, const char *who);

#endif
