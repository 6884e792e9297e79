/*
 * The probe macro of sssd's src/util/probes.h, as a miniature: every
 * probe behind its _ENABLED() test, names pasted from the provider's
 * upper-cased prefix (PROBE(SSSD_TRANSACTION_START, ...) fires
 * sssd:::sssd_transaction_start).
 */
#ifndef PROBES_H
#define PROBES_H
#ifdef HAVE_SYSTEMTAP
#include "stap_generated_probes.h"
#define PROBE_EXPAND(provider, probe) provider##_##probe
#define PROBE(probe, ...)                                          \
	do {                                                       \
		if (PROBE_EXPAND(SSSD, probe##_ENABLED())) {       \
			PROBE_EXPAND(SSSD, probe(__VA_ARGS__));    \
		}                                                  \
	} while (0)
#else
#define PROBE(probe, ...)
#endif
#endif
