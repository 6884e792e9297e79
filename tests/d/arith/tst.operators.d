/* C's operators: division truncates toward zero, shifts, bitwise and
 * logical operators, ?:, and ^^ (logical xor). */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d\n", 7 / 2, -7 / 2, 7 % 3, -7 % 3);
	printf("%d %d %d\n", 1 << 4, 256 >> 2, -16 >> 2);
	printf("%d %d %d %d\n", 6 & 3, 6 | 3, 6 ^ 3, ~0);
	printf("%d %d %d %d\n", 1 && 0, 1 || 0, 1 ^^ 1, !5);
	printf("%s %d\n", 3 > 2 ? "yes" : "no", 0 ? 1 : 2);
	printf("%d\n", 2 + 3 * 4 - (2 + 3) * 4);
	exit(0);
}
