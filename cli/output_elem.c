/* etmkit CLI: execution elements as text lines and as JSON Lines. */
#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "cli.h"
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

static const char *exception_name(const struct etmkit_elem *e, int m_profile)
{
	if (e->flags & ETMKIT_EXC_ETM4)
		return etm4_exception_name(e->u.exception.number, 0);
	if (e->flags & ETMKIT_EXC_LEGACY)
		return etm3_legacy_exception_name(e->u.exception.number);
	return etm3_exception_name(e->u.exception.number,
				   m_profile || (e->flags & ETMKIT_EXC_M_PROFILE));
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

/* Columns: address, instruction set (etmkit_isa_name()), opcode, status,
 * cycles, disassembly, and with @w where it ran (where_tail()); the
 * header of cli_print_elem_header() names them. @bad_image adds the
 * marker of an instruction from an image that is not what ran (README,
 * "decode"). */
static void text_insn(FILE *f, const struct etmkit_elem *e,
		      struct cli_disasm *dis, int bad_image,
		      const struct cli_where *w)
{
	char cyc[16] = "-", tail[1024];
	const char *text = dis ? cli_disasm(dis, e) : "";

	if (e->flags & ETMKIT_INSN_CYCLES)
		snprintf(cyc, sizeof(cyc), "%" PRIu32, e->cycles);
	if (w) {
		where_tail(tail, sizeof(tail), text, w);
		if (w->lines)
			lines_tail(tail, strlen(tail), sizeof(tail), w);
		text = tail;
	}
	fprintf(f, "%08" PRIx64 "  %-7s  %0*" PRIx32 "%*s  %-7s %6s  %s%s\n",
		e->addr, isa_name(e->isa), (int)opcode_digits(e),
		e->u.insn.opcode, (int)(8 - opcode_digits(e)), "",
		insn_status(e), cyc, text, bad_image ? "  [bad image]" : "");
}

/* An insn_range element (decode --ranges): the first instruction's
 * address, then the last one's opcode, status and disassembly as for an
 * insn line, the range's cycles (the sum of its instructions'), and where
 * the range ends and how many instructions it holds. @w: where its first
 * instruction ran. */
static void text_range(FILE *f, const struct etmkit_elem *e,
		       struct cli_disasm *dis, int bad_image,
		       const struct cli_where *w)
{
	char cyc[16] = "-", head[64], tail[1024];
	struct etmkit_elem last = *e;
	const char *text;

	last.kind = etmkit_elem_insn;
	last.addr = e->u.range.end - e->size;
	text = dis ? cli_disasm(dis, &last) : "";
	if (e->flags & ETMKIT_INSN_CYCLES)
		snprintf(cyc, sizeof(cyc), "%" PRIu32, e->cycles);
	snprintf(head, sizeof(head), "to %08" PRIx64 " %" PRIu32 " insns: ",
		 e->u.range.end, e->u.range.count);
	if (w) {
		where_tail(tail, sizeof(tail), text, w);
		text = tail;
	}
	fprintf(f, "%08" PRIx64 "  %-7s  %0*" PRIx32 "%*s  %-7s %6s  %s%s%s\n",
		e->addr, isa_name(e->isa), (int)opcode_digits(e),
		e->u.range.opcode, (int)(8 - opcode_digits(e)), "",
		insn_status(e), cyc, head, text,
		bad_image ? "  [bad image]" : "");
}

static void text_data(FILE *f, const struct etmkit_elem *e)
{
	fputs("data", f);
	if (e->flags & ETMKIT_DATA_INSN)
		fprintf(f, " insn=0x%08" PRIx64, e->addr);
	if (e->flags & ETMKIT_DATA_ADDR)
		fprintf(f, " addr=0x%08" PRIx64 "%s", e->u.data.data_addr,
			(e->flags & ETMKIT_DATA_BE) ? " be" : "");
	if (e->flags & ETMKIT_DATA_VALUE)
		fprintf(f, " value=0x%" PRIx64 " size=%u", e->u.data.value,
			e->size);
	if (e->flags & ETMKIT_DATA_OOO) {
		fprintf(f, " ooo tag=%u", e->u.data.tag);
		if (e->u.data.half)
			fprintf(f, " half=%u", e->u.data.half);
	}
	if (e->flags & ETMKIT_DATA_STORE_FAILED)
		fputs(" store_failed", f);
	if (e->flags & ETMKIT_DATA_SUPPRESSED)
		fputs(" suppressed", f);
	fputc('\n', f);
}

static void text_event(FILE *f, const struct etmkit_elem *e, int m_profile)
{
	const char *name = etmkit_elem_kind_name(e->kind);

	switch (e->kind) {
	case etmkit_elem_trace_on:
		fprintf(f, "%s reason=%s", name,
			etmkit_trace_on_reason_name(e->u.trace_on.reason));
		if (e->isa != etmkit_isa_unknown)
			fprintf(f, " addr=0x%08" PRIx64 " isa=%s", e->addr,
				isa_name(e->isa));
		if (e->flags & ETMKIT_TRACE_ON_CYCLES)
			fprintf(f, " gap_cycles=%" PRIu32, e->cycles);
		break;
	case etmkit_elem_context:
		if (e->flags & ETMKIT_CTX_EL)
			fprintf(f, "%s el=%u %s %s", name, e->u.context.el,
				etmkit_sec_name(e->u.context.sec),
				e->u.context.aarch64 ? "aarch64" : "aarch32");
		else
			fprintf(f, "%s ns=%u hyp=%u", name, e->u.context.ns,
				e->u.context.hyp);
		if (e->flags & ETMKIT_CTX_CONTEXT_ID)
			fprintf(f, " context_id=0x%" PRIx32,
				e->u.context.context_id);
		if (e->flags & ETMKIT_CTX_VMID)
			fprintf(f, " vmid=%" PRIu32, e->u.context.vmid);
		break;
	case etmkit_elem_exception:
		fprintf(f, "%s %u(%s)", name, e->u.exception.number,
			exception_name(e, m_profile));
		/* ETMv4/ETE: the handler comes in the next address. */
		if (e->isa != etmkit_isa_unknown)
			fprintf(f, " handler=0x%08" PRIx64 " isa=%s", e->addr,
				isa_name(e->isa));
		if (e->flags & ETMKIT_EXC_RET_ADDR)
			fprintf(f, " ret=0x%08" PRIx64, e->u.exception.ret_addr);
		if (e->flags & ETMKIT_EXC_CANCEL)
			fputs(" cancel", f);
		if (e->flags & ETMKIT_EXC_LEGACY)
			fputs(" legacy", f);
		if (e->flags & ETMKIT_EXC_RESUME)
			fprintf(f, " resume=%u", e->u.exception.resume);
		break;
	case etmkit_elem_exception_return:
		fputs(name, f);
		if (e->flags & ETMKIT_EXC_CANCEL)
			fputs(" cancel", f);
		break;
	case etmkit_elem_timestamp:
		fprintf(f, "%s %" PRIu64 "%s", name, e->u.timestamp.value,
			(e->flags & ETMKIT_TS_CLOCK_CHANGE) ? " clock_change" : "");
		break;
	case etmkit_elem_cycle_count:
		if (e->flags & ETMKIT_CC_UNKNOWN)
			fprintf(f, "%s unknown", name);
		else
			fprintf(f, "%s %" PRIu32, name, e->cycles);
		break;
	case etmkit_elem_gap:
		fprintf(f, "%s reason=%s%s%s", name,
			etmkit_loss_name(e->u.loss.reason),
			e->u.loss.why ? ": " : "",
			e->u.loss.why ? e->u.loss.why : "");
		break;
	case etmkit_elem_no_image:
		fprintf(f, "%s addr=0x%08" PRIx64 " isa=%s reason=%s", name,
			e->addr, isa_name(e->isa),
			etmkit_loss_name(e->u.loss.reason));
		break;
	case etmkit_elem_event:
		fprintf(f, "%s bits=0x%x", name, e->u.event.bits);
		break;
	case etmkit_elem_instrumentation:
		fprintf(f, "%s value=0x%" PRIx64 " el=%u", name,
			e->u.ite.value, e->u.ite.el);
		break;
	case etmkit_elem_transaction:
		fprintf(f, "%s %s", name, etmkit_txn_name(e->u.txn.what));
		break;
	case etmkit_elem_q:
		fprintf(f, "%s from=0x%08" PRIx64 " count=%" PRIu32
			" target=0x%08" PRIx64, name, e->addr, e->u.q.count,
			e->u.q.target);
		break;
	default:
		fputs(name, f);
		break;
	}
	fputc('\n', f);
}

void cli_print_elem_header(FILE *f, int where)
{
	fputs("#   offset  id  address   isa      opcode    status  cycles  ", f);
	if (where)
		fprintf(f, "%-*s  function+offset (binary)\n", DIS_WIDTH,
			"disassembly");
	else
		fputs("disassembly\n", f);
}

void cli_print_elem_text(FILE *f, uint8_t id, const struct etmkit_elem *e,
			 int m_profile, struct cli_disasm *dis, int bad_image,
			 const struct cli_where *w)
{
	fprintf(f, "%10" PRIu64 "  %02x  ", e->offset, id);
	if (e->kind == etmkit_elem_insn)
		text_insn(f, e, dis, bad_image, w);
	else if (e->kind == etmkit_elem_insn_range)
		text_range(f, e, dis, bad_image, w);
	else if (e->kind == etmkit_elem_data)
		text_data(f, e);
	else
		text_event(f, e, m_profile);
}

/* ---- JSON ---------------------------------------------------------------- */

/* Addresses, opcodes, data values, timestamps, context IDs and VMIDs are
 * written as "0x..." strings (docs/json.md): JSON parsers that read numbers
 * as doubles (JavaScript, jq) would round 64-bit ones silently. */

static void json_flag(FILE *f, int on, const char *name)
{
	if (on)
		fprintf(f, ",\"%s\":true", name);
}

/* Where it ran (docs/json.md): "dso", and "sym" with "symoff" when the
 * binary has a symbol there (the strings formatted once per span). */
static void json_where(FILE *f, const struct cli_where *w)
{
	char num[32];
	int k = (int)sizeof(num) - 1;
	uint64_t v = w->symoff;

	fputs(w->json, f);
	if (!w->sym)
		return;
	/* By hand, as the text tail: fprintf() doubles the cost. */
	num[k] = '\0';
	do {
		num[--k] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fputs(",\"symoff\":", f);
	fputs(num + k, f);
}

/* decode --lines (docs/json.md): "file", "line", "column" when known,
 * and "inline": the inlined calls holding the instruction, innermost
 * first, each {"func", "call_file", "call_line"}. */
static void json_lines(FILE *f, const struct cli_where *w)
{
	uint32_t i = w->loc.inl;
	const char *sep = ",\"inline\":[";

	fputs(",\"file\":", f);
	cli_json_string(f, w->loc.file);
	fprintf(f, ",\"line\":%" PRIu32, w->loc.line);
	if (w->loc.column)
		fprintf(f, ",\"column\":%" PRIu32, w->loc.column);
	while (i != LINES_NONE) {
		const struct lines_inline *in = lines_inline_at(w->lines, i);

		if (!in)
			break;
		fputs(sep, f);
		fputs("{\"func\":", f);
		cli_json_string(f, in->name);
		if (in->call_file) {
			fputs(",\"call_file\":", f);
			cli_json_string(f, in->call_file);
		}
		fprintf(f, ",\"call_line\":%" PRIu32 "}", in->call_line);
		sep = ",";
		i = in->parent;
	}
	if (w->loc.inl != LINES_NONE)
		fputc(']', f);
}

/* Cycles and the status flags of an insn element, or of an insn_range's
 * last instruction (u.range's class_flags is where u.insn's is). */
_Static_assert(offsetof(struct etmkit_elem, u.range.class_flags) ==
	       offsetof(struct etmkit_elem, u.insn.class_flags),
	       "json_insn_status() reads either");

static void json_insn_status(FILE *f, const struct etmkit_elem *e)
{
	if (e->flags & ETMKIT_INSN_CYCLES)
		fprintf(f, ",\"cycles\":%" PRIu32, e->cycles);
	json_flag(f, e->flags & ETMKIT_INSN_COND_FAIL, "cond_fail");
	json_flag(f, e->flags & ETMKIT_INSN_CANCEL, "cancel");
	json_flag(f, e->flags & ETMKIT_INSN_IMPLIED, "implied");
	json_flag(f, e->flags & ETMKIT_INSN_P0, "p0");
	json_flag(f, e->u.insn.class_flags & (INSN_F_UNDEFINED | INSN_F_UDF),
		  "undefined");
}

static void json_insn(FILE *f, const struct etmkit_elem *e,
		      const struct cli_where *w)
{
	fprintf(f, ",\"addr\":\"0x%" PRIx64 "\",\"size\":%u,\"isa\":\"%s\","
		"\"opcode\":\"0x%" PRIx32 "\",\"exec\":%s", e->addr, e->size,
		isa_name(e->isa), e->u.insn.opcode,
		(e->flags & ETMKIT_INSN_EXEC) ? "true" : "false");
	json_insn_status(f, e);
	if (w)
		json_where(f, w);
	if (w && w->has_line)
		json_lines(f, w);
}

/* An insn_range element (decode --ranges): as an insn record of its last
 * instruction (size, opcode, status flags), but for addr (the first
 * instruction's), end, count and cycles (the sum of its instructions');
 * dso and sym are where the first instruction ran. */
static void json_range(FILE *f, const struct etmkit_elem *e,
		       const struct cli_where *w)
{
	fprintf(f, ",\"addr\":\"0x%" PRIx64 "\",\"end\":\"0x%" PRIx64
		"\",\"count\":%" PRIu32 ",\"size\":%u,\"isa\":\"%s\","
		"\"opcode\":\"0x%" PRIx32 "\",\"exec\":%s", e->addr,
		e->u.range.end, e->u.range.count, e->size, isa_name(e->isa),
		e->u.range.opcode,
		(e->flags & ETMKIT_INSN_EXEC) ? "true" : "false");
	if (e->u.range.repeats)
		fprintf(f, ",\"repeats\":%" PRIu32, e->u.range.repeats);
	json_insn_status(f, e);
	if (w)
		json_where(f, w);
}

static void json_data(FILE *f, const struct etmkit_elem *e)
{
	if (e->flags & ETMKIT_DATA_INSN)
		fprintf(f, ",\"insn_addr\":\"0x%" PRIx64 "\"", e->addr);
	if (e->flags & ETMKIT_DATA_ADDR)
		fprintf(f, ",\"data_addr\":\"0x%" PRIx64 "\"",
			e->u.data.data_addr);
	json_flag(f, e->flags & ETMKIT_DATA_BE, "be");
	if (e->flags & ETMKIT_DATA_VALUE)
		fprintf(f, ",\"value\":\"0x%" PRIx64 "\",\"size\":%u",
			e->u.data.value, e->size);
	if (e->flags & ETMKIT_DATA_OOO) {
		fprintf(f, ",\"ooo\":true,\"tag\":%u", e->u.data.tag);
		if (e->u.data.half)
			fprintf(f, ",\"half\":%u", e->u.data.half);
	}
	json_flag(f, e->flags & ETMKIT_DATA_STORE_FAILED, "store_failed");
	json_flag(f, e->flags & ETMKIT_DATA_SUPPRESSED, "suppressed");
}

static void json_event(FILE *f, const struct etmkit_elem *e, int m_profile)
{
	switch (e->kind) {
	case etmkit_elem_trace_on:
		fprintf(f, ",\"reason\":\"%s\"",
			etmkit_trace_on_reason_name(e->u.trace_on.reason));
		if (e->isa != etmkit_isa_unknown)
			fprintf(f, ",\"addr\":\"0x%" PRIx64 "\",\"isa\":\"%s\"",
				e->addr, isa_name(e->isa));
		if (e->flags & ETMKIT_TRACE_ON_CYCLES)
			fprintf(f, ",\"gap_cycles\":%" PRIu32, e->cycles);
		break;
	case etmkit_elem_context:
		if (e->flags & ETMKIT_CTX_EL)
			fprintf(f, ",\"el\":%u,\"sec\":\"%s\",\"aarch64\":%s",
				e->u.context.el,
				etmkit_sec_name(e->u.context.sec),
				e->u.context.aarch64 ? "true" : "false");
		else
			fprintf(f, ",\"ns\":%u,\"hyp\":%u", e->u.context.ns,
				e->u.context.hyp);
		if (e->flags & ETMKIT_CTX_CONTEXT_ID)
			fprintf(f, ",\"context_id\":\"0x%" PRIx32 "\"",
				e->u.context.context_id);
		if (e->flags & ETMKIT_CTX_VMID)
			fprintf(f, ",\"vmid\":\"0x%" PRIx32 "\"",
				e->u.context.vmid);
		break;
	case etmkit_elem_exception:
		fprintf(f, ",\"number\":%u,\"name\":\"%s\"",
			e->u.exception.number, exception_name(e, m_profile));
		if (e->isa != etmkit_isa_unknown)
			fprintf(f, ",\"addr\":\"0x%" PRIx64 "\",\"isa\":\"%s\"",
				e->addr, isa_name(e->isa));
		if (e->flags & ETMKIT_EXC_RET_ADDR)
			fprintf(f, ",\"ret_addr\":\"0x%" PRIx64 "\"",
				e->u.exception.ret_addr);
		json_flag(f, e->flags & ETMKIT_EXC_CANCEL, "cancel");
		json_flag(f, e->flags & ETMKIT_EXC_LEGACY, "legacy");
		if (e->flags & ETMKIT_EXC_RESUME)
			fprintf(f, ",\"resume\":%u", e->u.exception.resume);
		break;
	case etmkit_elem_exception_return:
		json_flag(f, e->flags & ETMKIT_EXC_CANCEL, "cancel");
		break;
	case etmkit_elem_timestamp:
		fprintf(f, ",\"value\":\"0x%" PRIx64 "\"", e->u.timestamp.value);
		json_flag(f, e->flags & ETMKIT_TS_CLOCK_CHANGE, "clock_change");
		break;
	case etmkit_elem_cycle_count:
		if (e->flags & ETMKIT_CC_UNKNOWN)
			json_flag(f, 1, "unknown");
		else
			fprintf(f, ",\"cycles\":%" PRIu32, e->cycles);
		break;
	case etmkit_elem_gap:
		fprintf(f, ",\"reason\":\"%s\"", etmkit_loss_name(e->u.loss.reason));
		if (e->u.loss.why) {
			fputs(",\"why\":", f);
			cli_json_string(f, e->u.loss.why);
		}
		break;
	case etmkit_elem_no_image:
		fprintf(f, ",\"addr\":\"0x%" PRIx64 "\",\"isa\":\"%s\","
			"\"reason\":\"%s\"",
			e->addr, isa_name(e->isa),
			etmkit_loss_name(e->u.loss.reason));
		break;
	case etmkit_elem_event:
		fprintf(f, ",\"bits\":%u", e->u.event.bits);
		break;
	case etmkit_elem_instrumentation:
		fprintf(f, ",\"value\":\"0x%" PRIx64 "\",\"el\":%u", e->u.ite.value,
			e->u.ite.el);
		break;
	case etmkit_elem_transaction:
		fprintf(f, ",\"what\":\"%s\"", etmkit_txn_name(e->u.txn.what));
		break;
	case etmkit_elem_q:
		fprintf(f, ",\"addr\":\"0x%" PRIx64 "\",\"count\":%" PRIu32
			",\"target\":\"0x%" PRIx64 "\"", e->addr, e->u.q.count,
			e->u.q.target);
		break;
	default:
		break;
	}
}

void cli_print_elem_json(FILE *f, uint8_t id, const struct etmkit_elem *e,
			 int m_profile, const struct cli_where *w,
			 const struct cli_task *t)
{
	fprintf(f, "{\"kind\":\"%s\",\"id\":%u,\"offset\":%" PRIu64,
		etmkit_elem_kind_name(e->kind), id, e->offset);
	if (t && t->has_cpu)
		fprintf(f, ",\"cpu\":%" PRIu32, t->cpu);
	if (t && t->has_tid)
		fprintf(f, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32, t->pid,
			t->tid);
	if (e->kind == etmkit_elem_insn)
		json_insn(f, e, w);
	else if (e->kind == etmkit_elem_insn_range)
		json_range(f, e, w);
	else if (e->kind == etmkit_elem_data)
		json_data(f, e);
	else
		json_event(f, e, m_profile);
	fputs("}\n", f);
}
