/*
 * Integer constant expressions where D needs a constant: aggregating
 * functions' parameters, enumerators, array sizes, array members' sizes
 * and bit-field widths take an expression, as C and DTrace take them,
 * not a literal alone; each has the value the expression has at a
 * firing (run.c's arithmetic: d_const_dv()).
 */
#pragma D option quiet

enum sizes {
	KB = 1 << 10,
	HALF = KB / 2,
	ODD = KB % 3,
	BIG = (KB > 1000) ? 7 : 9,
	NOT = !KB,
	NEG = -(KB >> 2),
	MASK = ~0 & 0xff
};

struct rec {
	char name[4 * 2 + 1];
	int lo : 1 + 2;
	int hi : HALF / 128;
};

int a[2 * 2];
int b[sizeof(long) / 2 + BIG];

BEGIN
{
	printf("%d %d %d %d %d %d %d\n", KB, HALF, ODD, BIG, NOT, NEG, MASK);
	printf("%d %d %d\n", sizeof(struct rec), sizeof(a), sizeof(b));
	a[3] = 5;
	b[10] = 6;
	printf("%d %d\n", a[3], b[10]);
	@l = lquantize(25, 0, 10 * 10, 5 * 5);
	@ll = llquantize(2000, 10, 0, 2 + 1, 20 / 2);
	exit(0);
}
