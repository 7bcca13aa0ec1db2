/* etmkit command-line tool: shared declarations. */
#ifndef ETMKIT_CLI_H
#define ETMKIT_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "etmkit/etmkit.h"
#include "etmkit/etm4.h" /* until etmkit.h includes it */
#include "etmkit/etm2.h"

/* Exit codes: 0 success, 1 decode finished but the trace had errors
 * (reported), 2 usage error, 3 input cannot be read or is malformed. */
enum cli_exit {
	cli_exit_ok = 0,
	cli_exit_trace_errors = 1,
	cli_exit_usage = 2,
	cli_exit_input = 3
};

#define CLI_MAX_IDS 128

/* Protocols a command decodes (cli_input.protos): bit 1u << enum
 * etmkit_protocol. 0 means ETMv3 only. */
#define CLI_PROTO(p) (1u << (p))
#define CLI_PROTO_ETM4 (CLI_PROTO(etmkit_proto_etmv4) | CLI_PROTO(etmkit_proto_ete))
#define CLI_PROTO_ALL (CLI_PROTO(etmkit_proto_etmv3) | CLI_PROTO(etmkit_proto_ptm) | \
		       CLI_PROTO_ETM4)
/* ETMv2 captures (cli/input_etm2.c): packets, decode and the commands
 * that count (profile, flame, coverage). */
#define CLI_PROTO_ETM2 CLI_PROTO(etmkit_proto_etmv2)

/* One trace source to decode. */
struct cli_source {
	uint8_t id;
	uint8_t proto;              /* enum etmkit_protocol */
	char name[64];
	char core[64];              /* snapshot: the core device it traces */
	struct etm3_config cfg;     /* etmkit_proto_etmv3 */
	struct etm4_config etm4;    /* etmkit_proto_etmv4, etmkit_proto_ete
				       (ETM4_CFG_ETE set) */
	struct ptm_config ptm;      /* etmkit_proto_ptm */
	struct etm2_config etm2;    /* etmkit_proto_etmv2 */
	uint8_t has_cpu;            /* perf.data: the CPU it traced */
	uint32_t cpu;
};

/* The ETMv4/ETE register options, in enum cli_opt order from
 * opt_trcidr0. */
enum cli_trc_reg {
	cli_trcidr0, cli_trcidr1, cli_trcidr2, cli_trcidr8, cli_trcconfigr,
	cli_trcdevarch, cli_trc_count
};

/* A list of numbers and ranges ("0,2-5"), as --cpu and --pid take. */
#define CLI_MAX_RANGES 64
struct cli_ranges {
	size_t n;                   /* 0: none given */
	uint32_t lo[CLI_MAX_RANGES], hi[CLI_MAX_RANGES];
};

/* Add the numbers and ranges of @s to @r: 0, or -1 (malformed, or more
 * than CLI_MAX_RANGES). */
int cli_parse_ranges(const char *s, struct cli_ranges *r);
/* Whether @v is in @r. */
int cli_in_ranges(const struct cli_ranges *r, uint32_t v);

/* The ETMv2 options (--port-width ... --demux-order; cli/input_etm2.c):
 * what the capture reader and the decoder's configuration take beyond
 * ETMCR and ETMIDR. */
struct cli_etm2_opts {
	const char *given;          /* the first one given ("port-width"),
				       refused with other protocols */
	uint8_t port_width;         /* 0: not given */
	uint8_t version;            /* --etm-version; 0: not given */
	uint8_t capture_format;     /* enum etm2_cap_format + 1; 0: not
				       given */
	uint8_t has_pipestat, has_tfo;
	uint8_t pipestat[16];
	struct etm2_tfo_table tfo;
	uint8_t fifo_latency;       /* latency + 1; 0: not given */
	uint8_t demux_order;        /* 1 a-first, 2 b-first; 0: not given */
};

/* What to read and how: from a snapshot or from a raw file + options. */
struct cli_input {
	const char *snapshot;       /* --snapshot DIR */
	const char *file;           /* positional FILE */
	const char *protocol;       /* --protocol */
	const char *buffer;         /* --buffer NAME (snapshot) */
	unsigned protos;            /* CLI_PROTO bits the command decodes;
				       0: ETMv3 only */
	int have_etmcr, have_etmidr, have_etmccer;
	uint32_t etmcr, etmidr, etmccer;
	unsigned have_trc;          /* bit per enum cli_trc_reg given */
	uint32_t trc[cli_trc_count];
	int frames;                 /* enum deformat_mode, -1 if not given */
	int m_profile;              /* --m-profile: raw file from an ARMv7-M */
	int nids;                   /* --id, may repeat */
	uint8_t ids[CLI_MAX_IDS];
	int keep_snapshot;          /* keep the snapshot open in ss */
	struct cli_ranges cpus;     /* --cpu (perf.data): CPUs wanted */
	int stdout_free;            /* the command writes nothing on stdout
				       while it reads (profile): progress
				       may show on a terminal shared with
				       it */
	unsigned jobs;              /* --jobs; 0: not given */
	struct cli_etm2_opts etm2;  /* --port-width ... (etmv2) */
	int multi;                  /* the command takes INPUT... (profile,
				       coverage): every positional word in
				       files, a snapshot directory as FILE */
	char **files;               /* with multi: the positional words, */
	int nfiles;                 /* file the first (or NULL), */
	int nopts;                  /* after argv[0..nopts-1], the options
				       (getopt_long() moves them first) */

	/* Resolved: */
	char buffer_path[1024];
	enum deformat_mode mode;
	int nsrc;
	struct cli_source src[CLI_MAX_IDS];
	struct snapshot *ss;        /* with keep_snapshot; cli_input_free() */
	struct perf_file *perf;     /* FILE is a perf.data (cli/input_perf.c) */
	int raw_piece;              /* perf.data: while cli_perf_stream()
				       feeds a raw (TRBE) AUX record, the
				       trace ID of its CPU, whose decoder
				       alone takes the bytes; else -1 */
};

/* Parse a number (decimal or 0x hex) into *v; 0 or -1. */
int cli_parse_u32(const char *s, uint32_t *v);
/* The same for 64 bits; with @allow_neg a leading '-' negates modulo
 * 2^64 (an ELF bias below the link address). */
int cli_parse_u64(const char *s, uint64_t *v, int allow_neg);

/* Handle an input option; returns 1 if @opt was one, 0 if not, -1 on a bad
 * value (message printed). */
int cli_input_option(struct cli_input *in, int opt, const char *arg);

/* The session's jobs (etmkit_session_config.jobs): --jobs, by default
 * the number of online cores. */
unsigned cli_input_jobs(const struct cli_input *in);

/* Resolve sources and buffer. Prints a message and returns a cli_exit on
 * failure, 0 on success. */
int cli_input_resolve(struct cli_input *in, const char *cmd);

/* Feed @n bytes of input @in to session @s for command @cmd (to one
 * decoder while a raw AUX record is fed, in->raw_piece); on a
 * stop-on-error stop
 * set *@stopped, and say what happened on stderr. Returns the session's
 * result. */
int cli_session_feed(const char *cmd, const struct cli_input *in,
		     struct etmkit_session *s,
		     const uint8_t *buf, size_t n, int stop_on_error,
		     int *stopped);

/* perf.data input (cli/input_perf.c): 1 when @path starts with the
 * PERFILE2 magic; sources from the cs_etm metadata of the CPUs whose
 * protocol is in @protos (CLI_PROTO bits); the AUX data of every CPU in
 * file order, each AUX record a piece of its own: with @s, its bytes are
 * fed at their file offsets and a break follows it (the reason from its
 * flags); an AUX record with no data is a gap (aux_missing) of its CPU's
 * trace ID; after each record fed its end's file offset goes to
 * cli_progress_at(@pr) (cli/progress.h). Both return 0 or a cli_exit
 * after a message. */
int cli_is_perf_file(const char *path);
/* Whether @path is a directory holding a snapshot.ini file (a snapshot
 * given as an INPUT of profile or coverage). */
int cli_is_snapshot_dir(const char *path);
int cli_perf_resolve(struct cli_input *in, unsigned protos);
struct cli_progress;
struct perf_aux_iter;
/* cli_perf_stream() one AUX record at a time: cli_perf_step_init() once,
 * then each cli_perf_step() feeds the next record (a lost one on the
 * way is a gap) and sets *@done to its end's file offset. Returns 0 (a
 * record fed), 1 (no more; *@done untouched) or -cli_exit after a
 * message. */
void cli_perf_step_init(struct cli_input *in, struct perf_aux_iter *ai);
int cli_perf_step(struct cli_input *in, struct perf_aux_iter *ai,
		  int (*feed)(void *ctx, const uint8_t *buf, size_t n),
		  void *ctx, struct etmkit_session *s, uint64_t *done);
int cli_perf_stream(struct cli_input *in,
		    int (*feed)(void *ctx, const uint8_t *buf, size_t n),
		    void *ctx, struct etmkit_session *s,
		    struct cli_progress *pr);

/* The CPU and thread an element ran on, when known: for JSON records
 * (perf.data). */
struct cli_task {
	uint8_t has_cpu, has_tid;
	uint32_t cpu, pid, tid;
};

/* decode on a perf.data (cli/perf_sideband.c): per-process images from
 * the side-band, filters, and notes on missing binaries. */
struct perf_maps_override;
struct cli_perf_opts {
	const char *symfs, *buildid_dir, *vmlinux; /* --symfs ... */
	const struct perf_maps_override *elf;      /* --elf */
	size_t nelf;
	struct cli_ranges pids;                    /* --pid */
	const char *binary_re;                     /* --binary */
};
struct cli_perf_sb;
/* Read the side-band of in->perf, find binaries, build the images; sets
 * *@sb is set (free it) even on failure. Returns 0 or a
 * cli_exit after a message. */
int cli_perf_sb_open(struct cli_perf_sb **sb, struct cli_input *in,
		     const struct cli_perf_opts *o);
void cli_perf_sb_free(struct cli_perf_sb *sb);
/* Point source @cs's flow config at the side-band's images. */
void cli_perf_sb_etm3(struct cli_perf_sb *sb, const struct cli_source *cs,
		      struct etm3_flow_config *fc);
void cli_perf_sb_etm4(struct cli_perf_sb *sb, const struct cli_source *cs,
		      struct etm4_flow_config *fc);
void cli_perf_sb_ptm(struct cli_perf_sb *sb, const struct cli_source *cs,
		     struct ptm_flow_config *fc);
/* Element @e of trace ID @id, in order: follows its context, fills @w,
 * counts no_image places per binary. Returns 1 to list it, 0 when --pid
 * or --binary leave it out. */
int cli_perf_sb_elem(struct cli_perf_sb *sb, uint8_t id,
		     const struct etmkit_elem *e, struct cli_task *t);
/* The image trace ID @id's listing is at (its current process). */
const struct image *cli_perf_sb_image(const struct cli_perf_sb *sb,
				      uint8_t id);
/* The name (COMM) of thread @tid's process (@tid a context ID), seen on
 * trace ID @id: the current process of @id when @tid runs there now or
 * when the recording traces the pid in the VMID (digest 3.3), else
 * @tid's process at the AUX data read last; NULL when not known. */
const char *cli_perf_sb_comm(const struct cli_perf_sb *sb, uint8_t id,
			     uint32_t tid);
/* Give every image to @syms (cli/symbolize.h) and name the binaries as
 * the recording does. Returns 0 or a cli_exit after a message. */
struct cli_symbols;
int cli_perf_sb_symbols(struct cli_perf_sb *sb, struct cli_symbols *syms);
/* One note per binary without a file that the trace reached. */
void cli_perf_sb_report(const struct cli_perf_sb *sb);

/* ---- ETMv2 captures (cli/input_etm2.c) ----------------------------------
 * ETMv2 is fed cycles, not bytes: no session source. FILE (or a
 * snapshot's etmv2-capture / etmv2-etb buffer) is read with the capture
 * reader (etm2.h) and driven through the packet or flow decoder here;
 * the records and elements go to the commands' own callbacks. */

struct cli_out;
/* An ETMv2 option: 1 if @opt was one, 0 if not, -1 after a message. */
int cli_etm2_option(struct cli_input *in, int opt, const char *arg);
/* The raw FILE source of --protocol etmv2 into in->src[0]. Returns 0 or
 * a cli_exit after a message. */
int cli_etm2_resolve_raw(struct cli_input *in);
/* Snapshot trace source @dev (type ETM2 / ETM1) into @cs. */
struct snapshot_device;
int cli_etm2_snapshot_source(struct cli_source *cs,
			     const struct snapshot_device *dev);
/* A snapshot buffer format: 1 (and the capture form set in @in) for
 * etmv2-capture / etmv2-etb, else 0. */
int cli_etm2_buffer_format(struct cli_input *in, const char *format);
/* Whether the input resolved to an ETMv2 source. */
int cli_input_is_etm2(const struct cli_input *in);

/* packets: every record of the capture to @on_packet (in order; @id is
 * the source's, 0 for a raw FILE). @stop_on_error: stop after the first
 * error record (*@stopped set). Progress shows on stderr as for a file of
 * bytes (cli/progress.h); *@cycles (may be NULL): the cycles read.
 * Returns 0 or a cli_exit after a message (capture errors name the file
 * and the line or byte). */
int cli_etm2_packets(const struct cli_input *in,
		     int (*on_packet)(void *ctx, uint8_t id,
				      const struct etm2_packet *p),
		     void *ctx, int stop_on_error, int *stopped,
		     uint64_t *cycles);
/* decode, profile, coverage, flame: every element, in the flow decoder's
 * batches (@e[0..@n-1] in order), to @on_elems, following @image (may be
 * NULL) with ETM2_FLOW_* @flags. Returns as cli_etm2_packets(). */
struct image;
typedef int cli_etm2_elems_fn(void *ctx, uint8_t id,
			      const struct etmkit_elem *e, size_t n);
int cli_etm2_decode(const struct cli_input *in, const struct image *image,
		    uint32_t flags, cli_etm2_elems_fn *on_elems, void *ctx,
		    int stop_on_error, int *stopped, uint64_t *cycles);
/* The health check's input statistics for an ETMv2 capture of @cycles
 * cycles of trace ID @id (offsets are cycle indexes; cli/health.h). */
void cli_etm2_frame_stats(struct deformat_stats *fs, uint8_t id,
			  uint64_t cycles);

/* Output of ETMv2 records (cli/output_etm2.c): the offset is the cycle
 * index. */
void cli_print_etm2_text(struct cli_out *o, uint8_t id,
			 const struct etm2_packet *p);
void cli_print_etm2_json(struct cli_out *o, uint8_t id,
			 const struct etm2_packet *p);

/* Whether trace ID @id is one the --id options ask for (all without
 * --id). */
int cli_id_wanted(const struct cli_input *in, uint8_t id);

/* Release what cli_input_resolve() kept (the snapshot, the perf file). */
void cli_input_free(struct cli_input *in);

/* Read the buffer file and feed it to @feed in chunks, showing progress
 * (cli/progress.h) as the --progress options and stderr say. A perf.data
 * input is fed AUX record by AUX record, with an etmkit_session_break()
 * on @s between them when @s is not NULL (cli_perf_stream()). Returns 0,
 * or a cli_exit after printing a message. */
int cli_input_stream(struct cli_input *in,
		     int (*feed)(void *ctx, const uint8_t *buf, size_t n),
		     void *ctx, struct etmkit_session *s);

/* Output of ETMv3 packets. */
struct cli_out;          /* cli/outbuf.h */
void cli_print_etm3_text(struct cli_out *o, uint8_t id,
			 const struct etm3_packet *p, int m_profile);
void cli_print_etm3_json(struct cli_out *o, uint8_t id,
			 const struct etm3_packet *p, int m_profile);

/* The header line of the packet text listing. */
void cli_print_packet_header(struct cli_out *o);

/* The start of a text listing line, packets and decode alike:
 * "    OFFSET  ID  " (@offset right-aligned in 10 columns, @id in two hex
 * digits) at @p, returning where it ends; at most CLI_LINE_HEAD bytes (a
 * 20-digit offset, the ID, two pairs of spaces). cli_out_line_head()
 * writes it into @o. (cli/output_elem.c) */
#define CLI_LINE_HEAD 26
char *cli_put_line_head(char *p, uint64_t offset, uint8_t id);
void cli_out_line_head(struct cli_out *o, uint64_t offset, uint8_t id);

/* The start of a JSON packet listing record:
 * {"offset":N,"id":N,"type":"TYPE" (@type needs no escapes). */
void cli_packet_json_start(struct cli_out *o, uint64_t offset, uint8_t id,
			   const char *type);

/* Whether a text listing starts with a header line: --no-header (@off)
 * drops it, --header (@on) forces it, else only on a terminal. */
int cli_header_wanted(FILE *f, int on, int off);

/* Output of ETMv4 and ETE packets (@ete: the source is an ETE). */
void cli_print_etm4_text(struct cli_out *o, uint8_t id,
			 const struct etm4_packet *p, int ete);
void cli_print_etm4_json(struct cli_out *o, uint8_t id,
			 const struct etm4_packet *p, int ete);

/* Output of PTM packets (cli/output_ptm.c). */
void cli_print_ptm_text(struct cli_out *o, uint8_t id,
			const struct ptm_packet *p);
void cli_print_ptm_json(struct cli_out *o, uint8_t id,
			const struct ptm_packet *p);

/* Disassembly of instruction elements (capstone), cached by address. */
struct cli_disasm;
struct cli_disasm *cli_disasm_alloc(void);
void cli_disasm_free(struct cli_disasm *d);
/* The text of insn element @e: valid until the next call. */
const char *cli_disasm(struct cli_disasm *d, const struct etmkit_elem *e);

/* Which table names a source's exception numbers (etmkit_elem_exception
 * without ETMKIT_EXC_ETM4 or ETMKIT_EXC_LEGACY): ETMv3's ARMv7-A/R or
 * ARMv7-M (etm3_exception_name()), or PTM's (ptm_exception_name()). */
enum cli_exc_names {
	cli_exc_etm3 = 0,
	cli_exc_etm3_m,
	cli_exc_ptm,
};

/* The table for a source of protocol @proto, @m_profile: ETMv3's
 * ETM3_CFG_M_PROFILE. */
enum cli_exc_names cli_exc_names_of(enum etmkit_protocol proto,
				    int m_profile);

/* Output of execution elements. @exc: the source's enum cli_exc_names.
 * @bad_image: mark an instruction from an image region that is not what
 * ran (cmd_decode.c). @w (NULL: unknown): the binary and function an
 * instruction ran in (cli/symbolize.h). The header names the text
 * columns; @where: with the "function+offset (binary)" column. */
struct cli_where;
void cli_print_elem_header(struct cli_out *o, int where);
void cli_print_elem_text(struct cli_out *o, uint8_t id,
			 const struct etmkit_elem *e, int exc,
			 struct cli_disasm *dis, int bad_image,
			 const struct cli_where *w);
void cli_print_elem_json(struct cli_out *o, uint8_t id,
			 const struct etmkit_elem *e, int exc,
			 const struct cli_where *w, const struct cli_task *t);

int cmd_packets(int argc, char **argv);
int cmd_frames(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_encode(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_coverage(int argc, char **argv);
int cmd_flame(int argc, char **argv);
struct cli_command;
/* profile and flame (cli/cmd_profile.c, cli/profile_run.c): @flame draws
 * the call stacks. */
int cli_profile_main(const struct cli_command *cmd, int flame, int argc,
		     char **argv);

/* What an option does, for the code that handles it (struct cli_option's
 * code): the input options (cli_input_option()), -h and -q (cli_parse_args())
 * and encode's. A command's own flags (struct cli_flag) have 0. */
enum cli_opt {
	opt_snapshot = 0x100, opt_id, opt_protocol, opt_etmcr, opt_etmidr,
	opt_etmccer, opt_frames, opt_help, opt_buffer,
	opt_trcidr0, /* then the other enum cli_trc_reg registers in order */
	opt_trc_last = opt_trcidr0 + cli_trc_count - 1,
	opt_quiet, opt_cpu, opt_progress, opt_no_progress,
	/* encode */
	opt_from_record, opt_from_qemu, opt_record_out, opt_out, opt_preset,
	opt_sync_period, opt_spec_depth, opt_mispredict_every,
	opt_cancel_every, opt_q_every, opt_timestamp_every, opt_trace_id,
	opt_format, opt_elf_enc, opt_cpus, opt_aux_size, opt_truncate_every,
	opt_pmu_type, opt_qemu_data,
	opt_jobs,
	/* ETMv2 captures (cli/input_etm2.c) and the encoder */
	opt_port_width, opt_capture_format, opt_etm_version,
	opt_pipestat_table, opt_tfo_header, opt_fifo_latency, opt_demux_order,
	opt_fifo_depth
};

/* Commands, for struct cli_option's cmds. */
#define CLI_CMD_DECODE  0x1u
#define CLI_CMD_PACKETS 0x2u
#define CLI_CMD_FRAMES  0x4u
#define CLI_CMD_ENCODE  0x8u
#define CLI_CMD_PROFILE 0x10u
#define CLI_CMD_COVERAGE 0x20u
#define CLI_CMD_FLAME   0x40u
#define CLI_CMD_ALL     0x7fu

/* One line of a command's help, and with a name an option the command's
 * parser takes: the option table (cli/options.c) is the only place an
 * option is declared, so none exists without its help. Kinds of row:
 *   name set: --name [arg], and -short when short is set;
 *   name NULL, arg set: a word that is not an option ("FILE");
 *   name and arg NULL: a section heading, help is its title. */
struct cli_option {
	const char *name;
	char short_name;
	const char *arg;            /* the value's name, NULL: takes none */
	int code;                   /* enum cli_opt, or 0: a struct cli_flag */
	unsigned cmds;              /* CLI_CMD_* of the commands that take it */
	const char *help;           /* one paragraph, wrapped when printed */
};

/* A command: its help before the table's lines (usage, what it does) and
 * after them (notes, exit status). */
struct cli_command {
	const char *name;
	unsigned bit;               /* CLI_CMD_* */
	const char *usage;
	const char *notes;
};

extern const struct cli_command cli_cmd_decode, cli_cmd_packets,
	cli_cmd_frames, cli_cmd_encode, cli_cmd_profile, cli_cmd_coverage,
	cli_cmd_flame;

/* The command named @name, or NULL. */
const struct cli_command *cli_command_find(const char *name);

/* Print the help of @c: usage, its rows of the option table, notes. */
void cli_print_help(FILE *f, const struct cli_command *c);

/* Print every option of the table, one line each: "COMMAND --name [-s]
 * [ARG]" (etmkit help --options, for tests/cli/check_help.py). */
void cli_print_option_list(FILE *f);

/* The getopt_long() options and short option string of @c: struct
 * option's val is CLI_OPT_VAL0 + the row index, or the short letter.
 * @opts has room for @max entries and the terminator; returns -1 if
 * not. */
#define CLI_OPT_VAL0 0x1000
int cli_getopt_table(const struct cli_command *c, struct option *opts,
		     size_t max, char *shorts, size_t shorts_size);

/* The row of getopt_long()'s return @val for command @c, or NULL (an error
 * character). */
const struct cli_option *cli_option_of(const struct cli_command *c, int val);

struct cli_flag;

/* Check @flags against the table's rows of @c: each flag has its own row
 * and each such row its flag. Returns 0, or -1 after saying what is
 * wrong (a defect of etmkit, not of the command line). */
int cli_option_check_flags(const struct cli_command *c,
			   const struct cli_flag *flags);

/* Messages (cli/msg.c): one style, for every command.
 *
 *   etmkit COMMAND: [FILE[:LINE]: ]text
 *   etmkit COMMAND: warning: text
 *   etmkit COMMAND: note: text
 *
 * ("etmkit:" before a command is known). The text is one line, has no
 * final period and starts in lower case, unless its first word is a name
 * written as it is: an option (--id), a register or acronym (ETMIDR), a
 * path. Text from the system or the library comes last, after ": ", in
 * lower case as well (cli_strerror(); etmkit_errstr() already is).
 * Errors and warnings always print; a note (something worth knowing that
 * needs no action) prints once per run for each distinct text, and not at
 * all with -q. tests/cli/check_messages.py holds stderr to this. */
void cli_msg_command(const char *cmd);
void cli_msg_quiet(int quiet);

/* Where messages go: each one line (no newline), prefix included
 * ("etmkit profile: warning: ..."), with its level; details are lines
 * that go on an error before them without a prefix (what a snapshot
 * holds, after an --id that matched nothing). The default (@fn NULL)
 * writes them to stderr. The sink, -q and the notes given are the
 * calling thread's; cli_msg_reset() forgets -q, the notes and the
 * command (not the sink), for a new run on the thread. */
enum cli_msg_level {
	cli_msg_error, cli_msg_warning, cli_msg_note, cli_msg_detail
};
typedef void cli_msg_sink_fn(void *ctx, enum cli_msg_level level,
			     const char *line);
void cli_msg_set_sink(cli_msg_sink_fn *fn, void *ctx);
void cli_msg_get_sink(cli_msg_sink_fn **fn, void **ctx);
void cli_msg_reset(void);
/* The default sink: @line and a newline on stderr (the progress line
 * cleared first). */
void cli_msg_stderr(void *ctx, enum cli_msg_level level, const char *line);
/* A new run on the thread for a caller of the core (cli/core.h): -q,
 * the notes and the command forgotten (cli_msg_reset()), progress off
 * (cli_progress_reset()), and until cli_msg_capture_end() the errors
 * taken into @err (@errlen bytes, cut there; may be NULL): the first
 * error's text (after "etmkit CMD: "), then each detail line and later
 * error on a line of its own. Errors and their details go there only;
 * warnings and notes go on to the sink there was. cli_msg_capture_more()
 * does the same within a run (nothing reset: a later step of it). */
struct cli_msg_capture {
	cli_msg_sink_fn *prev;
	void *prev_ctx;
	char *err;
	size_t errlen;
	int got;                    /* an error came */
	int in_error;               /* the last line was an error's */
};
void cli_msg_capture_begin(struct cli_msg_capture *c, char *err,
			   size_t errlen);
void cli_msg_capture_more(struct cli_msg_capture *c, char *err,
			  size_t errlen);
void cli_msg_capture_end(struct cli_msg_capture *c);
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A detail line of the error before it (no prefix). */
void cli_detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* strerror(@errnum) starting in lower case ("no such file or directory");
 * valid until the thread's next call. */
const char *cli_strerror(int errnum);

/* A command's own option: --name sets *target to 1; or, with @value,
 * --name ARG calls value(ctx, ARG), which returns 0, or -1 after printing
 * why ARG is bad. */
struct cli_flag {
	const char *name;
	int *target;
	int (*value)(void *ctx, const char *arg);
	void *ctx;
};

/* Parse a command's arguments: the options the table gives command @c
 * (input options, --quiet, and @flags, ended by a NULL name, each of which
 * must have its row), -h/--help (prints the help; returns -1) and one
 * optional FILE. Returns 0, -1 after --help, or cli_exit_usage after
 * printing why. */
int cli_parse_args(const struct cli_command *c, const struct cli_flag *flags,
		   struct cli_input *in, int argc, char **argv);

/* Around a getopt_long() loop: takes the process's lock on getopt's
 * state and resets it (optind 0); cli_getopt_end() gives the lock back.
 * cli_parse_args() does both. */
void cli_getopt_begin(void);
void cli_getopt_end(void);

/* Say what is wrong with option getopt_long() returned @c for (':' or
 * '?'): a missing value or an unknown option. */
void cli_bad_option(const struct cli_command *c, int ch, char **argv);



#endif
