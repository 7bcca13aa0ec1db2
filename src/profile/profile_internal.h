/* The profile's state, shared by the aggregator (profile.c) and the
 * writers (autofdo.c). Internal to src/profile. */
#ifndef ETMKIT_PROFILE_INTERNAL_H
#define ETMKIT_PROFILE_INTERNAL_H

#include "etmkit/insn.h"
#include "etmkit/profile.h"
#include "count_map.h"
#include "where_memo.h"

#define PROFILE_IDS 128

/* The instructions run since the last P0 or branch instruction, one
 * after another: what one OpenCSD instruction range element says. Built
 * from instruction elements (or ranges that do not end at a P0
 * instruction). */
struct profile_run {
	uint8_t open;
	uint64_t start, last, next; /* first, last instruction; after it */
	struct etmkit_elem el;     /* the element of the last one */
};


/* Taken-branch traces (cfg.traces): the range being built, and the
 * taken branch that waits for its target (the next element's start).
 * The slot pointers are kept valid when the ranges map grows
 * (traces.c add_range()). */
struct profile_trace {
	uint8_t open, pend;
	uint64_t start, last, next; /* run-time: first, last instruction;
				       after it */
	struct count_slot *pend_slot; /* the range the branch ends: its bin
				       and end are the branch's source */
	struct count_slot *prev;    /* a hint: the range whose branch led to
				       the one being built, or NULL */
	/* cfg.contexts (contexts.c): the call context that runs (a node of
	 * the call-site tree, 0: none known), calls beyond
	 * PROFILE_CTX_MAX_DEPTH not kept, the thread (context ID) */
	uint32_t ctx, over;
	uint8_t has_thread;
	uint32_t thread;
};

struct profile_id {
	struct profile_run run;
	struct profile_trace tr;
	struct profile_memo target; /* for branch targets outside memo */
	struct profile_memo memo;
};

/* A call context (cfg.contexts): its caller's context (the parent
 * node), and the call instruction, in binary bin (PROFILE_CTX_EXTERNAL:
 * in none) at ELF address site. Node 0 is the empty context. */
#define PROFILE_CTX_MAX_DEPTH 1024
#define PROFILE_CTX_EXTERNAL UINT32_MAX
struct profile_ctx_node {
	uint32_t parent, depth, bin;
	uint64_t site;
};

/* With cfg.contexts the ranges' and branches' key bin holds the binary
 * in its low 32 bits and the context node above them. */
#define PROFILE_KEY_BIN(k) ((size_t)((k) & 0xffffffffu))
#define PROFILE_KEY_CTX(k) ((uint32_t)((k) >> 32))

struct profile {
	struct profile_config cfg;
	struct count_map ranges;   /* (bin, start, end) */
	struct count_map branches; /* (bin, from, to) */
	struct count_map ctx_index;   /* (bin, site, parent) -> node */
	struct count_map ctx_threads; /* (id, thread, 0) -> node + 1 */
	struct profile_ctx_node *ctx_nodes;
	size_t ctx_count, ctx_cap;
	struct profile_id ids[PROFILE_IDS];
};

/* Whether profile_finish() was called after the last element: no range
 * being built, no branch count left in a range's slot (profile.c; for
 * profile_part_add_profile()). */
int profile_finished(const struct profile *p);

/* Ask the resolver where @addr is: its binary and ELF address, and
 * remember the extent it gives in @m (profile.c). */
int profile_ask(struct profile *p, uint8_t id, struct profile_memo *m,
		uint64_t addr, size_t *bin, uint64_t *vaddr);

/* The binary and ELF address of @addr: the extent remembered in @m, or
 * the resolver. */
static inline int profile_where_of(struct profile *p, uint8_t id,
				   struct profile_memo *m, uint64_t addr,
				   size_t *bin, uint64_t *vaddr)
{
	if (addr - m->lo < m->span) {
		*bin = m->bin;
		*vaddr = addr + m->delta;
		return 0;
	}
	return profile_ask(p, id, m, addr, bin, vaddr);
}

/* Count @n taken branches at the end of range @sl to @target: in the
 * range's slot when they go where it went before (always, for a direct
 * branch within its binary: the usual case), moved to the branches at
 * profile_finish(); in the branches otherwise (profile.c). */
int profile_count_branch(struct profile *p, struct count_slot *sl,
			 uint64_t target, uint64_t n);

/* Whether the last instruction of @e (an insn or insn_range element,
 * with classification @cls) is a branch that was taken. */
static inline int profile_taken(const struct etmkit_elem *e, uint32_t cls)
{
	return (cls & INSN_F_BRANCH) &&
	       (e->flags & (ETMKIT_INSN_EXEC | ETMKIT_INSN_COND_FAIL |
			    ETMKIT_INSN_CANCEL)) == ETMKIT_INSN_EXEC;
}

/* Taken-branch traces (traces.c): profile_elem() and profile_finish()
 * for cfg.traces. */
int profile_trace_elem(struct profile *p, uint8_t id,
		       const struct etmkit_elem *e);
int profile_trace_end(struct profile *p, uint8_t id);

/* Call contexts (contexts.c), for cfg.contexts: the taken branch at the
 * end of a range of trace ID @id, at ELF address @site of binary @bin
 * (PROFILE_CTX_EXTERNAL: none), with classification @cls: a call enters
 * a context, a return leaves one. Returns 0 or -etmkit_err_nomem (the
 * context is forgotten: 0). */
int profile_ctx_branch(struct profile *p, uint8_t id, size_t bin,
		       uint64_t site, uint32_t cls);
/* Element @e changed the thread (a context element with a context ID):
 * the last thread's context is kept, the new one's taken up. Returns 0
 * or -etmkit_err_nomem (then the context is forgotten). */
int profile_ctx_thread(struct profile *p, uint8_t id,
		       const struct etmkit_elem *e);
void profile_ctx_free(struct profile *p);

/* Shared by the writers (lines.c). */
struct profile_line {
	uint64_t from, to, count;
};

/* The entries of binary @bin in @m, less @base, sorted: ranges need both
 * ends at or above @base; branches need their source there, and a target
 * below it becomes 0 when @low_to_zero, else they are left out. */
size_t profile_collect(const struct count_map *m, size_t bin, uint64_t base,
		       int branches, int low_to_zero,
		       struct profile_line *out);

/* The one binary a single-binary writer writes: 0 and *@bin, 1 when
 * none has counts, -etmkit_err_invalid / -etmkit_err_nomem. */
int profile_one_binary(const struct profile *p,
		       const struct profile_binary *bins, size_t nbins,
		       size_t *bin);

/* Room for the lines of the larger map; NULL: no memory. */
struct profile_line *profile_lines_alloc(const struct profile *p);

#endif
