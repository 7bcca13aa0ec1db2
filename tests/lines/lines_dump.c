/* lines_dump: what lines.h reads from an ELF file, for
 * tests/lines/check_lines.py to compare with binutils' view.
 *
 *   lines_dump ELF rows        every row: "LO HI LINE COLUMN FILE"
 *   lines_dump ELF funcs       every function: "ENTRY LO HI DECL_LINE
 *                              NAME DECL_FILE"
 *   lines_dump ELF find        addresses (hex) from stdin, one a line; per
 *                              address one line: "ADDR FILE:LINE" (or "??:0")
 *                              then, tab-separated, the frames innermost
 *                              first as addr2line -i -f prints them:
 *                              "NAME@FILE:LINE", the innermost at the
 *                              address's row, each outer one at the call
 *                              site of the one inside it
 *
 * Exit: 0; 2 usage; 3 open failed (message on stderr: "PATH: MESSAGE
 * (ERROR)"), 4 no line information. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/lines.h"

static void find(const struct lines *ln)
{
	char buf[64];

	while (fgets(buf, sizeof(buf), stdin)) {
		uint64_t a = strtoull(buf, NULL, 16);
		struct lines_loc loc;
		const char *file;
		uint32_t line, i;

		if (lines_find(ln, a, &loc) == 0) {
			file = loc.file;
			line = loc.line;
		} else {
			file = "??";
			line = 0;
		}
		printf("0x%" PRIx64 " %s:%u", a, file, line);
		for (i = loc.inl; i != LINES_NONE;) {
			const struct lines_inline *in = lines_inline_at(ln, i);

			printf("\t%s@%s:%u", in->name, file, line);
			file = in->call_file ? in->call_file : "??";
			line = in->call_line;
			i = in->parent;
		}
		if (loc.func != LINES_NONE)
			printf("\t%s@%s:%u", lines_func_at(ln, loc.func)->name,
			       file, line);
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	struct image_diag d;
	struct lines *ln;
	int err;

	if (argc != 3)
		return 2;
	err = lines_open(&ln, argv[1], &d);
	if (err) {
		fprintf(stderr, "%s: %s (%s)\n", d.path, d.message,
			etmkit_errstr(err));
		return err == -etmkit_err_not_found ? 4 : 3;
	}
	if (!strcmp(argv[2], "rows")) {
		for (size_t i = 0; i < lines_row_count(ln); i++) {
			const struct lines_row *r = lines_row_at(ln, i);

			printf("0x%" PRIx64 " 0x%" PRIx64 " %u %u %s\n", r->lo,
			       r->hi, r->line, r->column, r->file);
		}
	} else if (!strcmp(argv[2], "funcs")) {
		for (uint32_t i = 0; i < lines_func_count(ln); i++) {
			const struct lines_func *f = lines_func_at(ln, i);

			printf("0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64
			       " %u %s %s\n", f->entry, f->lo, f->hi,
			       f->decl_line, f->name,
			       f->decl_file ? f->decl_file : "??");
		}
	} else if (!strcmp(argv[2], "find")) {
		find(ln);
	} else {
		lines_free(ln);
		return 2;
	}
	lines_free(ln);
	return 0;
}
