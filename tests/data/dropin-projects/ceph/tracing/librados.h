// The librados provider, as lttng-gen-tp writes it from Ceph's
// src/tracing/librados.tp (a miniature written for these tests): the
// write's events with their argument lists as librados.tp declares them.
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER librados

#if !defined(TRACING_LIBRADOS_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TRACING_LIBRADOS_H

#include <lttng/tracepoint.h>
#include <stddef.h>
#include <stdint.h>
#include "librados.h"

TRACEPOINT_EVENT(librados, rados_write_enter,
	TP_ARGS(rados_ioctx_t, ioctx, const char *, oid, const char *, buf,
		size_t, len, uint64_t, off),
	TP_FIELDS(ctf_string(oid, oid) ctf_integer(size_t, len, len)))
TRACEPOINT_EVENT(librados, rados_write_exit, TP_ARGS(int, retval),
	TP_FIELDS(ctf_integer(int, retval, retval)))
#endif
