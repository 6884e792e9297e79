/* Calls both units N times (argv[1], default 2). */
#include <stdlib.h>

void dp1(int i);
void dp2(int i);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;

	for (int i = 0; i < n; i++) {
		dp1(i);
		dp2(i);
	}
	return 0;
}
