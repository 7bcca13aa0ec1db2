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

/* Text: "  ERROR: WHY" (@why, or @error's text when NULL). */
void cli_packet_text_error(struct cli_out *o, const char *why, int error);
/* JSON: ,"error":"WHY" */
void cli_packet_json_error(struct cli_out *o, const char *why, int error);
/* JSON: the record's }, and the end of its line. */
void cli_packet_json_end(struct cli_out *o);

#endif /* ETMKIT_CLI_PACKET_OUT_H */
