/* The launcher: calls the library N times (argv[1], default 2). */
#include <stdlib.h>

void jv_work(int i);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;

	for (int i = 0; i < n; i++)
		jv_work(i);
	return 0;
}
