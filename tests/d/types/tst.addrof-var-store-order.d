/*
 * A store into a global array or struct variable goes in place, after its
 * right side ran: a write through a pointer into the same variable made
 * by that right side stays (a[0] = (*x = 5) sets both), bit-fields and
 * op= too, and a later clause reads what was stored.
 */
#pragma D option quiet

int a[5];
int *x;
struct sx { int m; int n : 3; int k : 5; long l; };
struct sx s;
BEGIN
{
	x = &a[1];
	a[0] = (*x = 5);
	printf("%d %d\n", a[0], a[1]);
	a[2] = 7; a[2] += 1; a[3]++;
	printf("%d %d %d\n", a[2], a[3], x[2]);
	s.m = 3; s.n = -1; s.k = 9; s.l = 1 << 40;
	printf("%d %d %d %d\n", s.m, s.n, s.k, s.l);
	s.m = (*(&s.m) = 4) + 1;
	printf("%d\n", s.m);
}
BEGIN
{
	printf("%d %d %d %d %d\n", a[0], a[1], a[2], a[3], s.k);
	exit(0);
}
