/*
 * Members of a struct the traced process passes (triggers/tr-calls:
 * tr_pair(&pair)), read through copyin()'s copy: the struct declared as
 * the C source declares it, so each member is found at gcc's offset
 * (padding before d), with its size and sign (b is a negative short);
 * and through a union holding it, a nested struct's members (->, then .)
 * and a member overlapping a, b, c and name[0] (x86-64: little-endian).
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

pid$target:a.out:tr_pair:entry
{
	this->p = (struct tr_pair *)copyin(arg0, sizeof (struct tr_pair));
	printf("a=%d b=%d c=%c d=%x name=%s\n", this->p->a, this->p->b,
	    (*this->p).c, this->p->d,
	    stringof((char *)this->p + offsetof(struct tr_pair, name)));
	this->v = (union view *)copyin(arg0, sizeof (union view));
	printf("%d %d %c head=%x\n", this->v->p.a, (*this->v).p.b,
	    this->v->p.c, this->v->head);
}
