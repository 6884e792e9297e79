/* A second backend object, with an _ENABLED() guard as PostgreSQL's
 * lock and buffer probes have. */
#include "probes.h"

void start_transaction(int i);

void start_transaction(int i)
{
	if (TRACE_POSTGRESQL_TRANSACTION_START_ENABLED())
		TRACE_POSTGRESQL_TRANSACTION_START(700 + i);
}
