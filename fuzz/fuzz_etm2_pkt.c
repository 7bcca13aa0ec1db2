/* libFuzzer target: the ETMv2 packet decoder (etm2_pkt_*) on arbitrary
 * cycles. Byte 0 chooses the configuration (port width, FIFO latency,
 * PIPESTAT table, ETMv1, stop-on-error), byte 1 ETMCR's data and context
 * ID bits, bytes 2-3 the seed of the feed split; then 3 bytes a cycle
 * (PIPESTAT, bit 7 = TRACESYNC for ETMv1; TRACEPKT low, high; masked to
 * the port). The cycles are
 * decoded twice: in one feed, drained 64 records at a time, and in
 * random chunks of 1-64 cycles drained 1-8 records a call. Invariants:
 * - both decodes give the same records (the output does not depend on
 *   the feed split), with stop-on-error up to the same error;
 * - records come in status order: the cycles of records that are not
 *   packets never go back; a packet belongs to the cycle of the status
 *   or TFO record before it and left the FIFO no earlier than it; fields
 *   are in range. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/etmv2/e2t.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_CYCLES 4096
#define MAX_LINES 16384

struct out {
	char (*line)[160];
	const char **why;
	size_t n;
};

static uint32_t next_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static int is_packet(unsigned type)
{
	return type >= etm2_pkt_branch_address && type != etm2_pkt_type_count;
}

/* Order and range checks over one decode. */
static void check(const struct etm2_packet *p, uint64_t *last, int *have)
{
	if (p->type >= etm2_pkt_type_count || p->size > ETM2_PKT_MAX_BYTES)
		abort();
	if (p->error && !p->why)
		abort();
	if (is_packet(p->type) && !(p->type == etm2_pkt_reserved && !p->error)) {
		if (!*have || p->cycle != *last || p->out_cycle < p->cycle)
			abort();
		if (p->type == etm2_pkt_branch_address && !p->error &&
		    (p->u.branch.addr_bytes < 1 || p->u.branch.addr_bytes > 5 ||
		     p->u.branch.addr_bits > 32))
			abort();
		if (p->type == etm2_pkt_normal_data && p->u.data.value_bytes > 4)
			abort();
		return;
	}
	if (p->type == etm2_pkt_reserved)
		abort(); /* a reserved header is always an error */
	if (*have && p->cycle < *last && !(p->type == etm2_pkt_unsynced && p->error))
		abort();
	if (p->type == etm2_pkt_tfo && !p->error &&
	    (p->u.tfo.reason > 3 || p->u.tfo.offset > 127))
		abort();
	if (p->type == etm2_pkt_wait && p->length != p->u.wait.wt + p->u.wait.td)
		abort();
	*last = p->cycle;
	*have = 1;
}

static void keep(struct out *o, const struct etm2_packet *p)
{
	if (o->n == MAX_LINES)
		abort(); /* at most a few records a cycle */
	e2t_format_pkt(p, o->line[o->n], sizeof(o->line[0]));
	o->why[o->n++] = p->why;
}

static void decode(const struct etm2_config *cfg, const struct etm2_cycle *c,
		   size_t n, uint32_t seed, struct out *o)
{
	struct etm2_pkt_decoder *dec;
	struct etm2_packet p[64];
	uint64_t last = 0;
	int have = 0, rc = 0;
	size_t at = 0;

	o->n = 0;
	if (etm2_pkt_alloc(&dec, cfg))
		abort();
	for (int finished = 0; rc == 0 && !finished;) {
		size_t len = seed ? 1 + next_rand(&seed) % 64 : n;

		if (at >= n) {
			rc = etm2_pkt_finish(dec);
			finished = 1;
		} else {
			if (len > n - at)
				len = n - at;
			rc = etm2_pkt_feed(dec, c + at, len, at);
			at += len;
		}
		if (rc == -etmkit_err_bad_packet)
			break;
		if (rc)
			abort();
		for (;;) {
			size_t max = seed ? 1 + next_rand(&seed) % 8 : 64;
			int k = etm2_pkt_next(dec, p, max);

			if (k == -etmkit_err_eos)
				break;
			if (k == -etmkit_err_bad_packet) {
				rc = k;
				break;
			}
			if (k <= 0 || (size_t)k > max)
				abort();
			for (int i = 0; i < k; i++) {
				check(&p[i], &last, &have);
				keep(o, &p[i]);
			}
		}
	}
	etm2_pkt_free(dec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t widths[4] = { 4, 8, 16, 8 };
	static const uint16_t masks[4] = { 0xf, 0xff, 0xffff, 0xff };
	static struct etm2_cycle cyc[MAX_CYCLES];
	static char la[MAX_LINES][160], lb[MAX_LINES][160];
	static const char *wa[MAX_LINES], *wb[MAX_LINES];
	struct out a = { la, wa, 0 }, b = { lb, wb, 0 };
	struct etm2_config cfg;
	uint32_t seed;
	size_t n = 0;

	if (size < 4)
		return 0;
	etm2_config_init(&cfg);
	cfg.port_width = widths[data[0] & 3];
	cfg.fifo_latency = (data[0] >> 2) & 1;
	if (data[0] & 8)
		etm2_pipestat_table("alt", cfg.pipestat);
	cfg.version = (data[0] & 0x10) ? 1 : 2;
	if (data[0] & 0x20)
		cfg.flags |= ETM2_CFG_STOP_ON_ERROR;
	cfg.etmcr = (uint32_t)(data[1] & 3) << ETM2_ETMCR_CID_SHIFT |
		    ((data[1] & 4) ? ETM2_ETMCR_DATA_ADDR : 0) |
		    ((data[1] & 8) ? ETM2_ETMCR_DATA_VALUE : 0);
	seed = (uint32_t)data[2] | (uint32_t)data[3] << 8 | 0x10000u;
	for (size_t i = 4; i + 3 <= size && n < MAX_CYCLES; i += 3, n++) {
		cyc[n].ps = data[i] & (cfg.version == 1 ? 7 : 15);
		cyc[n].pkt = (uint16_t)((data[i + 1] | data[i + 2] << 8) &
					masks[data[0] & 3]);
		/* ETMv1: bit 7 of the status byte is TRACESYNC */
		cyc[n].flags = cfg.version == 1 && (data[i] & 0x80) ?
				       ETM2_CYC_TRACESYNC : 0;
	}
	decode(&cfg, cyc, n, 0, &a);
	decode(&cfg, cyc, n, seed, &b);
	if (a.n != b.n)
		abort();
	for (size_t i = 0; i < a.n; i++)
		if (strcmp(a.line[i], b.line[i]) || a.why[i] != b.why[i])
			abort();
	return 0;
}
