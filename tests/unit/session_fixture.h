/* Fixtures shared by the session tests (test_session.c,
 * test_session_break.c): a recorder of the packets and gaps a session
 * reports, formatted buffers worked out by hand (their offsets in the
 * comments), and the trace unit configurations of two shared snapshots.
 * Include after <cmocka.h>; functions are static inline so that each test
 * uses what it needs. */
#ifndef ETMKIT_TESTS_SESSION_FIXTURE_H
#define ETMKIT_TESTS_SESSION_FIXTURE_H

#include <stdint.h>

#include "etmkit/session.h"

/* Gaps reported through on_gap (session breaks). */
struct gaps {
	int n;
	uint8_t id[8];
	uint8_t reason[8];
	uint64_t offset[8];
};

struct seen {
	struct gaps g;
	int n;
	uint8_t id[64];
	uint8_t proto[64];
	uint8_t type[64];
	uint64_t offset[64];
	uint32_t length[64];
	int16_t error[64];
	uint64_t addr[64];  /* ETMv4 address packets; PTM: atoms in an atom
			       packet */
	int stop_after;
};

static inline int on_packet(void *ctx, uint8_t id, enum etmkit_protocol proto,
			    const void *packet)
{
	struct seen *s = ctx;

	assert_true(s->n < 64);
	s->id[s->n] = id;
	s->proto[s->n] = (uint8_t)proto;
	if (proto == etmkit_proto_etmv3) {
		const struct etm3_packet *p = packet;

		s->type[s->n] = p->type;
		s->offset[s->n] = p->offset;
		s->length[s->n] = p->length;
		s->error[s->n] = p->error;
	} else if (proto == etmkit_proto_ptm) {
		const struct ptm_packet *p = packet;

		s->type[s->n] = p->type;
		s->offset[s->n] = p->offset;
		s->length[s->n] = p->length;
		s->error[s->n] = p->error;
		if (p->type == ptm_pkt_atom)
			s->addr[s->n] = p->u.atoms.count; /* the atoms */
	} else {
		const struct etm4_packet *p = packet;

		assert_true(proto == etmkit_proto_etmv4 ||
			    proto == etmkit_proto_ete);
		s->type[s->n] = p->type;
		s->offset[s->n] = p->offset;
		s->length[s->n] = p->length;
		s->error[s->n] = p->error;
		if (p->type == etm4_pkt_address ||
		    p->type == etm4_pkt_address_context)
			s->addr[s->n] = p->u.a.addr.addr;
	}
	s->n++;
	if (s->stop_after && s->n == s->stop_after)
		return -etmkit_err_internal;
	return 0;
}

/* on_gap: record the gap in the struct seen's gaps. */
static inline int on_gap_rec(void *ctx, uint8_t id, enum etmkit_loss reason,
			     uint64_t offset)
{
	struct gaps *g = &((struct seen *)ctx)->g;

	assert_true(g->n < 8);
	g->id[g->n] = id;
	g->reason[g->n] = (uint8_t)reason;
	g->offset[g->n] = offset;
	g->n++;
	return 0;
}

/* Frame (DDI 0314H 8.12.1): ID 0x10 (0x21) at byte 0, its data bytes 1-6
 * (A-sync 00 00 00 00 00 80; byte 2 and 4 are flag bytes holding data,
 * bit 0 from the aux byte); byte 8 switches to ID 0x20 (0x41) at once
 * (aux bit 4 = 0); 0x20 gets 9..14: 00 00 00 00 00 80 (A-sync).
 * Second frame: ID 0x10 continues? No: the current ID carries over (0x20):
 * byte 0 = 0x84 & ~1 data (P-header 0x84), byte 1 = 0x84; then byte 2 = ID
 * 0x10 with aux 1 (delayed): byte 3 (0x88) still for 0x20; then bytes 4..14
 * for 0x10: 84 84 a0 ... */
static const uint8_t frames[32] = {
	0x21, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x84,
	0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00,
	0x84, 0x84, 0x21, 0x88, 0x84, 0x84, 0xa0, 0xa0,
	0x84, 0x84, 0x84, 0x84, 0x84, 0x84, 0x84, 0x02,
};

/* The PTM (PFTv1.1) of snapshot TC2's PTM_0 (its device file), without
 * cycle-accurate tracing: one byte holds 1 to 5 atoms. */
static inline void ptm_config_tc2(struct ptm_config *cfg)
{
	ptm_config_init(cfg);
	cfg->etmcr = 0;
	cfg->etmidr = 0x411CF312;
	cfg->etmccer = 0x34C01AC2;
}

/* The ETE 1.0 of snapshot ete_spec_1 (its device file). */
static inline void ete_config(struct etm4_config *cfg)
{
	etm4_config_init(cfg);
	cfg->trcidr0 = 0x2801cea1;
	cfg->trcidr1 = 0x4100fff0;
	cfg->trcidr2 = 0xd0001088;
	cfg->trcidr8 = 0xff;
	cfg->trcdevarch = 0x47705a13;
	cfg->flags = ETM4_CFG_ETE;
}

/* The ETMv4.0 of snapshot juno_r1_1. */
static inline void etm4_config(struct etm4_config *cfg)
{
	etm4_config_init(cfg);
	cfg->trcidr0 = 0x28000EA1;
	cfg->trcidr1 = 0x4100F403;
	cfg->trcidr2 = 0x00000488;
	cfg->trcconfigr = 0xC1;
}

/* ETMv3 on ID 0x10 and ETMv4 on ID 0x20 in one formatted buffer.
 * Frame 1: ID 0x10 (byte 0), ETMv3 A-sync at 1-6, P-header 0x84 at 7;
 * ID 0x20 at byte 8, the first six zeros of an ETMv4 A-sync at 9-14.
 * Frame 2 (ID 0x20 goes on): five zeros at 16-20 and 0x80 at 21 end the
 * A-sync; Trace Info 01 00 at 22-23 (0x01 is written 0x00 with aux bit 3);
 * Trace On at 24; atom E at 25; ID 0x10 at 26; P-headers at 27-30. */
static const uint8_t mixed_frames[32] = {
	0x21, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x84,
	0x41, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00,
	0x04, 0xf7, 0x21, 0x84, 0x84, 0x84, 0x84, 0x08,
};

#endif
