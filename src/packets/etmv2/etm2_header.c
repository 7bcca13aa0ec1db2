/* ETMv2 packets in the FIFO (Q§6.4, Table 6.2 = seed 001, Table 6.3;
 * docs/etmv2.md 4 and 6): the byte cursor's parser. One byte at a time,
 * since a packet's bytes come out over several cycles; a packet is
 * queued when its last byte is in. */
#include <string.h>

#include "packets/etmv2/etm2_internal.h"

/* Header classes of bits [6:0] (Table 6.2; digest 4.1's full map). */
enum { h_res = 0, h_nd, h_vnt, h_cid, h_lmo, h_lmd };

static unsigned header_class(uint8_t b)
{
	b &= 0x7f;
	if ((b & 0x53) == 0x02)
		return h_nd;  /* C0A0SS10 */
	if (b == 0x6a)
		return h_vnt; /* C1101010 */
	if (b == 0x6e)
		return h_cid; /* C1101110 */
	if ((b & 0x53) == 0x50)
		return h_lmo; /* C1A1TT00 */
	if ((b & 0x13) == 0x00)
		return h_lmd; /* CTT0SS00 */
	return h_res;
}

static const uint8_t ss_bytes[4] = { 0, 1, 2, 4 }; /* Table 6.3 */

/* A branch address of @n bytes (docs/etmv2.md 4, layout ASSUMED as
 * ETMv3's original encoding): merged into @ref. Returns 0, or -1 when a
 * 5th byte is neither 0000 1aaa nor 0001 aaaa. */
static int branch_decode(const uint8_t *b, unsigned n, uint32_t ref,
			 uint8_t ref_isa, struct etm2_branch *out)
{
	uint8_t isa = ref_isa;
	unsigned lo, bits;
	uint32_t v, mask;

	if (n == 5) {
		if ((b[4] & 0xf8) == 0x08)
			isa = etmkit_isa_arm;
		else if ((b[4] & 0xf0) == 0x10)
			isa = etmkit_isa_thumb;
		else
			return -1;
	}
	lo = isa == etmkit_isa_thumb ? 1 : 2; /* byte 0 [6:1] = A[lo+5:lo] */
	v = (uint32_t)((b[0] >> 1) & 0x3f) << lo;
	bits = lo + 6;
	for (unsigned i = 1; i < n && i < 4; i++, bits += 7)
		v |= (uint32_t)(b[i] & 0x7f) << bits;
	if (n == 5) {
		v |= (uint32_t)(b[4] & (isa == etmkit_isa_thumb ? 0xf : 0x7)) << bits;
		bits = 32;
	}
	mask = bits >= 32 ? 0xffffffffu : (1u << bits) - 1;
	out->addr = (ref & ~mask) | (v & mask);
	out->addr_bits = (uint8_t)bits;
	out->addr_bytes = (uint8_t)n;
	out->isa = isa;
	out->isa_change = n == 5 && isa != ref_isa;
	return 0;
}

static struct etm2_slot *head_slot(struct etm2_pkt_decoder *d)
{
	return &d->slots[d->slot_head & (ETM2_RING - 1)];
}

static void slot_done(struct etm2_pkt_decoder *d)
{
	d->slot_head++;
	d->started = 0;
	d->phase = e2_ph_hdr;
}

static void error_here(struct etm2_pkt_decoder *d, const char *why)
{
	d->cur.error = -etmkit_err_bad_packet;
	d->cur.why = why;
	d->cur.length = d->cur.size;
	etm2_sync_error(d, &d->cur, d->last_cycle + 1);
}

/* A packet of a group is complete. */
static void group_packet(struct etm2_pkt_decoder *d)
{
	int end = d->cur.type == etm2_pkt_branch_address || !d->cur.c_bit;

	d->cur.length = d->cur.size;
	etm2_q_packet(d, &d->cur, end);
	if (end)
		slot_done(d);
	else
		d->phase = e2_ph_hdr;
}

static void tfo_packet(struct etm2_pkt_decoder *d)
{
	struct etm2_tfo *f = &d->cur.u.tfo;
	int first = d->state == e2_syncing;

	f->first = (uint8_t)first;
	d->br_addr = f->lsip ? f->next_addr : f->addr;
	d->br_isa = f->lsip ? f->next_isa : f->isa;
	d->cur.length = d->cur.size;
	etm2_q_packet(d, &d->cur, 1);
	slot_done(d);
	if (first)
		etm2_sync_confirm(d);
}

void etm2_parse_start(struct etm2_pkt_decoder *d, const struct etm2_slot *s,
		      uint64_t out)
{
	memset(&d->cur, 0, sizeof(d->cur));
	d->cur.cycle = s->cycle;
	d->cur.out_cycle = out;
	if (!s->tfo) {
		d->phase = e2_ph_hdr;
		return;
	}
	d->cur.type = etm2_pkt_tfo;
	d->cur.status = etm2_st_td;
	d->cur.u.tfo.offset = s->n_tfo;
	d->phase = e2_ph_tfo_hdr;
	/* a later TFO's packet must start N bytes after its cycle
	 * (docs/etmv2.md 6) */
	if (d->bytes != s->pos)
		error_here(d, "TFO packet not where its offset says");
}

/* Start a packet of a group at its first byte. */
static void parse_header(struct etm2_pkt_decoder *d, uint8_t b)
{
	struct etm2_data *dd = &d->cur.u.data;
	unsigned ss = (b >> 2) & 3;

	if (b & 1) { /* branch address: no header, bit 0 = 1 (Q§6.7.1) */
		d->cur.type = etm2_pkt_branch_address;
		if (head_slot(d)->dn) {
			error_here(d, "branch address placed by a DN status");
			return;
		}
		d->field_i = 1;
		d->phase = e2_ph_branch;
		return;
	}
	d->cur.c_bit = b >> 7;
	d->need = 0;
	d->field_i = 0;
	switch (header_class(b)) {
	case h_nd:
		d->cur.type = etm2_pkt_normal_data;
		dd->a_bit = (b >> 5) & 1;
		dd->has_addr = dd->a_bit && d->info.data_addr;
		dd->has_value = d->info.data_value;
		dd->value_bytes = ss_bytes[ss];
		break;
	case h_vnt:
		d->cur.type = etm2_pkt_value_not_traced;
		break;
	case h_cid:
		d->cur.type = etm2_pkt_context_id;
		d->need = d->info.context_id_bytes;
		break;
	case h_lmo:
		d->cur.type = etm2_pkt_load_miss;
		dd->a_bit = (b >> 5) & 1;
		dd->tag = (b >> 2) & 3;
		dd->has_addr = dd->a_bit && d->info.data_addr;
		break;
	case h_lmd:
		/* its value always follows: the packet exists to carry it
		 * (docs/etmv2.md 4) */
		d->cur.type = etm2_pkt_load_miss_data;
		dd->tag = (b >> 5) & 3;
		dd->has_value = 1;
		dd->value_bytes = ss_bytes[ss];
		break;
	default:
		d->cur.type = etm2_pkt_reserved;
		error_here(d, "reserved header");
		return;
	}
	if (dd->has_value)
		d->need = dd->value_bytes;
	d->phase = dd->has_addr ? e2_ph_daddr : e2_ph_fixed;
}

/* Data address: 7/7/7/7/4 bits, bit 7 = more (docs/etmv2.md 4; ETMv1
 * Q§5.5.4). Returns 1 once the address is complete. */
int etm2_data_addr_byte(struct etm2_pkt_decoder *d, uint8_t b)
{
	struct etm2_data *dd = &d->cur.u.data;
	unsigned i = d->field_i++;

	if (i < 4)
		dd->addr |= (uint32_t)(b & 0x7f) << (7 * i);
	else
		dd->addr |= (uint32_t)(b & 0xf) << 28;
	if ((b & 0x80) && i < 4)
		return 0;
	unsigned bits = i == 4 ? 32 : 7 * (i + 1);
	uint32_t mask = bits >= 32 ? 0xffffffffu : (1u << bits) - 1;

	dd->addr_bytes = (uint8_t)(i + 1);
	dd->addr = (d->data_addr & ~mask) | (dd->addr & mask);
	if (bits == 32)
		d->data_known = 1;
	dd->addr_partial = !d->data_known;
	d->data_addr = dd->addr;
	d->field_i = 0;
	return 1;
}

void etm2_parse_byte(struct etm2_pkt_decoder *d, uint8_t b, uint64_t out)
{
	if (d->phase == e2_ph_hdr) {
		uint64_t cyc = d->cur.cycle;

		memset(&d->cur, 0, sizeof(d->cur));
		d->cur.cycle = cyc;
		d->cur.out_cycle = out;
	}
	if (d->cur.size < ETM2_PKT_MAX_BYTES)
		d->cur.raw[d->cur.size++] = b;
	switch (d->phase) {
	case e2_ph_hdr:
		parse_header(d, b);
		if (d->state == e2_unsynced || d->phase == e2_ph_daddr)
			return;
		if (d->phase == e2_ph_branch) {
			if (!(b & 0x80))
				goto branch_done;
			return;
		}
		break; /* e2_ph_fixed: maybe nothing follows */
	case e2_ph_daddr:
		if (!etm2_data_addr_byte(d, b))
			return;
		d->phase = e2_ph_fixed;
		break;
	case e2_ph_fixed: {
		uint32_t *v = d->cur.type == etm2_pkt_context_id ?
				      &d->cur.u.context_id : &d->cur.u.data.value;
		*v |= (uint32_t)b << (8 * d->field_i++);
		d->need--;
		break;
	}
	case e2_ph_branch:
		d->field_i++;
		if ((b & 0x80) && d->field_i < 5)
			return;
		goto branch_done;
	case e2_ph_tfo_hdr: {
		const struct etm2_tfo_table *t = &d->cfg.tfo;
		struct etm2_tfo *f = &d->cur.u.tfo;

		if ((b & t->mask) != t->normal && (b & t->mask) != t->lsip) {
			error_here(d, "no TFO header where the TFO offset says");
			return;
		}
		f->header = b;
		f->lsip = (b & t->mask) == t->lsip;
		f->reason = (b >> t->rr_shift) & 3;
		f->context_id_bytes = d->info.context_id_bytes;
		d->need = f->context_id_bytes;
		d->field_i = 0;
		d->phase = d->need ? e2_ph_tfo_cid : e2_ph_tfo_addr;
		if (!d->need)
			d->need = 4;
		return;
	}
	case e2_ph_tfo_cid:
		d->cur.u.tfo.context_id |= (uint32_t)b << (8 * d->field_i++);
		if (--d->need)
			return;
		d->phase = e2_ph_tfo_addr;
		d->need = 4;
		d->field_i = 0;
		return;
	case e2_ph_tfo_addr: {
		struct etm2_tfo *f = &d->cur.u.tfo;

		f->addr |= (uint32_t)b << (8 * d->field_i++);
		if (--d->need)
			return;
		/* bit 0 = Thumb (Q§6.5.4) */
		f->isa = (f->addr & 1) ? etmkit_isa_thumb : etmkit_isa_arm;
		f->addr &= ~1u;
		if (!f->lsip) {
			tfo_packet(d);
			return;
		}
		d->phase = e2_ph_tfo_branch;
		d->field_i = 0;
		return;
	}
	case e2_ph_tfo_branch: {
		struct etm2_tfo *f = &d->cur.u.tfo;
		struct etm2_branch br;

		/* the next address, as a branch address against the LSM's
		 * (docs/etmv2.md 6, ASSUMED) */
		d->field_i++;
		if (d->field_i == 1 && !(b & 1)) {
			error_here(d, "LSiP TFO without its next address");
			return;
		}
		if ((b & 0x80) && d->field_i < 5)
			return;
		if (branch_decode(d->cur.raw + d->cur.size - d->field_i,
				  d->field_i, f->addr, f->isa, &br)) {
			error_here(d, "malformed LSiP address");
			return;
		}
		f->next_addr = br.addr;
		f->next_isa = br.isa;
		tfo_packet(d);
		return;
	}
	}
	if (d->need == 0)
		group_packet(d);
	return;
branch_done:
	if (branch_decode(d->cur.raw, d->cur.size, d->br_addr, d->br_isa,
			  &d->cur.u.branch)) {
		error_here(d, "malformed 5th branch address byte");
		return;
	}
	d->br_addr = d->cur.u.branch.addr;
	d->br_isa = d->cur.u.branch.isa;
	group_packet(d);
}
