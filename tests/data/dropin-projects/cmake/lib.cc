// libjv.so: HotSpot's pattern in small, C++ including <sys/sdt.h> first
// and then the header -h wrote from a preprocessed .h.d; no -G ever runs,
// and the library is linked with -z defs.
#include <sys/sdt.h>
#include "jv.h"

extern "C" void jv_work(int i);

// Read before the probe: bpftrace reads strings only from mapped pages.
static const char path[] = "/lib";

class Heap {
public:
	void collect(bool full)
	{
		JV_GC_BEGIN(full);
	}
};

extern "C" void jv_work(int i)
{
	Heap h;

	*(volatile const char *)path;
	JV_REQ(path, 100 + i);
	if (JV_GC_BEGIN_ENABLED())
		h.collect(i & 1);
}
