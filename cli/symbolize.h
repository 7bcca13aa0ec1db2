/* etmkit CLI: which binary and function each decoded instruction ran in,
 * for `etmkit decode` listings (cli/symbolize.c).
 *
 * One struct cli_symbols per decode run owns a locator (locate.h) over
 * the images the run decodes with. An input that knows better names for
 * its files (a perf.data recording: the recorded path and build id) gives
 * them through cli_symbols_locate() and locate_set_name() after adding
 * its images and before the first cli_symbols_find():
 *
 *   struct cli_symbols *sy = cli_symbols_alloc();
 *   cli_symbols_add_image(sy, img);              each image, once
 *   locate_set_name(cli_symbols_locate(sy), local_path, recorded_path,
 *                   build_id, build_id_size);    optional
 *   struct cli_where w;
 *   if (cli_symbols_find(sy, id, img, space, addr, &w)) print w
 *   cli_symbols_free(sy);
 *
 * What is shown: instructions from an ELF file (with its function when
 * the file has symbols), and from any file a recording named
 * (locate_set_name()); a raw dump nobody named (a snapshot's [dump], an
 * --image FILE@ADDR) is not a binary and shows nothing.
 *
 * Lookups are cached per trace ID over the address span locate_find()
 * reports (the function's bytes, cut by region and segment), a few spans
 * per ID, so a loop or a call and its return do not search again.
 *
 * With cli_symbols_want_lines() (decode --lines), each ELF binary's DWARF
 * line tables are read once, when the listing first meets it (lines.h),
 * and every instruction gets its source line: a binary search, no
 * allocation. A binary without line information is noted once.
 */
#ifndef ETMKIT_CLI_SYMBOLIZE_H
#define ETMKIT_CLI_SYMBOLIZE_H

#include <stdint.h>

#include "etmkit/lines.h"
#include "etmkit/locate.h"

struct cli_symbols;

/* Where an instruction ran. */
struct cli_where {
	const char *dso;       /* the binary's name (recorded, else the file) */
	const char *dso_short; /* its last path component, for listings */
	const char *sym;       /* the function, or NULL (no symbols there) */
	uint64_t symoff;       /* ELF vaddr - the function's address */
	/* The same, formatted once per span for the listings
	 * (cli/output_elem.c): text "sym+0x" (or "" without a symbol) and
	 * " (dso_short)" (or "(dso_short)"); JSON ,"dso":"..."[,"sym":"..."]
	 * with the strings escaped. */
	const char *text_pre, *text_post, *json;
	/* With cli_symbols_want_lines(): the binary's line tables (NULL:
	 * none), and where @addr is in them (valid when has_line). */
	const struct lines *lines;
	int has_line;
	struct lines_loc loc;
};

/* NULL when out of memory. */
struct cli_symbols *cli_symbols_alloc(void);
void cli_symbols_free(struct cli_symbols *sy);

/* Know the files behind @img's regions (locate_add_image()). A file
 * that starts as an ELF file but cannot be read as one is warned about,
 * and the image's files from it on are not shown (the decode goes on).
 * Returns 0, or cli_exit_input after "out of memory". */
int cli_symbols_add_image(struct cli_symbols *sy, const struct image *img);

/* Look up source lines too (before the first cli_symbols_find()). */
void cli_symbols_want_lines(struct cli_symbols *sy);

/* The locator, to name binaries (locate_set_name()) before the first
 * cli_symbols_find(). */
struct locate *cli_symbols_locate(struct cli_symbols *sy);

/* Whether any binary known has something to show (the listing's
 * "function (binary)" column then has a title). */
int cli_symbols_any(const struct cli_symbols *sy);

/* Where @addr, run by trace ID @id (0..127) in memory space @space and
 * read from image @img, belongs: 1 and @w filled when it is in a binary
 * to show, else 0. @w's strings live as long as @sy. */
int cli_symbols_find(struct cli_symbols *sy, uint8_t id,
		     const struct image *img, uint8_t space, uint64_t addr,
		     struct cli_where *w);

#endif
