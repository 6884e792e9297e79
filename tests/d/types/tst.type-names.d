/* C's type-name combinations that are valid, each its size and sign */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d\n", (long int)-1, (short int)-1, (signed char)200,
	    (unsigned char)300);
	printf("%d %d %d\n", (long long)-1, (unsigned long long)-1 > 0,
	    (const unsigned int)-1 > 0);
	printf("%d %d\n", (unsigned)-1 == 4294967295, (signed)-1);
	exit(0);
}
