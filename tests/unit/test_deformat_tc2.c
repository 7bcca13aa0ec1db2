/* Unit tests of the transport layer on a real capture: the TC2 ETB
 * capture in ../shared (2048 CoreSight frames) against OpenCSD's packet
 * listing. Split from test_deformat.c (issue 17); the fixtures are in
 * deformat_fixture.h. Without ../shared the tests are skipped (exit 77),
 * unless CI=true, when they fail.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "unit/test_util.h"
#include "unit/deformat_fixture.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/transport.h"
#include "ts_session.h"

/* ---- Real capture: TC2 ETB, 2048 frames, ETMv3 0x10-0x12, PTM 0x13-0x14,
 * ITM 0x20 configured. */

#define TC2_DIR ETMKIT_SHARED_DIR "/testdata/etmv3/TC2"
#define TC2_PPL TC2_DIR "/ocsd-1.8.0-decode.ppl"

static uint8_t *need_file(const char *path, size_t *n)
{
	uint8_t *buf = ts_read_file(path, n);

	if (buf)
		return buf;
	if (test_in_ci())
		fail_msg("%s is missing (required when CI=true)", path);
	print_message("skipping: %s not found\n", path);
	skip();
	return NULL;
}

static void tc2_decode(const uint8_t *file, size_t n, size_t chunk,
		       struct rec *r, struct deformat_stats *st)
{
	struct deformatter *d = mk(deformat_coresight, r, false);
	size_t i;

	for (i = 0; i < n; i += chunk)
		assert_int_equal(deformat_feed(d, file + i,
					       n - i < chunk ? n - i : chunk),
				 0);
	assert_int_equal(deformat_finish(d), 0);
	*st = *deformat_get_stats(d);
	deformat_free(d);
}

static void test_tc2_capture(void **state)
{
	static const size_t chunks[] = {32768, 1000, 16, 7, 1};
	struct deformat_stats st, st0;
	struct rec r, r0;
	uint8_t *file;
	size_t n, i, c, flags_id = 0, sum;
	unsigned int id;

	(void)state;
	file = need_file(TC2_DIR "/cstrace.bin", &n);
	assert_int_equal(n, 2048 * 16);
	/* Data bytes of the file: 15 per frame less one per ID byte. */
	for (i = 0; i < n; i += 2)
		if (file[i] & 1) /* bytes 0, 2, .., 14: flag bytes */
			flags_id++;
	rec_init(&r0, n);
	tc2_decode(file, n, chunks[0], &r0, &st0);
	assert_int_equal(st0.frames, 2048);
	assert_int_equal(st0.errors, 0);
	assert_int_equal(st0.skipped, 0);
	sum = st0.null_bytes + st0.unowned_bytes;
	for (id = 0; id < DEFORMAT_ID_COUNT; id++)
		sum += st0.id_bytes[id];
	assert_int_equal(sum, 2048 * 15 - flags_id);
	assert_int_equal(r0.n, sum - st0.null_bytes - st0.unowned_bytes);
	/* Sources that sent data: the four ETMv3/PTM cores 0x10-0x13. PTM
	 * 0x14 and ITM 0x20 are configured but silent (OpenCSD lists no
	 * packet for them either). One null ID byte and 22 bytes before the
	 * first ID; per-ID totals equal OpenCSD's listed packet bytes. */
	for (id = 0; id < DEFORMAT_ID_COUNT; id++) {
		bool want = id >= 0x10 && id <= 0x13;

		if (want != (st0.id_bytes[id] != 0))
			fail_msg("ID 0x%02x: %" PRIu64 " bytes", id,
				 st0.id_bytes[id]);
	}
	assert_int_equal(st0.id_bytes[0x10], 10873);
	assert_int_equal(st0.id_bytes[0x11], 10619);
	assert_int_equal(st0.id_bytes[0x12], 3153);
	assert_int_equal(st0.id_bytes[0x13], 4533);
	assert_int_equal(st0.null_bytes, 36);
	assert_int_equal(st0.unowned_bytes, 22);
	/* Every byte sits at its offset (bit 0 may come from the aux byte),
	 * offsets rise, and no byte comes from an aux byte. */
	for (i = 0; i < r0.n; i++) {
		uint64_t off = r0.b[i].off;

		assert_true(off < n);
		assert_true(off % 16 != 15);
		assert_int_equal(file[off] | 1, r0.b[i].byte | 1);
		if (off % 2)
			assert_int_equal(file[off], r0.b[i].byte);
		if (i)
			assert_true(off > r0.b[i - 1].off);
	}
	/* Any feed size gives the same result. */
	for (c = 1; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		rec_init(&r, n);
		tc2_decode(file, n, chunks[c], &r, &st);
		assert_int_equal(r.n, r0.n);
		for (i = 0; i < r0.n; i++) {
			assert_int_equal(r.b[i].id, r0.b[i].id);
			assert_int_equal(r.b[i].byte, r0.b[i].byte);
			assert_int_equal(r.b[i].off, r0.b[i].off);
		}
		assert_memory_equal(&st, &st0, sizeof(st));
		rec_fini(&r);
	}
	rec_fini(&r0);
	free(file);
}

/* Parse "Idx:N; ID:XX; [0x.. 0x.. ];" packet lines of a trc_pkt_lister
 * listing and append the bytes to the stream of their ID. Returns false
 * when the file cannot be read. */
static bool ppl_streams(const char *path, uint8_t **s, size_t *ns, size_t cap)
{
	FILE *f = fopen(path, "r");
	char line[4096];

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long idx;
		unsigned int id;
		int at = 0;
		char *p, *end;

		if (sscanf(line, "Idx:%llu; ID:%x; [%n", &idx, &id, &at) != 2 ||
		    !at || id >= DEFORMAT_ID_COUNT)
			continue;
		for (p = line + at;; p = end) {
			unsigned long v = strtoul(p, &end, 16);

			if (end == p)
				break;
			assert_true(ns[id] < cap);
			s[id][ns[id]++] = (uint8_t)v;
		}
	}
	fclose(f);
	return true;
}

/* The byte stream of each ID equals the bytes of OpenCSD 1.8.0's packet
 * listing of the same capture, packet after packet. */
static void test_tc2_vs_opencsd(void **state)
{
	uint8_t *s[DEFORMAT_ID_COUNT], *file;
	size_t ns[DEFORMAT_ID_COUNT], n, i, cap = 65536;
	struct deformat_stats st;
	struct rec r;
	unsigned int id;

	(void)state;
	file = need_file(TC2_DIR "/cstrace.bin", &n);
	for (id = 0; id < DEFORMAT_ID_COUNT; id++) {
		s[id] = malloc(cap);
		assert_non_null(s[id]);
		ns[id] = 0;
	}
	if (!ppl_streams(TC2_PPL, s, ns, cap)) {
		for (id = 0; id < DEFORMAT_ID_COUNT; id++)
			free(s[id]);
		free(file);
		if (test_in_ci())
			fail_msg("%s is missing (required when CI=true)",
				 TC2_PPL);
		print_message("skipping: %s not found\n", TC2_PPL);
		skip();
		return;
	}
	rec_init(&r, n);
	tc2_decode(file, n, 4093, &r, &st);
	for (id = 0; id < DEFORMAT_ID_COUNT; id++) {
		size_t k = 0;

		for (i = 0; i < r.n; i++) {
			if (r.b[i].id != id)
				continue;
			assert_true(k < ns[id]);
			if (s[id][k] != r.b[i].byte)
				fail_msg("ID 0x%02x byte %zu (offset %" PRIu64
					 "): 0x%02x, OpenCSD 0x%02x",
					 id, k, r.b[i].off, r.b[i].byte,
					 s[id][k]);
			k++;
		}
		assert_int_equal(k, ns[id]);
	}
	assert_true(ns[0x10] > 10000);
	rec_fini(&r);
	for (id = 0; id < DEFORMAT_ID_COUNT; id++)
		free(s[id]);
	free(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tc2_capture),
		cmocka_unit_test(test_tc2_vs_opencsd),
	};

	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	FILE *f;

	/* ctest's SKIP_RETURN_CODE: the capture tests were skipped. */
	if (rc == 0 && !test_in_ci()) {
		f = fopen(TC2_DIR "/cstrace.bin", "rb");
		if (!f)
			return 77;
		fclose(f);
	}
	return rc;
}
