/* ETMv4 / ETE flow decoder: the walk through the image of atoms (layer 3
 * of seed 002 D4.3.1), the runs of atom packets the packet decoder
 * gives (ETM4_CFG_ADDR_RUNS) and the position's block lookup. The walk of
 * other queue entries: etm4_walk_entry.c; the pieces both inline:
 * etm4_walk_int.h. */
#include <stdint.h>
#include <string.h>

#include "flow/etm4_walk_int.h"
#include "packets/etmv4/etm4_view.h"

/* ---- The walk (layer 3) -------------------------------------------------- */

/* The walk stands where the image has no code (@loss): report no_image
 * and forget the position. Returns 0. */
int etm4_no_code(struct etm4_flow_decoder *d, uint64_t offset, uint8_t loss)
{
	no_code_in(d, emit(d, etmkit_elem_no_image, offset), loss);
	return 0;
}

/* The first atom lost since an executed indirect branch whose address
 * did not come, in a Target Address or from the return stack (digest
 * 7.7; d->no_addr at POS_NONE): one gap element (no_address) at its
 * packet @offset says so, as ETMv3 and PTM say it (etm3_flow.c,
 * ptm_flow.c: lose_atom()); the atoms after it are lost without one
 * until an address comes. The caller made room for one element. Out of
 * line: the loops that call it keep their registers. (Not marked cold:
 * GCC then moves the paths that call it, juno_r1_1's atoms lost after
 * no_image among them, out of the loops' code.) */
__attribute__((noinline)) void
etm4_no_address(struct etm4_flow_decoder *d, uint64_t offset)
{
	struct etmkit_elem *e = emit(d, etmkit_elem_gap, offset);

	e->u.loss.reason = etmkit_loss_no_address;
	e->u.loss.why = "atom after an indirect branch whose address was not "
			"traced";
	d->no_addr = 0;
}

/* Make POS_ADDR a block. Returns 1, or 0 after reporting no_image. */
int etm4_resolve_lookup(struct etm4_flow_decoder *d, uint64_t offset)
{
	uint8_t loss = etmkit_loss_misaligned;
	struct flow_block *b = NULL;
	uint64_t align = d->isa == etmkit_isa_thumb ? 1u : 3u;

	if (ind_guess(d))
		return 1;
	if (!(d->addr & align))
		b = flow_cache_get(&d->cache, d->addr, d->isa, d->space, &loss);
	if (b) {
		/* The generation after the lookup, which may have emptied
		 * the cache: then neither the guess nor the link is kept
		 * (ind_gen and link_gen are older). */
		enter_found(d, b, flow_cache_generation(&d->cache));
		return 1;
	}
	return etm4_no_code(d, offset, loss);
}

/* Position on an instruction: 1, or 0 (unknown or no image: reported). */
int etm4_ready(struct etm4_flow_decoder *d, uint64_t offset)
{
	if (F4_LIKELY(d->pos == POS_BLOCK))
		return 1;
	if (d->pos == POS_NONE)
		return 0;
	return resolve(d, offset);
}

/* Walk one atom: instructions up to and including the next P0
 * instruction, which the atom says was taken (E) or not (N) (D4.3.5.1).
 * Returns 1 when the atom is done, 0 when the output is full (call
 * again). */
int etm4_walk_atom(struct etm4_flow_decoder *d, unsigned taken,
		   uint64_t offset)
{
	if (!d->atom_started) {
		if (d->pop_pending)
			rs_pop(d);
		if (d->pos == POS_NONE) {
			if (F4_UNLIKELY(d->no_addr)) {
				/* (called again: the pop is done, the
				 * position still unknown) */
				if (room(d) < 1)
					return 0;
				etm4_no_address(d, offset);
			}
			d->stats.atoms_lost++;
			return 1;
		}
		d->atom_started = 1;
	}
	for (;;) {
		struct flow_block *b;
		const struct flow_insn *fi;
		struct etmkit_elem *e;
		uint32_t n, lim;

		if (room(d) < 2)
			return 0;
		if (!etm4_ready(d, offset)) {
			d->stats.atoms_lost++;
			d->atom_started = 0;
			return 1;
		}
		b = d->blk;
		n = b->n;
		if (d->tally && !d->idx &&
		    (b->range.class_flags & d->p0_flags) && last_closed(d)) {
			/* The whole block is the atom's range: counted. */
			tally_run(d, b, taken, offset);
			after_p0(d, b, taken);
			d->atom_started = 0;
			return 1;
		}
		/* An element per instruction, or one range for them all. */
		lim = d->ranges ? n : d->idx + (uint32_t)room(d) - 1;
		if (lim > n)
			lim = n;
		/* Only a block's last instruction can be a P0 one (the cache
		 * ends blocks at them, alloc), so the copy loop tests
		 * nothing. */
		e = put_insns(d, b, d->idx, lim, offset, 1);
		if (lim < n) {
			d->idx = lim;
			return 0;
		}
		fi = &b->insn[n - 1];
		if (fi->flags & d->p0_flags) {
			e->flags = (uint8_t)(ETMKIT_INSN_P0 |
				      (taken ? ETMKIT_INSN_EXEC :
					       ETMKIT_INSN_COND_FAIL));
			after_p0(d, b, taken);
			d->atom_started = 0;
			return 1;
		}
		/* The block ended without a P0 instruction (its size limit,
		 * or the end of the mapped bytes): go on after it. */
		leave_block(d, b, 0, flow_block_end(b), b->isa);
	}
}

/* Walk while the next instruction is not at @stop (exclusive), or, with
 * @left, until *@left instructions were delivered. Returns 1 when done
 * (or lost: position unknown), 0 when the output is full. */
int etm4_walk_until(struct etm4_flow_decoder *d, uint64_t stop,
		    uint32_t *left, enum walk_mode mode, uint64_t offset)
{
	for (;;) {
		struct flow_block *b;
		const struct flow_insn *fi;
		struct etmkit_elem *e;

		/* A count is done before the next instruction is looked up:
		 * nothing after it is walked (or reported missing). */
		if (left && !*left)
			return 1;
		if (room(d) < 2)
			return 0;
		if (!etm4_ready(d, offset))
			return 1;
		b = d->blk;
		fi = &b->insn[d->idx];
		if (!left && fi->addr == stop)
			return 1;
		if (!left && !d->budget--) {
			lose_position(d);
			return 1;
		}
		e = put_insn(d, fi, offset);
		/* The last instruction of a Q's count ends its range (flow.h):
		 * flagged as it is delivered, whatever batch it ends. */
		if (left && !--*left)
			e->flags |= ETMKIT_INSN_P0;
		if (fi->flags & d->p0_flags) {
			/* Not taken; a source address's range runs on
			 * through it (D4.3.5.3), so it does not end one. */
			if (mode == WALK_SRC)
				e->flags = ETMKIT_INSN_COND_FAIL;
			leave_block(d, b, 0, flow_block_end(b), b->isa);
			if (mode == WALK_EXC)
				return 1;
			continue;
		}
		if (++d->idx == b->n)
			leave_block(d, b, 0, flow_block_end(b), b->isa);
	}
}

/* Atoms @bits (@n, the oldest in bit 0) of the packet at @off, to be
 * walked after what the walk queue holds: its last entry. */
static void queue_atoms(struct etm4_flow_decoder *d, uint32_t bits,
			unsigned n, uint64_t off)
{
	struct ent *e = done_push(d);

	memset(e, 0, sizeof(*e));
	e->kind = K_ATOM;
	e->offset = off;
	e->b = bits;
	e->n = (uint8_t)n;
}

/* Atoms @bits (@n, the oldest in bit 0) of the packet at @off, when all
 * of them are committed at once and nothing is queued before them: walked
 * at once, without the queues. *@pclosed: the last element is known not
 * to be an open range (reading it back right after writing it stalls on
 * store forwarding), in and out. Returns 1, or 0 when the output filled
 * (the atoms left are then the walk queue's only entry). @tally:
 * d->tally, a constant in each of atom_step()'s two copies. */
static inline __attribute__((always_inline)) int
walk_atoms_loop(struct etm4_flow_decoder *d, uint32_t bits, unsigned n,
		uint64_t off, int *pclosed, const int tally)
{
	int closed = *pclosed;
	/* Fixed at alloc: kept in registers (stores to elements may alias
	 * the decoder as far as the compiler knows). */
	const uint32_t p0_flags = d->p0_flags;
	const int ranges = d->ranges;

	while (n) {
		/* The common case in a tight loop: the walk stands at the start
		 * of a block ending in a P0 instruction, with room for all of
		 * it. Anything else is etm4_walk_atom()'s (which alone starts an
		 * atom it does not finish). */
		while (n && !d->atom_started) {
			struct flow_block *b, *nb;
			const struct flow_insn *fi;
			struct etmkit_elem *e;
			uint32_t bn, f;
			unsigned taken = bits & 1;

			if (F4_UNLIKELY(d->pos != POS_BLOCK)) {
				/* etm4_walk_atom()'s start of an atom. */
				if (d->pop_pending)
					rs_pop(d);
				/* Nowhere to walk from: this atom and the
				 * packet's others are lost; the first after
				 * an indirect branch whose address did not
				 * come with a gap (etm4_walk_atom() when there
				 * is no room for it). */
				if (d->pos == POS_NONE) {
					if (F4_UNLIKELY(d->no_addr)) {
						if (room(d) < 1)
							break;
						etm4_no_address(d, off);
						closed = 1; /* the gap */
					}
					d->stats.atoms_lost += n;
					*pclosed = closed;
					return 1;
				}
				if (room(d) >= 2 && !resolve(d, off)) {
					/* the last element: its no_image */
					d->stats.atoms_lost += n;
					*pclosed = 1;
					return 1;
				}
				if (d->pos != POS_BLOCK)
					break; /* no room */
			}
			b = d->blk;
			bn = b->n;
			fi = &b->insn[bn - 1];
			f = fi->flags;
			if (d->idx || !(f & p0_flags) || room(d) < bn + 1)
				break;
			if (tally && (closed || last_closed(d))) {
				tally_run(d, b, taken, off);
			} else {
				e = ranges ? put_range(d, b, 0, bn, off,
						       !closed) :
					     put_insns(d, b, 0, bn, off, 1);
				e->flags = (uint8_t)(ETMKIT_INSN_P0 |
					   (taken ? ETMKIT_INSN_EXEC :
						    ETMKIT_INSN_COND_FAIL));
			}
			closed = 1; /* the last element: a closed range (or
				       no_image after it, below) */
			nb = !taken || !(f & INSN_F_BRANCH) ? b->succ[0] :
			     !(f & (INSN_F_INDIRECT | INSN_F_CALL)) ?
			     b->succ[1] : NULL;
			if (nb)
				d->blk = nb;
			else
				after_p0(d, b, taken);
			bits >>= 1;
			n--;
		}
		if (!n)
			break;
		closed = 0;
		if (!etm4_walk_atom(d, bits & 1, off)) {
			queue_atoms(d, bits, n, off);
			*pclosed = 0;
			return 0;
		}
		bits >>= 1;
		n--;
	}
	*pclosed = closed;
	return 1;
}

/* Deliver the speculation queue, which holds no P0 element: 1, or 0 when
 * the output filled (the rest waits in the walk queue). */
static int flush_spec(struct etm4_flow_decoder *d)
{
	/* Walked where they are: copying an entry just written stalls on
	 * store forwarding. The walk queue is empty (etm4_atom_run()). */
	for (; d->sh != d->st; d->sh++) {
		struct ent *e = spec_at(d, d->sh);

		if (e->kind == K_DEAD)
			continue;
		if (room(d) < F4_ROOM || !etm4_walk_entry(d, e))
			break;
	}
	if (d->sh == d->st)
		return 1;
	/* The output filled: the rest waits in the walk queue. */
	for (; d->sh != d->st; d->sh++) {
		struct ent *e = spec_at(d, d->sh);

		if (e->kind != K_DEAD)
			*done_push(d) = *e;
	}
	return 0;
}

/* Whether every P0 element is committed as it comes and nothing waits
 * for an address: synced, MAXSPEC 0 (digest 7.2), nothing speculative,
 * nothing pending. */
static inline int commits_at_once(const struct etm4_flow_decoder *d)
{
	return d->synced && !d->info.maxspec && !d->depth && !d->pend;
}

/* The atom packet @a at @off, in run_direct()'s state: its atoms not yet
 * walked, @bits and @left (all of them, or those run_ranges_loop() left),
 * after what waits in the speculation queue (not P0, before them:
 * delivered first, as etm4_commit() would); lost (*@lost) where the walk
 * has nowhere to start. *@pclosed as walk_atoms_loop()'s. Returns 1, or 0
 * when the output filled (what is left then waits in the walk queue).
 * The one atom step of run_direct() and etm4_fused(). */
static inline __attribute__((always_inline)) int
atom_step(struct etm4_flow_decoder *d, const struct etm4_atoms *a,
	  uint32_t bits, unsigned left, uint64_t off, int *pclosed,
	  uint64_t *lost, const int fused)
{
	if (d->sh != d->st) {
		*pclosed = 0;
		if (!flush_spec(d)) {
			queue_atoms(d, a->bits, a->count, off);
			return 0;
		}
	}
	if (d->pos == POS_NONE && !d->pop_pending && !d->atom_started) {
		/* Nowhere to walk from; a gap to report first (no_addr):
		 * walk_atoms_loop()'s. (Tested inside: the per-instruction
		 * form's atom loop compiles to 0.2% fewer instructions.) */
		if (F4_LIKELY(!d->no_addr)) {
			*lost += left;
			return 1;
		}
	}
	/* d->tally a constant in each copy; etm4_fused() (@fused) runs
	 * only without a tally (etm4_flow.c), so it has one copy */
	if (fused)
		return walk_atoms_loop(d, bits, left, off, pclosed, 0);
	return d->tally ? walk_atoms_loop(d, bits, left, off, pclosed, 1) :
			  walk_atoms_loop(d, bits, left, off, pclosed, 0);
}

/* The packets run_ranges_loop() reads: headers hd[0..count), byte i at
 * input offset offs[i] (or base + i when offs is NULL); the target
 * addresses those of a run record (addrs, the next at *ia), or, with
 * addrs NULL, decoded here from the packet decoder's input (dec), which
 * keeps ETM4_FAST_MIN bytes at hand for each. */
struct rr_input {
	const uint8_t *hd;
	const uint64_t *offs;
	uint64_t base;
	size_t count;
	const struct etm4_run_addr *addrs;
	uint32_t *ia;
	struct etm4_pkt_decoder *dec;
};

/* The atom packets from header @h on, up to @count or the next other
 * packet: their atoms added to *@lost. Returns the header after them.
 * Four headers at a time while four are at hand, one bound test for
 * them (juno_r1_1: three atom packets per address outside the image). */
static inline __attribute__((always_inline)) size_t
atoms_up_to(const struct etm4_atoms *tab, const uint8_t *hd, size_t h,
	    size_t count, uint64_t *lost)
{
	uint64_t n = *lost;
	unsigned c;

	for (; h + 4 <= count; h += 4)
		for (unsigned k = 0; k < 4; k++) { /* unrolled */
			if (!(c = tab[hd[h + k]].count)) {
				h += k;
				goto done;
			}
			n += c;
		}
	for (; h < count && (c = tab[hd[h]].count); h++)
		n += c;
done:
	*lost = n;
	return h;
}

/* The atom packets of a run from header @h on, up to its end (@count) or
 * its next address packet, which come where the position is unknown:
 * their atoms are added to *@lost. Returns the header after them. Out of
 * line: run_ranges_loop() keeps its registers for the walk. */
static __attribute__((noinline)) size_t
skip_atoms(const struct etm4_atoms *tab, const uint8_t *hd, size_t h,
	   size_t count, uint64_t *lost)
{
	return atoms_up_to(tab, hd, h, count, lost);
}

/* Where no_image_streak() stopped: the header to go on at, the next
 * element to write. (Returned, not stored through pointers: the caller's
 * locals stay in registers.) */
struct streak_end {
	size_t h;
	struct etmkit_elem *e;
};

_Static_assert(offsetof(struct etmkit_elem, kind) == 16,
	       "streak_loop(): offset and address, then the rest");

/* no_image_streak() for the packets of @in (a run record's when @rec, a
 * constant; else the packet decoder's input). Everything it reads or
 * keeps from one address to the next in locals: its stores to elements
 * may alias the decoder as far as the compiler knows. */
static inline __attribute__((always_inline)) struct streak_end
streak_loop(struct etm4_flow_decoder *d, const struct rr_input *in,
	    size_t h, struct etmkit_elem *e, struct etmkit_elem *const end,
	    const int rec)
{
	const struct etm4_atoms *tab = d->atoms;
	const uint8_t *hd = in->hd;
	const uint64_t *offs = in->offs;
	const uint64_t base = in->base;
	const size_t count = in->count;
	/* A decoded address needs ETM4_FAST_MIN bytes at hand. */
	const size_t lim = rec ? count :
		count >= ETM4_FAST_MIN ? count - ETM4_FAST_MIN + 1 : 0;
	struct etm4_pkt_decoder *dec = in->dec;
	const struct etm4_run_addr *addrs = in->addrs;
	uint32_t ia = rec ? *in->ia : 0;
	/* Outside the image: addr - lo > span (flow_cache_outside()); with
	 * no region (lo > hi) only address 1 is taken for inside, which
	 * merely ends the streak there. */
	const uint64_t lo = d->cache.lo <= d->cache.hi ? d->cache.lo : 1;
	const uint64_t span = d->cache.lo <= d->cache.hi ?
		d->cache.hi - d->cache.lo : 0;
	struct etmkit_elem *const e0 = e + 1, t;
	const size_t h0 = h;
	struct streak_end r;
	const uint8_t isa0 = isa_of(d, 0);
	uint64_t ext = 0, nlost = 0;

	/* The element of an address with IS 0, written over with its
	 * offset, address (and instruction set, digest 5.18). */
	elem_init(&t, etmkit_elem_no_image, 0);
	flow_no_image(&t, 0, isa0, etmkit_loss_unmapped, d->space);
	/* The address before @h: resolve() would report it (etm4_no_code()) */
	elem_init(e, etmkit_elem_no_image, offs ? offs[h] : base + h);
	no_code_in(d, e++, etmkit_loss_unmapped);
	for (;;) {
		struct etm4_address x;
		unsigned len;

		h = atoms_up_to(tab, hd, h, count, &nlost);
		if (h >= lim || e >= end)
			break;
		if (rec) {
			x = addrs[ia].addr;
			len = addrs[ia].length;
			if (count - h <= len)
				break;
		} else {
			len = etm4_peek_target_address(dec, hd + h, &x);
			if (!len)
				break;
		}
		/* An atom next, the address aligned (IS 1: 2 bytes, else
		 * 4, misaligned()) and outside the image (resolve()). */
		if (!tab[hd[h + len]].count || (x.addr & (3u >> x.is)) ||
		    x.addr - lo <= span)
			break;
		if (rec)
			ia++;
		else
			push_addr(dec, &x);
		h += len;
		ext += len - 1;
		/* all but the offset and address, stored next */
		memcpy(&e->kind, &t.kind, sizeof(*e) - 16);
		e->offset = offs ? offs[h] : base + h;
		e->addr = x.addr;
		if (x.is)
			e->isa = etmkit_isa_thumb;
		e++;
	}
	/* The position where the last address left it (read back from its
	 * element: fewer values live in the loop). */
	if (e != e0) {
		d->addr = e[-1].addr;
		d->isa = e[-1].isa;
		d->pos_is = e[-1].isa == etmkit_isa_thumb;
	}
	if (rec)
		*in->ia = ia;
	d->streak_addrs += (uint64_t)(e - e0);
	/* Each address packet is one packet, each atom packet one byte. */
	d->stats.packets += h - h0 - ext;
	d->stats.atoms_lost += nlost;
	r.h = h;
	r.e = e;
	return r;
}

/* run_ranges_loop()'s fast case at an address packet of @in followed by
 * atom packets (header @h, the first of them), the walk's position that
 * address, aligned outside the image, no atom begun, nothing counted
 * waiting, no indirect branch to guess from: resolve() would report
 * no_image there (etm4_no_code(), written here at *@e) and the atoms are
 * lost up to the next address. While that one too is followed by atoms
 * and lies aligned outside the image, it is a no_image element of its
 * own (what target_address() and the same case would give: of the state
 * they set only the position's address and instruction set differ) and
 * its atoms are lost in turn: juno_r1_1's commonest case (user code
 * outside the image), one address after another. Stops at anything
 * else, or where the output (up to @end) is full. Counts the packets
 * read and the atoms lost in d->stats, the addresses taken after the
 * first in d->streak_addrs. */
static __attribute__((noinline)) struct streak_end
no_image_streak(struct etm4_flow_decoder *d, size_t h, struct etmkit_elem *e,
		struct etmkit_elem *const end)
{
	struct pkt_view v;
	struct streak_end r = { h, e };

	/* The input etm4_fused() reads, as it left it (read again here: the
	 * caller passes fewer values). Were it not, nothing is taken and
	 * the atom's walk reports the no_image. */
	if (!etm4_pkt_view(d->pkt, &v))
		return r;
	const struct rr_input in = { v.buf, v.offs, v.base, v.n, NULL, NULL,
				     d->pkt };

	return streak_loop(d, &in, h, e, end, 0);
}

/* no_image_streak() in run record @p, its next address *@ia. */
static __attribute__((noinline)) struct streak_end
no_image_streak_rec(struct etm4_flow_decoder *d, const struct etm4_packet *p,
		    uint32_t *ia, size_t h, struct etmkit_elem *e,
		    struct etmkit_elem *const end)
{
	const struct rr_input in = {
		p->u.run.headers, p->u.run.offsets, p->offset, p->u.run.count,
		p->u.run.addrs, ia, d->pkt
	};

	return streak_loop(d, &in, h, e, end, 1);
}

/* ETM4_FLOW_RANGES, in run_direct()'s state with nothing speculative and
 * the last element no open range: the packets of run record @p from byte
 * *@ph and address *@pia on, while each atom covers a whole block ending
 * in a P0 instruction (an atom is the instructions up to and including
 * the next P0 one, D4.3.5.1) and the output has room. Each atom's element
 * is a copy of its block's range template (block.h); the walk follows the
 * blocks' successor links, and after_p0() where none is known yet; a
 * Target Address is walked at once (run_direct()). Stops at the run's end
 * (*@pn 0) or at an atom packet the general path must go on with:
 * *@ph is then its byte, *@pbits and *@pn its atoms not walked yet.
 * @tally (d->tally, a constant in each of etm4_run_ranges()'s two copies): the
 * atoms' ranges are counted (tally_run()), not written.
 * @v (a constant NULL, or not: etm4_fused()): instead of a run record, the
 * packet decoder's input (etm4_view.h) from byte *@ph on, its atom and
 * target address packets read here (the one pass); *@pn 0 then also
 * stops at any other packet (*@ph its byte) and at a target address
 * without ETM4_FAST_MIN bytes at hand. @no_offs (a constant): the input
 * has no offsets (offs NULL: byte i at base + i), in fused_ranges()'s copy
 * for it, which keeps the test and the pointer out of the loop. */
static inline __attribute__((always_inline)) void
run_ranges_loop(struct etm4_flow_decoder *d, const struct etm4_packet *p,
		const struct pkt_view *v, size_t *ph, uint32_t *pia,
		uint32_t *pbits, unsigned *pn, const int tally,
		const int no_offs)
{
	/* In locals: stores to elements may alias them as far as the
	 * compiler knows. */
	const struct etm4_atoms *tab = d->atoms;
	const uint8_t *hd = v ? v->buf : p->u.run.headers;
	const uint64_t *offs = no_offs ? NULL : v ? v->offs :
					       p->u.run.offsets;
	const uint64_t base = v ? v->base : p->offset;
	const struct etm4_run_addr *addrs = v ? NULL : p->u.run.addrs;
	const size_t count = v ? v->n : p->u.run.count;
	const uint32_t p0_flags = d->p0_flags;
	/* (no Context packet read here changes it) */
	const uint8_t isa0 = isa_of(d, 0);
	struct etmkit_elem *e = &d->out[d->n];
	struct etmkit_elem *const end = &d->out[F4_OUT - 1]; /* room(d) >= 2 */
	size_t h = *ph, h0 = h;
	uint32_t ia = *pia, bits = 0;
	unsigned n = 0;
	/* The packets read: h - h0 less the bytes after the first of each
	 * address packet (@extra); an atom packet is one byte. */
	uint64_t extra = 0, lost = 0;
	/* At most F4_OUT ranges of FLOW_BLOCK_MAX + 4 instructions: 32 bits
	 * add a block's count from memory in one instruction. */
	uint32_t insns = 0;
	/* The walk's block while it only follows successor links: the walk
	 * stays at the start of a block, no atom begun (d->blk is set on
	 * leaving); NULL: look at d. */
	struct flow_block *b = NULL;

	for (; h < count; h++) {
		const struct etm4_atoms *a = &tab[hd[h]];
		uint64_t off;

		if (!a->count) {
			if (v) {
				struct etm4_address x;
				unsigned len = count - h >= ETM4_FAST_MIN ?
					etm4_target_address(d->pkt, hd + h,
							    &x) : 0;

				if (!len) {
					n = 0; /* the packet decoder's */
					goto out;
				}
				target_address_isa0(d, x.addr, x.is, isa0);
				h += len - 1;
				extra += len - 1;
			} else {
				const struct etm4_run_addr *x = &addrs[ia++];

				target_address_isa0(d, x->addr.addr,
						    x->addr.is, isa0);
				h += x->length - 1;
				extra += x->length - 1u;
			}
			/* An atom next (no Context between can change the
			 * instruction set or memory space, D4.3.6.3): the
			 * guess resolve() would take at it, taken now. */
			if (h + 1 >= count || !tab[hd[h + 1]].count) {
				b = NULL;
				continue;
			}
			/* read before the stores below, which may alias the
			 * input as far as the compiler knows */
			a = &tab[hd[h + 1]];
			bits = a->bits;
			n = a->count;
			b = ind_guess(d);
			if (b || misaligned(d) || d->atom_started) {
				/* the atom's walk takes it */
			} else if (!flow_cache_outside(&d->cache, d->addr)) {
				/* What resolve() would do at the atom where
				 * it needs no call, done now (tme_test's
				 * indirect targets the guess missed). */
				b = front_enter(d);
			} else if (e < end && !tally_waits(d)) {
				/* What the atom's walk would do at once,
				 * juno_r1_1's commonest case (user code
				 * outside the image): resolve() reports
				 * no_image at it (etm4_no_code(), written
				 * here), and its atoms and the next atom
				 * packets' are lost up to the next address. */
				/* (ia's address taken only where it is
				 * used: run records) */
				struct streak_end r = v ?
					no_image_streak(d, h + 1, e, end) :
					no_image_streak_rec(d, p, &ia, h + 1,
							    e, end);

				/* its packets counted there */
				extra += r.h - (h + 1);
				e = r.e;
				h = r.h - 1;
				n = 0;
				continue;
			}
			/* the atom packet next (bits, n), walked here */
			h++;
			off = offs ? offs[h] : base + h;
			goto walk;
		}
		off = offs ? offs[h] : base + h;
		bits = a->bits;
		n = a->count;
walk:
		while (n) {
			if (!b) {
				/* walk_atoms_loop()'s start of an atom */
				if (d->atom_started || e >= end)
					goto out;
				if (d->pos != POS_BLOCK) {
					if (d->pop_pending)
						rs_pop(d);
					d->n = (size_t)(e - d->out);
					if (d->pos == POS_NONE ||
					    !resolve(d, off)) {
						/* this atom and the packet's
						 * others are lost, and so
						 * are the next atom
						 * packets' (the position
						 * stays unknown, nothing to
						 * pop: nothing more is
						 * written) up to the next
						 * address; the first after
						 * an indirect branch whose
						 * address did not come with
						 * a gap (room: e < end) */
						size_t h1;

						if (F4_UNLIKELY(d->no_addr))
							etm4_no_address(d, off);
						h1 = skip_atoms(tab, hd, h + 1,
								count, &lost);

						e = &d->out[d->n];
						lost += n;
						n = 0;
						h = h1 - 1;
						break;
					}
				}
				if (d->idx)
					goto out;
				b = d->blk;
			}
			/* From block to block while their links are known
			 * (n and bits: the atoms not walked yet). */
			do {
				struct flow_block *nb;
				unsigned taken = bits & 1, slot;
				uint32_t f;

				if (e >= end)
					goto out;
				f = b->range.class_flags;
				if (!(f & p0_flags))
					goto out; /* ended by its size or the
						     image */
				if (tally) {
					/* may deliver another range: 2
					 * elements */
					d->n = (size_t)(e - d->out);
					tally_run(d, b, taken, off);
					e = &d->out[d->n];
				} else {
					e->offset = off;
					memcpy(&e->addr, &b->range,
					       sizeof(b->range));
					/* Without a branch on the atom, which
					 * follows no pattern: E is EXEC, N is
					 * COND_FAIL = EXEC + 1. */
					e->flags = (uint8_t)((ETMKIT_INSN_P0 |
							ETMKIT_INSN_COND_FAIL) -
						       taken);
					e++;
					insns += b->range.count;
				}
				bits >>= 1;
				n--;
				/* Not taken, or no branch: the next
				 * instruction (slot 0); taken: the target
				 * (slot 1), a direct call's after its return
				 * address is pushed, as after_p0() would;
				 * indirect branches, and successors not
				 * linked yet, are after_p0()'s. */
				slot = taken & f & INSN_F_BRANCH;
				nb = b->succ[slot];
				if (slot &&
				    (f & (INSN_F_INDIRECT | INSN_F_CALL))) {
					if (nb && !(f & INSN_F_INDIRECT)) {
						/* A branch with link that
						 * executed pushes the address
						 * after it with its instruction
						 * set, when the return stack is
						 * on (TRCCONFIGR.RS): IHI 0064,
						 * "Return stack" (ETE keeps the
						 * rule); spec etmv4-ete.md 7.7,
						 * Push. */
						if (d->info.retstack)
							rs_push(d,
								b->range.end,
								b->isa);
					} else {
						after_p0(d, b, taken);
						nb = NULL;
					}
				} else if (F4_UNLIKELY(!nb)) {
					after_p0(d, b, taken);
				}
				b = nb;
				if (n)
					continue;
				/* The packet's atoms walked, the walk still
				 * at a block's start: an atom packet next
				 * goes on here, without the loop over
				 * packets. */
				if (!b || h + 1 >= count || !tab[hd[h + 1]].count)
					break;
				a = &tab[hd[++h]];
				off = offs ? offs[h] : base + h;
				bits = a->bits;
				n = a->count;
			} while (b);
		}
	}
out:
	if (b)
		d->blk = b;
	d->n = (size_t)(e - d->out);
	d->stats.insns += insns;
	d->stats.packets += h - h0 - extra;
	d->stats.atoms_lost += lost;
	*ph = h;
	*pia = ia;
	*pbits = bits;
	*pn = n;
}

void etm4_run_ranges(struct etm4_flow_decoder *d,
		     const struct etm4_packet *p, uint32_t *ph,
		     uint32_t *pia, uint32_t *pbits, unsigned *pn)
{
	size_t h = *ph;

	if (d->tally)
		run_ranges_loop(d, p, NULL, &h, pia, pbits, pn, 1, 0);
	else
		run_ranges_loop(d, p, NULL, &h, pia, pbits, pn, 0, 0);
	*ph = (uint32_t)h;
}

/* run_ranges_loop() over the packet decoder's input @v, for
 * etm4_fused(). Out of line: its registers are its own, not shared with
 * the rest of etm4_fused(). */
static __attribute__((noinline)) void
fused_ranges(struct etm4_flow_decoder *d, const struct pkt_view *v,
	     size_t *ph, uint32_t *pbits, unsigned *pn)
{
	uint32_t ia = 0;

	if (v->offs)
		run_ranges_loop(d, NULL, v, ph, &ia, pbits, pn, 0, 0);
	else
		run_ranges_loop(d, NULL, v, ph, &ia, pbits, pn, 0, 1);
}

/* Whether the last element is known not to be an open range (a range
 * whose last instruction executed and is not P0, which the next
 * instructions of its packet would extend). */
static inline int last_not_open(const struct etm4_flow_decoder *d)
{
	return !d->n || d->out[d->n - 1].kind != etmkit_elem_insn_range ||
	       d->out[d->n - 1].flags != ETMKIT_INSN_EXEC;
}

/* With d->fused (ranges, not counted, MAXSPEC 0: issue 18's one pass):
 * where the packet decoder's batch is used up, in run_direct()'s state
 * (every P0 element committed as it comes, nothing pending, the walk
 * queue empty), or with
 * an address pending that the next packet gives (run_packet()), the atom
 * and target address packets of the packet decoder's input are read here
 * as run_direct() reads those of a run record, without the record:
 * run_ranges_loop() walks them while nothing is speculative and the last
 * element is no open range, the packet-by-packet path the rest. Stops at
 * any other packet or where that state ends, handing the input back at a
 * packet boundary. Returns 0 when the output filled, else 1; *@took: 1
 * when it applied and stopped before the input's end (then
 * etm4_next_others() decodes what follows, up to the next packet read
 * here), else 0. */
int etm4_fused(struct etm4_flow_decoder *d, int *took)
{
	const struct etm4_atoms *tab = d->atoms;
	struct pkt_view v;
	uint64_t packets = 0, lost = 0;
	int closed, ok = 1;
	size_t h;

	*took = 0;
	if (d->dt || !d->synced || d->depth || !etm4_pkt_view(d->pkt, &v))
		return 1;
	closed = last_not_open(d);
	h = v.pos;
	while (h < v.n) {
		const struct etm4_atoms *a = &tab[v.buf[h]];
		uint32_t bits;
		unsigned left;
		uint64_t off;

		if (!commits_at_once(d)) {
			/* An exception or Q waits for its address (d->pend):
			 * an address packet next completes it, as
			 * run_packet() would give it to etm4_on_packet(). */
			struct etm4_address x;
			unsigned len;

			if (!d->synced || d->depth || a->count ||
			    v.n - h < ETM4_FAST_MIN ||
			    !(len = etm4_target_address(d->pkt, v.buf + h,
							&x)))
				break;
			off = v.offs ? v.offs[h] : v.base + h;
			h += len;
			packets++;
			etm4_on_address(d, off, &x);
			if (d->dt && !etm4_walk(d)) {
				ok = 0;
				break;
			}
			closed = last_not_open(d); /* as run_direct() */
			continue;
		}
		if (closed && d->sh == d->st) {
			fused_ranges(d, &v, &h, &bits, &left);
			if (!left)
				break; /* another packet, or the input's end */
			a = &tab[v.buf[h]];
		} else {
			bits = a->bits;
			left = a->count;
		}
		off = v.offs ? v.offs[h] : v.base + h;
		if (!a->count) {
			struct etm4_address x;
			unsigned len = v.n - h >= ETM4_FAST_MIN ?
				etm4_target_address(d->pkt, v.buf + h, &x) : 0;

			if (!len)
				break;
			h += len;
			packets++;
			if (d->sh == d->st) {
				target_address(d, x.addr, x.is);
				continue;
			}
			etm4_on_address(d, off, &x);
			if (commits_at_once(d))
				continue;
			/* as run_direct() */
			ok = !d->dt || etm4_walk(d);
			break;
		}
		h++;
		packets++;
		if (!atom_step(d, a, bits, left, off, &closed, &lost, 1)) {
			ok = 0;
			break;
		}
	}
	d->stats.packets += packets;
	d->stats.atoms_lost += lost;
	etm4_pkt_view_done(d->pkt, h);
	*took = h < v.n;
	return ok;
}

/* Run record @p from byte *@ph and address *@pia on, in the state where
 * every P0 element is committed as it comes and nothing waits for an
 * address (synced, MAXSPEC 0, depth 0, nothing pending: digest 7.2), which
 * its atoms and addresses leave as it is. Atoms are walked at once
 * (atom_step()). A Target Address with nothing queued would be the
 * next entry walked, and nothing can remove it first (no P0 element to
 * cancel or mispredict; Discard, Overflow and errors leave the position
 * unknown either way): it is walked at once too. What waits in the
 * speculation queue is not P0 and precedes the next atom: delivered first,
 * as etm4_commit() would. Returns 1 at the run's end, 0 when the output
 * filled. */
static int run_direct(struct etm4_flow_decoder *d, const struct etm4_packet *p,
		      uint32_t *ph, uint32_t *pia)
{
	const struct etm4_atom_run *r = &p->u.run;
	const struct etm4_atoms *tab = d->atoms;
	const uint8_t *hd = r->headers;
	uint32_t h = *ph, ia = *pia, count = r->count;
	uint64_t packets = 0, lost = 0;
	int ok = 1;
	/* atom_step()'s, kept from packet to packet; read back once
	 * per run */
	int closed = last_not_open(d);
	uint32_t bits;
	unsigned left;

	while (h < count) {
		const struct etm4_atoms *a = &tab[hd[h]];
		uint64_t off;

		if (d->ranges && closed && d->sh == d->st) {
			etm4_run_ranges(d, p, &h, &ia, &bits, &left);
			if (!left)
				break; /* the run's end */
			a = &tab[hd[h]];
		} else {
			bits = a->bits;
			left = a->count;
		}
		packets++;
		/* (offsets only where an element may take them) */
		if (!a->count) {
			const struct etm4_run_addr *x = &r->addrs[ia++];

			h += x->length;
			if (d->sh == d->st) {
				target_address(d, x->addr.addr, x->addr.is);
				continue;
			}
			off = r->offsets ? r->offsets[h - x->length] :
					   p->offset + h - x->length;
			etm4_on_address(d, off, &x->addr);
			if (commits_at_once(d))
				continue;
			/* The speculation queue overflowed: sync is lost
			 * (etm4_protocol_error()); the rest of the run is not
			 * this loop's, and its gap comes first. */
			ok = !d->dt || etm4_walk(d);
			break;
		}
		off = r->offsets ? r->offsets[h] : p->offset + h;
		h++;
		if (!atom_step(d, a, bits, left, off, &closed, &lost, 0)) {
			ok = 0;
			break;
		}
	}
	d->stats.packets += packets;
	d->stats.atoms_lost += lost;
	*ph = h;
	*pia = ia;
	return ok;
}

/* The packet at byte @h (address *@pia if it is one) of run record @p,
 * given to etm4_on_packet() as the record it stands for. Returns the byte after
 * it, with *@full set when the output filled. */
static uint32_t run_packet(struct etm4_flow_decoder *d,
			   const struct etm4_packet *p, uint32_t h,
			   uint32_t *pia, int *full)
{
	const struct etm4_atom_run *r = &p->u.run;
	const struct etm4_atoms *a = &d->atoms[r->headers[h]];
	struct etm4_packet q; /* etm4_on_packet() reads the fields set here */
	uint32_t next = h + 1;

	q.offset = r->offsets ? r->offsets[h] : p->offset + h;
	q.error = 0;
	if (a->count) {
		q.type = etm4_pkt_atom;
		q.u.atoms = *a;
	} else {
		q.type = etm4_pkt_address;
		q.u.a.addr = r->addrs[*pia].addr;
		next = h + r->addrs[(*pia)++].length;
	}
	d->stats.packets++;
	etm4_on_packet(d, &q);
	*full = d->dt && !etm4_walk(d);
	return next;
}

/* The packets of run record @p (ETM4_CFG_ADDR_RUNS) from byte d->run_h
 * and address d->run_a on. Returns 1 when the run is done, 0 when the
 * output filled (d->run_h and d->run_a say where to go on). */
int etm4_atom_run(struct etm4_flow_decoder *d, const struct etm4_packet *p)
{
	uint32_t h = d->run_h, ia = d->run_a;
	int full = 0;

	while (h < p->u.run.count && !full) {
		if (commits_at_once(d))
			full = !run_direct(d, p, &h, &ia);
		else
			h = run_packet(d, p, h, &ia, &full);
	}
	if (full) {
		d->run_h = h;
		d->run_a = ia;
		return 0;
	}
	d->run_h = d->run_a = 0;
	return 1;
}
