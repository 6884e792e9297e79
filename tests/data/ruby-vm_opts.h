/*
 * Build options kept in a C header, the way an interpreter does; the
 * provider file includes it under -C.  Only preprocessor directives, so
 * it is valid both in C and in a D provider file.  Written for usdt-sdk's
 * tests.
 */
#ifndef TEST_VM_OPTS_H
#define TEST_VM_OPTS_H

#define OPT_TAILCALL_OPTIMIZATION 0
#define OPT_INLINE_CACHE 1

/* per-instruction probes cost too much to be on by default */
#ifndef VM_COLLECT_USAGE_DETAILS
#define VM_COLLECT_USAGE_DETAILS 0
#endif

#endif /* TEST_VM_OPTS_H */
