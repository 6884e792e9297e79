/* A unit that fires every probe once per call, with exact values. */
#include "dp.h"

/*
 * The path is read once before the probe: bpftrace reads strings only
 * from pages already in memory.
 */
static const char path[] = "/one";

struct thing;

void dp1(int i)
{
	*(volatile const char *)path;
	DP_REQ(path, 200 + i);
	DP_OBJ((void *)0x1234, -5);		/* libvirt: everything void * */
	if (DP_SEVEN_ENABLED())
		DP_SEVEN(1, 2, 3, 4, 5, 6, 7 + i);
}
