/* ETMv2 names shared inside the library: status name lookup (the text
 * capture and the PIPESTAT table option), the fixed ETMv1 table. */
#ifndef ETMKIT_PACKETS_ETM2_NAMES_H
#define ETMKIT_PACKETS_ETM2_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "etmkit/etm2.h"

/* The enum etm2_status named by @name[0..len) (case-sensitive, as
 * etm2_status_name() spells it), or -1. */
int etm2_status_lookup(const char *name, size_t len);

/* ETMv1's fixed 3-bit PIPESTAT table (Q Table 5.1). */
extern const uint8_t etm2_pipestat_v1[8];

/* "natural" or "alt" if @table is one of the built-in tables, else NULL. */
const char *etm2_pipestat_table_name(const uint8_t table[16]);

#endif
