/* etmkit CLI: PTM (PFTv1.0, PFTv1.1) packets as text lines and as JSON
 * Lines, in the ETMv3 listing's words where the meaning is the same
 * (cli/output.c; docs/json.md "PTM packets"). */
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "outbuf.h"
#include "packet_out.h"

static const char *isa(unsigned v)
{
	return etmkit_isa_name((enum etmkit_isa)v);
}

/* ---- Text ---------------------------------------------------------------- */

/* A branch address or waypoint update (IHI 0035B 4.5.4, 4.5): the ISA
 * when a 5th address byte or exception byte said it, as for ETMv3. A
 * waypoint update (@wp) has no exception information: its one byte after
 * a 5th address byte is the AltIS byte (digest ptm.md 4.5). */
static void text_branch(struct cli_out *o, const struct ptm_branch *b, int wp)
{
	t_hex(o, " addr=0x", b->addr, 8);
	t_dec(o, " bits=", b->addr_bits);
	if (b->partial)
		cli_out_lit(o, " partial");
	if (b->isa_change || b->exc_bytes)
		t_str(o, " isa=", isa(b->isa));
	if (wp && b->exc_bytes) {
		t_dec(o, " altisa=", b->altis);
	} else if (b->exc_bytes) {
		t_dec(o, " exception=", b->exception);
		cli_out_char(o, '(');
		cli_out_str(o, ptm_exception_name(b->exception));
		cli_out_char(o, ')');
		t_dec(o, " ns=", b->ns);
		t_dec(o, " hyp=", b->hyp);
		t_dec(o, " altisa=", b->altis);
	}
	if (b->has_cycles)
		t_dec(o, " cycles=", b->cycles);
}

static void text_isync(struct cli_out *o, const struct ptm_isync *s)
{
	t_str(o, " reason=", ptm_reason_name(s->reason));
	t_hex(o, " addr=0x", s->addr, 8);
	t_str(o, " isa=", isa(s->isa));
	t_dec(o, " ns=", s->ns);
	t_dec(o, " hyp=", s->hyp);
	if (s->context_id_bytes)
		t_hex(o, " context_id=0x", s->context_id, 0);
	if (s->has_cycles)
		t_dec(o, " cycles=", s->cycles);
}

static void text_timestamp(struct cli_out *o, const struct ptm_timestamp *t)
{
	t_hex(o, " timestamp=0x", t->value, 0);
	t_dec(o, " (", t->value);
	t_dec(o, ") bits=", t->bits);
	if (t->clock_change)
		cli_out_lit(o, " clock_change");
	if (t->has_cycles)
		t_dec(o, " cycles=", t->cycles);
}

static void text_fields(struct cli_out *o, const struct ptm_packet *p)
{
	char atoms[6];

	switch (p->type) {
	case ptm_pkt_atom:
		cli_out_char(o, ' ');
		cli_out_str(o, ptm_atoms_string(&p->u.atoms, atoms));
		if (p->u.atoms.has_cycles)
			t_dec(o, " cycles=", p->u.atoms.cycles);
		break;
	case ptm_pkt_i_sync:
		text_isync(o, &p->u.isync);
		break;
	case ptm_pkt_branch_address:
	case ptm_pkt_waypoint_update:
		text_branch(o, &p->u.branch,
			    p->type == ptm_pkt_waypoint_update);
		break;
	case ptm_pkt_context_id:
		t_hex(o, " context_id=0x", p->u.context_id, 0);
		break;
	case ptm_pkt_vmid:
		t_hex(o, " vmid=0x", p->u.vmid, 2);
		break;
	case ptm_pkt_timestamp:
		text_timestamp(o, &p->u.timestamp);
		break;
	default:
		break;
	}
}

/* The frame of a PTM record (cli/packet_out.h). */
static struct cli_packet_rec ptm_rec(const struct ptm_packet *p)
{
	return (struct cli_packet_rec){
		.offset = p->offset,
		.type = ptm_pkt_type_name((enum ptm_pkt_type)p->type),
		.raw = p->raw, .size = p->size, .length = p->length,
		.unsynced = p->type == ptm_pkt_unsynced,
		.a_sync = p->type == ptm_pkt_a_sync,
		.error = p->error, .why = p->why,
	};
}

void cli_print_ptm_text(struct cli_out *o, uint8_t id,
			const struct ptm_packet *p)
{
	struct cli_packet_rec r = ptm_rec(p);

	if (cli_packet_text_begin(o, id, &r))
		text_fields(o, p);
	cli_packet_text_end(o, &r);
}

/* ---- JSON ---------------------------------------------------------------- */

/* Addresses, context IDs, VMIDs and timestamps as "0x..." strings, as for
 * ETMv3 (docs/json.md). */
static void json_branch(struct cli_out *o, const struct ptm_branch *b, int wp)
{
	j_hex(o, "", "addr", b->addr);
	j_dec(o, "", "addr_bits", b->addr_bits);
	j_str(o, "", "isa", isa(b->isa));
	if (b->partial)
		j_true(o, "", "partial");
	if (wp && b->exc_bytes) {
		j_dec(o, "", "altisa", b->altis);
	} else if (b->exc_bytes) {
		j_dec(o, "", "exception", b->exception);
		j_dec(o, "", "ns", b->ns);
		j_dec(o, "", "hyp", b->hyp);
		j_dec(o, "", "altisa", b->altis);
	}
	if (b->has_cycles)
		j_dec(o, "", "cycles", b->cycles);
}

static void json_isync(struct cli_out *o, const struct ptm_isync *s)
{
	j_str(o, "", "reason", ptm_reason_name(s->reason));
	j_dec(o, "", "ns", s->ns);
	j_dec(o, "", "hyp", s->hyp);
	j_hex(o, "", "addr", s->addr);
	j_str(o, "", "isa", isa(s->isa));
	if (s->context_id_bytes)
		j_hex(o, "", "context_id", s->context_id);
	if (s->has_cycles)
		j_dec(o, "", "cycles", s->cycles);
}

static void json_fields(struct cli_out *o, const struct ptm_packet *p)
{
	char atoms[6];

	switch (p->type) {
	case ptm_pkt_atom:
		j_str(o, "", "atoms", ptm_atoms_string(&p->u.atoms, atoms));
		if (p->u.atoms.has_cycles)
			j_dec(o, "", "cycles", p->u.atoms.cycles);
		break;
	case ptm_pkt_i_sync:
		json_isync(o, &p->u.isync);
		break;
	case ptm_pkt_branch_address:
	case ptm_pkt_waypoint_update:
		json_branch(o, &p->u.branch,
			    p->type == ptm_pkt_waypoint_update);
		break;
	case ptm_pkt_context_id:
		j_hex(o, "", "context_id", p->u.context_id);
		break;
	case ptm_pkt_vmid:
		j_hex(o, "", "vmid", p->u.vmid);
		break;
	case ptm_pkt_timestamp:
		j_hex(o, "", "timestamp", p->u.timestamp.value);
		j_dec(o, "", "timestamp_bits", p->u.timestamp.bits);
		j_dec(o, "", "clock_change", p->u.timestamp.clock_change);
		if (p->u.timestamp.has_cycles)
			j_dec(o, "", "cycles", p->u.timestamp.cycles);
		break;
	default:
		break;
	}
}

void cli_print_ptm_json(struct cli_out *o, uint8_t id,
			const struct ptm_packet *p)
{
	struct cli_packet_rec r = ptm_rec(p);

	if (cli_packet_json_begin(o, id, &r))
		json_fields(o, p);
	cli_packet_json_end(o);
}
