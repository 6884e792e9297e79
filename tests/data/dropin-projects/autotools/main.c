/* The program: its own probe (main.o is in no -G list) and the
 * library's, N times (argv[1], default 2). */
#include <stdlib.h>
#include "lt.h"

void lt_lib(int i);
void lt_util(int i);

static const char path[] = "/main";

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;

	for (int i = 0; i < n; i++) {
		*(volatile const char *)path;
		LT_REQ(path, 200 + i);
		lt_lib(i);
		lt_util(i);
	}
	return 0;
}
