/* guestfish: N launches through libguestfs. */
#include <stdlib.h>

int guestfs_launch(int handle, const char *backend);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	for (int i = 0; i < n; i++)
		guestfs_launch(10 + i, "direct");
	return 0;
}
