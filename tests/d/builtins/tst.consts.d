/* Signal and errno names are Linux's numbers; caller is 0 (no kernel
 * stack), and at BEGIN, in dtrace itself, there is no user stack. */
#pragma D option quiet

BEGIN
{
	printf("SIGHUP %d SIGKILL %d SIGUSR1 %d SIGUSR2 %d SIGCHLD %d\n",
	    SIGHUP, SIGKILL, SIGUSR1, SIGUSR2, SIGCHLD);
	printf("EPERM %d ENOENT %d EAGAIN %d EWOULDBLOCK %d ENOTSUP %d\n",
	    EPERM, ENOENT, EAGAIN, EWOULDBLOCK, ENOTSUP);
	printf("caller %d ustackdepth %d\n", caller, ustackdepth);
	exit(0);
}
