/* etmkit: the side-band replay of a perf.data recording: threads,
 * process images and their executable maps, kernel maps, binaries with
 * their recorded build ids and FILE2 entries (include/etmkit/perf_maps.h;
 * digest perf-data.md 1.4, 2.1, 3.11). Finding files and building images
 * is perf_binaries.c. */
#include "perf/perf_maps_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/vec.h"
#include "etmkit/elf_file.h"
#include "etmkit/image.h"

/* ---- Index -------------------------------------------------------------- */

static uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

/* The slot of @key whose value satisfies @eq (NULL: any), or of the
 * empty slot where it would go. */
static size_t ix_slot(const struct pm_index *ix, uint64_t key,
		      int (*eq)(const void *ctx, size_t val), const void *ctx)
{
	size_t mask = ix->cap - 1, i = (size_t)mix(key) & mask;

	while (ix->vals[i]) {
		if (ix->keys[i] == key && (!eq || eq(ctx, ix->vals[i] - 1)))
			return i;
		i = (i + 1) & mask;
	}
	return i;
}

static int ix_grow(struct pm_index *ix)
{
	struct pm_index g;

	if (ix->cap && (ix->n + 1) * 2 <= ix->cap)
		return 0;
	g.cap = ix->cap ? ix->cap * 2 : 64;
	g.n = 0;
	g.keys = calloc(g.cap, sizeof(*g.keys));
	g.vals = calloc(g.cap, sizeof(*g.vals));
	if (!g.keys || !g.vals) {
		free(g.keys);
		free(g.vals);
		return -etmkit_err_nomem;
	}
	for (size_t i = 0; i < ix->cap; i++) {
		size_t s;

		if (!ix->vals[i])
			continue;
		s = ix_slot(&g, ix->keys[i], NULL, NULL);
		/* Equal keys (hash collisions of names) each keep a slot. */
		while (g.vals[s])
			s = (s + 1) & (g.cap - 1);
		g.keys[s] = ix->keys[i];
		g.vals[s] = ix->vals[i];
		g.n++;
	}
	free(ix->keys);
	free(ix->vals);
	*ix = g;
	return 0;
}

/* Set @key -> @val (replacing an entry that satisfies @eq). */
static int ix_put(struct pm_index *ix, uint64_t key, size_t val,
		  int (*eq)(const void *ctx, size_t val), const void *ctx)
{
	size_t s;

	if (ix_grow(ix) < 0)
		return -etmkit_err_nomem;
	s = ix_slot(ix, key, eq, ctx);
	if (!ix->vals[s])
		ix->n++;
	ix->keys[s] = key;
	ix->vals[s] = val + 1;
	return 0;
}

/* The value of @key, or -1. */
static long ix_get(const struct pm_index *ix, uint64_t key,
		   int (*eq)(const void *ctx, size_t val), const void *ctx)
{
	size_t s;

	if (!ix->cap)
		return -1;
	s = ix_slot(ix, key, eq, ctx);
	return ix->vals[s] ? (long)(ix->vals[s] - 1) : -1;
}

static void ix_free(struct pm_index *ix)
{
	free(ix->keys);
	free(ix->vals);
}

/* ---- Binaries ----------------------------------------------------------- */

struct name_key {
	const struct perf_maps *m;
	const char *name;
	size_t len;
};

static int name_eq(const void *ctx, size_t val)
{
	const struct name_key *k = ctx;
	const char *n = k->m->bins[val].name;

	return strncmp(n, k->name, k->len) == 0 && n[k->len] == 0;
}

static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
	return h;
}

long pm_binary_get(struct perf_maps *m, const char *name, size_t len,
		   enum perf_binary_kind kind)
{
	struct name_key k = { m, name, len };
	uint64_t h = name_hash(name, len);
	long i = ix_get(&m->bin_index, h, name_eq, &k);
	struct pm_binary *b, *nb;

	if (i >= 0)
		return i;
	nb = vec_room(m->bins, m->nbins, &m->cap_bins, sizeof(*m->bins));
	if (!nb)
		return -1;
	m->bins = nb;
	b = &m->bins[m->nbins];
	memset(b, 0, sizeof(*b));
	b->name = malloc(len + 1);
	if (!b->name)
		return -1;
	memcpy(b->name, name, len);
	b->name[len] = 0;
	b->pub.name = b->name;
	b->pub.kind = kind;
	if (ix_put(&m->bin_index, h, m->nbins, name_eq, &k) < 0) {
		free(b->name);
		return -1;
	}
	return (long)m->nbins++;
}

long perf_maps_find_binary(const struct perf_maps *m, const char *name)
{
	struct name_key k = { m, name, name ? strlen(name) : 0 };

	if (!m || !name)
		return -1;
	return ix_get(&m->bin_index, name_hash(name, k.len), name_eq, &k);
}

/* The binary a map of @name belongs to. Kernel maps: "[kernel.kallsyms]"
 * with a symbol suffix is the kernel (digest 1.8, 3.11), any other a
 * module; user maps named "[...]" or "//anon" have no file. */
static long map_binary(struct perf_maps *m, const char *name, int kernel,
		       const struct perf_rec_mmap *mm)
{
	static const char kk[] = "[kernel.kallsyms]";
	size_t kl = sizeof(kk) - 1;
	long i;

	if (kernel && strncmp(name, kk, kl) == 0) {
		struct pm_binary *b;

		i = pm_binary_get(m, kk, kl, perf_bin_kernel);
		if (i < 0)
			return -1;
		b = &m->bins[i];
		if (!b->has_kmap) {
			/* The symbol whose runtime address pgoff gives. */
			snprintf(b->ksym, sizeof(b->ksym), "%s",
				 name[kl] ? name + kl : "_stext");
			b->kstart = mm->start;
			b->kpgoff = mm->pgoff;
			b->has_kmap = 1;
		}
		return i;
	}
	return pm_binary_get(m, name, strlen(name),
			     kernel ? perf_bin_module :
			     (name[0] == '[' || !name[0] ||
			      strncmp(name, "//anon", 6) == 0) ?
					perf_bin_special : perf_bin_user);
}

/* ---- Processes ---------------------------------------------------------- */

/* A new process image of @pid, begun by the record at @off, with a copy
 * of process image @from's maps (-1: none). Its index, or -1. */
static long new_process(struct perf_maps *m, uint32_t pid, uint64_t off,
			long from)
{
	struct pm_process *np, *p;

	np = vec_room(m->procs, m->nprocs, &m->cap_procs, sizeof(*m->procs));
	if (!np)
		return -1;
	m->procs = np;
	p = &m->procs[m->nprocs];
	memset(p, 0, sizeof(*p));
	p->pub.pid = pid;
	p->pub.begin_offset = off;
	if (from >= 0) {
		const struct pm_process *f = &m->procs[from];

		if (f->pub.nmaps) {
			p->maps = malloc(f->pub.nmaps * sizeof(*p->maps));
			if (!p->maps)
				return -1;
			memcpy(p->maps, f->maps, f->pub.nmaps * sizeof(*p->maps));
			p->cap = p->pub.nmaps = f->pub.nmaps;
		}
		memcpy(p->pub.comm, f->pub.comm, sizeof(p->pub.comm));
	}
	if (ix_put(&m->pid_index, pid, m->nprocs, NULL, NULL) < 0) {
		free(p->maps);
		return -1;
	}
	return (long)m->nprocs++;
}

/* The current process image of @pid, made when first seen. */
static long process_of(struct perf_maps *m, uint32_t pid)
{
	long i = ix_get(&m->pid_index, pid, NULL, NULL);

	return i >= 0 ? i : new_process(m, pid, 0, -1);
}

static int set_thread(struct perf_maps *m, uint32_t tid, uint32_t pid)
{
	return ix_put(&m->tid_index, tid, pid, NULL, NULL);
}

uint32_t perf_maps_pid_of(const struct perf_maps *m, uint32_t tid)
{
	long pid = m ? ix_get(&m->tid_index, tid, NULL, NULL) : -1;

	return pid >= 0 ? (uint32_t)pid : tid;
}

static int add_map(struct perf_map **maps, size_t *n, size_t *cap,
		   const struct perf_map *mp)
{
	struct perf_map *nm = vec_room(*maps, *n, cap, sizeof(**maps));

	if (!nm)
		return -etmkit_err_nomem;
	*maps = nm;
	nm[(*n)++] = *mp;
	return 0;
}

/* ---- Replay ------------------------------------------------------------- */

static void note_bad(struct perf_maps *m, struct perf_diag *diag,
		     uint64_t off, const char *what)
{
	if (diag && !m->bad)
		perf_fail(diag, etmkit_err_format, off, "%s", what);
	m->bad++;
}

static int on_mmap(struct perf_maps *m, const struct perf_record *r,
		   struct perf_diag *diag)
{
	const struct perf_rec_mmap *mm = &r->u.mmap;
	unsigned mode = r->misc & PERF_MISC_CPUMODE_MASK;
	int kernel = mm->pid == PERF_PID_KERNEL || mode == 1 || mode == 4;
	int exec = r->type == perf_rec_mmap2 ? !!(mm->prot & 4) :
					       !(r->misc & PERF_MISC_MMAP_DATA);
	struct perf_map mp;
	long b;

	if (!exec)
		return 0;
	if (!mm->len || mm->start > UINT64_MAX - (mm->len - 1)) {
		note_bad(m, diag, r->offset, "a map whose range is empty or "
			 "wraps past 2^64");
		return 0;
	}
	b = map_binary(m, mm->filename, kernel, mm);
	if (b < 0)
		return -etmkit_err_nomem;
	if (mm->has_build_id && !m->bins[b].pub.build_id_size &&
	    mm->build_id_size) {
		struct perf_binary *pb = &m->bins[b].pub;

		pb->build_id_size = mm->build_id_size > 20 ? 20 :
							      mm->build_id_size;
		memcpy(pb->build_id, mm->build_id, pb->build_id_size);
	}
	m->bins[b].pub.exec_maps++;
	mp.start = mm->start;
	mp.len = mm->len;
	mp.pgoff = mm->pgoff;
	mp.binary = (uint32_t)b;
	mp.prot = r->type == perf_rec_mmap2 ? mm->prot : 0;
	mp.record_offset = r->offset;
	if (kernel)
		return add_map(&m->kmaps, &m->nkmaps, &m->cap_kmaps, &mp);
	if (set_thread(m, mm->tid, mm->pid) < 0)
		return -etmkit_err_nomem;
	long p = process_of(m, mm->pid);

	if (p < 0)
		return -etmkit_err_nomem;
	return add_map(&m->procs[p].maps, &m->procs[p].pub.nmaps,
		       &m->procs[p].cap, &mp);
}

static int on_comm(struct perf_maps *m, const struct perf_record *r)
{
	const struct perf_rec_comm *c = &r->u.comm;
	long p;

	if (set_thread(m, c->tid, c->pid) < 0)
		return -etmkit_err_nomem;
	/* exec: a new, empty address space (digest 2.1, 3.11) */
	p = (r->misc & PERF_MISC_COMM_EXEC) ?
		    new_process(m, c->pid, r->offset, -1) :
		    process_of(m, c->pid);
	if (p < 0)
		return -etmkit_err_nomem;
	if (c->tid == c->pid || (r->misc & PERF_MISC_COMM_EXEC))
		snprintf(m->procs[p].pub.comm, sizeof(m->procs[p].pub.comm),
			 "%s", c->comm);
	return 0;
}

static int on_fork(struct perf_maps *m, const struct perf_record *r)
{
	const struct perf_rec_fork *f = &r->u.fork;

	if (set_thread(m, f->tid, f->pid) < 0)
		return -etmkit_err_nomem;
	if (f->pid != f->ppid) {
		/* A new process: the parent's maps, copied (digest 3.11). */
		long parent = ix_get(&m->pid_index, f->ppid, NULL, NULL);

		if (new_process(m, f->pid, r->offset, parent) < 0)
			return -etmkit_err_nomem;
		return 0;
	}
	/* FORK with pid == ppid (digest 2.1, 3.11: the child shares the
	 * parent's process): a new thread of process pid, which exists from
	 * now on even if no record began it: every thread's process is found
	 * (a tid may be a reused pid of an earlier process). */
	return process_of(m, f->pid) < 0 ? -etmkit_err_nomem : 0;
}

/* The recorded build ids of the BUILD_ID feature, for binaries no MMAP2
 * gave one (digest 1.4 bit 2). */
static void apply_build_ids(struct perf_maps *m)
{
	for (size_t i = 0; i < perf_file_build_id_count(m->pf); i++) {
		struct perf_build_id bid;
		long b;

		if (perf_file_build_id(m->pf, i, &bid) < 0 ||
		    (b = perf_maps_find_binary(m, bid.path)) < 0 ||
		    m->bins[b].pub.build_id_size || !bid.size)
			continue;
		memcpy(m->bins[b].pub.build_id, bid.id, 20);
		m->bins[b].pub.build_id_size = bid.size > 20 ? 20 : bid.size;
	}
}

/* simpleperf's FILE2 entries, by path (digest 1.4 bit 132). */
static void apply_file2(struct perf_maps *m, struct perf_diag *diag)
{
	uint64_t off, size;
	size_t n, pos = 0;
	const uint8_t *buf = perf_file_bytes(m->pf, &n);
	struct perf_file2_entry e;
	int err;

	if (perf_file_feature(m->pf, PERF_FEAT_SP_FILE2, &off, &size) < 0 ||
	    off > n || size > n - off)
		return;
	while ((err = perf_file2_next(buf + off, (size_t)size, &pos, &e)) !=
	       -etmkit_err_eos) {
		struct name_key k;
		long b;

		if (err) {
			note_bad(m, diag, off + pos, err == -etmkit_err_format ?
				 "a malformed FILE2 entry" :
				 "a FILE2 entry runs past its section");
			continue;
		}
		k.m = m;
		k.name = e.path;
		k.len = e.path_len;
		b = ix_get(&m->bin_index, name_hash(e.path, e.path_len),
			   name_eq, &k);
		if (b < 0)
			continue;
		struct perf_binary *pb = &m->bins[b].pub;

		pb->has_file2 = 1;
		pb->file2_type = e.type;
		pb->min_vaddr = e.min_vaddr;
		pb->file_offset_of_min_vaddr = e.file_offset_of_min_vaddr;
		pb->memory_offset_of_min_vaddr = e.memory_offset_of_min_vaddr;
	}
}

int perf_maps_open(struct perf_maps **out, const struct perf_file *pf,
		   struct perf_diag *diag)
{
	struct perf_maps *m;
	struct perf_record_iter it;
	struct perf_record r;
	struct perf_diag d;
	int err;

	if (!out || !pf)
		return -etmkit_err_invalid;
	*out = NULL;
	if (diag)
		memset(diag, 0, sizeof(*diag));
	m = calloc(1, sizeof(*m));
	if (!m)
		return -etmkit_err_nomem;
	m->pf = pf;
	perf_record_iter_init(&it, pf);
	while ((err = perf_record_next(&it, &r, &d)) != -etmkit_err_eos) {
		if (err == -etmkit_err_format) {
			if (r.type == perf_rec_mmap || r.type == perf_rec_mmap2 ||
			    r.type == perf_rec_comm || r.type == perf_rec_fork)
				note_bad(m, diag, d.offset, d.message);
			continue;
		}
		if (err < 0)
			break;
		switch (r.type) {
		case perf_rec_mmap:
		case perf_rec_mmap2:
			err = on_mmap(m, &r, diag);
			break;
		case perf_rec_comm:
			err = on_comm(m, &r);
			break;
		case perf_rec_fork:
			err = on_fork(m, &r);
			break;
		default:
			err = 0;
			break;
		}
		if (err < 0) {
			perf_maps_free(m);
			return err;
		}
	}
	apply_build_ids(m);
	apply_file2(m, diag);
	/* The public views of the maps, now that the arrays are final. */
	for (size_t i = 0; i < m->nprocs; i++)
		m->procs[i].pub.maps = m->procs[i].maps;
	*out = m;
	return 0;
}

void perf_maps_free(struct perf_maps *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nbins; i++) {
		free(m->bins[i].name);
		free(m->bins[i].file);
		free(m->bins[i].message);
		elf_file_free(m->bins[i].elf);
	}
	for (size_t i = 0; i < m->nprocs; i++) {
		free(m->procs[i].maps);
		image_free(m->procs[i].img);
	}
	for (size_t i = 0; i < m->nextra; i++)
		free(m->extra_paths[i]);
	free(m->extra);
	free(m->extra_paths);
	image_free(m->kimage);
	free(m->bins);
	free(m->procs);
	free(m->kmaps);
	ix_free(&m->bin_index);
	ix_free(&m->pid_index);
	ix_free(&m->tid_index);
	free(m);
}

/* ---- Queries ------------------------------------------------------------ */

size_t perf_maps_bad_records(const struct perf_maps *m)
{
	return m ? m->bad : 0;
}

size_t perf_maps_binary_count(const struct perf_maps *m)
{
	return m ? m->nbins : 0;
}

const struct perf_binary *perf_maps_binary(const struct perf_maps *m,
					   size_t i)
{
	return m && i < m->nbins ? &m->bins[i].pub : NULL;
}

size_t perf_maps_process_count(const struct perf_maps *m)
{
	return m ? m->nprocs : 0;
}

const struct perf_process *perf_maps_process(const struct perf_maps *m,
					     size_t i)
{
	return m && i < m->nprocs ? &m->procs[i].pub : NULL;
}

size_t perf_maps_kernel_map_count(const struct perf_maps *m)
{
	return m ? m->nkmaps : 0;
}

const struct perf_map *perf_maps_kernel_map(const struct perf_maps *m,
					    size_t i)
{
	return m && i < m->nkmaps ? &m->kmaps[i] : NULL;
}

const struct perf_process *perf_maps_process_at(const struct perf_maps *m,
						uint32_t tid, uint64_t offset)
{
	uint32_t pid;
	const struct perf_process *first = NULL, *best = NULL;

	if (!m)
		return NULL;
	pid = perf_maps_pid_of(m, tid);
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct perf_process *p = &m->procs[i].pub;

		if (p->pid != pid)
			continue;
		if (!first)
			first = p;
		if (p->begin_offset < offset)
			best = p;
	}
	return best ? best : first;
}

const struct image *perf_maps_image_for_tid(const struct perf_maps *m,
					    uint32_t tid, uint64_t offset)
{
	const struct perf_process *p = perf_maps_process_at(m, tid, offset);

	if (!m)
		return NULL;
	return p && p->image ? p->image : m->kimage;
}

const struct image *perf_maps_kernel_image(const struct perf_maps *m)
{
	return m ? m->kimage : NULL;
}

static const struct perf_map *last_holding(const struct perf_map *maps,
					   size_t n, uint64_t addr)
{
	for (size_t i = n; i-- > 0;)
		if (addr >= maps[i].start && addr - maps[i].start < maps[i].len)
			return &maps[i];
	return NULL;
}

const struct perf_map *perf_maps_find_map(const struct perf_maps *m,
					  const struct perf_process *p,
					  uint64_t addr)
{
	const struct perf_map *k;

	if (!m)
		return NULL;
	/* Kernel maps are added after the user ones: they win. */
	k = last_holding(m->kmaps, m->nkmaps, addr);
	if (k || !p)
		return k;
	return last_holding(p->maps, p->nmaps, addr);
}
