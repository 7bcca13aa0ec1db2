/* etmkit: call stacks reconstructed from decoded trace.
 *
 * Layer: profile (src/profile/), above flow: consumes elements.
 *
 * A stack tracker follows the calls and returns of the execution elements
 * (elem.h) of each trace ID, per thread (the context ID, when traced),
 * and counts the instructions (and cycles, and time) each distinct call
 * stack ran: the folded stacks of flame graphs (digest perf-data.md 4f).
 * It can also report every frame's activation as it ends, for timelines.
 *
 *   struct stacks_config cfg;
 *   stacks_config_init(&cfg);
 *   cfg.frame = my_frame;  cfg.ctx = ...;   address -> frame key
 *   struct stacks *s;
 *   stacks_alloc(&s, &cfg);
 *   stacks_elem(s, id, e);                  for every element
 *     (or stacks_elems(s, id, e, n);         for a batch of them)
 *   stacks_finish(s);                       at the end of each input
 *   stacks_write_folded(s, f, stacks_insns, my_name, ctx);
 *   stacks_free(s);
 *
 * The rules (docs/stacks.md):
 * - A stack is a list of frames, root first; the last is the frame that
 *   runs. Every stack starts with the unknown frame (STACKS_KEY_UNKNOWN,
 *   "[unknown]"): what called the code the trace first shows is not
 *   traced. The frame after it is the one of the first instruction seen.
 * - A taken branch whose instruction is a call (INSN_F_CALL: BL, BLX,
 *   BLR...) pushes a frame for its target; a taken return (INSN_F_RETURN:
 *   RET, BX LR, POP {..., pc}...) pops the top frame; an exception pushes
 *   an exception frame for its handler; an exception return (a taken
 *   INSN_F_EXC_RETURN instruction, ERET..., or an exception_return
 *   element) pops the frames down to and including the last exception
 *   frame. The frame pushed is named by where execution goes next: the
 *   address of the next instruction element (the key comes from
 *   stacks_config.frame). A branch that is not a call (B, BR: tail calls,
 *   jump tables) changes no frame.
 * - Unknown: at trace start, and after a trace_on, gap, overflow,
 *   no_image or Q element, the stack is forgotten: the next instruction
 *   starts [unknown, its frame]. A return (or exception return) past the
 *   known frames leaves [unknown, the frame of where it returned to].
 * - Depth: at most STACKS_MAX_DEPTH frames; a call beyond pushes the
 *   frame STACKS_KEY_TRUNCATED ("[truncated]") once, and the calls and
 *   returns beyond it are counted, not kept, until they balance.
 * - Weights: insn and insn_range elements add their instructions
 *   (insn_range: count * (repeats + 1)) to the stack that runs them,
 *   before their last instruction's call or return takes effect; their
 *   cycles (ETMKIT_INSN_CYCLES) likewise; a timestamp adds the time since
 *   the trace ID's previous timestamp to the stack running when it
 *   arrives.
 *
 * Memory grows with the distinct stacks (interned as the nodes of a call
 * tree: a stack is a node) and the threads, not with the trace: nothing
 * is allocated per element once its stack is known. Weights saturate at
 * UINT64_MAX (stacks_saturated()).
 */
#ifndef ETMKIT_STACKS_H
#define ETMKIT_STACKS_H

#include <stdio.h>

#include "etmkit/common.h"
#include "etmkit/elem.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STACKS_MAX_DEPTH 256    /* frames kept per thread, [unknown]
				   included */
#define STACKS_KEY_UNKNOWN   UINT64_MAX         /* "[unknown]" */
#define STACKS_KEY_TRUNCATED (UINT64_MAX - 1)   /* "[truncated]" */

/* What a stack is weighted by, and the clock of timelines. */
enum stacks_clock {
	stacks_insns = 0,   /* instructions executed */
	stacks_cycles,      /* cycles (cycle-accurate trace) */
	stacks_time,        /* timestamp units */
	stacks_clock_count
};

/* The key of the frame entered at run-time address @addr by trace ID @id
 * (@exc: an exception's handler): any number below STACKS_KEY_TRUNCATED,
 * the same for frames that should merge (the CLI: one per function
 * name). The answer must depend on @id and @addr only, between context
 * elements of any trace ID and stacks_finish() calls: the tracker may
 * reuse it meanwhile. Returns 0 with *@key set; a negative value stops stacks_elem(),
 * which returns it. */
typedef int (*stacks_frame_fn)(void *ctx, uint8_t id, uint64_t addr,
			       int exc, uint64_t *key);

/* Events for timelines (stacks_event_fn). */
enum stacks_event_kind {
	stacks_ev_frame = 0, /* a frame's activation ended: key, exc,
				begin, end */
	stacks_ev_lost,      /* trace lost or restarted (elem: the element
				kind), the stack forgotten: at begin */
	stacks_ev_exception  /* an exception was taken: at begin */
};

struct stacks_event {
	uint8_t kind;       /* enum stacks_event_kind */
	uint8_t id;         /* trace ID */
	uint8_t has_thread; /* thread is a traced context ID */
	uint8_t exc;        /* frame: an exception frame */
	uint8_t elem;       /* lost: enum etmkit_elem_kind (and loss, for a
			       gap) */
	uint8_t loss;
	uint16_t number;    /* exception: its number */
	uint32_t thread;
	uint32_t depth;     /* frame: frames below it (0: [unknown]) */
	uint64_t key;       /* frame */
	uint64_t begin, end;/* in the configured clock, per trace ID */
};

/* Returns 0, or a negative value that stops stacks_elem() (returned). */
typedef int (*stacks_event_fn)(void *ctx, const struct stacks_event *ev);

struct stacks_config {
	size_t size;             /* sizeof(struct stacks_config) */
	stacks_frame_fn frame;   /* required */
	stacks_event_fn event;   /* optional: timelines */
	void *ctx;               /* for both */
	uint8_t clock;           /* enum stacks_clock of the events */
};

void stacks_config_init(struct stacks_config *cfg);

struct stacks;

/* Returns 0 and sets *@s; -etmkit_err_invalid (NULL argument, bad size,
 * no frame, clock out of range), -etmkit_err_nomem. */
int stacks_alloc(struct stacks **s, const struct stacks_config *cfg);
void stacks_free(struct stacks *s);

/* Follow element @e of trace ID @id (0-127). Returns 0,
 * -etmkit_err_nomem (a new frame found no room: that thread's stack is
 * forgotten, as after a gap; a new thread found none: the thread that ran
 * before stays current), -etmkit_err_invalid (NULL
 * argument, @id above 127), -etmkit_err_unsupported (a branch_run
 * element, ETM4_FLOW_TRACES: its calls and returns are out of order),
 * or the callbacks' error. */
int stacks_elem(struct stacks *s, uint8_t id, const struct etmkit_elem *e);

/* Follow elements @e[0..@n-1] of trace ID @id in order (a session's
 * on_elems batch), with the arguments checked once: the same as
 * stacks_elem() on each element in turn, each followed whatever the one
 * before returned. Returns 0, the first error of an element (as
 * stacks_elem()), or -etmkit_err_invalid (NULL @s, NULL @e with @n > 0,
 * @id above 127: nothing followed). */
int stacks_elems(struct stacks *s, uint8_t id, const struct etmkit_elem *e,
		 size_t n);

/* End of an input: every frame ends (events), every stack is forgotten,
 * and the weights are complete (a running frame's instructions are added
 * to its stack when the frame changes): call before reading or writing
 * them. Returns 0 or the event callback's error; -etmkit_err_invalid. */
int stacks_finish(struct stacks *s);

/* Whether a weight reached UINT64_MAX and stopped there. */
int stacks_saturated(const struct stacks *s);

/* The call tree: node 0 is the empty stack; every other node is a stack,
 * its parent's plus one frame. */
struct stacks_node {
	uint32_t parent;
	uint32_t depth;            /* frames: 1 for [unknown] */
	uint64_t key;              /* the last frame */
	uint64_t weight[stacks_clock_count]; /* what ran with this stack
						on top (self) */
};
size_t stacks_node_count(const struct stacks *s);
/* Returns 0; -etmkit_err_invalid (@i out of range, NULL). */
int stacks_node_at(const struct stacks *s, size_t i, struct stacks_node *out);

/* The name of frame @key (never STACKS_KEY_UNKNOWN nor _TRUNCATED, which
 * the writer names itself): a string without ';' or newline, or NULL
 * (then "0x" and the key in hex). */
typedef const char *(*stacks_name_fn)(void *ctx, uint64_t key);

/* Folded stacks (digest perf-data.md 4f): one line per distinct stack
 * with weight @clock above 0, "root;...;leaf COUNT", frames by @name,
 * lines with the same frames merged (counts summed, saturating), sorted
 * by their text (bytewise). Returns 0; -etmkit_err_invalid (NULL
 * argument, @clock out of range), -etmkit_err_nomem, -etmkit_err_io
 * (writing @f failed). */
int stacks_write_folded(const struct stacks *s, FILE *f, unsigned clock,
			stacks_name_fn name, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_STACKS_H */
