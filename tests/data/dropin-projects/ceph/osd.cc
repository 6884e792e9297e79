// The OSD (a miniature written for these tests): `argv[1]` extent
// operations, each traced with the ten arguments of the osd provider's
// do_osd_op_pre_extent, then written through librados.
#include "librados.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#ifdef WITH_LTTNG
#define TRACEPOINT_DEFINE
#define TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#include "tracing/osd.h"
#undef TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#undef TRACEPOINT_DEFINE
#else
#define tracepoint(...)
#endif

__attribute__((noinline)) static void do_osd_ops(const char *oid, int i)
{
	uint64_t snap = 7 + i, offset = 4096 * i, length = 512 + i;
	uint64_t truncate_size = 9000 + i;
	uint32_t flags = 0x20 + i, truncate_seq = 3 + i;
	int64_t pool = -3 - i;
	uint16_t osd = 65000 + i;

	tracepoint(osd, do_osd_op_pre_extent, oid, snap, "write", flags,
		   offset, length, truncate_size, truncate_seq, pool, osd);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 1;
	char oid[32];

	for (int i = 0; i < n; i++) {
		std::snprintf(oid, sizeof(oid), "rbd_data.%d", i);
		do_osd_ops(oid, i);
		if (rados_write(oid, oid, 100 + i) < 0)
			return 1;
	}
	return 0;
}
