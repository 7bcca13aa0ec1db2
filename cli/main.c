/* etmkit: command-line front end. */
#include <string.h>

#include "cli.h"

static const char main_usage[] =
"Usage: etmkit COMMAND [OPTIONS]\n"
"\n"
"Decode ARM embedded trace captures (ETMv3, PTM, ETMv4 and ETE): the packets,\n"
"and with the program image the executed instructions.\n"
"\n"
"Commands:\n"
"  decode    rebuild the executed instructions from trace and program image\n"
"            (ETMv3, PTM, ETMv4, ETE, ETMv2)\n"
"  profile   count the executed ranges and branches per binary: an AutoFDO\n"
"            profile (ETMv3, PTM, ETMv4, ETE, ETMv2); or the call stacks,\n"
"            folded or as a Chrome JSON timeline\n"
"  coverage  line, function and branch coverage from trace and DWARF: an\n"
"            lcov tracefile, or a per-function summary\n"
"  flame     draw the call stacks as a flame graph (SVG)\n"
"  packets   list the trace packets of each trace source (ETMv3, PTM, ETMv4,\n"
"            ETE, ETMv2)\n"
"  frames    show the CoreSight formatter frames and trace IDs of a capture\n"
"  encode    turn an execution record or a QEMU log into trace and a\n"
"            snapshot (ETMv3, ETMv4, ETE)\n"
"  version   print etmkit's version\n"
"  help      this text; 'etmkit help COMMAND' (or 'etmkit COMMAND --help')\n"
"            describes a command\n"
"\n"
"Every command takes -h (--help) and -q (--quiet: no notes).\n"
"\n"
"Examples:\n"
"  etmkit decode --snapshot path/to/snapshot --id 0x10\n"
"  etmkit decode trace.bin --protocol etmv3 --etmcr 0x1000 \\\n"
"         --etmidr 0x410cf250 --frames none --elf vmlinux\n"
"  etmkit decode session1.bin --protocol ete --frames none \\\n"
"         --trcidr0 0x28c1cea1 --trcdevarch 0x47735a13 --elf prog\n"
"  etmkit packets --snapshot path/to/snapshot --id 0x10\n"
"  etmkit packets trace.bin --protocol etmv3 --etmcr 0x1000 \\\n"
"         --etmidr 0x410cf250 --frames none --json\n"
"  etmkit profile perf.data --elf prog@0x5500000000 -o prog.afdo\n"
"  etmkit coverage --snapshot snap/ --elf prog -o prog.info\n"
"  etmkit frames --snapshot path/to/snapshot --summary\n"
"  etmkit encode --from-qemu qemu.log --protocol ete --out snap/\n"
"\n"
"See etmkit(1) (man etmkit, or docs/etmkit.1) for all options and the\n"
"output formats.\n";

static int run(const char *cmd, int argc, char **argv)
{
	if (!strcmp(cmd, "packets"))
		return cmd_packets(argc, argv);
	if (!strcmp(cmd, "frames"))
		return cmd_frames(argc, argv);
	if (!strcmp(cmd, "decode"))
		return cmd_decode(argc, argv);
	if (!strcmp(cmd, "encode"))
		return cmd_encode(argc, argv);
	if (!strcmp(cmd, "profile"))
		return cmd_profile(argc, argv);
	if (!strcmp(cmd, "coverage"))
		return cmd_coverage(argc, argv);
	if (!strcmp(cmd, "flame"))
		return cmd_flame(argc, argv);
	cli_error("unknown command '%s' (see etmkit help)", cmd);
	return cli_exit_usage;
}

/* etmkit help [COMMAND | --options]: COMMAND's --help; --options lists
 * the option table (for tests/cli/check_help.py). */
static int help(int argc, char **argv)
{
	char help_arg[] = "--help";
	char *args[] = { argv[1], help_arg, NULL };

	if (argc < 2) {
		fputs(main_usage, stdout);
		return cli_exit_ok;
	}
	if (argc == 2 && !strcmp(argv[1], "--options")) {
		cli_print_option_list(stdout);
		return cli_exit_ok;
	}
	if (argc > 2 || !cli_command_find(argv[1])) {
		cli_msg_command("help");
		cli_error("unknown command '%s' (see etmkit help)", argv[1]);
		return cli_exit_usage;
	}
	return run(argv[1], 2, args);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd) {
		cli_error("no command: decode, profile, coverage, flame, packets, "
			  "frames, encode, "
			  "version "
			  "or help (see etmkit help)");
		return cli_exit_usage;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "-h"))
		return help(argc - 1, argv + 1);
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("etmkit %s\n", etmkit_version());
		return cli_exit_ok;
	}
	return run(cmd, argc - 1, argv + 1);
}
