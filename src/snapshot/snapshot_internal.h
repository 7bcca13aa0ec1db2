/* etmkit: what the parts of the snapshot reader share (internal).
 *
 * The reader (include/etmkit/snapshot.h) is split by concept:
 *  - arena.c: the memory everything a snapshot hands out lives in;
 *  - ini_run.c: loading an .ini file (bounded, text only) and running inih
 *    over it line by line; diagnostics, notes and key values;
 *  - devices.c: device files ([device], [regs], [dump]) and what is read
 *    from a device's registers (ETMv3, ETMv4/ETE configurations);
 *  - trace_ini.c: trace.ini (buffers, sources, cores);
 *  - snapshot.c: snapshot.ini, the order of work, the accessors.
 * Layer: input. Nothing here is public.
 */
#ifndef ETMKIT_SNAPSHOT_INTERNAL_H
#define ETMKIT_SNAPSHOT_INTERNAL_H

#include "etmkit/snapshot.h"
#include "common/text.h" /* ETMKIT_PRINTF */

#include <stddef.h>
#include <stdint.h>

/* ---- Limits -------------------------------------------------------------- */

enum {
	SS_MAX_DEVICES = 4096,
	SS_MAX_REGS = 4096,    /* per device file */
	SS_MAX_DUMPS = 4096,   /* per device file */
	SS_MAX_BUFFERS = 4096,
	SS_MAX_ENTRIES = 4096, /* sections, source and core lines (trace.ini) */
	SS_MAX_NOTES = 4096,   /* kept; later ones are dropped */
	SS_MAX_PATH = 4096,
	/* inih cuts section names to MAX_SECTION - 1 = 49 characters (ini.c);
	 * two long names that differ past that would silently merge. */
	SS_INIH_MAX_SECTION = 50,
	SS_QUOTE = 48          /* longest value quoted in a message */
};

#define SS_MAX_FILE_BYTES ((size_t)4 << 20)
#define SS_MAX_TOTAL_BYTES ((size_t)64 << 20)
#define SS_ARENA_CHUNK ((size_t)16 << 10)

/* ---- Arena (arena.c) ----------------------------------------------------- */

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

struct arena {
	struct arena_chunk *head;
};

void *ss_arena_alloc(struct arena *a, size_t n);
char *ss_arena_strdup(struct arena *a, const char *s);
void ss_arena_free(struct arena *a);

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

/* ---- Diagnostics and notes (ini_run.c) ----------------------------------- */

/* Trim @s in place (both ends); returns the first kept character. */
char *ss_trim(char *s);
/* The last component of @path, for short mentions in messages. */
const char *ss_base_name(const char *path);

void ss_diag_clear(struct snapshot_diag *d);
/* Fill @d and return @err (a negated etmkit_error). */
int ss_fail(struct snapshot_diag *d, int err, const char *path, int line,
	    const char *fmt, ...) ETMKIT_PRINTF(5, 6);
int ss_fail_nomem(struct snapshot_diag *d, const char *path);

/* Record that @name (in [@section] of @path, line @line) was skipped, with
 * the reason as a message (snapshot.h, struct snapshot_note). Returns 0 or
 * -etmkit_err_nomem (in ld->diag). */
int ss_add_note(struct loader *ld, enum snapshot_note_kind kind,
		const char *path, int line, const char *section,
		const char *name, const char *fmt, ...) ETMKIT_PRINTF(7, 8);

/* ---- Running inih over a file (ini_run.c) -------------------------------- */

/* Who named the file being loaded, for "cannot open" messages. */
struct file_ref {
	const char *path; /* resolved */
	const char *by;   /* the .ini that named it, or NULL */
	int line;         /* its line there */
};

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
int ss_run_fail(struct ini_run *run, int err, const char *fmt, ...)
	ETMKIT_PRINTF(3, 4);
int ss_run_nomem(struct ini_run *run);
/* Load @ref and run inih over it with @run's callbacks. */
int ss_run_file(struct ini_run *run, const struct file_ref *ref);

/* "0x" hex or decimal, unsigned, up to 64 bits, nothing else. */
int ss_parse_u64(const char *s, uint64_t *out);
int ss_key_number(struct ini_run *run, const char *section,
		  const char *name, const char *value, uint64_t *out);
/* Mark key @bit of a section as set; a second setting is an error. */
int ss_key_once(struct ini_run *run, unsigned *seen, unsigned bit,
		const char *section, const char *name);
int ss_key_string(struct ini_run *run, const char *section,
		  const char *name, const char *value, const char **out);
/* Path value @rel resolved against the folder of the .ini file being read. */
int ss_key_path(struct ini_run *run, const char *section,
		const char *name, const char *rel, const char **out);

/* ---- The files (devices.c, trace_ini.c) ---------------------------------- */

/* Read device file @ref into ld->ss (appended to its devices). */
int ss_load_device(struct loader *ld, const struct file_ref *ref);
/* Read trace.ini @ref, checked against the devices read before. */
int ss_load_trace(struct loader *ld, const struct file_ref *ref);

#endif /* ETMKIT_SNAPSHOT_INTERNAL_H */
