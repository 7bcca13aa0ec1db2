/* The runs of the commands that count a whole trace (profile, flame,
 * coverage), in phases, so that the command's driver and the core's
 * entry points (cli/core.h) share them: options (argv as typed), the
 * counting of one input, the output. Each run is on the heap and holds
 * all its state: runs may follow each other in one process. */
#ifndef ETMKIT_CLI_RUNS_H
#define ETMKIT_CLI_RUNS_H

struct cli_command;

/* profile (@flame 0) and flame (1). */
struct profile_run;

/* A run of @cmd with the options of @argv (argv[0] the command's name):
 * *@r is set even on failure (profile_run_free() it). Returns 0, -1
 * after --help (printed), or a cli_exit after a message. */
int profile_run_new(struct profile_run **r, const struct cli_command *cmd,
		    int flame, int argc, char **argv);
/* Read, decode and count the input. Returns 0 or a cli_exit after a
 * message. */
int profile_run_count(struct profile_run *r);
/* Write the output as -o, --format and --binary say; then, after decode
 * errors, say how many (cli_exit_trace_errors). Returns 0 or a
 * cli_exit. */
int profile_run_write(struct profile_run *r);
void profile_run_free(struct profile_run *r);

/* coverage: the same phases. */
struct coverage_run;
int coverage_run_new(struct coverage_run **r, int argc, char **argv);
int coverage_run_count(struct coverage_run *r);
int coverage_run_write(struct coverage_run *r);
void coverage_run_free(struct coverage_run *r);

#endif /* ETMKIT_CLI_RUNS_H */
