// SPDX-License-Identifier: MIT
/*
 * ftcheck.c - /dev/dtrace/fasttrap (usdt/fasttrap_abi.h) driven directly,
 * in the check-kmod guest (tests/kmod/steps-trace.sh): the requests the
 * module must refuse, and one site of this program's own, enabled,
 * fired and read back field by field.  One line per check, "ok WHAT" or
 * "FAIL WHAT: why"; the exit status is the number of failures.
 *
 * The site is a NOP at the label ft_site, with the asm constraints
 * putting the arguments in %edi and %rsi there, as at a USDT site.
 * `ftcheck drops N` checks the drop count instead (see drops()).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "usdt/fasttrap_abi.h"

extern const char ft_site[];
static int nfail;

__attribute__((noinline, noclone)) static void site(int x, const char *s)
{
	__asm__ volatile(".globl ft_site\nft_site: nop"
			 :
			 : "D"(x), "S"(s)
			 : "memory");
}

static void result(int good, const char *what, const char *why)
{
	if (good) {
		printf("ok %s\n", what);
	} else {
		printf("FAIL %s: %s\n", what, why);
		nfail++;
	}
}

/* ENABLE en must fail with errno want */
static void refused(int fd, const struct ft_enable *en, int want,
		    const char *what)
{
	char why[128];
	int r = ioctl(fd, FASTTRAPIOC_ENABLE, en);

	snprintf(why, sizeof(why), "returned %d (%s), wanted %s", r,
		 r < 0 ? strerror(errno) : "success", strerror(want));
	result(r < 0 && errno == want, what, why);
}

/* the file offset of addr in this program's executable mapping */
static uint64_t file_off(const void *addr)
{
	unsigned long a = (unsigned long)addr, lo, hi, off;
	char line[512], perm[8];
	FILE *f = fopen("/proc/self/maps", "r");
	uint64_t r = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s %lx", &lo, &hi, perm, &off) ==
			    4 &&
		    a >= lo && a < hi)
			r = a - lo + off;
	if (f)
		fclose(f);
	return r;
}

/*
 * `ftcheck drops N`: N hits and no reader; the module loaded with a small
 * ring.  Every hit is a record or a drop, and the records read back are
 * the hits STATS counts.
 */
static int drops(int fd, const struct ft_enable *en, long n)
{
	static uint8_t buf[1 << 16];
	struct ft_stats st;
	long got = 0;
	ssize_t r;
	char why[128];

	result(ioctl(fd, FASTTRAPIOC_ENABLE, en) == 0, "drops: ENABLE",
	       strerror(errno));
	for (long i = 0; i < n; i++)
		site((int)i, NULL);
	result(ioctl(fd, FASTTRAPIOC_STATS, &st) == 0, "drops: STATS",
	       strerror(errno));
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t pos = 0; pos < r; got++)
			pos += ((const struct ft_record *)(buf + pos))->size;
	snprintf(why, sizeof(why), "hits %llu drops %llu read %ld",
		 (unsigned long long)st.hits, (unsigned long long)st.drops,
		 got);
	result(st.drops > 0 && st.hits + st.drops == (uint64_t)n,
	       "drops: every hit a record or a drop", why);
	result(got > 0 && (uint64_t)got == st.hits,
	       "drops: the records read are the hits", why);
	return nfail;
}

int main(int argc, char **argv)
{
	int fd = open(FASTTRAP_DEVNAME, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	int self = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	int dir = open("/", O_RDONLY | O_CLOEXEC);
	struct ft_enable en, good;
	struct ft_record rec;
	struct ft_stats st;
	static uint8_t buf[1 << 16];
	struct pollfd pfd;
	char why[256];
	ssize_t n;

	if (fd < 0 || self < 0 || dir < 0) {
		printf("FAIL open: %s\n", strerror(errno));
		return 1;
	}
	memset(&good, 0, sizeof(good));
	good.pid = getpid();
	good.fd = self;
	good.offset = file_off(ft_site);
	good.cookie = 0x1234567890abcdefULL;
	good.nargs = 5;
	good.strmask = 1u << 1;
	good.args[0] = (struct ft_arg){
		.kind = FT_LOC_REG, .reg = 5, .size = 4, .is_signed = 1};
	good.args[1] = (struct ft_arg){.kind = FT_LOC_REG, .reg = 4, .size = 8};
	good.args[2] = (struct ft_arg){
		.kind = FT_LOC_CONST, .size = 2, .off = 0x12345};
	good.args[3] = (struct ft_arg){
		.kind = FT_LOC_MEM, .reg = 4, .size = 1, .off = 1};
	good.args[4] =
		(struct ft_arg){.kind = FT_LOC_REG, .reg = 16, .size = 8};

	if (argc > 2 && !strcmp(argv[1], "drops"))
		return drops(fd, &good, strtol(argv[2], NULL, 10));
	n = read(fd, buf, sizeof(buf));
	result(n < 0 && errno == EAGAIN, "empty ring, O_NONBLOCK: EAGAIN",
	       strerror(errno));

	en = good, en.nargs = FT_MAXARGS + 1;
	refused(fd, &en, EINVAL, "13 arguments");
	en = good, en.args[0].pad = 1;
	refused(fd, &en, EINVAL, "nonzero pad");
	en = good, en.args[0].size = 3;
	refused(fd, &en, EINVAL, "size 3");
	en = good, en.args[0].reg = 17;
	refused(fd, &en, EINVAL, "register 17");
	en = good, en.args[0].kind = 4;
	refused(fd, &en, EINVAL, "kind 4");
	en = good, en.args[5].size = 8;
	refused(fd, &en, EINVAL, "an argument past nargs not zero");
	en = good, en.strmask = 1u << 5;
	refused(fd, &en, EINVAL, "a string past nargs");
	en = good, en.flags = 8; /* FT_ISENABLED, _FOLLOW, _EXEC known */
	refused(fd, &en, EINVAL, "unknown flag");
	en = good, en.flags = FT_ISENABLED;
	refused(fd, &en, EINVAL, "is-enabled with arguments");
	en = good, en.flags = FT_ISENABLED, en.nargs = 0, en.strmask = 0;
	refused(fd, &en, EINVAL, "is-enabled on other bytes");
	en = good, en.pid = 0;
	refused(fd, &en, EINVAL, "pid 0");
	en = good, en.pid = 4194304 - 1;
	refused(fd, &en, ESRCH, "a pid that does not exist");
	en = good, en.fd = 999;
	refused(fd, &en, EBADF, "a descriptor that is not open");
	en = good, en.fd = dir;
	refused(fd, &en, EINVAL, "a directory");
	en = good, en.offset = 1ULL << 40;
	refused(fd, &en, EINVAL, "an offset past the end of the file");

	result(good.offset != 0, "the site's file offset", "not mapped?");
	result(ioctl(fd, FASTTRAPIOC_ENABLE, &good) == 0, "ENABLE",
	       strerror(errno));
	site(-5, "hello");
	site(7, NULL);
	site(8, (const char *)8); /* a string that faults */

	pfd = (struct pollfd){.fd = fd, .events = POLLIN};
	result(poll(&pfd, 1, 5000) == 1 && (pfd.revents & POLLIN),
	       "poll: POLLIN", "no");
	n = read(fd, buf, 16);
	result(n < 0 && errno == EINVAL, "read into 16 bytes: EINVAL",
	       strerror(errno));
	n = read(fd, buf, sizeof(rec) + 8); /* the first record only */
	snprintf(why, sizeof(why), "read %zd", n);
	result(n == sizeof(rec) + 8, "read: one whole record fits", why);
	n = read(fd, buf + sizeof(rec) + 8, sizeof(buf) - sizeof(rec) - 8);
	snprintf(why, sizeof(why), "read %zd", n);
	result(n == 2 * sizeof(rec), "read: the other two", why);

	memcpy(&rec, buf, sizeof(rec));
	snprintf(why, sizeof(why),
		 "size %u cookie %llx pid %d tid %d comm %.16s args %lld %llu "
		 "%llu strlen %u %u",
		 rec.size, (unsigned long long)rec.cookie, rec.pid, rec.tid,
		 rec.comm, (long long)rec.args[0],
		 (unsigned long long)rec.args[2],
		 (unsigned long long)rec.args[3], rec.strlen[0], rec.strlen[1]);
	result(rec.args[4] == (uintptr_t)ft_site,
	       "record 1: register 16 is the site's address", "no");
	result(rec.size == sizeof(rec) + 8 && rec.cookie == good.cookie &&
		       rec.pid == getpid() && rec.tid == getpid() &&
		       !strcmp(rec.comm, "ftcheck") &&
		       (int64_t)rec.args[0] == -5 && rec.args[2] == 0x2345 &&
		       rec.args[3] == 'e' && rec.strlen[0] == 0 &&
		       rec.strlen[1] == 6 &&
		       !memcmp(buf + sizeof(rec), "hello\0\0\0", 8) &&
		       rec.time > 0 && !rec.pad,
	       "record 1: fields, a string, padding", why);
	memcpy(&rec, buf + sizeof(rec) + 8, sizeof(rec));
	result(rec.size == sizeof(rec) && rec.args[0] == 7 &&
		       rec.args[1] == 0 && rec.strlen[1] == 0,
	       "record 2: a NULL string: strlen 0", "no");
	memcpy(&rec, buf + 2 * sizeof(rec) + 8, sizeof(rec));
	result(rec.size == sizeof(rec) && rec.args[0] == 8 &&
		       rec.args[3] == 0 && rec.strlen[1] == 0,
	       "record 3: faulting string and memory: 0", "no");

	result(ioctl(fd, FASTTRAPIOC_STATS, &st) == 0 && st.hits == 3 &&
		       st.drops == 0,
	       "STATS: 3 hits, no drops", "no");

	/* DISABLE: no more records, the last ones still readable */
	site(9, "last");
	result(ioctl(fd, FASTTRAPIOC_DISABLE, 0) == 0, "DISABLE",
	       strerror(errno));
	site(10, "off");
	n = read(fd, buf, sizeof(buf));
	memcpy(&rec, buf, sizeof(rec));
	snprintf(why, sizeof(why), "read %zd, first arg %lld", n,
		 (long long)rec.args[0]);
	result(n == sizeof(rec) + 8 && rec.args[0] == 9,
	       "DISABLE: the record before it is read, none after", why);
	result(ioctl(fd, FASTTRAPIOC_STATS, &st) == 0 && st.hits == 4 &&
		       st.drops == 0,
	       "DISABLE: STATS counts 4 hits", "no");
	result(ioctl(fd, FASTTRAPIOC_ENABLE, &good) == 0,
	       "ENABLE again after DISABLE", strerror(errno));
	site(11, "again");
	n = read(fd, buf, sizeof(buf));
	memcpy(&rec, buf, sizeof(rec));
	result(n > 0 && rec.args[0] == 11, "the site records again", "no");
	close(fd); /* disables the site */
	site(1, "after");
	result(1, "the site runs after close", "");
	return nfail;
}
