/* The flow-driver skeleton the flow decoders share (internal): what a
 * flow decoder does whatever its protocol, around the part the protocol
 * decides. ETMv3 (etm3_flow.c) and ETMv4/ETE (etm4_flow.c) use it; PTM
 * and ETMv2 are to. Layer 3 of the trace model (seed 002 D4.3.1), the
 * driving side of flow.h's contract:
 * - feeding: the fed buffer is not copied, so no feed (and no gap) while
 *   packets of the last one are left (flow.h: drain until
 *   -etmkit_err_eos); the offset after the last byte fed;
 * - the end of input and transport gaps: a gap element of reason
 *   etmkit_loss_transport, at the packet the loss cut or else after the
 *   last byte fed, emitted by the next batch;
 * - reading packets a batch at a time (the packet decoder's next());
 * - output: the queue of pending elements is the decoder's (its layout is
 *   part of its hot path); the skeleton forgets what a batch delivered and
 *   copies batches out for etmX_flow_next();
 * - no_image elements: where the image has no code.
 * Hot paths: everything here is static inline. */
#ifndef ETMKIT_FLOW_DRIVER_H
#define ETMKIT_FLOW_DRIVER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "etmkit/common.h"
#include "etmkit/elem.h"
#include "etmkit/image.h"

/* Cycle counts in elements saturate here (elem.h: cycles at or above it
 * mean at least that many), so that a range's cycles are its
 * instructions' sum in both forms. */
#define FLOW_CYCLE_CAP 0xFFFF0000u

static inline uint32_t flow_cycles_cap(uint64_t c)
{
	return c > FLOW_CYCLE_CAP ? FLOW_CYCLE_CAP : (uint32_t)c;
}

struct flow_drive {
	int nbatch, ibatch;       /* packets read into the decoder's batch,
				     and the next one to take */
	uint8_t finishing;        /* etmX_flow_finish() called */
	uint8_t eos;              /* the packet decoder has nothing more */
	uint8_t stopped;          /* stop-on-error: the error was delivered */
	uint8_t full;             /* the last decode stopped for room */
	uint8_t gap_pending;      /* etmX_flow_gap(): a gap element to emit */
	const char *gap_why;
	uint64_t gap_offset;
	uint64_t fed_end;         /* offset after the last byte fed */
	/* etmX_flow_next(): the batch it copies from. */
	size_t next_pos, next_n;
	const struct etmkit_elem *next_batch;
};

/* Start afresh (allocation, reset): nothing fed, so drained. The offset
 * after the last byte fed stays (0 after allocation). */
static inline void flow_drive_reset(struct flow_drive *dr)
{
	uint64_t fed_end = dr->fed_end;

	memset(dr, 0, sizeof(*dr));
	dr->eos = 1;
	dr->fed_end = fed_end;
}

/* Whether packets of the last feed are still to be read: no feed or gap
 * until they are. */
static inline int flow_drive_busy(const struct flow_drive *dr)
{
	return dr->ibatch < dr->nbatch || !dr->eos;
}

/* The packet decoder took @n bytes (their offsets as etmX_pkt_feed()'s:
 * @offsets, or @base on). */
static inline void flow_drive_fed(struct flow_drive *dr, size_t n,
				  const uint64_t *offsets, uint64_t base)
{
	dr->eos = 0;
	if (n)
		dr->fed_end = (offsets ? offsets[n - 1] : base + n - 1) + 1;
}

/* The end of input: a packet cut by it may come yet. */
static inline void flow_drive_finish(struct flow_drive *dr)
{
	dr->finishing = 1;
	dr->eos = 0;
}

/* Data was lost in transport: the packet decoder gave back @cut_error
 * (0: no packet was cut) for the packet the loss cut, at @cut_offset,
 * saying @cut_why. The gap element comes with the next batch. */
static inline void flow_drive_gap(struct flow_drive *dr, int cut_error,
				  uint64_t cut_offset, const char *cut_why)
{
	dr->gap_pending = 1;
	dr->gap_offset = cut_error ? cut_offset : dr->fed_end;
	dr->gap_why = cut_error ? cut_why : "data lost in transport";
}

/* Fill @e, just emitted as a gap element at gap_offset, for the pending
 * transport gap, which it settles. */
static inline void flow_drive_gap_elem(struct flow_drive *dr,
				       struct etmkit_elem *e)
{
	e->u.loss.reason = etmkit_loss_transport;
	e->u.loss.why = dr->gap_why;
	dr->gap_pending = 0;
}

/* After the packet decoder's next() returned @r into the batch: 1 when
 * there are packets, 0 at the end of the input fed (or once stopped by
 * an error, -etmkit_err_bad_packet). */
static inline int flow_drive_refilled(struct flow_drive *dr, int r)
{
	dr->ibatch = 0;
	if (r < 0) {
		dr->nbatch = 0;
		dr->eos = 1;
		if (r == -etmkit_err_bad_packet)
			dr->stopped = 1;
		return 0;
	}
	dr->nbatch = r;
	return 1;
}

/* Forget the @delivered elements at the head of queue *@q of *@n and move
 * the rest to @to (the queue's new place; *@q itself to keep it where it
 * is): returns how many were dropped. A decoder's queue is its own array
 * unless its owner points it elsewhere (etmX_flow_queue_at(): the
 * parallel decode has it write into a piece's elements, so they are not
 * copied, par_piece.c); indexes into it survive, less the dropped. */
static inline size_t flow_queue_move(struct etmkit_elem **q,
				     struct etmkit_elem *to, size_t *n,
				     size_t *delivered)
{
	size_t k = *delivered;

	if (to != *q + k && *n > k)
		memmove(to, *q + k, (*n - k) * sizeof(to[0]));
	*q = to;
	*n -= k;
	*delivered = 0;
	return k;
}

/* The decoder's etmX_flow_batch(). */
typedef int (*flow_batch_fn)(void *dec, const struct etmkit_elem **elems);

/* etmX_flow_next(): up to @max elements of the batches of @batch(@dec)
 * copied into @elems. Returns as flow.h says. */
static inline int flow_drive_next(struct flow_drive *dr, void *dec,
				  flow_batch_fn batch,
				  struct etmkit_elem *elems, size_t max)
{
	size_t k;

	if (!dec || !elems || !max)
		return -etmkit_err_invalid;
	if (dr->next_pos == dr->next_n) {
		int r = batch(dec, &dr->next_batch);

		dr->next_pos = dr->next_n = 0;
		if (r < 0)
			return r;
		dr->next_n = (size_t)r;
	}
	k = dr->next_n - dr->next_pos;
	if (k > max)
		k = max;
	memcpy(elems, dr->next_batch + dr->next_pos, k * sizeof(elems[0]));
	dr->next_pos += k;
	return (int)k;
}

/* Fill @e, just emitted as a gap element, for a packet the packet
 * decoder rejected with @error (negated etmkit_err_*) saying @why: cut by
 * the end of the input, by a transport loss, or else bad. */
static inline void flow_packet_loss(struct etmkit_elem *e, int error,
				    const char *why)
{
	e->u.loss.reason = error == -etmkit_err_truncated ?
				   etmkit_loss_truncated :
			   error == -etmkit_err_bad_frame ?
				   etmkit_loss_transport : etmkit_loss_packet;
	e->u.loss.why = why;
}

/* Fill @e, just emitted as a no_image element: the walk stands at @addr
 * in @isa where the image (memory space @space, IMAGE_SPACE_*) has no
 * code, for reason @loss (enum etmkit_loss). */
static inline void flow_no_image(struct etmkit_elem *e, uint64_t addr,
				 uint8_t isa, uint8_t loss, uint8_t space)
{
	e->addr = addr;
	e->isa = isa;
	e->u.loss.reason = loss;
	e->u.loss.space = space;
}

/* The memory space (image.h) an ARMv7 core is in, as ETMv3 (from
 * ETMv3.5) and PTM trace it: the security state, and Hyp mode with the
 * Virtualization Extensions (IHI 0014Q 7.3.5 and IHI 0035B 4.5.4,
 * exception information bytes; digest ptm.md 4.4). */
static inline uint8_t flow_v7_space(uint8_t ns, uint8_t hyp)
{
	if (!ns)
		return IMAGE_SPACE_S;
	return hyp ? IMAGE_SPACE_EL2 : IMAGE_SPACE_EL1N;
}

/* Fill the IDs of @e, a context element: the context ID @cid if @has_cid
 * (traced), the VMID @vmid if @has_vmid. */
static inline void flow_context_ids(struct etmkit_elem *e, int has_cid,
				    uint32_t cid, int has_vmid, uint32_t vmid)
{
	if (has_cid) {
		e->flags |= ETMKIT_CTX_CONTEXT_ID;
		e->u.context.context_id = cid;
	}
	if (has_vmid) {
		e->flags |= ETMKIT_CTX_VMID;
		e->u.context.vmid = vmid;
	}
}

/* The driving half of protocol @P's flow API (flow.h), the same for
 * every protocol: @P##_flow_feed(), _finish(), _gap() and _next() over
 * the decoder's packet decoder (d->pkt, whose @P##_pkt_feed(), _finish(),
 * _gap() and _next() behave as etm3_pkt_*'s) and its batch function
 * @P##_flow_batch(). A packet the loss cut comes back from the packet
 * decoder as an error record (struct @PKT): it becomes the gap element
 * (offset and reason), emitted by the next batch. */
#define FLOW_DRIVE_API(P, PKT)                                              \
int P##_flow_feed(struct P##_flow_decoder *d, const uint8_t *buf,          \
		  size_t n, const uint64_t *offsets, uint64_t base)          \
{                                                                           \
	int err;                                                            \
									    \
	if (!d || flow_drive_busy(&d->drv))                                 \
		return -etmkit_err_invalid;                                 \
	err = P##_pkt_feed(d->pkt, buf, n, offsets, base);                  \
	if (!err)                                                           \
		flow_drive_fed(&d->drv, n, offsets, base);                  \
	return err;                                                         \
}                                                                           \
									    \
int P##_flow_finish(struct P##_flow_decoder *d)                             \
{                                                                           \
	if (!d)                                                             \
		return -etmkit_err_invalid;                                 \
	flow_drive_finish(&d->drv);                                         \
	return P##_pkt_finish(d->pkt);                                      \
}                                                                           \
									    \
int P##_flow_gap(struct P##_flow_decoder *d)                                \
{                                                                           \
	PKT cut;                                                            \
	int err;                                                            \
									    \
	if (!d || flow_drive_busy(&d->drv))                                 \
		return -etmkit_err_invalid;                                 \
	err = P##_pkt_gap(d->pkt);                                          \
	if (err)                                                            \
		return err;                                                 \
	memset(&cut, 0, sizeof(cut));                                       \
	if (P##_pkt_next(d->pkt, &cut, 1) != 1)                             \
		cut.error = 0;                                              \
	flow_drive_gap(&d->drv, cut.error, cut.offset, cut.why);            \
	return 0;                                                           \
}                                                                           \
									    \
static int P##_batch_of(void *d, const struct etmkit_elem **elems)          \
{                                                                           \
	return P##_flow_batch(d, elems);                                    \
}                                                                           \
									    \
int P##_flow_next(struct P##_flow_decoder *d, struct etmkit_elem *elems,   \
		  size_t max)                                               \
{                                                                           \
	return d ? flow_drive_next(&d->drv, d, P##_batch_of, elems, max) :  \
		   -etmkit_err_invalid;                                     \
}

/* The walk's position, for decoders whose state has the fields: pos
 * (POS_ADDR or POS_BLOCK), addr and isa (POS_ADDR), blk and idx
 * (POS_BLOCK), link_from, link_slot and link_gen (the block whose
 * successor the next lookup fills in) and cache (block.h). @AT_ADDR is a
 * statement the protocol adds where the walk goes on from an address.
 * Macros, not functions: the walk's hot path, the same code in each
 * decoder as if written there. */

/* Block @B, found by a lookup made at cache generation @GEN, is where the
 * walk is: link it as the successor the last block left for (if the
 * cache has not been emptied since), and stand on its first instruction. */
#define FLOW_ENTER_BLOCK(D, B, GEN)                                         \
	do {                                                                \
		if ((D)->link_from && (GEN) == (D)->link_gen &&             \
		    (GEN) == flow_cache_generation(&(D)->cache))            \
			(D)->link_from->succ[(D)->link_slot] = (B);         \
		(D)->link_from = NULL;                                      \
		(D)->blk = (B);                                             \
		(D)->idx = 0;                                               \
		(D)->pos = POS_BLOCK;                                       \
	} while (0)

/* After the last instruction of block @B: go on to its successor @SLOT if
 * the cache has it, else to @ADDR in instruction set @ISA, remembering to
 * link the block found there as that successor. */
#define FLOW_LEAVE_BLOCK(D, B, SLOT, ADDR, ISA, AT_ADDR)                     \
	do {                                                                \
		struct flow_block *nb_ = (B)->succ[SLOT];                   \
									    \
		if (nb_) {                                                  \
			(D)->blk = nb_;                                     \
			(D)->idx = 0;                                       \
			break;                                              \
		}                                                           \
		(D)->pos = POS_ADDR;                                        \
		(D)->addr = (ADDR);                                         \
		(D)->isa = (ISA);                                           \
		AT_ADDR;                                                    \
		(D)->blk = NULL;                                            \
		(D)->link_from = (B);                                       \
		(D)->link_slot = (uint8_t)(SLOT);                           \
		(D)->link_gen = flow_cache_generation(&(D)->cache);         \
	} while (0)

/* Read from image @IMG from now on (flow.h, image_for_context): a new
 * image empties the block cache, so a walk inside a block goes on from
 * its address, looked up afresh in @IMG. @FORGET is a statement that drops
 * what else the protocol keeps of the old image's blocks. */
#define FLOW_SWITCH_IMAGE(D, IMG, AT_ADDR, FORGET)                          \
	do {                                                                \
		const struct image *img_ = (IMG);                           \
									    \
		if (img_ == (D)->cache.image)                               \
			break;                                              \
		if ((D)->pos == POS_BLOCK) {                                \
			(D)->addr = (D)->blk->insn[(D)->idx].addr;          \
			(D)->isa = (D)->blk->isa;                           \
			(D)->pos = POS_ADDR;                                \
			AT_ADDR;                                            \
		}                                                           \
		(D)->blk = NULL;                                            \
		(D)->link_from = NULL;                                      \
		FORGET;                                                     \
		flow_cache_set_image(&(D)->cache, img_);                    \
	} while (0)

#endif /* ETMKIT_FLOW_DRIVER_H */
