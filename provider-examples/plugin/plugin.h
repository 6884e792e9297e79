/* SPDX-License-Identifier: MIT */
/*
 * plugin.h - the contract between host.c and its plugins: every plugin
 * is a shared object exporting plugin_info(), which describes it.
 * Probes are not part of the contract; a plugin may bring a provider of
 * its own (upper.so does), which comes and goes with the plugin.
 */
#ifndef PLUGIN_H
#define PLUGIN_H

#include <stddef.h>

#define PLUGIN_API_VERSION 1

struct plugin {
	int api_version; /* PLUGIN_API_VERSION */
	const char *name;
	/*
	 * Transform word into out (outsz bytes, NUL-terminated): the
	 * result's length, or -1 when it does not fit.
	 */
	long (*transform)(const char *word, char *out, size_t outsz);
};

const struct plugin *plugin_info(void);

#endif /* PLUGIN_H */
