/* etmkit encode: the program image an execution record implies.
 *
 * Every instruction of a record carries its bytes. They are kept in 4 KiB
 * pages, found by a hash on the page address (and the last page used,
 * since code runs in sequence), so memory grows with the code executed,
 * not with the length of the run. At the end the pages are written as
 * memory dumps: one file per run of adjacent pages, bytes never executed
 * left zero.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "code_map.h"

#define PAGE_BITS 12
#define PAGE_SIZE (1u << PAGE_BITS)

struct code_page {
	uint64_t base;
	uint8_t known[PAGE_SIZE / 8];  /* bit per byte: given by the record */
	uint8_t bytes[PAGE_SIZE];
};

struct code_map {
	struct code_page **slot;  /* open addressing, NULL = empty */
	size_t nslots, npages;
	struct code_page *last;
};

struct code_map *code_map_alloc(void)
{
	struct code_map *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->nslots = 256;
	m->slot = calloc(m->nslots, sizeof(*m->slot));
	if (!m->slot) {
		free(m);
		return NULL;
	}
	return m;
}

void code_map_free(struct code_map *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nslots; i++)
		free(m->slot[i]);
	free(m->slot);
	free(m);
}

static size_t slot_of(const struct code_map *m, uint64_t base)
{
	uint64_t h = (base >> PAGE_BITS) * 0x9E3779B97F4A7C15ull;

	return (size_t)(h >> 32) & (m->nslots - 1);
}

static int grow(struct code_map *m)
{
	size_t n = m->nslots * 2;
	struct code_page **old = m->slot;
	size_t oldn = m->nslots;

	m->slot = calloc(n, sizeof(*m->slot));
	if (!m->slot) {
		m->slot = old;
		return -1;
	}
	m->nslots = n;
	for (size_t i = 0; i < oldn; i++) {
		size_t k;
		if (!old[i])
			continue;
		for (k = slot_of(m, old[i]->base); m->slot[k];
		     k = (k + 1) & (n - 1))
			;
		m->slot[k] = old[i];
	}
	free(old);
	return 0;
}

static struct code_page *page_for(struct code_map *m, uint64_t base)
{
	size_t k;

	if (m->last && m->last->base == base)
		return m->last;
	for (k = slot_of(m, base); m->slot[k]; k = (k + 1) & (m->nslots - 1))
		if (m->slot[k]->base == base)
			return m->last = m->slot[k];
	if (2 * (m->npages + 1) > m->nslots) {
		if (grow(m))
			return NULL;
		for (k = slot_of(m, base); m->slot[k];
		     k = (k + 1) & (m->nslots - 1))
			;
	}
	m->slot[k] = calloc(1, sizeof(struct code_page));
	if (!m->slot[k])
		return NULL;
	m->slot[k]->base = base;
	m->npages++;
	return m->last = m->slot[k];
}

int code_map_add(struct code_map *m, uint64_t addr, const uint8_t *b,
		 size_t n, uint64_t *conflict)
{
	struct code_page *p = NULL;

	for (size_t i = 0; i < n; i++) {
		uint64_t a = addr + i;
		unsigned off = (unsigned)(a & (PAGE_SIZE - 1));
		uint8_t bit = (uint8_t)(1u << (off & 7));

		if (!p || off == 0)
			p = page_for(m, a & ~(uint64_t)(PAGE_SIZE - 1));
		if (!p)
			return -1;
		if (p->known[off >> 3] & bit) {
			if (p->bytes[off] != b[i]) {
				*conflict = a;
				return 1;
			}
			continue;
		}
		p->known[off >> 3] |= bit;
		p->bytes[off] = b[i];
	}
	return 0;
}

size_t code_map_bytes(const struct code_map *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nslots; i++) {
		if (!m->slot[i])
			continue;
		for (unsigned k = 0; k < PAGE_SIZE / 8; k++)
			n += (size_t)__builtin_popcount(m->slot[i]->known[k]);
	}
	return n;
}

static int by_base(const void *a, const void *b)
{
	const struct code_page *x = *(struct code_page *const *)a;
	const struct code_page *y = *(struct code_page *const *)b;

	return x->base < y->base ? -1 : x->base > y->base;
}

int code_map_write(const struct code_map *m, const char *dir,
		   const char *subdir, FILE *ini, char *err, size_t errcap)
{
	struct code_page **pages = malloc((m->npages + 1) * sizeof(*pages));
	size_t np = 0, ndump = 0;
	int ret = 0;

	if (!pages) {
		snprintf(err, errcap, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < m->nslots; i++)
		if (m->slot[i])
			pages[np++] = m->slot[i];
	qsort(pages, np, sizeof(*pages), by_base);
	for (size_t i = 0; i < np && !ret;) {
		size_t j = i + 1;
		char rel[256], path[1280];
		FILE *f;

		while (j < np && pages[j]->base == pages[j - 1]->base + PAGE_SIZE)
			j++;
		snprintf(rel, sizeof(rel), "%s/mem_%" PRIx64 ".bin", subdir,
			 pages[i]->base);
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
		f = fopen(path, "wb");
		if (!f) {
			snprintf(err, errcap, "%s: %s", path, cli_strerror(errno));
			ret = -1;
			break;
		}
		for (size_t k = i; k < j; k++)
			if (fwrite(pages[k]->bytes, PAGE_SIZE, 1, f) != 1)
				ret = -1;
		if (fclose(f) || ret) {
			snprintf(err, errcap, "%s: write failed", path);
			ret = -1;
			break;
		}
		fprintf(ini, "\n[dump%zu]\nfile=%s\naddress=0x%" PRIx64
			"\nlength=0x%zx\n", ++ndump, rel, pages[i]->base,
			(j - i) * (size_t)PAGE_SIZE);
		i = j;
	}
	free(pages);
	return ret;
}
