/* etmkit CLI: execution elements as text lines and as JSON Lines. */
#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "cli.h"
#include "outbuf.h"
#include "symbolize.h"
#include "text_out.h"

static const char *isa_name(unsigned v)
{
	return etmkit_isa_name((enum etmkit_isa)v);
}

/* The status column: what the trace says happened to the instruction. */
static const char *insn_status(const struct etmkit_elem *e)
{
	if (e->flags & ETMKIT_INSN_CANCEL)
		return "cancel";
	if (e->flags & ETMKIT_INSN_COND_FAIL)
		return "fail";
	if (e->flags & ETMKIT_INSN_IMPLIED)
		return "implied";
	return "exec";
}

static unsigned opcode_digits(const struct etmkit_elem *e)
{
	unsigned n = e->size < 4 ? e->size : 4;

	return 2 * n;
}

enum cli_exc_names cli_exc_names_of(enum etmkit_protocol proto,
				    int m_profile)
{
	if (proto == etmkit_proto_ptm)
		return cli_exc_ptm;
	return proto == etmkit_proto_etmv3 && m_profile ? cli_exc_etm3_m
							 : cli_exc_etm3;
}

/* @exc: the source's enum cli_exc_names. PTM's table differs from ETMv3's
 * ARMv7-A/R one in number 5 (IHI 0035B Table 5.6: ThumbEE check fail). */
static const char *exception_name(const struct etmkit_elem *e, int exc)
{
	if (e->flags & ETMKIT_EXC_ETM4)
		return etm4_exception_name(e->u.exception.number, 0);
	if (e->flags & ETMKIT_EXC_LEGACY)
		return etm3_legacy_exception_name(e->u.exception.number);
	if (e->flags & ETMKIT_EXC_VECTOR)
		return etm2_vector_name(e->u.exception.number);
	if (exc == cli_exc_ptm)
		return ptm_exception_name(e->u.exception.number);
	return etm3_exception_name(e->u.exception.number,
				   exc == cli_exc_etm3_m ||
					   (e->flags & ETMKIT_EXC_M_PROFILE));
}

/* ---- Text ---------------------------------------------------------------- */

/* The disassembly's width when the "function+offset (binary)" column
 * follows it (longer texts push the column right). */
#define DIS_WIDTH 32

/* Append @n bytes of @s to @b (room for @cap, NUL kept), cut at the end. */
static size_t tail_put(char *b, size_t at, size_t cap, const char *s,
		       size_t n)
{
	if (n > cap - 1 - at)
		n = cap - 1 - at;
	memcpy(b + at, s, n);
	b[at + n] = '\0';
	return at + n;
}

/* The listing's tail with @w: the disassembly @text padded to DIS_WIDTH,
 * then "sym+0xoff (dso)" or "(dso)", as perf script writes it (the dso by
 * its last path component). Formatted by hand: printf's padding and
 * arguments cost as much again as the rest of the line. */
static void where_tail(char *b, size_t cap, const char *text,
		       const struct cli_where *w)
{
	static const char spaces[DIS_WIDTH + 2] = "                                  ";
	size_t n = strlen(text), at = tail_put(b, 0, cap, text, n);
	char hex[17];
	int k = 16;

	at = tail_put(b, at, cap, spaces,
		      (n < DIS_WIDTH ? DIS_WIDTH - n : 0) + 2);
	at = tail_put(b, at, cap, w->text_pre, strlen(w->text_pre));
	if (w->sym) {
		uint64_t v = w->symoff;

		hex[16] = '\0';
		do {
			hex[--k] = "0123456789abcdef"[v & 0xf];
			v >>= 4;
		} while (v);
		at = tail_put(b, at, cap, hex + k, (size_t)(16 - k));
	}
	tail_put(b, at, cap, w->text_post, strlen(w->text_post));
}

/* decode --lines: "  FILE:LINE" where the line table puts the
 * instruction, then for each inlined call holding it, innermost first,
 * " (F, inlined at FILE:LINE in G, inlined at ... in H)": F the inlined
 * function, G the function it was inlined into, H the outermost. Appended
 * at @at of @b. */
static void lines_tail(char *b, size_t at, size_t cap,
		       const struct cli_where *w)
{
	uint32_t i = w->loc.inl;
	const struct lines_inline *in = lines_inline_at(w->lines, i);

	if (!w->has_line || at >= cap)
		return;
	at += (size_t)snprintf(b + at, cap - at, "  %s:%" PRIu32, w->loc.file,
			       w->loc.line);
	if (in && at < cap)
		at += (size_t)snprintf(b + at, cap - at, " (%s", in->name);
	for (; in && at < cap; in = lines_inline_at(w->lines, in->parent)) {
		const char *outer = in->parent != LINES_NONE ?
			lines_inline_at(w->lines, in->parent)->name :
			lines_func_at(w->lines, in->func)->name;

		at += (size_t)snprintf(b + at, cap - at,
				       ", inlined at %s:%" PRIu32 " in %s",
				       in->call_file ? in->call_file : "??",
				       in->call_line, outer);
	}
	if (w->loc.inl != LINES_NONE && at < cap)
		snprintf(b + at, cap - at, ")");
}

/* The disassembly @text and, with @w, where_tail()'s columns after it;
 * written straight into @o unless where_tail() would cut them (then
 * through its buffer, to write the same bytes). */
static void put_text(struct cli_out *o, const char *text,
		     const struct cli_where *w)
{
	char tail[1024], *p;
	size_t n, pad, npre, npost;

	if (!w) {
		cli_out_str(o, text);
		return;
	}
	n = strlen(text);
	pad = (n < DIS_WIDTH ? DIS_WIDTH - n : 0) + 2;
	npre = strlen(w->text_pre);
	npost = strlen(w->text_post);
	if (n + pad + npre + 16 + npost >= sizeof(tail) || w->lines) {
		where_tail(tail, sizeof(tail), text, w);
		if (w->lines)
			lines_tail(tail, strlen(tail), sizeof(tail), w);
		cli_out_str(o, tail);
		return;
	}
	cli_out_mem(o, text, n);
	cli_out_spaces(o, pad);
	cli_out_mem(o, w->text_pre, npre);
	if (w->sym) {
		p = cli_out_room(o, 16);
		cli_out_end(o, cli_put_hex(p, w->symoff, 0));
	}
	cli_out_mem(o, w->text_post, npost);
}

/* The columns an insn line and an insn_range line share, after the
 * offset and trace ID: address, instruction set, opcode (@opcode,
 * e->size bytes of it), status and cycles, up to the disassembly. At
 * most 90 bytes at @p (names of fixed tables, <= 8 bytes). */
static char *insn_columns(char *p, const struct etmkit_elem *e,
			  uint32_t opcode)
{
	unsigned digits = opcode_digits(e);

	p = cli_put_hex(p, e->addr, 8);
	*p++ = ' ';
	*p++ = ' ';
	p = cli_put_left(p, isa_name(e->isa), 7);
	*p++ = ' ';
	*p++ = ' ';
	p = cli_put_hex(p, opcode, digits);
	p = cli_put_left(p, "", 8 - digits + 2);
	p = cli_put_left(p, insn_status(e), 7);
	*p++ = ' ';
	if (e->flags & ETMKIT_INSN_CYCLES) {
		p = cli_put_udec_w(p, e->cycles, 6);
	} else {
		memcpy(p, "     -", 6);
		p += 6;
	}
	*p++ = ' ';
	*p++ = ' ';
	return p;
}

/* Here, beside the decode lines that write it most. */
char *cli_put_line_head(char *p, uint64_t offset, uint8_t id)
{
	p = cli_put_udec_w(p, offset, 10);
	*p++ = ' ';
	*p++ = ' ';
	p = cli_put_hex(p, id, 2);
	*p++ = ' ';
	*p++ = ' ';
	return p;
}

void cli_out_line_head(struct cli_out *o, uint64_t offset, uint8_t id)
{
	cli_out_end(o, cli_put_line_head(cli_out_room(o, CLI_LINE_HEAD),
					 offset, id));
}

/* Columns: address, instruction set (etmkit_isa_name()), opcode, status,
 * cycles, disassembly, and with @w where it ran (where_tail()); the
 * header of cli_print_elem_header() names them. @bad_image adds the
 * marker of an instruction from an image that is not what ran (README,
 * "decode"). */
static void text_insn(struct cli_out *o, uint8_t id,
		      const struct etmkit_elem *e, struct cli_disasm *dis,
		      int bad_image, const struct cli_where *w)
{
	const char *text = dis ? cli_disasm(dis, e) : "";
	char *p = cli_out_room(o, 128);

	p = cli_put_line_head(p, e->offset, id);
	cli_out_end(o, insn_columns(p, e, e->u.insn.opcode));
	put_text(o, text, w);
	if (bad_image)
		cli_out_lit(o, "  [bad image]");
	cli_out_eol(o);
}

/* An insn_range element (decode --ranges): the first instruction's
 * address, then the last one's opcode, status and disassembly as for an
 * insn line, the range's cycles (the sum of its instructions'), and where
 * the range ends and how many instructions it holds. @w: where its first
 * instruction ran. */
static void text_range(struct cli_out *o, uint8_t id,
		       const struct etmkit_elem *e, struct cli_disasm *dis,
		       int bad_image, const struct cli_where *w)
{
	struct etmkit_elem last = *e;
	const char *text;
	char *p;

	last.kind = etmkit_elem_insn;
	last.addr = e->u.range.end - e->size;
	text = dis ? cli_disasm(dis, &last) : "";
	p = cli_out_room(o, 192);
	p = cli_put_line_head(p, e->offset, id);
	p = insn_columns(p, e, e->u.range.opcode);
	memcpy(p, "to ", 3);
	p = cli_put_hex(p + 3, e->u.range.end, 8);
	*p++ = ' ';
	p = cli_put_udec_w(p, e->u.range.count, 0);
	memcpy(p, " insns: ", 8);
	cli_out_end(o, p + 8);
	put_text(o, text, w);
	if (bad_image)
		cli_out_lit(o, "  [bad image]");
	cli_out_eol(o);
}

/* " NAME=0x" and @v in hex, at least @width digits. */
static void put_hex_field(struct cli_out *o, const char *name, uint64_t v,
			  unsigned width)
{
	cli_out_str(o, name);
	cli_out_hex(o, v, width);
}

static void text_data(struct cli_out *o, const struct etmkit_elem *e)
{
	cli_out_lit(o, "data");
	if (e->flags & ETMKIT_DATA_INSN)
		put_hex_field(o, " insn=0x", e->addr, 8);
	if (e->flags & ETMKIT_DATA_ADDR) {
		put_hex_field(o, " addr=0x", e->u.data.data_addr, 8);
		if (e->flags & ETMKIT_DATA_BE)
			cli_out_lit(o, " be");
	}
	if (e->flags & ETMKIT_DATA_VALUE) {
		put_hex_field(o, " value=0x", e->u.data.value, 0);
		cli_out_lit(o, " size=");
		cli_out_udec(o, e->size);
	}
	if (e->flags & ETMKIT_DATA_OOO) {
		cli_out_lit(o, " ooo tag=");
		cli_out_udec(o, e->u.data.tag);
		if (e->u.data.half) {
			cli_out_lit(o, " half=");
			cli_out_udec(o, e->u.data.half);
		}
	}
	if (e->flags & ETMKIT_DATA_STORE_FAILED)
		cli_out_lit(o, " store_failed");
	if (e->flags & ETMKIT_DATA_SUPPRESSED)
		cli_out_lit(o, " suppressed");
	cli_out_eol(o);
}

/* " addr=0x%08x isa=NAME" (with @key for "addr"). */
static void put_addr_isa(struct cli_out *o, const char *key,
			 const struct etmkit_elem *e)
{
	put_hex_field(o, key, e->addr, 8);
	cli_out_lit(o, " isa=");
	cli_out_str(o, isa_name(e->isa));
}

static void text_event(struct cli_out *o, const struct etmkit_elem *e,
		       int exc)
{
	const char *name = etmkit_elem_kind_name(e->kind);

	cli_out_str(o, name);
	switch (e->kind) {
	case etmkit_elem_trace_on:
		cli_out_lit(o, " reason=");
		cli_out_str(o, etmkit_trace_on_reason_name(e->u.trace_on.reason));
		if (e->isa != etmkit_isa_unknown)
			put_addr_isa(o, " addr=0x", e);
		if (e->flags & ETMKIT_TRACE_ON_CYCLES) {
			cli_out_lit(o, " gap_cycles=");
			cli_out_udec(o, e->cycles);
		}
		break;
	case etmkit_elem_context:
		if (e->flags & ETMKIT_CTX_EL) {
			cli_out_lit(o, " el=");
			cli_out_udec(o, e->u.context.el);
			cli_out_char(o, ' ');
			cli_out_str(o, etmkit_sec_name(e->u.context.sec));
			cli_out_str(o, e->u.context.aarch64 ? " aarch64" :
							       " aarch32");
		} else {
			cli_out_lit(o, " ns=");
			cli_out_udec(o, e->u.context.ns);
			cli_out_lit(o, " hyp=");
			cli_out_udec(o, e->u.context.hyp);
		}
		if (e->flags & ETMKIT_CTX_CONTEXT_ID)
			put_hex_field(o, " context_id=0x",
				      e->u.context.context_id, 0);
		if (e->flags & ETMKIT_CTX_VMID) {
			cli_out_lit(o, " vmid=");
			cli_out_udec(o, e->u.context.vmid);
		}
		break;
	case etmkit_elem_exception:
		cli_out_char(o, ' ');
		cli_out_udec(o, e->u.exception.number);
		cli_out_char(o, '(');
		cli_out_str(o, exception_name(e, exc));
		cli_out_char(o, ')');
		/* ETMv4/ETE: the handler comes in the next address. */
		if (e->isa != etmkit_isa_unknown)
			put_addr_isa(o, " handler=0x", e);
		if (e->flags & ETMKIT_EXC_RET_ADDR)
			put_hex_field(o, " ret=0x", e->u.exception.ret_addr, 8);
		if (e->flags & ETMKIT_EXC_CANCEL)
			cli_out_lit(o, " cancel");
		if (e->flags & ETMKIT_EXC_LEGACY)
			cli_out_lit(o, " legacy");
		if (e->flags & ETMKIT_EXC_RESUME) {
			cli_out_lit(o, " resume=");
			cli_out_udec(o, e->u.exception.resume);
		}
		break;
	case etmkit_elem_exception_return:
		if (e->flags & ETMKIT_EXC_CANCEL)
			cli_out_lit(o, " cancel");
		break;
	case etmkit_elem_timestamp:
		cli_out_char(o, ' ');
		cli_out_udec(o, e->u.timestamp.value);
		if (e->flags & ETMKIT_TS_CLOCK_CHANGE)
			cli_out_lit(o, " clock_change");
		break;
	case etmkit_elem_cycle_count:
		if (e->flags & ETMKIT_CC_UNKNOWN) {
			cli_out_lit(o, " unknown");
		} else {
			cli_out_char(o, ' ');
			cli_out_udec(o, e->cycles);
		}
		break;
	case etmkit_elem_gap:
		cli_out_lit(o, " reason=");
		cli_out_str(o, etmkit_loss_name(e->u.loss.reason));
		if (e->u.loss.why) {
			cli_out_lit(o, ": ");
			cli_out_str(o, e->u.loss.why);
		}
		break;
	case etmkit_elem_no_image:
		put_addr_isa(o, " addr=0x", e);
		cli_out_lit(o, " reason=");
		cli_out_str(o, etmkit_loss_name(e->u.loss.reason));
		break;
	case etmkit_elem_event:
		put_hex_field(o, " bits=0x", e->u.event.bits, 0);
		break;
	case etmkit_elem_instrumentation:
		put_hex_field(o, " value=0x", e->u.ite.value, 0);
		cli_out_lit(o, " el=");
		cli_out_udec(o, e->u.ite.el);
		break;
	case etmkit_elem_transaction:
		cli_out_char(o, ' ');
		cli_out_str(o, etmkit_txn_name(e->u.txn.what));
		break;
	case etmkit_elem_q:
		put_hex_field(o, " from=0x", e->addr, 8);
		cli_out_lit(o, " count=");
		cli_out_udec(o, e->u.q.count);
		put_hex_field(o, " target=0x", e->u.q.target, 8);
		break;
	default:
		break;
	}
	cli_out_eol(o);
}

void cli_print_elem_header(struct cli_out *o, int where)
{
	cli_out_lit(o, "#   offset  id  address   isa      opcode    status  "
		    "cycles  ");
	if (where) {
		cli_out_str_left(o, "disassembly", DIS_WIDTH);
		cli_out_lit(o, "  function+offset (binary)");
	} else {
		cli_out_lit(o, "disassembly");
	}
	cli_out_eol(o);
}

void cli_print_elem_text(struct cli_out *o, uint8_t id,
			 const struct etmkit_elem *e, int exc,
			 struct cli_disasm *dis, int bad_image,
			 const struct cli_where *w)
{
	if (e->kind == etmkit_elem_insn) {
		text_insn(o, id, e, dis, bad_image, w);
		return;
	}
	if (e->kind == etmkit_elem_insn_range) {
		text_range(o, id, e, dis, bad_image, w);
		return;
	}
	cli_out_line_head(o, e->offset, id);
	if (e->kind == etmkit_elem_data)
		text_data(o, e);
	else
		text_event(o, e, exc);
}

/* ---- JSON ---------------------------------------------------------------- */

/* Addresses, opcodes, data values, timestamps, context IDs and VMIDs are
 * written as "0x..." strings (docs/json.md): JSON parsers that read numbers
 * as doubles (JavaScript, jq) would round 64-bit ones silently. */

/* ,"NAME":true when @on (@name a string literal). */
#define json_flag(o, on, name) \
	do { \
		if (on) \
			cli_out_lit(o, ",\"" name "\":true"); \
	} while (0)

/* The key of each field below is a string literal, its length known when
 * compiled: json_hex(o, ",\"KEY\":\"0x", v) and so on. */

/* ,"KEY":"0x..." ("%s" then "0x%" PRIx64 "\""); @key holds ,"KEY":"0x */
#define json_hex(o, key, v) json_hex_n(o, key, sizeof(key) - 1, v)
static void json_hex_n(struct cli_out *o, const char *key, size_t klen,
		       uint64_t v)
{
	cli_out_mem(o, key, klen);
	cli_out_hex(o, v, 0);
	cli_out_char(o, '"');
}

/* ,"KEY":N; @key holds ,"KEY": */
#define json_num cli_out_key_udec

/* ,"KEY":"NAME"; @key holds ,"KEY":" (names need no escapes) */
#define json_name(o, key, name) json_name_n(o, key, sizeof(key) - 1, name)
static void json_name_n(struct cli_out *o, const char *key, size_t klen,
			const char *name)
{
	cli_out_mem(o, key, klen);
	cli_out_str(o, name);
	cli_out_char(o, '"');
}

/* Where it ran (docs/json.md): "dso", and "sym" with "symoff" when the
 * binary has a symbol there (the strings formatted once per span). */
static void json_where(struct cli_out *o, const struct cli_where *w)
{
	cli_out_str(o, w->json);
	if (w->sym)
		json_num(o, ",\"symoff\":", w->symoff);
}

/* decode --lines (docs/json.md): "file", "line", "column" when known,
 * and "inline": the inlined calls holding the instruction, innermost
 * first, each {"func", "call_file", "call_line"}. */
static void json_lines(struct cli_out *o, const struct cli_where *w)
{
	uint32_t i = w->loc.inl;
	const char *sep = ",\"inline\":[";

	cli_out_lit(o, ",\"file\":");
	cli_out_json_string(o, w->loc.file);
	json_num(o, ",\"line\":", w->loc.line);
	if (w->loc.column)
		json_num(o, ",\"column\":", w->loc.column);
	while (i != LINES_NONE) {
		const struct lines_inline *in = lines_inline_at(w->lines, i);

		if (!in)
			break;
		cli_out_str(o, sep);
		cli_out_lit(o, "{\"func\":");
		cli_out_json_string(o, in->name);
		if (in->call_file) {
			cli_out_lit(o, ",\"call_file\":");
			cli_out_json_string(o, in->call_file);
		}
		json_num(o, ",\"call_line\":", in->call_line);
		cli_out_char(o, '}');
		sep = ",";
		i = in->parent;
	}
	if (w->loc.inl != LINES_NONE)
		cli_out_char(o, ']');
}

/* Cycles and the status flags of an insn element, or of an insn_range's
 * last instruction (u.range's class_flags is where u.insn's is). */
_Static_assert(offsetof(struct etmkit_elem, u.range.class_flags) ==
	       offsetof(struct etmkit_elem, u.insn.class_flags),
	       "json_insn_status() reads either");

static void json_insn_status(struct cli_out *o, const struct etmkit_elem *e)
{
	if (e->flags & ETMKIT_INSN_CYCLES)
		json_num(o, ",\"cycles\":", e->cycles);
	json_flag(o, e->flags & ETMKIT_INSN_COND_FAIL, "cond_fail");
	json_flag(o, e->flags & ETMKIT_INSN_CANCEL, "cancel");
	json_flag(o, e->flags & ETMKIT_INSN_IMPLIED, "implied");
	json_flag(o, e->flags & ETMKIT_INSN_P0, "p0");
	json_flag(o, e->u.insn.class_flags & (INSN_F_UNDEFINED | INSN_F_UDF),
		  "undefined");
}

/* The fields every insn and insn_range record has, written at @p with
 * room known (at most 160 bytes: names of fixed tables, <= 8 bytes). */
#define put_lit(p, lit) \
	(memcpy((p), "" lit "", sizeof(lit) - 1), (p) + sizeof(lit) - 1)

/* "0x..." */
static char *put_json_hex(char *p, uint64_t v)
{
	p = put_lit(p, "\"0x");
	p = cli_put_hex(p, v, 0);
	*p++ = '"';
	return p;
}

/* ,"size":N,"isa":"NAME","opcode":"0x...","exec":BOOL */
static char *json_size_isa_opcode(char *p, const struct etmkit_elem *e,
				  uint32_t opcode)
{
	p = put_lit(p, ",\"size\":");
	p = cli_put_udec_w(p, e->size, 0);
	p = put_lit(p, ",\"isa\":\"");
	p = cli_put_left(p, isa_name(e->isa), 0);
	p = put_lit(p, "\",\"opcode\":");
	p = put_json_hex(p, opcode);
	if (e->flags & ETMKIT_INSN_EXEC)
		return put_lit(p, ",\"exec\":true");
	return put_lit(p, ",\"exec\":false");
}

static void json_insn(struct cli_out *o, const struct etmkit_elem *e,
		      const struct cli_where *w)
{
	char *p = cli_out_room(o, 160);

	p = put_lit(p, ",\"addr\":");
	p = put_json_hex(p, e->addr);
	cli_out_end(o, json_size_isa_opcode(p, e, e->u.insn.opcode));
	json_insn_status(o, e);
	if (w)
		json_where(o, w);
	if (w && w->has_line)
		json_lines(o, w);
}

/* An insn_range element (decode --ranges): as an insn record of its last
 * instruction (size, opcode, status flags), but for addr (the first
 * instruction's), end, count and cycles (the sum of its instructions');
 * dso and sym are where the first instruction ran. */
static void json_range(struct cli_out *o, const struct etmkit_elem *e,
		       const struct cli_where *w)
{
	char *p = cli_out_room(o, 160);

	p = put_lit(p, ",\"addr\":");
	p = put_json_hex(p, e->addr);
	p = put_lit(p, ",\"end\":");
	p = put_json_hex(p, e->u.range.end);
	p = put_lit(p, ",\"count\":");
	p = cli_put_udec_w(p, e->u.range.count, 0);
	cli_out_end(o, json_size_isa_opcode(p, e, e->u.range.opcode));
	if (e->u.range.repeats)
		json_num(o, ",\"repeats\":", e->u.range.repeats);
	json_insn_status(o, e);
	if (w)
		json_where(o, w);
}

static void json_data(struct cli_out *o, const struct etmkit_elem *e)
{
	if (e->flags & ETMKIT_DATA_INSN)
		json_hex(o, ",\"insn_addr\":\"0x", e->addr);
	if (e->flags & ETMKIT_DATA_ADDR)
		json_hex(o, ",\"data_addr\":\"0x", e->u.data.data_addr);
	json_flag(o, e->flags & ETMKIT_DATA_BE, "be");
	if (e->flags & ETMKIT_DATA_VALUE) {
		json_hex(o, ",\"value\":\"0x", e->u.data.value);
		json_num(o, ",\"size\":", e->size);
	}
	if (e->flags & ETMKIT_DATA_OOO) {
		json_num(o, ",\"ooo\":true,\"tag\":", e->u.data.tag);
		if (e->u.data.half)
			json_num(o, ",\"half\":", e->u.data.half);
	}
	json_flag(o, e->flags & ETMKIT_DATA_STORE_FAILED, "store_failed");
	json_flag(o, e->flags & ETMKIT_DATA_SUPPRESSED, "suppressed");
}

/* ,"addr":"0x...","isa":"NAME" */
static void json_addr_isa(struct cli_out *o, const struct etmkit_elem *e)
{
	json_hex(o, ",\"addr\":\"0x", e->addr);
	json_name(o, ",\"isa\":\"", isa_name(e->isa));
}

static void json_event(struct cli_out *o, const struct etmkit_elem *e,
		       int exc)
{
	switch (e->kind) {
	case etmkit_elem_trace_on:
		json_name(o, ",\"reason\":\"",
			  etmkit_trace_on_reason_name(e->u.trace_on.reason));
		if (e->isa != etmkit_isa_unknown)
			json_addr_isa(o, e);
		if (e->flags & ETMKIT_TRACE_ON_CYCLES)
			json_num(o, ",\"gap_cycles\":", e->cycles);
		break;
	case etmkit_elem_context:
		if (e->flags & ETMKIT_CTX_EL) {
			json_num(o, ",\"el\":", e->u.context.el);
			json_name(o, ",\"sec\":\"",
				  etmkit_sec_name(e->u.context.sec));
			cli_out_str(o, e->u.context.aarch64 ?
				    ",\"aarch64\":true" : ",\"aarch64\":false");
		} else {
			json_num(o, ",\"ns\":", e->u.context.ns);
			json_num(o, ",\"hyp\":", e->u.context.hyp);
		}
		if (e->flags & ETMKIT_CTX_CONTEXT_ID)
			json_hex(o, ",\"context_id\":\"0x",
				 e->u.context.context_id);
		if (e->flags & ETMKIT_CTX_VMID)
			json_hex(o, ",\"vmid\":\"0x", e->u.context.vmid);
		break;
	case etmkit_elem_exception:
		json_num(o, ",\"number\":", e->u.exception.number);
		json_name(o, ",\"name\":\"", exception_name(e, exc));
		if (e->isa != etmkit_isa_unknown)
			json_addr_isa(o, e);
		if (e->flags & ETMKIT_EXC_RET_ADDR)
			json_hex(o, ",\"ret_addr\":\"0x", e->u.exception.ret_addr);
		json_flag(o, e->flags & ETMKIT_EXC_CANCEL, "cancel");
		json_flag(o, e->flags & ETMKIT_EXC_LEGACY, "legacy");
		if (e->flags & ETMKIT_EXC_RESUME)
			json_num(o, ",\"resume\":", e->u.exception.resume);
		break;
	case etmkit_elem_exception_return:
		json_flag(o, e->flags & ETMKIT_EXC_CANCEL, "cancel");
		break;
	case etmkit_elem_timestamp:
		json_hex(o, ",\"value\":\"0x", e->u.timestamp.value);
		json_flag(o, e->flags & ETMKIT_TS_CLOCK_CHANGE, "clock_change");
		break;
	case etmkit_elem_cycle_count:
		if (e->flags & ETMKIT_CC_UNKNOWN)
			json_flag(o, 1, "unknown");
		else
			json_num(o, ",\"cycles\":", e->cycles);
		break;
	case etmkit_elem_gap:
		json_name(o, ",\"reason\":\"", etmkit_loss_name(e->u.loss.reason));
		if (e->u.loss.why) {
			cli_out_lit(o, ",\"why\":");
			cli_out_json_string(o, e->u.loss.why);
		}
		break;
	case etmkit_elem_no_image:
		json_addr_isa(o, e);
		json_name(o, ",\"reason\":\"", etmkit_loss_name(e->u.loss.reason));
		break;
	case etmkit_elem_event:
		json_num(o, ",\"bits\":", e->u.event.bits);
		break;
	case etmkit_elem_instrumentation:
		json_hex(o, ",\"value\":\"0x", e->u.ite.value);
		json_num(o, ",\"el\":", e->u.ite.el);
		break;
	case etmkit_elem_transaction:
		json_name(o, ",\"what\":\"", etmkit_txn_name(e->u.txn.what));
		break;
	case etmkit_elem_q:
		json_hex(o, ",\"addr\":\"0x", e->addr);
		json_num(o, ",\"count\":", e->u.q.count);
		json_hex(o, ",\"target\":\"0x", e->u.q.target);
		break;
	default:
		break;
	}
}

void cli_print_elem_json(struct cli_out *o, uint8_t id,
			 const struct etmkit_elem *e, int exc,
			 const struct cli_where *w, const struct cli_task *t)
{
	char *p = cli_out_room(o, 80);

	/* {"kind":"NAME","id":N,"offset":N (kind names: <= 20 bytes) */
	p = put_lit(p, "{\"kind\":\"");
	p = cli_put_left(p, etmkit_elem_kind_name(e->kind), 0);
	p = put_lit(p, "\",\"id\":");
	p = cli_put_udec_w(p, id, 0);
	p = put_lit(p, ",\"offset\":");
	cli_out_end(o, cli_put_udec_w(p, e->offset, 0));
	if (t && t->has_cpu)
		json_num(o, ",\"cpu\":", t->cpu);
	if (t && t->has_tid) {
		json_num(o, ",\"pid\":", t->pid);
		json_num(o, ",\"tid\":", t->tid);
	}
	if (e->kind == etmkit_elem_insn)
		json_insn(o, e, w);
	else if (e->kind == etmkit_elem_insn_range)
		json_range(o, e, w);
	else if (e->kind == etmkit_elem_data)
		json_data(o, e);
	else
		json_event(o, e, exc);
	cli_out_char(o, '}');
	cli_out_eol(o);
}
