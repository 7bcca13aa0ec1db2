/* etmkit command-line tool: shared declarations. */
#ifndef ETMKIT_CLI_H
#define ETMKIT_CLI_H

#include <stdio.h>

#include "etmkit/etmkit.h"
#include "etmkit/etm4.h" /* until etmkit.h includes it */

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
#define CLI_PROTO_ALL (CLI_PROTO(etmkit_proto_etmv3) | CLI_PROTO_ETM4)

/* One trace source to decode. */
struct cli_source {
	uint8_t id;
	uint8_t proto;              /* enum etmkit_protocol */
	char name[64];
	char core[64];              /* snapshot: the core device it traces */
	struct etm3_config cfg;     /* etmkit_proto_etmv3 */
	struct etm4_config etm4;    /* etmkit_proto_etmv4, etmkit_proto_ete
				       (ETM4_CFG_ETE set) */
};

/* The ETMv4/ETE register options, in enum cli_opt order from
 * opt_trcidr0. */
enum cli_trc_reg {
	cli_trcidr0, cli_trcidr1, cli_trcidr2, cli_trcidr8, cli_trcconfigr,
	cli_trcdevarch, cli_trc_count
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

	/* Resolved: */
	char buffer_path[1024];
	enum deformat_mode mode;
	int nsrc;
	struct cli_source src[CLI_MAX_IDS];
	struct snapshot *ss;        /* with keep_snapshot; cli_input_free() */
};

/* Parse a number (decimal or 0x hex) into *v; 0 or -1. */
int cli_parse_u32(const char *s, uint32_t *v);
/* The same for 64 bits; with @allow_neg a leading '-' negates modulo
 * 2^64 (an ELF bias below the link address). */
int cli_parse_u64(const char *s, uint64_t *v, int allow_neg);

/* Handle an input option; returns 1 if @opt was one, 0 if not, -1 on a bad
 * value (message printed). */
int cli_input_option(struct cli_input *in, int opt, const char *arg);

/* Resolve sources and buffer. Prints a message and returns a cli_exit on
 * failure, 0 on success. */
int cli_input_resolve(struct cli_input *in, const char *cmd);

/* Feed @n bytes to session @s for command @cmd; on a stop-on-error stop
 * set *@stopped, and say what happened on stderr. Returns the session's
 * result. */
int cli_session_feed(const char *cmd, struct etmkit_session *s,
		     const uint8_t *buf, size_t n, int stop_on_error,
		     int *stopped);

/* Release what cli_input_resolve() kept (the snapshot). */
void cli_input_free(struct cli_input *in);

/* Read the buffer file and feed it to @feed in chunks. Returns 0, or a
 * cli_exit after printing a message. */
int cli_input_stream(const struct cli_input *in,
		     int (*feed)(void *ctx, const uint8_t *buf, size_t n),
		     void *ctx);

/* Output of ETMv3 packets. */
void cli_print_etm3_text(FILE *f, uint8_t id, const struct etm3_packet *p,
			 int m_profile);
void cli_print_etm3_json(FILE *f, uint8_t id, const struct etm3_packet *p,
			 int m_profile);

/* The header line of the packet text listing. */
void cli_print_packet_header(FILE *f);

/* Whether a text listing starts with a header line: --no-header (@off)
 * drops it, --header (@on) forces it, else only on a terminal. */
int cli_header_wanted(FILE *f, int on, int off);

/* Output of ETMv4 and ETE packets (@ete: the source is an ETE). */
void cli_print_etm4_text(FILE *f, uint8_t id, const struct etm4_packet *p,
			 int ete);
void cli_print_etm4_json(FILE *f, uint8_t id, const struct etm4_packet *p,
			 int ete);

/* Disassembly of instruction elements (capstone), cached by address. */
struct cli_disasm;
struct cli_disasm *cli_disasm_alloc(void);
void cli_disasm_free(struct cli_disasm *d);
/* The text of insn element @e: valid until the next call. */
const char *cli_disasm(struct cli_disasm *d, const struct etmkit_elem *e);

/* Output of execution elements. @bad_image: mark an instruction from an
 * image region that is not what ran (cmd_decode.c). The header names the
 * text columns. */
void cli_print_elem_header(FILE *f);
void cli_print_elem_text(FILE *f, uint8_t id, const struct etmkit_elem *e,
			 int m_profile, struct cli_disasm *dis, int bad_image);
void cli_print_elem_json(FILE *f, uint8_t id, const struct etmkit_elem *e,
			 int m_profile);

int cmd_packets(int argc, char **argv);
int cmd_frames(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_encode(int argc, char **argv);

/* Option codes for getopt_long. */
enum cli_opt {
	opt_snapshot = 0x100, opt_id, opt_protocol, opt_etmcr, opt_etmidr,
	opt_etmccer, opt_frames, opt_help, opt_buffer,
	opt_trcidr0, /* then the other enum cli_trc_reg registers in order */
	opt_trc_last = opt_trcidr0 + cli_trc_count - 1,
	opt_flag0 = 0x200 /* command flags: opt_flag0 + index */
};

/* A command's own option: --name sets *target to 1; or, with @value,
 * --name ARG calls value(ctx, ARG), which returns 0, or -1 after printing
 * why ARG is bad. */
struct cli_flag {
	const char *name;
	int *target;
	int (*value)(void *ctx, const char *arg);
	void *ctx;
};

/* Parse a command's arguments: the input options, @flags (ended by a NULL
 * name), --help (prints @usage; returns -1) and one optional FILE. Returns
 * 0, -1 after --help, or cli_exit_usage after printing why. */
int cli_parse_args(const char *cmd, const char *usage,
		   const struct cli_flag *flags, struct cli_input *in,
		   int argc, char **argv);



#endif
