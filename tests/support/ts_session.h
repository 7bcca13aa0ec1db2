/* Test support: a whole file read into memory, and one trace buffer of a
 * snapshot decoded through a session (include/etmkit/session.h) in
 * 4096-byte feeds, as a reader would feed it (test_etm3_flow's ranges,
 * test_tally). Never prints. */
#ifndef ETMKIT_TS_SESSION_H
#define ETMKIT_TS_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "etmkit/session.h"
#include "etmkit/snapshot.h"

/* The bytes of file @path (malloc'd, *@n of them), or NULL when it
 * cannot be opened or read. */
uint8_t *ts_read_file(const char *path, size_t *n);

/* Adds the flow decoder(s) to @s; returns 0 or a negative error. */
typedef int (*ts_session_add_fn)(struct etmkit_session *s, void *arg);

/* Decode buffer @buf (CoreSight frames unless its format is
 * "source_data") through a session whose decoders @add sets up (with
 * @add_arg), elements to @on_elem with @ctx. Returns 0; -1 when the
 * buffer's file cannot be read; or the negative error of the first step
 * that failed (session alloc, @add, a feed, finish). */
int ts_session_decode(const struct snapshot_buffer *buf,
		      ts_session_add_fn add, void *add_arg,
		      etmkit_elem_fn on_elem, void *ctx);

#endif
