/* libFuzzer target: the ETMv2 capture readers (text, binary, ETB) on
 * arbitrary bytes. Input: byte 0 selects the form (bits 1:0: 0 auto, 1
 * text, 2 binary, 3 ETB) and the options (bits 3:2 port width: none, 4, 8,
 * 16; bit 4 ETMv1; bit 5 demultiplexed; bit 6 the read size is 1, else
 * 61), then the capture.
 * Invariants:
 * - reading ends (a cap on the cycles taken keeps xN repeats short) with
 *   0 or an error that carries a message and a position inside the input;
 * - every cycle fits what the reader's info says (PIPESTAT code, port
 *   width, TRACESYNC only for ETMv1);
 * - the cycles read go through each writer (binary, text) and back
 *   through the reader unchanged: writers and readers are inverses. */
#include <stdlib.h>
#include <string.h>

#include "etmkit/etm2.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define KEEP 4096          /* cycles written back */
#define TAKE (1u << 20)    /* cycles read at most */

struct buf {
	uint8_t *d;
	size_t n, cap;
};

static int to_buf(void *ctx, const uint8_t *p, size_t n)
{
	struct buf *b = ctx;

	if (b->n + n > b->cap) {
		size_t cap = (b->n + n) * 2;
		uint8_t *d = realloc(b->d, cap);

		if (!d)
			abort();
		b->d = d;
		b->cap = cap;
	}
	memcpy(b->d + b->n, p, n);
	b->n += n;
	return 0;
}

static void check_cycle(const struct etm2_cap_info *i, const struct etm2_cycle *c)
{
	unsigned ps_max = i->version == 1 ? 7 : 15;
	unsigned pkt_max = i->port_width == 16 ? 0xffff : (1u << i->port_width) - 1;

	if (c->ps > ps_max || c->pkt > pkt_max || (c->flags & ~ETM2_CYC_TRACESYNC) ||
	    (c->flags && i->version != 1))
		abort();
}

/* Write @c[0..n) as @fmt and read it back: the same cycles. */
static void round_trip(const struct etm2_cap_info *info, const struct etm2_cycle *c,
		       size_t n, enum etm2_cap_format fmt)
{
	struct etm2_cap_writer *wr;
	struct etm2_cap_reader *rd;
	struct etm2_cap_diag dg;
	struct etm2_cycle back[64];
	struct buf b = { 0 };
	size_t at = 0;
	long got;

	if (etm2_cap_writer_alloc(&wr, fmt, info, NULL, to_buf, &b) ||
	    etm2_cap_write(wr, c, n) || etm2_cap_writer_finish(wr))
		abort();
	etm2_cap_writer_free(wr);
	if (etm2_cap_open(&rd, b.d, b.n, etm2_cap_auto, NULL, &dg))
		abort();
	while ((got = etm2_cap_read(rd, back, 64, &dg)) > 0) {
		if (at + (size_t)got > n ||
		    memcmp(back, c + at, (size_t)got * sizeof(*c)) != 0)
			abort();
		at += (size_t)got;
	}
	if (got != 0 || at != n)
		abort();
	etm2_cap_close(rd);
	free(b.d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t widths[4] = { 0, 4, 8, 16 };
	static struct etm2_cycle keep[KEEP];
	struct etm2_cap_info opt = { 0 };
	struct etm2_cap_reader *rd;
	struct etm2_cap_diag dg;
	const struct etm2_cap_info *info;
	struct etm2_cycle c[61];
	size_t kept = 0, taken = 0, chunk;
	long got;
	uint8_t sel;

	if (size < 1)
		return 0;
	sel = data[0];
	opt.port_width = widths[(sel >> 2) & 3];
	opt.version = sel & 0x10 ? 1 : 0;
	opt.port_mode = sel & 0x20 ? etm2_port_demultiplexed : etm2_port_normal;
	chunk = sel & 0x40 ? 1 : 61;
	if (etm2_cap_open(&rd, data + 1, size - 1, (enum etm2_cap_format)(sel & 3),
			  &opt, &dg)) {
		if (!dg.message[0] || dg.offset > size)
			abort();
		return 0;
	}
	info = etm2_cap_get_info(rd);
	while (taken < TAKE && (got = etm2_cap_read(rd, c, chunk, &dg)) > 0) {
		for (long i = 0; i < got; i++) {
			check_cycle(info, &c[i]);
			if (kept < KEEP)
				keep[kept++] = c[i];
		}
		taken += (size_t)got;
	}
	if (taken < TAKE && got < 0 && (!dg.message[0] || dg.offset > size))
		abort();
	/* Whole port clocks only. */
	if (info->port_mode == etm2_port_demultiplexed)
		kept &= ~(size_t)1;
	round_trip(info, keep, kept, etm2_cap_binary);
	round_trip(info, keep, kept, etm2_cap_text);
	etm2_cap_close(rd);
	return 0;
}
