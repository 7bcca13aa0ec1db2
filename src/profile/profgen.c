/* llvm-profgen's unsymbolized profile (--skip-symbolization output,
 * --unsymbolized-profile input; digest perf-data.md 4d). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"

static void section(FILE *f, const struct profile_line *l, size_t n,
		    const char *sep)
{
	fprintf(f, "%zu\n", n);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%" PRIx64 "%s%" PRIx64 ":%" PRIu64 "\n", l[i].from,
			sep, l[i].to, l[i].count);
}

/* ---- The context-sensitive form (cfg.contexts) --------------------------- */

struct cs_line {
	const char *ctx;           /* the context's text */
	uint64_t from, to, count;
};

static int cmp_cs(const void *a, const void *b)
{
	const struct cs_line *x = a, *y = b;
	int c = strcmp(x->ctx, y->ctx);

	if (c)
		return c;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return 0;
}

/* The text of every context node for binary @bin (digest 4d): its
 * parent's, " @ ", "0x" and the call site less @base; empty from a call
 * site that is not in @bin (or below @base) on. One block: *@buf. */
static char **context_texts(const struct profile *p, size_t bin,
			    uint64_t base, char **buf)
{
	size_t n = p->ctx_count ? p->ctx_count : 1, total = 1, at = 1;
	char **t = calloc(n, sizeof(*t));
	char *b;

	*buf = NULL;
	if (!t)
		return NULL;
	/* an upper bound: a node's text is at most 21 bytes per frame */
	for (size_t i = 1; i < p->ctx_count; i++) {
		uint64_t d = (uint64_t)p->ctx_nodes[i].depth * 21 + 1;

		if (d > SIZE_MAX - total) {
			free(t);
			return NULL;
		}
		total += (size_t)d;
	}
	b = malloc(total);
	if (!b) {
		free(t);
		return NULL;
	}
	b[0] = 0;
	t[0] = b;
	for (size_t i = 1; i < p->ctx_count; i++) {
		const struct profile_ctx_node *nd = &p->ctx_nodes[i];
		const char *up = t[nd->parent];
		int k;

		t[i] = b + at;
		if (nd->bin != bin || nd->site < base)
			k = snprintf(t[i], total - at, "%s", "");
		else
			k = snprintf(t[i], total - at, "%s%s0x%" PRIx64, up,
				     *up ? " @ " : "", nd->site - base);
		at += (size_t)k + 1;
	}
	*buf = b;
	return t;
}

/* The entries of binary @bin in @m with their context's text, less
 * @base (as profile_collect()), sorted, the same merged; their number. */
static size_t collect_cs(const struct count_map *m, size_t bin,
			 uint64_t base, char **texts,
			 struct cs_line *out)
{
	size_t n = 0, k = 0;

	for (size_t i = 0; i < m->cap; i++) {
		const struct count_slot *s = &m->slots[i];

		if (!s->count || PROFILE_KEY_BIN(s->bin) != bin ||
		    s->from < base || s->to < base)
			continue;
		out[n].ctx = texts[PROFILE_KEY_CTX(s->bin)];
		out[n].from = s->from - base;
		out[n].to = s->to - base;
		out[n].count = s->count;
		n++;
	}
	qsort(out, n, sizeof(*out), cmp_cs);
	for (size_t i = 0; i < n; i++) {
		if (k && !cmp_cs(&out[k - 1], &out[i])) {
			uint64_t c = out[k - 1].count;

			out[k - 1].count = c > UINT64_MAX - out[i].count ?
					   UINT64_MAX : c + out[i].count;
			continue;
		}
		out[k++] = out[i];
	}
	return k;
}

/* The lines of @l[*@i...] in context @ctx: their number, then them. */
static void cs_section(FILE *f, const struct cs_line *l, size_t n,
		       size_t *i, const char *ctx, const char *sep)
{
	size_t j = *i;

	while (j < n && !strcmp(l[j].ctx, ctx))
		j++;
	fprintf(f, "  %zu\n", j - *i);
	for (; *i < j; (*i)++)
		fprintf(f, "  %" PRIx64 "%s%" PRIx64 ":%" PRIu64 "\n",
			l[*i].from, sep, l[*i].to, l[*i].count);
}

static int write_cs(const struct profile *p, FILE *f, size_t bin,
		    uint64_t base)
{
	size_t nr, nb, ir = 0, ib = 0;
	struct cs_line *r, *b;
	char *buf, **texts = context_texts(p, bin, base, &buf);
	int err = 0;

	if (!texts)
		return -etmkit_err_nomem;
	r = malloc((p->ranges.used ? p->ranges.used : 1) * sizeof(*r));
	b = malloc((p->branches.used ? p->branches.used : 1) * sizeof(*b));
	if (!r || !b) {
		err = -etmkit_err_nomem;
		goto out;
	}
	nr = collect_cs(&p->ranges, bin, base, texts, r);
	nb = collect_cs(&p->branches, bin, base, texts, b);
	while (ir < nr || ib < nb) {
		const char *ctx;

		if (ib >= nb || (ir < nr && strcmp(r[ir].ctx, b[ib].ctx) <= 0))
			ctx = r[ir].ctx;
		else
			ctx = b[ib].ctx;
		fprintf(f, "[%s]\n", ctx);
		cs_section(f, r, nr, &ir, ctx, "-");
		cs_section(f, b, nb, &ib, ctx, "->");
	}
	if (ferror(f))
		err = -etmkit_err_io;
out:
	free(r);
	free(b);
	free(texts);
	free(buf);
	return err;
}

int profile_write_profgen(const struct profile *p, FILE *f,
			  const struct profile_binary *bins, size_t nbins)
{
	struct profile_line *lines;
	size_t bin = 0, n;
	int err;

	if (!p || !f || (!bins && nbins) || !p->cfg.traces)
		return -etmkit_err_invalid;
	err = profile_one_binary(p, bins, nbins, &bin);
	if (err > 0 && p->cfg.contexts)
		return 0;               /* no context */
	if (err > 0) {
		fputs("0\n0\n", f);
		return ferror(f) ? -etmkit_err_io : 0;
	}
	if (err < 0)
		return err;
	if (p->cfg.contexts)
		return write_cs(p, f, bin, bins[bin].text_base);
	lines = profile_lines_alloc(p);
	if (!lines)
		return -etmkit_err_nomem;
	n = profile_collect(&p->ranges, bin, bins[bin].text_base, 0, 0,
			    lines);
	section(f, lines, n, "-");
	n = profile_collect(&p->branches, bin, bins[bin].text_base, 1, 0,
			    lines);
	section(f, lines, n, "->");
	free(lines);
	return ferror(f) ? -etmkit_err_io : 0;
}
