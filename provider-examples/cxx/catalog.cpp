// SPDX-License-Identifier: MIT
/*
 * catalog.cpp - Catalog::price(): lookup-start and lookup-done around a
 * cache lookup and, on a miss, the slow store.
 */
#include "catalog.hpp"

Catalog::Catalog(std::size_t cache_size)
	: store_{ { "apple", 45 },
		  { "bread", 289 },
		  { "cheese", 1250 },
		  { "dates", 599 },
		  { "eggs", 399 } },
	  cache_("prices", cache_size)
{
}

long Catalog::slow_lookup(const std::string &sku) const
{
	auto it = store_.find(sku);

	return it == store_.end() ? -1 : it->second;
}

long Catalog::price(const std::string &sku)
{
	long cents;

	CATALOG_LOOKUP_START(sku.c_str());
	if (!cache_.get(sku, cents)) {
		cents = slow_lookup(sku);
		if (cents >= 0)
			cache_.put(sku, cents);
	}
	CATALOG_LOOKUP_DONE(sku.c_str(), cents);
	return cents;
}
