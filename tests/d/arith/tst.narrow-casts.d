/*
 * Casts to narrower types narrow exactly as C converts (issue 25: these
 * printed 65535, 200, -1 and 254): trace(), printf() and aggregation keys
 * print a value by its type's size and sign.
 */
#pragma D option quiet

BEGIN
{
	trace((int16_t)-1); printf("\n");
	x = (int8_t)200; trace(x); printf("\n");
	trace((uint32_t)-1); printf("\n");
	trace((uint8_t)-1); printf("\n");
	trace((short)65535); printf("\n");
	trace((unsigned short)-2); printf("\n");
	trace((char)0x1ff); printf("\n");
	trace((int)0x180000000); printf("\n");
	printf("%d %d %u %d\n", (int8_t)200, (int16_t)-1, (uint32_t)-1,
	    (int)4294967295);
	printf("%d\n", x == -56);
	@[(int8_t)-2] = count();
	@[(int8_t)254] = count();
	@u[(uint16_t)-3] = count();
	exit(0);
}
