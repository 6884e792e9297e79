// SPDX-License-Identifier: MIT
/*
 * kvapp.c - a command-line front end to libkv.so.  Both have probes: the
 * program's provider is kvapp (kvapp.d), the library's is kvstore
 * (kvstore.d).  Each module is processed by `dtrace -G` on its own and
 * links its own output object, so a tracer sees kvapp probes in the
 * program and kvstore probes in libkv.so, and one command shows up as a
 * kvapp command-start, the kvstore probes it causes, then command-done.
 *
 * Commands, one per line on stdin ('#' starts a comment):
 *	put KEY VALUE	store (VALUE is the rest of the line)
 *	get KEY		print the value
 *	del KEY		remove
 *	count		print the number of keys
 * Each prints one line of result.  The exit status is 1 if any command
 * was malformed.
 */
#include <stdio.h>
#include <string.h>

#include "kv.h"
#include "kvapp.h"

enum { DONE, NOT_FOUND, BAD_COMMAND };

/* Split off the first blank-separated word of *s; NULL if there is none. */
static char *word(char **s)
{
	char *w = *s + strspn(*s, " \t");
	size_t n = strcspn(w, " \t");

	if (n == 0)
		return NULL;
	*s = w + n;
	if (**s)
		*(*s)++ = '\0';
	return w;
}

static int run(struct kv *kv, const char *verb, const char *key,
	       const char *rest)
{
	const char *v;

	if (!strcmp(verb, "put") && key && *rest) {
		if (kv_put(kv, key, rest) < 0)
			return BAD_COMMAND;
		printf("put %s: ok\n", key);
		return DONE;
	}
	if (*rest)
		return BAD_COMMAND;
	if (!strcmp(verb, "get") && key) {
		v = kv_get(kv, key);
		printf("get %s: %s\n", key, v ? v : "(not found)");
		return v ? DONE : NOT_FOUND;
	}
	if (!strcmp(verb, "del") && key) {
		int found = kv_del(kv, key);

		printf("del %s: %s\n", key, found ? "ok" : "(not found)");
		return found ? DONE : NOT_FOUND;
	}
	if (!strcmp(verb, "count") && !key) {
		printf("count: %zu\n", kv_count(kv));
		return DONE;
	}
	return BAD_COMMAND;
}

int main(void)
{
	struct kv *kv = kv_new();
	char buf[1024];
	int lineno = 0, bad = 0;

	if (!kv) {
		perror("kvapp");
		return 1;
	}
	while (fgets(buf, sizeof(buf), stdin)) {
		char *p = buf, *verb, *key, *rest;
		int status;

		lineno++;
		buf[strcspn(buf, "#\n")] = '\0';
		verb = word(&p);
		if (!verb)
			continue;
		key = word(&p);
		rest = p + strspn(p, " \t");
		KVAPP_COMMAND_START(lineno, verb, key ? key : "");
		status = run(kv, verb, key, rest);
		if (status == BAD_COMMAND) {
			printf("line %d: bad command\n", lineno);
			bad = 1;
		}
		KVAPP_COMMAND_DONE(lineno, verb, status);
	}
	kv_free(kv);
	return bad;
}
