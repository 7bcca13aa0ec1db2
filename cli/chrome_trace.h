/* etmkit CLI: a Chrome / Perfetto trace-event JSON timeline of call
 * stacks (digest perf-data.md 4f; cli/chrome_trace.c), written as the
 * stack tracker reports frames (etmkit/stacks.h stacks_event_fn): nothing
 * of the timeline is kept.
 *
 * {"traceEvents":[ ... ],"displayTimeUnit":"ns","otherData":{...}}:
 * pid = the trace ID, tid = the context ID when traced (else the trace
 * ID); "M" process_name, thread_name (the process's name and the
 * context ID, with chrome_trace_thread_names()) and process_labels (the clock) once
 * per pid / tid; "X" per frame activation (cat "function" or
 * "exception"), ts and dur in the clock's units; "i" (thread scope) for
 * exceptions and for trace lost or restarted. */
#ifndef ETMKIT_CLI_CHROME_TRACE_H
#define ETMKIT_CLI_CHROME_TRACE_H

#include <stdio.h>

#include "etmkit/stacks.h"
#include "stack_names.h"

struct chrome_trace;

/* NULL when out of memory. Writes the head of the file to @f. */
struct chrome_trace *chrome_trace_alloc(FILE *f, unsigned clock,
					const struct stack_names *names);
/* Name threads (perf.data: the process's COMM) by @comm(@ctx, trace ID,
 * context ID), NULL when it does not know. */
void chrome_trace_thread_names(struct chrome_trace *ct,
			       const char *(*comm)(void *ctx, uint8_t id,
						   uint32_t tid),
			       void *ctx);
/* A stacks_event_fn: @ctx is the chrome_trace. Returns 0 or
 * -etmkit_err_nomem. */
int chrome_trace_event(void *ctx, const struct stacks_event *ev);
/* Write the end of the file; 0, or -etmkit_err_io when a write failed. */
int chrome_trace_end(struct chrome_trace *ct);
void chrome_trace_free(struct chrome_trace *ct);

#endif
