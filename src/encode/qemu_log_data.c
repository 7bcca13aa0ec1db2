/* QEMU state-mode logs: the data transfers of an A32/T32 load or store,
 * derived from the CPU dumps before and after it (docs/qemu-log.md,
 * "Data transfers"). Pseudocode references are to the ARMv7-A/R ARM
 * (DDI 0406C): A8.6 instruction descriptions, A5.2/A5.3/A6.3 encodings.
 *
 * Registers before the instruction give the addresses and stored values;
 * registers after it give loaded values. Anything not exactly known from
 * them (writeback over a loaded register, VFP/SIMD registers, which are
 * not in the dump) is reported as unknown, never guessed. */
#include "qemu_log_internal.h"

struct ql_dx {
	const uint32_t *b;   /* registers before; b[15] = instruction addr */
	const uint32_t *a;   /* registers after; a[15] = value a load to PC
				loaded (next PC | Thumb bit) */
	uint32_t pcval;      /* PC as an operand: A32 +8, T32 +4 */
	int carry;
	struct ql_xfer *out;
	int n;
};

static uint32_t rd_reg(const struct ql_dx *d, unsigned r)
{
	return r == 15 ? d->pcval : d->b[r];
}

static uint32_t mask(unsigned size)
{
	return size >= 4 ? 0xffffffffu : (1u << (8 * size)) - 1;
}

static void put(struct ql_dx *d, uint32_t addr, unsigned size, int store,
		uint32_t value)
{
	struct ql_xfer *x = &d->out[d->n++];

	x->addr = addr;
	x->size = (uint8_t)size;
	x->store = (uint8_t)store;
	x->value = value & mask(size);
}

/* One register transfer: a load's value is the register after, a store's
 * the register before (A32 STR of PC stores PC+8: A8.6.194). */
static void reg_xfer(struct ql_dx *d, uint32_t addr, unsigned size, int load,
		     unsigned rt)
{
	put(d, addr, size, !load, load ? d->a[rt] : rd_reg(d, rt));
}

/* Single load/store at Rn with @off (already signed by U), indexing P,
 * writeback W. Returns transfers or -1 when unknowable. */
static int single(struct ql_dx *d, unsigned rn, unsigned rt, unsigned size,
		  int load, int p, int w, uint32_t off, int dual,
		  unsigned rt2)
{
	uint32_t base = rd_reg(d, rn);
	uint32_t addr = p ? base + off : base;
	int wback = !p || w;

	/* writeback to a register transferred: a load's value is lost, a
	 * store's is UNPREDICTABLE (A8.6.57, A8.6.194) */
	if (wback && (rt == rn || (dual && rt2 == rn)))
		return -1;
	if (rn == 15 && wback)
		return -1;
	reg_xfer(d, addr, size, load, rt);
	if (dual)
		reg_xfer(d, addr + 4, 4, load, rt2);
	return d->n;
}

/* LDM/STM of @list from @start upwards (A8.6.53, A8.6.189); @wback:
 * Rn is written back. */
static int multiple(struct ql_dx *d, unsigned rn, uint32_t list, int load,
		    int wback, uint32_t start)
{
	unsigned r;

	list &= 0xffff;
	if (!list)
		return -1;
	if (wback && (list >> rn & 1)) {
		/* the loaded base is overwritten; a stored base is the
		 * original only when it is the lowest register (A8.6.189) */
		if (load || (list & ((1u << rn) - 1)))
			return -1;
	}
	for (r = 0; r < 16; r++)
		if (list >> r & 1) {
			reg_xfer(d, start, 4, load, r);
			start += 4;
		}
	return d->n;
}

static unsigned popcount16(uint32_t v)
{
	unsigned n = 0;

	for (v &= 0xffff; v; v &= v - 1)
		n++;
	return n;
}

/* A32 immediate shift of a register (A8.4.3 DecodeImmShift, Shift_C). */
static uint32_t shift_imm(const struct ql_dx *d, uint32_t v, unsigned type,
			  unsigned imm5)
{
	switch (type) {
	case 0:
		return v << imm5;
	case 1:
		return imm5 ? v >> imm5 : 0;
	case 2:
		return imm5 ? (uint32_t)((int32_t)v >> imm5) :
			      (uint32_t)((int32_t)v >> 31);
	default:
		if (!imm5) /* RRX */
			return (uint32_t)d->carry << 31 | v >> 1;
		return v >> imm5 | v << (32 - imm5);
	}
}

/* Exclusive stores: the transfer happened only when the status register
 * after is 0 (A8.6.202). */
static int strex(struct ql_dx *d, unsigned rs, unsigned rn, unsigned rt,
		 unsigned size, int dual, uint32_t off)
{
	uint32_t addr = rd_reg(d, rn) + off;

	if (d->a[rs] != 0)
		return 0;
	reg_xfer(d, addr, size, 0, rt);
	if (dual)
		reg_xfer(d, addr + 4, 4, 0, rt + 1);
	return d->n;
}

static int a32(struct ql_dx *d, uint32_t op)
{
	unsigned cond = op >> 28, rn = op >> 16 & 15, rt = op >> 12 & 15;
	int p = op >> 24 & 1, u = op >> 23 & 1, w = op >> 21 & 1;
	int l = op >> 20 & 1;

	if (cond == 15) {
		/* PLD/PLI hints make no transfer; SIMD element and
		 * structure loads/stores (A5.7.4) move SIMD registers */
		if ((op & 0x0f100000u) == 0x04000000u)
			return -1;
		return 0;
	}
	if ((op & 0x0c000000u) == 0x04000000u) {
		/* LDR/STR/LDRB/STRB (A5.3); I=1 with bit 4 set is media */
		uint32_t off;

		if ((op >> 25 & 1) && (op >> 4 & 1))
			return 0;
		if (op >> 25 & 1)
			off = shift_imm(d, rd_reg(d, op & 15), op >> 5 & 3,
					op >> 7 & 31);
		else
			off = op & 0xfff;
		if (!u)
			off = 0u - off;
		return single(d, rn, rt, op >> 22 & 1 ? 1 : 4, l, p, w, off,
			      0, 0);
	}
	if ((op & 0x0fb00ff0u) == 0x01000090u) {
		/* SWP/SWPB (A8.6.212): load Rt, then store Rt2 */
		unsigned size = op >> 22 & 1 ? 1 : 4;

		put(d, d->b[rn], size, 0, d->a[rt]);
		put(d, d->b[rn], size, 1, d->b[op & 15]);
		return d->n;
	}
	if ((op & 0x0f8000f0u) == 0x01800090u) {
		/* LDREX/STREX family (A5.2.12): op = bits 22:21 */
		static const uint8_t sz[4] = { 4, 8, 1, 2 };
		unsigned size = sz[op >> 21 & 3];

		if (!l)
			return strex(d, rt, rn, op & 15, size == 8 ? 4 : size,
				     size == 8, 0);
		reg_xfer(d, d->b[rn], size == 8 ? 4 : size, 1, rt);
		if (size == 8)
			reg_xfer(d, d->b[rn] + 4, 4, 1, rt + 1);
		return d->n;
	}
	if ((op & 0x0e000090u) == 0x00000090u && (op & 0x60)) {
		/* extra loads/stores (A5.2.8): op2 = bits 6:5 */
		unsigned op2 = op >> 5 & 3;
		uint32_t off = op >> 22 & 1 ? (op >> 4 & 0xf0) | (op & 15) :
					       rd_reg(d, op & 15);

		if (!u)
			off = 0u - off;
		if (op2 == 1)
			return single(d, rn, rt, 2, l, p, w, off, 0, 0);
		if (l)
			return single(d, rn, rt, op2 == 2 ? 1 : 2, 1, p, w,
				      off, 0, 0);
		/* LDRD (op2 2) / STRD (op2 3): Rt even, Rt2 = Rt + 1 */
		if (rt & 1)
			return -1;
		return single(d, rn, rt, 4, op2 == 2, p, w, off, 1, rt + 1);
	}
	if ((op & 0x0e000000u) == 0x08000000u) {
		/* LDM/STM (A5.5); S=1 (user registers, exception return)
		 * is not user-mode code */
		uint32_t list = op & 0xffff, n = popcount16(list);
		uint32_t base = d->b[rn], start;

		if (op >> 22 & 1)
			return -1;
		if (u)
			start = p ? base + 4 : base;
		else
			start = p ? base - 4 * n : base - 4 * n + 4;
		return multiple(d, rn, list, l, w, start);
	}
	if ((op & 0x0e000000u) == 0x0c000000u &&
	    (op & 0x03a00000u) != 0) /* LDC/STC, VLDR/VSTR/VLDM/VSTM */
		return -1;
	return 0;
}

/* T32 16-bit (A6.2). */
static int t16(struct ql_dx *d, uint32_t hw)
{
	unsigned rt = hw & 7, rn = hw >> 3 & 7;

	if ((hw & 0xf000) == 0x5000) {
		/* register offset (A6.2.4): opB = bits 11:9 */
		static const uint8_t sz[8] = { 4, 2, 1, 1, 4, 2, 1, 2 };
		unsigned opb = hw >> 9 & 7;

		return single(d, rn, rt, sz[opb], opb >= 3, 1, 0,
			      d->b[hw >> 6 & 7], 0, 0);
	}
	if ((hw & 0xe000) == 0x6000) { /* STR/LDR(B) imm5 */
		unsigned size = hw >> 12 & 1 ? 1 : 4;

		return single(d, rn, rt, size, hw >> 11 & 1, 1, 0,
			      (hw >> 6 & 31) * size, 0, 0);
	}
	if ((hw & 0xf000) == 0x8000) /* STRH/LDRH imm5 */
		return single(d, rn, rt, 2, hw >> 11 & 1, 1, 0,
			      (hw >> 6 & 31) * 2, 0, 0);
	if ((hw & 0xf000) == 0x9000) /* STR/LDR SP, imm8 */
		return single(d, 13, hw >> 8 & 7, 4, hw >> 11 & 1, 1, 0,
			      (hw & 0xff) * 4, 0, 0);
	if ((hw & 0xf800) == 0x4800) { /* LDR literal: Align(PC, 4) */
		put(d, (d->pcval & ~3u) + (hw & 0xff) * 4, 4, 0,
		    d->a[hw >> 8 & 7]);
		return d->n;
	}
	if ((hw & 0xfe00) == 0xb400) { /* PUSH {list, LR} */
		uint32_t list = (hw & 0xff) | (hw >> 8 & 1) << 14;

		return multiple(d, 13, list, 0, 1,
				d->b[13] - 4 * popcount16(list));
	}
	if ((hw & 0xfe00) == 0xbc00) { /* POP {list, PC} */
		uint32_t list = (hw & 0xff) | (hw >> 8 & 1) << 15;

		return multiple(d, 13, list, 1, 1, d->b[13]);
	}
	if ((hw & 0xf000) == 0xc000) { /* STM/LDM Rn!: no writeback when
					  LDM loads Rn (A8.6.53) */
		unsigned n = hw >> 8 & 7;
		int load = hw >> 11 & 1;
		uint32_t list = hw & 0xff;

		return multiple(d, n, list, load, !(load && (list >> n & 1)),
				d->b[n]);
	}
	return 0;
}

/* T32 32-bit (A6.3): @op = hw1 << 16 | hw2. */
static int t32(struct ql_dx *d, uint32_t op)
{
	uint32_t hw1 = op >> 16, hw2 = op & 0xffff;
	unsigned rn = hw1 & 15, rt = hw2 >> 12;

	if ((hw1 & 0xfe40) == 0xe800) {
		/* LDM/STM (A6.3.5): op = hw1 bits 8:7, 01 IA, 10 DB */
		unsigned opc = hw1 >> 7 & 3, n = popcount16(hw2);
		int load = hw1 >> 4 & 1, w = hw1 >> 5 & 1;

		if (opc == 1)
			return multiple(d, rn, hw2, load, w, d->b[rn]);
		if (opc == 2)
			return multiple(d, rn, hw2, load, w,
					d->b[rn] - 4 * n);
		return -1; /* SRS, RFE */
	}
	if ((hw1 & 0xfe40) == 0xe840) {
		/* dual, exclusive, table branch (A6.3.6) */
		unsigned op1 = hw1 >> 7 & 3, op2 = hw1 >> 4 & 3;
		unsigned op3 = hw2 >> 4 & 15;
		uint32_t imm8 = hw2 & 0xff;

		if (op1 == 0 && op2 == 0)
			return strex(d, hw2 >> 8 & 15, rn, rt, 4, 0, imm8 * 4);
		if (op1 == 0 && op2 == 1) {
			reg_xfer(d, d->b[rn] + imm8 * 4, 4, 1, rt);
			return d->n;
		}
		if ((op1 & 2) || (op2 & 2)) { /* LDRD/STRD imm */
			uint32_t off = imm8 * 4;
			unsigned p = hw1 >> 8 & 1, w = hw1 >> 5 & 1;

			if (!(hw1 >> 7 & 1))
				off = 0u - off;
			if (rn == 15) { /* literal: Align(PC, 4) */
				if (w || !(hw1 >> 4 & 1))
					return -1;
				put(d, (d->pcval & ~3u) + off, 4, 0, d->a[rt]);
				put(d, (d->pcval & ~3u) + off + 4, 4, 0,
				    d->a[hw2 >> 8 & 15]);
				return d->n;
			}
			return single(d, rn, rt, 4, hw1 >> 4 & 1, (int)p,
				      (int)w, off, 1, hw2 >> 8 & 15);
		}
		if (op1 == 1 && op2 == 0) { /* STREXB/H/D */
			if (op3 == 4 || op3 == 5)
				return strex(d, hw2 & 15, rn, rt,
					     op3 == 4 ? 1 : 2, 0, 0);
			if (op3 == 7)
				return strex(d, hw2 & 15, rn, rt, 4, 1, 0);
			return -1;
		}
		if (op1 == 1 && op2 == 1) {
			uint32_t base = rd_reg(d, rn);

			if (op3 <= 1) {
				/* TBB/TBH (A8.6.226): the entry loaded is
				 * half the branch offset from PC */
				uint32_t v = (d->a[15] - d->pcval) >> 1;
				unsigned size = op3 ? 2 : 1;
				uint32_t idx = d->b[hw2 & 15];

				put(d, base + (op3 ? idx << 1 : idx), size, 0,
				    v);
				return d->n;
			}
			if (op3 == 4 || op3 == 5) {
				reg_xfer(d, base, op3 == 4 ? 1 : 2, 1, rt);
				return d->n;
			}
			if (op3 == 7) {
				reg_xfer(d, base, 4, 1, rt);
				reg_xfer(d, base + 4, 4, 1, hw2 >> 8 & 15);
				return d->n;
			}
		}
		return -1;
	}
	if ((hw1 & 0xff10) == 0xf900) /* SIMD element/structure (A7.7) */
		return -1;
	if ((hw1 & 0xfe00) == 0xf800) {
		/* load/store single (A6.3.7-A6.3.10): size = hw1 bits 6:5,
		 * S (sign) = bit 8, L = bit 4 */
		unsigned size = 1u << (hw1 >> 5 & 3);
		int load = hw1 >> 4 & 1;
		uint32_t off;

		if ((hw1 >> 5 & 3) == 3 || (!load && (hw1 >> 8 & 1)))
			return 0; /* undefined, SIMD element: below */
		if (load && rt == 15 && size < 4)
			return 0; /* PLD, PLI */
		if (rn == 15) {
			if (!load)
				return -1;
			off = hw2 & 0xfff;
			if (!(hw1 >> 7 & 1))
				off = 0u - off;
			put(d, (d->pcval & ~3u) + off, size, 0, d->a[rt]);
			return d->n;
		}
		if (hw1 >> 7 & 1)
			return single(d, rn, rt, size, load, 1, 0, hw2 & 0xfff,
				      0, 0);
		if (hw2 >> 11 & 1) { /* imm8: P = bit 10, U = 9, W = 8 */
			off = hw2 & 0xff;
			if (!(hw2 >> 9 & 1))
				off = 0u - off;
			return single(d, rn, rt, size, load, hw2 >> 10 & 1,
				      hw2 >> 8 & 1, off, 0, 0);
		}
		if ((hw2 & 0x0fc0) == 0) /* Rm, LSL #imm2 */
			return single(d, rn, rt, size, load, 1, 0,
				      d->b[hw2 & 15] << (hw2 >> 4 & 3), 0, 0);
		return -1;
	}
	if ((hw1 & 0xee00) == 0xec00 && (hw1 & 0x03a0) != 0)
		return -1; /* LDC/STC, VLDR/VSTR/VLDM/VSTM, VPUSH/VPOP */
	return 0;
}

int ql_data_transfers(uint8_t isa, uint32_t opcode, uint8_t size,
		      const uint32_t before[16], uint32_t psr,
		      const uint32_t after[16], struct ql_xfer out[QL_XFER_MAX])
{
	struct ql_dx d;

	d.b = before;
	d.a = after;
	d.carry = psr >> 29 & 1;
	d.out = out;
	d.n = 0;
	if (isa == etmkit_isa_arm) {
		d.pcval = before[15] + 8;
		return a32(&d, opcode);
	}
	if (isa != etmkit_isa_thumb)
		return 0;
	d.pcval = before[15] + 4;
	return size == 2 ? t16(&d, opcode) : t32(&d, opcode);
}
