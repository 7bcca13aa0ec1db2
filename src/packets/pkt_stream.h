/* The input side of a packet decoder, the same for every protocol (ETMv3,
 * ETMv4/ETE, and PTM and ETMv2 to come): the chunk being decoded, a packet
 * cut by the end of a chunk, the bytes of a rejected packet replayed
 * before the rest of the input, the end of input and data lost in
 * transport. Packets layer, internal: each protocol's decoder embeds one
 * and keeps its packet decisions (what a byte starts, sync patterns,
 * records) in its own files.
 */
#ifndef ETMKIT_PKT_STREAM_H
#define ETMKIT_PKT_STREAM_H

#include <stddef.h>
#include <stdint.h>

/* The longest packet of any protocol using it (ETM3_PKT_MAX_BYTES 24,
 * ETM4_PKT_MAX_BYTES 32: each decoder checks with a static assertion). */
#define PKT_STREAM_MAX_BYTES 32

struct pkt_stream {
	/* Input. */
	const uint8_t *buf;
	const uint64_t *offs;   /* each byte's offset, or NULL: base + index */
	uint64_t base;
	size_t n, pos;
	uint8_t finished;       /* no more input (*_pkt_finish()) */
	uint8_t stopped;        /* stop on error was asked and an error seen */
	uint8_t gap;            /* data lost before the next byte, not yet
				   handled */

	/* A packet cut by the end of a chunk. */
	uint8_t part[PKT_STREAM_MAX_BYTES];
	uint8_t part_len;
	uint64_t part_off;
	uint64_t part_offs[PKT_STREAM_MAX_BYTES]; /* each byte's offset */

	/* Bytes of a rejected packet that began in an earlier chunk, scanned
	 * again before the current input (which is set aside meanwhile). */
	uint8_t replaying;
	uint8_t rp_buf[PKT_STREAM_MAX_BYTES];
	uint64_t rp_offs[PKT_STREAM_MAX_BYTES];
	const uint8_t *sv_buf;
	const uint64_t *sv_offs;
	uint64_t sv_base;
	size_t sv_n, sv_pos;

	/* Stream position: bytes of earlier chunks. */
	uint64_t consumed;
};

/* Back to no input, nothing cut, nothing replayed, not finished. */
void pkt_stream_reset(struct pkt_stream *s);

/* Take the next chunk buf[0..n) (offsets[i] each byte's offset, or NULL
 * for base + i). Returns 0; -etmkit_err_invalid when buf is NULL with
 * n > 0, when the previous chunk is not used up or after the end of
 * input; -etmkit_err_bad_packet once stopped on an error. */
int pkt_stream_feed(struct pkt_stream *s, const uint8_t *buf, size_t n,
		    const uint64_t *offsets, uint64_t base);

/* Data was lost before the next byte. Returns 0, or -etmkit_err_invalid
 * while the chunk is not used up. */
int pkt_stream_gap(struct pkt_stream *s);

/* Scan b[0..n) (offsets offs, n <= PKT_STREAM_MAX_BYTES) before the rest
 * of the input, which is set aside until pkt_stream_end_replay(). */
void pkt_stream_replay(struct pkt_stream *s, const uint8_t *b,
		       const uint64_t *offs, size_t n);

/* Replayed bytes used up: back to the input set aside. */
void pkt_stream_end_replay(struct pkt_stream *s);

/* The input from the next packet on, for a consumer that reads packets
 * from the bytes itself (a flow decoder's one pass: etmv4/etm4_view.h,
 * ptm/ptm_view.h): bytes buf[pos..n), byte i at input offset offs[i],
 * or base + i when offs is NULL. */
struct pkt_view {
	const uint8_t *buf;
	const uint64_t *offs;
	uint64_t base;
	size_t pos, n;
};

/* Whether the input stands at a packet boundary where a decoder in sync
 * would go on with its synced fast path: no packet cut by the end of a
 * chunk, no loss to report, nothing replayed, not stopped, input left.
 * Then *@v is that input. (The decoder adds its own conditions: in sync,
 * no record pending.) */
static inline int pkt_stream_view(const struct pkt_stream *s,
				  struct pkt_view *v)
{
	if (s->part_len || s->gap || s->stopped || s->replaying ||
	    s->pos >= s->n)
		return 0;
	v->buf = s->buf;
	v->offs = s->offs;
	v->base = s->base;
	v->pos = s->pos;
	v->n = s->n;
	return 1;
}

/* The offset of input index i. */
static inline uint64_t pkt_stream_off_at(const struct pkt_stream *s, size_t i)
{
	return s->offs ? s->offs[i] : s->base + i;
}

/* Stream position (bytes consumed since reset) of input index i. Replayed
 * bytes are the last ones before the current chunk. */
static inline uint64_t pkt_stream_at(const struct pkt_stream *s, size_t i)
{
	return s->replaying ? s->consumed - s->n + i : s->consumed + i;
}

#endif
