// SPDX-License-Identifier: MIT
/*
 * t-text.c - txt_safe(): what reaches a terminal from foreign strings.
 */
#include <string.h>

#include "tap.h"
#include "text.h"

static const char *safe(const char *s)
{
	static char buf[256];

	return txt_safe(s, buf, sizeof(buf));
}

int main(void)
{
	char small[8];

	is_str(safe("libq.so"), "libq.so", "printable ASCII kept");
	is_str(safe(""), "", "empty string");
	is_str(safe(NULL), "", "NULL reads as empty");
	is_str(safe("a\x1b[2Jb"), "a\\x1b[2Jb", "ESC escaped");
	is_str(safe("row\nforged"), "row\\nforged", "newline escaped");
	is_str(safe("a\rb\tc\a"), "a\\rb\\tc\\x07", "CR, TAB, BEL");
	is_str(safe("x\x7fy"), "x\\x7fy", "DEL escaped");
	is_str(safe("back\\slash"), "back\\\\slash", "backslash doubled");
	is_str(safe("caf\xc3\xa9"), "caf\xc3\xa9", "UTF-8 e-acute kept");
	is_str(safe("\xe2\x82\xac \xf0\x9f\x98\x80"),
	       "\xe2\x82\xac \xf0\x9f\x98\x80", "3- and 4-byte UTF-8 kept");
	is_str(safe("\xc2\xa0nbsp"), "\xc2\xa0nbsp", "U+00A0 is no control");
	is_str(safe("csi\xc2\x9b" "2J"), "csi\\xc2\\x9b2J",
	       "C1 CSI in UTF-8 escaped");
	is_str(safe("raw\x9b" "2J"), "raw\\x9b2J", "a lone C1 byte escaped");
	is_str(safe("\xc0\xaf"), "\\xc0\\xaf", "overlong '/' escaped");
	is_str(safe("\xe0\x80\xaf"), "\\xe0\\x80\\xaf", "overlong 3-byte");
	is_str(safe("\xed\xa0\x80"), "\\xed\\xa0\\x80", "surrogate escaped");
	is_str(safe("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80",
	       "past U+10FFFF escaped");
	is_str(safe("\xe2\x82"), "\\xe2\\x82", "truncated sequence at the end");
	is_str(safe("\xe2(x"), "\\xe2(x", "a bad continuation resynchronises");
	is_str(safe("\xff\xfe"), "\\xff\\xfe", "bytes never in UTF-8");

	is_str(txt_safe("abcdefghij", small, sizeof(small)), "abcdefg",
	       "cut to the buffer");
	is_str(txt_safe("abcde\x1b", small, sizeof(small)), "abcde",
	       "an escape that does not fit is left out whole");
	is_str(txt_safe("ab\xe2\x82\xac", small, 5), "ab",
	       "a character that does not fit is left out whole");
	ok(txt_safe("x", small, 0) == small, "zero-size buffer: untouched");
	ok(strlen(txt_safe4("\x1b\x1b")) == 8, "txt_safe4");
	return tap_done();
}
