// SPDX-License-Identifier: MIT
/*
 * dgramclient.c - a hostile client of dtrace-helperd's datagram socket,
 * for tests/run-helperd-dgram.sh.
 *
 *	dgramclient SOCKET forge-pid PID	ADD with SCM_CREDENTIALS naming
 *						PID instead of ours
 *	dgramclient SOCKET forge-uid UID	... naming UID as our uid
 *	dgramclient SOCKET as-thread TID OP ADDR  an ADD or REMOVE
 *						(OP add|remove) of the DOF at
 *						ADDR (hex) claiming to come
 *						from thread TID
 *	dgramclient SOCKET junk			datagrams that are not helper
 *						messages: short, long, bad
 *						magic, bad op, pad set
 *	dgramclient SOCKET flood N		N ADDs of an unmapped DOF
 *						address as fast as the socket
 *						takes them, without waiting
 *
 * Each prints one line "NAME: pid=P sent=S eagain=A errno=E" (E: the last
 * failure's errno name, or 0) and exits 0 once it has tried (with
 * $DGRAMCLIENT_LINGER set, 3 s later); judging the
 * outcome is the test's job.  The messages are built from
 * usdt/helper_abi.h, so a layout change shows here first.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "usdt/helper_abi.h"

static struct sockaddr_un sa = { .sun_family = AF_UNIX };
static int fd;
static unsigned long sent, eagain;
static int last_err;

static void msg_init(dtrace_helper_msg_t *m, uint32_t op, uint64_t dof)
{
	memset(m, 0, sizeof(*m));
	m->dhm_magic = DTRACE_HELPER_MSG_MAGIC;
	m->dhm_op = op;
	m->dhm_tid = (int32_t)getpid();
	snprintf(m->dhm_helper.dofhp_mod, sizeof(m->dhm_helper.dofhp_mod),
		 "dgramclient");
	m->dhm_helper.dofhp_dof = dof;
}

/* One datagram, optionally with explicit credentials. */
static void send_one(const void *buf, size_t len, const struct ucred *cr)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct ucred))];
	} ctl;
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_name = &sa,
			     .msg_namelen = sizeof(sa),
			     .msg_iov = &iov,
			     .msg_iovlen = 1 };

	if (cr) {
		struct cmsghdr *c;

		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_CREDENTIALS;
		c->cmsg_len = CMSG_LEN(sizeof(*cr));
		memcpy(CMSG_DATA(c), cr, sizeof(*cr));
	}
	if (sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0) {
		sent++;
		return;
	}
	last_err = errno;
	if (errno == EAGAIN)
		eagain++;
}

static const char *ename(int e)
{
	switch (e) {
	case 0: return "0";
	case EPERM: return "EPERM";
	case EAGAIN: return "EAGAIN";
	case ENOENT: return "ENOENT";
	case ECONNREFUSED: return "ECONNREFUSED";
	case EACCES: return "EACCES";
	case EINVAL: return "EINVAL";
	default: return strerror(e);
	}
}

int main(int argc, char **argv)
{
	dtrace_helper_msg_t m;
	const char *cmd;

	if (argc < 3 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: dgramclient SOCKET COMMAND [ARG...]\n");
		return 2;
	}
	memcpy(sa.sun_path, argv[1], strlen(argv[1]));
	cmd = argv[2];
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("dgramclient: socket");
		return 1;
	}
	if (!strcmp(cmd, "forge-pid") && argc == 4) {
		struct ucred cr = { .pid = atoi(argv[3]), .uid = getuid(),
				    .gid = getgid() };

		msg_init(&m, DTRACE_HELPER_MSG_ADD, 0x400000);
		send_one(&m, sizeof(m), &cr);
	} else if (!strcmp(cmd, "forge-uid") && argc == 4) {
		struct ucred cr = { .pid = getpid(),
				    .uid = (uid_t)atoi(argv[3]),
				    .gid = getgid() };

		msg_init(&m, DTRACE_HELPER_MSG_ADD, 0x400000);
		send_one(&m, sizeof(m), &cr);
	} else if (!strcmp(cmd, "as-thread") && argc == 6) {
		msg_init(&m, !strcmp(argv[4], "remove") ?
				     DTRACE_HELPER_MSG_REMOVE :
				     DTRACE_HELPER_MSG_ADD,
			 strtoull(argv[5], NULL, 16));
		m.dhm_tid = atoi(argv[3]);
		send_one(&m, sizeof(m), NULL);
	} else if (!strcmp(cmd, "junk") && argc == 3) {
		char big[sizeof(m) + 8];

		msg_init(&m, DTRACE_HELPER_MSG_ADD, 0x400000);
		send_one(&m, sizeof(m) - 1, NULL);
		memset(big, 0, sizeof(big));
		memcpy(big, &m, sizeof(m));
		send_one(big, sizeof(big), NULL);
		m.dhm_magic ^= 1;
		send_one(&m, sizeof(m), NULL);
		msg_init(&m, 7, 0x400000);
		send_one(&m, sizeof(m), NULL);
		msg_init(&m, DTRACE_HELPER_MSG_REMOVE, 0x400000);
		m.dhm_pad = 1;
		send_one(&m, sizeof(m), NULL);
	} else if (!strcmp(cmd, "flood") && argc == 4) {
		unsigned long n = strtoul(argv[3], NULL, 10), i;

		/* An address nothing maps: each ADD is refused when read. */
		msg_init(&m, DTRACE_HELPER_MSG_ADD, 0x10000);
		for (i = 0; i < n; i++)
			send_one(&m, sizeof(m), NULL);
	} else {
		fprintf(stderr, "dgramclient: unknown command or arguments\n");
		return 2;
	}
	printf("%s: pid=%d sent=%lu eagain=%lu errno=%s\n", cmd, (int)getpid(),
	       sent, eagain, ename(last_err));
	/* Still this process when the daemon reads what it sent. */
	if (getenv("DGRAMCLIENT_LINGER")) {
		fflush(stdout);
		sleep(3);
	}
	return 0;
}
