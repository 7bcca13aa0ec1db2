/* ETMv2 configuration: what ETMCR and ETMIDR mean (IHI 0014Q 3.5.1; digest
 * etmv2.md section 1), the PIPESTAT tables and the TFO header table
 * (docs/etmv2.md sections 2 and 6), and the names. */
#include <string.h>

#include "etmkit/etm2.h"

/* docs/etmv2.md section 2: raw code -> status, both tables ASSUMED. */
static const uint8_t ps_natural[16] = {
	etm2_st_ie,   etm2_st_de,   etm2_st_in,   etm2_st_dn,
	etm2_st_wt,   etm2_st_dw,   etm2_st_tr,   etm2_st_td,
	etm2_st_ptie, etm2_st_ptde, etm2_st_ptin, etm2_st_ptdn,
	etm2_st_pnie, etm2_st_pnde, etm2_st_pnin, etm2_st_pndn,
};
static const uint8_t ps_alt[16] = {
	etm2_st_ie,   etm2_st_de,   etm2_st_in,   etm2_st_dn,
	etm2_st_wt,   etm2_st_dw,   etm2_st_tr,   etm2_st_td,
	etm2_st_ptie, etm2_st_ptde, etm2_st_pnie, etm2_st_pnde,
	etm2_st_ptin, etm2_st_ptdn, etm2_st_pnin, etm2_st_pndn,
};

int etm2_pipestat_table(const char *name, uint8_t table[16])
{
	if (!name || !table)
		return -etmkit_err_invalid;
	if (!strcmp(name, "natural"))
		memcpy(table, ps_natural, 16);
	else if (!strcmp(name, "alt"))
		memcpy(table, ps_alt, 16);
	else
		return -etmkit_err_not_found;
	return 0;
}

void etm2_tfo_table_default(struct etm2_tfo_table *t)
{
	/* docs/etmv2.md section 6 (ASSUMED): as ETMv3's I-sync information
	 * byte, bit 7 LSiP, bits [6:5] the reason. */
	t->mask = 0x9f;
	t->normal = 0x00;
	t->lsip = 0x80;
	t->rr_shift = 5;
}

void etm2_config_init(struct etm2_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->fifo_latency = 1;
	memcpy(cfg->pipestat, ps_natural, 16);
	etm2_tfo_table_default(&cfg->tfo);
}

/* Each ETMv2 status a decoder needs is named by exactly one code. */
static int pipestat_ok(const uint8_t t[16])
{
	unsigned seen[etm2_st_count] = { 0 };

	for (unsigned i = 0; i < 16; i++) {
		if (t[i] > etm2_st_pndn)
			return 0;
		seen[t[i]]++;
	}
	for (unsigned s = etm2_st_ie; s <= etm2_st_td; s++)
		if (seen[s] != 1)
			return 0;
	return 1;
}

static int tfo_ok(const struct etm2_tfo_table *t)
{
	return t->rr_shift <= 6 && (t->normal & ~t->mask) == 0 &&
	       (t->lsip & ~t->mask) == 0 && t->normal != t->lsip &&
	       ((3u << t->rr_shift) & t->mask) == 0;
}

int etm2_config_decode(const struct etm2_config *cfg,
		       struct etm2_config_info *info)
{
	static const uint8_t cid_bytes[4] = { 0, 1, 2, 4 };
	static const uint8_t widths[8] = { 4, 8, 16, 0, 0, 0, 0, 0 };
	unsigned arch;

	if (!cfg || !info || cfg->size < sizeof(*cfg))
		return -etmkit_err_invalid;
	memset(info, 0, sizeof(*info));
	/* ETMIDR[11:8]: 0 ETMv1, 1 ETMv2 (IHI 0014Q 3.5.18). */
	arch = (cfg->etmidr >> 8) & 0xf;
	if (cfg->etmidr && arch > 1)
		return -etmkit_err_bad_config;
	info->version = cfg->version ? cfg->version
				     : (cfg->etmidr && arch == 0 ? 1 : 2);
	if (info->version != 1 && info->version != 2)
		return -etmkit_err_bad_config;
	info->minor = cfg->etmidr ? (cfg->etmidr >> 4) & 0xf : 0;
	info->port_width = cfg->port_width
		? cfg->port_width
		: widths[(cfg->etmcr >> ETM2_ETMCR_PORT_SIZE_SHIFT) & 7];
	if (info->port_width != 4 && info->port_width != 8 &&
	    info->port_width != 16)
		return -etmkit_err_bad_config;
	if (cfg->port_mode == etm2_port_multiplexed || cfg->port_mode > 2 ||
	    cfg->fifo_latency > 1)
		return -etmkit_err_bad_config;
	if (info->version == 2 && !pipestat_ok(cfg->pipestat))
		return -etmkit_err_bad_config;
	if (!tfo_ok(&cfg->tfo))
		return -etmkit_err_bad_config;
	info->cycle_accurate = !!(cfg->etmcr & ETM2_ETMCR_CYCLE_ACCURATE);
	info->context_id_bytes = cid_bytes[(cfg->etmcr >> ETM2_ETMCR_CID_SHIFT) & 3];
	info->data_addr = !!(cfg->etmcr & ETM2_ETMCR_DATA_ADDR);
	info->data_value = !!(cfg->etmcr & ETM2_ETMCR_DATA_VALUE);
	info->cprt = !!(cfg->etmcr & ETM2_ETMCR_MONITOR_CPRT);
	info->branch_output = !!(cfg->etmcr & ETM2_ETMCR_BRANCH_OUTPUT);
	return 0;
}

const char *etm2_status_name(unsigned s)
{
	static const char *const names[etm2_st_count] = {
		"IE", "DE", "IN", "DN", "WT", "DW", "TR", "TD",
		"PTIE", "PTDE", "PTIN", "PTDN", "PNIE", "PNDE", "PNIN", "PNDN",
		"ID", "BE", "BD",
	};
	return s < etm2_st_count ? names[s] : "invalid";
}

const char *etm2_reason_name(unsigned r)
{
	static const char *const names[4] = {
		"periodic", "trace_on", "overflow", "debug_exit",
	};
	return r < 4 ? names[r] : "invalid";
}
