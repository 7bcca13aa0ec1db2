/* etmkit CLI: ETMv3, ETMv4 and ETE packets as text lines and as JSON Lines. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "outbuf.h"
#include "packet_out.h"

void cli_packet_bytes(struct cli_out *o, const uint8_t *raw, unsigned size,
		      uint32_t length, int a_sync, int error, const char *sep)
{
	size_t seplen = strlen(sep);

	if (a_sync && length > size) {
		for (uint32_t i = 0; i < length; i++) {
			if (i)
				cli_out_mem(o, sep, seplen);
			cli_out_hex(o, (!error && i + 1 == length) ? 0x80 : 0,
				    2);
		}
		return;
	}
	for (unsigned i = 0; i < size; i++) {
		if (i)
			cli_out_mem(o, sep, seplen);
		cli_out_hex(o, raw[i], 2);
	}
	if (length > size) {
		cli_out_mem(o, sep, seplen);
		cli_out_mem(o, "...", 3);
	}
}

static const char *isa(unsigned v)
{
	return etmkit_isa_name((enum etmkit_isa)v);
}

void cli_json_key(struct cli_out *o, const char *pre, const char *name,
		  size_t nlen)
{
	cli_out_mem(o, ",\"", 2);
	if (*pre)
		cli_out_str(o, pre);
	cli_out_mem(o, name, nlen);
	cli_out_mem(o, "\":", 2);
}

/* ---- Text ---------------------------------------------------------------- */

static void text_branch(struct cli_out *o, const struct etm3_branch *b,
			int m_profile)
{
	t_hex(o, " addr=0x", b->addr, 8);
	t_dec(o, " bits=", b->addr_bits);
	if (b->partial)
		cli_out_lit(o, " partial");
	if (b->isa_change || b->exc_bytes)
		t_str(o, " isa=", isa(b->isa));
	if (b->exc_bytes) {
		t_dec(o, " exception=", b->exception);
		cli_out_char(o, '(');
		cli_out_str(o, etm3_exception_name(b->exception, m_profile));
		cli_out_char(o, ')');
		t_dec(o, " cancel=", b->cancel);
	}
	if (b->exc_in_addr) {
		t_dec(o, " legacy_exception=", b->legacy_exception);
		cli_out_char(o, '(');
		cli_out_str(o, etm3_legacy_exception_name(b->legacy_exception));
		cli_out_char(o, ')');
		t_dec(o, " cancel=", b->cancel);
	}
	if (b->exc_bytes) {
		t_dec(o, " ns=", b->ns);
		t_dec(o, " hyp=", b->hyp);
		t_dec(o, " altisa=", b->altisa);
	}
	if (b->has_resume)
		t_dec(o, " resume=", b->resume);
}

static void text_isync(struct cli_out *o, const struct etm3_packet *p,
		       int m_profile)
{
	const struct etm3_isync *s = &p->u.isync;

	t_str(o, " reason=", etm3_reason_name(s->reason));
	if (!s->data_only) {
		t_hex(o, " addr=0x", s->addr, 8);
		t_str(o, " isa=", isa(s->isa));
	}
	t_dec(o, " ns=", s->ns);
	t_dec(o, " hyp=", s->hyp);
	if (s->context_id_bytes)
		t_hex(o, " context_id=0x", s->context_id, 0);
	if (p->type == etm3_pkt_i_sync_cycle)
		t_dec(o, " cycles=", s->cycles);
	if (s->lsip) {
		cli_out_lit(o, " lsip next:");
		text_branch(o, &s->lsip_next, m_profile);
	}
	if (s->data_only)
		cli_out_lit(o, " data-only");
}

static void text_data(struct cli_out *o, const struct etm3_packet *p)
{
	const struct etm3_data *d = &p->u.data;

	if (p->type == etm3_pkt_ooo_placeholder || p->type == etm3_pkt_ooo_data)
		t_dec(o, " tag=", d->tag);
	if (d->has_addr) {
		t_hex(o, " data_addr=0x", d->addr, 8);
		t_dec(o, " be=", d->be);
	}
	if (d->has_value || d->size) {
		t_hex(o, " value=0x", d->value, 0);
		t_dec(o, " size=", d->size);
	}
	if (p->type == etm3_pkt_ooo_data) {
		if (!d->ooo_match)
			cli_out_lit(o, " unexpected(ignored)");
		else
			t_dec(o, " placeholder@", d->placeholder_offset);
		if (d->pair >= 0) {
			cli_out_lit(o, " pair=");
			cli_out_sdec(o, d->pair);
		}
	}
}

static void text_fields(struct cli_out *o, const struct etm3_packet *p,
			int m_profile)
{
	char atoms[17];

	switch (p->type) {
	case etm3_pkt_p_header:
		cli_out_char(o, ' ');
		cli_out_str(o, etm3_atoms_string(&p->u.atoms, atoms));
		t_dec(o, " instr=", p->u.atoms.instr);
		t_dec(o, " cycles=", p->u.atoms.cycles);
		break;
	case etm3_pkt_cycle_count:
		t_dec(o, " cycles=", p->u.cycles);
		break;
	case etm3_pkt_i_sync:
	case etm3_pkt_i_sync_cycle:
		text_isync(o, p, m_profile);
		break;
	case etm3_pkt_branch_address:
		text_branch(o, &p->u.branch, m_profile);
		break;
	case etm3_pkt_context_id:
		t_hex(o, " context_id=0x", p->u.context_id, 0);
		break;
	case etm3_pkt_vmid:
		t_hex(o, " vmid=0x", p->u.vmid, 2);
		break;
	case etm3_pkt_timestamp:
		t_hex(o, " timestamp=0x", p->u.timestamp.value, 0);
		t_dec(o, " (", p->u.timestamp.value);
		t_dec(o, ") bits=", p->u.timestamp.bits);
		if (p->u.timestamp.clock_change)
			cli_out_lit(o, " clock_change");
		break;
	case etm3_pkt_normal_data:
	case etm3_pkt_ooo_placeholder:
	case etm3_pkt_ooo_data:
	case etm3_pkt_value_not_traced:
		text_data(o, p);
		break;
	default:
		break;
	}
}

void cli_print_packet_header(struct cli_out *o)
{
	cli_out_lit(o, "#   offset  id  bytes  type fields");
	cli_out_eol(o);
}

int cli_header_wanted(FILE *f, int on, int off)
{
	if (off)
		return 0;
	return on || isatty(fileno(f));
}

void cli_packet_text_error(struct cli_out *o, const char *why, int error)
{
	cli_out_lit(o, "  ERROR: ");
	cli_out_str(o, why ? why : etmkit_errstr(error));
}

int cli_packet_text_begin(struct cli_out *o, uint8_t id,
			  const struct cli_packet_rec *r)
{
	cli_out_line_head(o, r->offset, id);
	cli_packet_bytes(o, r->raw, r->size, r->length, r->a_sync,
			 r->error != 0, " ");
	cli_out_mem(o, "  ", 2);
	cli_out_str(o, r->type);
	if (r->unsynced) {
		cli_out_char(o, ' ');
		cli_out_udec(o, r->length);
		cli_out_lit(o, " bytes");
		return 0;
	}
	return !r->error;
}

void cli_packet_text_end(struct cli_out *o, const struct cli_packet_rec *r)
{
	if (r->error)
		cli_packet_text_error(o, r->why, r->error);
	cli_out_eol(o);
}

/* The frame of an ETMv3 record. */
static struct cli_packet_rec etm3_rec(const struct etm3_packet *p)
{
	return (struct cli_packet_rec){
		.offset = p->offset,
		.type = etm3_pkt_type_name((enum etm3_pkt_type)p->type),
		.raw = p->raw, .size = p->size, .length = p->length,
		.unsynced = p->type == etm3_pkt_unsynced,
		.a_sync = p->type == etm3_pkt_a_sync,
		.error = p->error, .why = p->why,
	};
}

void cli_print_etm3_text(struct cli_out *o, uint8_t id,
			 const struct etm3_packet *p, int m_profile)
{
	struct cli_packet_rec r = etm3_rec(p);

	if (cli_packet_text_begin(o, id, &r))
		text_fields(o, p, m_profile);
	cli_packet_text_end(o, &r);
}

/* ---- JSON ------------------------------------------------------------------ */

/* Addresses, context IDs, VMIDs, timestamps and data values are written as
 * "0x..." strings (docs/json.md): JSON parsers that read numbers as doubles
 * (JavaScript, jq) would round 64-bit ones silently. Counts stay numbers. */

static void json_branch(struct cli_out *o, const struct etm3_branch *b,
			const char *pre)
{
	j_hex(o, pre, "addr", b->addr);
	j_dec(o, pre, "addr_bits", b->addr_bits);
	j_str(o, pre, "isa", isa(b->isa));
	if (b->partial)
		j_true(o, pre, "partial");
	if (b->exc_bytes) {
		j_dec(o, pre, "exception", b->exception);
		j_dec(o, pre, "cancel", b->cancel);
	}
	if (b->exc_in_addr) {
		j_dec(o, pre, "legacy_exception", b->legacy_exception);
		j_dec(o, pre, "cancel", b->cancel);
	}
	if (b->exc_bytes) {
		j_dec(o, pre, "ns", b->ns);
		j_dec(o, pre, "hyp", b->hyp);
		j_dec(o, pre, "altisa", b->altisa);
	}
	if (b->has_resume)
		j_dec(o, pre, "resume", b->resume);
}

static void json_isync(struct cli_out *o, const struct etm3_packet *p)
{
	const struct etm3_isync *s = &p->u.isync;

	j_str(o, "", "reason", etm3_reason_name(s->reason));
	j_dec(o, "", "ns", s->ns);
	j_dec(o, "", "hyp", s->hyp);
	if (!s->data_only) {
		j_hex(o, "", "addr", s->addr);
		j_str(o, "", "isa", isa(s->isa));
	} else {
		j_true(o, "", "data_only");
	}
	if (s->context_id_bytes)
		j_hex(o, "", "context_id", s->context_id);
	if (p->type == etm3_pkt_i_sync_cycle)
		j_dec(o, "", "cycles", s->cycles);
	if (s->lsip) {
		j_true(o, "", "lsip");
		json_branch(o, &s->lsip_next, "next_");
	}
}

static void json_data(struct cli_out *o, const struct etm3_packet *p)
{
	const struct etm3_data *d = &p->u.data;

	if (p->type == etm3_pkt_ooo_placeholder || p->type == etm3_pkt_ooo_data)
		j_dec(o, "", "tag", d->tag);
	if (d->has_addr) {
		j_hex(o, "", "data_addr", d->addr);
		j_dec(o, "", "be", d->be);
	}
	if (d->has_value || d->size) {
		j_hex(o, "", "value", d->value);
		j_dec(o, "", "size", d->size);
	}
	if (p->type == etm3_pkt_ooo_data) {
		j_key(o, "", "match");
		cli_out_str(o, d->ooo_match ? "true" : "false");
		if (d->ooo_match)
			j_dec(o, "", "placeholder_offset",
			      d->placeholder_offset);
		if (d->pair >= 0) {
			j_key(o, "", "pair");
			cli_out_sdec(o, d->pair);
		}
	}
}

static void json_fields(struct cli_out *o, const struct etm3_packet *p)
{
	char atoms[17];

	switch (p->type) {
	case etm3_pkt_p_header:
		j_str(o, "", "atoms", etm3_atoms_string(&p->u.atoms, atoms));
		j_dec(o, "", "instr", p->u.atoms.instr);
		j_dec(o, "", "cycles", p->u.atoms.cycles);
		j_dec(o, "", "format", p->u.atoms.format);
		break;
	case etm3_pkt_cycle_count:
		j_dec(o, "", "cycles", p->u.cycles);
		break;
	case etm3_pkt_i_sync:
	case etm3_pkt_i_sync_cycle:
		json_isync(o, p);
		break;
	case etm3_pkt_branch_address:
		json_branch(o, &p->u.branch, "");
		break;
	case etm3_pkt_context_id:
		j_hex(o, "", "context_id", p->u.context_id);
		break;
	case etm3_pkt_vmid:
		j_hex(o, "", "vmid", p->u.vmid);
		break;
	case etm3_pkt_timestamp:
		j_hex(o, "", "timestamp", p->u.timestamp.value);
		j_dec(o, "", "timestamp_bits", p->u.timestamp.bits);
		j_dec(o, "", "clock_change", p->u.timestamp.clock_change);
		break;
	case etm3_pkt_normal_data:
	case etm3_pkt_ooo_placeholder:
	case etm3_pkt_ooo_data:
	case etm3_pkt_value_not_traced:
		json_data(o, p);
		break;
	default:
		break;
	}
}

void cli_packet_json_start(struct cli_out *o, uint64_t offset, uint8_t id,
			   const char *type)
{
	cli_out_lit(o, "{\"offset\":");
	cli_out_udec(o, offset);
	j_dec(o, "", "id", id);
	j_str(o, "", "type", type);
}

void cli_packet_json_error(struct cli_out *o, const char *why, int error)
{
	j_str(o, "", "error", why ? why : etmkit_errstr(error));
}

void cli_packet_json_end(struct cli_out *o)
{
	cli_out_char(o, '}');
	cli_out_eol(o);
}

int cli_packet_json_begin(struct cli_out *o, uint8_t id,
			  const struct cli_packet_rec *r)
{
	cli_packet_json_start(o, r->offset, id, r->type);
	if (r->unsynced) {
		j_dec(o, "", "length", r->length);
		return 0;
	}
	cli_out_lit(o, ",\"bytes\":\"");
	cli_packet_bytes(o, r->raw, r->size, r->length, r->a_sync,
			 r->error != 0, "");
	cli_out_char(o, '"');
	if (r->json_length && r->length > r->size && !r->a_sync)
		j_dec(o, "", "length", r->length);
	if (!r->error)
		return 1;
	cli_packet_json_error(o, r->why, r->error);
	return 0;
}

void cli_print_etm3_json(struct cli_out *o, uint8_t id,
			 const struct etm3_packet *p, int m_profile)
{
	struct cli_packet_rec r = etm3_rec(p);

	(void)m_profile;
	if (cli_packet_json_begin(o, id, &r))
		json_fields(o, p);
	cli_packet_json_end(o);
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

/* ---- Text ---------------------------------------------------------------- */

static void text4_addr(struct cli_out *o, const struct etm4_address *a)
{
	t_hex(o, " addr=0x", a->addr, 0);
	t_dec(o, " is=", a->is);
	cli_out_char(o, ' ');
	cli_out_str(o, etm4_addr_form_name(a->form));
	if (a->form == etm4_addr_exact)
		t_dec(o, " hist=", a->hist);
	else
		t_dec(o, " bits=", a->bits);
}

static void text4_context(struct cli_out *o, const struct etm4_context *c)
{
	if (!c->updated) {
		cli_out_lit(o, " unchanged");
		return;
	}
	t_dec(o, " el=", c->el);
	t_dec(o, " sf=", c->sf);
	t_dec(o, " ns=", c->ns);
	t_dec(o, " nse=", c->nse);
	if (c->has_vmid)
		t_hex(o, " vmid=0x", c->vmid, 0);
	if (c->has_cid)
		t_hex(o, " context_id=0x", c->context_id, 0);
}

static void text4_tinfo(struct cli_out *o, const struct etm4_trace_info *t)
{
	t_hex(o, " plctl=0x", t->plctl, 0);
	if (t->plctl & ETM4_TINFO_INFO) {
		t_hex(o, " info=0x", t->info, 0);
		t_dec(o, " cc_enabled=", t->info & 1);
	}
	if (t->plctl & ETM4_TINFO_KEY)
		t_hex(o, " key=0x", t->key, 0);
	if (t->plctl & ETM4_TINFO_SPEC)
		t_dec(o, " spec=", t->spec);
	if (t->plctl & ETM4_TINFO_CYCT)
		t_hex(o, " cyct=0x", t->cyct, 0);
	if (t->plctl & ETM4_TINFO_WNDW)
		t_hex(o, " wndw=0x", t->wndw, 0);
}

static void text4_spec(struct cli_out *o, const struct etm4_packet *p)
{
	const struct etm4_spec *s = &p->u.spec;
	char atoms[25];

	if (s->atoms.count)
		t_str(o, " atoms=", etm4_atoms_string(&s->atoms, atoms));
	if (p->type == etm4_pkt_commit)
		t_dec(o, " commit=", s->count);
	if (p->type == etm4_pkt_cancel) {
		t_dec(o, " cancel=", s->count);
		t_dec(o, " format=", s->format);
	}
	if (p->type == etm4_pkt_cancel && s->mispredict)
		cli_out_lit(o, " mispredict");
}

static void text4_q(struct cli_out *o, const struct etm4_q *q)
{
	t_hex(o, " qtype=0x", q->qtype, 0);
	if (q->has_addr)
		text4_addr(o, &q->addr);
	if (q->has_count)
		t_dec(o, " count=", q->count);
	if (q->addr_follows)
		cli_out_lit(o, " addr_follows");
}

static void text4_cond(struct cli_out *o, const struct etm4_cond *c)
{
	t_dec(o, " format=", c->format);
	t_hex(o, " key=0x", c->key, 0);
	t_hex(o, " token=0x", c->token, 0);
	t_dec(o, " num=", c->num);
	t_hex(o, " flags=0x", c->flags, 0);
	t_hex(o, " result=0x", c->result, 0);
}

static void text4_fields(struct cli_out *o, const struct etm4_packet *p,
			 int ete)
{
	char atoms[25];

	switch (p->type) {
	case etm4_pkt_trace_info:
		text4_tinfo(o, &p->u.tinfo);
		break;
	case etm4_pkt_timestamp:
		t_hex(o, " timestamp=0x", p->u.ts.value, 0);
		t_dec(o, " (", p->u.ts.value);
		t_dec(o, ") bits=", p->u.ts.bits);
		if (p->u.ts.has_cc)
			t_dec(o, " cycles=", p->u.ts.cc);
		break;
	case etm4_pkt_exception:
		t_hex(o, " exception=0x", p->u.exception.type, 0);
		cli_out_char(o, '(');
		cli_out_str(o, etm4_exception_name(p->u.exception.type, ete));
		cli_out_char(o, ')');
		t_str(o, " addr_interp=",
		      etm4_exc_addr_name(p->u.exception.addr_interp));
		if (p->u.exception.pending)
			cli_out_lit(o, " pending");
		break;
	case etm4_pkt_cycle_count:
		if (p->u.cc.unknown)
			cli_out_lit(o, " cycles=unknown");
		else
			t_dec(o, " cycles=", p->u.cc.count);
		if (p->u.cc.has_commit)
			t_dec(o, " commit=", p->u.cc.commit);
		t_dec(o, " format=", p->u.cc.format);
		break;
	case etm4_pkt_commit:
	case etm4_pkt_cancel:
	case etm4_pkt_mispredict:
		text4_spec(o, p);
		break;
	case etm4_pkt_atom:
		cli_out_char(o, ' ');
		cli_out_str(o, etm4_atoms_string(&p->u.atoms, atoms));
		t_dec(o, " format=", p->u.atoms.format);
		break;
	case etm4_pkt_q:
		text4_q(o, &p->u.q);
		break;
	case etm4_pkt_context:
		text4_context(o, &p->u.context);
		break;
	case etm4_pkt_address:
	case etm4_pkt_source_address:
		text4_addr(o, &p->u.a.addr);
		break;
	case etm4_pkt_address_context:
		text4_addr(o, &p->u.a.addr);
		text4_context(o, &p->u.a.context);
		break;
	case etm4_pkt_event:
		t_hex(o, " event=0x", p->u.event, 0);
		break;
	case etm4_pkt_instrumentation:
		t_dec(o, " el=", p->u.ite.el);
		t_hex(o, " value=0x", p->u.ite.value, 0);
		break;
	case etm4_pkt_cond_instr:
	case etm4_pkt_cond_result:
	case etm4_pkt_data_sync:
		text4_cond(o, &p->u.cond);
		break;
	default:
		break;
	}
}

/* The frame of an ETMv4/ETE record. */
static struct cli_packet_rec etm4_rec(const struct etm4_packet *p)
{
	return (struct cli_packet_rec){
		.offset = p->offset,
		.type = etm4_pkt_type_name((enum etm4_pkt_type)p->type),
		.raw = p->raw, .size = p->size, .length = p->length,
		.unsynced = p->type == etm4_pkt_unsynced,
		.a_sync = p->type == etm4_pkt_a_sync,
		.json_length = 1,
		.error = p->error, .why = p->why,
	};
}

void cli_print_etm4_text(struct cli_out *o, uint8_t id,
			 const struct etm4_packet *p, int ete)
{
	struct cli_packet_rec r = etm4_rec(p);

	if (cli_packet_text_begin(o, id, &r))
		text4_fields(o, p, ete);
	cli_packet_text_end(o, &r);
}

/* ---- JSON ---------------------------------------------------------------- */

/* Addresses, context IDs, VMIDs, timestamps and the ITE value as "0x..."
 * strings, as for ETMv3 (docs/json.md). */
static void json4_addr(struct cli_out *o, const struct etm4_address *a)
{
	j_hex(o, "", "addr", a->addr);
	j_dec(o, "", "is", a->is);
	j_str(o, "", "form", etm4_addr_form_name(a->form));
	if (a->form == etm4_addr_exact)
		j_dec(o, "", "hist", a->hist);
	else
		j_dec(o, "", "addr_bits", a->bits);
}

static void json4_context(struct cli_out *o, const struct etm4_context *c)
{
	if (!c->updated) {
		j_true(o, "", "unchanged");
		return;
	}
	j_dec(o, "", "el", c->el);
	j_dec(o, "", "sf", c->sf);
	j_dec(o, "", "ns", c->ns);
	j_dec(o, "", "nse", c->nse);
	if (c->has_vmid)
		j_hex(o, "", "vmid", c->vmid);
	if (c->has_cid)
		j_hex(o, "", "context_id", c->context_id);
}

static void json4_tinfo(struct cli_out *o, const struct etm4_trace_info *t)
{
	j_dec(o, "", "plctl", t->plctl);
	if (t->plctl & ETM4_TINFO_INFO) {
		j_dec(o, "", "info", t->info);
		j_dec(o, "", "cc_enabled", t->info & 1);
	}
	if (t->plctl & ETM4_TINFO_KEY)
		j_dec(o, "", "key", t->key);
	if (t->plctl & ETM4_TINFO_SPEC)
		j_dec(o, "", "spec", t->spec);
	if (t->plctl & ETM4_TINFO_CYCT)
		j_dec(o, "", "cyct", t->cyct);
	if (t->plctl & ETM4_TINFO_WNDW)
		j_dec(o, "", "wndw", t->wndw);
}

static void json4_spec(struct cli_out *o, const struct etm4_packet *p)
{
	const struct etm4_spec *s = &p->u.spec;
	char atoms[25];

	if (s->atoms.count)
		j_str(o, "", "atoms", etm4_atoms_string(&s->atoms, atoms));
	if (p->type == etm4_pkt_commit)
		j_dec(o, "", "commit", s->count);
	if (p->type == etm4_pkt_cancel) {
		j_dec(o, "", "cancel", s->count);
		j_dec(o, "", "format", s->format);
		j_key(o, "", "mispredict");
		cli_out_str(o, s->mispredict ? "true" : "false");
	}
}

static void json4_cc(struct cli_out *o, const struct etm4_cc *c)
{
	if (c->unknown)
		j_true(o, "", "unknown");
	else
		j_dec(o, "", "cycles", c->count);
	if (c->has_commit)
		j_dec(o, "", "commit", c->commit);
	j_dec(o, "", "format", c->format);
}

static void json4_q(struct cli_out *o, const struct etm4_q *q)
{
	j_dec(o, "", "qtype", q->qtype);
	if (q->has_addr)
		json4_addr(o, &q->addr);
	if (q->has_count)
		j_dec(o, "", "count", q->count);
	if (q->addr_follows)
		j_true(o, "", "addr_follows");
}

static void json4_cond(struct cli_out *o, const struct etm4_cond *c)
{
	j_dec(o, "", "format", c->format);
	j_dec(o, "", "key", c->key);
	j_dec(o, "", "token", c->token);
	j_dec(o, "", "num", c->num);
	j_dec(o, "", "flags", c->flags);
	j_dec(o, "", "result", c->result);
}

static void json4_fields(struct cli_out *o, const struct etm4_packet *p,
			 int ete)
{
	char atoms[25];

	switch (p->type) {
	case etm4_pkt_trace_info:
		json4_tinfo(o, &p->u.tinfo);
		break;
	case etm4_pkt_timestamp:
		j_hex(o, "", "timestamp", p->u.ts.value);
		j_dec(o, "", "timestamp_bits", p->u.ts.bits);
		if (p->u.ts.has_cc)
			j_dec(o, "", "cycles", p->u.ts.cc);
		break;
	case etm4_pkt_exception:
		j_dec(o, "", "exception", p->u.exception.type);
		j_str(o, "", "name", etm4_exception_name(p->u.exception.type,
							 ete));
		j_str(o, "", "addr_interp",
		      etm4_exc_addr_name(p->u.exception.addr_interp));
		j_dec(o, "", "pending", p->u.exception.pending);
		break;
	case etm4_pkt_cycle_count:
		json4_cc(o, &p->u.cc);
		break;
	case etm4_pkt_commit:
	case etm4_pkt_cancel:
	case etm4_pkt_mispredict:
		json4_spec(o, p);
		break;
	case etm4_pkt_atom:
		j_str(o, "", "atoms", etm4_atoms_string(&p->u.atoms, atoms));
		j_dec(o, "", "format", p->u.atoms.format);
		break;
	case etm4_pkt_q:
		json4_q(o, &p->u.q);
		break;
	case etm4_pkt_context:
		json4_context(o, &p->u.context);
		break;
	case etm4_pkt_address:
	case etm4_pkt_source_address:
		json4_addr(o, &p->u.a.addr);
		break;
	case etm4_pkt_address_context:
		json4_addr(o, &p->u.a.addr);
		json4_context(o, &p->u.a.context);
		break;
	case etm4_pkt_event:
		j_dec(o, "", "event", p->u.event);
		break;
	case etm4_pkt_instrumentation:
		j_dec(o, "", "el", p->u.ite.el);
		j_hex(o, "", "value", p->u.ite.value);
		break;
	case etm4_pkt_cond_instr:
	case etm4_pkt_cond_result:
	case etm4_pkt_data_sync:
		json4_cond(o, &p->u.cond);
		break;
	default:
		break;
	}
}

void cli_print_etm4_json(struct cli_out *o, uint8_t id,
			 const struct etm4_packet *p, int ete)
{
	struct cli_packet_rec r = etm4_rec(p);

	if (cli_packet_json_begin(o, id, &r))
		json4_fields(o, p, ete);
	cli_packet_json_end(o);
}
