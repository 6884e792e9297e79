// SPDX-License-Identifier: MIT
/*
 * kprov_profile.c - the profile provider (kprov.c has the common part):
 * profile:::profile-N, which fires on every CPU at a rate, and
 * profile:::tick-N, which fires once per interval.
 *
 * Names.  N is an integer with a unit: ns, us, ms, s, m, h, d (and
 * nsec, usec, msec, sec, min, hour, day) for an interval, hz (or none)
 * for a rate; profile-997, profile-1ms, tick-1s, tick-10hz.  As in
 * DTrace, the interval is at least 200 us (5000 Hz), -l lists
 * profile-97, -199, -499, -997, -1999, -4001, -4999 and tick-1, -10,
 * -100, -500, -1000, -5000, and any other rate is a probe as soon as a
 * description spells it out; a description that spells out a rate that
 * is none gets the reason for an answer, not "matched nothing".
 *
 * profile-N.  A software cpu-clock perf event per CPU (pid -1), its
 * period the interval in ns, each running the program kprov_profile
 * (bpf/kprov.bpf.h; bpf_cookie: the probe) in the interrupt: arg0 is
 * the kernel's PC and arg1 0 when the CPU was in the kernel (idle
 * included: pid 0), arg1 the user's PC and arg0 0 when it was in user
 * mode; pid, tid and execname are those of the interrupted thread.
 * cpu-clock runs on an hrtimer, so it fires on a CPU with no hardware
 * counters too (this project's VMs have none).
 *
 * tick-N.  A timerfd in the consumer's loop, started when BEGIN has
 * fired, at absolute CLOCK_MONOTONIC times (kprov_start(): firing k at
 * t0 + k * period, the clock bpf_ktime_get_ns() reads); each firing
 * becomes a record with the time it was due (kprov_drain()), so it runs
 * in time order with the kernel's records, and exit() in it stops the
 * run there: the firings after it are not run, nor the hits stamped at
 * or past its due time (records.c).  Where its clauses alone may call
 * exit(), printa(), clear() or trunc(), the kernel's clauses stop at
 * the next such firing's due time (the horizon, kplan_exit.c's "Why exit()"),
 * which dtrace moves on after each that did not exit; at a firing whose
 * clause may read or reset aggregations, what the kernel counted before
 * it is folded into dtrace's first (kplan_exit.c's "printa() at tick-N").
 * It fires in dtrace, as BEGIN does (kprov.c).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/timerfd.h>
#include <unistd.h>

#ifdef HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#endif

#include "bpf/kprov_bpf.h"
#include "bpf/uregs.h"
#include "kprov.h"

#define KP_MIN_PERIOD 200000u /* ns: 5000 Hz, DTrace's limit */

static const unsigned profile_hz[] = {97, 199, 499, 997, 1999, 4001, 4999};
static const unsigned tick_hz[] = {1, 10, 100, 500, 1000, 5000};
static const char *const pc_types[] = {"uint64_t", "uint64_t"};

/*
 * The interval "N[unit]" names, in ns; 0 with *why set when it names
 * none.
 */
static uint64_t rate_parse(const char *s, const char **why)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = {
		{"ns", 1},
		{"nsec", 1},
		{"us", 1000},
		{"usec", 1000},
		{"ms", 1000000},
		{"msec", 1000000},
		{"s", 1000000000},
		{"sec", 1000000000},
		{"m", 60ull * 1000000000},
		{"min", 60ull * 1000000000},
		{"h", 3600ull * 1000000000},
		{"hour", 3600ull * 1000000000},
		{"d", 86400ull * 1000000000},
		{"day", 86400ull * 1000000000},
	};
	uint64_t v = 0, per = 0;
	const char *u = s;

	while (*u >= '0' && *u <= '9') {
		if (v > UINT64_MAX / 10 - 1) {
			*why = "the rate is too large";
			return 0;
		}
		v = v * 10 + (uint64_t)(*u++ - '0');
	}
	if (u == s) {
		*why = "not a rate: N followed by ns, us, ms, s, m, h, d "
		       "or hz (none: hz)";
		return 0;
	}
	if (!v) {
		*why = "a rate of 0";
		return 0;
	}
	if (!*u || !strcasecmp(u, "hz")) {
		per = 1000000000u / v;
	} else {
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcasecmp(u, units[i].unit)) {
				per = v > UINT64_MAX / units[i].ns
					      ? UINT64_MAX
					      : v * units[i].ns;
				break;
			}
		if (!per) {
			*why = "not a rate: N followed by ns, us, ms, s, m, h, "
			       "d or hz (none: hz)";
			return 0;
		}
	}
	if (per < KP_MIN_PERIOD) {
		*why = "the interval is shorter than 200us (more than "
		       "5000hz)";
		return 0;
	}
	return per;
}

/* The kind and interval a probe name says, or 0 (why said) or -1 (none). */
static int name_parse(const char *name, enum kp_kind *kind, uint64_t *per,
		      const char **why)
{
	const char *r;

	if (!strncmp(name, "profile-", 8)) {
		*kind = KP_PROFILE;
		r = name + 8;
	} else if (!strncmp(name, "tick-", 5)) {
		*kind = KP_TICK;
		r = name + 5;
	} else {
		return -1;
	}
	*per = rate_parse(r, why);
	return *per ? 1 : 0;
}

static void prof_each(char *const *names, size_t nnames, kp_each_fn fn,
		      void *arg)
{
	char nm[32];
	struct kp_name n = {.d = {"profile", "", "", nm, 2, pc_types},
			    .prov = &prov_profile};

	n.kind = KP_PROFILE;
	for (size_t i = 0; i < sizeof(profile_hz) / sizeof(profile_hz[0]);
	     i++) {
		snprintf(nm, sizeof(nm), "profile-%u", profile_hz[i]);
		n.period = 1000000000u / profile_hz[i];
		fn(&n, arg);
	}
	n.kind = KP_TICK;
	for (size_t i = 0; i < sizeof(tick_hz) / sizeof(tick_hz[0]); i++) {
		snprintf(nm, sizeof(nm), "tick-%u", tick_hz[i]);
		n.period = 1000000000u / tick_hz[i];
		fn(&n, arg);
	}
	/* the rates the descriptions spell out, unless listed already */
	for (size_t i = 0; i < nnames; i++) {
		struct kp_name m = n;
		const char *why;
		bool listed = false;

		if (name_parse(names[i], &m.kind, &m.period, &why) != 1)
			continue;
		for (size_t k = 0; k < sizeof(profile_hz) / sizeof(profile_hz[0]);
		     k++) {
			snprintf(nm, sizeof(nm), "profile-%u", profile_hz[k]);
			listed |= !strcmp(nm, names[i]);
		}
		for (size_t k = 0; k < sizeof(tick_hz) / sizeof(tick_hz[0]);
		     k++) {
			snprintf(nm, sizeof(nm), "tick-%u", tick_hz[k]);
			listed |= !strcmp(nm, names[i]);
		}
		if (listed)
			continue;
		m.d.name = names[i];
		fn(&m, arg);
	}
}

static const char *prof_why(const struct dt_desc *d, char *buf, size_t len)
{
	enum kp_kind kind;
	uint64_t per;
	const char *why = NULL;

	if (strpbrk(d->name, "*?[\\") ||
	    !probe_matches(d, "profile", "", "", d->name) ||
	    name_parse(d->name, &kind, &per, &why) != 0)
		return NULL;
	snprintf(buf, len, "profile:::%s: %s", d->name, why);
	return buf;
}

#ifdef HAVE_BPF
/* profile-N: a cpu-clock event on each CPU running kprov_profile. */
static int profile_arm(struct consumer *c, struct kprov *kp,
		       const struct kprobe *p, struct bpf_object *obj)
{
	int ncpus = libbpf_num_possible_cpus(), armed = 0;

	if ((p->cg_fd < 0 &&
	     !bpf_object__find_program_by_name(obj, "kprov_profile")) ||
	    ncpus <= 0) {
		say(c, "cannot enable profile:::%s: no program", p->n.d.name);
		return -1;
	}
	for (int cpu = 0; cpu < ncpus; cpu++) {
		struct perf_event_attr a = {0};
		int fd;

		a.type = PERF_TYPE_SOFTWARE;
		a.size = sizeof(a);
		a.config = PERF_COUNT_SW_CPU_CLOCK;
		a.sample_period = p->n.period;
		a.disabled = 1;
		fd = kp_perf_open(&a, -1, cpu);
		if (fd < 0 && (errno == ENODEV || errno == ENXIO))
			continue; /* an offline CPU */
		if (fd < 0) {
			say(c, "cannot enable profile:::%s on CPU %d: %s",
			    p->n.d.name, cpu, strerror(errno));
			return -1;
		}
		if (kp_attach_perf(kp, p, obj, "kprov_profile", fd,
				   kp_cookie(c, p)) < 0) {
			say(c, "cannot attach profile:::%s on CPU %d: %s",
			    p->n.d.name, cpu, strerror(errno));
			close(fd);
			return -1;
		}
		armed++;
	}
	if (!armed) {
		say(c, "cannot enable profile:::%s: no CPU is online",
		    p->n.d.name);
		return -1;
	}
	return 0;
}

/*
 * The prologue of profile-N's generated program (cgen_kprov.c): what
 * kprov_profile() reads from the perf event's registers (struct
 * bpf_perf_event_data: pt_regs first, ip at 128, cs at 136, the kernel
 * where cs & 3 is 0; arm64: user_pt_regs, pc and pstate, the kernel
 * where pstate's M[3:0] is not 0), arg0 the kernel's PC or arg1 the
 * user's, the other 0.  dtrace's own ticks fire, as there.
 */
#if defined(__aarch64__)
#define PROF_MODE_OFF UREG_A64_PSTATE_OFF
#define PROF_PC_OFF (8 * UREG_A64_IP)
#define PROF_MODE_MASK UREG_A64_MODE_MASK
#define PROF_KERNEL_JMP BPF_JNE
#else
#define PROF_MODE_OFF 136
#define PROF_PC_OFF 128
#define PROF_MODE_MASK 3
#define PROF_KERNEL_JMP BPF_JEQ
#endif
static bool prof_cg_pro(const struct consumer *c, const struct kprobe *p,
			const struct ubpf_kconf *kc, struct cgk *k)
{
	size_t j, jend;

	(void)c;
	(void)kc;
	if (p->n.kind != KP_PROFILE)
		return false;
	if (!k)
		return true;
	k->type = BPF_PROG_TYPE_PERF_EVENT;
	k->nargs = 2;
	k->ureg = CGK_UREG_PERF; /* ustack(): the sample's, in user mode */
	cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, 1, 6, PROF_MODE_OFF, 0);
	cgk_put(k, BPF_LDX | BPF_MEM | BPF_DW, 2, 6, PROF_PC_OFF, 0);
	cgk_put(k, BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 0);
	cgk_put(k, BPF_ALU64 | BPF_AND | BPF_K, 1, 0, 0, PROF_MODE_MASK);
	j = cgk_jmp(k, BPF_JMP | PROF_KERNEL_JMP | BPF_K, 1, 0);
	cgk_put(k, BPF_STX | BPF_MEM | BPF_DW, 10, 3, cgk_arg(0), 0);
	cgk_put(k, BPF_STX | BPF_MEM | BPF_DW, 10, 2, cgk_arg(1), 0);
	jend = cgk_jmp(k, BPF_JMP | BPF_JA, 0, 0);
	cgk_fix(k, j);
	cgk_put(k, BPF_STX | BPF_MEM | BPF_DW, 10, 2, cgk_arg(0), 0);
	cgk_put(k, BPF_STX | BPF_MEM | BPF_DW, 10, 3, cgk_arg(1), 0);
	cgk_fix(k, jend);
	return true;
}
#endif

static int prof_arm(struct consumer *c, struct kprov *kp)
{
	for (size_t i = 0; i < kp->n; i++) {
		struct kprobe *p = kp->probes[i];

		if (p->n.kind == KP_TICK) {
			struct kp_tick t = {p, -1, 0, 0, false, false, 0, 0};

			t.fd = timerfd_create(CLOCK_MONOTONIC,
					      TFD_NONBLOCK | TFD_CLOEXEC);
			if (t.fd < 0) {
				say(c, "cannot enable profile:::%s: %s",
				    p->n.d.name, strerror(errno));
				return -1;
			}
			PUSH(kp->ticks, kp->nticks, t);
		} else if (p->n.kind == KP_PROFILE) {
#ifdef HAVE_BPF
			struct bpf_object *obj =
				kp->cg ? NULL : bpf_be_object(c);

			if ((!obj && !kp->cg) ||
			    profile_arm(c, kp, p, obj) < 0)
				return -1;
#else
			return -1; /* kprov_arm() said so */
#endif
		}
	}
	return 0;
}

/* Its program (bpf/kprov.bpf.h), on profile-N's perf events; tick-N
 * has none: a timer in dtrace's loop */
static const struct prov_prog prof_progs[] = {
	{"kprov_profile", KP_PROFILE, -1},
};

const struct provider prov_profile = {
	.name = "profile",
	.needs = BE_CAP_KPROV,
	.each = prof_each,
	.list = kp_list,
	.why = prof_why,
	.arm = prof_arm,
#ifdef HAVE_BPF
	.cg_pro = prof_cg_pro,
#endif
	.progs = prof_progs,
	.nprogs = sizeof(prof_progs) / sizeof(prof_progs[0]),
};
