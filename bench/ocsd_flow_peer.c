/* bench: OpenCSD's full ETMv3 decode, driven through its C API.
 *
 * One decode tree per call: single-source input, the builtin "ETMV3"
 * decoder created as a full decoder, the program image as one buffer
 * memory accessor, and a generic-element callback that counts. The tree is
 * built and torn down inside the call, as a user of the C API pays it.
 */
#include "ocsd_flow_peer.h"
#include "ocsd_push.h"

#include <stdio.h>
#include <string.h>

#include <opencsd/c_api/opencsd_c_api.h>

static ocsd_datapath_resp_t count_elem(const void *ctx,
				       const ocsd_trc_index_t index_sop,
				       const uint8_t chan,
				       const ocsd_generic_trace_elem *e)
{
	struct ocsd_flow_counts *c = (struct ocsd_flow_counts *)(uintptr_t)ctx;

	(void)index_sop;
	(void)chan;
	c->elements++;
	if (e->elem_type == OCSD_GEN_TRC_ELEM_INSTR_RANGE) {
		c->ranges++;
		c->insns += e->num_instr_range;
		c->checksum += e->st_addr;
	}
	return OCSD_RESP_CONT;
}

int ocsd_flow_peer_etm3(const uint8_t *buf, size_t n, uint32_t etmcr,
			uint32_t etmidr, uint32_t etmccer, uint8_t trace_id,
			const uint8_t *mem, size_t mem_len, uint64_t mem_addr,
			struct ocsd_flow_counts *counts)
{
	dcd_tree_handle_t tree;
	unsigned char csid = 0;
	ocsd_err_t err;
	int ret = -1;

	memset(counts, 0, sizeof(*counts));
	tree = ocsd_etm3_tree(etmcr, etmidr, etmccer, trace_id, 1, &csid,
			      "ocsd_flow_peer");
	if (tree == C_API_INVALID_TREE_HANDLE)
		return -1;
	err = ocsd_dt_add_buffer_mem_acc(tree, mem_addr, OCSD_MEM_SPACE_ANY,
					 mem, (uint32_t)mem_len);
	if (err != OCSD_OK) {
		ret = ocsd_report("ocsd_flow_peer", "add memory image", err);
		goto out;
	}
	err = ocsd_dt_set_gen_elem_outfn(tree, count_elem, counts);
	if (err != OCSD_OK) {
		ret = ocsd_report("ocsd_flow_peer", "set element callback",
				  err);
		goto out;
	}
	ret = ocsd_push(tree, buf, n, "ocsd_flow_peer");
out:
	ocsd_destroy_dcd_tree(tree);
	return ret;
}
