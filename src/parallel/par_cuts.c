/* Parallel decode: where to cut one source's bytes. A cut is the first
 * byte of an A-sync whose next packet restarts decoding from full
 * information:
 *  - ETMv3: five or more 0x00 then 0x80 (IHI 0014Q 7.10.1; spec
 *    etmv3.md 4.1), then an I-sync header, 0x08 or 0x70 with cycle count
 *    (etmv3.md 4, header table), which carries the full address and
 *    context;
 *  - PTM: five or more 0x00 then 0x80 (IHI 0035B 4.5.1; ptm.md 4.1),
 *    then an I-sync, header 0x08 (IHI 0035B 4.5.2; ptm.md 4.2), the one
 *    I-sync form: its full address, state and context ID, and the
 *    return stack empty after it (ptm_flow.c: ptm_flow_isync()). The
 *    trace unit may put the packets it had pending between the two
 *    (tc2-ptm-rstk-t32: 25 of its 27 A-syncs have 1 to 6 bytes of atoms
 *    and branch addresses before their I-sync), which a fresh decoder
 *    drops (nothing before an I-sync) and the join takes from the piece
 *    before: an I-sync header among the PAR_PTM_ISYNC_WITHIN bytes after
 *    the A-sync will do;
 *  - ETMv4/ETE: eleven or more 0x00 then 0x80 (etmv4-ete.md 3), then a
 *    Trace Info (header 0x01, etmv4-ete.md 5.2) whose SPEC section is 0
 *    or absent: with SPEC > 0, P0 elements traced before the cut are still
 *    unresolved (etmv4-ete.md 5.2, 7.4) and the piece after it could not
 *    be decoded on its own, so such a point is skipped.
 * A cut found here is only a candidate: the join checks that the decoders
 * agree after it (par_internal.h), so zeros inside a packet's payload that
 * look like an A-sync cost speed, never exactness. */
#include <stdlib.h>
#include <string.h>

#include "parallel/par_internal.h"

/* Read a C7 field (7 bits a byte, bit 7 set: more follow) at @p[*i];
 * returns 0 when the buffer ends inside it or it is longer than 5. */
static int c7(const uint8_t *p, size_t n, size_t *i, uint64_t *v)
{
	*v = 0;
	for (unsigned k = 0; k < 5; k++) {
		if (*i >= n)
			return 0;
		*v |= (uint64_t)(p[*i] & 0x7F) << (7 * k);
		if (!(p[(*i)++] & 0x80))
			return 1;
	}
	return 0;
}

/* Whether the Trace Info at @p[i] (its header) has SPEC 0. */
static int tinfo_spec0(const uint8_t *p, size_t n, size_t i)
{
	uint64_t plctl, v;

	i++;
	if (!c7(p, n, &i, &plctl))
		return 0;
	if ((plctl & 1) && !c7(p, n, &i, &v)) /* INFO */
		return 0;
	if ((plctl & 2) && !c7(p, n, &i, &v)) /* KEY */
		return 0;
	if (!(plctl & 4))
		return 1;
	return c7(p, n, &i, &v) && v == 0;
}

/* PTM: how far after an A-sync its I-sync may come. */
#define PAR_PTM_ISYNC_WITHIN 16

/* Whether an I-sync header (0x08) is among the PAR_PTM_ISYNC_WITHIN bytes
 * at @p[h]. */
static int ptm_isync_near(const uint8_t *p, size_t n, size_t h)
{
	size_t end = n - h > PAR_PTM_ISYNC_WITHIN ? h + PAR_PTM_ISYNC_WITHIN : n;

	return memchr(p + h, 0x08, end - h) != NULL;
}

/* The first cut at or after @from, or @n. */
static size_t next_cut(const struct etmkit_par *p, size_t from)
{
	const uint8_t *b = p->buf;
	size_t n = p->n;
	int v3 = p->cfg.proto == etmkit_par_etm3;
	int v4 = p->cfg.proto == etmkit_par_etm4;
	size_t need = v4 ? 11 : 5;
	size_t i = from;

	while (i < n) {
		const uint8_t *z = memchr(b + i, 0x80, n - i);
		size_t j, zeros;

		if (!z)
			return n;
		j = (size_t)(z - b);
		zeros = 0;
		while (zeros < j - from && zeros <= need && b[j - 1 - zeros] == 0)
			zeros++;
		if (zeros >= need && j + 1 < n) {
			size_t h = j + 1;
			int ok = v4 ? (b[h] == 0x01 && tinfo_spec0(b, n, h)) :
				 v3 ? (b[h] == 0x08 || b[h] == 0x70) :
				      ptm_isync_near(b, n, h);

			if (ok)
				return j - need; /* the A-sync's first zero
						    (of the last @need) */
		}
		i = j + 1;
	}
	return n;
}

int par_find_cuts(struct etmkit_par *p)
{
	size_t piece = p->cfg.piece_bytes;
	size_t cap = p->n / piece + 2, k = 0, at = 0;

	p->cut = malloc(cap * sizeof(*p->cut));
	if (!p->cut)
		return -etmkit_err_nomem;
	p->cut[k++] = 0;
	while (k < cap - 1) {
		size_t c;

		if (at + piece >= p->n)
			break;
		c = next_cut(p, at + piece);
		if (c >= p->n)
			break;
		p->cut[k++] = c;
		at = c;
	}
	p->cut[k] = p->n;
	p->ncut = k;
	return 0;
}
