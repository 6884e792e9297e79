// SPDX-License-Identifier: MIT
/*
 * lru.hpp - LruCache, a small least-recently-used cache of prices keyed
 * by string, with probes.
 *
 * get() is defined in the class, so it is an inline function: every
 * translation unit that calls it either inlines it or emits its own
 * out-of-line copy in a COMDAT group, of which the linker keeps one.
 * Either way the probes in it are ordinary call sites in each object,
 * and one `dtrace -G` run over all the objects finds them all (with -O0
 * the copies that the linker drops take their probe sites with them).
 * The probe arguments are the std::strings' c_str(): pointers that stay
 * valid for the duration of the probe, which is all a tracer needs.
 */
#ifndef LRU_HPP
#define LRU_HPP

#include <cstddef>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>

#include "catalog.h"

class LruCache {
public:
	LruCache(std::string name, std::size_t capacity)
		: name_(std::move(name)), capacity_(capacity)
	{
	}

	// Find key; on a hit it becomes the most recently used entry.
	bool get(const std::string &key, long &value)
	{
		auto it = index_.find(key);

		if (it == index_.end()) {
			CATALOG_CACHE_MISS(name_.c_str(), key.c_str());
			return false;
		}
		order_.splice(order_.begin(), order_, it->second);
		CATALOG_CACHE_HIT(name_.c_str(), key.c_str());
		value = it->second->second;
		return true;
	}

	// Insert or replace; evicts the least recently used when full.
	void put(const std::string &key, long value);

	std::size_t size() const
	{
		return index_.size();
	}

private:
	using entry = std::pair<std::string, long>;

	std::string name_;
	std::size_t capacity_;
	std::list<entry> order_; // most recently used first
	std::unordered_map<std::string, std::list<entry>::iterator> index_;
};

#endif // LRU_HPP
