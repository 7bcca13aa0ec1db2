/* ETMv4 / ETE configuration: what the ID and configuration registers mean
 * for parsing (digest etmv4-ete.md 6), and the header tables derived from
 * them (digest 4). */
#include <string.h>

#include "packets/etmv4/etm4_internal.h"

/* TRCIDR0 (digest 6.2). */
#define IDR0_TRCCOND    (1u << 6)
#define IDR0_TRCCCI     (1u << 7)
#define IDR0_QSUPP(r)   (((r) >> 15) & 3u)
#define IDR0_TSMARK     (1u << 23)
#define IDR0_TSSIZE(r)  (((r) >> 24) & 0x1fu)
#define IDR0_COMMOPT    (1u << 29)
#define IDR0_COMMTRANS  (1u << 30) /* ETE; polarity UNCONFIRMED (U14) */
/* TRCIDR2 */
#define IDR2_IASIZE(r)   ((r) & 0x1fu)
#define IDR2_CIDSIZE(r)  (((r) >> 5) & 0x1fu)
#define IDR2_VMIDSIZE(r) (((r) >> 10) & 0x1fu)
#define IDR2_CCSIZE(r)   (((r) >> 25) & 0xfu)
#define IDR2_WFXMODE     (1u << 31)
/* TRCCONFIGR */
#define CFGR_INSTP0     (3u << 1)
#define CFGR_BB         (1u << 3)
#define CFGR_CCI        (1u << 4)
#define CFGR_COND(r)    (((r) >> 8) & 7u)
#define CFGR_RS         (1u << 12)
#define CFGR_QE(r)      (((r) >> 13) & 3u)
#define CFGR_DA         (1u << 16)
#define CFGR_DV         (1u << 17)

void etm4_config_init(struct etm4_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
}

/* Version: TRCIDR1 for ETMv4, TRCDEVARCH for ETE (digest 6.2). */
static int decode_version(const struct etm4_config *cfg,
			  struct etm4_config_info *info)
{
	if (cfg->flags & ETM4_CFG_ETE) {
		/* ETE reports 0xF in TRCIDR1's architecture fields. A capture
		 * without TRCDEVARCH (0) is taken as ETE 1.0. */
		info->ete = 1;
		info->major = 5;
		if (cfg->trcdevarch == 0)
			return 0;
		if (((cfg->trcdevarch >> 12) & 0xf) != 5)
			return -etmkit_err_bad_config;
		info->minor = (cfg->trcdevarch >> 16) & 0xf;
		return 0;
	}
	if (((cfg->trcidr1 >> 8) & 0xf) != 4)
		return -etmkit_err_bad_config;
	info->major = 4;
	info->minor = (cfg->trcidr1 >> 4) & 0xf;
	return 0;
}

/* TRCIDR2.VMIDSIZE: 1 -> 8 bits; 2 -> 16 and 4 -> 32 bits from ETMv4.1
 * (and in every ETE: trace_file_vmid, ETE 1.0, carries 4 bytes); other
 * values, reserved, mean none (OpenCSD's reading). */
static uint8_t vmid_bytes(uint32_t idr2, const struct etm4_config_info *info)
{
	unsigned f = IDR2_VMIDSIZE(idr2);

	if (f == 1)
		return 1;
	if ((f == 2 || f == 4) && (info->ete || info->minor > 0))
		return (uint8_t)f;
	return 0;
}

int etm4_config_decode(const struct etm4_config *cfg,
		       struct etm4_config_info *info)
{
	uint32_t idr0, idr2, cfgr;
	int err;

	if (!cfg || !info || cfg->size < sizeof(*cfg))
		return -etmkit_err_invalid;
	memset(info, 0, sizeof(*info));
	err = decode_version(cfg, info);
	if (err < 0)
		return err;
	idr0 = cfg->trcidr0;
	idr2 = cfg->trcidr2;
	cfgr = cfg->trcconfigr;
	info->ia64 = IDR2_IASIZE(idr2) == 8;
	info->cid_bytes = IDR2_CIDSIZE(idr2) == 4 ? 4 : 0;
	info->vmid_bytes = vmid_bytes(idr2, info);
	info->cc_bits = (uint8_t)(12 + IDR2_CCSIZE(idr2));
	switch (IDR0_TSSIZE(idr0)) {
	case 6: info->ts_bits = 48; break;
	case 8: info->ts_bits = 64; break;
	default: info->ts_bits = 0; break;
	}
	/* COMMOPT counts only with cycle counting implemented (OpenCSD; the
	 * field is meaningless otherwise). */
	info->commopt = (idr0 & IDR0_COMMOPT) && (idr0 & IDR0_TRCCCI);
	info->cci = !!(cfgr & CFGR_CCI);
	info->retstack = !!(cfgr & CFGR_RS);
	info->bb = !!(cfgr & CFGR_BB);
	info->q = IDR0_QSUPP(idr0) != 0 && CFGR_QE(cfgr) != 0;
	/* Conditional and data trace exist in ETMv4 only (digest 5.21). */
	info->cond = !info->ete && (idr0 & IDR0_TRCCOND) && CFGR_COND(cfgr) != 0;
	info->data = !info->ete &&
		     (cfgr & (CFGR_DA | CFGR_DV | CFGR_INSTP0)) != 0;
	info->tsmark = !!(idr0 & IDR0_TSMARK);
	info->wfx_p0 = !!(idr2 & IDR2_WFXMODE);
	info->trans_p0 = info->ete && !(idr0 & IDR0_COMMTRANS);
	info->maxspec = cfg->trcidr8;
	return 0;
}

/* ---- Header tables -------------------------------------------------------- */

static const char why_reserved[] = "reserved header";
static const char why_v4_only[] = "ETMv4 header, reserved in ETE";
static const char why_ete_only[] = "ETE header, reserved in ETMv4";
static const char why_version[] =
	"header not defined in this architecture version";
static const char why_cci[] =
	"cycle count packet while TRCCONFIGR.CCI is 0";
static const char why_q[] =
	"Q packet while Q elements are off (TRCIDR0.QSUPP, TRCCONFIGR.QE)";
static const char why_cond[] =
	"conditional packet while conditional tracing is off "
	"(TRCIDR0.TRCCOND, TRCCONFIGR.COND)";
static const char why_data[] =
	"data synchronisation marker while data trace is off (TRCCONFIGR)";
static const char why_v8m[] =
	"function return packet: ARMv8-M only, not configurable here";

static void set_tmpl(struct etm4_pkt_decoder *dec, unsigned b, uint8_t type)
{
	struct etm4_tmpl *t = &dec->tmpl[b];

	memset(t, 0, sizeof(*t));
	t->type = type;
	t->size = 1;
	t->length = 1;
	dec->kind[b] = ETM4_K_TMPL;
}

static void set_atoms(struct etm4_pkt_decoder *dec, unsigned b, uint32_t bits,
		      unsigned count, unsigned format)
{
	set_tmpl(dec, b, etm4_pkt_atom);
	dec->tmpl[b].u.atoms.bits = bits;
	dec->tmpl[b].u.atoms.count = (uint8_t)count;
	dec->tmpl[b].u.atoms.format = (uint8_t)format;
}

/* Atom formats 1-6 (digest 5.14): E = 1, N = 0, bit 0 the oldest. */
static void build_atoms(struct etm4_pkt_decoder *dec)
{
	/* Format 4, AA = 00 N E E E, 01 N N N N, 10 N E N E, 11 E N E N. */
	static const uint8_t f4[4] = { 0xe, 0x0, 0xa, 0x5 };

	/* C0-D4 and E0-F4 (CCCCC <= 20) are format 6. */
	for (unsigned b = 0xc0; b < 0x100; b++) {
		unsigned c = b & 0x1f;

		if (c <= 20) {
			/* Format 6, 11AC CCCC: CCCCC + 3 E, then E (A = 0)
			 * or N (A = 1). */
			uint32_t bits = (1u << (c + 3)) - 1;

			if (!(b & 0x20))
				bits |= 1u << (c + 3);
			set_atoms(dec, b, bits, c + 4, 6);
		}
	}
	for (unsigned b = 0xd8; b <= 0xdb; b++)
		set_atoms(dec, b, b & 3, 2, 2);
	for (unsigned b = 0xdc; b <= 0xdf; b++)
		set_atoms(dec, b, f4[b & 3], 4, 4);
	/* Format 5: D5 N N N N N, D6 N E N E N, D7 E N E N E, F5 N E E E E. */
	set_atoms(dec, 0xd5, 0x00, 5, 5);
	set_atoms(dec, 0xd6, 0x0a, 5, 5);
	set_atoms(dec, 0xd7, 0x15, 5, 5);
	set_atoms(dec, 0xf5, 0x1e, 5, 5);
	set_atoms(dec, 0xf6, 0, 1, 1);
	set_atoms(dec, 0xf7, 1, 1, 1);
	for (unsigned b = 0xf8; b <= 0xff; b++)
		set_atoms(dec, b, b & 7, 3, 3);
}

static void set_kind(struct etm4_pkt_decoder *dec, unsigned b, uint8_t kind,
		     const char *off_why)
{
	if (off_why) {
		dec->kind[b] = ETM4_K_RESERVED;
		dec->why[b] = off_why;
	} else {
		dec->kind[b] = kind;
	}
}

/* Headers 0x00-0x3f (digest 4). */
static void build_low(struct etm4_pkt_decoder *dec)
{
	const struct etm4_config_info *ci = &dec->info;
	const char *cci = ci->cci ? NULL : why_cci;
	const char *data = ci->ete ? why_v4_only : ci->data ? NULL : why_data;

	dec->kind[0x00] = ETM4_K_EXT;
	dec->kind[0x01] = ETM4_K_TINFO;
	dec->kind[0x02] = dec->kind[0x03] = ETM4_K_TS;
	set_tmpl(dec, 0x04, etm4_pkt_trace_on);
	dec->why[0x05] = why_v8m; /* digest 5.7, U3 */
	dec->kind[0x06] = ETM4_K_EXC;
	if (ci->ete) {
		dec->why[0x07] = why_v4_only; /* digest 5.6 */
		set_tmpl(dec, 0x0a, etm4_pkt_transaction_start);
		set_tmpl(dec, 0x0b, etm4_pkt_transaction_commit);
		/* FEAT_ITE, ETE 1.3 (digest 5.25, U20). */
		set_kind(dec, 0x09, ETM4_K_ITE, ci->minor >= 3 ? NULL : why_version);
	} else {
		set_tmpl(dec, 0x07, etm4_pkt_exception_return);
		dec->why[0x09] = dec->why[0x0a] = dec->why[0x0b] = why_ete_only;
	}
	set_kind(dec, 0x0c, ETM4_K_CC2, cci);
	set_kind(dec, 0x0d, ETM4_K_CC2, cci);
	set_kind(dec, 0x0e, ETM4_K_CC1, cci);
	set_kind(dec, 0x0f, ETM4_K_CC1, cci);
	for (unsigned b = 0x10; b <= 0x1f; b++)
		set_kind(dec, b, ETM4_K_CC3, cci);
	for (unsigned b = 0x20; b <= 0x2c; b++)
		set_kind(dec, b, ETM4_K_COND1, data);
	dec->kind[0x2d] = ETM4_K_COMMIT;
	dec->kind[0x2e] = dec->kind[0x2f] = ETM4_K_CANCEL1;
	for (unsigned b = 0x30; b <= 0x3f; b++)
		dec->kind[b] = ETM4_K_SPEC;
}

/* Headers 0x40-0x7f: ETMv4 conditional packets, Ignore, Event. */
static void build_mid(struct etm4_pkt_decoder *dec)
{
	const struct etm4_config_info *ci = &dec->info;
	const char *cond = ci->ete ? why_v4_only : ci->cond ? NULL : why_cond;

	for (unsigned b = 0x40; b <= 0x6f; b++) {
		uint8_t k;

		/* 0x47, 0x4b, 0x4f and 0x60-0x67 are reserved (U27). */
		if (b == 0x47 || b == 0x4b || b == 0x4f || (b >= 0x60 && b <= 0x67))
			continue;
		if (b < 0x50)
			k = ETM4_K_COND1;
		else if (b < 0x60)
			k = ETM4_K_COND_R3;
		else if (b == 0x6c)
			k = ETM4_K_COND_I1;
		else if (b == 0x6d)
			k = ETM4_K_COND_I3;
		else
			k = ETM4_K_COND_R1;
		set_kind(dec, b, k, cond);
	}
	/* Ignore: ETMv4.3 and later, every ETE (digest 5.16). */
	if (ci->ete || ci->minor >= 3)
		set_tmpl(dec, 0x70, etm4_pkt_ignore);
	else
		dec->why[0x70] = why_version;
	for (unsigned b = 0x71; b <= 0x7f; b++) {
		set_tmpl(dec, b, etm4_pkt_event);
		dec->tmpl[b].u.event = b & 0xf;
	}
}

/* Headers 0x80-0xbf: context, addresses, Q, ETE source addresses. */
static void build_high(struct etm4_pkt_decoder *dec)
{
	const struct etm4_config_info *ci = &dec->info;
	const char *ete = ci->ete ? NULL : why_ete_only;

	dec->kind[0x80] = dec->kind[0x81] = ETM4_K_CTXT;
	dec->kind[0x82] = dec->kind[0x83] = ETM4_K_ADDR_CTXT;
	dec->kind[0x85] = dec->kind[0x86] = ETM4_K_ADDR_CTXT;
	/* Timestamp marker: ETE 1.1 (FEAT_ETEv1p1); OpenCSD also takes it
	 * from ETMv4.6 (U21). */
	if ((ci->ete && ci->minor >= 1) || (!ci->ete && ci->minor >= 6))
		set_tmpl(dec, 0x88, etm4_pkt_ts_marker);
	else
		dec->why[0x88] = why_version;
	dec->kind[0x90] = dec->kind[0x91] = dec->kind[0x92] = ETM4_K_EXACT;
	dec->kind[0x95] = dec->kind[0x96] = ETM4_K_SHORT;
	dec->kind[0x9a] = dec->kind[0x9b] = ETM4_K_LONG32;
	dec->kind[0x9d] = dec->kind[0x9e] = ETM4_K_LONG64;
	for (unsigned t = 0; t < 16; t++) {
		/* Q types 3, 4, 7, 8, 9, D and E are reserved (digest 5.17). */
		if ((0x6398u >> t) & 1)
			continue;
		set_kind(dec, 0xa0 + t, ETM4_K_Q, ci->q ? NULL : why_q);
	}
	for (unsigned b = 0xb0; b <= 0xb2; b++)
		set_kind(dec, b, ETM4_K_EXACT, ete);
	set_kind(dec, 0xb4, ETM4_K_SHORT, ete);
	set_kind(dec, 0xb5, ETM4_K_SHORT, ete);
	set_kind(dec, 0xb6, ETM4_K_LONG32, ete);
	set_kind(dec, 0xb7, ETM4_K_LONG32, ete);
	set_kind(dec, 0xb8, ETM4_K_LONG64, ete);
	set_kind(dec, 0xb9, ETM4_K_LONG64, ete);
}

void etm4_build_tables(struct etm4_pkt_decoder *dec)
{
	memset(dec->kind, ETM4_K_RESERVED, sizeof(dec->kind));
	memset(dec->tmpl, 0, sizeof(dec->tmpl));
	for (unsigned b = 0; b < 256; b++)
		dec->why[b] = why_reserved;
	build_low(dec);
	build_mid(dec);
	build_high(dec);
	build_atoms(dec);
	/* The synced loop tells one-byte packets by their template's size:
	 * every other header's template stays zero. */
	for (unsigned b = 0; b < 256; b++) {
		if (dec->kind[b] != ETM4_K_RESERVED)
			dec->why[b] = NULL;
		if (dec->kind[b] != ETM4_K_TMPL)
			memset(&dec->tmpl[b], 0, sizeof(dec->tmpl[b]));
		/* The atom table of ETM4_CFG_ATOM_RUNS. */
		memset(&dec->atoms[b], 0, sizeof(dec->atoms[b]));
		if (dec->kind[b] == ETM4_K_TMPL &&
		    dec->tmpl[b].type == etm4_pkt_atom)
			dec->atoms[b] = dec->tmpl[b].u.atoms;
	}
}
