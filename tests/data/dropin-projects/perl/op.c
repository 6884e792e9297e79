/* A libperl object. */
#include "perldtrace.h"

void perl_op(int i);

/* Read before the probe: bpftrace reads strings only from mapped pages. */
static const char name[] = "/op";

void perl_op(int i)
{
	*(volatile const char *)name;
	PERL_SUB_ENTRY(name, 100 + i);
}
