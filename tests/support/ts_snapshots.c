/* Test support: every source of every snapshot in the testdata folders
 * (ts_snapshots.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The configuration of @dev into @out by its protocol (PTM too if
 * @ptm): 0, or -1. */
static int source_config(const struct snapshot_device *dev,
			 struct ts_source *out, int ptm)
{
	out->proto = snapshot_device_protocol(dev);
	switch (out->proto) {
	case etmkit_proto_ptm:
		if (!ptm)
			return -1;
		/* PTM's registers have ETMv3's names */
		return snapshot_etm3_config(dev, &out->etm3, &out->id,
					    NULL) ? -1 : 0;
	case etmkit_proto_etmv3:
		return snapshot_etm3_config(dev, &out->etm3, &out->id,
					    NULL) ? -1 : 0;
	case etmkit_proto_etmv4:
	case etmkit_proto_ete:
		return snapshot_etm4_config(dev, &out->etm4, &out->id,
					    NULL) ? -1 : 0;
	default:
		return -1;
	}
}

static int source_open(const struct snapshot *ss,
		       const struct snapshot_source *src,
		       struct ts_source *out, int ptm)
{
	const struct snapshot_device *dev = snapshot_find_device(ss, src->name);
	const struct snapshot_device *core = src->core ?
		snapshot_find_device(ss, src->core) : NULL;
	struct image_diag d;

	memset(out, 0, sizeof(*out));
	etm3_config_init(&out->etm3);
	etm4_config_init(&out->etm4);
	out->buf = snapshot_find_buffer(ss, src->buffer);
	if (!dev || !out->buf || !core || source_config(dev, out, ptm))
		return -1;
	if (image_alloc(&out->img))
		abort();
	if (image_add_snapshot_device(out->img, core, &d)) {
		ts_source_free(out);
		return -2;
	}
	return 0;
}

int ts_source_open(const struct snapshot *ss,
		   const struct snapshot_source *src, struct ts_source *out)
{
	return source_open(ss, src, out, 0);
}

int ts_source_open_ptm(const struct snapshot *ss,
		       const struct snapshot_source *src,
		       struct ts_source *out)
{
	return source_open(ss, src, out, 1);
}

void ts_source_free(struct ts_source *s)
{
	image_free(s->img);
	memset(s, 0, sizeof(*s));
}
