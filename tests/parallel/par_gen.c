/* Test support for the parallel decode: streams and the serial/parallel
 * check (par_gen.h). */
#include "par_gen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elem_same.h"
#include "etmkit/exec.h"
#include "fuzz_encode.h"
#include "par_serial.h"
#include "ts_out.h"

/* fuzz_encode_walk.c reports a broken invariant of its own through this. */
void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static const uint32_t maxspecs[8] = { 0, 1, 2, 3, 4, 8, 16, 255 };

/* A configuration as fuzz_encode's setup_of() makes it from its header. */
static void setup(struct setup *s, unsigned proto, uint32_t opt,
		  uint32_t sync_period)
{
	memset(s, 0, sizeof(*s));
	s->proto = proto == 4 ? P_PTM : (enum proto)(proto & 3);
	s->cycles = opt & 1;
	if (s->proto == P_PTM) {
		uint32_t cr = 0, ccer = 0;
		unsigned code = (opt >> 1) & 3;

		s->arm = code != 2;
		s->thumb = code != 1;
		if (opt & 1)
			cr |= PTM_ETMCR_CYCLE_ACCURATE;
		cr |= ((opt >> 8) & 3) << PTM_ETMCR_CID_SHIFT;
		if (opt & 0x400)
			cr |= PTM_ETMCR_BRANCH_BROADCAST;
		if (opt & 0x2000)
			cr |= PTM_ETMCR_TIMESTAMP;
		if (opt & 0x4000)
			cr |= PTM_ETMCR_VMID;
		if (opt & 0x8000)
			cr |= PTM_ETMCR_RETURN_STACK;
		if (opt & 0x10000)
			ccer = ((opt & 0x800) ? PTM_ETMCCER_TS_64BIT : 0) |
			       ((opt & 0x40000) ? PTM_ETMCCER_TS_BINARY : 0);
		if (opt & 0x1000)
			ccer |= PTM_ETMCCER_VIRT_EXT;
		if (opt & 0x20000)
			ccer |= PTM_ETMCCER_DMB_WAYPOINT;
		ptm_enc_config_init(&s->cp);
		s->cp.etmcr = cr;
		s->cp.etmidr = (opt & 0x10000) ? 0x411cf312u : 0x411cf301u;
		s->cp.etmccer = ccer;
		s->cp.sync_period = sync_period;
		/* walk32 reads the context ID size and the Virtualization
		 * Extensions where ETMv3 has them too (fuzz_encode.c) */
		etm3_enc_config_init(&s->c3);
		s->c3.etmcr = cr;
		s->c3.etmccer = ccer;
		return;
	}
	if (s->proto == P_ETM3) {
		unsigned minor = 2 + (opt >> 1) % 4; /* 3.2 .. 3.5 */
		uint32_t cr = 0, ccer = 0;

		s->arm = (opt & 0x20) == 0 || (opt & 0x40);
		s->thumb = (opt & 0x20) != 0 || (opt & 0x40);
		if (opt & 1)
			cr |= ETM3_ETMCR_CYCLE_ACCURATE;
		cr |= ((opt >> 8) & 3) << ETM3_ETMCR_CID_SHIFT;
		if (opt & 0x400)
			cr |= ETM3_ETMCR_BRANCH_OUTPUT;
		if (minor == 5) {
			ccer = ETM3_ETMCCER_TIMESTAMP |
			       ((opt & 0x800) ? ETM3_ETMCCER_TS_64BIT : 0) |
			       ((opt & 0x1000) ? ETM3_ETMCCER_VIRT_EXT : 0);
			if (opt & 0x2000)
				cr |= ETM3_ETMCR_TIMESTAMP;
			if (opt & 0x4000)
				cr |= ETM3_ETMCR_VMID;
		}
		etm3_enc_config_init(&s->c3);
		s->c3.etmcr = cr;
		s->c3.etmidr = 0x410cf200u | minor << 4;
		s->c3.etmccer = ccer;
		s->c3.sync_period = sync_period;
		return;
	}
	{
		struct ete_enc_config *c = &s->c4;
		uint32_t ms = maxspecs[(opt >> 1) & 7];

		s->arm = s->thumb = s->proto == P_ETM4_A32;
		ete_enc_config_init(c);
		if (s->proto != P_ETE) {
			c->etm.flags = 0;
			c->etm.trcdevarch = 0;
			c->etm.trcidr0 = 0x28000ea1u;
			c->etm.trcidr1 = 0x4100f403u | 4u << 4;
			c->etm.trcidr2 = 0x00001088u;
		}
		c->etm.trcidr8 = ms;
		c->spec_depth = ms ? ((opt >> 4) & 15) % (ms + 1) : 0;
		c->mispredict_every = ms >= 1 ? (opt >> 8) & 15 : 0;
		c->cancel_every = ms >= 2 ? (opt >> 12) & 15 : 0;
		c->etm.trcconfigr = ((opt & 0x10000) ? 1u << 4 : 0) |
				    ((opt & 0x20000) ? 1u << 11 : 0) |
				    ((opt & 0x40000) ? 1u << 6 : 0) |
				    ((opt & 0x80000) ? 1u << 7 : 0) |
				    ((opt & 0x100000) ? 1u << 3 : 0);
		c->cc_threshold = 16u * ((opt >> 21) & 7);
		c->sync_period = sync_period;
	}
}

int par_gen(struct par_stream *s, unsigned proto, uint32_t opt,
	    uint32_t sync_period, const uint8_t *walk, size_t nwalk)
{
	static struct ts_prog64 p64;
	static struct ts_prog32 p32;
	struct setup su;
	struct src in = { walk, nwalk < MAX_WALK ? nwalk : MAX_WALK, 0 };
	struct ts_rec rc = { 0 };
	struct ts_out t = { 0 };
	size_t end;
	int err = 0;

	memset(s, 0, sizeof(*s));
	setup(&su, proto, opt, sync_period);
	if (image_alloc(&s->img))
		return -1;
	if (su.proto == P_ETM4_A64 || su.proto == P_ETE) {
		prog64_make(&p64, 0x9e3779b97f4a7c15ull * (opt + 1),
			    su.proto == P_ETE);
		for (unsigned b = 0; b < TS_PROG64_NBASES; b++)
			if (image_add_buffer(s->img, p64.bytes, 4ull * p64.n,
					     ts_prog64_bases[b], 0))
				return -1;
	} else {
		prog32_make(&p32, 0x9e3779b97f4a7c15ull * (opt + 1), su.arm,
			    su.thumb);
		for (unsigned i = 0; i < p32.n; i++)
			if (image_add_buffer(s->img, p32.r[i].mem, REGION_BYTES,
					     p32.r[i].base, 0))
				return -1;
	}
	if (su.proto == P_PTM) {
		struct ptm_enc *e;

		end = walk32(&p32, &su, &in, &rc, 1);
		err = ptm_enc_alloc(&e, &su.cp, ts_out_sink, &t);
		for (size_t i = 0; !err && i < end; i++)
			err = ptm_enc_put(e, &rc.r[i]);
		if (!err)
			err = ptm_enc_finish(e);
		ptm_enc_free(e);
		s->proto = etmkit_par_ptm;
		ptm_flow_config_init(&s->cp);
		s->cp.ptm.etmcr = su.cp.etmcr;
		s->cp.ptm.etmidr = su.cp.etmidr;
		s->cp.ptm.etmccer = su.cp.etmccer;
		s->cp.image = s->img;
		s->cp.cache_bytes = 64 * 1024;
	} else if (su.proto == P_ETM3) {
		struct etm3_enc *e;

		end = walk32(&p32, &su, &in, &rc, 1);
		err = etm3_enc_alloc(&e, &su.c3, ts_out_sink, &t);
		for (size_t i = 0; !err && i < end; i++)
			err = etm3_enc_put(e, &rc.r[i]);
		if (!err)
			err = etm3_enc_finish(e);
		etm3_enc_free(e);
		s->proto = etmkit_par_etm3;
		etm3_flow_config_init(&s->c3);
		s->c3.etm.etmcr = su.c3.etmcr;
		s->c3.etm.etmidr = su.c3.etmidr;
		s->c3.etm.etmccer = su.c3.etmccer;
		s->c3.image = s->img;
		s->c3.cache_bytes = 64 * 1024;
	} else {
		struct ete_enc *e;

		end = su.proto == P_ETM4_A32 ? walk32(&p32, &su, &in, &rc, 0) :
					      walk64(&p64, &su, &in, &rc);
		err = ete_enc_alloc(&e, &su.c4, ts_out_sink, &t);
		for (size_t i = 0; !err && i < end; i++)
			err = ete_enc_put(e, &rc.r[i]);
		if (!err)
			err = ete_enc_finish(e);
		s->proto = etmkit_par_etm4;
		etm4_flow_config_init(&s->c4);
		if (!err)
			err = ete_enc_decoder_config(e, &s->c4.etm);
		ete_enc_free(e);
		s->c4.image = s->img;
		s->c4.cache_bytes = 64 * 1024;
	}
	ts_rec_free(&rc);
	s->bytes = t.b;
	s->n = t.n;
	return err ? -1 : 0;
}

void par_gen_free(struct par_stream *s)
{
	free(s->bytes);
	image_free(s->img);
	memset(s, 0, sizeof(*s));
}

/* ---- The check ---------------------------------------------------------- */

struct list {
	struct etmkit_elem *e;
	size_t n, cap;
};

static int put(void *ctx, const struct etmkit_elem *e, size_t n)
{
	struct list *l = ctx;

	if (l->n + n > l->cap) {
		size_t cap = l->cap ? l->cap : 1024;

		while (cap < l->n + n)
			cap *= 2;
		l->e = realloc(l->e, cap * sizeof(*e));
		if (!l->e)
			abort();
		l->cap = cap;
	}
	memcpy(l->e + l->n, e, n * sizeof(*e));
	l->n += n;
	return 0;
}

/* The serial decode, fed in 4 KiB chunks, into @l and @st. */
static int serial(const struct etmkit_par_config *cfg, const uint8_t *buf,
		  size_t n, struct list *l, struct etmkit_par_stats *st)
{
	const struct etmkit_elem *e;
	struct par_serial d;
	int m;

	memset(st, 0, sizeof(*st));
	if (par_serial_alloc(&d, cfg)) {
		par_serial_free(&d);
		return -1;
	}
	for (size_t o = 0; o <= n; o += 4096) {
		if (o < n && par_serial_feed(&d, buf + o, n - o < 4096 ?
					     n - o : 4096, NULL, o))
			abort();
		if (o + 4096 > n)
			par_serial_finish(&d);
		while ((m = par_serial_batch(&d, &e)) > 0)
			put(l, e, (size_t)m);
	}
	par_serial_stats(&d, st);
	par_serial_free(&d);
	return 0;
}

/* The bring-your-own-threads API on one thread: every piece decoded
 * first, last to first (each with its own object), then joined. */
static int byo(const struct etmkit_par_config *cfg, const uint8_t *buf,
	       size_t n, struct list *l, struct etmkit_par_stats *st)
{
	struct etmkit_par *p;
	struct etmkit_par_piece **r, *freed;
	size_t np;
	int rc = 0;

	if (etmkit_par_alloc(&p, cfg, buf, n, NULL, 0))
		return -1;
	np = etmkit_par_pieces(p);
	r = calloc(np, sizeof(*r));
	if (!r)
		abort();
	for (size_t k = np; k-- > 0 && !rc;) {
		rc = etmkit_par_piece_alloc(&r[k], p);
		if (!rc)
			rc = etmkit_par_decode(p, k, r[k]);
	}
	for (size_t k = 0; k < np && !rc; k++)
		rc = etmkit_par_join(p, r[k], put, l, &freed);
	if (!rc)
		rc = etmkit_par_join_end(p, put, l, &freed);
	if (!rc)
		*st = *etmkit_par_get_stats(p);
	for (size_t k = 0; k < np; k++)
		etmkit_par_piece_free(r[k]);
	free(r);
	etmkit_par_free(p);
	return rc;
}

static int same(const struct list *a, const struct etmkit_par_stats *sa,
		const struct list *b, const struct etmkit_par_stats *sb,
		const char *what, char *why, size_t nwhy)
{
	size_t n = a->n < b->n ? a->n : b->n;

	for (size_t i = 0; i < n; i++)
		if (!elem_same(&a->e[i], &b->e[i], 1)) {
			snprintf(why, nwhy, "%s: element %zu of %zu differs "
				 "(kind %u/%u offset %llu/%llu addr 0x%llx/0x%llx "
				 "flags 0x%x/0x%x cycles %u/%u)", what, i, a->n,
				 a->e[i].kind, b->e[i].kind,
				 (unsigned long long)a->e[i].offset,
				 (unsigned long long)b->e[i].offset,
				 (unsigned long long)a->e[i].addr,
				 (unsigned long long)b->e[i].addr,
				 a->e[i].flags, b->e[i].flags, a->e[i].cycles,
				 b->e[i].cycles);
			return -1;
		}
	if (a->n != b->n) {
		snprintf(why, nwhy, "%s: %zu elements serial, %zu parallel",
			 what, a->n, b->n);
		return -1;
	}
	if (sa->packets != sb->packets || sa->insns != sb->insns ||
	    sa->atoms_lost != sb->atoms_lost ||
	    sa->protocol_errors != sb->protocol_errors) {
		snprintf(why, nwhy, "%s: stats differ: packets %llu/%llu "
			 "insns %llu/%llu lost %llu/%llu errors %llu/%llu", what,
			 (unsigned long long)sa->packets,
			 (unsigned long long)sb->packets,
			 (unsigned long long)sa->insns,
			 (unsigned long long)sb->insns,
			 (unsigned long long)sa->atoms_lost,
			 (unsigned long long)sb->atoms_lost,
			 (unsigned long long)sa->protocol_errors,
			 (unsigned long long)sb->protocol_errors);
		return -1;
	}
	return 0;
}

int par_check(const struct etmkit_par_config *cfg, const uint8_t *buf,
	      size_t n, const size_t *pieces, size_t npieces,
	      const unsigned *jobs, size_t njobs, char *why, size_t nwhy,
	      uint64_t *fallbacks, uint64_t *joins)
{
	struct list s = { 0 }, p = { 0 };
	struct etmkit_par_stats ss, ps;
	int rc = 0;

	if (serial(cfg, buf, n, &s, &ss)) {
		snprintf(why, nwhy, "serial decoder refuses the config");
		return -1;
	}
	for (size_t i = 0; !rc && i < npieces; i++) {
		struct etmkit_par_config c = *cfg;
		char what[64];

		c.piece_bytes = pieces[i];
		p.n = 0;
		snprintf(what, sizeof(what), "piece %zu, byo", pieces[i]);
		rc = byo(&c, buf, n, &p, &ps);
		if (rc)
			snprintf(why, nwhy, "%s: %d", what, rc);
		else
			rc = same(&s, &ss, &p, &ps, what, why, nwhy);
		if (!rc && joins)
			*joins += ps.pieces - 1;
		for (size_t j = 0; !rc && j < njobs; j++) {
			c.jobs = jobs[j];
			p.n = 0;
			snprintf(what, sizeof(what), "piece %zu, %u jobs",
				 pieces[i], jobs[j]);
			rc = etmkit_par_run(&c, buf, n, NULL, 0, put, &p, &ps);
			if (rc)
				snprintf(why, nwhy, "%s: etmkit_par_run: %d",
					 what, rc);
			else
				rc = same(&s, &ss, &p, &ps, what, why, nwhy);
			if (!rc && !j && fallbacks)
				*fallbacks += ps.fallbacks;
		}
	}
	free(s.e);
	free(p.e);
	return rc ? -1 : 0;
}
