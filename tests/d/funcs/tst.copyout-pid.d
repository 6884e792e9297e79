/*
 * copyout() under -w at a pid provider probe: the thread is held at a
 * probe by a signal, which the kernel delivers only after it has run the
 * probed instruction (tr_pair()'s first, which loads p->a), so a write
 * there would come after what that instruction read.  Only a probe at a
 * NOP (USDT sites: tests/run-copyout.sh) is held; here each hit's
 * copyout() faults (DTRACEFLT_ILLOP, 3) and nothing is written:
 * tr_pair() returns the p->a it was passed.
 */
#pragma D option quiet

pid$target:a.out:tr_pair:entry
{
	this->v = (int *)alloca(4);
	*this->v = 100;
	copyout(this->v, arg0, 4);
}

pid$target:a.out:tr_pair:return
{
	printf("tr_pair returned %d\n", arg1);
}

ERROR
{
	printf("ERROR %d\n", arg4);
}
