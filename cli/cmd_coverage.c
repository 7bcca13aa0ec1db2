/* etmkit coverage: options, the counting, the output
 * (cli/coverage_run.c). */
#include "cli.h"
#include "runs.h"

int cmd_coverage(int argc, char **argv)
{
	struct coverage_run *r;
	int rc = coverage_run_new(&r, argc, argv);

	if (rc) {
		coverage_run_free(r);
		return rc < 0 ? 0 : rc;
	}
	rc = coverage_run_count(r);
	if (!rc)
		rc = coverage_run_write(r);
	coverage_run_free(r);
	return rc;
}
