/*
 * Fixed-size array variables, as the D reference's "Pointers and
 * Arrays" chapter declares them (int a[5];): a global, a thread-local
 * and a clause-local one, zeros until written; elements assigned, with
 * op= and ++/--, stored as the element type (a uint8_t keeps 8 bits),
 * indexed by constants and by run-time values, read in a later clause
 * of the firing; an array of structs, its elements' members written;
 * sizeof of the array, the element count times the element's size.
 */
#pragma D option quiet

struct pt {
	int x;
	short y;
};

int a[5];
self uint8_t b[3];
this int64_t c[2];
struct pt pts[2];

BEGIN
{
	a[0] = 10;
	a[4] = -4;
	a[2] += 7;
	a[2]++;
	i = 3;
	a[i] = 33;
	a[i - 2] = a[i] * 2;
	printf("a %d %d %d %d %d\n", a[0], a[1], a[2], a[3], a[4]);
	self->b[1] = 300;
	self->b[2]--;
	printf("b %d %d %d\n", self->b[0], self->b[1], self->b[2]);
	this->c[1] = 1LL << 40;
	this->c[0] = this->c[1] + 1;
	pts[1].x = 5;
	pts[1].y = -1;
	pts[0].y = pts[1].y * 7;
	printf("pts %d %d %d %d\n", pts[0].x, pts[0].y, pts[1].x, pts[1].y);
	printf("sizeof %d %d %d %d\n", sizeof (a), sizeof (self->b),
	    sizeof (this->c), sizeof (pts));
}

BEGIN
{
	printf("later %d %d %d %d\n", a[4], self->b[1], this->c[0],
	    pts[1].x);
	exit(0);
}
