/* Lands N "exceptions" through the miniature unwinder. */
#include <stdint.h>
#include <stdlib.h>

void *unw_land(void *cfa, void *handler);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	for (int i = 0; i < n; i++)
		unw_land((void *)(uintptr_t)(0x1000 + i),
			 (void *)(uintptr_t)(0x2000 + i));
	return 0;
}
