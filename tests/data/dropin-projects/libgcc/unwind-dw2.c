/*
 * A miniature of libgcc's unwinder (unwind-dw2.c, written for these
 * tests): the hook a debugger breaks on before an exception lands, which
 * fires libgcc:::unwind(cfa, handler) only where <sys/sdt.h> writes
 * version-3 notes -- the test libgcc makes, compiled as it is here.
 */
#ifdef HAVE_SYS_SDT_H
#include <sys/sdt.h>
#endif

void *unw_land(void *cfa, void *handler);

static void __attribute__((noinline))
unw_debug_hook(void *cfa __attribute__((unused)),
	       void *handler __attribute__((unused)))
{
#if defined(HAVE_SYS_SDT_H) && defined(STAP_PROBE2) && _SDT_NOTE_TYPE >= 3
	STAP_PROBE2(libgcc, unwind, cfa, handler);
#else
	__asm__("");
#endif
}

void *unw_land(void *cfa, void *handler)
{
	unw_debug_hook(cfa, handler);
	return handler;
}
