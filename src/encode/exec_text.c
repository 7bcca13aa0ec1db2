/* Execution records: names, instruction bytes and the text form
 * (docs/exec-record.md). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/exec.h"
#include "etmkit/insn.h"
#include "common/text.h" /* hexval */

static const char *const exc_names[exec_exc_count] = {
	[exec_exc_reset] = "reset", [exec_exc_undef] = "undef",
	[exec_exc_call] = "call", [exec_exc_pabort] = "pabort",
	[exec_exc_dabort] = "dabort", [exec_exc_irq] = "irq",
	[exec_exc_fiq] = "fiq", [exec_exc_debug] = "debug",
};

const char *exec_exc_name(enum exec_exc kind)
{
	return (unsigned)kind < exec_exc_count ? exc_names[kind] : NULL;
}

size_t exec_insn_bytes(const struct exec_rec *r, uint8_t out[4])
{
	if (r->kind != exec_insn ||
	    (r->isa == etmkit_isa_jazelle && r->size > 4))
		return 0;
	return insn_opcode_bytes((enum etmkit_isa)r->isa, r->opcode, r->size,
				 out);
}

/* ---- Reading ------------------------------------------------------------- */

/* Longest line accepted: far more than any valid item needs. */
#define LINE_MAX_LEN 512
#define MAX_TOKENS 12

struct exec_text_reader {
	FILE *file;
	uint64_t line;
	int header_seen;
	char buf[LINE_MAX_LEN + 2];
};

int exec_text_reader_alloc(struct exec_text_reader **out, void *file)
{
	struct exec_text_reader *rd;

	if (!out || !file)
		return -etmkit_err_invalid;
	rd = calloc(1, sizeof(*rd));
	if (!rd)
		return -etmkit_err_nomem;
	rd->file = file;
	*out = rd;
	return 0;
}

void exec_text_reader_free(struct exec_text_reader *rd)
{
	free(rd);
}

uint64_t exec_text_line(const struct exec_text_reader *rd)
{
	return rd ? rd->line : 0;
}

static int fail(struct exec_diag *diag, uint64_t line, const char *msg,
		const char *tok)
{
	if (diag) {
		diag->line = line;
		if (tok)
			snprintf(diag->message, sizeof(diag->message),
				 "%s: '%.60s'", msg, tok);
		else
			snprintf(diag->message, sizeof(diag->message), "%s",
				 msg);
	}
	return -etmkit_err_format;
}

/* A number: 0x-prefixed hexadecimal or decimal, the whole token. */
static int parse_num(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	if (*end)
		return -1;
	/* strtoull treats a leading 0 as octal; the format has no octal */
	if (s[0] == '0' && s[1] && s[1] != 'x' && s[1] != 'X') {
		*v = strtoull(s, &end, 10);
		if (*end)
			return -1;
	}
	/* more than 64 bits: not read as UINT64_MAX */
	return errno == ERANGE ? -1 : 0;
}

static int parse_isa(const char *s)
{
	static const struct { const char *name; uint8_t isa; } names[] = {
		{ "arm", etmkit_isa_arm }, { "thumb", etmkit_isa_thumb },
		{ "thumbee", etmkit_isa_thumbee },
		{ "jazelle", etmkit_isa_jazelle }, { "a64", etmkit_isa_a64 },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name))
			return names[i].isa;
	return -1;
}

/* OPCODE: its digit count gives the size (docs/exec-record.md). */
static int parse_opcode(struct exec_rec *r, const char *s)
{
	size_t n = strlen(s);
	uint32_t v = 0;

	if (n == 0 || n > 8 || n % 2)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int d = hexval(s[i]);
		if (d < 0)
			return -1;
		v = v << 4 | (uint32_t)d;
	}
	r->opcode = v;
	r->size = (uint8_t)(n / 2);
	switch (r->isa) {
	case etmkit_isa_arm:
	case etmkit_isa_a64:
		return r->size == 4 ? 0 : -1;
	case etmkit_isa_thumb:
	case etmkit_isa_thumbee:
		return r->size == 2 || r->size == 4 ? 0 : -1;
	default:
		return 0;
	}
}

static int parse_insn(struct exec_rec *r, char **tok, int ntok,
		      uint64_t line, struct exec_diag *diag)
{
	uint64_t v;
	int isa;

	r->kind = exec_insn;
	if (parse_num(tok[0], &r->addr))
		return fail(diag, line, "bad instruction address", tok[0]);
	if (ntok < 3)
		return fail(diag, line,
			    "an instruction needs ADDRESS ISA OPCODE", NULL);
	isa = parse_isa(tok[1]);
	if (isa < 0)
		return fail(diag, line, "unknown instruction set", tok[1]);
	r->isa = (uint8_t)isa;
	if (parse_opcode(r, tok[2]))
		return fail(diag, line, "bad opcode for its instruction set",
			    tok[2]);
	for (int i = 3; i < ntok; i++) {
		char *t = tok[i];
		if (!strcmp(t, "x")) {
			r->flags |= EXEC_F_COND_FAIL;
		} else if (!strcmp(t, "b") || !strcmp(t, "bi")) {
			if (r->flags & EXEC_F_BRANCH)
				return fail(diag, line, "branch kind given twice",
					    t);
			r->flags |= EXEC_F_BRANCH |
				    (t[1] == 'i' ? EXEC_F_INDIRECT : 0);
		} else if (t[0] == '-' && t[1] == '>') {
			char *colon = strchr(t + 2, ':');
			if (r->flags & EXEC_F_TAKEN)
				return fail(diag, line, "target given twice", t);
			r->target_isa = r->isa;
			if (colon) {
				*colon = 0;
				isa = parse_isa(colon + 1);
				if (isa < 0)
					return fail(diag, line,
						    "unknown instruction set",
						    colon + 1);
				r->target_isa = (uint8_t)isa;
			}
			if (parse_num(t + 2, &r->target))
				return fail(diag, line, "bad branch target", t);
			r->flags |= EXEC_F_TAKEN;
		} else if (!strncmp(t, "c=", 2)) {
			if (parse_num(t + 2, &v) || v > UINT32_MAX)
				return fail(diag, line, "bad cycle count", t);
			r->cycles = (uint32_t)v;
			r->flags |= EXEC_F_CYCLES;
		} else if (!strncmp(t, "sw=", 3)) {
			isa = parse_isa(t + 3);
			if (isa < 0)
				return fail(diag, line,
					    "unknown instruction set", t + 3);
			r->target_isa = (uint8_t)isa;
			r->flags |= EXEC_F_ISA_SWITCH;
		} else {
			return fail(diag, line, "unknown instruction field", t);
		}
	}
	if ((r->flags & EXEC_F_TAKEN) && !(r->flags & EXEC_F_BRANCH))
		return fail(diag, line,
			    "a taken instruction must be a branch (b or bi)",
			    NULL);
	if ((r->flags & EXEC_F_TAKEN) && (r->flags & EXEC_F_COND_FAIL))
		return fail(diag, line,
			    "a condition-failed instruction cannot be taken",
			    NULL);
	if ((r->flags & EXEC_F_TAKEN) && (r->flags & EXEC_F_ISA_SWITCH))
		return fail(diag, line, "sw= and a taken branch together",
			    NULL);
	return 1;
}

/* ld|st ADDRESS SIZE VALUE: a data transfer of the instruction before. */
static int parse_data(struct exec_rec *r, char **tok, int ntok,
		      uint64_t line, struct exec_diag *diag)
{
	uint64_t size;

	r->kind = exec_data;
	r->flags = tok[0][0] == 's' ? EXEC_D_STORE : 0;
	if (ntok != 4)
		return fail(diag, line, "expected ld|st ADDRESS SIZE VALUE",
			    NULL);
	if (parse_num(tok[1], &r->addr))
		return fail(diag, line, "bad data address", tok[1]);
	if (parse_num(tok[2], &size) ||
	    (size != 1 && size != 2 && size != 4 && size != 8))
		return fail(diag, line, "bad data size (1, 2, 4 or 8)", tok[2]);
	r->size = (uint8_t)size;
	if (parse_num(tok[3], &r->value) ||
	    (size < 8 && r->value >> (8 * size)))
		return fail(diag, line, "bad data value (it must fit its size)",
			    tok[3]);
	return 1;
}

static int parse_event(struct exec_rec *r, char **tok, int ntok,
		       uint64_t line, struct exec_diag *diag)
{
	uint64_t v;

	if (!strcmp(tok[0], "gap")) {
		r->kind = exec_gap;
		if (ntok != 1)
			return fail(diag, line, "gap takes no fields", tok[1]);
		return 1;
	}
	if (!strcmp(tok[0], "ts")) {
		r->kind = exec_timestamp;
		if (ntok != 2 || parse_num(tok[1], &r->value))
			return fail(diag, line, "expected ts TIME", NULL);
		return 1;
	}
	if (!strcmp(tok[0], "exc")) {
		r->kind = exec_exception;
		r->number = exec_exc_count;
		for (unsigned k = 0; ntok > 1 && k < exec_exc_count; k++)
			if (!strcmp(tok[1], exc_names[k]))
				r->number = k;
		if (ntok != 3 || r->number == exec_exc_count ||
		    strncmp(tok[2], "ret=", 4) ||
		    parse_num(tok[2] + 4, &r->addr))
			return fail(diag, line,
				    "expected exc KIND ret=ADDRESS (KIND: reset, "
				    "undef, call, pabort, dabort, irq, fiq, "
				    "debug)", NULL);
		return 1;
	}
	if (!strcmp(tok[0], "ld") || !strcmp(tok[0], "st"))
		return parse_data(r, tok, ntok, line, diag);
	if (!strcmp(tok[0], "ctx")) {
		int ns_seen = 0;

		r->kind = exec_context;
		for (int i = 1; i < ntok; i++) {
			char *t = tok[i], *eq = strchr(t, '=');
			if (!eq || parse_num(eq + 1, &v))
				return fail(diag, line, "bad context field", t);
			*eq = 0;
			if (!strcmp(t, "cid") &&
			    !(r->flags & EXEC_CTX_CONTEXTID)) {
				r->value = v;
				r->flags |= EXEC_CTX_CONTEXTID;
			} else if (!strcmp(t, "vmid") && v <= UINT32_MAX &&
				   !(r->flags & EXEC_CTX_VMID)) {
				r->vmid = (uint32_t)v;
				r->flags |= EXEC_CTX_VMID;
			} else if (!strcmp(t, "el") && v <= 3) {
				r->el = (uint8_t)v;
				r->flags |= EXEC_CTX_EL;
			} else if (!strcmp(t, "ns") && v <= 1) {
				r->ns = (uint8_t)v;
				ns_seen = 1;
			} else {
				*eq = '=';
				return fail(diag, line, "bad context field", t);
			}
		}
		/* el and ns go together */
		if (!!(r->flags & EXEC_CTX_EL) != ns_seen)
			return fail(diag, line, "ctx: give el and ns together",
				    NULL);
		if (!r->flags)
			return fail(diag, line, "ctx without fields", NULL);
		return 1;
	}
	return 0;
}

int exec_text_next(struct exec_text_reader *rd, struct exec_rec *r,
		   struct exec_diag *diag)
{
	char *tok[MAX_TOKENS];

	if (!rd || !r)
		return -etmkit_err_invalid;
	for (;;) {
		char *p = rd->buf;
		size_t len;
		int ntok = 0, ret;

		if (!fgets(rd->buf, sizeof(rd->buf), rd->file)) {
			if (ferror(rd->file)) {
				fail(diag, rd->line, "read error", NULL);
				return -etmkit_err_io;
			}
			if (!rd->header_seen)
				return fail(diag, rd->line,
					    "no 'etmkit-exec 1' line: not an "
					    "execution record", NULL);
			return 0;
		}
		rd->line++;
		len = strlen(rd->buf);
		if (!len)   /* fgets() read a byte: a NUL one first */
			return fail(diag, rd->line, "NUL byte in line", NULL);
		if (len > LINE_MAX_LEN && rd->buf[len - 1] != '\n')
			return fail(diag, rd->line, "line too long", NULL);
		/* fgets() stops at a newline or a full buffer: a shorter
		 * string without its newline has a NUL byte in it. */
		if (len && rd->buf[len - 1] != '\n' && !feof(rd->file))
			return fail(diag, rd->line, len < LINE_MAX_LEN ?
				    "NUL byte in line" : "line too long", NULL);
		while (*p) {
			while (*p == ' ' || *p == '\t' || *p == '\r' ||
			       *p == '\n')
				*p++ = 0;
			if (!*p || *p == '#')
				break;
			if (ntok == MAX_TOKENS)
				return fail(diag, rd->line, "too many fields",
					    NULL);
			tok[ntok++] = p;
			while (*p && *p != ' ' && *p != '\t' && *p != '\r' &&
			       *p != '\n')
				p++;
		}
		if (!ntok)
			continue;
		if (!rd->header_seen) {
			if (ntok != 2 || strcmp(tok[0], "etmkit-exec"))
				return fail(diag, rd->line,
					    "expected 'etmkit-exec 1' first: not "
					    "an execution record", NULL);
			if (strcmp(tok[1], "1"))
				return fail(diag, rd->line,
					    "unsupported record version", tok[1]);
			rd->header_seen = 1;
			continue;
		}
		memset(r, 0, sizeof(*r));
		ret = parse_event(r, tok, ntok, rd->line, diag);
		if (ret)
			return ret;
		return parse_insn(r, tok, ntok, rd->line, diag);
	}
}

/* ---- Writing ------------------------------------------------------------- */

struct out {
	char *buf;
	size_t cap, at;
	int err;
};

__attribute__((format(printf, 2, 3)))
static void appendf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->err || o->at >= o->cap) {
		o->err = 1;
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->at, o->cap - o->at, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->cap - o->at)
		o->err = 1;
	else
		o->at += (size_t)n;
}

static void format_insn(struct out *o, const struct exec_rec *r)
{
	if (!r->size || r->size > 4 ||
	    (r->size & 1 && r->isa != etmkit_isa_jazelle) ||
	    r->isa == etmkit_isa_unknown || r->isa == etmkit_isa_reserved) {
		o->err = 1;
		return;
	}
	appendf(o, "0x%llx %s %0*lx", (unsigned long long)r->addr,
		etmkit_isa_name(r->isa), 2 * r->size,
		(unsigned long)r->opcode);
	if (r->flags & EXEC_F_COND_FAIL)
		appendf(o, " x");
	if (r->flags & EXEC_F_BRANCH)
		appendf(o, (r->flags & EXEC_F_INDIRECT) ? " bi" : " b");
	if (r->flags & EXEC_F_TAKEN) {
		appendf(o, " ->0x%llx", (unsigned long long)r->target);
		if (r->target_isa != r->isa)
			appendf(o, ":%s", etmkit_isa_name(r->target_isa));
	}
	if (r->flags & EXEC_F_CYCLES)
		appendf(o, " c=%lu", (unsigned long)r->cycles);
	if (r->flags & EXEC_F_ISA_SWITCH)
		appendf(o, " sw=%s", etmkit_isa_name(r->target_isa));
}

int exec_text_format(char *buf, size_t cap, const struct exec_rec *r)
{
	struct out o = { buf, cap, 0, 0 };

	if (!buf || !r)
		return -etmkit_err_invalid;
	switch (r->kind) {
	case exec_insn:
		format_insn(&o, r);
		break;
	case exec_gap:
		appendf(&o, "gap");
		break;
	case exec_timestamp:
		appendf(&o, "ts 0x%llx", (unsigned long long)r->value);
		break;
	case exec_exception:
		if (r->number >= exec_exc_count)
			return -etmkit_err_invalid;
		appendf(&o, "exc %s ret=0x%llx", exc_names[r->number],
			(unsigned long long)r->addr);
		break;
	case exec_data:
		if ((r->size != 1 && r->size != 2 && r->size != 4 &&
		     r->size != 8) || (r->flags & ~EXEC_D_STORE) ||
		    (r->size < 8 && r->value >> (8 * r->size)))
			return -etmkit_err_invalid;
		appendf(&o, "%s 0x%llx %u 0x%llx",
			(r->flags & EXEC_D_STORE) ? "st" : "ld",
			(unsigned long long)r->addr, r->size,
			(unsigned long long)r->value);
		break;
	case exec_context:
		if (!(r->flags & (EXEC_CTX_CONTEXTID | EXEC_CTX_VMID |
				  EXEC_CTX_EL)))
			return -etmkit_err_invalid;
		appendf(&o, "ctx");
		if (r->flags & EXEC_CTX_CONTEXTID)
			appendf(&o, " cid=0x%llx", (unsigned long long)r->value);
		if (r->flags & EXEC_CTX_VMID)
			appendf(&o, " vmid=0x%lx", (unsigned long)r->vmid);
		if (r->flags & EXEC_CTX_EL)
			appendf(&o, " el=%u ns=%u", r->el, r->ns);
		break;
	default:
		return -etmkit_err_invalid;
	}
	appendf(&o, "\n");
	return o.err ? -etmkit_err_invalid : (int)o.at;
}
