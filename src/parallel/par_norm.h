/* Parallel decode, internal: what the protocols' struct par_proto
 * (par_state3.c, par_state4.c, par_state_ptm.c) share: the calls passed
 * on to the flow API, and normalising the packet decoder's input side and
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

/* The struct par_proto functions that only pass the call on to protocol
 * @P's flow API (@P##_flow_*: etm3, etm4, ptm, whose functions have the
 * same shape), named @P##_par_*; @ROOM is the decoder's queue room
 * (queue_room()). The protocol's file adds stats and snap. */
#define PAR_FLOW_CALLS(P, ROOM)                                             \
	static int P##_par_alloc(void **dec, const void *cfg)               \
	{                                                                   \
		return P##_flow_alloc((struct P##_flow_decoder **)dec, cfg);  \
	}                                                                   \
	static void P##_par_free(void *dec)                                 \
	{                                                                   \
		P##_flow_free(dec);                                         \
	}                                                                   \
	static int P##_par_feed(void *dec, const uint8_t *buf, size_t n,    \
				const uint64_t *offsets, uint64_t base)     \
	{                                                                   \
		return P##_flow_feed(dec, buf, n, offsets, base);           \
	}                                                                   \
	static int P##_par_finish(void *dec)                                \
	{                                                                   \
		return P##_flow_finish(dec);                                \
	}                                                                   \
	static int P##_par_gap(void *dec)                                   \
	{                                                                   \
		return P##_flow_gap(dec);                                   \
	}                                                                   \
	static void P##_par_reset(void *dec)                                \
	{                                                                   \
		P##_flow_reset(dec);                                        \
	}                                                                   \
	static int P##_par_batch(void *dec, const struct etmkit_elem **el)  \
	{                                                                   \
		return P##_flow_batch(dec, el);                             \
	}                                                                   \
	static void P##_par_queue_at(void *dec, struct etmkit_elem *to)     \
	{                                                                   \
		P##_flow_queue_at(dec, to);                                 \
	}                                                                   \
	static size_t P##_par_queue_room(void)                              \
	{                                                                   \
		return (ROOM);                                              \
	}

/* struct par_proto par_proto_@P of PAR_FLOW_CALLS(@P)'s functions and the
 * protocol's @STATS, @SCRATCH (scratch_bytes), @SNAPB (snap_bytes) and
 * @SNAP. */
#define PAR_PROTO_OF(P, STATS, SCRATCH, SNAPB, SNAP)                        \
	const struct par_proto par_proto_##P = {                            \
		.alloc = P##_par_alloc, .free = P##_par_free,               \
		.feed = P##_par_feed, .finish = P##_par_finish,             \
		.gap = P##_par_gap, .reset = P##_par_reset,                 \
		.batch = P##_par_batch, .queue_at = P##_par_queue_at,       \
		.queue_room = P##_par_queue_room, .stats = (STATS),         \
		.scratch_bytes = (SCRATCH), .snap_bytes = (SNAPB),          \
		.snap = (SNAP)                                              \
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

/* Append the elements @q[0..@n) of a decoder's queue (decoded, not
 * delivered), each as its kind uses it (par_norm_elem()), to a packed
 * state at @o; returns its new end. */
static inline uint8_t *par_put_queue(uint8_t *o, const struct etmkit_elem *q,
				     size_t n)
{
	for (size_t e = 0; e < n; e++) {
		struct etmkit_elem el = q[e];

		par_norm_elem(&el);
		memcpy(o, &el, sizeof(el));
		o += sizeof(el);
	}
	return o;
}

#endif
