/* libFuzzer target: the parallel decode (include/etmkit/parallel.h) must
 * give exactly the serial decode's elements and statistics, whatever the
 * bytes. Input:
 *   [0] bits 0-1: protocol (ETMv3, ETMv4 A64, ETE, ETMv4 A32/T32), or
 *       PTM when bit 4 is set;
 *       bit 2: ranges form; bit 3: trace = the input's bytes themselves
 *       (random bytes under the configuration), else an encoder stream
 *   [1..4] the configuration's option bits (tests/parallel/par_gen.h)
 *   [5] sync period of the encoder (16 + 4 * [5] bytes)
 *   [6] mutations of the encoder stream: [6] % 16 bytes, each at a
 *       position and value taken from the input's tail
 *   [7] the smallest piece size (1 + [7] % 64)
 *   then the walk over the program (or the trace bytes).
 * Each case is checked at three piece sizes, with the bring-your-own-
 * threads API and the runner at 1 and 2 threads, and the flow decoder's
 * queue handover (par_handover.h: the queue moved between batches, as
 * the pieces do) against the serial decode; and the decode of the bytes
 * as they come (src/parallel/par_source.c, tests/parallel/
 * par_source_check.h) in chunks of 1 + ([7] * 7 + [5]) % 600 bytes, at
 * 1 and 2 threads, feeds of up to 1 + [6] % 128 bytes, a flush or
 * command (gap, reset, finish then reset) about every 2 + [1] % 16
 * operations, offsets of the kind [2] % 3, the sink failing at call
 * [3] % 64 when [3] & 64 (scripts seeded from [1..4]); any difference
 * aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/parallel.h"
#include "par_gen.h"
#include "par_handover.h"
#include "par_source_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned jobs[] = { 1, 2 };
	struct par_stream s;
	struct etmkit_par_config c;
	size_t pieces[3];
	const uint8_t *walk = data + 8, *buf;
	size_t nwalk, n;
	uint32_t opt;
	uint8_t *mut = NULL;
	char why[300];

	if (size < 9)
		return 0;
	nwalk = size - 8;
	opt = (uint32_t)data[1] | (uint32_t)data[2] << 8 |
	      (uint32_t)data[3] << 16 | (uint32_t)data[4] << 24;
	if (par_gen(&s, data[0] & 16 ? 4u : data[0] & 3u, opt,
		    16 + 4u * data[5],
		    (data[0] & 8) ? (const uint8_t *)"" : walk,
		    (data[0] & 8) ? 0 : nwalk)) {
		par_gen_free(&s);
		return 0;
	}
	if (data[0] & 8) {
		buf = walk;
		n = nwalk;
	} else {
		unsigned nm = data[6] % 16;

		mut = malloc(s.n + 1);
		if (!mut)
			abort();
		if (s.n)
			memcpy(mut, s.bytes, s.n);
		for (unsigned i = 0; i < nm && s.n && 3 * (i + 1) <= nwalk; i++) {
			const uint8_t *t = data + size - 3 * (i + 1);

			mut[((size_t)t[0] << 8 | t[1]) * 7919u % s.n] = t[2];
		}
		buf = mut;
		n = s.n;
	}
	etmkit_par_config_init(&c);
	c.proto = s.proto;
	s.c3.flags = (data[0] & 4) ? ETM3_FLOW_RANGES : 0;
	s.c4.flags = (data[0] & 4) ? ETM4_FLOW_RANGES : 0;
	s.cp.flags = (data[0] & 4) ? PTM_FLOW_RANGES : 0;
	c.etm3 = &s.c3;
	c.etm4 = &s.c4;
	c.ptm = &s.cp;
	pieces[0] = 1 + data[7] % 64;
	pieces[1] = 200;
	pieces[2] = 2000;
	if (par_check(&c, buf, n, pieces, 3, jobs, 2, why, sizeof(why), NULL,
		      NULL)) {
		fprintf(stderr, "fuzz_parallel: %s\n", why);
		abort();
	}
	if (par_check_handover(&c, buf, n, (uint32_t)data[5] << 8 | data[7],
			       NULL, why, sizeof(why))) {
		fprintf(stderr, "fuzz_parallel: handover: %s\n", why);
		abort();
	}
	for (unsigned j = 0; j < 2; j++) {
		struct par_script sc;

		memset(&sc, 0, sizeof(sc));
		sc.seed = opt;
		sc.chunk_bytes = 1 + ((size_t)data[7] * 7 + data[5]) % 600;
		sc.max_feed = 1 + data[6] % 128u;
		sc.cmd_every = 2 + data[1] % 16u;
		sc.offsets = data[2] % 3;
		sc.fail_at = data[3] & 64 ? data[3] % 64u : 0;
		c.jobs = jobs[j];
		c.piece_bytes = pieces[j];
		if (par_source_check(&c, buf, n, &sc, NULL, why, sizeof(why))) {
			fprintf(stderr, "fuzz_parallel: par_source: %s\n", why);
			abort();
		}
	}
	free(mut);
	par_gen_free(&s);
	return 0;
}
