/* ETMv2 flow decoder: hand-worked cases over packet records (the packet
 * decoder, etm2_pkt_*, is another layer's: its records are fed here
 * directly, etm2_flow_feed_records()). Each case is a small text: the
 * registers, code blocks as hex words at an address (arm: 32-bit words,
 * thumb: 16-bit halfwords), the records in status order (each status
 * followed by the packets its cycle placed, as etm2.h delivers them),
 * and the elements expected, written by hand from docs/etmv2.md 7 and the
 * digest before the decoder ran. Every case is also decoded with
 * ETM2_FLOW_RANGES, which must say what the per-instruction form says
 * (etmv2/etm2_ranges_match.h), and fed one record at a time, which must change
 * nothing.
 *
 * Case lines:
 *   config etmcr=0x... [version=1]   (ETMv1: docs/etmv2.md 7b)
 *   code ADDR arm|thumb WORD...
 *   CYCLE tfo ADDR arm|thumb periodic|trace_enable|overflow|debug_exit
 *         [cid=V] [lsip=NEXT]      (NEXT in the TFO's instruction set)
 *   CYCLE STATUS                   (IE, DE, IN, DN, DW, PTIE, ... PNDN)
 *   CYCLE branch ADDR arm|thumb [reason=R] [first]   (ETMv1: a 5-byte
 *                                  address's reason; the sync point)
 *   CYCLE data|vnt|miss|missdata [a=1] [addr=V] [value=V bytes=N] [tag=T]
 *   CYCLE cid V | trigger | error
 *   expect                         then one element a line:
 *   CYCLE insn ADDR ISA E|N [c=CYCLES] [implied]
 *   CYCLE trace_on REASON ADDR ISA | overflow | trigger | context cid=V
 *   CYCLE exception ADDR ISA vec=N [ret=ADDR]
 *   CYCLE data [insn=A] [addr=A] [value=V size=N] [ooo] [tag=T]
 *   CYCLE gap LOSS | no_image ADDR ISA LOSS
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "etmkit/flow.h"
#include "etmkit/image.h"
#include "flow/etm2_flow_int.h"
#include "elem_same.h"
#include "etmv2/e2t.h"
#include "etmv2/etm2_ranges_match.h"
#include "ts_etm2_check.h"
#include "ts_rec.h"

#include <dirent.h>

#define MAX_RECS 128
#define MAX_LINES 128
/* decode(): no fast path for IE runs (etm2_flow_int.h no_fast) */
#define SLOW 0x100u

struct fcase {
	uint32_t etmcr;
	uint8_t version;
	struct image *img;
	struct etm2_packet recs[MAX_RECS];
	size_t nrecs;
	char expect[MAX_LINES][128];
	size_t nexpect;
	uint8_t code[8][256]; /* the image's bytes (not copied by it) */
	int ncode;
};

static uint64_t num(const char *s)
{
	return strtoull(s, NULL, 0);
}

static uint8_t isa_of(const char *s)
{
	if (!strcmp(s, "arm"))
		return etmkit_isa_arm;
	assert_string_equal(s, "thumb");
	return etmkit_isa_thumb;
}

static const char *isa_name(uint8_t isa)
{
	return isa == etmkit_isa_thumb ? "thumb" : "arm";
}

static unsigned status_of(const char *s)
{
	for (unsigned i = 0; i < etm2_st_count; i++)
		if (!strcmp(s, etm2_status_name(i)))
			return i;
	fail_msg("unknown record %s", s);
	return 0;
}

static void parse_code(struct fcase *c, char **w, int nw)
{
	uint8_t *buf = c->code[c->ncode++];
	size_t n = 0;
	int thumb = !strcmp(w[2], "thumb");

	assert_true(c->ncode <= 8 && nw - 3 <= 64);

	for (int i = 3; i < nw; i++) {
		uint32_t v = (uint32_t)strtoul(w[i], NULL, 16);

		for (int k = 0; k < (thumb ? 2 : 4); k++)
			buf[n++] = (uint8_t)(v >> (8 * k));
	}
	assert_int_equal(image_add_buffer(c->img, buf, n, num(w[1]), 0), 0);
}

static const char *opt(char **w, int nw, const char *key)
{
	size_t k = strlen(key);

	for (int i = 2; i < nw; i++)
		if (!strncmp(w[i], key, k) && w[i][k] == '=')
			return w[i] + k + 1;
	return NULL;
}

static void parse_rec(struct fcase *c, char **w, int nw)
{
	struct etm2_packet *p = &c->recs[c->nrecs++];
	const char *v;

	assert_true(c->nrecs <= MAX_RECS);
	memset(p, 0, sizeof(*p));
	p->cycle = num(w[0]);
	if (!strcmp(w[1], "tfo")) {
		static const char *const rr[4] = { "periodic", "trace_enable",
						   "overflow", "debug_exit" };

		p->type = etm2_pkt_tfo;
		p->status = etm2_st_td;
		p->u.tfo.addr = (uint32_t)num(w[2]);
		p->u.tfo.isa = isa_of(w[3]);
		for (unsigned i = 0; i < 4; i++)
			if (!strcmp(w[4], rr[i]))
				p->u.tfo.reason = (uint8_t)i;
		if ((v = opt(w, nw, "cid")))
			p->u.tfo.context_id = (uint32_t)num(v);
		if ((v = opt(w, nw, "lsip"))) {
			p->u.tfo.lsip = 1;
			p->u.tfo.next_addr = (uint32_t)num(v);
			p->u.tfo.next_isa = p->u.tfo.isa;
		}
		p->u.tfo.first = c->nrecs == 1;
	} else if (!strcmp(w[1], "branch")) {
		p->type = etm2_pkt_branch_address;
		p->u.branch.addr = (uint32_t)num(w[2]);
		p->u.branch.isa = isa_of(w[3]);
		if ((v = opt(w, nw, "reason"))) {
			p->u.branch.has_reason = 1;
			p->u.branch.reason = (uint8_t)num(v);
		}
		p->u.branch.first = nw > 4 && !strcmp(w[nw - 1], "first");
	} else if (!strcmp(w[1], "data") || !strcmp(w[1], "vnt") ||
		   !strcmp(w[1], "miss") || !strcmp(w[1], "missdata")) {
		struct etm2_data *d = &p->u.data;

		p->type = !strcmp(w[1], "data") ? etm2_pkt_normal_data :
			  !strcmp(w[1], "vnt") ? etm2_pkt_value_not_traced :
			  !strcmp(w[1], "miss") ? etm2_pkt_load_miss :
						   etm2_pkt_load_miss_data;
		d->a_bit = (v = opt(w, nw, "a")) && num(v);
		if ((v = opt(w, nw, "addr"))) {
			d->has_addr = 1;
			d->addr = (uint32_t)num(v);
		}
		if ((v = opt(w, nw, "value"))) {
			d->has_value = 1;
			d->value = (uint32_t)num(v);
			d->value_bytes = (uint8_t)num(opt(w, nw, "bytes"));
		}
		if ((v = opt(w, nw, "tag")))
			d->tag = (uint8_t)num(v);
	} else if (!strcmp(w[1], "cid")) {
		p->type = etm2_pkt_context_id;
		p->u.context_id = (uint32_t)num(w[2]);
	} else if (!strcmp(w[1], "trigger")) {
		p->type = etm2_pkt_trigger;
	} else if (!strcmp(w[1], "error")) {
		p->type = etm2_pkt_reserved;
		p->error = -etmkit_err_bad_packet;
		p->why = "reserved header";
	} else if (!strcmp(w[1], "wait")) {
		p->type = etm2_pkt_wait;
	} else {
		p->type = etm2_pkt_status;
		p->status = (uint8_t)status_of(w[1]);
	}
}

/* Parse case text @text into @c (image allocated). */
static void parse_case(struct fcase *c, const char *text)
{
	char line[256];
	const char *s = text;
	int in_expect = 0;

	memset(c, 0, sizeof(*c));
	assert_int_equal(image_alloc(&c->img), 0);
	while (*s) {
		size_t k = strcspn(s, "\n");
		char *w[24], *t;
		int nw = 0;

		assert_true(k < sizeof(line));
		memcpy(line, s, k);
		line[k] = 0;
		s += k + (s[k] == '\n');
		t = line + strspn(line, " \t");
		if (!*t || *t == '#')
			continue;
		if (in_expect) {
			assert_true(c->nexpect < MAX_LINES);
			snprintf(c->expect[c->nexpect++], 128, "%s", t);
			continue;
		}
		for (char *tok = strtok(t, " \t"); tok && nw < 24;
		     tok = strtok(NULL, " \t"))
			w[nw++] = tok;
		if (!strcmp(w[0], "expect"))
			in_expect = 1;
		else if (!strcmp(w[0], "config")) {
			const char *v = opt(w, nw, "version");

			c->etmcr = (uint32_t)num(w[1] + strlen("etmcr="));
			c->version = v ? (uint8_t)num(v) : 0;
		}
		else if (!strcmp(w[0], "code"))
			parse_code(c, w, nw);
		else
			parse_rec(c, w, nw);
	}
}

/* ---- Decoding ----------------------------------------------------------- */

struct elems {
	struct etmkit_elem e[1024];
	size_t n;
};

static void drain(struct etm2_flow_decoder *d, struct elems *out)
{
	const struct etmkit_elem *el;
	int k;

	while ((k = etm2_flow_batch(d, &el)) > 0)
		for (int i = 0; i < k; i++) {
			assert_true(out->n < 1024);
			out->e[out->n++] = el[i];
		}
	assert_int_equal(k, -etmkit_err_eos);
}

/* Decode @c's records, fed @step at a time (0: at once). */
static struct etm2_flow_decoder *decode(const struct fcase *c, uint32_t flags,
					size_t step, struct elems *out)
{
	struct etm2_flow_config cfg;
	struct etm2_flow_decoder *d;
	size_t at = 0;

	etm2_flow_config_init(&cfg);
	cfg.etm.etmcr = c->etmcr | (1u << ETM2_ETMCR_PORT_SIZE_SHIFT);
	cfg.etm.version = c->version;
	cfg.image = c->img;
	cfg.flags = flags & ETM2_FLOW_RANGES;
	assert_int_equal(etm2_flow_alloc(&d, &cfg), 0);
	d->no_fast = !!(flags & SLOW);
	out->n = 0;
	if (!step)
		step = c->nrecs ? c->nrecs : 1;
	while (at < c->nrecs) {
		size_t m = c->nrecs - at < step ? c->nrecs - at : step;

		assert_int_equal(etm2_flow_feed_records(d, c->recs + at, m), 0);
		drain(d, out);
		at += m;
	}
	assert_int_equal(etm2_flow_finish(d), 0);
	drain(d, out);
	return d;
}

static void render(const struct etmkit_elem *e, char *s, size_t n)
{
	int k = snprintf(s, n, "%llu %s", (unsigned long long)e->offset,
			 etmkit_elem_kind_name(e->kind));

	s += k;
	n -= (size_t)k;
	switch (e->kind) {
	case etmkit_elem_insn:
		k = snprintf(s, n, " 0x%llx %s %s", (unsigned long long)e->addr,
			     isa_name(e->isa),
			     (e->flags & ETMKIT_INSN_EXEC) ? "E" : "N");
		if (e->flags & ETMKIT_INSN_CYCLES)
			k += snprintf(s + k, n - (size_t)k, " c=%u", e->cycles);
		if (e->flags & ETMKIT_INSN_IMPLIED)
			snprintf(s + k, n - (size_t)k, " implied");
		break;
	case etmkit_elem_trace_on:
		snprintf(s, n, " %s 0x%llx %s",
			 etmkit_trace_on_reason_name(e->u.trace_on.reason),
			 (unsigned long long)e->addr, isa_name(e->isa));
		break;
	case etmkit_elem_context:
		snprintf(s, n, " cid=0x%x", e->u.context.context_id);
		break;
	case etmkit_elem_exception:
		k = snprintf(s, n, " 0x%llx %s vec=%u",
			     (unsigned long long)e->addr, isa_name(e->isa),
			     e->u.exception.number);
		assert_true(e->flags & ETMKIT_EXC_VECTOR);
		if (e->flags & ETMKIT_EXC_RET_ADDR)
			k += snprintf(s + k, n - (size_t)k, " ret=0x%llx",
				      (unsigned long long)
					      e->u.exception.ret_addr);
		if (e->flags & ETMKIT_EXC_CANCEL)
			snprintf(s + k, n - (size_t)k, " cancel");
		break;
	case etmkit_elem_data:
		k = 0;
		if (e->flags & ETMKIT_DATA_INSN)
			k += snprintf(s + k, n - (size_t)k, " insn=0x%llx",
				      (unsigned long long)e->addr);
		if (e->flags & ETMKIT_DATA_ADDR)
			k += snprintf(s + k, n - (size_t)k, " addr=0x%llx",
				      (unsigned long long)e->u.data.data_addr);
		if (e->flags & ETMKIT_DATA_VALUE)
			k += snprintf(s + k, n - (size_t)k,
				      " value=0x%llx size=%u",
				      (unsigned long long)e->u.data.value,
				      e->size);
		if (e->flags & ETMKIT_DATA_OOO)
			k += snprintf(s + k, n - (size_t)k, " ooo");
		if (e->u.data.tag)
			snprintf(s + k, n - (size_t)k, " tag=%u",
				 e->u.data.tag);
		break;
	case etmkit_elem_gap:
		snprintf(s, n, " %s", etmkit_loss_name(e->u.loss.reason));
		break;
	case etmkit_elem_no_image:
		snprintf(s, n, " 0x%llx %s %s", (unsigned long long)e->addr,
			 isa_name(e->isa), etmkit_loss_name(e->u.loss.reason));
		break;
	default:
		break;
	}
}

static void assert_same(const struct elems *a, const struct elems *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++)
		if (!elem_same(&a->e[i], &b->e[i], 1))
			fail_msg("element %zu differs", i);
}

static void ranges_match(const struct elems *ref, const struct elems *rng)
{
	size_t at = 0;
	const char *why = etm2_ranges_match(ref->e, ref->n, rng->e, rng->n, &at);

	if (why)
		fail_msg("ranges decode: %s (ranges element %zu)", why, at);
}

/* Run case @text: the elements as expected, however fed, and the ranges
 * form the same. Returns the stats of the one-feed decode via @st. */
static void run_case(const char *text, struct etm2_flow_stats *st)
{
	static struct fcase c;
	static struct elems ref, alt, rng;
	struct etm2_flow_decoder *d;
	char got[160];

	parse_case(&c, text);
	d = decode(&c, 0, 0, &ref);
	if (st)
		*st = *etm2_flow_get_stats(d);
	etm2_flow_free(d);
	for (size_t i = 0; i < ref.n || i < c.nexpect; i++) {
		got[0] = 0;
		if (i < ref.n)
			render(&ref.e[i], got, sizeof(got));
		if (i >= c.nexpect || i >= ref.n || strcmp(got, c.expect[i]))
			fail_msg("element %zu: got \"%s\", expected \"%s\"", i,
				 i < ref.n ? got : "(none)",
				 i < c.nexpect ? c.expect[i] : "(none)");
	}
	etm2_flow_free(decode(&c, SLOW, 0, &alt));
	assert_same(&alt, &ref);
	etm2_flow_free(decode(&c, ETM2_FLOW_RANGES | SLOW, 0, &alt));
	etm2_flow_free(decode(&c, ETM2_FLOW_RANGES, 0, &rng));
	assert_same(&alt, &rng);
	for (size_t step = 1; step <= 3; step++) {
		etm2_flow_free(decode(&c, 0, step, &alt));
		assert_int_equal(alt.n, ref.n);
		assert_same(&alt, &ref);
		etm2_flow_free(decode(&c, ETM2_FLOW_RANGES, step, &alt));
		etm2_flow_free(decode(&c, ETM2_FLOW_RANGES, 0, &rng));
		assert_int_equal(alt.n, rng.n);
		assert_same(&alt, &rng);
		ranges_match(&ref, &rng);
	}
	image_free(c.img);
}

/* ---- Cases -------------------------------------------------------------- */

/* Straight-line IE and IN, a direct branch not taken (IN) and taken (IE)
 * (Q§6.1; docs/etmv2.md 7): the walk goes to the target of a taken direct
 * branch; element offsets are the status cycles. */
static void test_straight_and_direct(void **state)
{
	(void)state;
	run_case("code 0x8000 arm e3a00001 e3500002 0a000003 ea000001 "
		 "e1a00000 e1a00000 e2800001 e1a00000 e1a00000\n"
		 /* 0x8008 beq 0x801c, 0x800c b 0x8018 */
		 "10 tfo 0x8000 arm trace_enable\n"
		 "11 IE\n12 IE\n13 IN\n14 IE\n16 IE\n17 IN\n"
		 /* a periodic TFO elsewhere: its IE there */
		 "18 IE\n20 tfo 0x8004 arm periodic\n21 IN\n"
		 "expect\n"
		 "10 trace_on trace_enable 0x8000 arm\n"
		 "11 insn 0x8000 arm E\n"
		 "12 insn 0x8004 arm E\n"
		 "13 insn 0x8008 arm N\n"
		 "14 insn 0x800c arm E\n"
		 "16 insn 0x8018 arm E\n"
		 "17 insn 0x801c arm N\n"
		 "18 insn 0x8020 arm E\n"
		 "20 insn 0x8004 arm E\n"
		 "21 insn 0x8008 arm N\n",
		 NULL);
}

/* A run of IE statuses inside a block (the decoder's fast path): each
 * instruction at its own status cycle, a wait between changing nothing;
 * the run stops before the block's last instruction, a branch. */
static void test_ie_run(void **state)
{
	(void)state;
	run_case("code 0x8000 arm e1a00000 e1a00000 e1a00000 e1a00000 "
		 "e1a00000 eafffff9\n"            /* 0x8014 b 0x8000 */
		 "0 tfo 0x8000 arm trace_enable\n"
		 "1 IE\n2 IE\n3 IE\n4 wait\n5 IE\n6 IE\n7 IE\n8 IE\n9 IN\n"
		 "expect\n"
		 "0 trace_on trace_enable 0x8000 arm\n"
		 "1 insn 0x8000 arm E\n"
		 "2 insn 0x8004 arm E\n"
		 "3 insn 0x8008 arm E\n"
		 "5 insn 0x800c arm E\n"
		 "6 insn 0x8010 arm E\n"
		 "7 insn 0x8014 arm E\n"
		 "8 insn 0x8000 arm E\n"
		 "9 insn 0x8004 arm N\n",
		 NULL);
}

/* Indirect branches with their address in the DE's group (Q§6.4),
 * A32 to T32 and back; one without (IE): the instructions after it are
 * lost, one no_address gap, until a branch address places the walk
 * again. */
static void test_indirect(void **state)
{
	struct etm2_flow_stats st;

	(void)state;
	run_case("code 0x8000 arm e1a00000 e12fff13\n"  /* nop; bx r3 */
		 "code 0x9000 thumb 2001 4718\n"        /* movs; bx r3 */
		 "0 tfo 0x8000 arm trace_enable\n"
		 "1 IE\n"
		 "2 DE\n2 branch 0x9000 thumb\n"
		 "3 IE\n"
		 "4 DE\n4 branch 0x8000 arm\n"
		 "5 IE\n6 IE\n7 IE\n8 IN\n"
		 "9 DE\n9 branch 0x8000 arm\n"
		 "10 IE\n"
		 "expect\n"
		 "0 trace_on trace_enable 0x8000 arm\n"
		 "1 insn 0x8000 arm E\n"
		 "2 insn 0x8004 arm E\n"
		 "3 insn 0x9000 thumb E\n"
		 "4 insn 0x9002 thumb E\n"
		 "5 insn 0x8000 arm E\n"
		 "6 insn 0x8004 arm E\n"
		 "7 gap no_address\n"
		 "10 insn 0x8000 arm E\n",
		 &st);
	assert_int_equal(st.insns, 7);
	assert_int_equal(st.statuses_lost, 3);
}

/* Phantoms (Q§6.1.2): the folded direct branch, taken (PT: to its
 * target) or not (PN), then the instruction after it with the status in
 * the prefix's place. A phantom over an instruction that is no direct
 * branch is no_image (mismatch); the walk is lost until the next
 * address. */
static void test_phantom(void **state)
{
	(void)state;
	run_case("code 0x8000 arm ea000000 e1a00000 e2800001 1a000000 "
		 "e1a00000 e1a00000 e3a00001\n"
		 /* 0x8000 b 0x8008; 0x800c bne 0x8014 */
		 "0 tfo 0x8000 arm trace_enable\n"
		 "1 PTIE\n2 PNIN\n3 IE\n4 PTIE\n5 IE\n"
		 "expect\n"
		 "0 trace_on trace_enable 0x8000 arm\n"
		 "1 insn 0x8000 arm E\n"
		 "1 insn 0x8008 arm E\n"
		 "2 insn 0x800c arm N\n"
		 "2 insn 0x8010 arm N\n"
		 "3 insn 0x8014 arm E\n"
		 "4 no_image 0x8018 arm mismatch\n",
		 NULL);
}

/* Cycle-accurate (ETMCR[12]): an instruction's cycles are its status
 * cycle less the previous instruction's, from the TFO that started
 * tracing; a periodic TFO mid-run is an IE at its address (Q§6.5.1); an
 * overflow TFO: overflow, then trace_on (Q Table 6.7). A phantom's second
 * instruction has 0 cycles. */
static void test_cycles_periodic_overflow(void **state)
{
	(void)state;
	run_case("config etmcr=0x1000\n"
		 "code 0x8000 arm e1a00000 e1a00000 e1a00000 e1a00000 "
		 "ea000000\n"                   /* 0x8010 b 0x8018 */
		 "code 0x8018 arm e1a00000\n"
		 "0 tfo 0x8000 arm trace_enable\n"
		 "3 IE\n4 IE\n8 tfo 0x8008 arm periodic\n9 IN\n"
		 "12 PTIE\n"
		 "20 tfo 0x8004 arm overflow\n22 IE\n"
		 "expect\n"
		 "0 trace_on trace_enable 0x8000 arm\n"
		 "3 insn 0x8000 arm E c=3\n"
		 "4 insn 0x8004 arm E c=1\n"
		 "8 insn 0x8008 arm E c=4\n"
		 "9 insn 0x800c arm N c=1\n"
		 "12 insn 0x8010 arm E c=3\n"
		 "12 insn 0x8018 arm E c=0\n"
		 "20 overflow\n"
		 "20 trace_on overflow 0x8004 arm\n"
		 "22 insn 0x8004 arm E c=2\n",
		 NULL);
}

/* Data (Q§6.4; docs/etmv2.md 7): a DE's packets after its instruction;
 * an LDM's transfers, the first with A = 1, go on in a DW group (A = 0:
 * the LDM's, even after another instruction executed); a load
 * miss's data (DW, later) goes to the instruction of its "occurred"
 * packet of the same tag, out of order. */
static void test_data(void **state)
{
	(void)state;
	run_case("config etmcr=0xc\n"
		 "code 0x8000 arm e5901000 e8900006 e5801000 e1a00000 "
		 "e5901000 e1a00000 e8900006 e1a00000\n"
		 "0 tfo 0x8000 arm trace_enable\n"
		 "1 DE\n1 data a=1 addr=0x20000 value=0x11 bytes=1\n"
		 "2 DE\n2 data a=1 addr=0x20004 value=0x1234 bytes=2\n"
		 "2 data value=0 bytes=0\n"
		 "3 DW\n3 data value=0x12345678 bytes=4\n"
		 "4 DE\n4 data a=1 addr=0x20000 value=5 bytes=1\n"
		 "5 IE\n"
		 "6 DE\n6 miss a=1 addr=0x30000 tag=2\n"
		 "7 IE\n"
		 "8 DW\n8 missdata value=0xabcd bytes=2 tag=2\n"
		 "9 DE\n9 data a=1 addr=0x20010 value=1 bytes=1\n"
		 "10 IE\n"
		 "11 DW\n11 data value=2 bytes=1\n"
		 "expect\n"
		 "0 trace_on trace_enable 0x8000 arm\n"
		 "1 insn 0x8000 arm E\n"
		 "1 data insn=0x8000 addr=0x20000 value=0x11 size=1\n"
		 "2 insn 0x8004 arm E\n"
		 "2 data insn=0x8004 addr=0x20004 value=0x1234 size=2\n"
		 "2 data insn=0x8004 value=0x0 size=0\n"
		 "3 data insn=0x8004 value=0x12345678 size=4\n"
		 "4 insn 0x8008 arm E\n"
		 "4 data insn=0x8008 addr=0x20000 value=0x5 size=1\n"
		 "5 insn 0x800c arm E\n"
		 "6 insn 0x8010 arm E\n"
		 "6 data insn=0x8010 addr=0x30000 tag=2\n"
		 "7 insn 0x8014 arm E\n"
		 "8 data insn=0x8010 value=0xabcd size=2 ooo tag=2\n"
		 "9 insn 0x8018 arm E\n"
		 "9 data insn=0x8018 addr=0x20010 value=0x1 size=1\n"
		 "10 insn 0x801c arm E\n"
		 "11 data insn=0x8018 value=0x2 size=1\n",
		 NULL);
}

/* Context IDs (ETMCR[15:14] = 1 byte): one at trace_on, then on change
 * (a context ID packet, or a periodic TFO's field); an exception entry
 * is a branch address in a DW group (docs/etmv2.md 7): IRQ's vector 0x18
 * is number 6, the return address where the walk stood; a trigger
 * (Q§6.1.7). */
static void test_context_exception_trigger(void **state)
{
	(void)state;
	run_case("config etmcr=0x4000\n"
		 "code 0x8000 arm e1a00000 e1a00000 e1a00000\n"
		 "code 0x18 arm e1a00000\n"
		 "0 tfo 0x8000 arm trace_enable cid=5\n"
		 "1 IE\n"
		 "2 DW\n2 branch 0x18 arm\n"
		 "3 IE\n"
		 "4 DW\n4 cid 7\n"
		 "5 trigger\n"
		 "6 tfo 0x8004 arm periodic cid=7\n"
		 "7 tfo 0x8008 arm periodic cid=9\n"
		 "8 DW\n8 branch 0xffff001c arm\n"
		 "expect\n"
		 "0 trace_on trace_enable 0x8000 arm\n"
		 "0 context cid=0x5\n"
		 "1 insn 0x8000 arm E\n"
		 "2 exception 0x18 arm vec=6 ret=0x8004\n"
		 "3 insn 0x18 arm E\n"
		 "4 context cid=0x7\n"
		 "5 trigger\n"
		 "6 insn 0x8004 arm E\n"
		 "7 context cid=0x9\n"
		 "7 insn 0x8008 arm E\n"
		 "8 exception 0xffff001c arm vec=7 ret=0x800c\n",
		 NULL);
}

/* An LSiP TFO implies its LDM (Q§7.14.2 as docs/etmv2.md 6 assumes),
 * the walk going on at its next address; a branch address for an
 * instruction that cannot branch, or that failed its condition (DN, a
 * protocol error: docs/etmv2.md 7), is no_image (mismatch), the walk
 * going on at the address; a reserved header is a
 * gap, nothing placed until the next TFO; no code at a TFO's address is
 * no_image (unmapped). */
static void test_lsip_mismatch_error_no_image(void **state)
{
	struct etm2_flow_stats st;

	(void)state;
	run_case("code 0x8000 arm e8900006 e1a00000 e1a00000\n"
		 "0 tfo 0x8000 arm trace_enable lsip=0x8008\n"
		 "1 DE\n1 branch 0x8000 arm\n"
		 "2 DN\n2 branch 0x8000 arm\n"
		 "3 IE\n"
		 "4 error\n"
		 "5 IE\n"
		 "6 tfo 0xa000 arm trace_enable\n"
		 "7 IE\n8 IE\n"
		 "expect\n"
		 "0 trace_on trace_enable 0x8000 arm\n"
		 "0 insn 0x8000 arm E implied\n"
		 "1 insn 0x8008 arm E\n"
		 "1 no_image 0x8008 arm mismatch\n"
		 "2 insn 0x8000 arm N\n"
		 "2 no_image 0x8000 arm mismatch\n"
		 "3 insn 0x8000 arm E\n"
		 "4 gap packet_error\n"
		 "6 trace_on trace_enable 0xa000 arm\n"
		 "7 no_image 0xa000 arm unmapped\n",
		 &st);
	assert_int_equal(st.protocol_errors, 2);
	assert_int_equal(st.statuses_lost, 3);
}

/* ---- ETMv1 (docs/etmv2.md 7b) --------------------------------------------- */

/* Start at the first full branch address (reason 1: trace_on
 * trace_enable; the BE's own instruction and the IE before it are not
 * known); ID: the instruction and its one 4-byte transfer; BE: an
 * executed indirect branch (BX) goes to its address; BD: a load to the
 * PC, its data then its address (Thumb by bit 0); a periodic full
 * address (reason 4) once synced: an ordinary branch target. */
static void test_v1_start_id_bd_periodic(void **state)
{
	struct etm2_flow_stats st;

	(void)state;
	run_case("config etmcr=0xc version=1\n"
		 "code 0x8000 arm e1a00000 e5901000 e12fff12 e1a00000\n"
		 "code 0x9000 arm e1a00000 e59ff000 e1a00000\n"
		 "code 0xa000 thumb 46c0 4770\n"
		 "0 IE\n"
		 "1 BE\n1 branch 0x8000 arm reason=1 first\n"
		 "4 IE\n"
		 "5 ID\n5 data a=1 addr=0x20000 value=0x12345678 bytes=4\n"
		 "6 BE\n6 branch 0x9000 arm\n"
		 "9 IE\n"
		 "10 BD\n10 data a=1 addr=0x9010 value=0xa001 bytes=4\n"
		 "10 branch 0xa000 thumb\n"
		 "13 IE\n"
		 "14 BE\n14 branch 0x8000 arm reason=4\n"
		 "17 IE\n"
		 "expect\n"
		 "1 trace_on trace_enable 0x8000 arm\n"
		 "4 insn 0x8000 arm E\n"
		 "5 insn 0x8004 arm E\n"
		 "5 data insn=0x8004 addr=0x20000 value=0x12345678 size=4\n"
		 "6 insn 0x8008 arm E\n"
		 "9 insn 0x9000 arm E\n"
		 "10 insn 0x9004 arm E\n"
		 "10 data insn=0x9004 addr=0x9010 value=0xa001 size=4\n"
		 "13 insn 0xa000 thumb E\n"
		 "14 insn 0xa002 thumb E\n"
		 "17 insn 0x8000 arm E\n",
		 &st);
	assert_int_equal(st.statuses_lost, 2);
	assert_int_equal(st.insns, 8);
}

/* Restarts (docs/etmv2.md 7b): a start at a BD with reason 4 (its data
 * dropped with it: trace_on periodic); reasons 2, 3 and 1 once synced
 * restart as a TFO of that reason (an overflow element first for 2) and
 * the BE/BD stands for no instruction (a BD's data dropped); the context
 * ID after a reason address: an element after trace_on, and later only
 * when it changed (reason 4 repeats it). */
static void test_v1_restarts_context(void **state)
{
	(void)state;
	run_case("config etmcr=0x400c version=1\n"
		 "code 0x8000 arm e1a00000 e1a00000 e1a00000 e1a00000 "
		 "e12fff10\n"
		 "0 BD\n0 data a=1 addr=0x40000 value=1 bytes=4\n"
		 "0 branch 0x8000 arm reason=4 first\n0 cid 5\n"
		 "3 IE\n4 IE\n"
		 "5 BE\n5 branch 0x8008 arm reason=2\n5 cid 5\n"
		 "8 IE\n9 IE\n"
		 "10 BE\n10 branch 0x8000 arm reason=4\n10 cid 5\n"
		 "13 IE\n"
		 "14 BE\n14 branch 0x8004 arm reason=3\n14 cid 6\n"
		 "17 IE\n"
		 "18 BE\n18 branch 0x8000 arm reason=1\n18 cid 6\n"
		 "21 IE\n"
		 "22 BD\n22 data a=1 addr=0x40000 value=3 bytes=4\n"
		 "22 branch 0x800c arm reason=2\n22 cid 6\n"
		 "25 IE\n"
		 "expect\n"
		 "0 trace_on periodic 0x8000 arm\n"
		 "0 context cid=0x5\n"
		 "3 insn 0x8000 arm E\n"
		 "4 insn 0x8004 arm E\n"
		 "5 overflow\n"
		 "5 trace_on overflow 0x8008 arm\n"
		 "5 context cid=0x5\n"
		 "8 insn 0x8008 arm E\n"
		 "9 insn 0x800c arm E\n"
		 "10 insn 0x8010 arm E\n"
		 "13 insn 0x8000 arm E\n"
		 "14 trace_on debug_exit 0x8004 arm\n"
		 "14 context cid=0x6\n"
		 "17 insn 0x8004 arm E\n"
		 "18 trace_on trace_enable 0x8000 arm\n"
		 "18 context cid=0x6\n"
		 "21 insn 0x8000 arm E\n"
		 "22 overflow\n"
		 "22 trace_on overflow 0x800c arm\n"
		 "22 context cid=0x6\n"
		 "25 insn 0x800c arm E\n",
		 NULL);
}

/* Exception entries (docs/etmv2.md 7b, ASSUMED): a BE to a vector while
 * the instruction at the walk position is no branch stands for no
 * instruction (IRQ 0x18 over a NOP; undefined 0x04 over a STR), the walk
 * position the return address; an SVC with the SVC vector executed, the
 * next its return address; a load with the data abort vector (BD: its
 * data first) aborted (cancel, the load its return address); a BD to
 * another vector: its instruction executed, then the exception; a
 * branch instruction (BX LR, MOVS PC, SUBS PC) at the walk position is
 * a branch. */
static void test_v1_exceptions(void **state)
{
	(void)state;
	run_case("config etmcr=0xc version=1\n"
		 "code 0x8000 arm e1a00000 ef000000 e5901000 e1a00000 "
		 "e5801000 e1a00000\n"
		 "code 0x0 arm e1a00000 e1a00000 e1a00000 e1b0f00e "
		 "e1a00000 e25ef004 e1a00000 e12fff1e\n"
		 "0 BE\n0 branch 0x8000 arm reason=1 first\n"
		 "3 BE\n3 branch 0x18 arm\n"
		 "6 IE\n"
		 "7 BE\n7 branch 0x8000 arm\n"
		 "10 IE\n"
		 "11 BE\n11 branch 0x8 arm\n"
		 "14 IE\n"
		 "15 BE\n15 branch 0x8008 arm\n"
		 "18 BD\n18 data a=1 addr=0x30000 value=0 bytes=4\n"
		 "18 branch 0x10 arm\n"
		 "21 IE\n"
		 "22 BE\n22 branch 0x800c arm\n"
		 "25 IE\n"
		 "26 BE\n26 branch 0x4 arm\n"
		 "29 IE\n"
		 "30 BD\n30 data a=1 addr=0x30004 value=1 bytes=4\n"
		 "30 branch 0x1c arm\n"
		 "33 IE\n"
		 "expect\n"
		 "0 trace_on trace_enable 0x8000 arm\n"
		 "3 exception 0x18 arm vec=6 ret=0x8000\n"
		 "6 insn 0x18 arm E\n"
		 "7 insn 0x1c arm E\n"
		 "10 insn 0x8000 arm E\n"
		 "11 insn 0x8004 arm E\n"
		 "11 exception 0x8 arm vec=2 ret=0x8008\n"
		 "14 insn 0x8 arm E\n"
		 "15 insn 0xc arm E\n"
		 "18 insn 0x8008 arm E\n"
		 "18 data insn=0x8008 addr=0x30000 value=0x0 size=4\n"
		 "18 exception 0x10 arm vec=4 ret=0x8008 cancel\n"
		 "21 insn 0x10 arm E\n"
		 "22 insn 0x14 arm E\n"
		 "25 insn 0x800c arm E\n"
		 "26 exception 0x4 arm vec=1 ret=0x8010\n"
		 "29 insn 0x4 arm E\n"
		 "30 insn 0x8 arm E\n"
		 "30 data insn=0x8 addr=0x30004 value=0x1 size=4\n"
		 "30 exception 0x1c arm vec=7 ret=0xc\n"
		 "33 insn 0x1c arm E\n",
		 NULL);
}

/* A BE (no data tracing) to the data abort vector (docs/etmv2.md 7b,
 * ASSUMED): over a load or a store (low and high vectors) that
 * instruction executed and aborted (section 7's data abort: cancel, the
 * load or store the return address); over an instruction that makes no
 * transfer it stands for no instruction, as any other vector. */
static void test_v1_be_data_abort(void **state)
{
	(void)state;
	run_case("config etmcr=0 version=1\n"
		 "code 0x8000 arm e1a00000 e5901000 e5801000\n"
		 "code 0x10 arm e1a00000 e25ef004\n"
		 "code 0xffff0010 arm e1a00000 e1a00000\n"
		 "0 BE\n0 branch 0x8000 arm reason=1 first\n"
		 "3 IE\n"
		 "4 BE\n4 branch 0x10 arm\n"
		 "7 IE\n"
		 "8 BE\n8 branch 0x8008 arm\n"
		 "11 BE\n11 branch 0xffff0010 arm\n"
		 "14 IE\n"
		 "15 BE\n15 branch 0x10 arm\n"
		 "18 IE\n"
		 "expect\n"
		 "0 trace_on trace_enable 0x8000 arm\n"
		 "3 insn 0x8000 arm E\n"
		 "4 insn 0x8004 arm E\n"
		 "4 exception 0x10 arm vec=4 ret=0x8004 cancel\n"
		 "7 insn 0x10 arm E\n"
		 "8 insn 0x14 arm E\n"
		 "11 insn 0x8008 arm E\n"
		 "11 exception 0xffff0010 arm vec=4 ret=0x8008 cancel\n"
		 "14 insn 0xffff0010 arm E\n"
		 "15 exception 0x10 arm vec=4 ret=0xffff0014\n"
		 "18 insn 0x10 arm E\n",
		 NULL);
}

/* A branch instruction at the walk position is a branch, vector or not
 * (docs/etmv2.md 7b): a BE to the IRQ vector over BX LR is the BX; no
 * exception element. */
static void test_v1_branch_to_vector(void **state)
{
	(void)state;
	run_case("config etmcr=0 version=1\n"
		 "code 0x8000 arm e1a00000 e12fff1e\n"
		 "code 0x18 arm e1a00000 e1a00000\n"
		 "0 BE\n0 branch 0x8000 arm reason=1 first\n"
		 "3 IE\n"
		 "4 BE\n4 branch 0x18 arm\n"
		 "7 IE\n"
		 "expect\n"
		 "0 trace_on trace_enable 0x8000 arm\n"
		 "3 insn 0x8000 arm E\n"
		 "4 insn 0x8004 arm E\n"
		 "7 insn 0x18 arm E\n",
		 NULL);
}

/* Cycle-accurate ETMv1 (Q§5.10; docs/etmv2.md 7b): cycles count from
 * the start's and a restart's BE; a BE whose address never comes (an
 * error, the end of the records) is its instruction all the same. */
static void test_v1_cycles_cut(void **state)
{
	(void)state;
	run_case("config etmcr=0x1000 version=1\n"
		 "code 0x8000 arm e1a00000 e1a00000 e12fff10 e1a00000\n"
		 "0 BE\n0 branch 0x8000 arm reason=1 first\n"
		 "3 IE\n4 IE\n"
		 "5 BE\n5 branch 0x8000 arm\n"
		 "8 IE\n"
		 "10 BE\n10 branch 0x8004 arm reason=2\n"
		 "13 IE\n"
		 "14 BE\n14 error\n"
		 "16 BE\n16 branch 0x8000 arm reason=1 first\n"
		 "19 IE\n"
		 "20 IE\n"
		 "21 BE\n"
		 "expect\n"
		 "0 trace_on trace_enable 0x8000 arm\n"
		 "3 insn 0x8000 arm E c=3\n"
		 "4 insn 0x8004 arm E c=1\n"
		 "5 insn 0x8008 arm E c=1\n"
		 "8 insn 0x8000 arm E c=3\n"
		 "10 overflow\n"
		 "10 trace_on overflow 0x8004 arm\n"
		 "13 insn 0x8004 arm E c=3\n"
		 "14 insn 0x8008 arm E c=1\n"
		 "14 gap packet_error\n"
		 "16 trace_on trace_enable 0x8000 arm\n"
		 "19 insn 0x8000 arm E c=3\n"
		 "20 insn 0x8004 arm E c=1\n"
		 "21 insn 0x8008 arm E c=1\n",
		 NULL);
}

/* A transport gap while an ETMv1 BE waits for its address
 * (docs/etmv2.md 7b): the BE is its instruction (the BX), then the gap
 * after the last record fed; nothing after it until the next start. */
static void test_v1_gap(void **state)
{
	static struct fcase c;
	static struct elems out;
	static const char *const want[] = {
		"0 trace_on trace_enable 0x8000 arm", "3 insn 0x8000 arm E",
		"4 insn 0x8004 arm E", "5 gap transport",
		"9 trace_on trace_enable 0x8000 arm", "12 insn 0x8000 arm E",
	};
	struct etm2_flow_config cfg;
	struct etm2_flow_decoder *d;
	char got[160];

	(void)state;
	parse_case(&c, "config etmcr=0 version=1\n"
		       "code 0x8000 arm e1a00000 e12fff10\n"
		       "0 BE\n0 branch 0x8000 arm reason=1 first\n"
		       "3 IE\n4 BE\n"
		       "8 IE\n"
		       "9 BE\n9 branch 0x8000 arm reason=1 first\n12 IE\n");
	etm2_flow_config_init(&cfg);
	cfg.etm.etmcr = 1u << ETM2_ETMCR_PORT_SIZE_SHIFT;
	cfg.etm.version = 1;
	cfg.image = c.img;
	assert_int_equal(etm2_flow_alloc(&d, &cfg), 0);
	out.n = 0;
	assert_int_equal(etm2_flow_feed_records(d, c.recs, 4), 0);
	drain(d, &out);
	assert_int_equal(out.n, 2); /* the BE is held */
	assert_int_equal(etm2_flow_gap(d), 0);
	assert_int_equal(etm2_flow_feed_records(d, c.recs + 4, c.nrecs - 4), 0);
	drain(d, &out);
	assert_int_equal(etm2_flow_finish(d), 0);
	drain(d, &out);
	assert_int_equal(out.n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < out.n; i++) {
		render(&out.e[i], got, sizeof(got));
		assert_string_equal(got, want[i]);
	}
	etm2_flow_free(d);
	image_free(c.img);
}

/* ---- Captures: tests/etmv2/flow/ (.e2t files) ------------------------------------ */

/* Decode @t's cycles from cycle @from on through the packet decoder,
 * @step cycles a feed, in form @flags, into @out. */
static void decode_from(const struct e2t *t, const struct image *img,
			uint32_t flags, size_t step, size_t from,
			struct elems *out)
{
	struct etm2_flow_config cfg;
	struct etm2_flow_decoder *d;
	size_t at = from;

	etm2_flow_config_init(&cfg);
	cfg.etm = t->cfg;
	cfg.image = img;
	cfg.flags = flags;
	assert_int_equal(etm2_flow_alloc(&d, &cfg), 0);
	out->n = 0;
	while (at < t->n_cycles) {
		size_t m = t->n_cycles - at < step ? t->n_cycles - at : step;

		assert_int_equal(etm2_flow_feed(d, t->cycles + at, m, at), 0);
		drain(d, out);
		at += m;
	}
	assert_int_equal(etm2_flow_finish(d), 0);
	drain(d, out);
	assert_int_equal(etm2_flow_get_stats(d)->cycles, t->n_cycles - from);
	etm2_flow_free(d);
}

static void decode_cycles(const struct e2t *t, const struct image *img,
			  uint32_t flags, size_t step, struct elems *out)
{
	decode_from(t, img, flags, step, 0, out);
}

/* Decoding starts at any cycle (docs/etmv2.md 6; 7b for ETMv1): from
 * every cycle @k on, nothing comes before the first trace_on (but its
 * overflow), and after its cycle the elements are the full decode's
 * after that cycle. */
static int cuts(const char *file, const struct e2t *t,
		const struct image *img, const struct elems *full)
{
	static struct elems got;
	size_t synced = 0, later = 0;

	/* a trace_on after cycle 0: the cuts before it must sync */
	for (size_t j = 0; j < full->n; j++)
		later |= full->e[j].kind == etmkit_elem_trace_on &&
			 full->e[j].offset >= 1;
	for (size_t k = 1; k < t->n_cycles; k++) {
		size_t i = 0, j = 0;
		uint64_t c;

		decode_from(t, img, 0, 1, k, &got);
		if (!got.n)
			continue;
		synced++;
		/* (an overflow element comes before its trace_on) */
		i = got.n > 1 && got.e[0].kind == etmkit_elem_overflow;
		if (got.e[i].kind != etmkit_elem_trace_on) {
			print_error("%s: cut %zu: %s before trace_on\n", file,
				    k, etmkit_elem_kind_name(got.e[i].kind));
			return 0;
		}
		c = got.e[i].offset;
		while (i < got.n && got.e[i].offset <= c)
			i++;
		while (j < full->n && full->e[j].offset <= c)
			j++;
		if (got.n - i != full->n - j) {
			print_error("%s: cut %zu: %zu elements after cycle %llu, "
				    "the full decode %zu\n", file, k, got.n - i,
				    (unsigned long long)c, full->n - j);
			return 0;
		}
		for (; i < got.n; i++, j++)
			if (!elem_same(&got.e[i], &full->e[j], 1)) {
				print_error("%s: cut %zu: element %zu differs\n",
					    file, k, j);
				return 0;
			}
	}
	if (later && !synced) {
		print_error("%s: no cut synchronised\n", file);
		return 0;
	}
	return 1;
}

/* One .e2t case: its code blocks as the image (arm: 32-bit words, thumb:
 * one 16-bit halfword a word), its cycles decoded whole and one a feed,
 * in both forms; the elements as its expect-elements block says. */
static int e2t_case(const char *dir, const char *file)
{
	static struct e2t t;
	static struct elems ref, alt, rng;
	static uint8_t code[E2T_MAX_CODE][1024];
	struct image *img = NULL;
	char path[512], got[160];
	size_t at = 0;
	const char *why;
	int ok = 1;

	snprintf(path, sizeof(path), "%.250s/%.200s", dir, file);
	if (e2t_load(&t, path)) {
		print_error("%s\n", t.err);
		return 0;
	}
	assert_int_equal(image_alloc(&img), 0);
	for (size_t c = 0; c < t.n_code; c++) {
		size_t n = 0, w = t.code[c].thumb ? 2 : 4;

		assert_true(t.code[c].n * w <= sizeof(code[c]));
		for (size_t i = 0; i < t.code[c].n; i++)
			for (size_t k = 0; k < w; k++)
				code[c][n++] =
					(uint8_t)(t.code[c].words[i] >> (8 * k));
		assert_int_equal(image_add_buffer(img, code[c], n,
						  t.code[c].addr, 0), 0);
	}
	decode_cycles(&t, img, 0, t.n_cycles ? t.n_cycles : 1, &ref);
	for (size_t i = 0; i < ref.n || i < t.n_expect_elements; i++) {
		got[0] = 0;
		if (i < ref.n)
			render(&ref.e[i], got, sizeof(got));
		if (i >= t.n_expect_elements || i >= ref.n ||
		    strcmp(got, t.expect_elements[i])) {
			print_error("%s: element %zu: got \"%s\", expected "
				    "\"%s\"\n", file, i,
				    i < ref.n ? got : "(none)",
				    i < t.n_expect_elements ?
					    t.expect_elements[i] : "(none)");
			ok = 0;
			break;
		}
	}
	decode_cycles(&t, img, 0, 1, &alt);
	assert_same(&alt, &ref);
	decode_cycles(&t, img, ETM2_FLOW_RANGES, t.n_cycles ? t.n_cycles : 1,
		      &rng);
	decode_cycles(&t, img, ETM2_FLOW_RANGES, 1, &alt);
	assert_same(&alt, &rng);
	why = etm2_ranges_match(ref.e, ref.n, rng.e, rng.n, &at);
	if (why) {
		print_error("%s: ranges: %s (element %zu)\n", file, why, at);
		ok = 0;
	}
	if (ok && !cuts(file, &t, img, &ref))
		ok = 0;
	image_free(img);
	e2t_free(&t);
	return ok;
}

/* Every tests/etmv2/flow/ (.e2t files): cycles through the packet decoder and the
 * flow decoder, the elements written by hand. */
static void test_e2t_cases(void **state)
{
	DIR *d = opendir(ETM2_FLOW_DIR);
	struct dirent *e;
	int cases = 0, failed = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (l < 5 || strcmp(e->d_name + l - 4, ".e2t"))
			continue;
		cases++;
		failed += !e2t_case(ETM2_FLOW_DIR, e->d_name);
	}
	closedir(d);
	assert_true(cases >= 4);
	assert_int_equal(failed, 0);
}

/* ---- Round trips through the encoder ------------------------------------- */

/* Decode the cycles @cy with @cfg (its image set), whole, into @out. */
static void decode_capture(const struct etm2_flow_config *cfg,
			   const struct ts_cycles *cy, struct elems *out)
{
	struct etm2_flow_decoder *d;

	assert_int_equal(etm2_flow_alloc(&d, cfg), 0);
	out->n = 0;
	assert_int_equal(etm2_flow_feed(d, cy->c, cy->n, 0), 0);
	drain(d, out);
	assert_int_equal(etm2_flow_finish(d), 0);
	drain(d, out);
	etm2_flow_free(d);
}

/* Whether the status of record instruction @x says it failed: its
 * condition failed, or it is a branch not taken (Q§6.1: a branch's
 * status is IE taken, IN not). */
static int failed(const struct exec_rec *x)
{
	return (x->flags & EXEC_F_COND_FAIL) ||
	       (x->flags & (EXEC_F_BRANCH | EXEC_F_TAKEN)) == EXEC_F_BRANCH;
}

/* The ARM vector index of @addr, worked from docs/etmv2.md 7 (low
 * vectors 0x00-0x1C, high 0xFFFF0000-0xFFFF001C, else 0xFFFF). */
static unsigned vector_want(uint64_t addr)
{
	uint64_t v = addr >= 0xFFFF0000u ? addr - 0xFFFF0000u : addr;

	return v <= 0x1C && !(v & 3) ? (unsigned)(v >> 2) : 0xFFFFu;
}

/* QEMU armhf runs of tests/workloads/tiny.c (A32 with T32 interworking)
 * and the A32/T32 record with exceptions, encoded by etm2_enc_* (written
 * from docs/etmv2.md by another hand) under 4, 8 and 16-bit ports, data
 * trace, context IDs, cycle-accurate mode, branch output and phantoms,
 * and decoded by the flow decoder over the record's own code: every
 * instruction of the record, in order, at its address, executed or
 * failed as the record says; no gap, no no_image; the ranges form the
 * same (etm2_ranges_match.h). And, by docs/etmv2.md 7a: every exception
 * whose handler trace does not restart at (a gap, or no instruction
 * before) is an exception element right before the handler, with the
 * vector number of its address and the record's return address, and no
 * other; cycle-accurate without phantoms, every instruction's cycles
 * are the record's (1 when absent or 0) or, if more, 1 + a DW cycle
 * (an exception or context element not from a TFO) + on a 4-bit port a
 * trace-on TFO's second cycle. */
static void test_round_trips(void **state)
{
	static const char *const inputs[] = {
		"qemu/tiny-a32-block.log", "qemu/tiny-a32-state.log",
		"records/a32_t32_flow.txt",
	};
	static const uint32_t crs[] = {
		0,
		ETM2_ETMCR_CYCLE_ACCURATE | (3u << ETM2_ETMCR_CID_SHIFT),
		ETM2_ETMCR_DATA_VALUE | ETM2_ETMCR_DATA_ADDR,
		ETM2_ETMCR_DATA_VALUE | ETM2_ETMCR_BRANCH_OUTPUT |
			(1u << ETM2_ETMCR_CID_SHIFT),
	};
	static const uint8_t widths[3] = { 4, 8, 16 };
	static struct elems ref, rng;
	unsigned run = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		struct ts_rec rc = { 0 };
		struct ts_rec_code code = { 0 };
		char path[512];

		snprintf(path, sizeof(path), "%s/%s", ETMKIT_TEST_DATA,
			 inputs[i]);
		assert_int_equal(ts_rec_read(path, &rc), 0);
		assert_int_equal(ts_rec_code(&code, &rc), 0);
		for (size_t k = 0; k < sizeof(crs) / sizeof(crs[0]); k++)
			for (unsigned w = 0; w < 3; w++, run++) {
				struct etm2_enc_config ec;
				struct etm2_enc *e;
				struct etm2_flow_config fc;
				struct ts_cycles cy = { 0 };
				size_t at = 0, j = 0;
				const char *why;
				const struct exec_rec *exc = NULL;
				int traced = 0;

				etm2_enc_config_init(&ec);
				ec.etm.etmcr = crs[k];
				ec.etm.port_width = widths[w];
				ec.etm.fifo_latency = (uint8_t)(run & 1);
				ec.flags = run & 2 ? ETM2_ENC_PHANTOMS : 0;
				ec.miss_every = run % 3;
				ec.sync_period = run & 4 ? 32 : 0;
				ec.fifo_depth = 4096;
				assert_int_equal(etm2_enc_alloc(&e, &ec,
								ts_cycles_sink,
								&cy), 0);
				for (size_t r = 0; r < rc.n; r++)
					assert_int_equal(etm2_enc_put(e,
								      &rc.r[r]),
							 0);
				assert_int_equal(etm2_enc_finish(e), 0);
				assert_int_equal(
					etm2_enc_get_stats(e)->insns_lost, 0);
				etm2_enc_free(e);
				etm2_flow_config_init(&fc);
				fc.etm = ec.etm;
				fc.image = code.img;
				decode_capture(&fc, &cy, &ref);
				for (size_t r = 0; r < rc.n; r++) {
					const struct exec_rec *x = &rc.r[r];
					const struct etmkit_elem *q;
					unsigned dw = 0, tfo = 0, exc_seen = 0;
					uint32_t want;

					if (x->kind == exec_gap)
						traced = 0, exc = NULL;
					if (x->kind == exec_exception && traced)
						exc = x;
					if (x->kind != exec_insn)
						continue;
					while (j < ref.n &&
					       ref.e[j].kind != etmkit_elem_insn) {
						q = &ref.e[j];
						if (q->kind == etmkit_elem_trace_on)
							tfo = 1;
						if ((q->kind ==
							     etmkit_elem_context ||
						     q->kind ==
							     etmkit_elem_exception) &&
						    !tfo)
							dw = 1;
						if (q->kind ==
							    etmkit_elem_exception &&
						    (!exc || exc_seen ||
						     q->addr != x->addr ||
						     q->u.exception.ret_addr !=
							     exc->addr ||
						     q->u.exception.number !=
							     vector_want(x->addr)))
							fail_msg("%s run %u: "
								 "exception "
								 "element %zu",
								 inputs[i], run,
								 j);
						if (q->kind ==
						    etmkit_elem_exception)
							exc_seen = 1;
						if (ref.e[j].kind ==
							    etmkit_elem_gap ||
						    ref.e[j].kind ==
							    etmkit_elem_no_image)
							fail_msg("%s run %u: "
								 "element %zu "
								 "is a loss",
								 inputs[i], run,
								 j);
						j++;
					}
					if (j == ref.n)
						fail_msg("%s run %u: the "
							 "instruction at 0x%llx "
							 "(item %zu) missing",
							 inputs[i], run,
							 (unsigned long long)
								 x->addr, r);
					if (exc && !exc_seen)
						fail_msg("%s run %u: no exception "
							 "before 0x%llx",
							 inputs[i], run,
							 (unsigned long long)
								 x->addr);
					exc = NULL;
					traced = 1;
					q = &ref.e[j++];
					want = (x->flags & EXEC_F_CYCLES) &&
							       x->cycles > 1
						       ? x->cycles
						       : 1;
					if (want < 1 + dw + (tfo && w == 0))
						want = 1 + dw + (tfo && w == 0);
					if ((ec.etm.etmcr &
					     ETM2_ETMCR_CYCLE_ACCURATE) &&
					    !(ec.flags & ETM2_ENC_PHANTOMS) &&
					    q->cycles != want)
						fail_msg("%s run %u: 0x%llx: %u "
							 "cycles, want %u",
							 inputs[i], run,
							 (unsigned long long)
								 x->addr,
							 q->cycles, want);
					if (q->addr != x->addr ||
					    !(q->flags & ETMKIT_INSN_COND_FAIL) !=
						    !failed(x))
						fail_msg("%s run %u: item %zu: "
							 "0x%llx, decoded "
							 "0x%llx flags 0x%x",
							 inputs[i], run, r,
							 (unsigned long long)
								 x->addr,
							 (unsigned long long)
								 q->addr,
							 q->flags);
				}
				for (; j < ref.n; j++)
					assert_int_not_equal(ref.e[j].kind,
							     etmkit_elem_insn);
				fc.flags = ETM2_FLOW_RANGES;
				decode_capture(&fc, &cy, &rng);
				why = etm2_ranges_match(ref.e, ref.n, rng.e,
							rng.n, &at);
				if (why)
					fail_msg("%s run %u: ranges: %s "
						 "(element %zu)", inputs[i],
						 run, why, at);
				free(cy.c);
			}
		ts_rec_code_free(&code);
		ts_rec_free(&rc);
	}
}

/* ---- Contracts ---------------------------------------------------------- */

static void test_arguments(void **state)
{
	struct etm2_flow_config c;
	struct etm2_flow_decoder *d = NULL;
	const struct etmkit_elem *el;
	struct etmkit_elem e;

	(void)state;
	etm2_flow_config_init(&c);
	assert_int_equal(etm2_flow_alloc(NULL, &c), -etmkit_err_invalid);
	assert_int_equal(etm2_flow_alloc(&d, NULL), -etmkit_err_invalid);
	c.flags = 0x80;
	assert_int_equal(etm2_flow_alloc(&d, &c), -etmkit_err_invalid);
	etm2_flow_config_init(&c);
	c.etm.port_width = 5;
	assert_int_equal(etm2_flow_alloc(&d, &c), -etmkit_err_bad_config);
	etm2_flow_config_init(&c);
	c.etm.port_width = 8;
	assert_int_equal(etm2_flow_alloc(&d, &c), 0);
	assert_int_equal(etm2_flow_next(d, &e, 0), -etmkit_err_invalid);
	assert_int_equal(etm2_flow_batch(d, NULL), -etmkit_err_invalid);
	assert_int_equal(etm2_flow_batch(d, &el), -etmkit_err_eos);
	assert_int_equal(etm2_flow_gap(d), 0);
	assert_int_equal(etm2_flow_batch(d, &el), 1);
	assert_int_equal(el[0].kind, etmkit_elem_gap);
	assert_int_equal(el[0].u.loss.reason, etmkit_loss_transport);
	assert_non_null(etm2_flow_get_stats(d));
	assert_null(etm2_flow_get_stats(NULL));
	etm2_flow_reset(d);
	etm2_flow_reset(NULL);
	etm2_flow_free(d);
	etm2_flow_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arguments),
		cmocka_unit_test(test_straight_and_direct),
		cmocka_unit_test(test_ie_run),
		cmocka_unit_test(test_indirect),
		cmocka_unit_test(test_phantom),
		cmocka_unit_test(test_cycles_periodic_overflow),
		cmocka_unit_test(test_data),
		cmocka_unit_test(test_context_exception_trigger),
		cmocka_unit_test(test_lsip_mismatch_error_no_image),
		cmocka_unit_test(test_v1_start_id_bd_periodic),
		cmocka_unit_test(test_v1_restarts_context),
		cmocka_unit_test(test_v1_exceptions),
		cmocka_unit_test(test_v1_be_data_abort),
		cmocka_unit_test(test_v1_branch_to_vector),
		cmocka_unit_test(test_v1_cycles_cut),
		cmocka_unit_test(test_v1_gap),
		cmocka_unit_test(test_e2t_cases),
		cmocka_unit_test(test_round_trips),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
