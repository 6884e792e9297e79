/* libms.so: glib's pattern, a shared library linked with
 * --no-undefined (meson's b_lundef) whose probe calls -G never sees. */
#include "trace-ms.h"

void ms_lib(int i);

/* Read before the probe: bpftrace reads strings only from mapped pages. */
static const char path[] = "/lib";

void ms_lib(int i)
{
	*(volatile const char *)path;
	MS_REQ(path, 100 + i);
	/* libvirt: every argument cast to void * */
	MS_OBJ((void *)path, (void *)(long)(100 + i));
}
