// SPDX-License-Identifier: MIT
/*
 * catalog.hpp - Catalog: prices by SKU from a slow store, behind an
 * LruCache.  cached() is inline too, so LruCache::get() is used from
 * both main.cpp and catalog.cpp.
 */
#ifndef CATALOG_HPP
#define CATALOG_HPP

#include <map>
#include <string>

#include "lru.hpp"

class Catalog {
public:
	explicit Catalog(std::size_t cache_size);

	// The price in cents, or -1 for an unknown SKU.
	long price(const std::string &sku);

	// Is sku's price in the cache?  (Touches it, as a lookup would.)
	bool cached(const std::string &sku)
	{
		long cents;

		return cache_.get(sku, cents);
	}

private:
	long slow_lookup(const std::string &sku) const;

	std::map<std::string, long> store_;
	LruCache cache_;
};

#endif // CATALOG_HPP
