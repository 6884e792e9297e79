/* SPDX-License-Identifier: MIT */
/*
 * ctrprog.c - for tests/run-ctypes-registry.sh: linked with libctr.so,
 * it creates the file READY, waits for a line on FIFO, calls the
 * library once and exits 0.
 *
 *	ctrprog FIFO READY
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

struct ctr_req;
int ctr_call(struct ctr_req *r);

int main(int argc, char **argv)
{
	long long buf[4] = {0};
	char c;
	int fd;

	if (argc != 3)
		return 2;
	fd = open(argv[2], O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		return 1;
	close(fd);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || read(fd, &c, 1) < 0)
		return 1;
	return ctr_call((struct ctr_req *)buf);
}
