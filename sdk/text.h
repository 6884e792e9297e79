/* SPDX-License-Identifier: MIT */
/*
 * text.h - text that came from somebody else, made safe to print (and
 * its hex digits read, the same in every locale: txt_hexval()).
 *
 * Module names, file paths, ELF symbol names, DWARF file names and
 * process names reach dtrace's output from files and processes that any
 * user controls.  Printed raw, an ESC or CSI (0x9b) byte drives root's
 * terminal, and a CR or newline forges rows of a listing.  txt_safe()
 * copies such a string, keeping printable ASCII and well-formed UTF-8
 * as they are and writing every other byte as a C escape: \t \n \r for
 * those three, \\ for the backslash (so the result reads back
 * unambiguously), \xNN for the other C0 controls, DEL, the C1 controls
 * (U+0080..U+009F, which a terminal may act on in their UTF-8 form) and
 * every byte of an ill-formed UTF-8 sequence (overlong forms,
 * surrogates, code points past U+10FFFF, truncated sequences).
 */
#ifndef USDT_TEXT_H
#define USDT_TEXT_H

#include <stddef.h>

/* The most bytes txt_safe() writes for n input bytes, NUL included. */
#define TXT_SAFE_MAX(n) (4 * (n) + 1)

/*
 * Write s, made safe, to buf (always NUL-terminated when buflen > 0;
 * cut at a whole character or escape when it does not fit).  Returns buf.
 */
char *txt_safe(const char *s, char *buf, size_t buflen);

/* The same, into a static buffer of one of 4 slots used in turn (a
 * printf line takes up to 4 at once); long strings are cut at 4 KiB. */
const char *txt_safe4(const char *s);

/*
 * The value of the hex digit c, or -1: ASCII's digits alone, whatever
 * the locale (the registry's escapes, a stapsdt note's constants).
 */
static inline int txt_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
