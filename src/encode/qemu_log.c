/* Execution records from QEMU user-mode logs (qemu_log.h).
 *
 * The log is read line by line from a large buffer. Instruction listings
 * ("IN:") are parsed into a pending listing that is bound, and classified
 * with insn_decode(), when the first execution of the block is seen; the
 * translated blocks are then kept in a hash table keyed by (pc, cs_base,
 * flags), the TB key of QEMU itself, so that a block executed a billion
 * times is parsed once. Each execution event (a "Trace" line and/or a CPU
 * state dump) is committed when the next one starts, since QEMU may log a
 * block and then not run it ("Stopped execution of TB chain before").
 * Committing a block finalizes the previous block's last instruction,
 * whose outcome depends on where execution went next, and starts a run
 * over the new block's instructions, returned one per call.
 *
 * The formats read are those of QEMU 7.2 (Debian 12); docs/qemu-log.md
 * shows an example of each line.
 */
#include "qemu_log_internal.h"

/* ---- Small helpers ------------------------------------------------------ */

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
int ql_fail(struct qemu_log_reader *rd, int err, uint64_t line,
		   const char *fmt, ...)
{
	va_list ap;

	rd->err = err;
	rd->diag.line = line;
	va_start(ap, fmt);
	vsnprintf(rd->diag.message, sizeof rd->diag.message, fmt, ap);
	va_end(ap);
	return err;
}

/* Hex digits at *@p (at most 16) into *@v; returns the count, 0 if none.
 * More than 16 digits return -1. */
int ql_parse_hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int n = 0, d;

	while (s < end && (d = hexval(*s)) >= 0) {
		if (++n > 16)
			return -1;
		x = x << 4 | (uint64_t)d;
		s++;
	}
	*p = s;
	*v = x;
	return n;
}

static int starts(const char *s, size_t len, const char *lit, size_t n)
{
	return len >= n && memcmp(s, lit, n) == 0;
}
#define STARTS(s, len, lit) starts(s, len, lit, sizeof(lit) - 1)

/* Arm ARM (DDI 0487) J1 ConditionHolds(): @nzcv is PSTATE.NZCV in bits
 * 3:0 (N = 8). */
static int cond_holds(unsigned cond, unsigned nzcv)
{
	unsigned n = nzcv >> 3 & 1, z = nzcv >> 2 & 1, c = nzcv >> 1 & 1,
		 v = nzcv & 1;
	int r;

	switch (cond >> 1) {
	case 0: r = z; break;
	case 1: r = c; break;
	case 2: r = n; break;
	case 3: r = v; break;
	case 4: r = c && !z; break;
	case 5: r = n == v; break;
	case 6: r = n == v && !z; break;
	default: r = 1; break;
	}
	if ((cond & 1) && cond != 15)
		r = !r;
	return r;
}

static int queue_push(struct qemu_log_reader *rd, const struct exec_rec *r)
{
	if (rd->qlen == QL_QUEUE)
		return -etmkit_err_internal;
	rd->queue[(rd->qhead + rd->qlen) & (QL_QUEUE - 1)] = *r;
	rd->qlen++;
	return 0;
}

static int queue_event(struct qemu_log_reader *rd, enum exec_kind kind,
		       uint32_t number, uint64_t addr)
{
	struct exec_rec r;

	memset(&r, 0, sizeof r);
	r.kind = (uint8_t)kind;
	r.number = number;
	r.addr = addr;
	if (kind == exec_gap)
		rd->stats.gaps++;
	return queue_push(rd, &r);
}

const char *ql_isa_text(unsigned isa)
{
	return etmkit_isa_name((enum etmkit_isa)isa);
}

/* ---- Line input --------------------------------------------------------- */

/* The next line (without its newline) into *@line, *@len: 1, 0 at the end,
 * or -etmkit_err_io. A line longer than the buffer is cut. */
static int next_line(struct qemu_log_reader *rd, const char **line,
		     size_t *len)
{
	for (;;) {
		char *s = rd->buf + rd->pos;
		char *nl = memchr(s, '\n', rd->end - rd->pos);

		if (nl) {
			size_t n = (size_t)(nl - s);

			rd->pos += n + 1;
			if (rd->skip_rest) {
				rd->skip_rest = 0;
				continue;
			}
			if (n && s[n - 1] == '\r')
				n--;
			*line = s;
			*len = n;
			rd->lineno++;
			return 1;
		}
		if (rd->eof) {
			size_t n = rd->end - rd->pos;

			if (!n)
				return 0;
			rd->pos = rd->end;
			if (rd->skip_rest) {
				rd->skip_rest = 0;
				return 0;
			}
			*line = s;
			*len = n;
			rd->lineno++;
			return 1;
		}
		if (rd->pos == 0 && rd->end == QL_BUF_SIZE) {
			/* No newline in a full buffer: return it cut. */
			rd->pos = rd->end;
			rd->skip_rest = 1;
			*line = s;
			*len = QL_BUF_SIZE;
			rd->lineno++;
			return 1;
		}
		if (rd->pos) {
			memmove(rd->buf, s, rd->end - rd->pos);
			rd->end -= rd->pos;
			rd->pos = 0;
		}
		{
			size_t got = fread(rd->buf + rd->end, 1,
					   QL_BUF_SIZE - rd->end, rd->file);

			rd->end += got;
			if (got == 0) {
				if (ferror(rd->file))
					return -etmkit_err_io;
				rd->eof = 1;
			}
		}
	}
}


/* ---- Execution events --------------------------------------------------- */

static enum etmkit_isa trace_isa(const struct qemu_log_reader *rd,
				 uint64_t cs_base, uint32_t flags)
{
	if (flags >> rd->a64_bit & 1)
		return etmkit_isa_a64;
	return cs_base >> rd->thumb_bit & 1 ? etmkit_isa_thumb : etmkit_isa_arm;
}

/* QEMU_LOG_F_DATA: the data transfers of rd->last (not condition-failed)
 * as exec_data items; @next_ok: execution continued where it leads, with
 * the CPU dump after it in rd->ev. */
static int last_data(struct qemu_log_reader *rd, int next_ok)
{
	const struct ql_last *l = &rd->last;
	struct ql_xfer x[QL_XFER_MAX];
	uint32_t after[16];
	int n = -1, i, err;

	if (l->isa != etmkit_isa_arm && l->isa != etmkit_isa_thumb)
		return 0;
	memcpy(after, rd->ev.regs, sizeof after);
	/* a load to PC loaded the next address, bit 0 the Thumb state */
	after[15] = (uint32_t)rd->ev.pc |
		    (rd->ev.state_isa == etmkit_isa_thumb);
	if (l->regs_ok)
		n = ql_data_transfers(l->isa, l->in.opcode, l->in.size,
				      l->regs, l->psr, after, x);
	else /* is it a load or store at all? */
		n = ql_data_transfers(l->isa, l->in.opcode, l->in.size,
				      after, 0, after, x) ? -1 : 0;
	if (n > 0 && (!next_ok || rd->ev.regs_mask != 0xffff))
		n = -1;
	if (n < 0) {
		rd->stats.data_unknown++;
		return 0;
	}
	for (i = 0; i < n; i++) {
		struct exec_rec r;

		memset(&r, 0, sizeof r);
		r.kind = exec_data;
		r.size = x[i].size;
		r.addr = x[i].addr;
		r.value = x[i].value;
		r.flags = x[i].store ? EXEC_D_STORE : 0;
		err = queue_push(rd, &r);
		if (err)
			return err;
		rd->stats.data++;
	}
	return 0;
}

/* Finalize the previous block's last instruction: where execution went
 * next is (@pc, @isa); @known is 0 at the end of the log. */
static int finish_last(struct qemu_log_reader *rd, uint64_t pc,
		       uint8_t isa, int known)
{
	struct ql_last *l = &rd->last;
	const struct ql_insn *in = &l->in;
	uint64_t fall = in->addr + in->size, expect = fall;
	uint8_t expect_isa = l->isa;
	struct exec_rec r;
	int err;

	if (!l->valid)
		return 0;
	l->valid = 0;
	if (l->isa != etmkit_isa_a64)
		fall &= 0xffffffffu;
	expect = fall;
	memset(&r, 0, sizeof r);
	r.kind = exec_insn;
	r.isa = l->isa;
	r.size = in->size;
	r.addr = in->addr;
	r.opcode = in->opcode;
	r.flags = in->flags;
	if (l->cond_fail) {
		r.flags |= EXEC_F_COND_FAIL;
	} else if ((in->flags & EXEC_F_BRANCH) && known &&
		   (pc != fall || isa != l->isa ||
		    (l->cond_pass && !(in->flags & EXEC_F_INDIRECT) &&
		     in->target == fall))) {
		r.flags |= EXEC_F_TAKEN;
		r.target = pc;
		r.target_isa = isa;
		expect = pc;
		expect_isa = isa;
	}
	err = queue_push(rd, &r);
	rd->stats.insns++;
	if (err)
		return err;
	if ((rd->cfg.flags & QEMU_LOG_F_DATA) && !l->cond_fail) {
		err = last_data(rd, known && pc == expect && isa == expect_isa);
		if (err)
			return err;
	}
	if (in->kind == ql_k_svc && !l->cond_fail) {
		err = queue_event(rd, exec_exception, exec_exc_call, fall);
		return err ? err : queue_event(rd, exec_gap, 0, 0);
	}
	if (!known || (pc == expect && isa == expect_isa))
		return 0;
	if (in->kind == ql_k_bkpt && !l->cond_fail)
		err = queue_event(rd, exec_exception, exec_exc_debug, in->addr);
	else if (in->kind == ql_k_undef && !l->cond_fail)
		err = queue_event(rd, exec_exception, exec_exc_undef, in->addr);
	return err ? err : queue_event(rd, exec_gap, 0, 0);
}

/* State mode: does the CPU state decide the condition of @in, the first
 * instruction of a block? Sets *@fail / *@pass. */
static void state_cond(const struct ql_event *ev, const struct ql_insn *in,
		       uint8_t isa, int *fail, int *pass)
{
	unsigned nzcv = ev->psr >> 28, cond = QL_NO_COND;

	*fail = *pass = 0;
	if (!ev->psr_known)
		return;
	if (isa == etmkit_isa_arm) {
		cond = in->acond;
	} else if (isa == etmkit_isa_thumb) {
		/* CPSR IT[1:0] = bits 26:25, IT[7:2] = bits 15:10 (B1.3.3) */
		unsigned it = (ev->psr >> 25 & 3) | (ev->psr >> 8 & 0xfc);

		if (it & 0xf)
			cond = it >> 4;
		else
			cond = in->bcond;
	} else {
		cond = in->bcond;
	}
	if (cond >= 14)
		return;
	if (cond_holds(cond, nzcv))
		*pass = 1;
	else
		*fail = 1;
}

/* The event is complete: expand its block. */
/* The block of event @ev (complete): its listing bound now if it is the
 * pending one, else the one seen before. */
static int resolve_block(struct qemu_log_reader *rd, const struct ql_event *ev,
			 struct ql_tb **out, uint8_t *isa_out)
{
	struct ql_tb *tb;
	uint64_t cs_base;
	uint32_t flags;
	uint8_t isa;
	int err;

	if (ev->has_state && !ev->pc_known)
		return ql_fail(rd, -etmkit_err_format, rd->lineno,
			       "CPU state dump without its PC");
	if (ev->has_trace && ev->psr_known &&
	    ev->trace_isa != ev->state_isa)
		return ql_fail(rd, -etmkit_err_format, ev->line,
			       "TB flags give instruction set %s, the CPU"
			       " state %s: set thumb_bit/a64_bit for this"
			       " QEMU version", ql_isa_text(ev->trace_isa),
			       ql_isa_text(ev->state_isa));
	if (ev->has_trace) {
		isa = ev->trace_isa;
		cs_base = ev->cs_base;
		flags = ev->flags;
	} else {
		if (!ev->psr_known)
			return ql_fail(rd, -etmkit_err_format, rd->lineno,
				       "CPU state dump without its PSR");
		/* no TB flags: key on the instruction set */
		isa = ev->state_isa;
		cs_base = 0;
		flags = 0x80000000u | isa;
	}
	tb = ql_tb_find(rd, ev->pc, cs_base, flags);
	if (rd->listing_ready && rd->nraw && rd->raw[0].addr == ev->pc) {
		if (rd->listing_bad)
			return ql_fail(rd, -etmkit_err_unsupported,
				       rd->listing_line,
				       "QEMU could not disassemble the block"
				       " at 0x%llx",
				       (unsigned long long)ev->pc);
		if (!tb) {
			err = ql_tb_add(rd, ev->pc, cs_base, flags, &tb);
			if (err)
				return err;
		}
		err = ql_bind_listing(rd, tb, (enum etmkit_isa)isa);
		if (err)
			return err;
	} else if (!tb || !tb->n) {
		return ql_fail(rd, -etmkit_err_format, ev->line,
			       "block at 0x%llx executed but its translation"
			       " is not in the log (record with -d in_asm"
			       " from the start)", (unsigned long long)ev->pc);
	}
	*out = tb;
	*isa_out = isa;
	return 0;
}

/* The event is complete: expand its block. */
static int commit_event(struct qemu_log_reader *rd)
{
	struct ql_event *ev = &rd->ev;
	struct ql_tb *tb = NULL; /* set by resolve_block() when it returns 0 */
	uint8_t isa = 0;
	int err;

	ev->active = 0;
	err = resolve_block(rd, ev, &tb, &isa);
	if (err)
		return err;
	if ((rd->cfg.flags & QEMU_LOG_F_DATA) &&
	    (!ev->psr_known || tb->n != 1))
		return ql_fail(rd, -etmkit_err_unsupported, ev->line,
			       "data transfers (QEMU_LOG_F_DATA) need a"
			       " state-mode log of one-instruction blocks"
			       " (-singlestep -d in_asm,exec,cpu,nochain)");
	if (ev->psr_known)
		rd->stats.mode = qemu_log_mode_state;
	else if (rd->stats.mode == qemu_log_mode_unknown)
		rd->stats.mode = qemu_log_mode_block;
	err = finish_last(rd, ev->pc, isa, 1);
	if (err)
		return err;
	rd->run_regs_ok = ev->regs_mask == 0xffff && ev->psr_known &&
			  tb->n == 1;
	rd->run_psr = ev->psr;
	memcpy(rd->run_regs, ev->regs, sizeof rd->run_regs);
	rd->run_tb = (uint32_t)(tb - rd->tbs);
	rd->run_i = 0;
	rd->run_left = tb->n;
	state_cond(ev, &rd->pool[tb->first], isa, &rd->run_first_fail,
		   &rd->run_first_pass);
	rd->stats.blocks++;
	return 0;
}

static void event_start(struct qemu_log_reader *rd)
{
	memset(&rd->ev, 0, sizeof rd->ev);
	rd->ev.active = 1;
	rd->ev.line = rd->lineno;
}

/* "Trace 0: 0x7f1b72600100 [0000000001009331/0000000000400580/00000001/
 * 00000200] _start": [cs_base/pc/flags/cflags]. Returns 1 when an event
 * was committed. */
static int trace_line(struct qemu_log_reader *rd, const char *s, size_t len)
{
	const char *p = memchr(s, '[', len), *end = s + len;
	uint64_t cs_base, pc, flags, cflags;
	int committed = 0, err;

	if (!p)
		goto bad;
	/* "Trace <cpu>:" in decimal. A second CPU is a second thread,
	 * whose blocks interleave with the first's: not separated. */
	{
		const char *q = s + 6;
		uint64_t cpu = 0;

		while (q < p && *q >= '0' && *q <= '9' && cpu < 1000000)
			cpu = cpu * 10 + (uint64_t)(*q++ - '0');
		if (q == s + 6 || q == p || *q != ':')
			goto bad;
		if (!rd->cpu_seen) {
			rd->cpu_seen = 1;
			rd->cpu = cpu;
		} else if (cpu != rd->cpu) {
			return ql_fail(rd, -etmkit_err_unsupported, rd->lineno,
				       "blocks of CPU %llu after CPU %llu's: "
				       "multi-threaded programs are not"
				       " supported", (unsigned long long)cpu,
				       (unsigned long long)rd->cpu);
		}
	}
	p++;
	if (ql_parse_hex(&p, end, &cs_base) <= 0 || p == end || *p++ != '/' ||
	    ql_parse_hex(&p, end, &pc) <= 0 || p == end || *p++ != '/' ||
	    ql_parse_hex(&p, end, &flags) <= 0 || p == end || *p++ != '/' ||
	    ql_parse_hex(&p, end, &cflags) <= 0 || p == end || *p != ']' ||
	    flags > UINT32_MAX)
		goto bad;
	if (rd->ev.active) {
		err = commit_event(rd);
		if (err)
			return err;
		committed = 1;
	}
	event_start(rd);
	rd->ev.has_trace = 1;
	rd->ev.pc_known = 1;
	rd->ev.pc = pc;
	rd->ev.cs_base = cs_base;
	rd->ev.flags = (uint32_t)flags;
	rd->ev.trace_isa = (uint8_t)trace_isa(rd, cs_base, (uint32_t)flags);
	return committed;
bad:
	return ql_fail(rd, -etmkit_err_format, rd->lineno,
		       "cannot read the [cs_base/pc/flags/cflags] of this"
		       " Trace line");
}

/* The first line of a CPU dump. @pc_known: A64's first line has the PC.
 * Returns 1 when an event was committed. */
static int dump_start(struct qemu_log_reader *rd, int a64, uint64_t pc,
		      int pc_known)
{
	struct ql_event *ev = &rd->ev;
	int committed = 0, err;

	if (ev->active && ev->has_trace && !ev->has_state) {
		ev->has_state = 1; /* the state before the traced block */
	} else {
		if (ev->active) {
			err = commit_event(rd);
			if (err)
				return err;
			committed = 1;
		}
		event_start(rd);
		ev->has_state = 1;
	}
	if (a64)
		ev->state_isa = etmkit_isa_a64;
	if (pc_known) {
		if (ev->has_trace && ev->pc != pc)
			return ql_fail(rd, -etmkit_err_format, rd->lineno,
				       "CPU state PC 0x%llx differs from the"
				       " Trace line's 0x%llx",
				       (unsigned long long)pc,
				       (unsigned long long)ev->pc);
		ev->pc = pc;
		ev->pc_known = 1;
	}
	return committed;
}

/* " PC=0000000000400580 X00=..." */
static int dump_a64_pc(struct qemu_log_reader *rd, const char *s, size_t len)
{
	const char *p = s + 4;
	uint64_t pc;

	if (ql_parse_hex(&p, s + len, &pc) <= 0)
		return ql_fail(rd, -etmkit_err_format, rd->lineno,
			       "cannot read the PC of this CPU dump");
	return dump_start(rd, 1, pc, 1);
}

/* "R00=00000000 R01=40800944 R02=4080094c R03=0001045c": the registers
 * of a line of an A32 dump into the event (rd->ev.regs). */
static int dump_a32_regs(struct qemu_log_reader *rd, const char *s,
			 size_t len)
{
	const char *end = s + len, *p = s;

	if (!rd->ev.active || !rd->ev.has_state)
		return 0;
	while (p + 4 <= end) {
		unsigned n;
		uint64_t v;

		if (p[0] != 'R' || p[1] < '0' || p[1] > '1' || p[2] < '0' ||
		    p[2] > '9' || p[3] != '=')
			break;
		n = (unsigned)(p[1] - '0') * 10 + (unsigned)(p[2] - '0');
		p += 4;
		if (n > 15 || ql_parse_hex(&p, end, &v) <= 0 ||
		    v > UINT32_MAX)
			return ql_fail(rd, -etmkit_err_format, rd->lineno,
				       "cannot read R%02u in this CPU dump",
				       n);
		rd->ev.regs[n] = (uint32_t)v;
		rd->ev.regs_mask |= 1u << n;
		while (p < end && *p == ' ')
			p++;
	}
	return 0;
}

/* "R12=0006c000 R13=408007d8 R14=00010454 R15=00010440" */
static int dump_a32_pc(struct qemu_log_reader *rd, const char *s, size_t len)
{
	const char *end = s + len, *p;
	uint64_t pc;

	if (!rd->ev.active || !rd->ev.has_state)
		return 0;
	for (p = s; p + 4 <= end; p++)
		if (memcmp(p, "R15=", 4) == 0)
			break;
	p += 4;
	if (p > end || ql_parse_hex(&p, end, &pc) <= 0)
		return ql_fail(rd, -etmkit_err_format, rd->lineno,
			       "cannot read R15 in this CPU dump");
	if (rd->ev.has_trace && rd->ev.pc != pc)
		return ql_fail(rd, -etmkit_err_format, rd->lineno,
			       "CPU state PC 0x%llx differs from the Trace"
			       " line's 0x%llx", (unsigned long long)pc,
			       (unsigned long long)rd->ev.pc);
	rd->ev.pc = pc;
	rd->ev.pc_known = 1;
	return 0;
}

/* "PSR=400f0030 -Z-- T usr32" (A32: T is bit 5) or
 * "PSTATE=40000000 -Z-- EL0t  SVCR=..." (A64). */
static int dump_psr(struct qemu_log_reader *rd, const char *s, size_t len,
		    size_t skip, int a64)
{
	const char *p = s + skip;
	uint64_t v;

	if (!rd->ev.active || !rd->ev.has_state)
		return 0;
	if (ql_parse_hex(&p, s + len, &v) <= 0 || v > UINT32_MAX)
		return ql_fail(rd, -etmkit_err_format, rd->lineno,
			       "cannot read the PSR of this CPU dump");
	rd->ev.psr = (uint32_t)v;
	rd->ev.psr_known = 1;
	if (a64)
		rd->ev.state_isa = etmkit_isa_a64;
	else
		rd->ev.state_isa = (uint8_t)(v >> 5 & 1 ? etmkit_isa_thumb :
					     etmkit_isa_arm);
	return 0;
}

/* "Stopped execution of TB chain before 0x7f.. [00010440] th": the block
 * logged last did not run. */
static int stopped_line(struct qemu_log_reader *rd, const char *s,
			size_t len)
{
	const char *p = memchr(s, '[', len);
	uint64_t pc;

	if (!p)
		return 0;
	p++;
	if (ql_parse_hex(&p, s + len, &pc) > 0 && rd->ev.active &&
	    rd->ev.pc_known && rd->ev.pc == pc) {
		struct ql_tb *tb;
		uint8_t isa;

		/* Keep its listing (the next "IN:" would drop it): QEMU runs
		 * the block later from its cache. */
		rd->ev.active = 0;
		return resolve_block(rd, &rd->ev, &tb, &isa);
	}
	return 0;
}

/* One line; returns 1 when a block was committed, 0, or a negated error. */
static int dispatch(struct qemu_log_reader *rd, const char *s, size_t len)
{
	if (len == 0) {
		if (rd->in_listing) {
			rd->in_listing = 0;
			rd->listing_ready = 1;
		}
		return 0;
	}
	if (rd->in_listing && s[0] == '0' && len > 2 && s[1] == 'x')
		return ql_listing_insn(rd, s, len);
	if (rd->in_listing && !STARTS(s, len, "IN:")) {
		if (STARTS(s, len, "Disassembler disagrees"))
			rd->listing_bad = 1;
		else if (STARTS(s, len, "OBJD-"))
			rd->listing_bad = 1;
		else if (!STARTS(s, len, "Trace "))
			return 0;
		rd->in_listing = 0;
		rd->listing_ready = 1;
		if (!STARTS(s, len, "Trace "))
			return 0;
	}
	switch (s[0]) {
	case 'T':
		if (STARTS(s, len, "Trace "))
			return trace_line(rd, s, len);
		break;
	case 'I':
		if (STARTS(s, len, "IN:")) {
			/* The block logged last ran before this translation
			 * (a "Stopped" line would have come first): commit it
			 * while its own listing is still the pending one. */
			int committed = 0;

			if (rd->ev.active) {
				int err = commit_event(rd);

				if (err)
					return err;
				committed = 1;
			}
			rd->in_listing = 1;
			rd->listing_ready = 0;
			rd->listing_bad = 0;
			rd->nraw = 0;
			rd->listing_line = rd->lineno;
			return committed;
		}
		break;
	case ' ':
		if (STARTS(s, len, " PC="))
			return dump_a64_pc(rd, s, len);
		break;
	case 'R':
		if (STARTS(s, len, "R00=")) {
			int ret = dump_start(rd, 0, 0, 0);

			if (ret < 0)
				return ret;
			if (rd->cfg.flags & QEMU_LOG_F_DATA) {
				int err = dump_a32_regs(rd, s, len);

				if (err)
					return err;
			}
			return ret;
		}
		if ((rd->cfg.flags & QEMU_LOG_F_DATA) &&
		    (STARTS(s, len, "R04=") || STARTS(s, len, "R08=") ||
		     STARTS(s, len, "R12="))) {
			int err = dump_a32_regs(rd, s, len);

			if (err)
				return err;
		}
		if (STARTS(s, len, "R12="))
			return dump_a32_pc(rd, s, len);
		break;
	case 'P':
		if (STARTS(s, len, "PSR="))
			return dump_psr(rd, s, len, 4, 0);
		if (STARTS(s, len, "PSTATE="))
			return dump_psr(rd, s, len, 7, 1);
		break;
	case 'S':
		if (STARTS(s, len, "Stopped execution of TB chain before"))
			return stopped_line(rd, s, len);
		break;
	case 'L':
		if (STARTS(s, len, "Linking TBs"))
			return ql_fail(rd, -etmkit_err_unsupported, rd->lineno,
				       "blocks were chained: record the log"
				       " with -d ...,nochain");
		break;
	default:
		break;
	}
	return 0;
}

/* Read lines until a block is committed (1) or the log ends (0). */
static int advance(struct qemu_log_reader *rd)
{
	const char *s;
	size_t len;
	int ret;

	for (;;) {
		ret = next_line(rd, &s, &len);
		if (ret < 0)
			return ql_fail(rd, ret, rd->lineno,
				       "reading the log failed");
		if (ret == 0)
			break;
		rd->stats.lines++;
		ret = dispatch(rd, s, len);
		if (ret)
			return ret;
	}
	if (rd->ev.active) {
		ret = commit_event(rd);
		if (ret)
			return ret;
		return 1;
	}
	ret = finish_last(rd, 0, 0, 0);
	if (ret)
		return ret;
	rd->done = 1;
	return rd->qlen ? 1 : 0;
}

/* ---- Public API --------------------------------------------------------- */

int qemu_log_reader_alloc(struct qemu_log_reader **out, void *file,
			  const struct qemu_log_config *cfg)
{
	struct qemu_log_reader *rd;

	if (!out || !file)
		return -etmkit_err_invalid;
	*out = NULL;
	if (cfg && cfg->size < offsetof(struct qemu_log_config, thumb_bit))
		return -etmkit_err_invalid;
	rd = calloc(1, sizeof *rd);
	if (!rd)
		return -etmkit_err_nomem;
	rd->cfg.size = sizeof rd->cfg;
	if (cfg) {
		size_t n = cfg->size < sizeof rd->cfg ? cfg->size : sizeof rd->cfg;

		memcpy(&rd->cfg, cfg, n);
	}
	rd->thumb_bit = 23; /* QEMU 7.2 TBFLAG_AM32 THUMB, in cs_base */
	rd->a64_bit = 0;    /* QEMU 7.2 TBFLAG_ANY AARCH64_STATE */
	if (rd->cfg.flags & QEMU_LOG_F_TB_BITS) {
		if (rd->cfg.thumb_bit > 63 || rd->cfg.a64_bit > 31) {
			free(rd);
			return -etmkit_err_invalid;
		}
		rd->thumb_bit = rd->cfg.thumb_bit;
		rd->a64_bit = rd->cfg.a64_bit;
	}
	rd->file = file;
	rd->buf = malloc(QL_BUF_SIZE);
	rd->hash_size = 1024;
	rd->hash = calloc(rd->hash_size, sizeof *rd->hash);
	if (!rd->buf || !rd->hash) {
		qemu_log_reader_free(rd);
		return -etmkit_err_nomem;
	}
	if (!(rd->cfg.flags & QEMU_LOG_F_NO_CONTEXT)) {
		struct exec_rec c;

		memset(&c, 0, sizeof c);
		c.kind = exec_context;
		c.flags = EXEC_CTX_EL;
		c.el = 0;
		c.ns = 1;
		rd->queue[0] = c;
		rd->qlen = 1;
	}
	*out = rd;
	return 0;
}

void qemu_log_reader_free(struct qemu_log_reader *rd)
{
	if (!rd)
		return;
	free(rd->buf);
	free(rd->tbs);
	free(rd->hash);
	free(rd->pool);
	free(rd->raw);
	free(rd);
}

int qemu_log_reader_stats(const struct qemu_log_reader *rd,
			  struct qemu_log_stats *st)
{
	if (!rd || !st)
		return -etmkit_err_invalid;
	*st = rd->stats;
	return 0;
}

/* The next instruction of the running block (all but its last, which
 * waits for the next block in rd->last). */
static int run_next(struct qemu_log_reader *rd, struct exec_rec *r)
{
	const struct ql_tb *tb = &rd->tbs[rd->run_tb];
	const struct ql_insn *in = &rd->pool[tb->first + rd->run_i];
	int first = rd->run_i == 0;

	rd->run_i++;
	rd->run_left--;
	if (rd->run_left == 0) {
		rd->last.valid = 1;
		rd->last.isa = tb->isa;
		rd->last.in = *in;
		rd->last.cond_fail = first && rd->run_first_fail;
		rd->last.cond_pass = first && rd->run_first_pass;
		rd->last.regs_ok = first && rd->run_regs_ok;
		rd->last.psr = rd->run_psr;
		memcpy(rd->last.regs, rd->run_regs, sizeof rd->last.regs);
		return 0;
	}
	memset(r, 0, sizeof *r);
	r->kind = exec_insn;
	r->isa = tb->isa;
	r->size = in->size;
	r->addr = in->addr;
	r->opcode = in->opcode;
	r->flags = in->flags;
	if (first && rd->run_first_fail)
		r->flags |= EXEC_F_COND_FAIL;
	rd->stats.insns++;
	return 1;
}

int qemu_log_next(struct qemu_log_reader *rd, struct exec_rec *r,
		  struct exec_diag *diag)
{
	int ret;

	if (!rd || !r)
		return -etmkit_err_invalid;
	for (;;) {
		if (rd->err)
			break;
		if (rd->qlen) {
			*r = rd->queue[rd->qhead];
			rd->qhead = (rd->qhead + 1) & (QL_QUEUE - 1);
			rd->qlen--;
			return 1;
		}
		if (rd->run_left) {
			if (run_next(rd, r))
				return 1;
			continue;
		}
		if (rd->done)
			return 0;
		ret = advance(rd);
		if (ret < 0 && !rd->err)
			ql_fail(rd, ret, rd->lineno, "%s",
				etmkit_errstr(ret));
		if (ret == 0 && !rd->qlen)
			return 0;
	}
	if (diag)
		*diag = rd->diag;
	return rd->err;
}
