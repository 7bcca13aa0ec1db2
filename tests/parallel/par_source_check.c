/* par_source_check.h: a script run on a par_source and on the serial flow
 * decoder (par_serial.h: the public flow API, not par_internal.h's
 * par_proto table the par_source itself goes through). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etmkit/flow.h"
#include "elem_same.h"
#include "par_serial.h"
#include "par_source_check.h"
#include "parallel/par_internal.h"
#include "ts_elems.h"

/* The serial decoder, and its statistics summed over its resets (a
 * reset starts them afresh: flow.h etmX_flow_get_stats()). */
struct serial {
	struct par_serial d;
	struct etmkit_par_stats before_reset;
	struct ts_elems el;
};

struct sink {
	struct ts_elems el;
	size_t calls, fail_at;
	int late;            /* called after it failed */
};

static int sink_put(void *ctx, const struct etmkit_elem *e, size_t n)
{
	struct sink *k = ctx;

	if (k->fail_at && k->calls >= k->fail_at)
		k->late = 1;
	k->calls++;
	for (size_t i = 0; i < n; i++)
		if (ts_elems_put(&k->el, &e[i]))
			abort();
	return k->fail_at && k->calls == k->fail_at ? -77 : 0;
}

static void serial_drain(struct serial *s)
{
	const struct etmkit_elem *e;
	int m;

	while ((m = par_serial_batch(&s->d, &e)) > 0)
		for (int i = 0; i < m; i++)
			if (ts_elems_put(&s->el, &e[i]))
				abort();
	if (m != -etmkit_err_eos)
		abort(); /* no stop on error: the decoders never fail */
}

static void serial_stats(const struct serial *s, struct etmkit_par_stats *o)
{
	*o = s->before_reset;
	par_serial_stats(&s->d, o);
}

static void serial_feed(struct serial *s, const uint8_t *b, size_t n,
			const uint64_t *offs, uint64_t base)
{
	if (par_serial_feed(&s->d, b, n, offs, base))
		abort();
	serial_drain(s);
}

static void serial_command(struct serial *s, enum par_cmd cmd)
{
	switch (cmd) {
	case par_cmd_gap:
		if (par_serial_gap(&s->d))
			abort();
		break;
	case par_cmd_finish:
		if (par_serial_finish(&s->d))
			abort();
		break;
	case par_cmd_reset:
		serial_stats(s, &s->before_reset);
		par_serial_reset(&s->d);
		break;
	}
	serial_drain(s);
}

struct run {
	const struct par_script *sc;
	struct par_source *ps;
	struct serial ser;
	struct sink sink;
	uint64_t rng;
	size_t checked;      /* elements compared so far */
	size_t op;           /* operations done */
	int err;             /* the sink's error, once returned */
	char *why;
	size_t nwhy;
};

static uint32_t rnd(struct run *r)
{
	r->rng ^= r->rng << 13;
	r->rng ^= r->rng >> 7;
	r->rng ^= r->rng << 17;
	return (uint32_t)(r->rng >> 11);
}

/* After an operation that returned @rc: the elements delivered so far
 * are the serial ones (all of them when @all: after a flush or a
 * command), and so are the statistics. */
static int check(struct run *r, int rc, int all, const char *what)
{
	const struct ts_elems *a = &r->ser.el, *b = &r->sink.el;
	struct etmkit_par_stats ss;
	const struct etmkit_par_stats *ps;

	r->op++;
	if (r->sink.late) {
		snprintf(r->why, r->nwhy, "op %zu (%s): the sink was called "
			 "after its error", r->op, what);
		return -1;
	}
	if (rc && (!r->sink.fail_at || r->sink.calls < r->sink.fail_at ||
		   rc != -77)) {
		snprintf(r->why, r->nwhy, "op %zu (%s): returned %d", r->op,
			 what, rc);
		return -1;
	}
	if (r->err && rc != r->err) {
		snprintf(r->why, r->nwhy, "op %zu (%s): returned %d after the "
			 "sink's error", r->op, what, rc);
		return -1;
	}
	r->err = rc;
	if (b->n > a->n) {
		snprintf(r->why, r->nwhy, "op %zu (%s): %zu elements, the "
			 "serial decoder %zu", r->op, what, b->n, a->n);
		return -1;
	}
	for (; r->checked < b->n; r->checked++) {
		const struct etmkit_elem *x = &a->e[r->checked],
					 *y = &b->e[r->checked];

		if (!elem_same(x, y, 1)) {
			snprintf(r->why, r->nwhy, "op %zu (%s): element %zu "
				 "differs (kind %u/%u offset %llu/%llu addr "
				 "0x%llx/0x%llx flags 0x%x/0x%x)", r->op, what,
				 r->checked, x->kind, y->kind,
				 (unsigned long long)x->offset,
				 (unsigned long long)y->offset,
				 (unsigned long long)x->addr,
				 (unsigned long long)y->addr, x->flags,
				 y->flags);
			return -1;
		}
	}
	if (!all || r->err)
		return 0;
	if (b->n != a->n) {
		snprintf(r->why, r->nwhy, "op %zu (%s): %zu elements, the "
			 "serial decoder %zu", r->op, what, b->n, a->n);
		return -1;
	}
	serial_stats(&r->ser, &ss);
	ps = par_source_stats(r->ps);
	if (ss.packets != ps->packets || ss.insns != ps->insns ||
	    ss.atoms_lost != ps->atoms_lost ||
	    ss.protocol_errors != ps->protocol_errors) {
		snprintf(r->why, r->nwhy, "op %zu (%s): stats differ: packets "
			 "%llu/%llu insns %llu/%llu lost %llu/%llu errors "
			 "%llu/%llu", r->op, what,
			 (unsigned long long)ss.packets,
			 (unsigned long long)ps->packets,
			 (unsigned long long)ss.insns,
			 (unsigned long long)ps->insns,
			 (unsigned long long)ss.atoms_lost,
			 (unsigned long long)ps->atoms_lost,
			 (unsigned long long)ss.protocol_errors,
			 (unsigned long long)ps->protocol_errors);
		return -1;
	}
	return 0;
}

static int command(struct run *r, enum par_cmd cmd)
{
	static const char *const name[] = { "", "gap", "finish", "reset" };

	serial_command(&r->ser, cmd);
	return check(r, par_source_command(r->ps, cmd), 1, name[cmd]);
}

/* A flush or a command: flush, gap, reset, or finish then reset. */
static int some_command(struct run *r, struct par_script_counts *c)
{
	switch (rnd(r) % 4) {
	case 0:
		c->flushes++;
		return check(r, par_source_flush(r->ps), 1, "flush");
	case 1:
		c->gaps++;
		return command(r, par_cmd_gap);
	case 2:
		c->resets++;
		return command(r, par_cmd_reset);
	default:
		c->finishes++;
		c->resets++;
		if (command(r, par_cmd_finish))
			return -1;
		return command(r, par_cmd_reset);
	}
}

/* Feed @k bytes at @b; *@next is the offset contiguous with the last
 * feed's, moved past this one's. */
static int feed(struct run *r, const uint8_t *b, size_t k, uint64_t *next,
		uint64_t *offs, struct par_script_counts *c)
{
	const uint64_t *o = NULL;
	uint64_t base = *next;

	c->feeds++;
	if (r->sc->offsets && rnd(r) % 8 == 0) {
		base += 1 + rnd(r) % 5000;
		c->jumps++;
	}
	if (r->sc->offsets == 2 && rnd(r) % 3 == 0) {
		/* An offsets array: contiguous, or with jumps (as a
		 * deformatter's, where other IDs' bytes come between). */
		int jumpy = rnd(r) % 2;

		for (size_t i = 0; i < k; i++) {
			if (jumpy && rnd(r) % 32 == 0)
				base += 1 + rnd(r) % 100;
			offs[i] = base++;
		}
		base = offs[0];
		o = offs;
		c->offset_feeds++;
	}
	serial_feed(&r->ser, b, k, o, base);
	*next = o ? offs[k - 1] + 1 : base + k;
	return check(r, par_source_feed(r->ps, b, k, o, base), 0, "feed");
}

int par_source_check(const struct etmkit_par_config *cfg, const uint8_t *buf,
		     size_t n, const struct par_script *sc,
		     struct par_script_counts *counts, char *why, size_t nwhy)
{
	struct par_script_counts c0, *c = counts ? counts : &c0;
	size_t max_feed = sc->max_feed ? sc->max_feed : 4096;
	uint64_t *offs = malloc(max_feed * sizeof(*offs)), next = 0;
	struct run r;
	int rc;

	memset(&r, 0, sizeof(r));
	memset(&c0, 0, sizeof(c0));
	r.sc = sc;
	r.rng = sc->seed * 2654435761u + 88172645463325252ull;
	r.why = why;
	r.nwhy = nwhy;
	r.sink.fail_at = sc->fail_at;
	if (!offs)
		abort();
	rc = par_serial_alloc(&r.ser.d, cfg);
	if (rc) {
		snprintf(why, nwhy, "serial decoder refuses the config: %d",
			 rc);
		par_serial_free(&r.ser.d);
		free(offs);
		return -1;
	}
	rc = par_source_alloc(&r.ps, cfg, sc->chunk_bytes, sink_put, &r.sink);
	if (rc) {
		snprintf(why, nwhy, "par_source_alloc: %d", rc);
		rc = -1;
	}
	/* A command may come before any byte (the par_source has no decoder
	 * then). */
	if (!rc && sc->cmd_every && rnd(&r) % 4 == 0)
		rc = some_command(&r, c);
	for (size_t at = 0; !rc && at < n;) {
		if (sc->cmd_every && rnd(&r) % sc->cmd_every == 0) {
			rc = some_command(&r, c);
		} else {
			size_t k = 1 + rnd(&r) % max_feed;

			if (k > n - at)
				k = n - at;
			rc = feed(&r, buf + at, k, &next, offs, c);
			at += k;
		}
	}
	/* The end, as etmkit_session_finish(): finish. */
	if (!rc) {
		c->finishes++;
		rc = command(&r, par_cmd_finish);
	}
	if (!rc && sc->fail_at && sc->fail_at <= r.sink.calls) {
		c->sink_failures++;
		if (!r.err) {
			snprintf(why, nwhy, "the sink failed, no call "
				 "returned it");
			rc = -1;
		}
	}
	if (!rc) {
		const struct etmkit_par_stats *ps = par_source_stats(r.ps);

		c->elems += r.sink.el.n;
		c->pieces += ps->pieces;
		c->fallbacks += ps->fallbacks;
	}
	par_source_free(r.ps);
	par_serial_free(&r.ser.d);
	ts_elems_free(&r.ser.el);
	ts_elems_free(&r.sink.el);
	free(offs);
	return rc ? -1 : 0;
}
