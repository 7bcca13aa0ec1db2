/* etmkit: a snapshot's trace.ini (src/snapshot/snapshot_internal.h).
 *
 * [trace_buffers] buffers= lists the buffer sections ([buffer0]: name,
 * file, format); [source_buffers] SOURCE=BUFFER says which trace source
 * writes to which buffer; [core_trace_sources] CORE=SOURCE which core a
 * source traces. Checked against the devices read before; what real
 * snapshots name but do not hold is skipped with a note (snapshot.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "snapshot_internal.h"
#include "common/text.h"
#include "common/vec.h"

#include <string.h>

/* ---- trace.ini ----------------------------------------------------------- */

enum trace_section {
	trace_sec_none,
	trace_sec_buffers,
	trace_sec_sources,
	trace_sec_cores,
	trace_sec_other /* a buffer section, or one we do not use */
};

/* A section that may describe a buffer ("[buffer0]"): kept until the
 * buffers= list says which ones do. */
struct buf_section {
	const char *section;
	int line;
	unsigned keys;   /* bit i: key buf_keys[i] seen */
	int used;        /* listed in buffers= already */
	const char *values[3];
};

static const char *const buf_keys[3] = { "name", "file", "format" };

/* One "KEY=VALUE" line of [source_buffers] or [core_trace_sources]. */
struct trace_pair {
	const char *key, *value;
	int line;
};

struct trace_parse {
	enum trace_section cur;
	char *buffers;    /* the buffers= value */
	int buffers_line;
	struct buf_section *sects;
	size_t nsects, cap_sects;
	struct trace_pair *pairs[2]; /* [0] sources, [1] cores */
	size_t npairs[2], cap_pairs[2];
};

static int trace_section(struct ini_run *run, const char *section)
{
	struct trace_parse *tp = run->user;
	struct buf_section *p;

	if (ascii_casecmp(section, "trace_buffers") == 0)
		tp->cur = trace_sec_buffers;
	else if (ascii_casecmp(section, "source_buffers") == 0)
		tp->cur = trace_sec_sources;
	else if (ascii_casecmp(section, "core_trace_sources") == 0)
		tp->cur = trace_sec_cores;
	else
		tp->cur = trace_sec_other;
	if (tp->cur != trace_sec_other)
		return 0;
	if (tp->nsects >= SS_MAX_ENTRIES)
		return ss_run_fail(run, -etmkit_err_format,
				"more than %d sections", SS_MAX_ENTRIES);
	p = vec_room(tp->sects, tp->nsects, &tp->cap_sects, sizeof(*p));
	if (!p)
		return ss_run_nomem(run);
	tp->sects = p;
	p += tp->nsects;
	memset(p, 0, sizeof(*p));
	p->line = run->section_line;
	p->section = ss_arena_strdup(&run->ld->ss->arena, section);
	if (!p->section)
		return ss_run_nomem(run);
	tp->nsects++;
	return 0;
}

static int trace_pair_key(struct ini_run *run, int which, const char *section,
			  const char *name, const char *value)
{
	struct trace_parse *tp = run->user;
	struct trace_pair *p;

	if (tp->npairs[which] >= SS_MAX_ENTRIES)
		return ss_run_fail(run, -etmkit_err_format,
				"more than %d entries in [%s]", SS_MAX_ENTRIES,
				section);
	if (!*name || !*value)
		return ss_run_fail(run, -etmkit_err_format,
				"empty name or value in [%s]", section);
	p = vec_room(tp->pairs[which], tp->npairs[which],
		     &tp->cap_pairs[which], sizeof(*p));
	if (!p)
		return ss_run_nomem(run);
	tp->pairs[which] = p;
	p += tp->npairs[which];
	p->line = run->line;
	p->key = ss_arena_strdup(&run->ld->ss->arena, name);
	p->value = ss_arena_strdup(&run->ld->ss->arena, value);
	if (!p->key || !p->value)
		return ss_run_nomem(run);
	tp->npairs[which]++;
	return 0;
}

static int trace_buf_key(struct ini_run *run, const char *section,
			 const char *name, const char *value)
{
	struct trace_parse *tp = run->user;
	struct buf_section *b = &tp->sects[tp->nsects - 1];
	unsigned i;

	for (i = 0; i < 3; i++)
		if (ascii_casecmp(name, buf_keys[i]) == 0)
			break;
	if (i == 3)
		return 0;
	if (ss_key_once(run, &b->keys, 1u << i, section, name))
		return run->err;
	if (i == 1)
		return ss_key_path(run, section, name, value, &b->values[i]);
	return ss_key_string(run, section, name, value, &b->values[i]);
}

static int trace_key(struct ini_run *run, const char *section,
		     const char *name, const char *value)
{
	struct trace_parse *tp = run->user;

	switch (tp->cur) {
	case trace_sec_buffers:
		if (ascii_casecmp(name, "buffers") != 0)
			return 0;
		if (tp->buffers)
			return ss_run_fail(run, -etmkit_err_format,
					"duplicate key %s in [%s]", name,
					section);
		tp->buffers_line = run->line;
		tp->buffers = ss_arena_strdup(&run->ld->ss->arena, value);
		return tp->buffers ? 0 : ss_run_nomem(run);
	case trace_sec_sources:
		return trace_pair_key(run, 0, section, name, value);
	case trace_sec_cores:
		return trace_pair_key(run, 1, section, name, value);
	case trace_sec_other:
		return trace_buf_key(run, section, name, value);
	default:
		return 0;
	}
}

/* The one section called @name, for the buffers= list. */
static int trace_find_section(struct loader *ld, const char *path,
			      struct trace_parse *tp, const char *name,
			      struct buf_section **out)
{
	size_t i;

	*out = NULL;
	for (i = 0; i < tp->nsects; i++) {
		if (ascii_casecmp(tp->sects[i].section, name) != 0)
			continue;
		if (*out)
			return ss_fail(ld->diag, -etmkit_err_format, path,
				    tp->sects[i].line,
				    "section [%s] appears twice", name);
		*out = &tp->sects[i];
	}
	if (!*out)
		return ss_fail(ld->diag, -etmkit_err_format, path,
			    tp->buffers_line,
			    "buffer section [%.*s] named in buffers= of "
			    "[trace_buffers] not found",
			    SS_QUOTE, name);
	if ((*out)->used)
		return ss_fail(ld->diag, -etmkit_err_format, path,
			    tp->buffers_line,
			    "buffer section [%s] listed twice in buffers=",
			    name);
	(*out)->used = 1;
	return 0;
}

static int trace_add_buffer(struct loader *ld, const char *path,
			    const struct buf_section *b)
{
	struct snapshot *ss = ld->ss;
	struct snapshot_buffer *p;
	size_t i;

	for (i = 0; i < 3; i++)
		if (!(b->keys & (1u << i)))
			return ss_fail(ld->diag, -etmkit_err_format, path, b->line,
				    "missing key %s in [%s]", buf_keys[i],
				    b->section);
	for (i = 0; i < ss->nbuffers; i++)
		if (strcmp(ss->buffers[i].name, b->values[0]) == 0)
			return ss_fail(ld->diag, -etmkit_err_format, path, b->line,
				    "duplicate buffer name %s in [%s]",
				    b->values[0], b->section);
	if (ss->nbuffers >= SS_MAX_BUFFERS)
		return ss_fail(ld->diag, -etmkit_err_format, path, b->line,
			    "more than %d buffers", SS_MAX_BUFFERS);
	p = vec_room(ss->buffers, ss->nbuffers, &ss->cap_buffers, sizeof(*p));
	if (!p)
		return ss_fail_nomem(ld->diag, path);
	ss->buffers = p;
	p += ss->nbuffers++;
	p->name = b->values[0];
	p->file = b->values[1];
	p->format = b->values[2];
	return 0;
}

/* buffers=buffer0, buffer1 (blank items, as after a trailing comma, are
 * skipped). */
static int trace_buffers(struct loader *ld, const char *path,
			 struct trace_parse *tp)
{
	char *item = tp->buffers;

	if (!item)
		return ss_fail(ld->diag, -etmkit_err_format, path, 0,
			    "missing key buffers in [trace_buffers]");
	while (item) {
		char *comma = strchr(item, ',');
		struct buf_section *b;
		int rc;

		if (comma)
			*comma = '\0';
		item = ss_trim(item);
		if (*item) {
			rc = trace_find_section(ld, path, tp, item, &b);
			if (rc == 0)
				rc = trace_add_buffer(ld, path, b);
			if (rc)
				return rc;
		}
		item = comma ? comma + 1 : NULL;
	}
	return 0;
}

static struct snapshot_source *find_source(struct snapshot *ss,
					   const char *name)
{
	size_t i;

	for (i = 0; i < ss->nsources; i++)
		if (strcmp(ss->sources[i].name, name) == 0)
			return &ss->sources[i];
	return NULL;
}

/* [source_buffers] SOURCE=BUFFER: a trace source device and the buffer it
 * writes to. */
static int trace_add_source(struct loader *ld, const char *path,
			    const struct trace_pair *pr)
{
	struct snapshot *ss = ld->ss;
	struct snapshot_source *p;
	const char *sec = "source_buffers";

	if (!snapshot_find_buffer(ss, pr->value))
		return ss_fail(ld->diag, -etmkit_err_format, path, pr->line,
			    "unknown buffer %s for source %s in [%s]",
			    pr->value, pr->key, sec);
	if (find_source(ss, pr->key))
		return ss_fail(ld->diag, -etmkit_err_format, path, pr->line,
			    "duplicate source %s in [%s]", pr->key, sec);
	/* Real snapshots list sources whose device file was not written
	 * (OpenCSD reads them too): left out, with a note. */
	if (!snapshot_find_device(ss, pr->key))
		return ss_add_note(ld, snapshot_note_source_no_device, path,
				pr->line, sec, pr->key,
				"trace source %s in [%s] has no device file: "
				"skipped", pr->key, sec);
	p = vec_room(ss->sources, ss->nsources, &ss->cap_sources, sizeof(*p));
	if (!p)
		return ss_fail_nomem(ld->diag, path);
	ss->sources = p;
	p += ss->nsources++;
	p->name = pr->key;
	p->buffer = pr->value;
	p->core = NULL;
	return 0;
}

/* [core_trace_sources] CORE=SOURCE. Only sources that feed a buffer are
 * kept: real snapshots also name sources whose trace was not captured
 * (and cores that are not devices) there. A core may have several
 * sources; a source has one core. */
static int trace_set_core(struct loader *ld, const char *path,
			  const struct trace_pair *pr)
{
	struct snapshot_source *src = find_source(ld->ss, pr->value);
	const char *sec = "core_trace_sources";

	if (!src)
		return 0;
	if (src->core)
		return ss_fail(ld->diag, -etmkit_err_format, path, pr->line,
			    "source %s already has core %s in [%s]",
			    src->name, src->core, sec);
	/* A core that no device file describes: the source is kept, with
	 * no core (so no memory dumps), and a note. */
	if (!snapshot_find_device(ld->ss, pr->key))
		return ss_add_note(ld, snapshot_note_core_no_device, path,
				pr->line, sec, pr->key,
				"core %s of trace source %s in [%s] has no "
				"device file: %s is decoded without a core",
				pr->key, pr->value, sec, pr->value);
	src->core = pr->key;
	return 0;
}

static int trace_check(struct loader *ld, const char *path,
		       struct trace_parse *tp)
{
	size_t i;
	int rc = trace_buffers(ld, path, tp);

	for (i = 0; rc == 0 && i < tp->npairs[0]; i++)
		rc = trace_add_source(ld, path, &tp->pairs[0][i]);
	for (i = 0; rc == 0 && i < tp->npairs[1]; i++)
		rc = trace_set_core(ld, path, &tp->pairs[1][i]);
	return rc;
}

int ss_load_trace(struct loader *ld, const struct file_ref *ref)
{
	struct trace_parse tp;
	struct ini_run run;
	int rc;

	memset(&tp, 0, sizeof(tp));
	memset(&run, 0, sizeof(run));
	run.ld = ld;
	run.on_section = trace_section;
	run.on_key = trace_key;
	run.user = &tp;
	rc = ss_run_file(&run, ref);
	if (rc == 0)
		rc = trace_check(ld, ref->path, &tp);
	free(tp.sects);
	free(tp.pairs[0]);
	free(tp.pairs[1]);
	return rc;
}
