/* Byte order (htons ... ntohll), rand() (an int: two calls differ),
 * progenyof() (dtrace descends from itself and from init, not from
 * an impossible pid). */
#pragma D option quiet

BEGIN
{
	printf("%x %x %x %x\n", htons(0x1234), htonl(0x12345678),
	    htonll(0x0102030405060708), ntohs(htons(0xabcd)));
	printf("%x %x\n", ntohl(0x78563412), ntohll(0x0807060504030201));
	printf("%d %d %d\n", progenyof($pid), progenyof(1),
	    progenyof(-5));
	x = rand();
	y = rand();
	printf("%d\n", x != y);
	exit(0);
}
