/* A second libperl object. */
#include "perldtrace.h"

void perl_sv(int i);

static const char name[] = "/sv";

void perl_sv(int i)
{
	*(volatile const char *)name;
	PERL_SUB_ENTRY(name, 300 + i);
}
