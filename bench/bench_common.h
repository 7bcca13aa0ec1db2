/* bench: what the benchmarks share — reading files, the repeated input
 * (TC2's ETMv3, ETMv4 and ETE snapshots), the clock, the heap, option
 * values, and the setup of the benches that decode beside an output
 * (bench_profile, bench_coverage). */
#ifndef ETMKIT_BENCH_COMMON_H
#define ETMKIT_BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etmkit/flow.h"
#include "etmkit/snapshot.h"

#ifndef ETMKIT_BENCH_SHARED_DIR
#define ETMKIT_BENCH_SHARED_DIR "../shared"
#endif

#define MIB (1024.0 * 1024.0)

/* TC2 ETM_0..ETM_2 (IDs 0x10-0x12) share these (device_5..7.ini). */
#define TC2_ETMCR 0x10001860u
#define TC2_ETMIDR 0x410CF250u
#define TC2_ETMCCER 0x344008F2u

struct bytes {
	uint8_t *data;
	size_t n, cap;
};

double bench_now(void);
/* The heap's bytes in use (glibc mallinfo2: allocated plus mmapped). */
size_t bench_heap_in_use(void);
/* The next of the xorshift64 sequence (Marsaglia 2003) in *@s, not 0. */
uint64_t bench_next_rand(uint64_t *s);
/* 0 and *out, or -1 for a bad number or one above @max. */
int bench_parse_ulong(const char *s, unsigned long max, unsigned long *out);

/* The ETMv3/PTM registers of the packet benches (bench_etm3_pkt,
 * bench_ptm_pkt). */
struct bench_regs {
	uint32_t etmcr, etmidr, etmccer;
};

/* --etmcr, --etmidr, --etmccer X into @ctx (a struct bench_regs): a
 * bench_option_fn. */
int bench_regs_option(void *ctx, const char *a, const char *val);
/* A size in MiB, above 0 and at most 65536. */
int bench_parse_mb(const char *s, double *out);
/* The options every bench takes: --shared DIR, --id ID, --mb N,
 * --ocsd-mb N, --runs N (and -h/--help). */
struct bench_options {
	const char *shared; /* default: $ETMKIT_SHARED, else the build's */
	unsigned id;        /* default 0x10 */
	double mb;          /* default 128 */
	double ocsd_mb;     /* default as given to bench_parse_args() */
	int runs;           /* default 3 */
};

/* A bench's own option @a with value @val: 1 taken, 0 unknown, -1 bad
 * value. */
typedef int (*bench_option_fn)(void *ctx, const char *a, const char *val);

/* Parse argv as OPTION VALUE pairs into @o (defaults first; @ocsd_mb the
 * --ocsd-mb default), passing what it does not know to @extra (may be
 * NULL). --help prints @usage to stdout and exits 0. Returns 0, or -1
 * after a message prefixed with @who. */
int bench_parse_args(const char *who, int argc, char **argv,
		     struct bench_options *o, double ocsd_mb,
		     bench_option_fn extra, void *ctx,
		     void (*usage)(FILE *f));
/* The options of the look-up benches (bench_lines, bench_locate). */
struct bench_lookup_options {
	const char *file;        /* --file ELF, default /proc/self/exe */
	unsigned long lookups;   /* --lookups N, default 4000000 */
	unsigned long runs;      /* --runs N, default 3 */
};

/* Parse argv as OPTION VALUE pairs into @o (defaults first). --help
 * prints bench @name's usage to stdout and exits 0. Returns 0, or -1
 * after the usage on stderr (an unknown option, a missing value, a
 * number that is 0 or above 2^30). */
int bench_lookup_args(const char *name, int argc, char **argv,
		      struct bench_lookup_options *o);
int bench_bytes_append(struct bytes *b, const uint8_t *data, size_t n);
/* Read all of @path into @out (appended). Messages name @who. */
int bench_read_file(const char *who, const char *path, struct bytes *out);

/* The A-sync packet a protocol's input is cut at: ETMv3's is five 0x00
 * then 0x80 (IHI 0014Q 7.2.2), ETMv4's and ETE's eleven 0x00 then 0x80
 * (digest 5.1). In sync a stream holds no other run of that many zeros
 * followed by 0x80, so a match is a packet boundary. */
struct bench_sync {
	const uint8_t *bytes;
	size_t n;
};
extern const struct bench_sync bench_sync_etm3, bench_sync_etm4;

/* The repeated input of one trace source: its bytes (deformatted from
 * CoreSight frames, or a raw source_data buffer) from the first A-sync up
 * to the start of the last, copied @copies times. Every copy starts with
 * an A-sync and the previous ends on a packet boundary, so the buffer is a
 * valid stream. */
struct bench_input {
	uint8_t *buf;          /* copies x copy_len bytes */
	size_t n, copy_len, copies;
	size_t stream_len;     /* bytes of the source in the capture */
	size_t first, last;    /* the first and last A-sync in them */
};

/* Build @in for ETMv3 ID @id of framed file @path, at least @mb MiB.
 * Prints what it did, prefixed with @who. Returns 0 or -1 (message
 * printed). */
int bench_input_build(const char *who, const char *path, uint8_t id,
		      double mb, struct bench_input *in);
/* The bytes of trace ID @id in CoreSight-framed @file, into @out (its
 * data to be freed). Returns 0 or -1 (message printed). */
int bench_deformat_id(const char *who, const struct bytes *file, uint8_t id,
		      struct bytes *out);
/* Build @in from the @n bytes of one source at @stream, cut at @sync's
 * A-sync, at least @mb MiB; @what names the source in messages ("ID
 * 0x10"). Returns 0 or -1 (message printed). */
int bench_input_cut(const char *who, const char *what, const uint8_t *stream,
		    size_t n, const struct bench_sync *sync, double mb,
		    struct bench_input *in);
void bench_input_free(struct bench_input *in);

/* ---- ETMv4/ETE snapshot sources (bench_etm4_flow, bench_etm4_pkt) ---- */

/* One ETMv4 or ETE trace source of a snapshot: its registers, its buffer
 * and the core it traces. */
struct bench_etm4_source {
	char dir[4096];           /* the snapshot folder */
	struct snapshot *ss;
	const struct snapshot_device *dev, *core;
	const struct snapshot_buffer *buf;
	struct etm4_config cfg;
	struct etm4_config_info info;
	uint8_t id;               /* its trace ID (from the registers) */
	int framed;               /* buffer in CoreSight frames */
	char what[160];           /* "ETM_0, ID 0x10", "ETE_0_s1 (source_data)" */
};

/* --snapshot X (bench_option_fn): *(const char **)@ctx = X. */
int bench_snapshot_option(void *ctx, const char *a, const char *val);
/* Print a snapshot reader's diagnostic on stderr, prefixed with @who. */
void bench_print_diag(const char *who, const struct snapshot_diag *d);
/* Open snapshot @name (juno_r1_1, tme_test under @shared/testdata, or a
 * folder: any value with a '/') and find in it the first ETMv4/ETE
 * source that feeds a raw (source_data) buffer, or a CoreSight-framed one
 * under trace ID @id; decode its registers. Returns 0, or -1 after a
 * message prefixed with @who. Free with bench_etm4_close() either way. */
int bench_etm4_open(const char *who, struct bench_etm4_source *s,
		    const char *shared, const char *name, unsigned id);
/* Build @in from @s's trace (deformatted if framed), cut at ETMv4's
 * A-sync, at least @mb MiB. Returns 0 or -1 (message printed). */
int bench_etm4_input(const char *who, const struct bench_etm4_source *s,
		     double mb, struct bench_input *in);
void bench_etm4_close(struct bench_etm4_source *s);

/* Run @r of a timed etmkit decode that returned @err after @secs: the
 * fastest run kept in *@best. Returns 0, or -1 after a message prefixed
 * with @who. */
int bench_keep_best(const char *who, int err, double secs, int r,
		    double *best);

/* The usage text of the ETMv4/ETE benches (bench_parse_args()'s options
 * and --snapshot, --id), for bench @who, OpenCSD's default MiB
 * @ocsd_default. */
void bench_etm4_usage(FILE *f, const char *who, const char *ocsd_default);

/* ---- bench_etm4_image.c: one ETMv4/ETE source and its core's image,
 * decoded beside an output (bench_profile, bench_coverage) ---- */

/* A profile or coverage resolver (profile.h, coverage.h) on the image
 * @ctx: an address's binary is its image region, its ELF address the
 * address itself (a raw dump's), its extent the region (as far as no
 * later region overlaps it: these images' regions do not overlap). */
struct profile_where;
int bench_region_resolve(void *ctx, uint8_t id, uint64_t addr,
			 struct profile_where *w);

struct bench_etm4_image {
	struct bench_etm4_source src;
	struct bench_input in;
	struct image *img;              /* the program image of src's core */
	struct etm4_flow_config cfg;    /* src's registers, img; the ranges
					   form (ETM4_FLOW_RANGES) */
};

/* What bench_etm4_drain() counted of a decode's elements. */
struct bench_drained {
	uint64_t insns;        /* instructions of the insn_range elements,
				  each repeats + 1 times */
	uint64_t elems;        /* elements */
	uint64_t ranges_seen;  /* insn_range elements, repeats + 1 each */
	uint64_t first_addr;   /* the first insn_range's address, or 0 */
};

/* @k elements of a batch, for an output beside the decode. Returns 0 or
 * a negated etmkit_err_* (the decode stops). */
typedef int (*bench_batch_fn)(void *ctx, const struct etmkit_elem *el,
			      int k);

/* Decode @n bytes at @buf with an ETMv4/ETE flow decoder of @cfg, to its
 * end (etm4_flow_finish()), counting every element into @c (zeroed
 * first); with @each, every batch also goes to @each(@ctx, ...) after it
 * is counted. Returns 0 or the first error (negated etmkit_err_*). */
int bench_etm4_drain(const struct etm4_flow_config *cfg, const uint8_t *buf,
		     size_t n, bench_batch_fn each, void *ctx,
		     struct bench_drained *c);

/* Open snapshot @snap's source (bench_etm4_open(), @o's --shared and
 * --id), its input of @o->mb MiB and its core's image into @b; print the
 * input line, prefixed with @who. Returns 0, or -1 after a message. Free
 * with bench_etm4_image_close() either way. */
int bench_etm4_image_open(const char *who, struct bench_etm4_image *b,
			  const struct bench_options *o, const char *snap);
void bench_etm4_image_close(struct bench_etm4_image *b);
/* The start of a timed line: @who, @label, the input's MiB, MiB/s and
 * million instructions per second of @insns in the best time @best, its
 * milliseconds and the runs; the caller ends the line. */
void bench_print_rate(const char *who, const char *label,
		      const struct bench_input *in, double best,
		      uint64_t insns, int runs);

/* The regions of @img as OpenCSD memory buffers (ocsd_flow_peer.h): each
 * region's file read whole into @files[i] (to be freed), @mem[i] pointing
 * into it. Returns 0, or -1 after a message prefixed with @who. */
struct ocsd_mem_region;
struct image;
int bench_ocsd_regions(const char *who, const struct image *img,
		       struct bytes *files, struct ocsd_mem_region *mem);

#endif
