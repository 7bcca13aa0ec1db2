/* Listing lines formatted on several threads: cli/format_pool.h.
 *
 * The batches are a ring, batch number s in slot s % nbatch: from
 * written to taken, the batches a thread took (formatting or formatted,
 * not yet written); from taken to filled, the ones waiting for a thread;
 * filled, the one the caller's thread fills. The caller's thread writes
 * the batches in number order, so in the order of the records.
 *
 * No deadlock: the caller's thread only waits for the oldest batch not
 * written; it is formatted or being formatted (every earlier one was),
 * or waits for a thread, and then the caller's thread formats it itself
 * (it takes the batches waiting, oldest first, until the oldest is
 * done). The lock covers the numbers, each batch's done and the
 * threads' sleeping; a batch's records and text belong to whoever the
 * numbers say, so formatting and writing run without it. */
#include <pthread.h>
#include <stdlib.h>

#include "cli.h"
#include "format_pool.h"

/* A batch's text buffer at first (it grows as needed, and stays grown). */
#define FMT_TEXT_BYTES (64u << 10)

struct fmt_batch {
	unsigned char *recs;  /* CLI_FMT_BATCH records */
	size_t n;             /* records filled */
	int done;             /* formatted: text holds its lines */
	struct cli_out text;  /* in memory (cli_out_init_mem()) */
};

struct fmt_thread {
	struct cli_fmt_pool *p;
	struct cli_disasm *dis;
	pthread_t tid;
};

struct cli_fmt_pool {
	struct cli_fmt_pool_config cfg;
	pthread_mutex_t lock;
	pthread_cond_t work;         /* a batch waits for a thread, or stop */
	pthread_cond_t done;         /* a batch was formatted */
	unsigned written, taken, filled; /* batch numbers (see above) */
	unsigned nbatch;
	int stop;                    /* the threads end when nothing waits */
	unsigned idle;               /* threads waiting for work */
	int waiting;                 /* the caller's thread waits for done */
	struct fmt_batch *batch;
	struct fmt_thread *thread;
	unsigned nthread;            /* threads started */
};

static struct fmt_batch *slot(struct cli_fmt_pool *p, unsigned s)
{
	return &p->batch[s % p->nbatch];
}

static void format_batch(struct cli_fmt_pool *p, struct fmt_batch *b,
			 struct cli_disasm *dis)
{
	const unsigned char *rec = b->recs;

	b->text.n = 0;
	b->text.err = 0;
	for (size_t i = 0; i < b->n; i++, rec += p->cfg.rec_size)
		p->cfg.format(&b->text, rec, dis);
}

static void *formatter(void *arg)
{
	struct fmt_thread *t = arg;
	struct cli_fmt_pool *p = t->p;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct fmt_batch *b;

		while (!p->stop && p->taken == p->filled) {
			p->idle++;
			pthread_cond_wait(&p->work, &p->lock);
			p->idle--;
		}
		if (p->taken == p->filled)
			break;
		b = slot(p, p->taken++);
		pthread_mutex_unlock(&p->lock);
		format_batch(p, b, t->dis);
		pthread_mutex_lock(&p->lock);
		b->done = 1;
		if (p->waiting)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* The oldest batch's text to cfg.out; its slot is free again. */
static void write_oldest(struct cli_fmt_pool *p)
{
	struct fmt_batch *b = slot(p, p->written);

	cli_out_mem(p->cfg.out, b->text.buf, b->text.n);
	if (b->text.err)
		p->cfg.out->err = 1;
	b->n = 0;
	b->done = 0;
	p->written++;
}

/* Write the oldest batch, once formatted: the caller's thread formats
 * the batches waiting for a thread meanwhile. */
static void wait_oldest(struct cli_fmt_pool *p)
{
	struct fmt_batch *oldest = slot(p, p->written);

	pthread_mutex_lock(&p->lock);
	while (!oldest->done) {
		if (p->taken != p->filled) {
			struct fmt_batch *b = slot(p, p->taken++);

			pthread_mutex_unlock(&p->lock);
			format_batch(p, b, p->cfg.caller_dis);
			pthread_mutex_lock(&p->lock);
			b->done = 1;
			continue;
		}
		p->waiting = 1;
		pthread_cond_wait(&p->done, &p->lock);
		p->waiting = 0;
	}
	pthread_mutex_unlock(&p->lock);
	write_oldest(p);
}

/* Write the batches formatted, oldest first, up to one that is not. */
static void write_done(struct cli_fmt_pool *p)
{
	unsigned k = 0;

	pthread_mutex_lock(&p->lock);
	while (p->written + k != p->taken && slot(p, p->written + k)->done)
		k++;
	pthread_mutex_unlock(&p->lock);
	while (k--)
		write_oldest(p);
}

/* Hand the batch filled to the threads. */
static void submit(struct cli_fmt_pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->filled++;
	if (p->idle)
		pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->lock);
	write_done(p);
}

void *cli_fmt_pool_rec(struct cli_fmt_pool *p)
{
	struct fmt_batch *b = slot(p, p->filled);

	if (b->n == CLI_FMT_BATCH) {
		submit(p);
		/* The next slot is the oldest's when every batch is out. */
		if (p->filled - p->written == p->nbatch)
			wait_oldest(p);
		b = slot(p, p->filled);
	}
	return b->recs + b->n++ * p->cfg.rec_size;
}

void cli_fmt_pool_finish(struct cli_fmt_pool *p)
{
	if (slot(p, p->filled)->n)
		submit(p);
	while (p->written != p->filled)
		wait_oldest(p);
}

void cli_fmt_pool_free(struct cli_fmt_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->nthread; i++)
		pthread_join(p->thread[i].tid, NULL);
	for (unsigned i = 0; p->thread && i < p->cfg.threads; i++)
		cli_disasm_free(p->thread[i].dis);
	for (unsigned i = 0; p->batch && i < p->nbatch; i++) {
		free(p->batch[i].recs);
		free(p->batch[i].text.buf);
	}
	free(p->batch);
	free(p->thread);
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

/* The batches and the threads' disassemblers (on this thread: opening
 * capstone's first handles is not thread-safe). Returns 0 or -1. */
static int alloc_parts(struct cli_fmt_pool *p)
{
	p->batch = calloc(p->nbatch, sizeof(*p->batch));
	p->thread = calloc(p->cfg.threads, sizeof(*p->thread));
	if (!p->batch || !p->thread)
		return -1;
	for (unsigned i = 0; i < p->nbatch; i++) {
		struct fmt_batch *b = &p->batch[i];

		b->recs = malloc(CLI_FMT_BATCH * p->cfg.rec_size);
		cli_out_init_mem(&b->text, malloc(FMT_TEXT_BYTES),
				 FMT_TEXT_BYTES);
		if (!b->recs || !b->text.buf)
			return -1;
	}
	for (unsigned i = 0; i < p->cfg.threads; i++) {
		p->thread[i].p = p;
		if (p->cfg.disasm && !(p->thread[i].dis = cli_disasm_alloc()))
			return -1;
	}
	return 0;
}

int cli_fmt_pool_alloc(struct cli_fmt_pool **pp,
		       const struct cli_fmt_pool_config *cfg)
{
	struct cli_fmt_pool *p = calloc(1, sizeof(*p));

	*pp = NULL;
	if (!p)
		return -1;
	p->cfg = *cfg;
	/* Two batches for each thread and two for the caller's (the one
	 * it fills, the one it writes). */
	p->nbatch = CLI_FMT_BATCHES_PER_THREAD * (cfg->threads + 1);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	if (alloc_parts(p) < 0) {
		cli_fmt_pool_free(p);
		return -1;
	}
	for (; p->nthread < cfg->threads; p->nthread++)
		if (pthread_create(&p->thread[p->nthread].tid, NULL, formatter,
				   &p->thread[p->nthread]) != 0) {
			cli_fmt_pool_free(p);
			return -1;
		}
	*pp = p;
	return 0;
}
