/* errno is a failed system call's error at a syscall provider's return
 * probe (tests/run-kprov.sh); where no system call returned, it is 0,
 * a signed int. */
#pragma D option quiet

BEGIN
{
	printf("%d %d\n", errno, errno - 1 < 0);
	exit(0);
}
