/* etmkit encode: an execution record (or a QEMU log) to the trace a trace
 * unit would emit for it, written as a trace snapshot directory that
 * etmkit and OpenCSD's trc_pkt_lister decode. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "code_map.h"
#include "encode.h"
#include "etmkit/etm4.h"
#include "etmkit/exec.h"
#include "etmkit/insn.h"
#include "etmkit/qemu_log.h"

static const char *const reg_names[reg_count] = {
	"etmcr", "etmidr", "etmccer", "trcconfigr", "trcidr0", "trcidr1",
	"trcidr2", "trcidr8", "trcdevarch"
};

/* Longest --out accepted: its files' paths fit the 1100-byte buffers. */
#define OUT_DIR_MAX 1000

/* ---- Options ------------------------------------------------------------ */

static int bad_value(const char *opt, const char *arg, const char *what)
{
	cli_error("invalid value '%s' for --%s: %s", arg, opt, what);
	return cli_exit_usage;
}

/* The enum enc_reg of register option @code, or -1. */
static int reg_of(int code)
{
	switch (code) {
	case opt_etmcr: return reg_etmcr;
	case opt_etmidr: return reg_etmidr;
	case opt_etmccer: return reg_etmccer;
	case opt_trcidr0 + cli_trcconfigr: return reg_trcconfigr;
	case opt_trcidr0 + cli_trcidr0: return reg_trcidr0;
	case opt_trcidr0 + cli_trcidr1: return reg_trcidr1;
	case opt_trcidr0 + cli_trcidr2: return reg_trcidr2;
	case opt_trcidr0 + cli_trcidr8: return reg_trcidr8;
	case opt_trcidr0 + cli_trcdevarch: return reg_trcdevarch;
	default: return -1;
	}
}

/* A numeric option's value; 0, or a cli_exit after a message. */
static int number_option(struct encode_run *r, const struct cli_option *o,
			 const char *arg)
{
	uint32_t v;
	int reg = reg_of(o->code);

	if (cli_parse_u32(arg, &v))
		return bad_value(o->name, arg,
				 "expected a number (decimal or 0x hex)");
	switch (o->code) {
	case opt_sync_period: r->sync_period = v; r->have_sync = 1; break;
	case opt_spec_depth: r->spec_depth = v; r->have_depth = 1; break;
	case opt_mispredict_every: r->misp_every = v; r->have_misp = 1; break;
	case opt_cancel_every: r->cancel_every = v; r->have_cancel = 1; break;
	case opt_q_every: r->q_every = v; r->have_q = 1; break;
	case opt_timestamp_every: r->ts_every = v; break;
	case opt_cpus:
		if (v == 0 || v > 128)
			return bad_value("cpus", arg, "expected 1-128");
		r->cpus = v;
		break;
	case opt_aux_size:
		if (v == 0)
			return bad_value("aux-size", arg, "expected above 0");
		r->aux_size = v;
		break;
	case opt_truncate_every: r->truncate_every = v; break;
	case opt_pmu_type:
		if (v == 0)
			return bad_value("pmu-type", arg, "expected above 0");
		r->pmu_type = v;
		break;
	case opt_port_width:
		if (v != 4 && v != 8 && v != 16)
			return bad_value("port-width", arg, "expected 4, 8 or 16");
		r->port_width = v;
		break;
	case opt_etm_version:
		if (v != 1 && v != 2)
			return bad_value("etm-version", arg, "expected 1 or 2");
		r->etm_version = v;
		break;
	case opt_fifo_depth:
		if (v < 16 || v > 4096)
			return bad_value("fifo-depth", arg, "expected 16-4096");
		r->fifo_depth = v;
		break;
	case opt_trace_id:
		if (v == 0 || v >= 0x70)
			return bad_value("trace-id", arg, "expected 0x01-0x6f");
		r->trace_id = v;
		break;
	default:
		if (reg < 0) {
			cli_error("internal error: --%s has no handler", o->name);
			return cli_exit_usage;
		}
		r->reg[reg] = v;
		r->have_reg |= 1u << reg;
		break;
	}
	return 0;
}

/* --elf FILE[@BIAS] of input @in. */
static int elf_option(struct enc_input *in, char *arg)
{
	char *at = strrchr(arg, '@');

	in->elf[in->nelf] = arg;
	in->bias[in->nelf++] = 0;
	if (at) {
		uint64_t v;

		if (cli_parse_u64(at + 1, &v, 1))
			return bad_value("elf", arg, "expected FILE[@BIAS]");
		*at = 0;
		in->bias[in->nelf - 1] = v;
	}
	return 0;
}

static int parse_locked(struct encode_run *r, int argc, char **argv)
{
	const struct cli_command *cmd = &cli_cmd_encode;
	struct option opts[40];
	char shorts[16];
	int c, rc;

	if (cli_getopt_table(cmd, opts, 39, shorts, sizeof(shorts)) < 0)
		return cli_exit_usage;
	r->trace_id = 0x10;
	r->frames = 1;
	r->proto = etmkit_proto_none;
	while ((c = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		const struct cli_option *o = cli_option_of(cmd, c);

		if (!o) {
			cli_bad_option(cmd, c, argv);
			return cli_exit_usage;
		}
		switch (o->code) {
		case opt_from_record:
		case opt_from_qemu:
			if (r->ninputs == ENC_MAX_INPUTS) {
				cli_error("more than %d inputs", ENC_MAX_INPUTS);
				return cli_exit_usage;
			}
			r->inputs[r->ninputs].path = optarg;
			r->inputs[r->ninputs++].qemu = o->code == opt_from_qemu;
			continue;
		case opt_elf_enc:
			if (!r->ninputs) {
				cli_error("--elf %s: give it after its input "
					  "(--from-qemu or --from-record)",
					  optarg);
				return cli_exit_usage;
			}
			if (r->inputs[r->ninputs - 1].nelf == ENC_MAX_ELFS) {
				cli_error("--elf %s: more than %d binaries for "
					  "one input", optarg, ENC_MAX_ELFS);
				return cli_exit_usage;
			}
			rc = elf_option(&r->inputs[r->ninputs - 1], optarg);
			if (rc)
				return rc;
			continue;
		case opt_format:
			if (!strcmp(optarg, "snapshot"))
				r->format = enc_fmt_snapshot;
			else if (!strcmp(optarg, "perf-data"))
				r->format = enc_fmt_perf;
			else
				return bad_value("format", optarg,
						 "expected snapshot or perf-data");
			continue;
		case opt_record_out: r->record_out = optarg; continue;
		case opt_out: r->out_dir = optarg; continue;
		case opt_preset: r->preset = optarg; continue;
		case opt_qemu_data: r->qemu_data = 1; continue;
		case opt_quiet: cli_msg_quiet(1); continue;
		case opt_help:
			cli_print_help(stdout, cmd);
			return -1;
		case opt_protocol:
			if (!strcmp(optarg, "etmv3"))
				r->proto = etmkit_proto_etmv3;
			else if (!strcmp(optarg, "ptm"))
				r->proto = etmkit_proto_ptm;
			else if (!strcmp(optarg, "etmv4"))
				r->proto = etmkit_proto_etmv4;
			else if (!strcmp(optarg, "ete"))
				r->proto = etmkit_proto_ete;
			else if (!strcmp(optarg, "etmv2"))
				r->proto = etmkit_proto_etmv2;
			else
				return bad_value("protocol", optarg,
						 "expected etmv3, ptm, etmv4, "
						 "ete or etmv2");
			continue;
		case opt_capture_format:
			if (!strcmp(optarg, "binary"))
				r->cap_text = 0;
			else if (!strcmp(optarg, "text"))
				r->cap_text = 1;
			else
				return bad_value("capture-format", optarg,
						 "expected binary or text");
			r->have_capfmt = 1;
			continue;
		case opt_frames:
			if (!strcmp(optarg, "coresight"))
				r->frames = 1;
			else if (!strcmp(optarg, "none"))
				r->frames = 0;
			else
				return bad_value("frames", optarg,
						 "expected coresight or none");
			continue;
		default:
			rc = number_option(r, o, optarg);
			if (rc)
				return rc;
			continue;
		}
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s'",
			  argv[optind]);
		return cli_exit_usage;
	}
	if (!r->ninputs || (r->ninputs > 1 && r->format != enc_fmt_perf)) {
		cli_error("give one of --from-record FILE "
			  "and --from-qemu LOG (several with --format "
			  "perf-data)");
		return cli_exit_usage;
	}
	if (!r->out_dir || r->proto == etmkit_proto_none) {
		cli_error("--out and --protocol are "
			  "required (see etmkit encode --help)");
		return cli_exit_usage;
	}
	if (r->format != enc_fmt_perf &&
	    (r->cpus || r->aux_size || r->truncate_every || r->pmu_type ||
	     r->inputs[0].nelf)) {
		cli_error("--cpus, --aux-size, --truncate-every, --pmu-type and "
			  "--elf are --format perf-data options");
		return cli_exit_usage;
	}
	if (r->format == enc_fmt_perf) {
		/* --frames none: raw AUX records (TRBE, digest 3.6) hold
		 * bytes, not 16-byte frames */
		if ((r->frames && r->aux_size % 16) ||
		    r->aux_size > (64u << 20)) {
			cli_error("--aux-size %u: expected %sat most 64 MiB",
				  r->aux_size, r->frames ?
				  "a multiple of 16, " : "");
			return cli_exit_usage;
		}
		for (size_t i = 0; i < r->ninputs; i++)
			for (size_t j = 0; j < i; j++)
				if (!strcmp(r->inputs[i].path, "-") &&
				    !strcmp(r->inputs[j].path, "-")) {
					cli_error("stdin (-) given twice");
					return cli_exit_usage;
				}
	}
	/* The paths under it are built in fixed buffers (trace_path):
	 * refuse what would be cut, rather than write elsewhere. */
	if (strlen(r->out_dir) > OUT_DIR_MAX) {
		cli_error("--out: the path is longer than "
			  "%d bytes", OUT_DIR_MAX);
		return cli_exit_usage;
	}
	for (int i = 0; i < reg_count; i++) {
		int v3 = i <= reg_etmccer;
		if ((r->have_reg >> i & 1) &&
		    (v3 != encode_v3_family(r) ||
		     (i == reg_etmccer && r->proto == etmkit_proto_etmv2))) {
			cli_error("--%s is not a register "
				  "of %s", reg_names[i], encode_family(r));
			return cli_exit_usage;
		}
	}
	if (r->proto == etmkit_proto_etmv2) {
		/* One source on its own port: no frames, no perf.data (a
		 * capture is cycles, not a byte stream). */
		if (r->format == enc_fmt_perf) {
			cli_error("--format perf-data has no ETMv2 form");
			return cli_exit_usage;
		}
		r->frames = 0;
	} else if (r->port_width || r->fifo_depth || r->have_capfmt ||
		   r->etm_version) {
		cli_error("--port-width, --fifo-depth, --etm-version and "
			  "--capture-format are ETMv2 options");
		return cli_exit_usage;
	}
	if (encode_v3_family(r) &&
	    (r->have_depth || r->have_misp || r->have_cancel || r->have_q)) {
		cli_error("--spec-depth, --mispredict-every, "
			  "--cancel-every and --q-every are ETMv4/ETE options");
		return cli_exit_usage;
	}
	return 0;
}

/* Under the getopt lock (cli_getopt_begin()). */
static int parse_options(struct encode_run *r, int argc, char **argv)
{
	int rc;

	cli_msg_command(cli_cmd_encode.name);
	cli_getopt_begin();
	rc = parse_locked(r, argc, argv);
	cli_getopt_end();
	return rc;
}

/* ---- Output --------------------------------------------------------------- */

static int write_trace(void *ctx, const uint8_t *data, size_t len)
{
	struct encode_run *r = ctx;

	if (fwrite(data, 1, len, r->trace) != len) {
		r->sink_err = errno ? errno : EIO;
		return -etmkit_err_io;
	}
	r->trace_bytes += len;
	return 0;
}

/* The encoder's bytes: into frames, unframed into a perf-data AUX
 * record, or straight to the file. */
int encoder_sink(void *ctx, const uint8_t *data, size_t len)
{
	struct encode_run *r = ctx;

	if (r->framer)
		return frame_enc_put(r->framer, (uint8_t)r->trace_id, data, len);
	if (r->raw_sink)
		return r->raw_sink(r->raw_ctx, data, len);
	return write_trace(r, data, len);
}

static FILE *open_out(const struct encode_run *r, const char *name)
{
	char path[1100];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", r->out_dir, name);
	f = fopen(path, "w");
	if (!f)
		cli_error("cannot write %s: %s", path,
			  cli_strerror(errno));
	return f;
}

static int close_out(FILE *f, const struct encode_run *r, const char *name)
{
	if (ferror(f) | fclose(f)) {
		cli_error("writing %s/%s failed",
			  r->out_dir, name);
		return cli_exit_input;
	}
	return 0;
}

/* ---- Reading -------------------------------------------------------------- */

int encode_open_input(struct encode_run *r, struct enc_input *in)
{
	int err;

	in->in = strcmp(in->path, "-") ? fopen(in->path, "r") : stdin;
	if (!in->in) {
		cli_error("cannot open %s: %s", in->path,
			  cli_strerror(errno));
		return cli_exit_input;
	}
	if (!in->qemu) {
		err = exec_text_reader_alloc(&in->src.text, in->in);
	} else {
		struct qemu_log_config qc = { .size = sizeof(qc) };

		if (r->qemu_data)
			qc.flags |= QEMU_LOG_F_DATA;
		err = qemu_log_reader_alloc(&in->src.qemu, in->in, &qc);
	}
	if (err) {
		cli_error("%s", etmkit_errstr(err));
		return cli_exit_input;
	}
	return 0;
}

void encode_close_input(struct enc_input *in)
{
	struct qemu_log_stats qs;

	if (in->src.qemu && !qemu_log_reader_stats(in->src.qemu, &qs) &&
	    qs.data_unknown)
		cli_note("%s: %" PRIu64 " loads/stores have no data items "
			 "(transfers not derivable from the CPU dumps: "
			 "docs/qemu-log.md)", in->path, qs.data_unknown);
	exec_text_reader_free(in->src.text);
	qemu_log_reader_free(in->src.qemu);
	in->src.text = NULL;
	in->src.qemu = NULL;
	if (in->in && in->in != stdin)
		fclose(in->in);
	in->in = NULL;
}

static int next_item(struct enc_input *in, struct exec_rec *it,
		     struct exec_diag *dg)
{
	return in->src.text ? exec_text_next(in->src.text, it, dg) :
			      qemu_log_next(in->src.qemu, it, dg);
}

/* The input's name in messages. */
static const char *in_name(const struct enc_input *in)
{
	return strcmp(in->path, "-") ? in->path : "<stdin>";
}

/* Where the item just read is: "FILE:LINE" for a record, "FILE, item N"
 * for a QEMU log. */
static void where(const struct enc_input *in, char *buf, size_t cap)
{
	if (in->src.text)
		snprintf(buf, cap, "%s:%" PRIu64, in_name(in),
			 exec_text_line(in->src.text));
	else
		snprintf(buf, cap, "%s, item %" PRIu64, in_name(in), in->items);
}

/* Does the instruction say of itself what its opcode says (insn.h): its
 * size, whether it is a branch and an indirect one, a direct branch's
 * target? A decoder walks the opcodes in the memory image, so a record
 * that contradicts them would decode into something else. Jazelle is not
 * checked (its bytes past the fourth are not in the record). Returns 0,
 * or 1 with the reason in @why. */
static int check_opcode(const struct exec_rec *it, char *why, size_t cap)
{
	struct insn_info ii;
	uint8_t b[4];
	size_t n = exec_insn_bytes(it, b);
	uint64_t mask = it->isa == etmkit_isa_a64 ? ~(uint64_t)0 : 0xffffffffu;
	unsigned br = !!(it->flags & EXEC_F_BRANCH);

	if (it->isa == etmkit_isa_jazelle)
		return 0;
	if (!n || insn_decode(&ii, (enum etmkit_isa)it->isa, it->addr, b,
			      n) < 0) {
		snprintf(why, cap, "opcode %0*" PRIx32 " is not a whole "
			 "instruction", 2 * it->size, it->opcode);
		return 1;
	}
	if (ii.size != n) {
		snprintf(why, cap, "opcode %0*" PRIx32 " is a %u-byte "
			 "instruction, not %zu", 2 * it->size, it->opcode,
			 ii.size, n);
		return 1;
	}
	if (br != !!(ii.flags & INSN_F_BRANCH) ||
	    (br && !(it->flags & EXEC_F_INDIRECT) !=
		   !(ii.flags & INSN_F_INDIRECT))) {
		snprintf(why, cap, "opcode %0*" PRIx32 " is %s; the record "
			 "marks it %s", 2 * it->size, it->opcode,
			 !(ii.flags & INSN_F_BRANCH) ? "not a branch" :
			 (ii.flags & INSN_F_INDIRECT) ? "an indirect branch (bi)" :
			 "a direct branch (b)",
			 !br ? "as no branch" :
			 (it->flags & EXEC_F_INDIRECT) ? "bi" : "b");
		return 1;
	}
	if ((it->flags & EXEC_F_TAKEN) && !(ii.flags & INSN_F_INDIRECT) &&
	    (((it->target ^ ii.target) & mask) ||
	     it->target_isa != ii.target_isa)) {
		snprintf(why, cap, "the branch's target is 0x%" PRIx64 " (%s) "
			 "by its opcode, not 0x%" PRIx64 " (%s)",
			 ii.target & mask,
			 etmkit_isa_name((enum etmkit_isa)ii.target_isa),
			 it->target,
			 etmkit_isa_name((enum etmkit_isa)it->target_isa));
		return 1;
	}
	if (!(it->flags & EXEC_F_ISA_SWITCH) !=
	    !(ii.flags & INSN_F_ISA_SWITCH)) {
		snprintf(why, cap, "opcode %0*" PRIx32 " %s the instruction "
			 "set; the record %s", 2 * it->size, it->opcode,
			 (ii.flags & INSN_F_ISA_SWITCH) ? "switches" :
			 "does not switch", (it->flags & EXEC_F_ISA_SWITCH) ?
			 "gives sw=" : "gives no sw=");
		return 1;
	}
	return 0;
}

/* Returns 0, or 1 with the reason @it breaks the record in @why. */
static int check_item(struct continuity *k, const struct exec_rec *it,
		      char *why, size_t cap)
{
	switch (it->kind) {
	case exec_insn:
		break;
	case exec_exception:
		/* Its preferred return address says where execution stands
		 * (digest etmv4-ete.md 7.8: every instruction before it ran,
		 * the one there did not). A reset's may be UNKNOWN. */
		if (k->known && it->number != exec_exc_reset &&
		    it->addr != k->addr) {
			snprintf(why, cap, "the exception's return address "
				 "0x%" PRIx64 " is not where execution stands "
				 "(0x%" PRIx64 ", after the instruction "
				 "before)", it->addr, k->addr);
			return 1;
		}
		k->known = 0;
		return 0;
	case exec_gap:
		k->known = 0;
		return 0;
	default:
		return 0;
	}
	if (k->known && (it->addr != k->addr || it->isa != k->isa)) {
		snprintf(why, cap, "the instruction does not follow from the one "
			 "before (its address or instruction set differs, and "
			 "no branch, exc or gap comes between)");
		return 1;
	}
	if (check_opcode(it, why, cap))
		return 1;
	k->known = 1;
	if (it->flags & EXEC_F_TAKEN) {
		k->addr = it->target;
		k->isa = it->target_isa;
	} else {
		k->addr = it->addr + it->size;
		k->isa = (it->flags & EXEC_F_ISA_SWITCH) ? it->target_isa :
							   it->isa;
	}
	if (k->isa != etmkit_isa_a64)
		k->addr &= 0xffffffffu;
	return 0;
}

/* Encode @it, after writing it to --record-out. */
static int put_item(struct encode_run *r, const struct exec_rec *it)
{
	char line[160];

	if (r->rec_out) {
		int n = exec_text_format(line, sizeof(line), it);
		if (n <= 0) {
			/* not silently a record with an item missing */
			cli_error("%s: cannot write this "
				  "item to %s", in_name(r->cur), r->record_out);
			return 1;
		}
		fwrite(line, 1, (size_t)n, r->rec_out);
	}
	return r->ops.put(r->ops.e, it);
}

uint64_t encode_bytes(const struct encode_run *r)
{
	if (!r->ops.e)
		return 0;
	if (r->proto == etmkit_proto_etmv3)
		return etm3_enc_offset(r->ops.e);
	if (r->proto == etmkit_proto_ptm)
		return ptm_enc_offset(r->ops.e);
	if (r->proto == etmkit_proto_etmv2)
		return etm2_enc_get_stats(r->e2)->bytes;
	return ete_enc_get_stats(r->ops.e)->bytes;
}

/* Read every item of r->cur, check it, keep its code, and encode it;
 * with r->chunk_limit, stop before an instruction that follows a branch
 * once the chunk is full (include the branch: a trace unit's output ends
 * with the P0 element of the last instruction traced). */
int encode_run_items(struct encode_run *r)
{
	struct enc_input *in = r->cur;
	struct exec_rec it;
	struct exec_diag dg = { 0 };
	char at[1200], why[256];
	uint64_t refused_at = 0;
	int ret, cut_ok = 0;

	for (;;) {
		if (in->has_pending) {
			it = in->pending;
			in->has_pending = 0;
		} else {
			ret = next_item(in, &it, &dg);
			if (ret != 1)
				break;
			in->items++;
			r->items++;
			if (check_item(&in->k, &it, why, sizeof(why))) {
				where(in, at, sizeof(at));
				cli_error("%s: %s", at, why);
				return cli_exit_input;
			}
			if (it.kind == exec_insn && r->chunk_limit && cut_ok &&
			    encode_bytes(r) >= r->aux_size) {
				in->pending = it;
				in->has_pending = 1;
				return ENC_MORE;
			}
		}
		if (it.kind == exec_insn) {
			uint8_t b[4];
			uint64_t conflict = 0;
			size_t n = exec_insn_bytes(&it, b);
			int c = n && r->code ? code_map_add(r->code, it.addr, b,
							    n, &conflict) : 0;

			if (c) {
				where(in, at, sizeof(at));
				if (c < 0)
					cli_error("out of "
						  "memory");
				else
					cli_error("%s: the "
						  "code at 0x%" PRIx64 " differs "
						  "from what an earlier "
						  "instruction there had "
						  "(self-modifying code is not "
						  "encoded)", at, conflict);
				return cli_exit_input;
			}
			if (!r->have_first) {
				r->have_first = 1;
				r->first_addr = it.addr;
				r->first_isa = it.isa;
			}
			in->insns++;
			r->insns++;
			cut_ok = !!(it.flags & EXEC_F_BRANCH);
		} else if (it.kind == exec_exception || it.kind == exec_gap) {
			cut_ok = 0;
		}
		if (it.kind == exec_insn && r->ts_every &&
		    in->insns % r->ts_every == 1 % r->ts_every) {
			/* --timestamp-every: a clock of 3 ticks per
			 * instruction, before this one */
			struct exec_rec ts = { .kind = exec_timestamp,
					       .value = 3 * in->insns };
			ret = put_item(r, &ts);
			if (ret)
				goto refused;
		}
		ret = put_item(r, &it);
		if (ret) {
refused:
			if (ret > 0)
				return cli_exit_input;
			where(in, at, sizeof(at));
			if (ret == -etmkit_err_io)
				cli_error("writing %s: "
					  "%s", r->trace_path,
					  cli_strerror(r->sink_err));
			else if (r->proto == etmkit_proto_etmv2 &&
				 etm2_enc_refused(r->e2, &refused_at))
				cli_error("%s: the instruction at 0x%" PRIx64
					  ": %s (docs/etmv2.md 7b); encode "
					  "without the data preset", at,
					  refused_at,
					  etm2_enc_refused(r->e2, NULL));
			else if (encode_v3_family(r) &&
				 it.kind == exec_insn &&
				 it.isa == etmkit_isa_a64)
				cli_error("%s: %s "
					  "cannot trace A64 code (use --protocol "
					  "etmv4 or ete)", at, encode_family(r));
			else
				cli_error("%s: the %s "
					  "encoder cannot represent this item: "
					  "%s", at, encode_family(r),
					  etmkit_errstr(ret));
			return cli_exit_input;
		}
	}
	in->done = 1;
	if (ret < 0) {
		const char *file = in_name(in);
		if (dg.line)
			cli_error("%s:%" PRIu64 ": %s",
				  file, dg.line, dg.message);
		else
			cli_error("%s: %s", file,
				  dg.message[0] ? dg.message : etmkit_errstr(ret));
		return cli_exit_input;
	}
	if (!in->insns) {
		cli_error("%s holds no instruction",
			  in_name(in));
		return cli_exit_input;
	}
	return 0;
}

/* ---- The snapshot --------------------------------------------------------- */


/* The trace source's name in the snapshot. */
static const char *source_name(const struct encode_run *r)
{
	return r->proto == etmkit_proto_ptm ? "PTM_0" :
	       r->proto == etmkit_proto_ete ? "ETE_0" : "ETM_0";
}

static int write_source_ini(const struct encode_run *r, const char *type,
			    const struct ini_reg *regs, size_t nregs)
{
	FILE *f = open_out(r, "source_0.ini");

	if (!f)
		return cli_exit_input;
	fprintf(f, "[device]\nname=%s\nclass=trace_source\ntype=%s\n\n[regs]\n",
		source_name(r), type);
	for (size_t i = 0; i < nregs; i++)
		fprintf(f, "%s=0x%08" PRIX32 "\n", regs[i].name, regs[i].value);
	return close_out(f, r, "source_0.ini");
}

/* The core: its type, the registers at the first instruction, and the
 * code. An ARMv7-A core for ETMv3; an ARMv8-A one for ETMv4 and ETE,
 * which both know. */
static int write_core_ini(const struct encode_run *r)
{
	FILE *f = open_out(r, "cpu_0.ini");
	char err[1400], dir[1100];
	int ret;

	if (!f)
		return cli_exit_input;
	fprintf(f, "[device]\nname=cpu_0\nclass=core\ntype=%s\n\n[regs]\n",
		r->proto == etmkit_proto_etmv2 ? "ARM1156T2-S" :
		encode_v3_family(r) ? "Cortex-A15" : "Cortex-A57");
	if (r->first_isa == etmkit_isa_a64)
		fprintf(f, "PC(size:64)=0x%" PRIx64 "\n", r->first_addr);
	else
		fprintf(f, "R15=0x%" PRIx64 "\nCPSR=0x%x\n", r->first_addr,
			/* User mode; T for Thumb */
			r->first_isa == etmkit_isa_thumb ? 0x30 : 0x10);
	snprintf(dir, sizeof(dir), "%s/mem", r->out_dir);
	if (mkdir(dir, 0777) && errno != EEXIST) {
		cli_error("cannot create %s: %s", dir,
			  cli_strerror(errno));
		fclose(f);
		return cli_exit_input;
	}
	ret = code_map_write(r->code, r->out_dir, "mem", f, err, sizeof(err));
	if (ret) {
		cli_error("%s", err);
		fclose(f);
		return cli_exit_input;
	}
	return close_out(f, r, "cpu_0.ini");
}

/* trace.ini, then snapshot.ini: the last file written, so that a
 * directory holding it holds a whole snapshot. */
static int write_snapshot_ini(const struct encode_run *r)
{
	FILE *f = open_out(r, "trace.ini");
	int ret;

	if (!f)
		return cli_exit_input;
	fprintf(f, "[trace_buffers]\nbuffers=buffer0\n\n[buffer0]\nname=ETB_0\n"
		"file=trace.bin\nformat=%s\n\n[source_buffers]\n%s=ETB_0\n\n"
		"[core_trace_sources]\ncpu_0=%s\n",
		r->proto == etmkit_proto_etmv2 ? "etmv2-capture" :
		r->frames ? "coresight" : "source_data", source_name(r),
		source_name(r));
	ret = close_out(f, r, "trace.ini");
	if (ret)
		return ret;
	f = open_out(r, "snapshot.ini");
	if (!f)
		return cli_exit_input;
	fprintf(f, "[snapshot]\nversion=1.0\ndescription=etmkit encode from "
		"%s\n\n[device_list]\ndevice0=cpu_0.ini\ndevice1=source_0.ini\n"
		"\n[trace]\nmetadata=trace.ini\n", in_name(r->cur));
	return close_out(f, r, "snapshot.ini");
}

/* ---- The command ------------------------------------------------------------ */

static void run_free(struct encode_run *r)
{
	if (r->ops.e)
		r->ops.free(r->ops.e);
	frame_enc_free(r->framer);
	code_map_free(r->code);
	for (size_t i = 0; i < r->ninputs; i++)
		encode_close_input(&r->inputs[i]);
	if (r->trace)
		fclose(r->trace);
	if (r->rec_out)
		fclose(r->rec_out);
}

static int run_encode(struct encode_run *r)
{
	char path[1100];
	int ret;

	/* Usage errors and an unreadable input before anything is
	 * created */
	r->cur = &r->inputs[0];
	ret = encode_setup(r);
	if (ret)
		return ret;
	if ((ret = encode_open_input(r, r->cur)))
		return ret;
	if (mkdir(r->out_dir, 0777) && errno != EEXIST) {
		cli_error("cannot create %s: %s",
			  r->out_dir, cli_strerror(errno));
		return cli_exit_input;
	}
	/* An earlier snapshot's snapshot.ini would describe this run's
	 * trace.bin if this run failed half-way: it goes first, and comes
	 * back last (write_snapshot_ini). */
	snprintf(path, sizeof(path), "%s/snapshot.ini", r->out_dir);
	if (unlink(path) && errno != ENOENT) {
		cli_error("cannot replace %s: %s", path,
			  cli_strerror(errno));
		return cli_exit_input;
	}
	r->code = code_map_alloc();
	if (!r->code || (r->frames && frame_enc_alloc(&r->framer, write_trace,
						       r))) {
		cli_error("out of memory");
		return cli_exit_input;
	}
	snprintf(r->trace_path, sizeof(r->trace_path), "%s/trace.bin",
		 r->out_dir);
	r->trace = fopen(r->trace_path, "wb");
	if (!r->trace) {
		cli_error("cannot write %s: %s",
			  r->trace_path, cli_strerror(errno));
		return cli_exit_input;
	}
	if (r->record_out) {
		struct stat in_st, out_st;

		/* fopen "w" would empty the input before it is read */
		if (!fstat(fileno(r->cur->in), &in_st) &&
		    !stat(r->record_out, &out_st) &&
		    in_st.st_dev == out_st.st_dev &&
		    in_st.st_ino == out_st.st_ino) {
			cli_error("--record-out %s is the "
				  "input", r->record_out);
			return cli_exit_usage;
		}
		r->rec_out = fopen(r->record_out, "w");
		if (!r->rec_out) {
			cli_error("cannot write %s: %s",
				  r->record_out, cli_strerror(errno));
			return cli_exit_input;
		}
		fputs("etmkit-exec 1\n", r->rec_out);
	}
	if ((ret = encode_run_items(r)))
		return ret;
	ret = r->ops.finish(r->ops.e);
	if (!ret && r->framer)
		ret = frame_enc_finish(r->framer);
	if (ret) {
		cli_error("writing %s: %s",
			  r->trace_path, ret == -etmkit_err_io ?
			  cli_strerror(r->sink_err) : etmkit_errstr(ret));
		return cli_exit_input;
	}
	if (fclose(r->trace)) {
		r->trace = NULL;
		cli_error("writing %s failed",
			  r->trace_path);
		return cli_exit_input;
	}
	r->trace = NULL;
	if (r->rec_out) {
		FILE *f = r->rec_out;
		r->rec_out = NULL;
		if (ferror(f) | fclose(f)) {
			cli_error("writing %s failed",
				  r->record_out);
			return cli_exit_input;
		}
	}
	if ((ret = write_source_ini(r, r->source_type, r->regs, r->nregs)) ||
	    (ret = write_core_ini(r)) || (ret = write_snapshot_ini(r)))
		return ret;
	if (r->proto == etmkit_proto_etmv2) {
		const struct etm2_enc_stats *st = etm2_enc_get_stats(r->e2);

		if (st->overflows)
			cli_warn("the FIFO overflowed %" PRIu64 " times: %"
				 PRIu64 " instructions are not traced (a "
				 "decode shows gaps there)", st->overflows,
				 st->insns_lost);
	} else if (!encode_v3_family(r)) {
		/* Not an error (a QEMU run ends where it ends), but the
		 * decode will not show these: say so. */
		const struct ete_enc_stats *st = ete_enc_get_stats(r->ops.e);
		if (st && st->untraceable)
			cli_warn("%" PRIu64
				 " items cannot be shown by %s trace (mostly "
				 "instructions after the last branch before a "
				 "gap or the end); a decode will miss them",
				 st->untraceable, r->source_type);
	}
	cli_note("%" PRIu64 " instructions, %" PRIu64
		 " items -> %s: %" PRIu64 " bytes of %s trace%s, %zu bytes of "
		  "code", r->insns, r->items, r->out_dir, r->trace_bytes,
		  r->source_type, r->frames ? " in CoreSight frames" : "",
		  code_map_bytes(r->code));
	return 0;
}

int cmd_encode(int argc, char **argv)
{
	struct encode_run r;
	int ret;

	memset(&r, 0, sizeof(r));
	ret = parse_options(&r, argc, argv);
	if (ret)
		return ret < 0 ? cli_exit_ok : ret;
	ret = r.format == enc_fmt_perf ? encode_perf(&r) : run_encode(&r);
	run_free(&r);
	return ret;
}
