/* Helpers of the snapshot reader's unit tests (unit/snapshot_test_util.h),
 * moved from test_snapshot.c. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "unit/test_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etmkit/snapshot.h"
#include "unit/snapshot_test_util.h"


/* ---- Helpers ------------------------------------------------------------- */

int shared_missing(void)
{
	struct stat st;

	return stat(TC2_DIR "/snapshot.ini", &st) != 0;
}

/* Skip a test that needs ../shared when it is absent; fail under CI. */
void need_shared(void)
{
	test_need(shared_missing(), TC2_DIR);
}


/* Check the outcome of a snapshot_open() of @dir expected to fail with
 * @err: no snapshot, and a message. */
void check_failed(const char *dir, int rc, struct snapshot *ss,
			 const struct snapshot_diag *d, int err)
{
	if (rc != err)
		fail_msg("snapshot_open(%s) = %d, expected %d (%s:%d: %s)", dir,
			 rc, err, d->path, d->line, d->message);
	assert_null(ss);
	assert_true(d->message[0] != '\0');
}

/* Open @dir expecting failure @err; returns the diag for more checks. */
struct snapshot_diag open_fails(const char *dir, int err)
{
	struct snapshot *ss = (struct snapshot *)&ss; /* must become NULL */
	struct snapshot_diag d;
	int rc = snapshot_open(&ss, dir, &d);

	check_failed(dir, rc, ss, &d, err);
	return d;
}

void check_opened(const char *dir, int rc, struct snapshot *ss,
			 const struct snapshot_diag *d)
{
	if (rc != 0)
		fail_msg("snapshot_open(%s) = %d: %s:%d: %s", dir, rc, d->path,
			 d->line, d->message);
	assert_non_null(ss);
	assert_string_equal(d->message, "");
}

struct snapshot *open_ok(const char *dir)
{
	struct snapshot *ss = NULL;
	struct snapshot_diag d;
	int rc = snapshot_open(&ss, dir, &d);

	check_opened(dir, rc, ss, &d);
	return ss;
}

/* ---- Temporary snapshots ------------------------------------------------- */


void tmp_write(struct tmp_snapshot *t, const char *name,
		      const char *text)
{
	char path[192];
	FILE *f;

	assert_true(t->n < 8);
	snprintf(path, sizeof(path), "%s/%s", t->dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
	snprintf(t->names[t->n++], sizeof(t->names[0]), "%s", name);
}

/* A snapshot folder with snapshot.ini = @top and files[i] = texts[i]. */
void tmp_make(struct tmp_snapshot *t, const char *top,
		     const char *const *files, const char *const *texts,
		     int n)
{
	const char *tmp = getenv("TMPDIR");
	int i;

	memset(t, 0, sizeof(*t));
	snprintf(t->dir, sizeof(t->dir), "%s/etmkit-ssXXXXXX",
		 (tmp && strlen(tmp) < 32) ? tmp : "/tmp");
	assert_non_null(mkdtemp(t->dir));
	tmp_write(t, "snapshot.ini", top);
	for (i = 0; i < n; i++)
		tmp_write(t, files[i], texts[i]);
}

void tmp_remove(struct tmp_snapshot *t)
{
	char path[192];
	int i;

	for (i = 0; i < t->n; i++) {
		snprintf(path, sizeof(path), "%s/%s", t->dir, t->names[i]);
		unlink(path);
	}
	rmdir(t->dir);
}

/* Open @t, remove it, then check the open failed with @err (so a failing
 * check leaves no folder behind). */
struct snapshot_diag tmp_open_fails(struct tmp_snapshot *t, int err)
{
	struct snapshot *ss = (struct snapshot *)&ss;
	struct snapshot_diag d;
	int rc = snapshot_open(&ss, t->dir, &d);

	tmp_remove(t);
	check_failed(t->dir, rc, ss, &d, err);
	return d;
}

struct snapshot *tmp_open_ok(struct tmp_snapshot *t)
{
	struct snapshot *ss = NULL;
	struct snapshot_diag d;
	int rc = snapshot_open(&ss, t->dir, &d);

	tmp_remove(t);
	check_opened(t->dir, rc, ss, &d);
	return ss;
}

const char etm_ini[] = "[device]\nname=ETM_0\nclass=trace_source\n"
			      "type=ETM3.5\n[regs]\nETMCR=0x1000\n";
const char cpu_ini[] = "[device]\nname=cpu_0\nclass=core\n"
			      "type=Cortex-A7\n";
const char top_two[] = "[device_list]\nd0=cpu.ini\nd1=etm.ini\n"
			      "[trace]\nmetadata=trace.ini\n";

/* Open a temporary snapshot of cpu.ini, etm.ini and trace.ini = @trace,
 * expecting @err; checks the diag names trace.ini, line @line and holds
 * @part. */
void trace_case(const char *trace, int err, int line, const char *part)
{
	static const char *const names[] = { "cpu.ini", "etm.ini", "trace.ini" };
	const char *texts[] = { cpu_ini, etm_ini, trace };
	struct tmp_snapshot t;
	struct snapshot_diag d;

	tmp_make(&t, top_two, names, texts, 3);
	d = tmp_open_fails(&t, err);
	assert_ends_with(d.path, "/trace.ini");
	assert_int_equal(d.line, line);
	assert_contains(d.message, part);
}

/* The same for a one-device snapshot whose device file is @dev. */
void device_case(const char *dev, int err, int line, const char *part)
{
	static const char *const names[] = { "dev.ini" };
	const char *texts[] = { dev };
	struct tmp_snapshot t;
	struct snapshot_diag d;

	tmp_make(&t, "[device_list]\ndevice0=dev.ini\n", names, texts, 1);
	d = tmp_open_fails(&t, err);
	assert_ends_with(d.path, "/dev.ini");
	assert_int_equal(d.line, line);
	assert_contains(d.message, part);
}
