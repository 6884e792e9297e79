// The librados provider, as lttng-gen-tp writes it from librados.tp (a
// miniature written for these tests).
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER librados

#if !defined(TRACING_LIBRADOS_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TRACING_LIBRADOS_H

#include <lttng/tracepoint.h>

TRACEPOINT_EVENT(librados, rados_write_enter,
	TP_ARGS(const char *, oid, int, len),
	TP_FIELDS(ctf_string(oid, oid) ctf_integer(int, len, len)))
TRACEPOINT_EVENT(librados, rados_write_exit, TP_ARGS(int, retval),
	TP_FIELDS(ctf_integer(int, retval, retval)))
#endif
