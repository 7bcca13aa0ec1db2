/* etmkit CLI: the pieces every protocol's packet listing is written with
 * (cli/output.c: ETMv3, ETMv4, ETE; cli/output_ptm.c: PTM): the bytes of
 * a packet, text fields, JSON members, the error of a record. */
#ifndef ETMKIT_CLI_PACKET_OUT_H
#define ETMKIT_CLI_PACKET_OUT_H

#include <stdint.h>

#include "outbuf.h"

/* The bytes of a packet (@raw, @size of them kept, @length in all), two
 * hex digits each, @sep between them; an A-sync longer than kept
 * (@a_sync) is its zeros, then 0x80 unless @error; else "..." for the
 * bytes not kept. */
void cli_packet_bytes(struct cli_out *o, const uint8_t *raw, unsigned size,
		      uint32_t length, int a_sync, int error, const char *sep);

/* Text fields: @key (" NAME=" or " NAME=0x", a string literal) then the
 * value. */
#define t_hex cli_out_key_hex
#define t_dec cli_out_key_udec
#define t_str cli_out_key_str

/* JSON members: ,"PRENAME": then the value (@pre: "" or a prefix, @name a
 * string literal). */
#define j_key(o, pre, name) cli_json_key(o, pre, name, sizeof(name) - 1)
void cli_json_key(struct cli_out *o, const char *pre, const char *name,
		  size_t nlen);

#define j_dec(o, pre, name, v) \
	do { \
		j_key(o, pre, name); \
		cli_out_udec(o, v); \
	} while (0)

/* "0x..." */
#define j_hex(o, pre, name, v) \
	do { \
		j_key(o, pre, name); \
		cli_out_mem(o, "\"0x", 3); \
		cli_out_hex(o, v, 0); \
		cli_out_char(o, '"'); \
	} while (0)

/* A string that needs no escapes. */
#define j_str(o, pre, name, v) \
	do { \
		j_key(o, pre, name); \
		cli_out_char(o, '"'); \
		cli_out_str(o, v); \
		cli_out_char(o, '"'); \
	} while (0)

#define j_true(o, pre, name) \
	do { \
		j_key(o, pre, name); \
		cli_out_mem(o, "true", 4); \
	} while (0)

/* A packet record as every protocol's listing frames it: what the
 * protocol's record says of itself, for the line's or object's head and
 * tail; the protocol writes its fields between them. */
struct cli_packet_rec {
	uint64_t offset;
	const char *type;      /* the type's name */
	const uint8_t *raw;    /* @size bytes kept of @length */
	unsigned size;
	uint32_t length;
	uint8_t unsynced;      /* a run of bytes outside sync */
	uint8_t a_sync;        /* an A-sync (its bytes: zeros, then 0x80) */
	uint8_t json_length;   /* JSON: "length" too when longer than kept */
	int error;             /* the record's error (0: none) */
	const char *why;       /* its text, or NULL */
};

/* Text: the line's head, bytes and type, and an unsynced run's " N
 * bytes". Returns whether the type's fields follow (no error, not
 * unsynced). */
int cli_packet_text_begin(struct cli_out *o, uint8_t id,
			  const struct cli_packet_rec *r);
/* Text: the error, if any, and the end of the line. */
void cli_packet_text_end(struct cli_out *o, const struct cli_packet_rec *r);
/* JSON: {"offset":N,"id":N,"type":"NAME", then an unsynced run's
 * "length", or "bytes" ("length" with @json_length when longer than
 * kept) and the "error". Returns whether the type's fields follow (no
 * error, not unsynced); cli_packet_json_end() ends the record. */
int cli_packet_json_begin(struct cli_out *o, uint8_t id,
			  const struct cli_packet_rec *r);

/* Text: "  ERROR: WHY" (@why, or @error's text when NULL). */
void cli_packet_text_error(struct cli_out *o, const char *why, int error);
/* JSON: ,"error":"WHY" */
void cli_packet_json_error(struct cli_out *o, const char *why, int error);
/* JSON: the record's }, and the end of its line. */
void cli_packet_json_end(struct cli_out *o);

#endif /* ETMKIT_CLI_PACKET_OUT_H */
