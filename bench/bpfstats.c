// SPDX-License-Identifier: MIT
/*
 * bpfstats.c - run a command with the kernel's BPF run-time statistics
 * on (BPF_ENABLE_STATS, Linux 5.8): while the returned descriptor is
 * open, every BPF program's run_time_ns and run_cnt count, and
 * `bpftool prog show` prints them.  Closing it (our exit) turns them off
 * again, so nothing is left changed on the machine (unlike the sysctl
 * kernel.bpf_stats_enabled).  For bench/kprov.sh.
 *
 *	bpfstats CMD [ARG...]	exit status: CMD's
 */
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	union bpf_attr a;
	int fd, st;
	pid_t pid;

	if (argc < 2)
		return 2;
	memset(&a, 0, sizeof(a));
	a.enable_stats.type = BPF_STATS_RUN_TIME;
	fd = (int)syscall(SYS_bpf, BPF_ENABLE_STATS, &a, sizeof(a));
	if (fd < 0) {
		perror("bpfstats: BPF_ENABLE_STATS");
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		close(fd);
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
