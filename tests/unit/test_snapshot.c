/* Unit tests of the snapshot reader (src/snapshot/snapshot.c).
 *
 * - the real TC2 capture (ETMv3/PTM) from ../shared, every field checked;
 * - every snapshot folder under ../shared/testdata must open;
 * - hand-written fixtures in tests/data/snapshots (one good snapshot using
 *   the format's variations, one folder per kind of damage);
 * - small snapshots written to a temporary folder at run time, for limits
 *   and rarer damage.
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

#define TC2_DIR ETMKIT_SHARED_DIR "/testdata/etmv3/TC2"
#define FIXTURES ETMKIT_TEST_DATA "/snapshots"

/* ---- Helpers ------------------------------------------------------------- */

static int shared_missing(void)
{
	struct stat st;

	return stat(TC2_DIR "/snapshot.ini", &st) != 0;
}

/* Skip a test that needs ../shared when it is absent; fail under CI. */
static void need_shared(void)
{
	test_need(shared_missing(), TC2_DIR);
}


/* Check the outcome of a snapshot_open() of @dir expected to fail with
 * @err: no snapshot, and a message. */
static void check_failed(const char *dir, int rc, struct snapshot *ss,
			 const struct snapshot_diag *d, int err)
{
	if (rc != err)
		fail_msg("snapshot_open(%s) = %d, expected %d (%s:%d: %s)", dir,
			 rc, err, d->path, d->line, d->message);
	assert_null(ss);
	assert_true(d->message[0] != '\0');
}

/* Open @dir expecting failure @err; returns the diag for more checks. */
static struct snapshot_diag open_fails(const char *dir, int err)
{
	struct snapshot *ss = (struct snapshot *)&ss; /* must become NULL */
	struct snapshot_diag d;
	int rc = snapshot_open(&ss, dir, &d);

	check_failed(dir, rc, ss, &d, err);
	return d;
}

static void check_opened(const char *dir, int rc, struct snapshot *ss,
			 const struct snapshot_diag *d)
{
	if (rc != 0)
		fail_msg("snapshot_open(%s) = %d: %s:%d: %s", dir, rc, d->path,
			 d->line, d->message);
	assert_non_null(ss);
	assert_string_equal(d->message, "");
}

static struct snapshot *open_ok(const char *dir)
{
	struct snapshot *ss = NULL;
	struct snapshot_diag d;
	int rc = snapshot_open(&ss, dir, &d);

	check_opened(dir, rc, ss, &d);
	return ss;
}

/* ---- Temporary snapshots ------------------------------------------------- */

struct tmp_snapshot {
	char dir[64];
	char names[8][64]; /* files to remove (repeats are harmless) */
	int n;
};

static void tmp_write(struct tmp_snapshot *t, const char *name,
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
static void tmp_make(struct tmp_snapshot *t, const char *top,
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

static void tmp_remove(struct tmp_snapshot *t)
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
static struct snapshot_diag tmp_open_fails(struct tmp_snapshot *t, int err)
{
	struct snapshot *ss = (struct snapshot *)&ss;
	struct snapshot_diag d;
	int rc = snapshot_open(&ss, t->dir, &d);

	tmp_remove(t);
	check_failed(t->dir, rc, ss, &d, err);
	return d;
}

static struct snapshot *tmp_open_ok(struct tmp_snapshot *t)
{
	struct snapshot *ss = NULL;
	struct snapshot_diag d;
	int rc = snapshot_open(&ss, t->dir, &d);

	tmp_remove(t);
	check_opened(t->dir, rc, ss, &d);
	return ss;
}

static const char etm_ini[] = "[device]\nname=ETM_0\nclass=trace_source\n"
			      "type=ETM3.5\n[regs]\nETMCR=0x1000\n";
static const char cpu_ini[] = "[device]\nname=cpu_0\nclass=core\n"
			      "type=Cortex-A7\n";
static const char top_two[] = "[device_list]\nd0=cpu.ini\nd1=etm.ini\n"
			      "[trace]\nmetadata=trace.ini\n";

/* Open a temporary snapshot of cpu.ini, etm.ini and trace.ini = @trace,
 * expecting @err; checks the diag names trace.ini, line @line and holds
 * @part. */
static void trace_case(const char *trace, int err, int line, const char *part)
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
static void device_case(const char *dev, int err, int line, const char *part)
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

static void test_missing_etm3_register(void **state)
{
	static const char *const names[] = { "etm.ini" };
	const char *texts[] = { "[device]\nname=ETM_0\ntype=ETM3.5\n[regs]\n"
				"ETMCR=0x1000\nETMIDR=0x410CF250\n"
				"ETMTRACEIDR=0x10\n" };
	struct tmp_snapshot t;
	struct snapshot_diag d;
	struct etm3_config cfg;
	struct snapshot *ss;
	uint8_t id = 0;

	(void)state;
	tmp_make(&t, "[device_list]\ndevice0=etm.ini\n", names, texts, 1);
	ss = tmp_open_ok(&t);
	assert_int_equal(snapshot_etm3_config(snapshot_device_at(ss, 0), &cfg,
					      &id, &d),
			 -etmkit_err_format);
	assert_ends_with(d.path, "/etm.ini");
	assert_contains(d.message, "ETMCCER");
	snapshot_free(ss);
}

/* ---- ETMv4 and ETE devices ------------------------------------------------ */

/* An ETMv4.1 with offsets on its register names (as DS-5 writes them), an
 * ETE with bare names, and a device of a protocol this version does not
 * know. */
static const char etm41_ini[] =
	"[device]\nname=ETM_A\nclass=trace_source\ntype=ETM4.1\n[regs]\n"
	"TRCCONFIGR(id:0x4)=0x00000001\nTRCTRACEIDR(id:0x10)=0x00000090\n"
	"TRCIDR8(id:0x60)=0x00000002\nTRCIDR9(id:0x61)=9\n"
	"TRCIDR10(id:0x62)=10\nTRCIDR11(id:0x63)=11\nTRCIDR12(id:0x64)=12\n"
	"TRCIDR13(id:0x65)=13\nTRCIDR0(id:0x78)=0x08000CA1\n"
	"TRCIDR1(id:0x79)=0x4200F410\nTRCIDR2(id:0x7A)=0x20001088\n"
	"TRCACVR0(id:0x100,size:64)=0xFFFFFFFFFFFFFFFF\n";
static const char ete_ini[] =
	"[device]\nname=ETE_B\nclass=trace_source\ntype=ete\n[regs]\n"
	"trcconfigr=0x1\nTRCTRACEIDR=0x2\nTRCDEVARCH=0x47705a13\n"
	"TRCIDR0=0x8000aa1\nTRCIDR1=0x4100fff0\nTRCIDR2=0xc0001088\n"
	"TRCIDR8=0x000\n";
static const char etm4_top[] = "[device_list]\nd0=a.ini\nd1=b.ini\nd2=c.ini\n";

static void test_etm4_ete_config(void **state)
{
	static const char *const names[] = { "a.ini", "b.ini", "c.ini" };
	const char *texts[] = { etm41_ini, ete_ini,
				"[device]\nname=PTM_C\ntype=PTM1.1\n" };
	const struct snapshot_device *a, *b;
	struct tmp_snapshot t;
	struct snapshot_diag d;
	struct etm4_config cfg;
	struct snapshot *ss;
	uint8_t id = 0;

	(void)state;
	tmp_make(&t, etm4_top, names, texts, 3);
	ss = tmp_open_ok(&t);
	a = snapshot_find_device(ss, "ETM_A");
	b = snapshot_find_device(ss, "ETE_B");
	assert_int_equal(snapshot_device_protocol(a), etmkit_proto_etmv4);
	assert_int_equal(snapshot_device_protocol(b), etmkit_proto_ete);
	assert_int_equal(snapshot_device_protocol(
				 snapshot_find_device(ss, "PTM_C")),
			 etmkit_proto_none);

	memset(&cfg, 0xAA, sizeof(cfg));
	assert_int_equal(snapshot_etm4_config(a, &cfg, &id, &d), 0);
	assert_string_equal(d.message, "");
	assert_int_equal(cfg.size, sizeof(cfg));
	assert_int_equal(cfg.trcidr0, 0x08000CA1);
	assert_int_equal(cfg.trcidr1, 0x4200F410);
	assert_int_equal(cfg.trcidr2, 0x20001088);
	assert_int_equal(cfg.trcidr8, 2);
	assert_int_equal(cfg.trcidr9, 9);
	assert_int_equal(cfg.trcidr10, 10);
	assert_int_equal(cfg.trcidr11, 11);
	assert_int_equal(cfg.trcidr12, 12);
	assert_int_equal(cfg.trcidr13, 13);
	assert_int_equal(cfg.trcconfigr, 1);
	assert_int_equal(cfg.trcdevarch, 0);   /* optional, absent */
	assert_int_equal(cfg.flags, 0);
	assert_int_equal(id, 0x10);            /* TRCTRACEIDR[6:0] of 0x90 */

	memset(&cfg, 0xAA, sizeof(cfg));
	assert_int_equal(snapshot_etm4_config(b, &cfg, &id, NULL), 0);
	assert_int_equal(cfg.trcidr0, 0x8000aa1);
	assert_int_equal(cfg.trcidr1, 0x4100fff0);
	assert_int_equal(cfg.trcidr2, 0xc0001088);
	assert_int_equal(cfg.trcidr8, 0);
	assert_int_equal(cfg.trcidr9, 0);      /* optional: 0 */
	assert_int_equal(cfg.trcidr13, 0);
	assert_int_equal(cfg.trcdevarch, 0x47705a13);
	assert_int_equal(cfg.trcconfigr, 1);
	assert_int_equal(cfg.flags, ETM4_CFG_ETE);
	assert_int_equal(id, 2);

	assert_int_equal(snapshot_etm4_config(NULL, &cfg, &id, &d),
			 -etmkit_err_invalid);
	assert_int_equal(snapshot_etm4_config(a, NULL, &id, &d),
			 -etmkit_err_invalid);
	assert_int_equal(snapshot_etm4_config(a, &cfg, NULL, NULL),
			 -etmkit_err_invalid);
	snapshot_free(ss);
}

/* One damaged ETE device: register @bad is missing (if @text lacks it) or
 * too wide; the error names the file and the register. */
static void etm4_reg_case(const char *text, const char *bad)
{
	static const char *const names[] = { "e.ini" };
	const char *texts[] = { text };
	struct tmp_snapshot t;
	struct snapshot_diag d;
	struct etm4_config cfg;
	struct snapshot *ss;
	uint8_t id = 0x55;

	tmp_make(&t, "[device_list]\nd0=e.ini\n", names, texts, 1);
	ss = tmp_open_ok(&t);
	assert_int_equal(snapshot_etm4_config(snapshot_device_at(ss, 0), &cfg,
					      &id, &d),
			 -etmkit_err_format);
	assert_ends_with(d.path, "/e.ini");
	assert_contains(d.message, bad);
	assert_contains(d.message, "ETE_0");
	assert_int_equal(id, 0x55);            /* untouched on failure */
	snapshot_free(ss);
}

static void test_etm4_missing_or_wide_register(void **state)
{
	static const char *const required[] = { "TRCIDR0", "TRCIDR1",
						"TRCIDR2", "TRCIDR8",
						"TRCCONFIGR", "TRCTRACEIDR" };
	char text[512];

	(void)state;
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		size_t n = (size_t)snprintf(text, sizeof(text),
			"[device]\nname=ETE_0\ntype=ETE\n[regs]\n");

		for (size_t j = 0; j < sizeof(required) / sizeof(required[0]); j++)
			if (j != i)
				n += (size_t)snprintf(text + n, sizeof(text) - n,
						      "%s=0x1\n", required[j]);
		etm4_reg_case(text, required[i]);
		/* present but wider than 32 bits */
		snprintf(text + n, sizeof(text) - n, "%s(size:64)=0x100000000\n",
			 required[i]);
		etm4_reg_case(text, required[i]);
	}
	/* optional registers are checked for width too */
	snprintf(text, sizeof(text),
		 "[device]\nname=ETE_0\ntype=ETE\n[regs]\nTRCIDR0=1\n"
		 "TRCIDR1=1\nTRCIDR2=1\nTRCIDR8=1\nTRCCONFIGR=1\n"
		 "TRCTRACEIDR=1\nTRCDEVARCH=0x1FFFFFFFF\n");
	etm4_reg_case(text, "TRCDEVARCH");
}

/* Every ETM4.x and ETE device of the shared captures: the protocol from
 * its type and a configuration from its registers. */
static void etm4_devices_below(const char *dir, int *count)
{
	char path[1024];
	struct dirent *e;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		struct snapshot *ss;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		ss = open_ok(path);
		for (size_t i = 0; i < snapshot_device_count(ss); i++) {
			const struct snapshot_device *dev =
				snapshot_device_at(ss, i);
			enum etmkit_protocol p = snapshot_device_protocol(dev);
			struct snapshot_diag diag;
			struct etm4_config cfg;
			uint8_t id;

			/* STM sources (software trace) are not ETMs */
			if (strcmp(dev->klass, "trace_source") != 0 ||
			    !strcmp(dev->type, "STM"))
				continue;
			assert_true(p == etmkit_proto_etmv4 ||
				    p == etmkit_proto_ete);
			if (snapshot_etm4_config(dev, &cfg, &id, &diag) != 0)
				fail_msg("%s: %s", diag.path, diag.message);
			assert_int_equal(!!(cfg.flags & ETM4_CFG_ETE),
					 p == etmkit_proto_ete);
			(*count)++;
		}
		snapshot_free(ss);
	}
	closedir(d);
}

static void test_shared_etm4_devices(void **state)
{
	const struct snapshot_device *dev;
	struct etm4_config cfg;
	struct snapshot *ss;
	int count = 0;
	uint8_t id = 0;

	(void)state;
	need_shared();
	etm4_devices_below(ETMKIT_SHARED_DIR "/testdata/etmv4", &count);
	etm4_devices_below(ETMKIT_SHARED_DIR "/testdata/ete", &count);
	/* 10 ETMv4 and 25 ETE devices when written */
	assert_int_equal(count, 35);

	ss = open_ok(ETMKIT_SHARED_DIR "/testdata/etmv4/juno_r1_1");
	dev = snapshot_find_device(ss, "ETM_3");
	assert_non_null(dev);
	assert_int_equal(snapshot_etm4_config(dev, &cfg, &id, NULL), 0);
	assert_int_equal(cfg.trcidr0, 0x28000EA1);
	assert_int_equal(cfg.trcidr1, 0x4100F403);
	assert_int_equal(cfg.trcidr2, 0x00000488);
	assert_int_equal(cfg.trcconfigr, 0xC1);
	assert_int_equal(cfg.flags, 0);
	assert_int_equal(id, 0x13);
	snapshot_free(ss);
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
		cmocka_unit_test(test_dangling_names),
		cmocka_unit_test(test_coreless_source),
		cmocka_unit_test(test_empty_dumps),
		cmocka_unit_test(test_repeated_trace_section),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_crlf_bom),
		cmocka_unit_test(test_too_many_devices),
		cmocka_unit_test(test_missing_etm3_register),
		cmocka_unit_test(test_etm4_ete_config),
		cmocka_unit_test(test_etm4_missing_or_wide_register),
		cmocka_unit_test(test_shared_etm4_devices),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	return test_exit(failed, shared_missing());
}
