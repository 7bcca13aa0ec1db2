/* etmkit: the files behind a recording's binaries, and the program images
 * built from them (include/etmkit/perf_maps.h; digest perf-data.md 1.8,
 * 3.11). */
#define _POSIX_C_SOURCE 200809L
#include "perf/perf_maps_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "etmkit/elf_file.h"
#include "etmkit/image.h"
#include "etmkit/locate.h"

void perf_maps_options_init(struct perf_maps_options *o)
{
	if (!o)
		return;
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static int set_str(char **dst, const char **pub, const char *s)
{
	char *c = strdup(s);

	if (!c)
		return -etmkit_err_nomem;
	free(*dst);
	*dst = c;
	*pub = c;
	return 0;
}

/* Try file @path for binary @b: 1 used, 0 not (missing, unreadable or
 * another build id: the status says the first such problem), or
 * -etmkit_err_nomem. */
static int try_file(struct pm_binary *b, const char *path)
{
	struct stat st;
	struct elf_file *ef;
	struct image_diag d;
	struct perf_binary *pb = &b->pub;
	uint8_t id[20];
	size_t n;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	if (elf_file_open(&ef, path, &d) < 0) {
		if (pb->status == perf_bin_not_looked) {
			pb->status = perf_bin_unreadable;
			if (set_str(&b->file, &pb->file, path) < 0 ||
			    set_str(&b->message, &pb->message,
				    d.message[0] ? d.message :
						   "not an ELF file") < 0)
				return -etmkit_err_nomem;
		}
		return 0;
	}
	n = elf_file_build_id(ef, id);
	if (n && pb->build_id_size && memcmp(id, pb->build_id, 20) != 0) {
		/* Another build of the binary: its code is not what ran. */
		if (pb->status != perf_bin_mismatch) {
			pb->status = perf_bin_mismatch;
			memcpy(pb->file_build_id, id, 20);
			pb->file_build_id_size = (uint8_t)(n > 20 ? 20 : n);
			if (set_str(&b->file, &pb->file, path) < 0) {
				elf_file_free(ef);
				return -etmkit_err_nomem;
			}
		}
		elf_file_free(ef);
		return 0;
	}
	if (set_str(&b->file, &pb->file, path) < 0) {
		elf_file_free(ef);
		return -etmkit_err_nomem;
	}
	free(b->message);
	b->message = NULL;
	pb->message = NULL;
	pb->status = perf_bin_found;
	b->elf = ef;
	b->file_size = (uint64_t)st.st_size;
	return 1;
}

/* @a and @b joined by one '/'. NULL when out of memory. */
static char *join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *p = malloc(la + lb + 2);

	if (!p)
		return NULL;
	memcpy(p, a, la);
	while (la && p[la - 1] == '/')
		la--;
	p[la++] = '/';
	while (*b == '/')
		b++, lb--;
	memcpy(p + la, b, lb + 1);
	return p;
}

static int try_joined(struct pm_binary *b, const char *dir, const char *rel)
{
	char *p = join(dir, rel);
	int rc;

	if (!p)
		return -etmkit_err_nomem;
	rc = try_file(b, p);
	free(p);
	return rc;
}

/* perf's build-id cache: DIR/.build-id/xx/rest, a file or a folder with
 * "elf" in it; DIR may also be the .build-id folder itself. The id's
 * length: the recorded size when below 20, else 20 and without its
 * trailing zero bytes (simpleperf pads shorter ids to 20, digest 1.8). */
static int try_build_id_dir(struct pm_binary *b, const char *dir)
{
	const struct perf_binary *pb = &b->pub;
	size_t lens[2] = { pb->build_id_size, 0 };
	size_t t = 20;

	while (t && !pb->build_id[t - 1])
		t--;
	if (pb->build_id_size >= 20 && t < 20)
		lens[1] = t;
	for (int k = 0; k < 2; k++) {
		char hex[41], rel[128];
		static const char *const pre[] = { ".build-id/", "" };
		static const char *const post[] = { "/elf", "" };

		if (lens[k] < 2)
			continue;
		for (size_t i = 0; i < lens[k]; i++)
			snprintf(hex + 2 * i, 3, "%02x", pb->build_id[i]);
		for (int f = 0; f < 4; f++) {
			int rc;

			snprintf(rel, sizeof(rel), "%s%.2s/%s%s", pre[f / 2],
				 hex, hex + 2, post[f % 2]);
			rc = try_joined(b, dir, rel);
			if (rc)
				return rc;
		}
	}
	return 0;
}

struct ovr {
	uint8_t id[20];
	size_t idn;
	int used;
};

static int resolve_one(struct pm_binary *b, const struct perf_maps_options *o,
		       struct ovr *ov)
{
	struct perf_binary *pb = &b->pub;
	int rc = 0;

	if (pb->kind == perf_bin_special)
		return 0;
	/* --elf: by build id, then by file name */
	for (size_t i = 0; i < o->noverrides && !rc; i++)
		if (!o->overrides[i].raw && pb->build_id_size && ov[i].idn &&
		    memcmp(ov[i].id, pb->build_id, 20) == 0) {
			ov[i].used = 1;
			rc = try_file(b, o->overrides[i].path);
			if (rc > 0 && o->overrides[i].has_bias) {
				pb->bias = o->overrides[i].bias;
				pb->has_bias = 1;
			}
		}
	for (size_t i = 0; i < o->noverrides && !rc; i++)
		if (!o->overrides[i].raw &&
		    strcmp(base_name(o->overrides[i].path),
			   base_name(pb->name)) == 0) {
			ov[i].used = 1;
			rc = try_file(b, o->overrides[i].path);
		}
	if (!rc && pb->kind == perf_bin_kernel && o->vmlinux)
		rc = try_file(b, o->vmlinux);
	if (!rc && o->symfs && pb->kind != perf_bin_kernel) {
		rc = try_joined(b, o->symfs, pb->name);
		if (!rc)
			rc = try_joined(b, o->symfs, base_name(pb->name));
	}
	if (!rc && o->buildid_dir && pb->build_id_size)
		rc = try_build_id_dir(b, o->buildid_dir);
	if (rc < 0)
		return rc;
	if (!rc && pb->status == perf_bin_not_looked)
		pb->status = perf_bin_missing;
	return 0;
}

int perf_maps_resolve(struct perf_maps *m, const struct perf_maps_options *o)
{
	struct perf_maps_options def;
	struct ovr *ov = NULL;
	int rc = 0;

	if (!m || (o && o->size < sizeof(*o)))
		return -etmkit_err_invalid;
	if (!o) {
		perf_maps_options_init(&def);
		o = &def;
	}
	if (o->noverrides) {
		ov = calloc(o->noverrides, sizeof(*ov));
		if (!ov)
			return -etmkit_err_nomem;
	}
	for (size_t i = 0; i < o->noverrides; i++) {
		struct elf_file *ef;

		if (!o->overrides[i].raw &&
		    elf_file_open(&ef, o->overrides[i].path, NULL) == 0) {
			ov[i].idn = elf_file_build_id(ef, ov[i].id);
			elf_file_free(ef);
		}
	}
	for (size_t i = 0; i < m->nbins && !rc; i++)
		rc = resolve_one(&m->bins[i], o, ov);
	/* Overrides no binary took: mapped into every image at their
	 * bias. */
	for (size_t i = 0; i < o->noverrides && !rc; i++) {
		if (ov[i].used)
			continue;
		struct perf_maps_override *ne =
			realloc(m->extra, (m->nextra + 1) * sizeof(*ne));
		char **np;

		if (!ne) {
			rc = -etmkit_err_nomem;
			break;
		}
		m->extra = ne;
		np = realloc(m->extra_paths, (m->nextra + 1) * sizeof(*np));
		if (!np) {
			rc = -etmkit_err_nomem;
			break;
		}
		m->extra_paths = np;
		np[m->nextra] = strdup(o->overrides[i].path);
		if (!np[m->nextra]) {
			rc = -etmkit_err_nomem;
			break;
		}
		ne[m->nextra] = o->overrides[i];
		ne[m->nextra].path = np[m->nextra];
		m->nextra++;
	}
	free(ov);
	if (!rc)
		m->resolved = 1;
	return rc;
}

/* ---- Images ------------------------------------------------------------- */

/* Mark @b unreadable: @d says why. 0 or -etmkit_err_nomem. */
static int unreadable(struct pm_binary *b, const struct image_diag *d)
{
	b->pub.status = perf_bin_unreadable;
	return set_str(&b->message, &b->pub.message,
		       d->message[0] ? d->message : "cannot be mapped");
}

/* The value of symbol @name in @ef, or 0 with *@found 0. */
static uint64_t symbol_value(const struct elf_file *ef, const char *name,
			     int *found)
{
	size_t n = elf_file_symbol_count(ef);

	for (size_t i = 0; i < n; i++) {
		const struct elf_symbol *s = elf_file_symbol_at(ef, i);

		if (s && s->name && strcmp(s->name, name) == 0) {
			*found = 1;
			return s->addr;
		}
	}
	*found = 0;
	return 0;
}

/* A user map: the file's bytes from pgoff on, clamped to the file. */
static int add_file_map(struct image *img, struct pm_binary *b,
			const struct perf_map *mp)
{
	struct image_diag d;
	uint64_t len = mp->len;
	int err;

	if (mp->pgoff >= b->file_size)
		return 0;
	if (len > b->file_size - mp->pgoff)
		len = b->file_size - mp->pgoff;
	err = image_add_file(img, b->file, mp->start, mp->pgoff, len, 0, &d);
	if (err == -etmkit_err_nomem)
		return err;
	return err < 0 ? unreadable(b, &d) : 0;
}

/* The kernel maps into @img, the kernel-only image. */
static int add_kernel_maps(struct perf_maps *m, struct image *img)
{
	int kernel_done = 0;

	for (size_t i = 0; i < m->nkmaps; i++) {
		const struct perf_map *mp = &m->kmaps[i];
		struct pm_binary *b = &m->bins[mp->binary];
		struct image_diag d;
		int err = 0;

		if (b->pub.status != perf_bin_found)
			continue;
		if (b->pub.kind == perf_bin_kernel) {
			int found;
			uint64_t runtime = b->kpgoff ? b->kpgoff : b->kstart;
			uint64_t sym;

			if (kernel_done)
				continue;
			kernel_done = 1;
			/* Undo KASLR: the map's symbol at its runtime
			 * address (digest 1.8, 3.11). */
			sym = symbol_value(b->elf, b->ksym, &found);
			if (!b->pub.has_bias)
				b->pub.bias = found ? runtime - sym : 0;
			err = image_add_elf(img, b->file, b->pub.bias, 0, &d);
		} else if (elf_file_type(b->elf) == 1 /* ET_REL */) {
			uint64_t addr, off, size;

			/* A module's .text at start +
			 * memory_offset_of_min_vaddr (digest 3.11). */
			if (elf_file_section(b->elf, ".text", &addr, &off,
					     &size) < 0 || !size) {
				d.path[0] = 0;
				snprintf(d.message, sizeof(d.message),
					 "a relocatable object without .text");
				err = unreadable(b, &d);
				if (err < 0)
					return err;
				continue;
			}
			if (size > mp->len)
				size = mp->len;
			if (mp->start > UINT64_MAX -
						b->pub.memory_offset_of_min_vaddr)
				continue;
			err = image_add_file(img, b->file, mp->start +
					     b->pub.memory_offset_of_min_vaddr,
					     off, size, 0, &d);
		} else {
			err = add_file_map(img, b, mp);
			if (err < 0)
				return err;
			continue;
		}
		if (err == -etmkit_err_nomem)
			return err;
		if (err < 0 && (err = unreadable(b, &d)) < 0)
			return err;
	}
	return 0;
}

/* Copy the regions of @from into @to (files are mapped again: cheap). */
static int copy_regions(struct image *to, const struct image *from)
{
	for (size_t i = 0; i < image_region_count(from); i++) {
		const struct image_region *r = image_region_at(from, i);
		int err;

		if (!r || !r->path)
			continue;
		err = image_add_file(to, r->path, r->addr, r->offset,
				     r->length, r->spaces, NULL);
		if (err == -etmkit_err_nomem)
			return err;
	}
	return 0;
}

int perf_maps_build_images(struct perf_maps *m)
{
	struct image *tail, *kern;
	int err;

	if (!m || !m->resolved || m->kimage)
		return -etmkit_err_invalid;
	/* The overrides no binary took, then the kernel maps: the same in
	 * every image, so built once and copied. The overrides go in first
	 * so that every recorded map wins over them where they overlap (the
	 * region added last wins, image.h): an --elf meant for another
	 * recording (one option list for several inputs) must not take the
	 * addresses of a binary this one recorded, as static executables
	 * linked at the same address would. */
	if (image_alloc(&m->kimage) < 0)
		return -etmkit_err_nomem;
	if (image_alloc(&tail) < 0)
		return -etmkit_err_nomem;
	if (image_alloc(&kern) < 0) {
		image_free(tail);
		return -etmkit_err_nomem;
	}
	err = add_kernel_maps(m, kern);
	for (size_t i = 0; !err && i < m->nextra; i++) {
		err = m->extra[i].raw ?
			      image_add_file(tail, m->extra[i].path,
					     m->extra[i].bias, 0, 0, 0, NULL) :
			      image_add_elf(tail, m->extra[i].path,
					    m->extra[i].bias, 0, NULL);
		if (err != -etmkit_err_nomem)
			err = 0;
	}
	if (!err)
		err = copy_regions(m->kimage, tail);
	if (!err)
		err = copy_regions(m->kimage, kern);
	for (size_t i = 0; !err && i < m->nprocs; i++) {
		struct pm_process *p = &m->procs[i];

		if (image_alloc(&p->img) < 0) {
			err = -etmkit_err_nomem;
			break;
		}
		p->pub.image = p->img;
		err = copy_regions(p->img, tail);
		for (size_t k = 0; !err && k < p->pub.nmaps; k++) {
			struct pm_binary *b = &m->bins[p->maps[k].binary];

			if (b->pub.status == perf_bin_found &&
			    b->pub.kind != perf_bin_special)
				err = add_file_map(p->img, b, &p->maps[k]);
		}
		if (!err)
			err = copy_regions(p->img, kern);
	}
	image_free(tail);
	image_free(kern);
	return err;
}

int perf_maps_set_names(const struct perf_maps *m, struct locate *l)
{
	if (!m || !l)
		return -etmkit_err_invalid;
	for (size_t i = 0; i < m->nbins; i++) {
		const struct perf_binary *b = &m->bins[i].pub;
		int err;

		if (b->status != perf_bin_found)
			continue;
		err = locate_set_name(l, b->file, b->name, b->build_id,
				      b->build_id_size);
		if (err < 0 && err != -etmkit_err_not_found)
			return err;
	}
	return 0;
}
