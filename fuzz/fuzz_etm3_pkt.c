/* libFuzzer target: the ETMv3 packet decoder on arbitrary bytes.
 * The first 9 bytes choose the configuration and the chunk size; the rest
 * is the trace. The input is decoded twice: once as a reference (one feed,
 * one record per packet, resynchronising), once with the chosen chunking,
 * P-header runs and stop-on-error. Invariants:
 * - the reference accounts for every byte once, in order, within bounds;
 * - the second decode gives the same records (runs expanded, each header
 *   with the atoms the reference gave it), and with stop-on-error exactly
 *   the reference's records up to its first error. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/etm3.h"
#include "fuzz_pkt_rec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Decode @data with @cfg in chunks of @chunk bytes; records into r[]. */
static size_t decode(const struct etm3_config *cfg, const uint8_t *data,
		     size_t size, size_t chunk, struct rec *r, size_t cap,
		     int *stopped)
{
	struct etm3_pkt_decoder *dec = NULL;
	struct etm3_packet p[5];
	size_t n = 0;

	*stopped = 0;
	if (etm3_pkt_alloc(&dec, cfg) < 0)
		abort();
	for (size_t at = 0;; at += chunk) {
		size_t len = size - at < chunk ? size - at : chunk;
		int last = at + chunk >= size, got;

		if (len && etm3_pkt_feed(dec, data + at, len, NULL, at) < 0) {
			*stopped = 1;
			break;
		}
		if (last)
			etm3_pkt_finish(dec);
		while ((got = etm3_pkt_next(dec, p, 5)) > 0) {
			for (int i = 0; i < got; i++) {
				const struct etm3_packet *q = &p[i];

				if (q->size > ETM3_PKT_MAX_BYTES || !q->length ||
				    q->type >= etm3_pkt_type_count)
					abort();
				if (q->type != etm3_pkt_p_header_run) {
					put(r, &n, cap, q->offset, q->length, q->type,
					    q->error, q->type == etm3_pkt_p_header ?
					    q->u.atoms.bits : 0);
					continue;
				}
				for (uint32_t k = 0; k < q->u.run.count; k++) {
					const struct etm3_atoms *a =
						&etm3_pkt_atom_table(dec)[q->u.run.headers[k]];

					if (a->count > 16 || !(q->u.run.headers[k] & 0x80))
						abort();
					put(r, &n, cap, q->offset + k, 1, etm3_pkt_p_header,
					    0, a->bits);
				}
			}
		}
		if (got == -etmkit_err_bad_packet) {
			*stopped = 1;
			break;
		}
		if (got != -etmkit_err_eos)
			abort();
		if (last)
			break;
	}
	etm3_pkt_free(dec);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct etm3_config cfg, ref;
	struct rec *a, *b;
	size_t chunk, na, nb, cap;
	uint64_t expect = 0;
	int stopped;

	if (size < 9)
		return 0;
	etm3_config_init(&cfg);
	cfg.etmcr = rd32(data);
	/* Keep ETMIDR an ETMv3 (major field 2), any minor and bit 20. */
	cfg.etmidr = 0x410cf200u | (data[4] & 0xf0u) | ((data[5] & 1u) << 20);
	cfg.etmccer = (uint32_t)data[6] << 22;
	cfg.flags = data[7] & (ETM3_CFG_M_PROFILE | ETM3_CFG_P_HEADER_RUNS |
			       ETM3_CFG_STOP_ON_ERROR);
	chunk = 1 + data[8];
	data += 9;
	size -= 9;
	cap = size + 16;
	a = malloc(cap * sizeof(*a));
	b = malloc(cap * sizeof(*b));
	if (!a || !b)
		abort();
	ref = cfg;
	ref.flags &= ETM3_CFG_M_PROFILE;
	na = decode(&ref, data, size, size ? size : 1, a, cap, &stopped);
	for (size_t i = 0; i < na; i++) {
		if (a[i].offset != expect)
			abort();
		if (a[i].type != etm3_pkt_unsynced && a[i].type != etm3_pkt_a_sync &&
		    a[i].offset >= size)
			abort();
		expect += a[i].length;
	}
	if (expect != size || stopped)
		abort();
	nb = decode(&cfg, data, size, chunk, b, cap, &stopped);
	same_records(a, na, b, nb, !!(cfg.flags & ETM3_CFG_STOP_ON_ERROR), stopped);
	free(a);
	free(b);
	return 0;
}
