/*
 * The Dynamic Tracing Guide's Pointers and Arrays chapter: an array of
 * pointers and a pointer to a pointer keep their whole type, so
 * arithmetic on an element, or on what one points to, scales by the
 * innermost target as C's does (a[1] + 1 and *pp + 1 added 1: the
 * element of int *a[5] and *pp of int **pp were plain 8-byte integers).
 * Every level: declared (global, this->, a fixed-size array, a struct
 * member), cast, ?: and a variable first assigned one.
 */
#pragma D option quiet

int *a[5];
long *b[3];
int **c[2];
int **pp;
char ***ppp;

struct s {
	short **m;
	int *e[2];
};

BEGIN
{
	printf("%d %d %d %d\n", (long)(a[1] + 1), (long)(a[2] + 2),
	    (long)(b[0] + 1), (long)(c[1] + 1));
	pp = (int **)alloca(16);
	*pp = (int *)100;
	pp[1] = (int *)200;
	printf("%d %d %d %d\n", (long)(*pp + 1), (long)(pp[1] + 2),
	    (long)(*(pp + 1) + 1), (long)((pp + 3) - pp));
	this->q = *pp;
	this->q++;
	this->r = 1 ? pp[1] : *pp;
	printf("%d %d %d\n", (long)this->q, (long)(this->q + 1),
	    (long)(this->r + 1));
	ppp = (char ***)alloca(8);
	*ppp = (char **)alloca(8);
	**ppp = (char *)1000;
	printf("%d %d\n", (long)(*ppp + 1) - (long)*ppp, (long)(**ppp + 1));
	this->c = (short ***)alloca(8);
	printf("%d\n", (long)(*this->c + 1) - (long)*this->c);
	this->s = (struct s *)alloca(sizeof (struct s));
	this->s->m = (short **)alloca(8);
	*this->s->m = (short *)50;
	printf("%d %d\n", (long)(*this->s->m + 1),
	    (long)(this->s->e[1] + 1));
	exit(0);
}
