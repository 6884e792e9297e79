/* if/else in clause bodies: blocks and single statements, else if,
 * nesting (an else binds to the nearest if), and a record only when a
 * recording statement ran. */
#pragma D option quiet

BEGIN
{
	x = 5;
	if (x > 3) {
		printf("big\n");
	} else {
		printf("small\n");
	}
	if (x == 1)
		printf("one\n");
	else if (x == 5)
		printf("five\n");
	else
		printf("other\n");
	if (x)
		if (x > 100)
			printf("huge\n");
		else
			printf("nested else\n");
	if (0) {
		printf("never\n");
	}
	if (x < 10) {
		if (x < 6) {
			y = "inner";
		}
		printf("%s\n", y);
	}
	exit(0);
}
