/* Unit tests of the perf.data side-band (include/etmkit/perf_maps.h):
 * MMAP, MMAP2, COMM and FORK records replayed into maps, and simpleperf's
 * FILE2 feature. Files are built byte by byte (perf_builder.h) from the
 * digest (../shared/spec/perf-data.md, sections cited beside each
 * builder). Split from test_perf.c (issue 17). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "etmkit/perf.h"
#include "etmkit/perf_maps.h"
#include "test_util.h"
#include "perf_builder.h"

/* ---- side-band (include/etmkit/perf_maps.h) ------------------------------- */

/* MMAP (digest 2.1): pid, tid, start, len, pgoff, name + trailer. */
static void rec_mmap(struct buf *b, uint16_t misc, uint32_t pid,
		     uint64_t start, uint64_t len, uint64_t pgoff,
		     const char *name)
{
	size_t at = begin(b, 1, misc);

	u32(b, pid); u32(b, 0);
	u64(b, start); u64(b, len); u64(b, pgoff);
	pad_string(b, name);
	trailer(b, pid, 0, 1, 0);
	end_rec(b, at);
}

/* FORK (digest 2.1): pid, ppid, tid, ptid, time + trailer. */
static void rec_fork(struct buf *b, uint32_t pid, uint32_t ppid, uint32_t tid)
{
	size_t at = begin(b, 7, 0);

	u32(b, pid); u32(b, ppid); u32(b, tid); u32(b, ppid); u64(b, 3);
	trailer(b, pid, tid, 3, 0);
	end_rec(b, at);
}

/* linux_records() replayed: pid 100 maps prog (exec, build id A0..AF) and
 * libc (prot 5), then execs (COMM_EXEC): a second, empty process image.
 * Added here: a kernel map (pid -1, misc KERNEL, pgoff = runtime _text),
 * a module map, a data map (MMAP_DATA: not executable), a map wrapping
 * past 2^64 (skipped, counted), thread 102 forked into pid 100, and pid
 * 200 forked from 100 (a copy of the exec'd image's maps: none), which
 * maps /bin/sh. */
static void test_maps_replay(void **state)
{
	struct buf r, f;
	struct file_opts o = { 0 };
	struct perf_file *pf;
	struct perf_maps *m;
	struct perf_diag d;
	const struct perf_process *p;
	const struct perf_binary *b;
	size_t comm_at = 0;
	long ki, mi;

	(void)state;
	linux_records(&r);
	rec_mmap(&r, 1, 0xFFFFFFFFu, 0xffff800010000000ull, 0x1000000,
		 0xffff800010010000ull, "[kernel.kallsyms]_text");
	rec_mmap(&r, 1, 0xFFFFFFFFu, 0xffff800020000000ull, 0x5000, 0,
		 "/lib/modules/m.ko");
	rec_mmap(&r, 2 | PERF_MISC_MMAP_DATA, 100, 0x900000, 0x1000, 0,
		 "/data/x");
	rec_mmap(&r, 2, 100, 0xfffffffffffff000ull, 0x2000, 0, "/wrap");
	rec_fork(&r, 100, 100, 102);
	rec_fork(&r, 200, 100, 200);
	rec_mmap(&r, 2, 200, 0x10000, 0x1000, 0, "/bin/sh");
	build_file(&f, &r, &o);
	pf = open_ok(&f);
	assert_int_equal(perf_maps_open(&m, pf, &d), 0);
	assert_int_equal(perf_maps_bad_records(m), 1);
	assert_true(d.has_offset);
	assert_int_equal(perf_maps_process_count(m), 3);
	p = perf_maps_process(m, 0);
	assert_int_equal(p->pid, 100);
	assert_int_equal(p->nmaps, 2);
	assert_int_equal(p->maps[0].start, 0x400000);
	assert_int_equal(p->maps[0].pgoff, 0x1000);
	assert_int_equal(p->maps[1].start, 0x7f0000);
	b = perf_maps_binary(m, p->maps[0].binary);
	assert_string_equal(b->name, "/data/local/tmp/prog");
	assert_int_equal(b->kind, perf_bin_user);
	assert_int_equal(b->build_id_size, 16);   /* the MMAP2's, not the */
	assert_int_equal(b->build_id[0], 0xA0);   /* BUILD_ID feature's   */
	b = perf_maps_binary(m, p->maps[1].binary);
	assert_int_equal(b->build_id_size, 0);
	p = perf_maps_process(m, 1);              /* after the exec */
	assert_int_equal(p->pid, 100);
	assert_int_equal(p->nmaps, 0);
	assert_string_equal(p->comm, "prog");
	comm_at = p->begin_offset;
	assert_true(comm_at > 0);
	p = perf_maps_process(m, 2);
	assert_int_equal(p->pid, 200);
	assert_int_equal(p->nmaps, 1);
	assert_string_equal(perf_maps_binary(m, p->maps[0].binary)->name,
			    "/bin/sh");
	/* threads */
	assert_int_equal(perf_maps_pid_of(m, 101), 100);
	assert_int_equal(perf_maps_pid_of(m, 102), 100);
	assert_int_equal(perf_maps_pid_of(m, 555), 555);
	assert_ptr_equal(perf_maps_process_at(m, 101, comm_at),
			 perf_maps_process(m, 0));
	assert_ptr_equal(perf_maps_process_at(m, 102, comm_at + 1),
			 perf_maps_process(m, 1));
	assert_null(perf_maps_process_at(m, 555, 0));
	/* kernel maps */
	assert_int_equal(perf_maps_kernel_map_count(m), 2);
	ki = perf_maps_find_binary(m, "[kernel.kallsyms]");
	mi = perf_maps_find_binary(m, "/lib/modules/m.ko");
	assert_true(ki >= 0 && mi >= 0);
	assert_int_equal(perf_maps_binary(m, (size_t)ki)->kind, perf_bin_kernel);
	assert_int_equal(perf_maps_binary(m, (size_t)mi)->kind, perf_bin_module);
	assert_int_equal(perf_maps_find_binary(m, "/data/x"), -1);
	assert_int_equal(perf_maps_find_binary(m, "/wrap"), -1);
	assert_ptr_equal(perf_maps_find_map(m, NULL, 0xffff800020000010ull),
			 perf_maps_kernel_map(m, 1));
	assert_ptr_equal(perf_maps_find_map(m, perf_maps_process(m, 0),
					    0x400010),
			 &perf_maps_process(m, 0)->maps[0]);
	assert_null(perf_maps_find_map(m, perf_maps_process(m, 1), 0x400010));
	/* No files: every binary missing, images without regions. */
	assert_int_equal(perf_maps_build_images(m), -etmkit_err_invalid);
	assert_int_equal(perf_maps_resolve(m, NULL), 0);
	assert_int_equal(perf_maps_binary(m, (size_t)ki)->status,
			 perf_bin_missing);
	assert_int_equal(perf_maps_build_images(m), 0);
	assert_non_null(perf_maps_kernel_image(m));
	assert_ptr_equal(perf_maps_image_for_tid(m, 555, 0),
			 perf_maps_kernel_image(m));
	assert_ptr_equal(perf_maps_image_for_tid(m, 200, 0),
			 perf_maps_process(m, 2)->image);
	assert_int_equal(image_region_count(perf_maps_process(m, 2)->image), 0);
	perf_maps_free(m);
	perf_file_free(pf);
}

/* A thread forked (pid == ppid) into a process that no record began:
 * pid 300's thread 200, where 200 was a process of its own before (its
 * pid reused as a thread id). Thread 200 now belongs to process 300,
 * which must exist (empty), so every thread's process is found; found
 * by fuzz_perf, whose check process_at(pid) != NULL failed. */
static void test_maps_thread_fork(void **state)
{
	struct buf r, f;
	struct file_opts o = { 0 };
	struct perf_file *pf;
	struct perf_maps *m;
	const struct perf_process *p;

	(void)state;
	r.n = 0;
	rec_mmap(&r, 2, 200, 0x10000, 0x1000, 0, "/bin/sh");
	rec_fork(&r, 300, 300, 200);
	build_file(&f, &r, &o);
	pf = open_ok(&f);
	assert_int_equal(perf_maps_open(&m, pf, NULL), 0);
	assert_int_equal(perf_maps_pid_of(m, 200), 300);
	assert_int_equal(perf_maps_process_count(m), 2);
	p = perf_maps_process_at(m, 200, UINT64_MAX);
	assert_non_null(p);
	assert_int_equal(p->pid, 300);
	assert_int_equal(p->nmaps, 0);
	assert_ptr_equal(perf_maps_process_at(m, 300, 0), p);
	perf_maps_free(m);
	perf_file_free(pf);
}

static void pb_varint(struct buf *b, uint64_t v)
{
	while (v >= 0x80) {
		u8(b, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	u8(b, (uint8_t)v);
}

/* A FileFeature (digest 1.4 bit 132): 1 path, 2 type, 3 min_vaddr,
 * 4 a symbol (skipped), 7 kernel_module {1 memory_offset_of_min_vaddr}. */
static void file2_entry(struct buf *b, const char *path, uint64_t moff)
{
	struct buf e = { .n = 0 }, km = { .n = 0 };

	u8(&e, 1 << 3 | 2); pb_varint(&e, strlen(path)); put(&e, path, strlen(path));
	u8(&e, 2 << 3); pb_varint(&e, 1);
	u8(&e, 3 << 3); pb_varint(&e, 0x40);
	u8(&e, 4 << 3 | 2); pb_varint(&e, 4); u8(&e, 1 << 3); u8(&e, 5);
	u8(&e, 3 << 3 | 2); u8(&e, 0);  /* an empty name */
	u8(&km, 1 << 3); pb_varint(&km, moff);
	u8(&e, 7 << 3 | 2); pb_varint(&e, km.n); put(&e, km.d, km.n);
	u32(b, (uint32_t)e.n);
	put(b, e.d, e.n);
}

/* simpleperf's FILE2: entries by path; a malformed entry (a length past
 * its end) is skipped and counted, the next still read; a section cut
 * inside an entry or with a length past the section loses the rest,
 * counted once. Never a failure. */
static void test_maps_file2(void **state)
{
	struct buf r, f, s2;
	struct file_opts o = { .simpleperf = 1, .file2 = &s2 };
	struct perf_file *pf;
	struct perf_maps *m;
	const struct perf_binary *b;
	long mi;

	(void)state;
	for (int variant = 0; variant < 3; variant++) {
		r.n = 0;
		rec_mmap(&r, 1, 0xFFFFFFFFu, 0xffff800020000000ull, 0x5000, 0,
			 "/lib/modules/m.ko");
		s2.n = 0;
		if (variant == 1) {   /* a bogus inner length first: */
			u32(&s2, 4);  /* path of 200 bytes in a 4-byte entry */
			u8(&s2, 1 << 3 | 2); pb_varint(&s2, 200);
			u8(&s2, 0);
		}
		file2_entry(&s2, "/lib/modules/m.ko", 4096);
		if (variant == 2) {   /* a length past the section */
			u32(&s2, 1000);
			u8(&s2, 1 << 3);
		}
		build_file(&f, &r, &o);
		pf = open_ok(&f);
		assert_int_equal(perf_maps_open(&m, pf, NULL), 0);
		assert_int_equal(perf_maps_bad_records(m), variant ? 1 : 0);
		mi = perf_maps_find_binary(m, "/lib/modules/m.ko");
		assert_true(mi >= 0);
		b = perf_maps_binary(m, (size_t)mi);
		assert_true(b->has_file2);
		assert_int_equal(b->file2_type, 1);
		assert_int_equal(b->min_vaddr, 0x40);
		assert_int_equal(b->memory_offset_of_min_vaddr, 4096);
		perf_maps_free(m);
		perf_file_free(pf);
	}
	/* Every truncation of a FILE2 section: no crash, the entry either
	 * read whole or counted bad. */
	s2.n = 0;
	file2_entry(&s2, "/lib/modules/m.ko", 4096);
	for (size_t cut = 0; cut < s2.n; cut++) {
		struct buf t = s2;

		t.n = cut;
		o.file2 = &t;
		build_file(&f, &r, &o);
		pf = open_ok(&f);
		assert_int_equal(perf_maps_open(&m, pf, NULL), 0);
		assert_int_equal(perf_maps_bad_records(m), cut ? 1 : 0);
		b = perf_maps_binary(m, 0);
		assert_false(b->has_file2);
		perf_maps_free(m);
		perf_file_free(pf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps_replay),
		cmocka_unit_test(test_maps_file2),
		cmocka_unit_test(test_maps_thread_fork),
	};

	return cmocka_run_group_tests(tests, NULL, NULL) ? 1 : 0;
}
