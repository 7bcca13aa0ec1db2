/* CoreSight formatter: trace source streams into 16-byte frames, the
 * inverse of deformat.c.
 *
 * Frame layout (DDI 0314H 9.6.1; digest coresight-frames.md 1): bytes
 * 0, 2, ..., 14 are either an ID (bit 0 set, ID in bits [7:1]) or data
 * whose bit 0 is kept in the auxiliary byte 15 (bit i for byte 2i);
 * bytes 1, 3, ..., 13 are data. An ID byte's auxiliary bit says whether the
 * data byte after it still belongs to the previous ID (1) or already to
 * the new one (0).
 */
#include <stdlib.h>
#include <string.h>

#include "etmkit/transport.h"

#define FRAME 16
#define OUT_FRAMES 4096       /* frames buffered before the sink is called */
#define RESTATE_FRAMES 8      /* restate the ID after this many frames of
				 one source (DDI 0314H 8.12.1) */

struct frame_enc {
	frame_sink_fn sink;
	void *ctx;
	uint8_t frame[FRAME];
	unsigned pos;           /* next byte of frame[] to fill, 0..14 */
	int cur_id;             /* ID owning the next data byte; -1: none */
	unsigned frames_same;   /* frames completed since the ID was stated */
	size_t nout;
	uint8_t out[OUT_FRAMES * FRAME];
};

int frame_enc_alloc(struct frame_enc **out, frame_sink_fn sink, void *ctx)
{
	struct frame_enc *f;

	if (!out || !sink)
		return -etmkit_err_invalid;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -etmkit_err_nomem;
	f->sink = sink;
	f->ctx = ctx;
	f->cur_id = -1;
	*out = f;
	return 0;
}

void frame_enc_free(struct frame_enc *f)
{
	free(f);
}

static int flush_out(struct frame_enc *f)
{
	int err = 0;

	if (f->nout)
		err = f->sink(f->ctx, f->out, f->nout);
	f->nout = 0;
	return err;
}

/* The frame is full: move it to the output. */
static int end_frame(struct frame_enc *f)
{
	memcpy(f->out + f->nout, f->frame, FRAME);
	f->nout += FRAME;
	memset(f->frame, 0, FRAME);
	f->pos = 0;
	f->frames_same++;
	return f->nout == sizeof(f->out) ? flush_out(f) : 0;
}

/* Make @id own the next data byte. At an even position the ID byte takes
 * that position and applies at once. At an odd position the byte before
 * holds data of the previous ID: it moves to the odd position, and the
 * ID byte takes its place with its auxiliary bit set, so that this data
 * byte stays with the previous ID ("delayed ID", 9.6.1) and the new ID
 * owns the bytes from the next even position on. */
static int state_id(struct frame_enc *f, uint8_t id)
{
	uint8_t idb = (uint8_t)(id << 1 | 1);

	if (f->pos & 1) {
		unsigned even = f->pos - 1;
		uint8_t data = (uint8_t)(f->frame[even] |
					 ((f->frame[15] >> (even / 2)) & 1));
		f->frame[even] = idb;
		f->frame[15] |= (uint8_t)(1u << (even / 2));
		f->frame[f->pos++] = data;
	} else {
		f->frame[f->pos] = idb;
		f->frame[15] &= (uint8_t)~(1u << (f->pos / 2));
		f->pos++;
	}
	f->cur_id = id;
	f->frames_same = 0;
	/* An ID in byte 14 applies from the next frame (9.6.1) */
	return f->pos == 15 ? end_frame(f) : 0;
}

static int put_byte(struct frame_enc *f, uint8_t b)
{
	if (f->pos & 1) {
		f->frame[f->pos++] = b;
		return 0;
	}
	f->frame[f->pos] = (uint8_t)(b & 0xFE);
	f->frame[15] |= (uint8_t)((b & 1u) << (f->pos / 2));
	f->pos++;
	return f->pos == 15 ? end_frame(f) : 0;
}

int frame_enc_put(struct frame_enc *f, uint8_t id, const uint8_t *data,
		  size_t n)
{
	int err;

	if (!f || (!data && n) || id == DEFORMAT_ID_NULL || id >= 0x70)
		return -etmkit_err_invalid;
	for (size_t i = 0; i < n; i++) {
		if (id != f->cur_id ||
		    (f->pos == 0 && f->frames_same >= RESTATE_FRAMES)) {
			err = state_id(f, id);
			if (err)
				return err;
		}
		err = put_byte(f, data[i]);
		if (err)
			return err;
	}
	return 0;
}

int frame_enc_finish(struct frame_enc *f)
{
	int err;

	if (!f)
		return -etmkit_err_invalid;
	if (f->pos) {
		/* The rest of the frame belongs to the null ID, whose data
		 * every deformatter discards (digest 2). */
		err = state_id(f, DEFORMAT_ID_NULL);
		while (!err && f->pos)
			err = put_byte(f, 0);
		if (err)
			return err;
		f->cur_id = -1;
	}
	return flush_out(f);
}
