/* Test support: every trace source of every snapshot under a testdata
 * folder (test_insn_iter, test_tally, test_parallel_snap, test_etm3_flow
 * walk them all), and one source set up to decode. Never prints. */
#ifndef ETMKIT_TS_SNAPSHOTS_H
#define ETMKIT_TS_SNAPSHOTS_H

#include <stddef.h>

#include "etmkit/etm3.h"
#include "etmkit/etm4.h"
#include "etmkit/image.h"
#include "etmkit/snapshot.h"

/* Called for source @src of the snapshot in folder @name (its last path
 * component, e.g. "TC2") of the open snapshot @ss. */
typedef void (*ts_source_fn)(void *ctx, const char *name,
			     const struct snapshot *ss,
			     const struct snapshot_source *src);

/* Calls @fn for each source of each snapshot directly under
 * @top/@kinds[k] for k < @nkinds (e.g. top "…/testdata", kinds "etmv3",
 * "etmv4", "ete"), in readdir order; folders that are not snapshots
 * (snapshot_open() refuses them) and names starting with '.' are passed
 * over. Returns the snapshots opened, or -1 when a kind's folder cannot
 * be read. */
int ts_each_source(const char *top, const char *const *kinds, int nkinds,
		   ts_source_fn fn, void *ctx);

/* One trace source of an open snapshot, ready to decode. */
struct ts_source {
	const struct snapshot_buffer *buf; /* where its trace is */
	enum etmkit_protocol proto;        /* etmv3, etmv4 or ete (or ptm:
					      ts_source_open_ptm()) */
	uint8_t id;                        /* its trace ID */
	struct etm3_config etm3;           /* proto etmv3, ptm (else as
					      inited) */
	struct etm4_config etm4;           /* etmv4, ete (else as inited) */
	struct image *img;                 /* its core's memory dumps */
};

/* Set up @out for source @src of @ss: its device's configuration and
 * its core's image. Returns 0, -1 when the source is not one to decode
 * (its device, buffer or core not in @ss, a protocol other than ETMv3,
 * ETMv4 and ETE, registers refused), or -2 when its core's dumps could not
 * be mapped (a test that needs every image fails on it): @out then holds
 * nothing to free. Aborts when memory runs out. */
int ts_source_open(const struct snapshot *ss,
		   const struct snapshot_source *src, struct ts_source *out);

/* As ts_source_open(), PTM sources taken too (proto etmkit_proto_ptm,
 * their registers in etm3: they have ETMv3's names). */
int ts_source_open_ptm(const struct snapshot *ss,
		       const struct snapshot_source *src,
		       struct ts_source *out);

/* Free @s's image and zero it. */
void ts_source_free(struct ts_source *s);

#endif
