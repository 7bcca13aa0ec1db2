/* etmkit profile and flame, the run (cli/runs.h): trace plus program
 * image to an execution profile (the ranges and branches each binary
 * ran), in a profile-guided optimiser's format, or to call stacks. The
 * command's driver (cli/cmd_profile.c) and the core's entry points
 * (cli/core.c) call it in phases: options, counting, writing. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "runs.h"
#include "counting.h"
#include "images.h"
#include "chrome_trace.h"
#include "flame_svg.h"
#include "stack_names.h"
#include "symbolize.h"
#include "etmkit/locate.h"
#include "etmkit/profile.h"
#include "etmkit/profile_part.h"
#include "etmkit/stacks.h"

enum prof_format {
	fmt_autofdo = 0, fmt_folded, fmt_chrome, fmt_flame, fmt_bolt, fmt_profgen
};

static const char *const weight_names[stacks_clock_count] = {
	"insns", "cycles", "time"
};
static const char *const weight_units[stacks_clock_count] = {
	"instructions", "cycles", "timestamp units"
};

struct profile_run {
	const struct cli_command *cmd;
	struct cli_counting c;             /* input, images, locator */
	struct profile *prof;
	const char *format, *output, *binary, *title;
	int fmt;                           /* enum prof_format */
	int traces;                        /* bolt, profgen */
	int cs;                            /* profgen --stacks */
	unsigned weight;                   /* enum stacks_clock */
	unsigned width;                    /* flame: pixels */
	struct stacks *stacks;             /* folded, chrome, flame */
	struct stack_names *names;
	struct chrome_trace *chrome;
	FILE *out;                         /* chrome: opened at set-up */
	regex_t re;
	int have_re;
	const struct profile_part *part;   /* writing a part's counts */
};

/* ---- Options ------------------------------------------------------------ */

static int opt_prof_format(void *ctx, const char *arg)
{
	struct profile_run *r = ctx;

	static const char *const names[] = { "autofdo", "folded", "chrome",
					     "bolt", "profgen" };

	for (int i = 0; i < 5; i++)
		if (!strcmp(arg, names[i])) {
			r->format = arg;
			r->fmt = i < 3 ? i : fmt_bolt + (i - 3);
			r->traces = r->fmt == fmt_bolt || r->fmt == fmt_profgen;
			return 0;
		}
	cli_error("unknown profile format '%s' for --format: the formats are "
		  "autofdo, bolt, profgen, folded and chrome", arg);
	return -1;
}

static int opt_prof_weight(void *ctx, const char *arg)
{
	struct profile_run *r = ctx;

	for (unsigned i = 0; i < stacks_clock_count; i++)
		if (!strcmp(arg, weight_names[i])) {
			r->weight = i;
			return 0;
		}
	cli_error("unknown weight '%s' for --weight: the weights are insns, "
		  "cycles and time", arg);
	return -1;
}

static int opt_flame_title(void *ctx, const char *arg)
{
	((struct profile_run *)ctx)->title = arg;
	return 0;
}

static int opt_flame_width(void *ctx, const char *arg)
{
	struct profile_run *r = ctx;
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || v < 100 || v > 100000) {
		cli_error("invalid width '%s' for --width: a number of pixels "
			  "from 100 to 100000", arg);
		return -1;
	}
	r->width = (unsigned)v;
	return 0;
}

static int opt_prof_output(void *ctx, const char *arg)
{
	((struct profile_run *)ctx)->output = arg;
	return 0;
}

static int opt_prof_binary(void *ctx, const char *arg)
{
	struct profile_run *r = ctx;
	char why[128];
	int err;

	if (r->have_re) {
		regfree(&r->re);
		r->have_re = 0;
	}
	err = regcomp(&r->re, arg, REG_EXTENDED | REG_NOSUB);
	if (err) {
		regerror(err, &r->re, why, sizeof(why));
		why[0] = (char)tolower((unsigned char)why[0]);
		cli_error("invalid regular expression '%s' for --binary: %s",
			  arg, why);
		return -1;
	}
	r->have_re = 1;
	r->binary = arg;
	return 0;
}

/* ---- Counting ----------------------------------------------------------- */

static int count(void *ctx, uint8_t id, const struct etmkit_elem *e,
		 size_t n)
{
	struct profile_run *r = ctx;

	return r->stacks ? stacks_elems(r->stacks, id, e, n)
			 : profile_elems(r->prof, id, e, n);
}

/* The stack tracker's frame keys: one per function name. */
static int frame_key(void *ctx, uint8_t id, uint64_t addr, int exc,
		     uint64_t *key)
{
	struct profile_run *r = ctx;

	(void)exc;
	return stack_names_key(r->names, id, r->c.id_image[id], r->c.id_space[id],
			       addr, key);
}

static int stack_event(void *ctx, const struct stacks_event *ev)
{
	return chrome_trace_event(((struct profile_run *)ctx)->chrome, ev);
}

static const char *frame_name(void *ctx, uint64_t key)
{
	return stack_names_name(((struct profile_run *)ctx)->names, key);
}

/* ---- Set-up ------------------------------------------------------------- */

static FILE *open_output(const struct profile_run *r)
{
	FILE *f = r->output ? fopen(r->output, "w") : stdout;

	if (!f)
		cli_error("%s: cannot write: %s", r->output, cli_strerror(errno));
	return f;
}

/* chrome's thread names on a perf.data: the process's COMM. */
static const char *thread_comm(void *ctx, uint8_t id, uint32_t tid)
{
	return cli_perf_sb_comm(ctx, id, tid);
}

/* Call stacks (folded, chrome, flame): the tracker, its frame names and
 * for chrome the timeline, written as it goes. */
static int setup_stacks(struct profile_run *r)
{
	struct stacks_config sc;
	int err;

	r->names = stack_names_alloc(r->c.loc);
	if (!r->names) {
		cli_error("out of memory");
		return cli_exit_input;
	}
	stacks_config_init(&sc);
	sc.frame = frame_key;
	sc.ctx = r;
	sc.clock = (uint8_t)r->weight;
	if (r->fmt == fmt_chrome) {
		if (!(r->out = open_output(r)))
			return cli_exit_input;
		r->chrome = chrome_trace_alloc(r->out, r->weight, r->names);
		if (!r->chrome) {
			cli_error("out of memory");
			return cli_exit_input;
		}
		if (r->c.images.sb)
			chrome_trace_thread_names(r->chrome, thread_comm,
						  r->c.images.sb);
		sc.event = stack_event;
	}
	err = stacks_alloc(&r->stacks, &sc);
	if (err < 0) {
		cli_error("cannot set up the call stacks: %s",
			  etmkit_errstr(err));
		return cli_exit_input;
	}
	return 0;
}

static int setup(struct profile_run *r)
{
	struct profile_config pc;
	int err, rc;

	r->c.count = count;
	r->c.ctx = r;
	/* ETMv4/ETE: instruction ranges, the fast path, counted by the
	 * decoder where the order of calls and returns does not matter
	 * (flow.h): blocks for AutoFDO's ranges and branches, taken-branch
	 * traces for BOLT's and llvm-profgen's without call contexts. */
	/* ETMv3 and PTM: instruction ranges too (blocks.h), where a profile
	 * counts a range as it counts the instructions it stands for (profile.c's
	 * add_insns(), traces.c and stacks.c take the last one's flags and
	 * class): the output is the same. Not for the Chrome timeline, whose
	 * events of one time stamp come out in another order when the
	 * instructions between them come as one range. */
	if (r->fmt != fmt_chrome) {
		r->c.images.etm3_flags = ETM3_FLOW_RANGES;
		r->c.images.ptm_flags = PTM_FLOW_RANGES;
		r->c.images.etm2_flags = ETM2_FLOW_RANGES;
	}
	rc = cli_counting_setup(&r->c, ETM4_FLOW_RANGES |
				(r->fmt == fmt_autofdo ? ETM4_FLOW_TALLY :
				 r->traces && !r->cs ? ETM4_FLOW_TRACES : 0));
	if (rc)
		return rc;
	profile_config_init(&pc);
	pc.resolve = cli_counting_resolve;
	pc.ctx = &r->c;
	pc.traces = r->traces;
	pc.contexts = r->cs;
	err = profile_alloc(&r->prof, &pc);
	if (err < 0) {
		cli_error("cannot set up the decoder: %s", etmkit_errstr(err));
		return cli_exit_input;
	}
	if (r->fmt != fmt_autofdo && !r->traces)
		return setup_stacks(r);
	return 0;
}

/* ---- Output ------------------------------------------------------------- */

/* llvm-profgen's base for offsets (--use-offset, digest 4d): the
 * p_vaddr of the first executable PT_LOAD, rounded down to 4 KiB; 0
 * without one. */
static uint64_t text_base(const struct elf_file *ef)
{
	size_t n = ef ? elf_file_segment_count(ef) : 0;

	for (size_t i = 0; i < n; i++) {
		const struct elf_segment *s = elf_file_segment(ef, i);

		if (s->flags & ELF_FILE_PF_X)
			return s->vaddr & ~(uint64_t)0xfff;
	}
	return 0;
}

/* The writer's view of the locator's binaries: name, build id, the first
 * PT_LOAD's address, and --binary. */
static struct profile_binary *binaries(const struct profile_run *r, size_t *n)
{
	size_t nb = r->part ? profile_part_binary_count(r->part) :
			      locate_binary_count(r->c.loc);
	struct profile_binary *pb = calloc(nb ? nb : 1, sizeof(*pb));

	*n = nb;
	for (size_t i = 0; pb && r->part && i < nb; i++) {
		struct profile_part_binary b;

		profile_part_binary_at(r->part, i, &b);
		pb[i].name = b.name;
		memcpy(pb[i].build_id, b.build_id, 20);
		pb[i].base = b.base;
		pb[i].text_base = b.text_base;
		pb[i].skip = r->have_re &&
			     regexec(&r->re, b.name, 0, NULL, 0) != 0;
	}
	for (size_t i = 0; pb && !r->part && i < nb; i++) {
		const struct locate_binary *b = locate_binary_at(r->c.loc, i);

		pb[i].name = b->name;
		memcpy(pb[i].build_id, b->build_id, 20);
		if (b->elf && elf_file_first_load_vaddr(b->elf, &pb[i].base) < 0)
			pb[i].base = 0;
		pb[i].text_base = text_base(b->elf);
		pb[i].skip = r->have_re &&
			     regexec(&r->re, b->name, 0, NULL, 0) != 0;
	}
	return pb;
}

/* bolt and profgen hold one binary: with several that have counts (and
 * --binary does not pick one), say which. */
static int one_binary(const struct profile_run *r)
{
	const struct profile_binary *pb;
	unsigned char *has;
	size_t nb, n = 0, len = 0;
	char list[512];
	struct profile_binary *bins;

	if (!r->traces)
		return 0;
	bins = binaries(r, &nb);
	has = calloc(nb ? nb : 1, 1);
	if (!bins || !has || profile_counted_binaries(r->prof, nb, has) < 0) {
		free(bins);
		free(has);
		cli_error("cannot list the binaries: %s",
			  etmkit_errstr(-etmkit_err_nomem));
		return cli_exit_input;
	}
	list[0] = 0;
	for (size_t i = 0; i < nb; i++) {
		pb = &bins[i];
		if (!has[i] || pb->skip)
			continue;
		n++;
		if (len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len,
						"%s%s", n > 1 ? ", " : "",
						pb->name);
	}
	free(bins);
	free(has);
	if (n <= 1)
		return 0;
	cli_error("the %s format holds one binary and %zu have counts: %s; "
		  "pick one with --binary REGEX", r->format, n, list);
	return cli_exit_usage;
}

/* The flame graph: the folded stacks, drawn. */
static int write_flame(struct profile_run *r, FILE *f)
{
	struct flame_options o;
	char *text = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&text, &n);
	int err;

	if (!m)
		return -etmkit_err_nomem;
	err = stacks_write_folded(r->stacks, m, r->weight, frame_name, r);
	if (fclose(m) && !err)
		err = -etmkit_err_nomem;
	memset(&o, 0, sizeof(o));
	o.title = r->title;
	o.unit = weight_units[r->weight];
	o.width = r->width;
	if (!err)
		err = flame_svg_write(f, text, n, &o);
	free(text);
	return err;
}

static int write_profile(struct profile_run *r)
{
	const char *path = r->output ? r->output : "(standard output)";
	FILE *f = r->out ? r->out : open_output(r);
	struct profile_binary *pb;
	size_t nb;
	int err, closed = 0;

	if (!f)
		return cli_exit_input;
	r->out = NULL;
	switch (r->fmt) {
	case fmt_folded:
		err = stacks_write_folded(r->stacks, f, r->weight, frame_name,
					  r);
		break;
	case fmt_chrome:
		err = chrome_trace_end(r->chrome);
		break;
	case fmt_flame:
		err = write_flame(r, f);
		break;
	default:
		pb = binaries(r, &nb);
		if (!pb)
			err = -etmkit_err_nomem;
		else if (r->fmt == fmt_bolt)
			err = profile_write_bolt(r->prof, f, pb, nb);
		else if (r->fmt == fmt_profgen)
			err = profile_write_profgen(r->prof, f, pb, nb);
		else
			err = profile_write_autofdo(r->prof, f, pb, nb);
		free(pb);
	}
	if (r->output)
		closed = fclose(f);
	else
		closed = fflush(f);
	if (err < 0 || closed) {
		cli_error("%s: cannot write the profile: %s", path,
			  err < 0 ? etmkit_errstr(err) : cli_strerror(errno));
		return cli_exit_input;
	}
	if (profile_saturated(r->prof) || stacks_saturated(r->stacks))
		cli_note("some counts reached %" PRIu64 " and stopped there",
			 UINT64_MAX);
	return 0;
}

static void cleanup(struct profile_run *r)
{
	profile_free(r->prof);
	stacks_free(r->stacks);
	chrome_trace_free(r->chrome);
	stack_names_free(r->names);
	if (r->out && r->out != stdout)
		fclose(r->out);
	cli_counting_free(&r->c);
	if (r->have_re)
		regfree(&r->re);
}

void profile_run_free(struct profile_run *r)
{
	if (!r)
		return;
	cleanup(r);
	free(r);
}

/* The options' checks beyond one option's value. */
static int check_options(const struct profile_run *r)
{
	if (r->have_re && !(r->fmt == fmt_autofdo || r->traces)) {
		cli_error("--binary is for the autofdo, bolt and profgen "
			  "formats");
		return cli_exit_usage;
	}
	if (r->cs && r->fmt != fmt_profgen) {
		cli_error("--stacks is for the profgen format (llvm-profgen's "
			  "context-sensitive profile)");
		return cli_exit_usage;
	}
	return 0;
}

int profile_run_new(struct profile_run **out, const struct cli_command *cmd,
		    int flame, int argc, char **argv)
{
	struct profile_run *r = calloc(1, sizeof(*r));
	int rc;

	*out = r;
	if (!r) {
		cli_error("out of memory");
		return cli_exit_input;
	}
	r->cmd = cmd;
	r->fmt = flame ? fmt_flame : fmt_autofdo;
	r->format = flame ? "flame" : "autofdo";
	cli_counting_init(&r->c);
	r->c.in.multi = !flame;
	{
		/* Each command's own: profile's, then flame's. */
		const struct cli_flag flags[] = {
			{ .name = "format", .value = opt_prof_format, .ctx = r },
			{ .name = "binary", .value = opt_prof_binary, .ctx = r },
			{ .name = "output", .value = opt_prof_output, .ctx = r },
			{ .name = "weight", .value = opt_prof_weight, .ctx = r },
			{ .name = "stacks", .target = &r->cs },
			{ .name = "m-profile", .target = &r->c.in.m_profile },
			CLI_IMAGES_FLAGS(&r->c.images),
			{ .name = NULL }
		};
		const struct cli_flag flame_flags[] = {
			{ .name = "title", .value = opt_flame_title, .ctx = r },
			{ .name = "width", .value = opt_flame_width, .ctx = r },
			{ .name = "output", .value = opt_prof_output, .ctx = r },
			{ .name = "weight", .value = opt_prof_weight, .ctx = r },
			{ .name = "m-profile", .target = &r->c.in.m_profile },
			CLI_IMAGES_FLAGS(&r->c.images),
			{ .name = NULL }
		};

		rc = cli_parse_args(cmd, flame ? flame_flags : flags, &r->c.in,
				    argc, argv);
	}
	if (!rc)
		rc = check_options(r);
	/* the profile is written once the trace is read: progress may
	 * share a terminal with stdout */
	r->c.in.stdout_free = 1;
	return rc;
}

int profile_run_count(struct profile_run *r)
{
	const char *name = r->cmd->name;
	int rc = cli_input_resolve(&r->c.in, name);

	if (!rc)
		rc = setup(r);
	if (!rc)
		rc = cli_counting_stream(&r->c, name);
	if (!rc) {
		int err = r->stacks ? stacks_finish(r->stacks)
				    : profile_finish(r->prof);

		if (err < 0 && !r->c.err)
			r->c.err = err;
		if (r->c.err) {
			cli_error("cannot count the trace: %s",
				  etmkit_errstr(r->c.err));
			rc = cli_exit_input;
		}
	}
	return rc;
}

int profile_run_write(struct profile_run *r)
{
	int rc = one_binary(r);

	if (!rc)
		rc = write_profile(r);
	if (!rc && r->c.errors) {
		cli_error("%" PRIu64 " decode error%s in the trace (gaps)",
			  r->c.errors, r->c.errors == 1 ? "" : "s");
		rc = cli_exit_trace_errors;
	}
	return rc;
}

/* ---- Parts (etmkit/profile_part.h) -------------------------------------- */

struct cli_input *profile_run_input(struct profile_run *r)
{
	return &r->c.in;
}

int profile_run_kind(const struct profile_run *r)
{
	if (r->fmt == fmt_autofdo)
		return profile_part_kind_tally;
	if (r->traces && !r->cs)
		return profile_part_kind_traces;
	return 0;
}

/* Binary @b of the locator as the part keeps it: as binaries() gives it
 * to the writers, and the local file. */
static void part_binary(const struct locate_binary *b,
			struct profile_part_binary *pb)
{
	memset(pb, 0, sizeof(*pb));
	pb->name = b->name;
	pb->file = b->file;
	memcpy(pb->build_id, b->build_id, 20);
	pb->build_id_size = (uint8_t)(b->build_id_size > 20 ? 20 :
				      b->build_id_size);
	pb->has_elf = b->elf != NULL;
	if (b->elf && elf_file_first_load_vaddr(b->elf, &pb->base) < 0)
		pb->base = 0;
	pb->text_base = text_base(b->elf);
}

/* Every binary of locator @loc into @pp (those without counts too),
 * *@map: the locator's index -> the part's. Returns 0 or a cli_exit
 * after a message. */
int cli_part_binaries(struct profile_part *pp, const struct locate *loc,
		      long **map, size_t *n)
{
	size_t nb = loc ? locate_binary_count(loc) : 0;
	long *m = calloc(nb ? nb : 1, sizeof(*m));

	*map = m;
	*n = nb;
	if (!m) {
		cli_error("out of memory");
		return cli_exit_input;
	}
	for (size_t i = 0; i < nb; i++) {
		struct profile_part_binary b;

		part_binary(locate_binary_at(loc, i), &b);
		m[i] = profile_part_add_binary(pp, &b);
		if (m[i] < 0) {
			cli_error("%s: %s", b.name,
				  *profile_part_message(pp) ?
				  profile_part_message(pp) :
				  etmkit_errstr((int)m[i]));
			return cli_exit_input;
		}
	}
	return 0;
}

int cli_part_add(struct profile_part *pp, const struct cli_counting *c,
		 const struct profile *p, const struct coverage *cov, int etm3)
{
	struct profile_part_counters pc = { 1, c->errors, 0, etm3 };
	long *map;
	size_t nb;
	int err, rc = cli_part_binaries(pp, c->loc, &map, &nb);

	if (!rc) {
		err = p ? profile_part_add_profile(pp, p, map, nb) :
			  profile_part_add_coverage(pp, cov, map, nb);
		if (!err)
			err = profile_part_add_counters(pp, &pc);
		if (err < 0) {
			cli_error("cannot keep the counts: %s",
				  *profile_part_message(pp) ?
				  profile_part_message(pp) :
				  etmkit_errstr(err));
			rc = cli_exit_input;
		}
	}
	free(map);
	return rc;
}

int profile_run_part(struct profile_run *r, struct profile_part *pp)
{
	return cli_part_add(pp, &r->c, r->prof, NULL, 0);
}

int profile_run_write_part(struct profile_run *r,
			   const struct profile_part *pp)
{
	struct profile_part_counters pc;
	int err = profile_part_counters(pp, &pc);

	if (!err)
		err = profile_part_profile(pp, &r->prof);
	if (err < 0) {
		cli_error("cannot write the profile: %s", etmkit_errstr(err));
		return cli_exit_input;
	}
	r->part = pp;
	r->c.errors = pc.decode_errors;
	return profile_run_write(r);
}
