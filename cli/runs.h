/* The runs of the commands that count a whole trace (profile, flame,
 * coverage), in phases, so that the command's driver and the core's
 * entry points (cli/core.h) share them: options (argv as typed), the
 * counting of one input, the output. Each run is on the heap and holds
 * all its state: runs may follow each other in one process. */
#ifndef ETMKIT_CLI_RUNS_H
#define ETMKIT_CLI_RUNS_H

#include <stddef.h>

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

/* Parts (etmkit/profile_part.h). The kind of part the run's options make
 * (enum profile_part_kind), or 0: none (the call stacks of folded,
 * chrome, flame and profgen --stacks). */
struct profile_part;
struct locate;
int profile_run_kind(const struct profile_run *r);
/* The run's input (its options; after profile_run_count() resolved). */
struct cli_input *profile_run_input(struct profile_run *r);
/* After profile_run_count(): the counts, every binary of the locator and
 * the counters (1 input, its decode errors) added to @pp. Returns 0 or a
 * cli_exit after a message. */
int profile_run_part(struct profile_run *r, struct profile_part *pp);
/* Instead of profile_run_count() and profile_run_write(): write @pp's
 * counts as profile_run_write() does a run's (@pp must outlive @r). */
int profile_run_write_part(struct profile_run *r,
			   const struct profile_part *pp);
/* Every binary of @loc (may be NULL) into @pp; *@map (free() it, set
 * even on failure) of *@n entries: the locator's index -> the part's.
 * Returns 0 or a cli_exit after a message. */
int cli_part_binaries(struct profile_part *pp, const struct locate *loc,
		      long **map, size_t *n);
/* The counts of finished profile @p, or else coverage @cov, counted
 * through @c, into @pp: every binary of its locator, the entries, the
 * counters (1 input, its decode errors, @etm3). Returns 0 or a cli_exit
 * after a message. */
struct cli_counting;
struct profile;
struct coverage;
int cli_part_add(struct profile_part *pp, const struct cli_counting *c,
		 const struct profile *p, const struct coverage *cov, int etm3);

/* coverage: the same phases. */
struct coverage_run;
int coverage_run_new(struct coverage_run **r, int argc, char **argv);
int coverage_run_count(struct coverage_run *r);
int coverage_run_write(struct coverage_run *r);
void coverage_run_free(struct coverage_run *r);
/* As profile_run_part() and profile_run_write_part() (a
 * profile_part_kind_coverage part). */
struct cli_input *coverage_run_input(struct coverage_run *r);
int coverage_run_part(struct coverage_run *r, struct profile_part *pp);
int coverage_run_write_part(struct coverage_run *r,
			    const struct profile_part *pp);

#endif /* ETMKIT_CLI_RUNS_H */
