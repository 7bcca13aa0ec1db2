/* bench: OpenCSD's ETMv3, PTM and ETMv4/ETE packet processors, driven
 * through its C API.
 *
 * One decode tree per call: single-source input (no formatter frames), the
 * builtin "ETMV3", "PTM", "ETMV4I" or "ETE" decoder created as a packet
 * processor only, and a packet sink that counts. The tree is built and torn down inside the call; the
 * bench times the whole call, as a user of the C API would pay it.
 */
#include "ocsd_peer.h"
#include "ocsd_push.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opencsd/c_api/opencsd_c_api.h>

struct peer_state {
	struct ocsd_peer_counts counts;
	int synced; /* first A-sync seen */
};

/* One packet of OpenCSD type @type into @st (either protocol): counted
 * from the first A-sync on, NOTSYNC apart. */
static void tally(struct peer_state *st, unsigned type, int async,
		  int notsync, int error)
{
	if (!st->synced) {
		if (!async) {
			st->counts.before_sync++;
			return;
		}
		st->synced = 1;
	}
	if (type < OCSD_PEER4_TYPES)
		st->counts.by_type[type]++;
	if (notsync) {
		st->counts.notsync++;
		return;
	}
	st->counts.packets++;
	st->counts.a_syncs += (uint64_t)async;
	st->counts.errors += (uint64_t)error;
}

/* Attach packet sink @sink to @tree's decoder @csid, push @buf[0..n)
 * through, destroy the tree; the counts into @counts (may be NULL).
 * Returns 0, or -1 after a message on stderr. */
static int count_with(dcd_tree_handle_t tree, unsigned char csid,
		      void *sink, const uint8_t *buf, size_t n,
		      struct ocsd_peer_counts *counts)
{
	/* by_type is 10 KiB: not on the stack of a callback's caller. */
	struct peer_state *st = calloc(1, sizeof(*st));
	ocsd_err_t err;
	int ret;

	if (!st) {
		fprintf(stderr, "ocsd_peer: out of memory\n");
		ocsd_destroy_dcd_tree(tree);
		return -1;
	}
	err = ocsd_dt_attach_packet_callback(tree, csid,
					     OCSD_C_API_CB_PKT_SINK, sink, st);
	if (err != OCSD_OK)
		ret = ocsd_report("ocsd_peer", "attach packet sink", err);
	else
		ret = ocsd_push(tree, buf, n, "ocsd_peer");
	ocsd_destroy_dcd_tree(tree);
	if (ret == 0 && counts)
		*counts = st->counts;
	free(st);
	return ret;
}

static int is_error_type(ocsd_etmv3_pkt_type type)
{
	return type == ETM3_PKT_BAD_SEQUENCE || type == ETM3_PKT_BAD_TRACEMODE ||
	       type == ETM3_PKT_RESERVED || type == ETM3_PKT_INCOMPLETE_EOT;
}

/* Packet sink (OCSD_C_API_CB_PKT_SINK): called once per packet with
 * OCSD_OP_DATA, and with EOT/FLUSH/RESET operations without a packet. */
static ocsd_datapath_resp_t count_packet(const void *ctx,
					 const ocsd_datapath_op_t op,
					 const ocsd_trc_index_t index_sop,
					 const void *packet)
{
	const ocsd_etmv3_pkt *pkt = packet;

	(void)index_sop;
	if (op == OCSD_OP_DATA && pkt)
		tally((struct peer_state *)(uintptr_t)ctx, pkt->type,
		      pkt->type == ETM3_PKT_A_SYNC,
		      pkt->type == ETM3_PKT_NOTSYNC, is_error_type(pkt->type));
	return OCSD_RESP_CONT;
}

int ocsd_peer_etm3_count(const uint8_t *buf, size_t n, uint32_t etmcr,
			 uint32_t etmidr, uint32_t etmccer, uint8_t trace_id,
			 struct ocsd_peer_counts *counts)
{
	dcd_tree_handle_t tree;
	unsigned char csid = 0;

	if (!buf && n)
		return -1;
	tree = ocsd_etm3_tree(etmcr, etmidr, etmccer, trace_id, 0, &csid,
			      "ocsd_peer");
	if (tree == C_API_INVALID_TREE_HANDLE)
		return -1;
	return count_with(tree, csid, (void *)(uintptr_t)count_packet, buf, n,
			  counts);
}

int ocsd_peer_etm3_packets(const uint8_t *buf, size_t n, uint32_t etmcr,
			   uint32_t etmidr, uint32_t etmccer, uint8_t trace_id,
			   uint64_t *packets_out)
{
	struct ocsd_peer_counts counts;
	int ret;

	ret = ocsd_peer_etm3_count(buf, n, etmcr, etmidr, etmccer, trace_id,
				   &counts);
	if (ret == 0 && packets_out)
		*packets_out = counts.packets;
	return ret;
}

const char *ocsd_peer_type_name(unsigned type)
{
	switch (type) {
	case ETM3_PKT_NOTSYNC: return "unsynced";
	case ETM3_PKT_INCOMPLETE_EOT: return "incomplete_eot";
	case ETM3_PKT_BRANCH_ADDRESS: return "branch_address";
	case ETM3_PKT_A_SYNC: return "a_sync";
	case ETM3_PKT_CYCLE_COUNT: return "cycle_count";
	case ETM3_PKT_I_SYNC: return "i_sync";
	case ETM3_PKT_I_SYNC_CYCLE: return "i_sync_cycle";
	case ETM3_PKT_TRIGGER: return "trigger";
	case ETM3_PKT_P_HDR: return "p_header";
	case ETM3_PKT_STORE_FAIL: return "store_failed";
	case ETM3_PKT_OOO_DATA: return "ooo_data";
	case ETM3_PKT_OOO_ADDR_PLC: return "ooo_placeholder";
	case ETM3_PKT_NORM_DATA: return "normal_data";
	case ETM3_PKT_DATA_SUPPRESSED: return "data_suppressed";
	case ETM3_PKT_VAL_NOT_TRACED: return "value_not_traced";
	case ETM3_PKT_IGNORE: return "ignore";
	case ETM3_PKT_CONTEXT_ID: return "context_id";
	case ETM3_PKT_VMID: return "vmid";
	case ETM3_PKT_EXCEPTION_ENTRY: return "exception_entry";
	case ETM3_PKT_EXCEPTION_EXIT: return "exception_exit";
	case ETM3_PKT_TIMESTAMP: return "timestamp";
	case ETM3_PKT_BAD_SEQUENCE: return "bad_sequence";
	case ETM3_PKT_BAD_TRACEMODE: return "bad_tracemode";
	case ETM3_PKT_RESERVED: return "reserved";
	default: return NULL;
	}
}

/* ---- PTM ------------------------------------------------------------------ */

static int is_error_type_ptm(ocsd_ptm_pkt_type type)
{
	return type == PTM_PKT_BAD_SEQUENCE || type == PTM_PKT_RESERVED ||
	       type == PTM_PKT_INCOMPLETE_EOT;
}

/* Packet sink for ocsd_ptm_pkt, as count_packet(). */
static ocsd_datapath_resp_t count_packet_ptm(const void *ctx,
					     const ocsd_datapath_op_t op,
					     const ocsd_trc_index_t index_sop,
					     const void *packet)
{
	const ocsd_ptm_pkt *pkt = packet;

	(void)index_sop;
	if (op == OCSD_OP_DATA && pkt)
		tally((struct peer_state *)(uintptr_t)ctx, pkt->type,
		      pkt->type == PTM_PKT_A_SYNC, pkt->type == PTM_PKT_NOTSYNC,
		      is_error_type_ptm(pkt->type));
	return OCSD_RESP_CONT;
}

int ocsd_peer_ptm_count(const uint8_t *buf, size_t n, uint32_t etmcr,
			uint32_t etmidr, uint32_t etmccer, uint8_t trace_id,
			struct ocsd_peer_counts *counts)
{
	dcd_tree_handle_t tree;
	unsigned char csid = 0;

	if (!buf && n)
		return -1;
	tree = ocsd_ptm_tree(etmcr, etmidr, etmccer, trace_id, 0, &csid,
			     "ocsd_peer");
	if (tree == C_API_INVALID_TREE_HANDLE)
		return -1;
	return count_with(tree, csid, (void *)(uintptr_t)count_packet_ptm, buf,
			  n, counts);
}

const char *ocsd_peer_ptm_type_name(unsigned type)
{
	switch (type) {
	case PTM_PKT_NOTSYNC: return "unsynced";
	case PTM_PKT_INCOMPLETE_EOT: return "incomplete_eot";
	case PTM_PKT_BRANCH_ADDRESS: return "branch_address";
	case PTM_PKT_A_SYNC: return "a_sync";
	case PTM_PKT_I_SYNC: return "i_sync";
	case PTM_PKT_TRIGGER: return "trigger";
	case PTM_PKT_WPOINT_UPDATE: return "waypoint_update";
	case PTM_PKT_IGNORE: return "ignore";
	case PTM_PKT_CONTEXT_ID: return "context_id";
	case PTM_PKT_VMID: return "vmid";
	case PTM_PKT_ATOM: return "atom";
	case PTM_PKT_TIMESTAMP: return "timestamp";
	case PTM_PKT_EXCEPTION_RET: return "exception_return";
	case PTM_PKT_BAD_SEQUENCE: return "bad_sequence";
	case PTM_PKT_RESERVED: return "reserved";
	default: return NULL;
	}
}

/* ---- ETMv4 and ETE ------------------------------------------------------- */

static int is_error_type4(ocsd_etmv4_i_pkt_type type)
{
	return type == ETM4_PKT_I_BAD_SEQUENCE ||
	       type == ETM4_PKT_I_BAD_TRACEMODE ||
	       type == ETM4_PKT_I_RESERVED || type == ETM4_PKT_I_RESERVED_CFG ||
	       type == ETM4_PKT_I_INCOMPLETE_EOT;
}

/* Packet sink for ocsd_etmv4_i_pkt (ETMv4 and ETE alike), as
 * count_packet(). */
static ocsd_datapath_resp_t count_packet4(const void *ctx,
					  const ocsd_datapath_op_t op,
					  const ocsd_trc_index_t index_sop,
					  const void *packet)
{
	const ocsd_etmv4_i_pkt *pkt = packet;

	(void)index_sop;
	if (op == OCSD_OP_DATA && pkt)
		tally((struct peer_state *)(uintptr_t)ctx, pkt->type,
		      pkt->type == ETM4_PKT_I_ASYNC,
		      pkt->type == ETM4_PKT_I_NOTSYNC,
		      is_error_type4(pkt->type));
	return OCSD_RESP_CONT;
}

int ocsd_peer_etm4_count(const uint8_t *buf, size_t n,
			 const struct etm4_config *cfg, uint8_t trace_id,
			 struct ocsd_peer_counts *counts)
{
	dcd_tree_handle_t tree;
	unsigned char csid = 0;

	if (!buf && n)
		return -1;
	tree = ocsd_etm4_pkt_tree(cfg, trace_id, &csid, "ocsd_peer");
	if (tree == C_API_INVALID_TREE_HANDLE)
		return -1;
	return count_with(tree, csid, (void *)(uintptr_t)count_packet4, buf, n,
			  counts);
}

/* etmkit's names for OpenCSD's packet kinds that have one (several
 * OpenCSD types per etmkit type: formats, address sizes). */
static const char *etm4_name_of(ocsd_etmv4_i_pkt_type t)
{
	switch (t) {
	case ETM4_PKT_I_NOTSYNC: return "unsynced";
	case ETM4_PKT_I_ASYNC: return "a_sync";
	case ETM4_PKT_I_TRACE_INFO: return "trace_info";
	case ETM4_PKT_I_TRACE_ON: return "trace_on";
	case ETM4_PKT_I_TIMESTAMP: return "timestamp";
	case ETE_PKT_I_TS_MARKER: return "ts_marker";
	case ETM4_PKT_I_EXCEPT: case ETE_PKT_I_PE_RESET:
	case ETE_PKT_I_TRANS_FAIL: return "exception";
	case ETM4_PKT_I_EXCEPT_RTN: return "exception_return";
	case ETM4_PKT_I_FUNC_RET: return "function_return";
	case ETM4_PKT_I_CCNT_F1: case ETM4_PKT_I_CCNT_F2:
	case ETM4_PKT_I_CCNT_F3: return "cycle_count";
	case ETM4_PKT_I_COMMIT: return "commit";
	case ETM4_PKT_I_CANCEL_F1: case ETM4_PKT_I_CANCEL_F1_MISPRED:
	case ETM4_PKT_I_CANCEL_F2: case ETM4_PKT_I_CANCEL_F3: return "cancel";
	case ETM4_PKT_I_MISPREDICT: return "mispredict";
	case ETM4_PKT_I_DISCARD: return "discard";
	case ETM4_PKT_I_OVERFLOW: return "overflow";
	case ETM4_PKT_I_ATOM_F1: case ETM4_PKT_I_ATOM_F2:
	case ETM4_PKT_I_ATOM_F3: case ETM4_PKT_I_ATOM_F4:
	case ETM4_PKT_I_ATOM_F5: case ETM4_PKT_I_ATOM_F6: return "atom";
	case ETM4_PKT_I_Q: return "q";
	case ETM4_PKT_I_CTXT: return "context";
	default: return NULL;
	}
}

static const char *etm4_name_of2(ocsd_etmv4_i_pkt_type t)
{
	switch (t) {
	case ETM4_PKT_I_ADDR_MATCH: case ETM4_PKT_I_ADDR_S_IS0:
	case ETM4_PKT_I_ADDR_S_IS1: case ETM4_PKT_I_ADDR_L_32IS0:
	case ETM4_PKT_I_ADDR_L_32IS1: case ETM4_PKT_I_ADDR_L_64IS0:
	case ETM4_PKT_I_ADDR_L_64IS1: return "address";
	case ETM4_PKT_I_ADDR_CTXT_L_32IS0: case ETM4_PKT_I_ADDR_CTXT_L_32IS1:
	case ETM4_PKT_I_ADDR_CTXT_L_64IS0:
	case ETM4_PKT_I_ADDR_CTXT_L_64IS1: return "address_context";
	case ETE_PKT_I_SRC_ADDR_MATCH: case ETE_PKT_I_SRC_ADDR_S_IS0:
	case ETE_PKT_I_SRC_ADDR_S_IS1: case ETE_PKT_I_SRC_ADDR_L_32IS0:
	case ETE_PKT_I_SRC_ADDR_L_32IS1: case ETE_PKT_I_SRC_ADDR_L_64IS0:
	case ETE_PKT_I_SRC_ADDR_L_64IS1: return "source_address";
	case ETM4_PKT_I_EVENT: return "event";
	case ETE_PKT_I_TRANS_ST: return "transaction_start";
	case ETE_PKT_I_TRANS_COMMIT: return "transaction_commit";
	case ETM4_PKT_I_IGNORE: return "ignore";
	case ETM4_PKT_I_COND_I_F1: case ETM4_PKT_I_COND_I_F2:
	case ETM4_PKT_I_COND_I_F3: return "cond_instr";
	case ETM4_PKT_I_COND_RES_F1: case ETM4_PKT_I_COND_RES_F2:
	case ETM4_PKT_I_COND_RES_F3: case ETM4_PKT_I_COND_RES_F4:
		return "cond_result";
	case ETM4_PKT_I_COND_FLUSH: return "cond_flush";
	case ETM4_PKT_I_NUM_DS_MKR: case ETM4_PKT_I_UNNUM_DS_MKR:
		return "data_sync";
	default: return NULL;
	}
}

/* OpenCSD-only kinds: errors, markers, unused headers. */
static const char *ocsd_only_name(ocsd_etmv4_i_pkt_type t)
{
	switch (t) {
	case ETM4_PKT_I_INCOMPLETE_EOT: return "incomplete_eot";
	case ETM4_PKT_I_NO_ERR_TYPE: return "no_err_type";
	case ETM4_PKT_I_BAD_SEQUENCE: return "bad_sequence";
	case ETM4_PKT_I_BAD_TRACEMODE: return "bad_tracemode";
	case ETM4_PKT_I_RESERVED: return "reserved";
	case ETM4_PKT_I_RESERVED_CFG: return "reserved_cfg";
	case ETM4_PKT_I_EXTENSION: return "extension";
	case ETE_PKT_I_COMMIT_WIN_MV: return "commit_window_move";
	default: return NULL;
	}
}

const char *ocsd_peer_etm4_type_name(unsigned type)
{
	ocsd_etmv4_i_pkt_type t = (ocsd_etmv4_i_pkt_type)type;
	const char *name = etm4_name_of(t);

	if (!name)
		name = etm4_name_of2(t);
	return name ? name : ocsd_only_name(t);
}

const char *ocsd_peer_version(void)
{
	return ocsd_get_version_str();
}
