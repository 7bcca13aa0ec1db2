/* What the packet decoders' fuzz targets (fuzz_etm3_pkt, fuzz_etm4_pkt,
 * fuzz_ptm_pkt, and ETMv2 to come) share: the record each decode is
 * reduced to, and the checks of a second decode against the reference. A
 * failed check aborts (a libFuzzer finding). */
#ifndef ETMKIT_FUZZ_PKT_REC_H
#define ETMKIT_FUZZ_PKT_REC_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/common.h"

struct rec {
	uint64_t offset;
	uint64_t value; /* the packet's main decoded value, as the target picks it */
	uint32_t length;
	uint8_t type;
	int16_t error;
};

static inline uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline void put(struct rec *r, size_t *n, size_t cap, uint64_t off,
		       uint32_t len, uint8_t type, int16_t err, uint64_t value)
{
	if (*n >= cap)
		abort();
	/* Zeroed first: records are compared with memcmp, padding included. */
	memset(&r[*n], 0, sizeof(r[*n]));
	r[*n].offset = off;
	r[*n].value = value;
	r[*n].length = len;
	r[*n].type = type;
	r[*n].error = err;
	++*n;
}

/* The second decode b[0..nb) against the reference a[0..na): with
 * stop-on-error, the reference up to its first error (inclusive), then no
 * more (a truncation at the end stops nothing); otherwise the same records
 * and not stopped. */
static inline void same_records(const struct rec *a, size_t na,
				const struct rec *b, size_t nb,
				int stop_on_error, int stopped)
{
	if (stop_on_error) {
		size_t first = na;

		for (size_t i = 0; i < na; i++)
			if (a[i].error && a[i].error != -etmkit_err_truncated) {
				first = i + 1;
				break;
			}
		if (nb != first || memcmp(a, b, nb * sizeof(*a)) != 0)
			abort();
	} else if (nb != na || stopped || memcmp(a, b, na * sizeof(*a)) != 0) {
		abort();
	}
}

#endif
