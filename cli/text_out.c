/* JSON strings and XML text in valid UTF-8: cli/text_out.h. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "outbuf.h"
#include "text_out.h"

size_t cli_utf8_len(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len;
	unsigned c;

	if (!n)
		return 0;
	if (u[0] < 0x80)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf) {
		len = 2;
		c = u[0] & 0x1f;
	} else if (u[0] >= 0xe0 && u[0] <= 0xef) {
		len = 3;
		c = u[0] & 0x0f;
	} else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
		len = 4;
		c = u[0] & 0x07;
	} else {
		return 0;       /* continuation byte, C0, C1, F5..FF */
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (u[i] & 0x3f);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;       /* overlong, surrogate, out of range */
	return len;
}

size_t cli_utf8_cut(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	/* s[n] continues a sequence: cut before its first byte (at most 3
	 * back; a stray continuation byte is cut at n, it is a U+FFFD of
	 * its own) */
	if ((u[n] & 0xc0) != 0x80)
		return n;
	for (size_t k = n; k > 0 && n - k < 3; k--)
		if ((u[k - 1] & 0xc0) != 0x80)
			return u[k - 1] >= 0xc2 ? k - 1 : n;
	return n;
}

/* The bytes of @s (@n) that JSON takes as they are, from the start:
 * valid UTF-8 but '"', '\\' and control characters. */
static size_t json_plain(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		size_t l;

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			i++;
			continue;
		}
		l = c >= 0x80 ? cli_utf8_len(s + i, n - i) : 0;
		if (!l)
			break;
		i += l;
	}
	return i;
}

void cli_out_json_string(struct cli_out *o, const char *s)
{
	size_t n = strlen(s);

	cli_out_char(o, '"');
	for (size_t i = 0; i < n;) {
		size_t k = json_plain(s + i, n - i);
		unsigned char c;

		if (k) {                        /* a run as it is */
			cli_out_mem(o, s + i, k);
			i += k;
			continue;
		}
		c = (unsigned char)s[i++];
		if (c == '"' || c == '\\') {
			cli_out_char(o, '\\');
			cli_out_char(o, (char)c);
		} else if (c < 0x20) {
			cli_out_lit(o, "\\u00");
			cli_out_hex(o, c, 2);
		} else {
			cli_out_lit(o, "\\ufffd");  /* no valid sequence */
		}
	}
	cli_out_char(o, '"');
}

void cli_json_string(FILE *f, const char *s)
{
	char buf[256];
	struct cli_out o;

	cli_out_init(&o, f, buf, sizeof(buf), 0);
	cli_out_json_string(&o, s);
	cli_out_flush(&o);
}

char *cli_json_quote(const char *s, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		return NULL;
	cli_json_string(f, s);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

void cli_xml_text(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t l = cli_utf8_len(s + i, n - i);

		if (!l) {
			fputs("\xef\xbf\xbd", f);       /* U+FFFD */
			i++;
			continue;
		}
		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if (c >= 0x20 || c == '\t')
				fwrite(s + i, 1, l, f);
		}
		i += l;
	}
}
