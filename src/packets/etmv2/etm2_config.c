/* ETMv2 / ETMv1 configuration: what ETMCR and ETMIDR mean for parsing
 * (IHI 0014Q 3.5.1; digest etmv2.md section 1), and the two data tables
 * etmkit assumes where the specification pages are lost: PIPESTAT codes
 * (Q Table 6.1) and TFO headers (Q Table 6.6) (docs/etmv2.md 2 and 6). */
#include <string.h>

#include "etmkit/etm2.h"
#include "packets/etmv2/etm2_names.h"

/* docs/etmv2.md section 2: "natural" (the default) and "alt" differ only
 * in the phantom half (codes 1010 to 1101). Both ASSUMED. */
static const uint8_t pipestat_natural[16] = {
	etm2_st_ie, etm2_st_de, etm2_st_in, etm2_st_dn,
	etm2_st_wt, etm2_st_dw, etm2_st_tr, etm2_st_td,
	etm2_st_ptie, etm2_st_ptde, etm2_st_ptin, etm2_st_ptdn,
	etm2_st_pnie, etm2_st_pnde, etm2_st_pnin, etm2_st_pndn,
};

static const uint8_t pipestat_alt[16] = {
	etm2_st_ie, etm2_st_de, etm2_st_in, etm2_st_dn,
	etm2_st_wt, etm2_st_dw, etm2_st_tr, etm2_st_td,
	etm2_st_ptie, etm2_st_ptde, etm2_st_pnie, etm2_st_pnde,
	etm2_st_ptin, etm2_st_ptdn, etm2_st_pnin, etm2_st_pndn,
};

/* ETMv1's 3-bit table is fixed (Q Table 5.1). */
const uint8_t etm2_pipestat_v1[8] = {
	etm2_st_ie, etm2_st_id, etm2_st_in, etm2_st_wt,
	etm2_st_be, etm2_st_bd, etm2_st_tr, etm2_st_td,
};

void etm2_tfo_table_default(struct etm2_tfo_table *table)
{
	/* docs/etmv2.md 6, ASSUMED after the ETMv3 I-sync information byte
	 * (Q§7.14.2): 0RR00000 normal, 1RR00000 LSiP. */
	table->mask = 0x9f;
	table->normal = 0x00;
	table->lsip = 0x80;
	table->rr_shift = 5;
}

void etm2_config_init(struct etm2_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->fifo_latency = 1; /* docs/etmv2.md 3, ASSUMED */
	memcpy(cfg->pipestat, pipestat_natural, 16);
	etm2_tfo_table_default(&cfg->tfo);
}

/* "IE,DE,...": sixteen status names in code order (ETMv2 statuses only). */
static int pipestat_list(const char *s, uint8_t table[16])
{
	uint8_t t[16];
	unsigned i = 0;

	for (;;) {
		size_t len = strcspn(s, ",");
		int st = etm2_status_lookup(s, len);

		if (st < 0 || st >= etm2_st_id || i >= 16)
			return -etmkit_err_not_found;
		t[i++] = (uint8_t)st;
		if (!s[len])
			break;
		s += len + 1;
	}
	if (i != 16)
		return -etmkit_err_not_found;
	memcpy(table, t, 16);
	return 0;
}

int etm2_pipestat_table(const char *name, uint8_t table[16])
{
	if (!name || !table)
		return -etmkit_err_not_found;
	if (strcmp(name, "natural") == 0)
		memcpy(table, pipestat_natural, 16);
	else if (strcmp(name, "alt") == 0)
		memcpy(table, pipestat_alt, 16);
	else
		return pipestat_list(name, table);
	return 0;
}

const char *etm2_pipestat_table_name(const uint8_t table[16])
{
	if (memcmp(table, pipestat_natural, 16) == 0)
		return "natural";
	if (memcmp(table, pipestat_alt, 16) == 0)
		return "alt";
	return NULL;
}

/* Each of IE, DE, IN, DN, WT, DW, TR and TD from exactly one code, and
 * only ETMv2 statuses (ID, BE and BD are ETMv1's). */
static int pipestat_ok(const uint8_t table[16])
{
	unsigned seen[etm2_st_count] = { 0 };

	for (unsigned c = 0; c < 16; c++) {
		if (table[c] >= etm2_st_id)
			return 0;
		seen[table[c]]++;
	}
	for (unsigned s = etm2_st_ie; s <= etm2_st_td; s++)
		if (seen[s] != 1)
			return 0;
	return 1;
}

/* docs/etmv2.md 6: normal and lsip inside the mask and different; the
 * reason bits outside it (else only one reason could match). */
static int tfo_ok(const struct etm2_tfo_table *t)
{
	if (t->rr_shift > 6)
		return 0;
	if ((t->normal & ~t->mask) || (t->lsip & ~t->mask))
		return 0;
	if (t->normal == t->lsip)
		return 0;
	return ((3u << t->rr_shift) & t->mask) == 0;
}

/* ETMIDR[11:8] is the major version minus 1 (digest 1): 0 ETMv1, 1 ETMv2;
 * an ETMIDR of 0 is absent. A version set in @cfg wins over ETMIDR's (a
 * part that misreports), but ETMIDR must name ETMv1 or ETMv2. Returns 1,
 * 2, or 0 for another architecture. */
static unsigned version_of(const struct etm2_config *cfg)
{
	unsigned major;

	if (!cfg->etmidr)
		return cfg->version ? cfg->version : 2;
	major = ((cfg->etmidr >> 8) & 0xf) + 1;
	if (major > 2)
		return 0;
	return cfg->version ? cfg->version : major;
}

static unsigned port_width_of(const struct etm2_config *cfg)
{
	/* ETMCR[6:4]: 000 4-bit, 001 8-bit, 010 16-bit (digest 1, OpenOCD
	 * only). */
	static const uint8_t width[8] = { 4, 8, 16, 0, 0, 0, 0, 0 };

	if (cfg->port_width)
		return cfg->port_width;
	return width[(cfg->etmcr >> ETM2_ETMCR_PORT_SIZE_SHIFT) & 7];
}

int etm2_config_decode(const struct etm2_config *cfg,
		       struct etm2_config_info *info)
{
	static const uint8_t cid_bytes[4] = { 0, 1, 2, 4 };
	unsigned version, width, cr_mode;

	if (!cfg || !info || cfg->size < sizeof(*cfg))
		return -etmkit_err_invalid;
	memset(info, 0, sizeof(*info));
	if (cfg->version > 2)
		return -etmkit_err_bad_config;
	version = version_of(cfg);
	width = port_width_of(cfg);
	if (!version || (width != 4 && width != 8 && width != 16))
		return -etmkit_err_bad_config;
	/* Multiplexed ports are not covered (docs/etmv2.md 8); ETMCR[17:16]
	 * = 11 is reserved (Q Table 2.15). */
	cr_mode = (cfg->etmcr >> ETM2_ETMCR_PORT_MODE_SHIFT) & 3;
	if (cfg->port_mode != etm2_port_normal &&
	    cfg->port_mode != etm2_port_demultiplexed)
		return -etmkit_err_bad_config;
	if (cr_mode == etm2_port_multiplexed || cr_mode == 3)
		return -etmkit_err_bad_config;
	if (cfg->fifo_latency > 1)
		return -etmkit_err_bad_config;
	if (version == 2 && !pipestat_ok(cfg->pipestat))
		return -etmkit_err_bad_config;
	if (!tfo_ok(&cfg->tfo))
		return -etmkit_err_bad_config;
	info->version = (uint8_t)version;
	info->minor = (uint8_t)((cfg->etmidr >> 4) & 0xf);
	info->port_width = (uint8_t)width;
	info->cycle_accurate = !!(cfg->etmcr & ETM2_ETMCR_CYCLE_ACCURATE);
	info->context_id_bytes = cid_bytes[(cfg->etmcr >> ETM2_ETMCR_CID_SHIFT) & 3];
	info->data_addr = !!(cfg->etmcr & ETM2_ETMCR_DATA_ADDR);
	info->data_value = !!(cfg->etmcr & ETM2_ETMCR_DATA_VALUE);
	info->cprt = !!(cfg->etmcr & ETM2_ETMCR_MONITOR_CPRT);
	info->branch_output = !!(cfg->etmcr & ETM2_ETMCR_BRANCH_OUTPUT);
	return 0;
}
