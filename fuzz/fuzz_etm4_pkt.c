/* libFuzzer target: the ETMv4 / ETE packet decoder on arbitrary bytes.
 * The first 16 bytes choose the configuration and the chunk size; the
 * rest is the trace. The input is decoded twice: once as a reference (one
 * feed, resynchronising), once with the chosen chunking, batch size and
 * stop-on-error. Invariants:
 * - the reference accounts for every byte once, in order: each record's
 *   raw bytes are the input's at its offset;
 * - the second decode gives the same records (with the same decoded
 *   values), and with stop-on-error exactly the reference's records up to
 *   its first error. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/etm4.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct rec {
	uint64_t offset;
	uint64_t value; /* the packet's main decoded value */
	uint32_t length;
	uint8_t type;
	int16_t error;
};

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* What the decoder state made of the packet: chunking must not change it. */
static uint64_t value_of(const struct etm4_packet *p)
{
	if (p->error)
		return 0;
	switch (p->type) {
	case etm4_pkt_address:
	case etm4_pkt_source_address:
	case etm4_pkt_address_context:
		return p->u.a.addr.addr ^ (uint64_t)p->u.a.addr.is << 63;
	case etm4_pkt_q:
		return p->u.q.addr.addr + p->u.q.count;
	case etm4_pkt_timestamp:
		return p->u.ts.value ^ p->u.ts.cc;
	case etm4_pkt_cycle_count:
		return (uint64_t)p->u.cc.count << 32 | p->u.cc.commit;
	case etm4_pkt_atom:
		return (uint64_t)p->u.atoms.count << 32 | p->u.atoms.bits;
	case etm4_pkt_trace_info:
		return (uint64_t)p->u.tinfo.cyct << 32 | p->u.tinfo.info;
	case etm4_pkt_context:
		return (uint64_t)p->u.context.context_id << 32 | p->u.context.vmid;
	default:
		return 0;
	}
}

/* Decode @data with @cfg in chunks of @chunk bytes, @batch records per
 * call; records into r[]. Checks each record against the input. */
static size_t decode(const struct etm4_config *cfg, const uint8_t *data,
		     size_t size, size_t chunk, size_t batch, struct rec *r,
		     size_t cap, int *stopped)
{
	struct etm4_pkt_decoder *dec = NULL;
	struct etm4_packet p[7];
	size_t n = 0;

	*stopped = 0;
	if (etm4_pkt_alloc(&dec, cfg) < 0)
		abort();
	for (size_t at = 0;; at += chunk) {
		size_t len = size - at < chunk ? size - at : chunk;
		int last = at + chunk >= size, got;

		if (len && etm4_pkt_feed(dec, data + at, len, NULL, at) < 0) {
			*stopped = 1;
			break;
		}
		if (last)
			etm4_pkt_finish(dec);
		while ((got = etm4_pkt_next(dec, p, batch)) > 0) {
			for (int i = 0; i < got; i++) {
				const struct etm4_packet *q = &p[i];
				size_t want = q->length < ETM4_PKT_MAX_BYTES ?
					q->length : ETM4_PKT_MAX_BYTES;

				if (n >= cap || q->size != want || !q->length ||
				    q->type >= etm4_pkt_type_count ||
				    q->offset + q->length > size ||
				    memcmp(q->raw, data + q->offset, q->size) ||
				    (q->error && !q->why))
					abort();
				memset(&r[n], 0, sizeof(r[n]));
				r[n].offset = q->offset;
				r[n].value = value_of(q);
				r[n].length = q->length;
				r[n].type = q->type;
				r[n].error = q->error;
				n++;
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
	etm4_pkt_free(dec);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct etm4_config cfg, ref;
	struct rec *a, *b;
	size_t chunk, batch, na, nb, cap;
	uint64_t expect = 0;
	int stopped;

	if (size < 16)
		return 0;
	etm4_config_init(&cfg);
	cfg.flags = data[0] & (ETM4_CFG_ETE | ETM4_CFG_STOP_ON_ERROR);
	chunk = 1 + data[1];
	batch = 1 + (data[0] >> 5) % 7;
	cfg.trcidr0 = rd32(data + 2);
	/* ETMv4 major 4, any minor; ETE any revision, or no TRCDEVARCH. */
	cfg.trcidr1 = 0x4100f400u | (data[6] & 0xf0u);
	cfg.trcdevarch = (data[6] & 1) ? 0 : 0x47705a13u | (data[6] & 0xf0u) << 12;
	cfg.trcidr2 = rd32(data + 7);
	cfg.trcconfigr = rd32(data + 11);
	cfg.trcidr8 = data[15];
	data += 16;
	size -= 16;
	cap = size + 16;
	a = malloc(cap * sizeof(*a));
	b = malloc(cap * sizeof(*b));
	if (!a || !b)
		abort();
	ref = cfg;
	ref.flags &= ETM4_CFG_ETE;
	na = decode(&ref, data, size, size ? size : 1, 5, a, cap, &stopped);
	for (size_t i = 0; i < na; i++) {
		if (a[i].offset != expect)
			abort();
		expect += a[i].length;
	}
	if (expect != size || stopped)
		abort();
	nb = decode(&cfg, data, size, chunk, batch, b, cap, &stopped);
	if (cfg.flags & ETM4_CFG_STOP_ON_ERROR) {
		/* The reference up to its first error (inclusive), then no
		 * more; a truncation at the end stops nothing. */
		size_t first = na;

		for (size_t i = 0; i < na; i++)
			if (a[i].error && a[i].error != -etmkit_err_truncated) {
				first = i + 1;
				break;
			}
		if (nb != first || memcmp(a, b, nb * sizeof(*a)) != 0)
			abort();
	} else if (nb != na || stopped || memcmp(a, b, na * sizeof(*a)) != 0) {
		abort();
	}
	free(a);
	free(b);
	return 0;
}
