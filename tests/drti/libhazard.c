// SPDX-License-Identifier: MIT
/*
 * libhazard.c - control for the fork-after-dlclose test.  It registers a
 * fork child handler the unsafe way, through glibc's __register_atfork
 * with no DSO handle, so dlclose cannot unregister it and the next fork
 * calls into unmapped memory.  The test expects the child to die: that
 * proves the dlopen/dlclose/fork sequence really exercises the hazard that
 * drti.o must avoid.  glibc only.
 */
extern int __register_atfork(void (*prepare)(void), void (*parent)(void),
			     void (*child)(void), void *dso_handle);

static void hazard_child(void)
{
}

__attribute__((constructor)) static void hazard_init(void)
{
	__register_atfork((void (*)(void))0, (void (*)(void))0, hazard_child,
			  (void *)0);
}
