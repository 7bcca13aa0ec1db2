/* etmkit CLI: progress of a long read on stderr (cli/progress.h). */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <stdio.h>
#include <unistd.h>

/* The run's setting and the line on screen, per thread as cli/msg.c's
 * state (cli_progress_reset() starts a run's afresh). */
static _Thread_local struct {
	enum cli_progress_mode mode;
	int quiet;
	int width;                  /* of the line on screen; 0: none */
} pg;

/* Auto mode: inputs below this are over too soon to matter. */
#define AUTO_MIN_BYTES (4u << 20)
/* Auto mode: no line before this many ns; between lines at least
 * INTERVAL_NS (four a second). */
#define AUTO_DELAY_NS 500000000ll
#define INTERVAL_NS 250000000ll

void cli_progress_set_mode(enum cli_progress_mode m)
{
	pg.mode = m;
}

void cli_progress_quiet(int quiet)
{
	pg.quiet = quiet;
}

void cli_progress_reset(enum cli_progress_mode m)
{
	cli_progress_clear();
	pg.mode = m;
	pg.quiet = 0;
}

static long long ns_since(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000000000ll +
	       (b->tv_nsec - a->tv_nsec);
}

void cli_progress_start(struct cli_progress *p, uint64_t total,
			int stdout_free)
{
	int on;

	p->total = total;
	p->shown = 0;
	p->next = UINT64_MAX;
	if (pg.mode == cli_progress_on)
		on = 1;
	else if (pg.mode == cli_progress_off || pg.quiet)
		on = 0;
	else
		on = isatty(STDERR_FILENO) && total >= AUTO_MIN_BYTES &&
		     (stdout_free || !isatty(STDOUT_FILENO));
	if (!on)
		return;
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	p->last = p->start;
	p->next = CLI_PROGRESS_STEP;
}

void cli_progress_clear(void)
{
	if (!pg.width)
		return;
	fprintf(stderr, "\r%*s\r", pg.width, "");
	fflush(stderr);
	pg.width = 0;
}

void cli_progress_tick(struct cli_progress *p, uint64_t done)
{
	struct timespec now;
	long long el;
	double mbs, left;
	char line[128];
	int n;

	p->next = done + CLI_PROGRESS_STEP;
	clock_gettime(CLOCK_MONOTONIC, &now);
	el = ns_since(&p->start, &now);
	if (p->shown ? ns_since(&p->last, &now) < INTERVAL_NS :
	    pg.mode != cli_progress_on && el < AUTO_DELAY_NS)
		return;
	p->last = now;
	p->shown = 1;
	if (done > p->total)
		done = p->total;
	mbs = el > 0 ? (double)done / 1e6 / ((double)el / 1e9) : 0;
	n = snprintf(line, sizeof(line), "%.1f of %.1f MB of trace (%d%%), "
		     "%.1f MB/s", (double)done / 1e6, (double)p->total / 1e6,
		     p->total ? (int)(done * 100 / p->total) : 100, mbs);
	if (mbs > 0 && n > 0 && (size_t)n < sizeof(line)) {
		left = (double)(p->total - done) / 1e6 / mbs;
		n += snprintf(line + n, sizeof(line) - (size_t)n,
			      ", %.0f s left", left);
	}
	if (n <= 0)
		return;
	if (n >= (int)sizeof(line))
		n = (int)sizeof(line) - 1;
	/* pad over a longer line before it */
	fprintf(stderr, "\r%s%*s", line, pg.width > n ? pg.width - n : 0, "");
	fflush(stderr);
	if (n > pg.width)
		pg.width = n;
}

void cli_progress_end(struct cli_progress *p)
{
	p->next = UINT64_MAX;
	if (p->shown)
		cli_progress_clear();
}
