/* Helpers of the snapshot reader's unit tests (test_snapshot*.c): open a
 * snapshot expecting success or a given error, and write small snapshots
 * to a temporary folder at run time. */
#ifndef ETMKIT_TEST_SNAPSHOT_UTIL_H
#define ETMKIT_TEST_SNAPSHOT_UTIL_H

#include "etmkit/snapshot.h"

#define TC2_DIR ETMKIT_SHARED_DIR "/testdata/etmv3/TC2"
#define FIXTURES ETMKIT_TEST_DATA "/snapshots"

struct tmp_snapshot {
	char dir[64];
	char names[8][64]; /* files to remove (repeats are harmless) */
	int n;
};

int shared_missing(void);
void need_shared(void);
void check_failed(const char *dir, int rc, struct snapshot *ss,
		  const struct snapshot_diag *d, int err);
struct snapshot_diag open_fails(const char *dir, int err);
void check_opened(const char *dir, int rc, struct snapshot *ss,
		  const struct snapshot_diag *d);
struct snapshot *open_ok(const char *dir);
void tmp_write(struct tmp_snapshot *t, const char *name,
	       const char *text);
void tmp_make(struct tmp_snapshot *t, const char *top,
	      const char *const *files, const char *const *texts,
	      int n);
void tmp_remove(struct tmp_snapshot *t);
struct snapshot_diag tmp_open_fails(struct tmp_snapshot *t, int err);
struct snapshot *tmp_open_ok(struct tmp_snapshot *t);
void trace_case(const char *trace, int err, int line, const char *part);
void device_case(const char *dev, int err, int line, const char *part);

extern const char etm_ini[];
extern const char cpu_ini[];
extern const char top_two[];

#endif /* ETMKIT_TEST_SNAPSHOT_UTIL_H */
