/*
 * An element stored past the end of a struct variable (x.buf[i], i out
 * of the struct) is the run-time "invalid address" fault: the clause
 * ends, ERROR fires with DTRACEFLT_BADADDR in arg4, and the variable
 * keeps what it held; an index inside the struct writes it.
 */
#pragma D option quiet

struct s {
	int a;
	int buf[2];
};

struct s x;

BEGIN
{
	x.buf[1] = 7;
	i = 3;
	x.buf[i] = 1;
	x.a = 9;
}

ERROR
{
	printf("ERROR %d: a %d buf[1] %d\n", arg4, x.a, x.buf[1]);
	exit(0);
}
