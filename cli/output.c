/* etmkit CLI: ETMv3, ETMv4 and ETE packets as text lines and as JSON Lines. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

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

void cli_print_packet_header(FILE *f)
{
	fputs("#   offset  id  bytes  type fields\n", f);
}

int cli_header_wanted(FILE *f, int on, int off)
{
	if (off)
		return 0;
	return on || isatty(fileno(f));
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

/* Addresses, context IDs, VMIDs, timestamps and data values are written as
 * "0x..." strings (docs/json.md): JSON parsers that read numbers as doubles
 * (JavaScript, jq) would round 64-bit ones silently. Counts stay numbers. */

static void json_branch(FILE *f, const struct etm3_branch *b, const char *pre)
{
	fprintf(f, ",\"%saddr\":\"0x%" PRIx32 "\",\"%saddr_bits\":%u,\"%sisa\":\"%s\"",
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
		fprintf(f, ",\"addr\":\"0x%" PRIx32 "\",\"isa\":\"%s\"", s->addr,
			isa(s->isa));
	else
		fprintf(f, ",\"data_only\":true");
	if (s->context_id_bytes)
		fprintf(f, ",\"context_id\":\"0x%" PRIx32 "\"", s->context_id);
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
		fprintf(f, ",\"data_addr\":\"0x%" PRIx32 "\",\"be\":%u", d->addr,
			d->be);
	if (d->has_value || d->size)
		fprintf(f, ",\"value\":\"0x%" PRIx32 "\",\"size\":%u", d->value,
			d->size);
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
		fprintf(f, ",\"context_id\":\"0x%" PRIx32 "\"", p->u.context_id);
		break;
	case etm3_pkt_vmid:
		fprintf(f, ",\"vmid\":\"0x%x\"", p->u.vmid);
		break;
	case etm3_pkt_timestamp:
		fprintf(f, ",\"timestamp\":\"0x%" PRIx64 "\",\"timestamp_bits\":%u,"
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

/* ==== ETMv4 and ETE ======================================================== */

static const char *etm4_exc_addr_name(unsigned v)
{
	switch (v) {
	case etm4_exc_addr_follows:
		return "follows";
	case etm4_exc_addr_target:
		return "prev_target";
	default:
		return "reserved";
	}
}

static const char *etm4_addr_form_name(unsigned form)
{
	static const char *const names[] = { "exact", "short", "long32",
					      "long64" };

	return form < 4 ? names[form] : "?";
}

/* Atoms @a as "ENN...", oldest first; @buf holds 25 bytes. */
static const char *etm4_atoms_string(const struct etm4_atoms *a, char *buf)
{
	unsigned n = a->count <= 24 ? a->count : 24;

	for (unsigned i = 0; i < n; i++)
		buf[i] = (a->bits >> i) & 1 ? 'E' : 'N';
	buf[n] = '\0';
	return buf;
}

/* The packet's bytes; an A-sync longer than kept is zeros, then 0x80. */
static void etm4_put_hex(FILE *f, const struct etm4_packet *p, const char *sep)
{
	if (p->type == etm4_pkt_a_sync && p->length > p->size) {
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

/* ---- Text ---------------------------------------------------------------- */

static void text4_addr(FILE *f, const struct etm4_address *a)
{
	fprintf(f, " addr=0x%" PRIx64 " is=%u %s", a->addr, a->is,
		etm4_addr_form_name(a->form));
	if (a->form == etm4_addr_exact)
		fprintf(f, " hist=%u", a->hist);
	else
		fprintf(f, " bits=%u", a->bits);
}

static void text4_context(FILE *f, const struct etm4_context *c)
{
	if (!c->updated) {
		fputs(" unchanged", f);
		return;
	}
	fprintf(f, " el=%u sf=%u ns=%u nse=%u", c->el, c->sf, c->ns, c->nse);
	if (c->has_vmid)
		fprintf(f, " vmid=0x%" PRIx32, c->vmid);
	if (c->has_cid)
		fprintf(f, " context_id=0x%" PRIx32, c->context_id);
}

static void text4_tinfo(FILE *f, const struct etm4_trace_info *t)
{
	fprintf(f, " plctl=0x%" PRIx32, t->plctl);
	if (t->plctl & ETM4_TINFO_INFO)
		fprintf(f, " info=0x%" PRIx32 " cc_enabled=%u", t->info,
			(unsigned)(t->info & 1));
	if (t->plctl & ETM4_TINFO_KEY)
		fprintf(f, " key=0x%" PRIx32, t->key);
	if (t->plctl & ETM4_TINFO_SPEC)
		fprintf(f, " spec=%" PRIu32, t->spec);
	if (t->plctl & ETM4_TINFO_CYCT)
		fprintf(f, " cyct=0x%" PRIx32, t->cyct);
	if (t->plctl & ETM4_TINFO_WNDW)
		fprintf(f, " wndw=0x%" PRIx32, t->wndw);
}

static void text4_spec(FILE *f, const struct etm4_packet *p)
{
	const struct etm4_spec *s = &p->u.spec;
	char atoms[25];

	if (s->atoms.count)
		fprintf(f, " atoms=%s", etm4_atoms_string(&s->atoms, atoms));
	if (p->type == etm4_pkt_commit)
		fprintf(f, " commit=%" PRIu32, s->count);
	if (p->type == etm4_pkt_cancel)
		fprintf(f, " cancel=%" PRIu32 " format=%u", s->count, s->format);
	if (p->type == etm4_pkt_cancel && s->mispredict)
		fputs(" mispredict", f);
}

static void text4_q(FILE *f, const struct etm4_q *q)
{
	fprintf(f, " qtype=0x%x", q->qtype);
	if (q->has_addr)
		text4_addr(f, &q->addr);
	if (q->has_count)
		fprintf(f, " count=%" PRIu32, q->count);
	if (q->addr_follows)
		fputs(" addr_follows", f);
}

static void text4_cond(FILE *f, const struct etm4_cond *c)
{
	fprintf(f, " format=%u key=0x%" PRIx32 " token=0x%" PRIx32
		" num=%u flags=0x%x result=0x%x", c->format, c->key, c->token,
		c->num, c->flags, c->result);
}

static void text4_fields(FILE *f, const struct etm4_packet *p, int ete)
{
	char atoms[25];

	switch (p->type) {
	case etm4_pkt_trace_info:
		text4_tinfo(f, &p->u.tinfo);
		break;
	case etm4_pkt_timestamp:
		fprintf(f, " timestamp=0x%" PRIx64 " (%" PRIu64 ") bits=%u",
			p->u.ts.value, p->u.ts.value, p->u.ts.bits);
		if (p->u.ts.has_cc)
			fprintf(f, " cycles=%" PRIu32, p->u.ts.cc);
		break;
	case etm4_pkt_exception:
		fprintf(f, " exception=0x%x(%s) addr_interp=%s",
			p->u.exception.type,
			etm4_exception_name(p->u.exception.type, ete),
			etm4_exc_addr_name(p->u.exception.addr_interp));
		if (p->u.exception.pending)
			fputs(" pending", f);
		break;
	case etm4_pkt_cycle_count:
		if (p->u.cc.unknown)
			fputs(" cycles=unknown", f);
		else
			fprintf(f, " cycles=%" PRIu32, p->u.cc.count);
		if (p->u.cc.has_commit)
			fprintf(f, " commit=%" PRIu32, p->u.cc.commit);
		fprintf(f, " format=%u", p->u.cc.format);
		break;
	case etm4_pkt_commit:
	case etm4_pkt_cancel:
	case etm4_pkt_mispredict:
		text4_spec(f, p);
		break;
	case etm4_pkt_atom:
		fprintf(f, " %s format=%u", etm4_atoms_string(&p->u.atoms, atoms),
			p->u.atoms.format);
		break;
	case etm4_pkt_q:
		text4_q(f, &p->u.q);
		break;
	case etm4_pkt_context:
		text4_context(f, &p->u.context);
		break;
	case etm4_pkt_address:
	case etm4_pkt_source_address:
		text4_addr(f, &p->u.a.addr);
		break;
	case etm4_pkt_address_context:
		text4_addr(f, &p->u.a.addr);
		text4_context(f, &p->u.a.context);
		break;
	case etm4_pkt_event:
		fprintf(f, " event=0x%x", p->u.event);
		break;
	case etm4_pkt_instrumentation:
		fprintf(f, " el=%u value=0x%" PRIx64, p->u.ite.el,
			p->u.ite.value);
		break;
	case etm4_pkt_cond_instr:
	case etm4_pkt_cond_result:
	case etm4_pkt_data_sync:
		text4_cond(f, &p->u.cond);
		break;
	case etm4_pkt_unsynced:
		fprintf(f, " %" PRIu32 " bytes", p->length);
		break;
	default:
		break;
	}
}

void cli_print_etm4_text(FILE *f, uint8_t id, const struct etm4_packet *p,
			 int ete)
{
	fprintf(f, "%10" PRIu64 "  %02x  ", p->offset, id);
	etm4_put_hex(f, p, " ");
	fprintf(f, "  %s", etm4_pkt_type_name((enum etm4_pkt_type)p->type));
	if (!p->error || p->type == etm4_pkt_unsynced)
		text4_fields(f, p, ete);
	if (p->error)
		fprintf(f, "  ERROR: %s", p->why ? p->why : etmkit_errstr(p->error));
	fputc('\n', f);
}

/* ---- JSON ---------------------------------------------------------------- */

/* Addresses, context IDs, VMIDs, timestamps and the ITE value as "0x..."
 * strings, as for ETMv3 (docs/json.md). */
static void json4_addr(FILE *f, const struct etm4_address *a)
{
	fprintf(f, ",\"addr\":\"0x%" PRIx64 "\",\"is\":%u,\"form\":\"%s\"",
		a->addr, a->is, etm4_addr_form_name(a->form));
	if (a->form == etm4_addr_exact)
		fprintf(f, ",\"hist\":%u", a->hist);
	else
		fprintf(f, ",\"addr_bits\":%u", a->bits);
}

static void json4_context(FILE *f, const struct etm4_context *c)
{
	if (!c->updated) {
		fputs(",\"unchanged\":true", f);
		return;
	}
	fprintf(f, ",\"el\":%u,\"sf\":%u,\"ns\":%u,\"nse\":%u", c->el, c->sf,
		c->ns, c->nse);
	if (c->has_vmid)
		fprintf(f, ",\"vmid\":\"0x%" PRIx32 "\"", c->vmid);
	if (c->has_cid)
		fprintf(f, ",\"context_id\":\"0x%" PRIx32 "\"", c->context_id);
}

static void json4_tinfo(FILE *f, const struct etm4_trace_info *t)
{
	fprintf(f, ",\"plctl\":%" PRIu32, t->plctl);
	if (t->plctl & ETM4_TINFO_INFO)
		fprintf(f, ",\"info\":%" PRIu32 ",\"cc_enabled\":%u", t->info,
			(unsigned)(t->info & 1));
	if (t->plctl & ETM4_TINFO_KEY)
		fprintf(f, ",\"key\":%" PRIu32, t->key);
	if (t->plctl & ETM4_TINFO_SPEC)
		fprintf(f, ",\"spec\":%" PRIu32, t->spec);
	if (t->plctl & ETM4_TINFO_CYCT)
		fprintf(f, ",\"cyct\":%" PRIu32, t->cyct);
	if (t->plctl & ETM4_TINFO_WNDW)
		fprintf(f, ",\"wndw\":%" PRIu32, t->wndw);
}

static void json4_spec(FILE *f, const struct etm4_packet *p)
{
	const struct etm4_spec *s = &p->u.spec;
	char atoms[25];

	if (s->atoms.count)
		fprintf(f, ",\"atoms\":\"%s\"", etm4_atoms_string(&s->atoms, atoms));
	if (p->type == etm4_pkt_commit)
		fprintf(f, ",\"commit\":%" PRIu32, s->count);
	if (p->type == etm4_pkt_cancel)
		fprintf(f, ",\"cancel\":%" PRIu32 ",\"format\":%u", s->count,
			s->format);
	if (p->type == etm4_pkt_cancel)
		fprintf(f, ",\"mispredict\":%s", s->mispredict ? "true" : "false");
}

static void json4_cc(FILE *f, const struct etm4_cc *c)
{
	if (c->unknown)
		fputs(",\"unknown\":true", f);
	else
		fprintf(f, ",\"cycles\":%" PRIu32, c->count);
	if (c->has_commit)
		fprintf(f, ",\"commit\":%" PRIu32, c->commit);
	fprintf(f, ",\"format\":%u", c->format);
}

static void json4_q(FILE *f, const struct etm4_q *q)
{
	fprintf(f, ",\"qtype\":%u", q->qtype);
	if (q->has_addr)
		json4_addr(f, &q->addr);
	if (q->has_count)
		fprintf(f, ",\"count\":%" PRIu32, q->count);
	if (q->addr_follows)
		fputs(",\"addr_follows\":true", f);
}

static void json4_cond(FILE *f, const struct etm4_cond *c)
{
	fprintf(f, ",\"format\":%u,\"key\":%" PRIu32 ",\"token\":%" PRIu32
		",\"num\":%u,\"flags\":%u,\"result\":%u", c->format, c->key,
		c->token, c->num, c->flags, c->result);
}

static void json4_fields(FILE *f, const struct etm4_packet *p, int ete)
{
	char atoms[25];

	switch (p->type) {
	case etm4_pkt_trace_info:
		json4_tinfo(f, &p->u.tinfo);
		break;
	case etm4_pkt_timestamp:
		fprintf(f, ",\"timestamp\":\"0x%" PRIx64 "\",\"timestamp_bits\":%u",
			p->u.ts.value, p->u.ts.bits);
		if (p->u.ts.has_cc)
			fprintf(f, ",\"cycles\":%" PRIu32, p->u.ts.cc);
		break;
	case etm4_pkt_exception:
		fprintf(f, ",\"exception\":%u,\"name\":\"%s\",\"addr_interp\":"
			"\"%s\",\"pending\":%u", p->u.exception.type,
			etm4_exception_name(p->u.exception.type, ete),
			etm4_exc_addr_name(p->u.exception.addr_interp),
			p->u.exception.pending);
		break;
	case etm4_pkt_cycle_count:
		json4_cc(f, &p->u.cc);
		break;
	case etm4_pkt_commit:
	case etm4_pkt_cancel:
	case etm4_pkt_mispredict:
		json4_spec(f, p);
		break;
	case etm4_pkt_atom:
		fprintf(f, ",\"atoms\":\"%s\",\"format\":%u",
			etm4_atoms_string(&p->u.atoms, atoms), p->u.atoms.format);
		break;
	case etm4_pkt_q:
		json4_q(f, &p->u.q);
		break;
	case etm4_pkt_context:
		json4_context(f, &p->u.context);
		break;
	case etm4_pkt_address:
	case etm4_pkt_source_address:
		json4_addr(f, &p->u.a.addr);
		break;
	case etm4_pkt_address_context:
		json4_addr(f, &p->u.a.addr);
		json4_context(f, &p->u.a.context);
		break;
	case etm4_pkt_event:
		fprintf(f, ",\"event\":%u", p->u.event);
		break;
	case etm4_pkt_instrumentation:
		fprintf(f, ",\"el\":%u,\"value\":\"0x%" PRIx64 "\"", p->u.ite.el,
			p->u.ite.value);
		break;
	case etm4_pkt_cond_instr:
	case etm4_pkt_cond_result:
	case etm4_pkt_data_sync:
		json4_cond(f, &p->u.cond);
		break;
	default:
		break;
	}
}

void cli_print_etm4_json(FILE *f, uint8_t id, const struct etm4_packet *p,
			 int ete)
{
	fprintf(f, "{\"offset\":%" PRIu64 ",\"id\":%u,\"type\":\"%s\"", p->offset,
		id, etm4_pkt_type_name((enum etm4_pkt_type)p->type));
	if (p->type == etm4_pkt_unsynced) {
		fprintf(f, ",\"length\":%" PRIu32 "}\n", p->length);
		return;
	}
	fputs(",\"bytes\":\"", f);
	etm4_put_hex(f, p, "");
	fputc('"', f);
	if (p->length > p->size && p->type != etm4_pkt_a_sync)
		fprintf(f, ",\"length\":%" PRIu32, p->length);
	if (p->error)
		fprintf(f, ",\"error\":\"%s\"",
			p->why ? p->why : etmkit_errstr(p->error));
	else
		json4_fields(f, p, ete);
	fputs("}\n", f);
}
