/* etmkit CLI: a flame graph as one self-contained SVG file, drawn from
 * folded stacks (cli/flame_svg.c): a frame per distinct stack prefix,
 * root ("all") at the bottom, children left to right in name order, each
 * as wide as its count; embedded JavaScript zooms into a frame on click
 * and highlights the frames matching a regular expression (Ctrl-F or
 * "Search"), showing the share they cover. */
#ifndef ETMKIT_CLI_FLAME_SVG_H
#define ETMKIT_CLI_FLAME_SVG_H

#include <stddef.h>
#include <stdio.h>

struct flame_options {
	const char *title;     /* NULL: "Flame Graph" */
	const char *unit;      /* counted what: "instructions"... */
	unsigned width;        /* pixels; 0: 1200 */
};

/* Draw the folded lines @text (@n bytes: "a;b;c COUNT" per line) to @f.
 * Returns 0; -etmkit_err_nomem; -etmkit_err_io (writing failed);
 * -etmkit_err_invalid (a line without a count). */
int flame_svg_write(FILE *f, const char *text, size_t n,
		    const struct flame_options *o);

#endif
