// SPDX-License-Identifier: MIT
/*
 * shim.c - an LD_PRELOAD stand-in for the helper, until dtrace-helperd
 * exists.  It interposes ioctl(2): DTRACEHIOC_ADDDOF and DTRACEHIOC_REMOVE
 * are answered here (the "device" is any file drti.o could open), every
 * other request goes to the kernel.  Each call appends one line to the file
 * named by $DRTI_SHIM_LOG:
 *
 *	ADDDOF pid=P mod=NAME addr=0x... (ok|BAD) dof=0x... (ok|BAD) gen=G
 *	REMOVE pid=P gen=G
 *
 * The checks are made independently of drti.o's own lookup: dladdr finds
 * the object holding dofhp_dof, its ELF header gives e_type, and the
 * expected dofhp_addr is that object's base for ET_DYN and 0 for ET_EXEC;
 * "dof ok" means the pointer lies in a loaded object and starts with the
 * DOF magic.  Generations count up from 1 per process image (a fork child
 * continues its parent's counter), and REMOVE reads the generation
 * through the pointer argument, as helper_abi.h specifies: a by-value
 * argument would crash the test program here.
 *
 * With DRTI_SHIM_REFUSE_CHILD set, ADDDOF fails with EIO in any process
 * but the one the shim was loaded into, logging "ADDDOF pid=C refused":
 * a fork child that could not register must then remove nothing.
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "usdt/helper_abi.h"

static int next_gen;
static pid_t first_pid;

__attribute__((constructor)) static void shim_init(void)
{
	first_pid = getpid();
}

static void log_line(const char *s)
{
	const char *path = getenv("DRTI_SHIM_LOG");
	ssize_t n;
	int fd;

	if (path == NULL)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	n = write(fd, s, strlen(s));
	(void)n;
	close(fd);
}

static int addr_ok(const dof_helper_t *dh)
{
	const ElfW(Ehdr) *eh;
	uintptr_t want;
	Dl_info info;

	if (dladdr((void *)(uintptr_t)dh->dofhp_dof, &info) == 0)
		return 0;
	eh = (const ElfW(Ehdr) *)info.dli_fbase;
	want = eh->e_type == ET_DYN ? (uintptr_t)info.dli_fbase : 0;
	return dh->dofhp_addr == want;
}

static int dof_ok(const dof_helper_t *dh)
{
	Dl_info info;

	return dladdr((void *)(uintptr_t)dh->dofhp_dof, &info) != 0 &&
	       memcmp((const void *)(uintptr_t)dh->dofhp_dof, DOF_MAG_STRING,
		      DOF_MAG_STRLEN) == 0;
}

int ioctl(int fd, unsigned long request, ...)
{
	char buf[256];
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);

	if (request == DTRACEHIOC_ADDDOF) {
		const dof_helper_t *dh = arg;

		if (memchr(dh->dofhp_mod, '\0', sizeof(dh->dofhp_mod)) == NULL)
			return -1;
		if (getenv("DRTI_SHIM_REFUSE_CHILD") != NULL &&
		    getpid() != first_pid) {
			snprintf(buf, sizeof(buf), "ADDDOF pid=%d refused\n",
				 (int)getpid());
			log_line(buf);
			errno = EIO;
			return -1;
		}
		next_gen++;
		snprintf(buf, sizeof(buf),
			 "ADDDOF pid=%d mod=%s addr=%#llx (%s) dof=%#llx (%s) gen=%d\n",
			 (int)getpid(), dh->dofhp_mod,
			 (unsigned long long)dh->dofhp_addr,
			 addr_ok(dh) ? "ok" : "BAD",
			 (unsigned long long)dh->dofhp_dof,
			 dof_ok(dh) ? "ok" : "BAD", next_gen);
		log_line(buf);
		return next_gen;
	}
	if (request == DTRACEHIOC_REMOVE) {
		snprintf(buf, sizeof(buf), "REMOVE pid=%d gen=%d\n",
			 (int)getpid(), *(const int *)arg);
		log_line(buf);
		return 0;
	}
	return (int)syscall(SYS_ioctl, fd, request, arg);
}
