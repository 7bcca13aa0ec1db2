/* Parallel decode (include/etmkit/parallel.h) on the real captures: every
 * ETMv3, ETMv4, ETE and PTM snapshot source under ../shared/testdata, its
 * bytes taken out of their CoreSight frames (or a raw source_data
 * buffer), decoded serially and in parallel (tests/parallel/par_gen.c:
 * the bring-your-own-threads API and the runner at 1, 2, 3 and 8
 * threads; pieces of 1 byte, a cut at every sync point, to 4 KiB), per
 * instruction and as ranges: the same elements, every field, offsets
 * (indexes in the source's bytes) included, and the same statistics. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "unit/test_util.h"

#include "etmkit/parallel.h"
#include "etmkit/snapshot.h"
#include "par_gen.h"
#include "par_handover.h"
#include "ts_session.h"
#include "ts_snapshots.h"
#include "ts_stream.h"

static const unsigned jobs_list[] = { 1, 2, 3, 8 };
static const size_t piece_list[] = { 1, 300, 4096 };

/* The bytes of source @id in @buf's file. */
static int source_bytes(const struct snapshot_buffer *buf, uint8_t id,
			struct ts_stream *c)
{
	size_t n = 0;
	uint8_t *file = ts_read_file(buf->file, &n);
	int err;

	memset(c, 0, sizeof(*c));
	if (!file)
		return -1;
	if (strcmp(buf->format, "coresight")) {
		c->b = file;
		c->n = n;
		return 0;
	}
	err = ts_stream_deformat(file, n, id, 0, c);
	free(file);
	return err;
}

/* One source: returns its bytes checked (0 when skipped). */
static size_t check_source(const char *snap, const struct snapshot *ss,
			   const struct snapshot_source *src, uint64_t *joins,
			   uint64_t *fallbacks, struct par_handover_counts *ho)
{
	struct etm3_flow_config c3;
	struct etm4_flow_config c4;
	struct ptm_flow_config cp;
	struct etmkit_par_config pc;
	struct ts_source s;
	struct ts_stream c;
	char why[300];

	if (ts_source_open_ptm(ss, src, &s))
		return 0;
	etmkit_par_config_init(&pc);
	etm3_flow_config_init(&c3);
	etm4_flow_config_init(&c4);
	ptm_flow_config_init(&cp);
	c3.etm = s.etm3;
	c4.etm = s.etm4;
	cp.ptm.etmcr = s.etm3.etmcr;
	cp.ptm.etmidr = s.etm3.etmidr;
	cp.ptm.etmccer = s.etm3.etmccer;
	pc.proto = s.proto == etmkit_proto_etmv3 ? etmkit_par_etm3 :
		   s.proto == etmkit_proto_ptm	 ? etmkit_par_ptm :
						   etmkit_par_etm4;
	c3.image = s.img;
	c4.image = s.img;
	cp.image = s.img;
	pc.etm3 = &c3;
	pc.etm4 = &c4;
	pc.ptm = &cp;
	if (source_bytes(s.buf, s.id, &c) || !c.n) {
		free(c.b);
		ts_source_free(&s);
		return 0;
	}
	for (int form = 0; form < 2; form++) {
		c3.flags = form ? ETM3_FLOW_RANGES : 0;
		c4.flags = form ? ETM4_FLOW_RANGES : 0;
		cp.flags = form ? PTM_FLOW_RANGES : 0;
		if (pc.proto == etmkit_par_etm4) {
			/* data or conditional trace: no flow decode */
			struct etm4_flow_decoder *d4 = NULL;
			int err = etm4_flow_alloc(&d4, &c4);

			etm4_flow_free(d4);
			if (err)
				break;
		}
		if (par_check(&pc, c.b, c.n, piece_list,
			      sizeof(piece_list) / sizeof(piece_list[0]),
			      jobs_list, sizeof(jobs_list) / sizeof(jobs_list[0]),
			      why, sizeof(why), fallbacks, joins))
			fail_msg("%s %s (ID 0x%02x, %zu bytes)%s: %s", snap,
				 src->name, s.id, c.n,
				 form ? " ranges" : "", why);
		/* The decoders' queue handover the pieces rest on
		 * (par_handover.h). */
		if (par_check_handover(&pc, c.b, c.n, (uint32_t)c.n, ho, why,
				       sizeof(why)))
			fail_msg("%s %s (ID 0x%02x)%s: %s", snap, src->name,
				 s.id, form ? " ranges" : "", why);
	}
	if (getenv("PAR_SNAP_VERBOSE"))
		print_message("%s %s 0x%02x: %zu bytes, %llu joins, %llu fell "
			      "back so far\n", snap, src->name, s.id, c.n,
			      (unsigned long long)*joins,
			      (unsigned long long)*fallbacks);
	free(c.b);
	ts_source_free(&s);
	return c.n;
}

static int shared_missing(void)
{
	struct stat st;

	return stat(ETMKIT_SHARED_DIR "/testdata/ete", &st) != 0;
}

struct walk {
	uint64_t joins, fallbacks, bytes;
	uint64_t ptm_joins, ptm_fallbacks;
	int sources, ptm;
	struct par_handover_counts ho;
};

static void each_source(void *ctx, const char *name,
			const struct snapshot *ss,
			const struct snapshot_source *src)
{
	struct walk *w = ctx;
	int ptm = snapshot_device_protocol(snapshot_find_device(
			  ss, src->name)) == etmkit_proto_ptm;
	size_t n = check_source(name, ss, src,
				ptm ? &w->ptm_joins : &w->joins,
				ptm ? &w->ptm_fallbacks : &w->fallbacks,
				&w->ho);

	w->sources += n > 0;
	w->ptm += n > 0 && ptm;
	w->bytes += n;
}

static void test_captures(void **state)
{
	static const char *const kinds[] = { "etmv3", "etmv4", "ete", "ptm" };
	struct walk w = { 0 };

	(void)state;
	test_need(shared_missing(), ETMKIT_SHARED_DIR);
	assert_true(ts_each_source(ETMKIT_SHARED_DIR "/testdata", kinds, 4,
				   each_source, &w) > 0);
	print_message("%d sources (%d PTM), %llu bytes, %llu joins, %llu fell "
		      "back; PTM: %llu joins, %llu fell back\n", w.sources,
		      w.ptm, (unsigned long long)w.bytes,
		      (unsigned long long)w.joins,
		      (unsigned long long)w.fallbacks,
		      (unsigned long long)w.ptm_joins,
		      (unsigned long long)w.ptm_fallbacks);
	print_message("queue handover: %llu batches, %llu moves, %llu with "
		      "elements held back\n",
		      (unsigned long long)w.ho.batches,
		      (unsigned long long)w.ho.moved,
		      (unsigned long long)w.ho.held);
	assert_true(w.sources > 20);
	/* TC2 0x13 (0x14 has no bytes), Snowball 0x10 and 0x11,
	 * tc2-ptm-rstk-t32; every cut of theirs agrees at a checkpoint:
	 * the return stack, the walk's block and the guesses are compared
	 * as where they lead, not as the cache's pointers
	 * (par_state_ptm.c), and the cuts find the I-syncs a few bytes
	 * after their A-syncs (par_cuts.c). */
	assert_true(w.ptm >= 4);
	assert_true(w.ptm_joins > 100);
	assert_int_equal(w.ptm_fallbacks, 0);
	assert_true(w.joins > 100);
	assert_true(w.ho.moved > 1000);
	assert_true(w.ho.held > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captures),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	return test_exit(failed, shared_missing());
}
