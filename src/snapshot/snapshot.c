/* etmkit: trace snapshot directory reader (include/etmkit/snapshot.h).
 *
 * How it reads a file: the whole .ini is loaded into memory (size bounded,
 * regular files only, binary bytes rejected), then handed to inih line by
 * line through our own reader. The reader does three things inih cannot do
 * for us:
 *  - it counts lines, so every error names its line (inih as packaged by
 *    Debian gives the handler no line number);
 *  - it notices "[section]" header lines, so a section whose name repeats
 *    (two "[dump]" headers in one file) still starts a new dump;
 *  - it rejects overlong lines and section names instead of letting inih
 *    split or cut them silently.
 *
 * Order of work: snapshot.ini (device list, trace metadata path), then
 * each device file in list order, then trace.ini, whose buffers, sources
 * and cores are checked against the devices and buffers read before.
 *
 * Memory: everything a snapshot hands out (strings, register and dump
 * arrays) lives in one arena freed by snapshot_free(); the device, buffer
 * and source arrays are growable arrays owned by the snapshot. Temporary
 * arrays used while parsing a file are freed before the parse returns, on
 * success and on error.
 */
#define _POSIX_C_SOURCE 200809L

#include "etmkit/snapshot.h"
#include "etmkit/image.h"
#include "common/text.h"
#include "common/errno_text.h"
#include "common/vec.h"

#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- Limits -------------------------------------------------------------- */

enum {
	SS_MAX_DEVICES = 4096,
	SS_MAX_REGS = 4096,    /* per device file */
	SS_MAX_DUMPS = 4096,   /* per device file */
	SS_MAX_BUFFERS = 4096,
	SS_MAX_ENTRIES = 4096, /* sections, source and core lines (trace.ini) */
	SS_MAX_NOTES = 4096,   /* kept; later ones are counted, not kept */
	SS_MAX_PATH = 4096,
	/* inih cuts section names to MAX_SECTION - 1 = 49 characters (ini.c);
	 * two long names that differ past that would silently merge. */
	SS_INIH_MAX_SECTION = 50,
	SS_QUOTE = 48          /* longest value quoted in a message */
};

#define SS_MAX_FILE_BYTES ((size_t)4 << 20)
#define SS_MAX_TOTAL_BYTES ((size_t)64 << 20)
#define SS_ARENA_CHUNK ((size_t)16 << 10)

/* ---- Small string helpers ------------------------------------------------ */

static int ascii_has_prefix(const char *s, const char *prefix)
{
	for (; *prefix; s++, prefix++)
		if (ascii_lower((unsigned char)*s) !=
		    ascii_lower((unsigned char)*prefix))
			return 0;
	return 1;
}

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
	       c == '\f';
}

/* Trim @s in place (both ends); returns the first kept character. */
static char *trim(char *s)
{
	size_t n;

	while (is_space((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && is_space((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* The last component of @path, for short mentions in messages. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* ---- Arena --------------------------------------------------------------- */

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

struct arena {
	struct arena_chunk *head;
};

static void *arena_new_chunk(struct arena *a, size_t need)
{
	int oversized = need >= SS_ARENA_CHUNK;
	size_t cap = oversized ? need : SS_ARENA_CHUNK;
	struct arena_chunk *c = malloc(sizeof(*c) + cap);

	if (!c)
		return NULL;
	c->cap = cap;
	c->used = need;
	if (a->head && oversized) {
		/* An oversized block: keep the current chunk in front for the
		 * small allocations still to come. */
		c->next = a->head->next;
		a->head->next = c;
	} else {
		c->next = a->head;
		a->head = c;
	}
	return c->data;
}

static void *arena_alloc(struct arena *a, size_t n)
{
	struct arena_chunk *c = a->head;
	size_t unit = sizeof(max_align_t);
	size_t need;
	void *p;

	if (n > SIZE_MAX / 2)
		return NULL;
	need = (n + unit - 1) / unit * unit;
	if (need == 0)
		need = unit;
	if (!c || c->cap - c->used < need)
		return arena_new_chunk(a, need);
	p = (char *)c->data + c->used;
	c->used += need;
	return p;
}

static char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

static void arena_free(struct arena *a)
{
	struct arena_chunk *c = a->head;

	while (c) {
		struct arena_chunk *next = c->next;

		free(c);
		c = next;
	}
	a->head = NULL;
}

/* ---- The snapshot -------------------------------------------------------- */

struct snapshot {
	struct arena arena;
	struct snapshot_device *devices;
	size_t ndevices, cap_devices;
	struct snapshot_buffer *buffers;
	size_t nbuffers, cap_buffers;
	struct snapshot_source *sources;
	size_t nsources, cap_sources;
	struct snapshot_note *notes;
	size_t nnotes, cap_notes;
};

/* State of one snapshot_open() call. */
struct loader {
	struct snapshot *ss;
	struct snapshot_diag *diag;
	size_t total_bytes; /* .ini bytes read so far, bounded */
};

/* ---- Diagnostics --------------------------------------------------------- */

static void diag_vset(struct snapshot_diag *d, const char *path, int line,
		      const char *fmt, va_list ap) ETMKIT_PRINTF(4, 0);

static void diag_vset(struct snapshot_diag *d, const char *path, int line,
		      const char *fmt, va_list ap)
{
	copy_str(d->path, sizeof(d->path), path ? path : "");
	d->line = line;
	vsnprintf(d->message, sizeof(d->message), fmt, ap);
}

static void diag_clear(struct snapshot_diag *d)
{
	d->path[0] = '\0';
	d->line = 0;
	d->message[0] = '\0';
}

/* Fill @d and return @err (a negated etmkit_error). */
static int fail(struct snapshot_diag *d, int err, const char *path, int line,
		const char *fmt, ...) ETMKIT_PRINTF(5, 6);

static int fail(struct snapshot_diag *d, int err, const char *path, int line,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vset(d, path, line, fmt, ap);
	va_end(ap);
	return err;
}

static int fail_nomem(struct snapshot_diag *d, const char *path)
{
	return fail(d, -etmkit_err_nomem, path, 0, "out of memory");
}

/* ---- Notes: what was skipped --------------------------------------------- */

/* Record that @name (in [@section] of @path, line @line) was skipped, with
 * the reason as a message. Past SS_MAX_NOTES notes, the note is dropped
 * (the snapshot still opens). */
static int add_note(struct loader *ld, enum snapshot_note_kind kind,
		    const char *path, int line, const char *section,
		    const char *name, const char *fmt, ...) ETMKIT_PRINTF(7, 8);

static int add_note(struct loader *ld, enum snapshot_note_kind kind,
		    const char *path, int line, const char *section,
		    const char *name, const char *fmt, ...)
{
	struct snapshot *ss = ld->ss;
	struct snapshot_note *p;
	char msg[256];
	va_list ap;

	if (ss->nnotes >= SS_MAX_NOTES)
		return 0;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p = vec_room(ss->notes, ss->nnotes, &ss->cap_notes, sizeof(*p));
	if (!p)
		return fail_nomem(ld->diag, path);
	ss->notes = p;
	p += ss->nnotes;
	p->kind = kind;
	p->line = line;
	p->path = arena_strdup(&ss->arena, path);
	p->section = arena_strdup(&ss->arena, section);
	p->name = arena_strdup(&ss->arena, name);
	p->message = arena_strdup(&ss->arena, msg);
	if (!p->path || !p->section || !p->name || !p->message)
		return fail_nomem(ld->diag, path);
	ss->nnotes++;
	return 0;
}

/* ---- Loading a text file ------------------------------------------------- */

/* Who named the file being loaded, for "cannot open" messages. */
struct file_ref {
	const char *path; /* resolved */
	const char *by;   /* the .ini that named it, or NULL */
	int line;         /* its line there */
};

static int ref_fail(struct loader *ld, int err, const struct file_ref *ref,
		    const char *why)
{
	if (ref->by)
		return fail(ld->diag, err, ref->path, 0,
			    "%s (named in %s line %d)", why, base_name(ref->by),
			    ref->line);
	return fail(ld->diag, err, ref->path, 0, "%s", why);
}

/* "cannot open: <reason>" for errno value @e. */
static int ref_open_fail(struct loader *ld, const struct file_ref *ref, int e)
{
	char why[96];

	snprintf(why, sizeof(why), "cannot open: %s", etmkit_errno_text(e));
	return ref_fail(ld, -etmkit_err_io, ref, why);
}

/* Check that @ref names a regular file; a FIFO or device node would block
 * or never end, a directory cannot be read. Sets *@size. */
static int check_regular(struct loader *ld, const struct file_ref *ref,
			 size_t *size)
{
	struct stat st;

	if (stat(ref->path, &st) != 0)
		return ref_open_fail(ld, ref, errno);
	if (S_ISDIR(st.st_mode))
		return ref_fail(ld, -etmkit_err_io, ref,
				"cannot read: is a directory, not a file");
	if (!S_ISREG(st.st_mode))
		return ref_fail(ld, -etmkit_err_io, ref,
				"cannot read: not a regular file");
	*size = 0;
	if (st.st_size > 0)
		*size = (uintmax_t)st.st_size > SS_MAX_FILE_BYTES
				? SS_MAX_FILE_BYTES + 1
				: (size_t)st.st_size;
	return 0;
}

/* The line of the first byte that cannot be in an .ini text file (control
 * characters other than white space), or 0 if there is none. */
static int find_binary(const char *s, size_t n, unsigned *byte)
{
	int line = 1;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n')
			line++;
		else if ((c < 0x20 && !is_space(c)) || c == 0x7f) {
			*byte = c;
			return line;
		}
	}
	return 0;
}

/* Read all of @f into a NUL-terminated buffer grown as needed, but never
 * past one byte more than the limit (enough to tell "too large" from
 * "fits"). */
static int read_all(FILE *f, size_t hint, char **data, size_t *len)
{
	size_t cap = hint + 2 < 256 ? 256 : hint + 2;
	size_t n = 0, max = SS_MAX_FILE_BYTES + 2;
	char *buf = NULL;

	for (;;) {
		char *p = realloc(buf, cap);

		if (!p) {
			free(buf);
			return -etmkit_err_nomem;
		}
		buf = p;
		n += fread(buf + n, 1, cap - 1 - n, f);
		if (n < cap - 1 || cap >= max)
			break;
		cap = cap > max / 2 ? max : cap * 2;
	}
	if (ferror(f)) {
		free(buf);
		return -etmkit_err_io;
	}
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return 0;
}

static int read_bounded(struct loader *ld, const struct file_ref *ref,
			size_t hint, char **data, size_t *len)
{
	/* Non-blocking, and checked again on the open file: a FIFO or a
	 * file swapped after check_regular() cannot block or mislead us. */
	int fd = open(ref->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	FILE *f;
	int rc;

	if (fd < 0)
		return ref_open_fail(ld, ref, errno);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ref_fail(ld, -etmkit_err_io, ref,
				"cannot read: not a regular file");
	}
	f = fdopen(fd, "rb");
	if (!f) {
		rc = errno;
		close(fd);
		return ref_open_fail(ld, ref, rc);
	}
	rc = read_all(f, hint, data, len);
	fclose(f);
	if (rc == -etmkit_err_nomem)
		return fail_nomem(ld->diag, ref->path);
	if (rc)
		return ref_fail(ld, rc, ref, "read error");
	return 0;
}

static int too_large(struct loader *ld, const char *path)
{
	return fail(ld->diag, -etmkit_err_format, path, 0,
		    "file too large for an .ini file (limit %zu bytes)",
		    (size_t)SS_MAX_FILE_BYTES);
}

/* Size limits and binary bytes, for a file read whole. */
static int check_text(struct loader *ld, const char *path, const char *data,
		      size_t len)
{
	unsigned byte = 0;
	int line;

	if (len > SS_MAX_FILE_BYTES)
		return too_large(ld, path);
	if (ld->total_bytes + len > SS_MAX_TOTAL_BYTES)
		return fail(ld->diag, -etmkit_err_format, path, 0,
			    "snapshot .ini files exceed %zu bytes in all",
			    (size_t)SS_MAX_TOTAL_BYTES);
	line = find_binary(data, len, &byte);
	if (line)
		return fail(ld->diag, -etmkit_err_format, path, line,
			    "binary data (byte 0x%02X): not an .ini text file",
			    byte);
	return 0;
}

/* Load the whole of @ref->path, NUL-terminated, into *@data (to free). */
static int load_text(struct loader *ld, const struct file_ref *ref,
		     char **data, size_t *len)
{
	size_t hint = 0;
	int rc = check_regular(ld, ref, &hint);

	*data = NULL;
	*len = 0;
	if (rc == 0 && hint > SS_MAX_FILE_BYTES)
		return too_large(ld, ref->path);
	if (rc == 0)
		rc = read_bounded(ld, ref, hint, data, len);
	if (rc == 0)
		rc = check_text(ld, ref->path, *data, *len);
	if (rc) {
		free(*data);
		*data = NULL;
		return rc;
	}
	ld->total_bytes += *len;
	return 0;
}

/* ---- Running inih over a loaded file ------------------------------------- */

struct ini_run;
typedef int (*run_section_fn)(struct ini_run *run, const char *section);
typedef int (*run_key_fn)(struct ini_run *run, const char *section,
			  const char *name, const char *value);

struct ini_run {
	struct loader *ld;
	const char *path;
	const char *text;
	size_t len, pos;
	int line;              /* lines handed to inih so far */
	int section_line;      /* line of the last "[section]" header */
	unsigned section_gen;  /* headers seen by the reader */
	unsigned handled_gen;  /* header last announced to on_section */
	int key_seen;          /* a key since that header (inih's prev_name) */
	int err;               /* first error (negated), 0 if none */
	int err_line;
	run_section_fn on_section; /* may be NULL */
	run_key_fn on_key;
	void *user;
};

/* Record the first error of a run, tied to the current line. */
static int run_fail(struct ini_run *run, int err, const char *fmt, ...)
	ETMKIT_PRINTF(3, 4);

static int run_fail(struct ini_run *run, int err, const char *fmt, ...)
{
	va_list ap;

	if (run->err)
		return run->err;
	run->err = err;
	run->err_line = run->line;
	va_start(ap, fmt);
	diag_vset(run->ld->diag, run->path, run->line, fmt, ap);
	va_end(ap);
	return err;
}

static int run_nomem(struct ini_run *run)
{
	return run_fail(run, -etmkit_err_nomem, "out of memory");
}

/* Mirror inih's test for a "[section]" line (ini.c, ini_parse_stream): a
 * line whose first non-blank character is '[', unless it is indented and
 * follows a key, when inih takes it as a continuation of that key's
 * value. */
static void note_header(struct ini_run *run, const char *s)
{
	const char *end;
	int indented;

	if (run->line == 1 && (unsigned char)s[0] == 0xEF &&
	    (unsigned char)s[1] == 0xBB && (unsigned char)s[2] == 0xBF)
		s += 3;
	indented = is_space((unsigned char)*s);
	while (is_space((unsigned char)*s))
		s++;
	if (*s != '[' || (INI_ALLOW_MULTILINE && indented && run->key_seen))
		return;
	end = strchr(s, ']');
	if (end && end - (s + 1) >= SS_INIH_MAX_SECTION) {
		run_fail(run, -etmkit_err_format,
			 "section name longer than %d characters",
			 SS_INIH_MAX_SECTION - 1);
		return;
	}
	run->section_gen++;
	run->section_line = run->line;
	run->key_seen = 0;
}

/* inih's fgets(): hands over one whole line of the loaded text. A line
 * that does not fit inih's buffer stops the parse with an error (inih
 * would otherwise split it into two lines, or drop its end). */
static char *run_reader(char *str, int num, void *stream)
{
	struct ini_run *run = stream;
	const char *start = run->text + run->pos;
	const char *nl;
	size_t n, room, text;

	if (run->err || run->pos >= run->len || num < 4)
		return NULL;
	nl = memchr(start, '\n', run->len - run->pos);
	n = nl ? (size_t)(nl - start) + 1 : run->len - run->pos;
	run->line++;
	/* inih needs 3 bytes past the text: '\r', '\n' and '\0' (ini.h). */
	room = (size_t)num - 3;
	text = nl ? n - 1 : n;
	if (text > 0 && start[text - 1] == '\r')
		text--;
	if (text > room) {
		run_fail(run, -etmkit_err_format,
			 "line longer than %zu characters", room);
		return NULL;
	}
	memcpy(str, start, n);
	str[n] = '\0';
	run->pos += n;
	note_header(run, str);
	return run->err ? NULL : str;
}

/* inih's handler: announces each new section, then passes the key on.
 * After the first error every call fails quietly (inih goes on). */
static int run_handler(void *user, const char *section, const char *name,
		       const char *value)
{
	struct ini_run *run = user;

	if (run->err)
		return 0;
	if (*name)
		run->key_seen = 1;
	if (run->handled_gen != run->section_gen) {
		run->handled_gen = run->section_gen;
		if (run->on_section && run->on_section(run, section) < 0)
			return 0;
	}
	return run->on_key(run, section, name, value) == 0;
}

/* Load @ref and run inih over it with @run's callbacks. */
static int run_file(struct ini_run *run, const struct file_ref *ref)
{
	char *data = NULL;
	size_t len = 0;
	int rc;

	run->path = ref->path;
	rc = load_text(run->ld, ref, &data, &len);
	if (rc)
		return rc;
	run->text = data;
	run->len = len;
	rc = ini_parse_stream(run_reader, run, run_handler, run);
	free(data);
	run->text = NULL;
	if (rc < 0)
		return fail_nomem(run->ld->diag, run->path);
	/* inih reports the first bad line; ours may come later. */
	if (rc > 0 && (!run->err || rc < run->err_line))
		return fail(run->ld->diag, -etmkit_err_format, run->path, rc,
			    "syntax error: expected [section], key=value or "
			    "a ; comment");
	return run->err;
}

/* ---- Values -------------------------------------------------------------- */

static int digit_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = ascii_lower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return 99;
}

/* "0x" hex or decimal, unsigned, up to 64 bits, nothing else. */
static int parse_u64(const char *s, uint64_t *out)
{
	unsigned base = 10;
	uint64_t v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return -1;
	for (; *s; s++) {
		unsigned d = (unsigned)digit_value((unsigned char)*s);

		if (d >= base || v > (UINT64_MAX - d) / base)
			return -1;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

static int key_number(struct ini_run *run, const char *section,
		      const char *name, const char *value, uint64_t *out)
{
	if (parse_u64(value, out) == 0)
		return 0;
	return run_fail(run, -etmkit_err_format,
			"bad number \"%.*s\" for key %s in [%s]", SS_QUOTE,
			value, name, section);
}

/* Mark key @bit of a section as set; a second setting is an error. */
static int key_once(struct ini_run *run, unsigned *seen, unsigned bit,
		    const char *section, const char *name)
{
	if (*seen & bit)
		return run_fail(run, -etmkit_err_format,
				"duplicate key %s in [%s]", name, section);
	*seen |= bit;
	return 0;
}

static int key_string(struct ini_run *run, const char *section,
		      const char *name, const char *value, const char **out)
{
	if (!*value)
		return run_fail(run, -etmkit_err_format,
				"empty value for key %s in [%s]", name, section);
	*out = arena_strdup(&run->ld->ss->arena, value);
	return *out ? 0 : run_nomem(run);
}

/* Path value @rel resolved against the folder of the .ini file being read:
 * absolute paths stay, relative ones get that folder in front. */
static int key_path(struct ini_run *run, const char *section,
		    const char *name, const char *rel, const char **out)
{
	const char *slash = strrchr(run->path, '/');
	size_t n = strlen(rel), dir = 0;
	char *p;

	if (rel[0] != '/' && slash)
		dir = (size_t)(slash - run->path) + 1;
	if (!*rel)
		return run_fail(run, -etmkit_err_format,
				"empty value for key %s in [%s]", name, section);
	if (dir + n > SS_MAX_PATH)
		return run_fail(run, -etmkit_err_format,
				"path too long for key %s in [%s]", name,
				section);
	p = arena_alloc(&run->ld->ss->arena, dir + n + 1);
	if (!p)
		return run_nomem(run);
	memcpy(p, run->path, dir);
	memcpy(p + dir, rel, n + 1);
	*out = p;
	return 0;
}

/* ---- snapshot.ini -------------------------------------------------------- */

struct top_parse {
	struct file_ref *devs;   /* [device_list] in file order */
	size_t ndevs, cap_devs;
	struct file_ref trace;   /* [trace] metadata, path NULL if none */
};

static int top_device(struct ini_run *run, const char *name,
		      const char *value)
{
	struct top_parse *tp = run->user;
	struct file_ref *p;

	if (tp->ndevs >= SS_MAX_DEVICES)
		return run_fail(run, -etmkit_err_format,
				"more than %d devices in [device_list]",
				SS_MAX_DEVICES);
	p = vec_room(tp->devs, tp->ndevs, &tp->cap_devs, sizeof(*p));
	if (!p)
		return run_nomem(run);
	tp->devs = p;
	p += tp->ndevs;
	p->by = run->path;
	p->line = run->line;
	if (key_path(run, "device_list", name, value, &p->path))
		return run->err;
	tp->ndevs++;
	return 0;
}

static int top_key(struct ini_run *run, const char *section,
		   const char *name, const char *value)
{
	struct top_parse *tp = run->user;

	if (ascii_casecmp(section, "device_list") == 0)
		return top_device(run, name, value);
	if (ascii_casecmp(section, "trace") != 0 ||
	    ascii_casecmp(name, "metadata") != 0)
		return 0; /* [snapshot] version, description...: unused */
	if (tp->trace.path)
		return run_fail(run, -etmkit_err_format,
				"duplicate key %s in [%s]", name, section);
	tp->trace.by = run->path;
	tp->trace.line = run->line;
	return key_path(run, section, name, value, &tp->trace.path);
}

/* ---- Device files -------------------------------------------------------- */

enum dev_section { dev_sec_other, dev_sec_device, dev_sec_regs, dev_sec_dump };

/* Keys of a [dump] section, as bits of dump_build.keys. */
enum {
	dump_key_file = 1u << 0,
	dump_key_address = 1u << 1,
	dump_key_length = 1u << 2,
	dump_key_offset = 1u << 3,
	dump_key_space = 1u << 4
};

struct dump_build {
	struct snapshot_dump d;
	const char *section; /* as written: "dump", "dump3", "dump.text1" */
	int line;            /* its header line */
	unsigned keys;       /* dump_key_* seen */
};

struct dev_parse {
	struct snapshot_device dev;
	int name_line;
	unsigned keys; /* bit i: dev_keys[i] seen */
	enum dev_section cur;
	struct snapshot_reg *regs;
	size_t cap_regs;
	struct dump_build *dumps;
	size_t ndumps, cap_dumps;
	/* Register names seen, for the duplicate check in linear time:
	 * open addressing, index + 1, 0 = empty (twice SS_MAX_REGS). */
	uint16_t reg_hash[2 * SS_MAX_REGS];
};

/* FNV-1a of the name, case folded: registers are case-insensitive. */
static uint32_t reg_name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint32_t)ascii_lower((unsigned char)*s)) * 16777619u;
	return h;
}

static const char *const dev_keys[3] = { "name", "class", "type" };

/* Sections "dump", "dump1", "dump.text1"...: every section whose name
 * starts with "dump" describes one memory dump, as in OpenCSD. */
static enum dev_section dev_classify(const char *section)
{
	if (ascii_casecmp(section, "device") == 0)
		return dev_sec_device;
	if (ascii_casecmp(section, "regs") == 0)
		return dev_sec_regs;
	if (ascii_has_prefix(section, "dump"))
		return dev_sec_dump;
	return dev_sec_other;
}

static int dev_section(struct ini_run *run, const char *section)
{
	struct dev_parse *dp = run->user;
	struct dump_build *p;

	dp->cur = dev_classify(section);
	if (dp->cur != dev_sec_dump)
		return 0;
	if (dp->ndumps >= SS_MAX_DUMPS)
		return run_fail(run, -etmkit_err_format,
				"more than %d [dump] sections", SS_MAX_DUMPS);
	p = vec_room(dp->dumps, dp->ndumps, &dp->cap_dumps, sizeof(*p));
	if (!p)
		return run_nomem(run);
	dp->dumps = p;
	p += dp->ndumps;
	memset(p, 0, sizeof(*p));
	p->line = run->section_line;
	p->section = arena_strdup(&run->ld->ss->arena, section);
	if (!p->section)
		return run_nomem(run);
	dp->ndumps++;
	return 0;
}

static int dev_device_key(struct ini_run *run, const char *section,
			  const char *name, const char *value)
{
	struct dev_parse *dp = run->user;
	const char **slots[] = { &dp->dev.name, &dp->dev.klass, &dp->dev.type };
	unsigned i;

	for (i = 0; i < 3; i++)
		if (ascii_casecmp(name, dev_keys[i]) == 0)
			break;
	if (i == 3)
		return 0;
	if (key_once(run, &dp->keys, 1u << i, section, name))
		return run->err;
	if (i == 0) {
		dp->name_line = run->line;
		return key_string(run, section, name, value, slots[i]);
	}
	*slots[i] = arena_strdup(&run->ld->ss->arena, value);
	return *slots[i] ? 0 : run_nomem(run);
}

/* ---- Registers: NAME, NAME(0x0OFF), NAME(id:0x4), NAME(id:0x100,size:64) */

/* inih splits "name=value" at the first '=' or ':', so a key such as
 * "PC(size:64)=0" arrives as name "PC(size", value "64)=0". Put it back
 * together in @buf and split it again at the '=' after the ')'. */
static int reg_rejoin(const char *name, const char *value, char *buf,
		      size_t size, char **key, char **val)
{
	char *close, *eq;

	if (strlen(name) + strlen(value) + 2 > size)
		return -1;
	snprintf(buf, size, "%s:%s", name, value);
	close = strchr(buf, ')');
	eq = close ? strchr(close, '=') : NULL;
	if (!eq)
		return -1;
	*eq = '\0';
	*key = trim(buf);
	*val = trim(eq + 1);
	return 0;
}

/* One item of the parenthesised part: "0x080" or "id:0x80" give the
 * offset; "size:64" is checked and dropped; other "tag:x" are ignored. */
static int reg_annotation(char *item, struct snapshot_reg *reg)
{
	char *colon = strchr(item, ':');
	uint64_t v;

	item = trim(item);
	if (colon) {
		*colon = '\0';
		if (ascii_casecmp(trim(item), "size") == 0)
			return parse_u64(trim(colon + 1), &v);
		if (ascii_casecmp(trim(item), "id") != 0)
			return 0;
		item = trim(colon + 1);
	}
	if (parse_u64(item, &v) || v > UINT32_MAX || reg->has_offset)
		return -1;
	reg->offset = (uint32_t)v;
	reg->has_offset = 1;
	return 0;
}

/* Split "NAME(annotations)" in place: @key becomes NAME. */
static int reg_split(char *key, struct snapshot_reg *reg, char **annot)
{
	char *open = strchr(key, '(');
	char *close;

	*annot = NULL;
	if (open) {
		close = strchr(open, ')');
		if (!close || *trim(close + 1))
			return -1;
		*open = '\0';
		*close = '\0';
		*annot = open + 1;
	}
	key = trim(key);
	if (!*key || strchr(key, ')'))
		return -1;
	reg->name = key;
	return 0;
}

static int reg_annotations(struct ini_run *run, char *annot,
			   struct snapshot_reg *reg)
{
	char *save = annot;

	while (annot) {
		char *comma = strchr(annot, ',');

		if (comma)
			*comma = '\0';
		if (reg_annotation(annot, reg))
			return run_fail(run, -etmkit_err_format,
					"bad register offset or size "
					"\"(%.*s)\" for register %s in [regs]",
					SS_QUOTE, save, reg->name);
		if (comma)
			*comma = ',';
		annot = comma ? comma + 1 : NULL;
	}
	return 0;
}

static int reg_add(struct ini_run *run, struct snapshot_reg *reg)
{
	struct dev_parse *dp = run->user;
	struct snapshot_reg *p;
	const size_t mask = sizeof(dp->reg_hash) / sizeof(dp->reg_hash[0]) - 1;
	size_t slot = reg_name_hash(reg->name) & mask;

	for (; dp->reg_hash[slot]; slot = (slot + 1) & mask)
		if (ascii_casecmp(dp->regs[dp->reg_hash[slot] - 1].name,
				  reg->name) == 0)
			return run_fail(run, -etmkit_err_format,
					"duplicate register %s in [regs]",
					reg->name);
	if (dp->dev.nregs >= SS_MAX_REGS)
		return run_fail(run, -etmkit_err_format,
				"more than %d registers in [regs]",
				SS_MAX_REGS);
	p = vec_room(dp->regs, dp->dev.nregs, &dp->cap_regs, sizeof(*p));
	if (!p)
		return run_nomem(run);
	dp->regs = p;
	reg->name = arena_strdup(&run->ld->ss->arena, reg->name);
	if (!reg->name)
		return run_nomem(run);
	p[dp->dev.nregs++] = *reg;
	dp->reg_hash[slot] = (uint16_t)dp->dev.nregs;
	return 0;
}

static int dev_reg_key(struct ini_run *run, const char *name,
		       const char *value)
{
	char buf[1024];
	char *key = buf, *joined_val, *annot;
	const char *val = value;
	struct snapshot_reg reg;
	size_t n = strlen(name);

	memset(&reg, 0, sizeof(reg));
	if (strchr(name, '(') && !strchr(name, ')')) {
		if (reg_rejoin(name, value, buf, sizeof(buf), &key,
			       &joined_val))
			return run_fail(run, -etmkit_err_format,
					"bad register name \"%.*s\" in [regs]",
					SS_QUOTE, name);
		val = joined_val;
	} else if (n < sizeof(buf)) {
		memcpy(buf, name, n + 1);
	} else {
		return run_fail(run, -etmkit_err_format,
				"register name too long in [regs]");
	}
	if (reg_split(key, &reg, &annot))
		return run_fail(run, -etmkit_err_format,
				"bad register name \"%.*s\" in [regs]", SS_QUOTE,
				name);
	if (annot && reg_annotations(run, annot, &reg))
		return run->err;
	if (parse_u64(val, &reg.value))
		return run_fail(run, -etmkit_err_format,
				"bad number \"%.*s\" for register %s in [regs]",
				SS_QUOTE, val, reg.name);
	return reg_add(run, &reg);
}

/* ---- Dumps --------------------------------------------------------------- */

static int dump_number_key(struct ini_run *run, struct dump_build *b,
			   unsigned bit, const char *name, const char *value)
{
	uint64_t v = 0;

	if (key_once(run, &b->keys, bit, b->section, name) ||
	    key_number(run, b->section, name, value, &v))
		return run->err;
	if (bit == dump_key_address)
		b->d.address = v;
	else if (bit == dump_key_offset)
		b->d.offset = v;
	else {
		b->d.length = v;
		b->d.has_length = 1;
	}
	return 0;
}

static int dev_dump_key(struct ini_run *run, const char *name,
			const char *value)
{
	struct dev_parse *dp = run->user;
	struct dump_build *b = &dp->dumps[dp->ndumps - 1];

	if (ascii_casecmp(name, "file") == 0) {
		if (key_once(run, &b->keys, dump_key_file, b->section, name))
			return run->err;
		return key_path(run, b->section, name, value, &b->d.file);
	}
	if (ascii_casecmp(name, "space") == 0) {
		uint8_t mask;

		if (key_once(run, &b->keys, dump_key_space, b->section, name))
			return run->err;
		/* Checked here, where the line is known (image.h). */
		if (image_space_parse(value, &mask) != 0)
			return run_fail(run, -etmkit_err_format,
					"unknown memory space \"%.*s\" for "
					"key %s in [%s]", SS_QUOTE, value,
					name, b->section);
		return key_string(run, b->section, name, value, &b->d.space);
	}
	if (ascii_casecmp(name, "address") == 0)
		return dump_number_key(run, b, dump_key_address, name, value);
	if (ascii_casecmp(name, "length") == 0)
		return dump_number_key(run, b, dump_key_length, name, value);
	if (ascii_casecmp(name, "offset") == 0)
		return dump_number_key(run, b, dump_key_offset, name, value);
	return 0; /* unknown keys are left for newer readers */
}

static int dev_key(struct ini_run *run, const char *section,
		   const char *name, const char *value)
{
	struct dev_parse *dp = run->user;

	switch (dp->cur) {
	case dev_sec_device:
		return dev_device_key(run, section, name, value);
	case dev_sec_regs:
		return dev_reg_key(run, name, value);
	case dev_sec_dump:
		return dev_dump_key(run, name, value);
	default:
		return 0;
	}
}

/* After the parse: every dump needs file and address, and its bytes must
 * not run past the top of a 64-bit address space. */
static int dev_check_dumps(struct loader *ld, const char *path,
			   const struct dev_parse *dp)
{
	size_t i;

	for (i = 0; i < dp->ndumps; i++) {
		const struct dump_build *b = &dp->dumps[i];
		const char *missing = NULL;

		if (!(b->keys & dump_key_file))
			missing = "file";
		else if (!(b->keys & dump_key_address))
			missing = "address";
		if (missing)
			return fail(ld->diag, -etmkit_err_format, path, b->line,
				    "missing key %s in [%s]", missing,
				    b->section);
		if (b->d.has_length && b->d.length &&
		    b->d.address > UINT64_MAX - (b->d.length - 1))
			return fail(ld->diag, -etmkit_err_format, path, b->line,
				    "dump in [%s] runs past the top of memory",
				    b->section);
	}
	return 0;
}

static int dev_check(struct loader *ld, const char *path,
		     const struct dev_parse *dp)
{
	const struct snapshot *ss = ld->ss;
	size_t i;

	if (!dp->dev.name)
		return fail(ld->diag, -etmkit_err_format, path, 0,
			    "missing key name in [device]");
	for (i = 0; i < ss->ndevices; i++)
		if (strcmp(ss->devices[i].name, dp->dev.name) == 0)
			return fail(ld->diag, -etmkit_err_format, path,
				    dp->name_line,
				    "duplicate device name %s (also in %s)",
				    dp->dev.name,
				    base_name(ss->devices[i].path));
	if (ss->ndevices >= SS_MAX_DEVICES)
		return fail(ld->diag, -etmkit_err_format, path, 0,
			    "more than %d devices", SS_MAX_DEVICES);
	return dev_check_dumps(ld, path, dp);
}

/* A dump that maps no bytes: no length (or length 0, "the whole file"),
 * and a file that is empty. CoreSight Access Library snapshots write such
 * dumps; they are left out with a note. A file that cannot be examined
 * here is kept: reading it is the image's job (image.h). */
static int dump_is_empty(const struct snapshot_dump *d)
{
	struct stat st;

	if (d->has_length && d->length)
		return 0;
	return stat(d->file, &st) == 0 && S_ISREG(st.st_mode) &&
	       st.st_size == 0;
}

/* Move the parsed device into the snapshot, its arrays into the arena. */
static int dev_commit(struct loader *ld, const char *path,
		      struct dev_parse *dp)
{
	struct snapshot *ss = ld->ss;
	struct snapshot_device *dev;
	struct snapshot_reg *regs = NULL;
	struct snapshot_dump *dumps = NULL;
	size_t i, n = 0;
	int rc;

	if (dp->dev.nregs &&
	    !(regs = arena_alloc(&ss->arena, dp->dev.nregs * sizeof(*regs))))
		return fail_nomem(ld->diag, path);
	if (dp->ndumps &&
	    !(dumps = arena_alloc(&ss->arena, dp->ndumps * sizeof(*dumps))))
		return fail_nomem(ld->diag, path);
	dev = vec_room(ss->devices, ss->ndevices, &ss->cap_devices,
		       sizeof(*dev));
	if (!dev)
		return fail_nomem(ld->diag, path);
	ss->devices = dev;
	if (dp->dev.nregs)
		memcpy(regs, dp->regs, dp->dev.nregs * sizeof(*regs));
	for (i = 0; i < dp->ndumps; i++) {
		const struct dump_build *b = &dp->dumps[i];

		if (!dump_is_empty(&b->d)) {
			dumps[n++] = b->d;
			continue;
		}
		rc = add_note(ld, snapshot_note_empty_dump, path, b->line,
			      b->section, b->d.file,
			      "dump [%s] maps no bytes: %s is empty: skipped",
			      b->section, base_name(b->d.file));
		if (rc)
			return rc;
	}
	dp->dev.path = path;
	dp->dev.regs = regs;
	dp->dev.dumps = n ? dumps : NULL;
	dp->dev.ndumps = n;
	ss->devices[ss->ndevices++] = dp->dev;
	return 0;
}

static int load_device(struct loader *ld, const struct file_ref *ref)
{
	struct dev_parse dp;
	struct ini_run run;
	int rc;

	memset(&dp, 0, sizeof(dp));
	memset(&run, 0, sizeof(run));
	dp.dev.klass = "";
	dp.dev.type = "";
	run.ld = ld;
	run.on_section = dev_section;
	run.on_key = dev_key;
	run.user = &dp;
	rc = run_file(&run, ref);
	if (rc == 0)
		rc = dev_check(ld, ref->path, &dp);
	if (rc == 0)
		rc = dev_commit(ld, ref->path, &dp);
	free(dp.regs);
	free(dp.dumps);
	return rc;
}

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
		return run_fail(run, -etmkit_err_format,
				"more than %d sections", SS_MAX_ENTRIES);
	p = vec_room(tp->sects, tp->nsects, &tp->cap_sects, sizeof(*p));
	if (!p)
		return run_nomem(run);
	tp->sects = p;
	p += tp->nsects;
	memset(p, 0, sizeof(*p));
	p->line = run->section_line;
	p->section = arena_strdup(&run->ld->ss->arena, section);
	if (!p->section)
		return run_nomem(run);
	tp->nsects++;
	return 0;
}

static int trace_pair_key(struct ini_run *run, int which, const char *section,
			  const char *name, const char *value)
{
	struct trace_parse *tp = run->user;
	struct trace_pair *p;

	if (tp->npairs[which] >= SS_MAX_ENTRIES)
		return run_fail(run, -etmkit_err_format,
				"more than %d entries in [%s]", SS_MAX_ENTRIES,
				section);
	if (!*name || !*value)
		return run_fail(run, -etmkit_err_format,
				"empty name or value in [%s]", section);
	p = vec_room(tp->pairs[which], tp->npairs[which],
		     &tp->cap_pairs[which], sizeof(*p));
	if (!p)
		return run_nomem(run);
	tp->pairs[which] = p;
	p += tp->npairs[which];
	p->line = run->line;
	p->key = arena_strdup(&run->ld->ss->arena, name);
	p->value = arena_strdup(&run->ld->ss->arena, value);
	if (!p->key || !p->value)
		return run_nomem(run);
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
	if (key_once(run, &b->keys, 1u << i, section, name))
		return run->err;
	if (i == 1)
		return key_path(run, section, name, value, &b->values[i]);
	return key_string(run, section, name, value, &b->values[i]);
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
			return run_fail(run, -etmkit_err_format,
					"duplicate key %s in [%s]", name,
					section);
		tp->buffers_line = run->line;
		tp->buffers = arena_strdup(&run->ld->ss->arena, value);
		return tp->buffers ? 0 : run_nomem(run);
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
			return fail(ld->diag, -etmkit_err_format, path,
				    tp->sects[i].line,
				    "section [%s] appears twice", name);
		*out = &tp->sects[i];
	}
	if (!*out)
		return fail(ld->diag, -etmkit_err_format, path,
			    tp->buffers_line,
			    "buffer section [%.*s] named in buffers= of "
			    "[trace_buffers] not found",
			    SS_QUOTE, name);
	if ((*out)->used)
		return fail(ld->diag, -etmkit_err_format, path,
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
			return fail(ld->diag, -etmkit_err_format, path, b->line,
				    "missing key %s in [%s]", buf_keys[i],
				    b->section);
	for (i = 0; i < ss->nbuffers; i++)
		if (strcmp(ss->buffers[i].name, b->values[0]) == 0)
			return fail(ld->diag, -etmkit_err_format, path, b->line,
				    "duplicate buffer name %s in [%s]",
				    b->values[0], b->section);
	if (ss->nbuffers >= SS_MAX_BUFFERS)
		return fail(ld->diag, -etmkit_err_format, path, b->line,
			    "more than %d buffers", SS_MAX_BUFFERS);
	p = vec_room(ss->buffers, ss->nbuffers, &ss->cap_buffers, sizeof(*p));
	if (!p)
		return fail_nomem(ld->diag, path);
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
		return fail(ld->diag, -etmkit_err_format, path, 0,
			    "missing key buffers in [trace_buffers]");
	while (item) {
		char *comma = strchr(item, ',');
		struct buf_section *b;
		int rc;

		if (comma)
			*comma = '\0';
		item = trim(item);
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
		return fail(ld->diag, -etmkit_err_format, path, pr->line,
			    "unknown buffer %s for source %s in [%s]",
			    pr->value, pr->key, sec);
	if (find_source(ss, pr->key))
		return fail(ld->diag, -etmkit_err_format, path, pr->line,
			    "duplicate source %s in [%s]", pr->key, sec);
	/* Real snapshots list sources whose device file was not written
	 * (OpenCSD reads them too): left out, with a note. */
	if (!snapshot_find_device(ss, pr->key))
		return add_note(ld, snapshot_note_source_no_device, path,
				pr->line, sec, pr->key,
				"trace source %s in [%s] has no device file: "
				"skipped", pr->key, sec);
	p = vec_room(ss->sources, ss->nsources, &ss->cap_sources, sizeof(*p));
	if (!p)
		return fail_nomem(ld->diag, path);
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
		return fail(ld->diag, -etmkit_err_format, path, pr->line,
			    "source %s already has core %s in [%s]",
			    src->name, src->core, sec);
	/* A core that no device file describes: the source is kept, with
	 * no core (so no memory dumps), and a note. */
	if (!snapshot_find_device(ld->ss, pr->key))
		return add_note(ld, snapshot_note_core_no_device, path,
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

static int load_trace(struct loader *ld, const struct file_ref *ref)
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
	rc = run_file(&run, ref);
	if (rc == 0)
		rc = trace_check(ld, ref->path, &tp);
	free(tp.sects);
	free(tp.pairs[0]);
	free(tp.pairs[1]);
	return rc;
}

/* ---- The whole snapshot -------------------------------------------------- */

static int load_snapshot(struct loader *ld, const char *dir)
{
	struct top_parse tp;
	struct ini_run run;
	struct file_ref top = { NULL, NULL, 0 };
	size_t n = strlen(dir), i;
	char *path;
	int rc;

	if (n > SS_MAX_PATH)
		return fail(ld->diag, -etmkit_err_invalid, "", 0,
			    "directory name too long");
	path = arena_alloc(&ld->ss->arena, n + sizeof("/snapshot.ini"));
	if (!path)
		return fail_nomem(ld->diag, dir);
	snprintf(path, n + sizeof("/snapshot.ini"), "%s%ssnapshot.ini", dir,
		 (n == 0 || dir[n - 1] == '/') ? "" : "/");
	top.path = path;
	memset(&tp, 0, sizeof(tp));
	memset(&run, 0, sizeof(run));
	run.ld = ld;
	run.on_key = top_key;
	run.user = &tp;
	rc = run_file(&run, &top);
	if (rc == 0 && tp.ndevs == 0)
		rc = fail(ld->diag, -etmkit_err_format, path, 0,
			  "no devices listed in [device_list]");
	for (i = 0; rc == 0 && i < tp.ndevs; i++)
		rc = load_device(ld, &tp.devs[i]);
	if (rc == 0 && tp.trace.path)
		rc = load_trace(ld, &tp.trace);
	free(tp.devs);
	return rc;
}

int snapshot_open(struct snapshot **ss, const char *dir,
		  struct snapshot_diag *diag)
{
	struct snapshot_diag local;
	struct loader ld;
	int rc;

	if (!diag)
		diag = &local;
	diag_clear(diag);
	if (!ss || !dir) {
		if (ss)
			*ss = NULL;
		return fail(diag, -etmkit_err_invalid, "", 0, "NULL argument");
	}
	*ss = NULL;
	memset(&ld, 0, sizeof(ld));
	ld.diag = diag;
	ld.ss = calloc(1, sizeof(*ld.ss));
	if (!ld.ss)
		return fail_nomem(diag, dir);
	rc = load_snapshot(&ld, dir);
	if (rc) {
		snapshot_free(ld.ss);
		return rc;
	}
	*ss = ld.ss;
	return 0;
}

void snapshot_free(struct snapshot *ss)
{
	if (!ss)
		return;
	free(ss->devices);
	free(ss->buffers);
	free(ss->sources);
	free(ss->notes);
	arena_free(&ss->arena);
	free(ss);
}

/* ---- Accessors ----------------------------------------------------------- */

size_t snapshot_device_count(const struct snapshot *ss)
{
	return ss ? ss->ndevices : 0;
}

const struct snapshot_device *snapshot_device_at(const struct snapshot *ss,
						 size_t i)
{
	return (ss && i < ss->ndevices) ? &ss->devices[i] : NULL;
}

const struct snapshot_device *snapshot_find_device(const struct snapshot *ss,
						   const char *name)
{
	size_t i;

	if (!ss || !name)
		return NULL;
	for (i = 0; i < ss->ndevices; i++)
		if (strcmp(ss->devices[i].name, name) == 0)
			return &ss->devices[i];
	return NULL;
}

size_t snapshot_buffer_count(const struct snapshot *ss)
{
	return ss ? ss->nbuffers : 0;
}

const struct snapshot_buffer *snapshot_buffer_at(const struct snapshot *ss,
						 size_t i)
{
	return (ss && i < ss->nbuffers) ? &ss->buffers[i] : NULL;
}

const struct snapshot_buffer *snapshot_find_buffer(const struct snapshot *ss,
						   const char *name)
{
	size_t i;

	if (!ss || !name)
		return NULL;
	for (i = 0; i < ss->nbuffers; i++)
		if (strcmp(ss->buffers[i].name, name) == 0)
			return &ss->buffers[i];
	return NULL;
}

size_t snapshot_source_count(const struct snapshot *ss)
{
	return ss ? ss->nsources : 0;
}

const struct snapshot_source *snapshot_source_at(const struct snapshot *ss,
						 size_t i)
{
	return (ss && i < ss->nsources) ? &ss->sources[i] : NULL;
}

size_t snapshot_note_count(const struct snapshot *ss)
{
	return ss ? ss->nnotes : 0;
}

const struct snapshot_note *snapshot_note_at(const struct snapshot *ss,
					     size_t i)
{
	return (ss && i < ss->nnotes) ? &ss->notes[i] : NULL;
}

int snapshot_reg_value(const struct snapshot_device *dev, const char *name,
		       uint64_t *value)
{
	size_t i;

	if (!dev || !name || !value)
		return -etmkit_err_invalid;
	for (i = 0; i < dev->nregs; i++) {
		if (ascii_casecmp(dev->regs[i].name, name) == 0) {
			*value = dev->regs[i].value;
			return 0;
		}
	}
	return -etmkit_err_not_found;
}

enum etmkit_protocol snapshot_device_protocol(const struct snapshot_device *dev)
{
	if (!dev || !dev->type)
		return etmkit_proto_none;
	if (ascii_has_prefix(dev->type, "ETM3"))
		return etmkit_proto_etmv3;
	if (ascii_has_prefix(dev->type, "ETM4"))
		return etmkit_proto_etmv4;
	if (ascii_has_prefix(dev->type, "ETE"))
		return etmkit_proto_ete;
	return etmkit_proto_none;
}

/* ---- ETMv3 configuration ------------------------------------------------- */

int snapshot_etm3_config(const struct snapshot_device *dev,
			 struct etm3_config *cfg, uint8_t *trace_id,
			 struct snapshot_diag *diag)
{
	static const char *const names[4] = { "ETMCR", "ETMIDR", "ETMCCER",
					       "ETMTRACEIDR" };
	struct snapshot_diag local;
	uint64_t v[4];
	unsigned i;

	if (!diag)
		diag = &local;
	diag_clear(diag);
	if (!dev || !cfg || !trace_id)
		return fail(diag, -etmkit_err_invalid, "", 0, "NULL argument");
	for (i = 0; i < 4; i++) {
		if (snapshot_reg_value(dev, names[i], &v[i]) != 0)
			return fail(diag, -etmkit_err_format, dev->path, 0,
				    "register %s missing in [regs] of device %s",
				    names[i], dev->name);
		if (v[i] > UINT32_MAX)
			return fail(diag, -etmkit_err_format, dev->path, 0,
				    "register %s of device %s does not fit in "
				    "32 bits",
				    names[i], dev->name);
	}
	etm3_config_init(cfg);
	cfg->etmcr = (uint32_t)v[0];
	cfg->etmidr = (uint32_t)v[1];
	cfg->etmccer = (uint32_t)v[2];
	/* IHI 0014Q 3.5.59: ETMTRACEIDR bits [6:0] are the trace ID. */
	*trace_id = (uint8_t)(v[3] & 0x7F);
	return 0;
}

/* ---- ETMv4 / ETE configuration ------------------------------------------- */

/* Register @name of @dev as 32 bits into *@v. A missing register is an
 * error if @required, else 0. */
static int etm4_reg(const struct snapshot_device *dev, const char *name,
		    int required, uint32_t *v, struct snapshot_diag *diag)
{
	uint64_t x = 0;

	if (snapshot_reg_value(dev, name, &x) != 0) {
		if (required)
			return fail(diag, -etmkit_err_format, dev->path, 0,
				    "register %s missing in [regs] of device %s",
				    name, dev->name);
		x = 0;
	}
	if (x > UINT32_MAX)
		return fail(diag, -etmkit_err_format, dev->path, 0,
			    "register %s of device %s does not fit in 32 bits",
			    name, dev->name);
	*v = (uint32_t)x;
	return 0;
}

int snapshot_etm4_config(const struct snapshot_device *dev,
			 struct etm4_config *cfg, uint8_t *trace_id,
			 struct snapshot_diag *diag)
{
	/* digest 6: the minimum set a packet parser needs, then the key
	 * registers of ETMv4 data and conditional trace and ETE's version. */
	struct etm4_config c;
	const struct {
		const char *name;
		uint32_t *field;
		int required;
	} regs[] = {
		{ "TRCIDR0", &c.trcidr0, 1 },
		{ "TRCIDR1", &c.trcidr1, 1 },
		{ "TRCIDR2", &c.trcidr2, 1 },
		{ "TRCIDR8", &c.trcidr8, 1 },
		{ "TRCCONFIGR", &c.trcconfigr, 1 },
		{ "TRCIDR9", &c.trcidr9, 0 },
		{ "TRCIDR10", &c.trcidr10, 0 },
		{ "TRCIDR11", &c.trcidr11, 0 },
		{ "TRCIDR12", &c.trcidr12, 0 },
		{ "TRCIDR13", &c.trcidr13, 0 },
		{ "TRCDEVARCH", &c.trcdevarch, 0 },
	};
	struct snapshot_diag local;
	uint32_t traceidr = 0;
	size_t i;
	int err;

	if (!diag)
		diag = &local;
	diag_clear(diag);
	if (!dev || !cfg || !trace_id)
		return fail(diag, -etmkit_err_invalid, "", 0, "NULL argument");
	etm4_config_init(&c);
	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		err = etm4_reg(dev, regs[i].name, regs[i].required,
			       regs[i].field, diag);
		if (err < 0)
			return err;
	}
	err = etm4_reg(dev, "TRCTRACEIDR", 1, &traceidr, diag);
	if (err < 0)
		return err;
	if (snapshot_device_protocol(dev) == etmkit_proto_ete)
		c.flags |= ETM4_CFG_ETE;
	*cfg = c;
	/* digest 6.2: TRCTRACEIDR[6:0] is the CoreSight trace ID. */
	*trace_id = (uint8_t)(traceidr & 0x7F);
	return 0;
}
