/* Writers of the binary and text capture forms (docs/etmv2-capture.md),
 * the exact inverse of their readers: what a writer accepts, the reader
 * gives back cycle for cycle. Output is buffered and goes to the sink in
 * pieces; nothing is allocated per cycle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "packets/etmv2/etm2_cap_internal.h"
#include "packets/etmv2/etm2_names.h"

#define OUT_SIZE 8192
#define LINE_MAX_LEN 96 /* longest cycle line: "TR/PNDN 0xffff | TR/PNDN
			   0xffff x16777216" */

struct etm2_cap_writer {
	exec_sink_fn sink;
	void *ctx;
	struct etm2_cap_info info;
	uint8_t format;
	uint8_t status_of[16];  /* code -> status (text names) */
	uint8_t code_of[etm2_st_count];
	int err;
	/* a port clock's first half, waiting for its second (demultiplexed) */
	struct etm2_cycle half;
	unsigned have_half;
	/* text: the line being repeated and how often */
	struct etm2_cycle run[2];
	uint32_t run_n;
	size_t used;
	uint8_t out[OUT_SIZE];
};

static int flush(struct etm2_cap_writer *wr)
{
	int rc = 0;

	if (wr->used && !wr->err) {
		rc = wr->sink(wr->ctx, wr->out, wr->used);
		if (rc)
			wr->err = rc;
	}
	wr->used = 0;
	return wr->err;
}

static int put(struct etm2_cap_writer *wr, const void *p, size_t n)
{
	if (wr->used + n > OUT_SIZE && flush(wr))
		return wr->err;
	memcpy(wr->out + wr->used, p, n);
	wr->used += n;
	return 0;
}

/* ---- Binary --------------------------------------------------------------- */

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

static int bin_header(struct etm2_cap_writer *wr)
{
	const struct etm2_cap_info *i = &wr->info;
	uint8_t h[ETM2_CAP_HDR_SIZE] = { 0 };

	memcpy(h, ETM2_CAP_MAGIC, 8);
	put16(h + 8, ETM2_CAP_BIN_VERSION);
	put16(h + 10, ETM2_CAP_HDR_SIZE);
	h[12] = i->version;
	h[13] = i->port_width;
	h[14] = i->port_mode;
	h[15] = (uint8_t)((i->half_rate ? ETM2_CAP_F_HALF_RATE : 0) |
			  (i->has_etmcr ? ETM2_CAP_F_ETMCR : 0) |
			  (i->has_etmidr ? ETM2_CAP_F_ETMIDR : 0) |
			  (i->demux_b_first ? ETM2_CAP_F_B_FIRST : 0));
	put32(h + 16, i->has_etmcr ? i->etmcr : 0);
	put32(h + 20, i->has_etmidr ? i->etmidr : 0);
	return put(wr, h, sizeof(h));
}

static int bin_record(struct etm2_cap_writer *wr, const struct etm2_cycle *c)
{
	uint8_t r[4];

	put16(r, c->pkt);
	r[2] = c->ps;
	r[3] = c->flags;
	return put(wr, r, 4);
}

/* ---- Text ----------------------------------------------------------------- */

static int text_header(struct etm2_cap_writer *wr, const uint8_t table[16])
{
	const struct etm2_cap_info *i = &wr->info;
	char buf[400];
	int n;

	n = snprintf(buf, sizeof(buf), "etmv2-capture 1\nversion %u\nport-width %u\n"
		     "port-mode %s\nhalf-rate %u\n", i->version, i->port_width,
		     i->port_mode == etm2_port_demultiplexed ? "demultiplexed" :
		     "normal", i->half_rate ? 1u : 0u);
	if (i->port_mode == etm2_port_demultiplexed)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "demux-order %s\n",
			      i->demux_b_first ? "b-first" : "a-first");
	if (i->has_etmcr)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "etmcr 0x%08x\n",
			      (unsigned)i->etmcr);
	if (i->has_etmidr)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "etmidr 0x%08x\n",
			      (unsigned)i->etmidr);
	if (i->version == 2) {
		const char *name = etm2_pipestat_table_name(table);

		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "pipestat-table ");
		if (name) {
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%s\n", name);
		} else {
			for (unsigned c = 0; c < 16; c++)
				n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%s%s",
					      etm2_status_name(table[c]),
					      c == 15 ? "\n" : ",");
		}
	}
	n += snprintf(buf + n, sizeof(buf) - (size_t)n, "cycles\n");
	return put(wr, buf, (size_t)n);
}

/* A code by its name when the reader maps that name back to it, else
 * as a number. */
static int code_text(const struct etm2_cap_writer *wr, unsigned code,
		     char *buf, size_t size)
{
	unsigned st = wr->status_of[code];

	if (st < etm2_st_count && wr->code_of[st] == code)
		return snprintf(buf, size, "%s", etm2_status_name(st));
	return snprintf(buf, size, "%u", code);
}

static int cycle_text(const struct etm2_cap_writer *wr, const struct etm2_cycle *c,
		      char *buf, size_t size)
{
	unsigned mask = wr->info.version == 1 ? 7u : 15u;
	int n = code_text(wr, c->ps, buf, size);
	unsigned pkt = c->pkt;

	if (wr->status_of[c->ps] == etm2_st_tr && wr->code_of[etm2_st_tr] == c->ps) {
		buf[n++] = '/';
		n += code_text(wr, pkt & mask, buf + n, size - (size_t)n);
		if (pkt == (pkt & mask))
			pkt = 0;
	}
	if (pkt)
		n += snprintf(buf + n, size - (size_t)n,
			      wr->info.port_width == 4 ? " 0x%x" :
			      wr->info.port_width == 8 ? " 0x%02x" : " 0x%04x", pkt);
	if (c->flags & ETM2_CYC_TRACESYNC)
		n += snprintf(buf + n, size - (size_t)n, " sync");
	return n;
}

static int text_flush_run(struct etm2_cap_writer *wr)
{
	char line[LINE_MAX_LEN];
	int n;

	if (!wr->run_n)
		return 0;
	n = cycle_text(wr, &wr->run[0], line, sizeof(line));
	if (wr->info.port_mode == etm2_port_demultiplexed) {
		n += snprintf(line + n, sizeof(line) - (size_t)n, " | ");
		n += cycle_text(wr, &wr->run[1], line + n, sizeof(line) - (size_t)n);
	}
	if (wr->run_n > 1)
		n += snprintf(line + n, sizeof(line) - (size_t)n, " x%u",
			      (unsigned)wr->run_n);
	line[n++] = '\n';
	wr->run_n = 0;
	return put(wr, line, (size_t)n);
}

static int same(const struct etm2_cycle *a, const struct etm2_cycle *b)
{
	return a->pkt == b->pkt && a->ps == b->ps && a->flags == b->flags;
}

/* One line's worth: a cycle, or a port clock (A, B in port order). */
static int text_unit(struct etm2_cap_writer *wr, const struct etm2_cycle *u)
{
	int demux = wr->info.port_mode == etm2_port_demultiplexed;

	if (wr->run_n && wr->run_n < ETM2_CAP_MAX_REPEAT && same(u, &wr->run[0]) &&
	    (!demux || same(u + 1, &wr->run[1]))) {
		wr->run_n++;
		return 0;
	}
	if (text_flush_run(wr))
		return wr->err;
	wr->run[0] = u[0];
	if (demux)
		wr->run[1] = u[1];
	wr->run_n = 1;
	return 0;
}

/* ---- Common ---------------------------------------------------------------- */

int etm2_cap_writer_alloc(struct etm2_cap_writer **wrp, enum etm2_cap_format format,
			  const struct etm2_cap_info *info,
			  const struct etm2_config *cfg, exec_sink_fn sink, void *ctx)
{
	struct etm2_cap_writer *wr;
	uint8_t table[16];
	unsigned ncodes = 16;
	int rc;

	if (!wrp || !info || !sink ||
	    (format != etm2_cap_binary && format != etm2_cap_text) ||
	    (cfg && cfg->size < sizeof(*cfg)))
		return -etmkit_err_invalid;
	*wrp = NULL;
	if (info->version > 2 || (info->port_width != 4 && info->port_width != 8 &&
				  info->port_width != 16) ||
	    (info->port_mode != etm2_port_normal &&
	     info->port_mode != etm2_port_demultiplexed))
		return -etmkit_err_invalid;
	wr = calloc(1, sizeof(*wr));
	if (!wr)
		return -etmkit_err_nomem;
	wr->sink = sink;
	wr->ctx = ctx;
	wr->format = (uint8_t)format;
	wr->info = *info;
	if (!wr->info.version)
		wr->info.version = 2;
	if (wr->info.version == 1) {
		memcpy(table, etm2_pipestat_v1, 8);
		ncodes = 8;
	} else if (cfg) {
		memcpy(table, cfg->pipestat, 16);
	} else if (info->has_pipestat) {
		memcpy(table, info->pipestat, 16);
	} else {
		etm2_pipestat_table("natural", table);
	}
	memset(wr->status_of, 0xff, sizeof(wr->status_of));
	memset(wr->code_of, 0xff, sizeof(wr->code_of));
	for (unsigned c = ncodes; c-- > 0;) {
		wr->status_of[c] = table[c];
		if (table[c] < etm2_st_count)
			wr->code_of[table[c]] = (uint8_t)c;
	}
	rc = format == etm2_cap_binary ? bin_header(wr) : text_header(wr, table);
	if (rc) {
		free(wr);
		return rc;
	}
	*wrp = wr;
	return 0;
}

/* Records in port order: A then B of each port clock. */
static int unit(struct etm2_cap_writer *wr, const struct etm2_cycle *u)
{
	if (wr->format == etm2_cap_text)
		return text_unit(wr, u);
	if (bin_record(wr, &u[0]))
		return wr->err;
	return wr->info.port_mode == etm2_port_demultiplexed ? bin_record(wr, &u[1]) : 0;
}

int etm2_cap_write(struct etm2_cap_writer *wr, const struct etm2_cycle *c, size_t n)
{
	unsigned ps_max, pkt_max;

	if (!wr || (!c && n))
		return -etmkit_err_invalid;
	if (wr->err)
		return wr->err;
	ps_max = etm2_cap_ps_max(&wr->info);
	pkt_max = etm2_cap_pkt_max(&wr->info);
	for (size_t i = 0; i < n; i++) {
		struct etm2_cycle u[2];

		/* What the reader would refuse. */
		if (c[i].ps > ps_max || c[i].pkt > pkt_max ||
		    (c[i].flags & ~ETM2_CYC_TRACESYNC) ||
		    (c[i].flags && wr->info.version != 1))
			return -etmkit_err_invalid;
		if (wr->info.port_mode != etm2_port_demultiplexed) {
			if (unit(wr, &c[i]))
				return wr->err;
			continue;
		}
		if (!wr->have_half) {
			wr->half = c[i];
			wr->have_half = 1;
			continue;
		}
		/* Time order in, A then B out. */
		u[0] = wr->info.demux_b_first ? c[i] : wr->half;
		u[1] = wr->info.demux_b_first ? wr->half : c[i];
		wr->have_half = 0;
		if (unit(wr, u))
			return wr->err;
	}
	return 0;
}

int etm2_cap_writer_finish(struct etm2_cap_writer *wr)
{
	if (!wr)
		return -etmkit_err_invalid;
	if (wr->err)
		return wr->err;
	/* A demultiplexed capture is whole port clocks. */
	if (wr->have_half)
		return -etmkit_err_invalid;
	if (wr->format == etm2_cap_text && text_flush_run(wr))
		return wr->err;
	return flush(wr);
}

void etm2_cap_writer_free(struct etm2_cap_writer *wr)
{
	free(wr);
}
