/* strchr() and strrchr(): the string from the first (last) character c
 * on, NULL (printed as "") when c does not occur; c is a char. */
#pragma D option quiet

BEGIN
{
	s = "/usr/lib/libc.so.6";
	printf("[%s] [%s]\n", strchr(s, '/'), strrchr(s, '/'));
	printf("[%s] [%s]\n", strchr(s, 'l'), strrchr(s, '.'));
	printf("[%s] [%s]\n", strchr(s, 'z'), strrchr(s, 'z'));
	printf("[%s] [%d]\n", strchr(s, 0x100 + '.'), strchr(s, 'q') == NULL);
	exit(0);
}
