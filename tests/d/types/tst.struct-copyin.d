/*
 * Members of a struct the traced process passes (triggers/tr-calls:
 * tr_pair(&pair)), read through copyin()'s copy: the struct declared as
 * the C source declares it, so each member is found at gcc's offset
 * (padding before d), with its size and sign (b is a negative short);
 * through a union holding it, a nested struct's members (->, then .)
 * and a member overlapping a, b, c and name[0] (x86-64: little-endian);
 * the char array name as a string, indexed and dereferenced, and int and
 * short arrays laid over the same bytes; [ ] of a plain pointer; an
 * array of structs and a struct pointer + 1 stepping by the struct's
 * size (b, c and name[0] as the second of two 4-byte structs).
 */
#pragma D option quiet

struct tr_pair {
	int a;
	short b;
	char c;
	char name[9];
	long long d;
};

union view {
	struct tr_pair p;
	unsigned long long head;
};

struct words {
	short s[2];
	int i[3];
};

struct two {
	short h;
	char lo, hi;
};

struct twos {
	struct two t[2];
};

pid$target:a.out:tr_pair:entry
{
	this->p = (struct tr_pair *)copyin(arg0, sizeof (struct tr_pair));
	printf("a=%d b=%d c=%c d=%x name=%s\n", this->p->a, this->p->b,
	    (*this->p).c, this->p->d,
	    stringof((char *)this->p + offsetof(struct tr_pair, name)));
	this->v = (union view *)copyin(arg0, sizeof (union view));
	printf("%d %d %c head=%x\n", this->v->p.a, (*this->v).p.b,
	    this->v->p.c, this->v->head);
	printf("name=%s [0]=%c [4]=%c *=%d\n", stringof(this->v->p.name),
	    this->v->p.name[0], this->p->name[2 + 2], *this->p->name);
	this->w = (struct words *)this->v;
	printf("s=%d,%d i[1]=%x i[2]=%x\n", this->w->s[0], this->w->s[1],
	    this->w->i[1], this->w->i[2]);
	printf("ptr[2]=%d\n", ((short *)copyin(arg0, 8))[2]); /* b */
	/* arrays of structs and struct pointer arithmetic: 4-byte steps */
	this->t = (struct two *)copyin(arg0, 8);
	this->ts = (struct twos *)this->t;
	printf("b=%d %d %d c=%c %c name[0]=%c\n", (this->t)[1].h,
	    (this->t + 1)->h, this->ts->t[1].h, this->ts->t[1].lo,
	    (*(this->t + 1)).lo, (this->t)[1].hi);
}
