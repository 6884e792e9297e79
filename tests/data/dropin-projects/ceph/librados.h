// librados's write (a miniature written for these tests), with the C
// API's signature.
#ifndef LIBRADOS_H
#define LIBRADOS_H
#include <stddef.h>
#include <stdint.h>
typedef void *rados_ioctx_t;
extern "C" int rados_write(rados_ioctx_t io, const char *o, const char *buf,
			   size_t len, uint64_t off);
#endif
