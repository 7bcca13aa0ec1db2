/* Test support: ETMv2 cycles read back against their record
 * (ts_etm2_check.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ts_etm2_check.h"

int ts_cycles_sink(void *ctx, const struct etm2_cycle *c, size_t n)
{
	struct ts_cycles *o = ctx;

	if (o->n + n > o->cap) {
		o->cap = 2 * (o->n + n);
		o->c = realloc(o->c, o->cap * sizeof(*o->c));
		if (!o->c)
			abort();
	}
	memcpy(o->c + o->n, c, n * sizeof(*c));
	o->n += n;
	return 0;
}

struct xp {          /* an expected data packet */
	uint32_t addr, value;
	uint8_t a;
};

struct check {
	const struct ts_rec *rc;
	struct etm2_config_info info;
	int overflow;
	size_t i;                 /* next record item */
	uint32_t cid;             /* after the items read */
	int exc;                  /* an exception item read since the last
				     instruction */
	const struct exec_rec *cur; /* the last instruction read */
	struct xp xp[128];        /* its data packets */
	unsigned nxp, pos;
	uint32_t miss[4];
	uint8_t miss_valid[4];
	int last_dw;
	int exp_valid;            /* the decoder's walk: where the next */
	uint32_t exp;             /* instruction is */
	int gap;                  /* no instruction yet, or a gap item
				     since the last one */
	int exc_seen;             /* an exception entry (DW branch) since */
	int prev_valid, prev_tfo; /* the status before (docs/etmv2.md 7): */
	uint64_t prev_cycle;      /* an instruction's or a TFO's cycle */
	unsigned dw;              /* DW cycles since it */
	/* ETMv1 (docs/etmv2.md 7b): a BE's meaning waits for its address
	 * (reasons 1 to 3: a restart, no instruction); after a BE or BD the
	 * next status is 3 cycles on at least (its APO cycles); a context
	 * ID after an instruction's address is that instruction's. */
	int v1, be_pending, prev_br, v1_restart;
	uint64_t be_cycle;
	uint32_t cur_cid;
	struct ts_etm2_result res;
	char *why;
	size_t cap;
};

static int bad(struct check *k, uint64_t cycle, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(struct check *k, uint64_t cycle, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(k->why, k->cap, "cycle %llu: ",
			 (unsigned long long)cycle);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < k->cap)
		vsnprintf(k->why + n, k->cap - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Read the record up to its next instruction (context, exceptions);
 * returns it (not consumed), or NULL at the end. */
static const struct exec_rec *peek_insn(struct check *k)
{
	while (k->i < k->rc->n) {
		const struct exec_rec *r = &k->rc->r[k->i];

		if (r->kind == exec_insn)
			return r;
		if (r->kind == exec_context && (r->flags & EXEC_CTX_CONTEXTID))
			k->cid = (uint32_t)r->value;
		if (r->kind == exec_exception)
			k->exc = 1;
		if (r->kind == exec_gap)
			k->exc = 0, k->gap = 1;
		k->i++;
	}
	return NULL;
}

static uint32_t cid_mask(const struct check *k, uint32_t v)
{
	unsigned b = k->info.context_id_bytes;

	return b == 4 ? v : v & ((1u << (8 * b)) - 1);
}

static int misses_owed(const struct check *k)
{
	return k->miss_valid[0] || k->miss_valid[1] || k->miss_valid[2] ||
	       k->miss_valid[3];
}

/* Take the next instruction: its data packets become the expected ones;
 * *@out gets it. */
static int take_insn(struct check *k, uint64_t cycle,
		     const struct exec_rec **out)
{
	const struct exec_rec *r;

	if (k->cur && k->pos != k->nxp && !misses_owed(k))
		return bad(k, cycle, "%u of %u data packets of 0x%llx",
			   k->pos, k->nxp, (unsigned long long)k->cur->addr);
	r = peek_insn(k);
	if (!r)
		return bad(k, cycle, "an instruction past the record's end");
	if (k->exp_valid && !k->exc && (uint32_t)r->addr != k->exp)
		return bad(k, cycle, "the walk at 0x%x, the record at 0x%llx",
			   k->exp, (unsigned long long)r->addr);
	/* docs/etmv2.md 7a: an exception is shown unless trace restarts
	 * at its handler (a gap before it, or no instruction traced). */
	if (k->exc && !k->gap && !k->exc_seen && !k->overflow)
		return bad(k, cycle, "no exception entry before 0x%llx",
			   (unsigned long long)r->addr);
	k->gap = k->exc_seen = 0;
	k->exp_valid = 1;
	k->exp = (uint32_t)((r->flags & EXEC_F_TAKEN) &&
			    !(r->flags & EXEC_F_COND_FAIL) ? r->target
							   : r->addr + r->size);
	k->i++;
	k->exc = 0;
	k->cur = r;
	k->cur_cid = k->cid;
	k->v1_restart = 0;
	k->nxp = k->pos = 0;
	k->res.insns++;
	*out = r;
	if (!k->info.data_addr && !k->info.data_value)
		return 0;
	for (size_t j = k->i; j < k->rc->n && k->rc->r[j].kind == exec_data;
	     j++) {
		const struct exec_rec *d = &k->rc->r[j];

		if (k->nxp + 2 > 128)
			break;
		k->xp[k->nxp].addr = (uint32_t)d->addr;
		k->xp[k->nxp].value = (uint32_t)d->value;
		k->xp[k->nxp++].a = j == k->i;
		if (d->size == 8) {
			k->xp[k->nxp].value = (uint32_t)(d->value >> 32);
			k->xp[k->nxp++].a = 0;
		}
	}
	return 0;
}

static int check_data(struct check *k, const struct etm2_packet *p)
{
	const struct etm2_data *d = &p->u.data;
	const struct xp *x;

	if (!k->cur || k->pos >= k->nxp)
		return bad(k, p->cycle, "a data packet no transfer made");
	x = &k->xp[k->pos++];
	if (d->a_bit != x->a)
		return bad(k, p->cycle, "A bit %u, want %u", d->a_bit, x->a);
	if (d->has_addr && (d->addr_partial || d->addr != x->addr))
		return bad(k, p->cycle, "data address 0x%x%s, want 0x%x",
			   d->addr, d->addr_partial ? " (partial)" : "",
			   x->addr);
	if (!d->has_addr && x->a && k->info.data_addr)
		return bad(k, p->cycle, "no data address");
	if (p->type == etm2_pkt_load_miss) {
		k->miss[d->tag] = x->value;
		k->miss_valid[d->tag] = 1;
		return 0;
	}
	if (k->info.data_value && d->value != x->value)
		return bad(k, p->cycle, "value 0x%x, want 0x%x", d->value,
			   x->value);
	return 0;
}

static int is_insn_status(unsigned s)
{
	return s <= etm2_st_dn || (s >= etm2_st_ptie && s <= etm2_st_pndn) ||
	       s == etm2_st_id || s == etm2_st_bd;
}

static int failed(const struct exec_rec *r)
{
	return (r->flags & EXEC_F_COND_FAIL) ||
	       ((r->flags & EXEC_F_BRANCH) && !(r->flags & EXEC_F_TAKEN));
}

/* The record's cycles of @r less one: the cycles without instruction
 * before it (etm2_enc: n > 1 gives n - 1). */
static uint64_t waits(const struct exec_rec *r)
{
	return (r->flags & EXEC_F_CYCLES) && r->cycles > 1 ? r->cycles - 1
							   : 0;
}

/* The next instruction's cycles count from @cycle, a TFO's (@tfo) or an
 * ETMv1 BE/BD's (@br: its APO cycles come first). */
static void count_from(struct check *k, uint64_t cycle, int tfo, int br)
{
	k->prev_valid = 1;
	k->prev_tfo = tfo;
	k->prev_br = br;
	k->prev_cycle = cycle;
	k->dw = 0;
}

/* Cycle-accurate (docs/etmv2.md 7 and 7a): the status at @cycle of
 * instructions whose record counts less one add up to @w is 1 + @w
 * cycles after the status before it, or 1 + the cycles the trace must
 * place in between if more: the DW cycles of exception entries and
 * context changes, and on a 4-bit port a trace-on TFO's second cycle.
 * Not with @overflow: a lost instruction's cycles go to no status. */
static int check_cycles(struct check *k, uint64_t cycle, uint64_t w,
			const struct exec_rec *r)
{
	uint64_t want = 1 + w, least = 1 + k->dw +
			(k->prev_tfo && k->info.port_width == 4);

	if (k->prev_br)
		least = 3;

	if (want < least)
		want = least;
	if (k->info.cycle_accurate && k->prev_valid && !k->overflow &&
	    cycle - k->prev_cycle != want)
		return bad(k, cycle, "0x%llx %llu cycles after the status "
			   "before, want %llu", (unsigned long long)r->addr,
			   (unsigned long long)(cycle - k->prev_cycle),
			   (unsigned long long)want);
	count_from(k, cycle, 0, 0);
	return 0;
}

static int check_status(struct check *k, const struct etm2_packet *p)
{
	unsigned s = p->status, base = s;
	const struct exec_rec *r;
	uint64_t w = 0;

	k->last_dw = s == etm2_st_dw;
	k->dw += k->last_dw;
	if (s == etm2_st_be) {
		/* an instruction or a restart: its address says */
		k->be_pending = 1;
		k->be_cycle = p->cycle;
		return 0;
	}
	if (!is_insn_status(s))
		return 0;
	if (s >= etm2_st_ptie && s <= etm2_st_pndn) {
		/* The phantom: a direct branch, taken (PT) or not. */
		if (take_insn(k, p->cycle, &r))
			return -1;
		if (!(r->flags & EXEC_F_BRANCH) || (r->flags & EXEC_F_INDIRECT) ||
		    failed(r) != (s >= etm2_st_pnie))
			return bad(k, p->cycle, "%s for 0x%llx",
				   etm2_status_name(s),
				   (unsigned long long)r->addr);
		base = (s - etm2_st_ptie) & 3;
		w = waits(r);
	}
	if (take_insn(k, p->cycle, &r))
		return -1;
	if (check_cycles(k, p->cycle, w + waits(r), r))
		return -1;
	if (failed(r) != (base == etm2_st_in || base == etm2_st_dn))
		return bad(k, p->cycle, "%s for 0x%llx (%s)",
			   etm2_status_name(s), (unsigned long long)r->addr,
			   failed(r) ? "failed" : "executed");
	return 0;
}

/* Trace restarts at @addr after an overflow (unique addresses:
 * straight-line code): what lies before it was lost. Returns the
 * instruction there, or NULL. */
static const struct exec_rec *skip_lost(struct check *k, uint32_t addr)
{
	const struct exec_rec *r = peek_insn(k);

	k->cur = NULL;
	while (r && (uint32_t)r->addr != addr) {
		k->i++;
		k->res.lost++;
		r = peek_insn(k);
	}
	return r;
}

static int check_tfo(struct check *k, const struct etm2_packet *p)
{
	const struct etm2_tfo *t = &p->u.tfo;
	const struct exec_rec *r = peek_insn(k);

	if (!r)
		return bad(k, p->cycle, "a TFO past the record's end");
	if (t->reason == etm2_reason_overflow) {
		/* Trace restarts at the TFO's address (unique addresses:
		 * straight-line code); what lies before it was lost. */
		if (!k->overflow)
			return bad(k, p->cycle, "an overflow");
		r = skip_lost(k, t->addr);
		if (!r)
			return bad(k, p->cycle, "overflow TFO at 0x%x: no such "
				   "instruction", t->addr);
	}
	if (t->addr != (uint32_t)r->addr || t->isa != r->isa)
		return bad(k, p->cycle, "TFO at 0x%x, the record at 0x%llx",
			   t->addr, (unsigned long long)r->addr);
	if (t->context_id != cid_mask(k, k->cid))
		return bad(k, p->cycle, "TFO context ID 0x%x, want 0x%x",
			   t->context_id, cid_mask(k, k->cid));
	k->exp_valid = 0;
	memset(k->miss_valid, 0, sizeof(k->miss_valid));
	if (t->reason == etm2_reason_periodic) {
		/* The encoder places one on a 4-bit port only before an
		 * instruction that waits (docs/etmv2.md 7a): its second
		 * cycle is not among those the next must show. */
		if (take_insn(k, p->cycle, &r) ||
		    check_cycles(k, p->cycle, waits(r), r))
			return -1;
	} else {
		/* Cycles count from here (docs/etmv2.md 7). */
		count_from(k, p->cycle, 1, 0);
	}
	return 0;
}

/* An ETMv1 BE whose address has reason 1 to 3: no instruction, trace
 * restarts at the address (docs/etmv2.md 7b), the next instruction's;
 * after an overflow (2) the record's instructions before it were lost;
 * an exception before it is not shown. */
static int v1_restart(struct check *k, const struct etm2_packet *p)
{
	const struct etm2_branch *b = &p->u.branch;
	const struct exec_rec *r = peek_insn(k);

	if (b->reason == etm2_reason_overflow) {
		if (!k->overflow)
			return bad(k, p->cycle, "an overflow");
		r = skip_lost(k, b->addr);
	}
	if (!r || b->addr != (uint32_t)r->addr || b->isa != r->isa)
		return bad(k, p->cycle, "restart at 0x%x, the record at 0x%llx",
			   b->addr, r ? (unsigned long long)r->addr : 0ull);
	k->cur = NULL;
	k->exp_valid = 0;
	k->gap = 1;
	k->v1_restart = 1;
	count_from(k, k->be_cycle, 0, 1);
	return 0;
}

/* ETMv1: the BE before @p was an instruction (reason 0 or 4). */
static int v1_be_insn(struct check *k, const struct etm2_packet *p)
{
	const struct exec_rec *r;

	if (take_insn(k, k->be_cycle, &r) ||
	    check_cycles(k, k->be_cycle, waits(r), r))
		return -1;
	if (failed(r))
		return bad(k, p->cycle, "BE for 0x%llx (failed)",
			   (unsigned long long)r->addr);
	return 0;
}

static int check_branch(struct check *k, const struct etm2_packet *p)
{
	const struct etm2_branch *b = &p->u.branch;

	if (k->v1) {
		int restart = b->has_reason && b->reason >= 1 &&
			      b->reason <= 3;

		if (k->be_pending) {
			k->be_pending = 0;
			if (restart)
				return v1_restart(k, p);
			if (v1_be_insn(k, p))
				return -1;
		} else if (restart) {
			return bad(k, p->cycle, "a BD restart");
		}
		k->prev_br = 1;
	}
	if (k->last_dw) {
		/* An exception entry: the handler's address. */
		const struct exec_rec *r = peek_insn(k);

		if (!r || !k->exc || b->addr != (uint32_t)r->addr ||
		    b->isa != r->isa)
			return bad(k, p->cycle, "DW branch to 0x%x: no "
				   "exception there", b->addr);
		k->exc_seen = 1;
		return 0;
	}
	if (!k->cur || !(k->cur->flags & EXEC_F_TAKEN) ||
	    b->addr != (uint32_t)k->cur->target ||
	    b->isa != k->cur->target_isa)
		return bad(k, p->cycle, "branch to 0x%x isa %u, record 0x%llx",
			   b->addr, b->isa,
			   k->cur ? (unsigned long long)k->cur->target : 0ull);
	return 0;
}

static int check_packet(struct check *k, const struct etm2_packet *p)
{
	if (p->error)
		return bad(k, p->cycle, "decode error %d (%s)", p->error,
			   p->why ? p->why : "");
	switch (p->type) {
	case etm2_pkt_unsynced:
	case etm2_pkt_wait:
		return 0;
	case etm2_pkt_tfo:
		return check_tfo(k, p);
	case etm2_pkt_status:
		return check_status(k, p);
	case etm2_pkt_branch_address:
		return check_branch(k, p);
	case etm2_pkt_normal_data:
	case etm2_pkt_load_miss:
		return check_data(k, p);
	case etm2_pkt_load_miss_data:
		if (!k->miss_valid[p->u.data.tag] ||
		    p->u.data.value != k->miss[p->u.data.tag])
			return bad(k, p->cycle, "load miss data 0x%x tag %u",
				   p->u.data.value, p->u.data.tag);
		k->miss_valid[p->u.data.tag] = 0;
		return 0;
	case etm2_pkt_context_id:
		if (k->v1 && !k->v1_restart) {
			/* after an instruction's (periodic) address: its
			 * context */
			if (p->u.context_id != cid_mask(k, k->cur_cid))
				return bad(k, p->cycle, "context ID 0x%x, "
					   "want 0x%x", p->u.context_id,
					   cid_mask(k, k->cur_cid));
			return 0;
		}
		peek_insn(k);
		if (p->u.context_id != cid_mask(k, k->cid))
			return bad(k, p->cycle, "context ID 0x%x, want 0x%x",
				   p->u.context_id, cid_mask(k, k->cid));
		return 0;
	default:
		return bad(k, p->cycle, "a %s record",
			   etm2_pkt_type_name(p->type));
	}
}

static int drain(struct etm2_pkt_decoder *dec, struct check *k)
{
	struct etm2_packet pk[64];
	int n;

	while ((n = etm2_pkt_next(dec, pk, 64)) > 0)
		for (int j = 0; j < n; j++)
			if (check_packet(k, &pk[j]))
				return -1;
	return 0;
}

int ts_etm2_check(const struct etm2_config *cfg, const struct etm2_cycle *c,
		  size_t n, size_t step, int overflow, const struct ts_rec *rc,
		  struct ts_etm2_result *res, char *why, size_t cap)
{
	struct etm2_pkt_decoder *dec = NULL;
	struct check *k = calloc(1, sizeof(*k));
	int ret = -1;

	if (!k)
		abort();
	k->rc = rc;
	k->overflow = overflow;
	k->why = why;
	k->cap = cap;
	k->gap = 1;
	if (etm2_config_decode(cfg, &k->info) || etm2_pkt_alloc(&dec, cfg)) {
		snprintf(why, cap, "the configuration does not decode");
		goto out;
	}
	k->v1 = k->info.version == 1;
	for (size_t at = 0; at < n;) {
		size_t m = step && n - at > step ? step : n - at;

		if (etm2_pkt_feed(dec, c + at, m, at)) {
			snprintf(why, cap, "etm2_pkt_feed refused cycle %zu", at);
			goto out;
		}
		if (drain(dec, k))
			goto out;
		at += m;
	}
	if (etm2_pkt_finish(dec) || drain(dec, k))
		goto out;
	while (peek_insn(k)) {
		if (!overflow) {
			snprintf(why, cap, "the record's instruction 0x%llx "
				 "(item %zu) not in the decode",
				 (unsigned long long)rc->r[k->i].addr, k->i);
			goto out;
		}
		k->i++;
		k->res.lost++;
	}
	if (res)
		*res = k->res;
	ret = 0;
out:
	etm2_pkt_free(dec);
	free(k);
	return ret;
}
