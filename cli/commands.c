/* etmkit CLI: the commands' descriptors and help text (usage before the
 * option table's lines, notes after), apart from the code that runs
 * them: the option table (cli/options.c) names every command, and the
 * core library (etmkit_cli_core) holds the table without the front
 * ends. */
#include "cli.h"

/* ---- decode ---------------------------------------------------------------- */

static const char decode_usage[] =
"Usage: etmkit decode --snapshot DIR [--buffer NAME] [--id ID]...\n"
"                     [--image FILE@ADDR]... [--elf FILE[@BIAS]]... [OPTIONS]\n"
"       etmkit decode FILE --protocol etmv3 --etmcr X --etmidr Y [--etmccer Z]\n"
"                     [--m-profile] (--image FILE@ADDR | --elf FILE[@BIAS])...\n"
"                     [OPTIONS]\n"
"       etmkit decode FILE --protocol ptm --etmcr X --etmidr Y [--etmccer Z]\n"
"                     (--image FILE@ADDR | --elf FILE[@BIAS])... [OPTIONS]\n"
"       etmkit decode FILE --protocol etmv4|ete [--trcidr0 V] [--trcidr1 V]\n"
"                     [--trcidr2 V] [--trcidr8 V] [--trcconfigr V]\n"
"                     [--trcdevarch V]\n"
"                     (--image FILE@ADDR | --elf FILE[@BIAS])... [OPTIONS]\n"
"       etmkit decode FILE --protocol etmv2 [--etmcr X] [--etmidr Y]\n"
"                     [--port-width N] [--capture-format F] [ETMv2 OPTIONS]\n"
"                     (--image FILE@ADDR | --elf FILE[@BIAS])... [OPTIONS]\n"
"       etmkit decode PERF.DATA [--symfs DIR] [--buildid-dir DIR]\n"
"                     [--vmlinux FILE] [--elf FILE]... [--cpu LIST]\n"
"                     [--pid LIST] [--binary REGEX] [OPTIONS]\n"
"  OPTIONS: [--frames MODE] [--id ID] [--json] [--ranges] [--stats]\n"
"           [--stop-on-error] [--quiet]\n"
"\n"
"Rebuild what the core executed, instruction by instruction, from the trace\n"
"of each ETMv3, PTM, ETMv4 and ETE source and the program image; or from an\n"
"ETMv2 or ETMv1 trace port capture (an element's offset is then its cycle\n"
"index).\n";

static const char decode_notes[] =
"The etmv4 register defaults are an Arm Juno r1's ETMv4.0, the ete ones an\n"
"Arm FVP's ETE 1.0; the registers of one family are refused with the other.\n"
"ETMv4 and ETE trace with conditional-instruction or data trace enabled is\n"
"refused ('etmkit packets' lists it).\n"
"\n"
"Where the image has no code for an address a no_image line says so, and\n"
"decoding goes on from the next address the trace gives.\n"
"\n"
"Exit status: 0 success; 1 the trace had decode errors (reported as gap\n"
"lines); 2 usage error; 3 input missing, unreadable or malformed.\n";

const struct cli_command cli_cmd_decode = {
	"decode", CLI_CMD_DECODE, decode_usage, decode_notes
};

/* ---- packets --------------------------------------------------------------- */

static const char packets_usage[] =
"Usage: etmkit packets --snapshot DIR [--buffer NAME] [--id ID]... [OPTIONS]\n"
"       etmkit packets FILE --protocol etmv3 --etmcr X --etmidr Y [--etmccer Z]\n"
"                      [--m-profile] [OPTIONS]\n"
"       etmkit packets FILE --protocol ptm --etmcr X --etmidr Y [--etmccer Z]\n"
"                      [OPTIONS]\n"
"       etmkit packets FILE --protocol etmv4|ete [--trcidr0 V] [--trcidr1 V]\n"
"                      [--trcidr2 V] [--trcidr8 V] [--trcconfigr V]\n"
"                      [--trcdevarch V] [OPTIONS]\n"
"       etmkit packets FILE --protocol etmv2 [--etmcr X] [--etmidr Y]\n"
"                      [--port-width N] [--capture-format F] [ETMv2 OPTIONS]\n"
"                      [OPTIONS]\n"
"  OPTIONS: [--frames MODE] [--id ID] [--json] [--stats] [--stop-on-error]\n"
"           [--quiet]\n"
"\n"
"List the trace packets of each ETMv3, PTM, ETMv4 and ETE trace source, one\n"
"line per packet; of an ETMv2 or ETMv1 capture, one line per record (a\n"
"cycle's status, a run of cycles or a packet), its offset the cycle index.\n";

static const char packets_notes[] =
"The etmv4 register defaults are an Arm Juno r1's ETMv4.0, the ete ones an\n"
"Arm FVP's ETE 1.0; the registers of one family are refused with the other.\n"
"\n"
"Bytes before the first A-sync (and after a decode error, until the next\n"
"A-sync) are reported as one 'unsynced' record per run. A reserved header or\n"
"malformed packet is reported with ERROR and decoding resumes at the next\n"
"A-sync.\n"
"\n"
"Exit status: 0 success; 1 the trace had decode errors (reported); 2 usage\n"
"error; 3 input missing, unreadable or malformed.\n";

const struct cli_command cli_cmd_packets = {
	"packets", CLI_CMD_PACKETS, packets_usage, packets_notes
};

/* ---- frames ---------------------------------------------------------------- */

static const char frames_usage[] =
"Usage: etmkit frames --snapshot DIR [--buffer NAME] [--frames MODE] [--summary]\n"
"       etmkit frames FILE [--frames MODE] [--summary]\n"
"       etmkit frames PERF.DATA [--summary]\n"
"\n"
"Show how the CoreSight trace formatter frames of a capture split into trace\n"
"source IDs (any protocol).\n";

static const char frames_notes[] =
"A perf.data file is listed AUX record by AUX record, at file offsets: a\n"
"line for each record (CPU, size, flags), then its frames, aligned from the\n"
"record's first byte; raw (TRBE) records have no frames.\n"
"\n"
"Exit status: 0 success; 1 malformed frames were found (reported); 2 usage\n"
"error; 3 input missing or unreadable.\n";

const struct cli_command cli_cmd_frames = {
	"frames", CLI_CMD_FRAMES, frames_usage, frames_notes
};

/* ---- encode ---------------------------------------------------------------- */

static const char encode_usage[] =
"Usage: etmkit encode (--from-record FILE | --from-qemu LOG)\n"
"                     --protocol etmv3|ptm|etmv4|ete|etmv2 --out DIR\n"
"                     [OPTIONS]\n"
"\n"
"Turn a known execution into the trace a trace unit would have emitted for\n"
"it, and write a trace snapshot directory (snapshot.ini, trace.ini, the\n"
"trace source's and the core's .ini files with the register values used,\n"
"the trace buffer, and memory dumps of all executed code) that\n"
"'etmkit decode --snapshot DIR' and OpenCSD's trc_pkt_lister decode.\n";

static const char encode_notes[] =
"Presets:\n"
"  etmv3: default (branch broadcast off, context ID 32 bits, ETMv3.5),\n"
"         cycle-accurate, timestamps, branch-output, alt-branch (the\n"
"         original branch encoding when not given), data (data address\n"
"         and value trace of the record's ld/st items), data-ooo (loads\n"
"         out of order)\n"
"  ptm:   default (PTM 1.1 of a Cortex-A15, context ID 32 bits), \n"
"         cycle-accurate, timestamps, branch-broadcast, return-stack, vmid\n"
"  etmv2: default (ETMv2.2, context ID 32 bits, 8-bit port unless\n"
"         --port-width), cycle-accurate, branch-output, data (data\n"
"         address and value trace), phantoms (folded direct branches),\n"
"         load-miss (value trace, every 4th load a load miss); the\n"
"         snapshot's trace buffer is a capture (docs/etmv2-capture.md);\n"
"         --etm-version 1: ETMv1.3 (4- and 8-bit ports; no phantoms,\n"
"         no load-miss; data: one 4-byte transfer per instruction)\n"
"  etmv4/ete: default (context ID, nothing else optional), cycles,\n"
"         timestamps, spec (MAXSPEC 16, spec depth 8, mis-speculation),\n"
"         q (Q elements with counts: TRCIDR0.QSUPP 0b11, TRCCONFIGR.QE\n"
"         0b01; every 5th run a Q)\n"
"Register options replace the preset's values; those of the other family\n"
"are refused.\n"
"\n"
"Exit status: 0 done; 2 usage error; 3 input unreadable or malformed, or an\n"
"execution the encoder cannot represent (the message names the line).\n";

const struct cli_command cli_cmd_encode = {
	"encode", CLI_CMD_ENCODE, encode_usage, encode_notes
};

/* ---- profile --------------------------------------------------------------- */

static const char profile_usage[] =
"Usage: etmkit profile INPUT... [--elf FILE[@BIAS]]... [--image FILE@ADDR]...\n"
"                      [OPTIONS]\n"
"       etmkit profile --snapshot DIR [--buffer NAME] [--id ID]...\n"
"                      [--image FILE@ADDR]... [--elf FILE[@BIAS]]... [OPTIONS]\n"
"       etmkit profile FILE --protocol etmv3|ptm|etmv4|ete|etmv2 [REGISTERS]\n"
"                      (--image FILE@ADDR | --elf FILE[@BIAS])... [OPTIONS]\n"
"  OPTIONS: [--format autofdo|bolt|profgen|folded|chrome]\n"
"           [--weight insns|cycles|time] [-o FILE] [--binary REGEX]\n"
"           [--stacks] [--quiet]\n"
"\n"
"Count what the cores ran, per binary: the straight-line ranges of\n"
"instructions and the taken branches between them, at the binaries' ELF\n"
"addresses; write them as a profile for a profile-guided optimiser. Or\n"
"follow the calls and returns: the call stacks, as folded stacks for\n"
"flame graphs, or as a Chrome / Perfetto JSON timeline.\n";

static const char profile_notes[] =
"The autofdo format is the text profile of AutoFDO's create_llvm_prof\n"
"(--profiler text), byte for byte as 'simpleperf inject' writes it: a range\n"
"ends at every branch, taken or not; a taken indirect branch (br, blr,\n"
"ret) goes to 0, its target not being traced. Addresses are ELF virtual\n"
"addresses less the first loadable segment's. With several binaries the\n"
"file starts with a line asking to split it: AutoFDO reads one binary.\n"
"The bolt and profgen formats count taken-branch traces, as LBR-based\n"
"tools see execution: a range runs from a taken branch's target to the\n"
"next taken branch, across not-taken ones, and a taken branch has its\n"
"real target, indirect ones included. bolt is BOLT's pre-aggregated\n"
"profile for perf2bolt -pa (LLVM 16 reads B and F lines): 'B from to\n"
"count 0' and 'F start end count' at ELF addresses; profgen is\n"
"llvm-profgen's unsymbolized profile (--unsymbolized-profile): ranges\n"
"and branches at offsets from the first executable segment's address\n"
"rounded down to 4 KiB. Both hold one binary: with several that have\n"
"counts, --binary picks it. profgen --stacks is the context-sensitive\n"
"form: a '[CONTEXT]' line per call context (the call sites of the calls\n"
"not yet returned, root first, ' @ ' between, empty after a gap until a\n"
"call) and its ranges and branches, indented.\n"
"A perf.data recording names each binary by the path and build id it\n"
"recorded for the ELF file given with the same build id.\n"
"INPUT is a perf.data or raw file, a snapshot directory, a directory (its\n"
"perf.data files, recursively) or @LIST (a file naming one INPUT a line).\n"
"autofdo, bolt and profgen add up the counts of several inputs, each\n"
"decoded alone; an input that cannot be read is left out (exit 1).\n"
"\n"
"The folded format has a line 'ROOT;...;LEAF COUNT' per call stack: its\n"
"frames are the functions called (symbols of the binaries), under\n"
"[unknown] for what the trace does not show (its start, after gaps, a\n"
"return past the known calls); COUNT is the --weight that ran with that\n"
"stack on top. The chrome format has a slice per function call per\n"
"trace ID and thread, its clock the --weight. docs/stacks.md has the\n"
"rules.\n"
"\n"
"Exit status: 0 success; 1 the trace had decode errors (the profile is\n"
"written without what they hid); 2 usage error; 3 input missing,\n"
"unreadable or malformed, or the output cannot be written.\n";

const struct cli_command cli_cmd_profile = {
	"profile", CLI_CMD_PROFILE, profile_usage, profile_notes
};

/* ---- coverage -------------------------------------------------------------- */

static const char coverage_usage[] =
"Usage: etmkit coverage INPUT... [--elf FILE[@BIAS]]... [OPTIONS]\n"
"       etmkit coverage --snapshot DIR [--buffer NAME] [--id ID]...\n"
"                       [--image FILE@ADDR]... [--elf FILE[@BIAS]]... [OPTIONS]\n"
"       etmkit coverage FILE --protocol etmv3|ptm|etmv4|ete|etmv2 [REGISTERS]\n"
"                       (--image FILE@ADDR | --elf FILE[@BIAS])... [OPTIONS]\n"
"  OPTIONS: [--format lcov|text] [-o FILE] [--quiet]\n"
"\n"
"Count how many times each instruction ran and how each conditional one\n"
"went; write line, function and branch coverage of the binaries' source\n"
"(DWARF), or a per-function summary.\n";

static const char coverage_notes[] =
"Counts (lcov): DA, a line's count, is the largest number of times one of\n"
"the instructions the line table maps to the line ran (condition-failed\n"
"instructions ran too); FNDA, a function's, the number of times its entry\n"
"instruction ran; BRDA, per conditional branch (and, for ETMv3 trace,\n"
"which traces every instruction's condition, per conditional\n"
"instruction): branch 0 the times it was taken (passed), branch 1 not\n"
"taken (failed), '-' for both when it never ran. Functions of the same\n"
"name in one source file are one, their counts summed. A binary without\n"
"DWARF line information is left out of the tracefile (noted); --format\n"
"text summarises every ELF binary from its symbols: instructions that\n"
"ran of those in the function, and the entry's count.\n"
"INPUT is a perf.data or raw file, a snapshot directory, a directory (its\n"
"perf.data files, recursively) or @LIST (a file naming one INPUT a line):\n"
"the counts of several inputs, each decoded alone, add up; an input that\n"
"cannot be read is left out (exit 1).\n"
"\n"
"Exit status: 0 success; 1 the trace had decode errors (the coverage is\n"
"written without what they hid); 2 usage error; 3 input missing,\n"
"unreadable or malformed, or the output cannot be written.\n";

const struct cli_command cli_cmd_coverage = {
	"coverage", CLI_CMD_COVERAGE, coverage_usage, coverage_notes
};

/* ---- flame ----------------------------------------------------------------- */

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
