/*
 * %c takes a char, short or int: arg0 (int64_t) is refused, as DTrace's
 * pfcheck_csi() refuses it, not printed as its low byte.
 */
BEGIN
{
	printf("%c\n", arg0);
	exit(0);
}
