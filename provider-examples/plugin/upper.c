// SPDX-License-Identifier: MIT
/*
 * upper.c - upper.so, a plugin for host.c (see plugin.h) that upper-cases
 * words, with a provider of its own (upper, upper.d).
 *
 * A dlopen'ed module needs nothing special: `dtrace -G` processes upper.o
 * and writes upper-probes.o, which goes into upper.so only.  Its copy of
 * drti.o registers the plugin's probes when dlopen runs the module's
 * constructors and removes them when dlclose runs its destructors; the
 * probe sites themselves are NOPs in the plugin's text, found by tracers
 * from the stapsdt notes of the file.  Nothing pins the module: after
 * dlclose it is really unmapped (host.c checks).
 */
#include <ctype.h>
#include <string.h>

#include "plugin.h"
#include "upper.h"

static long transform(const char *word, char *out, size_t outsz)
{
	size_t len = strlen(word);

	UPPER_TRANSFORM_START(word, len);
	if (len >= outsz) {
		UPPER_TRANSFORM_DONE(word, NULL);
		return -1;
	}
	for (size_t i = 0; i <= len; i++)
		out[i] = (char)toupper((unsigned char)word[i]);
	UPPER_TRANSFORM_DONE(word, out);
	return (long)len;
}

static const struct plugin info = {
	.api_version = PLUGIN_API_VERSION,
	.name = "upper",
	.transform = transform,
};

const struct plugin *plugin_info(void)
{
	return &info;
}
