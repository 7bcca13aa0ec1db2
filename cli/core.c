/* etmkit CLI core: the driver of profile and coverage over INPUT...
 * and the entry points for other programs (cli/core.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core.h"
#include "progress.h"
#include "runs.h"
#include "etmkit/profile_part.h"

/* ---- The two runs behind one face ---------------------------------------- */

struct run_ops {
	int (*make)(void **r, const struct cli_command *cmd, int flame,
		    int argc, char **argv);
	int (*count)(void *r);
	int (*write)(void *r);
	int (*kind)(void *r);
	int (*part)(void *r, struct profile_part *pp);
	int (*write_part)(void *r, const struct profile_part *pp);
	struct cli_input *(*input)(void *r);
	void (*free)(void *r);
};

static int prof_make(void **r, const struct cli_command *cmd, int flame,
		     int argc, char **argv)
{
	struct profile_run *p;
	int rc = profile_run_new(&p, cmd, flame, argc, argv);

	*r = p;
	return rc;
}

static int prof_count(void *r) { return profile_run_count(r); }
static int prof_write(void *r) { return profile_run_write(r); }
static int prof_kind(void *r) { return profile_run_kind(r); }
static int prof_part(void *r, struct profile_part *pp)
{
	return profile_run_part(r, pp);
}
static int prof_write_part(void *r, const struct profile_part *pp)
{
	return profile_run_write_part(r, pp);
}
static struct cli_input *prof_input(void *r) { return profile_run_input(r); }
static void prof_free(void *r) { profile_run_free(r); }

static const struct run_ops profile_ops = {
	prof_make, prof_count, prof_write, prof_kind, prof_part,
	prof_write_part, prof_input, prof_free
};

static int cov_make(void **r, const struct cli_command *cmd, int flame,
		    int argc, char **argv)
{
	struct coverage_run *c;
	int rc;

	(void)cmd;
	(void)flame;
	rc = coverage_run_new(&c, argc, argv);
	*r = c;
	return rc;
}

static int cov_count(void *r) { return coverage_run_count(r); }
static int cov_write(void *r) { return coverage_run_write(r); }
static int cov_kind(void *r) { (void)r; return profile_part_kind_coverage; }
static int cov_part(void *r, struct profile_part *pp)
{
	return coverage_run_part(r, pp);
}
static int cov_write_part(void *r, const struct profile_part *pp)
{
	return coverage_run_write_part(r, pp);
}
static struct cli_input *cov_input(void *r) { return coverage_run_input(r); }
static void cov_free(void *r) { coverage_run_free(r); }

static const struct run_ops coverage_ops = {
	cov_make, cov_count, cov_write, cov_kind, cov_part, cov_write_part,
	cov_input, cov_free
};

static const struct run_ops *ops_of(const struct cli_command *cmd)
{
	return cmd->bit == CLI_CMD_COVERAGE ? &coverage_ops : &profile_ops;
}

/* ---- One input ------------------------------------------------------------ */

/* argv[0..@nopts-1] (the options, getopt's order) and @input (NULL:
 * none) in a new array. */
static char **input_argv(char **argv, int nopts, const char *input,
			 int *argc)
{
	char **av = malloc(((size_t)nopts + 2) * sizeof(*av));

	if (!av)
		return NULL;
	memcpy(av, argv, (size_t)nopts * sizeof(*av));
	*argc = nopts;
	if (input)
		av[(*argc)++] = (char *)input;
	av[*argc] = NULL;
	return av;
}

/* Count @argc/@argv (one input) into a new part *@out. Returns 0 or a
 * cli_exit after a message. */
static int count_part(const struct run_ops *o, const struct cli_command *cmd,
		      int argc, char **argv, struct profile_part **out)
{
	void *r;
	int err, kind, rc = o->make(&r, cmd, 0, argc, argv);

	*out = NULL;
	if (rc < 0)
		rc = cli_exit_usage; /* --help: no part */
	kind = rc ? 0 : o->kind(r);
	if (!rc && !kind) {
		cli_error("--format %s counts call stacks, which make no part "
			  "to merge: one input only", "folded, chrome or "
			  "profgen --stacks");
		rc = cli_exit_usage;
	}
	if (!rc && o->input(r)->nfiles > 1) {
		cli_error("one input at a time here (%d given)",
			  o->input(r)->nfiles);
		rc = cli_exit_usage;
	}
	if (!rc)
		rc = o->count(r);
	if (!rc) {
		err = profile_part_alloc(out, (enum profile_part_kind)kind);
		if (err < 0) {
			cli_error("out of memory");
			rc = cli_exit_input;
		}
	}
	if (!rc)
		rc = o->part(r, *out);
	if (rc) {
		profile_part_free(*out);
		*out = NULL;
	}
	o->free(r);
	return rc;
}

/* The call stacks: one input, counted and written as always. */
static int count_write(const struct run_ops *o, const struct cli_command *cmd,
		       int flame, int argc, char **argv)
{
	void *r;
	int rc = o->make(&r, cmd, flame, argc, argv);

	if (!rc)
		rc = o->count(r);
	if (!rc)
		rc = o->write(r);
	o->free(r);
	return rc < 0 ? 0 : rc;
}

/* ---- The driver ------------------------------------------------------------ */

/* Count every input of @list (@n of them; none: argv's options alone,
 * --snapshot DIR or no input) into *@total. *@left: those left out, the
 * worst exit class of theirs in *@worst. */
static void count_all(const struct run_ops *o, const struct cli_command *cmd,
		      char **argv, int nopts, char **list, size_t n,
		      struct profile_part **total, size_t *left, int *worst)
{
	size_t m = n ? n : 1;

	*left = 0;
	*worst = 0;
	for (size_t i = 0; i < m; i++) {
		struct profile_part *pp = NULL;
		int argc_i, rc, err = 0;
		char **av = input_argv(argv, nopts, n ? list[i] : NULL,
				       &argc_i);

		rc = av ? count_part(o, cmd, argc_i, av, &pp) : cli_exit_input;
		if (!av)
			cli_error("out of memory");
		free(av);
		if (!rc && !*total) {
			*total = pp;
			pp = NULL;
		} else if (!rc) {
			err = profile_part_merge(*total, pp);
		}
		if (err < 0) {
			cli_error("%s: %s", list[i], *profile_part_message(
					  *total) ? profile_part_message(*total) :
					  etmkit_errstr(err));
			rc = cli_exit_input;
		}
		profile_part_free(pp);
		if (!rc)
			continue;
		if (m > 1)
			cli_error("%s: left out", list[i]);
		++*left;
		if (rc > *worst)
			*worst = rc;
	}
}

int cli_count_main(const struct cli_command *cmd, int flame, int argc,
		   char **argv)
{
	const struct run_ops *o = ops_of(cmd);
	struct profile_part *total = NULL;
	struct cli_input *in;
	char **list = NULL, err[1024];
	size_t n = 0, left = 0;
	void *r;
	int rc = o->make(&r, cmd, flame, argc, argv), worst = 0;

	if (rc) {
		o->free(r);
		return rc < 0 ? 0 : rc;
	}
	in = o->input(r);
	if (in->nfiles) {
		rc = cli_inputs_expand(in->nfiles, in->files, &list, &n, err,
				       sizeof(err));
		if (rc)
			cli_error("%s", err);
	}
	if (!rc && !o->kind(r)) {
		/* call stacks: one input, as typed or expanded */
		int argc_1;
		char **av = n > 1 ? NULL : input_argv(argv, in->nopts,
						       n ? list[0] : NULL,
						       &argc_1);

		if (n > 1)
			cli_error("the call stacks (folded, chrome, flame, "
				  "profgen --stacks) take one input, not %zu",
				  n);
		rc = n > 1 ? cli_exit_usage :
		     av ? count_write(o, cmd, flame, argc_1, av) :
			  cli_exit_input;
		free(av);
		goto out;
	}
	if (!rc)
		count_all(o, cmd, argv, in->nopts, list, n, &total, &left,
			  &worst);
	if (!rc && !total)
		/* none counted: as one input would */
		rc = n <= 1 ? worst : worst == cli_exit_usage ?
				      cli_exit_usage : cli_exit_input;
	if (!rc)
		rc = o->write_part(r, total);
	if (left && n > 1) {
		cli_error("%zu of %zu inputs left out", left, n);
		if (rc == cli_exit_ok)
			rc = cli_exit_trace_errors;
	}
out:
	profile_part_free(total);
	cli_inputs_free(list, n);
	o->free(r);
	return rc;
}

static const char *part_kind_name(int kind)
{
	return kind == profile_part_kind_tally ? "ranges (autofdo)" :
	       kind == profile_part_kind_traces ?
		       "taken-branch traces (bolt, profgen)" :
	       kind == profile_part_kind_coverage ? "coverage" :
						    "call stacks (no part)";
}

/* ---- Entry points ------------------------------------------------------------ */

static const struct cli_command *command_of(const char *cmd,
					    const struct cli_command **c)
{
	*c = NULL;
	if (cmd && !strcmp(cmd, "profile"))
		*c = &cli_cmd_profile;
	else if (cmd && !strcmp(cmd, "coverage"))
		*c = &cli_cmd_coverage;
	else
		cli_error("no command '%s' here: profile or coverage",
			  cmd ? cmd : "(null)");
	return *c;
}

int cli_part_make(const char *cmd, int argc, char **argv,
		  struct profile_part **out, char *err, size_t errlen)
{
	const struct cli_command *c;
	struct cli_msg_capture cap;
	int rc;

	cli_msg_capture_begin(&cap, err, errlen);
	*out = NULL;
	rc = command_of(cmd, &c) ?
	     count_part(ops_of(c), c, argc, argv, out) : cli_exit_usage;
	cli_msg_capture_end(&cap);
	return rc;
}

int cli_part_write(const char *cmd, int argc, char **argv,
		   const struct profile_part *pp, char *err, size_t errlen)
{
	const struct cli_command *c;
	const struct run_ops *o;
	struct cli_msg_capture cap;
	void *r = NULL;
	int kind, rc;

	cli_msg_capture_begin(&cap, err, errlen);
	rc = command_of(cmd, &c) ? 0 : cli_exit_usage;
	o = c ? ops_of(c) : NULL;
	if (!rc)
		rc = o->make(&r, c, 0, argc, argv);
	if (rc < 0)
		rc = cli_exit_usage;
	kind = rc ? 0 : o->kind(r);
	if (!rc && kind != (int)profile_part_kind_of(pp)) {
		cli_error("the part counts %s; these options write %s",
			  part_kind_name((int)profile_part_kind_of(pp)),
			  part_kind_name(kind));
		rc = cli_exit_usage;
	}
	if (!rc)
		rc = o->write_part(r, pp);
	if (o)
		o->free(r);
	cli_msg_capture_end(&cap);
	return rc;
}
