/*
 * Operands DTrace takes as constants take constant expressions too
 * (check.c's d_fold_int()): ustack()'s and jstack()'s frames, args[N]'s
 * and uregs[N]'s N, tracemem()'s size, each as its literal would be.
 * tr_int is called from main with 1, so its stack has more than one
 * frame.
 */
#pragma D option quiet

pid$target:a.out:tr_int:entry
/args[2 - 2] == 1/
{
	printf("%d %d %d %d\n", ustack(4 / 4) == ustack(1),
	    jstack(1 + 1) == ustack(2), args[1 - 1] == arg0,
	    uregs[R_PC - 0] == uregs[R_PC]);
	this->p = (uint64_t *)alloca(8);
	*this->p = 0x4847464544434241;
	tracemem(this->p, 1 << 3, 2 + 2);
	exit(0);
}
