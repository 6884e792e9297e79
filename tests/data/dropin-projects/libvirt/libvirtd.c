/* libvirtd: loads the QEMU driver module as libvirt's virDriverLoadModule
 * does and sends N (argv[1]) monitor messages through it; it fires no
 * probe itself, although -G's output is linked into it. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "libvirt.h"

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	void *mod = dlopen(MODULE_DIR "/libvirt_driver_qemu.so",
			   RTLD_NOW | RTLD_GLOBAL);
	int (*send)(int, const char *);
	static const char *msgs[] = { "{\"execute\":\"qmp_capabilities\"}",
				      "{\"execute\":\"query-status\"}" };

	if (!mod) {
		fprintf(stderr, "libvirtd: %s\n", dlerror());
		return 1;
	}
	*(void **)&send = dlsym(mod, "qemuMonitorSend");
	if (!send) {
		fprintf(stderr, "libvirtd: %s\n", dlerror());
		return 1;
	}
	virNetSocketNew(3, getpid());
	for (int i = 0; i < n; i++)
		send(10 + i, msgs[i & 1]);
	return 0;
}
