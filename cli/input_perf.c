/* etmkit CLI: a perf.data file (Linux perf or simpleperf, recognised by its
 * magic) as the input of `etmkit packets` and the other trace commands.
 *
 * Sources: one per CPU of the cs_etm metadata (include/etmkit/perf.h)
 * that recorded AUX data, with the trace ID, protocol and registers the
 * recording holds; --id selects among all CPUs. Bytes: the AUX data of
 * every CPU in file order, AUX record by AUX record, through the
 * CoreSight formatter (memory-aligned frames, digest perf-data.md 3.6).
 * Offsets in the listing are file offsets of the AUX bytes (those of
 * `etmkit frames`, which feeds the chunks back to back, still count the
 * bytes fed).
 *
 * Every AUX record is its own piece, as perf decodes it (digest 3.10):
 * etmkit_session_break() after each, so a packet cut at its end is
 * reported truncated and the next record starts unsynced; its flags
 * (TRUNCATED, COLLISION, PARTIAL, OVERWRITE, digest 3.7) give the break's
 * loss reason, a gap for each trace ID that had bytes in it; an AUX record
 * whose bytes are not in the file is a gap (aux_missing) of its CPU's trace
 * ID. A raw AUX record (flag FORMAT_RAW, a TRBE's: digest 3.6) holds one
 * CPU's trace unformatted: its bytes go straight to that CPU's trace ID
 * decoder (etmkit_session_feed_raw(), as perf gives them to the queue's
 * single-source decoder, digest 3.5 item 3), with the same break after it.
 * Any protocol is taken raw, though real TRBE recordings are ETE.
 * Formatted chunks that are not whole frames are refused. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "progress.h"

int cli_is_perf_file(const char *path)
{
	char magic[8];
	FILE *f = fopen(path, "rb");
	int yes;

	if (!f)
		return 0;
	yes = fread(magic, 1, 8, f) == 8 && memcmp(magic, "PERFILE2", 8) == 0;
	fclose(f);
	return yes;
}

/* Whether CPU @cpu has AUX data in the file. */
static int cpu_has_data(const struct cli_input *in, uint32_t cpu)
{
	struct perf_aux_iter ai;
	struct perf_aux_chunk ch;

	perf_aux_iter_init(&ai, in->perf, cpu);
	while (perf_aux_next(&ai, &ch, NULL) == 0)
		if (ch.data && ch.data_size)
			return 1;
	return 0;
}

/* The protocol of CPU @c's metadata: an ETMv3/PTM block (digest
 * perf-data.md 3.2) is PTM when its ETMIDR names PFT. */
static enum etmkit_protocol cpu_protocol(const struct perf_cs_etm_cpu *c)
{
	return c->protocol == etmkit_proto_etmv3 && c->ptm ? etmkit_proto_ptm
							    : c->protocol;
}

/* The registers of CPU @c into @cs for protocol @p; 0, or a cli_exit after
 * a message. */
static int cpu_config(const struct cli_input *in, struct cli_source *cs,
		      const struct perf_cs_etm_cpu *c, enum etmkit_protocol p)
{
	struct etm3_config_info info3;
	struct ptm_config_info infop;
	struct etm4_config_info info4;

	switch (p) {
	case etmkit_proto_etmv3:
		cs->cfg = c->etm3;
		if (etm3_config_decode(&cs->cfg, &info3) == 0)
			return 0;
		cli_error("%s: CPU %" PRIu32 ": this ETMv3 configuration is "
			  "not decoded by this version", in->file, c->cpu);
		return cli_exit_input;
	case etmkit_proto_ptm:
		/* The ETMv3/PTM block's ETMCR, ETMIDR, ETMCCER (3.2) */
		ptm_config_init(&cs->ptm);
		cs->ptm.etmcr = c->etm3.etmcr;
		cs->ptm.etmidr = c->etm3.etmidr;
		cs->ptm.etmccer = c->etm3.etmccer;
		if (ptm_config_decode(&cs->ptm, &infop) == 0)
			return 0;
		cli_error("%s: CPU %" PRIu32 ": ETMIDR 0x%08x does not "
			  "describe a PTM", in->file, c->cpu, cs->ptm.etmidr);
		return cli_exit_input;
	default:
		cs->etm4 = c->etm4;
		if (etm4_config_decode(&cs->etm4, &info4) == 0)
			return 0;
		cli_error("%s: CPU %" PRIu32 ": its registers do not describe "
			  "a trace unit this version decodes (TRCIDR1 0x%08x)",
			  in->file, c->cpu, cs->etm4.trcidr1);
		return cli_exit_input;
	}
}

/* One CPU's metadata as a source; 0, or a cli_exit after a message.
 * Without --id, CPUs that recorded no AUX data are left out. */
static int add_cpu(struct cli_input *in, const struct perf_cs_etm_cpu *c,
		   unsigned protos)
{
	struct cli_source *cs = &in->src[in->nsrc];
	enum etmkit_protocol p = cpu_protocol(c);
	int rc;

	if (!(protos & CLI_PROTO(p)) || !cli_id_wanted(in, c->trace_id) ||
	    (in->cpus.n && !cli_in_ranges(&in->cpus, c->cpu)) ||
	    (!in->nids && !cpu_has_data(in, c->cpu)))
		return 0;
	memset(cs, 0, sizeof(*cs));
	cs->has_cpu = 1;
	cs->cpu = c->cpu;
	cs->id = c->trace_id;
	cs->proto = (uint8_t)p;
	snprintf(cs->name, sizeof(cs->name), "cpu%" PRIu32, c->cpu);
	snprintf(cs->core, sizeof(cs->core), "cpu%" PRIu32, c->cpu);
	rc = cpu_config(in, cs, c, p);
	if (rc)
		return rc;
	in->nsrc++;
	return 0;
}

/* AUX records whose trace data is not in the file (the recorder lost
 * it, or never wrote it): one warning, not an error. */
static void warn_missing_aux(const struct cli_input *in)
{
	struct perf_aux_iter ai;
	struct perf_aux_chunk ch;
	uint64_t n = 0, bytes = 0;

	perf_aux_iter_init(&ai, in->perf, -1);
	while (perf_aux_next(&ai, &ch, NULL) == 0) {
		if (ch.data || !ch.aux_size)
			continue;
		n++;
		bytes += ch.aux_size;
	}
	if (n)
		cli_warn("%s: %" PRIu64 " AUX record%s (%" PRIu64 " bytes of "
			 "trace) with no trace data in the file: left out",
			 in->file, n, n == 1 ? "" : "s", bytes);
}

static uint8_t cpu_trace_id(const struct cli_input *in, uint32_t cpu);

static int is_raw(const struct perf_aux_chunk *ch)
{
	return (ch->flags & PERF_AUX_FLAG_FORMAT_MASK) ==
	       PERF_AUX_FLAG_FORMAT_RAW;
}

/* Refuse what the feeding below cannot do: formatted chunks that are not
 * whole frames, raw chunks of a CPU without metadata (no trace ID, no
 * registers to decode them with). */
static int check_chunks(const struct cli_input *in)
{
	struct perf_aux_iter ai;
	struct perf_aux_chunk ch;

	perf_aux_iter_init(&ai, in->perf, -1);
	while (perf_aux_next(&ai, &ch, NULL) == 0) {
		if (!ch.data)
			continue;
		if (is_raw(&ch)) {
			if (!cpu_trace_id(in, ch.cpu)) {
				cli_error("%s: the AUX record at offset %"
					  PRIu64 " holds raw trace of CPU %"
					  PRIu32 ", which the cs_etm metadata "
					  "does not describe", in->file,
					  ch.record_offset, ch.cpu);
				return cli_exit_input;
			}
			continue;
		}
		if (ch.data_size % 16) {
			cli_error("%s: the AUX record at offset %" PRIu64
				  " holds %" PRIu64 " bytes, not whole 16-byte "
				  "formatter frames", in->file,
				  ch.record_offset, ch.data_size);
			return cli_exit_input;
		}
	}
	return 0;
}

static int resolve(struct cli_input *in, unsigned protos)
{
	struct perf_diag d;
	const struct perf_cs_etm *cs;
	int err = perf_file_open(&in->perf, in->file, &d);

	if (err) {
		if (d.has_offset)
			cli_error("%s: %s at offset %" PRIu64 ": %s", in->file,
				  etmkit_errstr(err), d.offset, d.message);
		else
			cli_error("%s: %s", in->file, d.message[0] ? d.message :
				  etmkit_errstr(err));
		return cli_exit_input;
	}
	cs = perf_file_cs_etm(in->perf);
	if (!cs) {
		cli_error("%s: no CoreSight (cs_etm) AUXTRACE_INFO record",
			  in->file);
		return cli_exit_input;
	}
	if (in->protocol || in->buffer || in->frames >= 0) {
		cli_error("%s is a perf.data file: the registers, protocol and "
			  "framing come from its metadata (no --protocol, "
			  "--buffer, --frames)", in->file);
		return cli_exit_usage;
	}
	in->mode = deformat_coresight;
	in->nsrc = 0;
	for (uint32_t i = 0; i < cs->nr_cpu && in->nsrc < CLI_MAX_IDS; i++) {
		err = add_cpu(in, &cs->cpus[i], protos);
		if (err)
			return err;
	}
	warn_missing_aux(in);
	if (!in->nsrc && in->nids) {
		cli_error("%s: no CPU of the recording has a wanted trace ID",
			  in->file);
		return cli_exit_input;
	}
	if (!in->nsrc && in->cpus.n) {
		cli_error("%s: no wanted CPU (--cpu) has trace in the recording",
			  in->file);
		return cli_exit_input;
	}
	/* A recording whose trace never arrived is what the recorder
	 * wrote, not a damaged file (digest 3.7, 3.10): nothing to list,
	 * the warning above says why. */
	snprintf(in->buffer_path, sizeof(in->buffer_path), "%s", in->file);
	return check_chunks(in);
}

int cli_perf_resolve(struct cli_input *in, unsigned protos)
{
	int rc = resolve(in, protos);

	if (rc) {
		perf_file_free(in->perf);
		in->perf = NULL;
	}
	return rc;
}

/* The trace ID of CPU @cpu in the cs_etm metadata, or 0 (none). */
static uint8_t cpu_trace_id(const struct cli_input *in, uint32_t cpu)
{
	const struct perf_cs_etm *cs = perf_file_cs_etm(in->perf);

	for (uint32_t i = 0; cs && i < cs->nr_cpu; i++)
		if (cs->cpus[i].cpu == cpu)
			return cs->cpus[i].trace_id;
	return 0;
}

/* An AUX record whose bytes are not in the file: a gap of its CPU's
 * trace ID at the record's file offset; nothing joined across it. */
static int lose_chunk(const struct cli_input *in, struct etmkit_session *s,
		      const struct perf_aux_chunk *ch)
{
	uint8_t id = cpu_trace_id(in, ch->cpu);
	int err = etmkit_session_set_offset(s, ch->record_offset);

	if (!err && id)
		err = etmkit_session_lose(s, id, etmkit_loss_aux_missing);
	return err;
}

/* Each AUX record is a piece of its own (digest 3.10: perf resets the
 * decoder at every one): its bytes are fed at their file offsets, then a
 * break ends it, with the loss its flags report. A raw record's bytes go
 * to its CPU's decoder alone (through in->raw_piece); without a
 * session nothing reads them, they are left out. */
void cli_perf_step_init(struct cli_input *in, struct perf_aux_iter *ai)
{
	in->raw_piece = -1;
	perf_aux_iter_init(ai, in->perf, -1);
}

int cli_perf_step(struct cli_input *in, struct perf_aux_iter *ai,
		  int (*feed)(void *ctx, const uint8_t *buf, size_t n),
		  void *ctx, struct etmkit_session *s, uint64_t *done)
{
	struct perf_aux_chunk ch;
	int err = 0, fed = 0;

	while (perf_aux_next(ai, &ch, NULL) == 0) {
		if (in->cpus.n && !cli_in_ranges(&in->cpus, ch.cpu))
			continue; /* --cpu: not a wanted CPU's trace */
		if (!ch.data || !ch.data_size) {
			if (s && ch.aux_size)
				err = lose_chunk(in, s, &ch);
			if (err)
				break;
			continue;
		}
		if (is_raw(&ch) && !s)
			continue;
		if (s)
			err = etmkit_session_set_offset(s, ch.data_offset);
		in->raw_piece = is_raw(&ch) ? cpu_trace_id(in, ch.cpu) : -1;
		if (!err && feed(ctx, ch.data, (size_t)ch.data_size) < 0) {
			in->raw_piece = -1;
			return -cli_exit_input;
		}
		in->raw_piece = -1;
		if (!err && s)
			err = etmkit_session_break(s, perf_aux_loss(ch.flags));
		*done = ch.data_offset + ch.data_size;
		fed = 1;
		break;
	}
	if (err < 0) {
		cli_error("%s: %s", in->file, etmkit_errstr(err));
		return -cli_exit_input;
	}
	return fed ? 0 : 1;
}

int cli_perf_stream(struct cli_input *in,
		    int (*feed)(void *ctx, const uint8_t *buf, size_t n),
		    void *ctx, struct etmkit_session *s,
		    struct cli_progress *pr)
{
	/* The iterator gives back the file's pages behind it, each chunk's
	 * once the next is asked for: memory stays that of one AUX record,
	 * whatever the file's length. */
	struct perf_aux_iter ai;
	uint64_t done;
	int rc;

	cli_perf_step_init(in, &ai);
	do {
		rc = cli_perf_step(in, &ai, feed, ctx, s, &done);
		if (!rc)
			cli_progress_at(pr, done);
	} while (!rc);
	return rc < 0 ? -rc : 0;
}
