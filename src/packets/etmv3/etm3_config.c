/* ETMv3 configuration: what ETMCR, ETMIDR and ETMCCER mean for parsing,
 * and the header tables derived from them. */
#include <string.h>

#include "packets/etmv3/etm3_internal.h"

void etm3_config_init(struct etm3_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
}

int etm3_config_decode(const struct etm3_config *cfg,
		       struct etm3_config_info *info)
{
	static const uint8_t cid_bytes[4] = { 0, 1, 2, 4 };

	if (!cfg || !info || cfg->size < sizeof(*cfg))
		return -etmkit_err_invalid;
	memset(info, 0, sizeof(*info));
	/* ETMIDR[11:8] holds the major version minus one: 2 is ETMv3. */
	if (((cfg->etmidr >> 8) & 0xf) != 2)
		return -etmkit_err_bad_config;
	info->major = 3;
	info->minor = (cfg->etmidr >> 4) & 0xf;
	info->cycle_accurate = !!(cfg->etmcr & ETM3_ETMCR_CYCLE_ACCURATE);
	/* IHI 0014Q 7.3.6: ETMCR[15:14] ContextIDsize. */
	info->context_id_bytes = cid_bytes[(cfg->etmcr >> ETM3_ETMCR_CID_SHIFT) & 3];
	info->data_value = !!(cfg->etmcr & ETM3_ETMCR_DATA_VALUE);
	info->data_addr = !!(cfg->etmcr & ETM3_ETMCR_DATA_ADDR);
	info->data_only = !!(cfg->etmcr & ETM3_ETMCR_DATA_ONLY);
	/* The alternative branch encoding exists from ETMv3.4 (Q 7.3.5). */
	info->alt_branch = (cfg->etmidr & ETM3_ETMIDR_ALT_BRANCH) && info->minor >= 4;
	/* Timestamps, VMID and Hyp are ETMv3.5 features (Q 7.7, 7.3.7);
	 * timestamps also need ETMCCER[22], timestamping implemented. */
	info->timestamps = info->minor >= 5 &&
			   (cfg->etmccer & ETM3_ETMCCER_TIMESTAMP);
	info->ts_bits = (cfg->etmccer & ETM3_ETMCCER_TS_64BIT) ? 64 : 48;
	info->ts_binary = !!(cfg->etmccer & ETM3_ETMCCER_TS_BINARY);
	info->virt_ext = info->minor >= 5 && (cfg->etmccer & ETM3_ETMCCER_VIRT_EXT);
	info->m_profile = !!(cfg->flags & ETM3_CFG_M_PROFILE);
	return 0;
}

static void atoms_push(struct etm3_atoms *a, enum etm3_atom atom)
{
	a->bits |= (uint32_t)atom << (2 * a->count);
	a->count++;
	if (atom == etm3_atom_w)
		a->cycles++;
	else
		a->instr++;
}

static enum etm3_atom atom_of_bit(unsigned bit)
{
	return bit ? etm3_atom_n : etm3_atom_e;
}

/* IHI 0014Q Table 7.2: non-cycle-accurate P-headers. Returns the format,
 * or -1 if reserved. */
static int ph_plain(uint8_t b, struct etm3_atoms *a)
{
	if ((b & 0x83) == 0x80) { /* format 1: b1NEEEE00 */
		for (unsigned i = 0; i < ((b >> 2) & 0xfu); i++)
			atoms_push(a, etm3_atom_e);
		if (b & 0x40)
			atoms_push(a, etm3_atom_n);
		return 1;
	}
	if ((b & 0xf3) == 0x82) { /* format 2: b1000FF10, bit 3 first */
		atoms_push(a, atom_of_bit(b & 0x08));
		atoms_push(a, atom_of_bit(b & 0x04));
		return 2;
	}
	return -1;
}

/* IHI 0014Q Table 7.3: cycle-accurate P-headers. */
static int ph_cycle(uint8_t b, unsigned minor, struct etm3_atoms *a)
{
	if (b == 0x80) { /* format 0: one W, ETMv3.0 only */
		if (minor != 0)
			return -1;
		atoms_push(a, etm3_atom_w);
		return 0;
	}
	if ((b & 0xa3) == 0x80) { /* format 1: b1N0EEE00 */
		for (unsigned i = 0; i < ((b >> 2) & 7u); i++) {
			atoms_push(a, etm3_atom_w);
			atoms_push(a, etm3_atom_e);
		}
		if (b & 0x40) {
			atoms_push(a, etm3_atom_w);
			atoms_push(a, etm3_atom_n);
		}
		return 1;
	}
	if ((b & 0xf3) == 0x82) { /* format 2: b1000FF10 */
		atoms_push(a, etm3_atom_w);
		atoms_push(a, atom_of_bit(b & 0x08));
		atoms_push(a, atom_of_bit(b & 0x04));
		return 2;
	}
	if ((b & 0xa3) == 0xa0) { /* format 3: b1E1WWW00, WWW + 1 W atoms */
		for (unsigned i = 0; i <= ((b >> 2) & 7u); i++)
			atoms_push(a, etm3_atom_w);
		if (b & 0x40)
			atoms_push(a, etm3_atom_e);
		return 3;
	}
	if ((b & 0xfb) == 0x92) { /* format 4: b10010F10, ETMv3.3 and later */
		if (minor < 3)
			return -1;
		atoms_push(a, atom_of_bit(b & 0x04));
		return 4;
	}
	return -1;
}

static void build_ph_table(struct etm3_pkt_decoder *dec)
{
	for (unsigned b = 0x80; b < 0x100; b += 2) {
		struct etm3_ph_tmpl *t = &dec->ph[b];
		int fmt;

		memset(t, 0, sizeof(*t));
		fmt = dec->info.cycle_accurate ?
			ph_cycle((uint8_t)b, dec->info.minor, &t->atoms) :
			ph_plain((uint8_t)b, &t->atoms);
		if (fmt < 0) {
			memset(t, 0, sizeof(*t));
			dec->hdr[b] = etm3_pkt_reserved;
			continue;
		}
		t->atoms.format = (uint8_t)fmt;
		t->type = etm3_pkt_p_header;
		t->size = 1;
		t->length = 1;
	}
}

/* IHI 0014Q Table 7.1, gated by version and by what ETMCR enables. */
static uint8_t classify(const struct etm3_config_info *ci, unsigned b)
{
	uint8_t data = (ci->data_addr || ci->data_value) ? 0 : ETM3_HDR_DISABLED;
	uint8_t value = ci->data_value ? 0 : ETM3_HDR_DISABLED;
	uint8_t cid = ci->context_id_bytes ? 0 : ETM3_HDR_DISABLED;

	if (b & 1)
		return etm3_pkt_branch_address;
	if (b & 0x80)
		return etm3_pkt_p_header; /* refined by build_ph_table() */
	switch (b) {
	case 0x00: return etm3_pkt_a_sync;
	case 0x04: return etm3_pkt_cycle_count;
	case 0x08: return etm3_pkt_i_sync;
	case 0x0c: return etm3_pkt_trigger;
	case 0x3c: return ci->minor >= 5 ? etm3_pkt_vmid : etm3_pkt_reserved;
	case 0x42: case 0x46:
		return ci->timestamps ? etm3_pkt_timestamp : etm3_pkt_reserved;
	/* Store failed and OoO data carry values (Q 7.4.7, 7.4.3). */
	case 0x50: return etm3_pkt_store_failed | value;
	case 0x62: return etm3_pkt_data_suppressed | data;
	case 0x66: return etm3_pkt_ignore;
	case 0x6a: case 0x7a: return etm3_pkt_value_not_traced | data;
	/* Q 7.3.6: never emitted when ContextIDsize (ETMCR[15:14]) is 0. */
	case 0x6e: return etm3_pkt_context_id | cid;
	case 0x70: return etm3_pkt_i_sync_cycle;
	/* Q 7.5, 7.6: exception exit is ETMv3.4 for ARMv7-M and ETMv3.5 for
	 * every profile; exception entry (the stacking of an ARMv7-M
	 * exception) is ETMv3.4+ and ARMv7-M only. */
	case 0x76:
		return ci->minor >= 5 || (ci->minor == 4 && ci->m_profile) ?
			etm3_pkt_exception_exit : etm3_pkt_reserved;
	case 0x7e:
		return ci->minor >= 4 && ci->m_profile ?
			etm3_pkt_exception_entry : etm3_pkt_reserved;
	default: break;
	}
	if ((b & 0xd3) == 0x02) /* b00A0SS10 */
		return etm3_pkt_normal_data | data;
	if ((b & 0x93) == 0x00 && (b & 0x60)) /* b0TT0SS00, TT != 0 */
		return etm3_pkt_ooo_data | value;
	if ((b & 0xd3) == 0x50 && (b & 0x0c)) /* b01A1TT00, TT != 0 */
		return etm3_pkt_ooo_placeholder | data;
	return etm3_pkt_reserved;
}

void etm3_build_tables(struct etm3_pkt_decoder *dec)
{
	for (unsigned b = 0; b < 256; b++)
		dec->hdr[b] = classify(&dec->info, b);
	build_ph_table(dec);
	for (unsigned b = 0; b < 256; b++)
		dec->atoms[b] = dec->ph[b].atoms;
	/* The byte rule p_header_run_end() applies 16 bytes at a time must
	 * say exactly what the table says, for every byte. */
	dec->simd_excluded = dec->ph[0x80].type == etm3_pkt_p_header ? 0x01 : 0x80;
	dec->simd_last2 = dec->ph[0x92].type == etm3_pkt_p_header ? 0x96 : 0x8e;
	memset(dec->simd_excl16, dec->simd_excluded, sizeof(dec->simd_excl16));
	memset(dec->simd_last2_16, dec->simd_last2, sizeof(dec->simd_last2_16));
	dec->simd_ok = 1;
	for (unsigned b = 0; b < 256; b++) {
		int f13 = (b & 0x83) == 0x80 && b != dec->simd_excluded;
		int f24 = (b & 0x83) == 0x82 && b <= dec->simd_last2;

		if ((f13 || f24) != (dec->ph[b].type == etm3_pkt_p_header))
			dec->simd_ok = 0;
	}
}
