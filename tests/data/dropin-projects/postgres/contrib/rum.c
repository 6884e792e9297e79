/* An extension that fires no probe (as postgresql-rum, an index access
 * method): PGXS builds it with every server header, probes.h among them
 * (through postgres.h and pg_trace.h), so it must link with -z defs and
 * carry no probe of the server's. */
#include "utils/probes.h"

int rum_consistent(int a, int b);

int rum_consistent(int a, int b)
{
	return a == b;
}
