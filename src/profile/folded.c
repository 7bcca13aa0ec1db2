/* Folded stacks (digest perf-data.md 4f): "root;...;leaf COUNT", one line
 * per distinct stack, merged and sorted. Each node with a weight gives
 * its line once, its frames named by the caller; lines whose frames are
 * named alike are merged after sorting. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "stacks_internal.h"

struct folded_line {
	char *text;
	uint64_t count;
};

static int by_text(const void *a, const void *b)
{
	return strcmp(((const struct folded_line *)a)->text,
		      ((const struct folded_line *)b)->text);
}

/* The name of frame @key, into @tmp when made here; never with ';' or a
 * line break (replaced by '_'). */
static const char *frame_name(uint64_t key, stacks_name_fn name, void *ctx,
			      char *tmp, size_t n)
{
	const char *nm;

	if (key == STACKS_KEY_UNKNOWN)
		return "[unknown]";
	if (key == STACKS_KEY_TRUNCATED)
		return "[truncated]";
	nm = name(ctx, key);
	if (!nm) {
		snprintf(tmp, n, "0x%" PRIx64, key);
		return tmp;
	}
	return nm;
}

/* The line of node @i: its frames from the root. NULL when out of
 * memory. */
static char *line_of(const struct stacks *s, size_t i, stacks_name_fn name,
		     void *ctx)
{
	uint32_t chain[STACKS_MAX_DEPTH + 1];
	size_t d = 0, len = 0, at = 0;
	char tmp[24], *text;

	for (uint32_t k = (uint32_t)i; k && d < STACKS_MAX_DEPTH + 1;
	     k = s->nodes[k].parent)
		chain[d++] = k;
	for (size_t j = 0; j < d; j++)
		len += strlen(frame_name(s->nodes[chain[j]].key, name, ctx,
					 tmp, sizeof(tmp))) + 1;
	text = malloc(len + 1);
	if (!text)
		return NULL;
	for (size_t j = d; j-- > 0;) {
		const char *nm = frame_name(s->nodes[chain[j]].key, name, ctx,
					    tmp, sizeof(tmp));
		size_t n = strlen(nm);

		if (n + 1 > len - at)   /* a name that grew since measured */
			n = len - at ? len - at - 1 : 0;
		for (size_t c = 0; c < n; c++)
			text[at + c] = nm[c] == ';' || nm[c] == '\n' ||
				       nm[c] == '\r' ? '_' : nm[c];
		at += n;
		if (at < len)
			text[at++] = ';';
	}
	text[at ? at - 1 : 0] = '\0';
	return text;
}

int stacks_write_folded(const struct stacks *s, FILE *f, unsigned clock,
			stacks_name_fn name, void *ctx)
{
	struct folded_line *lines;
	size_t n = 0;
	int err = 0;

	if (!s || !f || !name || clock >= stacks_clock_count)
		return -etmkit_err_invalid;
	lines = calloc(s->nnodes ? s->nnodes : 1, sizeof(*lines));
	if (!lines)
		return -etmkit_err_nomem;
	for (size_t i = 1; i < s->nnodes && !err; i++) {
		if (!s->nodes[i].weight[clock])
			continue;
		lines[n].count = s->nodes[i].weight[clock];
		lines[n].text = line_of(s, i, name, ctx);
		if (!lines[n++].text)
			err = -etmkit_err_nomem;
	}
	if (!err)
		qsort(lines, n, sizeof(*lines), by_text);
	for (size_t i = 0; i < n && !err; i++) {
		uint64_t c = lines[i].count;

		while (i + 1 < n && !strcmp(lines[i].text, lines[i + 1].text)) {
			i++;
			c = c > UINT64_MAX - lines[i].count ? UINT64_MAX
							     : c + lines[i].count;
		}
		if (fprintf(f, "%s %" PRIu64 "\n", lines[i].text, c) < 0)
			err = -etmkit_err_io;
	}
	for (size_t i = 0; i < n; i++)
		free(lines[i].text);
	free(lines);
	return err;
}
