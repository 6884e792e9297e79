/*
 * A provider shaped like a base library's: allocator, slice, quark and
 * main-loop probes; note the probe name mixing "__" and "_".  Compiled
 * without -C.  Written for usdt-sdk's tests.
 */
provider glib {
	probe mem__alloc(void*, unsigned int, unsigned int, unsigned int);
	probe mem__realloc(void*, void *, unsigned int, unsigned int);
	probe mem__free(void*);
	probe slice__alloc(void*, unsigned int);
	probe slice__free(void*, unsigned int);
	probe quark__new(const char *, unsigned int);
	probe main__after_prepare(void*, int, unsigned int);
	probe main__dispatch(void*, void*, const char*, void*, void*);
	probe thread__spawned(void*, void*, char*);
};
