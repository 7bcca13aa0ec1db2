/* Helpers for the ETMv2 capture reader tests: open a capture held in a
 * string or buffer and read all its cycles. */
#ifndef ETMKIT_TESTS_ETM2_CAP_TEST_H
#define ETMKIT_TESTS_ETM2_CAP_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "etmkit/etm2.h"

#define CAP_MAX 256

struct cap_run {
	struct etm2_cycle c[CAP_MAX];
	size_t n;
	long rc;   /* the last etm2_cap_read() result */
	struct etm2_cap_diag diag;
	struct etm2_cap_info info;
};

/* Open @data[0..len) as @fmt with @opt and read every cycle @chunk at a
 * time into @r. Returns etm2_cap_open()'s result (r->diag on error). */
static inline int cap_read_all(const void *data, size_t len, enum etm2_cap_format fmt,
			       const struct etm2_cap_info *opt, size_t chunk,
			       struct cap_run *r)
{
	struct etm2_cap_reader *rd;
	int rc;

	memset(r, 0, sizeof(*r));
	rc = etm2_cap_open(&rd, data, len, fmt, opt, &r->diag);
	if (rc)
		return rc;
	r->info = *etm2_cap_get_info(rd);
	for (;;) {
		size_t room = CAP_MAX - r->n;
		long got = etm2_cap_read(rd, r->c + r->n, room < chunk ? room : chunk,
					 &r->diag);

		r->rc = got;
		if (got <= 0)
			break;
		r->n += (size_t)got;
		if (r->n == CAP_MAX)
			fail_msg("more than %d cycles", CAP_MAX);
	}
	etm2_cap_close(rd);
	return 0;
}

static inline int cap_text(const char *text, const struct etm2_cap_info *opt,
			   size_t chunk, struct cap_run *r)
{
	return cap_read_all(text, strlen(text), etm2_cap_text, opt, chunk, r);
}

#define assert_cycle(cy, PS, PKT, FL)                                        \
	do {                                                                 \
		const struct etm2_cycle *c_ = (cy);                          \
		if (c_->ps != (PS) || c_->pkt != (PKT) || c_->flags != (FL)) \
			fail_msg("cycle ps %u pkt 0x%x flags %u, expected "  \
				 "ps %u pkt 0x%x flags %u", c_->ps, c_->pkt, \
				 c_->flags, (unsigned)(PS), (unsigned)(PKT), \
				 (unsigned)(FL));                            \
	} while (0)

#endif
