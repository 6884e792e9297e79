// SPDX-License-Identifier: MIT
/*
 * helperd.c - dtrace-helperd: serve /dev/dtrace/helper from user space.
 *
 * Programs and libraries built with `dtrace -G` carry drti.o, whose
 * constructor hands the object's DOF to the helper device with the
 * DTRACEHIOC_ADDDOF ioctl (sdk/helper_abi.h).  This daemon is that
 * device's other end: it validates what it is handed, records it per
 * process in the registry under the state directory (sdk/registry.h),
 * and forgets it when the process exits, execs or unmaps the object.
 * `dtrace -l` and `dtrace -n` read the registry.
 *
 * Start-up, in this order, so that a failure leaves nothing behind and
 * readiness means "every program can register and be listed now":
 *
 *	1. options; the state directory is created and locked
 *	   (<statedir>/helperd.pid, flock), so two daemons never share it;
 *	2. the registry on disk is loaded: what a previous daemon recorded
 *	   for processes that still run is kept, the rest dropped;
 *	3. the device is mounted (FUSE) or created (CUSE); requests wait in
 *	   the kernel until the loop runs;
 *	4. the scan (hd_scan.c) registers processes that carry DOF but are
 *	   not recorded -- started before any daemon ran, or while this one
 *	   started;
 *	5. readiness: the parent of a backgrounding daemon exits 0 only now
 *	   (it exits 1 if the child failed), and under systemd
 *	   (Type=notify) READY=1 goes to $NOTIFY_SOCKET.
 *
 * SIGTERM, SIGINT and SIGHUP end the loop; the device is unmounted and
 * the registry stays on disk for the next daemon.  Nothing is lost when
 * the daemon is killed outright either: every change was written when it
 * happened, and the stale mount is detached at the next start.
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
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <libelf.h>

#include "dof_check.h"
#include "helperd.h"

static const char *progname = "dtrace-helperd";
static bool use_syslog;
int hd_verbose;

/* format(printf, 2, 0) lets clang's -Wformat-nonliteral check callers */
static void vlog(int level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void vlog(int level, const char *fmt, va_list ap)
{
	int saved = errno;

	if (level == HD_INFO && hd_verbose < 1)
		return;
	if (level == HD_DEBUG && hd_verbose < 2)
		return;
	char line[1024], *c;

	vsnprintf(line, sizeof(line), fmt, ap);
	/*
	 * Process names and paths come from callers: a newline or an escape
	 * sequence in them must not forge a log line or drive a terminal.
	 */
	for (c = line; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	if (use_syslog)
		syslog(level, "%s", line);
	else
		fprintf(stderr, "%s: %s\n", progname, line);
	errno = saved;
}

void hd_log(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * A hostile or broken client can send refusals as fast as it likes; the
 * log gets at most HD_RL_BURST of them a second and then one line
 * counting what was left out.  Refused registrations (warnings) and odd
 * requests (foreign ioctls, REMOVE of generations the caller does not
 * hold; -v) are limited separately, so the one never hides the other.
 */
#define HD_RL_BURST 10

static void log_limited(struct helperd *hd, int bucket, int level,
			const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

static void log_limited(struct helperd *hd, int bucket, int level,
			const char *fmt, va_list ap)
{
	uint64_t t = now_ms() / 1000;

	if (level == HD_INFO && hd_verbose < 1)
		return;
	if (t != hd->rl_window[bucket]) {
		if (hd->rl_suppressed[bucket])
			hd_log(level, "%u more %s not logged",
			       hd->rl_suppressed[bucket],
			       bucket ? "odd request(s)" : "refusal(s)");
		hd->rl_window[bucket] = t;
		hd->rl_count[bucket] = 0;
		hd->rl_suppressed[bucket] = 0;
	}
	if (hd->rl_count[bucket]++ >= HD_RL_BURST) {
		hd->rl_suppressed[bucket]++;
		return;
	}
	vlog(level, fmt, ap);
}

void hd_log_reject(struct helperd *hd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_limited(hd, 0, HD_WARN, fmt, ap);
	va_end(ap);
}

void hd_log_odd(struct helperd *hd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_limited(hd, 1, HD_INFO, fmt, ap);
	va_end(ap);
}

/* sd_notify(3) without libsystemd: one datagram to $NOTIFY_SOCKET. */
static void notify(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (!path || !*path)
		return;
	len = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || len >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, len);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0'; /* abstract socket */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) <
	    0)
		hd_log(HD_WARN, "cannot notify systemd: %s", strerror(errno));
	close(fd);
}

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
"      --backend=KIND      auto (CUSE if /dev/cuse exists, else FUSE),\n"
"                          cuse or fuse (default auto)\n"
"      --no-scan           do not look for probes of processes that were\n"
"                          running before the daemon started\n"
"      --check-interval=MS how often to look for exec and unmapped DOF\n"
"                          (default 1000)\n"
"      --max-dof=BYTES     largest DOF blob accepted (default %" PRIu64 ")\n"
"  -v, --verbose           log every registration (-vv: and more)\n"
"  -h, --help              show this help and exit\n"
"  -V, --version           show the version and exit\n"
"\n"
"Without -f the daemon detaches once the device is ready; it exits 0 only\n"
"then, and 1 if it could not start.  SIGTERM or SIGINT unmounts the device;\n"
"the registry is kept for the next start.  See dtrace-helperd(8).\n",
		progname, DTRACE_HELPER_DEVICE, REG_STATEDIR_DEFAULT,
		DTRACE_HELPER_MAX_DOF);
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

static int lock_statedir(struct helperd *hd)
{
	char path[PATH_MAX], buf[32];
	ssize_t n;
	int fd;

	if (mkdir(hd->statedir, 0755) < 0 && errno != EEXIST) {
		hd_log(HD_ERR, "cannot create %s: %s", hd->statedir,
		       strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/helperd.pid", hd->statedir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		hd_log(HD_ERR, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		n = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		hd_log(HD_ERR, "another dtrace-helperd (pid %s) uses %s",
		       buf[0] ? buf : "?", hd->statedir);
		close(fd);
		return -1;
	}
	return fd;
}

static void write_pid(int fd)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());

	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n)
		hd_log(HD_WARN, "cannot record the daemon's pid: %s",
		       strerror(errno));
}

/*
 * Background: the parent waits on a pipe until the child is ready (it
 * writes one byte) or has failed (the pipe closes), so a boot script's
 * `dtrace-helperd && start-servers` is never early.
 */
static int go_background(void)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC) < 0) {
		hd_log(HD_ERR, "pipe: %s", strerror(errno));
		exit(1);
	}
	pid = fork();
	if (pid < 0) {
		hd_log(HD_ERR, "fork: %s", strerror(errno));
		exit(1);
	}
	if (pid > 0) {
		close(p[1]);
		exit(read(p[0], &c, 1) == 1 ? 0 : 1);
	}
	close(p[0]);
	setsid();
	return p[1];
}

static void detach_stdio(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

static int ep_add(struct helperd *hd, int fd, uint64_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag };

	return epoll_ctl(hd->epfd, EPOLL_CTL_ADD, fd, &ev);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "device", required_argument, NULL, 'd' },
		{ "state-dir", required_argument, NULL, 's' },
		{ "backend", required_argument, NULL, 'B' },
		{ "no-scan", no_argument, NULL, 'N' },
		{ "check-interval", required_argument, NULL, 'I' },
		{ "max-dof", required_argument, NULL, 'M' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
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
		.next_gen = 1,
		.epfd = -1,
	};
	enum hd_backend backend = HD_BACKEND_AUTO;
	struct itimerspec its;
	struct hd_dev *dev = NULL;
	sigset_t sigs;
	int ch, lockfd, sigfd, tfd, ready_fd = -1, rc = 1;
	unsigned found;
	uint64_t v;
	char *slash;
	bool stop = false;

	while ((ch = getopt_long(argc, argv, "fd:s:vhV", longopts, NULL)) !=
	       -1) {
		switch (ch) {
		case 'f':
			hd.foreground = true;
			break;
		case 'd':
			hd.device = optarg;
			break;
		case 's':
			hd.statedir = optarg;
			break;
		case 'B':
			if (!strcmp(optarg, "auto"))
				backend = HD_BACKEND_AUTO;
			else if (!strcmp(optarg, "fuse"))
				backend = HD_BACKEND_FUSE;
			else if (!strcmp(optarg, "cuse"))
				backend = HD_BACKEND_CUSE;
			else {
				fprintf(stderr, "%s: --backend: '%s' is not "
					"auto, cuse or fuse\n", progname,
					optarg);
				return 2;
			}
			break;
		case 'N':
			hd.scan = false;
			break;
		case 'I':
			if (parse_u64(optarg, &v) || v < 10 || v > 3600000) {
				fprintf(stderr, "%s: --check-interval: '%s' is "
					"not a number of milliseconds from 10 "
					"to 3600000\n", progname, optarg);
				return 2;
			}
			hd.check_ms = (unsigned)v;
			break;
		case 'M':
			if (parse_u64(optarg, &v) || v < sizeof(dof_hdr_t) ||
			    v > (1ULL << 30)) {
				fprintf(stderr, "%s: --max-dof: '%s' is not a "
					"size from 64 bytes to 1 GiB\n",
					progname, optarg);
				return 2;
			}
			hd.max_dof = v;
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
	if (hd.device[0] != '/' || !(slash = strrchr(hd.device, '/')) ||
	    !slash[1] || slash == hd.device) {
		fprintf(stderr, "%s: --device: '%s' must be an absolute path "
			"below a directory, like %s\n", progname, hd.device,
			DTRACE_HELPER_DEVICE);
		return 2;
	}
	if (hd.statedir[0] != '/') {
		fprintf(stderr, "%s: --state-dir: '%s' must be an absolute "
			"path\n", progname, hd.statedir);
		return 2;
	}
	hd.mountpoint = strndup(hd.device, (size_t)(slash - hd.device));
	hd.node = strdup(slash + 1);
	if (!hd.mountpoint || !hd.node)
		return 1;

	if (!hd.foreground)
		ready_fd = go_background();
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	umask(022);

	lockfd = lock_statedir(&hd);
	if (lockfd < 0)
		goto out;
	write_pid(lockfd);
	hd.epfd = epoll_create1(EPOLL_CLOEXEC);
	sigfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (hd.epfd < 0 || sigfd < 0 || tfd < 0 ||
	    ep_add(&hd, sigfd, HD_EV_SIGNAL) < 0 ||
	    ep_add(&hd, tfd, HD_EV_TIMER) < 0) {
		hd_log(HD_ERR, "cannot set up the event loop: %s",
		       strerror(errno));
		goto out;
	}
	its.it_interval.tv_sec = hd.check_ms / 1000;
	its.it_interval.tv_nsec = (long)(hd.check_ms % 1000) * 1000000;
	its.it_value = its.it_interval;
	timerfd_settime(tfd, 0, &its, NULL);

	elf_version(EV_CURRENT);
	if (hd_reg_load(&hd) < 0)
		hd_log(HD_WARN, "cannot read the registry under %s; starting "
		       "empty", hd.statedir);
	/*
	 * The device before the scan: a program starting meanwhile either
	 * is seen by the scan or finds the device (its ADDDOF waits in the
	 * kernel until the scan is done, and a blob already found is
	 * replaced, not doubled).  The other order loses those in between.
	 */
	dev = hd_dev_start(&hd, backend);
	if (!dev || ep_add(&hd, hd_dev_fd(dev), HD_EV_DEVICE) < 0)
		goto out;
	if (hd.scan) {
		found = hd_scan_all(&hd);
		if (found)
			hd_log(HD_NOTICE, "found %u DOF registration(s) of "
			       "processes started before the daemon", found);
	}
	hd_log(HD_INFO, "serving %s (%s), state in %s, %zu process(es) "
	       "registered", hd.device, hd_dev_kind(dev), hd.statedir,
	       hd.nprocs);
	notify("READY=1\nSTATUS=serving the DTrace helper device");
	if (ready_fd >= 0) {
		detach_stdio();
		openlog("dtrace-helperd", LOG_PID, LOG_DAEMON);
		use_syslog = true;
		if (write(ready_fd, "R", 1) < 0)
			hd_log(HD_WARN, "cannot tell the parent: %s",
			       strerror(errno));
		close(ready_fd);
		ready_fd = -1;
	}

	while (!stop) {
		struct epoll_event ev[32];
		int i, n = epoll_wait(hd.epfd, ev, 32, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			hd_log(HD_ERR, "epoll_wait: %s", strerror(errno));
			break;
		}
		for (i = 0; i < n && !stop; i++) {
			uint64_t tag = ev[i].data.u64 & ~0xffffffffULL;
			struct signalfd_siginfo si;
			uint64_t ticks;

			if (tag == HD_EV_DEVICE) {
				if (hd_dev_process(dev) < 0) {
					hd_log(HD_ERR, "%s went away (unmounted?)"
					       "; exiting", hd.device);
					stop = true;
				}
			} else if (tag == HD_EV_SIGNAL) {
				while (read(sigfd, &si, sizeof(si)) ==
				       sizeof(si)) {
					hd_log(HD_INFO, "%s: stopping",
					       strsignal((int)si.ssi_signo));
					stop = true;
				}
			} else if (tag == HD_EV_TIMER) {
				if (read(tfd, &ticks, sizeof(ticks)) > 0)
					hd_reg_check(&hd);
			} else if (tag == HD_EV_PIDFD) {
				hd_reg_prune_pid(&hd,
						 (pid_t)(ev[i].data.u64 &
							 0xffffffffULL),
						 "exited");
			}
		}
	}
	notify("STOPPING=1");
	rc = 0;
out:
	hd_dev_stop(dev);
	hd_check_stop();
	hd_log(HD_INFO, "%" PRIu64 " registered, %" PRIu64 " removed, %" PRIu64
	       " pruned, %" PRIu64 " refused, %" PRIu64 " found by the scan; "
	       "%zu process(es) kept in %s", hd.n_added, hd.n_removed,
	       hd.n_pruned, hd.n_rejected, hd.n_scanned, hd.nprocs,
	       hd.statedir);
	hd_reg_free(&hd);
	free(hd.mountpoint);
	free(hd.node);
	return rc;
}
