/* qemu_log_cat: print the execution record the QEMU log importer reads
 * from a log (or stdin), one item per line; with -c only count items and
 * report the speed. A testing aid: the real command is `etmkit encode
 * --from-qemu`. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "etmkit/qemu_log.h"
#include "qemu_fmt.h"

int main(int argc, char **argv)
{
	struct qemu_log_reader *rd;
	struct exec_rec r;
	struct exec_diag diag;
	struct qemu_log_stats st;
	struct timespec t0, t1;
	int count = 0, ret, i;
	const char *path = NULL;
	FILE *f = stdin;
	char line[160];
	double secs;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-c") == 0)
			count = 1;
		else
			path = argv[i];
	}
	if (path && strcmp(path, "-") && !(f = fopen(path, "r"))) {
		perror(path);
		return 2;
	}
	if (qemu_log_reader_alloc(&rd, f, NULL) < 0)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((ret = qemu_log_next(rd, &r, &diag)) == 1) {
		if (count)
			continue;
		qfmt_item(line, sizeof line, &r);
		puts(line);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	qemu_log_reader_stats(rd, &st);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (ret < 0)
		fprintf(stderr, "%s:%llu: %s (%s)\n", path ? path : "-",
			(unsigned long long)diag.line, diag.message,
			etmkit_errstr(ret));
	fprintf(stderr, "mode %s, %llu lines, %llu blocks, %llu insns, %llu gaps,"
		" %llu TBs, %.3f s, %.1f M insns/s\n",
		st.mode == qemu_log_mode_state ? "state" :
		st.mode == qemu_log_mode_block ? "block" : "unknown",
		(unsigned long long)st.lines, (unsigned long long)st.blocks,
		(unsigned long long)st.insns, (unsigned long long)st.gaps,
		(unsigned long long)st.tbs, secs, st.insns / secs / 1e6);
	qemu_log_reader_free(rd);
	if (f != stdin)
		fclose(f);
	return ret < 0 ? 1 : 0;
}
