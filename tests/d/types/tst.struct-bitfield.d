/*
 * Bit-fields read through copyin()'s copy of triggers/tr-calls' struct
 * tr_pair, laid over as another struct: the SysV ABI's placement (a
 * field never crosses a boundary of its type's size, :0 moves to the
 * next one), unsigned fields masked, signed ones sign-extended.  gcc
 * gives the same numbers for the same declarations over the same bytes.
 */
#pragma D option quiet

struct bf {
	unsigned a : 4;
	int b : 5;
	unsigned : 0;
	int c : 12;
	unsigned char d : 3;
	long long e : 40;
	unsigned f : 1;
	char g;
};

union ubf { int x : 3; char c; };
struct cbf { char c; int a : 4; short s : 9; };

pid$target:a.out:tr_pair:entry
{
	this->v = (struct bf *)copyin(arg0, sizeof (struct bf));
	printf("a=%d b=%d c=%d d=%d e=%d f=%d g=%d\n", this->v->a, this->v->b,
	    this->v->c, this->v->d, this->v->e, this->v->f, this->v->g);
}

END
{
	printf("%d %d %d %d\n", sizeof (struct bf), offsetof(struct bf, g),
	    sizeof (union ubf), sizeof (struct cbf));
}
