/* sssd_be: a request done, through libsss_util's transactions. */
#include <stdlib.h>
#include "probes.h"

void sysdb_transaction(int nesting);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	for (int i = 0; i < n; i++) {
		sysdb_transaction(i);
		PROBE(DP_REQ_DONE, (char *)"req", 1, 2, i, (char *)"ok");
	}
	return 0;
}
