/* etmkit: transport layer, CoreSight formatter frames and TPIU syncs.
 *
 * Spec references are to ARM DDI 0314H (CoreSight Components TRM) and to
 * the project's digest, shared/spec/coresight-frames.md ("digest §n").
 *
 * Data flow: input bytes are cut into 16-byte frames (from offset 0 in
 * memory mode, after the first FSYNC on a TPIU port); each frame is unpacked
 * straight into the run buffer, which collects consecutive bytes of one ID
 * with their input offsets and is handed to on_data when the ID changes,
 * when it fills up and at the end of each deformat_feed() call.
 */
#include "etmkit/transport.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* DDI 0314H 8.12.1: a frame is 16 bytes, 15 of them at most carry data. */
#define DFMT_FRAME 16u
#define DFMT_FRAME_DATA 15u
#define DFMT_AUX 15u
/* Run buffer size, in data bytes: at least one frame's worth. 1 KiB (and
 * 8 KiB of offsets) delivered at a time keeps the bytes, their offsets and
 * what the decoders make of them in the L1 data cache. */
#define DFMT_RUN_CAP 1024u
/* DDI 0314H 8.12.4, digest §3: sync patterns as they appear in the input. */
#define DFMT_SYNC_FF 0xFFu
#define DFMT_SYNC_7F 0x7Fu
/* Digest §2: ID 0x7F is never used; its ID byte (0xFF) marks a bad frame. */
#define DFMT_FLAG_BAD 0xFFu

/* Where the data bytes of a frame are, for one set of ID flag bytes (bit
 * i of the table index: byte 2i is an ID). DDI 0314H 8.12.1. */
struct dfmt_layout {
	uint64_t off[DFMT_FRAME]; /* pos[], widened for adding to offsets */
	uint8_t pos[DFMT_FRAME];  /* frame position of each data byte, in
				     order; unused slots point at the aux
				     byte */
	uint8_t next[8];          /* pairs 0-6: index of byte 2i+1 among the
				     data bytes; 7: the data byte count */
	uint8_t idpair[8];        /* the pairs holding ID bytes, in order */
	uint8_t nids;
	uint8_t n;                /* data bytes */
};

#define DFMT_LAYOUTS 256u

struct deformatter {
	struct deformat_config cfg;
	struct deformat_stats stats;

	/* Input offset of the next byte fed. */
	uint64_t pos;
	/* A callback's negative value once it stopped decoding, else 0. */
	int status;
	/* The ID the next data byte belongs to (DEFORMAT_ID_UNOWNED before
	 * the first ID byte and after a bad frame). */
	uint8_t cur_id;

	/* The frame being assembled from pieces: fill bytes so far. In
	 * memory mode frame_base is the offset of frame[0]; on a TPIU port
	 * HSYNCs may sit between the bytes, so each byte has its offset. */
	uint8_t frame[DFMT_FRAME];
	uint64_t frame_off[DFMT_FRAME];
	uint64_t frame_base;
	unsigned int fill;

	/* TPIU: frame alignment found (first FSYNC seen). Before it, the
	 * number of FF bytes matched so far and where skipping started. */
	bool aligned;
	unsigned int sync_ff;
	uint64_t skip_start;
	/* TPIU: the first byte of a half-word split by the end of a feed. */
	bool half_valid;
	uint8_t half;
	uint64_t half_off;
	/* TPIU: an FF FF half-word waiting for the next one (FSYNC or not). */
	bool ffff_pending;
	uint64_t ffff_off;

	/* Run buffer: bytes [run_start, run_n) belong to run_id and have not
	 * been delivered yet. */
	uint8_t run_id;
	size_t run_start, run_n;
	uint64_t run_off[DFMT_RUN_CAP];
	uint8_t run_data[DFMT_RUN_CAP];

	/* Frame layouts by ID flag set, built once by deformat_alloc(). */
	struct dfmt_layout layout[DFMT_LAYOUTS];
};

/* The data bytes of one frame as unpacked into the run buffer. */
struct dfmt_unpack {
	uint8_t *data;
	uint64_t *off;
	unsigned int n;
	uint8_t id; /* current ID while unpacking, new current ID after */
	uint8_t nruns;
	struct deformat_run runs[DFMT_FRAME];
};

static int dfmt_stop(struct deformatter *d, int err)
{
	d->status = err;
	return err;
}

static int dfmt_event(struct deformatter *d, const struct deformat_event *ev)
{
	int err;

	if (!d->cfg.on_event)
		return 0;
	err = d->cfg.on_event(d->cfg.ctx, ev);
	return err < 0 ? dfmt_stop(d, err) : 0;
}

/* An error event; @frame holds the @nframe frame bytes concerned, if any. */
static int dfmt_error(struct deformatter *d, int error, uint64_t offset,
		      uint64_t length, const uint8_t *frame,
		      unsigned int nframe, const char *message)
{
	struct deformat_event ev;

	d->stats.errors++;
	if (!d->cfg.on_event)
		return 0;
	memset(&ev, 0, sizeof(ev));
	ev.kind = deformat_ev_error;
	ev.error = (int16_t)error;
	ev.offset = offset;
	ev.length = length;
	ev.message = message;
	if (nframe)
		memcpy(ev.frame, frame, nframe);
	return dfmt_event(d, &ev);
}

static int dfmt_simple_event(struct deformatter *d, uint8_t kind,
			     uint64_t offset, uint64_t length)
{
	struct deformat_event ev;

	if (!d->cfg.on_event)
		return 0;
	memset(&ev, 0, sizeof(ev));
	ev.kind = kind;
	ev.offset = offset;
	ev.length = length;
	return dfmt_event(d, &ev);
}

/* Deliver run bytes [run_start, end) to run_id. Null-ID data and data
 * before any ID are only counted (digest §1.2 steps 3 and 4). */
static int run_flush(struct deformatter *d, size_t end)
{
	size_t start = d->run_start, n = end - start;
	uint8_t id = d->run_id;
	int err;

	d->run_start = end;
	if (!n)
		return 0;
	if (id == DEFORMAT_ID_NULL) {
		d->stats.null_bytes += n;
		return 0;
	}
	if (id >= DEFORMAT_ID_COUNT) {
		d->stats.unowned_bytes += n;
		return 0;
	}
	d->stats.id_bytes[id] += n;
	err = d->cfg.on_data(d->cfg.ctx, id, d->run_data + start,
			     d->run_off + start, 0, n);
	return err < 0 ? dfmt_stop(d, err) : 0;
}

static int run_flush_all(struct deformatter *d)
{
	int err = run_flush(d, d->run_n);

	d->run_start = 0;
	d->run_n = 0;
	return err;
}

/* Append a frame's unpacked data (already in place after run_n) to the
 * runs, delivering a run each time the ID changes. */
static inline int run_commit(struct deformatter *d,
			     const struct dfmt_unpack *u)
{
	size_t pos = d->run_n;
	unsigned int i;
	int err;

	if (u->nruns == 1 && u->runs[0].id == d->run_id) {
		d->run_n += u->n;
		return 0;
	}
	for (i = 0; i < u->nruns; i++) {
		if (u->runs[i].id != d->run_id) {
			err = run_flush(d, pos);
			if (err)
				return err;
			d->run_id = u->runs[i].id;
		}
		pos += u->runs[i].count;
	}
	d->run_n = pos;
	return 0;
}

/* Input offset of frame byte @p: per-byte offsets when @fo is given, else
 * the frame is contiguous from @base. */
static inline uint64_t frame_off(const uint64_t *fo, uint64_t base,
				 unsigned int p)
{
	return fo ? fo[p] : base + p;
}

static void layout_init(struct dfmt_layout *lay, unsigned int m)
{
	unsigned int i, k = 0;

	memset(lay, 0, sizeof(*lay));
	for (i = 0; i < 8; i++) {
		if (m & (1u << i))
			lay->idpair[lay->nids++] = (uint8_t)i;
		else
			lay->pos[k++] = (uint8_t)(2 * i);
		if (i == 7)
			break;
		lay->next[i] = (uint8_t)k;
		lay->pos[k++] = (uint8_t)(2 * i + 1);
	}
	lay->n = (uint8_t)k;
	lay->next[7] = (uint8_t)k;
	for (; k < DFMT_FRAME; k++)
		lay->pos[k] = DFMT_AUX;
	for (k = 0; k < DFMT_FRAME; k++)
		lay->off[k] = lay->pos[k];
}

/* @g = frame @f with bit 0 of each flag byte 2i taken from aux bit i: the
 * value of that byte when it is data. DDI 0314H 8.12.1. */
static inline void frame_aux_merge(uint8_t *g, const uint8_t *f)
{
	unsigned int aux = f[DFMT_AUX];
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* Spread 4 aux bits to bit 0 of bytes 0, 2, 4, 6 of a word: bit j
	 * times 2^(15j) lands at bit 16j; the other products land at
	 * distinct bits that are not multiples of 16, so nothing carries
	 * into the bits kept. */
	const uint64_t spread = 0x0000200040008001ull;
	const uint64_t lsb = 0x0001000100010001ull;
	uint64_t w[2];

	memcpy(w, f, DFMT_FRAME);
	w[0] |= ((aux & 0xFu) * spread) & lsb;
	w[1] |= ((aux >> 4) * spread) & lsb;
	memcpy(g, w, DFMT_FRAME);
#else
	unsigned int i;

	memcpy(g, f, DFMT_FRAME);
	for (i = 0; i < 8; i++)
		g[2 * i] |= (uint8_t)((aux >> i) & 1u);
#endif
}

/* Bit i set when frame byte 2i is an ID byte (its bit 0 is the F flag).
 * DDI 0314H 8.12.1. */
static inline unsigned int frame_id_flags(const uint8_t *f)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* Gather bits 0, 16, 32, 48 of a word into bits 48-51: bit 16j times
	 * 2^(48-15j) lands at 48+j; the other products land elsewhere, all
	 * at distinct bits, so nothing carries. */
	const uint64_t gather = 0x0001000200040008ull;
	const uint64_t lsb = 0x0001000100010001ull;
	uint64_t w[2];

	memcpy(w, f, DFMT_FRAME);
	return (unsigned int)((((w[0] & lsb) * gather) >> 48) & 0xFu) |
	       (unsigned int)((((w[1] & lsb) * gather) >> 44) & 0xF0u);
#else
	unsigned int i, m = 0;

	for (i = 0; i < 8; i++)
		m |= (f[2 * i] & 1u) << i;
	return m;
#endif
}

/* A frame with no ID byte: 15 data bytes of the current ID. Writes 16
 * bytes and offsets (the 16th is scratch). */
static inline void unpack_data_only(const uint8_t *f, uint64_t base,
				    struct dfmt_unpack *u)
{
	unsigned int p;

	frame_aux_merge(u->data, f);
	for (p = 0; p < DFMT_FRAME; p++)
		u->off[p] = base + p;
	u->n = DFMT_FRAME_DATA;
	u->nruns = 1;
	u->runs[0].id = u->id;
	u->runs[0].count = DFMT_FRAME_DATA;
}

static inline void unpack_run(struct dfmt_unpack *u, uint8_t id,
			      unsigned int count)
{
	if (!count)
		return;
	if (u->nruns && u->runs[u->nruns - 1].id == id) {
		u->runs[u->nruns - 1].count += (uint8_t)count;
		return;
	}
	u->runs[u->nruns].id = id;
	u->runs[u->nruns].count = (uint8_t)count;
	u->nruns++;
}

/* The data bytes of frame @g (aux bits merged) in order: the frame with
 * its ID flag bytes taken out. Writes 16 bytes, those past the data are
 * scratch. */
static inline void frame_gather(uint8_t *out, const uint8_t *g,
				const struct dfmt_layout *lay)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* Bytes below the ID flag byte of pair i, as (low, high) words. */
	static const uint64_t below[8][2] = {
		{0, 0},
		{0xFFFFull, 0},
		{0xFFFFFFFFull, 0},
		{0xFFFFFFFFFFFFull, 0},
		{~0ull, 0},
		{~0ull, 0xFFFFull},
		{~0ull, 0xFFFFFFFFull},
		{~0ull, 0xFFFFFFFFFFFFull},
	};
	uint64_t w[2];
	unsigned int j;

	/* Remove each ID byte from the 128-bit frame, the last one first so
	 * that the positions of the others hold. */
	memcpy(w, g, DFMT_FRAME);
	for (j = lay->nids; j-- > 0;) {
		const uint64_t *keep = below[lay->idpair[j]];
		uint64_t lo = (w[0] >> 8) | (w[1] << 56), hi = w[1] >> 8;

		w[0] = (w[0] & keep[0]) | (lo & ~keep[0]);
		w[1] = (w[1] & keep[1]) | (hi & ~keep[1]);
	}
	memcpy(out, w, DFMT_FRAME);
#else
	unsigned int k;

	for (k = 0; k < DFMT_FRAME; k++)
		out[k] = g[lay->pos[k]];
#endif
}

/* Split the data bytes of a frame into runs by ID. An ID byte in pair i
 * that changes the ID takes effect at byte 2i+1, or after it when aux bit
 * i is 1 (delayed ID); an ID byte at 14 takes effect after the frame's
 * data. DDI 0314H 8.12.1, 9.6.1; digest §1.2. Returns false for the
 * invalid ID 0x7F (digest §2). */
static inline bool unpack_runs(const uint8_t *f, const struct dfmt_layout *lay,
			       struct dfmt_unpack *u)
{
	unsigned int aux = f[DFMT_AUX], owner = u->id, start = 0, j;

	u->nruns = 0;
	for (j = 0; j < lay->nids; j++) {
		unsigned int i = lay->idpair[j], id = f[2 * i] >> 1, b;

		if (id == DFMT_FLAG_BAD >> 1)
			return false;
		if (id == owner)
			continue;
		b = lay->next[i] + (i < 7 ? (aux >> i) & 1u : 0u);
		unpack_run(u, (uint8_t)owner, b - start);
		start = b;
		owner = id;
	}
	unpack_run(u, (uint8_t)owner, lay->n - start);
	u->id = (uint8_t)owner;
	return true;
}

/* A frame with ID bytes: gather its data bytes by the layout of its ID
 * flags. Writes 16 bytes and offsets (the slots past n are scratch). */
static bool unpack_mixed(const uint8_t *f, unsigned int m, uint64_t base,
			 const struct dfmt_layout *layouts,
			 struct dfmt_unpack *u)
{
	const struct dfmt_layout *lay = &layouts[m];
	uint8_t g[DFMT_FRAME];
	unsigned int k;

	if (!unpack_runs(f, lay, u))
		return false;
	frame_aux_merge(g, f);
	frame_gather(u->data, g, lay);
	for (k = 0; k < DFMT_FRAME; k++)
		u->off[k] = base + lay->off[k];
	u->n = lay->n;
	return true;
}

/* Unpack frame @f, contiguous from input offset @base, into @u. */
static inline bool frame_unpack(const uint8_t *f, uint64_t base,
				const struct dfmt_layout *layouts,
				struct dfmt_unpack *u)
{
	unsigned int m = frame_id_flags(f);

	if (m)
		return unpack_mixed(f, m, base, layouts, u);
	unpack_data_only(f, base, u);
	return true;
}

static int frame_event(struct deformatter *d, const uint8_t *f,
		       const uint64_t *fo, uint64_t base,
		       const struct dfmt_unpack *u)
{
	struct deformat_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = deformat_ev_frame;
	ev.offset = frame_off(fo, base, 0);
	ev.length = frame_off(fo, base, DFMT_FRAME - 1) - ev.offset + 1;
	memcpy(ev.frame, f, DFMT_FRAME);
	ev.nruns = u->nruns;
	memcpy(ev.runs, u->runs, u->nruns * sizeof(u->runs[0]));
	return dfmt_event(d, &ev);
}

/* Data was lost at input offset @off: deliver everything before it, then
 * say so, so that packet decoders do not join bytes across the loss. */
static int dfmt_gap(struct deformatter *d, uint64_t off)
{
	int err = run_flush_all(d);

	if (err || !d->cfg.on_gap)
		return err;
	err = d->cfg.on_gap(d->cfg.ctx, off);
	return err < 0 ? dfmt_stop(d, err) : 0;
}

/* A frame with ID 0x7F: drop it whole; who owns the data after it is
 * unknown until the next ID byte. */
static int frame_bad(struct deformatter *d, const uint8_t *f,
		     const uint64_t *fo, uint64_t base)
{
	uint64_t off = frame_off(fo, base, 0);
	int err = dfmt_gap(d, off);

	if (err)
		return err;
	d->stats.skipped += DFMT_FRAME;
	d->cur_id = DEFORMAT_ID_UNOWNED;
	return dfmt_error(d, -etmkit_err_bad_frame, off,
			  frame_off(fo, base, DFMT_FRAME - 1) - off + 1, f,
			  DFMT_FRAME, "frame holds the invalid trace ID 0x7F");
}

/* Decode one complete frame: contiguous from input offset @base, or, when
 * @fo is given (a TPIU frame with HSYNCs inside), byte p at fo[p]. */
static inline int frame_decode(struct deformatter *d, const uint8_t *f,
			const uint64_t *fo, uint64_t base)
{
	struct dfmt_unpack u;
	unsigned int k;
	int err;

	if (DFMT_RUN_CAP - d->run_n < DFMT_FRAME) {
		err = run_flush_all(d);
		if (err)
			return err;
	}
	u.data = d->run_data + d->run_n;
	u.off = d->run_off + d->run_n;
	u.id = d->cur_id;
	if (!frame_unpack(f, fo ? 0 : base, d->layout, &u))
		return frame_bad(d, f, fo, base);
	if (fo)
		for (k = 0; k < u.n; k++)
			u.off[k] = fo[u.off[k]];
	d->stats.frames++;
	d->cur_id = u.id;
	if (!d->cfg.on_event)
		return run_commit(d, &u);
	/* For listings: the frame's event, then its data. */
	err = frame_event(d, f, fo, base, &u);
	if (!err)
		err = run_commit(d, &u);
	if (!err)
		err = run_flush_all(d);
	return err;
}

static int frame_decode_at(struct deformatter *d, const uint8_t *f,
			   uint64_t base)
{
	return frame_decode(d, f, NULL, base);
}

static int frame_decode_offs(struct deformatter *d, const uint8_t *f,
			     const uint64_t *fo)
{
	return frame_decode(d, f, fo, 0);
}

/* Memory mode (ETB/ETF/ETR): frames back to back from offset 0, no syncs.
 * Digest §4.1. */
static int feed_coresight(struct deformatter *d, const uint8_t *buf,
			  size_t n, uint64_t start)
{
	size_t i = 0;
	int err;

	if (d->fill) {
		size_t take = DFMT_FRAME - d->fill;

		if (take > n)
			take = n;
		memcpy(d->frame + d->fill, buf, take);
		d->fill += (unsigned int)take;
		i = take;
		if (d->fill < DFMT_FRAME)
			return 0;
		d->fill = 0;
		err = frame_decode_at(d, d->frame, d->frame_base);
		if (err)
			return err;
	}
	for (; n - i >= DFMT_FRAME; i += DFMT_FRAME) {
		err = frame_decode_at(d, buf + i, start + i);
		if (err)
			return err;
	}
	if (i < n) {
		memcpy(d->frame, buf + i, n - i);
		d->fill = (unsigned int)(n - i);
		d->frame_base = start + i;
	}
	return 0;
}

/* An FSYNC found where a frame would start; one inside a frame cuts the
 * frame short (a sync request completes the frame first, so this is
 * damage) and realigns. DDI 0314H 8.12.4; digest §3. */
static int tpiu_fsync(struct deformatter *d, uint64_t off)
{
	int err;

	if (d->fill) {
		uint64_t first = d->frame_off[0];
		unsigned int fill = d->fill;

		err = dfmt_gap(d, first);
		if (err)
			return err;
		d->stats.skipped += fill;
		d->cur_id = DEFORMAT_ID_UNOWNED;
		err = dfmt_error(d, -etmkit_err_bad_frame, first,
				 d->frame_off[fill - 1] - first + 1, d->frame,
				 fill, "frame cut short by an FSYNC");
		d->fill = 0;
		if (err)
			return err;
	}
	d->stats.fsyncs++;
	return dfmt_simple_event(d, deformat_ev_fsync, off, 4);
}

static int tpiu_push(struct deformatter *d, uint8_t b0, uint8_t b1,
		     uint64_t off)
{
	d->frame[d->fill] = b0;
	d->frame_off[d->fill] = off;
	d->frame[d->fill + 1] = b1;
	d->frame_off[d->fill + 1] = off + 1;
	d->fill += 2;
	if (d->fill < DFMT_FRAME)
		return 0;
	d->fill = 0;
	return frame_decode_offs(d, d->frame, d->frame_off);
}

/* One aligned half-word of a TPIU stream. FF FF is never frame content
 * (it would be ID 0x7F), so it is held until the next half-word tells
 * whether it starts an FSYNC. Digest §3 decoder steps 2-3. */
static int tpiu_pair(struct deformatter *d, uint8_t b0, uint8_t b1,
		     uint64_t off)
{
	int err;

	if (d->ffff_pending) {
		d->ffff_pending = false;
		if (b0 == DFMT_SYNC_FF && b1 == DFMT_SYNC_7F)
			return tpiu_fsync(d, d->ffff_off);
		err = tpiu_push(d, DFMT_SYNC_FF, DFMT_SYNC_FF, d->ffff_off);
		if (err)
			return err;
	}
	if (b0 == DFMT_SYNC_FF && b1 == DFMT_SYNC_FF) {
		d->ffff_pending = true;
		d->ffff_off = off;
		return 0;
	}
	if (b0 == DFMT_SYNC_FF && b1 == DFMT_SYNC_7F &&
	    d->cfg.mode == deformat_tpiu_hsync) {
		/* DDI 0314H 8.12.4: HSYNC, anywhere on a 16-bit boundary. */
		d->stats.hsyncs++;
		return dfmt_simple_event(d, deformat_ev_hsync, off, 2);
	}
	return tpiu_push(d, b0, b1, off);
}

/* Before alignment: look for the first FF FF FF 7F at any byte position;
 * it may straddle feeds. Returns the bytes consumed; *@err is set when a
 * callback stopped decoding. */
static size_t tpiu_seek(struct deformatter *d, const uint8_t *buf, size_t n,
			uint64_t start, int *err)
{
	size_t j;

	for (j = 0; j < n; j++) {
		uint64_t sync, skipped;

		if (buf[j] == DFMT_SYNC_FF) {
			if (d->sync_ff < 3)
				d->sync_ff++;
			continue;
		}
		if (buf[j] != DFMT_SYNC_7F || d->sync_ff < 3) {
			d->sync_ff = 0;
			continue;
		}
		sync = start + j - 3;
		skipped = sync - d->skip_start;
		d->sync_ff = 0;
		d->aligned = true;
		*err = 0;
		if (skipped) {
			d->stats.skipped += skipped;
			*err = dfmt_simple_event(d, deformat_ev_skipped,
						 d->skip_start, skipped);
		}
		if (!*err)
			*err = tpiu_fsync(d, sync);
		return j + 1;
	}
	return n;
}

static bool tpiu_frame_clean(const uint8_t *f)
{
	unsigned int p;

	/* No half-word starting with FF: no FSYNC, HSYNC or ID 0x7F. */
	for (p = 0; p < DFMT_FRAME; p += 2)
		if (f[p] == DFMT_SYNC_FF)
			return false;
	return true;
}

/* Take the next aligned half-word of a TPIU stream from @buf (completing
 * one split by the previous feed). Returns the bytes consumed. */
static size_t tpiu_half_word(struct deformatter *d, const uint8_t *buf,
			     size_t n, uint64_t start, int *err)
{
	*err = 0;
	if (d->half_valid) {
		d->half_valid = false;
		*err = tpiu_pair(d, d->half, buf[0], d->half_off);
		return 1;
	}
	if (n < 2) {
		d->half_valid = true;
		d->half = buf[0];
		d->half_off = start;
		return 1;
	}
	*err = tpiu_pair(d, buf[0], buf[1], start);
	return 2;
}

/* TPIU port: frames aligned by FSYNC, syncs removed. Digest §3. */
static int feed_tpiu(struct deformatter *d, const uint8_t *buf, size_t n,
		     uint64_t start)
{
	size_t i = 0;
	int err = 0;

	while (i < n) {
		if (!d->aligned) {
			i += tpiu_seek(d, buf + i, n - i, start + i, &err);
			if (err)
				return err;
			continue;
		}
		/* Fast path: whole frames with no sync inside. */
		if (!d->fill && !d->half_valid && !d->ffff_pending) {
			while (n - i >= DFMT_FRAME &&
			       tpiu_frame_clean(buf + i)) {
				err = frame_decode_at(d, buf + i, start + i);
				if (err)
					return err;
				i += DFMT_FRAME;
			}
			if (i == n)
				break;
		}
		i += tpiu_half_word(d, buf + i, n - i, start + i, &err);
		if (err)
			return err;
	}
	return 0;
}

static int feed_none(struct deformatter *d, const uint8_t *buf, size_t n,
		     uint64_t start)
{
	int err;

	if (!n)
		return 0;
	d->stats.id_bytes[d->cfg.raw_id] += n;
	err = d->cfg.on_data(d->cfg.ctx, d->cfg.raw_id, buf, NULL, start, n);
	return err < 0 ? dfmt_stop(d, err) : 0;
}

int deformat_alloc(struct deformatter **d, const struct deformat_config *cfg)
{
	struct deformatter *nd;
	unsigned int m;

	if (!d || !cfg || cfg->size < sizeof(*cfg) || !cfg->on_data)
		return -etmkit_err_invalid;
	switch (cfg->mode) {
	case deformat_none:
		if (cfg->raw_id >= DEFORMAT_ID_COUNT)
			return -etmkit_err_invalid;
		break;
	case deformat_coresight:
	case deformat_tpiu:
	case deformat_tpiu_hsync:
		break;
	default:
		return -etmkit_err_invalid;
	}
	nd = calloc(1, sizeof(*nd));
	if (!nd)
		return -etmkit_err_nomem;
	/* A newer caller's larger struct: take the fields we know. */
	memcpy(&nd->cfg, cfg, sizeof(nd->cfg));
	nd->cfg.size = sizeof(nd->cfg);
	nd->cur_id = DEFORMAT_ID_UNOWNED;
	nd->run_id = DEFORMAT_ID_UNOWNED;
	for (m = 0; m < DFMT_LAYOUTS; m++)
		layout_init(&nd->layout[m], m);
	*d = nd;
	return 0;
}

void deformat_free(struct deformatter *d)
{
	free(d);
}

int deformat_feed(struct deformatter *d, const uint8_t *buf, size_t n)
{
	uint64_t start;
	int err;

	if (!d || (!buf && n))
		return -etmkit_err_invalid;
	if (d->status)
		return d->status;
	start = d->pos;
	d->pos += n;
	d->stats.bytes_in += n;
	switch (d->cfg.mode) {
	case deformat_none:
		return feed_none(d, buf, n, start);
	case deformat_coresight:
		err = feed_coresight(d, buf, n, start);
		break;
	default:
		err = feed_tpiu(d, buf, n, start);
		break;
	}
	if (err)
		return err;
	return run_flush_all(d);
}

/* Digest §3 / header: a partial frame at the end is dropped. */
static int finish_truncated(struct deformatter *d, uint64_t off,
			    uint64_t len)
{
	int err;

	d->stats.skipped += len;
	err = dfmt_error(d, -etmkit_err_truncated, off, d->pos - off,
			 d->frame, d->fill, "input ends inside a frame");
	d->fill = 0;
	return err;
}

static int finish_tpiu(struct deformatter *d)
{
	uint64_t len, first;

	if (!d->aligned) {
		len = d->pos - d->skip_start;
		d->skip_start = d->pos;
		d->sync_ff = 0;
		if (!len)
			return 0;
		d->stats.skipped += len;
		return dfmt_simple_event(d, deformat_ev_skipped, d->pos - len,
					 len);
	}
	len = d->fill + (d->ffff_pending ? 2u : 0u) + (d->half_valid ? 1u : 0u);
	if (!len)
		return 0;
	first = d->fill ? d->frame_off[0] :
		d->ffff_pending ? d->ffff_off : d->half_off;
	d->ffff_pending = false;
	d->half_valid = false;
	return finish_truncated(d, first, len);
}

int deformat_finish(struct deformatter *d)
{
	int err;

	if (!d)
		return -etmkit_err_invalid;
	if (d->status)
		return d->status;
	err = run_flush_all(d);
	if (err)
		return err;
	switch (d->cfg.mode) {
	case deformat_coresight:
		if (!d->fill)
			return 0;
		return finish_truncated(d, d->frame_base, d->fill);
	case deformat_tpiu:
	case deformat_tpiu_hsync:
		return finish_tpiu(d);
	default:
		return 0;
	}
}

int deformat_reset(struct deformatter *d, uint64_t offset)
{
	if (!d)
		return -etmkit_err_invalid;
	d->pos = offset;
	d->status = 0;
	d->cur_id = DEFORMAT_ID_UNOWNED;
	d->fill = 0;
	d->frame_base = offset;
	d->aligned = false;
	d->sync_ff = 0;
	d->skip_start = offset;
	d->half_valid = false;
	d->ffff_pending = false;
	d->run_id = DEFORMAT_ID_UNOWNED;
	d->run_start = d->run_n = 0;
	return 0;
}

const struct deformat_stats *deformat_get_stats(const struct deformatter *d)
{
	return d ? &d->stats : NULL;
}

static const char *const dfmt_mode_names[] = {
	[deformat_none] = "none",
	[deformat_coresight] = "coresight",
	[deformat_tpiu] = "tpiu",
	[deformat_tpiu_hsync] = "tpiu-hsync",
};

#define DFMT_NMODES (sizeof(dfmt_mode_names) / sizeof(dfmt_mode_names[0]))

const char *deformat_mode_name(enum deformat_mode mode)
{
	if ((unsigned int)mode >= DFMT_NMODES)
		return "unknown";
	return dfmt_mode_names[mode];
}

int deformat_mode_parse(const char *name)
{
	unsigned int i;

	if (!name)
		return -1;
	for (i = 0; i < DFMT_NMODES; i++)
		if (!strcmp(name, dfmt_mode_names[i]))
			return (int)i;
	return -1;
}
