/* SPDX-License-Identifier: MIT */
/*
 * xalloc.h - the dtrace command's out-of-memory policy, written once.
 *
 * The library (sdk/) returns -ENOMEM and leaves the decision to its
 * caller.  The dtrace command (dtrace.c, d/, consumer/) has nothing to
 * unwind to and no partial answer worth giving: out of memory prints
 * "dtrace: out of memory" and exits 1.  These wrap malloc() and the
 * buffers of grow.h with that policy; a zero-sized request still
 * returns a distinct pointer.
 */
#ifndef USDT_XALLOC_H
#define USDT_XALLOC_H

#include <stddef.h>

#include "grow.h"

__attribute__((noreturn)) void xoom(void);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t sz);
/* n elements of sz bytes, the product checked for overflow */
void *xrealloc(void *p, size_t n, size_t sz);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* grow_one(), sbuf_add(), sbuf_reserve() that cannot fail */
void xgrow(void *arr, size_t *cap, size_t n, size_t sz);
void xsbuf_add(struct sbuf *sb, const void *p, size_t n);
void xsbuf_reserve(struct sbuf *sb, size_t n);

/*
 * grow_count(), returning the array: room for element n of arr.  PUSH
 * appends v to arr, which holds n elements; such arrays are grown by
 * nothing else (grow.h says why).
 */
void *xpush_room(void *arr, size_t n, size_t sz);
#define PUSH(arr, n, v)                                                        \
	do {                                                                   \
		(arr) = xpush_room((arr), (n), sizeof(*(arr)));                \
		(arr)[(n)++] = (v);                                            \
	} while (0)

#endif /* USDT_XALLOC_H */
