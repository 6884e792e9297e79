/*
 * The Dynamic Tracing Guide's unary & ("Pointers and Addresses",
 * "Pointers to DTrace Objects"): the address of a member or element of
 * memory a pointer names (here an alloca()), as C computes it: &p->m is
 * p plus m's offset, &p->a[i] the element's, &p[1] one struct on, &*p
 * is p, and the result is a pointer to the member's type (*&p->x reads
 * it, &p->in is a struct pointer, &p->ip a pointer to a pointer).
 * Nothing is read: a traced process's address cast to a pointer gives
 * its member's address without a fault.  Was "the unary & operator is
 * not supported".
 */
#pragma D option quiet

struct in { short a; int b; };
struct s { int x; char c; long arr[4]; struct in in; int *ip; unsigned int bf : 3; };
BEGIN
{
	this->p = (struct s *)alloca(sizeof (struct s));
	this->p->x = 5;
	this->p->arr[2] = 77;
	this->p->in.b = 9;
	printf("%d %d %d %d %d\n",
	    (long)&this->p->x - (long)this->p,
	    (long)&this->p->c - (long)this->p,
	    (long)&this->p->arr[2] - (long)this->p,
	    (long)&this->p->in - (long)this->p,
	    (long)&this->p->in.b - (long)this->p);
	printf("%d %d %d\n", *&this->p->x, *&this->p->arr[2], (&this->p->in)->b);
	printf("%d %d\n", (long)&(*this->p).c - (long)this->p, (long)&this->p[1] - (long)this->p);
	printf("%d\n", (long)(&this->p->arr[1] + 1) - (long)this->p);
	this->q = &this->p->x;
	*this->q = 42;
	printf("%d %d\n", this->p->x, (long)&this->p->ip - (long)this->p);
	this->pp = &this->p->ip;
	*this->pp = &this->p->in.b;
	printf("%d\n", **this->pp);
	/* a traced process's address: & reads nothing */
	this->u = (struct s *)0x1000;
	printf("0x%x 0x%x\n", (uint64_t)&this->u->arr[3], (uint64_t)&this->u->in.b);
	exit(0);
}
