/* The text capture form (docs/etmv2-capture.md): a magic line, header
 * lines, `cycles`, then one line per cycle (demultiplexed: per port
 * clock, `A | B`). The file is held in memory; the reader walks it line
 * by line and allocates nothing. */
#include <stdio.h>
#include <string.h>

#include "packets/etmv2/etm2_cap_internal.h"
#include "packets/etmv2/etm2_names.h"

#define MAX_TOKENS 8

/* A line without its comment and line end, split at blanks. */
struct tline {
	const char *tok[MAX_TOKENS];
	unsigned len[MAX_TOKENS];
	unsigned n;
	int too_many;
};

#define TOK(t, i) (int)(t)->len[i] > 40 ? 40 : (int)(t)->len[i], (t)->tok[i]

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Split the line at rd->pos; advance past it and count it. */
static void next_line(struct etm2_cap_reader *rd, struct tline *t)
{
	const char *p = (const char *)rd->data + rd->pos;
	const char *end = (const char *)rd->data + rd->n;
	const char *eol = memchr(p, '\n', (size_t)(end - p));
	const char *hash;

	if (!eol)
		eol = end;
	rd->pos = (size_t)(eol - (const char *)rd->data) + (eol < end);
	rd->line++;
	hash = memchr(p, '#', (size_t)(eol - p));
	if (hash)
		eol = hash;
	t->n = 0;
	t->too_many = 0;
	while (p < eol) {
		const char *s;

		while (p < eol && blank(*p))
			p++;
		if (p == eol)
			break;
		s = p;
		while (p < eol && !blank(*p))
			p++;
		if (t->n == MAX_TOKENS) {
			t->too_many = 1;
			break;
		}
		t->tok[t->n] = s;
		t->len[t->n++] = (unsigned)(p - s);
	}
}

static int tok_is(const struct tline *t, unsigned i, const char *s)
{
	return i < t->n && t->len[i] == strlen(s) && memcmp(t->tok[i], s, t->len[i]) == 0;
}

/* A number: 0x hex or decimal, at most @max. Returns 0 or -1. */
static int parse_num(const char *s, unsigned len, unsigned long max,
		     unsigned long *v)
{
	unsigned long x = 0;
	unsigned base = 10, i = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len)
		return -1;
	for (; i < len; i++) {
		char c = s[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -1;
		if (d > max || x > (max - d) / base)
			return -1;
		x = x * base + d;
	}
	*v = x;
	return 0;
}

/* ---- Header -------------------------------------------------------------- */

static int bad_value(struct etm2_cap_reader *rd, const struct tline *t,
		     struct etm2_cap_diag *diag)
{
	if (t->n != 2)
		etm2_cap_diag_set(diag, rd->line, 0, "line %llu: %.*s takes one value",
				  (unsigned long long)rd->line, TOK(t, 0));
	else
		etm2_cap_diag_set(diag, rd->line, 0, "line %llu: bad value '%.*s' for %.*s",
				  (unsigned long long)rd->line, TOK(t, 1), TOK(t, 0));
	return -etmkit_err_format;
}

/* One header line into @st; @seen has a bit per key. */
static int header_line(struct etm2_cap_reader *rd, const struct tline *t,
		       struct etm2_cap_stated *st, unsigned *seen,
		       struct etm2_cap_diag *diag)
{
	static const char *const keys[] = {
		"version", "port-width", "port-mode", "half-rate", "etmcr",
		"etmidr", "pipestat-table", "demux-order",
	};
	struct etm2_cap_info *in = &st->info;
	unsigned long v = 0;
	unsigned k;
	char name[200];

	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (tok_is(t, 0, keys[k]))
			break;
	if (k == sizeof(keys) / sizeof(keys[0])) {
		etm2_cap_diag_set(diag, rd->line, 0, "line %llu: unknown header line '%.*s'",
				  (unsigned long long)rd->line, TOK(t, 0));
		return -etmkit_err_format;
	}
	if (*seen & (1u << k)) {
		etm2_cap_diag_set(diag, rd->line, 0, "line %llu: %s given twice",
				  (unsigned long long)rd->line, keys[k]);
		return -etmkit_err_format;
	}
	*seen |= 1u << k;
	if (t->n != 2)
		return bad_value(rd, t, diag);
	switch (k) {
	case 0: /* version */
		if (parse_num(t->tok[1], t->len[1], 2, &v) || v < 1)
			return bad_value(rd, t, diag);
		in->version = (uint8_t)v;
		return 0;
	case 1: /* port-width */
		if (parse_num(t->tok[1], t->len[1], 16, &v) ||
		    (v != 4 && v != 8 && v != 16))
			return bad_value(rd, t, diag);
		in->port_width = (uint8_t)v;
		return 0;
	case 2: /* port-mode */
		if (tok_is(t, 1, "normal"))
			in->port_mode = etm2_port_normal;
		else if (tok_is(t, 1, "demultiplexed"))
			in->port_mode = etm2_port_demultiplexed;
		else
			return bad_value(rd, t, diag);
		st->has_mode = 1;
		return 0;
	case 3: /* half-rate */
		if (parse_num(t->tok[1], t->len[1], 1, &v))
			return bad_value(rd, t, diag);
		in->half_rate = (uint8_t)v;
		st->has_half_rate = 1;
		return 0;
	case 4: /* etmcr */
	case 5: /* etmidr */
		if (parse_num(t->tok[1], t->len[1], 0xffffffffu, &v))
			return bad_value(rd, t, diag);
		if (k == 4) {
			in->etmcr = (uint32_t)v;
			in->has_etmcr = 1;
		} else {
			in->etmidr = (uint32_t)v;
			in->has_etmidr = 1;
		}
		return 0;
	case 6: /* pipestat-table */
		if (t->len[1] >= sizeof(name))
			return bad_value(rd, t, diag);
		memcpy(name, t->tok[1], t->len[1]);
		name[t->len[1]] = '\0';
		if (etm2_pipestat_table(name, in->pipestat))
			return bad_value(rd, t, diag);
		in->has_pipestat = 1;
		return 0;
	default: /* demux-order */
		if (tok_is(t, 1, "a-first"))
			in->demux_b_first = 0;
		else if (tok_is(t, 1, "b-first"))
			in->demux_b_first = 1;
		else
			return bad_value(rd, t, diag);
		st->has_order = 1;
		return 0;
	}
}

/* status -> the first code that maps to it in the table names are read
 * with: ETMv1's fixed one, else the capture's (header or options), else
 * "natural". */
static void build_codes(struct etm2_cap_reader *rd)
{
	uint8_t table[16];
	unsigned ncodes = 16;

	memset(rd->code_of, 0xff, sizeof(rd->code_of));
	if (rd->info.version == 1) {
		memcpy(table, etm2_pipestat_v1, 8);
		ncodes = 8;
	} else if (rd->info.has_pipestat) {
		memcpy(table, rd->info.pipestat, 16);
	} else {
		etm2_pipestat_table("natural", table);
	}
	for (unsigned c = ncodes; c-- > 0;)
		if (table[c] < etm2_st_count)
			rd->code_of[table[c]] = (uint8_t)c;
}

int etm2_cap_text_open(struct etm2_cap_reader *rd, const struct etm2_cap_info *opt,
		       struct etm2_cap_diag *diag)
{
	struct etm2_cap_stated st;
	struct tline t;
	unsigned seen = 0;
	int magic = 0, rc;

	memset(&st, 0, sizeof(st));
	while (rd->pos < rd->n) {
		next_line(rd, &t);
		if (!t.n)
			continue;
		if (!magic) {
			if (!tok_is(&t, 0, "etmv2-capture") || t.n != 2) {
				etm2_cap_diag_set(diag, rd->line, 0, "line %llu: not an "
						  "ETMv2 text capture (expected "
						  "\"etmv2-capture 1\")",
						  (unsigned long long)rd->line);
				return -etmkit_err_format;
			}
			if (!tok_is(&t, 1, "1")) {
				etm2_cap_diag_set(diag, rd->line, 0, "line %llu: text "
						  "capture version %.*s (this reader "
						  "knows 1)",
						  (unsigned long long)rd->line, TOK(&t, 1));
				return -etmkit_err_format;
			}
			magic = 1;
			continue;
		}
		if (tok_is(&t, 0, "cycles") && t.n == 1) {
			rc = etm2_cap_merge(rd, &st, opt, diag);
			if (rc)
				return rc;
			build_codes(rd);
			return 0;
		}
		rc = header_line(rd, &t, &st, &seen, diag);
		if (rc)
			return rc;
	}
	etm2_cap_diag_set(diag, rd->line, 0, "line %llu: %s",
			  (unsigned long long)rd->line,
			  magic ? "end of file before the \"cycles\" line" :
			  "not an ETMv2 text capture (expected \"etmv2-capture 1\")");
	return -etmkit_err_format;
}

/* ---- Cycle lines ------------------------------------------------------- */

/* "line N: " and the message; -etmkit_err_format. */
static int line_error(struct etm2_cap_reader *rd, struct etm2_cap_diag *diag,
		      const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int line_error(struct etm2_cap_reader *rd, struct etm2_cap_diag *diag,
		      const char *fmt, ...)
{
	char msg[sizeof(diag->message)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	etm2_cap_diag_set(diag, rd->line, 0, "line %llu: %s",
			  (unsigned long long)rd->line, msg);
	return -etmkit_err_format;
}

/* A token in a message: at most 40 characters. */
#define CUT(len) ((len) > 40 ? 40 : (int)(len))

/* A status name through the table, or a raw code. Returns the code or a
 * negated error. */
static int status_code(struct etm2_cap_reader *rd, const char *s, unsigned len,
		       struct etm2_cap_diag *diag)
{
	unsigned long v;
	int st;

	if (s[0] >= '0' && s[0] <= '9') {
		if (parse_num(s, len, 0xffff, &v))
			return line_error(rd, diag, "bad number '%.*s'", CUT(len), s);
		if (v > etm2_cap_ps_max(&rd->info))
			return line_error(rd, diag, "PIPESTAT code '%.*s' too large "
					  "for the ETM version", CUT(len), s);
		return (int)v;
	}
	st = etm2_status_lookup(s, len);
	if (st < 0)
		return line_error(rd, diag, "unknown status '%.*s'", CUT(len), s);
	if (rd->code_of[st] == 0xff)
		return line_error(rd, diag, "status %.*s has no code in the "
				  "PIPESTAT table", CUT(len), s);
	return rd->code_of[st];
}

/* `STATUS [TRACEPKT] [sync]` (or `TR/STATUS ...`) from tokens [i, j). */
static int cycle_spec(struct etm2_cap_reader *rd, const struct tline *t,
		      unsigned i, unsigned j, struct etm2_cycle *c,
		      struct etm2_cap_diag *diag)
{
	const char *s, *slash;
	unsigned len, code_mask = rd->info.version == 1 ? 7u : 15u;
	int code, replaced = -1;
	unsigned long v;

	if (i == j)
		return line_error(rd, diag, "no status");
	s = t->tok[i];
	len = t->len[i];
	slash = memchr(s, '/', len);
	memset(c, 0, sizeof(*c));
	if (slash) {
		/* TR/NAME: a trigger; TRACEPKT holds NAME's code (Q§6.1.7). */
		unsigned head = (unsigned)(slash - s);

		code = status_code(rd, s, head, diag);
		if (code < 0)
			return code;
		if (code != rd->code_of[etm2_st_tr])
			return line_error(rd, diag, "'%.*s': only a TR cycle names the "
					  "status it replaces", CUT(len), s);
		if (head + 1 == len)
			return line_error(rd, diag, "'%.*s': no status after '/'", CUT(len), s);
		replaced = status_code(rd, slash + 1, len - head - 1, diag);
		if (replaced < 0)
			return replaced;
		c->pkt = (uint16_t)replaced;
	} else {
		code = status_code(rd, s, len, diag);
		if (code < 0)
			return code;
	}
	c->ps = (uint8_t)code;
	i++;
	if (i < j && t->tok[i][0] >= '0' && t->tok[i][0] <= '9') {
		if (parse_num(t->tok[i], t->len[i], 0xffffffffu, &v))
			return line_error(rd, diag, "bad number '%.*s'", CUT(t->len[i]), t->tok[i]);
		if (v > etm2_cap_pkt_max(&rd->info))
			return line_error(rd, diag, "TRACEPKT '%.*s' wider than the "
					  "%u-bit port", CUT(t->len[i]), t->tok[i],
					  rd->info.port_width);
		if (replaced >= 0 && (v & code_mask) != (unsigned)replaced)
			return line_error(rd, diag, "TRACEPKT '%.*s' does not hold the "
					  "replaced status's code", CUT(t->len[i]), t->tok[i]);
		c->pkt = (uint16_t)v;
		i++;
	}
	if (i < j && tok_is(t, i, "sync")) {
		if (rd->info.version != 1)
			return line_error(rd, diag, "'%.*s' (TRACESYNC) is ETMv1 only", CUT(t->len[i]), t->tok[i]);
		c->flags |= ETM2_CYC_TRACESYNC;
		i++;
	}
	if (i < j)
		return line_error(rd, diag, "unexpected '%.*s'", CUT(t->len[i]), t->tok[i]);
	return 0;
}

/* A trailing `xN` of the line: the count, 1 without, or a negated error. */
static long repeat_of(struct etm2_cap_reader *rd, const struct tline *t,
		      unsigned *n, struct etm2_cap_diag *diag)
{
	const char *s = t->tok[*n - 1];
	unsigned len = t->len[*n - 1];
	unsigned long v;

	if (*n < 2 || s[0] != 'x')
		return 1;
	if (parse_num(s + 1, len - 1, ETM2_CAP_MAX_REPEAT, &v) || !v)
		return line_error(rd, diag, "bad repeat '%.*s' (x1 to x16777216)", CUT(len), s);
	(*n)--;
	return (long)v;
}

static int cycle_line(struct etm2_cap_reader *rd, const struct tline *t,
		      struct etm2_cap_diag *diag)
{
	unsigned n = t->n, bar;
	long rep;
	int rc;

	if (t->too_many)
		return line_error(rd, diag, "too many fields");
	rep = repeat_of(rd, t, &n, diag);
	if (rep < 0)
		return (int)rep;
	bar = n;
	for (unsigned i = 0; i < n; i++)
		if (tok_is(t, i, "|"))
			bar = i;
	if (rd->info.port_mode == etm2_port_demultiplexed) {
		if (bar == n)
			return line_error(rd, diag, "expected 'A | B' (a demultiplexed "
					  "port)");
		rc = cycle_spec(rd, t, 0, bar, &rd->pend[0], diag);
		if (!rc)
			rc = cycle_spec(rd, t, bar + 1, n, &rd->pend[1], diag);
		if (rc)
			return rc;
		if (rd->info.demux_b_first) {
			struct etm2_cycle a = rd->pend[0];

			rd->pend[0] = rd->pend[1];
			rd->pend[1] = a;
		}
		rd->pend_n = 2;
	} else {
		if (bar != n)
			return line_error(rd, diag, "'|' in a normal port capture");
		rc = cycle_spec(rd, t, 0, n, &rd->pend[0], diag);
		if (rc)
			return rc;
		rd->pend_n = 1;
	}
	rd->pend_i = 0;
	rd->pend_rep = (uint32_t)rep;
	return 0;
}

long etm2_cap_text_read(struct etm2_cap_reader *rd, struct etm2_cycle *out,
			size_t max, struct etm2_cap_diag *diag)
{
	size_t k = 0;
	struct tline t;

	for (;;) {
		etm2_cap_drain(rd, out, &k, max);
		if (k == max || rd->pos >= rd->n)
			return (long)k;
		next_line(rd, &t);
		if (!t.n)
			continue;
		rd->err = cycle_line(rd, &t, &rd->err_diag);
		if (rd->err) {
			rd->pos = rd->n;
			if (k)
				return (long)k;
			if (diag)
				*diag = rd->err_diag;
			return rd->err;
		}
	}
}
