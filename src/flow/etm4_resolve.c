/* ETMv4 / ETE flow decoder: packets to queue entries, the speculation
 * queue and its resolution (seed 002 D4.3.1 layer 2, D4.3.3, D4.3.7 to
 * D4.3.10). The state and the queues' helpers: etm4_flow_int.h. */
#include <stdint.h>
#include <string.h>

#include "flow/etm4_flow_int.h"

/* ---- Queues ------------------------------------------------------------- */

static struct ent *spec_push(struct etm4_flow_decoder *d, uint8_t kind,
			     uint64_t offset)
{
	struct ent *e;

	if (spec_len(d) >= F4_SPEC - 1) {
		/* Drops sync: nothing is queued until the next Trace Info. */
		etm4_protocol_error(d, offset, "speculation queue overrun");
		return NULL;
	}
	e = spec_at(d, d->st++);
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->offset = offset;
	return e;
}

/* P0 elements entry @e stands for: an atom run's atoms, the unseen ones
 * a Trace Info announced, else 1. */
static uint32_t p0_count(const struct ent *e)
{
	return e->kind == K_ATOM ? e->n : e->kind == K_UNSEEN ? e->b : 1;
}

/* Move the elements a Commit of @n P0 elements resolves: the oldest
 * speculative ones, with the non-P0 elements before each (D4.3.8.1).
 * Returns 0, or -1 if fewer than @n were speculative (all of them are
 * then moved). */
int etm4_commit(struct etm4_flow_decoder *d, uint32_t n)
{
	while (n && d->sh != d->st) {
		struct ent *e = spec_at(d, d->sh);
		uint32_t k;

		if (e->kind == K_DEAD) {
			d->sh++;
			continue;
		}
		if (!IS_P0(e->kind)) {
			*done_push(d) = *e;
			d->sh++;
			continue;
		}
		k = p0_count(e);
		if (k <= n) {
			*done_push(d) = *e;
			d->sh++;
			n -= k;
			d->depth -= k;
			continue;
		}
		/* Split the run: its oldest n elements are committed. */
		struct ent *c = done_push(d);

		*c = *e;
		if (e->kind == K_ATOM) {
			c->n = (uint8_t)n;
			c->b = e->b & ((1u << n) - 1);
			e->b >>= n;
			e->n = (uint8_t)(e->n - n);
		} else {
			c->b = n;
			e->b -= n;
		}
		d->depth -= n;
		n = 0;
	}
	return n ? -1 : 0;
}

/* More than MAXSPEC uncommitted P0 elements: the oldest are committed
 * (digest 7.2; MAXSPEC 0 commits every P0 element at once). */
static void implicit_commit(struct etm4_flow_decoder *d)
{
	if (d->depth > d->info.maxspec)
		etm4_commit(d, d->depth - d->info.maxspec);
}

/* Cancel the @n newest P0 elements and the cancellable elements among
 * and after them (D4.3.8.2; digest 7.3). Timestamps, markers, cycle
 * counts, events and instrumentation stay (D4.3.7.3, D4.3.9). Reaching an
 * unseen placeholder removes the Trace Info after it and what followed
 * (D4.3.2.3). Returns 0, or -1 if fewer were there. */
int etm4_cancel(struct etm4_flow_decoder *d, uint32_t n)
{
	uint32_t i = d->st;

	while (n && i != d->sh) {
		struct ent *e = spec_at(d, --i);

		if (e->kind == K_DEAD || IS_KEPT(e->kind))
			continue;
		if (!IS_P0(e->kind)) {
			e->kind = K_DEAD;
			continue;
		}
		uint32_t k = p0_count(e);
		if (k <= n) {
			e->kind = K_DEAD;
			n -= k;
			d->depth -= k;
		} else {
			if (e->kind == K_ATOM) {
				e->n = (uint8_t)(e->n - n);
				e->b &= (1u << e->n) - 1;
			} else {
				e->b -= n;
			}
			d->depth -= n;
			n = 0;
		}
	}
	/* Trim removed entries at the tail. */
	while (d->st != d->sh && spec_at(d, d->st - 1)->kind == K_DEAD)
		d->st--;
	return n ? -1 : 0;
}

/* The newest atom not cancelled was wrong: flip it (D4.3.8.4). Target
 * addresses after it belonged to the wrong path and go too (as OpenCSD
 * does; D4.3.8.4 does not say, digest 7.3). An atom
 * that is not speculative, or a Trace Info placeholder met first, leaves
 * nothing to flip. */
void etm4_mispredict(struct etm4_flow_decoder *d)
{
	uint32_t i = d->st, p0 = 0;

	while (i != d->sh && p0 < d->depth) {
		struct ent *e = spec_at(d, --i);

		if (e->kind == K_ATOM) {
			e->b ^= 1u << (e->n - 1);
			return;
		}
		if (e->kind == K_UNSEEN)
			return;
		if (e->kind == K_ADDR)
			e->kind = K_DEAD;
		else if (IS_P0(e->kind))
			p0++;
	}
}

/* Discard, Overflow, errors: speculative elements are dropped
 * (D4.3.8.3, D4.3.10.2); the ones never cancelled are still delivered
 * (digest 7.5). */
void etm4_drop_speculative(struct etm4_flow_decoder *d)
{
	for (uint32_t i = d->sh; i != d->st; i++) {
		struct ent *e = spec_at(d, i);

		if (IS_KEPT(e->kind))
			*done_push(d) = *e;
	}
	d->sh = d->st = 0;
	d->depth = 0;
	d->pend = d->pend_ctx = 0;
}

/* Trace lost at @offset for @reason (enum etmkit_loss): what is
 * speculative is lost, a gap follows in the walk queue, sync is dropped. */
static void lose(struct etm4_flow_decoder *d, uint64_t offset,
		 const char *why, enum etmkit_loss reason)
{
	struct ent *g;

	etm4_drop_speculative(d);
	g = done_push(d);
	memset(g, 0, sizeof(*g));
	g->kind = K_GAP;
	g->offset = offset;
	g->x = reason;
	g->a = (uint64_t)(uintptr_t)why;
	etm4_reset_resolution(d);
}

void etm4_protocol_error(struct etm4_flow_decoder *d, uint64_t offset,
			 const char *why)
{
	d->stats.protocol_errors++;
	lose(d, offset, why, etmkit_loss_packet);
}

/* A packet record with an error: the input ending inside a packet is the
 * normal end of a ring buffer (etmkit_loss_truncated), a packet cut by a
 * transport loss is etmkit_loss_transport; the rest are bad packets. */
static void packet_error(struct etm4_flow_decoder *d,
			 const struct etm4_packet *p)
{
	const char *why = p->why ? p->why : "bad packet";

	if (p->error == -etmkit_err_truncated)
		lose(d, p->offset, why, etmkit_loss_truncated);
	else if (p->error == -etmkit_err_bad_frame)
		lose(d, p->offset, why, etmkit_loss_transport);
	else
		etm4_protocol_error(d, p->offset, why);
}

/* ---- Packets to queue entries (layer 2) -------------------------------- */

static void add_atoms(struct etm4_flow_decoder *d, uint64_t offset,
		      uint32_t bits, unsigned count)
{
	struct ent *t = d->st != d->sh ? spec_at(d, d->st - 1) : NULL;

	if (!count)
		return;
	d->depth += count;
	if (t && t->kind == K_ATOM && t->n + count <= 32) {
		t->b |= bits << t->n;
		t->n = (uint8_t)(t->n + count);
		return;
	}
	t = spec_push(d, K_ATOM, offset);
	if (!t) {
		d->depth = 0;
		return;
	}
	t->b = bits;
	t->n = (uint8_t)count;
}

static void add_p0(struct etm4_flow_decoder *d, const struct ent *src)
{
	struct ent *e = spec_push(d, src->kind, src->offset);

	if (!e)
		return;
	*e = *src;
	d->depth++;
	implicit_commit(d);
}

static void set_ctx_ent(struct ent *e, const struct etm4_context *c)
{
	e->b = c->context_id;
	e->c = c->vmid;
	e->x = (uint8_t)((c->el & CTX_EL_MASK) | (c->sf ? CTX_SF : 0) |
			 (c->ns ? CTX_NS : 0) | (c->nse ? CTX_NSE : 0) |
			 (c->has_cid ? CTX_CID : 0) |
			 (c->has_vmid ? CTX_VMID : 0));
}

/* The Context held back while an exception or Q waited for its address,
 * into the queue after that element. */
static void push_pend_ctx(struct etm4_flow_decoder *d)
{
	struct ent *e;

	if (!d->pend_ctx)
		return;
	d->pend_ctx = 0;
	e = spec_push(d, K_CTX, d->pend_ctx_ent.offset);
	if (e)
		*e = d->pend_ctx_ent;
}

static void on_context(struct etm4_flow_decoder *d, uint64_t offset,
		       const struct etm4_context *c)
{
	struct ent *e, n;

	if (!c->updated)
		return;
	if (d->pend) {
		/* An exception or Q waits for its address, and the context
		 * may come between (D4.3.5.4): it is the context at that
		 * address, after the element's own instructions, so it
		 * joins the queue after the element. A second one keeps
		 * the first's context ID and VMID unless it has its own. */
		memset(&n, 0, sizeof(n));
		n.kind = K_CTX;
		n.offset = offset;
		set_ctx_ent(&n, c);
		if (d->pend_ctx) {
			const struct ent *o = &d->pend_ctx_ent;

			if (!(n.x & CTX_CID) && (o->x & CTX_CID)) {
				n.b = o->b;
				n.x |= CTX_CID;
			}
			if (!(n.x & CTX_VMID) && (o->x & CTX_VMID)) {
				n.c = o->c;
				n.x |= CTX_VMID;
			}
		}
		d->pend_ctx_ent = n;
		d->pend_ctx = 1;
		return;
	}
	e = spec_push(d, K_CTX, offset);
	if (e)
		set_ctx_ent(e, c);
}

/* An address packet: the address an exception or Q waits for, or a
 * Target Address element (D4.3.6.2). */
void etm4_on_address(struct etm4_flow_decoder *d, uint64_t offset,
		     const struct etm4_address *a)
{
	struct ent *e;

	if (d->pend) {
		struct ent p = d->pend_ent;

		d->pend = 0;
		p.a = a->addr;
		if (p.kind == K_EXC) {
			p.x |= (uint8_t)(a->is << 2 | 8);
		} else if (p.kind == K_Q) {
			p.x |= (uint8_t)(2 | a->is << 2);
		} else { /* K_TFAIL: not P0 */
			e = spec_push(d, K_TFAIL, p.offset);
			if (e) {
				*e = p;
				e->x = (uint8_t)(1 | a->is << 1);
			}
			push_pend_ctx(d);
			goto target;
		}
		add_p0(d, &p);
		push_pend_ctx(d);
		return;
	}
target:
	e = spec_push(d, K_ADDR, offset);
	if (e) {
		e->a = a->addr;
		e->x = a->is;
	}
}

static void on_exception(struct etm4_flow_decoder *d,
			 const struct etm4_packet *p)
{
	struct ent x;

	memset(&x, 0, sizeof(x));
	x.offset = p->offset;
	x.c = p->u.exception.type;
	x.x = p->u.exception.addr_interp & 3;
	if (d->info.ete && p->u.exception.type == 0x18) {
		/* Transaction failure (ETE, digest 5.23): not P0; the
		 * address that follows is where execution resumes. */
		x.kind = K_TFAIL;
	} else {
		x.kind = K_EXC;
		if (d->info.ete && p->u.exception.type == 0) {
			/* ETE PE reset: no address follows (digest 5.5). */
			add_p0(d, &x);
			return;
		}
	}
	d->pend = 1;
	d->pend_ent = x;
}

static void on_q(struct etm4_flow_decoder *d, const struct etm4_packet *p)
{
	const struct etm4_q *q = &p->u.q;
	struct ent x;

	memset(&x, 0, sizeof(x));
	x.kind = K_Q;
	x.offset = p->offset;
	x.b = q->count;
	x.x = q->has_count ? 1 : 0;
	if (q->has_addr) {
		x.a = q->addr.addr;
		x.x |= (uint8_t)(2 | q->addr.is << 2);
		add_p0(d, &x);
	} else if (q->addr_follows) {
		d->pend = 2;
		d->pend_ent = x;
	} else {
		add_p0(d, &x);
	}
}

static void on_trace_info(struct etm4_flow_decoder *d,
			  const struct etm4_packet *p)
{
	const struct etm4_trace_info *t = &p->u.tinfo;
	struct ent *e;

	d->cc_on = t->info & 1;
	if (!d->synced) {
		/* First Trace Info after sync: SPEC P0 elements traced
		 * before it are still unresolved (D4.3.4); Commit and Cancel
		 * may reach them. */
		d->synced = 1;
		d->sh = d->st = 0;
		d->depth = 0;
		/* They come before the Trace Info: a Cancel reaching them
		 * removes the Trace Info and the context and addresses after
		 * it (D4.3.2.3, IYZPCB). */
		if (t->spec) {
			e = spec_push(d, K_UNSEEN, p->offset);
			if (e) {
				e->b = t->spec;
				d->depth = t->spec;
			}
		}
		spec_push(d, K_TINFO, p->offset);
		return;
	}
	spec_push(d, K_TINFO, p->offset);
}

static void simple(struct etm4_flow_decoder *d, uint8_t kind,
		   const struct etm4_packet *p)
{
	struct ent *e = spec_push(d, kind, p->offset);

	if (!e)
		return;
	switch (kind) {
	case K_TS:
		e->a = p->u.ts.value;
		e->x = p->u.ts.has_cc;
		e->b = p->u.ts.cc;
		break;
	case K_EVENT:
		e->x = p->u.event;
		break;
	case K_ITE:
		e->a = p->u.ite.value;
		e->x = p->u.ite.el;
		break;
	default:
		break;
	}
}

/* Elements that need no sync (D4.3.2.1: events and instrumentation may
 * come before the first Trace Info) go straight to the walk queue. */
static void unsynced_packet(struct etm4_flow_decoder *d,
			    const struct etm4_packet *p)
{
	struct ent *e;

	if (p->type != etm4_pkt_event && p->type != etm4_pkt_instrumentation)
		return;
	e = done_push(d);
	memset(e, 0, sizeof(*e));
	e->offset = p->offset;
	if (p->type == etm4_pkt_event) {
		e->kind = K_EVENT;
		e->x = p->u.event;
	} else {
		e->kind = K_ITE;
		e->a = p->u.ite.value;
		e->x = p->u.ite.el;
	}
}

static void on_cycle_count(struct etm4_flow_decoder *d,
			   const struct etm4_packet *p)
{
	struct ent *e;

	if (p->u.cc.has_commit && etm4_commit(d, p->u.cc.commit)) {
		etm4_protocol_error(d, p->offset, "commit of more P0 elements "
					     "than are speculative");
		return;
	}
	/* The count belongs to the commit point (D4.3.7.1): the walk queue
	 * ends there. */
	e = done_push(d);
	memset(e, 0, sizeof(*e));
	e->kind = K_CC;
	e->offset = p->offset;
	e->b = p->u.cc.count;
	e->x = p->u.cc.unknown;
}

static void on_spec(struct etm4_flow_decoder *d, const struct etm4_packet *p)
{
	const struct etm4_spec *s = &p->u.spec;

	/* Atoms first, then cancel, then mispredict (digest 5.10). */
	add_atoms(d, p->offset, s->atoms.bits, s->atoms.count);
	implicit_commit(d);
	if (p->type == etm4_pkt_cancel && etm4_cancel(d, s->count)) {
		etm4_protocol_error(d, p->offset, "cancel of more P0 elements "
					     "than are speculative");
		return;
	}
	if (p->type == etm4_pkt_mispredict || s->mispredict)
		etm4_mispredict(d);
}

static void on_loss(struct etm4_flow_decoder *d, const struct etm4_packet *p)
{
	struct ent *e;

	etm4_drop_speculative(d);
	if (p->type == etm4_pkt_overflow) {
		e = done_push(d);
		memset(e, 0, sizeof(*e));
		e->kind = K_OVERFLOW;
		e->offset = p->offset;
		d->overflowed = 1;
	} else {
		/* Discard: trace generation became inoperative (D4.3.8.3);
		 * it resumes with a Trace Info, Context and Target Address
		 * (D4.3.2.1), and until then the position is unknown (digest
		 * 8: "Overflow / Discard: PC := unknown"). From the Discard
		 * on: what the walk queue holds before it (a P0 element
		 * flush_pend() committed, the addresses before it) is walked
		 * first. */
		e = done_push(d);
		memset(e, 0, sizeof(*e));
		e->kind = K_DISCARD;
		e->offset = p->offset;
	}
	/* Wait for the next Trace Info (digest 3, item 5). */
	etm4_reset_resolution(d);
}

/* An exception or transaction failure waited for its address packet, and
 * another packet came: the element keeps no address. */
static void flush_pend(struct etm4_flow_decoder *d)
{
	struct ent x = d->pend_ent;

	d->pend = 0;
	if (x.kind == K_TFAIL) {
		struct ent *e = spec_push(d, K_TFAIL, x.offset);

		if (e)
			*e = x;
	} else {
		add_p0(d, &x);
	}
	push_pend_ctx(d);
}

void etm4_on_packet(struct etm4_flow_decoder *d, const struct etm4_packet *p)
{
	if (p->error) {
		if (p->type == etm4_pkt_unsynced)
			return;
		packet_error(d, p);
		return;
	}
	if (!d->synced && p->type != etm4_pkt_trace_info) {
		unsynced_packet(d, p);
		return;
	}
	if (d->pend && p->type != etm4_pkt_context &&
	    p->type != etm4_pkt_address &&
	    p->type != etm4_pkt_address_context)
		flush_pend(d);
	switch ((enum etm4_pkt_type)p->type) {
	case etm4_pkt_trace_info:
		on_trace_info(d, p);
		break;
	case etm4_pkt_trace_on:
		spec_push(d, K_TRACE_ON, p->offset);
		break;
	case etm4_pkt_timestamp:
		simple(d, K_TS, p);
		break;
	case etm4_pkt_ts_marker:
		simple(d, K_MARKER, p);
		break;
	case etm4_pkt_exception:
		on_exception(d, p);
		break;
	case etm4_pkt_exception_return:
		simple(d, K_EXC_RET, p);
		break;
	case etm4_pkt_cycle_count:
		on_cycle_count(d, p);
		break;
	case etm4_pkt_commit:
		if (etm4_commit(d, p->u.spec.count))
			etm4_protocol_error(d, p->offset, "commit of more P0 "
				       "elements than are speculative");
		break;
	case etm4_pkt_cancel:
	case etm4_pkt_mispredict:
		on_spec(d, p);
		break;
	case etm4_pkt_discard:
	case etm4_pkt_overflow:
		on_loss(d, p);
		break;
	case etm4_pkt_atom:
		add_atoms(d, p->offset, p->u.atoms.bits, p->u.atoms.count);
		implicit_commit(d);
		break;
	case etm4_pkt_q:
		on_q(d, p);
		break;
	case etm4_pkt_context:
		on_context(d, p->offset, &p->u.context);
		break;
	case etm4_pkt_address:
		etm4_on_address(d, p->offset, &p->u.a.addr);
		break;
	case etm4_pkt_address_context:
		on_context(d, p->offset, &p->u.a.context);
		etm4_on_address(d, p->offset, &p->u.a.addr);
		break;
	case etm4_pkt_source_address: {
		struct ent x;

		memset(&x, 0, sizeof(x));
		x.kind = K_SRC;
		x.offset = p->offset;
		x.a = p->u.a.addr.addr;
		x.x = p->u.a.addr.is;
		add_p0(d, &x);
		break;
	}
	case etm4_pkt_event:
		simple(d, K_EVENT, p);
		break;
	case etm4_pkt_instrumentation:
		simple(d, K_ITE, p);
		break;
	case etm4_pkt_transaction_start:
		if (d->info.trans_p0) {
			struct ent x;

			memset(&x, 0, sizeof(x));
			x.kind = K_TSTART_P0;
			x.offset = p->offset;
			add_p0(d, &x);
		} else {
			spec_push(d, K_TSTART, p->offset);
		}
		break;
	case etm4_pkt_transaction_commit:
		spec_push(d, K_TCOMMIT, p->offset);
		break;
	default:
		/* A-sync, ignore, function return (a v8-M hint), and the
		 * conditional and data packets alloc refused. */
		break;
	}
}
