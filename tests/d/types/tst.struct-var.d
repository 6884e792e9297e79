/*
 * A struct held by value: this->s = *p and g = *p copy the bytes of
 * tr-calls' struct tr_pair out of copyin()'s copy, so the next clause of
 * the firing (where that copy, scratch of the clause before, is gone)
 * still reads its members; a struct variable copies to another, and a
 * global keeps the last firing's struct.
 */
#pragma D option quiet

struct tr_pair {
	int a;
	short b;
	char c;
	char name[9];
	long long d;
};

pid$target:a.out:tr_pair:entry
{
	this->p = (struct tr_pair *)copyin(arg0, sizeof (struct tr_pair));
	this->s = *this->p;
	g = *this->p;
}

pid$target:a.out:tr_pair:entry
{
	printf("%d %d %c %s %d %s\n", this->s.a, this->s.b, this->s.c,
	    stringof(this->s.name), this->s.d >> 32, stringof(g.name));
	this->t = this->s;
	printf("%d %c\n", this->t.a + g.a, this->t.name[4]);
}

END
{
	printf("last %d %s\n", g.a, stringof(g.name));
}
