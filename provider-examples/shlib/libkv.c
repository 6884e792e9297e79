// SPDX-License-Identifier: MIT
/*
 * libkv.c - libkv.so, a small in-memory key-value store with probes of
 * its own (provider kvstore, kvstore.d).
 *
 * A chained hash table (FNV-1a) that starts with 4 buckets and doubles
 * when it holds more entries than buckets, so a handful of puts shows a
 * resize.  Keys and values are copied.
 *
 * Probes in a shared library work as in a program: `dtrace -G` rewrites
 * libkv.o (built with -fPIC) and writes kvstore-probes.o, which is linked
 * into libkv.so and nowhere else.  The semaphores behind _ENABLED() are
 * hidden symbols of the library, so they never clash with another
 * module's, and the library's drti.o copy registers the library's probes
 * when it is loaded.  Build: see README.md.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kv.h"
#include "kvstore.h"

struct kv_entry {
	struct kv_entry *next;
	char *key;
	char *value;
};

struct kv {
	struct kv_entry **buckets;
	size_t nbuckets;
	size_t count;
};

#define KV_MIN_BUCKETS 4

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 16777619u;
	}
	return h;
}

struct kv *kv_new(void)
{
	struct kv *kv = calloc(1, sizeof(*kv));

	if (!kv)
		return NULL;
	kv->buckets = calloc(KV_MIN_BUCKETS, sizeof(*kv->buckets));
	if (!kv->buckets) {
		free(kv);
		return NULL;
	}
	kv->nbuckets = KV_MIN_BUCKETS;
	return kv;
}

void kv_free(struct kv *kv)
{
	if (!kv)
		return;
	for (size_t i = 0; i < kv->nbuckets; i++) {
		struct kv_entry *e = kv->buckets[i], *next;

		for (; e; e = next) {
			next = e->next;
			free(e->key);
			free(e->value);
			free(e);
		}
	}
	free(kv->buckets);
	free(kv);
}

static struct kv_entry **find(struct kv *kv, const char *key)
{
	struct kv_entry **ep = &kv->buckets[hash(key) % kv->nbuckets];

	while (*ep && strcmp((*ep)->key, key) != 0)
		ep = &(*ep)->next;
	return ep;
}

/* Double the table; on allocation failure keep the old one (still valid). */
static void grow(struct kv *kv)
{
	size_t n = kv->nbuckets * 2;
	struct kv_entry **b = calloc(n, sizeof(*b));

	if (!b)
		return;
	for (size_t i = 0; i < kv->nbuckets; i++) {
		struct kv_entry *e = kv->buckets[i], *next;

		for (; e; e = next) {
			size_t j = hash(e->key) % n;

			next = e->next;
			e->next = b[j];
			b[j] = e;
		}
	}
	KVSTORE_RESIZE(kv, kv->nbuckets, n);
	free(kv->buckets);
	kv->buckets = b;
	kv->nbuckets = n;
}

int kv_put(struct kv *kv, const char *key, const char *value)
{
	struct kv_entry **ep = find(kv, key), *e = *ep;
	char *v = strdup(value);

	if (!v)
		return -1;
	if (e) {
		free(e->value);
		e->value = v;
		KVSTORE_PUT(key, value, 1);
		return 0;
	}
	e = malloc(sizeof(*e));
	if (!e || !(e->key = strdup(key))) {
		free(e);
		free(v);
		return -1;
	}
	e->value = v;
	e->next = NULL;
	*ep = e;
	kv->count++;
	KVSTORE_PUT(key, value, 0);
	if (kv->count > kv->nbuckets)
		grow(kv);
	return 0;
}

const char *kv_get(struct kv *kv, const char *key)
{
	struct kv_entry *e = *find(kv, key);

	/* the length is for tracers only: compute it only for them */
	if (KVSTORE_GET_ENABLED())
		KVSTORE_GET(key, e ? (long)strlen(e->value) : -1L);
	return e ? e->value : NULL;
}

int kv_del(struct kv *kv, const char *key)
{
	struct kv_entry **ep = find(kv, key), *e = *ep;

	KVSTORE_DEL(key, e != NULL);
	if (!e)
		return 0;
	*ep = e->next;
	free(e->key);
	free(e->value);
	free(e);
	kv->count--;
	return 1;
}

size_t kv_count(const struct kv *kv)
{
	return kv->count;
}
