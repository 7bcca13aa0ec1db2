/* Test support: every source of every snapshot in the testdata folders
 * (ts_snapshots.h). */
#include <dirent.h>
#include <stdio.h>

#include "ts_snapshots.h"

int ts_each_source(const char *top, const char *const *kinds, int nkinds,
		   ts_source_fn fn, void *ctx)
{
	int opened = 0;

	for (int k = 0; k < nkinds; k++) {
		char path[1024];
		struct dirent *de;
		DIR *dir;

		snprintf(path, sizeof(path), "%s/%s", top, kinds[k]);
		dir = opendir(path);
		if (!dir)
			return -1;
		while ((de = readdir(dir))) {
			struct snapshot *ss = NULL;
			struct snapshot_diag d;
			char snap[2048];

			if (de->d_name[0] == '.')
				continue;
			snprintf(snap, sizeof(snap), "%s/%s", path, de->d_name);
			if (snapshot_open(&ss, snap, &d) < 0)
				continue;
			opened++;
			for (size_t s = 0; s < snapshot_source_count(ss); s++)
				fn(ctx, de->d_name, ss,
				   snapshot_source_at(ss, s));
			snapshot_free(ss);
		}
		closedir(dir);
	}
	return opened;
}
