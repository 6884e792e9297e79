/*
 * The Dynamic Tracing Guide's "Pointer Arithmetic" (Pointers and
 * Arrays): a declared int *x, traced as x, x + 1, x + 2, prints 0, 4
 * and 8, C's arithmetic scaled by the pointee.  A declared pointer
 * (global, thread-local, clause-local, an associative array's value)
 * scales as one first assigned a cast pointer does, and so do p++,
 * p--, p += n and p -= n, on those and on one assigned a cast pointer
 * (they stepped by bytes: 0 1 2, and ++ added 1).
 */
#pragma D option quiet

int *x;
self short *s;
this long *l;
char *c[int];
void *v;
int **pp;

BEGIN
{
	printf("%d %d %d\n", (long)x, (long)(x + 1), (long)(x + 2));
	printf("%d %d %d %d %d\n", (long)(self->s + 1), (long)(this->l + 1),
	    (long)(c[0] + 1), (long)(v + 1), (long)(pp + 1));
	x++;
	printf("x++ %d", (long)x);
	x += 2;
	printf(" += 2 %d", (long)x);
	x--;
	printf(" -- %d", (long)x);
	x -= 1;
	printf(" -= 1 %d", (long)x);
	printf(" post %d", (long)x++);
	printf(" pre %d\n", (long)++x);
	self->s += 3;
	c[1]++;
	printf("%d %d\n", (long)self->s, (long)c[1]);
	this->p = (uint64_t *)alloca(16);
	this->q = this->p;
	this->p++;
	this->p += 0;
	printf("%d\n", (long)this->p - (long)this->q);
	exit(0);
}
