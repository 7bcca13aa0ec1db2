/* etmkit: loading an .ini file and running inih over it, for the snapshot
 * reader (src/snapshot/snapshot_internal.h).
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
 * Also here: diagnostics, the notes of what was skipped, key values.
 */
#define _POSIX_C_SOURCE 200809L

#include "snapshot_internal.h"
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

/* ---- Small string helpers ------------------------------------------------ */

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
	       c == '\f';
}

/* Trim @s in place (both ends); returns the first kept character. */
char *ss_trim(char *s)
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
const char *ss_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

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

void ss_diag_clear(struct snapshot_diag *d)
{
	d->path[0] = '\0';
	d->line = 0;
	d->message[0] = '\0';
}

/* Fill @d and return @err (a negated etmkit_error). */
int ss_fail(struct snapshot_diag *d, int err, const char *path, int line,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vset(d, path, line, fmt, ap);
	va_end(ap);
	return err;
}

int ss_fail_nomem(struct snapshot_diag *d, const char *path)
{
	return ss_fail(d, -etmkit_err_nomem, path, 0, "out of memory");
}

/* ---- Notes: what was skipped --------------------------------------------- */

/* Record that @name (in [@section] of @path, line @line) was skipped, with
 * the reason as a message. Past SS_MAX_NOTES notes, the note is dropped
 * (the snapshot still opens). */
int ss_add_note(struct loader *ld, enum snapshot_note_kind kind,
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
		return ss_fail_nomem(ld->diag, path);
	ss->notes = p;
	p += ss->nnotes;
	p->kind = kind;
	p->line = line;
	p->path = ss_arena_strdup(&ss->arena, path);
	p->section = ss_arena_strdup(&ss->arena, section);
	p->name = ss_arena_strdup(&ss->arena, name);
	p->message = ss_arena_strdup(&ss->arena, msg);
	if (!p->path || !p->section || !p->name || !p->message)
		return ss_fail_nomem(ld->diag, path);
	ss->nnotes++;
	return 0;
}

/* ---- Loading a text file ------------------------------------------------- */

static int ref_fail(struct loader *ld, int err, const struct file_ref *ref,
		    const char *why)
{
	if (ref->by)
		return ss_fail(ld->diag, err, ref->path, 0,
			    "%s (named in %s line %d)", why, ss_base_name(ref->by),
			    ref->line);
	return ss_fail(ld->diag, err, ref->path, 0, "%s", why);
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
		return ss_fail_nomem(ld->diag, ref->path);
	if (rc)
		return ref_fail(ld, rc, ref, "read error");
	return 0;
}

static int too_large(struct loader *ld, const char *path)
{
	return ss_fail(ld->diag, -etmkit_err_format, path, 0,
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
		return ss_fail(ld->diag, -etmkit_err_format, path, 0,
			    "snapshot .ini files exceed %zu bytes in all",
			    (size_t)SS_MAX_TOTAL_BYTES);
	line = find_binary(data, len, &byte);
	if (line)
		return ss_fail(ld->diag, -etmkit_err_format, path, line,
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

/* Record the first error of a run, tied to the current line. */
int ss_run_fail(struct ini_run *run, int err, const char *fmt, ...)
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

int ss_run_nomem(struct ini_run *run)
{
	return ss_run_fail(run, -etmkit_err_nomem, "out of memory");
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
		ss_run_fail(run, -etmkit_err_format,
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
		ss_run_fail(run, -etmkit_err_format,
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
int ss_run_file(struct ini_run *run, const struct file_ref *ref)
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
		return ss_fail_nomem(run->ld->diag, run->path);
	/* inih reports the first bad line; ours may come later. */
	if (rc > 0 && (!run->err || rc < run->err_line))
		return ss_fail(run->ld->diag, -etmkit_err_format, run->path, rc,
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
int ss_parse_u64(const char *s, uint64_t *out)
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

int ss_key_number(struct ini_run *run, const char *section,
		      const char *name, const char *value, uint64_t *out)
{
	if (ss_parse_u64(value, out) == 0)
		return 0;
	return ss_run_fail(run, -etmkit_err_format,
			"bad number \"%.*s\" for key %s in [%s]", SS_QUOTE,
			value, name, section);
}

/* Mark key @bit of a section as set; a second setting is an error. */
int ss_key_once(struct ini_run *run, unsigned *seen, unsigned bit,
		    const char *section, const char *name)
{
	if (*seen & bit)
		return ss_run_fail(run, -etmkit_err_format,
				"duplicate key %s in [%s]", name, section);
	*seen |= bit;
	return 0;
}

int ss_key_string(struct ini_run *run, const char *section,
		      const char *name, const char *value, const char **out)
{
	if (!*value)
		return ss_run_fail(run, -etmkit_err_format,
				"empty value for key %s in [%s]", name, section);
	*out = ss_arena_strdup(&run->ld->ss->arena, value);
	return *out ? 0 : ss_run_nomem(run);
}

/* Path value @rel resolved against the folder of the .ini file being read:
 * absolute paths stay, relative ones get that folder in front. */
int ss_key_path(struct ini_run *run, const char *section,
		    const char *name, const char *rel, const char **out)
{
	const char *slash = strrchr(run->path, '/');
	size_t n = strlen(rel), dir = 0;
	char *p;

	if (rel[0] != '/' && slash)
		dir = (size_t)(slash - run->path) + 1;
	if (!*rel)
		return ss_run_fail(run, -etmkit_err_format,
				"empty value for key %s in [%s]", name, section);
	if (dir + n > SS_MAX_PATH)
		return ss_run_fail(run, -etmkit_err_format,
				"path too long for key %s in [%s]", name,
				section);
	p = ss_arena_alloc(&run->ld->ss->arena, dir + n + 1);
	if (!p)
		return ss_run_nomem(run);
	memcpy(p, run->path, dir);
	memcpy(p + dir, rel, n + 1);
	*out = p;
	return 0;
}
