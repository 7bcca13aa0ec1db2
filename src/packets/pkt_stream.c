/* The input side of a packet decoder, shared by the protocols
 * (pkt_stream.h). */
#include <string.h>

#include "etmkit/common.h"
#include "packets/pkt_stream.h"

void pkt_stream_reset(struct pkt_stream *s)
{
	s->buf = NULL;
	s->offs = NULL;
	s->n = s->pos = 0;
	s->finished = 0;
	s->stopped = 0;
	s->gap = 0;
	s->replaying = 0;
	s->part_len = 0;
	s->consumed = 0;
}

int pkt_stream_feed(struct pkt_stream *s, const uint8_t *buf, size_t n,
		    const uint64_t *offsets, uint64_t base)
{
	if (!buf && n)
		return -etmkit_err_invalid;
	if (s->stopped)
		return -etmkit_err_bad_packet;
	if (s->pos < s->n || s->finished)
		return -etmkit_err_invalid;
	s->consumed += s->n;
	s->buf = buf;
	s->n = n;
	s->pos = 0;
	s->offs = offsets;
	s->base = base;
	return 0;
}

int pkt_stream_gap(struct pkt_stream *s)
{
	if (s->pos < s->n)
		return -etmkit_err_invalid;
	s->gap = 1;
	return 0;
}

void pkt_stream_replay(struct pkt_stream *s, const uint8_t *b,
		       const uint64_t *offs, size_t n)
{
	memmove(s->rp_buf, b, n);
	memmove(s->rp_offs, offs, n * sizeof(*offs));
	s->sv_buf = s->buf;
	s->sv_offs = s->offs;
	s->sv_base = s->base;
	s->sv_n = s->n;
	s->sv_pos = s->pos;
	s->buf = s->rp_buf;
	s->offs = s->rp_offs;
	s->n = n;
	s->pos = 0;
	s->replaying = 1;
}

void pkt_stream_end_replay(struct pkt_stream *s)
{
	s->buf = s->sv_buf;
	s->offs = s->sv_offs;
	s->base = s->sv_base;
	s->n = s->sv_n;
	s->pos = s->sv_pos;
	s->replaying = 0;
}
