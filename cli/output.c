/* etmkit CLI: ETMv3 packets as text lines and as JSON Lines. */
#include <inttypes.h>
#include <string.h>

#include "cli.h"

/* The packet's bytes; an A-sync is its zeros and 0x80 however long. */
static void put_hex(FILE *f, const struct etm3_packet *p, const char *sep)
{
	if (p->type == etm3_pkt_a_sync && p->length > p->size) {
		for (uint32_t i = 0; i < p->length; i++)
			fprintf(f, "%s%02x", i ? sep : "",
				(!p->error && i + 1 == p->length) ? 0x80 : 0);
		return;
	}
	for (unsigned i = 0; i < p->size; i++)
		fprintf(f, "%s%02x", i ? sep : "", p->raw[i]);
	if (p->length > p->size)
		fprintf(f, "%s...", sep);
}

static const char *isa(unsigned v)
{
	return etmkit_isa_name((enum etmkit_isa)v);
}

/* ---- Text ---------------------------------------------------------------- */

static void text_branch(FILE *f, const struct etm3_branch *b, int m_profile)
{
	fprintf(f, " addr=0x%08" PRIx32 " bits=%u", b->addr, b->addr_bits);
	if (b->partial)
		fprintf(f, " partial");
	if (b->isa_change || b->exc_bytes)
		fprintf(f, " isa=%s", isa(b->isa));
	if (b->exc_bytes)
		fprintf(f, " exception=%u(%s) cancel=%u", b->exception,
			etm3_exception_name(b->exception, m_profile), b->cancel);
	if (b->exc_in_addr)
		fprintf(f, " legacy_exception=%u(%s) cancel=%u",
			b->legacy_exception,
			etm3_legacy_exception_name(b->legacy_exception), b->cancel);
	if (b->exc_bytes)
		fprintf(f, " ns=%u hyp=%u altisa=%u", b->ns, b->hyp, b->altisa);
	if (b->has_resume)
		fprintf(f, " resume=%u", b->resume);
}

static void text_isync(FILE *f, const struct etm3_packet *p, int m_profile)
{
	const struct etm3_isync *s = &p->u.isync;

	fprintf(f, " reason=%s", etm3_reason_name(s->reason));
	if (!s->data_only)
		fprintf(f, " addr=0x%08" PRIx32 " isa=%s", s->addr, isa(s->isa));
	fprintf(f, " ns=%u hyp=%u", s->ns, s->hyp);
	if (s->context_id_bytes)
		fprintf(f, " context_id=0x%" PRIx32, s->context_id);
	if (p->type == etm3_pkt_i_sync_cycle)
		fprintf(f, " cycles=%" PRIu32, s->cycles);
	if (s->lsip) {
		fprintf(f, " lsip next:");
		text_branch(f, &s->lsip_next, m_profile);
	}
	if (s->data_only)
		fprintf(f, " data-only");
}

static void text_data(FILE *f, const struct etm3_packet *p)
{
	const struct etm3_data *d = &p->u.data;

	if (p->type == etm3_pkt_ooo_placeholder || p->type == etm3_pkt_ooo_data)
		fprintf(f, " tag=%u", d->tag);
	if (d->has_addr)
		fprintf(f, " data_addr=0x%08" PRIx32 " be=%u", d->addr, d->be);
	if (d->has_value || d->size)
		fprintf(f, " value=0x%" PRIx32 " size=%u", d->value, d->size);
	if (p->type == etm3_pkt_ooo_data) {
		if (!d->ooo_match)
			fprintf(f, " unexpected(ignored)");
		else
			fprintf(f, " placeholder@%" PRIu64, d->placeholder_offset);
		if (d->pair >= 0)
			fprintf(f, " pair=%d", d->pair);
	}
}

static void text_fields(FILE *f, const struct etm3_packet *p, int m_profile)
{
	char atoms[17];

	switch (p->type) {
	case etm3_pkt_p_header:
		fprintf(f, " %s instr=%u cycles=%u", etm3_atoms_string(&p->u.atoms, atoms),
			p->u.atoms.instr, p->u.atoms.cycles);
		break;
	case etm3_pkt_cycle_count:
		fprintf(f, " cycles=%" PRIu32, p->u.cycles);
		break;
	case etm3_pkt_i_sync:
	case etm3_pkt_i_sync_cycle:
		text_isync(f, p, m_profile);
		break;
	case etm3_pkt_branch_address:
		text_branch(f, &p->u.branch, m_profile);
		break;
	case etm3_pkt_context_id:
		fprintf(f, " context_id=0x%" PRIx32, p->u.context_id);
		break;
	case etm3_pkt_vmid:
		fprintf(f, " vmid=0x%02x", p->u.vmid);
		break;
	case etm3_pkt_timestamp:
		fprintf(f, " timestamp=0x%" PRIx64 " (%" PRIu64 ") bits=%u%s",
			p->u.timestamp.value, p->u.timestamp.value,
			p->u.timestamp.bits,
			p->u.timestamp.clock_change ? " clock_change" : "");
		break;
	case etm3_pkt_normal_data:
	case etm3_pkt_ooo_placeholder:
	case etm3_pkt_ooo_data:
	case etm3_pkt_value_not_traced:
		text_data(f, p);
		break;
	case etm3_pkt_unsynced:
		fprintf(f, " %" PRIu32 " bytes", p->length);
		break;
	default:
		break;
	}
}

void cli_print_etm3_text(FILE *f, uint8_t id, const struct etm3_packet *p,
			 int m_profile)
{
	fprintf(f, "%10" PRIu64 "  %02x  ", p->offset, id);
	put_hex(f, p, " ");
	fprintf(f, "  %s", etm3_pkt_type_name((enum etm3_pkt_type)p->type));
	if (!p->error || p->type == etm3_pkt_unsynced)
		text_fields(f, p, m_profile);
	if (p->error)
		fprintf(f, "  ERROR: %s", p->why ? p->why : etmkit_errstr(p->error));
	fputc('\n', f);
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_branch(FILE *f, const struct etm3_branch *b, const char *pre)
{
	fprintf(f, ",\"%saddr\":%" PRIu32 ",\"%saddr_bits\":%u,\"%sisa\":\"%s\"",
		pre, b->addr, pre, b->addr_bits, pre, isa(b->isa));
	if (b->partial)
		fprintf(f, ",\"%spartial\":true", pre);
	if (b->exc_bytes)
		fprintf(f, ",\"%sexception\":%u,\"%scancel\":%u", pre, b->exception,
			pre, b->cancel);
	if (b->exc_in_addr)
		fprintf(f, ",\"%slegacy_exception\":%u,\"%scancel\":%u", pre,
			b->legacy_exception, pre, b->cancel);
	if (b->exc_bytes)
		fprintf(f, ",\"%sns\":%u,\"%shyp\":%u,\"%saltisa\":%u", pre, b->ns,
			pre, b->hyp, pre, b->altisa);
	if (b->has_resume)
		fprintf(f, ",\"%sresume\":%u", pre, b->resume);
}

static void json_isync(FILE *f, const struct etm3_packet *p)
{
	const struct etm3_isync *s = &p->u.isync;

	fprintf(f, ",\"reason\":\"%s\",\"ns\":%u,\"hyp\":%u",
		etm3_reason_name(s->reason), s->ns, s->hyp);
	if (!s->data_only)
		fprintf(f, ",\"addr\":%" PRIu32 ",\"isa\":\"%s\"", s->addr, isa(s->isa));
	else
		fprintf(f, ",\"data_only\":true");
	if (s->context_id_bytes)
		fprintf(f, ",\"context_id\":%" PRIu32, s->context_id);
	if (p->type == etm3_pkt_i_sync_cycle)
		fprintf(f, ",\"cycles\":%" PRIu32, s->cycles);
	if (s->lsip) {
		fprintf(f, ",\"lsip\":true");
		json_branch(f, &s->lsip_next, "next_");
	}
}

static void json_data(FILE *f, const struct etm3_packet *p)
{
	const struct etm3_data *d = &p->u.data;

	if (p->type == etm3_pkt_ooo_placeholder || p->type == etm3_pkt_ooo_data)
		fprintf(f, ",\"tag\":%u", d->tag);
	if (d->has_addr)
		fprintf(f, ",\"data_addr\":%" PRIu32 ",\"be\":%u", d->addr, d->be);
	if (d->has_value || d->size)
		fprintf(f, ",\"value\":%" PRIu32 ",\"size\":%u", d->value, d->size);
	if (p->type == etm3_pkt_ooo_data) {
		fprintf(f, ",\"match\":%s", d->ooo_match ? "true" : "false");
		if (d->ooo_match)
			fprintf(f, ",\"placeholder_offset\":%" PRIu64,
				d->placeholder_offset);
		if (d->pair >= 0)
			fprintf(f, ",\"pair\":%d", d->pair);
	}
}

static void json_fields(FILE *f, const struct etm3_packet *p)
{
	char atoms[17];

	switch (p->type) {
	case etm3_pkt_p_header:
		fprintf(f, ",\"atoms\":\"%s\",\"instr\":%u,\"cycles\":%u,\"format\":%u",
			etm3_atoms_string(&p->u.atoms, atoms), p->u.atoms.instr,
			p->u.atoms.cycles, p->u.atoms.format);
		break;
	case etm3_pkt_cycle_count:
		fprintf(f, ",\"cycles\":%" PRIu32, p->u.cycles);
		break;
	case etm3_pkt_i_sync:
	case etm3_pkt_i_sync_cycle:
		json_isync(f, p);
		break;
	case etm3_pkt_branch_address:
		json_branch(f, &p->u.branch, "");
		break;
	case etm3_pkt_context_id:
		fprintf(f, ",\"context_id\":%" PRIu32, p->u.context_id);
		break;
	case etm3_pkt_vmid:
		fprintf(f, ",\"vmid\":%u", p->u.vmid);
		break;
	case etm3_pkt_timestamp:
		fprintf(f, ",\"timestamp\":%" PRIu64 ",\"timestamp_bits\":%u,"
			"\"clock_change\":%u", p->u.timestamp.value,
			p->u.timestamp.bits, p->u.timestamp.clock_change);
		break;
	case etm3_pkt_normal_data:
	case etm3_pkt_ooo_placeholder:
	case etm3_pkt_ooo_data:
	case etm3_pkt_value_not_traced:
		json_data(f, p);
		break;
	default:
		break;
	}
}

void cli_print_etm3_json(FILE *f, uint8_t id, const struct etm3_packet *p,
			 int m_profile)
{
	(void)m_profile;
	fprintf(f, "{\"offset\":%" PRIu64 ",\"id\":%u,\"type\":\"%s\"", p->offset,
		id, etm3_pkt_type_name((enum etm3_pkt_type)p->type));
	if (p->type == etm3_pkt_unsynced) {
		fprintf(f, ",\"length\":%" PRIu32 "}\n", p->length);
		return;
	}
	fputs(",\"bytes\":\"", f);
	put_hex(f, p, "");
	fputc('"', f);
	if (p->error)
		fprintf(f, ",\"error\":\"%s\"", p->why ? p->why : etmkit_errstr(p->error));
	else
		json_fields(f, p);
	fputs("}\n", f);
}
