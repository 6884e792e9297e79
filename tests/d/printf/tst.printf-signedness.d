/* %d prints by the value's C type, as DTrace does: an unsigned value
 * prints unsigned, casts narrow and extend as in C. */
#pragma D option quiet

BEGIN
{
	printf("%d\n", (uint8_t)-1);
	printf("%d\n", (int8_t)255);
	printf("%d\n", (unsigned int)-1);
	printf("%d\n", (uint64_t)-1);
	printf("%d\n", (int16_t)65535);
	printf("%d\n", 0xffffffff);
	printf("%d\n", 1 - 2);
	exit(0);
}
