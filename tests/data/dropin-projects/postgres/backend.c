/* A backend object: a probe site -G rewrites into a NOP. */
#include "probes.h"

void exec_query(int i);

/* Read before the probe: bpftrace reads strings only from mapped pages. */
static const char query[] = "/backend";

void exec_query(int i)
{
	*(volatile const char *)query;
	TRACE_POSTGRESQL_QUERY_START(query, 100 + i);
}
