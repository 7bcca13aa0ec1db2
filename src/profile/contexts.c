/* Call contexts of taken-branch traces (cfg.contexts): the call sites
 * of the stack a range ran in, as llvm-profgen's context-sensitive
 * unsymbolized profile keys its ranges (digest perf-data.md 4d;
 * docs/perf-data.md "Profiles"). A context is a node of a call-site
 * tree (its caller's node and the call instruction), interned in a hash
 * table, so that counting compares node ids only. */
#include <stdlib.h>

#include "profile_internal.h"

/* The node for a call at @site of binary @bin from context @parent,
 * made when new: 0 and *@node, or -etmkit_err_nomem. */
static int child(struct profile *p, uint32_t parent, uint32_t bin,
		 uint64_t site, uint32_t *node)
{
	struct count_map *m = &p->ctx_index;
	struct count_slot *sl;

	if (m->cap) {
		sl = count_map_find(m->slots, m->cap, bin, site, parent);
		if (sl->count) {
			*node = (uint32_t)sl->count;
			return 0;
		}
	}
	if (p->ctx_count + 1 >= UINT32_MAX)
		return -etmkit_err_nomem;
	if (p->ctx_count + 1 > p->ctx_cap) {
		size_t cap = p->ctx_cap ? p->ctx_cap * 2 : 64;
		struct profile_ctx_node *nn;

		if (cap > SIZE_MAX / sizeof(*nn))
			return -etmkit_err_nomem;
		nn = realloc(p->ctx_nodes, cap * sizeof(*nn));
		if (!nn)
			return -etmkit_err_nomem;
		p->ctx_nodes = nn;
		p->ctx_cap = cap;
		if (!p->ctx_count) {            /* node 0: the empty context */
			nn[0].parent = 0;
			nn[0].depth = 0;
			nn[0].bin = PROFILE_CTX_EXTERNAL;
			nn[0].site = 0;
			p->ctx_count = 1;
		}
	}
	if (!count_map_add_slot(m, bin, site, parent, p->ctx_count))
		return -etmkit_err_nomem;
	*node = (uint32_t)p->ctx_count;
	p->ctx_nodes[*node].parent = parent;
	p->ctx_nodes[*node].depth = p->ctx_nodes[parent].depth + 1;
	p->ctx_nodes[*node].bin = bin;
	p->ctx_nodes[*node].site = site;
	p->ctx_count++;
	return 0;
}

int profile_ctx_branch(struct profile *p, uint8_t id, size_t bin,
		       uint64_t site, uint32_t cls)
{
	struct profile_trace *t = &p->ids[id].tr;
	int err;

	if (cls & INSN_F_CALL) {
		if (t->over || (t->ctx && p->ctx_nodes[t->ctx].depth >=
					  PROFILE_CTX_MAX_DEPTH)) {
			t->over++;      /* counted, not kept */
			return 0;
		}
		if (bin >= PROFILE_CTX_EXTERNAL)
			bin = PROFILE_CTX_EXTERNAL;
		err = child(p, t->ctx, (uint32_t)bin, site, &t->ctx);
		if (err < 0)
			t->ctx = 0;
		return err;
	}
	if ((cls & INSN_F_RETURN) && !(cls & INSN_F_EXC_RETURN)) {
		if (t->over)
			t->over--;
		else if (t->ctx)        /* past the known calls: stays 0 */
			t->ctx = p->ctx_nodes[t->ctx].parent;
	}
	return 0;
}

int profile_ctx_thread(struct profile *p, uint8_t id,
		       const struct etmkit_elem *e)
{
	struct profile_trace *t = &p->ids[id].tr;
	struct count_map *m = &p->ctx_threads;
	uint64_t cid = e->u.context.context_id;
	struct count_slot *sl;

	if (!(e->flags & ETMKIT_CTX_CONTEXT_ID) ||
	    (t->has_thread && t->thread == cid))
		return 0;
	if (t->has_thread &&
	    !count_map_add_slot(m, id, t->thread, 0, 1)) {
		t->ctx = 0;
		t->over = 0;
		return -etmkit_err_nomem;
	}
	if (t->has_thread) {
		sl = count_map_find(m->slots, m->cap, id, t->thread, 0);
		sl->count = (uint64_t)t->ctx + 1;  /* the one kept */
		sl->aux = t->over;
	}
	t->has_thread = 1;
	t->thread = (uint32_t)cid;
	t->ctx = 0;
	t->over = 0;
	if (m->cap) {
		sl = count_map_find(m->slots, m->cap, id, cid, 0);
		if (sl->count) {
			t->ctx = (uint32_t)(sl->count - 1);
			t->over = (uint32_t)sl->aux;
		}
	}
	return 0;
}

void profile_ctx_free(struct profile *p)
{
	count_map_free(&p->ctx_index);
	count_map_free(&p->ctx_threads);
	free(p->ctx_nodes);
	p->ctx_nodes = NULL;
	p->ctx_count = p->ctx_cap = 0;
}
