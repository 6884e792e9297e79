/*
 * catalog.d - the probes of the C++ example (provider-examples/cxx/): a
 * price catalog in front of a slow "database", with an LRU cache.
 *
 *	dtrace -h -s catalog.d -o catalog.h	(the header works in C++:
 *						 extern "C" declarations)
 *	dtrace -G -s catalog.d -o catalog-probes.o main.o catalog.o lru.o
 *
 * Strings come from std::string::c_str(); prices are in cents because a
 * probe cannot take a double (floating-point arguments travel in SSE
 * registers, which uprobe consumers cannot read).
 */
#pragma D attributes Evolving/Evolving/Common provider catalog provider
#pragma D attributes Evolving/Evolving/Common provider catalog args

provider catalog {
	/* a price is asked for, and found (cents) or not (-1) */
	probe lookup__start(const char *sku);
	probe lookup__done(const char *sku, long cents);
	/* the cache (its name, the key): found, not found, evicted */
	probe cache__hit(const char *cache, const char *key);
	probe cache__miss(const char *cache, const char *key);
	probe cache__evict(const char *cache, const char *key, size_t size);
};
