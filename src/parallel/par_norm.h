/* Parallel decode, internal: normalising what two decoders' states
 * share (par_state3.c, par_state4.c): the packet decoder's input side and
 * the elements waiting in an output queue. Stale bytes (past a length,
 * behind a flag that says unused) are cleared so that equal states compare
 * equal; nothing read later is cleared. */
#ifndef ETMKIT_PARALLEL_PAR_NORM_H
#define ETMKIT_PARALLEL_PAR_NORM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "etmkit/elem.h"
#include "packets/pkt_stream.h"

/* Copy @src's bytes [@from, @to) to @dst's (a field range of a decoder
 * into its scratch copy). */
static inline void par_seg(void *dst, const void *src, size_t from,
			   size_t to)
{
	memcpy((uint8_t *)dst + from, (const uint8_t *)src + from, to - from);
}

/* Append @n bytes of @p to a packed state at @o; returns its new end. */
static inline uint8_t *par_put(uint8_t *o, const void *p, size_t n)
{
	memcpy(o, p, n);
	return o + n;
}

/* The input: where it was, not what it holds (the bytes of a packet cut
 * by the end of a feed stay compared, up to part_len). */
static inline void par_norm_stream(struct pkt_stream *s)
{
	s->buf = NULL;
	s->offs = NULL;
	s->base = 0;
	s->n = s->pos = 0;
	s->sv_buf = NULL;
	s->sv_offs = NULL;
	s->sv_base = 0;
	s->sv_n = s->sv_pos = 0;
	s->consumed = 0;
	if (s->part_len < PKT_STREAM_MAX_BYTES) {
		memset(s->part + s->part_len, 0,
		       PKT_STREAM_MAX_BYTES - s->part_len);
		memset(s->part_offs + s->part_len, 0,
		       (PKT_STREAM_MAX_BYTES - s->part_len) *
			       sizeof(s->part_offs[0]));
	}
	if (!s->part_len)
		s->part_off = 0;
	if (!s->replaying) {
		memset(s->rp_buf, 0, sizeof(s->rp_buf));
		memset(s->rp_offs, 0, sizeof(s->rp_offs));
	}
}

/* The synchronisation fields of a packet decoder (pkt_stream_loop.h):
 * the zero ring and offsets are read only while zeros are counted, the
 * unsynced run only while it is open. */
#define PAR_NORM_SCAN(k, nzeros)                                              \
	do {                                                                  \
		if (!(k)->zeros) {                                            \
			memset((k)->zero_off, 0, sizeof((k)->zero_off));      \
			(k)->zeros_off = 0;                                   \
		}                                                             \
		if (!(k)->uns_len) {                                          \
			(k)->uns_off = 0;                                     \
			memset((k)->uns_raw, 0, sizeof((k)->uns_raw));        \
		} else if ((k)->uns_len < sizeof((k)->uns_raw)) {             \
			memset((k)->uns_raw + (k)->uns_len, 0,                \
			       sizeof((k)->uns_raw) - (k)->uns_len);          \
		}                                                             \
		if (!(k)->have_pending)                                       \
			memset(&(k)->pending, 0, sizeof((k)->pending));       \
		(void)(nzeros);                                               \
	} while (0)

/* An element as the kind uses it: the union bytes it does not use (left
 * from an earlier element in the queue slot) cleared. */
static inline void par_norm_elem(struct etmkit_elem *e)
{
	struct etmkit_elem c;

	memset(&c, 0, sizeof(c));
	c.offset = e->offset;
	c.addr = e->addr;
	c.kind = e->kind;
	c.isa = e->isa;
	c.size = e->size;
	c.flags = e->flags;
	c.cycles = e->cycles;
	switch (e->kind) {
	case etmkit_elem_insn:
		c.u.insn = e->u.insn;
		break;
	case etmkit_elem_insn_range:
		c.u.range.opcode = e->u.range.opcode;
		c.u.range.class_flags = e->u.range.class_flags;
		c.u.range.end = e->u.range.end;
		c.u.range.count = e->u.range.count;
		c.u.range.repeats = e->u.range.repeats;
		break;
	default:
		c.u = e->u; /* emitted zeroed, then filled */
		break;
	}
	*e = c;
}

#endif
