/* insn_vs_capstone, the A64 sweeps: random words, the branch, exception
 * and system group, and the ETMv4/ETE snapshots' A64 memory dumps, each
 * instruction compared by one() (insn_vs_capstone.c, which holds the
 * comparison, its exceptions and main()).
 */
#include <capstone/capstone.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/insn.h"
#include "insn_vs_capstone.h"

void run_a64_random(struct stats *s, csh h, unsigned long n)
{
	uint8_t b[4];

	for (unsigned long i = 0; i < n; i++) {
		uint64_t addr = ((uint64_t)rng() << 32 | rng()) & ~3ull;

		store_le(b, rng(), 4);
		one(s, h, etmkit_isa_a64, b, 4, addr);
	}
}

static void one_a64(struct stats *s, csh h, uint32_t w)
{
	uint8_t b[4];
	uint64_t addr = ((uint64_t)rng() << 32 | rng()) & ~3ull;

	store_le(b, w, 4);
	one(s, h, etmkit_isa_a64, b, 4, addr);
}

/* The "Branches, Exception Generating and System instructions" group
 * (bits [28:26] = 101) is 1/8 of the random words: n/4 more from it, and
 * every value of the fields its decode reads in the classes where
 * capstone's view differs most: "Unconditional branch (register)" (opc,
 * op2, op3 with Rn and op4 in {0, 1, 30, 31}), "Exception generation" (opc,
 * op2, LL) and the op0 00 system space (op1, CRn, CRm, op2, L, Rt in {0,
 * 31}). */
void run_a64_branch_sys(struct stats *s, csh h, unsigned long n)
{
	static const uint32_t regs[] = { 0, 1, 30, 31 };

	for (unsigned long i = 0; i < n / 4; i++)
		one_a64(s, h, (rng() & ~0x1c000000u) | 0x14000000u);
	for (uint32_t f = 0; f < (1u << 15); f++)
		for (unsigned r = 0; r < 16; r++)
			one_a64(s, h, 0xd6000000u | f << 10 |
					      regs[r >> 2] << 5 | regs[r & 3]);
	for (uint32_t f = 0; f < (1u << 8); f++)
		one_a64(s, h, 0xd4000000u | (f >> 5) << 21 | (f & 31) |
				      (rng() & 0xffffu) << 5);
	for (uint32_t f = 0; f < (1u << 15); f++)
		for (unsigned rt = 0; rt < 2; rt++)
			one_a64(s, h, 0xd5000000u | (f >> 14) << 21 |
					      (f & 0x3fff) << 5 | (rt ? 31 : 0));
}

/* Every [dump] of a core whose .ini type is AArch64 ("ARM-AA64" or a
 * Cortex-A53/A57) in the ETMv4 and ETE snapshots, word by word; dumps
 * under bindir_32 (ete_ip's AArch32 code) are skipped, and a dump whose
 * bytes and address were already swept (the same kernel for every core)
 * is swept once. */
#define PATH_LEN 1024

struct dump {
	char file[256];
	uint64_t addr, len, off;
};

static bool a64_core(const char *type)
{
	return !strcmp(type, "ARM-AA64") || !strcmp(type, "Cortex-A53") ||
	       !strcmp(type, "Cortex-A57");
}

/* FNV-1a of the bytes and the address: the dump's identity. */
static uint64_t dump_key(const uint8_t *p, size_t n, uint64_t addr)
{
	uint64_t h = 0xcbf29ce484222325ull ^ addr;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static void run_dump(struct stats *s, csh h, struct a64_images *im,
		     const char *dir, const struct dump *d)
{
	char path[PATH_LEN];
	FILE *f;
	uint8_t *buf;
	size_t n;
	uint64_t key;

	if (strstr(d->file, "bindir_32/") ||
	    snprintf(path, sizeof(path), "%s/%s", dir, d->file) >=
		    (int)sizeof(path))
		return;
	f = fopen(path, "rb");
	if (!f)
		return;
	buf = malloc(d->len);
	n = buf && !fseek(f, (long)d->off, SEEK_SET) ? fread(buf, 1, d->len, f)
						    : 0;
	fclose(f);
	key = dump_key(buf, n, d->addr);
	for (size_t i = 0; i < im->nseen; i++)
		if (im->seen[i] == key)
			n = 0;
	if (n && im->nseen < sizeof(im->seen) / sizeof(im->seen[0]))
		im->seen[im->nseen++] = key;
	if (n) {
		im->dumps++;
		im->bytes += n;
	}
	for (size_t o = 0; o + 4 <= n; o += 4)
		one(s, h, etmkit_isa_a64, buf + o, 4, d->addr + o);
	free(buf);
}

/* One core .ini: [device] type=..., [dump*] file=, address=, length=,
 * offset= (the snapshot format of OpenCSD, docs/snapshot.md). */
static void run_ini(struct stats *s, csh h, struct a64_images *im,
		    const char *dir, const char *ini)
{
	static struct dump dumps[MAX_DUMPS];
	char path[PATH_LEN], line[512], type[64] = "";
	size_t nd = 0;
	bool in_dump = false;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s", dir, ini) >=
	    (int)sizeof(path))
		return;
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');

		line[strcspn(line, "\r\n")] = 0;
		if (line[0] == '[') {
			in_dump = !strncmp(line, "[dump", 5) && nd < MAX_DUMPS;
			if (in_dump)
				memset(&dumps[nd++], 0, sizeof(dumps[0]));
			continue;
		}
		if (!eq)
			continue;
		*eq++ = 0;
		if (!strcmp(line, "type"))
			snprintf(type, sizeof(type), "%s", eq);
		if (!in_dump)
			continue;
		if (!strcmp(line, "file"))
			snprintf(dumps[nd - 1].file, sizeof(dumps[0].file), "%s",
				 eq);
		else if (!strcmp(line, "address"))
			dumps[nd - 1].addr = strtoull(eq, NULL, 0);
		else if (!strcmp(line, "length"))
			dumps[nd - 1].len = strtoull(eq, NULL, 0);
		else if (!strcmp(line, "offset"))
			dumps[nd - 1].off = strtoull(eq, NULL, 0);
	}
	fclose(f);
	if (!a64_core(type))
		return;
	for (size_t i = 0; i < nd; i++)
		if (dumps[i].file[0] && dumps[i].len)
			run_dump(s, h, im, dir, &dumps[i]);
}

void run_a64_images(struct stats *s, csh h, struct a64_images *im)
{
	static const char *const protocols[] = { "etmv4", "ete" };

	for (size_t p = 0; p < 2; p++) {
		char top[PATH_LEN];
		DIR *dt;
		struct dirent *e;

		snprintf(top, sizeof(top), "%s/testdata/%s", ETMKIT_SHARED_DIR,
			 protocols[p]);
		dt = opendir(top);
		while (dt && (e = readdir(dt))) {
			char dir[PATH_LEN];
			DIR *ds;
			struct dirent *f;

			if (e->d_name[0] == '.' ||
			    snprintf(dir, sizeof(dir), "%s/%s", top,
				     e->d_name) >= (int)sizeof(dir))
				continue;
			ds = opendir(dir);
			while (ds && (f = readdir(ds))) {
				size_t l = strlen(f->d_name);

				if (l > 4 && !strcmp(f->d_name + l - 4, ".ini"))
					run_ini(s, h, im, dir, f->d_name);
			}
			if (ds)
				closedir(ds);
		}
		if (dt)
			closedir(dt);
	}
}/* Every A64 instruction that ends an atom's range (insn.h's BRANCH,
 * EXCEPTION, ISB, WFX, TSTART forms): its encoding with the fields that
 * vary (registers, offsets, immediates, the key bit) as a mask, from
 * insn_a64.c's rules (DDI 0487 C4.1 class named per row). Each form is
 * compared wherever capstone decodes it; which forms this capstone knows
 * is printed, so that a newer one's coverage shows. */
struct a64_form {
	const char *name;
	uint32_t base, vary;
};

static const struct a64_form a64_forms[] = {
	/* Unconditional branch (immediate) */
	{ "b", 0x14000000u, 0x03ffffffu },
	{ "bl", 0x94000000u, 0x03ffffffu },
	/* Conditional branch (immediate); FEAT_HBC */
	{ "b.cond", 0x54000000u, 0x00ffffefu },
	{ "bc.cond", 0x54000010u, 0x00ffffefu },
	/* Compare and branch (immediate), Test and branch (immediate) */
	{ "cbz/cbnz", 0x34000000u, 0x81ffffffu },
	{ "tbz/tbnz", 0x36000000u, 0x81ffffffu },
	/* FEAT_CMPBR, cc 000 (GT) */
	{ "cbgt (register)", 0x74000000u, 0x801f3fffu },
	{ "cbbgt", 0x74008000u, 0x001f3fffu },
	{ "cbhgt", 0x7400c000u, 0x001f3fffu },
	{ "cbgt (immediate)", 0x75000000u, 0x801fbfffu },
	/* Unconditional branch (register) */
	{ "br", 0xd61f0000u, 0x000003e0u },
	{ "blr", 0xd63f0000u, 0x000003e0u },
	{ "ret", 0xd65f0000u, 0x000003e0u },
	{ "eret", 0xd69f03e0u, 0 },
	{ "drps", 0xd6bf03e0u, 0 },
	{ "braaz/brabz", 0xd61f081fu, 0x000007e0u },
	{ "blraaz/blrabz", 0xd63f081fu, 0x000007e0u },
	{ "retaa/retab", 0xd65f0bffu, 0x00000400u },
	{ "retaasppcr/retabsppcr", 0xd65f0be0u, 0x0000041fu },
	{ "eretaa/eretab", 0xd69f0bffu, 0x00000400u },
	{ "braa/brab", 0xd71f0800u, 0x000007ffu },
	{ "blraa/blrab", 0xd73f0800u, 0x000007ffu },
	{ "texit", 0xd6ff03e0u, 0x00000400u },
	/* Miscellaneous branch (immediate), FEAT_PAuth_LR */
	{ "retaasppc/retabsppc <label>", 0x5500001fu, 0x003fffe0u },
	/* Exception generation; Reserved (UDF) */
	{ "svc", 0xd4000001u, 0x001fffe0u },
	{ "hvc", 0xd4000002u, 0x001fffe0u },
	{ "smc", 0xd4000003u, 0x001fffe0u },
	{ "brk", 0xd4200000u, 0x001fffe0u },
	{ "hlt", 0xd4400000u, 0x001fffe0u },
	{ "udf", 0x00000000u, 0x0000ffffu },
	/* Barriers, Hints, System instructions with register argument,
	 * System with result */
	{ "isb", 0xd5033fdfu, 0x00000f00u },
	{ "wfe", 0xd503205fu, 0 },
	{ "wfi", 0xd503207fu, 0 },
	{ "wfet/wfit", 0xd5031000u, 0x0000003fu },
	{ "tstart", 0xd5233060u, 0x0000001fu },
};

void run_a64_forms(struct stats *s, csh h)
{
	char known[1024] = "", unknown[1024] = "";

	for (size_t f = 0; f < sizeof(a64_forms) / sizeof(a64_forms[0]); f++) {
		const struct a64_form *a = &a64_forms[f];
		unsigned decoded = 0;

		for (unsigned i = 0; i < 64; i++) {
			uint32_t w = a->base | (i ? rng() & a->vary : 0);
			uint64_t addr = ((uint64_t)rng() << 32 | rng()) & ~3ull;
			uint8_t b[4];
			cs_insn *in;
			size_t n;

			store_le(b, w, 4);
			one(s, h, etmkit_isa_a64, b, 4, addr);
			n = cs_disasm(h, b, 4, addr, 1, &in);
			if (n) {
				decoded++;
				cs_free(in, n);
			}
		}
		strncat(decoded ? known : unknown, " ",
			sizeof(known) - strlen(decoded ? known : unknown) - 1);
		strncat(decoded ? known : unknown, a->name,
			sizeof(known) - strlen(decoded ? known : unknown) - 1);
	}
	printf("A64 atom-ending forms capstone decodes:%s\n", known);
	printf("A64 atom-ending forms capstone rejects:%s\n", unknown);
}
