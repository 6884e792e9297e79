// SPDX-License-Identifier: MIT
/*
 * inproc_beat.c - the heartbeat thread of -x activation=user tracing
 * (inproc.c has the mechanism; doc/DESIGN.md §14, "Consumer gone").
 *
 * A recorder that finds its arena's heartbeat older than hb_limit (a
 * second) takes dtrace for gone: it returns at once and counts the hit
 * a drop.  The beat is written at each read (ip_drain()) and while a
 * read's hits run (ip_beat(), records.c), but a single clause that runs
 * past the second (a system() that sleeps, an output write blocked on a
 * full pipe) wrote none meanwhile, and the process's hits were drops
 * though dtrace was alive and its rings had room.  So a thread of
 * dtrace's own writes the beat every 100 ms into every arena mapped:
 * dtrace busy is dtrace reading, as DTrace's kernel buffers take hits
 * while its consumer is busy, and a hit is lost only when its ring is
 * full (a drop, said) or dtrace is gone or stopped (SIGKILL, SIGSTOP:
 * the thread dies or stops with it).
 *
 * Busy, not stuck: the thread beats only while the main thread beat
 * itself within BEAT_STALL_S (ip_beat_main(), at each read and while a
 * read's hits run).  The beat also tells an exec'd image or a
 * dlopen()ed library that waits to be armed (drti/arena.h, "Following
 * an exec") that dtrace is there, and such a waiter gives up
 * IP_EXEC_ALIVE_S (30 s) after the last beat: a main thread blocked for
 * good (a system() that never returns, a pipe no one reads) must still
 * let it go, at most BEAT_STALL_S later than before the thread.  So a
 * clause that runs up to BEAT_STALL_S loses no hit; a longer one, the
 * hits past it (drops, said), as before.
 *
 * The thread knows only the arenas (ip_beat_add() when one is mapped,
 * ip_beat_del() before it is unmapped; a list that grows, so that the
 * arenas of processes gone, still mapped here, take no room from new
 * ones) and the main thread's stamp, under its own mutex and an atomic
 * word, and never touches the rest of struct inproc, which the main
 * thread alone owns.
 * It is started with the first arena, every signal blocked (they are
 * the main thread's), and stopped by ip_beat_quit() before ip_stop()
 * zeroes the heartbeats, which must stay 0.  It calls nothing that
 * takes a lock of libc's, so a fork() of the main thread's (-c, the
 * reaper, system()) finds nothing held in the child but, at worst, this
 * file's mutex, which the child never takes.
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "../../drti/arena.h"
#include "consumer_impl.h"
#include "procfs.h"
#include "inproc.h"

#if defined(__x86_64__)

#define BEAT_MS 100
#define BEAT_STALL_S 5 /* the main thread's silence that stops the beats */

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t th;
	bool tried, running, quit;
	struct usdt_arena **a;
	size_t n, cap;
	uint64_t hz;	  /* TSC ticks per second */
	uint64_t main_at; /* the TSC of the main thread's last beat (atomic) */
} bt = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static void *beat_loop(void *arg)
{
	struct timespec at;

	(void)arg;
	pthread_mutex_lock(&bt.mu);
	while (!bt.quit) {
		uint64_t t = rdtsc_now();
		uint64_t m = __atomic_load_n(&bt.main_at, __ATOMIC_RELAXED);

		/* signed: the main thread's TSC may be another CPU's */
		bool ok = (int64_t)(t - m) < (int64_t)(BEAT_STALL_S * bt.hz);

		for (size_t i = 0; ok && i < bt.n; i++)
			__atomic_store_n(&bt.a[i]->hb, t, __ATOMIC_RELEASE);
		(void)clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_nsec += BEAT_MS * 1000000L;
		if (at.tv_nsec >= 1000000000L) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000L;
		}
		/* 0: woken (ip_beat_quit(), or spuriously): wait on */
		while (!bt.quit &&
		       pthread_cond_timedwait(&bt.cv, &bt.mu, &at) == 0)
			;
	}
	pthread_mutex_unlock(&bt.mu);
	return NULL;
}

/* The condition variable waits on CLOCK_MONOTONIC, as beat_loop() reads. */
static bool beat_start(void)
{
	pthread_condattr_t ca;
	sigset_t all, old;
	int err;

	if (pthread_condattr_init(&ca) ||
	    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) ||
	    pthread_cond_init(&bt.cv, &ca))
		return false;
	(void)pthread_condattr_destroy(&ca);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&bt.th, NULL, beat_loop, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err == 0;
}

/*
 * Arena a (an ip_proc's map) is beaten from now on, the thread started
 * with the first (tried once; hz, the TSC's ticks per second).  Where it
 * could not start, or the list could not grow, a is beaten by the reads
 * alone (ip_drain(), ip_beat()).
 */
void ip_beat_add(struct usdt_arena *a, uint64_t hz)
{
	pthread_mutex_lock(&bt.mu);
	if (!bt.tried) {
		bt.tried = true;
		bt.hz = hz;
		ip_beat_main(rdtsc_now());
		bt.running = beat_start();
	}
	if (!bt.quit && bt.running && bt.n == bt.cap) {
		size_t cap = bt.cap ? 2 * bt.cap : 16;
		struct usdt_arena **v = realloc(bt.a, cap * sizeof(*v));

		if (v) {
			bt.a = v;
			bt.cap = cap;
		}
	}
	if (!bt.quit && bt.running && bt.n < bt.cap)
		bt.a[bt.n++] = a;
	pthread_mutex_unlock(&bt.mu);
}

/* The main thread beat at TSC t (ip_drain(), ip_beat()): it is not stuck. */
void ip_beat_main(uint64_t t)
{
	__atomic_store_n(&bt.main_at, t, __ATOMIC_RELAXED);
}

/* ... no more: called before a is unmapped. */
void ip_beat_del(struct usdt_arena *a)
{
	pthread_mutex_lock(&bt.mu);
	for (size_t i = 0; i < bt.n; i++)
		if (bt.a[i] == a) {
			bt.a[i] = bt.a[--bt.n];
			break;
		}
	pthread_mutex_unlock(&bt.mu);
}

/*
 * No arena is beaten again (tracing has ended, ip_stop()): the thread
 * is told and joined, so that no beat it was writing lands after the
 * zeroes ip_stop() writes.
 */
void ip_beat_quit(void)
{
	bool joined;

	pthread_mutex_lock(&bt.mu);
	bt.quit = true;
	bt.n = 0;
	joined = bt.running;
	bt.running = false;
	pthread_cond_signal(&bt.cv);
	pthread_mutex_unlock(&bt.mu);
	if (joined)
		pthread_join(bt.th, NULL);
	free(bt.a);
	bt.a = NULL;
	bt.cap = 0;
}

#else
/* ISO C wants a translation unit to declare something */
typedef int inproc_beat_unused;
#endif
