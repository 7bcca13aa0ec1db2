/* etmkit CLI: frame names for call stacks (cli/stack_names.h). Names are
 * interned (a hash table from text to key); each trace ID keeps the last
 * few answers with the run-time span they hold for (locate_result.first
 * to last), so a call into a function seen before costs no search. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/common.h"
#include "stack_names.h"

#define NAME_SPANS 8

struct name_span {
	const struct image *img;    /* NULL: empty */
	uint8_t space;
	uint64_t first, last;
	uint64_t key;
};

struct stack_names {
	const struct locate *loc;
	char **names;               /* by key */
	size_t n, cap;
	uint32_t *hash;             /* key + 1, 0: free */
	size_t caphash;
	struct name_span spans[128][NAME_SPANS];
	uint8_t next[128];
};

struct stack_names *stack_names_alloc(const struct locate *loc)
{
	struct stack_names *sn = calloc(1, sizeof(*sn));

	if (!sn)
		return NULL;
	sn->loc = loc;
	sn->caphash = 256;
	sn->hash = calloc(sn->caphash, sizeof(*sn->hash));
	if (!sn->hash) {
		free(sn);
		return NULL;
	}
	return sn;
}

void stack_names_free(struct stack_names *sn)
{
	if (!sn)
		return;
	for (size_t i = 0; i < sn->n; i++)
		free(sn->names[i]);
	free(sn->names);
	free(sn->hash);
	free(sn);
}

static size_t text_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;   /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h;
}

static int grow(struct stack_names *sn)
{
	size_t cap = sn->caphash * 2;
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -etmkit_err_nomem;
	for (size_t i = 0; i < sn->n; i++) {
		size_t k = text_hash(sn->names[i]) & (cap - 1);

		while (h[k])
			k = (k + 1) & (cap - 1);
		h[k] = (uint32_t)i + 1;
	}
	free(sn->hash);
	sn->hash = h;
	sn->caphash = cap;
	return 0;
}

/* The key of name @s (';' already replaced). */
static int intern(struct stack_names *sn, const char *s, uint64_t *key)
{
	size_t k;

	if ((sn->n + 1) * 2 > sn->caphash && grow(sn) < 0)
		return -etmkit_err_nomem;
	for (k = text_hash(s) & (sn->caphash - 1); sn->hash[k];
	     k = (k + 1) & (sn->caphash - 1))
		if (!strcmp(sn->names[sn->hash[k] - 1], s)) {
			*key = sn->hash[k] - 1;
			return 0;
		}
	if (sn->n == sn->cap) {
		size_t cap = sn->cap ? sn->cap * 2 : 64;
		char **nn = realloc(sn->names, cap * sizeof(*nn));

		if (!nn)
			return -etmkit_err_nomem;
		sn->names = nn;
		sn->cap = cap;
	}
	if (!(sn->names[sn->n] = strdup(s)))
		return -etmkit_err_nomem;
	sn->hash[k] = (uint32_t)sn->n + 1;
	*key = sn->n++;
	return 0;
}

static const char *last_component(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* The name of @addr into @buf (@n bytes), and the span it holds for. */
static void name_of(const struct stack_names *sn, const struct image *img,
		    uint8_t space, uint64_t addr, char *buf, size_t n,
		    uint64_t *first, uint64_t *last)
{
	struct locate_result r;

	*first = *last = addr;
	if (!img || locate_find(sn->loc, img, space, addr, &r) < 0) {
		snprintf(buf, n, "0x%" PRIx64, addr);
		return;
	}
	if (r.sym) {
		snprintf(buf, n, "%s", r.sym->name);
		*first = r.first;
		*last = r.last;
	} else if (r.vaddr_known) {
		snprintf(buf, n, "%s+0x%" PRIx64, last_component(r.bin->name),
			 r.vaddr);
	} else {
		snprintf(buf, n, "%s+0x%" PRIx64 "(offset)",
			 last_component(r.bin->name), r.file_offset);
	}
	for (char *c = buf; *c; c++)
		if (*c == ';' || *c == '\n' || *c == '\r')
			*c = '_';
}

int stack_names_key(struct stack_names *sn, uint8_t id,
		    const struct image *img, uint8_t space, uint64_t addr,
		    uint64_t *key)
{
	struct name_span *set = sn->spans[id & 0x7f], *s;
	char buf[512];
	uint64_t first, last;
	int err;

	for (int i = 0; i < NAME_SPANS; i++)
		if (set[i].img == img && img && set[i].space == space &&
		    set[i].first <= addr && addr <= set[i].last) {
			*key = set[i].key;
			return 0;
		}
	name_of(sn, img, space, addr, buf, sizeof(buf), &first, &last);
	err = intern(sn, buf, key);
	if (err < 0 || !img)
		return err;
	s = &set[sn->next[id & 0x7f]];
	sn->next[id & 0x7f] = (uint8_t)((sn->next[id & 0x7f] + 1) % NAME_SPANS);
	s->img = img;
	s->space = space;
	s->first = first;
	s->last = last;
	s->key = *key;
	return 0;
}

const char *stack_names_name(const struct stack_names *sn, uint64_t key)
{
	return key < sn->n ? sn->names[key] : NULL;
}
