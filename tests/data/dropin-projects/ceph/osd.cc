// The OSD (a miniature written for these tests): `argv[1]` reads, each
// traced as Ceph's PrimaryLogPG traces a transaction and a read (the
// request id's fields, the extent's eight values), then a write through
// librados.
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

struct entity_name_t {
	uint8_t _type;
	int64_t _num;
};
struct osd_reqid_t {
	entity_name_t name;
	uint64_t tid;
	int32_t inc;
};

__attribute__((noinline)) static void do_osd_ops(const char *oid, int i)
{
	// a client's request (type 8), its number NEW (-1)
	osd_reqid_t reqid = { { 8, -1 }, 4000000000ULL + i, -2 - i };
	uint64_t snap = 7 + i, size = 1ULL << 33, offset = 4096 * i;
	uint64_t length = 512 + i, truncate_size = 9000 + i;
	uint32_t seq = 4000000000U + i, truncate_seq = 3 + i;

	tracepoint(osd, prepare_tx_enter, reqid.name._type, reqid.name._num,
		   reqid.tid, reqid.inc);
	tracepoint(osd, do_osd_op_pre_read, oid, snap, size, seq, offset,
		   length, truncate_size, truncate_seq);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 1;
	char oid[32];
	static int ioctx;

	for (int i = 0; i < n; i++) {
		std::snprintf(oid, sizeof(oid), "rbd_data.%d", i);
		do_osd_ops(oid, i);
		if (rados_write(&ioctx, oid, oid, 100 + i, 4096 * i) < 0)
			return 1;
	}
	return 0;
}
