// SPDX-License-Identifier: MIT
/*
 * prog.c - the traced program of tests/run-G-consumers.sh.
 *
 *	prog run N	fire every probe N times, printing one line per
 *			round: the same output whether traced or not
 *	prog await N	the same, once every probe is traced (each
 *			semaphore set; at most 20 s) and 0.2 s more: a
 *			consumer that cannot start the program for us
 *			attaches first
 *	prog loop FILE	fire query__start every 10 ms and print its
 *			semaphore and _ENABLED() each time, until FILE
 *			exists (at most 60000 rounds, about 10 minutes: longer
 *			than a slow bpftrace detach under load)
 *
 * Every probe argument is a constant or the round number, so a consumer
 * sees known values; the test spells them out again.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "myapp.h"

void fire_tail6(int a, short b, signed char c, unsigned char d,
		const char *e, unsigned long f);
void fire_tailwide(long a, unsigned long b, int c, unsigned short d,
		   const char *e, long long f, signed char g, unsigned char h,
		   short i, unsigned long j, unsigned int k, const char *l);
void fire_noplt(void);
void fire_gotcall(void);
int libx_fire(int i);
int libx_traced(void);

static int run(int n)
{
	for (int i = 0; i < n; i++) {
		MYAPP_QUERY_START("select", i);
		MYAPP_MANY(-1, (short)-3, (signed char)-10, (unsigned char)200,
			   "hello", 0x1122334455667788UL, 0xffffffffffffffffUL,
			   -5000000000LL, -7, (short)-300, (unsigned char)250,
			   "eleven");
		MYAPP_WIDE(-2L, 0xffffffffffffffffUL, INT_MIN,
			   (unsigned short)65535, "world", -9000000000LL,
			   (signed char)-128, (unsigned char)255,
			   (short)-32768, 0x8000000000000001UL, 4000000000U,
			   "twelve");
		fire_tail6(-100, (short)-30000, (signed char)-99,
			   (unsigned char)201, "tail", 0x0102030405060708UL);
		fire_tailwide(-3L, 0xfffffffffffffffeUL, 123456789,
			      (unsigned short)40000, "tail wide",
			      -7000000000LL, (signed char)-5,
			      (unsigned char)77, (short)-1234,
			      0x7fffffffffffffffUL, 3000000000U,
			      "tail twelve");
		fire_noplt();
		fire_gotcall();
		MYAPP_BYTES(1, 2, 3, 4, (unsigned char)200, (signed char)-10);
		printf("round %d: libx says %d\n", i, libx_fire(i));
	}
	return 0;
}

static int all_traced(void)
{
	return MYAPP_QUERY_START_ENABLED() && MYAPP_MANY_ENABLED() &&
	       MYAPP_WIDE_ENABLED() && MYAPP_TAIL6_ENABLED() &&
	       MYAPP_TAILWIDE_ENABLED() && MYAPP_NOPLT_ENABLED() &&
	       MYAPP_GOTCALL_ENABLED() && MYAPP_BYTES_ENABLED() &&
	       libx_traced();
}

static int await(int n)
{
	const struct timespec ten_ms = { 0, 10 * 1000 * 1000 };

	for (int i = 0; !all_traced(); i++) {
		if (i == 2000) {
			fprintf(stderr, "prog: the probes were never all traced\n");
			return 1;
		}
		nanosleep(&ten_ms, NULL);
	}
	/*
	 * The kernel sets a semaphore when the uprobe is created, a few
	 * system calls before the consumer attaches its program to it:
	 * give the last one time to finish.
	 */
	for (int i = 0; i < 20; i++)
		nanosleep(&ten_ms, NULL);
	return run(n);
}

static int loop(const char *stop)
{
	const struct timespec ten_ms = { 0, 10 * 1000 * 1000 };

	for (int i = 0; i < 60000; i++) {
		MYAPP_QUERY_START("loop", i);
		printf("loop %d sema %u enabled %d\n", i,
		       (unsigned)__usdt_sema_myapp___query__start,
		       MYAPP_QUERY_START_ENABLED() ? 1 : 0);
		fflush(stdout);
		if (access(stop, F_OK) == 0)
			return 0;
		nanosleep(&ten_ms, NULL);
	}
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "run") == 0)
		return run(atoi(argv[2]));
	if (argc == 3 && strcmp(argv[1], "await") == 0)
		return await(atoi(argv[2]));
	if (argc == 3 && strcmp(argv[1], "loop") == 0)
		return loop(argv[2]);
	fprintf(stderr, "usage: prog run|await N | prog loop STOPFILE\n");
	return 2;
}
