// SPDX-License-Identifier: MIT
/*
 * text.c - txt_safe(): foreign strings made safe for a terminal (text.h).
 *
 * One pass over the bytes.  A byte below 0x80 is kept when printable
 * (0x20..0x7e, but the backslash is doubled) and escaped otherwise.  A
 * lead byte 0xc2..0xf4 starts a UTF-8 sequence whose length and first
 * continuation range follow RFC 3629's table (so overlong forms,
 * surrogates and code points past U+10FFFF are ill-formed); a well-formed
 * sequence is copied whole unless it encodes a C1 control (c2 80..c2 9f),
 * and the bytes of an ill-formed one are escaped one by one, the scan
 * going on at the next byte, as a decoder resynchronises.
 */
#include "text.h"

#include <stdio.h>
#include <string.h>

/* Length of the well-formed UTF-8 sequence at p, 0 if ill-formed. */
static size_t utf8_len(const unsigned char *p)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0; /* overlong */
	else if (c == 0xed)
		hi = 0x9f; /* surrogates */
	else if (c == 0xf0)
		lo = 0x90; /* overlong */
	else if (c == 0xf4)
		hi = 0x8f; /* past U+10FFFF */
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0; /* also stops at the NUL */
	return n;
}

char *txt_safe(const char *s, char *buf, size_t buflen)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t o = 0;

	if (!buflen)
		return buf;
	while (*p) {
		char esc[5];
		const char *out = esc;
		size_t n = 1, skip = 1;

		if (*p >= 0x20 && *p < 0x7f && *p != '\\') {
			out = (const char *)p;
		} else if (*p == '\\') {
			out = "\\\\";
			n = 2;
		} else if (*p == '\n' || *p == '\t' || *p == '\r') {
			esc[0] = '\\';
			esc[1] = *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r';
			n = 2;
		} else if (*p >= 0x80 && (n = utf8_len(p)) != 0 &&
			   !(p[0] == 0xc2 && p[1] < 0xa0)) {
			out = (const char *)p;
			skip = n;
		} else {
			snprintf(esc, sizeof(esc), "\\x%02x", *p);
			n = 4;
		}
		if (o + n >= buflen)
			break;
		memcpy(buf + o, out, n);
		o += n;
		p += skip;
	}
	buf[o] = '\0';
	return buf;
}

const char *txt_safe4(const char *s)
{
	static char slot[4][4096];
	static unsigned next;

	return txt_safe(s, slot[next++ % 4], sizeof(slot[0]));
}
