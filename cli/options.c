/* etmkit CLI: the option table. Every option of every command is a row
 * here, with its help text; the parsers take their options from it
 * (cli_getopt_table()) and the help is printed from it (cli_print_help()),
 * so an option cannot exist without its help line. docs/etmkit.1 describes
 * each one too: tests/cli/check_help.py compares. */
#include <string.h>

#include "cli.h"
#include "core.h"

#define D CLI_CMD_DECODE
#define P CLI_CMD_PACKETS
#define F CLI_CMD_FRAMES
#define E CLI_CMD_ENCODE
#define R (CLI_CMD_PROFILE | CLI_CMD_FLAME) /* trace in, profile out */
#define PR CLI_CMD_PROFILE
#define FL CLI_CMD_FLAME
#define C CLI_CMD_COVERAGE

/* Rows in the order each command's help lists them. */
static const struct cli_option options[] = {
	/* ---- decode, packets, frames: the input ---- */
	{ .cmds = D | P | F | R | C, .help = "Input:" },
	{ "snapshot", 0, "DIR", opt_snapshot, D | P | R | C,
	  "a trace snapshot directory (snapshot.ini, trace.ini and the "
	  "device .ini files): the sources writing to the first trace buffer "
	  "that holds one, each with the protocol its device type names "
	  "(ETM3.x, PTM1.x or PFT1.x, ETM4.x, ETE; ETMIDR[11:8] = 3 is PTM "
	  "whatever the type) and the registers of its device file" },
	{ "snapshot", 0, "DIR", opt_snapshot, F,
	  "a trace snapshot: its first trace buffer, framed as trace.ini "
	  "says" },
	{ "buffer", 0, "NAME", opt_buffer, D | P | F | R | C,
	  "with --snapshot: trace buffer NAME (trace.ini's name=) instead "
	  "of the first one" },
	{ NULL, 0, "FILE", 0, D | P | R | C,
	  "a raw trace buffer; give --protocol and the registers (numbers "
	  "in decimal or 0x hex). Or a perf.data recording (Linux perf, "
	  "simpleperf; known by its header): each CPU's AUX trace, with the "
	  "protocol and registers of its cs_etm metadata (docs/perf-data.md)" },
	{ NULL, 0, "FILE", 0, F, "a raw capture file" },
	{ "protocol", 0, "P", opt_protocol, D | P | R | C,
	  "the protocol of FILE: etmv3, ptm, etmv4, ete, or etmv2 (an "
	  "ETMv2 or ETMv1 trace port capture: docs/etmv2-capture.md)" },
	{ "etmcr", 0, "X", opt_etmcr, D | P | R | C,
	  "(etmv3, ptm, required; etmv2, unless the capture states it) "
	  "ETMCR" },
	{ "etmidr", 0, "X", opt_etmidr, D | P | R | C,
	  "(etmv3, ptm, required; etmv2, optional) ETMIDR" },
	{ "etmccer", 0, "X", opt_etmccer, D | P | R | C,
	  "(etmv3, ptm) ETMCCER, for timestamps and Hyp (default 0)" },
	{ "trcidr0", 0, "V", opt_trcidr0 + cli_trcidr0, D | P | R | C,
	  "(etmv4, ete) TRCIDR0; default 0x28000EA1 (etmv4), "
	  "0x2801CEA1 (ete)" },
	{ "trcidr1", 0, "V", opt_trcidr0 + cli_trcidr1, D | P | R | C,
	  "TRCIDR1; default 0x4100F403 (ETMv4.0), 0x4100FFF0" },
	{ "trcidr2", 0, "V", opt_trcidr0 + cli_trcidr2, D | P | R | C,
	  "TRCIDR2; default 0x00000488, 0xD0001088" },
	{ "trcidr8", 0, "V", opt_trcidr0 + cli_trcidr8, D | P | R | C,
	  "TRCIDR8; default 0" },
	{ "trcconfigr", 0, "V", opt_trcidr0 + cli_trcconfigr, D | P | R | C,
	  "TRCCONFIGR; default 0x000000C1, 0x00000001" },
	{ "trcdevarch", 0, "V", opt_trcidr0 + cli_trcdevarch, D | P | R | C,
	  "TRCDEVARCH; default 0, 0x47705A13 (ETE 1.0)" },
	{ "frames", 0, "MODE", opt_frames, D | P | F | R | C,
	  "how FILE is framed: coresight (16-byte formatter frames, the "
	  "default), tpiu (frames aligned by FSYNC), tpiu-hsync (also "
	  "removes HSYNCs) or none (one raw source); with --snapshot it "
	  "overrides the buffer's format" },
	{ "id", 0, "ID", opt_id, D | P | R | C,
	  "a trace ID to decode; may repeat (default: every source); "
	  "a framed FILE needs exactly one" },
	{ "id", 0, "ID", opt_id, F,
	  "with --snapshot: the first buffer holding a source with this "
	  "trace ID; may repeat" },
	{ "capture-format", 0, "F", opt_capture_format, D | P | R | C,
	  "(etmv2) the capture's form: auto (binary by its magic, else "
	  "text; the default), binary, text or etb (pre-CoreSight ETB RAM "
	  "words)" },
	{ "etm-version", 0, "N", opt_etm_version, D | P | R | C,
	  "(etmv2) 1 (ETMv1: 3-bit PIPESTAT, TRACESYNC) or 2, when neither "
	  "the capture nor --etmidr says (default 2)" },
	{ "port-width", 0, "N", opt_port_width, D | P | R | C,
	  "(etmv2) the trace port's width in bits: 4, 8 or 16, when "
	  "neither the capture nor --etmcr says" },
	{ "demux-order", 0, "O", opt_demux_order, D | P | R | C,
	  "(etmv2) a demultiplexed port's earlier half: a-first (the "
	  "default) or b-first" },
	{ "pipestat-table", 0, "T", opt_pipestat_table, D | P | R | C,
	  "(etmv2) the PIPESTAT codes (docs/etmv2.md 2): natural (the "
	  "default), alt, or sixteen status names in code order separated "
	  "by commas (IE,DE,IN,DN,...)" },
	{ "tfo-header", 0, "SPEC", opt_tfo_header, D | P | R | C,
	  "(etmv2) the TFO packet headers (docs/etmv2.md 6): "
	  "normal=V,lsip=V,mask=M,rr-shift=S, any of the four (default "
	  "normal=0x00,lsip=0x80,mask=0x9f,rr-shift=5)" },
	{ "fifo-latency", 0, "N", opt_fifo_latency, D | P | R | C,
	  "(etmv2) 0 or 1: cycles before a byte placed in the FIFO can be "
	  "on TRACEPKT (docs/etmv2.md 3; default 1)" },
	{ "m-profile", 0, NULL, 0, D | P | R | C,
	  "(etmv3) FILE comes from an ARMv7-M core (exception numbers and "
	  "packets of IHI 0014Q 7.5); with --snapshot the traced core's "
	  "type says so" },

	/* ---- decode, profile: the program image ---- */
	{ .cmds = D | R | C, .help = "Program image (after the snapshot's memory dumps; "
			     "the last given wins\nwhere they overlap):" },
	{ "image", 0, "FILE@ADDR", 0, D | R | C,
	  "map the whole of FILE at address ADDR; may repeat (a perf.data "
	  "recording: in every process, over its maps)" },
	{ "elf", 0, "FILE[@BIAS]", 0, D | R | C,
	  "map the loadable segments of ELF file FILE, moved by BIAS "
	  "(default 0; may be negative); may repeat. With a perf.data "
	  "recording: the file of the recorded binary with its build id, "
	  "else with its file name, placed by the recording's maps (one "
	  "that matches none is mapped at BIAS in every process)" },

	/* ---- decode, profile: perf.data ---- */
	{ .cmds = D | R | C, .help = "perf.data recordings (each process with its own "
			     "image;\ndocs/perf-data.md):" },
	{ "symfs", 0, "DIR", 0, D | R | C,
	  "find each recorded binary at DIR/recorded-path, else at "
	  "DIR/its-file-name" },
	{ "buildid-dir", 0, "DIR", 0, D | R | C,
	  "find binaries by build id in perf's cache layout: "
	  "DIR/.build-id/xx/rest (a file, or a folder with elf in it)" },
	{ "vmlinux", 0, "FILE", 0, D | R | C,
	  "the kernel's ELF file, for [kernel.kallsyms] addresses" },
	{ "cpu", 0, "LIST", opt_cpu, D | P | R | C,
	  "only the trace of these CPUs (perf.data), as 0,2-3" },
	{ "jobs", 'j', "N", opt_jobs, D | R | C,
	  "decode the trace sources (trace IDs, CPUs) on N threads; the "
	  "output is the same whatever N (default: the online cores)" },
	{ "pid", 0, "LIST", 0, D,
	  "list only elements of these processes (the context ID, or the "
	  "VMID when the recording traced the pid there, gives the thread; "
	  "the side-band its process)" },
	{ "binary", 0, "REGEX", 0, D,
	  "list only instructions of binaries whose recorded path matches "
	  "REGEX (POSIX extended)" },

	/* ---- encode: input and trace ---- */
	{ .cmds = E, .help = "Input (one of):" },
	{ "from-record", 0, "FILE", opt_from_record, E,
	  "an execution record (docs/exec-record.md; - for stdin); with "
	  "--format perf-data this and --from-qemu may repeat, one process "
	  "each" },
	{ "from-qemu", 0, "LOG", opt_from_qemu, E,
	  "a QEMU user-mode log: '-d in_asm,exec,nochain', or "
	  "'-singlestep -d in_asm,cpu,nochain' for condition pass/fail "
	  "(- for stdin, or a pipe)" },
	{ "qemu-data", 0, NULL, opt_qemu_data, E,
	  "(--from-qemu, A32/T32 state-mode logs) the data transfers of "
	  "loads and stores, derived from the CPU dumps (docs/qemu-log.md)" },
	{ "record-out", 0, "FILE", opt_record_out, E,
	  "also write the record read, in the text form" },
	{ "elf", 0, "FILE[@BIAS]", opt_elf_enc, E,
	  "(perf-data) a binary the input before it ran, loaded at its "
	  "link addresses moved by BIAS: its MMAP2 records (executable "
	  "segments) and build id; may repeat (the program, then its "
	  "shared libraries), the first naming the process" },
	{ .cmds = E, .help = "Trace:" },
	{ "protocol", 0, "P", opt_protocol, E,
	  "etmv3, ptm, etmv4, ete or etmv2 (required)" },
	{ "preset", 0, "NAME[,NAME]...", opt_preset, E,
	  "register set-ups, combined (see below); 'default' is always "
	  "applied" },
	{ "etmcr", 0, "X", opt_etmcr, E,
	  "(etmv3, ptm, etmv2) ETMCR, over the preset's" },
	{ "etmidr", 0, "X", opt_etmidr, E, "(etmv3, ptm, etmv2) ETMIDR" },
	{ "etmccer", 0, "X", opt_etmccer, E, "(etmv3, ptm) ETMCCER" },
	{ "trcconfigr", 0, "X", opt_trcidr0 + cli_trcconfigr, E,
	  "(etmv4, ete) TRCCONFIGR, over the preset's" },
	{ "trcidr0", 0, "X", opt_trcidr0 + cli_trcidr0, E, "TRCIDR0" },
	{ "trcidr1", 0, "X", opt_trcidr0 + cli_trcidr1, E, "TRCIDR1" },
	{ "trcidr2", 0, "X", opt_trcidr0 + cli_trcidr2, E, "TRCIDR2" },
	{ "trcidr8", 0, "X", opt_trcidr0 + cli_trcidr8, E, "TRCIDR8" },
	{ "trcdevarch", 0, "X", opt_trcidr0 + cli_trcdevarch, E,
	  "TRCDEVARCH" },
	{ "sync-period", 0, "N", opt_sync_period, E,
	  "bytes (etmv2: cycles) between periodic synchronization "
	  "(default: the encoder's)" },
	{ "spec-depth", 0, "N", opt_spec_depth, E,
	  "(etmv4, ete) P0 elements left uncommitted (<= MAXSPEC)" },
	{ "mispredict-every", 0, "N", opt_mispredict_every, E,
	  "(etmv4, ete) synthesize a wrong path every N P0 elements, "
	  "resolved by a Mispredict" },
	{ "cancel-every", 0, "N", opt_cancel_every, E,
	  "(etmv4, ete) the same, resolved by a Cancel" },
	{ "q-every", 0, "N", opt_q_every, E,
	  "(etmv4, ete) every N-th run of instructions that may be one "
	  "as a Q element instead of atoms (0 never; needs Q elements "
	  "with counts: the 'q' preset)" },
	{ "timestamp-every", 0, "N", opt_timestamp_every, E,
	  "add a timestamp item before every N-th instruction (a clock "
	  "of 3 ticks per instruction), for records that have none (QEMU "
	  "logs)" },
	{ "port-width", 0, "N", opt_port_width, E,
	  "(etmv2) the trace port's TRACEPKT width: 4, 8 (the default) or "
	  "16 bits" },
	{ "etm-version", 0, "N", opt_etm_version, E,
	  "(etmv2) 1 (ETMv1: 3-bit PIPESTAT, TRACESYNC, docs/etmv2.md 7b; "
	  "4- and 8-bit ports) or 2; default: what --etmidr says, else 2" },
	{ "fifo-depth", 0, "N", opt_fifo_depth, E,
	  "(etmv2) the trace FIFO's bytes, 16-4096 (default 64): a group "
	  "of packets that does not fit overflows" },
	{ "capture-format", 0, "F", opt_capture_format, E,
	  "(etmv2) binary (the default) or text (docs/etmv2-capture.md)" },
	{ "trace-id", 0, "ID", opt_trace_id, E,
	  "the trace source's ID (default 0x10)" },
	{ "frames", 0, "MODE", opt_frames, E,
	  "coresight: CoreSight formatter frames (the default); none: the "
	  "raw stream of the one source (perf-data: each CPU's AUX records "
	  "raw, flagged FORMAT_RAW, as a TRBE writes them)" },

	/* ---- output ---- */
	{ .cmds = CLI_CMD_ALL, .help = "Output:" },
	{ "out", 'o', "DIR|FILE", opt_out, E,
	  "the snapshot directory to write (created if missing, its parent "
	  "must exist), or with --format perf-data the file (required)" },
	{ "format", 0, "F", opt_format, E,
	  "snapshot (the default): a trace snapshot directory; perf-data: "
	  "a perf.data file as Linux 'perf record -e cs_etm//u' writes it "
	  "(docs/perf-data.md): one process per input, AUX data per CPU in "
	  "CoreSight frames" },
	{ "cpus", 0, "N", opt_cpus, E,
	  "(perf-data) CPUs 0..N-1; input i runs on CPU i mod N, several "
	  "on one CPU take turns AUX record by AUX record (default: one "
	  "CPU per input)" },
	{ "aux-size", 0, "N", opt_aux_size, E,
	  "(perf-data) start a new AUX record (and trace session) at the "
	  "first instruction after a branch once N trace bytes are in the "
	  "current one (default 16384; a multiple of 16 unless --frames "
	  "none)" },
	{ "truncate-every", 0, "N", opt_truncate_every, E,
	  "(perf-data) flag every N-th AUX record of a CPU TRUNCATED (its "
	  "data is kept; 0 never, the default)" },
	{ "pmu-type", 0, "N", opt_pmu_type, E,
	  "(perf-data) the cs_etm PMU's type number in the attr and the "
	  "metadata (default 8)" },
	{ NULL, 0, "(default)", 0, D,
	  "text: one line per instruction (offset of its packet, trace ID, "
	  "address, instruction set, opcode, status exec / fail / cancel / "
	  "implied, cycles, disassembly) and one line per event" },
	{ NULL, 0, "(default)", 0, P,
	  "text: input offset, trace ID, bytes, type, fields" },
	{ NULL, 0, "(default)", 0, F,
	  "one line per 16-byte frame (input offset, the frame's bytes, the "
	  "runs of data bytes as ID:count), one per sync removed or bytes "
	  "skipped, then the data bytes per trace ID" },
	{ "format", 0, "FORMAT", 0, PR,
	  "the profile's format: autofdo (the default), the AutoFDO text "
	  "profile as simpleperf's inject writes it: per binary its "
	  "ranges, branches, build id and recorded path; bolt, BOLT's "
	  "pre-aggregated profile (perf2bolt -pa): B and F lines of "
	  "taken-branch traces; profgen, llvm-profgen's unsymbolized "
	  "profile: ranges and branches of taken-branch traces, at offsets "
	  "from the text segment (bolt and profgen hold one binary); "
	  "folded, the call stacks as folded lines for flame graphs "
	  "('a;b;c COUNT', root first, sorted); chrome, a Chrome / "
	  "Perfetto trace-event JSON timeline with a slice per function "
	  "call" },
	{ "output", 'o', "FILE", 0, PR,
	  "write the profile to FILE (default: standard output)" },
	{ "output", 'o', "FILE", 0, FL,
	  "write the SVG to FILE (default: standard output)" },
	{ "binary", 0, "REGEX", 0, PR,
	  "(autofdo, bolt, profgen) only binaries whose recorded path "
	  "matches REGEX (POSIX extended regular expression, anywhere in "
	  "the path); bolt and profgen: the one binary to write when "
	  "several have counts" },
	{ "stacks", 0, NULL, 0, PR,
	  "(profgen) the context-sensitive profile: the ranges and branches "
	  "per call context, the call sites of the calls not yet returned "
	  "(a [CONTEXT] line per context, its sections indented)" },
	{ "weight", 0, "W", 0, R,
	  "(folded, chrome, flame) what a stack counts and the timeline's "
	  "clock: insns, the instructions executed (the default); cycles "
	  "(cycle-accurate trace); time, timestamp units" },
	{ "title", 0, "TEXT", 0, FL,
	  "the flame graph's title (default: Flame Graph)" },
	{ "width", 0, "PIXELS", 0, FL,
	  "the flame graph's width (default: 1200)" },
	{ "format", 0, "FORMAT", 0, C,
	  "lcov (the default): an lcov tracefile (geninfo(1) format; "
	  "genhtml reads it) with line (DA), function (FN, FNDA) and branch "
	  "(BRDA) counts from the binaries' DWARF; text: per binary and "
	  "function, the instructions that ran of those in the function "
	  "(its ELF symbol's size), and the entry's count" },
	{ "output", 'o', "FILE", 0, C,
	  "write the coverage to FILE (default: standard output)" },
	{ "header", 0, NULL, 0, D | P,
	  "print the header line naming the columns (default: only when "
	  "the output is a terminal)" },
	{ "no-header", 0, NULL, 0, D | P,
	  "no header line, even on a terminal (wins over --header)" },
	{ "json", 0, NULL, 0, D | P,
	  "JSON Lines instead of text, one object per line (fields and "
	  "JSON Schema files: docs/json.md)" },
	{ "lines", 0, NULL, 0, D,
	  "the source file and line of each instruction, and the inlined "
	  "calls it is in, from the ELF files' DWARF line tables (text: "
	  "after the function column; JSON: file, line, column, inline)" },
	{ "ranges", 0, NULL, 0, D,
	  "one line (JSON: an insn_range record) per range of instructions "
	  "run one after another in a packet, up to a taken branch or a "
	  "failed condition, instead of one per instruction; the other "
	  "lines stay (docs/json.md)" },
	{ "stats", 0, NULL, 0, D,
	  "per trace ID counts (elements, instructions, no_image, gaps) "
	  "on stderr" },
	{ "stats", 0, NULL, 0, P,
	  "after the listing, on stderr: records per type and ID, then "
	  "per form and ID ('records by form'): the type and its encoding, "
	  "e.g. 'p_header cycle_accurate format=3', 'address short is=1 "
	  "bits=8', 'atom format=6' (the forms are listed in etmkit(1))" },
	{ "stop-on-error", 0, NULL, 0, D | P,
	  "stop at the first reserved or malformed packet or frame (exit "
	  "status 1) instead of resynchronising" },
	{ "summary", 0, NULL, 0, F, "only the per-ID byte counts and totals" },
	{ .cmds = CLI_CMD_ALL, .help = "General:" },
	{ "quiet", 'q', NULL, opt_quiet, CLI_CMD_ALL,
	  "no notes on stderr (errors and warnings still print)" },
	{ "progress", 0, NULL, opt_progress, D | P | F | R | C,
	  "show the progress of reading the trace on stderr (bytes done "
	  "and in all, rate, time left; one line rewritten at most four "
	  "times a second, cleared at the end) even when stderr is not a "
	  "terminal or the input is small (default: only on a terminal, "
	  "for inputs of 4 MiB or more, after half a second, unless -q or "
	  "a listing goes to the same terminal)" },
	{ "no-progress", 0, NULL, opt_no_progress, D | P | F | R | C,
	  "never show progress (the last of --progress, --no-progress "
	  "wins)" },
	{ "help", 'h', NULL, opt_help, CLI_CMD_ALL, "print this help" },
};

#define NOPTIONS (sizeof(options) / sizeof(options[0]))

static const struct cli_command *const commands[] = {
	&cli_cmd_decode, &cli_cmd_packets, &cli_cmd_frames, &cli_cmd_encode,
	&cli_cmd_profile, &cli_cmd_coverage, &cli_cmd_flame
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

const struct cli_command *cli_command_find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

/* Help column: options from 2, their text from HELP_COL. */
#define HELP_COL 22

/* Print @text from column HELP_COL, its words wrapped before column 80. */
static void wrap(FILE *f, const char *text)
{
	int col = HELP_COL;

	while (*text) {
		size_t n = strcspn(text, " ");

		if (col > HELP_COL && col + 1 + (int)n > 79) {
			fprintf(f, "\n%*s", HELP_COL, "");
			col = HELP_COL;
		} else if (col > HELP_COL) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)n, text);
		col += (int)n;
		text += n;
		text += strspn(text, " ");
	}
	fputc('\n', f);
}

static void print_row(FILE *f, const struct cli_option *o)
{
	int n;

	if (!o->name && !o->arg) {
		fprintf(f, "\n%s\n", o->help);
		return;
	}
	if (!o->name)
		n = fprintf(f, "  %s", o->arg);
	else if (o->short_name)
		n = fprintf(f, "  -%c, --%s", o->short_name, o->name);
	else
		n = fprintf(f, "  --%s", o->name);
	if (o->name && o->arg)
		n += fprintf(f, " %s", o->arg);
	/* First line beside the option when there is room. */
	if (n + 2 > HELP_COL)
		fprintf(f, "\n%*s", HELP_COL, "");
	else
		fprintf(f, "%*s", HELP_COL - n, "");
	wrap(f, o->help);
}

void cli_print_help(FILE *f, const struct cli_command *c)
{
	fputs(c->usage, f);
	for (size_t i = 0; i < NOPTIONS; i++)
		if (options[i].cmds & c->bit)
			print_row(f, &options[i]);
	if (c->notes) {
		fputc('\n', f);
		fputs(c->notes, f);
	}
}

void cli_print_option_list(FILE *f)
{
	for (size_t k = 0; k < NCOMMANDS; k++)
		for (size_t i = 0; i < NOPTIONS; i++) {
			const struct cli_option *o = &options[i];

			if (!o->name || !(o->cmds & commands[k]->bit))
				continue;
			fprintf(f, "%s --%s", commands[k]->name, o->name);
			if (o->short_name)
				fprintf(f, " -%c", o->short_name);
			fprintf(f, "%s%s\n", o->arg ? " " : "",
				o->arg ? o->arg : "");
		}
}

int cli_getopt_table(const struct cli_command *c, struct option *opts,
		     size_t max, char *shorts, size_t shorts_size)
{
	size_t n = 0, ns = 0;

	shorts[ns++] = ':'; /* a missing value returns ':' */
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct cli_option *o = &options[i];

		if (!o->name || !(o->cmds & c->bit))
			continue;
		if (n >= max || ns + 3 > shorts_size)
			return -1;
		opts[n++] = (struct option){
			o->name, o->arg ? required_argument : no_argument,
			NULL, CLI_OPT_VAL0 + (int)i
		};
		if (o->short_name) {
			shorts[ns++] = o->short_name;
			if (o->arg)
				shorts[ns++] = ':';
		}
	}
	opts[n] = (struct option){ 0 };
	shorts[ns] = '\0';
	return 0;
}

const struct cli_option *cli_option_of(const struct cli_command *c, int val)
{
	if (val >= CLI_OPT_VAL0 && val < CLI_OPT_VAL0 + (int)NOPTIONS)
		return &options[val - CLI_OPT_VAL0];
	for (size_t i = 0; i < NOPTIONS; i++)
		if (options[i].short_name && options[i].short_name == val &&
		    (options[i].cmds & c->bit))
			return &options[i];
	return NULL;
}

int cli_option_takes_value(const char *cmd, const char *name)
{
	const struct cli_command *c = cmd ? cli_command_find(cmd) : NULL;
	int is_short = name && name[0] && !name[1];

	if (!c || !name || !name[0])
		return -1;
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct cli_option *o = &options[i];

		if (!o->name || !(o->cmds & c->bit))
			continue;
		if (is_short ? o->short_name == name[0] : !strcmp(o->name, name))
			return o->arg != NULL;
	}
	return -1;
}

/* A command flag's row: the row of @c named @name handled by a struct
 * cli_flag (code 0). */
static const struct cli_option *option_named(const struct cli_command *c,
				       const char *name)
{
	for (size_t i = 0; i < NOPTIONS; i++)
		if (options[i].name && !strcmp(options[i].name, name) &&
		    (options[i].cmds & c->bit))
			return &options[i];
	return NULL;
}

int cli_option_check_flags(const struct cli_command *c,
			   const struct cli_flag *flags)
{
	int bad = 0;

	/* Each flag has its row (with its help), taking a value as the
	 * row says ... */
	for (size_t k = 0; flags && flags[k].name; k++) {
		const struct cli_option *o = option_named(c, flags[k].name);

		if (!o || o->code || !o->arg != !flags[k].value) {
			cli_error("internal error: --%s has no row of its own "
				  "in the option table (cli/options.c)",
				  flags[k].name);
			bad = 1;
		}
	}
	/* ... and each flag row its handler. */
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct cli_option *o = &options[i];
		size_t k;

		if (!o->name || o->code || !(o->cmds & c->bit))
			continue;
		for (k = 0; flags && flags[k].name; k++)
			if (!strcmp(flags[k].name, o->name))
				break;
		if (!flags || !flags[k].name) {
			cli_error("internal error: --%s has no handler", o->name);
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}
