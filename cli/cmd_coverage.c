/* etmkit coverage: INPUT..., each counted into a part, the parts merged
 * and written (cli/core.h, cli/coverage_run.c). */
#include "cli.h"
#include "core.h"

int cmd_coverage(int argc, char **argv)
{
	return cli_count_main(&cli_cmd_coverage, 0, argc, argv);
}
