/* libFuzzer target: the @LIST reader of INPUT expansion (cli/inputs.c,
 * cli_inputs_expand()) on arbitrary list files. The input is written to
 * the file "list" in a private folder and "@folder/list" expanded.
 * Inputs holding '/' or ".." are skipped: every name a line gives is then
 * one in the private folder (nested @lists included), so nothing outside
 * it is read or walked. Invariants: 0 with at least one path, each a
 * string in the folder; or an error whose text names the folder (the
 * list, its line, or the directory that gave nothing). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[512], list[600], at[610];

static void cleanup(void)
{
	unlink(list);
	rmdir(dir);
}

static int setup(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/etmkit-fuzz-inputs-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	snprintf(list, sizeof(list), "%s/list", dir);
	snprintf(at, sizeof(at), "@%s", list);
	atexit(cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	char err[1024], *argv[1] = { at }, **out = NULL;
	size_t nout = 0;
	FILE *f;
	int rc;

	if (!ready && setup() == 0)
		ready = 1;
	if (!ready)
		abort();
	if (memchr(data, '/', size))
		return 0;
	for (size_t i = 0; i + 1 < size; i++)
		if (data[i] == '.' && data[i + 1] == '.')
			return 0;
	f = fopen(list, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size))
		abort();
	fclose(f);
	rc = cli_inputs_expand(1, argv, &out, &nout, err, sizeof(err));
	if (rc == 0) {
		if (!nout || !out)
			abort();
		for (size_t i = 0; i < nout; i++)
			if (!out[i] || strncmp(out[i], dir, strlen(dir)))
				abort();
		cli_inputs_free(out, nout);
	} else if (out || nout || (!strstr(err, dir) &&
				   strcmp(err, "out of memory"))) {
		abort();
	}
	return 0;
}
