/* The scaffolding of the ETMv4 / ETE packet decoder tests
 * (test_etm4_pkt*.c): configurations, decoding a body after an A-sync
 * into records, record checks. */
#ifndef ETMKIT_TEST_ETM4_PKT_H
#define ETMKIT_TEST_ETM4_PKT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit/test_util.h"

#include "etmkit/etm4.h"
#include "packets/etmv4/etm4_internal.h"

#define TESTDATA ETMKIT_SHARED_DIR "/testdata"

/* Registers of the ETE snapshots (ete_spec_1 and most others, digest 9):
 * TRCIDR0 COMMOPT = 1, TRCCCI, QSUPP = 3, 64-bit TS; TRCIDR2 64-bit IA,
 * 32-bit CID and VMID, 20-bit cycle counter, WFXMODE. */
#define ETE_IDR0 0x2801cea1u
#define ETE_IDR2 0xd0001088u
#define DEVARCH(minor) (0x47705a13u | ((uint32_t)(minor) << 16))
/* ETMv4: TRCIDR1 with architecture 4.minor (digest 6.2). */
#define IDR1(minor) (0x4100f403u | ((uint32_t)(minor) << 4))
#define V4_IDR0 0x28000ea1u /* Juno A57 ETM */
#define CFGR_CCI (1u << 4)
#define CFGR_QE (1u << 13)
#define CFGR_COND (7u << 8)
#define CFGR_DA (1u << 16)
#define IDR0_COMMOPT (1u << 29)
#define IDR0_QSUPP (3u << 15)
#define IDR0_TRCCOND (1u << 6)

static const uint8_t async12[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80 };

static inline struct etm4_config ete(unsigned minor, uint32_t configr)
{
	struct etm4_config c;

	etm4_config_init(&c);
	c.trcidr0 = ETE_IDR0;
	c.trcidr1 = 0x4100fff0u;
	c.trcidr2 = ETE_IDR2;
	c.trcdevarch = DEVARCH(minor);
	c.trcconfigr = configr;
	c.flags = ETM4_CFG_ETE;
	return c;
}

static inline struct etm4_config v4(unsigned minor, uint32_t idr0, uint32_t configr)
{
	struct etm4_config c;

	etm4_config_init(&c);
	c.trcidr0 = idr0;
	c.trcidr1 = IDR1(minor);
	c.trcidr2 = ETE_IDR2;
	c.trcconfigr = configr;
	return c;
}

#define MAXREC 1024
struct run {
	struct etm4_packet p[MAXREC];
	int n;
};

/* Large: kept off the stack. Not every test file uses R2. */
static struct run R, R2 __attribute__((unused));

static inline struct etm4_pkt_decoder *mk(const struct etm4_config *c)
{
	struct etm4_pkt_decoder *dec = NULL;

	assert_int_equal(etm4_pkt_alloc(&dec, c), 0);
	return dec;
}

static inline void drain(struct etm4_pkt_decoder *dec, struct run *r, size_t batch)
{
	for (;;) {
		int n = etm4_pkt_next(dec, r->p + r->n, batch);

		if (n == -etmkit_err_eos)
			return;
		assert_true(n > 0);
		r->n += n;
		assert_true(r->n + (int)batch <= MAXREC);
	}
}

/* Decode @buf in chunks of @chunk bytes (0: all at once). */
static inline void decode_chunked(const struct etm4_config *c, const uint8_t *buf,
			   size_t len, size_t chunk, struct run *r)
{
	struct etm4_pkt_decoder *dec = mk(c);
	size_t step = chunk ? chunk : (len ? len : 1);

	memset(r, 0, sizeof(*r));
	for (size_t at = 0; at < len; at += step) {
		size_t n = len - at < step ? len - at : step;

		assert_int_equal(etm4_pkt_feed(dec, buf + at, n, NULL, at), 0);
		drain(dec, r, 8);
	}
	assert_int_equal(etm4_pkt_finish(dec), 0);
	drain(dec, r, 8);
	etm4_pkt_free(dec);
}

/* Decode A-sync then @body; returns the records after the A-sync. */
static inline struct etm4_packet *body(const struct etm4_config *c, const uint8_t *b,
				size_t len, struct run *r)
{
	static uint8_t buf[512];

	assert_true(len + sizeof(async12) <= sizeof(buf));
	memcpy(buf, async12, sizeof(async12));
	memcpy(buf + sizeof(async12), b, len);
	decode_chunked(c, buf, len + sizeof(async12), 0, r);
	assert_true(r->n >= 1);
	assert_int_equal(r->p[0].type, etm4_pkt_a_sync);
	assert_int_equal(r->p[0].error, 0);
	return &r->p[1];
}

static inline struct etm4_packet *body_with(struct etm4_config c, const uint8_t *b,
				     size_t len)
{
	return body(&c, b, len, &R);
}

/* Decode A-sync and the bytes given, with configuration @cfg, into R. */
#define BODY(cfg, ...)                                                         \
	body_with((cfg), (const uint8_t[]){ __VA_ARGS__ },                     \
		  sizeof((const uint8_t[]){ __VA_ARGS__ }))

/* One packet @len bytes long at @off, no error, of @type. */
static inline void is_pkt(const struct etm4_packet *p, unsigned type, uint64_t off,
		   unsigned len)
{
	if (p->type != type || p->offset != off || p->length != len || p->error)
		fail_msg("record %s at %llu, %u bytes, error %d: expected %s at "
			 "%llu, %u bytes", etm4_pkt_type_name(p->type),
			 (unsigned long long)p->offset, p->length, p->error,
			 etm4_pkt_type_name(type), (unsigned long long)off, len);
	assert_int_equal(p->size, len < ETM4_PKT_MAX_BYTES ? len : ETM4_PKT_MAX_BYTES);
}

static inline const char *atoms_str(const struct etm4_atoms *a, char *s)
{
	unsigned i;

	for (i = 0; i < a->count; i++)
		s[i] = (a->bits >> i) & 1 ? 'E' : 'N';
	s[i] = '\0';
	return s;
}


static inline void is_addr(const struct etm4_packet *p, uint64_t addr, unsigned is,
		    unsigned form)
{
	if (p->u.a.addr.addr != addr)
		fail_msg("address 0x%llx, expected 0x%llx",
			 (unsigned long long)p->u.a.addr.addr,
			 (unsigned long long)addr);
	assert_int_equal(p->u.a.addr.is, is);
	assert_int_equal(p->u.a.addr.form, form);
}


/* A stream with every kind of packet, some errors and resyncs. */
static const uint8_t mixed[] = {
	0x55, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
	0x01, 0x09, 0x01, 0x16, 0x04, 0x82, 0x21, 0x0a, 0x0c, 0x00, 0x11,
	0xf6, 0x30, 0x2d, 0x01, 0x9a, 0x4e, 0x4a, 0x06, 0x00, 0xdb, 0x2d, 0x02,
	0x95, 0xb0, 0x4f, 0x02, 0xe1, 0xcd, 0x81, 0x80, 0xff, 0xff, 0xff, 0xff,
	0xff, 0x0e, 0x88, 0x01, 0x0d, 0xf8, 0x10, 0x81, 0xf2, 1, 2, 3, 4, 5, 6,
	7, 8, 0x90, 0xaa, 0x34, 0x3f, 0x06, 0x00, 0x03, 0x06, 0x31, 0x70,
	0xb4, 0x48, 0x88, 0x09, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 0x00, 0x03,
	0x2e, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x9a, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0x80, 0x85, 0x28, 0x70, 0x1a, 0x00, 0xc0, 0xff, 0xff, 0xff,
	0x31, 0x08, 0x9d, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0x80, 0x01, 0x00, 0x9a, 0x4e,
};

/* The fields of @p that mean something for its type (not padding or
 * unused union bytes). */
static inline void assert_same_pkt(const struct etm4_packet *a, const struct etm4_packet *b)
{
	assert_int_equal(a->offset, b->offset);
	assert_int_equal(a->type, b->type);
	assert_int_equal(a->length, b->length);
	assert_int_equal(a->size, b->size);
	assert_int_equal(a->error, b->error);
	assert_memory_equal(a->raw, b->raw, a->size);
	if (a->error)
		return;
	switch (a->type) {
	case etm4_pkt_address:
	case etm4_pkt_source_address:
	case etm4_pkt_address_context:
		assert_int_equal(a->u.a.addr.addr, b->u.a.addr.addr);
		assert_int_equal(a->u.a.addr.is, b->u.a.addr.is);
		break;
	case etm4_pkt_timestamp:
		assert_int_equal(a->u.ts.value, b->u.ts.value);
		break;
	case etm4_pkt_cycle_count:
		assert_int_equal(a->u.cc.count, b->u.cc.count);
		assert_int_equal(a->u.cc.commit, b->u.cc.commit);
		break;
	case etm4_pkt_atom:
		assert_int_equal(a->u.atoms.bits, b->u.atoms.bits);
		assert_int_equal(a->u.atoms.count, b->u.atoms.count);
		break;
	case etm4_pkt_q:
		assert_int_equal(a->u.q.addr.addr, b->u.q.addr.addr);
		assert_int_equal(a->u.q.count, b->u.q.count);
		break;
	case etm4_pkt_instrumentation:
		assert_int_equal(a->u.ite.value, b->u.ite.value);
		break;
	default:
		break;
	}
}

#endif
