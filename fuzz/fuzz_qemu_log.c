/* libFuzzer target: the QEMU user-mode log importer (qemu_log.h) on
 * arbitrary bytes (docs/qemu-log.md).
 *
 * The input is the log itself (seeds: the logs of tests/data/qemu/). It is read
 * twice, by two readers in lockstep: the defaults, and
 * QEMU_LOG_F_NO_CONTEXT | QEMU_LOG_F_TB_BITS with QEMU 7.2's bit numbers
 * (thumb_bit 23, a64_bit 0), which must read the same log.
 *
 * Invariants:
 * - reading ends without a crash or a hang: 1 per item, then 0 or a
 *   negated error; the error is one qemu_log_next() documents (format,
 *   unsupported, io), carries a line number inside the input (1 to the
 *   input's line count) and a message, and the reader returns that same
 *   error again when asked once more (after 0: 0 again);
 * - every item is valid: a kind of exec.h; the first item (only) is the
 *   exec_context of el 0, Non-secure, and no item is a timestamp;
 *   an instruction is A64, A32 or T32 of size 4 (A64, A32) or 2/4 (T32),
 *   aligned, A32/T32 below 2^32, flags only COND_FAIL, BRANCH, INDIRECT
 *   and TAKEN, INDIRECT and TAKEN only with BRANCH, TAKEN never with
 *   COND_FAIL, a target and target_isa (A64/A32/T32) only when TAKEN,
 *   no cycles; its opcode is what insn_decode() classifies with the same
 *   size, BRANCH exactly when insn_decode says branch (INDIRECT likewise);
 *   an exception is a call (after an SVC: its addr the instruction after
 *   it), debug or undef (addr the instruction itself), follows an
 *   instruction and is followed by a gap; a gap follows an instruction
 *   or an exception; exec_text_format() accepts every item;
 * - the record is continuous: an instruction that directly follows
 *   another is at the previous one's target (TAKEN, in target_isa) or at
 *   the address after it (32-bit wrap in AArch32), in the same
 *   instruction set; anything else is separated by a gap;
 * - determinism: the second reader returns the same items (less the
 *   first context) and the same error, line and message;
 * - bounded: stats.insns is the instruction items returned, stats.gaps
 *   the gaps, stats.lines at most the input's lines, stats.tbs at most
 *   stats.lines, stats.blocks at most stats.lines, mode 0-2, the items at
 *   most 3 + 3 * blocks + insns.
 *
 * - data (QEMU_LOG_F_DATA): a third reader with the flag, in lockstep,
 *   returns the defaults' items with exec_data items added (none after
 *   a COND_FAIL, an A64 instruction or a non-instruction; at most 16
 *   after one; size 1, 2 or 4, the value within it, a 32-bit address,
 *   flags only EXEC_D_STORE, other fields zero; stats.data their
 *   count), or stops early with an error of its own (unsupported: not
 *   a state-mode log of one-instruction blocks; format: a register it
 *   cannot read).
 *
 * FUZZ_QEMU_LAX (environment, comma-separated) turns checks off, to fuzz
 * past a known finding: "cont" (continuity).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/exec.h"
#include "etmkit/insn.h"
#include "etmkit/qemu_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Items read at most per input: far more than 64 KiB of log makes in
 * practice; stops a slow input, is not a finding. */
#define MAX_ITEMS (1u << 22)

static void fail(const char *what, const struct exec_rec *r, uint64_t n)
{
	char line[160];

	fprintf(stderr, "fuzz_qemu_log: invariant broken at item %llu: %s\n",
		(unsigned long long)n, what);
	if (r) {
		fprintf(stderr, "  kind %u isa %u size %u flags 0x%x addr 0x%llx"
			" target 0x%llx:%u opcode 0x%x number %u\n", r->kind,
			r->isa, r->size, r->flags, (unsigned long long)r->addr,
			(unsigned long long)r->target, r->target_isa,
			r->opcode, r->number);
		if (exec_text_format(line, sizeof(line), r) > 0)
			fprintf(stderr, "  %s", line);
	}
	abort();
}

static int lax(const char *what)
{
	const char *l = getenv("FUZZ_QEMU_LAX");

	return l && strstr(l, what);
}

static int same(const struct exec_rec *a, const struct exec_rec *b)
{
	return a->kind == b->kind && a->isa == b->isa && a->size == b->size &&
	       a->target_isa == b->target_isa && a->flags == b->flags &&
	       a->addr == b->addr && a->target == b->target &&
	       a->opcode == b->opcode && a->cycles == b->cycles &&
	       a->number == b->number && a->vmid == b->vmid &&
	       a->value == b->value && a->el == b->el && a->ns == b->ns;
}

static int isa_ok(unsigned isa)
{
	return isa == etmkit_isa_a64 || isa == etmkit_isa_arm ||
	       isa == etmkit_isa_thumb;
}

/* What the checks remember of the items before. */
struct walk {
	uint64_t n;           /* items so far */
	struct exec_rec prev; /* the last item (kind 0: none) */
	struct exec_rec insn; /* the last instruction */
	int have_insn;
};

static void check_insn(const struct walk *w, const struct exec_rec *r)
{
	const uint32_t known = EXEC_F_COND_FAIL | EXEC_F_BRANCH |
			       EXEC_F_INDIRECT | EXEC_F_TAKEN;
	struct insn_info info;
	uint8_t b[4];

	if (!isa_ok(r->isa))
		fail("instruction set not A64, A32 or T32", r, w->n);
	if (r->size != 4 && !(r->size == 2 && r->isa == etmkit_isa_thumb))
		fail("instruction size", r, w->n);
	if (((r->addr & (r->isa == etmkit_isa_thumb ? 1u : 3u)) ||
	     (r->isa != etmkit_isa_a64 && r->addr > UINT32_MAX)))
		fail("instruction misaligned or an AArch32 address above "
		     "32 bits", r, w->n);
	if (r->flags & ~known)
		fail("instruction flags other than COND_FAIL, BRANCH, "
		     "INDIRECT, TAKEN", r, w->n);
	if ((r->flags & (EXEC_F_INDIRECT | EXEC_F_TAKEN)) &&
	    !(r->flags & EXEC_F_BRANCH))
		fail("INDIRECT or TAKEN without BRANCH", r, w->n);
	if ((r->flags & EXEC_F_TAKEN) && (r->flags & EXEC_F_COND_FAIL))
		fail("TAKEN and COND_FAIL", r, w->n);
	if (r->flags & EXEC_F_TAKEN) {
		if (!isa_ok(r->target_isa))
			fail("target instruction set", r, w->n);
	} else if (r->target || r->target_isa) {
		fail("a target without TAKEN", r, w->n);
	}
	if (r->cycles || r->number || r->vmid || r->value || r->el || r->ns)
		fail("instruction fields that must be zero", r, w->n);
	if (exec_insn_bytes(r, b) != r->size)
		fail("exec_insn_bytes() refuses it", r, w->n);
	if (insn_decode(&info, (enum etmkit_isa)r->isa, r->addr, b, r->size) ||
	    info.size != r->size)
		fail("insn_decode() gives another size", r, w->n);
	if (!(info.flags & INSN_F_BRANCH) != !(r->flags & EXEC_F_BRANCH) ||
	    ((info.flags & INSN_F_BRANCH) &&
	     !(info.flags & INSN_F_INDIRECT) != !(r->flags & EXEC_F_INDIRECT)))
		fail("BRANCH/INDIRECT not insn_decode()'s class", r, w->n);
	/* Continuity: straight after an instruction, nothing between. */
	if (w->prev.kind == exec_insn && !lax("cont")) {
		const struct exec_rec *p = &w->prev;
		uint64_t want = p->addr + p->size;
		unsigned want_isa = p->isa;

		if (p->isa != etmkit_isa_a64)
			want &= 0xffffffffu;
		if (p->flags & EXEC_F_TAKEN) {
			want = p->target;
			want_isa = p->target_isa;
		}
		if (r->addr != want || r->isa != want_isa)
			fail("instruction not where the one before leads, "
			     "with no gap between", r, w->n);
	}
}

static void check_event(const struct walk *w, const struct exec_rec *r)
{
	const struct exec_rec *in = &w->insn;

	switch (r->kind) {
	case exec_exception:
		if (w->prev.kind != exec_insn)
			fail("an exception not after an instruction", r, w->n);
		if (r->isa || r->size || r->flags || r->target ||
		    r->target_isa || r->opcode || r->cycles || r->vmid ||
		    r->value || r->el || r->ns)
			fail("exception fields that must be zero", r, w->n);
		if (r->number == exec_exc_call) {
			uint64_t fall = in->addr + in->size;

			if (in->isa != etmkit_isa_a64)
				fall &= 0xffffffffu;
			if (r->addr != fall)
				fail("a call's return address is not after "
				     "the instruction", r, w->n);
		} else if (r->number == exec_exc_debug ||
			   r->number == exec_exc_undef) {
			if (r->addr != in->addr)
				fail("a debug/undef exception not at its "
				     "instruction", r, w->n);
		} else {
			fail("exception kind other than call, debug, undef",
			     r, w->n);
		}
		break;
	case exec_gap:
		if (w->prev.kind != exec_insn &&
		    w->prev.kind != exec_exception)
			fail("a gap not after an instruction or exception", r,
			     w->n);
		if (r->isa || r->size || r->flags || r->addr || r->target ||
		    r->target_isa || r->opcode || r->cycles || r->number ||
		    r->vmid || r->value || r->el || r->ns)
			fail("gap fields that must be zero", r, w->n);
		break;
	case exec_context:
		if (w->n != 0)
			fail("a context item after the first", r, w->n);
		if (r->flags != EXEC_CTX_EL || r->el != 0 || r->ns != 1 ||
		    r->value || r->vmid || r->addr)
			fail("the first context is not el 0, Non-secure", r,
			     w->n);
		break;
	default:
		fail("item kind", r, w->n);
	}
}

/* The third reader (QEMU_LOG_F_DATA). */
struct dwalk {
	struct qemu_log_reader *rd;
	int done;          /* ended (an error of its own) */
	struct exec_rec insn; /* the last non-data item */
	unsigned run;      /* data items after it */
	uint64_t data;
};

static void check_data(struct dwalk *d, const struct exec_rec *r,
		       uint64_t n)
{
	if (d->insn.kind != exec_insn || d->insn.flags & EXEC_F_COND_FAIL ||
	    (d->insn.isa != etmkit_isa_arm && d->insn.isa != etmkit_isa_thumb))
		fail("a data item not after an executed A32/T32 instruction",
		     r, n);
	if (++d->run > 16)
		fail("more than 16 data items after an instruction", r, n);
	if ((r->size != 1 && r->size != 2 && r->size != 4) ||
	    r->value >> (8 * r->size) || r->addr > UINT32_MAX ||
	    (r->flags & ~EXEC_D_STORE) || r->isa || r->target ||
	    r->target_isa || r->opcode || r->cycles || r->number ||
	    r->vmid || r->el || r->ns)
		fail("data item fields", r, n);
	d->data++;
}

/* The third reader's next item other than data (its data checked), to be
 * @want (1, the item *@ra) or the end @want (0 or an error). */
static void data_step(struct dwalk *d, int want, const struct exec_rec *ra,
		      uint64_t n)
{
	struct exec_rec rc;
	int k;

	if (d->done)
		return;
	while ((k = qemu_log_next(d->rd, &rc, NULL)) == 1 &&
	       rc.kind == exec_data)
		check_data(d, &rc, n);
	if (k == want && (k != 1 || same(ra, &rc))) {
		d->insn = rc;
		d->run = 0;
		return;
	}
	if (k == -etmkit_err_unsupported || k == -etmkit_err_format) {
		d->done = 1;
		return;
	}
	fail("the data reader returns another item", k == 1 ? &rc : NULL, n);
}

static void check_item(struct walk *w, const struct exec_rec *r)
{
	char line[160];
	int len;

	if (w->prev.kind == exec_exception && r->kind != exec_gap)
		fail("an exception not followed by a gap", r, w->n);
	if (r->kind == exec_insn)
		check_insn(w, r);
	else
		check_event(w, r);
	len = exec_text_format(line, sizeof(line), r);
	if (len <= 0 || (size_t)len >= sizeof(line))
		fail("exec_text_format() refuses the item", r, w->n);
	w->prev = *r;
	if (r->kind == exec_insn) {
		w->insn = *r;
		w->have_insn = 1;
	}
	w->n++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct qemu_log_config cfg;
	struct qemu_log_reader *a, *b;
	struct qemu_log_stats st;
	struct exec_diag da, db;
	struct exec_rec ra, rb;
	struct walk w;
	struct dwalk dw;
	struct qemu_log_config dcfg;
	uint64_t lines = 0, insns = 0, gaps = 0;
	FILE *fa, *fb, *fc;
	int ka, kb;

	if (!size)
		return 0;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	lines += data[size - 1] != '\n';
	fa = fmemopen((void *)data, size, "r");
	fb = fmemopen((void *)data, size, "r");
	fc = fmemopen((void *)data, size, "r");
	if (!fa || !fb || !fc)
		abort();
	memset(&dw, 0, sizeof(dw));
	memset(&dcfg, 0, sizeof(dcfg));
	dcfg.size = sizeof(dcfg);
	dcfg.flags = QEMU_LOG_F_DATA;
	if (qemu_log_reader_alloc(&dw.rd, fc, &dcfg))
		abort();
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.flags = QEMU_LOG_F_NO_CONTEXT | QEMU_LOG_F_TB_BITS;
	cfg.thumb_bit = 23;
	cfg.a64_bit = 0;
	if (qemu_log_reader_alloc(&a, fa, NULL) ||
	    qemu_log_reader_alloc(&b, fb, &cfg))
		abort();
	memset(&w, 0, sizeof(w));
	memset(&da, 0, sizeof(da));
	memset(&db, 0, sizeof(db));
	for (;;) {
		ka = qemu_log_next(a, &ra, &da);
		if (ka != 1)
			break;
		check_item(&w, &ra);
		data_step(&dw, 1, &ra, w.n - 1);
		insns += ra.kind == exec_insn;
		gaps += ra.kind == exec_gap;
		if (w.n == 1)
			continue; /* the context the second reader omits */
		kb = qemu_log_next(b, &rb, &db);
		if (kb != 1 || !same(&ra, &rb))
			fail("the second reader returns another item", &rb,
			     w.n - 1);
		if (w.n >= MAX_ITEMS)
			goto out;
	}
	if (w.n == 0)
		fail("no context item first", NULL, 0);
	kb = qemu_log_next(b, &rb, &db);
	if (kb != ka)
		fail("the second reader ends otherwise", NULL, w.n);
	data_step(&dw, ka, NULL, w.n);
	if (!dw.done) {
		struct qemu_log_stats ds;

		if (qemu_log_reader_stats(dw.rd, &ds) || ds.data != dw.data)
			fail("stats.data differs from the data items", NULL,
			     w.n);
	}
	if (ka < 0) {
		if (ka != -etmkit_err_format && ka != -etmkit_err_unsupported &&
		    ka != -etmkit_err_io)
			fail("an error qemu_log_next() does not document",
			     NULL, w.n);
		if (da.line < 1 || da.line > lines || !da.message[0] ||
		    !memchr(da.message, 0, sizeof(da.message)))
			fail("error without a line inside the input or a "
			     "message", NULL, w.n);
		if (db.line != da.line || strcmp(da.message, db.message))
			fail("the second reader's error differs", NULL, w.n);
		memset(&db, 0, sizeof(db));
		if (qemu_log_next(a, &ra, &db) != ka || db.line != da.line)
			fail("an error not returned again", NULL, w.n);
	} else if (ka != 0 || qemu_log_next(a, &ra, NULL) != 0) {
		fail("the end not returned as 0, again", NULL, w.n);
	}
	if (qemu_log_reader_stats(a, &st))
		abort();
	if (st.insns != insns || st.gaps != gaps)
		fail("stats insns/gaps differ from the items", NULL, w.n);
	if (st.lines > lines || st.tbs > st.lines || st.blocks > st.lines ||
	    st.mode > qemu_log_mode_state)
		fail("stats: lines, blocks, blocks held or mode out of "
		     "bounds", NULL, w.n);
	if (w.n > 3 + 3 * st.blocks + st.insns)
		fail("more items than the blocks executed explain", NULL, w.n);
out:
	qemu_log_reader_free(a);
	qemu_log_reader_free(b);
	qemu_log_reader_free(dw.rd);
	fclose(fa);
	fclose(fb);
	fclose(fc);
	return 0;
}
