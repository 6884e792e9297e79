/*
 * A miniature of libguestfs's lib/guestfs-internal.h (written for these
 * tests): no dtrace step, probes straight from <sys/sdt.h> where
 * configure found it, each DTRACE_PROBE given its arguments in
 * parentheses after the name (a form systemtap's header takes
 * variadically).
 */
#ifndef GUESTFS_INTERNAL_H
#define GUESTFS_INTERNAL_H
#if ENABLE_PROBES
#include <sys/sdt.h>
#define TRACE0(name) DTRACE_PROBE(guestfs, name)
#define TRACE1(name, arg1) DTRACE_PROBE(guestfs, name, (arg1))
#define TRACE2(name, arg1, arg2) DTRACE_PROBE(guestfs, name, (arg1), (arg2))
#else
#define TRACE0(name)
#define TRACE1(name, arg1)
#define TRACE2(name, arg1, arg2)
#endif
#endif
