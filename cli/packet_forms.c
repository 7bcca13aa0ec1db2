/* etmkit CLI: packet forms (packet_forms.h). Form names use the words of
 * the packet listing (output.c): "format=", "bits=", "hist=", "is=",
 * "context_id". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "packet_forms.h"

#define KEY(type, bits) ((uint32_t)(type) << 24 | (uint32_t)(bits))
#define KEY_TYPE(key) ((key) >> 24)
#define KEY_ERROR 0x800000u /* an error record: its fields are not read */
#define BIT(key, n) (((key) >> (n)) & 1u)
#define FIELD(key, lo, width) (((key) >> (lo)) & ((1u << (width)) - 1u))

/* A name being built: appends never run past the buffer. */
struct namebuf {
	char *p;
	size_t cap, len;
};

static void add_s(struct namebuf *b, const char *s)
{
	size_t n = strlen(s);

	if (b->len + 1 >= b->cap)
		return;
	if (n > b->cap - b->len - 1)
		n = b->cap - b->len - 1;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/* @label and the number @v: " bytes=" 5 gives " bytes=5". */
static void add_u(struct namebuf *b, const char *label, unsigned v)
{
	char num[16];

	snprintf(num, sizeof(num), "%u", v);
	add_s(b, label);
	add_s(b, num);
}

/* @label and @v in hexadecimal. */
static void add_x(struct namebuf *b, const char *label, unsigned v)
{
	char num[16];

	snprintf(num, sizeof(num), "0x%x", v);
	add_s(b, label);
	add_s(b, num);
}

/* " word" when bit @n of @key is set. */
static void add_if(struct namebuf *b, uint32_t key, unsigned n,
		   const char *word)
{
	if (BIT(key, n))
		add_s(b, word);
}

/* Start the name of @key with @type_name; returns whether the form has
 * fields to name (not an error record). */
static int start(struct namebuf *b, uint32_t key, const char *type_name)
{
	if (b->cap)
		b->p[0] = '\0';
	add_s(b, type_name);
	if (key & KEY_ERROR) {
		add_s(b, " error");
		return 0;
	}
	return 1;
}

/* ---- ETMv3 (IHI 0014Q chapter 7; digest etmv3.md 4) ------------------------ */

/* P-header (7.3.1, Tables 7.2, 7.3): bit 4 cycle-accurate, 3:0 format;
 * the format numbers depend on the mode. */
static uint32_t etm3_p_header(const struct etm3_packet *p, unsigned cfg)
{
	return ((cfg & CLI_FORM_ETM3_CA) ? 0x10u : 0) |
	       (p->u.atoms.format & 0xfu);
}

/* I-sync (7.10.5, digest 4.4): bit 2 a context ID, 1 LSiP, 0 data-only. */
static uint32_t etm3_isync(const struct etm3_packet *p)
{
	const struct etm3_isync *s = &p->u.isync;

	return (s->context_id_bytes ? 4u : 0) | (s->lsip ? 2u : 0) |
	       (s->data_only ? 1u : 0);
}

/* Branch address (7.3.5, digest 4.5): bit 20 the alternative encoding
 * (ETMIDR[20]: the final byte's bit 6 flags exception bytes), 19:17 the
 * address bytes (1-5), 16:15 the exception information bytes (0-3),
 * 14:11 the instruction set a 5th address byte names, plus 1 (digest
 * 4.5.3; ThumbEE by AltISA), 10 an exception (not only a change of NS,
 * Hyp or AltISA), 9 Cancel, 8 the ARMv7-M resume byte, 7 the deprecated
 * form with the exception in the 5th address byte. */
static uint32_t etm3_branch(const struct etm3_packet *p, unsigned cfg)
{
	const struct etm3_branch *b = &p->u.branch;
	uint32_t k = (cfg & CLI_FORM_ETM3_ALT) ? 1u << 20 : 0;

	k |= (uint32_t)(b->addr_bytes & 7u) << 17;
	k |= (uint32_t)(b->exc_bytes & 3u) << 15;
	if (b->isa_change)
		k |= (uint32_t)((b->isa + 1u) & 0xfu) << 11;
	if (b->exc_bytes && b->exception)
		k |= 1u << 10;
	if (b->cancel)
		k |= 1u << 9;
	if (b->has_resume)
		k |= 1u << 8;
	if (b->exc_in_addr)
		k |= 1u << 7;
	return k;
}

/* Data packets (7.4): bit 1 an address, bit 0 a value. */
static uint32_t etm3_data(const struct etm3_packet *p)
{
	return (p->u.data.has_addr ? 2u : 0) |
	       (p->u.data.has_value || p->u.data.size ? 1u : 0);
}

uint32_t cli_form_etm3_key(const struct etm3_packet *p, unsigned cfg)
{
	if (p->error)
		return KEY(p->type, KEY_ERROR);
	switch (p->type) {
	case etm3_pkt_p_header:
		return KEY(p->type, etm3_p_header(p, cfg));
	case etm3_pkt_i_sync:
	case etm3_pkt_i_sync_cycle:
		return KEY(p->type, etm3_isync(p));
	case etm3_pkt_branch_address:
		return KEY(p->type, etm3_branch(p, cfg));
	case etm3_pkt_context_id:
		/* 7.3.6: the header and 1, 2 or 4 bytes (ETMCR[15:14]) */
		return KEY(p->type, (p->length - 1u) & 7u);
	case etm3_pkt_timestamp:
		return KEY(p->type, p->u.timestamp.clock_change ? 1u : 0);
	case etm3_pkt_normal_data:
	case etm3_pkt_ooo_placeholder:
	case etm3_pkt_ooo_data:
	case etm3_pkt_value_not_traced:
		return KEY(p->type, etm3_data(p));
	default:
		return KEY(p->type, 0);
	}
}

static void etm3_branch_name(struct namebuf *b, uint32_t key)
{
	unsigned isa = FIELD(key, 11, 4);

	add_if(b, key, 20, " alt");
	add_u(b, " bytes=", FIELD(key, 17, 3));
	if (isa) {
		add_s(b, " isa=");
		add_s(b, etmkit_isa_name((enum etmkit_isa)(isa - 1)));
	}
	if (FIELD(key, 15, 2))
		add_u(b, " exc_bytes=", FIELD(key, 15, 2));
	add_if(b, key, 10, " exception");
	add_if(b, key, 9, " cancel");
	add_if(b, key, 8, " resume");
	add_if(b, key, 7, " legacy_exception");
}

const char *cli_form_etm3_name(uint32_t key, char *buf, size_t cap)
{
	unsigned type = KEY_TYPE(key);
	struct namebuf b = { buf, cap, 0 };

	if (!start(&b, key, etm3_pkt_type_name((enum etm3_pkt_type)type)))
		return buf;
	switch (type) {
	case etm3_pkt_p_header:
		add_if(&b, key, 4, " cycle_accurate");
		add_u(&b, " format=", FIELD(key, 0, 4));
		break;
	case etm3_pkt_i_sync:
	case etm3_pkt_i_sync_cycle:
		add_if(&b, key, 2, " context_id");
		add_if(&b, key, 1, " lsip");
		add_if(&b, key, 0, " data_only");
		break;
	case etm3_pkt_branch_address:
		etm3_branch_name(&b, key);
		break;
	case etm3_pkt_context_id:
		add_u(&b, " bytes=", FIELD(key, 0, 3));
		break;
	case etm3_pkt_timestamp:
		add_if(&b, key, 0, " clock_change");
		break;
	case etm3_pkt_normal_data:
	case etm3_pkt_ooo_placeholder:
	case etm3_pkt_ooo_data:
	case etm3_pkt_value_not_traced:
		add_if(&b, key, 1, " addr");
		add_if(&b, key, 0, " value");
		break;
	default:
		break;
	}
	return buf;
}

/* ---- ETMv4 and ETE (digest etmv4-ete.md 5) ---------------------------------- */

/* The atoms a Mispredict or Cancel format 2/3 header appends (digest
 * 5.10, 5.11): 0 none, 1 E, 2 E E, 3 N. */
static uint32_t spec_atoms(const struct etm4_atoms *a)
{
	if (a->count == 0)
		return 0;
	if (a->count >= 2)
		return 2;
	return (a->bits & 1) ? 1 : 3;
}

/* Address forms (digest 5.19, 5.20, 5.22): 13:12 enum etm4_addr_form,
 * 11 IS (not for exact match: the packet carries none), 7:2 the bits a
 * short form carries (IS0 9 or 17, IS1 8 or 16), 1:0 the history entry an
 * exact match names. */
static uint32_t etm4_addr(const struct etm4_address *a)
{
	uint32_t k = (uint32_t)(a->form & 3u) << 12;

	if (a->form == etm4_addr_exact)
		return k | (a->hist & 3u);
	k |= (uint32_t)(a->is & 1u) << 11;
	if (a->form == etm4_addr_short)
		k |= (uint32_t)(a->bits & 0x3fu) << 2;
	return k;
}

/* Context (digest 5.18): bit 2 updated (0x81; 0x80 says unchanged), 1 a
 * VMID, 0 a context ID. */
static uint32_t etm4_ctx(const struct etm4_context *c)
{
	if (!c->updated)
		return 0;
	return 4u | (c->has_vmid ? 2u : 0) | (c->has_cid ? 1u : 0);
}

static uint32_t etm4_fields(const struct etm4_packet *p)
{
	switch (p->type) {
	case etm4_pkt_trace_info:
		return p->u.tinfo.plctl & 0x1fu; /* the sections present */
	case etm4_pkt_timestamp:
		return p->u.ts.has_cc ? 1u : 0;  /* header 0x03 */
	case etm4_pkt_exception:
		/* 2 bytes, or 3 with the C bit (ETE PE reset, transaction
		 * failure, M-profile) (digest 5.5) */
		return p->length & 0xfu;
	case etm4_pkt_cycle_count:
		/* 3:2 format, 1 unknown (format 1 U), 0 with commit */
		return (uint32_t)(p->u.cc.format & 3u) << 2 |
		       (p->u.cc.unknown ? 2u : 0) | (p->u.cc.has_commit ? 1u : 0);
	case etm4_pkt_cancel:
		/* 5:4 format, 3 format 1's M, 2:0 atoms appended */
		return (uint32_t)(p->u.spec.format & 3u) << 4 |
		       (p->u.spec.format == 1 && p->u.spec.mispredict ? 8u : 0) |
		       spec_atoms(&p->u.spec.atoms);
	case etm4_pkt_mispredict:
		return spec_atoms(&p->u.spec.atoms);
	case etm4_pkt_atom:
		return p->u.atoms.format & 7u;
	case etm4_pkt_q:
		return p->u.q.qtype & 0xfu;
	case etm4_pkt_context:
		return etm4_ctx(&p->u.context);
	case etm4_pkt_address:
	case etm4_pkt_source_address:
		return etm4_addr(&p->u.a.addr);
	case etm4_pkt_address_context:
		/* the address form's bits, and the context's 1:0 */
		return (etm4_addr(&p->u.a.addr) & ~0xffu) |
		       (etm4_ctx(&p->u.a.context) & 3u);
	case etm4_pkt_cond_instr:
	case etm4_pkt_cond_result:
		return p->u.cond.format & 7u;
	default:
		return 0;
	}
}

uint32_t cli_form_etm4_key(const struct etm4_packet *p)
{
	if (p->error)
		return KEY(p->type, KEY_ERROR);
	return KEY(p->type, etm4_fields(p));
}

static void etm4_addr_name(struct namebuf *b, uint32_t key)
{
	static const char *const form[4] = { " exact", " short", " long32",
					     " long64" };
	unsigned f = FIELD(key, 12, 2);

	add_s(b, form[f]);
	if (f == etm4_addr_exact) {
		add_u(b, " hist=", FIELD(key, 0, 2));
		return;
	}
	add_u(b, " is=", FIELD(key, 11, 1));
	if (f == etm4_addr_short)
		add_u(b, " bits=", FIELD(key, 2, 6));
}

static void etm4_spec_atoms_name(struct namebuf *b, uint32_t key)
{
	static const char *const atoms[4] = { "", " atoms=E", " atoms=EE",
					      " atoms=N" };

	add_s(b, atoms[FIELD(key, 0, 2)]);
}

static void etm4_tinfo_name(struct namebuf *b, uint32_t key)
{
	static const char *const sec[5] = { "info", "key", "spec", "cyct",
					    "wndw" };
	const char *sep = " sections=";

	if (!FIELD(key, 0, 5))
		add_s(b, " sections=none");
	for (unsigned i = 0; i < 5; i++) {
		if (BIT(key, i)) {
			add_s(b, sep);
			add_s(b, sec[i]);
			sep = ",";
		}
	}
}

const char *cli_form_etm4_name(uint32_t key, char *buf, size_t cap)
{
	unsigned type = KEY_TYPE(key);
	struct namebuf b = { buf, cap, 0 };

	if (!start(&b, key, etm4_pkt_type_name((enum etm4_pkt_type)type)))
		return buf;
	switch (type) {
	case etm4_pkt_trace_info:
		etm4_tinfo_name(&b, key);
		break;
	case etm4_pkt_timestamp:
		add_if(&b, key, 0, " cycles");
		break;
	case etm4_pkt_exception:
		add_u(&b, " bytes=", FIELD(key, 0, 4));
		break;
	case etm4_pkt_cycle_count:
		add_u(&b, " format=", FIELD(key, 2, 2));
		add_if(&b, key, 1, " unknown");
		add_if(&b, key, 0, " commit");
		break;
	case etm4_pkt_cancel:
		add_u(&b, " format=", FIELD(key, 4, 2));
		add_if(&b, key, 3, " mispredict");
		etm4_spec_atoms_name(&b, key);
		break;
	case etm4_pkt_mispredict:
		etm4_spec_atoms_name(&b, key);
		break;
	case etm4_pkt_atom:
		add_u(&b, " format=", FIELD(key, 0, 3));
		break;
	case etm4_pkt_q:
		add_x(&b, " qtype=", FIELD(key, 0, 4));
		break;
	case etm4_pkt_context:
		if (!BIT(key, 2)) {
			add_s(&b, " unchanged");
			break;
		}
		add_s(&b, " updated");
		add_if(&b, key, 1, " vmid");
		add_if(&b, key, 0, " context_id");
		break;
	case etm4_pkt_address:
	case etm4_pkt_source_address:
		etm4_addr_name(&b, key);
		break;
	case etm4_pkt_address_context:
		etm4_addr_name(&b, key);
		add_if(&b, key, 1, " vmid");
		add_if(&b, key, 0, " context_id");
		break;
	case etm4_pkt_cond_instr:
	case etm4_pkt_cond_result:
		add_u(&b, " format=", FIELD(key, 0, 3));
		break;
	default:
		break;
	}
	return buf;
}

/* ---- PTM (IHI 0035B chapter 4; digest ptm.md 2-4) ------------------------ */

/* Branch address (4.5.4, digest 4.4) and waypoint update (4.5), in the
 * bits of the ETMv3 key (etm3_branch(): same address and exception byte
 * grid, without Cancel and resume): 19:17 the address bytes (1-5), 16:15
 * the exception bytes (0-2), 14:11 the instruction set a 5th address byte
 * names, plus 1, 10 an exception (not only a change of NS, Hyp or AltIS),
 * and 6 a cycle count (cycle-accurate). */
static uint32_t ptm_branch(const struct ptm_branch *b)
{
	uint32_t k = (uint32_t)(b->addr_bytes & 7u) << 17;

	k |= (uint32_t)(b->exc_bytes & 3u) << 15;
	if (b->isa_change)
		k |= (uint32_t)((b->isa + 1u) & 0xfu) << 11;
	if (b->exc_bytes && b->exception)
		k |= 1u << 10;
	if (b->has_cycles)
		k |= 1u << 6;
	return k;
}

static uint32_t ptm_fields(const struct ptm_packet *p)
{
	switch (p->type) {
	case ptm_pkt_atom:
		/* 4.5.3: bit 3 cycle-accurate (one atom and a count), 2:0
		 * the atoms (1-5) */
		return (p->u.atoms.has_cycles ? 8u : 0) |
		       (p->u.atoms.count & 7u);
	case ptm_pkt_i_sync:
		/* 4.5.2: bit 1 a cycle count, 0 a context ID */
		return (p->u.isync.has_cycles ? 2u : 0) |
		       (p->u.isync.context_id_bytes ? 1u : 0);
	case ptm_pkt_branch_address:
	case ptm_pkt_waypoint_update:
		return ptm_branch(&p->u.branch);
	case ptm_pkt_context_id:
		/* 4.5.7: the header and 1, 2 or 4 bytes (ETMCR[15:14]) */
		return (p->length - 1u) & 7u;
	case ptm_pkt_timestamp:
		/* 4.5.9: bit 1 a cycle count, 0 the R bit */
		return (p->u.timestamp.has_cycles ? 2u : 0) |
		       (p->u.timestamp.clock_change ? 1u : 0);
	default:
		return 0;
	}
}

uint32_t cli_form_ptm_key(const struct ptm_packet *p)
{
	if (p->error)
		return KEY(p->type, KEY_ERROR);
	return KEY(p->type, ptm_fields(p));
}

const char *cli_form_ptm_name(uint32_t key, char *buf, size_t cap)
{
	unsigned type = KEY_TYPE(key);
	struct namebuf b = { buf, cap, 0 };

	if (!start(&b, key, ptm_pkt_type_name((enum ptm_pkt_type)type)))
		return buf;
	switch (type) {
	case ptm_pkt_atom:
		add_if(&b, key, 3, " cycle_accurate");
		add_u(&b, " atoms=", FIELD(key, 0, 3));
		break;
	case ptm_pkt_i_sync:
		add_if(&b, key, 1, " cycles");
		add_if(&b, key, 0, " context_id");
		break;
	case ptm_pkt_branch_address:
	case ptm_pkt_waypoint_update:
		etm3_branch_name(&b, key);
		add_if(&b, key, 6, " cycles");
		break;
	case ptm_pkt_context_id:
		add_u(&b, " bytes=", FIELD(key, 0, 3));
		break;
	case ptm_pkt_timestamp:
		add_if(&b, key, 1, " cycles");
		add_if(&b, key, 0, " clock_change");
		break;
	default:
		break;
	}
	return buf;
}

/* ---- ETMv2 (docs/etmv2.md; digest etmv2.md, Q Table 6.2) ------------------ */

/* The fields of ETMv2 record @p that make its form: TFO (Q§6.5.1) bit 3
 * LSiP, 2:0 the context ID bytes; status the status (Table 6.1); branch
 * address (Q§6.3) 3 a fifth byte changing the instruction set, 2:0 its
 * bytes; data packets 7 an address, 6:4 its bytes, 2:0 the value's;
 * context ID its bytes. Runs, triggers and reserved headers: the type. */
static uint32_t etm2_fields(const struct etm2_packet *p)
{
	switch (p->type) {
	case etm2_pkt_tfo:
		return (p->u.tfo.lsip ? 8u : 0) | (p->u.tfo.context_id_bytes & 7u);
	case etm2_pkt_status:
		return p->status;
	case etm2_pkt_branch_address:
		return (p->u.branch.isa_change ? 8u : 0) |
		       (p->u.branch.addr_bytes & 7u);
	case etm2_pkt_normal_data:
	case etm2_pkt_value_not_traced:
	case etm2_pkt_load_miss:
	case etm2_pkt_load_miss_data:
		return (p->u.data.has_addr ? 0x80u : 0) |
		       (p->u.data.has_addr ? (p->u.data.addr_bytes & 7u) << 4 : 0) |
		       (p->u.data.has_value ? p->u.data.value_bytes & 7u : 0);
	case etm2_pkt_context_id:
		/* the header and ETMCR[15:14]'s 1, 2 or 4 bytes */
		return (p->length - 1u) & 7u;
	default:
		return 0;
	}
}

uint32_t cli_form_etm2_key(const struct etm2_packet *p)
{
	if (p->error)
		return KEY(p->type, KEY_ERROR);
	return KEY(p->type, etm2_fields(p));
}

const char *cli_form_etm2_name(uint32_t key, char *buf, size_t cap)
{
	unsigned type = KEY_TYPE(key);
	struct namebuf b = { buf, cap, 0 };

	if (!start(&b, key, etm2_pkt_type_name(type)))
		return buf;
	switch (type) {
	case etm2_pkt_tfo:
		add_if(&b, key, 3, " lsip");
		add_u(&b, " context_id_bytes=", FIELD(key, 0, 3));
		break;
	case etm2_pkt_status:
		add_s(&b, " ");
		add_s(&b, etm2_status_name(FIELD(key, 0, 8)));
		break;
	case etm2_pkt_branch_address:
		add_u(&b, " bytes=", FIELD(key, 0, 3));
		add_if(&b, key, 3, " isa_change");
		break;
	case etm2_pkt_normal_data:
	case etm2_pkt_value_not_traced:
	case etm2_pkt_load_miss:
	case etm2_pkt_load_miss_data:
		if (BIT(key, 7))
			add_u(&b, " addr_bytes=", FIELD(key, 4, 3));
		add_u(&b, " value_bytes=", FIELD(key, 0, 3));
		break;
	case etm2_pkt_context_id:
		add_u(&b, " bytes=", FIELD(key, 0, 3));
		break;
	default:
		break;
	}
	return buf;
}

/* ---- Counting ------------------------------------------------------------- */

static size_t slot_of(const struct cli_form_table *t, uint8_t id,
		      uint32_t key)
{
	uint64_t h = ((uint64_t)id << 32 | key) * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> 32) & (t->cap - 1);

	while (t->slot[i].n && (t->slot[i].key != key || t->slot[i].id != id))
		i = (i + 1) & (t->cap - 1);
	return i;
}

/* Double the table (or make the first one). Returns 0 or -1. */
static int grow(struct cli_form_table *t)
{
	size_t cap = t->cap ? 2 * t->cap : 256;
	struct cli_form_table n = { calloc(cap, sizeof(*n.slot)), cap, 0, 0 };

	if (!n.slot)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		if (t->slot[i].n) {
			n.slot[slot_of(&n, t->slot[i].id, t->slot[i].key)] =
				t->slot[i];
			n.used++;
		}
	}
	free(t->slot);
	n.nomem = t->nomem;
	*t = n;
	return 0;
}

int cli_form_count(struct cli_form_table *t, uint8_t id, uint32_t key)
{
	size_t i;

	if (2 * (t->used + 1) > t->cap && grow(t)) {
		t->nomem = 1;
		return -1;
	}
	i = slot_of(t, id, key);
	if (!t->slot[i].n) {
		t->slot[i].id = id;
		t->slot[i].key = key;
		t->used++;
	}
	t->slot[i].n++;
	return 0;
}

static int by_key(const void *a, const void *b)
{
	uint32_t x = ((const struct cli_form_count *)a)->key;
	uint32_t y = ((const struct cli_form_count *)b)->key;

	return (x > y) - (x < y);
}

size_t cli_form_list(const struct cli_form_table *t, uint8_t id,
		     struct cli_form_count *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < t->cap; i++) {
		if (!t->slot[i].n || t->slot[i].id != id)
			continue;
		if (n < max)
			out[n] = t->slot[i];
		n++;
	}
	qsort(out, n < max ? n : max, sizeof(*out), by_key);
	return n;
}

void cli_form_table_free(struct cli_form_table *t)
{
	free(t->slot);
	memset(t, 0, sizeof(*t));
}
