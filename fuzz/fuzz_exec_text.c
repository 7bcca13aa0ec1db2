/* libFuzzer target: the execution record's text reader on arbitrary bytes.
 * Invariants:
 * - reading ends (1 per item, then 0 or a negated error) without a crash,
 *   and an error comes with a line number inside the input and a message;
 * - every item read formats (exec_text_format) into a line that reads back
 *   as the same item: the reader and the writer are inverses. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/exec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same(const struct exec_rec *a, const struct exec_rec *b)
{
	return a->kind == b->kind && a->isa == b->isa && a->size == b->size &&
	       a->target_isa == b->target_isa && a->flags == b->flags &&
	       a->addr == b->addr && a->target == b->target &&
	       a->opcode == b->opcode && a->cycles == b->cycles &&
	       a->number == b->number && a->vmid == b->vmid &&
	       a->value == b->value && a->el == b->el && a->ns == b->ns;
}

/* Read @line (after the header) back into *@r. */
static int reread(const char *line, struct exec_rec *r)
{
	char buf[256];
	FILE *f;
	struct exec_text_reader *rd;
	struct exec_diag dg;
	int ret;

	snprintf(buf, sizeof(buf), "etmkit-exec 1\n%s", line);
	f = fmemopen(buf, strlen(buf), "r");
	if (!f)
		abort();
	if (exec_text_reader_alloc(&rd, f))
		abort();
	ret = exec_text_next(rd, r, &dg);
	exec_text_reader_free(rd);
	fclose(f);
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct exec_text_reader *rd;
	struct exec_rec r, back;
	struct exec_diag dg;
	uint64_t lines = 1;
	char line[160];
	FILE *f;
	int ret;

	if (!size)
		return 0;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	if (exec_text_reader_alloc(&rd, f))
		abort();
	for (;;) {
		memset(&dg, 0, sizeof(dg));
		ret = exec_text_next(rd, &r, &dg);
		if (ret != 1)
			break;
		ret = exec_text_format(line, sizeof(line), &r);
		if (ret <= 0 || (size_t)ret >= sizeof(line) ||
		    line[ret - 1] != '\n')
			abort();
		if (reread(line, &back) != 1 || !same(&r, &back)) {
			fprintf(stderr, "does not read back: %s", line);
			abort();
		}
	}
	if (ret < 0 && (!dg.message[0] || dg.line > lines))
		abort();
	exec_text_reader_free(rd);
	fclose(f);
	return 0;
}
