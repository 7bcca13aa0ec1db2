/* bench: OpenCSD's ETMv3 packet processor, driven through its C API.
 *
 * One decode tree per call: single-source input (no formatter frames), the
 * builtin "ETMV3" decoder created as a packet processor only, and a packet
 * sink that counts. The tree is built and torn down inside the call; the
 * bench times the whole call, as a user of the C API would pay it.
 */
#include "ocsd_peer.h"
#include "ocsd_push.h"

#include <stdio.h>
#include <string.h>

#include <opencsd/c_api/opencsd_c_api.h>

struct peer_state {
	struct ocsd_peer_counts counts;
	int synced; /* first A_SYNC seen */
};

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
	struct peer_state *st = (struct peer_state *)(uintptr_t)ctx;
	const ocsd_etmv3_pkt *pkt = packet;

	(void)index_sop;
	if (op != OCSD_OP_DATA || !pkt)
		return OCSD_RESP_CONT;
	if (!st->synced) {
		if (pkt->type != ETM3_PKT_A_SYNC) {
			st->counts.before_sync++;
			return OCSD_RESP_CONT;
		}
		st->synced = 1;
	}
	if ((unsigned)pkt->type < OCSD_PEER_TYPES)
		st->counts.by_type[pkt->type]++;
	if (pkt->type == ETM3_PKT_NOTSYNC) {
		st->counts.notsync++;
		return OCSD_RESP_CONT;
	}
	st->counts.packets++;
	if (pkt->type == ETM3_PKT_A_SYNC)
		st->counts.a_syncs++;
	else if (is_error_type(pkt->type))
		st->counts.errors++;
	return OCSD_RESP_CONT;
}

int ocsd_peer_etm3_count(const uint8_t *buf, size_t n, uint32_t etmcr,
			 uint32_t etmidr, uint32_t etmccer, uint8_t trace_id,
			 struct ocsd_peer_counts *counts)
{
	struct peer_state st;
	dcd_tree_handle_t tree;
	unsigned char csid = 0;
	ocsd_err_t err;
	int ret = -1;

	if (!buf && n)
		return -1;
	memset(&st, 0, sizeof(st));
	tree = ocsd_etm3_tree(etmcr, etmidr, etmccer, trace_id, 0, &csid,
			      "ocsd_peer");
	if (tree == C_API_INVALID_TREE_HANDLE)
		return -1;
	err = ocsd_dt_attach_packet_callback(tree, csid,
					     OCSD_C_API_CB_PKT_SINK,
					     (void *)(uintptr_t)count_packet,
					     &st);
	if (err != OCSD_OK) {
		ret = ocsd_report("ocsd_peer", "attach packet sink", err);
		goto out;
	}
	ret = ocsd_push(tree, buf, n, "ocsd_peer");
out:
	ocsd_destroy_dcd_tree(tree);
	if (ret == 0 && counts)
		*counts = st.counts;
	return ret;
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

const char *ocsd_peer_version(void)
{
	return ocsd_get_version_str();
}
