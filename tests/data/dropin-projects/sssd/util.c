/* libsss_util: the sysdb transactions fire two of the four probes. */
#include "probes.h"

void sysdb_transaction(int nesting);

void sysdb_transaction(int nesting)
{
	PROBE(SSSD_TRANSACTION_START, nesting);
	PROBE(SSSD_TRANSACTION_COMMIT_BEFORE, nesting + 100);
}
