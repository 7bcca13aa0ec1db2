/* etmkit flame: the call stacks of a trace (etmkit/stacks.h) drawn as a
 * flame graph, one self-contained SVG file (cli/flame_svg.c); the input
 * and the counting are those of etmkit profile --format folded. */
#include "cli.h"

int cmd_flame(int argc, char **argv)
{
	return cli_profile_main(&cli_cmd_flame, 1, argc, argv);
}
