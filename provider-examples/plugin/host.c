// SPDX-License-Identifier: MIT
/*
 * host.c - loads a plugin with dlopen, runs it over the words given, and
 * unloads it with dlclose; the host has a provider of its own (plughost,
 * host.d) and the plugin another (upper.d for upper.so).
 *
 *	host [-r ROUNDS] PLUGIN WORD...
 *
 * PLUGIN is a path (with a '/', such as ./upper.so, so dlopen does not
 * search for it).  With -r the load, use and unload are repeated ROUNDS
 * times: a tracer attached to the plugin's file sees its probes fire in
 * each round, although each round maps the plugin afresh.  After each
 * dlclose the host checks with RTLD_NOLOAD that the plugin is really
 * gone: its probe registration must not keep it mapped.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"
#include "plugin.h"

typedef const struct plugin *plugin_info_fn(void);

/* room for a transformed word: longer words are refused by the plugin */
#define WORD_MAX 32

static int run_plugin(const char *path, char **words, int nwords)
{
	char out[WORD_MAX], name[64];
	const struct plugin *p;
	plugin_info_fn *info;
	unsigned long calls = 0;
	void *h;

	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "host: %s\n", dlerror());
		return -1;
	}
	info = (plugin_info_fn *)dlsym(h, "plugin_info");
	p = info ? info() : NULL;
	if (!p || p->api_version != PLUGIN_API_VERSION) {
		fprintf(stderr, "host: %s: not a plugin of this host\n", path);
		dlclose(h);
		return -1;
	}
	/* the name lives in the plugin: keep a copy for after dlclose */
	snprintf(name, sizeof(name), "%s", p->name);
	PLUGHOST_PLUGIN_LOAD(path, name);
	printf("loaded %s from %s\n", name, path);

	for (int i = 0; i < nwords; i++) {
		long n = p->transform(words[i], out, sizeof(out));

		calls++;
		printf("%s -> %s\n", words[i], n < 0 ? "(too long)" : out);
	}

	PLUGHOST_PLUGIN_UNLOAD(name, calls);
	if (dlclose(h) != 0) {
		fprintf(stderr, "host: dlclose %s: %s\n", path, dlerror());
		return -1;
	}
	/* RTLD_NOLOAD gives a handle only if the module is still mapped */
	h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	if (h) {
		printf("%s is still loaded after dlclose\n", name);
		dlclose(h);
		return -1;
	}
	printf("unloaded %s\n", name);
	return 0;
}

int main(int argc, char **argv)
{
	long rounds = 1;
	int opt;

	while ((opt = getopt(argc, argv, "r:")) != -1) {
		switch (opt) {
		case 'r':
			rounds = atol(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (optind >= argc || rounds < 1)
		goto usage;
	for (long r = 0; r < rounds; r++) {
		if (run_plugin(argv[optind], argv + optind + 1,
			       argc - optind - 1) < 0)
			return 1;
	}
	return 0;
usage:
	fprintf(stderr, "usage: host [-r ROUNDS] PLUGIN WORD...\n");
	return 2;
}
