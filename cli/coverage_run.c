/* etmkit coverage, the run (cli/runs.h): trace plus program image to
 * code coverage: which
 * source lines, functions and conditional branches ran and how often, as
 * an lcov tracefile (digest perf-data.md 4e; geninfo(1) "FILES"), or a
 * per-function summary of instructions from the ELF symbols. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "runs.h"
#include "counting.h"
#include "images.h"
#include "symbolize.h"
#include "etmkit/coverage.h"
#include "etmkit/insn.h"
#include "etmkit/lines.h"
#include "etmkit/locate.h"
#include "etmkit/profile_part.h"

/* A line's count, a function, a conditional instruction: collected over
 * the binaries, then sorted by file and merged. */
struct cov_da {
	const char *file;
	uint32_t line;
	uint64_t count;
};

struct cov_fn {
	const char *file, *name;
	uint32_t line;
	uint64_t count;
};

struct cov_br {
	const char *file;
	uint32_t line;
	size_t bin;
	uint64_t addr, exec, pass, fail;
};

struct coverage_run {
	struct cli_counting c;             /* input, images, locator */
	struct coverage *cov;
	const char *format, *output;
	int etm3;                          /* an ETMv3 source: conditions of
					      every instruction traced */
	/* lcov */
	struct lines **lines;              /* per binary, or NULL */
	struct cov_da *da;
	struct cov_fn *fn;
	struct cov_br *br;
	size_t nda, nfn, nbr, cap_da, cap_fn, cap_br;
	int oom;
	/* writing a part's counts: its binaries, their ELF files opened */
	const struct profile_part *part;
	struct locate_binary *pbins;
	struct elf_file **pelf;
	size_t npbins;
};

/* The binaries counted: the locator's, or the part's. */
static size_t bin_count(const struct coverage_run *r)
{
	return r->part ? r->npbins :
	       r->c.loc ? locate_binary_count(r->c.loc) : 0;
}

static const struct locate_binary *bin_at(const struct coverage_run *r,
					  size_t i)
{
	return r->part ? &r->pbins[i] : locate_binary_at(r->c.loc, i);
}

/* ---- Options ------------------------------------------------------------ */

static int opt_cov_format(void *ctx, const char *arg)
{
	if (strcmp(arg, "lcov") && strcmp(arg, "text")) {
		cli_error("unknown coverage format '%s' for --format: the "
			  "formats are lcov, text", arg);
		return -1;
	}
	((struct coverage_run *)ctx)->format = arg;
	return 0;
}

static int opt_cov_output(void *ctx, const char *arg)
{
	((struct coverage_run *)ctx)->output = arg;
	return 0;
}

/* ---- Counting ----------------------------------------------------------- */

static int count(void *ctx, uint8_t id, const struct etmkit_elem *e,
		 size_t n)
{
	return coverage_elems(((struct coverage_run *)ctx)->cov, id, e, n);
}

static int setup(struct coverage_run *r)
{
	struct coverage_config cc;
	int err, rc;

	r->c.count = count;
	r->c.ctx = r;
	/* ETMv4/ETE: instruction ranges with repeats, the fast path. */
	rc = cli_counting_setup(&r->c, ETM4_FLOW_RANGES | ETM4_FLOW_TALLY);
	if (rc)
		return rc;
	coverage_config_init(&cc);
	cc.resolve = cli_counting_resolve;
	cc.ctx = &r->c;
	err = coverage_alloc(&r->cov, &cc);
	if (err < 0) {
		cli_error("cannot set up the decoder: %s", etmkit_errstr(err));
		return cli_exit_input;
	}
	for (int i = 0; i < r->c.in.nsrc; i++)
		/* ETMv3 and ETMv2 trace every instruction's condition
		 * (IE / IN per instruction, Q§6.1.2). */
		if (r->c.in.src[i].proto == etmkit_proto_etmv3 ||
		    r->c.in.src[i].proto == etmkit_proto_etmv2) {
			coverage_conditions_traced(r->cov,
						   r->c.in.src[i].id & 0x7f, 1);
			r->etm3 = 1;
		}
	return 0;
}

/* ---- Instructions of a binary ------------------------------------------- */

/* The instruction set at ELF address @va of @ef (0: unknown): A64 for
 * AArch64; for 32-bit ARM the function symbol's Thumb bit. */
static enum etmkit_isa isa_at(const struct elf_file *ef, uint64_t va)
{
	const struct elf_symbol *s;

	if (elf_file_machine(ef) == 183)
		return etmkit_isa_a64;
	if (elf_file_machine(ef) != 40)
		return 0;
	s = elf_file_symbol(ef, va);
	return s && s->thumb ? etmkit_isa_thumb : etmkit_isa_arm;
}

/* The instruction at @va of @img: 0 and @ii, or -1 (no bytes, or an
 * instruction set that is not known). */
static int insn_at(const struct image *img, const struct elf_file *ef,
		   uint64_t va, struct insn_info *ii)
{
	uint8_t b[INSN_MAX_BYTES];
	enum etmkit_isa isa = isa_at(ef, va);
	size_t n = isa ? image_read(img, IMAGE_SPACE_ANY, va, b, sizeof(b)) : 0;

	if (!n || insn_decode(ii, isa, va, b, n) < 0 || !ii->size)
		return -1;
	return 0;
}

/* ---- lcov --------------------------------------------------------------- */

#define PUSH(r, arr, n, cap, val)                                          \
	do {                                                               \
		void *p_ = vec_grow((arr), (n), &(cap), sizeof(*(arr)));   \
		if (!p_) {                                                 \
			(r)->oom = 1;                                      \
			break;                                             \
		}                                                          \
		(arr) = p_;                                                \
		(arr)[(n)++] = (val);                                      \
	} while (0)

static void *vec_grow(void *items, size_t n, size_t *cap, size_t elem)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return items;
	ncap = *cap ? *cap * 2 : 64;
	p = realloc(items, ncap * elem);
	if (p)
		*cap = ncap;
	return p;
}

/* The conditional instructions of row @row (binary @bin): BRDA
 * candidates. Conditional branches always; other conditional
 * instructions when an ETMv3 source traced their conditions. */
static void row_branches(struct coverage_run *r, size_t bin,
			 const struct image *img, const struct elf_file *ef,
			 const struct lines_row *row)
{
	uint64_t va = row->lo;

	while (va < row->hi) {
		struct insn_info ii;
		struct cov_br br;

		if (insn_at(img, ef, va, &ii) < 0)
			return;
		if ((ii.flags & INSN_F_COND) &&
		    ((ii.flags & INSN_F_BRANCH) || r->etm3)) {
			br.file = row->file;
			br.line = row->line;
			br.bin = bin;
			br.addr = va;
			br.exec = coverage_max(r->cov, bin, va, va + ii.size);
			coverage_outcomes(r->cov, bin, va, &br.pass, &br.fail);
			PUSH(r, r->br, r->nbr, r->cap_br, br);
		}
		va += ii.size;
	}
}

/* Binary @i's lines, functions and branches into the lists. */
static int collect_binary(struct coverage_run *r, size_t i,
			  const struct locate_binary *b)
{
	struct image_diag d = { 0 };
	struct image *img = NULL;
	struct lines *ln;
	int err = lines_open(&ln, b->file, &d);

	if (err == -etmkit_err_not_found) {
		cli_note("%s: %s: not in the tracefile", b->file, d.message);
		return 0;
	}
	if (err < 0) {
		cli_warn("%s: %s (%s): not in the tracefile",
			 d.path[0] ? d.path : b->file, d.message,
			 etmkit_errstr(err));
		return 0;
	}
	r->lines[i] = ln;
	if (image_alloc(&img) < 0 ||
	    image_add_elf(img, b->file, 0, 0, &d) < 0) {
		image_free(img);
		img = NULL;
		cli_warn("%s: %s: no branches from it", b->file,
			 d.message[0] ? d.message : "cannot map it");
	}
	for (size_t k = 0; k < lines_row_count(ln); k++) {
		const struct lines_row *row = lines_row_at(ln, k);
		struct cov_da da = { row->file, row->line,
				     coverage_max(r->cov, i, row->lo, row->hi) };

		if (!row->line)
			continue;   /* no source line */
		PUSH(r, r->da, r->nda, r->cap_da, da);
		if (img)
			row_branches(r, i, img, b->elf, row);
	}
	for (uint32_t k = 0; k < lines_func_count(ln); k++) {
		const struct lines_func *f = lines_func_at(ln, k);
		struct lines_loc loc;
		struct cov_fn fn = { f->decl_file, f->name, f->decl_line,
				     coverage_max(r->cov, i, f->entry,
						  f->entry + 1) };

		if (!fn.file || !fn.line) {
			/* No declaration: where its entry is. */
			if (lines_find(ln, f->entry, &loc) < 0 || !loc.line)
				continue;
			fn.file = loc.file;
			fn.line = loc.line;
		}
		PUSH(r, r->fn, r->nfn, r->cap_fn, fn);
	}
	image_free(img);
	return 0;
}

static int cmp_da(const void *x, const void *y)
{
	const struct cov_da *a = x, *b = y;
	int c = strcmp(a->file, b->file);

	return c ? c : a->line < b->line ? -1 : a->line > b->line;
}

static int cmp_fn(const void *x, const void *y)
{
	const struct cov_fn *a = x, *b = y;
	int c = strcmp(a->file, b->file);

	if (!c)
		c = strcmp(a->name, b->name);
	return c ? c : a->line < b->line ? -1 : a->line > b->line;
}

static int cmp_br(const void *x, const void *y)
{
	const struct cov_br *a = x, *b = y;
	int c = strcmp(a->file, b->file);

	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->bin != b->bin)
		return a->bin < b->bin ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* Merge sorted lists: a line's count the largest (over binaries too),
 * a function's the sum. Returns the new length. */
static size_t merge_da(struct cov_da *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (k && v[k - 1].line == v[i].line &&
		    !strcmp(v[k - 1].file, v[i].file)) {
			if (v[i].count > v[k - 1].count)
				v[k - 1].count = v[i].count;
			continue;
		}
		v[k++] = v[i];
	}
	return k;
}

static size_t merge_fn(struct cov_fn *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (k && !strcmp(v[k - 1].name, v[i].name) &&
		    !strcmp(v[k - 1].file, v[i].file)) {
			v[k - 1].count = v[k - 1].count > UINT64_MAX -
					 v[i].count ? UINT64_MAX :
					 v[k - 1].count + v[i].count;
			continue;
		}
		v[k++] = v[i];
	}
	return k;
}

static void put_count(FILE *f, uint64_t exec, uint64_t n)
{
	if (exec)
		fprintf(f, "%" PRIu64, n);
	else
		fputc('-', f);
}

/* A name in a tracefile line: one line whatever the DWARF says (a line
 * break would start another record line; lcov has no escapes). */
static void put_lcov_name(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	fputc('\n', f);
}

/* One record of the tracefile (digest 4e): source file @file with its
 * functions fn[*fi..], branches br[*bi..] and lines da[*di..]. */
static void write_record(struct coverage_run *r, FILE *f, const char *file,
			 size_t *fi, size_t *bi, size_t *di)
{
	size_t i, found = 0, hit = 0, block = 0;
	uint32_t line = 0;

	fputs("TN:\nSF:", f);
	put_lcov_name(f, file);
	for (i = *fi; i < r->nfn && !strcmp(r->fn[i].file, file); i++) {
		fprintf(f, "FN:%" PRIu32 ",", r->fn[i].line);
		put_lcov_name(f, r->fn[i].name);
	}
	for (i = *fi; i < r->nfn && !strcmp(r->fn[i].file, file); i++) {
		fprintf(f, "FNDA:%" PRIu64 ",", r->fn[i].count);
		put_lcov_name(f, r->fn[i].name);
		found++;
		hit += r->fn[i].count != 0;
	}
	*fi = i;
	fprintf(f, "FNF:%zu\nFNH:%zu\n", found, hit);
	found = hit = 0;
	for (i = *bi; i < r->nbr && !strcmp(r->br[i].file, file); i++) {
		const struct cov_br *b = &r->br[i];

		block = b->line == line ? block + 1 : 0;
		line = b->line;
		fprintf(f, "BRDA:%" PRIu32 ",%zu,0,", b->line, block);
		put_count(f, b->exec, b->pass);
		fprintf(f, "\nBRDA:%" PRIu32 ",%zu,1,", b->line, block);
		put_count(f, b->exec, b->fail);
		fputc('\n', f);
		found += 2;
		hit += (b->pass != 0) + (b->fail != 0);
	}
	*bi = i;
	fprintf(f, "BRF:%zu\nBRH:%zu\n", found, hit);
	found = hit = 0;
	for (i = *di; i < r->nda && !strcmp(r->da[i].file, file); i++) {
		fprintf(f, "DA:%" PRIu32 ",%" PRIu64 "\n", r->da[i].line,
			r->da[i].count);
		found++;
		hit += r->da[i].count != 0;
	}
	*di = i;
	fprintf(f, "LF:%zu\nLH:%zu\nend_of_record\n", found, hit);
}

/* The smallest of the next files of the three lists, or NULL. */
static const char *next_file(const struct coverage_run *r, size_t fi,
			     size_t bi, size_t di)
{
	const char *c[3] = {
		fi < r->nfn ? r->fn[fi].file : NULL,
		bi < r->nbr ? r->br[bi].file : NULL,
		di < r->nda ? r->da[di].file : NULL
	};
	const char *m = NULL;

	for (int k = 0; k < 3; k++)
		if (c[k] && (!m || strcmp(c[k], m) < 0))
			m = c[k];
	return m;
}

static int write_lcov(struct coverage_run *r, FILE *f)
{
	size_t nb = bin_count(r), fi = 0, bi = 0, di = 0;
	const char *file;

	r->lines = calloc(nb ? nb : 1, sizeof(*r->lines));
	if (!r->lines)
		return -etmkit_err_nomem;
	for (size_t i = 0; i < nb; i++) {
		const struct locate_binary *b = bin_at(r, i);

		if (b->elf)
			collect_binary(r, i, b);
	}
	if (r->oom)
		return -etmkit_err_nomem;
	if (r->nda)
		qsort(r->da, r->nda, sizeof(*r->da), cmp_da);
	if (r->nfn)
		qsort(r->fn, r->nfn, sizeof(*r->fn), cmp_fn);
	if (r->nbr)
		qsort(r->br, r->nbr, sizeof(*r->br), cmp_br);
	r->nda = merge_da(r->da, r->nda);
	r->nfn = merge_fn(r->fn, r->nfn);
	if (!next_file(r, fi, bi, di))
		cli_note("no binary with DWARF line information: the tracefile "
			 "is empty (--format text summarises ELF binaries from "
			 "their symbols)");
	while ((file = next_file(r, fi, bi, di)))
		write_record(r, f, file, &fi, &bi, &di);
	return 0;
}

/* ---- text: per function, from the ELF symbols ---------------------------- */

/* Instructions in function @s of binary @i, and how many ran. */
static void count_function(const struct coverage_run *r, size_t i,
			   const struct image *img, const struct elf_file *ef,
			   const struct elf_symbol *s, uint64_t *total,
			   uint64_t *ran)
{
	uint64_t va = s->addr, end = s->addr + s->size;

	*total = *ran = 0;
	while (va < end) {
		struct insn_info ii;

		if (insn_at(img, ef, va, &ii) < 0)
			break;
		(*total)++;
		*ran += coverage_max(r->cov, i, va, va + ii.size) != 0;
		va += ii.size;
	}
}

static int write_text(struct coverage_run *r, FILE *f)
{
	size_t nb = bin_count(r);

	for (size_t i = 0; i < nb; i++) {
		const struct locate_binary *b = bin_at(r, i);
		uint64_t all = 0, all_ran = 0, nf = 0, entered = 0;
		struct image_diag d = { 0 };
		struct image *img = NULL;

		if (!b->elf)
			continue;
		if (image_alloc(&img) < 0 ||
		    image_add_elf(img, b->file, 0, 0, &d) < 0) {
			image_free(img);
			cli_warn("%s: %s: left out", b->file,
				 d.message[0] ? d.message : "cannot map it");
			continue;
		}
		fprintf(f, "%s\n  %10s %10s %7s %12s  %s\n", b->name, "ran",
			"insns", "cover", "entry count", "function");
		for (size_t k = 0; k < elf_file_symbol_count(b->elf); k++) {
			const struct elf_symbol *s = elf_file_symbol_at(b->elf,
									 k);
			uint64_t total, ran, entry;

			if (!s->size)
				continue;
			count_function(r, i, img, b->elf, s, &total, &ran);
			if (!total)
				continue;
			entry = coverage_max(r->cov, i, s->addr, s->addr + 1);
			fprintf(f, "  %10" PRIu64 " %10" PRIu64 " %6.1f%% %12"
				PRIu64 "  %s\n", ran, total,
				100.0 * (double)ran / (double)total, entry,
				s->name);
			all += total;
			all_ran += ran;
			nf++;
			entered += entry != 0;
		}
		fprintf(f, "  %10" PRIu64 " %10" PRIu64 " %6.1f%% %12s  "
			"(total: %" PRIu64 " of %" PRIu64 " functions "
			"entered)\n\n", all_ran, all,
			all ? 100.0 * (double)all_ran / (double)all : 0.0, "",
			entered, nf);
		image_free(img);
	}
	return 0;
}

static int write_coverage(struct coverage_run *r)
{
	const char *path = r->output ? r->output : "(standard output)";
	FILE *f = r->output ? fopen(r->output, "w") : stdout;
	int err, closed;

	if (!f) {
		cli_error("%s: cannot write: %s", path, cli_strerror(errno));
		return cli_exit_input;
	}
	err = r->format && !strcmp(r->format, "text") ? write_text(r, f) :
							write_lcov(r, f);
	closed = r->output ? fclose(f) : fflush(f);
	if (err < 0 || closed) {
		cli_error("%s: cannot write the coverage: %s", path,
			  err < 0 ? etmkit_errstr(err) : cli_strerror(errno));
		return cli_exit_input;
	}
	if (coverage_saturated(r->cov))
		cli_note("some counts reached %" PRIu64 " and stopped there",
			 UINT64_MAX);
	return 0;
}

static void cleanup(struct coverage_run *r)
{
	size_t nb = bin_count(r);

	for (size_t i = 0; r->lines && i < nb; i++)
		lines_free(r->lines[i]);
	for (size_t i = 0; r->pelf && i < r->npbins; i++)
		elf_file_free(r->pelf[i]);
	free(r->pelf);
	free(r->pbins);
	free(r->lines);
	free(r->da);
	free(r->fn);
	free(r->br);
	coverage_free(r->cov);
	cli_counting_free(&r->c);
}

void coverage_run_free(struct coverage_run *r)
{
	if (!r)
		return;
	cleanup(r);
	free(r);
}

int coverage_run_new(struct coverage_run **out, int argc, char **argv)
{
	struct coverage_run *r = calloc(1, sizeof(*r));
	int rc;

	*out = r;
	if (!r) {
		cli_error("out of memory");
		return cli_exit_input;
	}
	cli_counting_init(&r->c);
	r->c.in.multi = 1;
	{
		const struct cli_flag flags[] = {
			{ .name = "format", .value = opt_cov_format, .ctx = r },
			{ .name = "output", .value = opt_cov_output, .ctx = r },
			{ .name = "m-profile", .target = &r->c.in.m_profile },
			CLI_IMAGES_FLAGS(&r->c.images),
			{ .name = NULL }
		};

		rc = cli_parse_args(&cli_cmd_coverage, flags, &r->c.in, argc,
				    argv);
	}
	/* the coverage is written once the trace is read: progress may
	 * share a terminal with stdout */
	r->c.in.stdout_free = 1;
	return rc;
}

int coverage_run_count(struct coverage_run *r)
{
	int rc = cli_input_resolve(&r->c.in, "coverage");

	if (!rc)
		rc = setup(r);
	if (!rc)
		rc = cli_counting_stream(&r->c, "coverage");
	if (!rc) {
		int err = coverage_finish(r->cov);

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

int coverage_run_write(struct coverage_run *r)
{
	int rc = write_coverage(r);

	if (!rc && r->c.errors) {
		cli_error("%" PRIu64 " decode error%s in the trace (gaps)",
			  r->c.errors, r->c.errors == 1 ? "" : "s");
		rc = cli_exit_trace_errors;
	}
	return rc;
}

/* ---- Parts (etmkit/profile_part.h) -------------------------------------- */

struct cli_input *coverage_run_input(struct coverage_run *r)
{
	return &r->c.in;
}

int coverage_run_part(struct coverage_run *r, struct profile_part *pp)
{
	return cli_part_add(pp, &r->c, NULL, r->cov, r->etm3);
}

/* The part's binaries as the writers read the locator's: name, file and
 * the ELF file opened again (lcov reads its DWARF, text its symbols). */
static int part_bins(struct coverage_run *r, const struct profile_part *pp)
{
	size_t nb = profile_part_binary_count(pp);

	r->pbins = calloc(nb ? nb : 1, sizeof(*r->pbins));
	r->pelf = calloc(nb ? nb : 1, sizeof(*r->pelf));
	if (!r->pbins || !r->pelf)
		return -etmkit_err_nomem;
	r->npbins = nb;
	for (size_t i = 0; i < nb; i++) {
		struct profile_part_binary b;
		struct image_diag d;

		profile_part_binary_at(pp, i, &b);
		r->pbins[i].name = b.name;
		r->pbins[i].file = b.file ? b.file : b.name;
		memcpy(r->pbins[i].build_id, b.build_id, 20);
		r->pbins[i].build_id_size = b.build_id_size;
		memset(&d, 0, sizeof(d));
		if (b.has_elf && b.file &&
		    elf_file_open(&r->pelf[i], b.file, &d) < 0) {
			cli_warn("%s: %s: left out", b.file, d.message);
			r->pelf[i] = NULL;
		}
		r->pbins[i].elf = r->pelf[i];
	}
	return 0;
}

int coverage_run_write_part(struct coverage_run *r,
			    const struct profile_part *pp)
{
	struct profile_part_counters pc;
	int err = profile_part_counters(pp, &pc);

	if (!err)
		err = profile_part_coverage(pp, &r->cov);
	if (!err)
		err = part_bins(r, pp);
	if (err < 0) {
		cli_error("cannot write the coverage: %s", etmkit_errstr(err));
		return cli_exit_input;
	}
	r->part = pp;
	r->etm3 = pc.etm3;
	r->c.errors = pc.decode_errors;
	return coverage_run_write(r);
}
