/* The last answer of a profile_resolve_fn (etmkit/profile.h) with an
 * extent, kept per trace ID by the counters (profile.c, traces.c,
 * coverage.c): addresses in [lo, lo + span) are in binary bin at addr +
 * delta, with no call of the resolver (span 0: none). */
#ifndef ETMKIT_PROFILE_WHERE_MEMO_H
#define ETMKIT_PROFILE_WHERE_MEMO_H

#include <string.h>

#include "etmkit/profile.h"

struct profile_memo {
	uint64_t lo, span, delta;
	size_t bin;
};

/* Ask @resolve for @addr of trace ID @id and remember the extent it
 * gives (the memo is forgotten first: an error or an answer without an
 * extent leaves none). Returns 0 with *@bin, *@vaddr, or the resolver's
 * error. */
static inline int profile_memo_ask(struct profile_memo *m,
				   profile_resolve_fn resolve, void *ctx,
				   uint8_t id, uint64_t addr, size_t *bin,
				   uint64_t *vaddr)
{
	struct profile_where w;
	int err;

	memset(&w, 0, sizeof(w));
	m->span = 0;
	err = resolve(ctx, id, addr, &w);
	if (err < 0)
		return err;
	*bin = w.bin;
	*vaddr = w.vaddr;
	if (w.lo <= addr && addr < w.hi) {
		m->lo = w.lo;
		m->span = w.hi - w.lo;
		m->bin = w.bin;
		m->delta = w.vaddr - addr;
	}
	return 0;
}

#endif /* ETMKIT_PROFILE_WHERE_MEMO_H */
