/* etmkit CLI: the INPUT... of profile and coverage, expanded to one input
 * each (cli/core.h, cli_inputs_expand()). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "core.h"

/* @LIST inside @LIST: this deep at most (a list naming itself stops). */
#define LIST_DEPTH 16

struct expand {
	char **v;
	size_t n, cap;
	char *err;
	size_t errlen;
};

static int fail(struct expand *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct expand *x, const char *fmt, ...)
{
	va_list ap;

	if (x->err && x->errlen) {
		va_start(ap, fmt);
		vsnprintf(x->err, x->errlen, fmt, ap);
		va_end(ap);
	}
	return cli_exit_input;
}

static int push(struct expand *x, char *path)
{
	if (!path)
		return fail(x, "out of memory");
	if (x->n == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 16;
		char **v = realloc(x->v, cap * sizeof(*v));

		if (!v) {
			free(path);
			return fail(x, "out of memory");
		}
		x->v = v;
		x->cap = cap;
	}
	x->v[x->n++] = path;
	return 0;
}

/* @dir "/" @name, without a second slash when @dir ends with one. */
static char *join(const char *dir, const char *name)
{
	size_t d = strlen(dir), k = strlen(name);
	int slash = d && dir[d - 1] != '/';
	char *p = malloc(d + (size_t)slash + k + 1);

	if (!p)
		return NULL;
	memcpy(p, dir, d);
	if (slash)
		p[d] = '/';
	memcpy(p + d + (size_t)slash, name, k + 1);
	return p;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every perf.data file under @dir (symbolic links to directories are
 * not followed: no loops), into @x unsorted. */
static int walk(struct expand *x, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return fail(x, "%s: cannot read the directory: %s", dir,
			    cli_strerror(errno));
	while (!rc && (e = readdir(d))) {
		struct stat st;
		char *p;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		p = join(dir, e->d_name);
		if (!p) {
			rc = fail(x, "out of memory");
			break;
		}
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			rc = depth < 64 ? walk(x, p, depth + 1) : 0;
			free(p);
		} else if (stat(p, &st) == 0 && S_ISREG(st.st_mode) &&
			   cli_is_perf_file(p)) {
			rc = push(x, p);
		} else {
			free(p);
		}
	}
	closedir(d);
	return rc;
}

/* A directory that is not a snapshot: its recordings, sorted bytewise. */
static int expand_dir(struct expand *x, const char *dir)
{
	size_t first = x->n;
	int rc = walk(x, dir, 0);

	if (rc)
		return rc;
	if (x->n == first)
		return fail(x, "%s: no perf.data file under the directory "
			    "(and no snapshot.ini in it)", dir);
	qsort(x->v + first, x->n - first, sizeof(*x->v), cmp_path);
	return 0;
}

static int expand_one(struct expand *x, const char *in, int depth);
static int expand_list(struct expand *x, const char *list, int depth);

/* Line @no of list @list (in directory @dir, NULL: the current one):
 * @s, a path or @LIST relative to @dir. A path that is not there is the
 * list's error, named by its file and line. */
static int list_line(struct expand *x, const char *list, unsigned no,
		     const char *dir, const char *s, int depth)
{
	int at = s[0] == '@';
	const char *rel = s + at;
	char *p = dir && rel[0] != '/' ? join(dir, rel) : strdup(rel);
	struct stat st;
	int rc;

	if (!p)
		return fail(x, "out of memory");
	if (stat(p, &st) != 0)
		rc = fail(x, "%s:%u: %s: %s", list, no, p, cli_strerror(errno));
	else if (at)
		rc = expand_list(x, p, depth + 1);
	else
		rc = expand_one(x, p, depth);
	free(p);
	return rc;
}

/* @LIST: one INPUT per line, relative to the list's directory. */
static int expand_list(struct expand *x, const char *list, int depth)
{
	FILE *f;
	char *line = NULL, *dir = NULL, *slash;
	size_t cap = 0;
	ssize_t len;
	unsigned no = 0;
	size_t before = x->n;
	struct stat st;
	int rc = 0, rerr;

	if (depth >= LIST_DEPTH)
		return fail(x, "@%s: lists inside lists deeper than %d",
			    list, LIST_DEPTH);
	f = fopen(list, "r");
	if (!f)
		return fail(x, "@%s: cannot read the list: %s", list,
			    cli_strerror(errno));
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		return fail(x, "@%s: cannot read the list: %s", list,
			    cli_strerror(EISDIR));
	}
	slash = strrchr(list, '/');
	if (slash && !(dir = malloc((size_t)(slash - list) + 2))) {
		fclose(f);
		return fail(x, "out of memory");
	}
	if (dir) {
		/* "/x" is in "/" */
		size_t k = slash == list ? 1 : (size_t)(slash - list);

		memcpy(dir, list, k);
		dir[k] = 0;
	}
	while (!rc && (len = getline(&line, &cap, f)) >= 0) {
		char *s = line, *e = line + len;

		no++;
		if (memchr(line, 0, (size_t)len)) {
			rc = fail(x, "%s:%u: a NUL byte in the line", list, no);
			break;
		}
		while (e > s && (e[-1] == '\n' || e[-1] == '\r' ||
				 e[-1] == ' ' || e[-1] == '\t'))
			*--e = 0;
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '#')
			continue;
		rc = list_line(x, list, no, dir, s, depth);
	}
	rerr = errno;
	if (!rc && ferror(f))
		rc = fail(x, "@%s: cannot read the list: %s", list,
			  cli_strerror(rerr));
	if (!rc && x->n == before)
		rc = fail(x, "@%s: the list names no input", list);
	free(line);
	free(dir);
	fclose(f);
	return rc;
}

/* @in: a file, a directory, or @LIST. */
static int expand_one(struct expand *x, const char *in, int depth)
{
	struct stat st;

	if (in[0] == '@' && in[1])
		return expand_list(x, in + 1, depth + 1);
	if (stat(in, &st) == 0 && S_ISDIR(st.st_mode))
		return cli_is_snapshot_dir(in) ? push(x, strdup(in)) :
					     expand_dir(x, in);
	/* a file, or a name the run reports (cannot open: left out) */
	return push(x, strdup(in));
}

int cli_inputs_expand(int n, char **inputs, char ***out, size_t *nout,
		      char *err, size_t errlen)
{
	struct expand x = { NULL, 0, 0, err, errlen };
	int rc = 0;

	*out = NULL;
	*nout = 0;
	if (err && errlen)
		err[0] = 0;
	for (int i = 0; !rc && i < n; i++)
		rc = expand_one(&x, inputs[i], 0);
	if (rc) {
		cli_inputs_free(x.v, x.n);
		return rc;
	}
	*out = x.v;
	*nout = x.n;
	return 0;
}

void cli_inputs_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
