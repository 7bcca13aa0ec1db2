/* Profiles: ranges and branches from execution elements, as simpleperf's
 * inject forms them from OpenCSD instruction ranges (digest perf-data.md
 * 4a; the flush rules of 3.10, 3.11). */
#include <stdlib.h>
#include <string.h>

#include "etmkit/insn.h"
#include "profile_internal.h"

void profile_config_init(struct profile_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
}

int profile_alloc(struct profile **p, const struct profile_config *cfg)
{
	struct profile *np;

	if (p)
		*p = NULL;
	if (!p || !cfg || cfg->size < sizeof(*cfg) || !cfg->resolve)
		return -etmkit_err_invalid;
	np = calloc(1, sizeof(*np));
	if (!np)
		return -etmkit_err_nomem;
	np->cfg = *cfg;
	*p = np;
	return 0;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	count_map_free(&p->ranges);
	count_map_free(&p->branches);
	free(p);
}

/* ---- Counting ------------------------------------------------------------ */

/* The target of direct branch @r->last from its opcode, or 0 when it
 * cannot be decoded. The opcode is rebuilt into memory order as
 * insn_info.opcode describes it (insn.h). */
static uint64_t direct_target(const struct profile_run *r)
{
	uint8_t b[INSN_MAX_BYTES] = { 0 };
	struct insn_info ii;
	uint32_t op = r->opcode;
	size_t n = 4;

	switch (r->isa) {
	case etmkit_isa_thumb:
	case etmkit_isa_thumbee:
		if (r->size == 2) {
			b[0] = (uint8_t)op;
			b[1] = (uint8_t)(op >> 8);
			n = 2;
		} else {
			b[0] = (uint8_t)(op >> 16);
			b[1] = (uint8_t)(op >> 24);
			b[2] = (uint8_t)op;
			b[3] = (uint8_t)(op >> 8);
		}
		break;
	case etmkit_isa_jazelle:
		n = r->size < 4 ? r->size : 4;
		for (size_t i = 0; i < n; i++)
			b[i] = (uint8_t)(op >> (8 * (n - 1 - i)));
		break;
	default:
		for (size_t i = 0; i < 4; i++)
			b[i] = (uint8_t)(op >> (8 * i));
		break;
	}
	if (insn_decode(&ii, (enum etmkit_isa)r->isa, r->last, b, n) < 0 ||
	    !(ii.flags & INSN_F_BRANCH) || (ii.flags & INSN_F_INDIRECT))
		return 0;
	return ii.target;
}

/* Count the pending range of @st, and its branch when taken. */
static int flush(struct profile *p, struct profile_id *st)
{
	struct profile_pending *pd = &st->pend;
	int err = 0;

	if (pd->open && pd->fix_target) {
		/* No range followed: the decoded target, in the start's
		 * binary (simpleperf's provisional one). */
		uint64_t t = direct_target(&pd->branch);

		pd->target = t ? pd->start + (t - pd->branch.start) : 0;
	}
	if (pd->open) {
		struct count_slot *sl = count_map_add_slot(&p->ranges, pd->bin,
							   pd->start, pd->end,
							   1);

		if (!sl)
			err = -etmkit_err_nomem;
		else if (pd->taken && (!sl->aux_count || sl->aux == pd->target)) {
			/* The usual case: a range's last branch goes where it
			 * went before (always, for a direct one): counted in
			 * the range's slot, moved to the branches at
			 * profile_finish(). */
			sl->aux = pd->target;
			sl->aux_count = count_add(sl->aux_count, 1,
						  &p->branches.saturated);
		} else if (pd->taken) {
			err = count_map_add(&p->branches, pd->bin, pd->end,
					    pd->target, 1);
		}
	}
	pd->open = 0;
	pd->fix_target = 0;
	return err;
}

/* The binary and ELF address of @addr: the resolver's last extent, or
 * the resolver. */
static int where(struct profile *p, uint8_t id, struct profile_id *st,
		 uint64_t addr, size_t *bin, uint64_t *vaddr)
{
	struct profile_memo *m = &st->memo;
	struct profile_where w;
	int err;

	if (m->valid && addr >= m->lo && addr < m->hi) {
		*bin = m->bin;
		*vaddr = addr + m->delta;
		return 0;
	}
	memset(&w, 0, sizeof(w));
	err = p->cfg.resolve(p->cfg.ctx, id, addr, &w);
	if (err < 0)
		return err;
	*bin = w.bin;
	*vaddr = w.vaddr;
	m->valid = w.lo <= addr && addr < w.hi;
	m->bin = w.bin;
	m->lo = w.lo;
	m->hi = w.hi;
	m->delta = w.vaddr - addr;
	return 0;
}

/* The run of @st is a complete range (what OpenCSD reports as one
 * instruction range element): it becomes the pending range, after the
 * one before is counted with its direct target fixed to this start. */
static int close_run(struct profile *p, uint8_t id, struct profile_id *st)
{
	struct profile_run *r = &st->run;
	struct profile_pending *pd = &st->pend;
	size_t bin = 0;
	uint64_t vstart = 0;
	int err, taken;

	if (!r->open)
		return 0;
	r->open = 0;
	err = where(p, id, st, r->start, &bin, &vstart);
	if (err == -etmkit_err_not_found)
		return flush(p, st);    /* outside known binaries (3.11) */
	if (err < 0)
		return err;
	if (pd->open && pd->fix_target) {
		pd->target = vstart;
		pd->fix_target = 0;
	}
	err = flush(p, st);
	taken = (r->class_flags & INSN_F_BRANCH) &&
		(r->flags & ETMKIT_INSN_EXEC) &&
		!(r->flags & (ETMKIT_INSN_COND_FAIL | ETMKIT_INSN_CANCEL));
	pd->open = 1;
	pd->bin = bin;
	pd->start = vstart;
	/* The end in the same binary as the start, as simpleperf maps both
	 * through the start's map. */
	pd->end = vstart + (r->last - r->start);
	pd->taken = (uint8_t)taken;
	pd->fix_target = 0;
	pd->target = 0;
	if (taken && !(r->class_flags & INSN_F_INDIRECT)) {
		/* The next range's start, or the decoded target at a flush
		 * that comes first. */
		pd->branch = *r;
		pd->fix_target = 1;
	}
	return err;
}

/* Instructions @start..@last (each after the one before; @next follows
 * @last), @last's flags and classification given. A P0 instruction or
 * any branch ends the run. */
static int add_insns(struct profile *p, uint8_t id, struct profile_id *st,
		     const struct etmkit_elem *e, uint64_t last, uint64_t next,
		     uint32_t opcode, uint32_t class_flags)
{
	struct profile_run *r = &st->run;
	int err = 0;

	if (r->open && e->addr != r->next)
		err = close_run(p, id, st); /* not one after another */
	if (!r->open) {
		r->open = 1;
		r->start = e->addr;
	}
	r->last = last;
	r->next = next;
	r->isa = e->isa;
	r->size = e->size;
	r->flags = e->flags;
	r->opcode = opcode;
	r->class_flags = class_flags;
	if ((e->flags & ETMKIT_INSN_P0) || (class_flags & INSN_F_BRANCH)) {
		int err2 = close_run(p, id, st);

		if (!err)
			err = err2;
	}
	return err;
}

/* A discontinuity: the range being built ends, and nothing joins it to
 * what follows. */
static int cut(struct profile *p, uint8_t id, struct profile_id *st)
{
	int err = close_run(p, id, st);
	int err2 = flush(p, st);

	return err ? err : err2;
}

int profile_elem(struct profile *p, uint8_t id, const struct etmkit_elem *e)
{
	struct profile_id *st;

	if (!p || !e || id >= PROFILE_IDS)
		return -etmkit_err_invalid;
	st = &p->ids[id];
	switch (e->kind) {
	case etmkit_elem_insn:
		return add_insns(p, id, st, e, e->addr, e->addr + e->size,
				 e->u.insn.opcode, e->u.insn.class_flags);
	case etmkit_elem_insn_range:
		return add_insns(p, id, st, e, e->u.range.end - e->size,
				 e->u.range.end, e->u.range.opcode,
				 e->u.range.class_flags);
	case etmkit_elem_trace_on:    /* 3.10: a discontinuity */
	case etmkit_elem_gap:
	case etmkit_elem_no_image:    /* 3.11: memory that cannot be read */
	case etmkit_elem_overflow:
	case etmkit_elem_exception:
	case etmkit_elem_exception_entry:
	case etmkit_elem_q:           /* path not traced */
		return cut(p, id, st);
	case etmkit_elem_context:     /* maybe another process's memory */
		st->memo.valid = 0;
		return 0;
	default:
		return 0;
	}
}

/* Move the branch counts kept in the range slots to the branches. On
 * -etmkit_err_nomem what could not move stays for the next call. */
static int fold_branches(struct profile *p)
{
	for (size_t k = 0; k < p->ranges.cap; k++) {
		struct count_slot *s = &p->ranges.slots[k];

		if (!s->count || !s->aux_count)
			continue;
		if (count_map_add(&p->branches, s->bin, s->to, s->aux,
				  s->aux_count) < 0)
			return -etmkit_err_nomem;
		s->aux_count = 0;
	}
	return 0;
}

int profile_finish(struct profile *p)
{
	int err = 0, e2;

	if (!p)
		return -etmkit_err_invalid;
	for (unsigned id = 0; id < PROFILE_IDS; id++) {
		int e = cut(p, (uint8_t)id, &p->ids[id]);

		p->ids[id].memo.valid = 0;   /* the next input's images */
		if (!err)
			err = e;
	}
	e2 = fold_branches(p);
	return err ? err : e2;
}

/* ---- Reading the counts -------------------------------------------------- */

int profile_saturated(const struct profile *p)
{
	return p && (p->ranges.saturated || p->branches.saturated);
}

size_t profile_range_count(const struct profile *p)
{
	return p ? p->ranges.used : 0;
}

size_t profile_branch_count(const struct profile *p)
{
	return p ? p->branches.used : 0;
}

static int entry_at(const struct count_map *m, size_t i,
		    struct profile_entry *out)
{
	if (!out || i >= m->used)
		return -etmkit_err_invalid;
	for (size_t k = 0; k < m->cap; k++) {
		if (!m->slots[k].count)
			continue;
		if (i-- == 0) {
			out->bin = (size_t)m->slots[k].bin;
			out->from = m->slots[k].from;
			out->to = m->slots[k].to;
			out->count = m->slots[k].count;
			return 0;
		}
	}
	return -etmkit_err_internal;
}

int profile_range_at(const struct profile *p, size_t i,
		     struct profile_entry *out)
{
	return p ? entry_at(&p->ranges, i, out) : -etmkit_err_invalid;
}

int profile_branch_at(const struct profile *p, size_t i,
		      struct profile_entry *out)
{
	return p ? entry_at(&p->branches, i, out) : -etmkit_err_invalid;
}
