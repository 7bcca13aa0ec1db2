/* What the tests comparing with OpenCSD's listings of the captures
 * (test_etm4_pkt_captures, test_ptm_pkt_captures) read: a register from a
 * snapshot's device .ini, and the values of a packet line. Include after
 * <cmocka.h>. */
#ifndef ETMKIT_TESTS_OCSD_LISTING_H
#define ETMKIT_TESTS_OCSD_LISTING_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A register from a device .ini: "NAME=0x..." or "NAME(...)=0x..."; 0 if
 * it is not there. Fails the test if the file cannot be read. */
static inline uint32_t ini_reg(const char *path, const char *name)
{
	FILE *f = fopen(path, "r");
	char line[256];
	size_t nl = strlen(name);
	uint32_t v = 0;

	if (!f)
		fail_msg("cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, name, nl) || (line[nl] != '=' && line[nl] != '('))
			continue;
		v = (uint32_t)strtoul(strchr(line, '=') + 1, NULL, 0);
		break;
	}
	fclose(f);
	return v;
}

/* The hex number after @key in @s, if there. */
static inline int field_hex(const char *s, const char *key, uint64_t *v)
{
	const char *at = strstr(s, key);

	if (!at)
		return 0;
	*v = strtoull(at + strlen(key), NULL, 16);
	return 1;
}

/* The decimal number after @key in @s, if there. */
static inline int field_dec(const char *s, const char *key, uint64_t *v)
{
	const char *at = strstr(s, key);

	if (!at)
		return 0;
	*v = strtoull(at + strlen(key), NULL, 10);
	return 1;
}

#endif
