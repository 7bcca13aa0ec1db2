/* etmkit decode on a perf.data recording: the side-band (include/etmkit/
 * perf_maps.h) gives each process its own image, chosen as the trace's
 * context changes (the flow decoders' image_for_context hook, flow.h);
 * --pid and --binary filter the listing; the JSON records get the CPU,
 * process and thread. Binaries without a file are named once each, when
 * the trace reached them (docs/perf-data.md). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "etmkit/perf_maps.h"
#include "symbolize.h"

/* Per trace ID. */
struct sb_id {
	struct cli_perf_sb *sb;
	uint8_t id;
	uint8_t vmid_pid;       /* the pid is in the VMID (digest 3.3) */
	uint8_t has_cpu;
	uint32_t cpu;
	/* decode time (the hook) */
	uint8_t dec_has_tid;
	uint32_t dec_tid;
	const struct image *dec_img;  /* the image of dec_tid from dec_lo to
					 dec_hi (proc_window()) */
	uint64_t dec_lo, dec_hi;
	/* listing time: proc is of tid from lo to hi */
	uint64_t lo, hi;
	/* listing time (cli_perf_sb_elem(), in element order) */
	uint8_t has_tid;
	uint32_t tid, pid;
	const struct perf_process *proc;
	const struct perf_map *last_map; /* the last map an address hit */
};

struct cli_perf_sb {
	struct perf_maps *maps;
	const char *file;
	uint64_t elem_offset;   /* listing: the offset of the element last
				   seen (cli_perf_sb_elem()) */
	struct sb_id ids[128];
	struct cli_ranges pids;
	int has_re;
	regex_t re;
	int8_t *bin_match;      /* per binary: -1 not yet known, 0, 1 */
	uint64_t *bin_lost;     /* per binary: no_image places in it */
};

/* A build id in hex. A 20-byte one is shown without trailing zero bytes:
 * simpleperf pads shorter ids to 20 (digest perf-data.md 1.8). */
static void hex_id(char *out, const uint8_t *id, size_t n)
{
	if (n == 20)
		while (n > 1 && !id[n - 1])
			n--;
	out[0] = 0;
	for (size_t i = 0; i < n && i < 20; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
}

/* What perf_maps_resolve() found wrong with files it met. */
static void warn_files(const struct cli_perf_sb *sb)
{
	for (size_t i = 0; i < perf_maps_binary_count(sb->maps); i++) {
		const struct perf_binary *b = perf_maps_binary(sb->maps, i);
		char want[41], got[41];

		if (b->status == perf_bin_mismatch) {
			hex_id(want, b->build_id, b->build_id_size);
			hex_id(got, b->file_build_id, b->file_build_id_size);
			cli_warn("%s: build id %s differs from %s of %s in the "
				 "recording: not used", b->file, got, want,
				 b->name);
		} else if (b->status == perf_bin_unreadable) {
			cli_warn("%s: cannot be used for %s: %s", b->file,
				 b->name, b->message ? b->message : "?");
		}
	}
}

int cli_perf_sb_open(struct cli_perf_sb **out, struct cli_input *in,
		     const struct cli_perf_opts *o)
{
	struct cli_perf_sb *sb = calloc(1, sizeof(*sb));
	struct perf_maps_options po;
	struct perf_diag d;
	size_t nb;
	int err;

	*out = sb;
	if (!sb) {
		cli_error("out of memory");
		return cli_exit_input;
	}
	sb->file = in->file;
	sb->pids = o->pids;
	err = perf_maps_open(&sb->maps, in->perf, &d);
	if (err < 0) {
		cli_error("%s: cannot read the side-band: %s", in->file,
			  etmkit_errstr(err));
		return cli_exit_input;
	}
	if (perf_maps_bad_records(sb->maps))
		cli_warn("%s: %zu malformed side-band record%s or FILE2 "
			 "entr%s skipped (the first at offset %" PRIu64 ": %s)",
			 in->file, perf_maps_bad_records(sb->maps),
			 perf_maps_bad_records(sb->maps) == 1 ? "" : "s",
			 perf_maps_bad_records(sb->maps) == 1 ? "y" : "ies",
			 d.offset, d.message);
	perf_maps_options_init(&po);
	po.symfs = o->symfs;
	po.buildid_dir = o->buildid_dir;
	po.vmlinux = o->vmlinux;
	po.overrides = o->elf;
	po.noverrides = o->nelf;
	err = perf_maps_resolve(sb->maps, &po);
	if (!err)
		err = perf_maps_build_images(sb->maps);
	if (err < 0) {
		cli_error("%s: cannot build the program images: %s", in->file,
			  etmkit_errstr(err));
		return cli_exit_input;
	}
	warn_files(sb);
	nb = perf_maps_binary_count(sb->maps);
	sb->bin_match = malloc(nb + 1);
	sb->bin_lost = calloc(nb + 1, sizeof(*sb->bin_lost));
	if (!sb->bin_match || !sb->bin_lost) {
		cli_error("out of memory");
		return cli_exit_input;
	}
	memset(sb->bin_match, -1, nb + 1);
	if (o->binary_re) {
		int rc = regcomp(&sb->re, o->binary_re, REG_EXTENDED | REG_NOSUB);

		if (rc) {
			char msg[128];

			regerror(rc, &sb->re, msg, sizeof(msg));
			cli_error("invalid value '%s' for --binary: %s",
				  o->binary_re, msg);
			return cli_exit_usage;
		}
		sb->has_re = 1;
	}
	return 0;
}

void cli_perf_sb_free(struct cli_perf_sb *sb)
{
	if (!sb)
		return;
	if (sb->has_re)
		regfree(&sb->re);
	free(sb->bin_match);
	free(sb->bin_lost);
	perf_maps_free(sb->maps);
	free(sb);
}

/* The thread context element @e names, for the source of @x. */
static int context_tid(const struct sb_id *x, const struct etmkit_elem *e,
		       uint32_t *tid)
{
	if (x->vmid_pid) {
		if (!(e->flags & ETMKIT_CTX_VMID))
			return 0;
		*tid = e->u.context.vmid;
		return 1;
	}
	if (!(e->flags & ETMKIT_CTX_CONTEXT_ID))
		return 0;
	*tid = e->u.context.context_id;
	return 1;
}

/* The file offsets between which the process image of thread @tid
 * stays the one current at @off: perf_maps_process_at() takes the last
 * image of its pid that began before the offset, so its answer at @off
 * holds from *@lo (just after the latest begin before @off) to *@hi (the
 * first begin at or after it). No side-band record lies inside an AUX
 * record, so the offsets of the elements decoded from its bytes give what
 * its record's offset gives, and each element carries its own: the
 * decoders (on the session's worker threads with --jobs) and the
 * listing need not know which record is being fed. */
static void proc_window(const struct perf_maps *m, uint32_t tid,
			uint64_t off, uint64_t *lo, uint64_t *hi)
{
	uint32_t pid = perf_maps_pid_of(m, tid);

	*lo = 0;
	*hi = UINT64_MAX;
	for (size_t i = 0; i < perf_maps_process_count(m); i++) {
		const struct perf_process *p = perf_maps_process(m, i);

		if (p->pid != pid)
			continue;
		if (p->begin_offset < off) {
			if (p->begin_offset + 1 > *lo)
				*lo = p->begin_offset + 1;
		} else if (p->begin_offset < *hi) {
			*hi = p->begin_offset;
		}
	}
}

/* flow.h image_for_context: the image of the thread the context names,
 * as the side-band stands at the context's offset. Runs on the decoder's
 * thread: it touches only the dec_ fields of its own ID. */
static const struct image *image_for(void *ctx, const struct etmkit_elem *e)
{
	struct sb_id *x = ctx;
	uint32_t tid;

	if (context_tid(x, e, &tid) &&
	    (!x->dec_has_tid || tid != x->dec_tid || e->offset < x->dec_lo ||
	     e->offset > x->dec_hi)) {
		/* A context element comes at every change of exception
		 * level too: look the thread up only when it changes. */
		x->dec_tid = tid;
		x->dec_has_tid = 1;
		x->dec_img = perf_maps_image_for_tid(x->sb->maps, tid,
						     e->offset);
		proc_window(x->sb->maps, tid, e->offset, &x->dec_lo,
			    &x->dec_hi);
	}
	return x->dec_has_tid ? x->dec_img : perf_maps_kernel_image(x->sb->maps);
}

static struct sb_id *source(struct cli_perf_sb *sb, const struct cli_source *cs)
{
	struct sb_id *x = &sb->ids[cs->id & 0x7f];

	x->sb = sb;
	x->id = cs->id & 0x7f;
	x->has_cpu = cs->has_cpu;
	x->cpu = cs->cpu;
	return x;
}

void cli_perf_sb_etm3(struct cli_perf_sb *sb, const struct cli_source *cs,
		      struct etm3_flow_config *fc)
{
	struct sb_id *x = source(sb, cs);

	fc->image = perf_maps_kernel_image(sb->maps);
	fc->image_for_context = image_for;
	fc->image_ctx = x;
}

void cli_perf_sb_etm4(struct cli_perf_sb *sb, const struct cli_source *cs,
		      struct etm4_flow_config *fc)
{
	struct sb_id *x = source(sb, cs);

	/* TRCCONFIGR.VMID (7) or VMIDOPT (15): CONTEXTIDR_EL2, carried in
	 * the VMID field, holds the pid (digest 3.3). */
	x->vmid_pid = !!(cs->etm4.trcconfigr & (1u << 7 | 1u << 15));
	fc->image = perf_maps_kernel_image(sb->maps);
	fc->image_for_context = image_for;
	fc->image_ctx = x;
}

void cli_perf_sb_ptm(struct cli_perf_sb *sb, const struct cli_source *cs,
		     struct ptm_flow_config *fc)
{
	struct sb_id *x = source(sb, cs);

	fc->image = perf_maps_kernel_image(sb->maps);
	fc->image_for_context = image_for;
	fc->image_ctx = x;
}

const struct image *cli_perf_sb_image(const struct cli_perf_sb *sb, uint8_t id)
{
	const struct sb_id *x = &sb->ids[id & 0x7f];

	return x->proc && x->proc->image ? x->proc->image :
					   perf_maps_kernel_image(sb->maps);
}

const char *cli_perf_sb_comm(const struct cli_perf_sb *sb, uint8_t id,
			     uint32_t tid)
{
	const struct sb_id *x = &sb->ids[id & 0x7f];
	const struct perf_process *p = x->proc;

	/* @tid names the thread unless the pid comes in the VMID: then
	 * only the current process is known */
	if (!x->vmid_pid && !(x->has_tid && x->tid == tid))
		p = perf_maps_process_at(sb->maps, tid, sb->elem_offset);
	return p && p->comm[0] ? p->comm : NULL;
}

/* The map of @addr in the current process of @x (kernel maps first). */
static const struct perf_map *map_at(struct cli_perf_sb *sb, struct sb_id *x,
				     uint64_t addr)
{
	const struct perf_map *mp = x->last_map;

	if (mp && addr >= mp->start && addr - mp->start < mp->len)
		return mp;
	mp = perf_maps_find_map(sb->maps, x->proc, addr);
	x->last_map = mp;
	return mp;
}

static int binary_wanted(struct cli_perf_sb *sb, const struct perf_map *mp)
{
	int8_t *m;

	if (!mp)
		return 0;
	m = &sb->bin_match[mp->binary];
	if (*m < 0)
		*m = regexec(&sb->re, perf_maps_binary(sb->maps,
						       mp->binary)->name,
			     0, NULL, 0) == 0;
	return *m;
}

int cli_perf_sb_elem(struct cli_perf_sb *sb, uint8_t id,
		     const struct etmkit_elem *e, struct cli_task *t)
{
	struct sb_id *x = &sb->ids[id & 0x7f];
	uint32_t tid;

	sb->elem_offset = e->offset;
	if (e->kind == etmkit_elem_context && context_tid(x, e, &tid) &&
	    (!x->has_tid || tid != x->tid || e->offset < x->lo ||
	     e->offset > x->hi)) {
		x->tid = tid;
		x->has_tid = 1;
		x->pid = perf_maps_pid_of(sb->maps, tid);
		x->proc = perf_maps_process_at(sb->maps, tid, e->offset);
		proc_window(sb->maps, tid, e->offset, &x->lo, &x->hi);
		x->last_map = NULL;
	}
	memset(t, 0, sizeof(*t));
	t->has_cpu = x->has_cpu;
	t->cpu = x->cpu;
	t->has_tid = x->has_tid;
	t->tid = x->tid;
	t->pid = x->pid;
	if (e->kind == etmkit_elem_no_image) {
		const struct perf_map *mp = map_at(sb, x, e->addr);

		if (mp)
			sb->bin_lost[mp->binary]++;
	}
	if (sb->pids.n && (!x->has_tid || !cli_in_ranges(&sb->pids, x->pid)))
		return 0;
	if (sb->has_re && (e->kind == etmkit_elem_insn ||
			   e->kind == etmkit_elem_insn_range))
		return binary_wanted(sb, map_at(sb, x, e->addr));
	return 1;
}

int cli_perf_sb_symbols(struct cli_perf_sb *sb, struct cli_symbols *syms)
{
	int rc = cli_symbols_add_image(syms, perf_maps_kernel_image(sb->maps));

	for (size_t i = 0; !rc && i < perf_maps_process_count(sb->maps); i++)
		rc = cli_symbols_add_image(syms,
					   perf_maps_process(sb->maps, i)->image);
	if (!rc && perf_maps_set_names(sb->maps, cli_symbols_locate(syms)) < 0) {
		cli_error("out of memory");
		rc = cli_exit_input;
	}
	return rc;
}

void cli_perf_sb_report(const struct cli_perf_sb *sb)
{
	for (size_t i = 0; sb && i < perf_maps_binary_count(sb->maps); i++) {
		const struct perf_binary *b = perf_maps_binary(sb->maps, i);
		char id[41], with[64] = "";

		if (!sb->bin_lost[i] || b->status == perf_bin_found)
			continue;
		if (b->build_id_size) {
			hex_id(id, b->build_id, b->build_id_size);
			snprintf(with, sizeof(with), " (build id %s)", id);
		}
		cli_note("%s: no file for %s%s: its %" PRIu64 " place%s in the "
			 "trace %s no_image (see --symfs, --buildid-dir, "
			 "--vmlinux, --elf)", sb->file, b->name, with,
			 sb->bin_lost[i], sb->bin_lost[i] == 1 ? "" : "s",
			 sb->bin_lost[i] == 1 ? "is" : "are");
	}
}
