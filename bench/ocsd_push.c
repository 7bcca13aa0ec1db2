/* bench: pushing a buffer through an OpenCSD decode tree (ocsd_push.h). */
#include "ocsd_push.h"

#include <stdio.h>
#include <string.h>

int ocsd_report(const char *who, const char *what, ocsd_err_t err)
{
	char msg[256];

	ocsd_err_str(err, msg, (int)sizeof(msg));
	fprintf(stderr, "%s: %s: %s\n", who, what, msg);
	return -1;
}

/* A tree with the builtin decoder @name, @cfg being the configuration
 * struct it takes (ocsd_etmv3_cfg, ocsd_etmv4_cfg or ocsd_ete_cfg): single
 * source, or (@framed) CoreSight formatter frames aligned in memory, as
 * perf feeds AUX data (digest perf-data.md 3.6). */
static dcd_tree_handle_t framed_tree_with(const char *name, const void *cfg,
					  int full, int framed,
					  unsigned char *csid, const char *who)
{
	dcd_tree_handle_t tree;
	ocsd_err_t err;
	char what[64];

	tree = framed ? ocsd_create_dcd_tree(OCSD_TRC_SRC_FRAME_FORMATTED,
					     OCSD_DFRMTR_FRAME_MEM_ALIGN) :
			ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
	if (tree == C_API_INVALID_TREE_HANDLE) {
		fprintf(stderr, "%s: cannot create a decode tree\n", who);
		return tree;
	}
	err = ocsd_dt_create_decoder(tree, name,
				     full ? OCSD_CREATE_FLG_FULL_DECODER :
					    OCSD_CREATE_FLG_PACKET_PROC,
				     cfg, csid);
	if (err != OCSD_OK) {
		snprintf(what, sizeof(what), "create %s decoder", name);
		ocsd_report(who, what, err);
		ocsd_destroy_dcd_tree(tree);
		return C_API_INVALID_TREE_HANDLE;
	}
	return tree;
}

static dcd_tree_handle_t tree_with(const char *name, const void *cfg,
				   int full, unsigned char *csid,
				   const char *who)
{
	return framed_tree_with(name, cfg, full, 0, csid, who);
}

dcd_tree_handle_t ocsd_etm3_tree(uint32_t etmcr, uint32_t etmidr,
				 uint32_t etmccer, uint8_t trace_id, int full,
				 unsigned char *csid, const char *who)
{
	return ocsd_etm3_framed_tree(etmcr, etmidr, etmccer, trace_id, full,
				     0, csid, who);
}

dcd_tree_handle_t ocsd_etm3_framed_tree(uint32_t etmcr, uint32_t etmidr,
					uint32_t etmccer, uint8_t trace_id,
					int full, int framed,
					unsigned char *csid, const char *who)
{
	ocsd_etmv3_cfg cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.reg_ctrl = etmcr;
	cfg.reg_idr = etmidr;
	cfg.reg_ccer = etmccer;
	cfg.reg_trc_id = trace_id;
	cfg.arch_ver = ARCH_V7;
	cfg.core_prof = profile_CortexA;
	return framed_tree_with(OCSD_BUILTIN_DCD_ETMV3, &cfg, full, framed,
				csid, who);
}

dcd_tree_handle_t ocsd_ptm_tree(uint32_t etmcr, uint32_t etmidr,
				uint32_t etmccer, uint8_t trace_id, int full,
				unsigned char *csid, const char *who)
{
	ocsd_ptm_cfg cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.reg_ctrl = etmcr;
	cfg.reg_idr = etmidr;
	cfg.reg_ccer = etmccer;
	cfg.reg_trc_id = trace_id;
	cfg.arch_ver = ARCH_V7;
	cfg.core_prof = profile_CortexA;
	return tree_with(OCSD_BUILTIN_DCD_PTM, &cfg, full, csid, who);
}

dcd_tree_handle_t ocsd_ptm_framed_tree(uint32_t etmcr, uint32_t etmidr,
				       uint32_t etmccer, uint8_t trace_id,
				       int full, int framed,
				       unsigned char *csid, const char *who)
{
	ocsd_ptm_cfg cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.reg_ctrl = etmcr;
	cfg.reg_idr = etmidr;
	cfg.reg_ccer = etmccer;
	cfg.reg_trc_id = trace_id;
	cfg.arch_ver = ARCH_V7;
	cfg.core_prof = profile_CortexA;
	return framed_tree_with(OCSD_BUILTIN_DCD_PTM, &cfg, full, framed,
				csid, who);
}

/* OpenCSD's ETMv4 configuration for @cfg's registers. */
static void etmv4_cfg_of(const struct etm4_config *cfg, uint8_t trace_id,
			 ocsd_etmv4_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->reg_idr0 = cfg->trcidr0;
	c->reg_idr1 = cfg->trcidr1;
	c->reg_idr2 = cfg->trcidr2;
	c->reg_idr8 = cfg->trcidr8;
	c->reg_idr9 = cfg->trcidr9;
	c->reg_idr10 = cfg->trcidr10;
	c->reg_idr11 = cfg->trcidr11;
	c->reg_idr12 = cfg->trcidr12;
	c->reg_idr13 = cfg->trcidr13;
	c->reg_configr = cfg->trcconfigr;
	c->reg_traceidr = trace_id;
	c->arch_ver = ARCH_V8;
	c->core_prof = profile_CortexA;
}

dcd_tree_handle_t ocsd_etm4_tree(const struct etm4_config *cfg,
				 uint8_t trace_id, int full,
				 unsigned char *csid, const char *who)
{
	return ocsd_etm4_framed_tree(cfg, trace_id, full, 0, csid, who);
}

dcd_tree_handle_t ocsd_etm4_framed_tree(const struct etm4_config *cfg,
					uint8_t trace_id, int full, int framed,
					unsigned char *csid, const char *who)
{
	if (cfg->flags & ETM4_CFG_ETE) {
		ocsd_ete_cfg c;

		memset(&c, 0, sizeof(c));
		c.reg_idr0 = cfg->trcidr0;
		c.reg_idr1 = cfg->trcidr1;
		c.reg_idr2 = cfg->trcidr2;
		c.reg_idr8 = cfg->trcidr8;
		c.reg_devarch = cfg->trcdevarch;
		c.reg_configr = cfg->trcconfigr;
		c.reg_traceidr = trace_id;
		c.arch_ver = ARCH_AA64;
		c.core_prof = profile_CortexA;
		return framed_tree_with(OCSD_BUILTIN_DCD_ETE, &c, full, framed,
					csid, who);
	} else {
		ocsd_etmv4_cfg c;

		etmv4_cfg_of(cfg, trace_id, &c);
		return framed_tree_with(OCSD_BUILTIN_DCD_ETMV4I, &c, full,
					framed, csid, who);
	}
}

dcd_tree_handle_t ocsd_etm4_pkt_tree(const struct etm4_config *cfg,
				     uint8_t trace_id, unsigned char *csid,
				     const char *who)
{
	ocsd_etmv4_cfg c;

	etmv4_cfg_of(cfg, trace_id, &c);
	if (cfg->flags & ETM4_CFG_ETE) {
		/* What OpenCSD's ETEConfig makes of the ETE registers: TRCIDR9
		 * to 13 zero, the version from TRCDEVARCH (ARCHVER 15:12,
		 * REVISION 19:16) in place of TRCIDR1's 11:8 and 7:4. */
		uint32_t maj = (cfg->trcdevarch >> 12) & 0xFu;
		uint32_t min = (cfg->trcdevarch >> 16) & 0xFu;

		c.reg_idr9 = c.reg_idr10 = c.reg_idr11 = 0;
		c.reg_idr12 = c.reg_idr13 = 0;
		c.reg_idr1 = (cfg->trcidr1 & ~0xFF0u) | maj << 8 | min << 4;
		c.arch_ver = ARCH_AA64;
	}
	return tree_with(OCSD_BUILTIN_DCD_ETMV4I, &c, 0, csid, who);
}

static int fatal(const char *who, const char *what, ocsd_datapath_resp_t resp)
{
	fprintf(stderr, "%s: %s: fatal datapath response %d\n", who, what,
		(int)resp);
	return -1;
}

int ocsd_push(dcd_tree_handle_t tree, const uint8_t *buf, size_t n,
	      const char *who)
{
	ocsd_datapath_resp_t resp;

	if (ocsd_push_at(tree, buf, n, 0, who))
		return -1;
	resp = ocsd_dt_process_data(tree, OCSD_OP_EOT, 0, 0, NULL, NULL);
	if (OCSD_DATA_RESP_IS_FATAL(resp))
		return fatal(who, "end of trace", resp);
	return 0;
}

int ocsd_push_at(dcd_tree_handle_t tree, const uint8_t *buf, size_t n,
		 uint64_t index, const char *who)
{
	ocsd_datapath_resp_t resp = OCSD_RESP_CONT;
	size_t done = 0;

	while (done < n) {
		if (OCSD_DATA_RESP_IS_WAIT(resp)) {
			resp = ocsd_dt_process_data(tree, OCSD_OP_FLUSH, 0, 0,
						    NULL, NULL);
		} else {
			/* The API takes 32-bit block sizes. */
			size_t left = n - done;
			uint32_t block = left > 0x40000000u ? 0x40000000u
							    : (uint32_t)left;
			uint32_t used = 0;

			resp = ocsd_dt_process_data(tree, OCSD_OP_DATA,
						    (ocsd_trc_index_t)(index +
								       done),
						    block, buf + done, &used);
			done += used;
			if (used == 0 && OCSD_DATA_RESP_IS_CONT(resp)) {
				fprintf(stderr, "%s: no progress at byte %zu\n",
					who, done);
				return -1;
			}
		}
		if (OCSD_DATA_RESP_IS_FATAL(resp))
			return fatal(who, "process data", resp);
	}
	while (OCSD_DATA_RESP_IS_WAIT(resp)) {
		resp = ocsd_dt_process_data(tree, OCSD_OP_FLUSH, 0, 0, NULL,
					    NULL);
		if (OCSD_DATA_RESP_IS_FATAL(resp))
			return fatal(who, "flush", resp);
	}
	return 0;
}
