/*
 * libvirt's src/util/virprobe.h in small (written for these tests): a
 * PROBE(NAME, FMT, args...) logs (left out here) and, where the probe is
 * enabled, fires LIBVIRT_NAME with every argument cast to void * through
 * intptr_t, so that arrays decay and integers widen; the generated
 * macro's own casts must bring each back to the declared type.
 */
#ifndef VIRPROBE_H
#define VIRPROBE_H
#include <stdint.h>
#include "libvirt_probes.h"

#define VIR_CAST(a) ((void *)(intptr_t)(a))
#define VIR_NARGS(...) VIR_NARGS_(__VA_ARGS__, 6, 5, 4, 3, 2, 1, 0)
#define VIR_NARGS_(_1, _2, _3, _4, _5, _6, n, ...) n
#define VIR_CASTS_1(a) VIR_CAST(a)
#define VIR_CASTS_2(a, ...) VIR_CAST(a), VIR_CASTS_1(__VA_ARGS__)
#define VIR_CASTS_3(a, ...) VIR_CAST(a), VIR_CASTS_2(__VA_ARGS__)
#define VIR_CASTS_4(a, ...) VIR_CAST(a), VIR_CASTS_3(__VA_ARGS__)
#define VIR_CASTS_5(a, ...) VIR_CAST(a), VIR_CASTS_4(__VA_ARGS__)
#define VIR_CASTS_6(a, ...) VIR_CAST(a), VIR_CASTS_5(__VA_ARGS__)
#define VIR_CASTS_N(n, ...) VIR_CASTS_##n(__VA_ARGS__)
#define VIR_CASTS_(n, ...) VIR_CASTS_N(n, __VA_ARGS__)
#define VIR_CASTS(...) VIR_CASTS_(VIR_NARGS(__VA_ARGS__), __VA_ARGS__)
#define VIR_PROBE_CALL(NAME, ARGS) NAME(ARGS)
#define PROBE(NAME, FMT, ...)                                                 \
	if (LIBVIRT_##NAME##_ENABLED()) {                                     \
		VIR_PROBE_CALL(LIBVIRT_##NAME, VIR_CASTS(__VA_ARGS__));       \
	}
#endif
