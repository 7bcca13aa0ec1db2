/* etmkit: transport layer: a capture's bytes to the byte stream of each
 * trace source ID.
 *
 * Layer: transport (src/transport/): first of the decode layers.
 *
 * Takes the bytes of a trace capture and delivers, per trace source ID, the
 * byte stream that source emitted, keeping for every byte its offset in the
 * input file. Handles the CoreSight trace formatter's 16-byte frames (ID
 * changes inside a frame, the auxiliary byte, the delayed-ID rule), the
 * TPIU's frame sync (FSYNC, FF FF FF 7F) and half-word sync (HSYNC, FF 7F),
 * and raw single-source streams (formatter bypassed).
 * See ARM DDI 0314H 8.12 and 9.6.1, and docs/ in this project.
 */
#ifndef ETMKIT_TRANSPORT_H
#define ETMKIT_TRANSPORT_H

#include "etmkit/common.h"

#ifdef __cplusplus
extern "C" {
#endif

enum deformat_mode {
	deformat_none = 0,  /* raw single-source stream, all bytes to raw_id */
	deformat_coresight, /* 16-byte frames, aligned from offset 0 (ETB/ETF/ETR
			       memory), no syncs */
	deformat_tpiu,      /* TPIU port: frames aligned by FSYNC */
	deformat_tpiu_hsync /* TPIU port: FSYNC alignment, HSYNCs removed */
};

/* Trace IDs. 0x00 is the null source (padding, discarded); 0x70-0x7F are
 * reserved. */
#define DEFORMAT_ID_NULL 0x00u
#define DEFORMAT_ID_COUNT 128u
/* deformat_run.id of data bytes seen before any ID byte, or after a bad
 * frame until the next ID byte (discarded, counted in unowned_bytes). */
#define DEFORMAT_ID_UNOWNED 0x80u

/* Data of one trace ID: @n bytes; byte i was at input offset offsets[i], or
 * at base + i when @offsets is NULL. The arrays are valid during the call
 * only. Return 0 to go on; a negative value stops deformat_feed(), which
 * returns it.
 * Formatted modes buffer data and call this with runs of one ID: when the
 * ID changes, when the internal buffer (4096 bytes) fills, at the end of
 * each deformat_feed() call, and, when on_event is set, after each frame's
 * deformat_ev_frame event (so a listing sees a frame, then its data).
 * deformat_none calls it once per deformat_feed() with @offsets NULL and
 * @data pointing into the caller's buffer. */
typedef int (*deformat_data_fn)(void *ctx, uint8_t id, const uint8_t *data,
				const uint64_t *offsets, uint64_t base,
				size_t n);

enum deformat_event_kind {
	deformat_ev_frame = 1, /* a 16-byte frame was decoded */
	deformat_ev_fsync,     /* FSYNC removed */
	deformat_ev_hsync,     /* HSYNC removed */
	deformat_ev_skipped,   /* bytes dropped before frame alignment */
	deformat_ev_error      /* malformed input; see error */
};

/* One run of data bytes of a frame attributed to one ID. */
struct deformat_run {
	uint8_t id;
	uint8_t count;
};

struct deformat_event {
	uint8_t kind;           /* enum deformat_event_kind */
	int16_t error;          /* deformat_ev_error: negated etmkit_error */
	uint64_t offset;        /* input offset of the first byte concerned */
	uint64_t length;        /* bytes concerned */
	uint8_t frame[16];      /* deformat_ev_frame: the frame as read */
	uint8_t nruns;          /* deformat_ev_frame: runs of data by ID */
	struct deformat_run runs[16];
	const char *message;    /* deformat_ev_error: what was wrong */
};

/* Observer of frames and syncs, for listings. Same return convention as
 * deformat_data_fn. */
typedef int (*deformat_event_fn)(void *ctx, const struct deformat_event *ev);

/* Data was lost here (a frame dropped or cut short): bytes delivered after
 * this call do not continue those delivered before it, for any ID. All data
 * before the loss has been delivered when it is called. Same return
 * convention as deformat_data_fn. */
typedef int (*deformat_gap_fn)(void *ctx, uint64_t offset);

struct deformat_config {
	size_t size;                /* sizeof(struct deformat_config) */
	enum deformat_mode mode;
	uint8_t raw_id;             /* deformat_none: the ID to report */
	deformat_data_fn on_data;   /* required */
	deformat_event_fn on_event; /* optional */
	void *ctx;                  /* passed to the callbacks */
	deformat_gap_fn on_gap;     /* optional */
};

struct deformat_stats {
	uint64_t bytes_in;      /* bytes fed */
	uint64_t frames;        /* complete frames decoded */
	uint64_t fsyncs, hsyncs;
	uint64_t skipped;       /* bytes before alignment, or in bad frames */
	uint64_t null_bytes;    /* data bytes of ID 0 (discarded) */
	uint64_t unowned_bytes; /* data bytes before any ID (discarded) */
	uint64_t errors;
	uint64_t id_bytes[DEFORMAT_ID_COUNT]; /* data bytes per ID */
};

struct deformatter;

/* Returns 0 and sets *@d, or -etmkit_err_invalid (NULL, bad size, no
 * on_data, unknown mode), -etmkit_err_nomem. */
int deformat_alloc(struct deformatter **d, const struct deformat_config *cfg);
void deformat_free(struct deformatter *d);

/* Feed the next @n bytes of the input; offsets continue from the previous
 * call (the first byte ever fed is offset 0). Returns 0, a callback's
 * negative value, or -etmkit_err_invalid. Malformed frames are reported as
 * events and counted, not returned as errors: a frame holding the ID byte
 * 0xFF (ID 0x7F) is dropped whole (-etmkit_err_bad_frame, counted in
 * skipped) and data after it is unowned until the next ID byte.
 * Once a callback has returned a negative value the deformatter stays
 * stopped: deformat_feed() and deformat_finish() return that value again
 * without decoding. */
int deformat_feed(struct deformatter *d, const uint8_t *buf, size_t n);

/* End of input: a partial frame is reported (error event,
 * -etmkit_err_truncated) and counted as skipped. Returns 0 or a callback's
 * negative value. */
int deformat_finish(struct deformatter *d);

/* Start a new input whose first byte is at @offset: the partial frame, the
 * current ID and the TPIU alignment are dropped (call deformat_finish()
 * first to have a partial frame reported); statistics are kept. For pieces
 * of a ring buffer that are not contiguous (perf AUX records: frames are
 * aligned from the start of each piece, digest perf-data.md 3.6). Also
 * clears a stop by a callback. Returns 0 or -etmkit_err_invalid (NULL). */
int deformat_reset(struct deformatter *d, uint64_t offset);

const struct deformat_stats *deformat_get_stats(const struct deformatter *d);

/* "none", "coresight", "tpiu", "tpiu-hsync" ("unknown" for a value out of
 * range); and the reverse (returns -1 for an unknown name or NULL). */
const char *deformat_mode_name(enum deformat_mode mode);
int deformat_mode_parse(const char *name);

/* ---- Formatter: the encoder side ------------------------------------------
 * Packs one or more trace sources' byte streams into CoreSight formatter
 * frames (DDI 0314H 8.12, 9.6.1; digest coresight-frames.md 1), as an
 * ETB/ETF/ETR holds them: 16-byte frames from offset 0, no syncs
 * (deformat_coresight reads them back). The writer states the ID at the
 * first frame of a source and again in the first frame after every eight
 * frames of one source, and pads the last frame with the null ID. */

/* Where frames go: @len is a multiple of 16. Returns 0 or a negated
 * etmkit_error that frame_enc_put()/frame_enc_finish() stop with. */
typedef int (*frame_sink_fn)(void *ctx, const uint8_t *frames, size_t len);

struct frame_enc;

/* Returns 0, -etmkit_err_invalid or -etmkit_err_nomem. */
int frame_enc_alloc(struct frame_enc **out, frame_sink_fn sink, void *ctx);
void frame_enc_free(struct frame_enc *f);

/* Append @n bytes of trace source @id (0x01-0x6F). Returns 0,
 * -etmkit_err_invalid for a reserved or null ID, or the sink's error. */
int frame_enc_put(struct frame_enc *f, uint8_t id, const uint8_t *data,
		  size_t n);

/* Complete the last frame (null-ID padding) and hand every frame to the
 * sink. Returns 0 or the sink's error. */
int frame_enc_finish(struct frame_enc *f);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_TRANSPORT_H */
