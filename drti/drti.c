// SPDX-License-Identifier: MIT
/*
 * drti.c - the start-up object `dtrace -G` links into every program and
 * shared library that carries USDT probes.
 *
 * What it does.  A constructor tells the DTrace helper that this object's
 * probes exist, with a dof_helper_t naming the object (basename), its
 * load bias and the address of its DOF (__SUNW_dof, which the -G output
 * object defines in section .SUNW_dof).  A destructor withdraws the
 * registration, which covers both exit() and dlclose().  A fork child
 * handler registers the child's own copy, because the helper keys
 * registrations by process.  The protocol is in
 * sdk/include/usdt/helper_abi.h.
 *
 * Transport.  dtrace-helperd also takes registrations as datagrams on a
 * socket of its own (helper_abi.h), which cost no wait for the daemon:
 * the device's ioctl is a round trip through it, most of what a probed
 * library's dlopen+dlclose cost with the helper up.  So the constructor
 * first sends an ADD datagram (socket, sendto with MSG_DONTWAIT, close)
 * and the destructor then a REMOVE datagram naming the DOF address (no
 * generation comes back).  Where the socket is absent or refuses
 * (another helper, the daemon down, or its queue full because the daemon
 * is pacing a flood), the device is used as before: DTRACEHIOC_ADDDOF,
 * and DTRACEHIOC_REMOVE of its generation.  A datagram ADD whose REMOVE
 * the socket refuses withdraws through the device's
 * DTRACEHIOC_REMOVEDOF, which the daemon serves only after reading what
 * was queued before it, so the REMOVE never overtakes its ADD.  Under
 * DTRACE_DOF_INIT_DEBUG the device alone is used: the debugging user
 * wants the daemon's verdict, which needs an answer.
 *
 * Environment (names in helper_abi.h):
 *	DTRACE_DOF_INIT_DISABLE  set: return at once, touch nothing
 *	DTRACE_DOF_INIT_DEBUG    set: explain every step on stderr, prefixed
 *	                         "dtrace DOF <module>: "
 *	DTRACE_DOF_INIT_DEVNAME  helper path instead of /dev/dtrace/helper;
 *	                         ignored in set-id programs (AT_SECURE), which
 *	                         must not open an attacker-chosen path O_RDWR;
 *	                         set, it also turns the default socket off
 *	DTRACE_DOF_INIT_SOCKNAME the helper's socket instead of
 *	                         /run/dtrace/helper.sock (empty: none);
 *	                         ignored in set-id programs, which must not
 *	                         tell a chosen socket where they are loaded
 *
 * Invariants.
 *  - Several copies live in one process, one per -G output (a program and
 *    each of its libraries).  Everything here is static and the only
 *    outside reference of our own is the hidden __SUNW_dof, so each copy
 *    binds to its own object's DOF and nothing is exported; `dtrace -G`
 *    additionally makes the merged symbols local.
 *  - Never disturb the host: no abort, no exit, no stdio, no heap of our
 *    own, errno preserved across every entry point.  Whatever goes wrong
 *    (odd environment, damaged DOF header, no device, failing ioctl) ends
 *    in "not registered" and, only under DTRACE_DOF_INIT_DEBUG, a line on
 *    stderr.  Debug lines are formatted by hand into a stack buffer and
 *    written with write(2) only after the device descriptor is closed, so
 *    a program started with fd 2 closed never gets a message written into
 *    the helper.
 *  - A missing helper costs a failed stat(2) of the socket and a
 *    failed openat(2) of the device: the object lookup and the DOF check
 *    only read memory.
 *
 * Finding the load base without the heap.  dl_iterate_phdr(3) walks the
 * loaded objects and hands a stack-allocated dl_phdr_info to a callback;
 * the callback picks the object whose PT_LOAD segments contain __SUNW_dof
 * and copies what we need.  It is in libc proper on every glibc (dladdr1
 * needs -ldl before glibc 2.34, and we do not control the link lines of
 * the programs drti.o ends up in), in musl, and in static executables,
 * where there is no _DYNAMIC/link_map chain to walk.  dlpi_addr is the
 * load bias, exactly what DTRACEHIOC_ADDDOF wants in dofhp_addr: the base
 * of an ET_DYN object (PIE or shared library), and 0 for an ET_EXEC,
 * which the kernel maps at its link-time addresses -- so no separate
 * e_type test is needed to get "0 for ET_EXEC".  The DOF that `dtrace -G`
 * writes already holds run-time addresses (see usdt/dof.h), so the helper
 * uses dofhp_addr only to turn addresses into offsets in the object's
 * file; DOF from other producers may carry SETX relocations, which the
 * helper applies with it.
 *
 * Module name: the basename of dlpi_name (the path the object was loaded
 * from, as given to dlopen or found via DT_NEEDED, symlinks unresolved),
 * truncated to DTRACE_MODNAMELEN - 1 bytes.  The main program has an
 * empty dlpi_name; for it the basename of AT_EXECFN (the path given to
 * execve) is used, which is the file run, not argv[0].  Objects in other
 * dlmopen namespaces are not told apart (the classic "LM<n>`" prefix
 * would need dlinfo and libdl).
 *
 * fork and dlclose.  The child handler is registered with pthread_atfork.
 * A handler registered by a library that is later dlclose'd would be
 * code in unmapped memory at the next fork, so it has to go away with
 * the library.  glibc does exactly that.  Its pthread_atfork is not a
 * libc.so function but a static stub (libc_nonshared.a; in old glibc
 * libpthread_nonshared.a) linked into each calling object, which calls
 * __register_atfork(..., __dso_handle) with that object's own hidden
 * __dso_handle from crtbeginS.o.  dlclose runs the object's fini array,
 * whose last entry (crtbeginS's __do_global_dtors_aux) calls
 * __cxa_finalize(__dso_handle), which ends with
 * __unregister_atfork(__dso_handle); that takes the lock a multithreaded
 * fork() holds from the prepare handlers to the child handlers, and the
 * object is unmapped only afterwards.  A fork racing with dlclose thus
 * either runs no handler of ours or runs it in a child where the library
 * is still mapped.  musl never unmaps on dlclose, so its handlers, never
 * unregistered, stay valid.  Calling __register_atfork ourselves would
 * buy nothing and tie us to a glibc-private symbol.  (tests/run-drti.sh
 * has a control library that registers without a DSO handle and does
 * crash the fork child after dlclose.)
 *
 * On top of that the destructor first clears `armed`, which the child
 * handler checks, so a fork after our destructor ran does not register a
 * DOF we are withdrawing.  Such forks happen: from the object's own later
 * destructors, before __cxa_finalize unregisters anything, and in a
 * non-PIE program, whose crtbegin.o never calls __cxa_finalize (an
 * executable is never unmapped), from its libraries' destructors.
 *
 * A helper that follows forks itself (dtrace-helperd with the kernel's
 * process connector) says so through the size fstat(2) reports for its
 * device (DTRACE_HELPER_SIZE_FOLLOWS_FORK, helper_abi.h), which the
 * constructor reads right after a successful ADDDOF: it copies a
 * parent's registrations, generations included, to each child as the
 * kernel reports the fork.  The child handler of a registered object
 * then sends nothing and keeps the parent's generation, which its
 * destructor's REMOVE withdraws like its own; fork costs what it costs
 * without a helper.  Otherwise the child registers itself.
 *
 * An object registered by datagram has no generation to inherit, and its
 * parent's ADD may still wait in the socket when the daemon learns of
 * the fork (a datagram carries no time to order it against the fork
 * event), so its child always sends its own ADD datagram (no wait: a
 * sendto); a copy the daemon made meanwhile is at the same DOF address
 * and is replaced, and the child's REMOVE by address withdraws both.
 *
 * The child handler calls only async-signal-safe functions (open, ioctl,
 * fstat, close, write, getpid, stat, socket, sendto, the raw gettid
 * system call), as POSIX requires after fork in a
 * multithreaded process; everything it sends was prepared by the
 * constructor.  The child also tries when the parent's attempt failed: a
 * helper started after a long-running forking server then still sees its
 * new children.  With no helper that costs one failed open per fork;
 * posix_spawn and vfork run no handlers.
 *
 * dtrace-helperd answers ADDDOF before it has read and checked the DOF
 * (doc/DESIGN.md §6): the generation means "accepted for checking".  A
 * blob it refuses later is never listed, and the REMOVE of its
 * generation is still answered 0.  Under DTRACE_DOF_INIT_DEBUG the
 * constructor asks for the verdict (DTRACEHIOC_SYNC) and reports that.
 *
 * REMOVE passes a POINTER to the generation; the classic ABI passed the
 * value.  See helper_abi.h: under FUSE a by-value argument fails with
 * EFAULT before the helper sees it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1	/* dl_iterate_phdr; configure or g++ may set it */
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "usdt/helper_abi.h"

/* Defined by the -G output object; hidden so each copy finds its own. */
extern char __SUNW_dof[] __attribute__((visibility("hidden")));

static dof_helper_t helper;	/* what ADDDOF sends; built by drti_init */
static char devpath[PATH_MAX];	/* a copy: the environment may change */
static struct sockaddr_un sockaddr; /* sun_path "" : no socket */
static socklen_t socklen;
static int debug;
static int armed;		/* helper/devpath valid, child may register */
static int registered;		/* this process holds generation `gen` */
static int gen;
static int follows_fork;	/* the helper copies `gen` into fork children */
static int by_datagram;		/* registered through the socket: no `gen` */

/*
 * Debug lines.  Built in a stack buffer without stdio or malloc, so they
 * are usable in the fork child; the last byte is kept for the newline.
 */
struct line {
	char buf[512];
	size_t len;
};

static void put(struct line *l, const char *s)
{
	while (*s != '\0' && l->len < sizeof(l->buf) - 1)
		l->buf[l->len++] = *s++;
}

static void put_num(struct line *l, uint64_t v, unsigned int base)
{
	char tmp[24];
	int n = 0;

	if (base == 16)
		put(l, "0x");
	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v != 0);
	while (n > 0 && l->len < sizeof(l->buf) - 1)
		l->buf[l->len++] = tmp[--n];
}

static void put_errno(struct line *l, int err)
{
#define E(e) { e, #e }
	static const struct {
		int err;
		const char *name;
	} names[] = {
		E(EPERM), E(ENOENT), E(EINTR), E(EIO), E(ENXIO), E(EBADF),
		E(ENOMEM), E(EACCES), E(EFAULT), E(EBUSY), E(ENODEV),
		E(ENOTDIR), E(EISDIR), E(EINVAL), E(EMFILE), E(ENOTTY),
		E(EROFS), E(E2BIG), E(ENOSPC), E(ENOSYS), E(ENOTCONN),
		E(ENAMETOOLONG), E(EAGAIN), E(ECONNREFUSED), E(ENOTSOCK),
	};
#undef E
	size_t i;

	put(l, "errno ");
	put_num(l, (uint64_t)err, 10);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (names[i].err == err) {
			put(l, " (");
			put(l, names[i].name);
			put(l, ")");
			break;
		}
	}
}

static void line_start(struct line *l, int in_child)
{
	l->len = 0;
	put(l, "dtrace DOF ");
	put(l, helper.dofhp_mod[0] != '\0' ? helper.dofhp_mod : "?");
	put(l, ": ");
	if (in_child) {
		put(l, "fork child ");
		put_num(l, (uint64_t)getpid(), 10);
		put(l, ": ");
	}
}

static void line_send(struct line *l)
{
	ssize_t n;

	l->buf[l->len++] = '\n';
	/* Best effort: a closed or full stderr is not our problem. */
	n = write(STDERR_FILENO, l->buf, l->len);
	(void)n;
}

/* One-shot message: prefix, text, newline. */
static void say(const char *text)
{
	struct line l;

	if (!debug)
		return;
	line_start(&l, 0);
	put(&l, text);
	line_send(&l);
}

/* Copy the last path component of `path`, truncated, into dofhp_mod. */
static void set_module(const char *path)
{
	const char *base = path;
	size_t i;

	for (; *path != '\0'; path++) {
		if (*path == '/')
			base = path + 1;
	}
	for (i = 0; i < sizeof(helper.dofhp_mod) - 1 && base[i] != '\0'; i++)
		helper.dofhp_mod[i] = base[i];
	helper.dofhp_mod[i] = '\0';
}

/*
 * dl_iterate_phdr callback: stop at the object one of whose PT_LOAD
 * segments holds __SUNW_dof.  Runs under the loader's lock with `info`
 * on the caller's stack, so everything needed is copied out here.
 */
static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t dof = (uintptr_t)__SUNW_dof;
	const char *name;
	ElfW(Half) i;

	(void)data;
	if (size < offsetof(struct dl_phdr_info, dlpi_phnum) +
			   sizeof(info->dlpi_phnum))
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		/* Unsigned wrap-around turns "dof < start" into a miss too. */
		if (ph->p_type != PT_LOAD ||
		    dof - (info->dlpi_addr + ph->p_vaddr) >= ph->p_memsz)
			continue;

		helper.dofhp_addr = info->dlpi_addr;
		helper.dofhp_dof = dof;
		name = info->dlpi_name;
		if (name == NULL || name[0] == '\0') {
			/* The main program: the file execve ran. */
			name = (const char *)getauxval(AT_EXECFN);
			if (name == NULL || name[0] == '\0')
				name = "a.out";
		}
		set_module(name);
		return 1;
	}
	return 0;
}

/* NULL if the DOF header is one we may hand over, else why not. */
static const char *dof_problem(void)
{
	const unsigned char *id = (const unsigned char *)__SUNW_dof;

	if (id[DOF_ID_MAG0] != DOF_MAG_MAG0 ||
	    id[DOF_ID_MAG1] != DOF_MAG_MAG1 ||
	    id[DOF_ID_MAG2] != DOF_MAG_MAG2 ||
	    id[DOF_ID_MAG3] != DOF_MAG_MAG3)
		return "bad magic";
	if (id[DOF_ID_MODEL] != DOF_MODEL_NATIVE)
		return "data model is not this process's";
	if (id[DOF_ID_ENCODING] != DOF_ENCODE_NATIVE)
		return "byte order is not this process's";
	if (id[DOF_ID_VERSION] != DOF_VERSION_1 &&
	    id[DOF_ID_VERSION] != DOF_VERSION_2)
		return "unsupported DOF version";
	return NULL;
}

/*
 * The socket: the one DTRACE_DOF_INIT_SOCKNAME names, or the default one
 * beside the default device (a DTRACE_DOF_INIT_DEVNAME names another
 * helper, which the default socket is not); none if too long.
 */
static void set_sockpath(int own_device)
{
	const char *p = getenv(DRTI_ENV_SOCKNAME);
	size_t len;

	if (p != NULL && getauxval(AT_SECURE) != 0) {
		say("set-id program: ignoring " DRTI_ENV_SOCKNAME);
		p = NULL;
	}
	if (p == NULL && !own_device)
		p = DTRACE_HELPER_SOCKET;
	if (p == NULL)
		return;
	for (len = 0; p[len] != '\0'; len++) {
		if (len == sizeof(sockaddr.sun_path) - 1) {
			say(DRTI_ENV_SOCKNAME " is too long; using the device");
			return;
		}
		sockaddr.sun_path[len] = p[len];
	}
	sockaddr.sun_path[len] = '\0';
	sockaddr.sun_family = AF_UNIX;
	socklen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + 1);
}

/* Pick the helper path; 0 on success, -1 (with a debug line) if unusable. */
static int set_devpath(void)
{
	const char *p = getenv(DRTI_ENV_DEVNAME);
	size_t len;

	if (p != NULL && getauxval(AT_SECURE) != 0) {
		say("set-id program: ignoring " DRTI_ENV_DEVNAME);
		p = NULL;
	}
	if (!debug)
		set_sockpath(p != NULL);
	if (p == NULL)
		p = DTRACE_HELPER_DEVICE;
	for (len = 0; p[len] != '\0'; len++) {
		if (len == sizeof(devpath) - 1) {
			say(DRTI_ENV_DEVNAME " is too long; not registering");
			return -1;
		}
		devpath[len] = p[len];
	}
	devpath[len] = '\0';
	return 0;
}

/*
 * One datagram to the helper's socket, without waiting for room: 0, or
 * the errno (no socket: ENOENT, ECONNREFUSED; full: EAGAIN).  socket,
 * sendto, close and stat are async-signal-safe, and so is the raw
 * gettid.
 */
static int send_datagram(uint32_t op)
{
	struct stat st;
	dtrace_helper_msg_t m = {
		.dhm_magic = DTRACE_HELPER_MSG_MAGIC,
		.dhm_op = op,
		.dhm_helper = helper,
	};
	int fd, err = 0;

	if (socklen == 0)
		return ENOENT; /* no system call at all */
	/*
	 * A socket costs several times what a path lookup does: where no
	 * daemon runs, the lookup alone fails.
	 */
	if (stat(sockaddr.sun_path, &st) != 0)
		return errno;
	if (!S_ISSOCK(st.st_mode))
		return ENOTSOCK;
	m.dhm_tid = (int32_t)syscall(SYS_gettid);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	if (sendto(fd, &m, sizeof(m), MSG_DONTWAIT | MSG_NOSIGNAL,
		   (const struct sockaddr *)&sockaddr, socklen) !=
	    (ssize_t)sizeof(m))
		err = errno != 0 ? errno : EIO;
	close(fd);
	return err;
}

/*
 * Open the helper and send ADDDOF.  Called by the constructor and in the
 * fork child, so async-signal-safe calls only.  O_NOCTTY because the path
 * may come from the environment: a session leader without a terminal
 * must not acquire one because DTRACE_DOF_INIT_DEVNAME named a tty.
 */
static void register_dof(int in_child)
{
	struct line l;
	int fd, g, err;

	by_datagram = 0;
	if (send_datagram(DTRACE_HELPER_MSG_ADD) == 0) {
		/* No debug line: under DTRACE_DOF_INIT_DEBUG it is not used. */
		registered = 1;
		by_datagram = 1;
		follows_fork = 0; /* the child sends its own: see above */
		return;
	}
	fd = open(devpath, O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		err = errno;
		if (debug) {
			line_start(&l, in_child);
			put(&l, "cannot open helper device \"");
			put(&l, devpath);
			put(&l, "\": ");
			put_errno(&l, err);
			put(&l, "; not registered");
			line_send(&l);
		}
		return;
	}
	g = ioctl(fd, DTRACEHIOC_ADDDOF, &helper);
	err = errno;
	if (g >= 0 && debug) {
		/*
		 * The helper may answer before it has checked the DOF; a
		 * debugging user wants its verdict: SYNC waits for it.  A
		 * helper without SYNC (ENOTTY) gave it already.
		 */
		int v = g;

		if (ioctl(fd, DTRACEHIOC_SYNC, &v) < 0 && errno != ENOTTY) {
			err = errno;
			g = -1;
		}
	}
	if (g >= 0) {
		struct stat st;

		gen = g;
		registered = 1;
		follows_fork = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
			       (unsigned long long)st.st_size ==
				       DTRACE_HELPER_SIZE_FOLLOWS_FORK;
	}
	close(fd);

	if (!debug)
		return;
	line_start(&l, in_child);
	if (g >= 0) {
		put(&l, "registered DOF at ");
		put_num(&l, helper.dofhp_dof, 16);
		put(&l, " (load bias ");
		put_num(&l, helper.dofhp_addr, 16);
		put(&l, ") with \"");
		put(&l, devpath);
		put(&l, "\": generation ");
		put_num(&l, (uint64_t)g, 10);
	} else {
		put(&l, "DTRACEHIOC_ADDDOF on \"");
		put(&l, devpath);
		put(&l, "\" failed: ");
		put_errno(&l, err);
		put(&l, "; not registered");
	}
	line_send(&l);
}

static void drti_atfork_child(void)
{
	int saved_errno = errno;

	if (registered && follows_fork &&
	    __atomic_load_n(&armed, __ATOMIC_ACQUIRE)) {
		/* The helper gives us the parent's registration, same gen. */
		if (debug) {
			struct line l;

			line_start(&l, 1);
			put(&l, "the helper follows forks: generation ");
			put_num(&l, (uint64_t)gen, 10);
			put(&l, " inherited");
			line_send(&l);
		}
		errno = saved_errno;
		return;
	}
	/* The parent's generation belongs to the parent. */
	registered = 0;
	if (__atomic_load_n(&armed, __ATOMIC_ACQUIRE))
		register_dof(1);
	errno = saved_errno;
}

__attribute__((constructor)) static void drti_init(void)
{
	int saved_errno = errno;
	const char *why;

	if (getenv(DRTI_ENV_DISABLE) != NULL)
		goto out;
	debug = getenv(DRTI_ENV_DEBUG) != NULL;

	if (dl_iterate_phdr(find_self, NULL) == 0) {
		say("no loaded object holds __SUNW_dof; not registering");
		goto out;
	}
	why = dof_problem();
	if (why != NULL) {
		struct line l;

		if (debug) {
			line_start(&l, 0);
			put(&l, ".SUNW_dof at ");
			put_num(&l, helper.dofhp_dof, 16);
			put(&l, " is not usable DOF: ");
			put(&l, why);
			put(&l, "; not registering");
			line_send(&l);
		}
		goto out;
	}
	if (set_devpath() != 0)
		goto out;

	__atomic_store_n(&armed, 1, __ATOMIC_RELEASE);
	if (pthread_atfork(NULL, NULL, drti_atfork_child) != 0)
		say("pthread_atfork failed; fork children will not register");
	register_dof(0);
out:
	errno = saved_errno;
}

__attribute__((destructor)) static void drti_fini(void)
{
	int saved_errno = errno;
	struct line l;
	int fd, rc, err;

	__atomic_store_n(&armed, 0, __ATOMIC_RELEASE);
	if (!registered)
		goto out;
	registered = 0;

	if (by_datagram) {
		/*
		 * The socket again; if it refuses (full, or gone with a
		 * daemon that is stopping), the device, which reads what is
		 * queued before it removes.  With no daemon at all that open
		 * fails too, and one that starts later drops the entry once
		 * it finds the DOF unmapped, as after any REMOVE that was
		 * lost.
		 */
		err = send_datagram(DTRACE_HELPER_MSG_REMOVE);
		if (err == 0)
			goto out;
	}
	fd = open(devpath, O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		rc = -1;
		err = errno;
	} else if (by_datagram) {
		rc = ioctl(fd, DTRACEHIOC_REMOVEDOF, &helper);
		err = errno;
		close(fd);
	} else {
		/* By pointer, not by value: see helper_abi.h. */
		rc = ioctl(fd, DTRACEHIOC_REMOVE, &gen);
		err = errno;
		close(fd);
	}
	if (debug) {
		line_start(&l, 0);
		if (rc >= 0) {
			put(&l, "removed generation ");
			put_num(&l, (uint64_t)gen, 10);
		} else {
			put(&l, "could not remove generation ");
			put_num(&l, (uint64_t)gen, 10);
			put(&l, fd < 0 ? " (open failed): " : ": ");
			put_errno(&l, err);
		}
		line_send(&l);
	}
out:
	errno = saved_errno;
}
