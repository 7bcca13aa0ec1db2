/* PTM (PFTv1.0/1.1) configuration: what ETMCR, ETMIDR and ETMCCER mean for
 * parsing (IHI 0035B 3.16; digest ptm.md section 1), and the header table
 * derived from them. */
#include <string.h>

#include "packets/ptm/ptm_internal.h"

void ptm_config_init(struct ptm_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
}

int ptm_etmidr_is_ptm(uint32_t etmidr)
{
	/* IHI 0035B 3.16.28, Table 3.44: ETMIDR[11:8] = 3 names PFT. */
	return ((etmidr >> 8) & 0xf) == 3;
}

int ptm_config_decode(const struct ptm_config *cfg, struct ptm_config_info *info)
{
	static const uint8_t cid_bytes[4] = { 0, 1, 2, 4 };

	if (!cfg || !info || cfg->size < sizeof(*cfg))
		return -etmkit_err_invalid;
	memset(info, 0, sizeof(*info));
	if (!ptm_etmidr_is_ptm(cfg->etmidr))
		return -etmkit_err_bad_config;
	info->major = 1;
	/* ETMIDR[7:4]: 0 PFTv1.0, 1 PFTv1.1 (IHI 0035B 3.16.28). */
	info->minor = (cfg->etmidr >> 4) & 0xf;
	info->cycle_accurate = !!(cfg->etmcr & PTM_ETMCR_CYCLE_ACCURATE);
	/* ETMCR[15:14] ContextIDsize (IHI 0035B 4.5.7). */
	info->context_id_bytes = cid_bytes[(cfg->etmcr >> PTM_ETMCR_CID_SHIFT) & 3];
	info->branch_broadcast = !!(cfg->etmcr & PTM_ETMCR_BRANCH_BROADCAST);
	info->return_stack = !!(cfg->etmcr & PTM_ETMCR_RETURN_STACK);
	/* Timestamp packets can appear when the unit implements them
	 * (ETMCCER[22]) or when ETMCR[28] enables them: the Snowball
	 * snapshot's PTM (Cortex-A9) reads ETMCCER = 0x8ea, bit 22 clear,
	 * yet traces timestamps with ETMCR[28] set; so either is taken. */
	info->timestamps = (cfg->etmccer & PTM_ETMCCER_TIMESTAMP) ||
			   (cfg->etmcr & PTM_ETMCR_TIMESTAMP);
	/* ETMCCER[29:28] are PFTv1.1 fields, RAZ in PFTv1.0 (IHI 0035B
	 * 3.16.29): PFTv1.0 timestamps are 48-bit and Gray-coded. The Gray
	 * coding is confirmed by the Snowball capture (PFTv1.0): its
	 * timestamps rise only once read as Gray code (test_ptm_pkt.c). */
	info->ts_bits = info->minor >= 1 && (cfg->etmccer & PTM_ETMCCER_TS_64BIT) ? 64 : 48;
	info->ts_binary = info->minor >= 1 && (cfg->etmccer & PTM_ETMCCER_TS_BINARY);
	info->vmid = !!(cfg->etmcr & PTM_ETMCR_VMID);
	info->virt_ext = !!(cfg->etmccer & PTM_ETMCCER_VIRT_EXT);
	info->dmb_waypoint = !!(cfg->etmccer & PTM_ETMCCER_DMB_WAYPOINT);
	return 0;
}

/* The non-cycle-accurate atom header b1xxxxxx0 (IHI 0035B 4.5.3; digest
 * 4.3): the highest set bit of [6:2] is a marker, the bits below it down to
 * bit 1 are atoms, the highest the oldest (0 = E, 1 = N). Returns the
 * count, or 0 for 0x80 and 0x82, which have no marker.
 *
 * UNCONFIRMED in the digest: OpenCSD reads 0x80/0x82 as one atom (bit 1),
 * ptm2human rejects them. We reject them (reserved, the decoder resyncs):
 * the format gives an atom count by the marker's position, and these two
 * headers have none; no capture has them (12001 atom packets of the
 * non-cycle-accurate tc2-ptm-rstk-t32 trace, none 0x80 or 0x82). */
static unsigned atoms_plain(uint8_t b, struct ptm_atoms *a)
{
	int marker = -1;

	for (int k = 6; k >= 2; k--) {
		if (b & (1u << k)) {
			marker = k;
			break;
		}
	}
	if (marker < 0)
		return 0;
	memset(a, 0, sizeof(*a));
	a->count = (uint8_t)(marker - 1);
	/* Atom i (oldest first) is header bit marker-1-i. */
	for (unsigned i = 0; i < a->count; i++)
		a->bits |= (uint8_t)(((b >> (marker - 1 - (int)i)) & 1u) << i);
	return a->count;
}

/* IHI 0035B Table 4.1 (digest section 2). */
static uint8_t classify(const struct ptm_config_info *ci, unsigned b)
{
	if (b & 1)
		return ptm_pkt_branch_address;
	if (b & 0x80)
		return ptm_pkt_atom; /* refined by ptm_build_tables() */
	switch (b) {
	case 0x00: return ptm_pkt_a_sync;
	case 0x08: return ptm_pkt_i_sync;
	case 0x0c: return ptm_pkt_trigger;
	case 0x3c: return ptm_pkt_vmid;
	case 0x42:
	case 0x46:
		return ci->timestamps ? ptm_pkt_timestamp : ptm_pkt_reserved;
	case 0x66: return ptm_pkt_ignore;
	/* 4.5.7: never emitted when ContextIDsize (ETMCR[15:14]) is 0. */
	case 0x6e:
		return ci->context_id_bytes ? ptm_pkt_context_id :
			(ptm_pkt_context_id | PTM_HDR_DISABLED);
	case 0x72: return ptm_pkt_waypoint_update;
	case 0x76: return ptm_pkt_exception_return;
	default: return ptm_pkt_reserved;
	}
}

void ptm_build_tables(struct ptm_pkt_decoder *dec)
{
	for (unsigned b = 0; b < 256; b++) {
		dec->hdr[b] = classify(&dec->info, b);
		memset(&dec->atoms[b], 0, sizeof(dec->atoms[b]));
		if (dec->hdr[b] != ptm_pkt_atom)
			continue;
		if (dec->info.cycle_accurate) {
			/* One atom, F in bit 1 (4.5.3); the count is read
			 * with the packet. */
			dec->atoms[b].count = 1;
			dec->atoms[b].bits = (b >> 1) & 1;
			dec->atoms[b].has_cycles = 1;
		} else if (!atoms_plain((uint8_t)b, &dec->atoms[b])) {
			dec->hdr[b] = ptm_pkt_reserved;
		}
	}
}
