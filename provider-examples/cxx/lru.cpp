// SPDX-License-Identifier: MIT
/*
 * lru.cpp - the out-of-line part of LruCache (lru.hpp): insertion and
 * eviction.  The eviction probe passes the evicted key's c_str() before
 * the string is destroyed.
 */
#include "lru.hpp"

void LruCache::put(const std::string &key, long value)
{
	auto it = index_.find(key);

	if (it != index_.end()) {
		it->second->second = value;
		order_.splice(order_.begin(), order_, it->second);
		return;
	}
	if (capacity_ != 0 && index_.size() == capacity_) {
		const entry &victim = order_.back();

		CATALOG_CACHE_EVICT(name_.c_str(), victim.first.c_str(),
				    index_.size() - 1);
		index_.erase(victim.first);
		order_.pop_back();
	}
	order_.emplace_front(key, value);
	index_[key] = order_.begin();
}
