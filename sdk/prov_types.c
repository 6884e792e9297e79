// SPDX-License-Identifier: MIT
/*
 * prov_types.c - the type names a provider file may use undeclared.
 *
 * Sizes and signedness are those of LP64 x86-64 Linux (glibc).  Names
 * from <stdint.h> and <sys/types.h> are kept in generated headers, which
 * then include that system header, so an application that passes a
 * uint32_t sees uint32_t in the prototype.  The Solaris short names
 * (uint_t, uchar_t, ...) that older provider files use have no Linux
 * header, so headers spell them out as plain C types.
 */
#include "config.h"

#include <string.h>

#include "prov_impl.h"

#define S true
#define U false

static const struct builtin_type builtins[] = {
	{ "int8_t",	"signed char",		1, S, false, PROV_INC_STDINT },
	{ "int16_t",	"short",		2, S, false, PROV_INC_STDINT },
	{ "int32_t",	"int",			4, S, false, PROV_INC_STDINT },
	{ "int64_t",	"long",			8, S, false, PROV_INC_STDINT },
	{ "uint8_t",	"unsigned char",	1, U, false, PROV_INC_STDINT },
	{ "uint16_t",	"unsigned short",	2, U, false, PROV_INC_STDINT },
	{ "uint32_t",	"unsigned int",		4, U, false, PROV_INC_STDINT },
	{ "uint64_t",	"unsigned long",	8, U, false, PROV_INC_STDINT },
	{ "int_least8_t",  "signed char",	1, S, false, PROV_INC_STDINT },
	{ "int_least16_t", "short",		2, S, false, PROV_INC_STDINT },
	{ "int_least32_t", "int",		4, S, false, PROV_INC_STDINT },
	{ "int_least64_t", "long",		8, S, false, PROV_INC_STDINT },
	{ "uint_least8_t",  "unsigned char",	1, U, false, PROV_INC_STDINT },
	{ "uint_least16_t", "unsigned short",	2, U, false, PROV_INC_STDINT },
	{ "uint_least32_t", "unsigned int",	4, U, false, PROV_INC_STDINT },
	{ "uint_least64_t", "unsigned long",	8, U, false, PROV_INC_STDINT },
	{ "int_fast8_t",   "signed char",	1, S, false, PROV_INC_STDINT },
	{ "int_fast16_t",  "long",		8, S, false, PROV_INC_STDINT },
	{ "int_fast32_t",  "long",		8, S, false, PROV_INC_STDINT },
	{ "int_fast64_t",  "long",		8, S, false, PROV_INC_STDINT },
	{ "uint_fast8_t",  "unsigned char",	1, U, false, PROV_INC_STDINT },
	{ "uint_fast16_t", "unsigned long",	8, U, false, PROV_INC_STDINT },
	{ "uint_fast32_t", "unsigned long",	8, U, false, PROV_INC_STDINT },
	{ "uint_fast64_t", "unsigned long",	8, U, false, PROV_INC_STDINT },
	{ "intptr_t",	"long",			8, S, false, PROV_INC_STDINT },
	{ "uintptr_t",	"unsigned long",	8, U, false, PROV_INC_STDINT },
	{ "intmax_t",	"long",			8, S, false, PROV_INC_STDINT },
	{ "uintmax_t",	"unsigned long",	8, U, false, PROV_INC_STDINT },
	{ "size_t",	"unsigned long",	8, U, false, PROV_INC_SYSTYPES },
	{ "ssize_t",	"long",			8, S, false, PROV_INC_SYSTYPES },
	{ "off_t",	"long",			8, S, false, PROV_INC_SYSTYPES },
	{ "off64_t",	"long",			8, S, false, PROV_INC_NONE },
	{ "pid_t",	"int",			4, S, false, PROV_INC_SYSTYPES },
	{ "uid_t",	"unsigned int",		4, U, false, PROV_INC_SYSTYPES },
	{ "gid_t",	"unsigned int",		4, U, false, PROV_INC_SYSTYPES },
	{ "id_t",	"unsigned int",		4, U, false, PROV_INC_NONE },
	{ "mode_t",	"unsigned int",		4, U, false, PROV_INC_SYSTYPES },
	{ "dev_t",	"unsigned long",	8, U, false, PROV_INC_SYSTYPES },
	{ "ino_t",	"unsigned long",	8, U, false, PROV_INC_SYSTYPES },
	{ "time_t",	"long",			8, S, false, PROV_INC_SYSTYPES },
	{ "ptrdiff_t",	"long",			8, S, false, PROV_INC_STDDEF },
	/* C99/C++ bool, as QEMU's generated providers use it */
	{ "bool",	"_USDT_BOOL",		1, U, false, PROV_INC_NONE },
	/* Solaris names, spelled out in headers */
	{ "uchar_t",	"unsigned char",	1, U, false, PROV_INC_NONE },
	{ "ushort_t",	"unsigned short",	2, U, false, PROV_INC_NONE },
	{ "uint_t",	"unsigned int",		4, U, false, PROV_INC_NONE },
	{ "ulong_t",	"unsigned long",	8, U, false, PROV_INC_NONE },
	{ "longlong_t",	"long long",		8, S, false, PROV_INC_NONE },
	{ "u_longlong_t", "unsigned long long",	8, U, false, PROV_INC_NONE },
	{ "caddr_t",	"char *",		8, U, true,  PROV_INC_NONE },
};

const struct builtin_type *prov_builtin_type(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (strlen(builtins[i].name) == n &&
		    memcmp(builtins[i].name, s, n) == 0)
			return &builtins[i];
	return NULL;
}
