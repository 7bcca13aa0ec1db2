/* perf_ocsd: OpenCSD's decode of the AUX data of a perf.data file, as perf
 * and simpleperf drive it, for comparison with etmkit's (issue 15).
 *
 *   perf_ocsd FILE.data [--mem FILE@ADDR[:OFFSET:LENGTH]]...
 *
 * etmkit's perf.data reader (include/etmkit/perf.h) only finds the bytes
 * and the metadata; the decoding is OpenCSD's, through its C API: for each
 * CPU of the cs_etm metadata that recorded AUX data, one decode tree
 * taking CoreSight formatter frames aligned in memory, with the CPU's
 * builtin decoder (ETMV3, PTM when its ETMIDR says so, ETMV4I or ETE)
 * configured from the metadata
 * registers and trace ID; each AUX record is pushed after an
 * OCSD_OP_RESET, as perf does (digest perf-data.md 3.10), its bytes
 * numbered by their offsets in the file; end of trace after the CPU's
 * last record. A raw AUX record (flag FORMAT_RAW, a TRBE's, digest 3.6)
 * goes instead to a second tree of the CPU taking a single source, no
 * frames, as perf feeds raw data straight to the queue's decoder
 * (digest 3.5 item 3); OpenCSD names that source channel 0, listed here
 * under the CPU's trace ID. The memory image is the --mem regions (LENGTH bytes of
 * FILE from OFFSET, mapped at ADDR; the whole file without them).
 *
 * Output: one line per instruction range element, in the form of
 * OpenCSD's trc_pkt_lister log so tests/golden/compare_flow4.py reads it,
 * with E or N as the last instruction executed or failed its condition:
 *   Idx:OFFSET; ID:TRACEID; OCSD_GEN_TRC_ELEM_INSTR_RANGE(exec range=0xSTART:[0xEND] num_i(N) E|N )
 * and before a CPU's first range, its trace ID's protocol:
 *   Source ID:TRACEID; etmv3|ptm|etmv4|ete
 * Exit status: 0, 1 on an OpenCSD or reader error, 2 on usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/perf.h"
#include "ocsd_flow_peer.h" /* struct ocsd_mem_region */
#include "ocsd_push.h"

#define MAX_MEM 64

struct mem_file {
	uint8_t *bytes;
	struct ocsd_mem_region r;
};

static int read_file(const char *path, uint8_t **out, size_t *n)
{
	FILE *f = fopen(path, "rb");
	long size;

	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "perf_ocsd: cannot read %s\n", path);
		if (f)
			fclose(f);
		return -1;
	}
	*out = malloc(size ? (size_t)size : 1);
	*n = (size_t)size;
	if (!*out || fread(*out, 1, *n, f) != *n) {
		fprintf(stderr, "perf_ocsd: cannot read %s\n", path);
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

/* FILE@ADDR[:OFFSET:LENGTH] */
static int parse_mem(char *arg, struct mem_file *m)
{
	char *at = strrchr(arg, '@'), *end;
	uint64_t addr, off = 0, len = 0;
	size_t n;

	if (!at)
		return -1;
	*at = 0;
	addr = strtoull(at + 1, &end, 0);
	if (*end == ':') {
		off = strtoull(end + 1, &end, 0);
		if (*end != ':')
			return -1;
		len = strtoull(end + 1, &end, 0);
	}
	if (*end || read_file(arg, &m->bytes, &n))
		return -1;
	if (off > n || (len && len > n - off))
		return -1;
	m->r.data = m->bytes + off;
	m->r.n = len ? len : n - off;
	m->r.addr = addr;
	m->r.spaces = 0;
	return 0;
}

static ocsd_datapath_resp_t print_elem(const void *ctx,
				       const ocsd_trc_index_t index_sop,
				       const uint8_t chan,
				       const ocsd_generic_trace_elem *e)
{
	/* a raw tree's source (ctx: its CPU's trace ID) is channel 0 */
	unsigned id = ctx ? *(const uint8_t *)ctx : chan;

	if (e->elem_type == OCSD_GEN_TRC_ELEM_INSTR_RANGE)
		printf("Idx:%" PRIu64 "; ID:%x; OCSD_GEN_TRC_ELEM_INSTR_RANGE("
		       "exec range=0x%" PRIx64 ":[0x%" PRIx64 "] num_i(%u) %c )\n",
		       (uint64_t)index_sop, id, (uint64_t)e->st_addr,
		       (uint64_t)e->en_addr, e->num_instr_range,
		       e->last_instr_exec ? 'E' : 'N');
	return OCSD_RESP_CONT;
}

/* CPU @c's tree taking frames (@framed) or its raw trace alone, with
 * the memory regions; C_API_INVALID_TREE_HANDLE after a message. */
static dcd_tree_handle_t cpu_tree(const struct perf_cs_etm_cpu *c, int framed,
				  const struct mem_file *mem, int nmem)
{
	unsigned char csid = 0;
	dcd_tree_handle_t t;

	if (c->ptm)
		t = ocsd_ptm_framed_tree(c->etm3.etmcr, c->etm3.etmidr,
					 c->etm3.etmccer, c->trace_id, 1,
					 framed, &csid, "perf_ocsd");
	else if (c->protocol == etmkit_proto_etmv3)
		t = ocsd_etm3_framed_tree(c->etm3.etmcr, c->etm3.etmidr,
					  c->etm3.etmccer, c->trace_id, 1,
					  framed, &csid, "perf_ocsd");
	else
		t = ocsd_etm4_framed_tree(&c->etm4, c->trace_id, 1, framed,
					  &csid, "perf_ocsd");
	if (t == C_API_INVALID_TREE_HANDLE)
		return t;
	for (int i = 0; i < nmem; i++)
		if (ocsd_dt_add_buffer_mem_acc(t, mem[i].r.addr,
					       OCSD_MEM_SPACE_ANY, mem[i].r.data,
					       (uint32_t)mem[i].r.n) != OCSD_OK)
			goto bad;
	if (ocsd_dt_set_gen_elem_outfn(t, print_elem, framed ? NULL :
				       &c->trace_id) != OCSD_OK)
		goto bad;
	return t;
bad:
	fprintf(stderr, "perf_ocsd: CPU %u: cannot set up the decode tree\n",
		(unsigned)c->cpu);
	ocsd_destroy_dcd_tree(t);
	return C_API_INVALID_TREE_HANDLE;
}

/* Every AUX record of CPU @c, each after a reset of the tree its format
 * takes (frames or raw), then end of trace on both. */
static int decode_cpu(const struct perf_file *pf, const struct perf_cs_etm_cpu *c,
		      const struct mem_file *mem, int nmem)
{
	struct perf_aux_iter ai;
	struct perf_aux_chunk ch;
	dcd_tree_handle_t tree[2] = { C_API_INVALID_TREE_HANDLE,
				      C_API_INVALID_TREE_HANDLE };
	int rc = 0;

	perf_aux_iter_init(&ai, pf, c->cpu);
	while (rc == 0 && perf_aux_next(&ai, &ch, NULL) == 0) {
		int raw = (ch.flags & PERF_AUX_FLAG_FORMAT_MASK) ==
			  PERF_AUX_FLAG_FORMAT_RAW;

		if (!ch.data || !ch.data_size)
			continue;
		if (tree[0] == C_API_INVALID_TREE_HANDLE &&
		    tree[1] == C_API_INVALID_TREE_HANDLE)
			printf("Source ID:%x; %s\n", c->trace_id,
			       c->ptm ? "ptm" :
			       c->protocol == etmkit_proto_etmv3 ? "etmv3" :
			       c->protocol == etmkit_proto_ete ? "ete" :
								  "etmv4");
		if (tree[raw] == C_API_INVALID_TREE_HANDLE) {
			tree[raw] = cpu_tree(c, !raw, mem, nmem);
			if (tree[raw] == C_API_INVALID_TREE_HANDLE) {
				rc = 1;
				break;
			}
		}
		ocsd_dt_process_data(tree[raw], OCSD_OP_RESET, 0, 0, NULL,
				     NULL);
		if (ocsd_push_at(tree[raw], ch.data, (size_t)ch.data_size,
				 ch.data_offset, "perf_ocsd"))
			rc = 1;
	}
	for (int k = 0; k < 2; k++) {
		if (tree[k] == C_API_INVALID_TREE_HANDLE)
			continue;
		if (!rc && OCSD_DATA_RESP_IS_FATAL(ocsd_dt_process_data(
				   tree[k], OCSD_OP_EOT, 0, 0, NULL, NULL)))
			rc = 1;
		ocsd_destroy_dcd_tree(tree[k]);
	}
	return rc;
}

int main(int argc, char **argv)
{
	static struct mem_file mem[MAX_MEM];
	const struct perf_cs_etm *cs;
	struct perf_file *pf;
	struct perf_diag d;
	const char *path = NULL;
	int nmem = 0, rc = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--mem") && i + 1 < argc &&
		    nmem < MAX_MEM) {
			if (parse_mem(argv[++i], &mem[nmem++])) {
				fprintf(stderr, "perf_ocsd: bad --mem %s\n",
					argv[i]);
				return 2;
			}
		} else if (!path && argv[i][0] != '-') {
			path = argv[i];
		} else {
			fprintf(stderr, "usage: perf_ocsd FILE.data "
				"[--mem FILE@ADDR[:OFFSET:LENGTH]]...\n");
			return 2;
		}
	}
	if (!path)
		return 2;
	if (perf_file_open(&pf, path, &d)) {
		fprintf(stderr, "perf_ocsd: %s: %s\n", path, d.message);
		return 1;
	}
	cs = perf_file_cs_etm(pf);
	for (uint32_t i = 0; cs && rc == 0 && i < cs->nr_cpu; i++)
		rc = decode_cpu(pf, &cs->cpus[i], mem, nmem);
	perf_file_free(pf);
	for (int i = 0; i < nmem; i++)
		free(mem[i].bytes);
	return rc;
}
