/* libvirt's src/util/vireventglib.c in small, another object of the
 * static library linked whole into libvirt.so: a watch on a descriptor,
 * announced by PROBE(). */
#include <stddef.h>
#include "virprobe.h"
#include "libvirt.h"

static void vir_cb(void)
{
}

int virEventGLibAddHandle(int fd)
{
	int watch = fd + 1000;

	PROBE(EVENT_GLIB_ADD_HANDLE,
	      "watch=%d fd=%d events=%d cb=%p opaque=%p ff=%p", watch, fd, 1,
	      vir_cb, NULL, NULL);
	return watch;
}
