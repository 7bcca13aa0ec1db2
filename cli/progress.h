/* etmkit CLI: progress of a long read on stderr (issue 16: "Long runs show
 * progress on stderr when it is a terminal ..., and never when it is
 * not").
 *
 * One updating line, "\r"-rewritten: bytes of trace done and the total,
 * the rate and the time left, at most four times a second, cleared when
 * the read ends (and before any message, cli/msg.c). The input layer
 * (cli_input_stream(), cli_perf_stream()) reports its file position after
 * each piece it feeds; the cost there is one compare, the clock is read
 * only every CLI_PROGRESS_STEP bytes. */
#ifndef ETMKIT_CLI_PROGRESS_H
#define ETMKIT_CLI_PROGRESS_H

#include <stdint.h>
#include <time.h>

/* Bytes between looks at the clock. */
#define CLI_PROGRESS_STEP (256u << 10)

/* --progress, --no-progress: whether to show it (default: auto). */
enum cli_progress_mode {
	cli_progress_auto, cli_progress_on, cli_progress_off
};

/* One read being shown. */
struct cli_progress {
	uint64_t next;              /* the byte count to look at the clock
				       at; UINT64_MAX when not shown */
	uint64_t total;             /* bytes to read */
	struct timespec start, last;
	int shown;                  /* a line has been printed */
};

/* The process's choice (the last of --progress, --no-progress wins; -q
 * turns off the automatic one). */
void cli_progress_set_mode(enum cli_progress_mode m);
void cli_progress_quiet(int quiet);
/* A new run on the thread: mode @m (the core's callers: off, no line
 * on a stderr that is not theirs), not quiet. */
void cli_progress_reset(enum cli_progress_mode m);

/* Start showing a read of @total bytes in @p. Auto: shown when stderr is
 * a terminal, @stdout_free (the command lists nothing on stdout, or
 * stdout is not a terminal) and @total is at least 4 MiB, from half a
 * second in; --progress: always, from the first look at the clock. */
void cli_progress_start(struct cli_progress *p, uint64_t total,
			int stdout_free);

void cli_progress_tick(struct cli_progress *p, uint64_t done);

/* @done bytes of the total read. */
static inline void cli_progress_at(struct cli_progress *p, uint64_t done)
{
	if (done >= p->next)
		cli_progress_tick(p, done);
}

/* The read is over: clear the line. */
void cli_progress_end(struct cli_progress *p);

/* Clear the line on screen, if any (before a message). */
void cli_progress_clear(void);

#endif
