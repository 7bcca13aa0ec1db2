/* The CLI core's entry points (cli/core.h) from a program of their own,
 * for tests/cli/multi_input.py, which compares what this prints and
 * writes with the etmkit CLI's output for the same arguments.
 *
 *   core_api part CMD OUT1 OUT2 OUT3 ARGS...
 *     cli_part_make() then cli_part_write() of `etmkit CMD ARGS` three
 *     times in this process: with -o OUT1, with -q -o OUT2, with -o OUT3.
 *     Each run's messages go to a sink here: a line "run N rc R notes K
 *     errors E" per run, then the lines its sink got (warnings and notes:
 *     errors go to the error text only) as "sink: LINE". The part of the
 *     first run is also saved, loaded and written again to OUT1.reload.
 *   core_api trace ARGS...
 *     cli_trace_open("decode", ARGS) and cli_trace_step() to the end,
 *     twice; prints "ID KIND COUNT" per trace ID and element kind of the
 *     first pass and "passes same" or "passes differ".
 *   core_api packets ARGS...
 *     cli_trace_open("packets", ARGS) and cli_trace_packets_step() to the
 *     end: "ID packets COUNT" per trace ID.
 *   core_api threads CMD OUT ARGS...
 *     cli_part_make() and cli_part_write() of `etmkit CMD ARGS -o OUT.N`
 *     on 4 threads at once (N 0-3), each with its own sink; prints
 *     "thread N rc R notes K" per thread.
 *   core_api expand INPUT...
 *     cli_inputs_expand(): one path a line, or "error: REASON". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core.h"
#include "etmkit/elem.h"
#include "etmkit/profile_part.h"

struct sink {
	int notes, errors;
	char lines[64][512];
	int n;
};

static void on_line(void *ctx, enum cli_msg_level level, const char *line)
{
	struct sink *s = ctx;

	s->notes += level == cli_msg_note;
	s->errors += level == cli_msg_error;
	if (s->n < 64)
		snprintf(s->lines[s->n++], sizeof(s->lines[0]), "%s", line);
}

/* argv of `etmkit CMD ARGS` with @extra words after ARGS. */
static char **make_argv(const char *cmd, int nargs, char **args,
			const char *const *extra, int nextra, int *argc)
{
	char **av = calloc((size_t)(nargs + nextra + 2), sizeof(*av));

	av[0] = (char *)cmd;
	for (int i = 0; i < nargs; i++)
		av[1 + i] = args[i];
	for (int i = 0; i < nextra; i++)
		av[1 + nargs + i] = (char *)extra[i];
	*argc = 1 + nargs + nextra;
	return av;
}

/* cli_trace_open() on copies of @av's strings, overwritten and freed
 * once it returns: the trace must hold on to nothing of the caller's
 * argv (the input's file name, the side-band's) for its steps and their
 * messages. */
static int open_scribbled(struct cli_trace **t, const char *cmd, int argc,
			  char **av, char *err, size_t errlen)
{
	char **copy = calloc((size_t)argc + 1, sizeof(*copy));
	int rc;

	for (int i = 0; i < argc; i++) {
		size_t n = strlen(av[i]) + 1;

		copy[i] = memcpy(malloc(n), av[i], n);
	}
	rc = cli_trace_open(t, cmd, argc, copy, err, errlen);
	for (int i = 0; i < argc; i++) {
		memset(copy[i], 'X', strlen(copy[i]));
		free(copy[i]);
	}
	free(copy);
	return rc;
}

static int part_run(const char *cmd, int run, const char *out, int quiet,
		    int nargs, char **args)
{
	const char *extra[3] = { "-q", "-o", out };
	struct sink s;
	struct profile_part *pp = NULL;
	char err[512];
	int argc, rc;
	char **av = make_argv(cmd, nargs, args, quiet ? extra : extra + 1,
			      quiet ? 3 : 2, &argc);

	memset(&s, 0, sizeof(s));
	cli_msg_set_sink(on_line, &s);
	rc = cli_part_make(cmd, argc, av, &pp, err, sizeof(err));
	free(av);
	if (!rc) {
		av = make_argv(cmd, nargs, args, quiet ? extra : extra + 1,
			       quiet ? 3 : 2, &argc);
		rc = cli_part_write(cmd, argc, av, pp, err, sizeof(err));
		free(av);
	}
	if (!rc && run == 1) {
		/* the saved form written as well */
		struct profile_part *q = NULL;
		uint8_t *buf = NULL;
		size_t n = 0;
		char path[1024];
		const char *e2[2] = { "-o", path };

		snprintf(path, sizeof(path), "%s.reload", out);
		if (profile_part_save_buf(pp, &buf, &n) == 0 &&
		    profile_part_load(&q, buf, n, NULL) == 0) {
			av = make_argv(cmd, nargs, args, e2, 2, &argc);
			cli_part_write(cmd, argc, av, q, NULL, 0);
			free(av);
		}
		free(buf);
		profile_part_free(q);
	}
	cli_msg_set_sink(NULL, NULL);
	printf("run %d rc %d notes %d errors %d\n", run, rc, s.notes,
	       s.errors);
	if (rc)
		printf("err: %s\n", err);
	for (int i = 0; i < s.n; i++)
		printf("sink: %s\n", s.lines[i]);
	profile_part_free(pp);
	return 0;
}

#define NKIND 64

struct counts {
	unsigned long long n[128][NKIND];
};

static int on_elems(void *ctx, uint8_t id, const struct etmkit_elem *e,
		    size_t n)
{
	struct counts *c = ctx;

	for (size_t i = 0; i < n; i++)
		c->n[id & 0x7f][e[i].kind < NKIND ? e[i].kind : 0]++;
	return 0;
}

static int trace_pass(int nargs, char **args, struct counts *c)
{
	struct cli_trace *t;
	char err[512];
	int argc, rc;
	char **av = make_argv("decode", nargs, args, NULL, 0, &argc);

	rc = open_scribbled(&t, "decode", argc, av, err, sizeof(err));
	free(av);
	if (rc) {
		printf("error: %s\n", err);
		return rc;
	}
	while ((rc = cli_trace_step(t, on_elems, c)) == 0)
		;
	cli_trace_close(t);
	return rc == 1 ? 0 : rc;
}

static int trace(int nargs, char **args)
{
	struct counts *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	int rc = trace_pass(nargs, args, a);

	if (!rc)
		rc = trace_pass(nargs, args, b);
	for (int id = 0; !rc && id < 128; id++)
		for (int k = 0; k < NKIND; k++)
			if (a->n[id][k])
				printf("%d %s %llu\n", id,
				       etmkit_elem_kind_name((unsigned)k),
				       a->n[id][k]);
	if (!rc)
		printf("passes %s\n", memcmp(a, b, sizeof(*a)) ? "differ" :
								 "same");
	free(a);
	free(b);
	return rc ? 1 : 0;
}

static int on_packet(void *ctx, uint8_t id, int proto, const void *packet)
{
	unsigned long long *n = ctx;

	(void)proto;
	(void)packet;
	n[id & 0x7f]++;
	return 0;
}

static int packets(int nargs, char **args)
{
	unsigned long long n[128] = { 0 };
	struct cli_trace *t;
	char err[512];
	int argc, rc;
	char **av = make_argv("packets", nargs, args, NULL, 0, &argc);

	rc = open_scribbled(&t, "packets", argc, av, err, sizeof(err));
	free(av);
	if (rc) {
		printf("error: %s\n", err);
		return 1;
	}
	while ((rc = cli_trace_packets_step(t, on_packet, n)) == 0)
		;
	cli_trace_close(t);
	for (int id = 0; id < 128; id++)
		if (n[id])
			printf("%d packets %llu\n", id, n[id]);
	return rc == 1 ? 0 : 1;
}

struct job {
	const char *cmd;
	char out[1024];
	int nargs;
	char **args;
	int rc;
	struct sink s;
};

static void *job_run(void *arg)
{
	struct job *j = arg;
	const char *extra[2] = { "-o", j->out };
	struct profile_part *pp = NULL;
	int argc;
	char **av = make_argv(j->cmd, j->nargs, j->args, extra, 2, &argc);

	cli_msg_set_sink(on_line, &j->s);
	j->rc = cli_part_make(j->cmd, argc, av, &pp, NULL, 0);
	free(av);
	if (!j->rc) {
		av = make_argv(j->cmd, j->nargs, j->args, extra, 2, &argc);
		j->rc = cli_part_write(j->cmd, argc, av, pp, NULL, 0);
		free(av);
	}
	profile_part_free(pp);
	return NULL;
}

static int threads(const char *cmd, const char *out, int nargs, char **args)
{
	struct job *j = calloc(4, sizeof(*j));
	pthread_t th[4];

	for (int i = 0; i < 4; i++) {
		j[i].cmd = cmd;
		snprintf(j[i].out, sizeof(j[i].out), "%s.%d", out, i);
		j[i].nargs = nargs;
		j[i].args = args;
		pthread_create(&th[i], NULL, job_run, &j[i]);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		printf("thread %d rc %d notes %d\n", i, j[i].rc, j[i].s.notes);
	}
	free(j);
	return 0;
}

static int expand(int n, char **in)
{
	char **v, err[512];
	size_t nv;

	if (cli_inputs_expand(n, in, &v, &nv, err, sizeof(err))) {
		printf("error: %s\n", err);
		return 0;
	}
	for (size_t i = 0; i < nv; i++)
		printf("%s\n", v[i]);
	cli_inputs_free(v, nv);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 6 && !strcmp(argv[1], "part")) {
		for (int run = 1; run <= 3; run++)
			part_run(argv[2], run, argv[2 + run], run == 2,
				 argc - 6, argv + 6);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "trace"))
		return trace(argc - 2, argv + 2);
	if (argc >= 4 && !strcmp(argv[1], "threads"))
		return threads(argv[2], argv[3], argc - 4, argv + 4);
	if (argc >= 2 && !strcmp(argv[1], "packets"))
		return packets(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "expand"))
		return expand(argc - 2, argv + 2);
	fprintf(stderr, "usage: core_api part|trace|expand ...\n");
	return 2;
}
