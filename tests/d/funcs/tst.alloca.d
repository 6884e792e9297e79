/* alloca(): zeroed scratch of the clause, read through pointers as
 * copyin()'s copies are, at most 64 KiB a clause with copyin()'s (past
 * it: out of scratch space); bcopy() only between this clause's scratch
 * buffers and copyinto() only into them (else an invalid address). */
#pragma D option quiet

/* the faulting addresses are dtrace's: standard error is not compared */
ERROR { printf("epid %d action %d fault %d\n", arg1, arg2, arg4); }

BEGIN
{
	this->a = alloca(8);
	printf("zeroed %d, ", *(uint64_t *)this->a);
	this->b = alloca(4);
	bcopy(this->a, this->b, 4);
	printf("copied %d, string [%s]\n", *(int *)this->b,
	    stringof(this->b));
}

BEGIN { this->big = alloca(65536); printf("64k\n"); this->more = alloca(1); }
BEGIN { this->p = alloca(4); bcopy(this->p, this->p + 2, 4); }
BEGIN { this->p = alloca(4); copyinto(0, 4, this->p); }
BEGIN { this->p = alloca(4); copyinto(0, 8, this->p); }
BEGIN { this->p = alloca(2); printf("%d\n", *(int *)this->p); }
BEGIN { this->p = alloca(-1); }
BEGIN { exit(0); }
