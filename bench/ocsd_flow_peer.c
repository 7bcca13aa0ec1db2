/* bench: OpenCSD's full ETMv3, PTM, ETMv4 and ETE decode, driven through
 * its C API.
 *
 * One decode tree per call: single-source input, the builtin "ETMV3",
 * "PTM", "ETMV4I" or "ETE" decoder created as a full decoder, the
 * program image as buffer memory accessors, and a generic-element callback that counts. The
 * tree is built and torn down inside the call, as a user of the C API pays
 * it.
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

/* As count_elem(), and the sum of the instruction addresses of each A64
 * range: its n instructions are 4 bytes each from st_addr on, so they sum
 * to n * st_addr + 4 * n(n-1)/2 (modulo 2^64, as etmkit's sum). */
static ocsd_datapath_resp_t count_elem_a64(const void *ctx,
					   const ocsd_trc_index_t index_sop,
					   const uint8_t chan,
					   const ocsd_generic_trace_elem *e)
{
	struct ocsd_flow_counts *c = (struct ocsd_flow_counts *)(uintptr_t)ctx;

	(void)index_sop;
	(void)chan;
	c->elements++;
	if (e->elem_type == OCSD_GEN_TRC_ELEM_INSTR_RANGE) {
		uint64_t k = e->num_instr_range;

		c->ranges++;
		c->insns += k;
		c->checksum += e->st_addr;
		if (e->isa == ocsd_isa_aarch64)
			c->addr_sum += k * e->st_addr + 2 * k * (k - 1);
		else
			c->other_ranges++;
	}
	return OCSD_RESP_CONT;
}

/* Give OpenCSD the @nmem regions of @mem as memory buffers. */
static int add_regions(dcd_tree_handle_t tree,
		       const struct ocsd_mem_region *mem, size_t nmem)
{
	for (size_t i = 0; i < nmem; i++) {
		unsigned sp = mem[i].spaces & OCSD_MEM_SPACE_ANY;
		ocsd_err_t err = ocsd_dt_add_buffer_mem_acc(
			tree, mem[i].addr,
			sp ? (ocsd_mem_space_acc_t)sp : OCSD_MEM_SPACE_ANY,
			mem[i].data, (uint32_t)mem[i].n);

		if (err != OCSD_OK)
			return ocsd_report("ocsd_flow_peer", "add memory image",
					   err);
	}
	return 0;
}

/* Count the elements of @tree's decode of @buf[0..n) (the image being
 * the @nmem regions of @mem), then destroy @tree. */
static int count_tree(dcd_tree_handle_t tree, const uint8_t *buf, size_t n,
		      const struct ocsd_mem_region *mem, size_t nmem,
		      struct ocsd_flow_counts *counts)
{
	ocsd_err_t err;
	int ret = -1;

	if (tree == C_API_INVALID_TREE_HANDLE)
		return -1;
	if (add_regions(tree, mem, nmem))
		goto out;
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

int ocsd_flow_peer_etm3(const uint8_t *buf, size_t n, uint32_t etmcr,
			uint32_t etmidr, uint32_t etmccer, uint8_t trace_id,
			const struct ocsd_mem_region *mem, size_t nmem,
			struct ocsd_flow_counts *counts)
{
	unsigned char csid = 0;

	memset(counts, 0, sizeof(*counts));
	return count_tree(ocsd_etm3_tree(etmcr, etmidr, etmccer, trace_id, 1,
					 &csid, "ocsd_flow_peer"),
			  buf, n, mem, nmem, counts);
}

int ocsd_flow_peer_ptm(const uint8_t *buf, size_t n, uint32_t etmcr,
		       uint32_t etmidr, uint32_t etmccer, uint8_t trace_id,
		       const struct ocsd_mem_region *mem, size_t nmem,
		       struct ocsd_flow_counts *counts)
{
	unsigned char csid = 0;

	memset(counts, 0, sizeof(*counts));
	return count_tree(ocsd_ptm_tree(etmcr, etmidr, etmccer, trace_id, 1,
					&csid, "ocsd_flow_peer"),
			  buf, n, mem, nmem, counts);
}

int ocsd_flow_peer_etm4(const uint8_t *buf, size_t n,
			const struct etm4_config *cfg, uint8_t trace_id,
			const struct ocsd_mem_region *mem, size_t nmem,
			struct ocsd_flow_counts *counts)
{
	dcd_tree_handle_t tree;
	unsigned char csid = 0;
	ocsd_err_t err;
	int ret = -1;

	memset(counts, 0, sizeof(*counts));
	tree = ocsd_etm4_tree(cfg, trace_id, 1, &csid, "ocsd_flow_peer");
	if (tree == C_API_INVALID_TREE_HANDLE)
		return -1;
	if (add_regions(tree, mem, nmem))
		goto out;
	err = ocsd_dt_set_gen_elem_outfn(tree, count_elem_a64, counts);
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
