/* peak_rss: run a command and write its peak resident set size, in KiB,
 * to a file: the child's ru_maxrss from wait4(). A small C parent, because
 * a child's ru_maxrss counts what its process held before exec() too (a
 * fork of a Python interpreter: 10 MB or more).
 *
 * usage: peak_rss OUT CMD [ARG]...
 * Exit: the command's status (127 when it cannot be run). */
#define _DEFAULT_SOURCE /* wait4() */

#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;
	FILE *out;

	if (argc < 3) {
		fprintf(stderr, "usage: peak_rss OUT CMD [ARG]...\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("peak_rss: fork");
		return 127;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror("peak_rss: exec");
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid) {
		perror("peak_rss: wait4");
		return 127;
	}
	out = fopen(argv[1], "w");
	if (!out || fprintf(out, "%ld\n", ru.ru_maxrss) < 0 || fclose(out)) {
		perror("peak_rss: cannot write the result");
		return 127;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
