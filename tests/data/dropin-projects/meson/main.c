/* The program: its own probe and the library's, N times (argv[1]). */
#include <stdlib.h>
#include "trace-ms.h"

void ms_lib(int i);

static const char path[] = "/main";

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;

	for (int i = 0; i < n; i++) {
		*(volatile const char *)path;
		MS_REQ(path, 200 + i);
		ms_lib(i);
	}
	return 0;
}
