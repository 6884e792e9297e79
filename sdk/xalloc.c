// SPDX-License-Identifier: MIT
/*
 * xalloc.c - out of memory ends the dtrace command (xalloc.h says why):
 * the one place that prints it and exits, and the allocation wrappers
 * d/, consumer/ and dtrace.c call instead of checking for NULL.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

void xoom(void)
{
	fputs("dtrace: out of memory\n", stderr);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		xoom();
	return p;
}

void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p)
		xoom();
	return p;
}

void *xrealloc(void *p, size_t n, size_t sz)
{
	void *q = reallocarray(p, n ? n : 1, sz ? sz : 1);

	if (!q)
		xoom();
	return q;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

void xgrow(void *arr, size_t *cap, size_t n, size_t sz)
{
	if (grow_one(arr, cap, n, sz) < 0)
		xoom();
}

void xsbuf_reserve(struct sbuf *sb, size_t n)
{
	if (sbuf_reserve(sb, n) < 0)
		xoom();
}

void xsbuf_add(struct sbuf *sb, const void *p, size_t n)
{
	if (sbuf_add(sb, p, n) < 0)
		xoom();
}

void *xpush_room(void *arr, size_t n, size_t sz)
{
	if (grow_count(&arr, n, sz) < 0)
		xoom();
	return arr;
}
