/* The ways the flow fuzz targets drive a flow decoder, written once for
 * every protocol: FUZZ_FLOW_DRIVE(P, FAIL) defines, for the decoder
 * P##_flow_* (flow.h), three static functions:
 * - P##_reference(cfg, t, n, out, insns): one feed, P##_flow_batch();
 * - P##_chunked(cfg, t, n, chunk, max, gap_at, out, insns): feeds of
 *   @chunk bytes, each drained with P##_flow_next(@max); with gap_at < n,
 *   a transport gap declared after byte gap_at - 1;
 * - P##_drain_next(d, max, out), which P##_chunked() uses.
 * *insns (if not NULL): the instructions the decoder's stats count. The
 * including file defines put(struct ts_elems *, const struct etmkit_elem
 * *) first (tests/support/ts_elems.h); FAIL(what) stops the run (it must not
 * return). */
#ifndef ETMKIT_FUZZ_FLOW_DRIVE_H
#define ETMKIT_FUZZ_FLOW_DRIVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "etmkit/flow.h"
#include "../tests/elem_same.h"
#include "ts_elems.h"

/* The input layout fuzz_etm3_flow and fuzz_ptm_flow share: 10 header
 * bytes ([2] chunk size - 1, [3] element count per next() call, any
 * value; [4..7] the image's address, 0 for 0xC0008000; [8..9] the image's
 * length, at most what follows; [0], [1] the target's), the image, the
 * trace. Fills the chunk size, element count (1-64), *@img (its bytes
 * mapped; to be freed) and the trace @t, @n. Returns 0, or -1 when the
 * input is shorter than the header. Aborts when memory runs out. */
struct fuzz_flow_input {
	struct image *img;
	const uint8_t *t;
	size_t n, chunk, max;
};

static inline int fuzz_flow_input(const uint8_t *data, size_t size,
				  struct fuzz_flow_input *in)
{
	uint64_t base;
	size_t ilen;

	if (size < 10)
		return -1;
	base = (uint64_t)data[4] | (uint64_t)data[5] << 8 |
	       (uint64_t)data[6] << 16 | (uint64_t)data[7] << 24;
	if (!base)
		base = 0xC0008000u;
	ilen = (size_t)data[8] | (size_t)data[9] << 8;
	if (ilen > size - 10)
		ilen = size - 10;
	in->t = data + 10 + ilen;
	in->n = size - 10 - ilen;
	in->chunk = (size_t)data[2] + 1;
	in->max = (size_t)(data[3] % 64) + 1;
	in->img = NULL;
	if (image_alloc(&in->img))
		abort();
	if (ilen && image_add_buffer(in->img, data + 10, ilen, base, 0))
		abort();
	return 0;
}

/* Stop on error: @stop, the decode of an input with the protocol's
 * STOP_ON_ERROR flag, is the decode @ref of the same input without it up
 * to and including its first gap of a packet error (all of @ref when it
 * has none). Returns 1 if so. */
static inline int fuzz_flow_stopped_same(const struct ts_elems *ref,
					 const struct ts_elems *stop)
{
	size_t k = 0;

	for (; k < ref->n; k++)
		if (ref->e[k].kind == etmkit_elem_gap &&
		    ref->e[k].u.loss.reason == etmkit_loss_packet)
			break;
	if (stop->n != (k < ref->n ? k + 1 : ref->n))
		return 0;
	for (size_t i = 0; i < stop->n; i++)
		if (!elem_same(&stop->e[i], &ref->e[i], 1))
			return 0;
	return 1;
}

#define FUZZ_FLOW_DRIVE(P, FAIL)                                            \
static void P##_reference(const struct P##_flow_config *c,                 \
			  const uint8_t *t, size_t n, struct ts_elems *out,     \
			  uint64_t *insns)                                   \
{                                                                           \
	struct P##_flow_decoder *d;                                         \
	const struct etmkit_elem *el;                                       \
	int k;                                                              \
									    \
	if (P##_flow_alloc(&d, c))                                          \
		FAIL(#P "_flow_alloc failed");                              \
	if (P##_flow_feed(d, t, n, NULL, 0))                                \
		FAIL(#P "_flow_feed failed");                               \
	for (int pass = 0; pass < 2; pass++) {                              \
		while ((k = P##_flow_batch(d, &el)) > 0)                    \
			for (int i = 0; i < k; i++)                         \
				put(out, &el[i]);                           \
		if (k != -etmkit_err_eos && k != -etmkit_err_bad_packet)    \
			FAIL(#P "_flow_batch: unexpected return value");    \
		if (!pass && P##_flow_finish(d))                            \
			FAIL(#P "_flow_finish failed");                     \
	}                                                                   \
	if (insns)                                                          \
		*insns = P##_flow_get_stats(d)->insns;                      \
	P##_flow_free(d);                                                   \
}                                                                           \
									    \
static void P##_drain_next(struct P##_flow_decoder *d, size_t max,         \
			   struct ts_elems *out)                                \
{                                                                           \
	struct etmkit_elem buf[64];                                         \
	int k;                                                              \
									    \
	while ((k = P##_flow_next(d, buf, max)) > 0) {                      \
		if ((size_t)k > max)                                        \
			FAIL(#P "_flow_next returned more than max");       \
		for (int i = 0; i < k; i++)                                 \
			put(out, &buf[i]);                                  \
	}                                                                   \
	if (k != -etmkit_err_eos)                                           \
		FAIL(#P "_flow_next: unexpected return value");             \
}                                                                           \
									    \
static void P##_chunked(const struct P##_flow_config *c, const uint8_t *t, \
			size_t n, size_t chunk, size_t max, size_t gap_at,   \
			struct ts_elems *out, uint64_t *insns)                  \
{                                                                           \
	struct P##_flow_decoder *d;                                         \
	size_t at = 0;                                                      \
									    \
	if (P##_flow_alloc(&d, c))                                          \
		FAIL(#P "_flow_alloc failed");                              \
	while (at < n) {                                                    \
		size_t len = n - at < chunk ? n - at : chunk;               \
									    \
		if (at < gap_at && at + len > gap_at)                       \
			len = gap_at - at;                                  \
		if (P##_flow_feed(d, t + at, len, NULL, at))                \
			FAIL(#P "_flow_feed failed");                       \
		P##_drain_next(d, max, out);                                \
		at += len;                                                  \
		if (at == gap_at && P##_flow_gap(d))                        \
			FAIL(#P "_flow_gap failed");                        \
	}                                                                   \
	if (P##_flow_finish(d))                                             \
		FAIL(#P "_flow_finish failed");                             \
	P##_drain_next(d, max, out);                                        \
	if (insns)                                                          \
		*insns = P##_flow_get_stats(d)->insns;                      \
	P##_flow_free(d);                                                   \
}

#endif /* ETMKIT_FUZZ_FLOW_DRIVE_H */
