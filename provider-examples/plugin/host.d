/*
 * host.d - the probes of host (provider-examples/plugin/host.c), which
 * loads plugins with dlopen and unloads them with dlclose.
 *
 *	dtrace -h -s host.d -o host.h
 *	dtrace -G -s host.d -o host-probes.o host.o
 */
#pragma D attributes Evolving/Evolving/Common provider plughost provider

provider plughost {
	/* a plugin was loaded: its file, and the name it gives itself */
	probe plugin__load(const char *path, const char *name);
	/* a plugin is about to be unloaded, after this many calls */
	probe plugin__unload(const char *name, unsigned long calls);
};
