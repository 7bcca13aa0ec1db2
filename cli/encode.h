/* etmkit encode: what the snapshot writer (cmd_encode.c) and the
 * perf.data writer (encode_perf.c) share. */
#ifndef ETMKIT_CLI_ENCODE_H
#define ETMKIT_CLI_ENCODE_H

#include <stdio.h>

#include "etmkit/etm2.h"
#include "etmkit/etm3.h"
#include "etmkit/etm4.h"
#include "etmkit/exec.h"
#include "etmkit/ptm.h"
#include "etmkit/qemu_log.h"
#include "etmkit/transport.h"

/* Register options: ETMv3's (and PTM's), then ETMv4/ETE's. */
enum enc_reg {
	reg_etmcr, reg_etmidr, reg_etmccer,
	reg_trcconfigr, reg_trcidr0, reg_trcidr1, reg_trcidr2, reg_trcidr8,
	reg_trcdevarch, reg_count
};


/* A protocol's encoder behind one face. */
struct enc_ops {
	void *e;
	int (*put)(void *e, const struct exec_rec *r);
	int (*finish)(void *e);
	void (*free)(void *e);
};

/* Where items come from. */
struct rec_source {
	struct exec_text_reader *text;
	struct qemu_log_reader *qemu;
};

/* What the record says comes next, so that a record the trace could not
 * represent (an instruction that does not follow from the one before) is
 * refused where it breaks, not decoded into something else. */
struct continuity {
	int known;
	uint64_t addr;
	uint8_t isa;
};

#define ENC_MAX_ELFS 16

/* One --from-record / --from-qemu input: with --format perf-data, one
 * process (its binaries given by --elf after it: the program, then the
 * shared libraries it loaded). */
struct enc_input {
	const char *path;          /* "-": stdin */
	int qemu;                  /* a QEMU log, not a record */
	const char *elf[ENC_MAX_ELFS]; /* --elf FILE (perf-data) */
	uint64_t bias[ENC_MAX_ELFS];   /* --elf FILE@BIAS */
	size_t nelf;
	FILE *in;
	struct rec_source src;
	struct continuity k;
	uint64_t items, insns;     /* read so far */
	struct exec_rec pending;   /* read, not yet encoded (perf-data: the
				      first instruction of the next chunk) */
	int has_pending, done;
	uint32_t pid, cpu;         /* perf-data: the process and its CPU */
	int started;               /* perf-data: ITRACE_START written */
};

#define ENC_MAX_INPUTS 64
enum enc_format { enc_fmt_snapshot = 0, enc_fmt_perf };

struct ini_reg {
	const char *name;  /* with its offset, as real snapshots write it */
	uint32_t value;
};

struct encode_run {
	struct enc_input inputs[ENC_MAX_INPUTS];
	size_t ninputs;
	struct enc_input *cur;     /* the input being encoded */
	const char *record_out, *out_dir;
	int format;                /* enum enc_format */
	const char *preset;
	int qemu_data;              /* --qemu-data: QEMU_LOG_F_DATA */
	int proto;                 /* enum etmkit_protocol */
	int frames;                /* 1: CoreSight frames, 0: raw */
	uint32_t trace_id;
	unsigned have_reg;         /* bit per enum enc_reg given */
	uint32_t reg[reg_count];
	int have_sync, have_depth, have_misp, have_cancel, have_q;
	uint32_t sync_period, spec_depth, misp_every, cancel_every, q_every;
	uint32_t ts_every;         /* --timestamp-every: 0 none */
	/* --format perf-data */
	uint32_t cpus;             /* --cpus: 0 = one per input */
	uint32_t aux_size;         /* --aux-size: trace bytes per AUX record */
	uint32_t truncate_every;   /* --truncate-every: 0 none */
	uint32_t pmu_type;         /* --pmu-type */
	int chunk_limit;           /* run_items stops at a chunk's end */
	struct etm3_enc_config m3; /* the registers the encoders use */
	struct ete_enc_config m4;
	struct ptm_enc_config mp;
	/* ETMv2: the port and FIFO (--port-width, --fifo-depth; 0: the
	 * defaults), the capture's form, and the writer the encoder's
	 * cycles go through (its bytes to encoder_sink) */
	uint32_t port_width, fifo_depth;
	uint32_t etm_version;      /* --etm-version: 0 not given */
	int cap_text, have_capfmt;
	struct etm2_enc_config m2;
	struct etm2_cap_writer *capw;
	struct etm2_enc *e2;

	/* Running: */
	FILE *rec_out, *trace;
	struct frame_enc *framer;
	/* perf-data --frames none: the encoder's bytes go here, unframed
	 * (one AUX record's raw trace), instead of r->trace */
	int (*raw_sink)(void *ctx, const uint8_t *data, size_t n);
	void *raw_ctx;
	struct code_map *code;
	struct enc_ops ops;
	int sink_err;              /* errno of a failed trace write */
	uint64_t trace_bytes, items, insns;
	uint64_t first_addr;
	int first_isa, have_first;
	struct ini_reg regs[8];    /* the trace source's registers */
	size_t nregs;
	const char *source_type;   /* its [device] type */
	char trace_path[1100];
};


/* cmd_encode.c: the sink of the run's encoder (@ctx the run): into
 * r->framer with r->trace_id, else r->raw_sink when set, else r->trace. */
int encoder_sink(void *ctx, const uint8_t *data, size_t len);
/* encode_setup.c: a fresh encoder of the run's protocol and registers
 * writing to encoder_sink (r->framer with r->trace_id, else
 * r->raw_sink when set, else r->trace); 0 or a cli_exit
 * after a message. */
int encode_setup(struct encode_run *r);
/* Open input @in; 0 or a cli_exit after a message. */
int encode_open_input(struct encode_run *r, struct enc_input *in);
void encode_close_input(struct enc_input *in);
/* Encode the items of r->cur: to its end (returns 0) or, with
 * r->chunk_limit, until the encoder has emitted r->aux_size bytes and the
 * next item is an instruction after a branch (returns ENC_MORE; that item
 * is kept in r->cur->pending). A cli_exit after a message on error. */
#define ENC_MORE (-1)
int encode_run_items(struct encode_run *r);
/* The encoder's bytes so far. */
uint64_t encode_bytes(const struct encode_run *r);

/* encode_setup.c: "ETMv3", "PTM", "ETMv2" or "ETMv4/ETE", for messages. */
const char *encode_family(const struct encode_run *r);
/* Whether the run's protocol is ETMv3, PTM or ETMv2: the ETMCR/ETMIDR
 * family (ETMCCER: not ETMv2). */
int encode_v3_family(const struct encode_run *r);

/* encode_perf.c: --format perf-data. */
int encode_perf(struct encode_run *r);

#endif /* ETMKIT_CLI_ENCODE_H */
