/* ETMv2 / ETMv1 configuration: what ETMCR and ETMIDR mean for the packet
 * layer (IHI 0014Q 3.5.1; digest etmv2.md section 1), and the two data
 * tables docs/etmv2.md holds in place of lost pages (PIPESTAT codes,
 * section 2; TFO headers, section 6). */
#include <string.h>

#include "etmkit/etm2.h"

/* docs/etmv2.md section 2 (Q Table 6.1 codes ASSUMED). */
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

void etm2_tfo_table_default(struct etm2_tfo_table *table)
{
	if (!table)
		return;
	/* docs/etmv2.md 6: ASSUMED after the ETMv3 I-sync information
	 * byte (Q 7.14.2): bit 7 LSiP, [6:5] reason. */
	table->mask = 0x9f;
	table->normal = 0x00;
	table->lsip = 0x80;
	table->rr_shift = 5;
}

int etm2_pipestat_table(const char *name, uint8_t table[16])
{
	if (!name || !table)
		return -etmkit_err_not_found;
	if (!strcmp(name, "natural"))
		memcpy(table, ps_natural, 16);
	else if (!strcmp(name, "alt"))
		memcpy(table, ps_alt, 16);
	else
		return -etmkit_err_not_found;
	return 0;
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

/* Each of the eight non-phantom statuses from exactly one code, and no
 * code outside ETMv2's statuses (docs/etmv2.md 2). */
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
	       /* the reason bits lie outside the mask */
	       ((3u << t->rr_shift) & t->mask) == 0;
}

int etm2_config_decode(const struct etm2_config *cfg,
		       struct etm2_config_info *info)
{
	static const uint8_t cid_bytes[4] = { 0, 1, 2, 4 };
	static const uint8_t widths[8] = { 4, 8, 16, 0, 0, 0, 0, 0 };

	if (!cfg || !info || cfg->size < sizeof(*cfg))
		return -etmkit_err_invalid;
	memset(info, 0, sizeof(*info));
	info->version = cfg->version;
	if (!info->version) {
		/* ETMIDR[11:8]: 0 ETMv1, 1 ETMv2 (Q 3.5.x); absent: ETMv2. */
		unsigned major = (cfg->etmidr >> 8) & 0xf;

		if (!cfg->etmidr || major == 1)
			info->version = 2;
		else if (major == 0)
			info->version = 1;
		else
			return -etmkit_err_bad_config;
	}
	if (info->version != 1 && info->version != 2)
		return -etmkit_err_bad_config;
	info->minor = cfg->etmidr ? (cfg->etmidr >> 4) & 0xf : 0;
	info->port_width = cfg->port_width;
	if (!info->port_width)
		info->port_width =
			widths[(cfg->etmcr >> ETM2_ETMCR_PORT_SIZE_SHIFT) & 7];
	if (info->port_width != 4 && info->port_width != 8 &&
	    info->port_width != 16)
		return -etmkit_err_bad_config;
	if (cfg->port_mode == etm2_port_multiplexed || cfg->port_mode > 2 ||
	    cfg->fifo_latency > 1)
		return -etmkit_err_bad_config;
	if (info->version == 2 &&
	    (!pipestat_ok(cfg->pipestat) || !tfo_ok(&cfg->tfo)))
		return -etmkit_err_bad_config;
	info->cycle_accurate = !!(cfg->etmcr & ETM2_ETMCR_CYCLE_ACCURATE);
	info->context_id_bytes =
		cid_bytes[(cfg->etmcr >> ETM2_ETMCR_CID_SHIFT) & 3];
	info->data_addr = !!(cfg->etmcr & ETM2_ETMCR_DATA_ADDR);
	info->data_value = !!(cfg->etmcr & ETM2_ETMCR_DATA_VALUE);
	info->cprt = !!(cfg->etmcr & ETM2_ETMCR_MONITOR_CPRT);
	info->branch_output = !!(cfg->etmcr & ETM2_ETMCR_BRANCH_OUTPUT);
	return 0;
}
