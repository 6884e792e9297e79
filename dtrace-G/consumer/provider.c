// SPDX-License-Identifier: MIT
/*
 * provider.c - the providers of a run, each one table (struct provider,
 * provider_impl.h) in its own file: usdtprov.c, pidprov.c,
 * kprov_syscall.c, kprov_profile.c, kprov_proc.c.  This file lists them
 * and answers, for the rest of the consumer, the questions a site asks
 * of its provider (which one owns a site kind, what an event there
 * fetches, whether it is a return probe, whether a failure to arm it is
 * one to say and pass over), so that no other file names a provider.
 *
 * dtrace -l asks them for its rows after the registry's
 * (dt_providers_list(), in the order of listed[]).
 *
 * The order of providers[] is the order their probes are made in, and
 * so of their IDs, which clauses print (id, the default output's ID
 * column): the kernel providers' probes are made before any process is
 * read (kprov_match(), after dtrace's own), then, for each file a
 * process maps, the pid provider's before USDT's (proc_refresh()).
 *
 * What a backend must do to arm a provider's probes is the provider's
 * needs against the backend's caps; the provider decides what a run
 * without them does (pid takes another backend, the kernel providers
 * refuse it).
 */
#include "config.h"

#include "consumer_impl.h"

const struct provider *const providers[] = {
	&prov_syscall, &prov_profile, &prov_proc, &prov_pid, &prov_usdt,
};
const size_t nproviders = sizeof(providers) / sizeof(providers[0]);

/*
 * The order dtrace -l lists rows in after the registry's (USDT's and
 * dtrace's own, which list.c reads from the registry first, so that
 * their IDs are the same with or without the others): the probe points
 * pid descriptions select, then the kernel's.
 */
static const struct provider *const listed[] = {
	&prov_pid, &prov_syscall, &prov_profile, &prov_proc,
};

int dt_providers_list(const struct dt_lister *l)
{
	for (size_t i = 0; i < sizeof(listed) / sizeof(listed[0]); i++) {
		int r = listed[i]->list ? listed[i]->list(listed[i], l) : 0;

		if (r)
			return r;
	}
	return 0;
}

const struct provider *site_provider(unsigned k)
{
	for (size_t i = 0; i < nproviders; i++)
		if (k < 32 && (providers[i]->site_kinds & (1u << k)))
			return providers[i];
	return &prov_usdt; /* not reached: SITE_* are all owned */
}

const char *site_args(const struct tnote *note, uint64_t key)
{
	return site_provider(SITE_KIND(key))->site_args(note, key);
}

bool site_returns(uint64_t key)
{
	unsigned k = SITE_KIND(key);

	return k < 32 && (site_provider(k)->ret_kinds & (1u << k));
}

bool site_refused(struct consumer *c, const struct tfile *f, uint64_t key,
		  int err)
{
	const struct provider *pv = site_provider(SITE_KIND(key));

	return pv->refused && pv->refused(c, f, key, err);
}

int providers_prepare(struct consumer *c)
{
	for (size_t i = 0; i < nproviders; i++)
		if (providers[i]->prepare && providers[i]->prepare(c) < 0)
			return -1;
	return 0;
}
