/* etmkit CLI: the form of each packet, for `etmkit packets --stats`.
 *
 * A packet type has several encodings (forms): a P-header format, a branch
 * address of 1 to 5 bytes with or without exception information, an
 * ETMv4 address packet in its exact-match, short or long form, and so on.
 * The form of a decoded record is read from the fields the packet decoders
 * fill (format, lengths, flags), and where a record has none, from its
 * length. A form is kept as a 32-bit key (type in bits 31:24, the form's
 * fields below, most significant first, so that keys sort as the forms
 * should be listed) and named only when printed.
 */
#ifndef ETMKIT_CLI_PACKET_FORMS_H
#define ETMKIT_CLI_PACKET_FORMS_H

#include <stddef.h>
#include <stdint.h>

#include "etmkit/etm2.h"
#include "etmkit/etm3.h"
#include "etmkit/etm4.h"
#include "etmkit/ptm.h"

/* What of an ETMv3 source's configuration decides forms
 * (cli_form_etm3_key's @cfg). */
#define CLI_FORM_ETM3_CA  0x1u /* cycle-accurate: P-header formats 0-4 */
#define CLI_FORM_ETM3_ALT 0x2u /* alternative branch address encoding */

/* The form of ETMv3 record @p of a source configured as @cfg. */
uint32_t cli_form_etm3_key(const struct etm3_packet *p, unsigned cfg);

/* The form of ETMv4/ETE record @p. */
uint32_t cli_form_etm4_key(const struct etm4_packet *p);

/* The form of PTM record @p. */
uint32_t cli_form_ptm_key(const struct ptm_packet *p);

/* The form of ETMv2 record @p. */
uint32_t cli_form_etm2_key(const struct etm2_packet *p);

/* The name of form @key, e.g. "p_header cycle_accurate format=3" or
 * "address short is=1 bits=8", into @buf (@cap bytes). Returns @buf. */
const char *cli_form_etm3_name(uint32_t key, char *buf, size_t cap);
const char *cli_form_etm4_name(uint32_t key, char *buf, size_t cap);
const char *cli_form_ptm_name(uint32_t key, char *buf, size_t cap);
const char *cli_form_etm2_name(uint32_t key, char *buf, size_t cap);

/* Counts per trace ID and form. */
struct cli_form_count {
	uint64_t n;     /* 0: the slot is free */
	uint32_t key;
	uint8_t id;
};

struct cli_form_table {
	struct cli_form_count *slot;
	size_t cap, used;  /* cap: 0 or a power of two */
	int nomem;         /* a count was lost to a failed allocation */
};

/* Count one record of form @key from trace ID @id. Returns 0, or -1 when
 * the table could not grow (the record is not counted; nomem is set). */
int cli_form_count(struct cli_form_table *t, uint8_t id, uint32_t key);

/* The forms counted for @id, sorted by key, into @out (at most @max).
 * Returns how many there are (which may exceed @max). */
size_t cli_form_list(const struct cli_form_table *t, uint8_t id,
		     struct cli_form_count *out, size_t max);

void cli_form_table_free(struct cli_form_table *t);

#endif /* ETMKIT_CLI_PACKET_FORMS_H */
