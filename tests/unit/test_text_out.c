/* cli/text_out.c: JSON strings and XML text are valid UTF-8 whatever the
 * bytes of the names (symbols, DWARF, COMM records) they carry. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "text_out.h"

/* What cli_json_string() writes for @s (a static buffer). */
static const char *json_of(const char *s)
{
	static char out[256];
	FILE *f = fmemopen(out, sizeof(out), "w");

	assert_non_null(f);
	cli_json_string(f, s);
	fclose(f);
	return out;
}

static const char *xml_of(const char *s)
{
	static char out[256];
	FILE *f = fmemopen(out, sizeof(out), "w");

	assert_non_null(f);
	cli_xml_text(f, s, strlen(s));
	fclose(f);
	return out;
}

static void test_utf8_len(void **state)
{
	(void)state;
	assert_int_equal(cli_utf8_len("a", 1), 1);
	assert_int_equal(cli_utf8_len("\xc3\xa9", 2), 2);          /* é */
	assert_int_equal(cli_utf8_len("\xe2\x82\xac", 3), 3);      /* € */
	assert_int_equal(cli_utf8_len("\xf0\x9f\x94\xa5", 4), 4);  /* U+1F525 */
	assert_int_equal(cli_utf8_len("\xc3", 1), 0);              /* cut */
	assert_int_equal(cli_utf8_len("\xa9", 1), 0);              /* stray */
	assert_int_equal(cli_utf8_len("\xc0\xaf", 2), 0);          /* overlong */
	assert_int_equal(cli_utf8_len("\xe0\x80\xaf", 3), 0);      /* overlong */
	assert_int_equal(cli_utf8_len("\xed\xa0\x80", 3), 0);      /* surrogate */
	assert_int_equal(cli_utf8_len("\xf4\x90\x80\x80", 4), 0);  /* > 10FFFF */
	assert_int_equal(cli_utf8_len("\xff", 1), 0);
}

static void test_json(void **state)
{
	(void)state;
	assert_string_equal(json_of("f\"o\\o\n"), "\"f\\\"o\\\\o\\u000a\"");
	assert_string_equal(json_of("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
	assert_string_equal(json_of("a\xff" "b\xc3"), "\"a\\ufffdb\\ufffd\"");
	assert_string_equal(json_of("\xe2\x82"), "\"\\ufffd\\ufffd\"");
	/* cli_json_quote(): the same text in memory */
	{
		static const char *const v[] = { "", "plain", "f\"o\\o\n",
			"caf\xc3\xa9", ("a\xff" "b\xc3"),
			"\x7f\x01\xf0\x9f\x98\x80" };

		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			size_t n = 0;
			char *q = cli_json_quote(v[i], &n);

			assert_non_null(q);
			assert_string_equal(q, json_of(v[i]));
			assert_int_equal(n, strlen(q));
			free(q);
		}
	}
}

static void test_xml(void **state)
{
	(void)state;
	assert_string_equal(xml_of("a<b>&\"c'\x01\t"),
			    "a&lt;b&gt;&amp;&quot;c&apos;\t");
	assert_string_equal(xml_of("x\xc3\xa9\xa9"), "x\xc3\xa9\xef\xbf\xbd");
}

static void test_cut(void **state)
{
	const char *s = "x\xc3\xa9\xe2\x82\xac!";   /* x é € ! */

	(void)state;
	assert_int_equal(cli_utf8_cut(s, 1), 1);
	assert_int_equal(cli_utf8_cut(s, 2), 1);    /* inside é */
	assert_int_equal(cli_utf8_cut(s, 3), 3);
	assert_int_equal(cli_utf8_cut(s, 4), 3);    /* inside € */
	assert_int_equal(cli_utf8_cut(s, 5), 3);
	assert_int_equal(cli_utf8_cut(s, 6), 6);
	assert_int_equal(cli_utf8_cut("\xa9\xa9z", 1), 1); /* stray bytes */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_len),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_xml),
		cmocka_unit_test(test_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
