/* Call-stack tracker state (internal to src/profile: stacks.c tracks,
 * folded.c writes). */
#ifndef ETMKIT_PROFILE_STACKS_INTERNAL_H
#define ETMKIT_PROFILE_STACKS_INTERNAL_H

#include "etmkit/stacks.h"

#define STACKS_IDS 128

/* A frame on a thread's stack. */
struct stacks_entry {
	uint32_t node;             /* the stack up to this frame */
	uint8_t exc;               /* an exception frame */
	uint64_t begin;            /* the clock when it was entered */
};

enum stacks_pending {
	stacks_none = 0,           /* nothing to do at the next instruction */
	stacks_call,               /* push its frame */
	stacks_ret,                /* pop */
	stacks_exc,                /* push an exception frame */
	stacks_exc_ret             /* pop to the last exception frame */
};

#define STACKS_INLINE_DEPTH 8

struct stacks_thread {
	uint8_t id, has_thread;
	uint8_t pending;           /* enum stacks_pending */
	uint32_t thread;
	uint32_t depth;            /* entries in use (0: forgotten) */
	uint64_t beyond;           /* calls past the depth limit */
	uint64_t acc[2];           /* instructions, cycles not yet added to
				      the top frame's node (flush()) */
	struct stacks_entry *e;    /* cap entries: first the few inline */
	uint32_t cap;              /* (memory grows with the depth a thread
				      reached, not a fixed STACKS_MAX_DEPTH
				      per thread: a trace may name many) */
	struct stacks_entry inline_e[STACKS_INLINE_DEPTH];
};

struct stacks_tree_node {
	uint32_t parent, depth;
	uint64_t key;
	uint64_t memo_key;         /* the last child looked up (memo_child: */
	uint32_t memo_child;       /* its node; 0: none) */
	struct {                   /* the last two addresses called from */
		uint64_t addr;     /* this stack ([0] the last) by trace */
		uint64_t gen;      /* ID id, at context generation gen: */
		uint32_t child;    /* their nodes (0: none) */
		uint8_t id;
	} called[2];
	uint64_t weight[stacks_clock_count];
};

struct stacks {
	struct stacks_config cfg;
	struct stacks_tree_node *nodes;
	size_t nnodes, capnodes;
	uint32_t *hash;            /* node index + 1, 0: free */
	size_t caphash;            /* a power of two */
	struct stacks_thread **threads; /* open addressing by (id, thread) */
	size_t nthreads, capthreads;
	struct stacks_thread *cur[STACKS_IDS];  /* the thread that runs */
	struct stacks_thread none[STACKS_IDS];  /* before any context ID */
	uint64_t clk[STACKS_IDS][stacks_clock_count];
	uint8_t has_ts[STACKS_IDS];
	uint64_t gen;              /* context elements and inputs seen */
	int saturated;
};

#endif
