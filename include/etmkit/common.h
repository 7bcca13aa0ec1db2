/* etmkit: version, error codes and types shared by every layer.
 *
 * Layer: common, shared by every layer (src/common/).
 *
 * Conventions used by every public function of etmkit:
 * - functions that can fail return an int: 0 (or a non-negative count) on
 *   success, a negated enum etmkit_error value on failure;
 * - the library never prints, never exits and never asserts on input;
 * - configuration structs start with a `size` member, set it to
 *   sizeof(struct ...) so the struct can grow without breaking callers.
 */
#ifndef ETMKIT_COMMON_H
#define ETMKIT_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ETMKIT_VERSION_MAJOR 0
#define ETMKIT_VERSION_MINOR 1
#define ETMKIT_VERSION_PATCH 0

/* The library's version as "MAJOR.MINOR.PATCH". */
const char *etmkit_version(void);

/* Error codes. Functions return them negated. */
enum etmkit_error {
	etmkit_ok = 0,
	etmkit_err_internal,   /* a bug in etmkit */
	etmkit_err_invalid,    /* invalid argument (NULL handle, bad size) */
	etmkit_err_nomem,      /* allocation failed */
	etmkit_err_eos,        /* end of the data fed so far: feed more */
	etmkit_err_bad_config, /* register values describe an unsupported set-up */
	etmkit_err_bad_packet, /* reserved header or malformed packet */
	etmkit_err_truncated,  /* input ended inside a packet or a frame */
	etmkit_err_bad_frame,  /* malformed formatter frame or sync sequence */
	etmkit_err_io,         /* a file could not be opened or read */
	etmkit_err_format,     /* malformed file contents (.ini, snapshot) */
	etmkit_err_not_found,  /* the requested item does not exist */
	etmkit_err_unsupported /* valid input that this version cannot handle */
};

/* A short English description of an error code (positive or negated). */
const char *etmkit_errstr(int err);

/* Instruction sets a trace can report. */
enum etmkit_isa {
	etmkit_isa_unknown = 0,
	etmkit_isa_arm,     /* A32 */
	etmkit_isa_thumb,   /* T32 (Thumb-2) */
	etmkit_isa_thumbee, /* ThumbEE */
	etmkit_isa_jazelle, /* Java bytecode */
	etmkit_isa_a64,
	etmkit_isa_reserved /* a reserved combination of state bits */
};

/* "arm", "thumb", "thumbee", "jazelle", "a64", "reserved" or "unknown". */
const char *etmkit_isa_name(enum etmkit_isa isa);

/* Protocols carried by a trace source. */
enum etmkit_protocol {
	etmkit_proto_none = 0,
	etmkit_proto_etmv3,
	etmkit_proto_etmv4, /* ETMv4 instruction trace (IHI 0064) */
	etmkit_proto_ete,   /* ETE (Arm ARM chapter D4): ETMv4's packets with
			       extensions */
	etmkit_proto_ptm,   /* PTM: Program Flow Trace, PFTv1.0 and PFTv1.1
			       (IHI 0035B; ptm.h) */
	etmkit_proto_etmv2  /* ETMv2 and ETMv1 trace port captures (cycles,
			       not bytes: etm2.h; no session source) */
};

#ifdef __cplusplus
}
#endif

#endif /* ETMKIT_COMMON_H */
