/* etmkit encode --format perf-data: executions written as the perf.data
 * file Linux `perf record -e cs_etm//u` would write for them
 * (include/etmkit/perf_write.h; digest perf-data.md).
 *
 * Each input is one process (pid 1000 + its index, one thread) running on
 * CPU index mod --cpus. Each CPU's trace goes to its AUX ring in CoreSight
 * frames with trace ID 0x10 + 2 * CPU (digest 3.5), or with --frames none
 * raw, as a TRBE writes it: the one trace unit's bytes, every AUX record
 * flagged FORMAT_RAW (digest 3.6; any protocol, though real TRBE
 * recordings are ETE). The trace is cut into
 * AUX records of about --aux-size bytes; each starts a new trace session
 * (a fresh trace unit: A-sync, trace info, the context ID = the thread id,
 * digest 3.3), so a decoder that resets at every AUX record (digest 3.10)
 * loses nothing. The processes of one CPU take turns, one AUX record each;
 * the CPUs take turns in rounds, each ended by FINISHED_ROUND. Each AUX
 * record is followed by the AUXTRACE record holding its bytes.
 *
 * Records: AUXTRACE_INFO (cs_etm v1: a block per CPU with the encoder's
 * registers), then per process COMM (exec) and MMAP2 of its binary's
 * executable segments with the build id (elf_file.h); ITRACE_START when a process first
 * runs on its CPU; a process's binaries are its --elf files (the program,
 * then the libraries it loaded), the first naming it. Features: BUILD_ID, NRCPUS, PMU_MAPPINGS, AUXTRACE. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "encode.h"
#include "etmkit/elf_file.h"
#include "etmkit/perf_write.h"

#define PROC_PID0 1000
#define DEFAULT_AUX_SIZE 16384
#define MAX_SEGS 8
#define PAGE 4096ull
#define PROT_R_X 5u        /* PROT_READ | PROT_EXEC */
#define MAP_PRIV 2u        /* MAP_PRIVATE */
#define TRCAUTHSTATUS 0xCCu /* non-secure invasive and non-invasive
			       debug enabled (as Juno reports) */

/* What one --elf says: its executable PT_LOAD segments and the GNU build
 * id note. */
struct proc_elf {
	char path[PATH_MAX];
	uint8_t bid[20];
	size_t bid_size;
	struct { uint64_t start, len, pgoff; } seg[MAX_SEGS];
	size_t nseg;
};

/* A process: its name (the first --elf's file name) and its binaries. */
struct proc {
	char comm[16];
	struct proc_elf bin[ENC_MAX_ELFS];
	size_t nbin;
};

struct cpu_state {
	uint64_t aux_head;      /* AUX ring offset of the next record */
	uint64_t naux;
	size_t rr;              /* the next of its processes to run */
};

struct perf_run {
	struct encode_run *r;
	struct perf_writer *w;
	uint32_t ncpu;
	struct cpu_state cpu[128];
	struct proc *proc;      /* one per input */
	uint8_t *buf;           /* one AUX record's frames */
	size_t len, cap;
	int buf_err;
	uint64_t time, aux_records, aux_bytes, untraceable;
};

/* ---- The binary (elf_file.h) ------------------------------------------- */

/* A thread name: at most 15 bytes (TASK_COMM_LEN 16). */
static void set_comm(char comm[16], const char *name)
{
	size_t n = strlen(name);

	n = n > 15 ? 15 : n;
	memcpy(comm, name, n);
	comm[n] = 0;
}

/* @path's executable PT_LOAD segments, mapped from their pages, and its
 * build id. 0, or a cli_exit after a message. */
static int read_elf(struct proc_elf *e, const char *path, uint64_t bias)
{
	struct elf_file *ef = NULL;
	struct image_diag d;
	int err;

	memset(&d, 0, sizeof(d));
	err = elf_file_open(&ef, path, &d);
	if (err) {
		cli_error("%s: %s", path, d.message[0] ? d.message :
			  etmkit_errstr(err));
		return cli_exit_input;
	}
	if (!realpath(path, e->path))
		snprintf(e->path, sizeof(e->path), "%s", path);
	e->bid_size = elf_file_build_id(ef, e->bid);
	if (e->bid_size > 20)
		e->bid_size = 20;
	for (size_t i = 0; i < elf_file_segment_count(ef); i++) {
		const struct elf_segment *sg = elf_file_segment(ef, i);
		uint64_t s, end;

		if (!(sg->flags & ELF_FILE_PF_X) || e->nseg == MAX_SEGS)
			continue;
		s = (sg->vaddr + bias) & ~(PAGE - 1);
		end = (sg->vaddr + bias + sg->memsz + PAGE - 1) & ~(PAGE - 1);
		e->seg[e->nseg].start = s;
		e->seg[e->nseg].len = end - s;
		e->seg[e->nseg].pgoff = sg->offset & ~(PAGE - 1);
		e->nseg++;
	}
	elf_file_free(ef);
	if (!e->nseg) {
		cli_error("%s: no executable loadable segment", path);
		return cli_exit_input;
	}
	return 0;
}

/* ---- Output ------------------------------------------------------------ */

/* Was binary @b of input @i's file already given a BUILD_ID entry (an
 * earlier binary of the same path, of this input or an earlier one)? */
static int build_id_written(const struct perf_run *p, size_t i, size_t b)
{
	for (size_t j = 0; j <= i; j++)
		for (size_t k = 0; k < (j == i ? b : p->proc[j].nbin); k++)
			if (p->proc[j].bin[k].bid_size &&
			    !strcmp(p->proc[j].bin[k].path,
				    p->proc[i].bin[b].path))
				return 1;
	return 0;
}

static int writer_error(struct perf_run *p, int err)
{
	cli_error("writing %s: %s", p->r->out_dir, err == -etmkit_err_io ?
		  cli_strerror(errno ? errno : EIO) : etmkit_errstr(err));
	return cli_exit_input;
}

/* The framer's output: one AUX record's bytes. */
static int buf_sink(void *ctx, const uint8_t *data, size_t n)
{
	struct perf_run *p = ctx;

	if (p->len + n > p->cap) {
		size_t cap = p->cap ? p->cap : 65536;
		uint8_t *b;

		while (cap < p->len + n)
			cap *= 2;
		b = realloc(p->buf, cap);
		if (!b)
			return -etmkit_err_nomem;
		p->buf = b;
		p->cap = cap;
	}
	memcpy(p->buf + p->len, data, n);
	p->len += n;
	return 0;
}

static struct perf_write_sid sid_of(struct perf_run *p,
				    const struct enc_input *in)
{
	struct perf_write_sid s = { in->pid, in->pid, p->time, in->cpu };

	return s;
}

/* The first records: metadata, then each process's COMM and MMAP2s. */
static int write_start(struct perf_run *p)
{
	struct encode_run *r = p->r;
	struct perf_cs_etm_cpu *cpus = calloc(p->ncpu, sizeof(*cpus));
	int err = 0;

	if (!cpus) {
		cli_error("out of memory");
		return cli_exit_input;
	}
	for (uint32_t c = 0; c < p->ncpu; c++) {
		uint32_t traceidr = 0x10 + 2 * c; /* digest 3.5 */

		if (encode_v3_family(r)) {
			/* PTM writes the ETMv3 block (digest 3.5): its
			 * ETMIDR says PTM */
			int ptm = r->proto == etmkit_proto_ptm;
			struct etm3_config c3;

			etm3_config_init(&c3);
			c3.etmcr = ptm ? r->mp.etmcr : r->m3.etmcr;
			c3.etmidr = ptm ? r->mp.etmidr : r->m3.etmidr;
			c3.etmccer = ptm ? r->mp.etmccer : r->m3.etmccer;
			perf_cs_etm_cpu_set_etm3(&cpus[c], c, &c3, traceidr);
		} else {
			perf_cs_etm_cpu_set_etm4(&cpus[c], c, &r->m4.etm,
						 traceidr, TRCAUTHSTATUS);
		}
	}
	err = perf_write_auxtrace_info(p->w, cpus, p->ncpu);
	free(cpus);
	for (size_t i = 0; !err && i < r->ninputs; i++) {
		struct enc_input *in = &r->inputs[i];
		struct proc *pr = &p->proc[i];
		struct perf_write_sid s = sid_of(p, in);

		err = perf_write_comm(p->w, in->pid, in->pid, pr->comm, 1, &s);
		for (size_t b = 0; !err && b < pr->nbin; b++) {
			struct proc_elf *e = &pr->bin[b];

			for (size_t k = 0; !err && k < e->nseg; k++)
				err = perf_write_mmap2(
					p->w, in->pid, in->pid,
					e->seg[k].start, e->seg[k].len,
					e->seg[k].pgoff, PROT_R_X, MAP_PRIV,
					e->bid_size ? e->bid : NULL,
					e->bid_size, e->path, &s);
			/* digest 1.4: one BUILD_ID entry per file */
			if (!err && e->bid_size && !build_id_written(p, i, b))
				err = perf_write_build_id(p->w, -1, e->bid,
							  e->bid_size,
							  e->path);
		}
	}
	return err ? writer_error(p, err) : 0;
}

/* One AUX record of input @in on its CPU: a fresh trace unit from its
 * next instruction to the chunk's end, framed, written. */
static int run_chunk(struct perf_run *p, struct enc_input *in)
{
	struct encode_run *r = p->r;
	struct cpu_state *cs = &p->cpu[in->cpu];
	struct exec_rec ctx = { .kind = exec_context,
				.flags = EXEC_CTX_CONTEXTID, .value = in->pid };
	struct perf_write_sid s;
	uint64_t flags = 0;
	int ret, err;

	r->cur = in;
	r->trace_id = 0x10 + 2 * in->cpu;
	p->len = 0;
	if (!r->frames) { /* raw: the encoder writes the AUX bytes itself */
		r->raw_sink = buf_sink;
		r->raw_ctx = p;
	} else if (frame_enc_alloc(&r->framer, buf_sink, p)) {
		cli_error("out of memory");
		return cli_exit_input;
	}
	if ((ret = encode_setup(r)))
		return ret;
	/* digest 3.3: the context ID carries the thread id */
	err = r->ops.put(r->ops.e, &ctx);
	if (err) {
		cli_error("%s: the encoder refused the context item: %s",
			  in->path, etmkit_errstr(err));
		return cli_exit_input;
	}
	ret = encode_run_items(r);
	if (ret && ret != ENC_MORE)
		return ret;
	err = r->ops.finish(r->ops.e);
	if (!err && r->framer)
		err = frame_enc_finish(r->framer);
	if (err) {
		cli_error("%s: %s", in->path, etmkit_errstr(err));
		return cli_exit_input;
	}
	if (!encode_v3_family(r))
		p->untraceable += ete_enc_get_stats(r->ops.e)->untraceable;
	r->ops.free(r->ops.e);
	r->ops.e = NULL;
	frame_enc_free(r->framer);
	r->framer = NULL;

	p->time += 1000;
	s = sid_of(p, in);
	if (!in->started) {
		in->started = 1;
		if ((err = perf_write_itrace_start(p->w, in->pid, in->pid, &s)))
			return writer_error(p, err);
	}
	cs->naux++;
	if (r->truncate_every && cs->naux % r->truncate_every == 0)
		flags |= PERF_AUX_FLAG_TRUNCATED; /* digest 3.7 */
	if (!r->frames)
		flags |= PERF_AUX_FLAG_FORMAT_RAW; /* digest 3.6 */
	/* digest 3.10: the AUX record, then the AUXTRACE holding its range */
	if ((err = perf_write_aux(p->w, cs->aux_head, p->len, flags, &s)) ||
	    (err = perf_write_auxtrace_begin(p->w, p->len, cs->aux_head,
					     in->cpu, in->pid, in->cpu)) ||
	    (err = perf_write_auxtrace_data(p->w, p->buf, p->len)) ||
	    (err = perf_write_auxtrace_end(p->w)))
		return writer_error(p, err);
	cs->aux_head += p->len;
	p->aux_records++;
	p->aux_bytes += p->len;
	return 0;
}

/* The next unfinished input of CPU @c after its last, or NULL. */
static struct enc_input *next_on_cpu(struct perf_run *p, uint32_t c)
{
	struct encode_run *r = p->r;

	for (size_t k = 0; k < r->ninputs; k++) {
		size_t i = (p->cpu[c].rr + k) % r->ninputs;

		if (r->inputs[i].cpu == c && !r->inputs[i].done) {
			p->cpu[c].rr = i + 1;
			return &r->inputs[i];
		}
	}
	return NULL;
}

static int context_id_on(const struct encode_run *r)
{
	/* ETMv3: ETMCR[15:14] context ID size; ETMv4/ETE: TRCCONFIGR.CID */
	if (r->proto == etmkit_proto_ptm)
		return (r->mp.etmcr >> 14 & 3) != 0;
	return r->proto == etmkit_proto_etmv3 ? (r->m3.etmcr >> 14 & 3) != 0
					      : (r->m4.etm.trcconfigr >> 6 & 1);
}

static int run(struct perf_run *p)
{
	struct encode_run *r = p->r;
	struct perf_write_config wc;
	int ret, err, more = 1;

	if (r->record_out) {
		cli_error("--record-out is a --format snapshot option");
		return cli_exit_usage;
	}
	/* the registers (and usage errors) before anything is written */
	r->cur = &r->inputs[0];
	if ((ret = encode_setup(r)))
		return ret;
	r->ops.free(r->ops.e);
	r->ops.e = NULL;
	if (!context_id_on(r)) {
		cli_error("context ID tracing is off (%s): a decoder could not "
			  "tell the processes apart", encode_v3_family(r) ?
			  "ETMCR[15:14]" : "TRCCONFIGR bit 6");
		return cli_exit_usage;
	}
	p->ncpu = r->cpus ? r->cpus : (uint32_t)r->ninputs;
	if (p->ncpu > 128)
		p->ncpu = 128;
	if (!r->aux_size)
		r->aux_size = DEFAULT_AUX_SIZE;
	r->chunk_limit = 1;
	p->proc = calloc(r->ninputs, sizeof(*p->proc));
	if (!p->proc) {
		cli_error("out of memory");
		return cli_exit_input;
	}
	for (size_t i = 0; i < r->ninputs; i++) {
		struct enc_input *in = &r->inputs[i];

		in->pid = PROC_PID0 + (uint32_t)i;
		in->cpu = (uint32_t)(i % p->ncpu);
		const char *name, *b;

		for (size_t k = 0; k < in->nelf; k++) {
			ret = read_elf(&p->proc[i].bin[k], in->elf[k],
				       in->bias[k]);
			if (ret)
				return ret;
		}
		p->proc[i].nbin = in->nelf;
		name = in->nelf ? p->proc[i].bin[0].path : in->path;
		b = strrchr(name, '/');
		set_comm(p->proc[i].comm, b ? b + 1 : name);
		if ((ret = encode_open_input(r, in)))
			return ret;
	}
	perf_write_config_init(&wc);
	wc.nr_cpu = p->ncpu;
	if (r->pmu_type)
		wc.pmu_type = r->pmu_type;
	/* digest 3.3: ETMv3's attr.config is ETMCR; ETMv4/ETE's the
	 * ETM_OPT_* bits of TRCCONFIGR */
	wc.config = r->proto == etmkit_proto_etmv3 ? r->m3.etmcr :
		    r->proto == etmkit_proto_ptm ? r->mp.etmcr :
		    perf_cs_etm_config_of_trcconfigr(r->m4.etm.trcconfigr);
	err = perf_writer_open(&p->w, r->out_dir, &wc);
	if (err) {
		cli_error("cannot write %s: %s", r->out_dir,
			  err == -etmkit_err_io ? cli_strerror(errno) :
			  etmkit_errstr(err));
		return cli_exit_input;
	}
	snprintf(r->trace_path, sizeof(r->trace_path), "%s", r->out_dir);
	if ((ret = write_start(p)))
		return ret;
	while (more) {
		more = 0;
		for (uint32_t c = 0; c < p->ncpu; c++) {
			struct enc_input *in = next_on_cpu(p, c);

			if (!in)
				continue;
			more = 1;
			if ((ret = run_chunk(p, in)))
				return ret;
		}
		if (more && (err = perf_write_finished_round(p->w)))
			return writer_error(p, err);
	}
	if ((err = perf_writer_close(p->w)))
		return writer_error(p, err);
	if (p->untraceable)
		cli_warn("%" PRIu64 " items cannot be shown by the trace "
			 "(mostly instructions after the last branch of a "
			 "process); a decode will miss them", p->untraceable);
	cli_note("%" PRIu64 " instructions of %zu processes on %" PRIu32
		 " CPUs -> %s: %" PRIu64 " AUX records, %" PRIu64 " bytes of "
		 "trace %s", r->insns, r->ninputs, p->ncpu, r->out_dir,
		 p->aux_records, p->aux_bytes, r->frames ?
		 "in CoreSight frames" : "raw (FORMAT_RAW)");
	return 0;
}

int encode_perf(struct encode_run *r)
{
	struct perf_run p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.r = r;
	ret = run(&p);
	if (ret && p.w) /* not a half-written file left behind */
		unlink(r->out_dir);
	if (r->ops.e)
		r->ops.free(r->ops.e);
	r->ops.e = NULL;
	frame_enc_free(r->framer);
	r->framer = NULL;
	for (size_t i = 0; i < r->ninputs; i++)
		encode_close_input(&r->inputs[i]);
	perf_writer_free(p.w);
	free(p.proc);
	free(p.buf);
	return ret;
}
