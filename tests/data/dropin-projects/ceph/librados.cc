// librados (a miniature written for these tests): its tracepoints, as
// Ceph's src/librados/librados_c.cc fires them.
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

int rados_write(const char *oid, const char *buf, int len)
{
	tracepoint(librados, rados_write_enter, oid, len);
	int retval = buf ? len * 10 : -22;
	tracepoint(librados, rados_write_exit, retval);
	return retval;
}
