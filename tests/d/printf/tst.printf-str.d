/* printf() string conversions: width, left adjustment and precision. */
#pragma D option quiet

BEGIN
{
	printf("[%s]\n", "hello");
	printf("[%10s] [%-10s]\n", "right", "left");
	printf("[%.3s]\n", "truncated");
	printf("[%s] [%d]\n", "mixed", 1);
	exit(0);
}
