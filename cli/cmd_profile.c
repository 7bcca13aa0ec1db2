/* etmkit profile and flame: options, the counting, the output
 * (cli/profile_run.c). */
#include "cli.h"
#include "core.h"
#include "runs.h"

/* profile, and flame (@flame: the folded stacks drawn as an SVG). */
int cli_profile_main(const struct cli_command *cmd, int flame, int argc,
		     char **argv)
{
	struct profile_run *r;
	int rc = profile_run_new(&r, cmd, flame, argc, argv);

	if (rc) {
		profile_run_free(r);
		return rc < 0 ? 0 : rc;
	}
	rc = profile_run_count(r);
	if (!rc)
		rc = profile_run_write(r);
	profile_run_free(r);
	return rc;
}

/* profile: INPUT... (cli/core.h) */
int cmd_profile(int argc, char **argv)
{
	return cli_count_main(&cli_cmd_profile, 0, argc, argv);
}
