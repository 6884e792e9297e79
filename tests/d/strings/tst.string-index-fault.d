/*
 * s[i] outside the string's strsize bytes is an illegal operation, and
 * indexing a NULL string (a variable cleared by 0, an unset self->
 * variable or array element) reads address i, as DTrace's does: both
 * are faults that end the clause and fire ERROR.
 */
#pragma D option quiet
#pragma D option strsize=16

self string never;

ERROR
{
	printf("fault %d addr %d\n", arg4, arg5);
}

BEGIN { s = "ABC"; i = 16; trace(s[i]); }
BEGIN { i = -1; trace(s[i]); }
BEGIN { s = 0; trace(s[2]); }
BEGIN { trace(self->never[1]); }
BEGIN { a[1] = "x"; trace(a[2][3]); }

BEGIN
{
	s = "again";
	printf("%c\n", s[4]);
	exit(0);
}
