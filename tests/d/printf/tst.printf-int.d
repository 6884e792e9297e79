/* printf() integer conversions, flags, widths and precisions. */
#pragma D option quiet

BEGIN
{
	printf("[%d] [%i] [%u] [%x] [%X] [%o]\n", 42, -42, 42, 255, 255, 8);
	printf("[%5d] [%-5d] [%05d] [%+d] [% d]\n", 42, 42, 42, 42, 42);
	printf("[%#x] [%#o] [%.3d] [%8.3d]\n", 255, 8, 7, 7);
	printf("[%c%c%c]\n", 'a', 98, 'c');
	printf("[%lld] [%llx] [%lu]\n", 9223372036854775807, -1LL, 1UL);
	printf("[%%] [100%%]\n");
	exit(0);
}
