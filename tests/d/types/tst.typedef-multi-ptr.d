/*
 * Several names on a typedef'd pointer: each declarator's '*'s add to
 * the ones the base type already has (ip a, *b, **c: one, two and three
 * levels), and each level reads through alloca()'d memory.
 */
#pragma D option quiet

typedef int *ip;
typedef ip a, *b, **c;

BEGIN
{
	printf("%d %d %d\n", (long)((a)0 + 1), (long)((b)0 + 1),
	    (long)((c)0 + 1));
	this->q = (b)alloca(8);
	*this->q = (a)alloca(4);
	**this->q = 42;
	printf("%d\n", **this->q);
	exit(0);
}
