/* dtrace:::ERROR fires on each fault with DTrace's arguments: arg1 the
 * faulting clause's enabled probe ID, arg2 its action (0: predicate),
 * arg3 -1 (no DIF offset), arg4 the DTRACEFLT_* code, arg5 the bad
 * address (0 for the other faults); DTrace's message is printed too. */
#pragma D option quiet

ERROR
{
	printf("%s:%s: epid %d action %d offset %d fault %d addr 0x%x\n",
	    probeprov, probename, arg1, arg2, (int)arg3, arg4, arg5);
}

BEGIN { trace(copyinstr(16)); }
BEGIN { x = 0; y = 7; y = y % x; }
BEGIN /1 / x/ { trace("never"); }
BEGIN { trace(lltostr(10, 99)); }
BEGIN { this->p = copyin(0, -1); }

BEGIN
{
	printf("BADADDR %d ILLOP %d DIVZERO %d NOSCRATCH %d\n",
	    DTRACEFLT_BADADDR, DTRACEFLT_ILLOP, DTRACEFLT_DIVZERO,
	    DTRACEFLT_NOSCRATCH);
	exit(0);
}
