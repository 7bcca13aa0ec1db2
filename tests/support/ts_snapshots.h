/* Test support: every trace source of every snapshot under a testdata
 * folder (test_insn_iter, test_tally, test_parallel_snap walk them all).
 * Never prints. */
#ifndef ETMKIT_TS_SNAPSHOTS_H
#define ETMKIT_TS_SNAPSHOTS_H

#include <stddef.h>

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

#endif
