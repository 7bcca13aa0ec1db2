/* Listing lines formatted on several threads, written in order.
 *
 * Formatting the lines of a listing (disassembly, hex and decimal
 * columns) costs several times the decode on `etmkit decode`. The caller's
 * thread keeps what depends on order (counts, filters, symbol lookups)
 * and hands each line's inputs, a fixed-size record, to the pool; records
 * go in batches to formatter threads, each with its own disassembler and
 * its own text buffer; the caller's thread writes the batches' text to
 * the listing's writer in the order the records came, so the output is
 * byte for byte that of formatting on one thread.
 *
 *   cli_fmt_pool_alloc(&p, &cfg);
 *   for each line: fill cli_fmt_pool_rec(p)
 *   cli_fmt_pool_finish(p);   (everything written to cfg.out)
 *   cli_fmt_pool_free(p);
 *
 * Memory is fixed when the pool starts (CLI_FMT_BATCHES_PER_THREAD
 * batches of CLI_FMT_BATCH records for each thread and for the caller's),
 * but for the text buffers, which grow to the longest batch's text: when
 * every batch is in flight, the caller's thread waits for the oldest
 * (formatting those that wait for a thread meanwhile). Nothing is
 * allocated per record.
 *
 * The format function runs on any of the threads at once: it may read
 * its record, read-only tables and what the caller's thread no longer
 * changes, and write its cli_out; nothing else. */
#ifndef ETMKIT_CLI_FORMAT_POOL_H
#define ETMKIT_CLI_FORMAT_POOL_H

#include <stddef.h>

#include "outbuf.h"

/* Records per batch: a batch's handover (a lock, maybe a wake) costs
 * about as much as formatting a line, so batches are long. */
#define CLI_FMT_BATCH 2048u
#define CLI_FMT_BATCHES_PER_THREAD 2u

struct cli_disasm;
struct cli_fmt_pool;

/* Append the lines of record @rec to @o; @dis: this thread's
 * disassembler (NULL without cfg.disasm). */
typedef void (*cli_fmt_fn)(struct cli_out *o, const void *rec,
			   struct cli_disasm *dis);

struct cli_fmt_pool_config {
	unsigned threads;        /* formatter threads, >= 1 */
	size_t rec_size;         /* bytes of a record */
	cli_fmt_fn format;
	int disasm;              /* a disassembler per thread */
	/* Where the text goes, in order; its err is set when a batch's
	 * text was lost (out of memory). */
	struct cli_out *out;
	/* The caller's thread's disassembler, for the batches it formats
	 * itself (NULL without disasm). */
	struct cli_disasm *caller_dis;
};

/* Start the threads. Returns 0, or -1 (memory, threads, disassemblers:
 * then *@p is NULL; the caller formats on its own thread). */
int cli_fmt_pool_alloc(struct cli_fmt_pool **p,
		       const struct cli_fmt_pool_config *cfg);

/* Room for the next record, to fill before the next call (which hands
 * over full batches, and may write the text of finished ones to cfg.out
 * or wait for them). */
void *cli_fmt_pool_rec(struct cli_fmt_pool *p);

/* Format what is left and write every batch's text to cfg.out (not
 * flushed). The pool takes records again after it. */
void cli_fmt_pool_finish(struct cli_fmt_pool *p);

/* Stop the threads (after cli_fmt_pool_finish(): records not finished
 * are dropped). NULL: nothing. */
void cli_fmt_pool_free(struct cli_fmt_pool *p);

#endif /* ETMKIT_CLI_FORMAT_POOL_H */
