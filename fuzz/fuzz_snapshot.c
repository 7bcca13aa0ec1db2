/* libFuzzer target: the snapshot reader on arbitrary .ini files.
 * The input is split at lines "%%" into snapshot.ini, trace.ini, d0.ini,
 * d1.ini and d2.ini, written to a private folder, then opened.
 * Invariants: the result is 0 or a format/io/nomem error; an error names
 * a file and says why; a snapshot that opens is consistent (every source
 * names a device and a buffer that exist) and every device's registers can
 * be asked for without harm. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etmkit/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = { "snapshot.ini", "trace.ini", "d0.ini",
				     "d1.ini", "d2.ini" };

static char dir[512];

/* The private folder and its five files go when the process ends. */
static void cleanup(void)
{
	char path[600];

	for (int i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

static void write_part(int i, const uint8_t *p, size_t n)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
	f = fopen(path, "wb");
	if (!f)
		abort();
	if (n && fwrite(p, 1, n, f) != n)
		abort();
	fclose(f);
}

static void check_open(const struct snapshot *ss)
{
	for (size_t i = 0; i < snapshot_source_count(ss); i++) {
		const struct snapshot_source *s = snapshot_source_at(ss, i);

		if (!s || !s->name || !snapshot_find_device(ss, s->name) ||
		    !s->buffer || !snapshot_find_buffer(ss, s->buffer))
			abort();
	}
	for (size_t i = 0; i < snapshot_device_count(ss); i++) {
		const struct snapshot_device *d = snapshot_device_at(ss, i);
		struct etm3_config cfg;
		struct ptm_config pcfg;
		struct snapshot_diag diag;
		uint64_t v;
		uint8_t id, pid;
		int err;

		if (!d || !d->name || snapshot_find_device(ss, d->name) == NULL)
			abort();
		for (size_t r = 0; r < d->nregs; r++)
			if (snapshot_reg_value(d, d->regs[r].name, &v) != 0)
				abort();
		err = snapshot_etm3_config(d, &cfg, &id, &diag);
		if (err != 0 && err != -etmkit_err_format)
			abort();
		if (err == 0 && id > 0x7f)
			abort();
		/* PTM reads the same registers: the same verdict */
		if (snapshot_ptm_config(d, &pcfg, &pid, &diag) != err ||
		    (err == 0 && (pid != id || pcfg.etmcr != cfg.etmcr ||
				  pcfg.etmidr != cfg.etmidr ||
				  pcfg.etmccer != cfg.etmccer)))
			abort();
		/* ETMIDR[11:8] = 3 is PTM whatever the type (snapshot.h) */
		if (err == 0 && ptm_etmidr_is_ptm(cfg.etmidr) &&
		    snapshot_device_protocol(d) != etmkit_proto_ptm)
			abort();
	}
	for (size_t i = 0; i < snapshot_buffer_count(ss); i++) {
		const struct snapshot_buffer *b = snapshot_buffer_at(ss, i);

		if (!b || !b->name || !b->file || !b->format)
			abort();
	}
	/* What was skipped: every note complete; a skipped source is not
	 * among the sources (snapshot.h, struct snapshot_note). */
	for (size_t i = 0; i < snapshot_note_count(ss); i++) {
		const struct snapshot_note *n = snapshot_note_at(ss, i);

		if (!n || !n->path || !n->section || !n->name || !n->message ||
		    !*n->message || n->line < 0)
			abort();
		if (n->kind == snapshot_note_source_no_device &&
		    snapshot_find_device(ss, n->name))
			abort();
	}
	if (snapshot_note_at(ss, snapshot_note_count(ss)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct snapshot *ss = NULL;
	struct snapshot_diag diag;
	size_t start = 0;
	int part = 0, err;

	if (!dir[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(dir, sizeof(dir), "%s/etmkit-fuzz-snapshot-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir))
			abort();
		atexit(cleanup);
	}
	for (size_t i = 0; i <= size && part < 5; i++) {
		int sep = i + 4 <= size && !memcmp(data + i, "\n%%\n", 4);

		if (i == size || sep) {
			write_part(part++, data + start, i - start);
			start = i + 4;
			i += 3;
		}
	}
	while (part < 5)
		write_part(part++, NULL, 0);
	memset(&diag, 0, sizeof(diag));
	err = snapshot_open(&ss, dir, &diag);
	if (err == 0) {
		check_open(ss);
		snapshot_free(ss);
		return 0;
	}
	if (err != -etmkit_err_format && err != -etmkit_err_io &&
	    err != -etmkit_err_nomem)
		abort();
	if (!diag.path[0] || !diag.message[0])
		abort();
	return 0;
}
