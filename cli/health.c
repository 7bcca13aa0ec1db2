/* etmkit CLI: one warning when most of a trace source fails to decode
 * (criterion in health.h), instead of only a gap line per failure. */
#include <inttypes.h>
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

/* The options (or files) that set what @cs decodes with. */
static void print_causes(const char *cmd, const struct cli_input *in,
			 const struct cli_source *cs)
{
	if (in->snapshot)
		fprintf(stderr, "etmkit %s: the registers of %s in its device "
			"file, or the buffer's format in trace.ini (override "
			"with --frames), likely do not match the capture\n",
			cmd, cs->name);
	else if (cs->proto == etmkit_proto_etmv3)
		fprintf(stderr, "etmkit %s: --etmcr, --etmidr, --etmccer or "
			"--frames likely do not match the capture\n", cmd);
	else
		fprintf(stderr, "etmkit %s: --protocol, --trcidr0, --trcidr1, "
			"--trcidr2, --trcidr8, --trcconfigr or --frames likely "
			"do not match the capture\n", cmd);
}

/* Framed raw input with nothing for trace ID @id: the IDs that have
 * data. */
static void print_ids_with_data(const char *cmd, uint8_t id,
				const struct deformat_stats *fs)
{
	int n = 0;

	fprintf(stderr, "etmkit %s: warning: trace ID 0x%02x has no data in "
		"the input; IDs with data:", cmd, id);
	for (unsigned i = 0; i < DEFORMAT_ID_COUNT; i++) {
		if (!fs->id_bytes[i])
			continue;
		fprintf(stderr, " 0x%02x (%" PRIu64 " bytes)", i,
			fs->id_bytes[i]);
		n++;
	}
	fprintf(stderr, "%s\n", n ? "" : " none");
}

int cli_health_report(const struct cli_health *h, const char *cmd,
		      const struct cli_input *in,
		      const struct deformat_stats *fs)
{
	uint64_t end = fs ? fs->bytes_in : 0;
	int warned = 0;

	/* Framing that never lines up with the input: the deformatter
	 * skips it, and no source receives anything. */
	if (fs && end >= CLI_HEALTH_NOSYNC_BYTES && 2 * fs->skipped > end) {
		fprintf(stderr, "etmkit %s: warning: %" PRIu64 " of %" PRIu64
			" bytes skipped as not framed as expected: --frames "
			"(or the buffer's format in trace.ini) likely does not "
			"match the capture\n", cmd, fs->skipped, end);
		return 1;
	}

	for (int i = 0; i < in->nsrc; i++) {
		const struct cli_source *cs = &in->src[i];
		const struct cli_health_src *s = &h->src[cs->id & 0x7f];
		uint64_t got = fs ? fs->id_bytes[cs->id & 0x7f] : 0;
		uint64_t lost = s->lost, span;

		if (!s->first && !got && in->file &&
		    in->mode != deformat_none &&
		    end >= CLI_HEALTH_NOSYNC_BYTES) {
			/* A framed raw file has no data for --id. */
			print_ids_with_data(cmd, cs->id, fs);
			warned++;
			continue;
		}
		if (!s->first) {
			if (got < CLI_HEALTH_NOSYNC_BYTES)
				continue;
			fprintf(stderr, "etmkit %s: warning: trace ID 0x%02x "
				"(%s): %" PRIu64 " bytes and not one "
				"synchronisation point found\n", cmd, cs->id,
				cs->name, got);
			print_causes(cmd, in, cs);
			warned++;
			continue;
		}
		if (s->lost_at && end + 1 > s->lost_at)
			lost += end + 1 - s->lost_at;
		span = end + 1 > s->first ? end + 1 - s->first : 0;
		if (s->errors < CLI_HEALTH_MIN_ERRORS || 2 * lost <= span)
			continue;
		fprintf(stderr, "etmkit %s: warning: trace ID 0x%02x (%s): most "
			"of the trace does not decode: %" PRIu64 " decode "
			"errors, %" PRIu64 "%% of it after the first "
			"synchronisation lost\n", cmd, cs->id, cs->name,
			s->errors, span ? 100 * lost / span : 100);
		print_causes(cmd, in, cs);
		warned++;
	}
	return warned;
}
