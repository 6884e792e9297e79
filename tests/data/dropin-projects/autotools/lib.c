/* libdemo: a libtool library whose objects -G sees twice (PIC, non-PIC). */
#include "lt.h"

void lt_lib(int i);

/* Read before the probe: bpftrace reads strings only from mapped pages. */
static const char path[] = "/lib";

void lt_lib(int i)
{
	*(volatile const char *)path;
	LT_REQ(path, 100 + i);
}
