/* etmkit flame: the call stacks of a trace (etmkit/stacks.h) drawn as a
 * flame graph, one self-contained SVG file (cli/flame_svg.c); the input
 * and the counting are those of etmkit profile --format folded. */
#include "cli.h"

static const char flame_usage[] =
"Usage: etmkit flame PERF.DATA [--elf FILE[@BIAS]]... [--image FILE@ADDR]...\n"
"                    [OPTIONS]\n"
"       etmkit flame --snapshot DIR [--buffer NAME] [--id ID]...\n"
"                    [--image FILE@ADDR]... [--elf FILE[@BIAS]]... [OPTIONS]\n"
"       etmkit flame FILE --protocol etmv3|ptm|etmv4|ete|etmv2 [REGISTERS]\n"
"                    (--image FILE@ADDR | --elf FILE[@BIAS])... [OPTIONS]\n"
"  OPTIONS: [-o FILE.svg] [--weight insns|cycles|time] [--title TEXT]\n"
"           [--width PIXELS] [--quiet]\n"
"\n"
"Follow the calls and returns of the trace and draw the call stacks as a\n"
"flame graph: each frame as wide as the instructions (or cycles, or time)\n"
"that ran in it and the functions it called.\n";

static const char flame_notes[] =
"The graph is the folded stacks of 'etmkit profile --format folded' with\n"
"the same --weight, drawn: the root 'all' at the bottom, callees above\n"
"their callers in name order. Opened in a browser, a click zooms into a\n"
"frame, Ctrl-F (or Search) highlights the frames whose names match a\n"
"regular expression, Escape resets. docs/stacks.md has the rules.\n"
"\n"
"Exit status: 0 success; 1 the trace had decode errors (the graph is\n"
"drawn without what they hid); 2 usage error; 3 input missing,\n"
"unreadable or malformed, or the output cannot be written.\n";

const struct cli_command cli_cmd_flame = {
	"flame", CLI_CMD_FLAME, flame_usage, flame_notes
};

int cmd_flame(int argc, char **argv)
{
	return cli_profile_main(&cli_cmd_flame, 1, argc, argv);
}
