/* etmkit: command-line front end. */
#include <string.h>

#include "cli.h"

static const char main_usage[] =
"Usage: etmkit COMMAND [OPTIONS]\n"
"\n"
"Decode ARM embedded trace captures: ETMv3 down to the executed\n"
"instructions; ETMv4 and ETE packets.\n"
"\n"
"Commands:\n"
"  decode    rebuild the executed instructions from trace and program image\n"
"  packets   list the trace packets of each trace source (ETMv3, ETMv4, ETE)\n"
"  frames    show the CoreSight formatter frames and trace IDs of a capture\n"
"  encode    turn an execution record or a QEMU log into trace and a\n"
"            snapshot (ETMv3, ETMv4, ETE)\n"
"  version   print etmkit's version\n"
"  help      this text; 'etmkit COMMAND --help' describes a command\n"
"\n"
"Examples:\n"
"  etmkit decode --snapshot path/to/snapshot --id 0x10\n"
"  etmkit decode trace.bin --protocol etmv3 --etmcr 0x1000 \\\n"
"         --etmidr 0x410cf250 --frames none --elf vmlinux\n"
"  etmkit packets --snapshot path/to/snapshot --id 0x10\n"
"  etmkit packets trace.bin --protocol etmv3 --etmcr 0x1000 \\\n"
"         --etmidr 0x410cf250 --frames none --json\n"
"  etmkit packets session1.bin --protocol ete --frames none \\\n"
"         --trcidr0 0x28c1cea1 --trcdevarch 0x47735a13\n"
"  etmkit frames --snapshot path/to/snapshot --summary\n"
"  etmkit encode --from-qemu qemu.log --protocol ete --out snap/\n"
"\n"
"See etmkit(1) for the output formats.\n";

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd || !strcmp(cmd, "help") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "-h")) {
		fputs(main_usage, cmd ? stdout : stderr);
		return cmd ? cli_exit_ok : cli_exit_usage;
	}
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("etmkit %s\n", etmkit_version());
		return cli_exit_ok;
	}
	if (!strcmp(cmd, "packets"))
		return cmd_packets(argc - 1, argv + 1);
	if (!strcmp(cmd, "frames"))
		return cmd_frames(argc - 1, argv + 1);
	if (!strcmp(cmd, "decode"))
		return cmd_decode(argc - 1, argv + 1);
	if (!strcmp(cmd, "encode"))
		return cmd_encode(argc - 1, argv + 1);
	fprintf(stderr, "etmkit: unknown command '%s' (see etmkit help)\n", cmd);
	return cli_exit_usage;
}
