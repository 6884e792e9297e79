/*
 * The Dynamic Tracing Guide's "Pointer Arithmetic" (Pointers and
 * Arrays): arithmetic is applied "when a pointer is subtracted from
 * another pointer", its example tracing 2 for y - x two ints apart
 * (there y = &a[2], x = &a[0]; here y = x + 2).  Each declarator of
 * int *x, *y; has its own '*', as in C (was a syntax error); q - p is
 * the bytes between them divided by the size of what p points to, as
 * DTrace divides it: unsigned, so p - q prints what 2^64 - 8 divided by
 * 4 is (was the bytes: 8); n + p scales n as p + n does (was n + the
 * address).
 */
#pragma D option quiet

int *x, *y;
struct pt {
	int a;
	char b[12];
};

BEGIN
{
	y = x + 2;
	printf("%d %d\n", y - x, x - y);
	printf("%d %d\n", (long)(1 + x), (long)(3 + y));
	this->p = (uint16_t *)alloca(8);
	this->q = this->p + 3;
	printf("%d\n", this->q - this->p);
	this->s = (struct pt *)alloca(64);
	this->t = this->s + 2;
	printf("%d %d\n", this->t - this->s,
	    (long)this->t - (long)this->s);
	exit(0);
}
