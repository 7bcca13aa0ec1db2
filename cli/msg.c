/* etmkit CLI: messages, in the one style cli.h describes, to the sink
 * (stderr unless cli_msg_set_sink() names another). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "progress.h"

/* The message state of the thread's run: which command runs, -q, the
 * notes already given, the sink. Per thread, so that runs on other
 * threads (the core's callers, cli/core.h) keep theirs; cli_msg_reset()
 * starts a run's afresh. The library keeps no such state. */
#define MSG_MAX_NOTES 64

static _Thread_local struct {
	const char *cmd;
	int quiet;
	int nnotes;
	char *notes[MSG_MAX_NOTES];
	cli_msg_sink_fn *sink;
	void *sink_ctx;
} msg;

void cli_msg_command(const char *cmd)
{
	msg.cmd = cmd;
}

void cli_msg_quiet(int quiet)
{
	msg.quiet = quiet;
}

void cli_msg_set_sink(cli_msg_sink_fn *fn, void *ctx)
{
	msg.sink = fn;
	msg.sink_ctx = ctx;
}

void cli_msg_get_sink(cli_msg_sink_fn **fn, void **ctx)
{
	*fn = msg.sink;
	*ctx = msg.sink_ctx;
}

void cli_msg_reset(void)
{
	for (int i = 0; i < msg.nnotes; i++)
		free(msg.notes[i]);
	msg.nnotes = 0;
	msg.quiet = 0;
	msg.cmd = NULL;
}

void cli_msg_stderr(void *ctx, enum cli_msg_level level, const char *line)
{
	(void)ctx;
	(void)level;
	cli_progress_clear(); /* a message starts on a line of its own */
	fputs(line, stderr);
	fputc('\n', stderr);
}

static void emit(enum cli_msg_level level, const char *line)
{
	if (msg.sink)
		msg.sink(msg.sink_ctx, level, line);
	else
		cli_msg_stderr(NULL, level, line);
}

/* "etmkit CMD: " + @kind + the text of @fmt, emitted. */
static void say(enum cli_msg_level level, const char *kind, const char *fmt,
		va_list ap) __attribute__((format(printf, 3, 0)));

static void say(enum cli_msg_level level, const char *kind, const char *fmt,
		va_list ap)
{
	char buf[1024], *line = buf;
	int pre, n;
	va_list ap2;

	pre = level == cli_msg_detail ? 0 :
	      msg.cmd ? snprintf(buf, sizeof(buf), "etmkit %s: %s", msg.cmd,
				 kind) :
			snprintf(buf, sizeof(buf), "etmkit: %s", kind);
	if (pre < 0 || (size_t)pre >= sizeof(buf) / 2)
		pre = 0; /* not reached: command names are short */
	va_copy(ap2, ap);
	n = vsnprintf(buf + pre, sizeof(buf) - (size_t)pre, fmt, ap);
	if (n >= 0 && (size_t)(pre + n) >= sizeof(buf) &&
	    (line = malloc((size_t)pre + (size_t)n + 1))) {
		memcpy(line, buf, (size_t)pre);
		vsnprintf(line + pre, (size_t)n + 1, fmt, ap2);
	} else if (!line) {
		line = buf; /* out of memory: the text cut short */
	}
	va_end(ap2);
	emit(level, line);
	if (line != buf)
		free(line);
}

static void sayf(enum cli_msg_level level, const char *kind,
		 const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void sayf(enum cli_msg_level level, const char *kind,
		 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(level, kind, fmt, ap);
	va_end(ap);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(cli_msg_error, "", fmt, ap);
	va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(cli_msg_warning, "warning: ", fmt, ap);
	va_end(ap);
}

void cli_detail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(cli_msg_detail, "", fmt, ap);
	va_end(ap);
}

/* Returns 1 if @text was given before (and remembers it if not). */
static int note_seen(const char *text)
{
	for (int i = 0; i < msg.nnotes; i++)
		if (!strcmp(msg.notes[i], text))
			return 1;
	if (msg.nnotes < MSG_MAX_NOTES) {
		char *copy = strdup(text);

		if (copy)
			msg.notes[msg.nnotes++] = copy;
	}
	return 0;
}

void cli_note(const char *fmt, ...)
{
	char text[512];
	va_list ap;

	if (msg.quiet)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (note_seen(text))
		return;
	sayf(cli_msg_note, "note: ", "%s", text);
}

/* @line after what the caller's buffer holds, on a line of its own
 * (cut where the buffer ends). */
static void capture_add(struct cli_msg_capture *c, const char *line)
{
	size_t n = strlen(c->err);

	if (n + 1 < c->errlen)
		snprintf(c->err + n, c->errlen - n, "%s%s", n ? "\n" : "",
			 line);
}

/* Errors and their detail lines into the caller's buffer (the first
 * error's text first, past "etmkit CMD: "), and there only; warnings and
 * notes on to the sink that was there. */
static void capture_line(void *ctx, enum cli_msg_level level,
			 const char *line)
{
	struct cli_msg_capture *c = ctx;

	if (level == cli_msg_error) {
		const char *t = strstr(line, ": ");

		if (c->err && c->errlen)
			capture_add(c, t ? t + 2 : line);
		c->got = 1;
		c->in_error = 1;
		return;
	}
	if (level == cli_msg_detail && c->in_error) {
		if (c->err && c->errlen)
			capture_add(c, line);
		return;
	}
	c->in_error = 0;
	if (c->prev)
		c->prev(c->prev_ctx, level, line);
	else
		cli_msg_stderr(NULL, level, line);
}

void cli_msg_capture_begin(struct cli_msg_capture *c, char *err,
			   size_t errlen)
{
	cli_msg_reset();
	cli_progress_reset(cli_progress_off);
	cli_msg_capture_more(c, err, errlen);
}

void cli_msg_capture_more(struct cli_msg_capture *c, char *err,
			  size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->prev = msg.sink;
	c->prev_ctx = msg.sink_ctx;
	c->err = err;
	c->errlen = errlen;
	if (err && errlen)
		err[0] = 0;
	msg.sink = capture_line;
	msg.sink_ctx = c;
}

void cli_msg_capture_end(struct cli_msg_capture *c)
{
	msg.sink = c->prev;
	msg.sink_ctx = c->prev_ctx;
}

const char *cli_strerror(int errnum)
{
	static _Thread_local char text[256];

	snprintf(text, sizeof(text), "%s", strerror(errnum));
	/* "No such file" but not "EOF"-like words. */
	if (isupper((unsigned char)text[0]) && islower((unsigned char)text[1]))
		text[0] = (char)tolower((unsigned char)text[0]);
	return text;
}
