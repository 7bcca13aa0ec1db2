/* ETMv4 / ETE packet decoder tests: atom runs and address runs
 * (ETM4_CFG_ATOM_RUNS, ETM4_CFG_ADDR_RUNS) against the same packets one
 * record each. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "unit/etm4_pkt_test.h"

/* ---- Atom runs (ETM4_CFG_ATOM_RUNS, digest 5.14) ---------------------------- */

static struct run R3;

static void test_atom_table(void **state)
{
	/* Decoded by hand from digest 5.14's layouts, E = 1, oldest first. */
	static const struct { uint8_t b; const char *s; uint8_t fmt; } v[] = {
		{ 0xf7, "E", 1 },   /* 1111 011A, A = 1 */
		{ 0xf6, "N", 1 },
		{ 0xd9, "EN", 2 },  /* 1101 10AA: A0 = 1, A1 = 0 */
		{ 0xfc, "NNE", 3 }, /* 1111 1AAA: A0 = 0, A1 = 0, A2 = 1 */
		{ 0xf9, "ENN", 3 },
		{ 0xdd, "NNNN", 4 },
		{ 0xf5, "NEEEE", 5 },
		{ 0xc2, "EEEEEE", 6 },     /* A = 0, CCCCC = 2: 5 E, then E */
		{ 0xe5, "EEEEEEEEN", 6 },  /* A = 1, CCCCC = 5: 8 E, then N */
		{ 0xf4, "EEEEEEEEEEEEEEEEEEEEEEEN", 6 }, /* CCCCC = 20 */
	};
	struct etm4_config c = ete(0, 0);
	const struct etm4_atoms *t;
	struct etm4_pkt_decoder *dec;
	char s[32];

	(void)state;
	assert_null(etm4_pkt_atom_table(NULL));
	c.flags |= ETM4_CFG_ATOM_RUNS;
	dec = mk(&c);
	t = etm4_pkt_atom_table(dec);
	assert_non_null(t);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		assert_string_equal(atoms_str(&t[v[i].b], s), v[i].s);
		assert_int_equal(t[v[i].b].format, v[i].fmt);
	}
	assert_int_equal(t[0xf4].bits, 0x7fffff);
	/* A-sync/extension, short address, Trace On: not atom headers. */
	assert_int_equal(t[0x00].count, 0);
	assert_int_equal(t[0x95].count, 0);
	assert_int_equal(t[0x04].count, 0);
	/* Exactly the headers from 0xc0 are atoms (digest 4, 5.14). */
	for (unsigned b = 0; b < 256; b++)
		assert_int_equal(t[b].count != 0, b >= 0xc0);
	etm4_pkt_free(dec);
	/* The same table in an ETMv4 configuration with every option. */
	c = v4(4, V4_IDR0 | IDR0_TRCCOND, CFGR_CCI | CFGR_COND | CFGR_DA);
	dec = mk(&c);
	t = etm4_pkt_atom_table(dec);
	assert_string_equal(atoms_str(&t[0xe5], s), "EEEEEEEEN");
	for (unsigned b = 0; b < 256; b++)
		assert_int_equal(t[b].count != 0, b >= 0xc0);
	etm4_pkt_free(dec);
}

/* A-sync, Trace Info, long address, 4 atoms, short address, 2 atoms,
 * Event, 2 atoms, Trace On, 1 atom, Commit, 3 atoms at the end. */
static const uint8_t atom_stream[] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
	0x01, 0x01, 0x00,                   /* 12 Trace Info */
	0x9a, 0x4e, 0x4a, 0x06, 0x00,       /* 15 address 0x69538 */
	0xf7, 0xdb, 0xfc, 0xc2,             /* 20 */
	0x95, 0x4b,                         /* 24 address 0x6952c */
	0xf6, 0xe5,                         /* 26 */
	0x71,                               /* 28 Event */
	0xd5, 0xdf,                         /* 29 */
	0x04,                               /* 31 Trace On */
	0xff,                               /* 32 */
	0x2d, 0x02,                         /* 33 Commit 2 */
	0xf5, 0xf6, 0xf4,                   /* 35, to the end */
};

/* An atom run of @count headers at @off, its headers @headers (the fed
 * input) and its offsets @offs. */
static void is_run(const struct etm4_packet *p, uint64_t off, unsigned count,
		   const uint8_t *headers, const uint64_t *offs)
{
	if (p->type != etm4_pkt_atom_run || p->offset != off ||
	    p->u.run.count != count || p->error)
		fail_msg("record %s at %llu, count %u, error %d: expected an "
			 "atom run at %llu, count %u", etm4_pkt_type_name(p->type),
			 (unsigned long long)p->offset, p->u.run.count, p->error,
			 (unsigned long long)off, count);
	assert_int_equal(p->length, count);
	assert_ptr_equal(p->u.run.headers, headers);
	assert_ptr_equal(p->u.run.offsets, offs);
	assert_int_equal(p->raw[0], headers[0]);
}

/* Run @p expanded into @out as the records the decoder gives without
 * runs (atom and address records), checked against @dec's table. */
static void expand_run_into(const struct etm4_pkt_decoder *dec,
			    const struct etm4_packet *p, struct run *out)
{
	const struct etm4_atoms *t = etm4_pkt_atom_table(dec);
	const struct etm4_atom_run *r = &p->u.run;
	uint32_t ia = 0;

	assert_true(r->count >= 1);
	assert_true(!r->naddr == !r->addrs);
	for (uint32_t k = 0; k < r->count;) {
		struct etm4_packet *a;
		uint32_t len = 1;

		assert_true(out->n < MAXREC);
		a = &out->p[out->n++];
		memset(a, 0, sizeof(*a));
		a->offset = r->offsets ? r->offsets[k] : p->offset + k;
		if (t[r->headers[k]].count) {
			a->type = etm4_pkt_atom;
			a->u.atoms = t[r->headers[k]];
		} else {
			assert_true(ia < r->naddr);
			len = r->addrs[ia].length;
			assert_true(len >= 1 && len <= r->count - k);
			a->type = etm4_pkt_address;
			a->u.a.addr = r->addrs[ia++].addr;
		}
		a->size = (uint8_t)len;
		a->length = len;
		memcpy(a->raw, r->headers + k, len);
		k += len;
	}
	assert_int_equal(ia, r->naddr);
}

/* @in with every run expanded (expand_run_into()), into @out. The runs'
 * headers point into the input, still there; only @c's atom table is
 * needed (atom runs have no addresses to outlive). */
static void expand_runs(const struct etm4_config *c, const struct run *in,
			struct run *out)
{
	struct etm4_pkt_decoder *dec = mk(c);

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < in->n; i++) {
		if (in->p[i].type != etm4_pkt_atom_run) {
			assert_true(out->n < MAXREC);
			out->p[out->n++] = in->p[i];
			continue;
		}
		assert_int_equal(in->p[i].u.run.naddr, 0);
		expand_run_into(dec, &in->p[i], out);
	}
	etm4_pkt_free(dec);
}

/* The same records, atoms' formats included. */
static void assert_same_run(const struct run *a, const struct run *b)
{
	assert_int_equal(a->n, b->n);
	for (int i = 0; i < a->n; i++) {
		assert_same_pkt(&a->p[i], &b->p[i]);
		if (a->p[i].type == etm4_pkt_atom && !a->p[i].error)
			assert_int_equal(a->p[i].u.atoms.format,
					 b->p[i].u.atoms.format);
	}
}

static void test_atom_runs(void **state)
{
	struct etm4_config plain = ete(0, 0), c = plain;
	const uint8_t *s = atom_stream;
	const struct etm4_atoms *t;
	struct etm4_pkt_decoder *dec;
	char str[32];

	(void)state;
	c.flags |= ETM4_CFG_ATOM_RUNS;
	decode_chunked(&c, s, sizeof(atom_stream), 0, &R);
	assert_int_equal(R.n, 12);
	is_pkt(&R.p[0], etm4_pkt_a_sync, 0, 12);
	is_pkt(&R.p[1], etm4_pkt_trace_info, 12, 3);
	is_pkt(&R.p[2], etm4_pkt_address, 15, 5);
	is_addr(&R.p[2], 0x69538, 0, etm4_addr_long32);
	is_run(&R.p[3], 20, 4, s + 20, NULL);
	is_pkt(&R.p[4], etm4_pkt_address, 24, 2);
	is_addr(&R.p[4], 0x6952c, 0, etm4_addr_short);
	is_run(&R.p[5], 26, 2, s + 26, NULL);
	is_pkt(&R.p[6], etm4_pkt_event, 28, 1);
	is_run(&R.p[7], 29, 2, s + 29, NULL);
	is_pkt(&R.p[8], etm4_pkt_trace_on, 31, 1);
	is_run(&R.p[9], 32, 1, s + 32, NULL);
	is_pkt(&R.p[10], etm4_pkt_commit, 33, 2);
	assert_int_equal(R.p[10].u.spec.count, 2);
	is_run(&R.p[11], 35, 3, s + 35, NULL);
	/* The first run's atoms, by hand: E; E E; N N E; 6 x E. */
	dec = mk(&c);
	t = etm4_pkt_atom_table(dec);
	assert_string_equal(atoms_str(&t[R.p[3].u.run.headers[0]], str), "E");
	assert_string_equal(atoms_str(&t[R.p[3].u.run.headers[1]], str), "EE");
	assert_string_equal(atoms_str(&t[R.p[3].u.run.headers[2]], str), "NNE");
	assert_string_equal(atoms_str(&t[R.p[3].u.run.headers[3]], str), "EEEEEE");
	etm4_pkt_free(dec);
	/* Without the flag: one atom record per header, the rest alike. */
	decode_chunked(&plain, s, sizeof(atom_stream), 0, &R2);
	assert_int_equal(R2.n, 12 - 5 + 12);
	is_pkt(&R2.p[3], etm4_pkt_atom, 20, 1);
	is_pkt(&R2.p[18], etm4_pkt_atom, 37, 1);
	expand_runs(&c, &R, &R3);
	assert_same_run(&R2, &R3);
	/* A stream with errors and resynchronisations, in every chunking:
	 * expanded, the same records as without runs in one feed. */
	decode_chunked(&plain, mixed, sizeof(mixed), 0, &R2);
	for (size_t chunk = 0; chunk <= 17; chunk++) {
		decode_chunked(&c, mixed, sizeof(mixed), chunk, &R);
		expand_runs(&c, &R, &R3);
		assert_same_run(&R2, &R3);
	}
}

/* Decode @buf[0..n) in one feed, byte i at offset @offs[i]. */
static void decode_offs(const struct etm4_config *c, const uint8_t *buf,
			size_t n, const uint64_t *offs, struct run *r)
{
	struct etm4_pkt_decoder *dec = mk(c);

	memset(r, 0, sizeof(*r));
	assert_int_equal(etm4_pkt_feed(dec, buf, n, offs, 0), 0);
	assert_int_equal(etm4_pkt_finish(dec), 0);
	drain(dec, r, 8);
	etm4_pkt_free(dec);
}

static void test_atom_runs_offsets_array(void **state)
{
	static uint64_t offs[sizeof(atom_stream)];
	struct etm4_config plain = ete(0, 0), c = plain;

	(void)state;
	c.flags |= ETM4_CFG_ATOM_RUNS;
	/* Framed input: every other byte was a frame byte, removed. */
	for (size_t i = 0; i < sizeof(atom_stream); i++)
		offs[i] = 5000 + 2 * i;
	decode_offs(&c, atom_stream, sizeof(atom_stream), offs, &R);
	assert_int_equal(R.n, 12);
	is_pkt(&R.p[1], etm4_pkt_trace_info, offs[12], 3);
	is_run(&R.p[3], offs[20], 4, atom_stream + 20, offs + 20);
	is_pkt(&R.p[4], etm4_pkt_address, offs[24], 2);
	is_run(&R.p[5], offs[26], 2, atom_stream + 26, offs + 26);
	is_run(&R.p[7], offs[29], 2, atom_stream + 29, offs + 29);
	is_run(&R.p[9], offs[32], 1, atom_stream + 32, offs + 32);
	is_run(&R.p[11], offs[35], 3, atom_stream + 35, offs + 35);
	/* Expanded: the records without runs, at the same offsets. */
	decode_offs(&plain, atom_stream, sizeof(atom_stream), offs, &R2);
	expand_runs(&c, &R, &R3);
	assert_same_run(&R2, &R3);
	assert_int_equal(R3.p[4].offset, 5000 + 2 * 21);
}

static void test_atom_runs_cut(void **state)
{
	static const uint8_t tail[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
					0xf7, 0xf6, 0xc0 };
	struct etm4_config c = ete(0, 0);
	const uint8_t *s = atom_stream;
	struct etm4_pkt_decoder *dec;
	struct etm4_packet p[4];

	(void)state;
	c.flags |= ETM4_CFG_ATOM_RUNS;
	/* Chunks [0, 22) and [22, 38): the run at 20 ends with the first
	 * chunk and goes on in the second, which starts at offset 22. */
	decode_chunked(&c, s, sizeof(atom_stream), 22, &R);
	assert_int_equal(R.n, 13);
	is_pkt(&R.p[2], etm4_pkt_address, 15, 5);
	is_run(&R.p[3], 20, 2, s + 20, NULL);
	is_run(&R.p[4], 22, 2, s + 22, NULL);
	is_pkt(&R.p[5], etm4_pkt_address, 24, 2);
	is_run(&R.p[12], 35, 3, s + 35, NULL);
	/* Chunks [0, 25) and [25, 38): a short address cut after its
	 * header, then a run in the second chunk. */
	decode_chunked(&c, s, sizeof(atom_stream), 25, &R);
	assert_int_equal(R.n, 12);
	is_pkt(&R.p[4], etm4_pkt_address, 24, 2);
	is_addr(&R.p[4], 0x6952c, 0, etm4_addr_short);
	is_run(&R.p[5], 26, 2, s + 26, NULL);
	/* A run at the very end of the input, with records taken one at a
	 * time after finishing: nothing follows it, nothing is cut. */
	dec = mk(&c);
	assert_int_equal(etm4_pkt_feed(dec, s, sizeof(atom_stream), NULL, 100), 0);
	assert_int_equal(etm4_pkt_finish(dec), 0);
	memset(&R, 0, sizeof(R));
	drain(dec, &R, 1);
	assert_int_equal(R.n, 12);
	is_run(&R.p[11], 135, 3, s + 35, NULL);
	assert_int_equal(etm4_pkt_next(dec, p, 4), -etmkit_err_eos);
	etm4_pkt_free(dec);
	/* A chunk of nothing but atoms, right after the A-sync's chunk: one
	 * run, its offsets from the chunk's base. */
	dec = mk(&c);
	assert_int_equal(etm4_pkt_feed(dec, tail, 12, NULL, 0), 0);
	assert_int_equal(etm4_pkt_next(dec, p, 4), 1);
	assert_int_equal(p[0].type, etm4_pkt_a_sync);
	assert_int_equal(etm4_pkt_feed(dec, tail + 12, 3, NULL, 12), 0);
	assert_int_equal(etm4_pkt_finish(dec), 0);
	assert_int_equal(etm4_pkt_next(dec, p, 4), 1);
	is_run(&p[0], 12, 3, tail + 12, NULL);
	assert_int_equal(etm4_pkt_next(dec, p, 4), -etmkit_err_eos);
	etm4_pkt_free(dec);
}

/* ---- Address runs (ETM4_CFG_ADDR_RUNS) ------------------------------------ */

/* Target addresses of every form between atoms (digest 5.14, 5.19), the
 * values worked by hand from the history rules (digest 2.4). A packet
 * joins a run only with ETM4_FAST_MIN (16) bytes at hand: the address at
 * 59 does not. */
static const uint8_t addr_stream[] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
	0x01, 0x01, 0x00,                   /* 12 Trace Info: history 0 */
	0x9a, 0x4e, 0x4a, 0x06, 0x00,       /* 15 long32 0x69538 */
	0xf7, 0xdb,                         /* 20 */
	0x95, 0x4b,                         /* 22 short: A[8:2] = 0x4b:
					       0x6952c */
	0xf6,                               /* 24 */
	0x90,                               /* 25 exact, entry 0: 0x6952c */
	0x92,                               /* 26 exact, entry 2: 0x69538 */
	0xe5,                               /* 27 */
	0x71,                               /* 28 Event: not in a run */
	0x9d, 0x40, 0x42, 0x10, 0, 0, 0, 0x80, 0xff, /* 29 long64:
					       0xff80000000108500 */
	0xd5, 0xdf,                         /* 38 */
	0x04,                               /* 40 Trace On */
	0x95, 0x01,                         /* 41 short: 0xff80000000108404 */
	0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, /* 43 */
	0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, /* 51 */
	0x95, 0x02,                         /* 59 short: 0xff80000000108408 */
	0xf6,                               /* 61 */
};

/* What one run holds (its pointers die with the next call). */
struct run_shape {
	uint64_t offset;
	uint32_t count, naddr;
};

/* Decode @buf with @c in chunks of @chunk (0: one feed), @batch records
 * per call, byte i at @offs[i] when given: the records with each run
 * expanded as it comes into @out, and the runs' shapes into @shape
 * (@nshape of them). */
static void decode_expanded(const struct etm4_config *c, const uint8_t *buf,
			    size_t len, const uint64_t *offs, size_t chunk,
			    size_t batch, struct run *out,
			    struct run_shape *shape, size_t *nshape)
{
	struct etm4_pkt_decoder *dec = mk(c);
	size_t step = chunk ? chunk : len;
	struct etm4_packet p[8];
	int got;

	memset(out, 0, sizeof(*out));
	*nshape = 0;
	for (size_t at = 0; at < len; at += step) {
		size_t n = len - at < step ? len - at : step;
		int last = at + n == len;

		assert_int_equal(etm4_pkt_feed(dec, buf + at, n,
					       offs ? offs + at : NULL, at), 0);
		if (last)
			assert_int_equal(etm4_pkt_finish(dec), 0);
		while ((got = etm4_pkt_next(dec, p, batch)) > 0) {
			for (int i = 0; i < got; i++) {
				if (p[i].type != etm4_pkt_atom_run) {
					assert_true(out->n < MAXREC);
					out->p[out->n++] = p[i];
					continue;
				}
				assert_true(*nshape < 64);
				shape[*nshape].offset = p[i].offset;
				shape[*nshape].count = p[i].u.run.count;
				shape[(*nshape)++].naddr = p[i].u.run.naddr;
				assert_int_equal(p[i].length, p[i].u.run.count);
				assert_ptr_equal(p[i].u.run.offsets,
						 offs ? offs + (p[i].u.run.headers -
								buf) : NULL);
				expand_run_into(dec, &p[i], out);
			}
		}
		assert_int_equal(got, -etmkit_err_eos);
	}
	etm4_pkt_free(dec);
}

static void test_addr_runs(void **state)
{
	static const struct run_shape want[] = {
		{ 15, 13, 4 }, { 29, 11, 1 }, { 41, 18, 1 }, { 61, 1, 0 },
	};
	static const struct { uint64_t off, addr; uint8_t form; } addrs[] = {
		{ 15, 0x69538, etm4_addr_long32 },
		{ 22, 0x6952c, etm4_addr_short },
		{ 25, 0x6952c, etm4_addr_exact },
		{ 26, 0x69538, etm4_addr_exact },
		{ 29, 0xff80000000108500ull, etm4_addr_long64 },
		{ 41, 0xff80000000108404ull, etm4_addr_short },
		{ 59, 0xff80000000108408ull, etm4_addr_short },
	};
	static struct run_shape shape[64];
	static uint64_t offs[sizeof(addr_stream)];
	struct etm4_config plain = ete(0, 0), c = plain;
	size_t ns, k = 0;

	(void)state;
	c.flags |= ETM4_CFG_ADDR_RUNS; /* implies ETM4_CFG_ATOM_RUNS */
	decode_expanded(&c, addr_stream, sizeof(addr_stream), NULL, 0, 8,
			&R3, shape, &ns);
	assert_int_equal(ns, 4);
	for (size_t i = 0; i < ns; i++) {
		assert_int_equal(shape[i].offset, want[i].offset);
		assert_int_equal(shape[i].count, want[i].count);
		assert_int_equal(shape[i].naddr, want[i].naddr);
	}
	for (int i = 0; i < R3.n; i++) {
		if (R3.p[i].type != etm4_pkt_address)
			continue;
		assert_true(k < 7);
		assert_int_equal(R3.p[i].offset, addrs[k].off);
		is_addr(&R3.p[i], addrs[k].addr, 0, addrs[k].form);
		k++;
	}
	assert_int_equal(k, 7);
	/* Expanded, the records without runs; in every chunking and batch
	 * size, and with an offsets array (framed input). */
	decode_chunked(&plain, addr_stream, sizeof(addr_stream), 0, &R2);
	assert_same_run(&R2, &R3);
	for (size_t chunk = 0; chunk <= 17; chunk++) {
		for (size_t batch = 1; batch <= 8; batch += 7) {
			decode_expanded(&c, addr_stream, sizeof(addr_stream),
					NULL, chunk, batch, &R3, shape, &ns);
			assert_same_run(&R2, &R3);
		}
	}
	for (size_t i = 0; i < sizeof(addr_stream); i++)
		offs[i] = 7000 + 3 * i;
	decode_expanded(&c, addr_stream, sizeof(addr_stream), offs, 0, 8, &R3,
			shape, &ns);
	for (int i = 0; i < R2.n; i++)
		R2.p[i].offset = offs[R2.p[i].offset];
	assert_same_run(&R2, &R3);
}

/* A source address (ETE, b4: short IS0, digest 5.22) is a P0 element of
 * its own, and an address with context carries more: neither joins a run,
 * both still update the history. */
static void test_addr_runs_exclude(void **state)
{
	static const uint8_t s[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
		0x01, 0x01, 0x00,                   /* 12 Trace Info */
		0xf7,                               /* 15 */
		0xb4, 0x4b,                         /* 16 source 0x12c */
		0xf7,                               /* 18 */
		0x82, 0x00, 0x08, 0x00, 0x00, 0x11, /* 19 0x1000, context */
		0x95, 0x01,                         /* 25 short: 0x1004 */
		0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, /* 27 */
		0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, 0xf7, /* 35 */
	};
	static struct run_shape shape[64];
	struct etm4_config c = ete(0, 0);
	size_t ns;

	(void)state;
	c.flags |= ETM4_CFG_ADDR_RUNS;
	decode_expanded(&c, s, sizeof(s), NULL, 0, 8, &R3, shape, &ns);
	assert_int_equal(ns, 3);
	assert_int_equal(shape[0].offset, 15);
	assert_int_equal(shape[0].count, 1);
	assert_int_equal(shape[1].offset, 18);
	assert_int_equal(shape[1].count, 1);
	assert_int_equal(shape[2].offset, 25);
	assert_int_equal(shape[2].count, 18);
	assert_int_equal(shape[2].naddr, 1);
	/* a_sync, trace info, atom, source, atom, address+context, then the
	 * third run: short address, 16 atoms. */
	assert_int_equal(R3.n, 6 + 17);
	is_pkt(&R3.p[3], etm4_pkt_source_address, 16, 2);
	is_addr(&R3.p[3], 0x12c, 0, etm4_addr_short);
	is_pkt(&R3.p[5], etm4_pkt_address_context, 19, 6);
	is_pkt(&R3.p[6], etm4_pkt_address, 25, 2);
	is_addr(&R3.p[6], 0x1004, 0, etm4_addr_short);
}

/* One call's runs hold at most ETM4_RUN_ADDRS (1024) addresses; the rest
 * come as records until the next call, and every address is there with
 * its value. 1100 x
 * (short address 95 01, atom f7), then 16 atoms. */
static void test_addr_runs_cap(void **state)
{
	static uint8_t s[12 + 3 + 1100 * 3 + 16];
	struct etm4_config c = ete(0, 0);
	struct etm4_pkt_decoder *dec;
	struct etm4_packet p[64];
	uint32_t in_runs = 0, records = 0, most = 0, later = 0;
	int got;

	(void)state;
	c.flags |= ETM4_CFG_ADDR_RUNS;
	memcpy(s, async12, 12);
	s[12] = 0x01; s[13] = 0x01; s[14] = 0x00; /* Trace Info */
	for (size_t i = 0; i < 1100; i++) {
		s[15 + 3 * i] = 0x95;
		s[16 + 3 * i] = 0x01;
		s[17 + 3 * i] = 0xf7;
	}
	memset(s + 15 + 3300, 0xf7, 16);
	dec = mk(&c);
	assert_int_equal(etm4_pkt_feed(dec, s, sizeof(s), NULL, 0), 0);
	assert_int_equal(etm4_pkt_finish(dec), 0);
	while ((got = etm4_pkt_next(dec, p, 64)) > 0) {
		for (int i = 0; i < got; i++) {
			if (p[i].type == etm4_pkt_address) {
				is_addr(&p[i], 0x4, 0, etm4_addr_short);
				records++;
			}
			if (p[i].type != etm4_pkt_atom_run)
				continue;
			for (uint32_t k = 0; k < p[i].u.run.naddr; k++)
				assert_int_equal(p[i].u.run.addrs[k].addr.addr,
						 0x4);
			in_runs += p[i].u.run.naddr;
			if (most == 1024)
				later += p[i].u.run.naddr;
			if (p[i].u.run.naddr > most)
				most = p[i].u.run.naddr;
		}
	}
	assert_int_equal(got, -etmkit_err_eos);
	etm4_pkt_free(dec);
	assert_int_equal(most, 1024);
	assert_true(records >= 1);
	/* The next call's runs take addresses again: 64 records a call, so
	 * the first call holds the run of 1024 and at most 63 more. */
	assert_true(later >= 1100 - 1024 - 63);
	assert_int_equal(in_runs + records, 1100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_atom_table),
		cmocka_unit_test(test_atom_runs),
		cmocka_unit_test(test_atom_runs_offsets_array),
		cmocka_unit_test(test_atom_runs_cut),
		cmocka_unit_test(test_addr_runs),
		cmocka_unit_test(test_addr_runs_cap),
		cmocka_unit_test(test_addr_runs_exclude),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
