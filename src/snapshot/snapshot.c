/* etmkit: trace snapshot directory reader (include/etmkit/snapshot.h):
 * snapshot.ini, the order of work, the accessors. The other parts are
 * listed in snapshot_internal.h; how a file is read is in ini_run.c.
 *
 * Order of work: snapshot.ini (device list, trace metadata path), then
 * each device file in list order, then trace.ini, whose buffers, sources
 * and cores are checked against the devices and buffers read before.
 *
 * Memory: everything a snapshot hands out (strings, register and dump
 * arrays) lives in one arena freed by snapshot_free(); the device, buffer
 * source and note arrays are growable arrays owned by the snapshot. Temporary
 * arrays used while parsing a file are freed before the parse returns, on
 * success and on error.
 */
#define _POSIX_C_SOURCE 200809L

#include "snapshot_internal.h"
#include "common/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		return ss_run_fail(run, -etmkit_err_format,
				"more than %d devices in [device_list]",
				SS_MAX_DEVICES);
	p = vec_room(tp->devs, tp->ndevs, &tp->cap_devs, sizeof(*p));
	if (!p)
		return ss_run_nomem(run);
	tp->devs = p;
	p += tp->ndevs;
	p->by = run->path;
	p->line = run->line;
	if (ss_key_path(run, "device_list", name, value, &p->path))
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
		return ss_run_fail(run, -etmkit_err_format,
				"duplicate key %s in [%s]", name, section);
	tp->trace.by = run->path;
	tp->trace.line = run->line;
	return ss_key_path(run, section, name, value, &tp->trace.path);
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
		return ss_fail(ld->diag, -etmkit_err_invalid, "", 0,
			    "directory name too long");
	path = ss_arena_alloc(&ld->ss->arena, n + sizeof("/snapshot.ini"));
	if (!path)
		return ss_fail_nomem(ld->diag, dir);
	snprintf(path, n + sizeof("/snapshot.ini"), "%s%ssnapshot.ini", dir,
		 (n == 0 || dir[n - 1] == '/') ? "" : "/");
	top.path = path;
	memset(&tp, 0, sizeof(tp));
	memset(&run, 0, sizeof(run));
	run.ld = ld;
	run.on_key = top_key;
	run.user = &tp;
	rc = ss_run_file(&run, &top);
	if (rc == 0 && tp.ndevs == 0)
		rc = ss_fail(ld->diag, -etmkit_err_format, path, 0,
			  "no devices listed in [device_list]");
	for (i = 0; rc == 0 && i < tp.ndevs; i++)
		rc = ss_load_device(ld, &tp.devs[i]);
	if (rc == 0 && tp.trace.path)
		rc = ss_load_trace(ld, &tp.trace);
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
	ss_diag_clear(diag);
	if (!ss || !dir) {
		if (ss)
			*ss = NULL;
		return ss_fail(diag, -etmkit_err_invalid, "", 0, "NULL argument");
	}
	*ss = NULL;
	memset(&ld, 0, sizeof(ld));
	ld.diag = diag;
	ld.ss = calloc(1, sizeof(*ld.ss));
	if (!ld.ss)
		return ss_fail_nomem(diag, dir);
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
	ss_arena_free(&ss->arena);
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
