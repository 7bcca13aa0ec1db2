/* etmkit: address -> binary, ELF virtual address, function (locate.h).
 *
 * The locator keeps one entry per distinct file behind the regions it was
 * shown, each with its ELF file opened once (NULL for a raw dump), and a
 * table from region (the stable pointer image_region_at() returns) to
 * file, sorted by pointer: a lookup is image_region_find(), a binary
 * search in that table, the file's segments, and its symbol search.
 */
#define _POSIX_C_SOURCE 200809L

#include "etmkit/locate.h"
#include "image/image_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct loc_bin {
	struct locate_binary pub;
	char *file;
	char *name;              /* NULL: pub.name is file */
	struct elf_file *elf;
};

struct loc_reg {
	uintptr_t path;          /* an image's copy of the path */
	size_t bin;
};

struct locate {
	struct loc_bin **bins;
	size_t nbins, capbins;
	struct loc_reg *regs;
	size_t nregs, capregs;
};

int locate_alloc(struct locate **l)
{
	if (!l)
		return -etmkit_err_invalid;
	*l = calloc(1, sizeof(**l));
	return *l ? 0 : -etmkit_err_nomem;
}

void locate_free(struct locate *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nbins; i++) {
		elf_file_free(l->bins[i]->elf);
		free(l->bins[i]->file);
		free(l->bins[i]->name);
		free(l->bins[i]);
	}
	free(l->bins);
	free(l->regs);
	free(l);
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 8;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return -etmkit_err_nomem;
	*p = q;
	*cap = n;
	return 0;
}

static int find_bin(const struct locate *l, const char *file, size_t *idx)
{
	for (size_t i = 0; i < l->nbins; i++)
		if (strcmp(l->bins[i]->file, file) == 0) {
			*idx = i;
			return 0;
		}
	return -etmkit_err_not_found;
}

/* Whether @path starts with the ELF magic (a short or unreadable file is
 * not ELF here; opening it as ELF would say why it cannot be read). */
static int looks_elf(const char *path)
{
	unsigned char m[4];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return 0;
	n = fread(m, 1, sizeof(m), f);
	fclose(f);
	return n == sizeof(m) && m[0] == 0x7f && m[1] == 'E' && m[2] == 'L' &&
	       m[3] == 'F';
}

/* The entry for @file, added (its ELF file opened) when new. */
static int add_bin(struct locate *l, const char *file, size_t *idx,
		   struct image_diag *diag)
{
	struct loc_bin *b;
	int rc;

	if (find_bin(l, file, idx) == 0)
		return 0;
	if (grow((void **)&l->bins, &l->capbins, l->nbins + 1,
		 sizeof(*l->bins)))
		return img_fail(diag, -etmkit_err_nomem, file, "out of memory");
	b = calloc(1, sizeof(*b));
	if (!b || !(b->file = strdup(file))) {
		free(b);
		return img_fail(diag, -etmkit_err_nomem, file, "out of memory");
	}
	if (looks_elf(file)) {
		rc = elf_file_open(&b->elf, file, diag);
		if (rc) {
			free(b->file);
			free(b);
			return rc;
		}
		b->pub.build_id_size = elf_file_build_id(b->elf,
							 b->pub.build_id);
		if (b->pub.build_id_size > sizeof(b->pub.build_id))
			b->pub.build_id_size = sizeof(b->pub.build_id);
	}
	b->pub.file = b->file;
	b->pub.name = b->file;
	b->pub.elf = b->elf;
	*idx = l->nbins;
	l->bins[l->nbins++] = b;
	return 0;
}

static int reg_cmp(const void *a, const void *b)
{
	const struct loc_reg *x = a, *y = b;

	return x->path < y->path ? -1 : x->path > y->path;
}

/* Insert @path -> @bin, keeping the table sorted (room is made). */
static void insert_reg(struct locate *l, const char *path, size_t bin)
{
	struct loc_reg e = { (uintptr_t)path, bin };
	size_t at = l->nregs;

	while (at > 0 && reg_cmp(&l->regs[at - 1], &e) > 0)
		at--;
	memmove(&l->regs[at + 1], &l->regs[at],
		(l->nregs - at) * sizeof(*l->regs));
	l->regs[at] = e;
	l->nregs++;
}

static const struct loc_reg *find_reg(const struct locate *l,
				      const char *path)
{
	uintptr_t key = (uintptr_t)path;
	size_t lo = 0, hi = l->nregs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->regs[mid].path < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->nregs && l->regs[lo].path == key ? &l->regs[lo] : NULL;
}

int locate_add_image(struct locate *l, const struct image *img,
		     struct image_diag *diag)
{
	size_t n = image_region_count(img), i;
	int rc;

	img_diag_clear(diag);
	if (!l || !img)
		return img_fail(diag, -etmkit_err_invalid, NULL,
				"NULL argument");
	for (i = 0; i < n; i++) {
		const struct image_region *reg = image_region_at(img, i);
		size_t bin = 0;

		if (!reg || !reg->path || find_reg(l, reg->path))
			continue;
		rc = add_bin(l, reg->path, &bin, diag);
		if (rc)
			return rc;
		if (grow((void **)&l->regs, &l->capregs, l->nregs + 1,
			 sizeof(*l->regs)))
			return img_fail(diag, -etmkit_err_nomem, reg->path,
					"out of memory");
		insert_reg(l, reg->path, bin);
	}
	return 0;
}

int locate_set_name(struct locate *l, const char *file, const char *name,
		    const uint8_t *id, size_t n)
{
	struct loc_bin *b;
	size_t idx;
	char *copy;

	if (!l || !file || !name || n > sizeof(b->pub.build_id))
		return -etmkit_err_invalid;
	if (find_bin(l, file, &idx))
		return -etmkit_err_not_found;
	b = l->bins[idx];
	copy = strdup(name);
	if (!copy)
		return -etmkit_err_nomem;
	free(b->name);
	b->name = copy;
	b->pub.name = copy;
	if (id && n) {
		memset(b->pub.build_id, 0, sizeof(b->pub.build_id));
		memcpy(b->pub.build_id, id, n);
		b->pub.build_id_size = n;
	}
	return 0;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* locate_find(), with the symbol and its span when @want_sym. */
static int find(const struct locate *l, const struct image *img,
		uint8_t space, uint64_t addr, int want_sym,
		struct locate_result *r)
{
	const struct image_region *reg;
	const struct loc_reg *lr;
	const struct loc_bin *b;
	uint64_t rf, rl, f, la, below, above;

	if (!l || !img || !r)
		return -etmkit_err_invalid;
	memset(r, 0, sizeof(*r));
	reg = img_region_span(img, space, addr, &rf, &rl);
	lr = reg && reg->path ? find_reg(l, reg->path) : NULL;
	if (!lr)
		return -etmkit_err_not_found;
	b = l->bins[lr->bin];
	r->bin = &b->pub;
	r->bin_index = lr->bin;
	r->file_offset = addr - reg->addr + reg->offset;
	/* How far the same answer holds around @addr: the region's span,
	 * cut by the segment's and (@want_sym) the symbol's. */
	below = addr - rf;
	above = rl - addr;
	if (!b->elf) {
		r->vaddr = addr;
		r->vaddr_known = 1;
	} else {
		int rc = elf_file_offset_span(b->elf, r->file_offset,
					      &r->vaddr, &f, &la);

		below = min64(below, r->file_offset - f);
		above = min64(above, la - r->file_offset);
		if (rc == 0)
			r->vaddr_known = 1;
		if (rc == 0 && want_sym) {
			r->sym = elf_file_symbol_span(b->elf, r->vaddr, &f,
						      &la);
			below = min64(below, r->vaddr - f);
			above = min64(above, la - r->vaddr);
		}
	}
	r->first = addr - below;
	r->last = addr + above;
	return 0;
}

int locate_find(const struct locate *l, const struct image *img,
		uint8_t space, uint64_t addr, struct locate_result *r)
{
	return find(l, img, space, addr, 1, r);
}

int locate_find_binary(const struct locate *l, const struct image *img,
		       uint8_t space, uint64_t addr,
		       struct locate_result *r)
{
	return find(l, img, space, addr, 0, r);
}

size_t locate_binary_count(const struct locate *l)
{
	return l ? l->nbins : 0;
}

const struct locate_binary *locate_binary_at(const struct locate *l,
					     size_t i)
{
	return l && i < l->nbins ? &l->bins[i]->pub : NULL;
}
