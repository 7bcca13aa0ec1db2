/* etmkit CLI: is most of a trace source failing to decode? */
#ifndef ETMKIT_CLI_HEALTH_H
#define ETMKIT_CLI_HEALTH_H

#include <stdint.h>

#include "cli.h"

/* The criterion (etmkit(1), README "Exit status"): a trace source is
 * reported once when
 *   - after its first synchronised packet (or element), more than half of
 *     the input up to the end of the buffer lies between a decode error
 *     (a reserved or malformed packet, not one cut by the end of the
 *     buffer) and the next packet (or element) decoded after it, and it
 *     had at least CLI_HEALTH_MIN_ERRORS errors; or
 *   - it received at least CLI_HEALTH_NOSYNC_BYTES bytes and never
 *     synchronised.
 * Spans are measured in input offsets, so that packets (bytes) and decode
 * (elements) apply the same rule. Real captures lose a few packets at
 * most; registers or framing that do not match the trace lose nearly all
 * of it, each resynchronisation failing again soon after. */
#define CLI_HEALTH_MIN_ERRORS 3
#define CLI_HEALTH_NOSYNC_BYTES 4096

struct cli_health_src {
	uint64_t first;     /* offset + 1 of the first good record; 0: none */
	uint64_t lost_at;   /* offset + 1 of the error that began a loss */
	uint64_t lost;      /* input offsets lost after errors */
	uint64_t errors;
};

struct cli_health {
	struct cli_health_src src[DEFORMAT_ID_COUNT];
};

/* A record (packet or element) of @id at @offset decoded well. */
void cli_health_good(struct cli_health *h, uint8_t id, uint64_t offset);
/* A decode error of @id at @offset (not a truncation). */
void cli_health_error(struct cli_health *h, uint8_t id, uint64_t offset);
/* After the whole input (@fs: the session's frame statistics): one
 * warning per failing source of @in on stderr, naming the likely causes.
 * Returns the number of sources warned about. */
int cli_health_report(const struct cli_health *h,
		      const struct cli_input *in,
		      const struct deformat_stats *fs);

#endif
