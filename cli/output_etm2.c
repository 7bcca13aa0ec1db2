/* etmkit CLI: ETMv2 / ETMv1 packet records as text lines and as JSON
 * Lines (docs/json.md "ETMv2 packets"; docs/schema/packets-etmv2.schema.json).
 * A record's offset is its cycle index (docs/etmv2.md 1): the status's
 * cycle, or a run's first; packets and TFOs also give out_cycle, the cycle
 * that carried their first byte. Runs (unsynced, wait) count cycles, not
 * bytes. */
#include <string.h>

#include "cli.h"
#include "outbuf.h"
#include "packet_out.h"

static const char *isa(unsigned v)
{
	return etmkit_isa_name((enum etmkit_isa)v);
}

/* A record carrying FIFO bytes (out_cycle is meaningful). */
static int no_bytes(const struct etm2_packet *p);

static int has_bytes(const struct etm2_packet *p)
{
	return !no_bytes(p);
}

/* A record of cycles only: a run, a status, a trigger. */
static int no_bytes(const struct etm2_packet *p)
{
	return p->type != etm2_pkt_tfo && p->type < etm2_pkt_branch_address;
}

static int is_run(const struct etm2_packet *p)
{
	return p->type == etm2_pkt_unsynced || p->type == etm2_pkt_wait;
}

static int is_data(const struct etm2_packet *p)
{
	return p->type == etm2_pkt_normal_data ||
	       p->type == etm2_pkt_value_not_traced ||
	       p->type == etm2_pkt_load_miss ||
	       p->type == etm2_pkt_load_miss_data;
}

/* The frame of an ETMv2 record (cli/packet_out.h): runs keep no bytes. */
static struct cli_packet_rec etm2_rec(const struct etm2_packet *p)
{
	return (struct cli_packet_rec){
		.offset = p->cycle,
		.type = etm2_pkt_type_name(p->type),
		.raw = p->raw, .size = p->size,
		.length = no_bytes(p) ? p->size : p->length,
		.error = p->error, .why = p->why,
	};
}

/* ---- Text ------------------------------------------------------------------ */

/* A run's length: " N cycles". */
static void text_cycles(struct cli_out *o, uint32_t n)
{
	t_dec(o, " ", n);
	if (n == 1)
		cli_out_lit(o, " cycle");
	else
		cli_out_lit(o, " cycles");
}

static void text_tfo(struct cli_out *o, const struct etm2_tfo *t)
{
	t_dec(o, " offset=", t->offset);
	t_str(o, " reason=", etm2_reason_name(t->reason));
	t_hex(o, " addr=0x", t->addr, 8);
	t_str(o, " isa=", isa(t->isa));
	if (t->lsip) {
		t_hex(o, " lsip next=0x", t->next_addr, 8);
		t_str(o, " next_isa=", isa(t->next_isa));
	}
	if (t->context_id_bytes)
		t_hex(o, " context_id=0x", t->context_id, 0);
	if (t->first)
		cli_out_lit(o, " first");
}

static void text_data(struct cli_out *o, const struct etm2_packet *p)
{
	const struct etm2_data *d = &p->u.data;

	if (d->a_bit)
		cli_out_lit(o, " a");
	if (p->type == etm2_pkt_load_miss || p->type == etm2_pkt_load_miss_data)
		t_dec(o, " tag=", d->tag);
	if (d->has_addr) {
		t_hex(o, " data_addr=0x", d->addr, 8);
		if (d->addr_partial)
			cli_out_lit(o, " partial");
	}
	if (d->has_value) {
		t_hex(o, " value=0x", d->value, 0);
		t_dec(o, " size=", d->value_bytes);
	}
}

static void text_fields(struct cli_out *o, const struct etm2_packet *p)
{
	switch (p->type) {
	case etm2_pkt_unsynced:
		text_cycles(o, p->length);
		return;
	case etm2_pkt_wait:
		text_cycles(o, p->length);
		t_dec(o, " wt=", p->u.wait.wt);
		t_dec(o, " td=", p->u.wait.td);
		return;
	case etm2_pkt_status:
		t_str(o, " ", etm2_status_name(p->status));
		return;
	case etm2_pkt_trigger:
		t_str(o, " replaced=", etm2_status_name(p->status));
		return;
	case etm2_pkt_tfo:
		text_tfo(o, &p->u.tfo);
		break;
	case etm2_pkt_branch_address:
		t_hex(o, " addr=0x", p->u.branch.addr, 8);
		t_dec(o, " bits=", p->u.branch.addr_bits);
		if (p->u.branch.isa_change)
			t_str(o, " isa=", isa(p->u.branch.isa));
		break;
	case etm2_pkt_context_id:
		t_hex(o, " context_id=0x", p->u.context_id, 0);
		break;
	default:
		if (is_data(p))
			text_data(o, p);
		break;
	}
	if (has_bytes(p))
		t_dec(o, " out=", p->out_cycle);
}

void cli_print_etm2_text(struct cli_out *o, uint8_t id,
			 const struct etm2_packet *p)
{
	struct cli_packet_rec r = etm2_rec(p);

	/* Cycle records (runs, statuses, triggers) say what they are even
	 * with an error; a packet's fields are not shown then. */
	if (cli_packet_text_begin(o, id, &r) || no_bytes(p))
		text_fields(o, p);
	cli_packet_text_end(o, &r);
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_tfo(struct cli_out *o, const struct etm2_tfo *t)
{
	j_dec(o, "", "tfo_offset", t->offset);
	j_str(o, "", "reason", etm2_reason_name(t->reason));
	j_hex(o, "", "addr", t->addr);
	j_str(o, "", "isa", isa(t->isa));
	if (t->lsip) {
		j_true(o, "", "lsip");
		j_hex(o, "", "next_addr", t->next_addr);
		j_str(o, "", "next_isa", isa(t->next_isa));
	}
	if (t->context_id_bytes)
		j_hex(o, "", "context_id", t->context_id);
	if (t->first)
		j_true(o, "", "first");
}

static void json_data(struct cli_out *o, const struct etm2_packet *p)
{
	const struct etm2_data *d = &p->u.data;

	if (d->a_bit)
		j_true(o, "", "a");
	if (p->type == etm2_pkt_load_miss || p->type == etm2_pkt_load_miss_data)
		j_dec(o, "", "tag", d->tag);
	if (d->has_addr) {
		j_hex(o, "", "data_addr", d->addr);
		if (d->addr_partial)
			j_true(o, "", "partial");
	}
	if (d->has_value) {
		j_hex(o, "", "value", d->value);
		j_dec(o, "", "size", d->value_bytes);
	}
}

static void json_fields(struct cli_out *o, const struct etm2_packet *p)
{
	switch (p->type) {
	case etm2_pkt_wait:
		j_dec(o, "", "wt", p->u.wait.wt);
		j_dec(o, "", "td", p->u.wait.td);
		break;
	case etm2_pkt_status:
	case etm2_pkt_trigger:
		j_str(o, "", "status", etm2_status_name(p->status));
		break;
	case etm2_pkt_tfo:
		json_tfo(o, &p->u.tfo);
		break;
	case etm2_pkt_branch_address:
		j_hex(o, "", "addr", p->u.branch.addr);
		j_dec(o, "", "addr_bits", p->u.branch.addr_bits);
		j_str(o, "", "isa", isa(p->u.branch.isa));
		if (p->u.branch.isa_change)
			j_true(o, "", "isa_change");
		break;
	case etm2_pkt_context_id:
		j_hex(o, "", "context_id", p->u.context_id);
		break;
	default:
		if (is_data(p))
			json_data(o, p);
		break;
	}
}

/* {"offset":CYCLE,"id":N,"type":"T", then "length" (runs: cycles),
 * "bytes" and "out_cycle" (records with FIFO bytes), the error, the
 * fields. */
void cli_print_etm2_json(struct cli_out *o, uint8_t id,
			 const struct etm2_packet *p)
{
	cli_packet_json_start(o, p->cycle, id, etm2_pkt_type_name(p->type));
	if (is_run(p))
		j_dec(o, "", "length", p->length);
	if (has_bytes(p)) {
		cli_out_lit(o, ",\"bytes\":\"");
		cli_packet_bytes(o, p->raw, p->size, p->length, 0, p->error != 0, "");
		cli_out_char(o, '"');
		j_dec(o, "", "out_cycle", p->out_cycle);
	}
	if (p->error)
		cli_packet_json_error(o, p->why, p->error);
	if (!p->error || no_bytes(p))
		json_fields(o, p);
	cli_packet_json_end(o);
}
