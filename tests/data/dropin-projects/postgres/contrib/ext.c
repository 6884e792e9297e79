/* An extension: built against the installed probes.h alone, never seen
 * by -G, linked with -z defs. */
#include "utils/probes.h"

void ext_run(int i);
int ext_traced(void);

static const char query[] = "/ext";

void ext_run(int i)
{
	*(volatile const char *)query;
	TRACE_POSTGRESQL_QUERY_START(query, 400 + i);
}

int ext_traced(void)
{
	return TRACE_POSTGRESQL_QUERY_START_ENABLED();
}
