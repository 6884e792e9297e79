// librados (a miniature written for these tests): its write's
// tracepoints, fired as Ceph's src/librados/librados_c.cc fires them.
#include "librados.h"

#ifdef WITH_LTTNG
#define TRACEPOINT_DEFINE
#define TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#include "tracing/librados.h"
#undef TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#undef TRACEPOINT_DEFINE
#else
#define tracepoint(...)
#endif

extern "C" int rados_write(rados_ioctx_t io, const char *o, const char *buf,
			   size_t len, uint64_t off)
{
	tracepoint(librados, rados_write_enter, io, o, buf, len, off);
	int retval = io && buf ? (int)(len * 10) : -22;
	tracepoint(librados, rados_write_exit, retval);
	return retval;
}
