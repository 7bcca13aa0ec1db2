/* etmkit: trace snapshot directory reader.
 *
 * Layer: snapshot (src/snapshot/): the capture description sessions
 * and images are built from.
 *
 * A snapshot directory (the format OpenCSD, DS-5 and perf tooling exchange)
 * holds snapshot.ini (device list, pointer to the trace metadata),
 * trace.ini (trace buffers, which source feeds which buffer, which core each
 * source traces), one .ini per device ([device] name/class/type, [regs]
 * NAME(offset)=value, [dump] file/address/length/offset sections) and the
 * binary files they name. snapshot_open() reads and checks all the .ini files
 * (not the binary files, whose sizes only it looks at) and keeps what they
 * say. Layer: input (below the packet decoders; the CLI and benchmarks
 * read snapshots through it).
 *
 * Snapshots as real tools write them (issue 17): what a snapshot names but
 * cannot be used is skipped, not refused, and each skip is a note
 * (struct snapshot_note) for the caller to show: a trace source with no
 * device file, a core with no device file, a dump that maps no bytes.
 * Devices of a type this version does not decode are kept (their protocol
 * is etmkit_proto_none; the caller skips them). The library never prints.
 */
#ifndef ETMKIT_SNAPSHOT_H
#define ETMKIT_SNAPSHOT_H

#include "etmkit/common.h"
#include "etmkit/etm2.h"
#include "etmkit/etm3.h"
#include "etmkit/etm4.h"
#include "etmkit/ptm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where and why reading a snapshot failed. */
struct snapshot_diag {
	char path[512];   /* the file concerned */
	int line;         /* its line (1-based), 0 if not tied to a line */
	char message[256];
};

/* A [regs] line: NAME=VALUE, NAME(0x080)=VALUE, NAME(id:0x80)=VALUE or
 * NAME(id:0x100,size:64)=VALUE. */
struct snapshot_reg {
	const char *name;   /* as written, without the "(...)" part: "ETMCR" */
	uint32_t offset;    /* "(0x000)" or "(id:0x0)", if has_offset */
	uint8_t has_offset;
	uint64_t value;
};

/* A section whose name starts with "dump" ([dump], [dump1],
 * [dump.text1]); a repeated [dump] header starts another dump. */
struct snapshot_dump {
	const char *file;   /* path, resolved against the device file's folder */
	uint64_t address;   /* where the bytes sit in the target's memory */
	uint64_t length;    /* bytes to map, if has_length, else the whole file */
	uint64_t offset;    /* start within the file (default 0) */
	uint8_t has_length;
	const char *space;  /* memory space name if given (one that
			       image_space_parse() accepts), else NULL */
};

struct snapshot_device {
	const char *name;   /* [device] name */
	const char *klass;  /* [device] class: "core", "trace_source", ...
			       ("" if absent) */
	const char *type;   /* [device] type: "ETM3.5", "Cortex-A7", ...
			       ("" if absent) */
	const char *path;   /* the device .ini file */
	size_t nregs;
	const struct snapshot_reg *regs;
	size_t ndumps;
	const struct snapshot_dump *dumps;
};

struct snapshot_buffer {
	const char *name;   /* e.g. "ETB_0" */
	const char *file;   /* path, resolved against trace.ini's folder */
	const char *format; /* "coresight", "source_data", "dstream_coresight" */
};

/* A trace source as trace.ini's [source_buffers] and [core_trace_sources]
 * name it: one per [source_buffers] line whose source has a device file,
 * in file order (one without is skipped: snapshot_note_source_no_device).
 * A [core_trace_sources] line naming a source that feeds no buffer is
 * ignored silently (real snapshots list such sources). */
struct snapshot_source {
	const char *name;   /* the trace source device name, e.g. "ETM_0" */
	const char *buffer; /* the buffer it writes to */
	const char *core;   /* the core device it traces, or NULL if none is
			       named or the one named has no device file
			       (snapshot_note_core_no_device) */
};

/* Why snapshot_open() skipped something the snapshot names. */
enum snapshot_note_kind {
	/* [source_buffers] names a trace source that no device file (listed
	 * in snapshot.ini's [device_list]) describes: the source is left
	 * out of the sources. */
	snapshot_note_source_no_device,
	/* [core_trace_sources] names, for a kept source, a core that no
	 * device file describes: the source is kept with core NULL (no
	 * memory dumps; --elf or --image can give the code). */
	snapshot_note_core_no_device,
	/* A [dump] that maps no bytes: its file is empty and it has no
	 * length or length 0. Left out of its device's dumps. */
	snapshot_note_empty_dump
};

/* One thing skipped, for the caller to show as a warning. Strings stay
 * valid until snapshot_free(). */
struct snapshot_note {
	enum snapshot_note_kind kind;
	const char *path;    /* the .ini file that names it */
	int line;            /* its line there (1-based; for a dump, the
				[dump] header's) */
	const char *section; /* "source_buffers", "core_trace_sources",
				"dump1"... */
	const char *name;    /* what was skipped: the source's or core's
				name, the dump's file (resolved path) */
	const char *message; /* the reason, one line, lower case, no final
				period: "trace source ETM_8 in
				[source_buffers] has no device file:
				skipped" */
};

struct snapshot;

/* Read the snapshot in directory @dir. Every string and array reached
 * from *@ss stays valid until snapshot_free(). Limits: 4 MiB per .ini
 * file; lines as long as inih allows (197 characters in its default
 * build); 4096 devices, registers and dumps per device, buffers, sources,
 * notes (later notes are not kept).
 * Returns 0 and sets *@ss (and leaves @diag's message empty; what was
 * skipped is in snapshot_note_at()); or -etmkit_err_invalid (NULL
 * arguments), -etmkit_err_io (an .ini file cannot be read: snapshot.ini,
 * a device file listed in [device_list], trace.ini), -etmkit_err_format
 * (a file is malformed or inconsistent: missing section or key, bad
 * number, duplicate name, unknown buffer named, a dump longer than the
 * address space), -etmkit_err_nomem; then @diag (if not NULL) names the
 * file, line and reason. Binary files (buffers, dumps) are not read: a
 * missing one is the reader's error (deformat, image.h). */
int snapshot_open(struct snapshot **ss, const char *dir,
		  struct snapshot_diag *diag);
void snapshot_free(struct snapshot *ss);

size_t snapshot_device_count(const struct snapshot *ss);
const struct snapshot_device *snapshot_device_at(const struct snapshot *ss,
						 size_t i);
/* By [device] name; NULL if none. */
const struct snapshot_device *snapshot_find_device(const struct snapshot *ss,
						   const char *name);

size_t snapshot_buffer_count(const struct snapshot *ss);
const struct snapshot_buffer *snapshot_buffer_at(const struct snapshot *ss,
						 size_t i);
const struct snapshot_buffer *snapshot_find_buffer(const struct snapshot *ss,
						   const char *name);

size_t snapshot_source_count(const struct snapshot *ss);
const struct snapshot_source *snapshot_source_at(const struct snapshot *ss,
						 size_t i);

/* What snapshot_open() skipped, in the order met (0 notes and NULL for a
 * NULL @ss or @i out of range). */
size_t snapshot_note_count(const struct snapshot *ss);
const struct snapshot_note *snapshot_note_at(const struct snapshot *ss,
					     size_t i);

/* Register @name (case-insensitive) of @dev. Returns 0 and sets *@value, or
 * -etmkit_err_not_found, or -etmkit_err_invalid (NULL argument). */
int snapshot_reg_value(const struct snapshot_device *dev, const char *name,
		       uint64_t *value);

/* The protocol a trace source device speaks, from its type (any case):
 * "ETM3..." is ETMv3, "PTM..." and "PFT..." ("PTM1.0", "PFT1.1") PTM,
 * "ETM4..." ("ETM4", "ETM4.1", "ETM4.4") ETMv4, "ETE..." ETE; "ETM2"
 * and "ETM1" (alone or followed by '.': "ETM1.3") ETMv2 and ETMv1;
 * etmkit_proto_none if unknown to this version. A device whose ETMIDR
 * says PFT (ETMIDR[11:8] = 3, IHI 0035B 3.16.28) is PTM whatever its type
 * says: the register is read from the trace unit, the type written by the
 * tool. */
enum etmkit_protocol snapshot_device_protocol(const struct snapshot_device *dev);

/* Fill @cfg and *@trace_id from an ETMv3 device's ETMCR, ETMIDR, ETMCCER and
 * ETMTRACEIDR registers (trace ID = ETMTRACEIDR[6:0]). Returns 0, or
 * -etmkit_err_format when one is missing or wider than 32 bits (named in
 * @diag, which may be NULL), -etmkit_err_invalid (NULL argument). */
int snapshot_etm3_config(const struct snapshot_device *dev,
			 struct etm3_config *cfg, uint8_t *trace_id,
			 struct snapshot_diag *diag);

/* Fill @cfg and *@trace_id from a PTM device's registers: the same four
 * as snapshot_etm3_config() (IHI 0035B 3.16: ETMCR, ETMIDR, ETMCCER,
 * ETMTRACEIDR[6:0]), with the same errors. The values are not checked:
 * that is ptm_config_decode()'s job. */
int snapshot_ptm_config(const struct snapshot_device *dev,
			struct ptm_config *cfg, uint8_t *trace_id,
			struct snapshot_diag *diag);

/* Fill @cfg (etm2_config_init() first) from an ETMv2 or ETMv1 trace
 * source's device (type ETM2 or ETM1; docs/etmv2-capture.md "Snapshot
 * directories"): ETMCR is required, ETMIDR optional (0 when absent); the
 * version is the type's. No trace ID: an ETMv2 buffer holds one source.
 * Returns 0, or -etmkit_err_format (ETMCR missing, a register wider than
 * 32 bits; @diag names the file), -etmkit_err_invalid. */
int snapshot_etm2_config(const struct snapshot_device *dev,
			 struct etm2_config *cfg, struct snapshot_diag *diag);

/* Fill @cfg and *@trace_id from an ETMv4 or ETE device's registers:
 * TRCIDR0, TRCIDR1, TRCIDR2, TRCIDR8, TRCCONFIGR and TRCTRACEIDR are
 * required; TRCIDR9 to TRCIDR13 and TRCDEVARCH are optional (0 when absent:
 * ETE has no data or conditional trace keys, and only ETE needs
 * TRCDEVARCH). Sets ETM4_CFG_ETE when the device's type is ETE. Trace ID =
 * TRCTRACEIDR[6:0]. The values are not checked against each other: that is
 * etm4_config_decode()'s job. Returns 0, or -etmkit_err_format when a
 * register is missing or wider than 32 bits (file and register named in
 * @diag, which may be NULL), -etmkit_err_invalid (NULL argument). */
int snapshot_etm4_config(const struct snapshot_device *dev,
			 struct etm4_config *cfg, uint8_t *trace_id,
			 struct snapshot_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_SNAPSHOT_H */
