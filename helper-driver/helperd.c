// SPDX-License-Identifier: MIT
/*
 * helperd.c - dtrace-helperd: serve /dev/dtrace/helper from user space.
 *
 * Programs and libraries built with `dtrace -G` carry drti.o, whose
 * constructor hands the object's DOF to the helper device with the
 * DTRACEHIOC_ADDDOF ioctl (usdt/helper_abi.h).  This daemon is that
 * device's other end: it validates what it is handed, records it per
 * process in the registry under the state directory (usdt/registry_format.h),
 * and forgets it when the process exits, execs or unmaps the object.
 * `dtrace -l` and `dtrace -n` read the registry.
 *
 * Start-up, in this order, so that a failure leaves nothing behind and
 * readiness means "every program can register and be listed now":
 *
 *	1. options; the state directory is created, refused unless it and
 *	   every directory above it are root's alone (sdk/safedir.h: no
 *	   other user may swap a component for a symbolic link), and locked
 *	   (<statedir>/helperd.pid, flock), so two daemons never share it;
 *	2. the registry on disk is loaded: what a previous daemon recorded
 *	   for processes that still run is kept, the rest dropped;
 *	3. the process connector is joined (hd_fork.c: fork children get
 *	   their parent's registrations), then the device is mounted (FUSE)
 *	   or created (CUSE) and the datagram socket bound (hd_sock.c);
 *	   requests wait in the kernel until the loop runs;
 *	4. the scan (hd_scan.c) registers processes that carry DOF but are
 *	   not recorded -- started before any daemon ran, or while this one
 *	   started;
 *	5. readiness: the parent of a backgrounding daemon exits 0 only now
 *	   (it exits 1 if the child failed), and under systemd
 *	   (Type=notify) READY=1 goes to $NOTIFY_SOCKET.
 *
 * SIGUSR1 logs the daemon's counts (log_counts()) and goes on.
 * SIGTERM, SIGINT and SIGHUP end the loop; the socket is unlinked and
 * what is queued in it read, what was answered but not
 * checked yet is checked and recorded (hd_queue.c, at most 2 s), the
 * device is unmounted and the registry stays on disk for the next
 * daemon.  Nothing a consumer could have seen is lost when the daemon is
 * killed outright either: every checked registration was written when
 * it was checked (a consumer's SYNC has them all checked first), the
 * start-up scan finds the ones answered but not checked yet, and the
 * stale mount is detached at the next start.  The state directory's
 * `device` file names the device for readers' SYNC while it is up.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <libelf.h>

#include "dof_check.h"
#include "helperd.h"

static const char *progname = "dtrace-helperd";

static void usage(FILE *fp)
{
	fprintf(fp,
"Usage: %s [OPTION]...\n"
"Serve the DTrace helper device: record the USDT probes (DOF) that programs\n"
"built with `dtrace -G` register, so `dtrace -l` and `dtrace -n` find them.\n"
"\n"
"  -f, --foreground        stay in the foreground, log to stderr\n"
"  -d, --device=PATH       the helper device (default %s);\n"
"                          with FUSE its directory is the mount point\n"
"  -s, --state-dir=DIR     where the registry lives (default %s)\n"
"      --socket=PATH       the datagram socket programs register through\n"
"                          (default %s with the default device, else none)\n"
"      --no-socket         registrations go through the device only\n"
"      --backend=KIND      auto (CUSE if /dev/cuse exists, else FUSE),\n"
"                          cuse or fuse (default auto)\n"
"      --no-scan           do not look for probes of processes that were\n"
"                          running before the daemon started\n"
"      --check-interval=MS how often to look for exec and unmapped DOF\n"
"                          (default 1000)\n"
"      --max-dof=BYTES     largest DOF blob accepted (default %" PRIu64 ")\n"
"      --settle-ms=MS      validate a registration this long after answering\n"
"                          it, unless asked sooner (default %u)\n"
"      --check-timeout=MS  how long the DOF checker may take (default %u)\n"
"  -v, --verbose           log every registration (-vv: and more)\n"
"  -h, --help              show this help and exit\n"
"  -V, --version           show the version and exit\n"
"\n"
"Without -f the daemon detaches once the device is ready; it exits 0 only\n"
"then, and 1 if it could not start.  SIGTERM or SIGINT unmounts the device;\n"
"the registry is kept for the next start; SIGUSR1 logs the daemon's counts.\n"
"See dtrace-helperd(8).\n",
		progname, DTRACE_HELPER_DEVICE, REG_STATEDIR_DEFAULT,
		DTRACE_HELPER_SOCKET,
		DTRACE_HELPER_MAX_DOF, HD_ADD_SETTLE_MS, HD_CHECK_TIMEOUT_MS);
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

static int ep_add(struct helperd *hd, int fd, uint64_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag };

	return epoll_ctl(hd->epfd, EPOLL_CTL_ADD, fd, &ev);
}

/*
 * What main()'s phases share beside the daemon's state: the options that
 * only start-up reads, and the descriptors the loop waits on.
 */
struct hd_run {
	struct helperd *hd;
	enum hd_backend backend;
	const char *sockpath; /* --socket, NULL: the default's rule */
	bool nosock;
	sigset_t sigs;	/* the stop signals, blocked, read by sigfd */
	int sigfd, tfd; /* the stop signals; the periodic check */
	int ready_fd;	/* to the backgrounding parent, -1: none */
	struct hd_dev *dev;
};

/*
 * The stop signals (and SIGUSR1, whose default would end the daemon) are
 * blocked first thing, and only read from the signalfd the loop waits
 * on: one sent while we start stays pending
 * instead of being lost.  Their disposition is reset too, since an
 * ignored one (SIG_IGN survives exec: `nohup`, `env --ignore-signal`,
 * some service managers) that arrives before it is blocked is discarded
 * by the kernel, and a stop sent during a slow start-up scan was then
 * never seen.
 */
static void block_stop_signals(sigset_t *sigs)
{
	sigemptyset(sigs);
	sigaddset(sigs, SIGTERM);
	sigaddset(sigs, SIGINT);
	sigaddset(sigs, SIGHUP);
	sigaddset(sigs, SIGUSR1);
	sigprocmask(SIG_BLOCK, sigs, NULL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGUSR1, SIG_DFL);
}

/*
 * The counts since the start, at exit (HD_INFO, with -v) and at SIGUSR1
 * (HD_NOTICE, always): what was recorded and refused, how many of the
 * refusals were for a user's debt (answered without reading the blob),
 * and how many blobs, of how many bytes, went to the checker.
 */
static void log_counts(const struct helperd *hd, int level)
{
	hd_log(level,
	       "%" PRIu64 " registered, %" PRIu64 " removed, %" PRIu64
	       " pruned, %" PRIu64 " refused (%" PRIu64
	       " for a user's debt), %" PRIu64 " found by the scan; %" PRIu64
	       " checked (%" PRIu64 " bytes); %zu process(es) kept in %s",
	       hd->n_added, hd->n_removed, hd->n_pruned, hd->n_rejected,
	       hd->n_owed, hd->n_scanned, hd->n_checked, hd->b_checked,
	       hd->nprocs - hd->nidle, hd->statedir);
}

/*
 * The device and state directory given: absolute, the device split into
 * its directory (FUSE's mount point) and its name.  -1 to go on, else
 * the status to exit with.
 */
static int check_paths(struct helperd *hd)
{
	char *slash;

	if (hd->device[0] != '/' || !(slash = strrchr(hd->device, '/')) ||
	    !slash[1] || slash == hd->device) {
		fprintf(stderr, "%s: --device: '%s' must be an absolute path "
			"below a directory, like %s\n", progname, hd->device,
			DTRACE_HELPER_DEVICE);
		return 2;
	}
	if (hd->statedir[0] != '/') {
		fprintf(stderr, "%s: --state-dir: '%s' must be an absolute "
			"path\n", progname, hd->statedir);
		return 2;
	}
	hd->mountpoint = strndup(hd->device, (size_t)(slash - hd->device));
	hd->node = strdup(slash + 1);
	if (!hd->mountpoint || !hd->node)
		return 1;
	return -1;
}

/*
 * Start-up step 1's options, checked before anything is created: -1 to
 * go on, else the status to exit with (0 for --help and --version, 2 for
 * a usage error, 1 out of memory).
 */
static int parse_options(struct hd_run *r, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "device", required_argument, NULL, 'd' },
		{ "state-dir", required_argument, NULL, 's' },
		{ "backend", required_argument, NULL, 'B' },
		{ "no-scan", no_argument, NULL, 'N' },
		{ "check-interval", required_argument, NULL, 'I' },
		{ "max-dof", required_argument, NULL, 'M' },
		{ "settle-ms", required_argument, NULL, 'S' },
		{ "check-timeout", required_argument, NULL, 'C' },
		{ "socket", required_argument, NULL, 'O' },
		{ "no-socket", no_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct helperd *hd = r->hd;
	uint64_t v;
	int ch;

	while ((ch = getopt_long(argc, argv, "fd:s:vhV", longopts, NULL)) !=
	       -1) {
		switch (ch) {
		case 'f':
			hd->foreground = true;
			break;
		case 'd':
			hd->device = optarg;
			break;
		case 's':
			hd->statedir = optarg;
			break;
		case 'B':
			if (!strcmp(optarg, "auto"))
				r->backend = HD_BACKEND_AUTO;
			else if (!strcmp(optarg, "fuse"))
				r->backend = HD_BACKEND_FUSE;
			else if (!strcmp(optarg, "cuse"))
				r->backend = HD_BACKEND_CUSE;
			else {
				fprintf(stderr, "%s: --backend: '%s' is not "
					"auto, cuse or fuse\n", progname,
					optarg);
				return 2;
			}
			break;
		case 'N':
			hd->scan = false;
			break;
		case 'O':
			if (optarg[0] != '/') {
				fprintf(stderr, "%s: --socket: '%s' must be an "
					"absolute path\n", progname, optarg);
				return 2;
			}
			r->sockpath = optarg;
			break;
		case 'o':
			r->nosock = true;
			break;
		case 'I':
			if (parse_u64(optarg, &v) || v < 10 || v > 3600000) {
				fprintf(stderr, "%s: --check-interval: '%s' is "
					"not a number of milliseconds from 10 "
					"to 3600000\n", progname, optarg);
				return 2;
			}
			hd->check_ms = (unsigned)v;
			break;
		case 'M':
			if (parse_u64(optarg, &v) || v < sizeof(dof_hdr_t) ||
			    v > (1ULL << 30)) {
				fprintf(stderr, "%s: --max-dof: '%s' is not a "
					"size from 64 bytes to 1 GiB\n",
					progname, optarg);
				return 2;
			}
			hd->max_dof = v;
			break;
		case 'S':
			if (parse_u64(optarg, &v) || v > 3600000) {
				fprintf(stderr, "%s: --settle-ms: '%s' is not a "
					"number of milliseconds from 0 to "
					"3600000\n", progname, optarg);
				return 2;
			}
			hd->settle_ms = (unsigned)v;
			break;
		case 'C':
			if (parse_u64(optarg, &v) || v < 10 || v > 600000) {
				fprintf(stderr, "%s: --check-timeout: '%s' is "
					"not a number of milliseconds from 10 "
					"to 600000\n", progname, optarg);
				return 2;
			}
			hd_check_set_timeout((unsigned)v);
			break;
		case 'v':
			hd_verbose++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("dtrace-helperd (%s)\n", PACKAGE_STRING);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", progname,
			argv[optind]);
		usage(stderr);
		return 2;
	}
	return check_paths(hd);
}

/*
 * The loop's own descriptors: epoll, the stop signals, the periodic
 * check's timer; then the queue's and the tarpit's, which add theirs.
 * 0, or -1 logged.
 */
static int setup_loop(struct hd_run *r)
{
	struct helperd *hd = r->hd;
	struct itimerspec its;

	hd->epfd = epoll_create1(EPOLL_CLOEXEC);
	r->sigfd = signalfd(-1, &r->sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	r->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (hd->epfd < 0 || r->sigfd < 0 || r->tfd < 0 ||
	    ep_add(hd, r->sigfd, HD_EV_SIGNAL) < 0 ||
	    ep_add(hd, r->tfd, HD_EV_TIMER) < 0) {
		hd_log(HD_ERR, "cannot set up the event loop: %s",
		       strerror(errno));
		return -1;
	}
	if (hd_queue_start(hd) < 0)
		return -1;
	hd_tarpit_start(hd); /* without it, refusals are answered at once */
	its.it_interval.tv_sec = hd->check_ms / 1000;
	its.it_interval.tv_nsec = (long)(hd->check_ms % 1000) * 1000000;
	its.it_value = its.it_interval;
	timerfd_settime(r->tfd, 0, &its, NULL);
	return 0;
}

/*
 * Start-up steps 1 (the state directory) to 4, in the order the design
 * comment above explains; 0, or -1 logged, with what was started left
 * for stop_all().
 */
static int start(struct hd_run *r)
{
	struct helperd *hd = r->hd;
	int lockfd;

	if (!hd->foreground)
		r->ready_fd = hd_background();
	signal(SIGPIPE, SIG_IGN);
	umask(022);

	hd_fd_budget(hd);
	lockfd = hd_lock_statedir(hd->statedir);
	if (lockfd < 0)
		return -1;
	hd_write_pid(lockfd);
	if (setup_loop(r) < 0)
		return -1;

	elf_version(EV_CURRENT);
	/* No reader may SYNC with a device that is not up (hd_queue.c). */
	hd_device_file(hd, false);
	if (hd_reg_load(hd) < 0)
		hd_log(HD_WARN, "cannot read the registry under %s; starting "
		       "empty", hd->statedir);
	/*
	 * The device before the scan: a program starting meanwhile either
	 * is seen by the scan or finds the device (its ADDDOF waits in the
	 * kernel until the scan is done, and a blob already found is
	 * replaced, not doubled).  The other order loses those in between.
	 *
	 * Process events before the device: a fork after the device is up
	 * is never missed.  A CUSE device cannot tell drti that forks are
	 * followed (its size is a character device's), so there it is off.
	 */
	if (r->backend == HD_BACKEND_FUSE ||
	    (r->backend == HD_BACKEND_AUTO && !hd_dev_cuse_available()))
		hd_fork_start(hd);
	if (hd->cn_fd >= 0 && ep_add(hd, hd->cn_fd, HD_EV_PROC) < 0)
		hd_fork_stop(hd);
	r->dev = hd_dev_start(hd, r->backend);
	if (!r->dev || ep_add(hd, hd_dev_fd(r->dev), HD_EV_DEVICE) < 0)
		return -1;
	/*
	 * The socket is another door to the same place: open before the
	 * scan for the same reason.  By default only beside the default
	 * device (a daemon of its own device must not take the system's).
	 */
	if (!r->sockpath && !strcmp(hd->device, DTRACE_HELPER_DEVICE))
		r->sockpath = DTRACE_HELPER_SOCKET;
	if (r->sockpath && !r->nosock)
		hd_sock_start(hd, r->sockpath);
	hd_device_file(hd, true);
	if (hd->scan) {
		unsigned found = hd_scan_all(hd);

		if (found)
			hd_log(HD_NOTICE, "found %u DOF registration(s) of "
			       "processes started before the daemon", found);
	}
	return 0;
}

/* Start-up step 5: readiness to systemd and the backgrounding parent. */
static void announce_ready(struct hd_run *r)
{
	struct helperd *hd = r->hd;

	hd_log(HD_INFO, "serving %s (%s), state in %s, %zu process(es) "
	       "registered%s", hd->device, hd_dev_kind(r->dev), hd->statedir,
	       hd->nprocs, hd->follows_fork ? ", following forks" : "");
	hd_notify("READY=1\nSTATUS=serving the DTrace helper device");
	if (r->ready_fd >= 0) {
		hd_detach_stdio();
		hd_log_to_syslog();
		if (write(r->ready_fd, "R", 1) < 0)
			hd_log(HD_WARN, "cannot tell the parent: %s",
			       strerror(errno));
		close(r->ready_fd);
		r->ready_fd = -1;
	}
}

/* One event of the loop to its part; false once the daemon must stop. */
static bool dispatch(struct hd_run *r, const struct epoll_event *ev)
{
	struct helperd *hd = r->hd;
	uint64_t tag = ev->data.u64 & ~0xffffffffULL;
	struct signalfd_siginfo si;
	uint64_t ticks;
	bool go_on = true;

	if (tag == HD_EV_DEVICE) {
		if (hd_dev_process(r->dev) < 0) {
			hd_log(HD_ERR, "%s went away (unmounted?); exiting",
			       hd->device);
			go_on = false;
		}
	} else if (tag == HD_EV_SOCK) {
		hd_sock_run(hd);
	} else if (tag == HD_EV_SOCKTIMER) {
		hd_sock_timer(hd);
	} else if (tag == HD_EV_TARPIT) {
		hd_tarpit_run();
	} else if (tag == HD_EV_QUEUE || tag == HD_EV_FETCHED ||
		   tag == HD_EV_CHECK) {
		hd->queue_kick = true;
	} else if (tag == HD_EV_SIGNAL) {
		while (read(r->sigfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGUSR1) {
				log_counts(hd, HD_NOTICE);
				continue;
			}
			hd_log(HD_INFO, "%s: stopping",
			       strsignal((int)si.ssi_signo));
			go_on = false;
		}
	} else if (tag == HD_EV_TIMER) {
		if (read(r->tfd, &ticks, sizeof(ticks)) > 0)
			hd_reg_check(hd);
	} else if (tag == HD_EV_PROC) {
		hd_fork_drain(hd);
	} else if (tag == HD_EV_FORKTIMER) {
		hd_fork_timer(hd);
	} else if (tag == HD_EV_PIDFD) {
		hd_reg_pidfd_ready(hd, (pid_t)(ev->data.u64 & 0xffffffffULL));
	}
	return go_on;
}

/* The serving loop, until a stop signal, the device's end or a failure. */
static void serve(struct hd_run *r)
{
	struct helperd *hd = r->hd;
	bool go_on = true;

	while (go_on) {
		struct epoll_event ev[32];
		int i, n = epoll_wait(hd->epfd, ev, 32, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			hd_log(HD_ERR, "epoll_wait: %s", strerror(errno));
			break;
		}
		for (i = 0; i < n && go_on; i++)
			go_on = dispatch(r, &ev[i]);
		/* Requests first, then whatever the queue can move on. */
		if (hd->queue_kick) {
			hd->queue_kick = false;
			hd_queue_run(hd);
		}
		hd_sock_poll(hd);
	}
}

/*
 * After the loop: what was sent is read, and what was answered is
 * checked and recorded, before we go: for at most HD_DRAIN_MS, or one
 * check's timeout where --check-timeout allows a check longer than that
 * (a daemon told that one check may take that long is not cut short
 * in the middle of one at SIGTERM).
 */
static void drain(struct hd_run *r)
{
	unsigned ms = hd_check_timeout();

	hd_notify("STOPPING=1");
	hd_sock_stop(r->hd);
	hd_queue_drain(r->hd, ms > HD_DRAIN_MS ? ms : HD_DRAIN_MS);
}

/*
 * Undo whatever start() got to (each stop is a no-op for a part never
 * started), the registry left on disk; the counts to the log.
 */
static void stop_all(struct hd_run *r)
{
	struct helperd *hd = r->hd;

	hd_sock_stop(hd);
	hd_tarpit_stop();
	hd_device_file(hd, false);
	hd_queue_stop(hd);
	hd_dev_stop(r->dev);
	hd_fork_stop(hd);
	hd_check_stop();
	log_counts(hd, HD_INFO);
	hd_reg_free(hd);
	free(hd->mountpoint);
	free(hd->node);
}

int main(int argc, char **argv)
{
	struct helperd hd = {
		.statedir = REG_STATEDIR_DEFAULT,
		.device = DTRACE_HELPER_DEVICE,
		.scan = true,
		.check_ms = 1000,
		.max_dof = DTRACE_HELPER_MAX_DOF,
		.max_proc_bytes = DTRACE_HELPER_MAX_PROC_BYTES,
		.max_proc_regs = DTRACE_HELPER_MAX_PROC_REGS,
		.max_uid_bytes = DTRACE_HELPER_MAX_UID_BYTES,
		.max_uid_regs = DTRACE_HELPER_MAX_UID_REGS,
		.max_total_bytes = DTRACE_HELPER_MAX_TOTAL_BYTES,
		.refused_rate = HD_REFUSED_RATE,
		.refused_burst = HD_REFUSED_BURST,
		.next_gen = 1,
		.epfd = -1,
		.cn_fd = -1,
		.settle_ms = HD_ADD_SETTLE_MS,
		.queue_tfd = -1,
	};
	struct hd_run r = {
		.hd = &hd,
		.backend = HD_BACKEND_AUTO,
		.sigfd = -1,
		.tfd = -1,
		.ready_fd = -1,
	};
	int rc;

	block_stop_signals(&r.sigs);
	rc = parse_options(&r, argc, argv);
	if (rc >= 0) {
		free(hd.mountpoint);
		free(hd.node);
		return rc;
	}
	rc = 1;
	if (start(&r) == 0) {
		announce_ready(&r);
		serve(&r);
		drain(&r);
		rc = 0;
	}
	stop_all(&r);
	return rc;
}
