/*
 * enum declarations: the enumerators are int constants any expression
 * may use, counting from 0 or from the last value given.
 */
#pragma D option quiet

enum color { RED, GREEN = 5, BLUE, MASK = 1 << 4 | BLUE };
enum { NEG = -3, NEXT };

BEGIN
{
	printf("%d %d %d %d %d %d\n", RED, GREEN, BLUE, MASK, NEG, NEXT);
	name[GREEN] = "green";
	printf("%s %d %d\n", name[5], BLUE * 2, sizeof(RED));
	@[BLUE] = count();
	exit(0);
}
