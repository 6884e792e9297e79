/*
 * printf() and printa() size prefixes: an argument of the prototype's
 * type prints at its own size, as C prints it.
 */
#pragma D option quiet

short s;
unsigned char uc;

BEGIN
{
	s = 70000;
	uc = 300;
	printf("[%hd] [%hi] [%hu] [%ho]\n", (short)70000, (short)-2,
	    (unsigned short)70000, (unsigned short)8);
	printf("[%hx] [%hX] [%hx]\n", (short)-1, (unsigned short)-2,
	    (short)0x7fff);
	printf("[%hhd] [%hhu] [%hhx] [%hhx]\n", (char)300, (unsigned char)300,
	    (char)-1, (unsigned char)171);
	printf("[%hd] [%hhu] [%-7hd] [%07hx]\n", s, uc, (short)-s, s);
	printf("[%ld] [%li] [%lu] [%lo] [%lx] [%lX]\n", arg0, (long)-3, 4UL,
	    (unsigned long)8, -1L, (unsigned long)255);
	printf("[%lld] [%llu] [%llx] [%llo]\n", (long long)-5, 6ULL,
	    (long long)-1, (unsigned long long)8);
	@a[(short)70000, (unsigned char)300] = count();
	printa("[%hd] [%hhu] [%@d]\n", @a);
	exit(0);
}
