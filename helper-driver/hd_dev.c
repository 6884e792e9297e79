// SPDX-License-Identifier: MIT
/*
 * hd_dev.c - the helper device, served through FUSE or CUSE.
 *
 * CUSE gives a real character device (/dev/dtrace/helper, created by the
 * kernel's CUSE driver) and is what the daemon uses when /dev/cuse
 * exists.  Kernels without CUSE (this project's CI among them) get the
 * FUSE form: a file system mounted on the device's directory, holding one
 * regular file, the device's last component, mode 0666.  Programs open
 * either the same way, and ioctl(2) on the open file reaches
 * handle_ioctl() below in both cases; hd_ioctl.c explains the difference
 * in how the argument arrives.
 *
 * The FUSE file system is the smallest that works: inode 1 (the mount
 * point, 0755) lists inode 2 (the device, 0666), whose size says whether
 * the daemon follows forks (DTRACE_HELPER_SIZE_FOLLOWS_FORK, hd_fork.c).  Reading the device
 * gives nothing, writing it is EINVAL, and nothing can be created,
 * renamed or removed.  It is mounted with allow_other so every user's
 * programs can register (root only; an unprivileged daemon serves its
 * own user), and with the kernel's attribute checks off -- the daemon
 * itself decides, and it accepts every caller, as /dev/dtrace/helper did.
 *
 * A daemon killed with SIGKILL leaves its mount behind, and every access
 * to it fails with ENOTCONN.  prepare_mountpoint() detaches such
 * a mount before mounting again; a mount that still answers belongs to a
 * live daemon and is left alone.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#define FUSE_USE_VERSION 35

#include "config.h"

#include <cuse_lowlevel.h>
#include <dirent.h>
#include <errno.h>
#include <fuse_lowlevel.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helperd.h"

#define INO_DIR FUSE_ROOT_ID
#define INO_DEV 2
#define FUSE_SUPER_MAGIC 0x65735546

struct hd_dev {
	struct helperd *hd;
	struct fuse_session *se;
	enum hd_backend kind;
	struct fuse_buf buf;
	bool mounted;
	bool no_open; /* the kernel opens the device without asking us */
	time_t since;
};

/* ---- requests, both backends ----------------------------------------- */

static void handle_ioctl(struct hd_dev *dev, fuse_req_t req, unsigned cmd,
			 void *arg, const void *in, size_t in_len)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	struct hd_ioctl_req r;
	struct iovec iov;
	int rc;

	hd_ioctl_decode(cmd, (uint64_t)(uintptr_t)arg, in, in_len,
			dev->kind == HD_BACKEND_CUSE, &r);
	/* Forks and execs that happened before this request first. */
	hd_fork_drain(dev->hd);
	if (ctx->pid <= 0 && (r.action == HD_IOCTL_ADDDOF ||
			      r.action == HD_IOCTL_REMOVE ||
			      r.action == HD_IOCTL_REMOVEDOF ||
			      (r.action == HD_IOCTL_SYNC && r.gen != 0))) {
		/*
		 * A caller in a pid namespace the daemon cannot see (SYNC of
		 * everything needs no caller: a reader in a container).
		 */
		hd_log_reject("ioctl from a process outside the "
			      "daemon's pid namespace refused");
		fuse_reply_err(req, EPERM);
		return;
	}
	switch (r.action) {
	case HD_IOCTL_ADDDOF:
		/*
		 * After the caller's datagrams: a REMOVE of an earlier load
		 * at this address still queued must not hit this one.
		 */
		hd_sock_barrier(dev->hd);
		hd_fork_settle(dev->hd, ctx->pid);
		rc = hd_reg_adddof(dev->hd, ctx->pid, ctx->uid, &r.helper,
				   req);
		if (rc == 0)
			return; /* answered once checked (hd_queue.c) */
		break;
	case HD_IOCTL_REMOVE:
		rc = hd_fork_remove(dev->hd, ctx->pid, r.gen) ? 0 :
			hd_reg_remove(dev->hd, ctx->pid, ctx->uid, r.gen);
		break;
	case HD_IOCTL_REMOVEDOF:
		/* Its ADD was a datagram: read what was sent before. */
		hd_sock_barrier(dev->hd);
		rc = hd_reg_remove_dof(dev->hd, ctx->pid, ctx->uid, 0,
				       r.helper.dofhp_dof);
		break;
	case HD_IOCTL_SYNC:
		/* A consumer's: every registration made before it counts. */
		if (r.gen == 0)
			hd_sock_barrier(dev->hd);
		if (r.gen > 0)
			hd_fork_settle(dev->hd, ctx->pid);
		rc = hd_queue_sync(dev->hd, ctx->pid, ctx->uid, r.gen, req);
		if (rc == 1)
			return; /* held until the queue has done it */
		break;
	case HD_IOCTL_RETRY:
		iov.iov_base = (void *)(uintptr_t)r.retry_addr;
		iov.iov_len = r.retry_len;
		fuse_reply_ioctl_retry(req, &iov, 1, NULL, 0);
		return;
	case HD_IOCTL_BADARG:
		rc = -EFAULT;
		break;
	case HD_IOCTL_BADCMD:
	default:
		hd_log_odd("pid %d: ioctl 0x%x is not a helper "
			      "request (ENOTTY)", (int)ctx->pid, cmd);
		rc = -ENOTTY;
		break;
	}
	hd_dev_reply(req, rc);
}

void hd_dev_reply(void *req, int rc)
{
	if (rc < 0)
		fuse_reply_err(req, -rc);
	else
		fuse_reply_ioctl(req, rc, NULL, 0);
}

/* ---- FUSE ------------------------------------------------------------ */

static void fill_attr(const struct hd_dev *dev, fuse_ino_t ino,
		      struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = geteuid();
	st->st_gid = getegid();
	st->st_atime = st->st_mtime = st->st_ctime = dev->since;
	if (ino == INO_DIR) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else {
		st->st_mode = S_IFREG | 0666;
		st->st_nlink = 1;
		/* What drti.o reads to know it need not register children. */
		if (dev->hd->follows_fork)
			st->st_size = (off_t)DTRACE_HELPER_SIZE_FOLLOWS_FORK;
	}
}

static void fs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct hd_dev *dev = fuse_req_userdata(req);
	struct fuse_entry_param e;

	if (parent != INO_DIR || strcmp(name, dev->hd->node)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = INO_DEV;
	e.attr_timeout = 3600;
	e.entry_timeout = 3600;
	fill_attr(dev, INO_DEV, &e.attr);
	fuse_reply_entry(req, &e);
}

static void fs_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct hd_dev *dev = fuse_req_userdata(req);
	struct stat st;

	(void)fi;
	if (ino != INO_DIR && ino != INO_DEV) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fill_attr(dev, ino, &st);
	fuse_reply_attr(req, &st, 3600);
}

static void fs_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		       int to_set, struct fuse_file_info *fi)
{
	(void)ino;
	(void)attr;
	(void)to_set;
	(void)fi;
	fuse_reply_err(req, EPERM);
}

static void fs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size,
		       off_t off, struct fuse_file_info *fi)
{
	struct hd_dev *dev = fuse_req_userdata(req);
	const char *names[3] = { ".", "..", dev->hd->node };
	char buf[512];
	size_t used = 0;
	off_t i;

	(void)fi;
	if (ino != INO_DIR) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	if (size > sizeof(buf))
		size = sizeof(buf);
	for (i = off; i < 3; i++) {
		struct stat st;
		size_t n;

		fill_attr(dev, i == 2 ? INO_DEV : INO_DIR, &st);
		n = fuse_add_direntry(req, buf + used, size - used, names[i],
				      &st, i + 1);
		if (n > size - used)
			break;
		used += n;
	}
	fuse_reply_buf(req, buf, used);
}

static void fs_init(void *userdata, struct fuse_conn_info *conn)
{
	struct hd_dev *dev = userdata;

	dev->no_open = conn->capable & FUSE_CAP_NO_OPEN_SUPPORT;
}

static void fs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct hd_dev *dev = fuse_req_userdata(req);

	if (ino == INO_DIR) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	if (dev->no_open) {
		/*
		 * "Zero-message opens": the kernel opens the file itself
		 * from now on and sends neither OPEN nor RELEASE, two round
		 * trips of the four an open-ioctl-close costs.  We keep no
		 * per-open state, so nothing is lost.
		 */
		fuse_reply_err(req, ENOSYS);
		return;
	}
	fi->direct_io = 1;
	fi->nonseekable = 1;
	fuse_reply_open(req, fi);
}

static void fs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	(void)ino;
	(void)size;
	(void)off;
	(void)fi;
	fuse_reply_buf(req, NULL, 0);
}

static void fs_write(fuse_req_t req, fuse_ino_t ino, const char *buf,
		     size_t size, off_t off, struct fuse_file_info *fi)
{
	(void)ino;
	(void)buf;
	(void)size;
	(void)off;
	(void)fi;
	fuse_reply_err(req, EINVAL);
}

static void fs_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd,
		     void *arg, struct fuse_file_info *fi, unsigned flags,
		     const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	(void)fi;
	(void)flags;
	(void)out_bufsz;
	if (ino != INO_DEV) {
		fuse_reply_err(req, ENOTTY);
		return;
	}
	handle_ioctl(fuse_req_userdata(req), req, cmd, arg, in_buf, in_bufsz);
}

static const struct fuse_lowlevel_ops fs_ops = {
	.init = fs_init,
	.lookup = fs_lookup,
	.getattr = fs_getattr,
	.setattr = fs_setattr,
	.readdir = fs_readdir,
	.open = fs_open,
	.read = fs_read,
	.write = fs_write,
	.ioctl = fs_ioctl,
};

/* ---- CUSE ------------------------------------------------------------ */

static void cd_init_done(void *userdata)
{
	struct hd_dev *dev = userdata;

	/* No udev rule to rely on: every user may register. */
	if (chmod(dev->hd->device, 0666) < 0)
		hd_log(HD_WARN, "chmod 0666 %s: %s", dev->hd->device,
		       strerror(errno));
}

static void cd_open(fuse_req_t req, struct fuse_file_info *fi)
{
	fi->direct_io = 1;
	fi->nonseekable = 1;
	fuse_reply_open(req, fi);
}

static void cd_read(fuse_req_t req, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	fs_read(req, INO_DEV, size, off, fi);
}

static void cd_write(fuse_req_t req, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	fs_write(req, INO_DEV, buf, size, off, fi);
}

static void cd_ioctl(fuse_req_t req, int cmd, void *arg,
		     struct fuse_file_info *fi, unsigned flags,
		     const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	(void)fi;
	(void)flags;
	(void)out_bufsz;
	handle_ioctl(fuse_req_userdata(req), req, (unsigned)cmd, arg, in_buf,
		     in_bufsz);
}

static const struct cuse_lowlevel_ops cd_ops = {
	.init_done = cd_init_done,
	.open = cd_open,
	.read = cd_read,
	.write = cd_write,
	.ioctl = cd_ioctl,
};

/* ---- set-up ---------------------------------------------------------- */

static int detach(const char *mp)
{
	pid_t pid;
	int st;

	if (umount2(mp, MNT_DETACH) == 0)
		return 0;
	/* Not root: the setuid helper may unmount the user's own mount. */
	pid = fork();
	if (pid == 0) {
		execlp("fusermount3", "fusermount3", "-u", "-z", "-q", mp,
		       (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		return -EBUSY;
	return 0;
}

static int mkdirs(const char *path, bool *made)
{
	char buf[4096], *p;

	*made = false;
	if ((size_t)snprintf(buf, sizeof(buf), "%s", path) >= sizeof(buf))
		return -ENAMETOOLONG;
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) == 0)
		*made = true;
	else if (errno != EEXIST)
		return -errno;
	return 0;
}

/*
 * A stale FUSE mount at the mount point (a daemon that died without
 * unmounting leaves "Transport endpoint is not connected") is detached;
 * a live one of another daemon, or a non-empty directory, is an error.
 * 0 or -errno after logging.
 */
static int prepare_mountpoint(struct helperd *hd)
{
	const char *mp = hd->mountpoint;
	struct statfs sf;
	struct stat st;
	struct dirent *de;
	bool made;
	DIR *d;
	int err;

	/*
	 * stat() of a dead mount's root may be answered from cached
	 * attributes; statfs() always asks the (absent) server.
	 */
	if ((statfs(mp, &sf) < 0 && errno == ENOTCONN) ||
	    (stat(mp, &st) < 0 && errno == ENOTCONN)) {
		err = detach(mp);
		if (err) {
			hd_log(HD_ERR, "%s: a stale FUSE mount is in the way "
			       "and cannot be detached (run `fusermount3 -u "
			       "-z %s` as its owner)", mp, mp);
			return err;
		}
		hd_log(HD_NOTICE, "%s: detached a stale mount left by a "
		       "helper that died", mp);
	}
	err = mkdirs(mp, &made);
	if (err) {
		hd_log(HD_ERR, "cannot create %s: %s", mp, strerror(-err));
		return err;
	}
	if (statfs(mp, &sf) == 0 && sf.f_type == FUSE_SUPER_MAGIC) {
		hd_log(HD_ERR, "%s is already a live FUSE mount (another "
		       "dtrace-helperd?); not mounting over it", mp);
		return -EBUSY;
	}
	d = opendir(mp);
	if (!d) {
		err = -errno;
		hd_log(HD_ERR, "%s: %s", mp, strerror(-err));
		return err;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		hd_log(HD_ERR, "%s is not empty (it holds '%s'%s); mounting "
		       "the helper there would hide it -- choose another "
		       "--device", mp, de->d_name,
		       !strcmp(de->d_name, hd->node) ?
			       ", perhaps a kernel helper's device" : "");
		closedir(d);
		return -ENOTEMPTY;
	}
	closedir(d);
	return 0;
}

bool hd_dev_cuse_available(void)
{
	return access("/dev/cuse", R_OK | W_OK) == 0;
}

static struct hd_dev *start_fuse(struct hd_dev *dev)
{
	struct helperd *hd = dev->hd;
	char opts[256];
	char *argv[] = { (char *)"dtrace-helperd", (char *)"-o", opts, NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);

	snprintf(opts, sizeof(opts), "%sfsname=dtrace-helper,subtype=dtrace",
		 geteuid() == 0 ? "allow_other," : "");
	if (geteuid() != 0)
		hd_log(HD_WARN, "not running as root: only this user's "
		       "programs can open %s", hd->device);
	if (prepare_mountpoint(hd) < 0)
		return NULL;
	dev->se = fuse_session_new(&args, &fs_ops, sizeof(fs_ops), dev);
	fuse_opt_free_args(&args); /* parsing may have copied them */
	if (!dev->se) {
		hd_log(HD_ERR, "cannot start a FUSE session");
		return NULL;
	}
	if (fuse_session_mount(dev->se, hd->mountpoint) != 0) {
		hd_log(HD_ERR, "cannot mount the helper on %s (is /dev/fuse "
		       "there and fuse3 installed?)", hd->mountpoint);
		fuse_session_destroy(dev->se);
		dev->se = NULL;
		return NULL;
	}
	dev->mounted = true;
	return dev;
}

static struct hd_dev *start_cuse(struct hd_dev *dev)
{
	struct helperd *hd = dev->hd;
	char devname[256];
	const char *dev_info[] = { devname };
	char *argv[] = { (char *)"dtrace-helperd", (char *)"-f", (char *)"-s",
			 NULL };
	struct cuse_info ci;
	int mt = 0;

	if (strncmp(hd->device, "/dev/", 5) || !hd->device[5]) {
		hd_log(HD_ERR, "a CUSE device lives under /dev; %s does not",
		       hd->device);
		return NULL;
	}
	snprintf(devname, sizeof(devname), "DEVNAME=%s", hd->device + 5);
	memset(&ci, 0, sizeof(ci));
	ci.dev_info_argc = 1;
	ci.dev_info_argv = dev_info;
	ci.flags = CUSE_UNRESTRICTED_IOCTL;
	dev->se = cuse_lowlevel_setup(3, argv, &ci, &cd_ops, &mt, dev);
	if (!dev->se) {
		hd_log(HD_ERR, "cannot create the CUSE device %s", hd->device);
		return NULL;
	}
	return dev;
}

struct hd_dev *hd_dev_start(struct helperd *hd, enum hd_backend backend)
{
	struct hd_dev *dev = calloc(1, sizeof(*dev));
	struct hd_dev *ok;

	if (!dev)
		return NULL;
	dev->hd = hd;
	dev->since = time(NULL);
	if (backend == HD_BACKEND_AUTO)
		backend = hd_dev_cuse_available() ? HD_BACKEND_CUSE : HD_BACKEND_FUSE;
	dev->kind = backend;
	ok = backend == HD_BACKEND_CUSE ? start_cuse(dev) : start_fuse(dev);
	if (!ok)
		free(dev);
	return ok;
}

int hd_dev_fd(struct hd_dev *dev)
{
	return fuse_session_fd(dev->se);
}

int hd_dev_process(struct hd_dev *dev)
{
	int res = fuse_session_receive_buf(dev->se, &dev->buf);

	if (res == -EINTR || res == -EAGAIN)
		return 0;
	if (res <= 0)
		return -1; /* unmounted behind our back, or the device went */
	fuse_session_process_buf(dev->se, &dev->buf);
	return fuse_session_exited(dev->se) ? -1 : 0;
}

const char *hd_dev_kind(const struct hd_dev *dev)
{
	return dev->kind == HD_BACKEND_CUSE ? "CUSE" : "FUSE";
}

void hd_dev_stop(struct hd_dev *dev)
{
	if (!dev)
		return;
	if (dev->kind == HD_BACKEND_CUSE) {
		cuse_lowlevel_teardown(dev->se);
	} else {
		if (dev->mounted)
			fuse_session_unmount(dev->se);
		fuse_session_destroy(dev->se);
	}
	free(dev->buf.mem);
	free(dev);
}
