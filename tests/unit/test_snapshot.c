/* Unit tests of the snapshot reader (src/snapshot/snapshot.c).
 *
 * - the real TC2 capture (ETMv3/PTM) from ../shared, every field checked;
 * - every snapshot folder under ../shared/testdata must open;
 * - hand-written fixtures in tests/data/snapshots (one good snapshot using
 *   the format's variations, one folder per kind of damage);
 * - small snapshots written to a temporary folder at run time, for limits
 *   and rarer damage.
 *
 * Register configurations are tested in test_snapshot_config.c, what is
 * skipped with a note in test_snapshot_lenient.c; the helpers are in
 * snapshot_test_util.c.
 *
 * Without ../shared the tests that need it are skipped (and the program
 * exits 77, which ctest reports as skipped), unless CI=true, when they
 * fail.
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


/* ---- The real TC2 snapshot ----------------------------------------------- */

static void test_tc2_devices(void **state)
{
	static const char *const names[] = { "cpu_0", "cpu_1", "cpu_2",
					     "cpu_3", "cpu_4", "ETM_0",
					     "ETM_1", "ETM_2", "PTM_0",
					     "PTM_1", "ITM_0" };
	struct snapshot *ss;
	size_t i;

	(void)state;
	need_shared();
	ss = open_ok(TC2_DIR);
	assert_int_equal(snapshot_device_count(ss), 11);
	for (i = 0; i < 11; i++) {
		const struct snapshot_device *dev = snapshot_device_at(ss, i);

		assert_string_equal(dev->name, names[i]);
		assert_ptr_equal(snapshot_find_device(ss, names[i]), dev);
		assert_ends_with(dev->path, ".ini");
	}
	assert_null(snapshot_device_at(ss, 11));
	assert_null(snapshot_find_device(ss, "ETM_9"));
	assert_string_equal(snapshot_find_device(ss, "ETM_0")->type, "ETM3.5");
	assert_string_equal(snapshot_find_device(ss, "ETM_0")->klass,
			    "trace_source");
	assert_string_equal(snapshot_find_device(ss, "cpu_3")->type,
			    "Cortex-A15");
	assert_ends_with(snapshot_find_device(ss, "ETM_0")->path,
			 "/TC2/device_5.ini");
	snapshot_free(ss);
}

static void test_tc2_buffers_sources(void **state)
{
	static const char *const src[] = { "ETM_0", "ETM_1", "ETM_2",
					   "PTM_0", "PTM_1", "ITM_0" };
	static const char *const core[] = { "cpu_0", "cpu_1", "cpu_2",
					    "cpu_3", "cpu_4", NULL };
	const struct snapshot_buffer *buf;
	struct snapshot *ss;
	size_t i;

	(void)state;
	need_shared();
	ss = open_ok(TC2_DIR);
	assert_int_equal(snapshot_buffer_count(ss), 1);
	buf = snapshot_buffer_at(ss, 0);
	assert_string_equal(buf->name, "ETB_0");
	assert_string_equal(buf->file, TC2_DIR "/cstrace.bin");
	assert_string_equal(buf->format, "coresight");
	assert_ptr_equal(snapshot_find_buffer(ss, "ETB_0"), buf);
	assert_null(snapshot_find_buffer(ss, "ETB_1"));
	assert_null(snapshot_buffer_at(ss, 1));
	assert_int_equal(snapshot_source_count(ss), 6);
	for (i = 0; i < 6; i++) {
		const struct snapshot_source *s = snapshot_source_at(ss, i);

		assert_string_equal(s->name, src[i]);
		assert_string_equal(s->buffer, "ETB_0");
		if (core[i])
			assert_string_equal(s->core, core[i]);
		else
			assert_null(s->core);
	}
	assert_null(snapshot_source_at(ss, 6));
	snapshot_free(ss);
}

static void test_tc2_etm_regs(void **state)
{
	const struct snapshot_device *etm;
	struct snapshot_diag d;
	struct etm3_config cfg;
	struct snapshot *ss;
	uint8_t id = 0;
	uint64_t v = 0;

	(void)state;
	need_shared();
	ss = open_ok(TC2_DIR);
	etm = snapshot_find_device(ss, "ETM_0");
	assert_non_null(etm);
	assert_int_equal(etm->nregs, 4);
	assert_string_equal(etm->regs[1].name, "ETMIDR");
	assert_true(etm->regs[1].has_offset);
	assert_int_equal(etm->regs[1].offset, 0x079);
	assert_int_equal(snapshot_reg_value(etm, "etmcr", &v), 0);
	assert_int_equal(v, 0x10001860);
	assert_int_equal(snapshot_reg_value(etm, "ETMCR(0x000)", &v),
			 -etmkit_err_not_found);
	assert_int_equal(snapshot_device_protocol(etm), etmkit_proto_etmv3);
	assert_int_equal(snapshot_etm3_config(etm, &cfg, &id, &d), 0);
	assert_int_equal(cfg.size, sizeof(cfg));
	assert_int_equal(cfg.etmcr, 0x10001860);
	assert_int_equal(cfg.etmidr, 0x410CF250);
	assert_int_equal(cfg.etmccer, 0x344008F2);
	assert_int_equal(id, 0x10);
	assert_int_equal(snapshot_device_protocol(
				 snapshot_find_device(ss, "PTM_0")),
			 etmkit_proto_ptm);
	assert_int_equal(snapshot_device_protocol(
				 snapshot_find_device(ss, "ITM_0")),
			 etmkit_proto_none);
	assert_int_equal(snapshot_device_protocol(
				 snapshot_find_device(ss, "cpu_0")),
			 etmkit_proto_none);
	snapshot_free(ss);
}

static void test_tc2_missing_etm_reg(void **state)
{
	const struct snapshot_device *itm;
	struct snapshot_diag d;
	struct etm3_config cfg;
	struct snapshot *ss;
	uint8_t id = 0;

	(void)state;
	need_shared();
	ss = open_ok(TC2_DIR);
	itm = snapshot_find_device(ss, "ITM_0");
	assert_int_equal(snapshot_etm3_config(itm, &cfg, &id, &d),
			 -etmkit_err_format);
	assert_ends_with(d.path, "/device_10.ini");
	assert_contains(d.message, "ETMCR");
	assert_contains(d.message, "ITM_0");
	snapshot_free(ss);
}

static void test_tc2_dump(void **state)
{
	const struct snapshot_device *cpu;
	const struct snapshot_dump *dump;
	struct snapshot *ss;
	uint64_t v = 0;

	(void)state;
	need_shared();
	ss = open_ok(TC2_DIR);
	cpu = snapshot_find_device(ss, "cpu_0");
	assert_string_equal(cpu->klass, "core");
	assert_int_equal(cpu->ndumps, 1);
	dump = &cpu->dumps[0];
	assert_string_equal(dump->file, TC2_DIR "/kernel_dump.bin");
	assert_int_equal(dump->address, 0xC0008000);
	assert_true(dump->has_length);
	assert_int_equal(dump->length, 0x50000);
	assert_int_equal(dump->offset, 0);
	assert_null(dump->space);
	assert_int_equal(cpu->nregs, 3);
	assert_false(cpu->regs[0].has_offset);
	assert_int_equal(snapshot_reg_value(cpu, "R15", &v), 0);
	assert_int_equal(v, 0xC0008000);
	snapshot_free(ss);
}

/* ---- Every snapshot under ../shared/testdata ----------------------------- */

/* Open every folder holding a snapshot.ini below @dir; count them. */
static void open_all_below(const char *dir, int depth, int *count)
{
	char path[1024];
	struct dirent *e;
	struct stat st;
	DIR *d;

	snprintf(path, sizeof(path), "%s/snapshot.ini", dir);
	if (stat(path, &st) == 0) {
		snapshot_free(open_ok(dir));
		(*count)++;
	}
	if (depth > 6)
		return;
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			open_all_below(path, depth + 1, count);
	}
	closedir(d);
}

static void test_all_shared_snapshots(void **state)
{
	int count = 0;

	(void)state;
	need_shared();
	open_all_below(ETMKIT_SHARED_DIR "/testdata", 0, &count);
	/* etmv3, etmv4, ptm and ete captures: 25 when written. */
	assert_true(count >= 20);
}

/* ---- The hand-written good snapshot -------------------------------------- */

static void test_good_devices(void **state)
{
	const struct snapshot_device *cpu1;
	struct snapshot *ss;

	(void)state;
	ss = open_ok(FIXTURES "/good");
	assert_int_equal(snapshot_device_count(ss), 3);
	assert_string_equal(snapshot_device_at(ss, 0)->name, "cpu_0");
	assert_string_equal(snapshot_device_at(ss, 1)->name, "ETM_0");
	cpu1 = snapshot_device_at(ss, 2);
	assert_string_equal(cpu1->name, "cpu_1");
	assert_string_equal(cpu1->path, FIXTURES "/good/sub/core2.ini");
	/* class and type absent: empty strings */
	assert_string_equal(cpu1->klass, "");
	assert_string_equal(cpu1->type, "");
	assert_int_equal(cpu1->nregs, 0);
	assert_int_equal(cpu1->ndumps, 1);
	assert_string_equal(cpu1->dumps[0].file,
			    FIXTURES "/good/sub/../shared.bin");
	assert_int_equal(cpu1->dumps[0].address, 0);
	assert_false(cpu1->dumps[0].has_length);
	snapshot_free(ss);
}

static void test_good_regs(void **state)
{
	const struct snapshot_device *cpu;
	struct snapshot *ss;
	uint64_t v = 0;

	(void)state;
	ss = open_ok(FIXTURES "/good");
	cpu = snapshot_find_device(ss, "cpu_0");
	assert_int_equal(cpu->nregs, 4);
	assert_string_equal(cpu->regs[1].name, "R13");
	assert_int_equal(cpu->regs[1].value, 4096); /* decimal */
	assert_false(cpu->regs[1].has_offset);
	/* "(size:64)": inih splits the key at ':', the reader rejoins it */
	assert_string_equal(cpu->regs[2].name, "PC");
	assert_false(cpu->regs[2].has_offset);
	assert_int_equal(cpu->regs[2].value, 0xFFFFFFC000081000ull);
	assert_string_equal(cpu->regs[3].name, "X0");
	assert_true(cpu->regs[3].has_offset);
	assert_int_equal(cpu->regs[3].offset, 0x10);
	assert_int_equal(cpu->regs[3].value, UINT64_MAX);
	assert_int_equal(snapshot_reg_value(cpu, "pc", &v), 0);
	assert_int_equal(v, 0xFFFFFFC000081000ull);
	assert_int_equal(snapshot_reg_value(cpu, "R0", &v),
			 -etmkit_err_not_found);
	assert_int_equal(snapshot_reg_value(NULL, "R0", &v),
			 -etmkit_err_invalid);
	snapshot_free(ss);
}

static void test_good_dumps(void **state)
{
	const struct snapshot_dump *dp;
	struct snapshot *ss;

	(void)state;
	ss = open_ok(FIXTURES "/good");
	dp = snapshot_find_device(ss, "cpu_0")->dumps;
	assert_int_equal(snapshot_find_device(ss, "cpu_0")->ndumps, 3);
	assert_string_equal(dp[0].file, FIXTURES "/good/code.bin");
	assert_int_equal(dp[0].address, 0x8000);
	assert_int_equal(dp[0].length, 0x100);
	assert_true(dp[0].has_length);
	assert_null(dp[0].space);
	/* the second [dump] header starts a second dump */
	assert_string_equal(dp[1].file, FIXTURES "/good/data/rodata.bin");
	assert_int_equal(dp[1].address, 32768);
	assert_int_equal(dp[1].offset, 16);
	assert_int_equal(dp[1].length, 64);
	assert_string_equal(dp[1].space, "EL1N");
	assert_string_equal(dp[2].file, "/abs/other.bin");
	assert_int_equal(dp[2].address, 0x10000);
	assert_false(dp[2].has_length);
	snapshot_free(ss);
}

static void test_good_trace(void **state)
{
	const struct snapshot_source *src;
	struct snapshot *ss;

	(void)state;
	ss = open_ok(FIXTURES "/good");
	/* buffers= order, not section order; trailing comma ignored */
	assert_int_equal(snapshot_buffer_count(ss), 2);
	assert_string_equal(snapshot_buffer_at(ss, 0)->name, "ETB_0");
	assert_string_equal(snapshot_buffer_at(ss, 0)->file,
			    FIXTURES "/good/meta/../cstrace.bin");
	assert_string_equal(snapshot_buffer_at(ss, 1)->name, "ETB_1");
	assert_string_equal(snapshot_buffer_at(ss, 1)->file,
			    FIXTURES "/good/meta/stm.bin");
	assert_string_equal(snapshot_buffer_at(ss, 1)->format, "source_data");
	assert_int_equal(snapshot_source_count(ss), 1);
	src = snapshot_source_at(ss, 0);
	assert_string_equal(src->name, "ETM_0");
	assert_string_equal(src->buffer, "ETB_0");
	assert_string_equal(src->core, "cpu_0");
	snapshot_free(ss);
}

static void test_good_etm3_config(void **state)
{
	const struct snapshot_device *etm;
	struct etm3_config cfg;
	struct snapshot *ss;
	uint8_t id = 0;

	(void)state;
	ss = open_ok(FIXTURES "/good");
	etm = snapshot_find_device(ss, "ETM_0");
	/* type "etm3.3": ETMv3 whatever the case */
	assert_int_equal(snapshot_device_protocol(etm), etmkit_proto_etmv3);
	/* register names in any case, diag may be NULL */
	assert_int_equal(snapshot_etm3_config(etm, &cfg, &id, NULL), 0);
	assert_int_equal(cfg.etmcr, 0x1000);
	assert_int_equal(cfg.etmidr, 0x410CF230);
	assert_int_equal(cfg.etmccer, 0x34C01AC2);
	assert_int_equal(id, 290 & 0x7F); /* ETMTRACEIDR[6:0] */
	assert_int_equal(snapshot_etm3_config(NULL, &cfg, &id, NULL),
			 -etmkit_err_invalid);
	snapshot_free(ss);
}

static void test_null_arguments(void **state)
{
	struct snapshot *ss = NULL;
	struct snapshot_diag d;

	(void)state;
	assert_int_equal(snapshot_open(NULL, FIXTURES "/good", &d),
			 -etmkit_err_invalid);
	assert_int_equal(snapshot_open(&ss, NULL, NULL), -etmkit_err_invalid);
	assert_null(ss);
	snapshot_free(NULL);
	assert_int_equal(snapshot_device_count(NULL), 0);
	assert_null(snapshot_device_at(NULL, 0));
	assert_null(snapshot_find_buffer(NULL, "x"));
	assert_int_equal(snapshot_device_protocol(NULL), etmkit_proto_none);
}

/* ---- Broken fixtures ----------------------------------------------------- */

static void test_missing_snapshot_ini(void **state)
{
	struct snapshot_diag d;

	(void)state;
	d = open_fails(FIXTURES "/missing_snapshot", -etmkit_err_io);
	assert_string_equal(d.path, FIXTURES "/missing_snapshot/snapshot.ini");
	assert_int_equal(d.line, 0);
	assert_contains(d.message, "no such file");
	d = open_fails(FIXTURES "/no_such_folder", -etmkit_err_io);
	assert_contains(d.message, "no such file");
}

static void test_missing_device_file(void **state)
{
	struct snapshot_diag d;

	(void)state;
	d = open_fails(FIXTURES "/missing_device", -etmkit_err_io);
	assert_string_equal(d.path, FIXTURES "/missing_device/nothere.ini");
	assert_contains(d.message, "no such file");
	/* where it was named */
	assert_contains(d.message, "snapshot.ini line 6");
}

static void test_syntax_error(void **state)
{
	struct snapshot_diag d;

	(void)state;
	d = open_fails(FIXTURES "/syntax_error", -etmkit_err_format);
	assert_string_equal(d.path, FIXTURES "/syntax_error/etm.ini");
	assert_int_equal(d.line, 7);
	assert_contains(d.message, "syntax error");
}

static void test_bad_number(void **state)
{
	struct snapshot_diag d;

	(void)state;
	d = open_fails(FIXTURES "/bad_number", -etmkit_err_format);
	assert_string_equal(d.path, FIXTURES "/bad_number/cpu.ini");
	assert_int_equal(d.line, 8);
	assert_string_equal(d.message,
			    "bad number \"0xZZ\" for key address in [dump]");
}

static void test_missing_key(void **state)
{
	struct snapshot_diag d;

	(void)state;
	d = open_fails(FIXTURES "/missing_key", -etmkit_err_format);
	assert_string_equal(d.path, FIXTURES "/missing_key/cpu.ini");
	assert_int_equal(d.line, 10); /* the [dump2] header */
	assert_string_equal(d.message, "missing key address in [dump2]");
}

static void test_unknown_buffer(void **state)
{
	struct snapshot_diag d;

	(void)state;
	d = open_fails(FIXTURES "/unknown_buffer", -etmkit_err_format);
	assert_string_equal(d.path, FIXTURES "/unknown_buffer/trace.ini");
	assert_int_equal(d.line, 10);
	assert_contains(d.message, "unknown buffer ETB_9");
	assert_contains(d.message, "ETM_0");
	assert_contains(d.message, "[source_buffers]");
}

static void test_binary_junk(void **state)
{
	struct snapshot_diag d;

	(void)state;
	d = open_fails(FIXTURES "/binary_junk", -etmkit_err_format);
	assert_string_equal(d.path, FIXTURES "/binary_junk/junk.ini");
	assert_int_equal(d.line, 3);
	assert_contains(d.message, "binary");
}

static void test_empty_file(void **state)
{
	struct snapshot_diag d;

	(void)state;
	d = open_fails(FIXTURES "/empty_file", -etmkit_err_format);
	assert_string_equal(d.path, FIXTURES "/empty_file/snapshot.ini");
	assert_int_equal(d.line, 0);
	assert_contains(d.message, "[device_list]");
}

static void test_device_is_directory(void **state)
{
	struct snapshot_diag d;

	(void)state;
	d = open_fails(FIXTURES "/device_is_dir", -etmkit_err_io);
	assert_string_equal(d.path, FIXTURES "/device_is_dir/cpu.ini");
	assert_contains(d.message, "directory");
}

/* ---- Run-time snapshots: rarer damage and limits ------------------------- */

static void test_device_damage(void **state)
{
	(void)state;
	device_case("[device]\nclass=core\n", -etmkit_err_format, 0,
		    "missing key name in [device]");
	device_case("", -etmkit_err_format, 0, "missing key name");
	device_case("[device]\nname=a\nname=b\n", -etmkit_err_format, 3,
		    "duplicate key name in [device]");
	device_case("[device]\nname=a\n[regs]\nR0=1\nr0=2\n",
		    -etmkit_err_format, 5, "duplicate register r0");
	device_case("[device]\nname=a\n[regs]\nR0(0xQ)=1\n",
		    -etmkit_err_format, 4, "bad register offset");
	device_case("[device]\nname=a\n[regs]\nR0(1=1\n", -etmkit_err_format,
		    4, "bad register name");
	device_case("[device]\nname=a\n[regs]\nR0=0x10000000000000000\n",
		    -etmkit_err_format, 4, "bad number");
	device_case("[device]\nname=a\n[regs]\nR0=-1\n", -etmkit_err_format,
		    4, "R0");
	device_case("[device]\nname=a\n[dump]\nfile=x\naddress=1\n"
		    "address=2\n",
		    -etmkit_err_format, 6, "duplicate key address in [dump]");
	device_case("[device]\nname=a\n[dump]\nfile=\naddress=1\n",
		    -etmkit_err_format, 4, "empty value for key file");
	device_case("[device]\nname=a\n[dump]\nfile=x\n"
		    "address=0xFFFFFFFFFFFFFFF0\nlength=0x20\n",
		    -etmkit_err_format, 3, "past the top");
	device_case("[device\nname=a\n", -etmkit_err_format, 1,
		    "syntax error");
}

/* Files that are no text: too large, a FIFO (which would block). */
static void test_not_text_files(void **state)
{
	static const char *const names[] = { "dev.ini" };
	const char *texts[] = { "" };
	size_t size = ((size_t)4 << 20) + 2;
	char *big = malloc(size);
	char path[192];
	struct tmp_snapshot t;
	struct snapshot_diag d[2];
	struct snapshot *ss[2];
	int rc[2], fifo;

	(void)state;
	assert_non_null(big);
	memset(big, ';', size - 1);
	big[size - 1] = '\0';
	tmp_make(&t, "[device_list]\ndevice0=dev.ini\n", names, texts, 1);
	tmp_write(&t, "dev.ini", big);
	free(big);
	rc[0] = snapshot_open(&ss[0], t.dir, &d[0]);
	snprintf(path, sizeof(path), "%s/dev.ini", t.dir);
	unlink(path);
	fifo = mkfifo(path, 0600);
	rc[1] = snapshot_open(&ss[1], t.dir, &d[1]);
	tmp_remove(&t);
	check_failed(t.dir, rc[0], ss[0], &d[0], -etmkit_err_format);
	assert_ends_with(d[0].path, "/dev.ini");
	assert_contains(d[0].message, "too large");
	assert_int_equal(fifo, 0);
	check_failed(t.dir, rc[1], ss[1], &d[1], -etmkit_err_io);
	assert_contains(d[1].message, "not a regular file");
}

static void test_duplicate_device(void **state)
{
	static const char *const names[] = { "a.ini", "b.ini" };
	const char *texts[] = { "[device]\nname=cpu_0\n",
				"; same name\n[device]\nname=cpu_0\n" };
	struct tmp_snapshot t;
	struct snapshot_diag d;

	(void)state;
	tmp_make(&t, "[device_list]\nx=a.ini\ny=b.ini\n", names, texts, 2);
	d = tmp_open_fails(&t, -etmkit_err_format);
	assert_ends_with(d.path, "/b.ini");
	assert_int_equal(d.line, 3);
	assert_contains(d.message, "duplicate device name cpu_0");
}

static void test_trace_damage(void **state)
{
	static const char buf0[] = "[buffer0]\nname=ETB_0\nfile=t.bin\n"
				   "format=coresight\n";
	char text[512];

	(void)state;
	trace_case("[source_buffers]\nETM_0=ETB_0\n", -etmkit_err_format, 0,
		   "missing key buffers in [trace_buffers]");
	trace_case("[trace_buffers]\nbuffers=buffer0, buffer7\n[buffer0]\n"
		   "name=ETB_0\nfile=t.bin\nformat=coresight\n",
		   -etmkit_err_format, 2, "[buffer7]");
	trace_case("[trace_buffers]\nbuffers=buffer0\n[buffer0]\nname=ETB_0\n"
		   "file=t.bin\n",
		   -etmkit_err_format, 3, "missing key format in [buffer0]");
	snprintf(text, sizeof(text),
		 "[trace_buffers]\nbuffers=buffer0\n%s[source_buffers]\n"
		 "ETM_0=ETB_0\nETM_0=ETB_0\n",
		 buf0);
	trace_case(text, -etmkit_err_format, 9, "duplicate source ETM_0");
	snprintf(text, sizeof(text),
		 "[trace_buffers]\nbuffers=buffer0\n%s[source_buffers]\n"
		 "ETM_0=ETB_0\n[core_trace_sources]\ncpu_0=ETM_0\n"
		 "cpu_0=ETM_0\n",
		 buf0);
	trace_case(text, -etmkit_err_format, 11,
		   "source ETM_0 already has core cpu_0");
	snprintf(text, sizeof(text),
		 "[trace_buffers]\nbuffers=buffer0, buffer0\n%s", buf0);
	trace_case(text, -etmkit_err_format, 2, "listed twice");
	snprintf(text, sizeof(text),
		 "[trace_buffers]\nbuffers=buffer0, buffer1\n%s"
		 "[buffer1]\nname=ETB_0\nfile=u.bin\nformat=coresight\n",
		 buf0);
	trace_case(text, -etmkit_err_format, 7,
		   "duplicate buffer name ETB_0");
}

static void test_repeated_trace_section(void **state)
{
	(void)state;
	/* Two [buffer0] headers are two sections, not one. */
	trace_case("[trace_buffers]\nbuffers=buffer0\n[buffer0]\nname=ETB_0\n"
		   "[buffer0]\nfile=t.bin\nformat=coresight\n",
		   -etmkit_err_format, 5, "appears twice");
}

static void test_long_line(void **state)
{
	char text[512];

	(void)state;
	/* inih's line buffer is 200 bytes: longer lines are refused, not
	 * split in two. */
	memset(text, 0, sizeof(text));
	strcpy(text, "[device]\nname=a\n[dump]\nfile=");
	memset(text + strlen(text), 'x', 300);
	strcat(text, "\naddress=0\n");
	device_case(text, -etmkit_err_format, 4, "line longer than");
	memset(text, 0, sizeof(text));
	strcpy(text, "[device]\nname=a\n[dump");
	memset(text + strlen(text), 'y', 60);
	strcat(text, "]\nfile=a\naddress=0\n");
	device_case(text, -etmkit_err_format, 3, "section name longer");
}

/* A CRLF file with a BOM, a continuation line and a dump section header
 * after keys of another section. */
static void test_crlf_bom(void **state)
{
	static const char *const names[] = { "dev.ini" };
	const char *texts[] = { "\xEF\xBB\xBF[device]\r\nname=cpu_0\r\n"
				"type=ETM3.5\r\n[dump]\r\nfile=a.bin\r\n"
				"address=0x10\r\n[dump]\r\nfile=b.bin\r\n"
				"address=0x20\r\n" };
	const struct snapshot_device *dev;
	struct tmp_snapshot t;
	struct snapshot *ss;

	(void)state;
	tmp_make(&t, "[device_list]\r\ndevice0=dev.ini\r\n", names, texts, 1);
	ss = tmp_open_ok(&t);
	dev = snapshot_device_at(ss, 0);
	assert_string_equal(dev->name, "cpu_0");
	assert_int_equal(dev->ndumps, 2);
	assert_ends_with(dev->dumps[0].file, "/a.bin");
	assert_int_equal(dev->dumps[1].address, 0x20);
	assert_int_equal(snapshot_buffer_count(ss), 0);
	assert_int_equal(snapshot_source_count(ss), 0);
	snapshot_free(ss);
}

static void test_too_many_devices(void **state)
{
	static const char *const names[] = { "dev.ini" };
	const char *texts[] = { "[device]\nname=cpu_0\n" };
	size_t size = 4200 * 24 + 32, n;
	struct tmp_snapshot t;
	struct snapshot_diag d;
	char *top = malloc(size);
	int i;

	(void)state;
	assert_non_null(top);
	n = (size_t)snprintf(top, size, "[device_list]\n");
	for (i = 0; i < 4097; i++)
		n += (size_t)snprintf(top + n, size - n, "d%d=dev.ini\n", i);
	tmp_make(&t, top, names, texts, 1);
	free(top);
	d = tmp_open_fails(&t, -etmkit_err_format);
	assert_ends_with(d.path, "/snapshot.ini");
	assert_int_equal(d.line, 4098);
	assert_contains(d.message, "more than 4096 devices");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tc2_devices),
		cmocka_unit_test(test_tc2_buffers_sources),
		cmocka_unit_test(test_tc2_etm_regs),
		cmocka_unit_test(test_tc2_missing_etm_reg),
		cmocka_unit_test(test_tc2_dump),
		cmocka_unit_test(test_all_shared_snapshots),
		cmocka_unit_test(test_good_devices),
		cmocka_unit_test(test_good_regs),
		cmocka_unit_test(test_good_dumps),
		cmocka_unit_test(test_good_trace),
		cmocka_unit_test(test_good_etm3_config),
		cmocka_unit_test(test_null_arguments),
		cmocka_unit_test(test_missing_snapshot_ini),
		cmocka_unit_test(test_missing_device_file),
		cmocka_unit_test(test_syntax_error),
		cmocka_unit_test(test_bad_number),
		cmocka_unit_test(test_missing_key),
		cmocka_unit_test(test_unknown_buffer),
		cmocka_unit_test(test_binary_junk),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_device_is_directory),
		cmocka_unit_test(test_device_damage),
		cmocka_unit_test(test_not_text_files),
		cmocka_unit_test(test_duplicate_device),
		cmocka_unit_test(test_trace_damage),
		cmocka_unit_test(test_repeated_trace_section),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_crlf_bom),
		cmocka_unit_test(test_too_many_devices),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	return test_exit(failed, shared_missing());
}
