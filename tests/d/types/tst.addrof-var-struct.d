/*
 * &s.m of a global struct variable: a pointer into its storage, typed
 * as the member's, that reads and writes the variable; the index past
 * the struct's end is an invalid address (on standard error, its
 * address dtrace's own), the clause ends there and the variable's
 * bytes are kept.
 */
struct foo {
	int m;
	char c;
	long l;
};
struct foo s;
int *p;
long *lp;

BEGIN
{
	p = &s.m;
	lp = &s.l;
	*p = 5;
	*lp = 123456789012;
	s.c = 'x';
	printf("%d %c %d %d %d\n", s.m, s.c, s.l, *p, lp - (long *)p);
}

BEGIN
{
	s.m++;
	*lp += 1;
	printf("%d %d %d\n", *p, s.l, sizeof (s));
}

BEGIN
{
	p[4] = 1;
	printf("not reached\n");
}

BEGIN
{
	printf("%d %d\n", s.m, p[3]);
	exit(0);
}
