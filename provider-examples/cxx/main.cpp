// SPDX-License-Identifier: MIT
/*
 * main.cpp - the C++ example: look up the prices of the SKUs given on
 * the command line through a Catalog with a 2-entry cache, then report
 * which of them are still cached.
 *
 *	catalog SKU...		(exit status 1 if a SKU is unknown)
 *
 * Probes fire from classes' member functions (Catalog::price, the inline
 * LruCache::get, LruCache::put) with std::string arguments passed as
 * c_str(); see catalog.d and README.md.
 */
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "catalog.hpp"

int main(int argc, char **argv)
{
	Catalog catalog(2);
	std::vector<std::string> skus(argv + 1, argv + argc);
	int unknown = 0;

	for (const std::string &sku : skus) {
		long cents = catalog.price(sku);

		if (cents < 0) {
			std::printf("%s: unknown\n", sku.c_str());
			unknown++;
		} else {
			std::printf("%s: %ld.%02ld\n", sku.c_str(), cents / 100,
				    cents % 100);
		}
	}
	std::set<std::string> seen;

	std::printf("cached:");
	for (const std::string &sku : skus)
		if (seen.insert(sku).second && catalog.cached(sku))
			std::printf(" %s", sku.c_str());
	std::printf("\n");
	return unknown ? 1 : 0;
}
