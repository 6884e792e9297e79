/* libdemo's second object: when lib.c changes, this one was already
 * rewritten by -G, which is what Ruby's "rebuild" mode is about. */
#include "lt.h"

void lt_util(int i);

static const char path[] = "/util";

void lt_util(int i)
{
	*(volatile const char *)path;
	LT_REQ(path, 300 + i);
}
