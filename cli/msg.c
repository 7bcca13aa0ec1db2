/* etmkit CLI: messages on stderr, in the one style cli.h describes. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "progress.h"

/* The process's message state: which command runs, -q, and the notes
 * already printed. The CLI runs one command per process on one thread;
 * the library keeps no such state. */
#define MSG_MAX_NOTES 64

static struct {
	const char *cmd;
	int quiet;
	int nnotes;
	char *notes[MSG_MAX_NOTES];
} msg;

void cli_msg_command(const char *cmd)
{
	msg.cmd = cmd;
}

void cli_msg_quiet(int quiet)
{
	msg.quiet = quiet;
}

static void prefix(void)
{
	cli_progress_clear(); /* a message starts on a line of its own */
	if (msg.cmd)
		fprintf(stderr, "etmkit %s: ", msg.cmd);
	else
		fputs("etmkit: ", stderr);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	prefix();
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	prefix();
	fputs("warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Returns 1 if @text was printed before (and remembers it if not). */
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
	prefix();
	fprintf(stderr, "note: %s\n", text);
}

const char *cli_strerror(int errnum)
{
	static char text[256];

	snprintf(text, sizeof(text), "%s", strerror(errnum));
	/* "No such file" but not "EOF"-like words. */
	if (isupper((unsigned char)text[0]) && islower((unsigned char)text[1]))
		text[0] = (char)tolower((unsigned char)text[0]);
	return text;
}
