/* gearmand (a miniature written for these tests): the job server says
 * what configure found; its sources fire no probe. */
#include "config.h"
#include <stdio.h>

int main(void)
{
#ifdef HAVE_DTRACE
	puts("gearmand: built with HAVE_DTRACE");
#else
	puts("gearmand: built without HAVE_DTRACE");
#endif
	return 0;
}
