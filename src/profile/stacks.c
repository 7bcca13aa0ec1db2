/* Call stacks from execution elements: the rules are in
 * include/etmkit/stacks.h (calls and returns: insn.h INSN_F_CALL,
 * INSN_F_RETURN, INSN_F_EXC_RETURN; folded stacks: digest perf-data.md
 * 4f). Stacks are interned as the nodes of a call tree, keyed by (parent,
 * frame key) in a hash table: a thread's stack is an array of node ids,
 * and a weight goes to one node, with no allocation once it exists. */
#include <stdlib.h>
#include <string.h>

#include "etmkit/insn.h"
#include "stacks_internal.h"

void stacks_config_init(struct stacks_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
}

int stacks_alloc(struct stacks **s, const struct stacks_config *cfg)
{
	struct stacks *ns;

	if (s)
		*s = NULL;
	if (!s || !cfg || cfg->size < sizeof(*cfg) || !cfg->frame ||
	    cfg->clock >= stacks_clock_count)
		return -etmkit_err_invalid;
	ns = calloc(1, sizeof(*ns));
	if (!ns)
		return -etmkit_err_nomem;
	ns->cfg = *cfg;
	ns->capnodes = 256;
	ns->nodes = calloc(ns->capnodes, sizeof(*ns->nodes));
	ns->caphash = 512;
	ns->hash = calloc(ns->caphash, sizeof(*ns->hash));
	if (!ns->nodes || !ns->hash) {
		stacks_free(ns);
		return -etmkit_err_nomem;
	}
	ns->nnodes = 1;              /* node 0: the empty stack */
	for (unsigned id = 0; id < STACKS_IDS; id++) {
		ns->none[id].id = (uint8_t)id;
		ns->none[id].e = ns->none[id].inline_e;
		ns->none[id].cap = STACKS_INLINE_DEPTH;
		ns->cur[id] = &ns->none[id];
	}
	*s = ns;
	return 0;
}

static void thread_free(struct stacks_thread *t)
{
	if (t && t->e != t->inline_e)
		free(t->e);
	free(t);
}

void stacks_free(struct stacks *s)
{
	if (!s)
		return;
	for (unsigned id = 0; id < STACKS_IDS; id++)
		if (s->none[id].e != s->none[id].inline_e)
			free(s->none[id].e);
	for (size_t i = 0; i < s->capthreads; i++)
		thread_free(s->threads[i]);
	free(s->threads);
	free(s->nodes);
	free(s->hash);
	free(s);
}

/* ---- The call tree ------------------------------------------------------- */

static size_t node_hash(uint32_t parent, uint64_t key, size_t mask)
{
	uint64_t h = (key ^ ((uint64_t)parent << 32 | parent)) *
		     0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17) & mask;
}

static int grow_hash(struct stacks *s)
{
	size_t cap = s->caphash * 2;
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -etmkit_err_nomem;
	for (size_t i = 1; i < s->nnodes; i++) {
		size_t k = node_hash(s->nodes[i].parent, s->nodes[i].key,
				     cap - 1);

		while (h[k])
			k = (k + 1) & (cap - 1);
		h[k] = (uint32_t)i + 1;
	}
	free(s->hash);
	s->hash = h;
	s->caphash = cap;
	return 0;
}

/* The node of stack @parent plus frame @key, made when new; 0 when out
 * of memory. */
static uint32_t child(struct stacks *s, uint32_t parent, uint64_t key)
{
	size_t mask, k;
	struct stacks_tree_node *n;

	/* The child taken last from this parent: a loop calling one
	 * function finds it without hashing. */
	if (s->nodes[parent].memo_child &&
	    s->nodes[parent].memo_key == key)
		return s->nodes[parent].memo_child;
	mask = s->caphash - 1;
	k = node_hash(parent, key, mask);

	for (; s->hash[k]; k = (k + 1) & mask) {
		n = &s->nodes[s->hash[k] - 1];
		if (n->parent == parent && n->key == key) {
			s->nodes[parent].memo_key = key;
			s->nodes[parent].memo_child = s->hash[k] - 1;
			return s->hash[k] - 1;
		}
	}
	if (s->nnodes >= UINT32_MAX - 1)
		return 0;
	if (s->nnodes == s->capnodes) {
		size_t cap = s->capnodes * 2;
		struct stacks_tree_node *nn = realloc(s->nodes,
						      cap * sizeof(*nn));

		if (!nn)
			return 0;
		s->nodes = nn;
		s->capnodes = cap;
	}
	if ((s->nnodes + 1) * 4 > s->caphash * 3) {
		if (grow_hash(s) < 0)
			return 0;
		return child(s, parent, key);
	}
	n = &s->nodes[s->nnodes];
	memset(n, 0, sizeof(*n));
	n->parent = parent;
	n->key = key;
	n->depth = s->nodes[parent].depth + 1;
	s->hash[k] = (uint32_t)s->nnodes + 1;
	return (uint32_t)s->nnodes++;
}

static void add(struct stacks *s, uint64_t *w, uint64_t n)
{
	if (*w > UINT64_MAX - n) {
		*w = UINT64_MAX;
		s->saturated = 1;
	} else {
		*w += n;
	}
}

/* ---- A thread's stack ---------------------------------------------------- */

/* The instructions and cycles run since the top frame last changed go to
 * its node: done when it changes, not per element. */
static void flush(struct stacks *s, struct stacks_thread *t)
{
	uint64_t *w;

	if (!t->depth || !(t->acc[0] | t->acc[1]))
		return;
	w = s->nodes[t->e[t->depth - 1].node].weight;
	add(s, &w[stacks_insns], t->acc[0]);
	add(s, &w[stacks_cycles], t->acc[1]);
	t->acc[0] = t->acc[1] = 0;
}

static int emit(struct stacks *s, struct stacks_event *ev,
		const struct stacks_thread *t)
{
	ev->id = t->id;
	ev->has_thread = t->has_thread;
	ev->thread = t->thread;
	return s->cfg.event ? s->cfg.event(s->cfg.ctx, ev) : 0;
}

static uint64_t now(const struct stacks *s, const struct stacks_thread *t)
{
	return s->clk[t->id][s->cfg.clock];
}

/* The top frame of @t ends. */
static int pop(struct stacks *s, struct stacks_thread *t)
{
	struct stacks_entry *en = &t->e[t->depth - 1];
	struct stacks_event ev;

	flush(s, t);
	if (!s->cfg.event) {
		t->depth--;
		return 0;
	}
	memset(&ev, 0, sizeof(ev));
	ev.kind = stacks_ev_frame;
	ev.exc = en->exc;
	ev.depth = t->depth - 1;
	ev.key = s->nodes[en->node].key;
	ev.begin = en->begin;
	ev.end = now(s, t);
	t->depth--;
	return emit(s, &ev, t);
}

/* Forget the stack of @t: every frame ends. */
static int forget(struct stacks *s, struct stacks_thread *t)
{
	int err = 0;

	while (t->depth) {
		int e = pop(s, t);

		if (!err)
			err = e;
	}
	t->beyond = 0;
	t->pending = stacks_none;
	return err;
}

/* Room for one more frame on @t (up to STACKS_MAX_DEPTH): 0 or
 * -etmkit_err_nomem. */
static int room(struct stacks_thread *t)
{
	uint32_t cap;
	struct stacks_entry *ne;

	if (t->depth < t->cap)
		return 0;
	cap = t->cap * 2 < STACKS_MAX_DEPTH ? t->cap * 2 : STACKS_MAX_DEPTH;
	if (t->e == t->inline_e) {
		ne = malloc(cap * sizeof(*ne));
		if (ne)
			memcpy(ne, t->e, t->depth * sizeof(*ne));
	} else {
		ne = realloc(t->e, cap * sizeof(*ne));
	}
	if (!ne)
		return -etmkit_err_nomem;
	t->e = ne;
	t->cap = cap;
	return 0;
}

/* Push frame @key (an exception frame when @exc) on @t. */
static int push_key(struct stacks *s, struct stacks_thread *t, uint64_t key,
		    int exc)
{
	uint32_t parent = t->depth ? t->e[t->depth - 1].node : 0, node;
	struct stacks_entry *en;

	if (t->depth == STACKS_MAX_DEPTH || t->beyond) {
		t->beyond++;
		return 0;
	}
	flush(s, t);
	if (t->depth == STACKS_MAX_DEPTH - 1)
		key = STACKS_KEY_TRUNCATED;
	node = child(s, parent, key);
	if (!node || room(t) < 0) {
		forget(s, t);
		return -etmkit_err_nomem;
	}
	en = &t->e[t->depth++];
	en->node = node;
	en->exc = (uint8_t)exc;
	en->begin = now(s, t);
	return 0;
}

/* The node of the call to @addr from stack @p that trace ID @t->id made
 * lately (one of its last two: a loop that calls two functions in turn
 * finds both), in this context generation; 0 when none. */
static inline uint32_t called_child(const struct stacks *s,
				    const struct stacks_tree_node *p,
				    const struct stacks_thread *t,
				    uint64_t addr)
{
	for (int k = 0; k < 2; k++)
		if (p->called[k].child && p->called[k].addr == addr &&
		    p->called[k].id == t->id && p->called[k].gen == s->gen)
			return p->called[k].child;
	return 0;
}

/* Push the frame entered at @addr. A call from a stack to an address
 * it called lately (called_child(): same trace ID, no context element
 * since: the frame callback would answer the same) takes the child
 * remembered without asking the callback. */
static int push(struct stacks *s, struct stacks_thread *t, uint64_t addr,
		int exc)
{
	uint32_t parent = t->depth ? t->e[t->depth - 1].node : 0;
	struct stacks_tree_node *p = &s->nodes[parent];
	uint32_t memo = exc ? 0 : called_child(s, p, t, addr);
	uint64_t key;
	int err;

	if (memo && !t->beyond &&
	    t->depth < STACKS_MAX_DEPTH - 1 && t->depth < t->cap) {
		struct stacks_entry *en;

		flush(s, t);
		en = &t->e[t->depth++];
		en->node = memo;
		en->exc = 0;
		en->begin = now(s, t);
		return 0;
	}
	err = s->cfg.frame(s->cfg.ctx, t->id, addr, exc, &key);
	if (err < 0)
		return err;
	if (key >= STACKS_KEY_TRUNCATED)
		key = STACKS_KEY_TRUNCATED - 1;
	err = push_key(s, t, key, exc);
	if (err < 0 || exc || t->beyond ||
	    s->nodes[t->e[t->depth - 1].node].key != key)
		return err;                /* not a plain frame pushed */
	p = &s->nodes[parent];             /* the nodes may have moved */
	p->called[1] = p->called[0];
	p->called[0].addr = addr;
	p->called[0].id = t->id;
	p->called[0].gen = s->gen;
	p->called[0].child = t->e[t->depth - 1].node;
	return 0;
}

/* Start a forgotten stack: [unknown] and the frame at @addr. */
static int start(struct stacks *s, struct stacks_thread *t, uint64_t addr)
{
	int err = push_key(s, t, STACKS_KEY_UNKNOWN, 0);

	return err < 0 ? err : push(s, t, addr, 0);
}

/* A return (@exc: an exception return) to @addr: pop one frame (@exc:
 * down to and including the last exception frame); past the known
 * frames, [unknown] and the frame at @addr. */
static int unwind(struct stacks *s, struct stacks_thread *t, uint64_t addr,
		  int exc)
{
	int err = 0;

	if (t->beyond) {
		t->beyond--;
		return 0;
	}
	if (exc) {
		uint32_t d = t->depth;

		while (d > 1 && !t->e[d - 1].exc)
			d--;
		if (d <= 1) {            /* no exception frame known */
			err = forget(s, t);
			return err < 0 ? err : start(s, t, addr);
		}
		while (t->depth >= d && !err)
			err = pop(s, t);
	} else if (t->depth > 1) {
		err = pop(s, t);
	}
	if (err < 0)
		return err;
	if (t->depth <= 1)             /* returned past what is known */
		return push(s, t, addr, 0);
	return 0;
}

/* What the last instruction's call or return did, now that execution is
 * at @addr. */
static int settle(struct stacks *s, struct stacks_thread *t, uint64_t addr)
{
	uint8_t p = t->pending;

	t->pending = stacks_none;
	if (!t->depth)
		return start(s, t, addr);
	switch (p) {
	case stacks_call:
		return push(s, t, addr, 0);
	case stacks_exc:
		return push(s, t, addr, 1);
	case stacks_ret:
		return unwind(s, t, addr, 0);
	case stacks_exc_ret:
		return unwind(s, t, addr, 1);
	default:
		return 0;
	}
}

/* ---- Elements ------------------------------------------------------------ */

/* The thread of trace ID @id with context ID @cid: made when new. */
static struct stacks_thread *thread_of(struct stacks *s, uint8_t id,
				       uint32_t cid)
{
	size_t mask, k;

	if ((s->nthreads + 1) * 2 > s->capthreads) {
		size_t cap = s->capthreads ? s->capthreads * 2 : 16;
		struct stacks_thread **nt = calloc(cap, sizeof(*nt));

		if (!nt)
			return NULL;
		for (size_t i = 0; i < s->capthreads; i++) {
			struct stacks_thread *t = s->threads[i];

			if (!t)
				continue;
			k = ((t->thread * 0x9e3779b1u) ^ t->id) & (cap - 1);
			while (nt[k])
				k = (k + 1) & (cap - 1);
			nt[k] = t;
		}
		free(s->threads);
		s->threads = nt;
		s->capthreads = cap;
	}
	mask = s->capthreads - 1;
	for (k = ((cid * 0x9e3779b1u) ^ id) & mask; s->threads[k];
	     k = (k + 1) & mask)
		if (s->threads[k]->id == id && s->threads[k]->thread == cid)
			return s->threads[k];
	s->threads[k] = calloc(1, sizeof(struct stacks_thread));
	if (!s->threads[k])
		return NULL;
	s->threads[k]->id = id;
	s->threads[k]->e = s->threads[k]->inline_e;
	s->threads[k]->cap = STACKS_INLINE_DEPTH;
	s->threads[k]->has_thread = 1;
	s->threads[k]->thread = cid;
	s->nthreads++;
	return s->threads[k];
}

static uint64_t *top_weight(struct stacks *s, struct stacks_thread *t)
{
	return s->nodes[t->depth ? t->e[t->depth - 1].node : 0].weight;
}

/* Instructions from @e->addr (@n of them), the last one's
 * classification @cls: once per element, kept inline. */
static inline int run_insns(struct stacks *s, struct stacks_thread *t,
			    const struct etmkit_elem *e, uint64_t n,
			    uint32_t cls)
{
	uint64_t *clk = s->clk[t->id];

	if (t->pending != stacks_none || !t->depth) {
		int err = settle(s, t, e->addr);

		if (err < 0)
			return err;
	}
	/* Plain sums: 2^64 instructions or cycles are not in one trace. */
	t->acc[0] += n;
	clk[stacks_insns] += n;
	if (e->flags & ETMKIT_INSN_CYCLES) {
		t->acc[1] += e->cycles;
		clk[stacks_cycles] += e->cycles;
	}
	if (!(cls & (INSN_F_CALL | INSN_F_RETURN | INSN_F_EXC_RETURN)) ||
	    !(cls & INSN_F_BRANCH) ||
	    (e->flags & (ETMKIT_INSN_EXEC | ETMKIT_INSN_COND_FAIL |
			 ETMKIT_INSN_CANCEL)) != ETMKIT_INSN_EXEC)
		return 0;             /* changes no frame, or not taken */
	if (cls & INSN_F_EXC_RETURN)
		t->pending = stacks_exc_ret;
	else if (cls & INSN_F_CALL)
		t->pending = stacks_call;
	else if (cls & INSN_F_RETURN)
		t->pending = stacks_ret;
	return 0;
}

/* Trace lost or restarted: the stack of the running thread is forgotten;
 * the clock goes on. */
static int lost(struct stacks *s, struct stacks_thread *t,
		const struct etmkit_elem *e)
{
	struct stacks_event ev;
	int err = forget(s, t), e2;

	if (!s->cfg.event)
		return err;
	memset(&ev, 0, sizeof(ev));
	ev.kind = stacks_ev_lost;
	ev.elem = e->kind;
	ev.loss = e->kind == etmkit_elem_gap || e->kind == etmkit_elem_no_image
		  ? e->u.loss.reason : 0;
	ev.begin = ev.end = now(s, t);
	e2 = emit(s, &ev, t);
	return err < 0 ? err : e2;
}

/* An exception: the handler's frame is pushed at its first instruction.
 * A call or return whose target never executed (the exception came
 * first) takes the exception's return address when traced, else the
 * stack is forgotten. */
static int exception(struct stacks *s, struct stacks_thread *t,
		     const struct etmkit_elem *e)
{
	struct stacks_event ev;
	int err = 0;

	if (t->pending != stacks_none) {
		if (t->depth && (e->flags & ETMKIT_EXC_RET_ADDR))
			err = settle(s, t, e->u.exception.ret_addr);
		else
			err = forget(s, t);
	}
	if (err < 0)
		return err;
	if (t->depth)
		t->pending = stacks_exc;
	if (!s->cfg.event)
		return 0;
	memset(&ev, 0, sizeof(ev));
	ev.kind = stacks_ev_exception;
	ev.number = e->u.exception.number;
	ev.begin = ev.end = now(s, t);
	return emit(s, &ev, t);
}

static int timestamp(struct stacks *s, struct stacks_thread *t,
		     const struct etmkit_elem *e)
{
	uint64_t *clk = s->clk[t->id];

	if (s->has_ts[t->id] && e->u.timestamp.value > clk[stacks_time])
		add(s, &top_weight(s, t)[stacks_time],
		    e->u.timestamp.value - clk[stacks_time]);
	if (!s->has_ts[t->id] || e->u.timestamp.value > clk[stacks_time])
		clk[stacks_time] = e->u.timestamp.value;
	s->has_ts[t->id] = 1;
	return 0;
}

/* Any element, the general way: out of line, so that the fast path of
 * stacks_elem() saves no registers for it. */
static __attribute__((noinline)) int elem_slow(struct stacks *s, uint8_t id,
					       struct stacks_thread *t,
					       const struct etmkit_elem *e)
{
	switch (e->kind) {
	case etmkit_elem_insn:
		return run_insns(s, t, e, 1, e->u.insn.class_flags);
	case etmkit_elem_insn_range:
		return run_insns(s, t, e, (uint64_t)e->u.range.count *
				 ((uint64_t)e->u.range.repeats + 1),
				 e->u.range.class_flags);
	case etmkit_elem_exception:
	case etmkit_elem_exception_entry:
		return exception(s, t, e);
	case etmkit_elem_exception_return:
		if (t->depth)
			t->pending = stacks_exc_ret;
		return 0;
	case etmkit_elem_trace_on:
	case etmkit_elem_gap:
	case etmkit_elem_no_image:
	case etmkit_elem_overflow:
	case etmkit_elem_q:
		return lost(s, t, e);
	case etmkit_elem_timestamp:
		return timestamp(s, t, e);
	case etmkit_elem_branch_run:  /* ETM4_FLOW_TRACES: calls reordered */
		return -etmkit_err_unsupported;
	case etmkit_elem_context:
		s->gen++;        /* frame keys may change: push()'s memo */
		if (!(e->flags & ETMKIT_CTX_CONTEXT_ID) ||
		    (t->has_thread && t->thread == e->u.context.context_id))
			return 0;
		t = thread_of(s, id, e->u.context.context_id);
		if (!t)
			return -etmkit_err_nomem;
		s->cur[id] = t;
		return 0;
	default:
		return 0;
	}
}

/* settle() for the usual call and return, at @addr, the next
 * instruction: a call to an address this stack called lately (push()'s
 * remembered child), or a return that leaves a known caller on the stack
 * with no frame event to write (folded stacks, flame graphs). Returns 1
 * when done, 0 when settle() must do it (nothing changed). Inline in
 * elem_fast(). */
static inline int settle_fast(struct stacks *s, struct stacks_thread *t,
			      uint64_t addr)
{
	struct stacks_entry *en;
	uint32_t memo;

	if (t->beyond)
		return 0;
	if (t->pending == stacks_ret) {
		if (t->depth <= 2 || s->cfg.event)
			return 0;     /* past what is known: unwind(); an
					 event to write: pop() */
		flush(s, t);
		t->depth--;
		t->pending = stacks_none;
		return 1;
	}
	if (t->pending != stacks_call)
		return 0;
	memo = called_child(s, &s->nodes[t->e[t->depth - 1].node], t, addr);
	if (!memo || t->depth >= STACKS_MAX_DEPTH - 1 || t->depth >= t->cap)
		return 0;
	flush(s, t);
	en = &t->e[t->depth++];
	en->node = memo;
	en->exc = 0;
	en->begin = now(s, t);
	t->pending = stacks_none;
	return 1;
}

/* The usual element, counted: a range with nothing to settle, whose last
 * instruction calls or returns nothing, no cycles. Returns 1 when
 * counted, 0 when elem_slow() must take it (nothing changed). Inline in
 * stacks_elem() and in stacks_elems()'s loop. */
static inline int elem_fast(struct stacks *s, uint8_t id,
			    struct stacks_thread *t,
			    const struct etmkit_elem *e)
{
	uint32_t cls = e->u.range.class_flags;
	uint64_t n;

	if (e->kind != etmkit_elem_insn_range || !t->depth ||
	    (e->flags & ETMKIT_INSN_CYCLES))
		return 0;
	if (t->pending != stacks_none && !settle_fast(s, t, e->addr))
		return 0;
	n = (uint64_t)e->u.range.count * ((uint64_t)e->u.range.repeats + 1);
	t->acc[0] += n;
	s->clk[id][stacks_insns] += n;
	/* run_insns()'s: a taken call or return acts at the next one */
	if ((cls & (INSN_F_CALL | INSN_F_RETURN | INSN_F_EXC_RETURN)) &&
	    (cls & INSN_F_BRANCH) &&
	    (e->flags & (ETMKIT_INSN_EXEC | ETMKIT_INSN_COND_FAIL |
			 ETMKIT_INSN_CANCEL)) == ETMKIT_INSN_EXEC)
		t->pending = (cls & INSN_F_EXC_RETURN) ? stacks_exc_ret :
			     (cls & INSN_F_CALL) ? stacks_call : stacks_ret;
	return 1;
}

int stacks_elem(struct stacks *s, uint8_t id, const struct etmkit_elem *e)
{
	struct stacks_thread *t;

	if (!s || !e || id >= STACKS_IDS)
		return -etmkit_err_invalid;
	t = s->cur[id];
	if (elem_fast(s, id, t, e))
		return 0;
	return elem_slow(s, id, t, e);
}

int stacks_elems(struct stacks *s, uint8_t id, const struct etmkit_elem *e,
		 size_t n)
{
	const struct etmkit_elem *end;
	int err = 0;

	if (!s || (!e && n) || id >= STACKS_IDS)
		return -etmkit_err_invalid;
	if (!n)
		return 0;       /* (e may be NULL: no e + n) */
	for (end = e + n; e < end; e++) {
		/* The thread may change at a context element. */
		struct stacks_thread *t = s->cur[id];
		int r;

		if (elem_fast(s, id, t, e))
			continue;
		r = elem_slow(s, id, t, e);
		if (r < 0 && !err)
			err = r;
	}
	return err;
}

int stacks_finish(struct stacks *s)
{
	int err = 0;

	if (!s)
		return -etmkit_err_invalid;
	s->gen++;                /* the next input's images */
	for (unsigned id = 0; id < STACKS_IDS; id++) {
		int e = forget(s, &s->none[id]);

		if (!err)
			err = e;
		s->cur[id] = &s->none[id];
	}
	for (size_t i = 0; i < s->capthreads; i++) {
		int e = s->threads[i] ? forget(s, s->threads[i]) : 0;

		if (!err)
			err = e;
	}
	return err;
}

int stacks_saturated(const struct stacks *s)
{
	return s && s->saturated;
}

size_t stacks_node_count(const struct stacks *s)
{
	return s ? s->nnodes : 0;
}

int stacks_node_at(const struct stacks *s, size_t i, struct stacks_node *out)
{
	if (!s || !out || i >= s->nnodes)
		return -etmkit_err_invalid;
	out->parent = s->nodes[i].parent;
	out->depth = s->nodes[i].depth;
	out->key = s->nodes[i].key;
	memcpy(out->weight, s->nodes[i].weight, sizeof(out->weight));
	return 0;
}
