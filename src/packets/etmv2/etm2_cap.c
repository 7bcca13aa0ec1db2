/* ETMv2 capture readers: the entry points, and what the file states
 * merged with the options (docs/etmv2-capture.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "packets/etmv2/etm2_cap_internal.h"

void etm2_cap_diag_set(struct etm2_cap_diag *d, uint64_t line,
		       uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return;
	d->line = line;
	d->offset = offset;
	va_start(ap, fmt);
	vsnprintf(d->message, sizeof(d->message), fmt, ap);
	va_end(ap);
}

static int conflict(struct etm2_cap_diag *diag, const char *what,
		    unsigned long file, unsigned long opt)
{
	/* Registers in hex, the rest in decimal. */
	int hex = strncmp(what, "ETM", 3) == 0 && what[3] != ' ';

	etm2_cap_diag_set(diag, 0, 0, hex ? "%s 0x%08lx in the capture, 0x%08lx "
			  "in the options" : "%s %lu in the capture, %lu in the options",
			  what, file, opt);
	return -etmkit_err_bad_config;
}

/* @file's value if stated, else @opt's; an @opt value (non-zero) the file
 * states otherwise is a conflict. */
#define MERGE(field, stated, name)                                           \
	do {                                                                 \
		if ((stated) && opt->field && st->info.field != opt->field)  \
			return conflict(diag, name, st->info.field,          \
					opt->field);                         \
		out->field = (stated) ? st->info.field : opt->field;         \
	} while (0)

static int merge_regs(struct etm2_cap_info *out, const struct etm2_cap_stated *st,
		      const struct etm2_cap_info *opt, struct etm2_cap_diag *diag)
{
	if (st->info.has_etmcr && opt->has_etmcr && st->info.etmcr != opt->etmcr)
		return conflict(diag, "ETMCR", st->info.etmcr, opt->etmcr);
	if (st->info.has_etmidr && opt->has_etmidr && st->info.etmidr != opt->etmidr)
		return conflict(diag, "ETMIDR", st->info.etmidr, opt->etmidr);
	out->has_etmcr = st->info.has_etmcr || opt->has_etmcr;
	out->etmcr = st->info.has_etmcr ? st->info.etmcr : opt->etmcr;
	out->has_etmidr = st->info.has_etmidr || opt->has_etmidr;
	out->etmidr = st->info.has_etmidr ? st->info.etmidr : opt->etmidr;
	if (st->info.has_pipestat && opt->has_pipestat &&
	    memcmp(st->info.pipestat, opt->pipestat, 16) != 0) {
		etm2_cap_diag_set(diag, 0, 0, "the PIPESTAT table of the capture "
				  "differs from the options'");
		return -etmkit_err_bad_config;
	}
	out->has_pipestat = st->info.has_pipestat || opt->has_pipestat;
	memcpy(out->pipestat, st->info.has_pipestat ? st->info.pipestat :
	       opt->pipestat, 16);
	return 0;
}

/* Fill what neither states from the registers: version from ETMIDR[11:8]
 * (major - 1; ETMv2 without ETMIDR), port width from ETMCR[6:4], the
 * port mode from ETMCR[17:16], half rate from ETMCR[13] (digest 1). */
static int from_registers(struct etm2_cap_info *out, struct etm2_cap_diag *diag)
{
	static const uint8_t width[8] = { 4, 8, 16, 0, 0, 0, 0, 0 };

	if (!out->version)
		out->version = out->has_etmidr && ((out->etmidr >> 8) & 0xf) == 0 ? 1 : 2;
	if (!out->port_width && out->has_etmcr)
		out->port_width = width[(out->etmcr >> ETM2_ETMCR_PORT_SIZE_SHIFT) & 7];
	if (!out->port_mode && out->has_etmcr)
		out->port_mode = (out->etmcr >> ETM2_ETMCR_PORT_MODE_SHIFT) & 3;
	if (!out->half_rate && out->has_etmcr)
		out->half_rate = !!(out->etmcr & ETM2_ETMCR_HALF_RATE);
	if (out->version != 1 && out->version != 2) {
		etm2_cap_diag_set(diag, 0, 0, "ETM version %u (1 or 2)", out->version);
		return -etmkit_err_bad_config;
	}
	if (!out->port_width) {
		etm2_cap_diag_set(diag, 0, 0, "no port width (neither the capture "
				  "nor the options give one)");
		return -etmkit_err_bad_config;
	}
	if (out->port_width != 4 && out->port_width != 8 && out->port_width != 16) {
		etm2_cap_diag_set(diag, 0, 0, "port width %u (4, 8 or 16)",
				  out->port_width);
		return -etmkit_err_bad_config;
	}
	if (out->port_mode != etm2_port_normal &&
	    out->port_mode != etm2_port_demultiplexed) {
		etm2_cap_diag_set(diag, 0, 0, "port mode %u: only normal and "
				  "demultiplexed ports are supported", out->port_mode);
		return -etmkit_err_bad_config;
	}
	return 0;
}

int etm2_cap_merge(struct etm2_cap_reader *rd, const struct etm2_cap_stated *st,
		   const struct etm2_cap_info *opt, struct etm2_cap_diag *diag)
{
	static const struct etm2_cap_info none;
	struct etm2_cap_info *out = &rd->info;
	uint8_t format = out->format;
	int rc;

	if (!opt)
		opt = &none;
	memset(out, 0, sizeof(*out));
	out->format = format;
	MERGE(version, st->info.version, "ETM version");
	MERGE(port_width, st->info.port_width, "port width");
	MERGE(port_mode, st->has_mode, "port mode");
	MERGE(demux_b_first, st->has_order, "demultiplexed order (b-first)");
	out->half_rate = st->has_half_rate ? st->info.half_rate : opt->half_rate;
	rc = merge_regs(out, st, opt, diag);
	return rc ? rc : from_registers(out, diag);
}

int etm2_cap_open(struct etm2_cap_reader **rdp, const uint8_t *data, size_t n,
		  enum etm2_cap_format format, const struct etm2_cap_info *opt,
		  struct etm2_cap_diag *diag)
{
	struct etm2_cap_reader *rd;
	int rc;

	if (diag)
		memset(diag, 0, sizeof(*diag));
	if (!rdp || (!data && n) || (unsigned)format > etm2_cap_etb)
		return -etmkit_err_invalid;
	*rdp = NULL;
	if (format == etm2_cap_auto) {
		/* Binary by its magic (a prefix of it: a cut header). */
		size_t m = n < 8 ? n : 8;
		format = m && memcmp(data, ETM2_CAP_MAGIC, m) == 0 ?
			etm2_cap_binary : etm2_cap_text;
	}
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return -etmkit_err_nomem;
	rd->data = data;
	rd->n = n;
	rd->info.format = (uint8_t)format;
	if (format == etm2_cap_binary)
		rc = etm2_cap_bin_open(rd, opt, diag);
	else if (format == etm2_cap_etb)
		rc = etm2_cap_etb_open(rd, opt, diag);
	else
		rc = etm2_cap_text_open(rd, opt, diag);
	if (rc) {
		free(rd);
		return rc;
	}
	*rdp = rd;
	return 0;
}

void etm2_cap_close(struct etm2_cap_reader *rd)
{
	free(rd);
}

const struct etm2_cap_info *etm2_cap_get_info(const struct etm2_cap_reader *rd)
{
	return rd ? &rd->info : NULL;
}

uint64_t etm2_cap_tell(const struct etm2_cap_reader *rd)
{
	return rd ? rd->pos : 0;
}

long etm2_cap_read(struct etm2_cap_reader *rd, struct etm2_cycle *out,
		   size_t max, struct etm2_cap_diag *diag)
{
	if (!rd || (!out && max))
		return -etmkit_err_invalid;
	if (rd->err && !rd->pend_rep) {
		if (diag)
			*diag = rd->err_diag;
		return rd->err;
	}
	if (!max)
		return 0;
	switch (rd->info.format) {
	case etm2_cap_binary:
		return etm2_cap_bin_read(rd, out, max, diag);
	case etm2_cap_etb:
		return etm2_cap_etb_read(rd, out, max, diag);
	default:
		return etm2_cap_text_read(rd, out, max, diag);
	}
}
