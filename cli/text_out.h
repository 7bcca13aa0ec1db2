/* Text the CLI writes for other programs to parse: JSON strings and XML
 * character data, always valid UTF-8 (JSON, RFC 8259 section 8.1; XML
 * 1.0 section 2.2): names come from binaries and recordings, which may
 * hold any bytes; a byte that does not start a valid UTF-8 sequence is
 * written as U+FFFD. */
#ifndef ETMKIT_CLI_TEXT_OUT_H
#define ETMKIT_CLI_TEXT_OUT_H

#include <stddef.h>
#include <stdio.h>

/* The length (1 to 4) of the valid UTF-8 sequence at @s (@n bytes
 * there), or 0 when the bytes there are not one (a stray continuation
 * byte, an overlong form, a surrogate, above U+10FFFF, cut short). */
size_t cli_utf8_len(const char *s, size_t n);

/* Where to cut @s (more than @n bytes) at or before @n without splitting
 * a UTF-8 sequence. */
size_t cli_utf8_cut(const char *s, size_t n);

/* @s as a JSON string, quotes included: '"' and '\' escaped, control
 * characters as \u00XX, bytes of no valid sequence as \ufffd. */
void cli_json_string(FILE *f, const char *s);

/* The same into @o (cli/outbuf.h). */
struct cli_out;
void cli_out_json_string(struct cli_out *o, const char *s);

/* cli_json_string()'s text in memory (malloc'd, NUL-ended, *@len bytes),
 * or NULL out of memory. */
char *cli_json_quote(const char *s, size_t *len);

/* @n bytes of @s as XML character data or attribute value: & < > " '
 * as entities, control characters but tab left out (XML 1.0 has none),
 * bytes of no valid sequence as U+FFFD. */
void cli_xml_text(FILE *f, const char *s, size_t n);

#endif /* ETMKIT_CLI_TEXT_OUT_H */
