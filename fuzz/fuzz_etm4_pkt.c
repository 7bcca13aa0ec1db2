/* libFuzzer target: the ETMv4 / ETE packet decoder on arbitrary bytes.
 * The first 16 bytes choose the configuration and the chunk size; the
 * rest is the trace. The input is decoded twice: once as a reference (one
 * feed, one record per packet, resynchronising), once with the chosen
 * chunking, batch size, atom runs (with or without addresses), offsets
 * array and stop-on-error.
 * Invariants:
 * - the reference accounts for every byte once, in order: each record's
 *   raw bytes are the input's at its offset;
 * - the second decode gives the same records (with the same decoded
 *   values; each run expanded to one atom record per header, with the
 *   atoms the table gives it, and one address record per address), and
 *   with stop-on-error exactly the reference's records up to its first
 *   error. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/etm4.h"
#include "fuzz_pkt_rec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Framed input (data[0] bit 3): byte i is at offset OFF0 + 3 * i. */
#define OFF0 (1ull << 40)

static uint64_t atoms_value(const struct etm4_atoms *a)
{
	return (uint64_t)a->format << 40 | (uint64_t)a->count << 32 | a->bits;
}

/* The input position of a record's first byte. */
static uint64_t pos_of(uint64_t off, const uint64_t *offs)
{
	if (!offs)
		return off;
	if (off < OFF0 || (off - OFF0) % 3)
		abort();
	return (off - OFF0) / 3;
}

static uint64_t addr_value(const struct etm4_address *a)
{
	return a->addr ^ (uint64_t)a->is << 63;
}

/* An atom run @q at input position @pos: check it against the input and
 * put one atom or address record per packet, as without
 * ETM4_CFG_ATOM_RUNS. Address packets only with ETM4_CFG_ADDR_RUNS. */
static void expand_run(const struct etm4_pkt_decoder *dec, unsigned flags,
		       const struct etm4_packet *q, uint64_t pos,
		       const uint8_t *data, size_t size, const uint64_t *offs,
		       struct rec *r, size_t *n, size_t cap)
{
	const struct etm4_atoms *t = etm4_pkt_atom_table(dec);
	const struct etm4_atom_run *run = &q->u.run;
	uint32_t na = 0;

	if (!t || q->error || !run->count || q->length != run->count ||
	    pos + run->count > size || run->headers != data + pos ||
	    run->offsets != (offs ? offs + pos : NULL) ||
	    q->raw[0] != run->headers[0] || !run->addrs != !run->naddr ||
	    (run->naddr && !(flags & ETM4_CFG_ADDR_RUNS)))
		abort();
	for (uint32_t k = 0; k < run->count;) {
		const struct etm4_atoms *a = &t[run->headers[k]];
		const struct etm4_run_addr *x;

		if (a->count) {
			if (a->count > 24 || a->format < 1 || a->format > 6 ||
			    a->bits >> a->count)
				abort();
			put(r, n, cap, pos + k, 1, etm4_pkt_atom, 0,
			    atoms_value(a));
			k++;
			continue;
		}
		if (na == run->naddr)
			abort();
		x = &run->addrs[na++];
		if (x->length < 1 || x->length > 9 ||
		    x->length > run->count - k)
			abort();
		put(r, n, cap, pos + k, x->length, etm4_pkt_address, 0,
		    addr_value(&x->addr));
		k += x->length;
	}
	if (na != run->naddr)
		abort();
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
		return addr_value(&p->u.a.addr);
	case etm4_pkt_q:
		return p->u.q.addr.addr + p->u.q.count;
	case etm4_pkt_timestamp:
		return p->u.ts.value ^ p->u.ts.cc;
	case etm4_pkt_cycle_count:
		return (uint64_t)p->u.cc.count << 32 | p->u.cc.commit;
	case etm4_pkt_atom:
		return atoms_value(&p->u.atoms);
	case etm4_pkt_trace_info:
		return (uint64_t)p->u.tinfo.cyct << 32 | p->u.tinfo.info;
	case etm4_pkt_context:
		return (uint64_t)p->u.context.context_id << 32 | p->u.context.vmid;
	default:
		return 0;
	}
}

/* Decode @data with @cfg in chunks of @chunk bytes, @batch records per
 * call, byte i at offset offs[i] (or i if @offs is NULL); records into r[],
 * at input positions, atom runs expanded as soon as they are delivered.
 * Checks each record against the input. */
static size_t decode(const struct etm4_config *cfg, const uint8_t *data,
		     size_t size, const uint64_t *offs, size_t chunk,
		     size_t batch, struct rec *r, size_t cap, int *stopped)
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

		if (len && etm4_pkt_feed(dec, data + at, len,
					 offs ? offs + at : NULL, at) < 0) {
			*stopped = 1;
			break;
		}
		if (last)
			etm4_pkt_finish(dec);
		while ((got = etm4_pkt_next(dec, p, batch)) > 0) {
			for (int i = 0; i < got; i++) {
				const struct etm4_packet *q = &p[i];
				uint64_t pos = pos_of(q->offset, offs);
				size_t want = q->length < ETM4_PKT_MAX_BYTES ?
					q->length : ETM4_PKT_MAX_BYTES;

				if (q->type == etm4_pkt_atom_run) {
					if (!(cfg->flags & (ETM4_CFG_ATOM_RUNS |
							    ETM4_CFG_ADDR_RUNS)))
						abort();
					expand_run(dec, cfg->flags, q, pos, data,
						   size, offs, r, &n, cap);
					continue;
				}
				if (q->size != want || !q->length ||
				    q->type >= etm4_pkt_type_count ||
				    pos + q->length > size ||
				    memcmp(q->raw, data + pos, q->size) ||
				    (q->error && !q->why))
					abort();
				put(r, &n, cap, pos, q->length, q->type, q->error,
				    value_of(q));
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
	uint64_t *offs = NULL;
	size_t chunk, batch, na, nb, cap;
	uint64_t expect = 0;
	int stopped, framed;

	if (size < 16)
		return 0;
	etm4_config_init(&cfg);
	cfg.flags = data[0] & (ETM4_CFG_ETE | ETM4_CFG_ATOM_RUNS |
			       ETM4_CFG_STOP_ON_ERROR);
	if (data[0] & 0x10)
		cfg.flags |= ETM4_CFG_ADDR_RUNS;
	chunk = 1 + data[1];
	batch = 1 + (data[0] >> 5) % 7;
	framed = data[0] & 0x08;
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
	if (framed) {
		/* Framed input: an offsets array, as a deformatter gives. */
		offs = malloc((size ? size : 1) * sizeof(*offs));
		if (!offs)
			abort();
		for (size_t i = 0; i < size; i++)
			offs[i] = OFF0 + 3 * i;
	}
	ref = cfg;
	ref.flags &= ETM4_CFG_ETE;
	na = decode(&ref, data, size, NULL, size ? size : 1, 5, a, cap, &stopped);
	for (size_t i = 0; i < na; i++) {
		if (a[i].offset != expect)
			abort();
		expect += a[i].length;
	}
	if (expect != size || stopped)
		abort();
	nb = decode(&cfg, data, size, offs, chunk, batch, b, cap, &stopped);
	same_records(a, na, b, nb, !!(cfg.flags & ETM4_CFG_STOP_ON_ERROR), stopped);
	free(offs);
	free(a);
	free(b);
	return 0;
}
