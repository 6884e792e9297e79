// SPDX-License-Identifier: MIT
/*
 * myapp.c - a tiny "query server" with static probes.
 *
 * Build (probes compiled out):  cc -DUSDT_DISABLE_PROBES myapp.c
 * Build with probes:            dtrace -h -s myapp.d -o myapp.h
 *                               cc -c myapp.c
 *                               dtrace -G -s myapp.d myapp.o -o probes.o
 *                               cc myapp.o probes.o -o myapp
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "myapp.h"

struct request {
	unsigned int id;
	const char *text;
};

static long run_query(const struct request *rq)
{
	return (long)strlen(rq->text) * 10;
}

static long serve(struct request *rq)
{
	long rows;

	MYAPP_REQUEST(rq);
	MYAPP_QUERY_START(rq->id, rq->text);
	rows = run_query(rq);
	MYAPP_QUERY_DONE(rq->id, rows, 0);
	/* build costly arguments only while someone traces */
	if (MYAPP_TICK_ENABLED())
		fprintf(stderr, "tick traced\n");
	MYAPP_TICK();
	return rows;
}

int main(int argc, char **argv)
{
	static const char *const queries[] = {
		"select 1", "select * from t", "insert into t values (42)",
	};
	int n = argc > 1 ? atoi(argv[1]) : 3;

	for (int i = 0; i < n; i++) {
		struct request rq = { (unsigned int)i + 1, queries[i % 3] };

		long rows = serve(&rq);

		printf("query %u: %s: %ld rows\n", rq.id, rq.text, rows);
	}
	return 0;
}
