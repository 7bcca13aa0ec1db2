/* libFuzzer target: the ETMv3 packet decoder on arbitrary bytes.
 * The first 9 bytes choose the configuration and the chunk size; the rest
 * is the trace. Invariants: every byte is in exactly one record, records
 * come in offset order, sizes stay within bounds, and P-header runs expand
 * to valid P-headers only. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/etm3.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct etm3_config cfg;
	struct etm3_pkt_decoder *dec = NULL;
	struct etm3_packet p[5];
	uint64_t expect = 0;
	size_t chunk;

	if (size < 9)
		return 0;
	etm3_config_init(&cfg);
	cfg.etmcr = rd32(data);
	/* Keep ETMIDR an ETMv3 (major field 2), any minor and bit 20. */
	cfg.etmidr = 0x410cf200u | (data[4] & 0xf0u) | ((data[5] & 1u) << 20);
	cfg.etmccer = (uint32_t)data[6] << 22;
	cfg.flags = data[7] & (ETM3_CFG_M_PROFILE | ETM3_CFG_P_HEADER_RUNS);
	chunk = 1 + data[8];
	data += 9;
	size -= 9;
	if (etm3_pkt_alloc(&dec, &cfg) < 0)
		abort();
	for (size_t at = 0;; at += chunk) {
		size_t n = size - at < chunk ? size - at : chunk;
		int last = at + chunk >= size, got;

		if (n && etm3_pkt_feed(dec, data + at, n, NULL, at) < 0)
			abort();
		if (last)
			etm3_pkt_finish(dec);
		while ((got = etm3_pkt_next(dec, p, 5)) > 0) {
			for (int i = 0; i < got; i++) {
				if (p[i].offset != expect || !p[i].length ||
				    p[i].size > ETM3_PKT_MAX_BYTES ||
				    p[i].type >= etm3_pkt_type_count)
					abort();
				if (p[i].type != etm3_pkt_unsynced &&
				    p[i].type != etm3_pkt_a_sync &&
				    p[i].type != etm3_pkt_p_header_run &&
				    memcmp(p[i].raw, data + p[i].offset, p[i].size))
					abort();
				if (p[i].type == etm3_pkt_p_header_run) {
					const struct etm3_atoms *t = etm3_pkt_atom_table(dec);

					for (uint32_t k = 0; k < p[i].u.run.count; k++)
						if (!(p[i].u.run.headers[k] & 0x80) ||
						    (p[i].u.run.headers[k] & 1) ||
						    t[p[i].u.run.headers[k]].count > 16)
							abort();
				}
				expect += p[i].length;
			}
		}
		if (got != -etmkit_err_eos)
			abort();
		if (last)
			break;
	}
	if (expect != size)
		abort();
	etm3_pkt_free(dec);
	return 0;
}
