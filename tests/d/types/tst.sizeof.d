/* sizeof of a type name and of an expression whose type is known */
#pragma D option quiet

int16_t v;

BEGIN
{
	printf("%d %d %d %d %d\n", sizeof(char), sizeof(short), sizeof(int),
	    sizeof(long), sizeof(long long));
	printf("%d %d %d %d\n", sizeof(uint8_t), sizeof(int *), sizeof(void *),
	    sizeof(unsigned short));
	printf("%d %d %d %d %d\n", sizeof arg0, sizeof(v), sizeof(pid),
	    sizeof((short)1), sizeof 'a');
	printf("%d\n", sizeof(int) * 2 - 9 > 0);	/* size_t: unsigned */
	exit(0);
}
