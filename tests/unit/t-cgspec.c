// SPDX-License-Identifier: MIT
/*
 * t-cgspec.c - TAP tests for dtrace-G/consumer/cgen_spec.c: the three
 * speculation steps on the kernel's words (speculation(), speculate(),
 * commit()/discard()), run by the kernel itself.
 *
 * Each emitter is wrapped in a harness as a socket filter: the prologue
 * sets S_FLAGS to 0, points S_OBUF at an out area in the value of a
 * harness array map (struct hv's area) and loads the ID from that value
 * (so the verifier sees an ID it cannot know, as a plan's popped one);
 * after the step it stores r1 (speculation()'s ID) and S_FLAGS back
 * there, and returns 0; the fault jump returns 1.  The words are a
 * second array map, one entry of nspec u64, as bpf_cg.c's cgspec will
 * be.  The programs are loaded with the verifier's log, printed on a
 * refusal, and run by BPF_PROG_TEST_RUN; the test reads back the words,
 * the tag, the ran word and the flags, and compares them with
 * kspec_model.h, the words in C (which t-dlang's random runs step too).
 *
 * The checks: the step-by-step run the as-built plan made by hand
 * (take, three speculate()s, commit, a stale speculate(), take,
 * speculate(), discard); exhaustion; speculate(0); IDs past nspec,
 * negative and past 32 bits (the fault, nothing written); a commit of an
 * inactive buffer; 2,000 random steps over nspec 3 against the model;
 * nspec 1, 8 and 64 verified (64 taken to exhaustion); and four threads
 * each running speculate(1) 100,000 times (pinned to CPUs in turn)
 * while the main thread takes and commits ID 1: the count ends exact
 * (the closes' counts never decreasing is asked of that run too; alone
 * it could not fail: one thread takes and closes, and counts only grow);
 * and words whose counts are past 32 bits stepped, closed and taken.
 * Where bpf() is refused (not root, no BPF) the whole test is skipped
 * ("1..0 # SKIP").
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "consumer/cgen_impl.h"
#include "kspec_model.h"
#include "tap.h"

/* the harness map's value */
#define TAGOFF 16 /* the tag's offset in the out area */
#define BIT 5	  /* the clause's ran bit */
struct hv {
	int64_t id;	/* in */
	uint64_t r1;	/* out: r1 after the step */
	uint64_t flags; /* out: S_FLAGS */
	uint64_t pad;
	struct {
		struct ubpf_kout k;
		struct ubpf_kspec t;
		uint64_t after; /* nothing writes here */
	} area;
};

enum { K_TAKE, K_STEP, K_CLOSE };

static long sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(SYS_bpf, cmd, a, sizeof(*a));
}

static int map_new(unsigned vsize)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = vsize;
	a.max_entries = 1;
	return (int)sys_bpf(BPF_MAP_CREATE, &a);
}

static int map_rw(int fd, void *v, bool put)
{
	union bpf_attr a;
	uint32_t k = 0;

	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.key = (uint64_t)(uintptr_t)&k;
	a.value = (uint64_t)(uintptr_t)v;
	return (int)sys_bpf(put ? BPF_MAP_UPDATE_ELEM : BPF_MAP_LOOKUP_ELEM,
			    &a);
}

/* the harness around emitter kind; its fd, or -1 with the log said */
static int prog_new(int kind, int words, unsigned nspec, int hmap)
{
	static char log[1 << 20];
	struct em e;
	size_t jf = SIZE_MAX;
	union bpf_attr a;
	int fd;

	memset(&e, 0, sizeof(e));
	st(&e, BPF_DW, 10, S_FLAGS, 0);
	ldmapv(&e, 2, hmap, offsetof(struct hv, area));
	stx(&e, BPF_DW, 10, S_OBUF, 2);
	ldmapv(&e, 1, hmap, 0);
	ldx(&e, BPF_DW, 1, 1, offsetof(struct hv, id));
	if (kind == K_TAKE)
		cgen_spec_take(&e, words, nspec, TAGOFF, BIT);
	else if (kind == K_STEP)
		cgen_spec_step(&e, words, nspec, TAGOFF, BIT, &jf);
	else
		cgen_spec_close(&e, words, nspec, TAGOFF, BIT, &jf);
	ldmapv(&e, 2, hmap, 0);
	stx(&e, BPF_DW, 2, offsetof(struct hv, r1), 1);
	ldx(&e, BPF_DW, 1, 10, S_FLAGS);
	stx(&e, BPF_DW, 2, offsetof(struct hv, flags), 1);
	alu_i(&e, BPF_MOV, 0, 0);
	put(&e, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	if (jf != SIZE_MAX) {
		fix(&e, jf);
		alu_i(&e, BPF_MOV, 0, 1);
		put(&e, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	} else if (kind != K_TAKE) {
		e.bad = true;
	}
	if (e.bad) {
		diag("emitter %d, nspec %u: refused by the emitter", kind,
		     nspec);
		free(e.v);
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = (uint64_t)(uintptr_t)e.v;
	a.insn_cnt = (uint32_t)e.n;
	a.license = (uint64_t)(uintptr_t) "Dual MIT/GPL";
	a.log_buf = (uint64_t)(uintptr_t)log;
	a.log_size = sizeof(log);
	a.log_level = 1;
	log[0] = 0;
	fd = (int)sys_bpf(BPF_PROG_LOAD, &a);
	if (fd < 0) {
		size_t n = strlen(log);

		diag("emitter %d, nspec %u: the verifier refused it (%s); "
		     "its log's end:",
		     kind, nspec, strerror(errno));
		for (char *l = log + (n > 4000 ? n - 4000 : 0), *nl; *l;
		     l = nl ? nl + 1 : l + strlen(l)) {
			nl = strchr(l, '\n');
			printf("#   %.*s\n",
			       (int)(nl ? (size_t)(nl - l) : strlen(l)), l);
		}
	}
	free(e.v);
	return fd;
}

/* BPF_PROG_TEST_RUN of prog, repeat times: its r0, or -1 */
static long prog_run(int prog, unsigned repeat)
{
	unsigned char pkt[64] = { 0 }, out[64];
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (uint32_t)prog;
	a.test.data_in = (uint64_t)(uintptr_t)pkt;
	a.test.data_size_in = sizeof(pkt);
	a.test.data_out = (uint64_t)(uintptr_t)out; /* for valgrind alone */
	a.test.data_size_out = sizeof(out);
	a.test.repeat = repeat;
	if (sys_bpf(BPF_PROG_TEST_RUN, &a))
		return -1;
	return a.test.retval;
}

/* one kernel of nspec words: the maps and the three programs */
struct kern {
	unsigned nspec;
	int words, hmap, prog[3];
};

static bool kern_new(struct kern *k, unsigned nspec)
{
	k->nspec = nspec;
	k->words = map_new(8 * nspec);
	k->hmap = map_new(sizeof(struct hv));
	if (k->words < 0 || k->hmap < 0)
		return false;
	for (int i = 0; i < 3; i++)
		k->prog[i] = prog_new(i, k->words, nspec, k->hmap);
	return k->prog[0] >= 0 && k->prog[1] >= 0 && k->prog[2] >= 0;
}

static void kern_free(struct kern *k)
{
	for (int i = 0; i < 3; i++)
		if (k->prog[i] >= 0)
			close(k->prog[i]);
	close(k->words);
	close(k->hmap);
}

/* run kind with id on a zeroed area: r0 (-1: the run failed) and the
 * harness's value read back */
static long step(struct kern *k, int kind, int64_t id, struct hv *h)
{
	long r;

	memset(h, 0, sizeof(*h));
	h->id = id;
	if (map_rw(k->hmap, h, true))
		return -1;
	r = prog_run(k->prog[kind], 1);
	if (map_rw(k->hmap, h, false))
		return -1;
	return r;
}

static void words(struct kern *k, uint64_t *w)
{
	memset(w, 0xff, 8 * k->nspec);
	map_rw(k->words, w, false);
}

/* a step's outcome in one line, for comparing and printing */
static void show(char *b, size_t n, long r, const struct hv *h)
{
	snprintf(b, n,
		 "r0 %ld r1 %llu tag {%u, %u, %llu} ran %#llx flags %#llx", r,
		 (unsigned long long)h->r1, h->area.t.id, h->area.t.act,
		 (unsigned long long)h->area.t.n,
		 (unsigned long long)h->area.k.ran,
		 (unsigned long long)h->flags);
}

/* what a step that ran should read back: the model's tag, r1 */
static void want(char *b, size_t n, int kind, const struct ksm_tag *t,
		 uint64_t r1)
{
	struct hv h;
	uint64_t ran = (1ull << BIT) | UBPF_KOUT_SPEC;

	if (kind == K_CLOSE && (t->act & UBPF_KSPEC_ACTIVE))
		ran |= UBPF_KOUT_CLOSE;
	memset(&h, 0, sizeof(h));
	h.r1 = r1;
	h.area.t.id = t->id;
	h.area.t.act = t->act;
	h.area.t.n = t->n;
	h.area.k.ran = ran;
	h.flags = S_FLAGS_REC;
	show(b, n, 0, &h);
}

/* run kind with id and check it against the model stepped alike (its
 * words mw); r1 as the program left it is checked only for a take */
static bool check_step(struct kern *k, uint64_t *mw, int kind, int64_t id,
		       const char *what)
{
	char got[256], exp[256];
	struct ksm_tag t;
	struct hv h;
	uint64_t w[UBPF_KSPECS];
	long r = step(k, kind, id, &h);
	int f;

	if (kind == K_TAKE) {
		ksm_take(mw, k->nspec, &t);
		f = 0;
	} else {
		f = ksm_step(mw, k->nspec, id, kind == K_CLOSE, &t);
		h.r1 = 0; /* not the step's output */
	}
	show(got, sizeof(got), r, &h);
	if (f == KSM_FAULT) {
		struct hv z;

		memset(&z, 0, sizeof(z));
		show(exp, sizeof(exp), 1, &z);
	} else {
		want(exp, sizeof(exp), kind, &t, kind == K_TAKE ? t.id : 0);
	}
	words(k, w);
	if (strcmp(got, exp) || h.area.after || memcmp(w, mw, 8 * k->nspec)) {
		if (what) {
			diag("%s: got  %s", what, got);
			diag("%s: want %s", what, exp);
			for (unsigned i = 0; i < k->nspec; i++)
				if (w[i] != mw[i])
					diag("word %u: got %#llx, want %#llx",
					     i, (unsigned long long)w[i],
					     (unsigned long long)mw[i]);
		}
		return false;
	}
	return true;
}

/* a kernel of nspec words, its programs loaded (a failed check if not) */
static bool ok_kern(struct kern *k, unsigned nspec)
{
	if (kern_new(k, nspec))
		return true;
	ok(0, "nspec %u: the maps made and the three programs loaded", nspec);
	kern_free(k);
	return false;
}

/* the run the as-built plan made by hand, and the fixed cases */
static void test_steps(void)
{
	struct kern k;
	uint64_t mw[2] = { 0 }, w[2];
	struct hv h;
	bool ok = true;
	static const struct {
		int kind;
		int64_t id;
		uint32_t tid, act;
		uint64_t n;
	} run[] = {
		{ K_TAKE, 0, 1, 2, 0 },	 /* c0 0 */
		{ K_STEP, 1, 1, 3, 0 },	 /* sequences 0-2 */
		{ K_STEP, 1, 1, 3, 1 },	 /* ... */
		{ K_STEP, 1, 1, 3, 2 },	 /* ... */
		{ K_CLOSE, 1, 1, 3, 3 }, /* a commit at 3, found active */
		{ K_STEP, 1, 1, 2, 3 },	 /* the stale one's 3, inactive */
		{ K_TAKE, 0, 1, 2, 4 },	 /* c0 4 */
		{ K_STEP, 1, 1, 3, 4 },	 /* sequence 4 */
		{ K_CLOSE, 1, 1, 3, 5 }, /* a discard at 5, found active */
	};

	if (!ok_kern(&k, 2))
		return;
	for (size_t i = 0; i < sizeof(run) / sizeof(run[0]); i++) {
		long r = step(&k, run[i].kind, run[i].id, &h);

		if (r != 0 || h.area.t.id != run[i].tid ||
		    h.area.t.act != run[i].act || h.area.t.n != run[i].n) {
			diag("step %zu: r0 %ld tag {%u, %u, %llu}, want "
			     "{%u, %u, %llu}",
			     i, r, h.area.t.id, h.area.t.act,
			     (unsigned long long)h.area.t.n, run[i].tid,
			     run[i].act, (unsigned long long)run[i].n);
			ok = false;
		}
	}
	words(&k, w);
	ok(ok && w[0] == 10 && w[1] == 0,
	   "take, 3 speculate(), commit, stale speculate(), take, "
	   "speculate(), discard: the as-built plan's tags and words");
	if (w[0] != 10 || w[1] != 0)
		diag("words %#llx %#llx, want 0xa 0", (unsigned long long)w[0],
		     (unsigned long long)w[1]);
	kern_free(&k);

	/* the fixed cases, each against the model */
	if (!ok_kern(&k, 2))
		return;
	memset(mw, 0, sizeof(mw));
	ok(check_step(&k, mw, K_TAKE, 0, "take 1") &&
		   check_step(&k, mw, K_TAKE, 0, "take 2") &&
		   check_step(&k, mw, K_TAKE, 0, "take 3"),
	   "nspec 2 exhausted: the third take {0, 2, 0}, no word changed");
	ok(check_step(&k, mw, K_STEP, 0, "speculate(0)") &&
		   check_step(&k, mw, K_CLOSE, 0, "commit(0)"),
	   "speculate(0), commit(0): {0, 2, 0}, no word changed");
	ok(check_step(&k, mw, K_STEP, 3, "speculate(3)") &&
		   check_step(&k, mw, K_STEP, -1, "speculate(-1)") &&
		   check_step(&k, mw, K_STEP, (1ll << 32) + 1,
			      "speculate(2^32 + 1)") &&
		   check_step(&k, mw, K_CLOSE, 3, "commit(3)") &&
		   check_step(&k, mw, K_CLOSE, -1, "commit(-1)") &&
		   check_step(&k, mw, K_CLOSE, INT64_MIN + 1,
			      "commit(-2^63 + 1)"),
	   "IDs nspec + 1, -1, past 32 bits: the fault, nothing written");
	ok(check_step(&k, mw, K_STEP, 2, "speculate(2)") &&
		   check_step(&k, mw, K_CLOSE, 2, "commit(2)") &&
		   check_step(&k, mw, K_CLOSE, 2, "commit(2) again"),
	   "a commit of an inactive buffer: {ID, 2, n}, no close bit");

	/* counts past 32 bits: a 32-bit mask, shift or add would lose
	 * bits 32-63 (the count after 2^31 speculate()s of one ID) */
	mw[0] = 0x300000001ull; /* active, count 0x180000000 */
	mw[1] = 0x500000000ull; /* inactive, count 0x280000000 */
	memcpy(w, mw, sizeof(w));
	ok(map_rw(k.words, w, true) == 0 &&
		   check_step(&k, mw, K_STEP, 1,
			      "speculate(1), count > 2^32") &&
		   check_step(&k, mw, K_CLOSE, 1, "commit(1), count > 2^32") &&
		   check_step(&k, mw, K_TAKE, 0, "take, count > 2^32") &&
		   check_step(&k, mw, K_STEP, 1, "speculate(1) again") &&
		   check_step(&k, mw, K_CLOSE, 2, "commit(2), inactive"),
	   "counts past 32 bits: steps, closes and takes keep bits 32-63");
	kern_free(&k);
}

/* 2,000 random steps over nspec 3: IDs -1 to 4, against the model */
static void test_random(void)
{
	struct kern k;
	uint64_t mw[3] = { 0 };
	unsigned bad = 0, n[3] = { 0 };
	char what[64];

	if (!ok_kern(&k, 3))
		return;
	srand(26);
	for (unsigned i = 0; i < 2000; i++) {
		unsigned r = (unsigned)rand() % 10;
		int kind = r < 2 ? K_TAKE : r < 8 ? K_STEP : K_CLOSE;
		int64_t id = (int64_t)(rand() % 6) - 1;

		n[kind]++;
		snprintf(what, sizeof(what), "step %u (%d, %lld)", i, kind,
			 (long long)id);
		if (!check_step(&k, mw, kind, id, bad ? NULL : what))
			bad++;
	}
	ok(!bad,
	   "2,000 random steps over nspec 3 (%u takes, %u speculate(), "
	   "%u closes) as the model steps them",
	   n[0], n[1], n[2]);
	if (bad)
		diag("%u steps differed", bad);
	kern_free(&k);
}

/* nspec 1, 8 and 64: the verifier takes all three; 64 taken to
 * exhaustion */
static void test_sizes(void)
{
	static const unsigned ns[] = { 1, 8, UBPF_KSPECS };

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		struct kern k;
		uint64_t mw[UBPF_KSPECS] = { 0 };
		bool good = true;

		if (!kern_new(&k, ns[i])) {
			ok(0, "nspec %u: the three programs verified", ns[i]);
			kern_free(&k);
			continue;
		}
		for (unsigned j = 0; j <= ns[i] && good; j++)
			good = check_step(&k, mw, K_TAKE, 0, "take");
		good = good && check_step(&k, mw, K_STEP, ns[i], "speculate") &&
		       check_step(&k, mw, K_CLOSE, ns[i], "commit") &&
		       check_step(&k, mw, K_STEP, ns[i] + 1, "past nspec");
		ok(good,
		   "nspec %u: the three programs verified; %u takes, "
		   "then none; speculate(), commit() of the last, past it the "
		   "fault",
		   ns[i], ns[i]);
		kern_free(&k);
	}
}

/* four threads' speculate(1), the main thread's take and commit */
#define NTHR 4
#define REPEAT 10000
#define ROUNDS 10
static struct kern kx;
static atomic_int running, failed;

static void *speculator(void *arg)
{
	unsigned i = (unsigned)(uintptr_t)arg;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)(i % (unsigned)(ncpu > 0 ? ncpu : 1)), &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (unsigned r = 0; r < ROUNDS; r++)
		if (prog_run(kx.prog[K_STEP], REPEAT) != 0)
			atomic_fetch_add(&failed, 1);
	atomic_fetch_sub(&running, 1);
	return NULL;
}

static void test_threads(void)
{
	pthread_t t[NTHR];
	int hmap2, take, close2;
	struct hv h;
	uint64_t last = 0, w, closes = 0;
	bool order = true, each = true;

	if (!ok_kern(&kx, 1))
		return;
	/* the main thread's programs write their tags to a map of their
	 * own; the threads' harness value (ID 1) is theirs */
	hmap2 = map_new(sizeof(struct hv));
	take = prog_new(K_TAKE, kx.words, 1, hmap2);
	close2 = prog_new(K_CLOSE, kx.words, 1, hmap2);
	memset(&h, 0, sizeof(h));
	h.id = 1;
	if (hmap2 < 0 || take < 0 || close2 < 0 || map_rw(hmap2, &h, true) ||
	    map_rw(kx.hmap, &h, true)) {
		ok(0, "the threads' programs loaded");
		return;
	}
	atomic_store(&running, NTHR);
	for (unsigned i = 0; i < NTHR; i++)
		if (pthread_create(&t[i], NULL, speculator,
				   (void *)(uintptr_t)i)) {
			atomic_fetch_sub(&running, 1);
			each = false;
		}
	/* take ID 1 and commit it, over and over while they run: the
	 * generation opens at or after the last close's count and closes
	 * at or after its open */
	while (atomic_load(&running) > 0 || !closes) {
		uint64_t c0;

		if (prog_run(take, 1) != 0 || map_rw(hmap2, &h, false) ||
		    h.area.t.id != 1 || h.area.t.act != UBPF_KSPEC_REACHED) {
			each = false;
			break;
		}
		c0 = h.area.t.n;
		if (prog_run(close2, 1) != 0 || map_rw(hmap2, &h, false) ||
		    h.area.t.act != (UBPF_KSPEC_REACHED | UBPF_KSPEC_ACTIVE)) {
			each = false;
			break;
		}
		if (c0 < last || h.area.t.n < c0)
			order = false;
		last = h.area.t.n;
		closes++;
	}
	for (unsigned i = 0; i < NTHR; i++)
		pthread_join(t[i], NULL);
	memset(&w, 0, sizeof(w));
	map_rw(kx.words, &w, false);
	diag("%llu takes and commits beside the threads, the last at %llu",
	     (unsigned long long)closes, (unsigned long long)last);
	ok(each && order && !atomic_load(&failed) &&
		   w == 2ull * NTHR * REPEAT * ROUNDS,
	   "4 threads x 100,000 speculate(1) across CPUs, takes and commits "
	   "beside them: the count exactly 400,000, ID 1 inactive");
	if (w != 2ull * NTHR * REPEAT * ROUNDS)
		diag("word %#llx, want %#llx", (unsigned long long)w,
		     2ull * NTHR * REPEAT * ROUNDS);
	close(take);
	close(close2);
	close(hmap2);
	kern_free(&kx);
}

int main(void)
{
	int fd = map_new(8);

	if (fd < 0) {
		printf("1..0 # SKIP bpf() refused: %s\n", strerror(errno));
		return 0;
	}
	close(fd);
	test_steps();
	test_random();
	test_sizes();
	test_threads();
	return tap_done();
}
