/* A second unit, so that -G can be given some objects and not others. */
#include "dp.h"

/*
 * The path is read once before the probe: bpftrace reads strings only
 * from pages already in memory.
 */
static const char path[] = "/two";

void dp2(int i)
{
	*(volatile const char *)path;
	DP_REQ(path, 300 + i);
}
