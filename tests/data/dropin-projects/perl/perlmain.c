/* perl's and miniperl's main: no probe of its own (Perl's perlmain.o
 * has none, and -G still gets it); calls libperl N times (argv[1]). */
#include <stdlib.h>

void perl_op(int i);
void perl_sv(int i);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;

	for (int i = 0; i < n; i++) {
		perl_op(i);
		perl_sv(i);
	}
	return 0;
}
