/* Unit tests of the snapshot reader: snapshots as real tools write them
 * (issue 17). What a snapshot names but does not hold is skipped, with a
 * note naming file, line, section and entry (snapshot.h, struct
 * snapshot_note): trace sources and cores with no device file, dumps that
 * map nothing. Small snapshots written at run time.
 */
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


/* ---- Snapshots as real tools write them (issue 17) ------------------------ */

static void check_note(const struct snapshot_note *n,
		       enum snapshot_note_kind kind, const char *file, int line,
		       const char *section, const char *name, const char *part)
{
	assert_non_null(n);
	assert_int_equal(n->kind, kind);
	assert_ends_with(n->path, file);
	assert_int_equal(n->line, line);
	assert_string_equal(n->section, section);
	assert_ends_with(n->name, name);
	assert_contains(n->message, part);
}

/* [source_buffers] and [core_trace_sources] naming sources and cores that
 * no device file describes: skipped, each with a note; the rest kept. */
static void test_dangling_names(void **state)
{
	static const char *const names[] = { "cpu.ini", "etm.ini", "trace.ini" };
	const char *texts[] = {
		cpu_ini, etm_ini,
		"[trace_buffers]\nbuffers=buffer0\n[buffer0]\nname=ETB_0\n"
		"file=t.bin\nformat=coresight\n[source_buffers]\n"
		"ETM_7=ETB_0\nETM_0=ETB_0\nETM_1=ETB_0\n"
		"[core_trace_sources]\ncpu_0=ETM_0\ncpu_1=ETM_1\n"
		"cpu_2=ETM_2\n"
	};
	struct tmp_snapshot t;
	struct snapshot *ss;

	(void)state;
	tmp_make(&t, top_two, names, texts, 3);
	ss = tmp_open_ok(&t);
	assert_int_equal(snapshot_source_count(ss), 1);
	assert_string_equal(snapshot_source_at(ss, 0)->name, "ETM_0");
	assert_string_equal(snapshot_source_at(ss, 0)->core, "cpu_0");
	assert_int_equal(snapshot_note_count(ss), 2);
	check_note(snapshot_note_at(ss, 0), snapshot_note_source_no_device,
		   "/trace.ini", 8, "source_buffers", "ETM_7",
		   "trace source ETM_7 in [source_buffers] has no device file");
	check_note(snapshot_note_at(ss, 1), snapshot_note_source_no_device,
		   "/trace.ini", 10, "source_buffers", "ETM_1", "skipped");
	assert_null(snapshot_note_at(ss, 2));
	snapshot_free(ss);
}

/* A source whose core is no device: kept without a core, with a note. */
static void test_coreless_source(void **state)
{
	static const char *const names[] = { "cpu.ini", "etm.ini", "trace.ini" };
	const char *texts[] = {
		cpu_ini, etm_ini,
		"[trace_buffers]\nbuffers=buffer0\n[buffer0]\nname=ETB_0\n"
		"file=t.bin\nformat=coresight\n[source_buffers]\n"
		"ETM_0=ETB_0\n[core_trace_sources]\ncpu_1=ETM_0\n"
	};
	struct tmp_snapshot t;
	struct snapshot *ss;

	(void)state;
	tmp_make(&t, top_two, names, texts, 3);
	ss = tmp_open_ok(&t);
	assert_int_equal(snapshot_source_count(ss), 1);
	assert_null(snapshot_source_at(ss, 0)->core);
	assert_int_equal(snapshot_note_count(ss), 1);
	check_note(snapshot_note_at(ss, 0), snapshot_note_core_no_device,
		   "/trace.ini", 10, "core_trace_sources", "cpu_1",
		   "core cpu_1 of trace source ETM_0");
	snapshot_free(ss);
}

/* Dumps that map nothing (an empty file, no length or length 0) are left
 * out with a note; one with a length or a non-empty file stays. A core of
 * type "unknown" (CoreSight Access Library) is kept as written. */
static void test_empty_dumps(void **state)
{
	static const char *const names[] = { "cpu.ini", "e.bin", "f.bin" };
	const char *texts[] = {
		"[device]\nname=cpu_0\nclass=core\ntype=unknown\n"
		"[dump]\nfile=e.bin\naddress=0x1000\n"
		"[dump]\nfile=e.bin\naddress=0x2000\nlength=0\n"
		"[dump]\nfile=e.bin\naddress=0x3000\nlength=4\n"
		"[dump]\nfile=f.bin\naddress=0x4000\nlength=0\n"
		"[dump]\nfile=gone.bin\naddress=0x5000\n",
		"", "\x01\x02"
	};
	const struct snapshot_device *dev;
	struct tmp_snapshot t;
	struct snapshot *ss;

	(void)state;
	tmp_make(&t, "[device_list]\nd0=cpu.ini\n", names, texts, 3);
	ss = tmp_open_ok(&t);
	dev = snapshot_find_device(ss, "cpu_0");
	assert_string_equal(dev->type, "unknown");
	assert_int_equal(snapshot_device_protocol(dev), etmkit_proto_none);
	assert_int_equal(dev->ndumps, 3);
	assert_int_equal(dev->dumps[0].address, 0x3000);
	assert_int_equal(dev->dumps[1].address, 0x4000);
	assert_int_equal(dev->dumps[2].address, 0x5000);
	assert_int_equal(snapshot_note_count(ss), 2);
	check_note(snapshot_note_at(ss, 0), snapshot_note_empty_dump,
		   "/cpu.ini", 5, "dump", "/e.bin",
		   "dump [dump] maps no bytes: e.bin is empty");
	check_note(snapshot_note_at(ss, 1), snapshot_note_empty_dump,
		   "/cpu.ini", 8, "dump", "/e.bin", "skipped");
	snapshot_free(ss);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dangling_names),
		cmocka_unit_test(test_coreless_source),
		cmocka_unit_test(test_empty_dumps),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	return test_exit(failed, 0);
}
