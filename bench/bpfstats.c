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
 *	bpfstats --list		every loaded program: id, name, the
 *				instructions the verifier processed
 *				(verified_insns, Linux 5.16), its
 *				length in instructions, run_cnt and
 *				run_time_ns (bench/startup.sh, where no
 *				bpftool is installed)
 */
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int list(void)
{
	union bpf_attr a;
	struct bpf_prog_info info;
	__u32 id = 0;
	int fd;

	for (;;) {
		memset(&a, 0, sizeof(a));
		a.start_id = id;
		if (syscall(SYS_bpf, BPF_PROG_GET_NEXT_ID, &a, sizeof(a)) < 0)
			return 0;
		id = a.next_id;
		memset(&a, 0, sizeof(a));
		a.prog_id = id;
		fd = (int)syscall(SYS_bpf, BPF_PROG_GET_FD_BY_ID, &a, sizeof(a));
		if (fd < 0)
			continue; /* gone meanwhile */
		memset(&info, 0, sizeof(info));
		memset(&a, 0, sizeof(a));
		a.info.bpf_fd = (__u32)fd;
		a.info.info_len = sizeof(info);
		a.info.info = (__u64)(unsigned long)&info;
		if (syscall(SYS_bpf, BPF_OBJ_GET_INFO_BY_FD, &a, sizeof(a)) == 0)
			printf("%u %s %u %u %llu %llu\n", info.id,
			       info.name[0] ? info.name : "-",
			       info.verified_insns, info.xlated_prog_len / 8,
			       (unsigned long long)info.run_cnt,
			       (unsigned long long)info.run_time_ns);
		close(fd);
	}
}

int main(int argc, char **argv)
{
	union bpf_attr a;
	int fd, st;
	pid_t pid;

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "--list"))
		return list();
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
