/* Test support: a PTM trace read back against its record (ts_ptm_check.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/exec.h"
#include "etmkit/flow.h"
#include "etmkit/insn.h"
#include "etmkit/ptm.h"

#include "ts_ptm_check.h"

struct pkts {
	struct ptm_packet *p;
	size_t n, cap;
};

/* ---- Reading the packets against the record --------------------------------------- */

#define TS_RS 16 /* return addresses the decoder keeps (as OpenCSD) */

struct rd {
	struct {
		uint32_t addr;
		uint8_t isa;
	} rs[TS_RS];
	unsigned nrs;
	jmp_buf jb;
	char *why;
	size_t cap;
	const struct ptm_config_info *info;
	const struct pkts *pk;
	size_t at;          /* the next packet */
	unsigned atom;      /* atoms of it already taken */
	uint32_t cyc;       /* the record's cycles since the last count */
	uint32_t gap_cyc;
	uint32_t cid, vmid;
	uint8_t ns, hyp;
	int have_last;      /* an instruction since the last I-sync */
	uint32_t last;      /* the last instruction's address */
	uint8_t last_isa;
	int exc;            /* an exception's packet is due: its kind */
	uint64_t ts;
	int ts_due, cid_due, vmid_due;
	size_t item;
};

/* The reason into r->why, and back to ts_ptm_check(). */
static void bad(struct rd *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
static void bad(struct rd *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, r->cap, fmt, ap);
	va_end(ap);
	longjmp(r->jb, 1);
}

static const struct ptm_packet *cur(struct rd *r)
{
	while (r->at < r->pk->n) {
		const struct ptm_packet *p = &r->pk->p[r->at];

		if (p->error)
			bad(r, "item %zu: packet %zu at %llu: error %d (%s)",
				 r->item, r->at, (unsigned long long)p->offset,
				 p->error, p->why ? p->why : "");
		if (p->type != ptm_pkt_a_sync && p->type != ptm_pkt_ignore &&
		    p->type != ptm_pkt_trigger)
			return p;
		r->at++;
	}
	return NULL;
}

static void next_pkt(struct rd *r)
{
	r->at++;
	r->atom = 0;
}

static void check_cycles(struct rd *r, int has, uint32_t v, const char *what)
{
	if (!r->info->cycle_accurate) {
		if (has)
			bad(r, "item %zu: %s with a cycle count", r->item, what);
		return;
	}
	if (!has || v != r->cyc)
		bad(r, "item %zu: %s cycles %u (has %d), the record's %u",
			 r->item, what, v, has, r->cyc);
	r->cyc = 0;
}

/* The low @bytes bytes of @v. */
static uint32_t low(uint32_t v, unsigned bytes)
{
	return bytes >= 4 ? v : v & ((1u << (8 * bytes)) - 1);
}

static const uint8_t exc_num[exec_exc_count] = { 8, 9, 10, 11, 12, 14, 15, 11 };

/* Packets between items: I-sync where the record jumps, waypoint updates
 * to the last instruction, context, timestamps, an exception's packet.
 * Stops at a packet that does not belong here yet (it is checked where
 * it does, or where a waypoint's packet is due). @next: the instruction
 * about to run (NULL at the end). */
static void between(struct rd *r, const struct exec_rec *next)
{
	const struct ptm_packet *p;

	while ((p = cur(r)) != NULL) {
		switch (p->type) {
		case ptm_pkt_i_sync:
			if (!next || p->u.isync.addr != (uint32_t)next->addr ||
			    p->u.isync.isa != next->isa)
				return;
			if (p->u.isync.ns != r->ns ||
			    p->u.isync.context_id !=
			    low(r->cid, r->info->context_id_bytes))
				bad(r, "item %zu: I-sync state", r->item);
			if (p->u.isync.reason != ptm_reason_periodic) {
				/* trace on: an exception before it is not
				 * traced */
				r->exc = -1;
				if (r->info->cycle_accurate &&
				    p->u.isync.cycles != r->gap_cyc)
					bad(r, "item %zu: I-sync cycles",
						 r->item);
				r->cyc = 0;
			}
			r->cid_due = 0;
			r->vmid_due = r->info->vmid;
			r->nrs = 0; /* the decoder's stack starts empty */
			r->have_last = 0;
			break;
		case ptm_pkt_waypoint_update:
			if (!r->have_last || p->u.branch.addr != r->last ||
			    p->u.branch.isa != r->last_isa)
				return;
			break;
		case ptm_pkt_branch_address:
			if (!p->u.branch.exception || r->exc < 0 || !next)
				return;
			if (p->u.branch.exception != exc_num[r->exc] ||
			    p->u.branch.addr != (uint32_t)next->addr ||
			    p->u.branch.isa != next->isa ||
			    p->u.branch.ns != r->ns)
				bad(r, "item %zu: exception %u to 0x%x",
					 r->item, p->u.branch.exception,
					 p->u.branch.addr);
			check_cycles(r, p->u.branch.has_cycles,
				     p->u.branch.cycles, "exception");
			r->exc = -1;
			break;
		case ptm_pkt_context_id:
			if (!r->cid_due)
				return;
			if (p->u.context_id !=
			    low(r->cid, r->info->context_id_bytes))
				bad(r, "item %zu: context ID", r->item);
			r->cid_due = 0;
			break;
		case ptm_pkt_vmid:
			if (!r->vmid_due)
				return;
			if (p->u.vmid != (uint8_t)r->vmid)
				bad(r, "item %zu: VMID", r->item);
			r->vmid_due = 0;
			break;
		case ptm_pkt_timestamp: {
			uint64_t m = r->info->ts_bits == 64 ? ~0ull :
				     (1ull << 48) - 1;

			if (!r->ts_due)
				return;
			if (p->u.timestamp.value != (r->ts & m))
				bad(r, "item %zu: timestamp 0x%llx", r->item,
					 (unsigned long long)p->u.timestamp.value);
			check_cycles(r, p->u.timestamp.has_cycles,
				     p->u.timestamp.cycles, "timestamp");
			r->ts_due = 0;
			break;
		}
		case ptm_pkt_exception_return:
			break;
		default:
			return;
		}
		next_pkt(r);
	}
}

/* A branch, ISB, DMB or DSB with ETMCCER[24] (IHI 0035B 4.3), as the
 * encoder has them. */
static uint32_t iflags_of(const struct exec_rec *it)
{
	struct insn_info ii;
	uint8_t b[4];
	size_t n = exec_insn_bytes(it, b);

	return n && insn_decode(&ii, (enum etmkit_isa)it->isa, it->addr, b,
				n) >= 0 ? ii.flags : 0;
}

static int is_waypoint(const struct ptm_config_info *info,
		       const struct exec_rec *it)
{
	uint32_t f = iflags_of(it);

	return (it->flags & EXEC_F_BRANCH) || (f & INSN_F_ISB) ||
	       (info->dmb_waypoint && (f & INSN_F_BARRIER));
}

/* Waypoint @w: its atom, or the branch packet standing for its E. */
static void waypoint(struct rd *r, const struct exec_rec *w)
{
	const struct ptm_packet *p = cur(r);
	int branch = (w->flags & EXEC_F_BRANCH) != 0;
	int taken = branch && (w->flags & EXEC_F_TAKEN) &&
		    !(w->flags & EXEC_F_COND_FAIL);
	/* E: a branch taken, an ISB whose condition passed */
	int exec = branch ? taken : !(w->flags & EXEC_F_COND_FAIL);
	uint8_t tisa = w->target_isa ? w->target_isa : w->isa;

	if (!p)
		bad(r, "item %zu: no packet for the waypoint", r->item);
	if (p->type == ptm_pkt_atom) {
		int n = (p->u.atoms.bits >> r->atom) & 1;
		int popped = 0;

		/* A taken indirect branch's E atom alone: the decoder pops
		 * its return stack (ETMCR[29]; as ptm_flow and OpenCSD). */
		if (taken && (w->flags & EXEC_F_INDIRECT) &&
		    r->info->return_stack && r->nrs) {
			r->nrs--;
			popped = r->rs[r->nrs].addr == (uint32_t)w->target &&
				 r->rs[r->nrs].isa == tisa;
		}
		if (n != !exec ||
		    (taken && (w->flags & EXEC_F_INDIRECT) && !popped) ||
		    (taken && tisa != w->isa && !popped) ||
		    (taken && r->info->branch_broadcast))
			bad(r, "item %zu: atom %c for a branch %s", r->item,
				 n ? 'N' : 'E', taken ? "taken" : "not taken");
		if (r->info->cycle_accurate)
			check_cycles(r, p->u.atoms.has_cycles,
				     p->u.atoms.cycles, "atom");
		if (++r->atom == p->u.atoms.count)
			next_pkt(r);
		return;
	}
	if (p->type != ptm_pkt_branch_address || !taken ||
	    p->u.branch.addr != (uint32_t)w->target || p->u.branch.isa != tisa)
		bad(r, "item %zu: packet %zu type %u (0x%x) for a branch to "
			 "0x%llx", r->item, r->at, p->type, p->u.branch.addr,
			 (unsigned long long)w->target);
	check_cycles(r, p->u.branch.has_cycles, p->u.branch.cycles, "branch");
	next_pkt(r);
}

/* A taken branch with link: the decoder pushes its return address. */
static void rs_push(struct rd *r, const struct exec_rec *w)
{
	if (r->nrs == TS_RS) {
		memmove(r->rs, r->rs + 1, sizeof(r->rs[0]) * (TS_RS - 1));
		r->nrs--;
	}
	r->rs[r->nrs].addr = (uint32_t)(w->addr + w->size);
	r->rs[r->nrs++].isa = w->isa;
}

static void read_back(struct rd *r, const struct ts_rec *rc)
{
	for (size_t i = 0; i < rc->n; i++) {
		const struct exec_rec *it = &rc->r[i];

		r->item = i;
		switch (it->kind) {
		case exec_insn:
			between(r, it);
			if (r->exc >= 0)
				bad(r, "item %zu: no exception packet", i);
			if (it->flags & EXEC_F_CYCLES)
				r->cyc += it->cycles;
			else
				r->cyc++;
			if (is_waypoint(r->info, it)) {
				waypoint(r, it);
				if (r->info->return_stack &&
				    (it->flags & EXEC_F_TAKEN) &&
				    !(it->flags & EXEC_F_COND_FAIL) &&
				    (iflags_of(it) & INSN_F_CALL))
					rs_push(r, it);
			}
			r->have_last = 1;
			r->last = (uint32_t)it->addr;
			r->last_isa = it->isa;
			break;
		case exec_exception:
			r->exc = (int)it->number;
			break;
		case exec_gap:
			between(r, NULL);
			r->exc = -1;
			r->cyc = 0;
			r->gap_cyc = (it->flags & EXEC_F_CYCLES) ? it->cycles : 0;
			r->have_last = 0;
			break;
		case exec_context:
			if ((it->flags & EXEC_CTX_CONTEXTID) &&
			    (uint32_t)it->value != r->cid) {
				r->cid = (uint32_t)it->value;
				r->cid_due = r->info->context_id_bytes != 0;
			}
			if ((it->flags & EXEC_CTX_VMID) &&
			    (uint8_t)it->vmid != (uint8_t)r->vmid) {
				r->vmid = it->vmid;
				r->vmid_due = r->info->vmid;
			}
			if (it->flags & EXEC_CTX_EL) {
				r->ns = it->ns;
				r->hyp = it->el == 2;
			}
			break;
		case exec_timestamp:
			r->ts = it->value;
			r->ts_due = r->info->timestamps;
			break;
		}
	}
	r->item = rc->n;
	between(r, NULL);
	if (cur(r))
		bad(r, "packet %zu (type %u) left over", r->at, cur(r)->type);
}


/* Decode @b[0..n) fed @step bytes at a time into @out. */
static void decode_all(struct rd *r, const struct ptm_config *pc,
		       const uint8_t *b, size_t n, size_t step,
		       struct pkts *out)
{
	struct ptm_pkt_decoder *d = NULL;
	int k;

	if (ptm_pkt_alloc(&d, pc))
		bad(r, "ptm_pkt_alloc refuses the encoder's registers");
	for (size_t at = 0;; at += step) {
		if (at < n)
			k = ptm_pkt_feed(d, b + at, n - at < step ? n - at : step,
					 NULL, at);
		else
			k = ptm_pkt_finish(d);
		if (k) {
			ptm_pkt_free(d);
			bad(r, "ptm_pkt_feed/finish: %d", k);
		}
		for (;;) {
			if (out->n + 64 > out->cap) {
				out->cap = out->cap * 2 + 256;
				out->p = realloc(out->p, out->cap * sizeof(*out->p));
				if (!out->p)
					abort();
			}
			k = ptm_pkt_next(d, out->p + out->n, 64);
			if (k == -etmkit_err_eos)
				break;
			if (k <= 0) {
				ptm_pkt_free(d);
				bad(r, "ptm_pkt_next: %d", k);
			}
			out->n += (size_t)k;
		}
		if (at >= n)
			break;
	}
	ptm_pkt_free(d);
}

int ts_ptm_check(const struct ptm_enc_config *enc, const uint8_t *b,
		 size_t n, size_t step, const struct ts_rec *rc, char *why,
		 size_t cap)
{
	struct ptm_config pc;
	struct ptm_config_info info;
	struct pkts pk = { 0 };
	struct rd r;
	int ret = 0;

	memset(&r, 0, sizeof(r));
	r.why = why;
	r.cap = cap;
	ptm_config_init(&pc);
	pc.etmcr = enc->etmcr;
	pc.etmidr = enc->etmidr;
	pc.etmccer = enc->etmccer;
	if (ptm_config_decode(&pc, &info)) {
		snprintf(why, cap, "registers ts_ptm_check() does not take");
		return -1;
	}
	/* Timestamps are emitted where ETMCR[28] enables them (ptm.h). */
	info.timestamps = !!(enc->etmcr & PTM_ETMCR_TIMESTAMP);
	r.info = &info;
	r.pk = &pk;
	r.exc = -1;
	if (setjmp(r.jb)) {
		ret = -1;
	} else {
		decode_all(&r, &pc, b, n, step ? step : (n ? n : 1), &pk);
		read_back(&r, rc);
	}
	free(pk.p);
	return ret;
}

/* ---- The flow decoder ------------------------------------------------------ */

struct fw {
	const struct ts_rec *rc;
	const struct ptm_config_info *info;
	size_t i;           /* the next record item */
	int tracing;        /* an instruction since trace on: exceptions show */
	uint64_t acc;       /* the record's cycles since the last count */
	char *why;
	size_t cap;
	int bad;
};

static int fw_bad(struct fw *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fw_bad(struct fw *f, const char *fmt, ...)
{
	va_list ap;

	if (f->bad)
		return -1;
	va_start(ap, fmt);
	vsnprintf(f->why, f->cap, fmt, ap);
	va_end(ap);
	f->bad = 1;
	return -1;
}

/* The next record item the decode must show (an instruction, or an
 * exception whose handler is traced), skipping the others. */
static const struct exec_rec *fw_next(struct fw *f)
{
	for (; f->i < f->rc->n; f->i++) {
		const struct exec_rec *it = &f->rc->r[f->i];

		if (it->kind == exec_insn)
			return it;
		if (it->kind == exec_gap) {
			f->tracing = 0;
			f->acc = 0;
		}
		if (it->kind == exec_exception && f->tracing) {
			/* shown when an instruction follows before a gap,
			 * and no later exception replaces it */
			for (size_t j = f->i + 1; j < f->rc->n; j++) {
				uint8_t k = f->rc->r[j].kind;

				if (k == exec_insn)
					return it;
				if (k == exec_gap || k == exec_exception)
					break;
			}
		}
	}
	return NULL;
}

static int fw_elem(struct fw *f, const struct etmkit_elem *el)
{
	const struct exec_rec *it;

	switch (el->kind) {
	case etmkit_elem_insn: {
		int exec;
		unsigned want;

		it = fw_next(f);
		if (!it || it->kind != exec_insn)
			return fw_bad(f, "item %zu: the decode has an instruction "
				      "at 0x%llx", f->i,
				      (unsigned long long)el->addr);
		exec = (it->flags & EXEC_F_BRANCH) ?
		       (it->flags & EXEC_F_TAKEN) && !(it->flags & EXEC_F_COND_FAIL) :
		       !(it->flags & EXEC_F_COND_FAIL);
		want = is_waypoint(f->info, it) && !exec ? ETMKIT_INSN_COND_FAIL :
		       ETMKIT_INSN_EXEC;
		if (el->addr != it->addr || el->size != it->size ||
		    el->isa != it->isa ||
		    (el->flags & (ETMKIT_INSN_EXEC | ETMKIT_INSN_COND_FAIL)) != want)
			return fw_bad(f, "item %zu: decoded 0x%llx/%u/%u flags "
				      "0x%x, the record's 0x%llx/%u/%u", f->i,
				      (unsigned long long)el->addr, el->size,
				      el->isa, el->flags,
				      (unsigned long long)it->addr, it->size,
				      it->isa);
		f->tracing = 1;
		f->i++;
		f->acc += (it->flags & EXEC_F_CYCLES) ? it->cycles : 1;
		/* A waypoint's atom or branch packet count goes on it (flow.h),
		 * the instructions before it get none. */
		if (!f->info->cycle_accurate)
			return 0;
		if (!is_waypoint(f->info, it)) {
			if ((el->flags & ETMKIT_INSN_CYCLES) && el->cycles)
				return fw_bad(f, "item %zu: %u cycles on no "
					      "waypoint", f->i - 1, el->cycles);
			return 0;
		}
		if (!(el->flags & ETMKIT_INSN_CYCLES) || el->cycles != f->acc)
			return fw_bad(f, "item %zu: decoded cycles %u (flags "
				      "0x%x), the record's %llu", f->i - 1,
				      el->cycles, el->flags,
				      (unsigned long long)f->acc);
		f->acc = 0;
		return 0;
	}
	case etmkit_elem_cycle_count:
		/* an exception's or a timestamp's count */
		if (el->cycles != f->acc)
			return fw_bad(f, "item %zu: cycle count %u, the record's "
				      "%llu", f->i, el->cycles,
				      (unsigned long long)f->acc);
		f->acc = 0;
		return 0;
	case etmkit_elem_trace_on:
		f->acc = 0;
		return 0;
	case etmkit_elem_exception: {
		static const uint8_t num[exec_exc_count] = {
			8, 9, 10, 11, 12, 14, 15, 11 };

		it = fw_next(f);
		if (!it || it->kind != exec_exception ||
		    el->u.exception.number != num[it->number])
			return fw_bad(f, "item %zu: the decode has exception %u",
				      f->i, el->u.exception.number);
		f->i++;
		return 0;
	}
	case etmkit_elem_gap:
	case etmkit_elem_no_image:
	case etmkit_elem_overflow:
		return fw_bad(f, "item %zu: element kind %u at offset %llu",
			      f->i, el->kind, (unsigned long long)el->offset);
	default:
		return 0;
	}
}

static int fw_drain(struct fw *f, struct ptm_flow_decoder *d)
{
	const struct etmkit_elem *el;
	int k;

	while ((k = ptm_flow_batch(d, &el)) > 0)
		for (int i = 0; i < k; i++)
			if (fw_elem(f, &el[i]))
				return -1;
	return k == -etmkit_err_eos ? 0 : fw_bad(f, "ptm_flow_batch: %d", k);
}

int ts_ptm_flow_check(const struct ptm_enc_config *enc,
		      const struct image *img, const uint8_t *b, size_t n,
		      size_t step, const struct ts_rec *rc, char *why,
		      size_t cap)
{
	struct ptm_flow_config fc;
	struct ptm_flow_decoder *d;
	struct ptm_config_info info;
	struct fw f = { rc, &info, 0, 0, 0, why, cap, 0 };
	size_t at = 0;

	ptm_flow_config_init(&fc);
	fc.ptm.etmcr = enc->etmcr;
	fc.ptm.etmidr = enc->etmidr;
	fc.ptm.etmccer = enc->etmccer;
	fc.image = img;
	if (ptm_config_decode(&fc.ptm, &info) || ptm_flow_alloc(&d, &fc)) {
		snprintf(why, cap, "ptm_flow_alloc refuses the registers");
		return -1;
	}
	if (!step)
		step = n ? n : 1;
	while (at < n && !f.bad) {
		size_t m = n - at < step ? n - at : step;

		if (ptm_flow_feed(d, b + at, m, NULL, at))
			fw_bad(&f, "ptm_flow_feed failed at %zu", at);
		else
			fw_drain(&f, d);
		at += m;
	}
	if (!f.bad && ptm_flow_finish(d))
		fw_bad(&f, "ptm_flow_finish failed");
	if (!f.bad)
		fw_drain(&f, d);
	if (!f.bad && fw_next(&f))
		fw_bad(&f, "item %zu: the decode ends before it", f.i);
	ptm_flow_free(d);
	return f.bad ? -1 : 0;
}
