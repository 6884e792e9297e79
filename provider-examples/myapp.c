// SPDX-License-Identifier: MIT
/*
 * myapp.c - a toy query server with static probes: the smallest complete
 * example of the usdt-sdk workflow (README.md next to it shows the build
 * and how to trace it).
 *
 * The "server" accepts simulated connections; each sends two queries
 * from a fixed list, and gets a made-up row count back (10 rows per
 * character of query text, so the output is predictable).  Queries that
 * drop something are refused.
 *
 *	myapp [N]	serve N queries (default 3) and exit
 *	myapp -f	serve one query every 100 ms until SIGINT or SIGTERM,
 *			for attaching to a running process
 *
 * What it shows:
 *  - a probe macro at each point of interest (MYAPP_QUERY_START(...));
 *    once `dtrace -G` has processed myapp.o each costs one NOP;
 *  - an _ENABLED() guard around work done only for a tracer: the query
 *    plan is formatted only while someone traces query-plan;
 *  - a pointer argument (request) and a probe without arguments (tick).
 *
 * setup.sh builds this file alone (dtrace -h, cc -c, dtrace -G, cc):
 * keep it one source file that needs nothing beyond libc.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "myapp.h"

struct request {
	unsigned int id;
	int conn;
	const char *text;
};

static const char *const queries[] = {
	"select 1",
	"select * from t",
	"insert into t values (42)",
	"drop table t",
};
#define NQUERIES (sizeof(queries) / sizeof(queries[0]))

static const char *const peers[] = {
	"10.0.0.7:41000",
	"10.0.0.9:52311",
	"[::1]:60001",
};
#define NPEERS (sizeof(peers) / sizeof(peers[0]))

/* queries served on each connection before it closes */
#define QUERIES_PER_CONN 2

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

/* Run a query: its row count, or -1 when it is refused. */
static long run_query(const struct request *rq)
{
	if (strncmp(rq->text, "drop ", 5) == 0)
		return -1;
	return (long)strlen(rq->text) * 10;
}

/*
 * The plan is text for people, and formatting it costs more than the
 * query itself here: do it only when a tracer asks for it.
 */
static void fire_query_plan(const struct request *rq)
{
	char plan[128];

	snprintf(plan, sizeof(plan), "%s(t) cost=%zu",
		 strncmp(rq->text, "select", 6) == 0 ? "scan" : "modify",
		 strlen(rq->text) * 3);
	MYAPP_QUERY_PLAN(rq->id, plan);
}

static void serve(struct request *rq)
{
	long rows;
	int status;

	MYAPP_REQUEST(rq);
	MYAPP_QUERY_START(rq->id, rq->text);
	if (MYAPP_QUERY_PLAN_ENABLED())
		fire_query_plan(rq);
	rows = run_query(rq);
	status = rows < 0;
	if (status)
		rows = 0;
	MYAPP_QUERY_DONE(rq->id, rows, status);
	if (status)
		printf("query %u: %s: refused\n", rq->id, rq->text);
	else
		printf("query %u: %s: %ld rows\n", rq->id, rq->text, rows);
}

int main(int argc, char **argv)
{
	const struct timespec pause = { 0, 100 * 1000 * 1000 };
	int forever = argc > 1 && strcmp(argv[1], "-f") == 0;
	long n = forever ? -1 : argc > 1 ? atol(argv[1]) : 3;
	unsigned int served = 0;
	int conn = 0;

	if (forever) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		setvbuf(stdout, NULL, _IOLBF, 0);
	}

	for (long i = 0; (forever || i < n) && !stopping; i++) {
		struct request rq;

		MYAPP_TICK();
		if (served == 0) {
			conn++;
			MYAPP_CONN_OPEN(conn, peers[(conn - 1) % NPEERS]);
			printf("conn %d: open from %s\n", conn,
			       peers[(conn - 1) % NPEERS]);
		}
		rq.id = (unsigned int)i + 1;
		rq.conn = conn;
		rq.text = queries[i % NQUERIES];
		serve(&rq);
		if (++served == QUERIES_PER_CONN) {
			MYAPP_CONN_CLOSE(conn, served);
			printf("conn %d: closed, %u served\n", conn, served);
			served = 0;
		}
		if (forever)
			nanosleep(&pause, NULL);
	}
	if (served != 0) {
		MYAPP_CONN_CLOSE(conn, served);
		printf("conn %d: closed, %u served\n", conn, served);
	}
	return 0;
}
