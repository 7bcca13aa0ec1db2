/* QEMU log reader: translated blocks. The "IN:" listing lines are parsed
 * into a pending listing, bound to a block and classified with
 * insn_decode() at the block's first execution, and the blocks are kept
 * in a hash table keyed by (pc, cs_base, flags), QEMU's own TB key.
 * Shared state: qemu_log_internal.h; formats: docs/qemu-log.md. */
#include "qemu_log_internal.h"

/* ---- Translated blocks -------------------------------------------------- */

static size_t tb_hash(uint64_t pc, uint64_t cs_base, uint32_t flags)
{
	uint64_t h = pc * 0x9e3779b97f4a7c15ull;

	h ^= (cs_base + flags * 0xff51afd7ed558ccdull) * 0xc4ceb9fe1a85ec53ull;
	return (size_t)(h ^ h >> 29);
}

struct ql_tb *ql_tb_find(struct qemu_log_reader *rd, uint64_t pc,
			     uint64_t cs_base, uint32_t flags)
{
	size_t mask = rd->hash_size - 1;
	size_t i = tb_hash(pc, cs_base, flags) & mask;

	for (;; i = (i + 1) & mask) {
		uint32_t t = rd->hash[i];
		struct ql_tb *tb;

		if (!t)
			return NULL;
		tb = &rd->tbs[t - 1];
		if (tb->pc == pc && tb->cs_base == cs_base && tb->flags == flags)
			return tb;
	}
}

static int hash_grow(struct qemu_log_reader *rd)
{
	size_t nsize = rd->hash_size * 2, i;
	uint32_t *h = calloc(nsize, sizeof *h);

	if (!h)
		return -etmkit_err_nomem;
	for (i = 0; i < rd->ntbs; i++) {
		const struct ql_tb *tb = &rd->tbs[i];
		size_t j = tb_hash(tb->pc, tb->cs_base, tb->flags) & (nsize - 1);

		while (h[j])
			j = (j + 1) & (nsize - 1);
		h[j] = (uint32_t)(i + 1);
	}
	free(rd->hash);
	rd->hash = h;
	rd->hash_size = nsize;
	return 0;
}

/* A new block entry for the key (its instructions not yet set). */
int ql_tb_add(struct qemu_log_reader *rd, uint64_t pc, uint64_t cs_base,
		  uint32_t flags, struct ql_tb **out)
{
	struct ql_tb *tb;
	size_t j;
	int err;

	if (rd->ntbs >= UINT32_MAX - 1)
		return -etmkit_err_nomem;
	if ((rd->ntbs + 1) * 2 > rd->hash_size) {
		err = hash_grow(rd);
		if (err)
			return err;
	}
	if (rd->ntbs == rd->cap_tbs) {
		size_t ncap = rd->cap_tbs ? rd->cap_tbs * 2 : 256;
		void *p = realloc(rd->tbs, ncap * sizeof *rd->tbs);

		if (!p)
			return -etmkit_err_nomem;
		rd->tbs = p;
		rd->cap_tbs = ncap;
	}
	tb = &rd->tbs[rd->ntbs];
	memset(tb, 0, sizeof *tb);
	tb->pc = pc;
	tb->cs_base = cs_base;
	tb->flags = flags;
	j = tb_hash(pc, cs_base, flags) & (rd->hash_size - 1);
	while (rd->hash[j])
		j = (j + 1) & (rd->hash_size - 1);
	rd->hash[j] = (uint32_t)(rd->ntbs + 1);
	rd->ntbs++;
	rd->stats.tbs = rd->ntbs;
	*out = tb;
	return 0;
}

static int pool_reserve(struct qemu_log_reader *rd, size_t n)
{
	size_t ncap = rd->cap_pool ? rd->cap_pool : 4096;
	void *p;

	if (rd->npool + n <= rd->cap_pool)
		return 0;
	if (rd->npool + n > UINT32_MAX)
		return -etmkit_err_nomem;
	while (ncap < rd->npool + n)
		ncap *= 2;
	p = realloc(rd->pool, ncap * sizeof *rd->pool);
	if (!p)
		return -etmkit_err_nomem;
	rd->pool = p;
	rd->cap_pool = ncap;
	return 0;
}

/* What the importer needs to know of one instruction, from its class. */
static void classify_kind(struct ql_insn *in, const struct insn_info *info,
			  enum etmkit_isa isa)
{
	uint32_t op = in->opcode;

	in->kind = ql_k_plain;
	in->bcond = QL_NO_COND;
	in->acond = QL_NO_COND;
	if (isa == etmkit_isa_arm && (op >> 28) < 14)
		in->acond = (uint8_t)(op >> 28);
	if (info->flags & INSN_F_UNDEFINED) {
		in->kind = ql_k_undef;
	} else if (info->flags & INSN_F_EXCEPTION) {
		switch (isa) {
		case etmkit_isa_a64:
			/* C6.2 SVC: 11010100 000 imm16 000 01 */
			if ((op & 0xffe0001fu) == 0xd4000001u)
				in->kind = ql_k_svc;
			else if ((op & 0xffe0001fu) == 0xd4200000u)
				in->kind = ql_k_bkpt; /* BRK */
			else if ((op & 0xffff0000u) == 0)
				in->kind = ql_k_undef; /* UDF */
			break;
		case etmkit_isa_arm:
			/* F5.1.242 SVC: cond 1111 imm24 */
			if ((op & 0x0f000000u) == 0x0f000000u)
				in->kind = ql_k_svc;
			else if ((op & 0x0ff000f0u) == 0x01200070u)
				in->kind = ql_k_bkpt;
			else
				in->kind = ql_k_undef;
			break;
		case etmkit_isa_thumb:
			if (in->size == 2 && (op & 0xff00u) == 0xdf00u)
				in->kind = ql_k_svc;
			else if (in->size == 2 && (op & 0xff00u) == 0xbe00u)
				in->kind = ql_k_bkpt;
			else
				in->kind = ql_k_undef;
			break;
		default:
			break;
		}
	}
	if (!(info->flags & INSN_F_BRANCH) || (info->flags & INSN_F_IT))
		return;
	if (isa == etmkit_isa_a64) {
		/* B.cond, BC.cond: 0101010 0 imm19 o0 cond */
		if ((op & 0xff000000u) == 0x54000000u && info->cond < 14)
			in->bcond = info->cond;
	} else if (isa == etmkit_isa_arm) {
		in->bcond = in->acond;
	} else if (info->cond < 14) {
		in->bcond = info->cond; /* T32 B<c> */
	}
}

/* Classify the pending listing in @isa into block @tb's instructions. */
int ql_bind_listing(struct qemu_log_reader *rd, struct ql_tb *tb,
			enum etmkit_isa isa)
{
	size_t i, n = rd->nraw;
	struct ql_insn *dst;
	int err;

	if (n > tb->cap) {
		err = pool_reserve(rd, n);
		if (err)
			return err;
		tb->first = (uint32_t)rd->npool;
		tb->cap = (uint32_t)n;
		rd->npool += n;
	}
	tb->n = (uint32_t)n;
	tb->isa = (uint8_t)isa;
	dst = &rd->pool[tb->first];
	for (i = 0; i < n; i++) {
		const struct ql_raw *raw = &rd->raw[i];
		struct insn_info info;
		uint8_t b[4];
		struct ql_insn *in = &dst[i];

		if (raw->halfwords != (isa == etmkit_isa_thumb))
			return ql_fail(rd, -etmkit_err_format,
				       rd->listing_line + 1 + i,
				       "instruction at 0x%llx is listed as %s"
				       " but the logged state says %s (wrong"
				       " thumb_bit for this QEMU?)",
				       (unsigned long long)raw->addr,
				       raw->halfwords ? "T32 halfwords" :
				       "a word", ql_isa_text(isa));
		/* A64 and A32 instructions are word-aligned, T32 ones
		 * halfword-aligned, and AArch32 addresses 32-bit (DDI 0487
		 * G1.2, E1.2): no trace could show anything else. */
		if ((raw->addr & (isa == etmkit_isa_thumb ? 1u : 3u)) ||
		    (isa != etmkit_isa_a64 && raw->addr > 0xffffffffu))
			return ql_fail(rd, -etmkit_err_format,
				       rd->listing_line + 1 + i,
				       "instruction at 0x%llx: not a valid %s"
				       " address", (unsigned long long)raw->addr,
				       ql_isa_text(isa));
		if (raw->size == 4 && raw->halfwords) {
			b[0] = (uint8_t)(raw->opcode >> 16);
			b[1] = (uint8_t)(raw->opcode >> 24);
			b[2] = (uint8_t)raw->opcode;
			b[3] = (uint8_t)(raw->opcode >> 8);
		} else {
			b[0] = (uint8_t)raw->opcode;
			b[1] = (uint8_t)(raw->opcode >> 8);
			b[2] = (uint8_t)(raw->opcode >> 16);
			b[3] = (uint8_t)(raw->opcode >> 24);
		}
		if (insn_decode(&info, isa, raw->addr, b, raw->size) < 0 ||
		    info.size != raw->size)
			return ql_fail(rd, -etmkit_err_format,
				       rd->listing_line + 1 + i,
				       "%s opcode %x at 0x%llx: insn_decode's"
				       " size differs from the listing's (%u)",
				       ql_isa_text(isa), raw->opcode,
				       (unsigned long long)raw->addr,
				       raw->size);
		in->addr = raw->addr;
		in->opcode = raw->opcode;
		in->size = raw->size;
		in->target = info.target;
		in->flags = 0;
		if (info.flags & INSN_F_BRANCH) {
			in->flags |= EXEC_F_BRANCH;
			if (info.flags & INSN_F_INDIRECT)
				in->flags |= EXEC_F_INDIRECT;
		}
		classify_kind(in, &info, isa);
	}
	rd->listing_ready = 0;
	rd->nraw = 0;
	return 0;
}

/* ---- Listing lines ------------------------------------------------------ */

/* "0x00010340:  f04f 0b00  mov.w    fp, #0" (T32), "0x00010440:  2803 ..."
 * (T16), "0x00400580:  d503201f  nop" (A32, A64). */
int ql_listing_insn(struct qemu_log_reader *rd, const char *s,
			size_t len)
{
	const char *p = s + 2, *end = s + len;
	uint64_t addr, v, v2;
	struct ql_raw raw;
	int n;

	if (rd->listing_bad)
		return 0;
	if (ql_parse_hex(&p, end, &addr) <= 0 || p == end || *p != ':')
		goto bad;
	p++;
	while (p < end && *p == ' ')
		p++;
	n = ql_parse_hex(&p, end, &v);
	memset(&raw, 0, sizeof raw);
	raw.addr = addr;
	raw.opcode = (uint32_t)v;
	if (n == 8) {
		raw.size = 4;
	} else if (n == 4) {
		raw.halfwords = 1;
		raw.size = 2;
		if (end - p >= 6 && p[0] == ' ' && hexval(p[1]) >= 0) {
			const char *q = p + 1;

			if (ql_parse_hex(&q, end, &v2) == 4 &&
			    (q == end || *q == ' ')) {
				raw.size = 4;
				raw.opcode = (uint32_t)(v << 16 | v2);
			}
		}
	} else {
		goto bad;
	}
	if (rd->nraw) {
		const struct ql_raw *prev = &rd->raw[rd->nraw - 1];

		if (prev->addr + prev->size != addr)
			return ql_fail(rd, -etmkit_err_format, rd->lineno,
				       "instruction at 0x%llx does not follow"
				       " the one at 0x%llx",
				       (unsigned long long)addr,
				       (unsigned long long)prev->addr);
	}
	if (rd->nraw == rd->cap_raw) {
		size_t ncap = rd->cap_raw ? rd->cap_raw * 2 : 64;
		void *q = realloc(rd->raw, ncap * sizeof *rd->raw);

		if (!q)
			return -etmkit_err_nomem;
		rd->raw = q;
		rd->cap_raw = ncap;
	}
	rd->raw[rd->nraw++] = raw;
	return 0;
bad:
	return ql_fail(rd, -etmkit_err_format, rd->lineno,
		       "cannot read the address and opcode of this"
		       " instruction listing line");
}
