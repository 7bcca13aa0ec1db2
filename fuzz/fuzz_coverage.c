/* libFuzzer target: the coverage counter (coverage.h) on arbitrary
 * element sequences, against a byte-by-byte model.
 * Input: 8-byte records: kind (insn, insn_range, context), address (14
 * bits), length, flags (P0, COND_FAIL, CANCEL, conditional), repeats.
 * The resolver: run-time addresses below 0x3000 are in binary
 * (addr >> 12) & 3 at the same ELF address, extent the 4 KiB page; the
 * rest is in no binary.
 * Invariants: every call returns 0; after coverage_finish(), the count of
 * every byte address, coverage_max(bin, a, a + 1), equals the model's
 * (each range adds its runs to each of its bytes up to the first byte no
 * binary holds; a canceled instruction adds nothing), the largest over
 * a stretch equals the model's largest, and each conditional
 * instruction's passes and fails equal the model's. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/coverage.h"
#include "etmkit/insn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SPACE 0x4000u
#define MAPPED 0x3000u

struct model {
	uint64_t count[SPACE];
	uint64_t pass[SPACE], fail[SPACE];
	uint8_t cond[SPACE];
};

static int resolve(void *ctx, uint8_t id, uint64_t addr,
		   struct profile_where *w)
{
	(void)ctx;
	(void)id;
	if (addr >= MAPPED)
		return -etmkit_err_not_found;
	w->bin = (size_t)((addr >> 12) & 3);
	w->vaddr = addr;
	w->lo = addr & ~0xFFFull;
	w->hi = w->lo + 0x1000;
	return 0;
}

static void model_add(struct model *m, uint64_t a, uint64_t len, uint64_t n)
{
	for (uint64_t k = 0; k < len && a + k < MAPPED; k++)
		m->count[a + k] += n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct model m;
	struct coverage_config cfg;
	struct coverage *c;

	memset(&m, 0, sizeof(m));
	coverage_config_init(&cfg);
	cfg.resolve = resolve;
	if (coverage_alloc(&c, &cfg))
		return 0;
	if (size && (data[0] & 1))
		coverage_conditions_traced(c, 5, 1);
	for (size_t i = 0; i + 8 <= size; i += 8) {
		const uint8_t *r = data + i;
		struct etmkit_elem e;
		uint64_t addr = ((uint64_t)r[1] | (uint64_t)r[2] << 8) & (SPACE - 1);
		uint64_t len = (r[3] & 0x3F) + 1, n = 1, last;
		uint8_t id = r[0] & 0x80 ? 5 : 9;
		int cond;

		memset(&e, 0, sizeof(e));
		e.addr = addr;
		e.flags = (uint8_t)((r[4] & 1 ? ETMKIT_INSN_P0 : 0) |
				    (r[4] & 2 ? ETMKIT_INSN_COND_FAIL :
						ETMKIT_INSN_EXEC) |
				    (r[4] & 4 ? ETMKIT_INSN_CANCEL : 0));
		e.u.insn.class_flags = r[4] & 8 ? INSN_F_COND : 0;
		e.size = (uint8_t)(len < 4 ? len : 4);
		switch (r[0] % 3) {
		case 0:
			e.kind = etmkit_elem_insn;
			len = e.size;
			break;
		case 1:
			e.kind = etmkit_elem_insn_range;
			e.u.range.end = addr + len;
			e.u.range.repeats = r[5];
			e.u.range.count = 1;
			e.flags &= (uint8_t)~ETMKIT_INSN_CANCEL;
			n = (uint64_t)r[5] + 1;
			break;
		default:
			e.kind = etmkit_elem_context;
			break;
		}
		if (coverage_elem(c, id, &e))
			abort();
		if (e.kind == etmkit_elem_context ||
		    (e.flags & ETMKIT_INSN_CANCEL))
			continue;
		model_add(&m, addr, len, n);
		last = addr + len - e.size;
		cond = (e.u.insn.class_flags & INSN_F_COND) &&
		       ((e.flags & ETMKIT_INSN_P0) ||
			(id == 5 && (data[0] & 1)));
		if (cond && last < MAPPED) {
			m.cond[last] = 1;
			if (e.flags & ETMKIT_INSN_COND_FAIL)
				m.fail[last] += n;
			else
				m.pass[last] += n;
		}
	}
	if (coverage_finish(c))
		abort();
	for (uint64_t a = 0; a < MAPPED; a++) {
		size_t bin = (size_t)((a >> 12) & 3);
		uint64_t p, f;
		int rc = coverage_outcomes(c, bin, a, &p, &f);

		if (coverage_max(c, bin, a, a + 1) != m.count[a])
			abort();
		if ((rc == 0) != (m.cond[a] != 0) || p != m.pass[a] ||
		    f != m.fail[a])
			abort();
		if ((a & 0x3F) == 0) {
			uint64_t mx = 0;

			for (uint64_t k = a; k < a + 0x40; k++)
				mx = m.count[k] > mx ? m.count[k] : mx;
			if (coverage_max(c, bin, a, a + 0x40) != mx)
				abort();
		}
	}
	coverage_free(c);
	return 0;
}
