/* The binary capture form ("ETM2CAP" header, 4-byte records) and the
 * pre-CoreSight ETB RAM word form (digest etmv2.md section 9), both read
 * in place from the caller's buffer (docs/etmv2-capture.md). */
#include <stdio.h>
#include <string.h>

#include "packets/etmv2/etm2_cap_internal.h"

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Keep @rc for the next call if cycles were delivered, else return it. */
static long fail(struct etm2_cap_reader *rd, size_t k, int rc,
		 struct etm2_cap_diag *diag)
{
	rd->err = rc;
	rd->pos = rd->n;
	if (k)
		return (long)k;
	if (diag)
		*diag = rd->err_diag;
	return rc;
}

/* ---- Binary ----------------------------------------------------------- */

static int hdr_error(struct etm2_cap_diag *diag, unsigned at, const char *fmt,
		     ...) __attribute__((format(printf, 3, 4)));
static int hdr_error(struct etm2_cap_diag *diag, unsigned at, const char *fmt, ...)
{
	char msg[sizeof(diag->message)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	etm2_cap_diag_set(diag, 0, at, "byte %u: %s", at, msg);
	return -etmkit_err_format;
}

int etm2_cap_bin_open(struct etm2_cap_reader *rd, const struct etm2_cap_info *opt,
		      struct etm2_cap_diag *diag)
{
	const uint8_t *h = rd->data;
	struct etm2_cap_stated st;
	unsigned size, flags;

	if (rd->n < 8 || memcmp(h, ETM2_CAP_MAGIC, 8) != 0) {
		if (rd->n < 8 && memcmp(h, ETM2_CAP_MAGIC, rd->n) == 0)
			goto cut;
		etm2_cap_diag_set(diag, 0, 0, "byte 0: not an ETMv2 binary capture "
				  "(no \"ETM2CAP\" magic)");
		return -etmkit_err_format;
	}
	if (rd->n < ETM2_CAP_HDR_SIZE)
		goto cut;
	if (get16(h + 8) != ETM2_CAP_BIN_VERSION)
		return hdr_error(diag, 8, "format version %u (this reader knows 1)",
				 get16(h + 8));
	size = get16(h + 10);
	if (size < ETM2_CAP_HDR_SIZE || size > rd->n)
		return hdr_error(diag, 10, "header size %u (32 or more, within the "
				 "file)", size);
	memset(&st, 0, sizeof(st));
	st.info.version = h[12];
	st.info.port_width = h[13];
	st.info.port_mode = h[14];
	flags = h[15];
	if (st.info.version > 2)
		return hdr_error(diag, 12, "ETM version %u (1 or 2; 0 not stated)",
				 st.info.version);
	if (st.info.port_width && st.info.port_width != 4 &&
	    st.info.port_width != 8 && st.info.port_width != 16)
		return hdr_error(diag, 13, "port width %u (4, 8 or 16; 0 not "
				 "stated)", st.info.port_width);
	if (st.info.port_mode != etm2_port_normal &&
	    st.info.port_mode != etm2_port_demultiplexed)
		return hdr_error(diag, 14, "port mode %u (0 normal or 2 "
				 "demultiplexed)", st.info.port_mode);
	if (flags & 0xf0)
		return hdr_error(diag, 15, "unknown flags 0x%02x", flags);
	st.has_mode = st.has_half_rate = st.has_order = 1;
	st.info.half_rate = !!(flags & ETM2_CAP_F_HALF_RATE);
	st.info.demux_b_first = !!(flags & ETM2_CAP_F_B_FIRST);
	st.info.has_etmcr = !!(flags & ETM2_CAP_F_ETMCR);
	st.info.has_etmidr = !!(flags & ETM2_CAP_F_ETMIDR);
	st.info.etmcr = st.info.has_etmcr ? get32(h + 16) : 0;
	st.info.etmidr = st.info.has_etmidr ? get32(h + 20) : 0;
	rd->pos = size;
	return etm2_cap_merge(rd, &st, opt, diag);
cut:
	etm2_cap_diag_set(diag, 0, rd->n, "byte %llu: header cut short (%zu of 32 "
			  "bytes)", (unsigned long long)rd->n, rd->n);
	return -etmkit_err_format;
}

/* One record at rd->pos into @c; 0 or a negated error (rd->err_diag). */
static int record(struct etm2_cap_reader *rd, struct etm2_cycle *c)
{
	const uint8_t *p = rd->data + rd->pos;
	unsigned long long at = rd->pos;
	unsigned pkt, ps, fl;

	if (rd->n - rd->pos < 4) {
		etm2_cap_diag_set(&rd->err_diag, 0, at, "byte %llu: record cut short "
				  "(%zu of 4 bytes)", at, rd->n - rd->pos);
		return -etmkit_err_truncated;
	}
	pkt = get16(p);
	ps = p[2];
	fl = p[3];
	if (ps > etm2_cap_ps_max(&rd->info) || pkt > etm2_cap_pkt_max(&rd->info) ||
	    (fl & ~ETM2_CYC_TRACESYNC) || (fl && rd->info.version != 1)) {
		etm2_cap_diag_set(&rd->err_diag, 0, at, "byte %llu: bad record (PIPESTAT "
				  "0x%x, TRACEPKT 0x%x, flags 0x%x for ETMv%u, %u-bit "
				  "port)", at, ps, pkt, fl, rd->info.version,
				  rd->info.port_width);
		return -etmkit_err_format;
	}
	c->pkt = (uint16_t)pkt;
	c->ps = (uint8_t)ps;
	c->flags = (uint8_t)fl;
	rd->pos += 4;
	return 0;
}

long etm2_cap_bin_read(struct etm2_cap_reader *rd, struct etm2_cycle *out,
		       size_t max, struct etm2_cap_diag *diag)
{
	int demux = rd->info.port_mode == etm2_port_demultiplexed;
	size_t k = 0;
	int rc;

	etm2_cap_drain(rd, out, &k, max);
	while (k < max && rd->pos < rd->n) {
		if (!demux) {
			rc = record(rd, &out[k]);
			if (rc)
				return fail(rd, k, rc, diag);
			k++;
			continue;
		}
		/* A port clock: A then B in the file; B first in time if the
		 * header says so (docs/etmv2-capture.md). */
		if (rd->n - rd->pos < 8) {
			unsigned long long at = rd->pos;

			etm2_cap_diag_set(&rd->err_diag, 0, at, "byte %llu: port clock "
					  "cut short (%zu of 8 bytes, demultiplexed)",
					  at, rd->n - rd->pos);
			return fail(rd, k, -etmkit_err_truncated, diag);
		}
		rc = record(rd, &rd->pend[rd->info.demux_b_first]);
		if (!rc)
			rc = record(rd, &rd->pend[!rd->info.demux_b_first]);
		if (rc)
			return fail(rd, k, rc, diag);
		rd->pend_n = 2;
		rd->pend_i = 0;
		rd->pend_rep = 1;
		etm2_cap_drain(rd, out, &k, max);
	}
	return (long)k;
}

/* ---- ETB RAM words (digest 9) ------------------------------------------ */

int etm2_cap_etb_open(struct etm2_cap_reader *rd, const struct etm2_cap_info *opt,
		      struct etm2_cap_diag *diag)
{
	static const struct etm2_cap_stated none;
	int rc = etm2_cap_merge(rd, &none, opt, diag);

	if (rc)
		return rc;
	if (rd->info.port_mode != etm2_port_normal) {
		etm2_cap_diag_set(diag, 0, 0, "ETB captures of a demultiplexed port "
				  "are not supported (the slot layout is not known)");
		return -etmkit_err_bad_config;
	}
	return 0;
}

/* A word holds 3 (4-bit), 2 (8-bit) or 1 (16-bit) slots, the earliest
 * cycle lowest; a slot is PIPESTAT[2:0], TRACEPKT, then TRACESYNC
 * (ETMv1) or, ASSUMED, PIPESTAT[3] (ETMv2) (digest 9: OpenOCD only). All
 * three PIPESTAT bits of every slot are used. */
static void etb_word(struct etm2_cap_reader *rd, uint32_t w)
{
	unsigned width = rd->info.port_width, bits = width + 4;
	unsigned slots = width == 4 ? 3 : width == 8 ? 2 : 1;

	for (unsigned i = 0; i < slots; i++) {
		uint32_t s = w >> (i * bits);
		struct etm2_cycle *c = &rd->pend[i];
		unsigned top = (s >> (3 + width)) & 1;

		c->ps = (uint8_t)(s & 7);
		c->pkt = (uint16_t)((s >> 3) & ((1u << width) - 1));
		c->flags = 0;
		if (rd->info.version == 1)
			c->flags = top ? ETM2_CYC_TRACESYNC : 0;
		else
			c->ps |= (uint8_t)(top << 3);
	}
	rd->pend_n = slots;
	rd->pend_i = 0;
	rd->pend_rep = 1;
}

long etm2_cap_etb_read(struct etm2_cap_reader *rd, struct etm2_cycle *out,
		       size_t max, struct etm2_cap_diag *diag)
{
	size_t k = 0;

	etm2_cap_drain(rd, out, &k, max);
	while (k < max && rd->pos < rd->n) {
		if (rd->n - rd->pos < 4) {
			unsigned long long at = rd->pos;

			etm2_cap_diag_set(&rd->err_diag, 0, at, "byte %llu: ETB word cut "
					  "short (%zu of 4 bytes)", at, rd->n - rd->pos);
			return fail(rd, k, -etmkit_err_truncated, diag);
		}
		etb_word(rd, get32(rd->data + rd->pos));
		rd->pos += 4;
		etm2_cap_drain(rd, out, &k, max);
	}
	return (long)k;
}
