/* etmkit: a streaming writer of Linux-perf perf.data files (file mode,
 * little-endian) holding CoreSight trace (include/etmkit/perf_write.h;
 * digest perf-data.md sections 1, 2.1, 2.2, 3.1-3.10). */
#include "etmkit/perf_write.h"
#include "perf/perf_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_SIZE 104     /* 1.2 */
#define ATTR_SIZE 128       /* perf_event_attr VER7 (1.3) */
#define AUXTRACE_HDR 48     /* 2.2 */
#define MAX_CPUS 256
#define NAME_ALIGN 64       /* strings in features (1.4) */

/* Record types (2.1, 2.2). */
enum {
	rec_mmap2 = 10, rec_comm = 3, rec_aux = 11, rec_itrace_start = 12,
	rec_finished_round = 68, rec_auxtrace_info = 70, rec_auxtrace = 71
};
#define CPUMODE_USER 2u
#define BUILD_ID_SIZE_MISC (1u << 15) /* 1.4 */
#define AUXTRACE_TYPE_CS_ETM 3         /* 2.2 */

struct bid_entry {
	int32_t pid;
	uint8_t id[20], size;
	char *path;
};

struct perf_writer {
	FILE *f;
	int own;            /* f was opened here */
	int err;            /* sticky -etmkit_err_io */
	int closed;
	struct perf_write_config cfg;
	uint64_t pos;       /* file offset of the next byte */
	uint64_t data_offset, attrs_offset;
	uint32_t trailer;   /* bytes of the sample_id_all trailer */
	/* an open AUXTRACE payload */
	int in_payload;
	uint64_t payload_left, payload_pad;
	/* kept to close */
	uint64_t *index;    /* AUXTRACE record offsets */
	size_t nindex, capindex;
	struct bid_entry *bids;
	size_t nbids, capbids;
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static int wr(struct perf_writer *w, const void *b, size_t n)
{
	if (w->err)
		return w->err;
	if (n && fwrite(b, 1, n, w->f) != n) {
		w->err = -etmkit_err_io;
		return w->err;
	}
	w->pos += n;
	return 0;
}

void perf_write_config_init(struct perf_write_config *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->pmu_type = 8;
	c->nr_cpu = 1;
	c->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
	/* 1.3 flag bits: 0 disabled, 1 inherit, 5 exclude_kernel, 6
	 * exclude_hv, 8 mmap, 9 comm, 12 enable_on_exec, 18 sample_id_all,
	 * 23 mmap2, 24 comm_exec (`cs_etm//u`) */
	c->attr_flags = 1ull << 0 | 1ull << 1 | 1ull << 5 | 1ull << 6 |
			1ull << 8 | 1ull << 9 | 1ull << 12 |
			PERF_ATTR_FLAG_SAMPLE_ID_ALL | 1ull << 23 | 1ull << 24;
}

uint64_t perf_cs_etm_config_of_trcconfigr(uint32_t r)
{
	/* 3.3: TRCCONFIGR bit -> ETM_OPT_* bit */
	static const uint8_t map[][2] = {
		{ 3, 8 }, { 4, 12 }, { 6, 14 }, { 7, 15 }, { 11, 28 }, { 12, 29 }
	};
	uint64_t c = 0;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (r >> map[i][0] & 1)
			c |= 1ull << map[i][1];
	return c;
}

int perf_cs_etm_cpu_set_etm3(struct perf_cs_etm_cpu *c, uint32_t cpu,
			     const struct etm3_config *cfg, uint32_t traceidr)
{
	if (!c || !cfg)
		return -etmkit_err_invalid;
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	c->protocol = etmkit_proto_etmv3;
	c->etm3 = *cfg;
	c->traceidr = traceidr;
	c->trace_id = (uint8_t)(traceidr & 0x7F);
	c->etmccer_or_authstatus = cfg->etmccer;
	c->ptm = (uint8_t)ptm_etmidr_is_ptm(cfg->etmidr);
	/* 3.2: ETMCR, ETMTRACEIDR, ETMCCER, ETMIDR */
	c->nr_params = 4;
	c->params[0] = cfg->etmcr;
	c->params[1] = traceidr;
	c->params[2] = cfg->etmccer;
	c->params[3] = cfg->etmidr;
	return 0;
}

int perf_cs_etm_cpu_set_etm4(struct perf_cs_etm_cpu *c, uint32_t cpu,
			     const struct etm4_config *cfg, uint32_t traceidr,
			     uint32_t authstatus)
{
	if (!c || !cfg)
		return -etmkit_err_invalid;
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	c->protocol = (cfg->flags & ETM4_CFG_ETE) ? etmkit_proto_ete
						    : etmkit_proto_etmv4;
	c->etm4 = *cfg;
	c->traceidr = traceidr;
	c->trace_id = (uint8_t)(traceidr & 0x7F);
	c->etmccer_or_authstatus = authstatus;
	/* 3.2: CONFIGR, TRACEIDR, IDR0, IDR1, IDR2, IDR8, AUTHSTATUS
	 * [, DEVARCH for ETE] */
	c->nr_params = 7;
	c->params[0] = cfg->trcconfigr;
	c->params[1] = traceidr;
	c->params[2] = cfg->trcidr0;
	c->params[3] = cfg->trcidr1;
	c->params[4] = cfg->trcidr2;
	c->params[5] = cfg->trcidr8;
	c->params[6] = authstatus;
	if (c->protocol == etmkit_proto_ete) {
		c->trcdevarch = cfg->trcdevarch;
		c->params[7] = cfg->trcdevarch;
		c->nr_params = 8;
	}
	return 0;
}

/* The header (1.2) at offset 0: called at open (data size 0, no
 * features) and again at close. */
static int write_header(struct perf_writer *w, uint64_t data_size,
			const uint8_t features[32])
{
	uint8_t h[HEADER_SIZE] = { 0 };

	memcpy(h, "PERFILE2", 8);
	put64(h + 8, HEADER_SIZE);
	put64(h + 16, ATTR_SIZE + 16);
	put64(h + 24, w->attrs_offset);
	put64(h + 32, ATTR_SIZE + 16);
	put64(h + 40, w->data_offset);
	put64(h + 48, data_size);
	/* 56..71 event_types: zeros */
	memcpy(h + 72, features, 32);
	return wr(w, h, sizeof(h));
}

static int start(struct perf_writer *w)
{
	uint8_t ids[8 * MAX_CPUS], attr[ATTR_SIZE + 16] = { 0 };
	uint8_t none[32] = { 0 };
	const struct perf_write_config *c = &w->cfg;
	uint64_t ids_off = HEADER_SIZE;
	int err;

	/* 1.1: header, the id array, the attr section, then data */
	w->attrs_offset = ids_off + 8ull * c->nr_cpu;
	w->data_offset = w->attrs_offset + ATTR_SIZE + 16;
	if ((err = write_header(w, 0, none)))
		return err;
	for (uint32_t i = 0; i < c->nr_cpu; i++)
		put64(ids + 8 * i, i + 1ull);
	if ((err = wr(w, ids, 8ull * c->nr_cpu)))
		return err;
	/* 1.3: perf_event_attr, then the {offset, size} of its ids */
	put32(attr + 0, c->pmu_type);
	put32(attr + 4, ATTR_SIZE);
	put64(attr + 8, c->config);
	put64(attr + 16, 1);              /* sample_period */
	put64(attr + 24, c->sample_type);
	put64(attr + 40, c->attr_flags);
	put64(attr + 64, c->config2);
	put64(attr + ATTR_SIZE, ids_off);
	put64(attr + ATTR_SIZE + 8, 8ull * c->nr_cpu);
	return wr(w, attr, sizeof(attr));
}

static int open_common(struct perf_writer **out, FILE *f, int own,
		       const struct perf_write_config *c)
{
	struct perf_writer *w;
	int err;

	w = calloc(1, sizeof(*w));
	if (!w) {
		if (own)
			fclose(f);
		return -etmkit_err_nomem;
	}
	w->f = f;
	w->own = own;
	w->cfg = *c;
	w->trailer = (c->attr_flags & PERF_ATTR_FLAG_SAMPLE_ID_ALL) ?
		     perf_trailer_size(c->sample_type) : 0;
	err = start(w);
	if (err) {
		perf_writer_free(w);
		return err;
	}
	*out = w;
	return 0;
}

static int config_ok(const struct perf_write_config *c)
{
	return c && c->size == sizeof(*c) && c->nr_cpu >= 1 &&
	       c->nr_cpu <= MAX_CPUS;
}

int perf_writer_open(struct perf_writer **w, const char *path,
		     const struct perf_write_config *c)
{
	FILE *f;

	if (!w || !path || !config_ok(c))
		return -etmkit_err_invalid;
	*w = NULL;
	f = fopen(path, "wb");
	if (!f)
		return -etmkit_err_io;
	return open_common(w, f, 1, c);
}

int perf_writer_open_stream(struct perf_writer **w, FILE *f,
			    const struct perf_write_config *c)
{
	if (!w || !f || !config_ok(c))
		return -etmkit_err_invalid;
	*w = NULL;
	return open_common(w, f, 0, c);
}

uint64_t perf_writer_offset(const struct perf_writer *w)
{
	return w ? w->pos : 0;
}

/* Can a record be written now? */
static int ready(const struct perf_writer *w)
{
	if (!w || w->closed || w->in_payload)
		return -etmkit_err_invalid;
	return w->err;
}

/* A kernel record: header, @body of @n bytes, the string @s (NUL, padded
 * to 8) when not NULL, then the trailer (1.6). */
static int kernel_record(struct perf_writer *w, uint32_t type, uint16_t misc,
			 const uint8_t *body, size_t n, const char *s,
			 const struct perf_write_sid *sid)
{
	uint8_t hdr[8], t[48], pad[8] = { 0 };
	size_t slen = s ? strlen(s) + 1 : 0, spad = (8 - slen % 8) % 8;
	size_t size = 8 + n + slen + spad + w->trailer;
	uint64_t st = w->cfg.sample_type, id;
	size_t k = 0;
	int err;

	if ((err = ready(w)))
		return err;
	if (size > 0xFFFF || !sid || sid->cpu >= w->cfg.nr_cpu)
		return -etmkit_err_invalid;
	id = sid->cpu + 1ull;
	put32(hdr, type);
	put16(hdr + 4, misc);
	put16(hdr + 6, (uint16_t)size);
	if (st & PERF_SAMPLE_TID) {
		put32(t + k, sid->pid);
		put32(t + k + 4, sid->tid);
		k += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		put64(t + k, sid->time);
		k += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		put64(t + k, id);
		k += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		put64(t + k, id);
		k += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		put32(t + k, sid->cpu);
		put32(t + k + 4, 0);
		k += 8;
	}
	if (st & PERF_SAMPLE_IDENTIFIER) {
		put64(t + k, id);
		k += 8;
	}
	if ((err = wr(w, hdr, 8)) || (err = wr(w, body, n)) ||
	    (s && ((err = wr(w, s, slen)) || (err = wr(w, pad, spad)))))
		return err;
	return wr(w, t, w->trailer ? k : 0);
}

int perf_write_comm(struct perf_writer *w, uint32_t pid, uint32_t tid,
		    const char *comm, int exec,
		    const struct perf_write_sid *sid)
{
	uint8_t b[8];

	if (!comm)
		return -etmkit_err_invalid;
	put32(b, pid);
	put32(b + 4, tid);
	return kernel_record(w, rec_comm, (uint16_t)(CPUMODE_USER |
			     (exec ? PERF_MISC_COMM_EXEC : 0)), b, 8, comm,
			     sid);
}

int perf_write_mmap2(struct perf_writer *w, uint32_t pid, uint32_t tid,
		     uint64_t start, uint64_t len, uint64_t pgoff,
		     uint32_t prot, uint32_t flags, const uint8_t *build_id,
		     size_t bid_size, const char *filename,
		     const struct perf_write_sid *sid)
{
	uint8_t b[64] = { 0 };
	uint16_t misc = CPUMODE_USER;

	if (!filename || bid_size > 20)
		return -etmkit_err_invalid;
	put32(b, pid);
	put32(b + 4, tid);
	put64(b + 8, start);
	put64(b + 16, len);
	put64(b + 24, pgoff);
	if (build_id) { /* 2.1: {u8 size, u8, u16, u8 id[20]} */
		misc |= PERF_MISC_MMAP_BUILD_ID;
		b[32] = (uint8_t)bid_size;
		memcpy(b + 36, build_id, bid_size);
	}
	put32(b + 56, prot);
	put32(b + 60, flags);
	return kernel_record(w, rec_mmap2, misc, b, 64, filename, sid);
}

int perf_write_itrace_start(struct perf_writer *w, uint32_t pid,
			    uint32_t tid, const struct perf_write_sid *sid)
{
	uint8_t b[8];

	put32(b, pid);
	put32(b + 4, tid);
	return kernel_record(w, rec_itrace_start, 0, b, 8, NULL, sid);
}

int perf_write_aux(struct perf_writer *w, uint64_t aux_offset,
		   uint64_t aux_size, uint64_t flags,
		   const struct perf_write_sid *sid)
{
	uint8_t b[24];

	put64(b, aux_offset);
	put64(b + 8, aux_size);
	put64(b + 16, flags);
	return kernel_record(w, rec_aux, 0, b, 24, NULL, sid);
}

int perf_write_auxtrace_info(struct perf_writer *w,
			     const struct perf_cs_etm_cpu *cpus, size_t n)
{
	uint8_t hdr[16], word[8];
	uint64_t words = 3;
	int err;

	if ((err = ready(w)))
		return err;
	if (!cpus || !n || n > MAX_CPUS)
		return -etmkit_err_invalid;
	for (size_t i = 0; i < n; i++) {
		if (cpus[i].nr_params > PERF_CS_MAX_PARAMS ||
		    (cpus[i].protocol != etmkit_proto_etmv3 &&
		     cpus[i].protocol != etmkit_proto_etmv4 &&
		     cpus[i].protocol != etmkit_proto_ete))
			return -etmkit_err_invalid;
		words += 3 + cpus[i].nr_params;
	}
	if (16 + 8 * words > 0xFFFF)
		return -etmkit_err_invalid;
	put32(hdr, rec_auxtrace_info);
	put16(hdr + 4, 0);
	put16(hdr + 6, (uint16_t)(16 + 8 * words));
	put32(hdr + 8, AUXTRACE_TYPE_CS_ETM);
	put32(hdr + 12, 0);
	if ((err = wr(w, hdr, 16)))
		return err;
	/* 3.1: version 1, PMU type << 32 | CPUs, not snapshot */
	put64(word, 1);
	err = wr(w, word, 8);
	put64(word, (uint64_t)w->cfg.pmu_type << 32 | n);
	err = err ? err : wr(w, word, 8);
	put64(word, 0);
	err = err ? err : wr(w, word, 8);
	for (size_t i = 0; !err && i < n; i++) {
		const struct perf_cs_etm_cpu *c = &cpus[i];

		/* 3.2: magic, CPU, nr_trc_params, params */
		put64(word, c->protocol == etmkit_proto_etmv3 ? PERF_CS_MAGIC_ETM3
			    : c->protocol == etmkit_proto_etmv4 ? PERF_CS_MAGIC_ETM4
			    : PERF_CS_MAGIC_ETE);
		err = wr(w, word, 8);
		put64(word, c->cpu);
		err = err ? err : wr(w, word, 8);
		put64(word, c->nr_params);
		err = err ? err : wr(w, word, 8);
		for (uint64_t k = 0; !err && k < c->nr_params; k++) {
			put64(word, c->params[k]);
			err = wr(w, word, 8);
		}
	}
	return err;
}

int perf_write_auxtrace_begin(struct perf_writer *w, uint64_t size,
			      uint64_t offset, uint32_t idx, uint32_t tid,
			      uint32_t cpu)
{
	uint8_t b[AUXTRACE_HDR] = { 0 };
	uint64_t padded = (size + 7) & ~7ull;
	int err;

	if ((err = ready(w)))
		return err;
	if (size > UINT64_MAX - 8)
		return -etmkit_err_invalid;
	if (w->nindex == w->capindex) {
		size_t cap = w->capindex ? 2 * w->capindex : 64;
		uint64_t *p = realloc(w->index, cap * sizeof(*p));

		if (!p)
			return -etmkit_err_nomem;
		w->index = p;
		w->capindex = cap;
	}
	w->index[w->nindex++] = w->pos;
	put32(b, rec_auxtrace);
	put16(b + 6, AUXTRACE_HDR);
	put64(b + 8, padded);      /* 2.2: payload incl. padding */
	put64(b + 16, offset);
	put64(b + 24, 0);          /* reference */
	put32(b + 32, idx);
	put32(b + 36, tid);
	put32(b + 40, cpu);
	if ((err = wr(w, b, sizeof(b))))
		return err;
	w->in_payload = 1;
	w->payload_left = size;
	w->payload_pad = padded - size;
	return 0;
}

int perf_write_auxtrace_data(struct perf_writer *w, const uint8_t *data,
			     size_t n)
{
	if (!w || !w->in_payload || (n && !data) || n > w->payload_left)
		return -etmkit_err_invalid;
	w->payload_left -= n;
	return wr(w, data, n);
}

int perf_write_auxtrace_end(struct perf_writer *w)
{
	static const uint8_t zeros[8];

	if (!w || !w->in_payload || w->payload_left)
		return -etmkit_err_invalid;
	w->in_payload = 0;
	return wr(w, zeros, (size_t)w->payload_pad);
}

int perf_write_finished_round(struct perf_writer *w)
{
	uint8_t b[8] = { 0 };
	int err;

	if ((err = ready(w)))
		return err;
	put32(b, rec_finished_round);
	put16(b + 6, 8);
	return wr(w, b, 8);
}

int perf_write_build_id(struct perf_writer *w, int32_t pid,
			const uint8_t *build_id, size_t bid_size,
			const char *path)
{
	struct bid_entry *e;
	int err;

	if ((err = ready(w)))
		return err;
	if (!build_id || bid_size > 20 || !path || strlen(path) > 4000)
		return -etmkit_err_invalid;
	if (w->nbids == w->capbids) {
		size_t cap = w->capbids ? 2 * w->capbids : 8;
		struct bid_entry *p = realloc(w->bids, cap * sizeof(*p));

		if (!p)
			return -etmkit_err_nomem;
		w->bids = p;
		w->capbids = cap;
	}
	e = &w->bids[w->nbids];
	memset(e, 0, sizeof(*e));
	e->path = malloc(strlen(path) + 1);
	if (!e->path)
		return -etmkit_err_nomem;
	strcpy(e->path, path);
	e->pid = pid;
	e->size = (uint8_t)bid_size;
	memcpy(e->id, build_id, bid_size);
	w->nbids++;
	return 0;
}

/* ---- Features (1.4) ---------------------------------------------------- */

static int feat_build_id(struct perf_writer *w)
{
	for (size_t i = 0; i < w->nbids; i++) {
		const struct bid_entry *e = &w->bids[i];
		size_t len = strlen(e->path) + 1;
		size_t padded = (len + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
		uint8_t h[36] = { 0 }, zeros[NAME_ALIGN] = { 0 };
		int err;

		/* header {type 0, misc, size}, s32 pid, id[20], u8 size,
		 * 3 reserved, the name padded to 64 */
		put32(h, 0);
		put16(h + 4, (uint16_t)(CPUMODE_USER | BUILD_ID_SIZE_MISC));
		put16(h + 6, (uint16_t)(36 + padded));
		put32(h + 8, (uint32_t)e->pid);
		memcpy(h + 12, e->id, 20);
		h[32] = e->size;
		if ((err = wr(w, h, 36)) || (err = wr(w, e->path, len)) ||
		    (err = wr(w, zeros, padded - len)))
			return err;
	}
	return 0;
}

static int feat_nrcpus(struct perf_writer *w)
{
	uint8_t b[8];

	put32(b, w->cfg.nr_cpu);     /* available */
	put32(b + 4, w->cfg.nr_cpu); /* online */
	return wr(w, b, 8);
}

/* u32 nr, then {u32 type, string name}: "cs_etm" (1.4, bit 16). */
static int feat_pmu_mappings(struct perf_writer *w)
{
	uint8_t b[12 + NAME_ALIGN] = { 0 };

	put32(b, 1);
	put32(b + 4, w->cfg.pmu_type);
	put32(b + 8, NAME_ALIGN);
	memcpy(b + 12, "cs_etm", 7);
	return wr(w, b, sizeof(b));
}

/* Linux's form: u64 nr, then {u64 offset, u64 size (48)} (1.4, bit 18). */
static int feat_auxtrace(struct perf_writer *w)
{
	uint8_t b[16];
	int err;

	put64(b, w->nindex);
	if ((err = wr(w, b, 8)))
		return err;
	for (size_t i = 0; i < w->nindex; i++) {
		put64(b, w->index[i]);
		put64(b + 8, AUXTRACE_HDR);
		if ((err = wr(w, b, 16)))
			return err;
	}
	return 0;
}

int perf_writer_close(struct perf_writer *w)
{
	static const struct {
		unsigned bit;
		int (*write)(struct perf_writer *w);
	} feats[] = {
		{ PERF_FEAT_BUILD_ID, feat_build_id },
		{ 7, feat_nrcpus },
		{ 16, feat_pmu_mappings },
		{ PERF_FEAT_AUXTRACE, feat_auxtrace },
	};
	enum { NFEAT = sizeof(feats) / sizeof(feats[0]) };
	uint8_t table[16 * NFEAT], bits[32] = { 0 };
	uint64_t data_size, table_off;
	int err;

	if ((err = ready(w)))
		return err;
	data_size = w->pos - w->data_offset;
	/* 1.4: the table at data.offset + data.size, sections after it */
	table_off = w->pos;
	memset(table, 0, sizeof(table));
	if ((err = wr(w, table, sizeof(table))))
		return err;
	for (size_t i = 0; i < NFEAT; i++) {
		uint64_t at = w->pos;

		if ((err = feats[i].write(w)))
			return err;
		put64(table + 16 * i, at);
		put64(table + 16 * i + 8, w->pos - at);
		bits[feats[i].bit / 8] |= (uint8_t)(1u << feats[i].bit % 8);
	}
	if (fseek(w->f, (long)table_off, SEEK_SET)) {
		w->err = -etmkit_err_io;
		return w->err;
	}
	w->pos = table_off;
	if ((err = wr(w, table, sizeof(table))))
		return err;
	if (fseek(w->f, 0, SEEK_SET)) {
		w->err = -etmkit_err_io;
		return w->err;
	}
	w->pos = 0;
	if ((err = write_header(w, data_size, bits)))
		return err;
	w->closed = 1;
	if (fflush(w->f))
		w->err = -etmkit_err_io;
	if (w->own) {
		if (fclose(w->f))
			w->err = -etmkit_err_io;
		w->f = NULL;
	}
	return w->err;
}

void perf_writer_free(struct perf_writer *w)
{
	if (!w)
		return;
	if (w->own && w->f)
		fclose(w->f);
	for (size_t i = 0; i < w->nbids; i++)
		free(w->bids[i].path);
	free(w->bids);
	free(w->index);
	free(w);
}
