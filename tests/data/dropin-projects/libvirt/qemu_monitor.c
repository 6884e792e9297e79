/* The QEMU driver, a module libvirtd dlopen()s (libvirt_driver_qemu.so):
 * it includes the same probes header and fires its own probe. */
#include "virprobe.h"
#include "libvirt.h"

int qemuMonitorSend(int fd, const char *msg);

int qemuMonitorSend(int fd, const char *msg)
{
	void *mon = virNetSocketNew(fd, 0);

	PROBE(QEMU_MONITOR_SEND_MSG, "mon=%p msg=%s fd=%d", mon, msg, fd);
	return 0;
}
