// libjv.so: HotSpot's pattern in small.  Its dtrace.hpp includes
// <sys/sdt.h> and then every header -h wrote; no -G ever runs.  The
// probes are called the way HotSpot calls them: strings as (char *)
// with their lengths, JNI's jbyte and jchar, a long long.
#include <sys/sdt.h>
#include "jv.h"
#include "jv_jni.h"
#include <stdint.h>

typedef signed char jbyte;
typedef unsigned short jchar;

extern "C" __attribute__((visibility("default"))) void jv_work(int i);

// Read before the probe: bpftrace reads strings only from mapped pages.
static const char path[] = "/lib";
static const char klass[] = "java/lang/Object";
static const char method[] = "hashCode";
static const char sig[] = "()I";
static const char compiler[] = "C2";

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
	void *vms[1] = { nullptr };
	uintptr_t nvms = 0;

	*(volatile const char *)path;
	JV_REQ((char *)path, 100 + i);
	if (JV_GC_BEGIN_ENABLED())
		h.collect(i & 1);
	JV_METHOD_COMPILE_END((char *)compiler, sizeof(compiler) - 1,
			      (char *)klass, sizeof(klass) - 1, (char *)method,
			      sizeof(method) - 1, (char *)sig, sizeof(sig) - 1,
			      1 + i);
	JV_THREAD_SLEEP_BEGIN((long long)-5000000000LL - i);
	JV_JNI_GETCREATEDJAVAVMS_ENTRY((void **)vms, 1, &nvms);
	JV_JNI_GETBYTEFIELD_RETURN((jbyte)(-3 - i));
	JV_JNI_GETCHARFIELD_RETURN((jchar)(60000 + i));
}
