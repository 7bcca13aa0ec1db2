/* etmkit CLI: one warning when most of a trace source fails to decode
 * (criterion in health.h), instead of only a gap line per failure. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "health.h"

void cli_health_good(struct cli_health *h, uint8_t id, uint64_t offset)
{
	struct cli_health_src *s = &h->src[id & 0x7f];

	if (!s->first)
		s->first = offset + 1;
	if (s->lost_at) {
		if (offset + 1 > s->lost_at)
			s->lost += offset + 1 - s->lost_at;
		s->lost_at = 0;
	}
}

void cli_health_error(struct cli_health *h, uint8_t id, uint64_t offset)
{
	struct cli_health_src *s = &h->src[id & 0x7f];

	if (!s->first)
		s->first = offset + 1;
	if (!s->lost_at)
		s->lost_at = offset + 1;
	s->errors++;
}

/* The options (or files) that set what @cs decodes with: the likely
 * cause, ending the warning. */
static const char *cause(const struct cli_input *in,
			 const struct cli_source *cs)
{
	if (cs->proto == etmkit_proto_etmv2)
		return in->snapshot ?
		       "the registers in the source's device file or the "
		       "ETMv2 options (--etm-version, --port-width, "
		       "--pipestat-table, --tfo-header, --fifo-latency) likely "
		       "do not match the capture" :
		       "--etm-version, --etmcr, --etmidr, --port-width, "
		       "--pipestat-table, --tfo-header or --fifo-latency likely "
		       "do not match the capture";
	if (in->snapshot)
		return "the registers in the source's device file, or the "
		       "buffer's format in trace.ini (override with --frames), "
		       "likely do not match the capture";
	if (cs->proto == etmkit_proto_etmv3 || cs->proto == etmkit_proto_ptm)
		return "--etmcr, --etmidr, --etmccer or --frames likely do not "
		       "match the capture";
	return "--protocol, --trcidr0, --trcidr1, --trcidr2, --trcidr8, "
	       "--trcconfigr or --frames likely do not match the capture";
}

/* Whose trace a warning is about: a trace ID and the source's name, or
 * for ETMv2, whose port has no trace IDs, the capture or its source. */
static void source_label(char *buf, size_t n, const struct cli_input *in,
			 const struct cli_source *cs)
{
	if (cs->proto != etmkit_proto_etmv2)
		snprintf(buf, n, "trace ID 0x%02x (%s)", cs->id, cs->name);
	else if (in->snapshot)
		snprintf(buf, n, "ETMv2 source %s", cs->name);
	else
		snprintf(buf, n, "ETMv2 capture %s",
			 in->file ? in->file : "(input)");
}

/* Framed raw input with nothing for trace ID @id: the IDs that have
 * data. */
static void warn_ids_with_data(uint8_t id, const struct deformat_stats *fs)
{
	char list[DEFORMAT_ID_COUNT * 32] = "";
	size_t len = 0;

	for (unsigned i = 0; i < DEFORMAT_ID_COUNT && len < sizeof(list); i++) {
		int k;

		if (!fs->id_bytes[i])
			continue;
		k = snprintf(list + len, sizeof(list) - len,
			     " 0x%02x (%" PRIu64 " bytes)", i, fs->id_bytes[i]);
		if (k > 0)
			len += (size_t)k;
	}
	cli_warn("trace ID 0x%02x has no data in the input; IDs with data:%s",
		 id, len ? list : " none");
}

int cli_health_report(const struct cli_health *h,
		      const struct cli_input *in,
		      const struct deformat_stats *fs)
{
	uint64_t end = fs ? fs->bytes_in : 0;
	int warned = 0;

	/* Framing that never lines up with the input: the deformatter
	 * skips it, and no source receives anything. */
	if (fs && end >= CLI_HEALTH_NOSYNC_BYTES && 2 * fs->skipped > end) {
		cli_warn("%" PRIu64 " of %" PRIu64 " bytes skipped as not "
			 "framed as expected: --frames (or the buffer's format "
			 "in trace.ini) likely does not match the capture",
			 fs->skipped, end);
		return 1;
	}

	for (int i = 0; i < in->nsrc; i++) {
		const struct cli_source *cs = &in->src[i];
		const struct cli_health_src *s = &h->src[cs->id & 0x7f];
		uint64_t got = fs ? fs->id_bytes[cs->id & 0x7f] : 0;
		uint64_t lost = s->lost, span;
		char who[sizeof(cs->name) + 4096];

		if (!s->first && !got && in->file &&
		    in->mode != deformat_none &&
		    end >= CLI_HEALTH_NOSYNC_BYTES) {
			/* A framed raw file has no data for --id. */
			warn_ids_with_data(cs->id, fs);
			warned++;
			continue;
		}
		source_label(who, sizeof(who), in, cs);
		if (!s->first) {
			if (got < CLI_HEALTH_NOSYNC_BYTES)
				continue;
			/* ETMv2: offsets and counts are cycles
			 * (cli_etm2_frame_stats()). */
			cli_warn("%s: %" PRIu64 " %s and not one "
				 "synchronisation point found: %s", who, got,
				 cs->proto == etmkit_proto_etmv2 ? "cycles" :
				 "bytes", cause(in, cs));
			warned++;
			continue;
		}
		if (s->lost_at && end + 1 > s->lost_at)
			lost += end + 1 - s->lost_at;
		span = end + 1 > s->first ? end + 1 - s->first : 0;
		if (s->errors < CLI_HEALTH_MIN_ERRORS || 2 * lost <= span)
			continue;
		cli_warn("%s: most of the trace does not decode (%" PRIu64
			 " decode errors, %" PRIu64 "%% of it after the first "
			 "synchronisation lost): %s", who, s->errors,
			 span ? 100 * lost / span : 100, cause(in, cs));
		warned++;
	}
	return warned;
}
