/* SPDX-License-Identifier: MIT */
/*
 * grow.h - heap arrays and byte buffers that grow by doubling: the one
 * buffer module of the tree.
 *
 * Arrays that gain one element at a time (sites, functions, symbols,
 * relocations) and strings built a piece at a time grow geometrically,
 * so n additions copy O(n) bytes in all.  Growing by one element per
 * realloc() looks as cheap with glibc, which usually extends the block
 * in place, but allocators that never do (AddressSanitizer's, others')
 * then copy the whole array on every addition: -G over 200 objects took
 * 31x as long under --enable-sanitizers as without.
 *
 * Out of memory is returned (-ENOMEM, the buffer unchanged), never
 * handled here: the library's layer passes it up; the dtrace command's
 * layer exits through xalloc.h, which wraps these.
 */
#ifndef USDT_GROW_H
#define USDT_GROW_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Make *arr hold at least n + 1 elements of size sz, *cap counting
 * them; 0, or -ENOMEM with *arr and *cap unchanged.
 */
static inline int grow_one(void *arr, size_t *cap, size_t n, size_t sz)
{
	void **p = (void **)arr;
	size_t ncap;
	void *na;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 8;
	if (ncap <= n)
		ncap = n + 1;
	if (ncap > SIZE_MAX / sz)
		return -ENOMEM;
	na = realloc(*p, ncap * sz);
	if (!na)
		return -ENOMEM;
	*p = na;
	*cap = ncap;
	return 0;
}

/*
 * Room for element n of *arr, an array of elements of size sz that keeps
 * no capacity: its room is implied by its count, the power of two at or
 * above it, so it is full only when n is 0 or a power of two, and is then
 * doubled.  Such an array must be grown by nothing else (a count that
 * shrinks is fine); 0, or -ENOMEM with *arr unchanged.
 */
static inline int grow_count(void *arr, size_t n, size_t sz)
{
	void **p = (void **)arr;
	size_t ncap = n ? n * 2 : 1;
	void *na;

	if (n & (n - 1))
		return 0;
	if (ncap < n || ncap > SIZE_MAX / sz)
		return -ENOMEM;
	na = realloc(*p, ncap * sz);
	if (!na)
		return -ENOMEM;
	*p = na;
	return 0;
}

/*
 * A byte buffer: len bytes at b, then a NUL once anything was added (b
 * is NULL before), cap bytes allocated.  { 0 } is an empty one; free(b)
 * releases it.
 */
struct sbuf {
	char *b;
	size_t len, cap;
};

/* Room for n more bytes and the NUL after them; 0, or -ENOMEM. */
static inline int sbuf_reserve(struct sbuf *sb, size_t n)
{
	size_t need, ncap;
	char *nb;

	if (n > SIZE_MAX - sb->len - 1)
		return -ENOMEM;
	need = sb->len + n + 1;
	if (need <= sb->cap)
		return 0;
	ncap = sb->cap ? sb->cap : 64;
	while (ncap < need)
		ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
	nb = realloc(sb->b, ncap);
	if (!nb)
		return -ENOMEM;
	sb->b = nb;
	sb->cap = ncap;
	return 0;
}

/* Append n bytes (NULs among them are kept); 0, or -ENOMEM. */
static inline int sbuf_add(struct sbuf *sb, const void *p, size_t n)
{
	if (sbuf_reserve(sb, n) < 0)
		return -ENOMEM;
	if (n)
		memcpy(sb->b + sb->len, p, n);
	sb->len += n;
	sb->b[sb->len] = '\0';
	return 0;
}

static inline int sbuf_puts(struct sbuf *sb, const char *s)
{
	return sbuf_add(sb, s, strlen(s));
}

/*
 * Append what fd has left, to its end of file (EINTR retried): 0, or
 * -ENOMEM, or the failed read()'s -errno with what came before it kept.
 * sb->b is allocated and NUL-terminated even when nothing was read.
 */
static inline int sbuf_read_fd(struct sbuf *sb, int fd)
{
	for (;;) {
		ssize_t n;

		if (sbuf_reserve(sb, 4096) < 0)
			return -ENOMEM;
		sb->b[sb->len] = '\0';
		n = read(fd, sb->b + sb->len, sb->cap - sb->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		sb->len += (size_t)n;
	}
}

/*
 * The whole file at path in a fresh buffer with a NUL after its bytes,
 * their count in *lenp unless lenp is NULL; else NULL with errno set (a
 * read that fails part way is a failure: what came before it is not the
 * file).
 */
static inline char *sbuf_read_path(const char *path, size_t *lenp)
{
	struct sbuf sb = {0};
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return NULL;
	err = sbuf_read_fd(&sb, fd);
	close(fd);
	if (err) {
		free(sb.b);
		errno = -err;
		return NULL;
	}
	if (lenp)
		*lenp = sb.len;
	return sb.b;
}

#endif /* USDT_GROW_H */
