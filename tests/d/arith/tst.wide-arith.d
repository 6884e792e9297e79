/*
 * D computes in 64 bits, as DTrace's registers do: a result has C's type
 * (int for two ints) but keeps its high bits, so comparisons, sums and
 * shifts see the whole value; only a record (trace(), printf(), a key)
 * prints it at its type's size, and a cast or a declared variable
 * narrows it.  Issue 25: 1 << 31 was negative in comparisons and an int
 * product lost its high bits.
 */
#pragma D option quiet

int32_t narrow;

BEGIN
{
	trace(1 << 31); printf("\n");		/* an int record: 4 bytes */
	printf("%d\n", (1 << 31) > 0);		/* 2147483648 > 0 */
	printf("%d\n", (long)(1 << 31));	/* the whole value */
	a = 100000;
	b = 100000;
	printf("%d %d\n", a * b, (long)(a * b));
	@prod = sum(a * b);			/* 10000000000 */
	x = 1;
	x <<= 20;
	x <<= 20;
	printf("%d %d\n", x > 1000000000, (long)x);	/* 2^40 */
	i = 2147483647;
	i++;
	printf("%d %d\n", i, i > 0);
	narrow = a * b;				/* a declared int32_t */
	printf("%d %d\n", narrow, narrow > 0);
	printf("%d\n", (uint32_t)-1 + 1 > 0);	/* 4294967296, not 0 */
	exit(0);
}
