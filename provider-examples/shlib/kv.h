/* SPDX-License-Identifier: MIT */
/*
 * kv.h - the interface of libkv.so, a small in-memory key-value store.
 * Nothing here mentions probes: the library's probes (kvstore.d) are its
 * own business, and programs using it need no header of ours.
 */
#ifndef KV_H
#define KV_H

#include <stddef.h>

struct kv;

struct kv *kv_new(void);
void kv_free(struct kv *kv);
/* 0 when stored, -1 when out of memory */
int kv_put(struct kv *kv, const char *key, const char *value);
/* the value, or NULL when the key is absent */
const char *kv_get(struct kv *kv, const char *key);
/* 1 when removed, 0 when the key was absent */
int kv_del(struct kv *kv, const char *key);
size_t kv_count(const struct kv *kv);

#endif /* KV_H */
