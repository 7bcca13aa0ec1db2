/* ETMv1 packets in the FIFO (Q Table 5.2, Q§5.5.4, Q§5.6.2, Q§5.6.3;
 * docs/etmv2.md 7b): no headers; a group is the data of an ID (address,
 * value), the branch address of a BE (with the context ID after a full
 * address with a reason), or both for a BD, data first. TRACESYNC marks
 * the first byte of every branch address and no other byte. */
#include <string.h>

#include "packets/etmv2/etm2_internal.h"

static void slot_done(struct etm2_pkt_decoder *d)
{
	d->slot_head++;
	d->started = 0;
}

static void error_here(struct etm2_pkt_decoder *d, const char *why)
{
	d->cur.error = -etmkit_err_bad_packet;
	d->cur.why = why;
	d->cur.length = d->cur.size;
	etm2_sync_error(d, &d->cur, d->last_cycle + 1);
}

static void emit(struct etm2_pkt_decoder *d, int end)
{
	d->cur.length = d->cur.size;
	etm2_q_packet(d, &d->cur, end);
	d->v1_new = 1;
	if (end)
		slot_done(d);
}

void etm1_parse_start(struct etm2_pkt_decoder *d, const struct etm2_slot *s,
		      uint64_t out)
{
	(void)out;
	d->v1_new = 1;
	d->phase = s->v1 != etm2_st_be &&
				   (d->info.data_addr || d->info.data_value) ?
			   e1_ph_data : e1_ph_branch;
}

static void data_start(struct etm2_pkt_decoder *d, unsigned kind)
{
	struct etm2_data *dd = &d->cur.u.data;

	d->cur.type = etm2_pkt_normal_data;
	d->cur.c_bit = kind == etm2_st_bd; /* the branch address follows */
	dd->a_bit = 1;
	dd->has_addr = d->info.data_addr;
	dd->has_value = d->info.data_value;
	/* 4 bytes, least-significant first (ASSUMED, docs/etmv2.md 7b) */
	dd->value_bytes = dd->has_value ? 4 : 0;
	d->need = dd->value_bytes;
	d->field_i = 0;
	d->phase = dd->has_addr ? e1_ph_daddr : e1_ph_value;
}

static void data_done(struct etm2_pkt_decoder *d, unsigned kind)
{
	emit(d, kind == etm2_st_id);
	d->phase = e1_ph_branch;
}

/* Branch address of @n bytes (Q§5.5.4): A[6:0], A[13:7], A[20:14],
 * A[27:21], then A[31:28] with the reason in [6:4] and J in [7]; merged
 * into the last one; bit 0 = Thumb (ASSUMED, OpenOCD). */
static void branch_done(struct etm2_pkt_decoder *d)
{
	struct etm2_branch *br = &d->cur.u.branch;
	const uint8_t *b = d->cur.raw;
	unsigned n = d->cur.size, bits = 7 * n;
	uint32_t v = 0, mask, ref, full;
	int first = d->state == e2_syncing;

	for (unsigned i = 0; i < n && i < 4; i++)
		v |= (uint32_t)(b[i] & 0x7f) << (7 * i);
	if (n == 5) {
		v |= (uint32_t)(b[4] & 0xf) << 28;
		bits = 32;
		br->has_reason = 1;
		br->reason = (b[4] >> 4) & 7;
		if (b[4] & 0x80) {
			error_here(d, "J bit set: Jazelle state is not covered");
			return;
		}
		if (br->reason > etm1_reason_periodic) {
			error_here(d, "reserved ETMv1 reason code (5 to 7)");
			return;
		}
	}
	if (first && (n != 5 || br->reason == 0)) {
		/* no full address with a reason: not a sync point */
		error_here(d, "no full branch address to sync at");
		return;
	}
	mask = bits >= 32 ? 0xffffffffu : (1u << bits) - 1;
	ref = d->br_addr | (d->br_isa == etmkit_isa_thumb);
	full = (ref & ~mask) | (v & mask);
	br->isa = (full & 1) ? etmkit_isa_thumb : etmkit_isa_arm;
	br->addr = full & (br->isa == etmkit_isa_thumb ? ~1u : ~3u);
	br->addr_bits = (uint8_t)bits;
	br->addr_bytes = (uint8_t)n;
	br->isa_change = !first && br->isa != d->br_isa;
	br->first = (uint8_t)first;
	d->br_addr = br->addr;
	d->br_isa = br->isa;
	if (first)
		etm2_sync_confirm(d);
	if (n == 5 && br->reason && d->info.context_id_bytes) {
		/* the context ID follows (Q§5.6.3) */
		d->cur.c_bit = 1;
		emit(d, 0);
		d->phase = e1_ph_cid;
		return;
	}
	emit(d, 1);
}

void etm1_parse_byte(struct etm2_pkt_decoder *d, uint8_t b, uint64_t out,
		     int sync)
{
	unsigned kind = d->slots[d->slot_head & (ETM2_RING - 1)].v1;

	if (d->v1_new) {
		uint64_t cyc = d->slots[d->slot_head & (ETM2_RING - 1)].cycle;

		d->v1_new = 0;
		memset(&d->cur, 0, sizeof(d->cur));
		d->cur.cycle = cyc;
		d->cur.out_cycle = out;
		if (d->phase == e1_ph_data)
			data_start(d, kind);
		else if (d->phase == e1_ph_cid) {
			d->cur.type = etm2_pkt_context_id;
			d->need = d->info.context_id_bytes;
			d->field_i = 0;
		} else {
			d->cur.type = etm2_pkt_branch_address;
		}
		/* TRACESYNC: on a branch address's first byte only */
		if (!sync != (d->phase != e1_ph_branch)) {
			if (d->cur.size < ETM2_PKT_MAX_BYTES)
				d->cur.raw[d->cur.size++] = b;
			error_here(d, sync ? "TRACESYNC on a byte that starts no branch address" :
					     "branch address without TRACESYNC");
			return;
		}
	} else if (sync) {
		if (d->cur.size < ETM2_PKT_MAX_BYTES)
			d->cur.raw[d->cur.size++] = b;
		error_here(d, "TRACESYNC inside a packet");
		return;
	}
	if (d->cur.size < ETM2_PKT_MAX_BYTES)
		d->cur.raw[d->cur.size++] = b;
	switch (d->phase) {
	case e1_ph_daddr:
		if (!etm2_data_addr_byte(d, b))
			return;
		d->phase = e1_ph_value;
		if (d->need == 0)
			data_done(d, kind);
		return;
	case e1_ph_value:
		d->cur.u.data.value |= (uint32_t)b << (8 * d->field_i++);
		if (--d->need == 0)
			data_done(d, kind);
		return;
	case e1_ph_branch:
		if ((b & 0x80) && d->cur.size < 5)
			return;
		branch_done(d);
		return;
	case e1_ph_cid:
		d->cur.u.context_id |= (uint32_t)b << (8 * d->field_i++);
		if (--d->need == 0)
			emit(d, 1);
		return;
	default:
		return;
	}
}
