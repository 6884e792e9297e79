// The osd provider, as lttng-gen-tp writes it from Ceph's
// src/tracing/osd.tp (a miniature written for these tests): two of its
// events with their argument lists as osd.tp declares them.
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER osd

#if !defined(TRACING_OSD_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TRACING_OSD_H

#include <lttng/tracepoint.h>
#include <stdint.h>

TRACEPOINT_EVENT(osd, prepare_tx_enter,
	TP_ARGS(uint8_t, type, int64_t, num, uint64_t, tid, int32_t, inc),
	TP_FIELDS(ctf_integer(uint8_t, type, type)))
TRACEPOINT_EVENT(osd, do_osd_op_pre_read,
	TP_ARGS(const char *, oid, uint64_t, snap, uint64_t, osize,
		uint32_t, oseq, uint64_t, offset, uint64_t, length,
		uint64_t, truncate_size, uint32_t, truncate_seq),
	TP_FIELDS(ctf_string(oid, oid) ctf_integer(uint64_t, snap, snap)))
#endif
