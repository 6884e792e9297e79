// The osd provider, as lttng-gen-tp writes it from osd.tp (a miniature
// written for these tests).
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER osd

#if !defined(TRACING_OSD_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TRACING_OSD_H

#include <lttng/tracepoint.h>
#include <stdint.h>

TRACEPOINT_EVENT(osd, do_osd_op_pre_extent,
	TP_ARGS(const char *, oid, uint64_t, snap, const char *, opname,
		uint32_t, flags, uint64_t, offset, uint64_t, length,
		uint64_t, truncate_size, uint32_t, truncate_seq,
		int64_t, pool, uint16_t, osd),
	TP_FIELDS(ctf_string(oid, oid) ctf_integer(uint64_t, snap, snap)))
#endif
