/* Declarations outside the clauses: D's scopes (global, self->, this->,
 * associative arrays with a key signature), several declarators of one
 * type, and a declared integer type kept on assignment (300 stored into
 * a uint8_t is 44; trace() prints by the declared size). */
#pragma D option quiet

self int depth;
this string s;
int g;
uint8_t small;
string names[int];
int counts[string, int];
unsigned long long big, other;
char *ptr;
int g;			/* the same declaration again is accepted */

BEGIN
{
	self->depth++;
	self->depth++;
	this->s = "clause-local";
	names[1] = "one";
	counts["a", 1] = 10;
	counts["a", 1] += 5;
	small = 300;
	big = -1;
	printf("%d %s %d [%s] [%s] %d %d\n", self->depth, this->s, g,
	    names[1], names[3], counts["a", 1], small);
	printf("%u %d %x\n", big, other, ptr);
	trace(g);
	trace(small);
	printf("\n");
}

BEGIN
{
	/* this-> keeps its value across the clauses of one firing */
	printf("%s\n", this->s);
	exit(0);
}
