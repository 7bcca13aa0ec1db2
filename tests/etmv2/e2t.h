/* The .e2t test file: a hand-worked ETMv2 case (tests/etmv2/pkt/, and the
 * flow tests that reuse this reader).
 *
 *   # comments anywhere; blank lines ignored
 *   config version=2 port-width=8 etmcr=0x0c latency=1 pipestat=natural
 *          [etmidr=..] [tfo-normal=..] [tfo-lsip=..] [tfo-mask=..]
 *          [tfo-rr-shift=..] [pipestat=IE,DE,... (16 names)]
 *   cycles                 then one cycle a line, as the cycles section of
 *                          docs/etmv2-capture.md: NAME|0xCODE [PKT] [xN]
 *                          [sync], TR/NAME for a trigger over NAME
 *   expect                 then the packet records, one a line
 *                          (e2t_format_pkt() below is the canonical form)
 *   code ADDR arm|thumb    then hex words (any number a line): a code
 *                          block for flow tests (more than one allowed);
 *                          arm: 32-bit words, thumb: one 16-bit halfword
 *                          a word (a 32-bit T32 instruction is two, the
 *                          first halfword first)
 *   expect-elements        then the expected flow elements, one a line
 *
 * Header-only, for tests and fuzzers; allocates with malloc, e2t_free()
 * releases everything. */
#ifndef ETMKIT_TESTS_E2T_H
#define ETMKIT_TESTS_E2T_H

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/etm2.h"

#define E2T_MAX_CODE 8

struct e2t_code {
	uint32_t addr;
	int thumb;
	uint32_t *words;
	size_t n;
};

struct e2t {
	struct etm2_config cfg;
	struct etm2_cycle *cycles;
	size_t n_cycles;
	char **expect;          /* record lines */
	size_t n_expect;
	char **expect_elements; /* flow element lines */
	size_t n_expect_elements;
	struct e2t_code code[E2T_MAX_CODE];
	size_t n_code;
	char err[1000];          /* "path:line: what" */
	char *cyc_text;         /* the cycles block, as read */
	size_t cyc_len, cyc_first_line;
};

/* strtok_r without POSIX: the next token of *@s, or NULL. */
static inline char *e2t_tok(char *line, const char *delim, char **save)
{
	char *s = line ? line : *save, *start;

	if (!s)
		return NULL;
	s += strspn(s, delim);
	if (!*s) {
		*save = s;
		return NULL;
	}
	start = s;
	s += strcspn(s, delim);
	if (*s)
		*s++ = 0;
	*save = s;
	return start;
}

static inline void e2t_free(struct e2t *t)
{
	free(t->cycles);
	for (size_t i = 0; i < t->n_expect; i++)
		free(t->expect[i]);
	free(t->expect);
	for (size_t i = 0; i < t->n_expect_elements; i++)
		free(t->expect_elements[i]);
	free(t->expect_elements);
	for (size_t i = 0; i < t->n_code; i++)
		free(t->code[i].words);
	free(t->cyc_text);
	memset(t, 0, sizeof(*t));
}

static inline int e2t_push_line(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(**v));
	size_t len = strlen(s);

	if (!nv)
		return -1;
	*v = nv;
	nv[*n] = malloc(len + 1);
	if (!nv[*n])
		return -1;
	memcpy(nv[*n], s, len + 1);
	(*n)++;
	return 0;
}

static inline int e2t_cycle_line(struct e2t *t, const char *s, unsigned lineno)
{
	size_t len = strlen(s);
	char *nt = realloc(t->cyc_text, t->cyc_len + len + 2);

	if (!nt)
		return -1;
	if (!t->cyc_len)
		t->cyc_first_line = lineno;
	t->cyc_text = nt;
	memcpy(nt + t->cyc_len, s, len);
	t->cyc_len += len;
	nt[t->cyc_len++] = '\n';
	nt[t->cyc_len] = 0;
	return 0;
}

/* The cycles block through the text capture reader (docs/etmv2-capture.md):
 * a capture text made of the config and the block. */
static inline int e2t_read_cycles(struct e2t *t, const char *path)
{
	size_t cap = t->cyc_len + 512, n = 0;
	char *text = malloc(cap);
	struct etm2_cap_reader *rd = NULL;
	struct etm2_cap_diag diag;
	long got;
	int rc = -1;

	if (!text)
		return -1;
	n += (size_t)snprintf(text, cap, "etmv2-capture 1\nversion %u\nport-width %u\n",
			      t->cfg.version, t->cfg.port_width);
	if (t->cfg.version != 1) {
		n += (size_t)snprintf(text + n, cap - n, "pipestat-table ");
		for (int c = 0; c < 16; c++)
			n += (size_t)snprintf(text + n, cap - n, "%s%s", c ? "," : "",
					      etm2_status_name(t->cfg.pipestat[c]));
		n += (size_t)snprintf(text + n, cap - n, "\n");
	}
	n += (size_t)snprintf(text + n, cap - n, "cycles\n%s", t->cyc_text ? t->cyc_text : "");
	memset(&diag, 0, sizeof(diag));
	if (etm2_cap_open(&rd, (const uint8_t *)text, n, etm2_cap_text, NULL, &diag) == 0) {
		size_t room = 0;
		for (;;) {
			if (t->n_cycles == room) {
				room = room ? 2 * room : 256;
				struct etm2_cycle *nc = realloc(t->cycles, room * sizeof(*nc));
				if (!nc)
					break;
				t->cycles = nc;
			}
			got = etm2_cap_read(rd, t->cycles + t->n_cycles, room - t->n_cycles, &diag);
			if (got <= 0) {
				rc = (int)got;
				break;
			}
			t->n_cycles += (size_t)got;
		}
	}
	if (rc)
		snprintf(t->err, sizeof(t->err), "%s: cycles (block from line %zu): %s",
			 path, t->cyc_first_line, diag.message);
	etm2_cap_close(rd);
	free(text);
	return rc;
}

static inline int e2t_config_line(struct e2t *t, char *line)
{
	char *save = NULL, *tok = e2t_tok(line, " \t", &save);

	while ((tok = e2t_tok(NULL, " \t", &save))) {
		char *eq = strchr(tok, '=');
		if (!eq)
			return -1;
		*eq++ = 0;
		unsigned long v = strtoul(eq, NULL, 0);
		if (!strcmp(tok, "version"))
			t->cfg.version = (uint8_t)v;
		else if (!strcmp(tok, "port-width"))
			t->cfg.port_width = (uint8_t)v;
		else if (!strcmp(tok, "etmcr"))
			t->cfg.etmcr = (uint32_t)v;
		else if (!strcmp(tok, "etmidr"))
			t->cfg.etmidr = (uint32_t)v;
		else if (!strcmp(tok, "latency"))
			t->cfg.fifo_latency = (uint8_t)v;
		else if (!strcmp(tok, "tfo-normal"))
			t->cfg.tfo.normal = (uint8_t)v;
		else if (!strcmp(tok, "tfo-lsip"))
			t->cfg.tfo.lsip = (uint8_t)v;
		else if (!strcmp(tok, "tfo-mask"))
			t->cfg.tfo.mask = (uint8_t)v;
		else if (!strcmp(tok, "tfo-rr-shift"))
			t->cfg.tfo.rr_shift = (uint8_t)v;
		else if (!strcmp(tok, "pipestat")) {
			/* natural, alt or sixteen names (etm2_pipestat_table) */
			if (etm2_pipestat_table(eq, t->cfg.pipestat))
				return -1;
		} else
			return -1;
	}
	return 0;
}

static inline int e2t_code_line(struct e2t_code *c, char *line)
{
	char *save = NULL, *tok;

	for (tok = e2t_tok(line, " \t", &save); tok; tok = e2t_tok(NULL, " \t", &save)) {
		uint32_t *nw = realloc(c->words, (c->n + 1) * sizeof(*nw));
		if (!nw)
			return -1;
		c->words = nw;
		c->words[c->n++] = (uint32_t)strtoul(tok, NULL, 16);
	}
	return 0;
}

/* Read @path into @t. Returns 0, or -1 with t->err filled. */
static inline int e2t_load(struct e2t *t, const char *path)
{
	enum { S_NONE, S_CYCLES, S_EXPECT, S_CODE, S_ELEMS } sec = S_NONE;
	char line[512];
	unsigned lineno = 0;
	FILE *f = fopen(path, "r");

	memset(t, 0, sizeof(*t));
	etm2_config_init(&t->cfg);
	t->cfg.version = 2;
	t->cfg.port_width = 8;
	if (!f) {
		snprintf(t->err, sizeof(t->err), "%s: cannot open", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *s = line, *hash = strchr(line, '#');
		int rc = 0;

		lineno++;
		if (hash)
			*hash = 0;
		while (isspace((unsigned char)*s))
			s++;
		for (size_t l = strlen(s); l && isspace((unsigned char)s[l - 1]); l--)
			s[l - 1] = 0;
		if (!*s)
			continue;
		if (!strncmp(s, "config", 6) && (s[6] == ' ' || !s[6]))
			rc = e2t_config_line(t, s);
		else if (!strcmp(s, "cycles"))
			sec = S_CYCLES;
		else if (!strcmp(s, "expect"))
			sec = S_EXPECT;
		else if (!strcmp(s, "expect-elements"))
			sec = S_ELEMS;
		else if (!strncmp(s, "code ", 5)) {
			char isa[16] = "";
			if (t->n_code == E2T_MAX_CODE ||
			    sscanf(s + 5, "%" SCNx32 " %15s", &t->code[t->n_code].addr, isa) != 2)
				rc = -1;
			else {
				t->code[t->n_code].thumb = !strcmp(isa, "thumb");
				t->n_code++;
				sec = S_CODE;
			}
		} else if (sec == S_CYCLES)
			rc = e2t_cycle_line(t, s, lineno);
		else if (sec == S_EXPECT)
			rc = e2t_push_line(&t->expect, &t->n_expect, s);
		else if (sec == S_ELEMS)
			rc = e2t_push_line(&t->expect_elements, &t->n_expect_elements, s);
		else if (sec == S_CODE)
			rc = e2t_code_line(&t->code[t->n_code - 1], s);
		else
			rc = -1;
		if (rc) {
			snprintf(t->err, sizeof(t->err), "%s:%u: bad line", path, lineno);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return e2t_read_cycles(t, path);
}

/* ---- The canonical record line ---------------------------------------- */

static inline const char *e2t_err_name(int err)
{
	switch (-err) {
	case etmkit_err_bad_packet: return "bad_packet";
	case etmkit_err_truncated: return "truncated";
	default: return "error";
	}
}

static inline const char *e2t_isa(unsigned isa)
{
	return isa == etmkit_isa_thumb ? "thumb" : "arm";
}

/* One record as a line (no newline): "status @7 IE", "branch @8 out=9
 * addr=0x8004 bits=8 bytes=1 arm", ... (tests/etmv2/pkt/ shows each). */
static inline void e2t_format_pkt(const struct etm2_packet *p, char *buf, size_t cap)
{
	static const char *const short_names[etm2_pkt_type_count] = {
		"unsynced", "tfo", "status", "wait", "trigger", "branch",
		"data", "vnt", "lmo", "lmd", "cid", "reserved",
	};
	size_t n = 0;
#define E2T_OUT(...) (n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, __VA_ARGS__))
	const char *tn = p->type < etm2_pkt_type_count ? short_names[p->type] : "invalid";
	const struct etm2_data *d = &p->u.data;

	if (p->error) {
		E2T_OUT("error %s @%" PRIu64, p->type == etm2_pkt_unsynced ? "unsynced" :
			etm2_pkt_type_name(p->type), p->cycle);
		if (p->type != etm2_pkt_unsynced)
			E2T_OUT(" out=%" PRIu64, p->out_cycle);
		E2T_OUT(" %s", e2t_err_name(p->error));
		return;
	}
	E2T_OUT("%s @%" PRIu64, tn, p->cycle);
	switch (p->type) {
	case etm2_pkt_unsynced:
		E2T_OUT(" len=%u", p->length);
		break;
	case etm2_pkt_wait:
		E2T_OUT(" len=%u wt=%u td=%u", p->length, p->u.wait.wt, p->u.wait.td);
		break;
	case etm2_pkt_status:
	case etm2_pkt_trigger:
		E2T_OUT(" %s", etm2_status_name(p->status));
		break;
	case etm2_pkt_tfo: {
		const struct etm2_tfo *f = &p->u.tfo;
		E2T_OUT(" out=%" PRIu64 " N=%u hdr=0x%02x %s 0x%x %s", p->out_cycle,
			f->offset, f->header, etm2_reason_name(f->reason), f->addr,
			e2t_isa(f->isa));
		if (f->context_id_bytes)
			E2T_OUT(" cid=0x%x", f->context_id);
		if (f->lsip)
			E2T_OUT(" lsip next=0x%x %s", f->next_addr, e2t_isa(f->next_isa));
		if (f->first)
			E2T_OUT(" first");
		break;
	}
	case etm2_pkt_branch_address:
		E2T_OUT(" out=%" PRIu64 " addr=0x%x bits=%u bytes=%u %s%s", p->out_cycle,
			p->u.branch.addr, p->u.branch.addr_bits, p->u.branch.addr_bytes,
			e2t_isa(p->u.branch.isa), p->u.branch.isa_change ? " isa_change" : "");
		if (p->u.branch.has_reason) /* ETMv1 */
			E2T_OUT(" reason=%u", p->u.branch.reason);
		if (p->u.branch.first)
			E2T_OUT(" first");
		break;
	case etm2_pkt_normal_data:
	case etm2_pkt_value_not_traced:
	case etm2_pkt_load_miss:
	case etm2_pkt_load_miss_data:
		E2T_OUT(" out=%" PRIu64 " c=%u", p->out_cycle, p->c_bit);
		if (p->type == etm2_pkt_load_miss || p->type == etm2_pkt_load_miss_data)
			E2T_OUT(" tag=%u", d->tag);
		if (p->type == etm2_pkt_normal_data || p->type == etm2_pkt_load_miss)
			E2T_OUT(" a=%u", d->a_bit);
		if (d->has_addr)
			E2T_OUT(" addr=0x%x abytes=%u%s", d->addr, d->addr_bytes,
				d->addr_partial ? " partial" : "");
		if (d->has_value)
			E2T_OUT(" value=0x%x vbytes=%u", d->value, d->value_bytes);
		break;
	case etm2_pkt_context_id:
		E2T_OUT(" out=%" PRIu64 " c=%u 0x%x", p->out_cycle, p->c_bit, p->u.context_id);
		break;
	case etm2_pkt_reserved:
		E2T_OUT(" out=%" PRIu64 " hdr=0x%02x", p->out_cycle, p->raw[0]);
		break;
	default:
		break;
	}
#undef E2T_OUT
}

#endif /* ETMKIT_TESTS_E2T_H */
